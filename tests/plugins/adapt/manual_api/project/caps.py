import torch

# On the NPU, get_device_capability() returns None: a comparison with it fails, so the
# test and the call must change together, by a person
SUPPORTS_FLASH = torch.cuda.is_available() and torch.cuda.get_device_capability() >= (8, 0)


def use_bf16():
    major, _minor = torch.cuda.get_device_capability()
    return major >= 8


def sync():
    # an ordinary call: migrated
    torch.cuda.synchronize()


def sm_count(x):
    # multi_processor_count is not filled on the NPU
    return torch.cuda.get_device_properties(x.device).multi_processor_count


def total_memory():
    # total_memory is: migrated
    return torch.cuda.get_device_properties(0).total_memory
