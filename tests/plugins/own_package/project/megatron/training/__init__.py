from megatron.training.train import get_args, pretrain
