# A Flax model beside the torch code: rsqrt of a mean of squares, but not torch.
import jax
import jax.numpy as jnp


def rms_norm(x, scale, eps=1e-6):
    var = jnp.mean(jnp.square(x), axis=-1, keepdims=True)
    return x * jax.lax.rsqrt(var + eps) * scale


def gelu_gate(x, gate):
    return x * jax.nn.gelu(gate)
