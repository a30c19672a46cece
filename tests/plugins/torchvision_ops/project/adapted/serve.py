import torch
import torch_npu
import torchvision
import torchvision_npu

from adapted.post import keep_boxes

if __name__ == "__main__":
    boxes = torch.rand(8, 4).npu()
    print(keep_boxes(boxes, torch.rand(8).npu()))
