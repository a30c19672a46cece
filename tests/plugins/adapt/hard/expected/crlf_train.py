# -*- coding: utf-8 -*-
"""Trains on cuda. Call model.cuda() first; torch.cuda.synchronize() is prose."""
from __future__ import annotations

import os
import torch
import torch_npu

# x.cuda() in a comment stays, and so does torch.cuda.synchronize()
def main(model, x, rank):  	
    model = model.npu()
    x = x.npu(non_blocking=True)
    torch.npu.synchronize()
    print("moving to cuda")
    return model, x


if __name__ == "__main__":
    main(None, None, int(os.environ.get("RANK", "0")))
