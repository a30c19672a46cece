"""A second training entry point built on detectron2, as DETR's d2/train_net.py."""
import torch

import detectron2.utils.comm as comm
from detectron2.config import get_cfg
from detectron2.engine import DefaultTrainer, default_argument_parser, launch


def main(args):
    cfg = get_cfg()
    cfg.merge_from_file(args.config_file)
    if comm.is_main_process():
        print(torch.__version__)
    return DefaultTrainer(cfg).train()


def run():
    args = default_argument_parser().parse_args()
    launch(main, args.num_gpus, num_machines=args.num_machines, dist_url=args.dist_url, args=(args,))
