def fused_bias_gelu(x, bias):
    return x + bias
