import torch
import torch_npu


class CudaEnvironment(object):
    def __init__(self):
        cur_device = torch.npu.current_device()
        prop = torch.cuda.get_device_properties("cuda:{}".format(cur_device))
        self.name = prop.name
        self.major = prop.major
        self.minor = prop.minor
        self.total_memory_in_GB = prop.total_memory / 1024 / 1024 / 1024


def memory_gb(device):
    prop = torch.npu.get_device_properties(device)
    return prop.total_memory / 2**30


def describe(device):
    props = torch.npu.get_device_properties(device)
    return props.name


props = None
