#!/bin/sh
# Judging the evidence again does not read it again: after every ingest, comparison or
# setting the checks that judge that kind of evidence run again (review_rejudge), and a
# run log or profile already read is taken from .ferry/cache instead of being scanned
# again. Asserted through FERRY_DEBUG's count of readings, and that the cache never
# changes what is found: the same findings as reading the files, a copy that changed
# since is refused (seal.h), a damaged or unwritable cache is read around.
. "$(dirname "$0")/lib.sh"
rl=$top/tests/fixtures/runlog
pf=$top/tests/fixtures/profile
p=$work/p
make_project "$p"
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"

# readings PLUGIN: "READ KEPT" of one debug run of the check
readings() {
	FERRY_DEBUG=1 "$FERRY" -C "$p" check --plugin "$1" --format json >"$work/$1.json" 2>"$work/dbg" || true
	sed -n 's/^ferry: artifact readings *\([0-9]*\) read, \([0-9]*\) kept.*/\1 \2/p' "$work/dbg"
}
# findings PLUGIN: the check's findings, ids and times left out
findings() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for f in sorted(d["findings"], key=lambda f: (f["file"], f["line"], f["message"])):
    print(f["plugin"], f["severity"], f["message"], f["suggestion"])
' "$work/$1.json"
}

# shows FILE WANT GONE DESC: FILE holds WANT and not GONE
shows() {
	if grep -q "$2" "$1" && ! grep -q "$3" "$1"; then ok "$4"; else fail "$4: $(grep -c "$2" "$1") '$2', $(grep -c "$3" "$1") '$3'"; fi
}

expect_exit 0 "ingest a failing run log" -- "$FERRY" -C "$p" ingest run-log "$rl/npu_op.log" --label npu
[ "$(readings tune.run_log)" = "0 1" ] && ok "the ingest's re-judging read the log; the next check takes it from the cache" ||
	fail "run_log readings after ingest: $(readings tune.run_log) (want 0 read, 1 kept)"
findings tune.run_log >"$work/cached.txt"
rm -rf "$p/.ferry/cache"
[ "$(readings tune.run_log)" = "1 0" ] && ok "without the cache the log is read again" || fail "readings without a cache: $(readings tune.run_log)"
findings tune.run_log >"$work/read.txt"
[ -s "$work/read.txt" ] && cmp -s "$work/cached.txt" "$work/read.txt" && ok "the cached reading gives the same findings" ||
	fail "cached and fresh findings differ: $(diff "$work/cached.txt" "$work/read.txt" | head -3)"

expect_exit 0 "ingest a second run log" -- "$FERRY" -C "$p" ingest run-log "$rl/hccl.log" --label hccl
[ "$(readings tune.run_log)" = "0 2" ] && ok "a second ingest reads only the new log" || fail "readings after a second ingest: $(readings tune.run_log)"

# the stored copy changed behind the record (same size, its time put back): no longer the
# evidence ingested, so it is neither judged nor served from the old reading; the check
# names it. Put back, it is read again.
copy=$(ls "$p"/.ferry/artifacts/run-log/*npu_op* 2>/dev/null | head -n 1)
if [ -f "$copy" ]; then
	chmod u+w "$copy"
	touch -r "$copy" "$work/changed.ref"
	sed 's/aten::isin/aten::xxxx/' "$copy" >"$work/changed" && cat "$work/changed" >"$copy"
	touch -r "$work/changed.ref" "$copy" # its size and modification time put back
	r=$(readings tune.run_log)
	[ "$r" = "0 0" ] && ok "a copy rewritten in place, its time put back, is neither read nor taken from the cache" ||
		fail "readings after the copy changed: $r"
	expect_grep "run-log, npu).*no longer matches the SHA-256 recorded at ingest" "$work/dbg" "the check names the altered copy"
	cat "$rl/npu_op.log" >"$copy"
	r=$(readings tune.run_log)
	[ "$r" = "1 1" ] && ok "the copy put back is read again" || fail "readings after the copy was put back: $r"
	shows "$work/tune.run_log.json" "aten::isin" "aten::xxxx" "the findings follow the evidence ingested"
else
	fail "no stored copy of the run log found under .ferry/artifacts"
fi

# a damaged entry is read around, never trusted
for f in "$p"/.ferry/cache/*; do printf 'ferry-acache 2 0 0 0 0 3 x\nabc' >"$f"; done
r=$(readings tune.run_log)
[ "$r" = "2 0" ] && ok "damaged cache entries are read around" || fail "readings with damaged entries: $r"
[ -s "$work/tune.run_log.json" ] && grep -q "HCCL" "$work/tune.run_log.json" && ok "and the findings are whole" || fail "findings lost with a damaged cache"

# an unwritable cache folder: the check still runs and finds the same
rm -rf "$p/.ferry/cache" && mkdir "$p/.ferry/cache" && chmod a-w "$p/.ferry/cache"
if [ "$(id -u)" != 0 ]; then
	r=$(readings tune.run_log)
	[ "$r" = "2 0" ] && ok "an unwritable cache folder only costs the reading" || fail "readings with an unwritable cache: $r"
fi
expect_exit 0 "check with an unwritable cache" -- "$FERRY" -C "$p" check --plugin tune.run_log
chmod u+w "$p/.ferry/cache"

# a profile: read once, then kept, with the same findings
expect_exit 0 "ingest a profile" -- "$FERRY" -C "$p" ingest profile "$pf/kernel_details.csv" --label npu
[ "$(readings tune.profile)" = "0 1" ] && ok "the profile's reading is kept after its ingest" || fail "profile readings: $(readings tune.profile)"
findings tune.profile >"$work/pcached.txt"
rm -rf "$p/.ferry/cache"
readings tune.profile >/dev/null
findings tune.profile >"$work/pread.txt"
[ -s "$work/pread.txt" ] && cmp -s "$work/pcached.txt" "$work/pread.txt" && ok "the kept profile gives the same findings" ||
	fail "profile findings differ with the cache"

# the report's chart of the profile's top operators is kept too: an entry naming an
# operator the profile does not have shows it is used; a damaged one is read around
expect_exit 0 "report with a profile" -- "$FERRY" -C "$p" report --format html --output "$work/r1.html"
entry=$(ls "$p"/.ferry/cache/*.report-ops.* 2>/dev/null | head -n 1)
if [ -f "$entry" ] && grep -q "fig-profile" "$work/r1.html"; then
	ok "the report keeps the profile's top operators"
	pcopy=$(ls "$p"/.ferry/artifacts/profile/* | head -n 1)
	body='{"ops":[{"name":"KEPT_OP","total_ms":1}]}'
	sum=$(printf '%s' "$body" | sha256sum | cut -d' ' -f1)
	printf 'ferry-acache 2 %s %s %s %s %s %s\n%s' "$(stat -c %s "$pcopy")" "$(stat -c %i "$pcopy")" \
		"$(stat -c %.9Y "$pcopy" | tr -d .)" "$(stat -c %.9Z "$pcopy" | tr -d .)" "${#body}" "$sum" "$body" >"$entry"
	expect_exit 0 "report again" -- "$FERRY" -C "$p" report --format html --output "$work/r2.html"
	grep -q "KEPT_OP" "$work/r2.html" && ok "a second report takes the kept reading" || fail "the second report read the profile again"
	printf 'ferry-acache 2 0 0 0 0 1 x\n{' >"$entry"
	expect_exit 0 "report with a damaged entry" -- "$FERRY" -C "$p" report --format html --output "$work/r3.html"
	shows "$work/r3.html" "fig-profile" "KEPT_OP" "a damaged entry is read around"
else
	fail "no kept reading of the report's profile chart"
fi

# a reading kept by another build of ferry is never used again: storing this build's
# removes it, so the folder does not grow with every upgrade
e=$(ls "$p"/.ferry/cache/*.profile.* | head -n 1)
other=$(echo "$e" | sed 's/\.profile\.[0-9a-f]*\./.profile.0000000000000000./')
mv "$e" "$other"
readings tune.profile >/dev/null
[ ! -e "$other" ] && [ -n "$(ls "$p"/.ferry/cache/*.profile.* 2>/dev/null)" ] && ok "an older build's entry is replaced, not kept beside" ||
	fail "an older build's entry stays: $(ls "$p/.ferry/cache")"

# what the reader says in words is kept per language: a profile cut short, read first in
# Chinese, says where it stopped in English to an English reader
head -c 3000 "$pf/kernel_details.csv" >"$work/cut.csv"
expect_exit 0 "ingest a profile cut short" -- "$FERRY" -C "$p" ingest profile "$work/cut.csv" --label cut
rm -rf "$p/.ferry/cache"
FERRY_LANG=zh_CN "$FERRY" -C "$p" check --plugin tune.profile >/dev/null 2>&1
FERRY_LANG=C "$FERRY" -C "$p" check --plugin tune.profile --format json >"$work/cut.json" 2>/dev/null
shows "$work/cut.json" "the last row is incomplete" "最后一行" "a kept reading speaks the reader's language"
FERRY_LANG=zh_CN "$FERRY" -C "$p" check --plugin tune.profile --format json >"$work/cut-zh.json" 2>/dev/null
shows "$work/cut-zh.json" "最后一行" "the last row is incomplete" "and the other reader's in theirs"

# a link where the cache folder belongs is not followed
rm -rf "$p/.ferry/cache" "$work/elsewhere" && mkdir "$work/elsewhere" && ln -s "$work/elsewhere" "$p/.ferry/cache"
expect_exit 0 "check with a link for the cache" -- "$FERRY" -C "$p" check --plugin tune.run_log
[ -z "$(ls "$work/elsewhere")" ] && ok "nothing is written through a link" || fail "the cache wrote through a link: $(ls "$work/elsewhere" | head -1)"
rm -f "$p/.ferry/cache"

# the cache is no part of the engagement's record
expect_exit 0 "verify with a cache present" -- "$FERRY" -C "$p" verify
finish
