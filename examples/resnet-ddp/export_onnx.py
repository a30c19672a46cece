"""Export a trained checkpoint to ONNX for offline inference."""
import argparse

import torch

from models.resnet import ResNetAttn


def main():
    p = argparse.ArgumentParser(description="export the model to ONNX")
    p.add_argument("--checkpoint", default="checkpoints/last.pt")
    p.add_argument("--output", default="resnet_attn.onnx")
    p.add_argument("--opset", type=int, default=17)
    args = p.parse_args()

    model = ResNetAttn(num_classes=10)
    model.load_state_dict(torch.load(args.checkpoint, map_location="cpu"))
    model.eval()
    dummy = torch.randn(1, 3, 32, 32)
    torch.onnx.export(
        model, dummy, args.output,
        opset_version=args.opset,
        input_names=["images"], output_names=["logits"],
        dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}},
    )
    print("wrote", args.output)


if __name__ == "__main__":
    main()
