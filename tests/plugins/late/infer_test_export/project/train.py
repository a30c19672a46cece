import torch


def main():
    model = torch.nn.Conv2d(3, 8, 3).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _step in range(10):
        loss = model(torch.randn(2, 3, 64, 64).cuda()).mean()
        loss.backward()
        optimizer.step()


if __name__ == '__main__':
    main()
