import torch


def put(x):
    return x.cuda()
