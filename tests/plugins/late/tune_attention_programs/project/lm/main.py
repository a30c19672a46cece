import torch

from model import CausalSelfAttention
from trainer import Trainer

if __name__ == "__main__":
    model = CausalSelfAttention(16).cuda()
    trainer = Trainer(model, torch.optim.AdamW(model.parameters()))
    for x in [torch.randn(2, 8, 16).cuda()]:
        trainer.step(x)
