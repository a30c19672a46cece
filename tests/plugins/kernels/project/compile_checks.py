"""Fixture: what torch.compile and torch.compiler code needs on NPU, and what it does not."""
import torch


def smoke(model, x):
    # a debug backend: traced, then run eagerly; no Inductor, no Triton
    return torch.compile(model, backend="eager", fullgraph=True)(x)


def traced(model):
    return torch.compile(model, backend='aot_eager')


def is_compiling():
    # a question, not on the vendor's list
    return torch.compiler.is_compiling()


def fresh():
    torch.compiler.reset()


def real(model):
    return torch.compile(model, backend="inductor")
