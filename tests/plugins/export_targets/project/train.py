import torch

from common import MultiBackend


def main():
    model = torch.nn.Conv2d(3, 8, 3).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(10):
        loss = model(torch.randn(2, 3, 32, 32).cuda()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(model, "det.pt")
    print(MultiBackend("det.pt").forward(torch.zeros(1, 3, 32, 32)))


if __name__ == "__main__":
    main()
