# Mirrors NVIDIA/Megatron-LM: a launcher at the root importing the project's own
# namespace package `megatron` (no megatron/__init__.py), which the library table also
# lists as megatron-core.
from megatron.core import parallel_state
from megatron.training import get_args, pretrain
import megatron.core.tensor_parallel as tp
import flash_attn


def main():
    args = get_args()
    pretrain(args, parallel_state, tp, flash_attn)
