# Trains the detector.
import torch
from det.fast_rcnn.config import cfg
from det.rpn.proposal import proposals
from det.roi_pooling.functions.roi_pool import roi_pool


def main():
    dets = torch.zeros(4, 5).numpy()
    print(cfg.GPU_ID, proposals(dets), roi_pool)


if __name__ == '__main__':
    main()
