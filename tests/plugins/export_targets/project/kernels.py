"""Attention through flash-attn, installed on first use."""
import subprocess
import sys

try:
    import flash_attn
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "flash-attn"])
    import flash_attn


def attention(q, k, v):
    return flash_attn.flash_attn_func(q, k, v, causal=True)
