#!/bin/sh
# Design-phase tests: golden findings of the design checks for fixture engagements
# (tests/plugins/design/<case>/: project/, config with "KEY VALUE" lines set through
# `ferry config`, an optional bench.json ingested as the GPU baseline, expected.json),
# then the migration plan written by `ferry fix --plugin design.migration_plan`.
#
# expected.json is a list of {plugin, file, line, severity, contains: [substrings of the
# message + suggestion]}; the set of (plugin, file, line) must match exactly (compare.py).
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
ferry=${FERRY:-$root/ferry}
here=$root/tests/plugins/design
export FERRY_ACTOR="design-tests <tests@example.invalid>"
unset FERRY_PLUGIN_PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-design.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$root/tests/plugins/lib.sh"

# ---- 1. the data table ---------------------------------------------------------------
check "soc_memory.json: every entry has a source and a memory figure, every inference-only SoC a source" python3 - <<'PY'
import json
d = json.load(open("plugins/data/soc_memory.json", encoding="utf-8"))
assert d["entries"]
for e in d["entries"]:
    assert e["source"].strip() and isinstance(e["memory_gb"], (int, float)) and e["memory_gb"] > 0, e
    assert isinstance(e["verified"], bool), e
    if not e["verified"]:
        assert "unverified" in e["source"], e["name"]
assert d["inference_only"]
for e in d["inference_only"]:
    assert e["source"].strip() and e["training"] is False and e["name"].startswith("Ascend"), e
PY

# ---- 2. golden findings -----------------------------------------------------------------
for dir in "$here"/*/; do
	case=$(basename "$dir")
	[ -f "$dir/expected.json" ] && [ -d "$dir/project" ] || continue
	work="$tmp/case-$case"
	if engagement "$here/$case" "$work" &&
		"$ferry" -C "$work" check --phase design --format json >"$tmp/$case.json" 2>"$tmp/check.log" &&
		python3 tests/plugins/compare.py "$dir/expected.json" "$tmp/$case.json" --phase design &&
		python3 tests/plugins/contains.py "$dir/expected.json" "$tmp/$case.json"; then
		ok "golden: design/$case"
	else
		cat "$tmp/check.log"
		bad "golden: design/$case"
	fi
done

# ---- 3. the migration plan written by ferry fix ---------------------------------------------
work="$tmp/case-full_7b"
plan="$work/docs/MIGRATION_PLAN.md"
check "plan: ferry fix --plugin design.migration_plan --yes writes it" \
	sh -c "'$ferry' -C '$work' fix --plugin design.migration_plan --yes >'$tmp/fix.log' 2>&1 && [ -f '$plan' ]"
check "plan: one checkpoint of the plugin, which created the file" python3 - "$work" "$ferry" <<'PY'
import json, subprocess, sys
log = json.loads(subprocess.run([sys.argv[2], "-C", sys.argv[1], "log", "--json"], capture_output=True, check=True).stdout)
cps = [c for c in log["checkpoints"] if c["plugin"] == "design.migration_plan"]
assert len(cps) == 1 and cps[0]["kind"] == "fix" and cps[0]["phase"] == "design", cps
PY
check "plan: strategy, criteria, baseline, resources, parallel advice and checklists" python3 - "$plan" "$work" <<'PY'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
for s in ["# Migration plan", "## Strategy", "Chosen: **tool**", "## Acceptance criteria",
          "(`tolerance.loss` = 0.01): the NPU loss stays within 1 % of the GPU loss",
          "(`throughput.target_pct` = 80)",
          "- Dump thresholds (`tolerance.dump_atol` = 1e-5, `tolerance.dump_rtol` = 1e-3): `ferry compare dump` passes a tensor pair with each element of the NPU's tensor within 1e-05 + 0.001 × |the GPU's element|, as torch.allclose.",
          "## GPU baseline", "accuracy 0.761, throughput 2450",
          "2450 x 80 % = 1960", "## Resources and cost",
          "| NPU servers (Atlas A2 training) | 1 | 8 card(s), 8 per server | unit price not recorded |",
          "| storage for the data set (TB) | **to be decided** | size not recorded (`dataset_tb`) |", "`Ascend910B2` (Atlas A2 training, 64 GB per card)",
          "- Cards: 8", "- Model size: 7 billion parameters", "## Parallel strategy",
          "Recommended: **TP=2 x PP=1 x DP=4", "ZeRO-1", "## Phases and checklist",
          "### 1. assess", "### 2. design", "### 7. infer-optimize", "- [ ] "]:
    assert s in t, s
assert sys.argv[2] not in t  # nothing of the machine it was written on
PY
check "plan: training design and target versions from the pins, the settings and the code" python3 - "$plan" <<'PY'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
for s in ["## Training design", "- Framework: PyTorch 2.1.0 (`torch==2.1.0`, requirements.txt line 1).",
          "- Source code: 2 Python files", "- Data set: wikitext-103, 500 MB of text, read from /data/wikitext",
          "`data.py:5` (Hugging Face datasets `load_dataset`)",
          "- Evaluation scheme: perplexity on the wikitext-103 test split, same script on both sides",
          "## Target software versions",
          "torch 2.1.0 (CPU wheel) + torch_npu 2.1.0.post17 (branch `v2.1.0-7.2.0`), CANN 8.3.RC1, Python 3.8–3.11; maintained",
          "The NPU host is not probed yet",
          "## Inference design", "Not planned: nothing points to inference",
          "## Effort and schedule", "The assessment has not run yet (`ferry check --phase assess`)"]:
    assert s in t, s
assert "**to be" not in t.split("## Training design")[1].split("## Inference design")[0], "settings given, nothing left open"
PY
"$ferry" -C "$work" check --phase design --format json >"$tmp/after.json" 2>/dev/null
check "plan: the finding is fixed and not reported again" python3 - "$tmp/after.json" <<'PY'
import json, sys
got = [f for f in json.load(open(sys.argv[1]))["findings"] if f["plugin"] == "design.migration_plan"]
assert got == [], got
PY
printf '\nOur own note.\n' >>"$plan"
sum=$(sha256sum "$plan")
"$ferry" -C "$work" check --phase design --format json >"$tmp/edited.json" 2>/dev/null
check "plan: a hand edit is reported as info and never overwritten" python3 - "$tmp/edited.json" <<'PY'
import json, sys
got = [f for f in json.load(open(sys.argv[1]))["findings"] if f["plugin"] == "design.migration_plan"]
assert len(got) == 1 and got[0]["severity"] == "info" and not got[0]["fixable"], got
PY
"$ferry" -C "$work" fix --plugin design.migration_plan --yes >/dev/null 2>&1
check "plan: ferry fix leaves the edited plan alone" [ "$sum" = "$(sha256sum "$plan")" ]
check "plan: the audit chain verifies" sh -c "'$ferry' -C '$work' verify >/dev/null"

# the resources priced: one server of 8 cards, 3 checkpoints of 7B parameters, a 2 TB data
# set, the unit prices recorded; over the schedule once the assessment and the team are known
rm "$plan"
for kv in "quote.currency CNY" "design.migration_plan.server_month 45000" "design.migration_plan.storage_tb_month 90" \
	"design.migration_plan.dataset_tb 2" "design.migration_plan.checkpoints 3" "design.migration_plan.team 2"; do
	"$ferry" -C "$work" config $kv >/dev/null 2>&1 || echo "     | config $kv failed"
done
"$ferry" -C "$work" check --phase assess >/dev/null 2>&1
"$ferry" -C "$work" check --phase design >/dev/null 2>&1
"$ferry" -C "$work" fix --plugin design.migration_plan --yes >/dev/null 2>&1
check "plan: servers and storage priced per month and over the schedule" python3 - "$plan" <<'PY'
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
sec = t.split("## Resources and cost")[1].split("## Parallel strategy")[0]
for s in ["| NPU servers (Atlas A2 training) | 1 | 8 card(s), 8 per server | 45,000 CNY |",
          "| storage for checkpoints (TB) | 0.294 | 0.098 TB per full checkpoint (7 billion parameters x 14 bytes",
          "x 3 kept | 26 CNY |", "| storage for the data set (TB) | 2 | `dataset_tb` | 180 CNY |",
          "| total | | | 45,206 CNY |", "weeks with the planned team, so 1 month(s) of rent): about 45,206 CNY.", "45,000 CNY a month"]:
    assert s in sec, (s, sec)
PY

# more cards than the nodes hold need more servers; a price that is no price is said
rm "$plan"
"$ferry" -C "$work" config target.cards 16 >/dev/null 2>&1
"$ferry" -C "$work" config design.migration_plan.storage_tb_month 1e308 >/dev/null 2>&1
"$ferry" -C "$work" check --phase design >/dev/null 2>&1
"$ferry" -C "$work" fix --plugin design.migration_plan --yes >/dev/null 2>&1
check "plan: 16 cards are two servers of 8, and an absurd price is refused in the table" python3 - "$plan" <<'PY'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
sec = t.split("## Resources and cost")[1].split("## Parallel strategy")[0]
for s in ["| NPU servers (Atlas A2 training) | 2 | 16 card(s), 8 per server (`target.nodes` 1 cannot hold them at 8 per server) | 90,000 CNY |",
          "`design.migration_plan.storage_tb_month` = 1e+308 is not a price", "| total | | | 90,000 CNY (priced rows only) |"]:
    assert s in sec, (s, sec)
assert "inf" not in sec, sec
PY
"$ferry" -C "$work" config target.cards 8 >/dev/null 2>&1

# ---- 3b. the inference design, and a project without a usable pin ---------------------------
work="$tmp/case-infer_on_310p"
"$ferry" -C "$work" fix --plugin design.migration_plan --yes >/dev/null 2>&1
check "plan: an inference SoC and an ONNX export plan the inference migration; msprobe's rule for dumps" python3 - "$work/docs/MIGRATION_PLAN.md" <<'PY'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
inf = t.split("## Inference design")[1].split("## Phases and checklist")[0]
for s in ["Planned because the target SoC Ascend310P3 is an inference part; the code exports to ONNX.",
          "converted by ATC to an offline model (`.om`)", "Models: none ingested yet",
          "`export.py:4` (ONNX export)", "- Hardware: `Ascend310P3`, an inference part.",
          "**accuracy tolerance to be agreed** (`tolerance.accuracy`)"]:
    assert s in inf, s
# no dump thresholds agreed: the plan says msprobe's rule judges the dumps, beside the other criteria
crit = t.split("## Acceptance criteria")[1].split("## GPU baseline")[0]
assert "- Dump thresholds: none agreed, so `ferry compare dump` judges layer dumps by msprobe's rule: a tensor pair fails when its cosine similarity is under 0.99" in crit, crit
assert "`ferry config tolerance.dump_atol 1e-5`, `ferry config tolerance.dump_rtol 1e-3`" in crit, crit
for s in ["- Framework: PyTorch, no version pinned", "- Data set: **to be described**",
          "- Evaluation scheme: **to be agreed**", "- To be chosen with the PyTorch version; maintained versions: 2.12.0, 2.11.0"]:
    assert s in t, s
PY
# an export made through a library's wrapper of torch.onnx.export (ultralytics' torch2onnx,
# as current yolov5 exports), inside a function of the project: inference is planned, and
# the plan names the export, the function holding it and where that is called
work="$tmp/case-infer_wrapper"
"$ferry" -C "$work" fix --plugin design.migration_plan --yes >/dev/null 2>&1
check "plan: an ONNX export through a library's wrapper plans the inference migration" python3 - "$work/docs/MIGRATION_PLAN.md" <<'PY'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
inf = t.split("## Inference design")[1].split("## Effort and schedule")[0]
for s in ["Planned because the code exports to ONNX.",
          "- `export.py:7` (ONNX export through `torch2onnx` (ultralytics), in `export_onnx`, called at `train.py:14`): `torch2onnx(",
          "- Hardware: `Ascend910B2`, the training SoC"]:
    assert s in inf, (s, inf)
PY
work="$tmp/case-old_torch"
engagement "$here/unset" "$work" >/dev/null
printf 'torch==1.13.1\n' >"$work/requirements.txt"
mkdir -p "$work/examples/serve" && printf 'torch>=2.9\n' >"$work/examples/serve/requirements.txt"
"$ferry" -C "$work" config design.migration_plan.inference no >/dev/null
"$ferry" -C "$work" check --phase design >/dev/null 2>&1
"$ferry" -C "$work" fix --plugin design.migration_plan --yes >/dev/null 2>&1
check "plan: a PyTorch without torch_npu is moved first; inference set out of scope" python3 - "$work/docs/MIGRATION_PLAN.md" <<'PY'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
for s in ["- Framework: PyTorch 1.13.1", "No torch_npu release exists for PyTorch 1.13.1: the migration moves to a maintained version first (2.12.0",
          "Out of scope (`design.migration_plan.inference` = no).",
          "Other torch requirements: `torch>=2.9` in examples/serve/requirements.txt."]:
    assert s in t, s
PY
rm "$work/requirements.txt" "$work/docs/MIGRATION_PLAN.md"
"$ferry" -C "$work" check --phase assess >/dev/null 2>&1
"$ferry" -C "$work" config design.migration_plan.team 3 >/dev/null
"$ferry" -C "$work" config quote.days.adaptation 12 >/dev/null
"$ferry" -C "$work" check --phase design >/dev/null 2>&1
"$ferry" -C "$work" fix --plugin design.migration_plan --yes >/dev/null 2>&1
check "plan: a range names the maintained versions that satisfy it, newest first" python3 - "$work/docs/MIGRATION_PLAN.md" <<'PY'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
for s in ["- Framework: PyTorch, `torch>=2.9` (examples/serve/requirements.txt line 1): a range, not one version",
          "maintained versions that satisfy `torch>=2.9`: 2.12.0, 2.11.0, 2.10.0, 2.9.0."]:
    assert s in t, s
PY
"$ferry" -C "$work" report --format json --output "$tmp/as.json" >/dev/null 2>&1
check "plan: the effort by service line is the assessment's quote, with the team's calendar time" python3 - "$work/docs/MIGRATION_PLAN.md" "$tmp/as.json" <<'PY'
import json, sys
t = open(sys.argv[1], encoding="utf-8").read()
q = json.load(open(sys.argv[2]))["assessment"]["quote"]
sec = t.split("## Effort and schedule")[1].split("## Phases and checklist")[0]
assert "| migration survey and assessment | %.1f | estimate |" % q["services"][0]["days"] in sec, sec
assert "| training code adaptation | 12.0 | agreed (estimate " in sec, sec
assert "| total | %.1f | |" % q["days"] in sec, sec
assert "With 3 people full time: about %.1f weeks of five working days." % (q["days"] / 3 / 5) in sec, sec
PY
# a loss tolerance given as a percentage, as `ferry config` takes it, is that fraction: the
# design check and the plan read it as `ferry compare loss` does, not as malformed
"$ferry" -C "$work" config tolerance.loss 2% >/dev/null
rm -f "$work/docs/MIGRATION_PLAN.md"
"$ferry" -C "$work" check --phase design --format json >"$tmp/pct.json" 2>/dev/null
"$ferry" -C "$work" fix --plugin design.migration_plan --yes >/dev/null 2>&1
check "plan: tolerance.loss 2% is a 2 % tolerance for design.acceptance and the plan" python3 - "$tmp/pct.json" "$work/docs/MIGRATION_PLAN.md" <<'PY'
import json, sys
got = [f["message"] for f in json.load(open(sys.argv[1]))["findings"] if f["plugin"] == "design.acceptance"]
assert not any("malformed" in m for m in got), got
assert any("tolerance.loss = 2%: the NPU loss stays within 2 % of the GPU loss" in m for m in got), got
assert "the NPU loss stays within 2 % of the GPU loss" in open(sys.argv[2], encoding="utf-8").read()
PY
check "plan: the inference setting takes only auto, yes or no" sh -c "! '$ferry' -C '$work' config design.migration_plan.inference maybe 2>'$tmp/bad.log' && grep -q 'auto' '$tmp/bad.log'"

# ---- 3c. the entry scripts the plan lists are the assessment's -------------------------------
# (the fixture of the assess golden entry_scripts: a script training at module level is one;
# a model or dataset module with a __main__ self-test, a config module parsing arguments on
# import, a tool script that never touches torch and a build script are not)
work="$tmp/entries"
engagement "$root/tests/plugins/entry_scripts" "$work" >/dev/null
"$ferry" -C "$work" check --phase design >/dev/null 2>&1
"$ferry" -C "$work" fix --plugin design.migration_plan --yes >/dev/null 2>&1
check "plan: the entry scripts are the programs, not the modules with a self-test" python3 - "$work/docs/MIGRATION_PLAN.md" <<'PY'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
line = [l for l in t.splitlines() if l.startswith("- Source code:")][0]
want = "; entry scripts: `export_weights.py`, `infer_auto.py`, `train_loop.py`, `train_npu.py`, `scripts/segment_images.py`."
assert line.endswith(want), line
PY

# ---- 3d. a torchvision operator narrows the torch versions to the adapter's builds ----------
# (the fixture of the assess golden torchvision_ops: nms on the device, torch==2.7.1, which the
# adapter is not built for, and torch>=2.0)
work="$tmp/tvops"
engagement "$root/tests/plugins/torchvision_ops" "$work" >/dev/null
"$ferry" -C "$work" check --phase design >/dev/null 2>&1
"$ferry" -C "$work" fix --plugin design.migration_plan --yes >/dev/null 2>&1
check "plan: nms on the device names the torch versions with a Torchvision Adapter build" python3 - "$work/docs/MIGRATION_PLAN.md" <<'PY'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
want = ("runs on NPU tensors only through the Torchvision Adapter (torchvision_npu), built for torch 2.6.0, 2.5.1, "
        "2.1.0, 1.11.0 only (`torchvision_npu.json`): none of the versions above has both; pin one of the maintained "
        "versions that have both (2.6.0, 2.5.1, 2.1.0) or plan to run it on the CPU.")
assert want in t, t
PY

# ---- 4. in Chinese ---------------------------------------------------------------------------
zh_check "in Chinese, every finding of the design cases reads in Chinese" "$tmp"/case-*

echo "design: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
