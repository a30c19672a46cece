# Reaches CUDA two hops away (build_and_place -> place -> select_device), and calls an
# unrelated project function and a library function of the same name as a helper.
import torch
from pkg.engine import build_and_place
from pkg.utils import plain


def select_device(name=""):  # a local function, not the helper
    return torch.device("cpu")


def serve():
    model = build_and_place(torch.nn.Linear(2, 2))
    print("select_device() is in pkg/utils.py")
    return plain(1), select_device(), model
