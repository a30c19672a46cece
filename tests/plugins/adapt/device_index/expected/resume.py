import argparse

import torch
import torch_npu

parser = argparse.ArgumentParser()
parser.add_argument("--card", default=None, type=int, help="GPU to use")
parser.add_argument("--resume", default="")


def restore(args, model):
    state = torch.load(args.resume, map_location="cpu")
    score = state["score"]
    if args.card is not None:
        # the score may come from a checkpoint saved on another GPU
        score = score.to(torch.device("npu", args.card))
        model = model.to("npu:0")
    where = torch.device("npu", args.card)
    return model, score, where


def spare(local_rank):
    return torch.zeros(4, device=local_rank)
