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
. "$root/tests/plugins/lib.sh"


for dir in "$here"/*/; do
	case=$(basename "$dir")
	[ -d "$dir/project" ] || continue
	work="$tmp/case-$case"
	if ! engagement "$here/$case" "$work"; then
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
			python3 tests/plugins/contains.py "$exp" "$out"; then
			ok "golden: late/$case ($phase)"
		else
			cat "$tmp/check.log"
			bad "golden: late/$case ($phase)"
		fi
	done
done

zh_check "in Chinese, every finding of the late-phase cases reads in Chinese" "$tmp"/case-*

if python3 tests/plugins/check_data.py plugins/data >"$tmp/data.log" 2>&1; then
	ok "fact tables: every entry has a source"
else
	cat "$tmp/data.log"
	bad "fact tables: every entry has a source"
fi

echo "late: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
