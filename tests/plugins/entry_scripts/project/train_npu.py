import torch
import torch_npu

from segment import build_model


def main():
    model = build_model().to("npu:0")
    x = torch.randn(2, 3, 16, 16).to("npu:0")
    print(model(x).sum().item())


if __name__ == "__main__":
    main()
