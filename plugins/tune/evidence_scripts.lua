-- tune.evidence_scripts: generated files that produce the tune phase's evidence.
--
-- scripts/msprobe_config.json: an msprobe dump configuration (keys and values from
-- tune-and-inference-formats.md §1.4: task, dump_path, rank, step, level, and the task's
-- block with scope, list and data_mode) that dumps the tensors of every API (level L1) in
-- one training step, for `ferry compare dump`. scripts/npu_profile.py: a torch_npu
-- profiler (torch_npu.profiler.profile, schedule, tensorboard_trace_handler,
-- ProfilerActivity.CPU/NPU — ascend-toolchain.md §1.2) whose output folder holds the
-- kernel_details.csv `ferry ingest profile` reads (tune-and-inference-formats.md §3.1).
-- scripts/first_step.py: seed 000 §4.2's "minimal viable migration" — the client's own
-- model built on the CPU (with its trained weights when given), one forward pass on the
-- CPU and on npu:0 compared (largest absolute difference under 1e-3, the same relative to
-- the output's scale, and msprobe's cosine of at least 0.99), then one training step on
-- both with dropout off (each side would draw its own masks), loss and gradients compared,
-- and the CPU's forward pass and step repeated under another seed to show randomness left
-- on; it writes the first_step.json (ferry-first-step/4) that `ferry ingest first-step`
-- takes and tune.first_step judges.
-- Each missing file is one finding whose fix creates it; `ferry fix --plugin
-- tune.evidence_scripts` writes them as one checkpoint.

local CONFIG = "scripts/msprobe_config.json"
local PROFILE = "scripts/npu_profile.py"
local FIRST_STEP = "scripts/first_step.py"

local CONFIG_TEXT = [[
{
  "task": "tensor",
  "dump_path": "./msprobe_dump",
  "rank": [],
  "step": [1],
  "level": "L1",
  "async_dump": false,
  "tensor": {
    "scope": [],
    "list": [],
    "data_mode": ["all"]
  }
}
]]

local PROFILE_TEXT = [[
# scripts/npu_profile.py: profile a few training steps on the NPU with torch_npu's profiler.
#
# Use it around the training loop and call prof.step() once per iteration:
#
#     from scripts.npu_profile import npu_profiler
#     with npu_profiler() as prof:
#         for batch in loader:
#             train_step(batch)
#             prof.step()
#
# It skips the first SKIP steps (start-up and compilation), then records ACTIVE steps.
# The results go to OUT_DIR/<host>_<pid>_..._ascend_pt/ASCEND_PROFILER_OUTPUT/; give its
# kernel_details.csv (or trace_view.json) to `ferry ingest profile FILE`.
import torch_npu

OUT_DIR = "./npu_profile"
SKIP, WAIT, WARMUP, ACTIVE = 10, 1, 1, 3


def npu_profiler(out_dir=OUT_DIR):
    return torch_npu.profiler.profile(
        activities=[torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU],
        schedule=torch_npu.profiler.schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1, skip_first=SKIP),
        on_trace_ready=torch_npu.profiler.tensorboard_trace_handler(out_dir),
        record_shapes=True,
        profile_memory=True,
    )
]]

local FIRST_STEP_TEXT = [==[
# scripts/first_step.py: the first step of the migrated model on one NPU, against the CPU.
#
#     python scripts/first_step.py --model PACKAGE.MODULE:FACTORY --input 2,3,224,224
#
# FACTORY is a class or function of the project that returns the model (a torch.nn.Module)
# when called with the JSON keyword arguments of --kwargs (none by default); --checkpoint
# loads trained weights into it (a state_dict, or a dict holding one under "state_dict" or
# "model"), so that the outputs compared are the real ones. --input gives the shape of one
# random float32 batch; --input-file a batch saved with torch.save: a tensor, a tuple or
# list (positional arguments) or a dict (keyword arguments, as a tokenizer's output). Use
# a configuration small enough for one card. The model is built once on the CPU with a
# fixed seed; the same weights then run one forward pass on the CPU and one on --device
# (npu:0 by default), the outputs are compared (largest absolute difference under 1e-3,
# the same relative to the output's scale, cosine similarity at least 0.99), and one
# training step (backward of the mean square of the outputs) runs on both, its loss and
# gradients compared the same way. Each step (import torch, import torch_npu, build, load
# checkpoint, reference forward, device forward, compare, training step) is recorded, a
# failure with its exception, in first_step.json (--out); give that file to
# `ferry ingest first-step first_step.json`. The exit status is 0 when every step
# passed, 1 otherwise.
#
# On the NPU the comparison is in true float32: torch_npu computes float32 convolutions
# in HF32, a float32 of fewer mantissa bits, by default (torch.npu.conv.allow_hf32, True
# since torch_npu 5.0.rc2; torch.npu.matmul.allow_hf32 is False by default), which alone
# can exceed 1e-3. The script turns every such switch off after importing torch_npu and
# records in first_step.json ("hf32") what each was and what it is for the comparison.
#
# The comparison is deterministic: in training mode each side would draw its own dropout
# masks, and a CPU and an NPU never draw the same ones, so the training step runs with
# dropout off on both sides (every dropout module in eval mode while the rest, BatchNorm
# with its batch statistics, stays in training mode; torch.nn.functional's dropout
# functions, torch's own (torch.dropout) and the dropout of scaled_dot_product_attention
# without their masks, wherever a module bound them, `from torch.nn.functional import
# dropout` included). Before
# each side's forward pass and training step the random generators (torch's, Python's,
# numpy's) are seeded alike, and the CPU repeats both with another seed: randomness left
# on (stochastic depth, noise, random masking) shows as a CPU that disagrees with itself,
# and first_step.json ("randomness") records all of it. A run with --device cpu compares
# the CPU with itself: a smoke test of the script and the model, not evidence of the NPU.
import argparse
import contextlib
import copy
import dataclasses
import importlib
import inspect
import json
import math
import random
import sys
import time
import traceback

ABS_LIMIT = 1e-3    # seed 000 §4.2: max |CPU - NPU| < 1e-3
COSINE_LIMIT = 0.99  # msprobe's pass criterion for a tensor
HF32_SWITCHES = @HF32_SWITCHES@  # torch.npu.<switch>.allow_hf32, each turned off for the comparison
SEED, REPEAT_SEED = 0, 1  # each side's seed; the CPU's repeat with another
REPEAT_LIMIT = 1e-6  # a repeat agrees within this share of the output's, loss's and gradients' scale
DROPOUT_MODULES = ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout")
# torch's functions that draw a random mask: module and name, position and keyword of the
# rate, position and keyword of the training flag (None: it masks whenever the rate is not 0)
F = "torch.nn.functional"
MASKING_FUNCTIONS = (
    (F, "dropout", 1, "p", 2, "training"), (F, "dropout1d", 1, "p", 2, "training"),
    (F, "dropout2d", 1, "p", 2, "training"), (F, "dropout3d", 1, "p", 2, "training"),
    (F, "alpha_dropout", 1, "p", 2, "training"), (F, "feature_alpha_dropout", 1, "p", 2, "training"),
    (F, "scaled_dot_product_attention", 4, "dropout_p", None, None),
    ("torch", "dropout", 1, "p", 2, "train"), ("torch", "feature_dropout", 1, "p", 2, "train"),
    ("torch", "alpha_dropout", 1, "p", 2, "train"), ("torch", "feature_alpha_dropout", 1, "p", 2, "train"),
)

result = {"schema": "ferry-first-step/4", "abs_limit": ABS_LIMIT, "cosine_limit": COSINE_LIMIT, "steps": [], "ok": False}


def record(name, ok, started, **fields):
    step = {"name": name, "ok": ok, "seconds": round(time.time() - started, 3)}
    step.update(fields)
    result["steps"].append(step)
    return ok


def failed(name, started, exc):
    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
    traceback.print_exc()
    return record(name, False, started, error=last)


def true_fp32(torch):
    """Turns torch_npu's HF32 switches off, so that float32 operators on the NPU compute in
    float32 as on the CPU. Per switch: whether torch_npu has it, its value before and the
    value the comparison runs with (None: unreadable, as before torch_npu 5.0.rc3)."""
    def read(switch):
        try:
            return bool(switch.allow_hf32)
        except Exception:
            return None
    record = {}
    for name in HF32_SWITCHES:
        switch = getattr(torch.npu, name, None)
        if switch is None:
            record[name] = {"found": False}
            continue
        entry = {"found": True, "before": read(switch)}
        try:
            switch.allow_hf32 = False
        except Exception as exc:
            entry["error"] = traceback.format_exception_only(type(exc), exc)[-1].strip()
        now = read(switch)
        entry["during"] = now if now is not None or "error" in entry else False
        record[name] = entry
    return record


def tensors_of(value):
    """The floating-point tensors of a model's output, in a stable order."""
    import torch
    if isinstance(value, torch.Tensor):
        return [value] if value.is_floating_point() else []
    if isinstance(value, dict):
        return [t for k in sorted(value, key=str) for t in tensors_of(value[k])]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors_of(v)]
    if hasattr(value, "to_tuple"):
        return tensors_of(value.to_tuple())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [t for f in dataclasses.fields(value) for t in tensors_of(getattr(value, f.name))]
    return []


def to_device(value, device):
    """The batch on the device; what is not a tensor (None, numbers, strings) as it is."""
    import torch
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, dict):
        return {k: to_device(v, device) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    return value


def call(model, batch):
    return model(**batch) if isinstance(batch, dict) else model(*batch)


def figures(a, b):
    """Largest absolute difference, the same over the reference's scale, cosine similarity
    and non-finite values of two lists of tensors (a: the CPU's)."""
    import torch
    if not a or len(a) != len(b):
        raise ValueError("the outputs differ in structure: %d floating tensors on the CPU, %d on the device" % (len(a), len(b)))
    worst, scale, nonfinite, dot, na, nb, shapes = 0.0, 0.0, 0, 0.0, 0.0, 0.0, []
    for x, y in zip(a, b):
        x, y = x.detach().cpu().double().flatten(), y.detach().cpu().double().flatten()
        if x.shape != y.shape:
            raise ValueError("shapes differ: %s on the CPU, %s on the device" % (tuple(x.shape), tuple(y.shape)))
        shapes.append(x.numel())
        bad = ~(x.isfinite() & y.isfinite())
        nonfinite += int(bad.sum())
        x, y = x[~bad], y[~bad]
        if x.numel():
            worst = max(worst, float((x - y).abs().max()))
            scale = max(scale, float(x.abs().max()))
            dot, na, nb = dot + float(x @ y), na + float(x @ x), nb + float(y @ y)
    cosine = dot / math.sqrt(na * nb) if na > 0 and nb > 0 else (1.0 if na == nb else 0.0)
    return {"max_abs_diff": worst, "max_rel_diff": worst / scale if scale > 0 else None, "cosine": cosine,
            "nonfinite": nonfinite, "reference_scale": scale, "elements": sum(shapes)}


def close(f):
    return (f["nonfinite"] == 0 and f["reference_scale"] > 0 and f["max_abs_diff"] < ABS_LIMIT
            and f["max_rel_diff"] < ABS_LIMIT and f["cosine"] >= COSINE_LIMIT)


def same(f):
    """Whether a repeat agrees with the first run: its finite values within REPEAT_LIMIT of their scale."""
    return f["max_abs_diff"] <= REPEAT_LIMIT * f["reference_scale"]


def seed_all(seed):
    """The same random numbers for each side: torch's generators, Python's, and numpy's when loaded."""
    import torch
    torch.manual_seed(seed)
    random.seed(seed)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(seed)


def argument(args, kwargs, at, name, default):
    return args[at] if at is not None and len(args) > at else kwargs.get(name, default)


def unmasked(fn, rate_at, rate, train_at, train, calls):
    """fn with its dropout rate set to 0; calls[0] counts the calls that would have drawn a mask."""
    try:
        params = inspect.signature(fn).parameters
        default_rate, default_train = params[rate].default, params[train].default if train else True
    except Exception:
        default_rate, default_train = 0.0, True

    def without_mask(*args, **kwargs):
        if argument(args, kwargs, rate_at, rate, default_rate) and (train is None or argument(args, kwargs, train_at, train, default_train)):
            calls[0] += 1
        if len(args) > rate_at:
            args = args[:rate_at] + (0.0,) + args[rate_at + 1:]
        else:
            kwargs[rate] = 0.0
        return fn(*args, **kwargs)
    return without_mask


def bindings(functions):
    """Every module attribute bound to one of functions (a dict: id -> function): their own
    modules' and those of any module that imported them by name. A list of (module, name, fn)."""
    found = []
    for module in list(sys.modules.values()):
        try:
            items = list(vars(module).items())
        except TypeError:
            continue
        for name, value in items:
            if id(value) in functions and functions[id(value)] is value:
                found.append((module, name, value))
    return found


@contextlib.contextmanager
def dropout_off(model):
    """Within: every dropout module of the model in eval mode (the others keep their mode) and
    torch's masking functions without their masks, under every name a module bound them to.
    Yields [the number of modules, the calls of those functions that would have drawn a mask]."""
    import torch
    kinds = tuple(k for k in (getattr(torch.nn, n, None) for n in DROPOUT_MODULES) if k is not None)
    modules = [m for m in model.modules() if isinstance(m, kinds) and m.training]
    for m in modules:
        m.eval()
    calls, functions, replacement = [0], {}, {}
    for owner, name, rate_at, rate, train_at, train in MASKING_FUNCTIONS:
        fn = getattr(sys.modules.get(owner), name, None)
        if fn is not None and id(fn) not in functions:
            functions[id(fn)] = fn
            replacement[id(fn)] = unmasked(fn, rate_at, rate, train_at, train, calls)
    saved = bindings(functions)
    for module, name, fn in saved:
        setattr(module, name, replacement[id(fn)])
    try:
        yield [len(modules), calls]
    finally:
        for module, name, fn in saved:
            setattr(module, name, fn)
        for m in modules:
            m.train()


def forward(model, batch, seed):
    """The model's output without gradients, the random generators seeded with seed."""
    import torch
    seed_all(seed)
    with torch.no_grad():
        return call(model, batch)


def training_step(model, batch, seed):
    """One step with dropout off, the random generators seeded with seed: backward of the mean
    square of the outputs; the loss, the gradients and what dropout_off turned off."""
    import torch
    model.train()
    seed_all(seed)
    with dropout_off(model) as off:  # the backward pass too: checkpointed layers run forward again in it
        outs = tensors_of(call(model, batch))
        if not outs:
            raise RuntimeError("the model's output holds no floating-point tensor to train on")
        loss = sum(o.float().pow(2).mean() for o in outs)
        loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    if not grads:
        raise RuntimeError("no parameter received a gradient")
    torch.optim.SGD(model.parameters(), lr=1e-3).step()
    return loss.detach().reshape(1), grads, {"dropout_modules": off[0], "masks_off": off[1][0]}


def run(args):
    t = time.time()
    try:
        import torch
        result["torch"] = torch.__version__
    except Exception as exc:
        return failed("import torch", t, exc)
    record("import torch", True, t)
    on_npu = args.device.startswith("npu")
    if on_npu:
        t = time.time()
        try:
            import torch_npu
            result["torch_npu"] = getattr(torch_npu, "__version__", "?")
            if not torch.npu.is_available():
                raise RuntimeError("torch.npu.is_available() is False: torch_npu sees no NPU")
        except Exception as exc:
            return failed("import torch_npu", t, exc)
        result["hf32"] = true_fp32(torch)
        record("import torch_npu", True, t)

    t = time.time()
    try:
        sys.path.insert(0, ".")
        module, _, name = args.model.partition(":")
        factory = importlib.import_module(module)
        for part in (name or "model").split("."):
            factory = getattr(factory, part)
        torch.manual_seed(0)
        model = factory(**json.loads(args.kwargs))
        params = sum(p.numel() for p in model.parameters())
    except Exception as exc:
        return failed("build", t, exc)
    record("build", True, t, parameters=params)

    if args.checkpoint:
        t = time.time()
        try:
            state = torch.load(args.checkpoint, map_location="cpu")
            for key in ("state_dict", "model"):
                if isinstance(state, dict) and isinstance(state.get(key), dict):
                    state = state[key]
            model.load_state_dict(state)
        except Exception as exc:
            return failed("load checkpoint", t, exc)
        record("load checkpoint", True, t)
    result["checkpoint"] = bool(args.checkpoint)
    model.eval()

    t = time.time()
    try:
        if args.input_file:
            batch = torch.load(args.input_file, map_location="cpu")
        else:
            torch.manual_seed(1)
            batch = torch.randn(*[int(d) for d in args.input.split(",")])
        if not isinstance(batch, (dict, list, tuple)):
            batch = (batch,)
        cpu_out = forward(model, batch, SEED)
        outs = tensors_of(cpu_out)
        repeat = figures(outs, tensors_of(forward(model, batch, REPEAT_SEED))) if outs else None
    except Exception as exc:
        return failed("reference forward", t, exc)
    randomness = result["randomness"] = {"seed": SEED, "repeat_seed": REPEAT_SEED,
                                         "forward_repeat_diff": repeat and repeat["max_abs_diff"],
                                         "forward_reproducible": repeat and same(repeat)}
    record("reference forward", True, t)

    t = time.time()
    try:
        device_model = copy.deepcopy(model).to(args.device)
        device_batch = to_device(batch, args.device)
        dev_out = forward(device_model, device_batch, SEED)
        if on_npu:
            torch.npu.synchronize()
    except Exception as exc:
        return failed("device forward", t, exc)
    record("device forward", True, t)

    t = time.time()
    try:
        f = figures(tensors_of(cpu_out), tensors_of(dev_out))
    except Exception as exc:
        return failed("compare", t, exc)
    if not record("compare", close(f), t, **f):
        print("first step: the outputs differ by %.3e (cosine %.6f), %d non-finite" % (f["max_abs_diff"], f["cosine"], f["nonfinite"]), file=sys.stderr)

    t = time.time()
    try:
        repeat_model = copy.deepcopy(model)
        cpu_loss, cpu_grads, off = training_step(model, batch, SEED)
        loss, grads, _ = training_step(device_model, device_batch, SEED)
        if on_npu:
            torch.npu.synchronize()
        lf = figures([cpu_loss], [loss])
        gf = figures(cpu_grads, grads)
        repeat_loss, repeat_grads, _ = training_step(repeat_model, batch, REPEAT_SEED)
        rl, rg = figures([cpu_loss], [repeat_loss]), figures(cpu_grads, repeat_grads)
    except Exception as exc:
        return failed("training step", t, exc)
    randomness.update(off, step_repeat_loss_diff=rl["max_abs_diff"], step_repeat_grad_cosine=rg["cosine"],
                      step_reproducible=same(rl) and same(rg))
    value = float(loss.cpu())
    record("training step", close(lf) and gf["nonfinite"] == 0 and gf["cosine"] >= COSINE_LIMIT, t,
           loss=value if math.isfinite(value) else None,
           loss_cpu=float(cpu_loss) if math.isfinite(float(cpu_loss)) else None, loss_abs_diff=lf["max_abs_diff"],
           grad_cosine=gf["cosine"], nonfinite_grads=gf["nonfinite"])
    return all(s["ok"] for s in result["steps"])


def main():
    ap = argparse.ArgumentParser(description="One forward pass and one training step of the model on the NPU, against the CPU.")
    ap.add_argument("--model", required=True, help="PACKAGE.MODULE:FACTORY, a class or function returning the model")
    ap.add_argument("--kwargs", default="{}", help="JSON keyword arguments for FACTORY")
    ap.add_argument("--checkpoint", help="trained weights to load (a state_dict saved with torch.save)")
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--input", help="shape of one random float32 batch, e.g. 2,3,224,224")
    group.add_argument("--input-file", help="a batch saved with torch.save: tensor, tuple/list, or dict of keyword arguments")
    ap.add_argument("--device", default="npu:0")
    ap.add_argument("--out", default="first_step.json")
    args = ap.parse_args()
    result.update(model=args.model, device=args.device, started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    result["ok"] = bool(run(args))
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, allow_nan=False)
        f.write("\n")
    print("first step: %s, written to %s" % ("passed" if result["ok"] else "FAILED", args.out), file=sys.stderr)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
]==]

-- Each script: where it goes, its text, and the finding that proposes it ({path}).
local SCRIPTS = {
	{ path = FIRST_STEP, text = FIRST_STEP_TEXT,
	  message = N_("The project has no first-step test: {path} would build the model on the CPU, run one forward pass on the CPU and on npu:0 and compare them (largest difference under 1e-3), then run one training step on the NPU."),
	  suggestion = N_("Run `ferry fix --plugin tune.evidence_scripts --yes` to write it; on the NPU host run `python {path} --model MODULE:FACTORY --input SHAPE` before any full training, then `ferry ingest first-step first_step.json`.") },
	{ path = CONFIG, text = CONFIG_TEXT,
	  message = N_("The project has no msprobe dump configuration: {path} would dump the tensors of every API (task tensor, level L1) in training step 1 to ./msprobe_dump."),
	  suggestion = N_("Run `ferry fix --plugin tune.evidence_scripts --yes` to write it; run the GPU and the NPU training with the same file (msprobe's PrecisionDebugger(config_path=\"{path}\")), then `ferry compare dump` the two step folders. Narrow `scope`/`list` once the first diverging layer is known.") },
	{ path = PROFILE, text = PROFILE_TEXT,
	  message = N_("The project has no NPU profiling helper: {path} would record steps 11 to 13 with torch_npu's profiler (CPU and NPU activity, shapes, memory)."),
	  suggestion = N_("Run `ferry fix --plugin tune.evidence_scripts --yes` to write it; wrap the training loop with it once precision is signed off, then `ferry ingest profile` the kernel_details.csv it writes.") },
}

return {
	id = "tune.evidence_scripts",
	phase = "tune",
	title = _("Scripts that collect the precision and performance evidence"),
	severity = "info",
	category = "evidence",
	description = _("The tune phase judges dumps and profiles of real runs. The fixes write "
		.. "scripts/msprobe_config.json (an msprobe configuration dumping every API's tensors, level L1, in step 1, to "
		.. "./msprobe_dump), scripts/npu_profile.py (torch_npu's profiler over a few steps after the "
		.. "first ten) and scripts/first_step.py (the model's first forward pass and training step on one NPU, against "
		.. "the CPU); each is one checkpoint."),
	run = function(ctx)
		-- the HF32 switches first_step.py turns off, from the fact table: ("conv", "matmul")
		local switches = {}
		for _i, e in ipairs(ctx.data("hf32").entries) do switches[#switches + 1] = string.format("%q", e.kind) end
		local values = { ["@HF32_SWITCHES@"] = "(" .. table.concat(switches, ", ") .. (#switches == 1 and ",)" or ")") }
		for _i, sc in ipairs(SCRIPTS) do
			if not ctx.read(sc.path) then
				ctx.report{
					file = sc.path, key = sc.path,
					message = _(sc.message, { path = sc.path }),
					suggestion = _(sc.suggestion, { path = sc.path }),
					edits = { { start_byte = 0, end_byte = 0, text = (sc.text:gsub("@[%u%d_]+@", values)) } },
				}
			end
		end
	end,
}
