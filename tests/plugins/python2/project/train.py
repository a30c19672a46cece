# Python 3 code that says print in ways the Python 2 statement must not be confused with.
import logging
import sys

import torch

logger = logging.getLogger(__name__)


def report(a, b, verbose=False):
    print ("loss", a)
    print (a), b
    print(a) if verbose else None
    print(*sys.argv, sep=" ")
    print(f"{a} {b}")
    echo = print
    echo.__doc__
    if a != b:
        print("differ")
    mode = 0o755
    big = 2147483647
    pattern = r'\d+' + u'x'
    try:
        return torch.ones(3).cuda(), mode, big, pattern
    except (IOError, ValueError) as e:  # print it later
        logger.warning("failed: %s", e)


if __name__ == "__main__":
    print = logger.info
    report(1, 2)
