from megatron.core import parallel_state
