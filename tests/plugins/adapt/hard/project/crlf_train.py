# -*- coding: utf-8 -*-
"""Trains on cuda. Call model.cuda() first; torch.cuda.synchronize() is prose."""
from __future__ import annotations

import os
import torch

# x.cuda() in a comment stays, and so does torch.cuda.synchronize()
def main(model, x, rank):  	
    model = model.cuda()
    x = x.cuda(non_blocking=True)
    torch.cuda.synchronize()
    print("moving to cuda")
    return model, x


if __name__ == "__main__":
    main(None, None, int(os.environ.get("RANK", "0")))
