import torch

from model import GraphAttention


def train(model, h, adj):
    opt = torch.optim.Adam(model.parameters(), lr=0.005)
    for epoch in range(10):
        opt.zero_grad()
        loss = model(h, adj).pow(2).mean()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    train(GraphAttention(8).cuda(), torch.randn(5, 8).cuda(), torch.ones(5, 5).cuda())
