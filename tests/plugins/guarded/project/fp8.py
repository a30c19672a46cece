# A handler that re-raises is no fallback (the shape of Megatron-LM's fp4_utils): the
# library is needed all the same, so the import is reported as a plain one.
def quantize(params):
    try:
        from transformer_engine.pytorch.tensor.utils import quantize_master_weights
    except ImportError:
        raise RuntimeError("quantize_master_weights needs Transformer Engine")
    return quantize_master_weights(params)


def quantize_or_skip(params):
    try:
        from transformer_engine.pytorch.tensor.utils import quantize_master_weights
    except ImportError:  # an optional path: the caller gets None
        return None
    return quantize_master_weights(params)
