#!/bin/sh
# Plugin golden tests. For each fixture tests/plugins/<name>/ with a project/ folder and
# an expected.json: copy the project to a temporary directory, `ferry init` it, run
# `ferry check --phase assess --format json` and compare the findings with the golden
# list (compare.py: the exact set of plugin, file, line). Also checks that every fact
# table entry names its source, and that every torch.cuda name the mapping table marks
# unsupported is reported, that no bundled plugin uses `_` as a variable
# (underscore.py), and that the findings read in Chinese with FERRY_LANG=zh. Exits
# non-zero on any failure.
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
ferry=${FERRY:-$root/ferry}
export FERRY_ACTOR="plugin-tests <tests@example.invalid>"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-plugins.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$root/tests/plugins/lib.sh"

# check DIR OUT [ferry check args...]: init DIR and write the JSON findings to OUT.
check() {
	dir=$1
	out=$2
	shift 2
	if ! "$ferry" init "$dir" --client test >"$tmp/init.log" 2>&1; then
		cat "$tmp/init.log"
		return 1
	fi
	"$ferry" -C "$dir" check --format json "$@" >"$out" 2>"$tmp/check.log"
	rc=$?
	if [ $rc -ne 0 ]; then
		cat "$tmp/check.log"
		return 1
	fi
}

# 0. No bundled plugin or lib module hides the translation function _() by using `_` as
#    a variable (for _, x / local _ / a parameter _), and the checker does catch one that
#    does.
if python3 tests/plugins/underscore.py plugins/*/*.lua >"$tmp/underscore.log"; then
	ok "no bundled plugin uses _ as a variable"
else
	cat "$tmp/underscore.log"
	bad "no bundled plugin uses _ as a variable"
fi
cat >"$tmp/shadow.lua" <<'LUA'
local s = "for _, x in ipairs(t)" -- and for _, x in a comment: fine
for _, x in ipairs({}) do print(_("x")) end
LUA
if python3 tests/plugins/underscore.py "$tmp/shadow.lua" | grep -q "shadow.lua:2: .*loop variable"; then
	ok "the _ check finds a loop over _, not the one in a string or a comment"
else
	bad "the _ check finds a loop over _, not the one in a string or a comment"
fi

# 1. Fact tables: every entry carries a source, and the checker does catch one without.
if python3 tests/plugins/check_data.py plugins/data >"$tmp/data.log"; then
	ok "fact tables: every entry has a source"
else
	cat "$tmp/data.log"
	bad "fact tables: every entry has a source"
fi
mkdir -p "$tmp/baddata"
printf '{"entries": [{"name": "x", "source": "somewhere"}, {"name": "y"}]}\n' >"$tmp/baddata/t.json"
if python3 tests/plugins/check_data.py "$tmp/baddata" >/dev/null; then
	bad "fact tables: an entry without a source is rejected"
else
	ok "fact tables: an entry without a source is rejected"
fi

# 2. Golden fixtures.
for fixture in tests/plugins/*/; do
	name=$(basename "$fixture")
	[ -d "$fixture/project" ] && [ -f "$fixture/expected.json" ] || continue
	work="$tmp/$name"
	cp -R "$fixture/project" "$work"
	# a golden whose entries carry severity and key phrases is held to them too
	if check "$work" "$tmp/$name.json" --phase assess &&
		python3 tests/plugins/compare.py "$fixture/expected.json" "$tmp/$name.json" --phase assess &&
		{ ! grep -q '"severity"' "$fixture/expected.json" ||
			python3 tests/plugins/contains.py "$fixture/expected.json" "$tmp/$name.json"; }; then
		ok "golden: $name"
	else
		bad "golden: $name"
	fi
done

# 3. Every torch.cuda name that cuda_api_map.json marks unsupported is reported as an error.
mkdir -p "$tmp/unsupported"
python3 - "$tmp/unsupported/uses.py" "$tmp/unsupported/lines.json" <<'PY'
import json, sys
entries = json.load(open("plugins/data/cuda_api_map.json"))["entries"]
names = [e["name"] for e in entries if e.get("status") == "unsupported" and not e.get("owner")]
lines = {}
with open(sys.argv[1], "w") as out:
    out.write("import torch\n\n\ndef use(x):\n")
    for i, n in enumerate(names):
        out.write("    r%d = %s(x)\n" % (i, n))
        lines[n] = 5 + i
    out.write("    return x\n")
json.dump(lines, open(sys.argv[2], "w"))
PY
if check "$tmp/unsupported" "$tmp/unsupported.json" --plugin assess.cuda_apis &&
	python3 - "$tmp/unsupported/lines.json" "$tmp/unsupported.json" <<'PY'
import json, sys
lines = json.load(open(sys.argv[1]))
found = {(f["line"], f["severity"]) for f in json.load(open(sys.argv[2]))["findings"]
         if f["plugin"] == "assess.cuda_apis" and f["file"] == "uses.py"}
missing = [n for n, l in lines.items() if (l, "error") not in found]
for n in missing:
    print("  %s (line %d) is not reported as an error" % (n, lines[n]))
sys.exit(1 if missing or not lines else 0)
PY
then
	ok "cuda_api_map: every unsupported entry is reported"
else
	bad "cuda_api_map: every unsupported entry is reported"
fi

# 4. Read in Chinese, every finding above reads in Chinese.
dirs=""
for f in "$tmp"/*.json; do
	name=$(basename "$f" .json)
	[ -d "$tmp/$name/.ferry" ] && dirs="$dirs $tmp/$name"
done
zh_check "in Chinese, every finding of the fixtures reads in Chinese" $dirs

echo "plugins: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
