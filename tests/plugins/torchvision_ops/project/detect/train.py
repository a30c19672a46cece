import torch

from detect.heads import Heads

if __name__ == "__main__":
    heads = Heads().to("cuda")
    print(sum(p.numel() for p in heads.parameters()))
