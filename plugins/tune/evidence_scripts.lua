-- tune.evidence_scripts: generated files that produce the tune phase's evidence.
--
-- scripts/msprobe_config.json: an msprobe dump configuration (keys and values from
-- tune-and-inference-formats.md §1.4: task, dump_path, rank, step, level, and the task's
-- block with scope, list and data_mode) that dumps the tensors of every API (level L1) in
-- one training step, for `ferry compare dump`. scripts/npu_profile.py: a torch_npu
-- profiler (torch_npu.profiler.profile, schedule, tensorboard_trace_handler,
-- ProfilerActivity.CPU/NPU — ascend-toolchain.md §1.2) whose output folder holds the
-- kernel_details.csv `ferry ingest profile` reads (tune-and-inference-formats.md §3.1).
-- Each missing file is one finding whose fix creates it; `ferry fix --plugin
-- tune.evidence_scripts` writes them as one checkpoint.

local CONFIG = "scripts/msprobe_config.json"
local PROFILE = "scripts/npu_profile.py"

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

return {
	id = "tune.evidence_scripts",
	phase = "tune",
	title = _("Scripts that collect the precision and performance evidence"),
	severity = "info",
	category = "evidence",
	description = _("The tune phase judges dumps and profiles of real runs. The fixes write "
		.. "scripts/msprobe_config.json (an msprobe configuration dumping every API's tensors, level L1, in step 1, to "
		.. "./msprobe_dump) and scripts/npu_profile.py (torch_npu's profiler over a few steps after the "
		.. "first ten); each is one checkpoint."),
	run = function(ctx)
		if not ctx.read(CONFIG) then
			ctx.report{
				file = CONFIG, key = CONFIG,
				message = "The project has no msprobe dump configuration: " .. CONFIG .. " would dump the tensors of every "
					.. "API (task tensor, level L1) in training step 1 to ./msprobe_dump.",
				suggestion = "Run `ferry fix --plugin tune.evidence_scripts --yes` to write it; run the GPU and the NPU "
					.. "training with the same file (msprobe's PrecisionDebugger(config_path=\"" .. CONFIG .. "\")), then "
					.. "`ferry compare dump` the two step folders. Narrow `scope`/`list` once the first diverging layer is known.",
				edits = { { start_byte = 0, end_byte = 0, text = CONFIG_TEXT } },
			}
		end
		if not ctx.read(PROFILE) then
			ctx.report{
				file = PROFILE, key = PROFILE,
				message = "The project has no NPU profiling helper: " .. PROFILE .. " would record steps 11 to 13 with "
					.. "torch_npu's profiler (CPU and NPU activity, shapes, memory).",
				suggestion = "Run `ferry fix --plugin tune.evidence_scripts --yes` to write it; wrap the training loop with "
					.. "it once precision is signed off, then `ferry ingest profile` the kernel_details.csv it writes.",
				edits = { { start_byte = 0, end_byte = 0, text = PROFILE_TEXT } },
			}
		end
	end,
}
