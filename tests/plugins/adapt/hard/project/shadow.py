import torch as th


def pick(args):
    cuda = args.cuda
    cuda.count = 1
    th.cuda._sanitizer.enable_cuda_sanitizer()
    graph = th.cuda.CUDAGraph()
    return th.cuda.is_available() and cuda, graph
