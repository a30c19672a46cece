# litgpt's tests/test_batch.py: a pytest guard on CUDA, and a device string in the body.
import pytest
import torch
import torch_npu


@pytest.mark.skipif(not torch.npu.is_available(), reason="Test requires a GPU.")
def test_batched_equivalence(tmp_path):
    device = "npu:0"
    batch_size = 3

    x = torch.tensor(
        [43993, 25, 1867, 466, 32660, 17485, 4483, 30, 198, 26410],
        device=device,
        dtype=torch.int64,
    )
    batch_x1 = torch.stack([x] * batch_size, dim=0)
    assert batch_x1.shape == (batch_size, 10)
