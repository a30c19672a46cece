-- tune.reproducibility: fixed seeds and deterministic algorithms for the GPU/NPU comparison.
--
-- Comparing the NPU run with the GPU run step by step (loss curves, layer dumps) only
-- means something when both start from the same random state and the kernels are
-- deterministic. Looked for anywhere in the project (seeding usually lives in a helper):
-- a torch seed, numpy and random seeds when those generators are used (a framework's seed
-- helper, a Fabric's seed_everything among them, sets all three), and
-- torch.use_deterministic_algorithms(True). Reported once per project, at the first
-- training step (loss.backward()) or the first unseeded call. What depends on how a
-- training runs (mixed precision, several processes) is decided per program: a repository
-- of independent examples may have one that uses AMP and one that does not, and the advice
-- goes to the first training step whose own program (project.program) does.

local project = require("project")
local lightning = require("lightning")
local train = require("train")

-- torch's own seeds: "torch"; a framework's seed helper seeds torch, numpy and Python's
-- random module at once: "all" (Lightning's seed_everything, Hugging Face's and
-- Accelerate's set_seed, OpenMMLab's set_random_seed, as each documents)
local SEEDS = {}
for _i, n in ipairs({ "torch.manual_seed", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all",
	"torch.npu.manual_seed", "torch.npu.manual_seed_all", "torch_npu.npu.manual_seed", "torch_npu.npu.manual_seed_all" }) do
	SEEDS[n] = "torch"
end
for _i, n in ipairs({ "transformers.set_seed", "transformers.trainer_utils.set_seed", "accelerate.utils.set_seed",
	"pytorch_lightning.seed_everything", "lightning.seed_everything", "lightning.pytorch.seed_everything",
	"lightning.fabric.seed_everything", "mmengine.runner.set_random_seed", "mmcv.runner.set_random_seed" }) do
	SEEDS[n] = "all"
end

-- Whether a file that imports Lightning calls a Fabric's seed_everything method
-- (`fabric.seed_everything(seed)`), Lightning's seed helper under another name.
local FABRIC_SEED = [[(call function: (attribute attribute: (identifier) @m (#eq? @m "seed_everything")))]]
local function fabric_seeds(ctx)
	for _i, path in ipairs(ctx.python_files()) do
		if ctx.find(path, "seed_everything") and #lightning.imports(ctx, path) > 0
			and #(ctx.query(path, FABRIC_SEED) or {}) > 0 then
			return true
		end
	end
	return false
end

local NP_DRAW = {}
for _i, n in ipairs({ "rand", "randn", "randint", "random", "random_sample", "choice", "shuffle", "permutation",
	"uniform", "normal", "beta", "binomial", "poisson" }) do
	NP_DRAW["numpy.random." .. n] = "np"
end
local PY_DRAW = {}
for _i, n in ipairs({ "random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform", "gauss" }) do
	PY_DRAW["random." .. n] = "py"
end

return {
	id = "tune.reproducibility",
	phase = "tune",
	title = _("Seeds and deterministic algorithms for the precision comparison"),
	severity = "warning",
	category = "precision",
	description = _("A loss-curve or dump comparison between the GPU and the NPU run needs both runs to "
		.. "start from the same random state: torch.manual_seed (or a framework's seed helper), plus "
		.. "np.random.seed and random.seed when the code draws from numpy or random. "
		.. "torch.use_deterministic_algorithms(True) makes reruns repeatable (some NPU operators, such as "
		.. "embedding backward and matmul, may otherwise differ between runs)."),
	triggers = { ".backward(" },
	run = function(ctx)
		local steps = {}
		for _i, path in ipairs(project.program_files(ctx)) do
			local s = train.steps(ctx, path)[1]
			if s then steps[#steps + 1] = { file = path, node = s.call } end
		end
		local step = steps[1]
		if not step then return end
		local names = {}
		for k, v in pairs(SEEDS) do names[k] = v end
		for k, v in pairs(NP_DRAW) do names[k] = v end
		for k, v in pairs(PY_DRAW) do names[k] = v end
		names["numpy.random.seed"] = "np_seed"
		names["random.seed"] = "py_seed"
		names["torch.use_deterministic_algorithms"] = "determinism"
		local seen, first = {}, {}
		for _i, c in ipairs(train.project_calls(ctx, names, { "seed", "random", "determinis" })) do
			local what = names[c.name]
			if what == "determinism" and c.args.text:match("False") then what = nil end
			if what then
				seen[what] = true
				first[what] = first[what] or c
			end
		end
		if seen.all or fabric_seeds(ctx) then seen.torch, seen.np_seed, seen.py_seed = true, true, true end
		if not seen.torch then
			ctx.report{
				file = step.file, node = step.node, key = "torch-seed",
				message = _("No torch random seed is set anywhere in the project, so the NPU run cannot be compared step by step with the GPU run."),
				suggestion = _("Call `torch.manual_seed(SEED)` (and `torch.npu.manual_seed_all(SEED)`) at start-up with the same SEED as the GPU run."),
			}
		end
		if seen.np and not seen.np_seed then
			ctx.report{
				file = first.np.path, node = first.np.call, severity = "info", key = "numpy-seed",
				message = _("`{name}` draws from numpy's global generator, which is never seeded in the project.", { name = first.np.name }),
				suggestion = _("Call `np.random.seed(SEED)` at start-up, with the same SEED in the GPU and the NPU run."),
			}
		end
		if seen.py and not seen.py_seed then
			ctx.report{
				file = first.py.path, node = first.py.call, severity = "info", key = "random-seed",
				message = _("`{name}` draws from Python's random module, which is never seeded in the project.", { name = first.py.name }),
				suggestion = _("Call `random.seed(SEED)` at start-up, with the same SEED in the GPU and the NPU run."),
			}
		end
		if not seen.determinism then
			ctx.report{
				file = step.file, node = step.node, severity = "info", key = "determinism",
				message = _("Deterministic algorithms are not enabled, so two runs on the same NPU may differ slightly (for example in embedding backward or matmul)."),
				suggestion = _("For the precision comparison runs, call `torch.use_deterministic_algorithms(True)` at start-up; switch it off again for speed once precision is signed off."),
			}
		end
		-- searched in C: the project's files are not copied into Lua
		local function has(path, word) return ctx.find(path, word) ~= nil end
		local function uses_amp(path) return has(path, "autocast") or has(path, "GradScaler") or has(path, ".half()") end
		local function distributed(path) return has(path, "init_process_group") or has(path, "DistributedDataParallel") end
		-- the first training step whose program holds a .py file where used(file) is true; a
		-- file no training program reaches (a module loaded by name from a config) may run
		-- under any, so then the first step; nil when no file is. Each file is searched once.
		local function step_of(used)
			local files = {}
			for _i, path in ipairs(ctx.files("%.py$")) do
				if used(path) then files[#files + 1] = path end
			end
			if #files == 0 then return nil end
			for _i, st in ipairs(steps) do
				local program = project.program(ctx, st.file)
				for _j, f in ipairs(files) do
					if program[f] then return st end
				end
			end
			return steps[1]
		end
		local amp_step, dist_step = step_of(uses_amp), step_of(distributed)
		local hccl_det = false
		for _i, pattern in ipairs({ "%.py$", "%.sh$" }) do
			for _i, path in ipairs(ctx.files(pattern)) do
				hccl_det = hccl_det or has(path, "HCCL_DETERMINISTIC")
			end
		end
		if dist_step and not hccl_det then
			ctx.report{
				file = dist_step.file, node = dist_step.node, severity = "info", key = "hccl-determinism",
				message = _("The training is distributed but HCCL_DETERMINISTIC is never set, so collective reductions may sum in a different order from run to run."),
				suggestion = _("For the precision comparison runs, export HCCL_DETERMINISTIC on every node with the value your CANN release's HCCL reference documents for deterministic reduction (together with torch.use_deterministic_algorithms(True)); unset it for speed afterwards."),
				data = { source = "HCCL_DETERMINISTIC in the HCCL environment variable index (hiascend.com ptmigr_0110, CANN 6.3; hcclenvref_07_0001, CANN 9.0)" },
			}
		end
		if amp_step then
			ctx.report{
				file = amp_step.file, node = amp_step.node, severity = "info", key = "fp32-reference",
				message = _("The training uses mixed precision, so a loss or dump difference between the GPU and the NPU run mixes AMP effects with hardware differences."),
				suggestion = _("First compare an FP32 run on both sides (autocast and GradScaler off, same seed and data): if they agree, the difference comes from mixed precision; then keep norms, softmax, the loss, embeddings and the output layer in float32."),
				data = { source = "migration guide seed 002, FAQ 1 (unify the compute precision: FP32 on both sides) and seed 003 §3.5.1 (softmax, cross_entropy, norms, embedding and output layers in FP32); see seed-coverage T10, T14-T16" },
			}
		end
	end,
}
