import torch

from vision.evaluation.fast_eval import evaluate


def main():
    a = torch.rand(4, 4)
    print(evaluate(a, a))


if __name__ == "__main__":
    main()
