#!/bin/sh
# Late-phase tests: golden findings of the tune, infer-convert and infer-optimize checks.
#
# Each tests/plugins/late/<case>/ holds project/ (the code), an optional config (lines
# "KEY VALUE" for `ferry config`), an optional artifacts/ folder whose files are named
# KIND.LABEL.EXT and are ingested in name order with `ferry ingest KIND FILE --label LABEL`,
# and one expected-<phase>.json per phase to check: a list of {plugin, file, line,
# severity, contains: [substrings of message + suggestion]}. The set of (plugin, file,
# line) of that phase must match exactly (compare.py), and every expected finding must
# have its severity and substrings.
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
ferry=${FERRY:-$root/ferry}
here=$root/tests/plugins/late
export FERRY_ACTOR="late-tests <tests@example.invalid>"
unset FERRY_PLUGIN_PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-late.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

if [ ! -x "$ferry" ]; then
	echo "FAIL $ferry is not built (run make)"
	exit 1
fi

# setup CASE WORK: a fresh engagement with the case's settings and artifacts
setup() {
	dir=$here/$1
	work=$2
	rm -rf "$work"
	cp -R "$dir/project" "$work"
	{
		"$ferry" init "$work" --client test >/dev/null 2>&1 || echo "init failed"
		if [ -f "$dir/config" ]; then
			while read -r key value; do
				[ -n "$key" ] && { "$ferry" -C "$work" config "$key" "$value" || echo "config $key failed"; }
			done <"$dir/config"
		fi
		if [ -d "$dir/artifacts" ]; then
			for f in "$dir"/artifacts/*; do
				[ -f "$f" ] || continue
				base=$(basename "$f")
				kind=${base%%.*}
				rest=${base#*.}
				label=${rest%%.*}
				"$ferry" -C "$work" ingest "$kind" "$f" --label "$label" >/dev/null || echo "ingest $base failed"
			done
		fi
	} >"$tmp/setup.log" 2>&1
	[ ! -s "$tmp/setup.log" ] || { cat "$tmp/setup.log"; return 1; }
}

# contains EXPECTED ACTUAL: every expected finding has its severity and substrings
contains() {
	python3 - "$1" "$2" <<'PY'
import json, sys
want = json.load(open(sys.argv[1], encoding="utf-8"))
got = json.load(open(sys.argv[2], encoding="utf-8"))["findings"]
okay = True
for w in want:
    cands = [f for f in got if f["plugin"] == w["plugin"] and (f.get("file") or "") == w["file"]
             and int(f.get("line") or 0) == w["line"] and f["severity"] == w["severity"]
             and all(s in f["message"] + " " + f["suggestion"] for s in w.get("contains", []))]
    if not cands:
        okay = False
        print("  no %s %s finding at %s:%d with %s" % (w["severity"], w["plugin"], w["file"] or "(project)", w["line"], w.get("contains")))
        for f in got:
            if f["plugin"] == w["plugin"] and int(f.get("line") or 0) == w["line"]:
                print("    have: %s: %s | %s" % (f["severity"], f["message"], f["suggestion"]))
sys.exit(0 if okay else 1)
PY
}

for dir in "$here"/*/; do
	case=$(basename "$dir")
	[ -d "$dir/project" ] || continue
	work="$tmp/case-$case"
	if ! setup "$case" "$work"; then
		bad "setup: late/$case"
		continue
	fi
	for exp in "$dir"/expected-*.json; do
		[ -f "$exp" ] || continue
		phase=$(basename "$exp" .json)
		phase=${phase#expected-}
		out="$tmp/$case-$phase.json"
		if "$ferry" -C "$work" check --phase "$phase" --format json >"$out" 2>"$tmp/check.log" &&
			python3 tests/plugins/compare.py "$exp" "$out" --phase "$phase" &&
			contains "$exp" "$out"; then
			ok "golden: late/$case ($phase)"
		else
			cat "$tmp/check.log"
			bad "golden: late/$case ($phase)"
		fi
	done
done

if python3 tests/plugins/check_data.py plugins/data >"$tmp/data.log" 2>&1; then
	ok "fact tables: every entry has a source"
else
	cat "$tmp/data.log"
	bad "fact tables: every entry has a source"
fi

echo "late: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
