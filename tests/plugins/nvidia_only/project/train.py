# Training-loop fragments as they appear in GPT training scripts (profiling window,
# TorchScript fuser choice, compile backend, MFU logging).
import torch
from torch.profiler import profile, ProfilerActivity

PEAK_FLOPS = 312e12  # A100 bf16 dense

torch._C._jit_set_nvfuser_enabled(True)


def run(model, step_flops, dt):
    with torch.jit.fuser("fuser2"):
        pass
    with torch.jit.fuser("fuser1"):
        pass
    fast = torch.compile(model, backend="tensorrt")
    graphs = torch.compile(model, backend="cudagraphs")
    plain = torch.compile(model, backend="inductor")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fast(torch.zeros(1))
    with profile(activities=[ProfilerActivity.CPU]):
        plain(torch.zeros(1))
    dtype = torch.get_autocast_gpu_dtype()
    mfu = step_flops / dt / PEAK_FLOPS
    other = step_flops / (312 * 10)
    return mfu, dtype, graphs, other


def no_nvfuser():
    # decoy: turning nvFuser off (inside a try, as timm does) leaves nothing to port
    try:
        torch._C._jit_set_nvfuser_enabled(False)
    except Exception:
        pass
