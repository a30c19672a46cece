# litgpt's finetune/full.py, cut to its seeding: Fabric's seed_everything seeds torch, numpy
# and Python's random module at once, so the example picked with random.randint and the
# numpy shuffle start from the same state on the GPU and on the NPU.
import random

import lightning as L
import numpy as np
import torch


def pick_example(dataset):
    return dataset[random.randint(0, len(dataset) - 1)]


def shuffled(dataset):
    order = np.random.permutation(len(dataset))
    return [dataset[i] for i in order]


def main(fabric, model, optimizer, dataset, seed=1337):
    fabric.seed_everything(seed)
    for x, y in shuffled(dataset):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        fabric.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
    return pick_example(dataset)


if __name__ == "__main__":
    fabric = L.Fabric(accelerator="cpu", devices=1)
    model = torch.nn.Linear(4, 2)
    main(fabric, model, torch.optim.SGD(model.parameters(), lr=0.1), [])
