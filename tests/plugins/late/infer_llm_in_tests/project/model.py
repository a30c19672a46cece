# litgpt's shape: the project's own GPT; only its tests load a Hugging Face model, to check
# the converted weights give the same logits. The project serves no transformers model.
import torch


class GPT(torch.nn.Module):
    def __init__(self, vocab=32, dim=8):
        super().__init__()
        self.wte = torch.nn.Embedding(vocab, dim)
        self.lm_head = torch.nn.Linear(dim, vocab)

    def forward(self, idx):
        return self.lm_head(self.wte(idx))
