import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision

lowp = MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16, buffer_dtype=torch.bfloat16)
params_only = MixedPrecision(param_dtype=torch.float16)
kept = MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)


def shard(model, policy=kept):
    return FSDP(model, mixed_precision=policy)
