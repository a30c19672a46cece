# mamba's tests/test_determinism.py: the guarded test runs mamba_ssm's Triton kernels,
# which exist for NVIDIA GPUs only; the seed helper beside it is plain torch.
import pytest
import torch
import torch_npu


def _set_seeds(seed: int) -> None:
    torch.manual_seed(seed)
    torch.npu.manual_seed_all(seed)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA required")
def test_default_mode_is_not_reproducible():
    from mamba_ssm.modules.mamba2 import Mamba2

    device = "cuda"
    dtype = torch.bfloat16

    _set_seeds(123)
    model = Mamba2(
        d_model=256, d_state=64, headdim=64, expand=2, d_conv=4, chunk_size=256,
        use_mem_eff_path=True, device=device, dtype=dtype,
    ).train()
    x = torch.randn(4, 4096, model.d_model, device=device, dtype=dtype).requires_grad_(True)
    model(x).float().square().mean().backward()
    torch.cuda.synchronize()
