from mindspeed import megatron_adaptor  # noqa: F401
