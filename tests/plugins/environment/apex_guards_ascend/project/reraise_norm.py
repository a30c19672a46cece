try:
    from apex.normalization import FusedLayerNorm
except ImportError as e:
    raise RuntimeError("apex is required for the fused layer norm") from e
