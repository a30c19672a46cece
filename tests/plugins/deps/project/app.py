"""Imports third-party GPU libraries. import flash_attn (in a docstring) is not code."""
import os

import flash_attn
import triton
import triton.language as tl
from xformers import ops as xops
from flash_attn.flash_attn_interface import flash_attn_func
import bitsandbytes as bnb
import transformers
from pynvml import nvmlInit

# import cupy  -- commented out


def maybe_cupy():
    try:
        import cupy
    except ImportError:
        cupy = None
    return cupy


class triton_config:
    """A local name that looks like a library."""
    deepspeed = "not an import"
