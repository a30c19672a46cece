"""Ops that only mention torch.compile, channels_last and script in prose."""


def describe():
    # torch.compile(model) would be here; torch.channels_last too
    return "use torch.jit.script or channels_last at your own risk"


class jit:
    """A local class named jit, with a method named script: not TorchScript."""

    @staticmethod
    def script(fn):
        return fn


@jit.script
def local_decorated(x):
    return x
