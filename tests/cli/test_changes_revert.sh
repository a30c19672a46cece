#!/bin/sh
# The change list after a revert and a fix made again: every row names the findings its
# hunk fixed, read in the version of the code the check that found them read (the head
# its run began at), not in a version inferred from which run last saw them. A revert of
# one fix and the fix made again used to move the rows of a later fix onto the wrong lines.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
mkdir -p "$p"
python3 - "$p/train.py" <<'PY'
import sys
lines = ["import torch", "", "scaler = torch.cuda.amp.GradScaler()", ""]
lines += ["def work():", "    if torch.cuda.is_available():", "        return 1", "    return 0", ""]
lines += ["# step %d of the schedule" % i for i in range(60)]
lines += ["", "def setup(rank):", "    torch.cuda.set_device(rank)", "    return torch.cuda.device_count()", ""]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
"$FERRY" -C "$p" check --phase adapt >/dev/null 2>&1
"$FERRY" -C "$p" fix --all --phase adapt --yes >/dev/null 2>&1 || fail "fix --all"
amp=$(sqlite3 "$p/.ferry/engagement.db" "SELECT id FROM checkpoints WHERE plugin = 'adapt.amp'")
expect_exit 0 "revert the mixed-precision fix" -- "$FERRY" -C "$p" revert "$amp"
# asked for by id: a fix of many findings leaves out what a revert undid (test_fix_declined)
amp_ids=$(sqlite3 "$p/.ferry/engagement.db" "SELECT group_concat(j.value, ' ') FROM checkpoints c, json_each(c.findings) j WHERE c.id = $amp")
expect_exit 0 "and make it again" -- "$FERRY" -C "$p" fix --finding $amp_ids --yes

# rows OUT: each row of train.py with the APIs its findings name
rows() {
	"$FERRY" -C "$p" report --format json --section changes --output "$1" >/dev/null 2>&1 || fail "report --section changes"
	python3 - "$1" "$p/.ferry/engagement.db" <<'PY'
import json, re, sqlite3, sys
d = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
for r in d["changes"]:
    apis = sorted(re.search(r"`torch\.cuda\.([\w.]+)`", db.execute("SELECT message FROM findings WHERE id = ?", (f,)).fetchone()[0]).group(1)
                  for f in r["findings"]
                  if re.search(r"`torch\.cuda\.", db.execute("SELECT message FROM findings WHERE id = ?", (f,)).fetchone()[0]))
    print(r["start_line"], r["after"].strip().split("\n")[0], " ".join(apis))
PY
}
rows "$work/changes.json" >"$work/rows.txt"
grep -q "^7 if torch.npu.is_available(): is_available$" "$work/rows.txt" &&
	ok "the row of is_available names its finding alone" || fail "is_available row: $(cat "$work/rows.txt")"
grep -q "^73 torch.npu.set_device(rank) device_count set_device$" "$work/rows.txt" &&
	ok "the row of set_device and device_count names both findings" || fail "set_device row: $(cat "$work/rows.txt")"
grep -q "^4 scaler = torch.npu.amp.GradScaler() amp.GradScaler$" "$work/rows.txt" &&
	ok "the fix made again lists its own finding" || fail "amp row: $(cat "$work/rows.txt")"

finish
