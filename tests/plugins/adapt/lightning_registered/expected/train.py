# The forms of lightning_settings/train.py in a project that registers an NPU accelerator
# (ascend_accel.py): the GPU accelerators become "npu" and gpus=N becomes
# accelerator="npu", devices=N; Lightning 1.x's distributed mode as the accelerator stays; a
# Fabric naming no accelerator is given accelerator="npu".
import argparse

import lightning as L
import pytorch_lightning as pl
from pytorch_lightning import Trainer


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accelerator", type=str, default="npu")
    parser.add_argument("--gpus", type=int, default=2)
    parser.add_argument("--devices", type=int, default=2)
    return parser.parse_args()


def main():
    args = parse()
    trainers = [
        pl.Trainer(accelerator="npu", devices=2, max_epochs=3),
        Trainer(accelerator="npu", devices=2, max_epochs=3),
        Trainer(gpus=4, accelerator="ddp"),
        pl.Trainer(accelerator="npu", devices=[0, 1]),
        pl.Trainer(accelerator=args.accelerator, devices=args.devices),
        pl.Trainer(accelerator="cpu", gpus=0),
    ]
    fabric = L.Fabric(accelerator="npu", devices=4, precision="bf16-mixed")
    bare = L.Fabric(accelerator="npu", devices=2, precision="bf16-mixed")
    trainer_kwargs = {"accelerator": "npu", "devices": 1}
    return trainers, fabric, bare, pl.Trainer(**trainer_kwargs)


if __name__ == "__main__":
    main()
