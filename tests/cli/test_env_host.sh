#!/bin/sh
# environment.npu against the host the probe describes: a host of another chip than the
# engagement's target.soc, a chip computing for another job, and a plan of more cards than
# ASCEND_RT_VISIBLE_DEVICES lets a job see are each reported, not passed.
. "$(dirname "$0")/lib.sh"

hp="$top/tests/plugins/environment/healthy_910b/probe.json"
# probe OUT EDIT: a copy of the healthy 910B2 probe with the Python statement EDIT applied to d
probe() {
	python3 - "$hp" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
# npu_findings DIR: the messages of environment.npu's open findings, one per line
npu_findings() {
	"$FERRY" -C "$1" findings --plugin environment.npu --status open --format json |
		python3 -c 'import json, sys; [print(f["severity"], f["message"], f["suggestion"]) for f in json.load(sys.stdin)["findings"]]'
}

p="$work/p"
make_training_project "$p"
"$FERRY" init "$p" >/dev/null
"$FERRY" -C "$p" config target.soc Ascend910B2 >/dev/null
"$FERRY" -C "$p" config target.cards 2 >/dev/null
"$FERRY" -C "$p" ingest env-probe "$hp" >/dev/null 2>&1
[ -z "$(npu_findings "$p")" ] && ok "the healthy 910B2 host for a 910B2 plan: nothing to say" || fail "healthy host: $(npu_findings "$p")"

# the engagement's chip is not the host's
"$FERRY" -C "$p" ingest env-probe "$top/tests/plugins/environment/inference_310p/probe.json" >/dev/null 2>&1
npu_findings "$p" >"$work/f1"
expect_grep "^error .*310P3 NPUs, but the engagement targets Ascend910B2 (target.soc)" "$work/f1" "a 310P3 host for an Ascend910B2 plan is an error"
expect_grep "ferry config target.soc Ascend310P3" "$work/f1" "it says how to target the host's chip"

# a chip computing for another job (AI Core busy, little memory in use)
probe "$work/busy.json" 'd["collected_at"] = "2026-11-22T00:00:00Z"; d["npu"]["chips"][0]["aicore_pct"] = 98'
"$FERRY" -C "$p" ingest env-probe "$work/busy.json" >/dev/null 2>&1
npu_findings "$p" >"$work/f2"
expect_grep "^warning .*is computing on .*AI Core 98 % busy" "$work/f2" "a chip whose AI Core is busy is reported as used by another job"

# the shell's ASCEND_RT_VISIBLE_DEVICES shows one chip to a plan of two
probe "$work/vis.json" 'd["collected_at"] = "2026-11-23T00:00:00Z"; d["env"]["ASCEND_RT_VISIBLE_DEVICES"] = "0"'
"$FERRY" -C "$p" ingest env-probe "$work/vis.json" >/dev/null 2>&1
npu_findings "$p" >"$work/f3"
expect_grep "^error The plan needs 2 card(s) per node, but ASCEND_RT_VISIBLE_DEVICES=\"0\"" "$work/f3" "a plan of more cards than the visible chips is an error"
finish
