# The forms a Lightning project puts its run on NVIDIA GPUs with: Lightning 2.x's
# accelerator="gpu"/"cuda" on a Trainer or a Fabric, 1.x's gpus=N (with the distributed
# mode as its accelerator), and the value coming from an option's default.
import argparse

import lightning as L
import pytorch_lightning as pl
from pytorch_lightning import Trainer


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accelerator", type=str, default="gpu")
    parser.add_argument("--gpus", type=int, default=2)
    parser.add_argument("--devices", type=int, default=2)
    return parser.parse_args()


def main():
    args = parse()
    trainers = [
        pl.Trainer(accelerator="gpu", devices=2, max_epochs=3),
        Trainer(gpus=2, max_epochs=3),
        Trainer(gpus=4, accelerator="ddp"),
        pl.Trainer(accelerator="cuda", devices=[0, 1]),
        pl.Trainer(accelerator=args.accelerator, devices=args.devices),
        pl.Trainer(accelerator="cpu", gpus=0),
    ]
    fabric = L.Fabric(accelerator="gpu", devices=4, precision="bf16-mixed")
    trainer_kwargs = {"accelerator": "gpu", "devices": 1}
    return trainers, fabric, pl.Trainer(**trainer_kwargs)


if __name__ == "__main__":
    main()
