import cuda
from cuda.ops import fused_bias_gelu
