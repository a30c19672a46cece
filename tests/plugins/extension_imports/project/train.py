# Trains the detector.
import torch
from det.fast_rcnn.config import cfg
from det.rpn.proposal import proposals


def main():
    dets = torch.zeros(4, 5).numpy()
    print(cfg.GPU_ID, proposals(dets))


if __name__ == '__main__':
    main()
