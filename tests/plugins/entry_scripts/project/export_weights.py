# Saves the weights of a freshly built model.
import torch

from segment import build_model


def export(path="model.pt"):
    torch.save(build_model().state_dict(), path)


if __name__ == "__main__":
    export()
