# Mirrors the examples folders of Megatron-LM and DeepSpeed: scripts below the root that
# import the project's package; third-party imports there are still reported.
import megatron
from megatron.core import parallel_state
import triton

print(megatron, parallel_state, triton)
