import torch
import torch.nn.functional as F


class GraphAttention(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w = torch.nn.Linear(dim, dim)

    def forward(self, h, adj):
        h_transformed = self.w(h)
        e = h_transformed @ h_transformed.t()
        e = e.masked_fill(adj == 0, float("-inf"))
        attention = F.softmax(e, dim=1)
        return torch.matmul(attention, h_transformed)
