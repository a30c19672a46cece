# No CUDA here: the dependence comes through the helper it calls.
from .utils import place


def build_and_place(model):
    return place(model)
