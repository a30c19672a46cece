import torch as th
import torch_npu


def pick(args):
    cuda = args.cuda
    cuda.count = 1
    th.npu._sanitizer.enable_npu_sanitizer()
    graph = th.npu.NPUGraph()
    return th.npu.is_available() and cuda, graph
