#!/bin/sh
# A Python file that starts with a UTF-8 byte-order mark: Python does not count the mark,
# so neither do the columns ferry reports on line 1 (text, JSON and SARIF), and a fix of
# such a file keeps the mark and every other byte it does not edit.
. "$(dirname "$0")/lib.sh"

p="$work/p"
mkdir -p "$p"
printf '\357\273\277import torch\nm = torch.nn.Linear(2, 2).cuda()\n' >"$p/bom.py"
printf '\357\273\277import torch\nx = torch.zeros(2).cuda()\n' >"$p/first.py"
printf '\357\273\277x = torch.zeros(2).cuda(); import torch\n' >"$p/oneline.py"
printf '\357\273\277def f(: torch.cuda()\n    pass\n' >"$p/broken.py"
"$FERRY" init "$p" >/dev/null 2>&1

expect_exit 0 "adapt runs over files with a byte-order mark" -- "$FERRY" -C "$p" check --phase adapt
cp "$work/out" "$work/text.txt"
expect_grep "bom.py:1:1 " "$work/text.txt" "a finding at the start of line 1 is at column 1"
expect_grep "oneline.py:1:5 " "$work/text.txt" "a call after 'x = ' on line 1 is at column 5"
expect_grep "bom.py:2:5 " "$work/text.txt" "columns of the other lines are as they were"
expect_grep "broken.py: syntax error at line 1, column 7" "$work/text.txt" "a syntax error on line 1 is placed as Python places it"

"$FERRY" -C "$p" findings --phase adapt --format json >"$work/f.json"
python3 - "$work/f.json" <<'PY' && ok "JSON columns on line 1 leave the mark out" || fail "JSON columns on line 1 count the mark"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
cuda = [x for x in f if x["file"] == "oneline.py" and x["plugin"] == "adapt.device_calls"]
assert cuda and cuda[0]["line"] == 1 and cuda[0]["col"] == 5 and cuda[0]["end_col"] == 26, cuda
PY

"$FERRY" -C "$p" check --phase adapt --format sarif --output "$work/s.sarif" >/dev/null 2>&1
python3 - "$work/s.sarif" <<'PY' && ok "SARIF regions on line 1 leave the mark out" || fail "SARIF regions on line 1 count the mark"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"][0]["results"]
reg = {}
for r in runs:
    loc = r["locations"][0]["physicalLocation"]
    if r["ruleId"] == "adapt.device_calls":
        reg[loc["artifactLocation"]["uri"]] = loc["region"]
one = reg["oneline.py"]
assert one["startLine"] == 1 and one["startColumn"] == 5 and one["endColumn"] == 26, one
PY

"$FERRY" -C "$p" fix --phase adapt --all --yes >"$work/out" 2>"$work/err" || sed 's/^/     | /' "$work/err"
head -c 3 "$p/bom.py" | od -An -tx1 | grep -q "ef bb bf" && ok "the fixed file keeps its byte-order mark" ||
	fail "the fix lost the byte-order mark"
printf '\357\273\277import torch\nimport torch_npu\nm = torch.nn.Linear(2, 2).npu()\n' >"$work/bom.want"
cmp -s "$p/bom.py" "$work/bom.want" && ok "the fix edits only what it meant to" || {
	fail "bom.py is not what the fix should make"
	od -c "$p/bom.py" | head -5 | sed 's/^/     | /'
}
finish
