# litgpt's pretrain.py and generate/base.py, cut to their Fabric: devices, a strategy and
# a precision are given but no accelerator, so Lightning chooses the device itself; on an
# Ascend host it finds no GPU and the run goes to the CPU without an error.
import lightning as L
import torch


def setup(devices=1, strategy="auto", precision="bf16-mixed"):
    fabric = L.Fabric(devices=devices, strategy=strategy, precision=precision)
    fabric.launch()
    return fabric


def generate():
    return L.Fabric()


def chosen(**trainer_kwargs):
    # decoys: the CPU chosen on purpose, and settings that come from elsewhere
    cpu = L.Fabric(accelerator="cpu", devices=1)
    passed = L.Trainer(**trainer_kwargs)
    return cpu, passed, torch.zeros(1)
