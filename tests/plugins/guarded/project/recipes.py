# A handler that tries a smaller import of the same library, itself guarded, falls back
# twice (the shape of Megatron-LM's test_optimizer): no import here needs the library.
try:
    from transformer_engine.pytorch.fp8 import check_block_scaling

    block_scaling, why_not = check_block_scaling()
except:
    block_scaling, why_not = False, "needs Transformer Engine"
    try:
        from transformer_engine.common.recipe import DelayedScaling
    except:
        DelayedScaling = None


# A handler that imports the library again without a guard of its own needs it after all.
try:
    from transformer_engine.pytorch import Linear
except ImportError:
    from transformer_engine.pytorch.module import Linear
