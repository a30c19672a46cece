# The project's own package of custom kernels happens to be named `cuda`: importing it
# is the project's code, not NVIDIA's cuda-python.
from cuda import ops
