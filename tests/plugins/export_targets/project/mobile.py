"""A second mobile export, straight from whatever device the model was trained on."""
import torch
from torch.utils.mobile_optimizer import optimize_for_mobile


def save_for_app(model, example, path):
    scripted = torch.jit.trace(model, example)
    optimize_for_mobile(scripted)._save_for_lite_interpreter(path)
