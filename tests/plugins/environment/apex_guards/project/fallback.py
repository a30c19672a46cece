import torch

try:
    from apex import amp
except ImportError:
    amp = None
