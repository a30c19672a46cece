import megatron


def get_args():
    return megatron


def pretrain(*a):
    return a
