import torch
import torch.nn as nn

try:
    from apex.normalization import FusedLayerNorm as _FusedLayerNorm

    has_fused_layernorm = True

    class FusedLayerNorm(_FusedLayerNorm):
        @torch.jit.unused
        def forward(self, x):
            if not getattr(x, "is_npu", False):
                return super().forward(x)
            else:
                with getattr(torch, "npu", torch.cuda).device(x.device):
                    return super().forward(x)

except ImportError:
    has_fused_layernorm = False


def LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, export=False):
    if torch.jit.is_scripting() or torch.jit.is_tracing():
        export = True
    if not export and torch.cuda.is_available() and has_fused_layernorm:
        return FusedLayerNorm(normalized_shape, eps, elementwise_affine)
    return nn.LayerNorm(normalized_shape, eps, elementwise_affine)


class Fp32LayerNorm(nn.LayerNorm):
    def forward(self, input):
        return super().forward(input.float()).type_as(input)


def make_norm(dim):
    # a plain class of the file: the test is a device choice
    if hasattr(torch, "npu") and torch.npu.is_available():
        return Fp32LayerNorm(dim).npu()
    return Fp32LayerNorm(dim)
