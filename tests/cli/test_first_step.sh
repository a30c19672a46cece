#!/bin/sh
# The first step of the client's model on the NPU (seed 000 §4.2): tune.evidence_scripts
# writes scripts/first_step.py, which runs here with the distribution's torch and the
# stand-in torch_npu whose "NPU" is the CPU (tests/fixtures/fake_npu); its results are
# ingested with `ferry ingest first-step` and judged by tune.first_step. A pass is an info
# finding; outputs that disagree, a card torch_npu cannot see, a model that fails on the
# CPU, a result claiming a pass its own figures contradict and a result cut short are
# errors naming the step; a run on the CPU, a smoke test of the script, is a warning
# whether it passed or not; the tune sign-off refuses a failed first step; a malformed
# result is refused at ingest with one line. The script
# compares in true float32: the stand-in NPU changes convolutions while
# torch.npu.conv.allow_hf32 is on, as HF32 does, and the script turns it off and records
# that; a difference with HF32 on, or from a script that predates the switch, is said to
# be possibly HF32's. The training step runs with dropout off on both sides, so a model
# with dropout compares deterministically, the CPU with itself too; randomness the script
# does not turn off shows as a CPU that disagrees with itself under another seed, and the
# verdict blames it rather than the NPU.
. "$(dirname "$0")/lib.sh"
need_torch
p=$work/p
make_training_project "$p"
cat >"$p/models/tiny.py" <<'PY'
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(width, 16), nn.BatchNorm1d(16), nn.GELU(), nn.Linear(16, 4))

    def forward(self, x):
        return self.body(x)


class Classifier(nn.Module):
    """Probabilities over 1,000 classes: each value is small."""
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(48, 256), nn.ReLU(), nn.Linear(256, 1000))

    def forward(self, x):
        return self.net(x).softmax(-1)


class ZeroOut(nn.Module):
    """A zero-initialised output layer, as DiT and ControlNet start: untrained, it outputs 0."""
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 64), nn.GELU())
        self.out = nn.Linear(64, 16)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, x):
        return self.out(self.body(x))


@dataclass
class Output:
    logits: torch.Tensor
    loss: Optional[torch.Tensor] = None


class ConvNet(nn.Module):
    """A small CNN: the float32 convolutions torch_npu computes in HF32 by default."""
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 3), nn.Flatten())

    def forward(self, x):
        return self.body(x)


class TokenModel(nn.Module):
    """Keyword inputs as a tokenizer gives them; a dataclass output; None for labels."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 32)
        self.lin = nn.Linear(32, 100)

    def forward(self, input_ids, attention_mask=None, labels=None):
        h = self.emb(input_ids) * attention_mask[..., None]
        return Output(logits=self.lin(h))


class Dropped(nn.Module):
    """Dropout as transformers have it: a module, attention's own, and the functional form."""
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, 16)
        self.attn = nn.MultiheadAttention(16, 2, dropout=0.1, batch_first=True)
        self.drop = nn.Dropout(0.1)
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        h = self.inp(x)
        h = h + self.attn(h, h, h, need_weights=False)[0]
        return self.out(nn.functional.dropout(self.drop(h), p=0.1, training=self.training))


from torch.nn.functional import dropout as drop_fn


class DroppedByName(nn.Module):
    """Dropout functions bound before the script ran: imported by name, and torch's own."""
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, 16)
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        h = torch.dropout(self.inp(x), 0.1, self.training)
        return self.out(drop_fn(h, 0.1, self.training))


class DropPath(nn.Module):
    """Stochastic depth as timm writes it: a random mask over the batch in training mode, from
    torch's generator, with no dropout module or function."""
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 8)
        self.out = nn.Linear(8, 4)

    def forward(self, x):
        h = self.body(x)
        if self.training:
            h = h * x.new_empty(x.shape[0], 1).bernoulli_(0.5) / 0.5
        return self.out(x + h)


class Noisy(DropPath):
    """Noise in training mode from state outside torch's generator, which no seed resets:
    every call scales by a factor no earlier call used (noise drawn from the operating
    system behaves so too, except that two draws may by chance come close enough to pass,
    which made this test fail now and then)."""
    calls = 0

    def forward(self, x):
        h = self.body(x)
        if self.training:
            Noisy.calls += 1
            h = h * Noisy.calls
        return self.out(h)
PY
sed -i '1i from dataclasses import dataclass\nfrom typing import Optional' "$p/models/tiny.py"
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"

expect_exit 0 "the first-step script is proposed" -- "$FERRY" -C "$p" check --plugin tune.evidence_scripts
expect_grep "scripts/first_step.py would build the model" "$work/out" "the finding names the script"
expect_exit 0 "fix writes it" -- "$FERRY" -C "$p" fix --plugin tune.evidence_scripts --yes
[ -f "$p/scripts/first_step.py" ] && ok "scripts/first_step.py written" || fail "scripts/first_step.py written"

# run [ENV...] -- ARGS: the project's own script, from the project's root
run() {
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	(cd "$p" && env PYTHONPATH="$top/tests/fixtures/fake_npu" $envs "$py" scripts/first_step.py "$@") >"$work/run.out" 2>&1
}
# judge FILE LABEL: ingest FILE and check; the findings of tune.first_step in $work/f.json
judge() {
	"$FERRY" -C "$p" ingest first-step "$1" --label "$2" >/dev/null 2>"$work/err" || fail "ingest $2: $(cat "$work/err")"
	"$FERRY" -C "$p" check --plugin tune.first_step >/dev/null 2>&1
	"$FERRY" -C "$p" findings --plugin tune.first_step --status open --format json >"$work/f.json"
}

run FAKE_NPU_SCALE=1.05 -- --model models.tiny:Net --input 4,8 --out "$work/scaled.json"
[ $? -ne 0 ] && ok "the script exits 1 when the outputs disagree" || fail "the script exits 1 when the outputs disagree"
judge "$work/scaled.json" scaled
check_has error 'failed at "compare"' "outputs that disagree fail the comparison"
check_has error "msprobe" "the advice leads to a dump comparison"
sign_through "$p" assess design environment adapt
others=$("$FERRY" -C "$p" findings --phase tune --status open --format json | python3 -c '
import json, sys
print(" ".join(str(f["id"]) for f in json.load(sys.stdin)["findings"] if f["severity"] == "error" and f["plugin"] != "tune.first_step"))')
[ -z "$others" ] || "$FERRY" -C "$p" waive $others --reason "not what this test is about" >/dev/null
expect_exit 1 "the tune sign-off refuses a failed first step" -- "$FERRY" -C "$p" signoff tune
expect_grep "tune.first_step" "$work/err" "the refusal names the check"

run -- --model models.tiny:Net --input 4,8 --out "$work/pass.json" && ok "the script exits 0 on a pass" || fail "the script exits 0 on a pass: $(tail -3 "$work/run.out")"
judge "$work/pass.json" pass
check_has info "passed on npu:0" "a pass on the NPU is an info finding"
if has error 'failed at'; then fail "the newest result replaces the failed one"; else ok "the newest result replaces the failed one"; fi
# guide_item TEXT: the tune phase's checklist row of TEXT, as the workbench draws it
guide_item() {
	(cd "$p" && FERRY_HEADLESS=140x40 FERRY_KEYS="5i:save-screen guide.txt<Enter>q" "$FERRY" . >/dev/null 2>&1)
	grep -F "$1" "$p/.ferry/screens/guide.txt"
}
case "$(guide_item "first step on the NPU")" in
*"[✓]"*) ok "the guide ticks the first step once it passed on the NPU" ;;
*) fail "the guide ticks the first step once it passed on the NPU: $(guide_item "first step on the NPU")" ;;
esac
run -- --model models.tiny:Classifier --input 8,3,4,4 --device cpu --out "$work/cls_cpu.json"
judge "$work/cls_cpu.json" cls_cpu
check_has warning "ran on cpu, not on an NPU" "a CPU smoke test is a warning"
case "$(guide_item "first step on the NPU")" in
*"[ ]"*) ok "a smoke test on the CPU does not tick the guide's first step" ;;
*) fail "a smoke test on the CPU does not tick the guide's first step: $(guide_item "first step on the NPU")" ;;
esac

run FAKE_NPU_CARDS=0 -- --model models.tiny:Net --input 4,8 --out "$work/nocard.json"
judge "$work/nocard.json" nocard
check_has error 'failed at "import torch_npu"' "no visible card fails the torch_npu step"
check_has error "is_available() is False" "the recorded exception is quoted"

run -- --model models.tiny:Net --input 4,3 --out "$work/shape.json"
judge "$work/shape.json" shape
check_has error 'failed at "reference forward"' "an input that does not fit the model fails on the CPU"
check_has error "--input" "the advice names the input options"

run -- --model models.tiny:Net --input 4,8 --device cpu --out "$work/cpu.json"
judge "$work/cpu.json" cpu
check_has error 'failed at "reference forward"' "a later run on the CPU does not replace the NPU's verdict"
run -- --model models.tiny:Net --input 4,8 --kwargs '{"width": 8}' --device cpu --out "$work/cpu2.json"
python3 - "$work/cpu2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["model"] = "models.tiny:Net(width=8)"
json.dump(d, open(sys.argv[1], "w"))
PY
judge "$work/cpu2.json" cpu2
check_has warning "ran on cpu, not on an NPU" "a model run only on the CPU is a warning"
check_has error 'failed at "reference forward"' "another model's result leaves this one's verdict"

# small outputs that are 5 % off: under 1e-3 in absolute terms, far over it relative to
# their scale
run FAKE_NPU_SCALE=1.05 -- --model models.tiny:Classifier --input 8,3,4,4 --out "$work/cls.json"
judge "$work/cls.json" cls
check_has error "of their largest value" "probabilities 5 % off fail relative to their scale"
run -- --model models.tiny:ZeroOut --input 4,16 --out "$work/zero.json"
judge "$work/zero.json" zero
check_has error "the CPU's output is all zeros, so nothing was compared" "an output of zeros compares nothing"
check_has error "--checkpoint" "the advice loads trained weights"
"$py" - "$p" <<'PY'
import sys, torch
sys.path.insert(0, sys.argv[1])
from models.tiny import ZeroOut
torch.manual_seed(3)
m = ZeroOut()
torch.nn.init.normal_(m.out.weight)
torch.save(m.state_dict(), sys.argv[1] + "/trained.pt")
torch.save({"input_ids": torch.randint(0, 100, (2, 7)), "attention_mask": torch.ones(2, 7), "labels": None},
           sys.argv[1] + "/batch.pt")
PY
run -- --model models.tiny:ZeroOut --input 4,16 --checkpoint trained.pt --out "$work/trained.json"
judge "$work/trained.json" trained
check_has info "ZeroOut with its trained weights passed" "trained weights loaded with --checkpoint are compared"
run -- --model models.tiny:TokenModel --input-file batch.pt --out "$work/tokens.json"
judge "$work/tokens.json" tokens
check_has info "TokenModel with the factory's random weights passed" "a dict batch with None is passed as keywords; a dataclass output is compared"
check_has info "--checkpoint and the trained weights" "a pass on random weights asks for the trained ones"

# HF32: the stand-in NPU changes a convolution's output while torch.npu.conv.allow_hf32 is
# on (True after import, as in torch_npu); the script turns it off, so a CNN compares in
# true float32 and passes, and its record says what it set
PYTHONPATH="$top/tests/fixtures/fake_npu" FAKE_NPU_HF32_SCALE=1.05 "$py" - "$p" <<'PY' >"$work/hf32.out" 2>&1
import copy, sys, torch, torch_npu
sys.path.insert(0, sys.argv[1])
from models.tiny import ConvNet
m, x = ConvNet(), torch.randn(2, 3, 6, 6)
d = copy.deepcopy(m).to("npu:0")
on = float((m(x) - d(x)).abs().max())
torch.npu.conv.allow_hf32 = False
print("on %g off %g" % (on, float((m(x) - d(x)).abs().max())))
PY
grep -q "off 0$" "$work/hf32.out" && ! grep -q "on 0 " "$work/hf32.out" && ok "the stand-in NPU's convolutions differ only with HF32 on" \
	|| fail "the stand-in NPU's convolutions differ only with HF32 on: $(cat "$work/hf32.out")"
run FAKE_NPU_HF32_SCALE=1.05 -- --model models.tiny:ConvNet --input 2,3,8,8 --out "$work/conv.json" \
	&& ok "a CNN passes with HF32 turned off for the comparison" || fail "a CNN passes with HF32 turned off: $(tail -3 "$work/run.out")"
python3 - "$work/conv.json" <<'PY' && ok "first_step.json records each HF32 switch before and during the comparison" || fail "first_step.json records the HF32 switches"
import json, sys
h = json.load(open(sys.argv[1]))["hf32"]
assert h["conv"] == {"found": True, "before": True, "during": False}, h
assert h["matmul"] == {"found": True, "before": False, "during": False}, h
PY
judge "$work/conv.json" conv
check_has info "ConvNet with the factory's random weights passed" "the CNN's pass is judged"
# the same CNN with HF32 left on, as a script before the switch ran it: the comparison
# fails, and the verdict says why it may not be a migration defect
sed 's/^HF32_SWITCHES = .*/HF32_SWITCHES = ()/' "$p/scripts/first_step.py" >"$p/scripts/old_first_step.py"
(cd "$p" && env PYTHONPATH="$top/tests/fixtures/fake_npu" FAKE_NPU_HF32_SCALE=1.05 "$py" scripts/old_first_step.py \
	--model models.tiny:ConvNet --input 2,3,8,8 --out "$work/conv_on.json") >"$work/run.out" 2>&1 \
	&& fail "with HF32 on the CNN's outputs disagree" || ok "with HF32 on the CNN's outputs disagree"
python3 - "$work/conv_on.json" "$work/conv_old.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["hf32"] == {}, doc["hf32"]
# as a torch_npu would record it that refused the switch: conv's value unknown, so on
doc["hf32"] = {"conv": {"found": True, "before": None, "error": "RuntimeError: refused", "during": None},
               "matmul": {"found": True, "before": False, "during": False}}
json.dump(doc, open(sys.argv[1], "w"))
del doc["hf32"]
doc["schema"] = "ferry-first-step/2"
json.dump(doc, open(sys.argv[2], "w"))
PY
judge "$work/conv_on.json" conv_on
check_has error 'failed at "compare"' "a difference with HF32 on fails the comparison"
check_has error "HF32 was on for the comparison (torch.npu.conv.allow_hf32)" "the verdict names the switch left on"
check_has error "set torch.npu.conv.allow_hf32 = False" "the advice turns it off"
judge "$work/conv_old.json" conv_old
check_has error "does not record HF32" "a result of a script before the switch says so"
check_has error "torch.npu.conv.allow_hf32, on by default since torch_npu 5.0.rc2" "it cites the default"
check_has error "ferry fix --plugin tune.evidence_scripts" "the advice writes the current script"
if python3 -c 'import json,sys; sys.exit(not any("HF32" in f["message"] and "Classifier" in f["message"] for f in json.load(open(sys.argv[1]))["findings"]))' "$work/f.json"; then
	fail "a run that turned HF32 off is not blamed on it"
else
	ok "a run that turned HF32 off is not blamed on it"
fi

# dropout: in training mode each side would draw its own random masks, which alone fails
# the comparison, the CPU's with itself too; the script turns dropout off for the training
# step (the module, attention's own and the functional form), so the comparison is
# deterministic, and the result says what it turned off
run -- --model models.tiny:Dropped --input 2,5,8 --device cpu --out "$work/drop_cpu.json" \
	&& ok "a model with dropout agrees with itself on the CPU" || fail "a model with dropout agrees with itself on the CPU: $(tail -3 "$work/run.out")"
judge "$work/drop_cpu.json" drop_cpu
check_has warning "Dropped ran on cpu, not on an NPU" "a run on the CPU alone is a warning"
check_has warning "a smoke test of the script" "it is called a smoke test, not NPU evidence"
if has error "Dropped"; then fail "a run on the CPU alone is no error"; else ok "a run on the CPU alone is no error"; fi
run -- --model models.tiny:Dropped --input 2,5,8 --out "$work/drop.json" \
	&& ok "a model with dropout passes on the NPU" || fail "a model with dropout passes on the NPU: $(tail -3 "$work/run.out")"
python3 - "$work/drop.json" <<'PY' && ok "first_step.json records the dropout turned off" || fail "first_step.json records the dropout turned off"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "ferry-first-step/4", d["schema"]
r = d["randomness"]
assert r["dropout_modules"] == 1 and r["masks_off"] == 2, r
assert r["forward_reproducible"] is True and r["step_reproducible"] is True, r
PY
run -- --model models.tiny:DroppedByName --input 4,8 --device cpu --out "$work/byname.json" \
	&& ok "dropout bound by name agrees with itself on the CPU" || fail "dropout bound by name agrees with itself on the CPU: $(tail -3 "$work/run.out")"
python3 - "$work/byname.json" <<'PY' && ok "dropout imported by name and torch.dropout are turned off too" || fail "dropout imported by name and torch.dropout are turned off too"
import json, sys
r = json.load(open(sys.argv[1]))["randomness"]
assert r["masks_off"] == 2 and r["step_reproducible"] is True, r
PY
judge "$work/drop.json" drop
check_has info "Dropped with the factory's random weights passed" "the dropout model's pass is judged"
check_has info "with dropout off on both sides (1 dropout module(s) in eval mode, 2 call(s)" "the verdict says dropout was off"

# randomness the script does not turn off: stochastic depth from torch's generator agrees
# with itself under the same seed on the CPU, but not with another seed, so the smoke test
# warns that the NPU's own random numbers will differ; noise no seed repeats fails the smoke
# test, and on the NPU the verdict blames the randomness, not the NPU
run -- --model models.tiny:DropPath --input 4,8 --device cpu --out "$work/droppath.json" \
	&& ok "stochastic depth agrees with itself under one seed" || fail "stochastic depth agrees with itself under one seed: $(tail -3 "$work/run.out")"
judge "$work/droppath.json" droppath
check_has warning "training step on the CPU differs when it runs again with another seed" "the smoke test warns of randomness left on"
check_has warning "drop_path_rate" "the advice turns it off"
run -- --model models.tiny:Noisy --input 4,8 --device cpu --out "$work/noisy_cpu.json"
judge "$work/noisy_cpu.json" noisy_cpu
check_has warning 'The smoke test of models.tiny:Noisy on cpu failed at "training step"' "a smoke test that fails is a warning"
if has error "Noisy"; then fail "a failed smoke test is no error"; else ok "a failed smoke test is no error"; fi
check_has warning "the two runs should agree" "the advice for a device disagreeing with itself"
run -- --model models.tiny:Noisy --input 4,8 --out "$work/noisy.json"
judge "$work/noisy.json" noisy
check_has error 'failed at "training step"' "noise fails the NPU's training step"
check_has error "may be that randomness rather than the NPU" "the verdict blames the randomness"
# results of a script that ran the training step with dropout on, on the NPU and on the CPU
python3 - "$work/drop.json" "$work/drop_old.json" "$work/drop_old_cpu.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["schema"] = "ferry-first-step/3"
del doc["randomness"]
doc["model"] = "models.tiny:Dropped(old)"
for s in doc["steps"]:
    if s["name"] == "training step":
        s.update(ok=False, loss=0.0889, loss_cpu=0.0953, loss_abs_diff=0.0064, grad_cosine=0.85)
json.dump(doc, open(sys.argv[2], "w"))
doc["model"], doc["device"] = "models.tiny:Dropped(old, cpu)", "cpu"
doc["steps"] = [s for s in doc["steps"] if s["name"] != "import torch_npu"]
json.dump(doc, open(sys.argv[3], "w"))
PY
judge "$work/drop_old.json" drop_old
check_has error "does not record whether dropout was off" "an older result's difference may be dropout's"
check_has error "ferry fix --plugin tune.evidence_scripts" "the advice writes the current script"
judge "$work/drop_old_cpu.json" drop_old_cpu
check_has warning 'The smoke test of models.tiny:Dropped(old, cpu) on cpu failed at "training step"' "an older smoke test that failed is a warning"
check_has warning "does not record whether dropout was off" "its difference may be dropout's"
if has error "Dropped(old, cpu)"; then fail "an older smoke test that failed is no error"; else ok "an older smoke test that failed is no error"; fi

# a result whose own figures contradict its "ok", and one cut after the comparison
python3 - "$work/pass.json" "$work/claimed.json" "$work/cut.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for s in doc["steps"]:
    if s["name"] == "compare":
        s["max_abs_diff"] = 0.25
json.dump(doc, open(sys.argv[2], "w"))
doc = json.load(open(sys.argv[1]))
doc["steps"] = [s for s in doc["steps"] if s["name"] != "training step"]
json.dump(doc, open(sys.argv[3], "w"))
doc = json.load(open(sys.argv[1]))
for s in doc["steps"]:
    if s["name"] == "training step":
        s["loss"], s["nonfinite_grads"] = None, 12
json.dump(doc, open(sys.argv[3].replace("cut", "nan"), "w"))
PY
judge "$work/claimed.json" claimed
check_has error "differ by 2.50e-01" "ferry judges the figures, not the script's ok"
judge "$work/cut.json" cut
check_has error 'no "training step" step' "a result without its training step fails"
judge "$work/nan.json" nan
check_has error "loss is not a finite number" "a training step claiming ok with a lost loss fails"

printf '{"schema": "ferry-first-step/2", "ok": true}\n' >"$work/bad.json"
expect_exit 3 "a result without its steps is refused" -- "$FERRY" -C "$p" ingest first-step "$work/bad.json"
one_line "$work/err" "the refusal is one line"
expect_grep "bad.json: first-step result without" "$work/err" "the refusal names the file and the reason"
printf '{"schema": "ferry-bench/1"}\n' >"$work/other.json"
expect_exit 3 "another document is refused" -- "$FERRY" -C "$p" ingest first-step "$work/other.json"
finish
