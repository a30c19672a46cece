# Mirrors facebookresearch/detr datasets/coco.py and timm's data pipeline: dataset code
# runs in DataLoader worker processes on the CPU; its masks, .tolist() and .item() never
# touch the device.
import numpy as np
import torch
from torch.utils.data import Dataset


class CocoDetection(Dataset):
    def __getitem__(self, idx):
        anno = self.annos[idx]
        boxes = torch.as_tensor([a["bbox"] for a in anno], dtype=torch.float32)
        keep = (boxes[:, 3] > boxes[:, 1]) & (boxes[:, 2] > boxes[:, 0])
        boxes = boxes[keep]
        for a in anno:
            area = torch.tensor(a["area"]).item()
            self.areas.append(area)
        return boxes


def collate_fn(batch):
    out = []
    for b in batch:
        out.append(b[b > 0].tolist())
    return out
