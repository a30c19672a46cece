# Mirrors DeepSpeed's deepspeed/ops/transformer/inference/: a package module beside a
# subpackage named `triton`; its absolute `import triton` is still the GPU library.
import triton
