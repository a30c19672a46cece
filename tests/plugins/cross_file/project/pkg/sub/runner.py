from .. import select_device


def run_here():
    return select_device()
