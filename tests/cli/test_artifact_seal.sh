#!/bin/sh
# An artifact's stored copy altered after ingest is evidence no longer: verify names it
# (exit 1, text and JSON), the checks that read it error instead of judging it (the
# acceptance error stays open, not "no longer seen"), the tune sign-off and the report
# are refused, each with the one line of seal.h; ingesting the same original again
# repairs the copy. The same for a loss log and for a dump folder (a tensor changed in
# place, a file added). (A file kept by reference, over 256 MiB, is covered by
# tests/unit/test_seal.c.)
. "$(dirname "$0")/lib.sh"

p="$work/p"
cp -r "$top/examples/resnet-ddp" "$p"
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
cat >"$work/gpu.json" <<'E'
{"schema":"ferry-bench/1","label":"gpu","hardware":"8x A100 80GB","precision":"bf16","metrics":{"accuracy":0.761,"throughput":2450}}
E
cat >"$work/npu.json" <<'E'
{"schema":"ferry-bench/1","label":"npu","hardware":"8x Ascend 910B","precision":"bf16","metrics":{"accuracy":0.70,"throughput":1000}}
E
"$FERRY" -C "$p" config throughput.target_pct 80 >/dev/null
expect_exit 0 "ingest the GPU benchmark" -- "$FERRY" -C "$p" ingest bench "$work/gpu.json" --label gpu
expect_exit 0 "ingest the NPU benchmark" -- "$FERRY" -C "$p" ingest bench "$work/npu.json" --label npu
# the runs' loss curves agree (a tune phase with no comparison at all is never signed off):
# the acceptance error below is the benchmark's
"$FERRY" -C "$p" ingest loss-log "$top/tests/fixtures/loss/gpu_plain.log" --label gpu >/dev/null 2>&1
"$FERRY" -C "$p" ingest loss-log "$top/tests/fixtures/loss/npu_plain.log" --label npu >/dev/null 2>&1
expect_exit 0 "the loss curves agree" -- "$FERRY" -C "$p" compare loss gpu npu
# the phases before tune signed, so that the tune sign-off reaches its gate
"$FERRY" -C "$p" check >/dev/null 2>&1
sign_through "$p" assess design environment adapt
# ingest keeps each copy's hash for its unchanged copy: the checks do not hash it again
npu_sha=$(sha256sum "$work/npu.json" | cut -c1-64)
ls "$p/.ferry/cache" | grep -q "^$npu_sha\.sha256\." && ok "ingest keeps the copy's hash" || fail "no kept hash for the NPU benchmark"

# open_acceptance: the open tune.acceptance errors
open_acceptance() {
	"$FERRY" -C "$p" findings --status open --format json | python3 -c '
import json, sys
print(sum(1 for f in json.load(sys.stdin)["findings"] if f["plugin"] == "tune.acceptance" and f["severity"] == "error"))'
}
[ "$(open_acceptance)" = 1 ] && ok "41 % of the baseline: the acceptance error is open" || fail "acceptance errors open: $(open_acceptance)"

copy=$(ls "$p"/.ferry/artifacts/bench/*-npu.json)
sed -i 's/"throughput":1000/"throughput":2400/' "$copy"
line="artifact 2 (bench, npu) no longer matches the SHA-256 recorded at ingest (recorded [0-9a-f]\{12\}, now [0-9a-f]\{12\}): .*-npu.json; restore it by ingesting the original file again"

expect_exit 1 "verify fails on the altered benchmark" -- "$FERRY" -C "$p" verify
expect_grep "^$line" "$work/out" "verify names the artifact, its file and both hashes"
one_line "$work/err" "verify: one line on stderr"
grep -q "^ok:" "$work/out" && fail "verify still says ok" || ok "no ok line"
expect_exit 1 "verify --format json" -- "$FERRY" -C "$p" verify --format json
python3 - "$work/out" <<'PY' && ok "json: the problem, table artifacts, id 2" || fail "verify json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is False, d
[p] = [p for p in d["problems"] if p["table"] == "artifacts"]
assert p["id"] == 2 and p["kind"] == "altered" and "no longer matches" in p["detail"], p
PY

expect_exit 3 "the acceptance check errors on the altered benchmark" -- "$FERRY" -C "$p" check --plugin tune.acceptance
[ "$(grep -c "no longer matches" "$work/err")" = 1 ] && ok "check prints the line once" ||
	fail "check printed the line $(grep -c "no longer matches" "$work/err") times"
expect_grep "tune.acceptance.*$line" "$work/err" "the plugin's error is the seal's line"
expect_grep "0 no longer seen" "$work/out" "nothing marked fixed"
[ "$(open_acceptance)" = 1 ] && ok "the acceptance error stays open" || fail "acceptance errors open: $(open_acceptance)"
expect_exit 1 "sign-off of tune refused" -- "$FERRY" -C "$p" signoff tune --note "looks fine"
expect_grep "$line" "$work/err" "the sign-off says why"
expect_exit 3 "report refused" -- "$FERRY" -C "$p" report --format md --output "$work/r.md"
expect_grep "^ferry: report not written: $line" "$work/err" "the report says why"
one_line "$work/err" "report: one line on stderr"
[ ! -e "$work/r.md" ] && ok "no report written" || fail "a report was written from altered evidence"

# a plugin catching the error with pcall still fails: the line is sticky
mkdir -p "$work/plug/tune"
cat >"$work/plug/tune/swallow.lua" <<'L'
return {
	id = "tune.swallow", phase = "tune", evidence = { "bench" }, title = "swallow", severity = "info",
	category = "performance", description = "catches the error of a read",
	run = function(ctx)
		local ok = pcall(ctx.bench_choice, "throughput")
		ctx.report{ file = "(project)", message = "carried on: " .. tostring(ok) }
	end,
}
L
FERRY_PLUGIN_PATH="$work/plug" "$FERRY" -C "$p" check --plugin tune.swallow >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" -ne 0 ] && grep -q "tune.swallow.*no longer matches" "$work/err" && ! grep -q "carried on" "$work/out" &&
	ok "a pcall in the plugin does not swallow the altered evidence" || fail "pcall swallowed it: exit $rc"

# the same original ingested again rewrites the copy
expect_exit 0 "ingest the NPU benchmark again" -- "$FERRY" -C "$p" ingest bench "$work/npu.json" --label npu-again
expect_exit 0 "verify passes after the copy is repaired" -- "$FERRY" -C "$p" verify
expect_grep "^ok: " "$work/out" "verify says ok"
expect_exit 0 "the acceptance check runs again" -- "$FERRY" -C "$p" check --plugin tune.acceptance
[ "$(open_acceptance)" = 1 ] && ok "and still finds 41 %" || fail "acceptance errors open: $(open_acceptance)"
expect_exit 0 "report written" -- "$FERRY" -C "$p" report --format md --output "$work/r.md"

# a loss log
lf=$top/tests/fixtures/loss
expect_exit 0 "ingest a loss log" -- "$FERRY" -C "$p" ingest loss-log "$lf/gpu_plain.log" --label gpuloss
lcopy=$(ls "$p"/.ferry/artifacts/loss-log/*gpu_plain.log)
printf 'step 999 loss 0.001\n' >>"$lcopy"
expect_exit 1 "verify fails on the altered loss log" -- "$FERRY" -C "$p" verify
expect_grep "(loss-log, gpuloss) no longer matches the SHA-256 recorded at ingest .*gpu_plain.log" "$work/out" \
	"verify names the loss log"
expect_exit 0 "ingest the loss log again" -- "$FERRY" -C "$p" ingest loss-log "$lf/gpu_plain.log" --label gpuloss2
expect_exit 0 "verify passes again" -- "$FERRY" -C "$p" verify

# a dump folder: a tensor changed in place (its stored object with it: they are one
# file) and a file added to the view
dx=$top/tests/fixtures/dump/gpu_dump
expect_exit 0 "ingest a dump folder" -- "$FERRY" -C "$p" ingest dump "$dx" --label gpudump
view=$(ls -d "$p"/.ferry/artifacts/dump/*-gpu_dump)
tensor=$(cd "$view" && find . -name '*.pt' | sort | head -n 1 | cut -c3-)
printf 'x' >>"$view/$tensor"
cp "$view/$tensor" "$view/$(dirname "$tensor")/planted.pt"
expect_exit 1 "verify fails on the altered dump" -- "$FERRY" -C "$p" verify
expect_grep "(dump, gpudump) no longer matches the SHA-256 recorded at ingest .*$(basename "$tensor")" "$work/out" \
	"verify names the dump and its altered tensor"
[ "$(grep -c "(dump, gpudump)" "$work/out")" = 1 ] && ok "one problem for the dump" || fail "$(grep -c "(dump, gpudump)" "$work/out") problems for the dump"
cp "$dx/$tensor" "$view/$tensor.tmp" && mv "$view/$tensor.tmp" "$view/$tensor"
expect_exit 1 "verify still fails with the added file" -- "$FERRY" -C "$p" verify
expect_grep "(dump, gpudump): .*planted.pt was not in the dump recorded at ingest" "$work/out" "verify names the added file"
printf 'x' >>"$view/$tensor"
expect_exit 0 "ingest the dump folder again" -- "$FERRY" -C "$p" ingest dump "$dx" --label gpudump2
expect_exit 0 "verify passes after the dump is repaired" -- "$FERRY" -C "$p" verify
[ ! -e "$view/$(dirname "$tensor")/planted.pt" ] && ok "the added file is gone from the view" || fail "planted.pt still in the view"
[ -z "$(ls -d "$p"/.ferry/artifacts/dump/*.incoming-* "$p"/.ferry/artifacts/dump/*.old-* 2>/dev/null)" ] &&
	ok "no temporary view left behind" || fail "temporary views left: $(ls "$p/.ferry/artifacts/dump")"


# a plugin reading a file of an ingested dump folder by its path (ctx.read) reads it only
# while the dump is intact: altered, the check errors with the dump's line, as
# ctx.read_artifact does
mkdir -p "$work/plug2/tune"
cat >"$work/plug2/tune/dumpjson.lua" <<'L'
return {
	id = "tune.dumpjson", phase = "tune", evidence = { "dump" }, title = "dump.json", severity = "info",
	category = "precision", description = "reads the dump.json of each ingested dump folder",
	run = function(ctx)
		for _i, a in ipairs(ctx.artifacts("dump") or {}) do
			local text = ctx.read(a.path .. "/step0/rank0/dump.json")
			if text then ctx.report{ key = a.label, file = "(project)", message = a.label .. " read: " .. #text .. " bytes" } end
		end
	end,
}
L
FERRY_PLUGIN_PATH="$work/plug2" "$FERRY" -C "$p" check --plugin tune.dumpjson >"$work/out" 2>"$work/err"
grep -q "gpudump2 read: [0-9]* bytes" "$work/out" && ok "an intact dump folder's file is read" || fail "the intact dump was not read: $(cat "$work/err")"
view=$(ls -d "$p"/.ferry/artifacts/dump/*-gpu_dump)
dj=$(cd "$view" && find . -name dump.json | head -n 1 | cut -c3-)
cp "$view/$dj" "$work/dump.json.orig"
printf '{}\n' >"$view/$dj.tmp" && mv "$view/$dj.tmp" "$view/$dj"
FERRY_PLUGIN_PATH="$work/plug2" "$FERRY" -C "$p" check --plugin tune.dumpjson >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" -ne 0 ] && grep -q "tune.dumpjson.*(dump, gpudump2*) no longer matches the SHA-256 recorded at ingest" "$work/err" &&
	! grep -q "read: 3 bytes" "$work/out" && ok "a file of an altered dump folder is not read by ctx.read" ||
	fail "ctx.read read the altered dump folder: exit $rc, $(cat "$work/out" "$work/err")"

finish
