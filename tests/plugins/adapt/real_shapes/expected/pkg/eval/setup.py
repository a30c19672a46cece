# dinov2's eval/setup.py: a module of the package that builds the model for evaluation,
# not a build script; the one place every evaluation puts the model on the device.
import torch


def setup(cfg):
    return dict(cfg)


def setup_and_build_model(model, cfg):
    setup(cfg)
    model.eval()
    model.npu()
    return model
