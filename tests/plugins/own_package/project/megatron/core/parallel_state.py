# Inside the package: absolute imports of itself.
import megatron.core
from megatron.core.utils import divide


def world():
    return divide(8, 2)
