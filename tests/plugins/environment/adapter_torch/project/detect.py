# A detector's post-processing: torchvision's nms on the model's boxes, on the device.
import torch
import torchvision


def keep_boxes(boxes, scores, iou=0.45):
    return torchvision.ops.nms(boxes, scores, iou)


if __name__ == "__main__":
    b = torch.rand(8, 4)
    print(keep_boxes(b, torch.rand(8)))
