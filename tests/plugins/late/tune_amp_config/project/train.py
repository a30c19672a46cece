import json

import deepspeed
import torch
import torch_npu  # noqa: F401


def main(model, loader):
    # the precision is DeepSpeed's: ds_config.json sets it
    engine, _opt, _, _ = deepspeed.initialize(model=model, config=json.load(open("ds_config.json")))
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(engine(x.npu()), y.npu())
        engine.backward(loss)
        engine.step()
