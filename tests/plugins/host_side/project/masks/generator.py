# Modelled on a mask generator: the masks are computed on the device, moved to the host
# once (MaskData.to_numpy), and the records are then read from numpy arrays.
import numpy as np
import torch

from .boxes import box_xyxy_to_xywh, boxes_to_device


class MaskData:
    def __init__(self, **kwargs):
        self._stats = dict(kwargs)

    def __getitem__(self, key):
        return self._stats[key]

    def to_numpy(self):
        for k, v in self._stats.items():
            if isinstance(v, torch.Tensor):
                self._stats[k] = v.detach().cpu().numpy()


class MaskGenerator:
    def __init__(self, model, min_area=0):
        self.model = model
        self.min_area = min_area

    def _generate_masks(self, image):
        boxes, scores = self.model(image)
        data = MaskData(boxes=boxes, iou_preds=scores)
        data.to_numpy()
        return data

    @staticmethod
    def postprocess_small_regions(mask_data, min_area):
        if min_area <= 0:
            return mask_data
        return mask_data

    def _device_scores(self, image):
        return self.model(image)[1]

    def generate(self, image):
        mask_data = self._generate_masks(image)
        if self.min_area > 0:
            mask_data = self.postprocess_small_regions(mask_data, self.min_area)
        records = []
        for idx in range(len(mask_data["iou_preds"])):
            records.append({
                "bbox": box_xyxy_to_xywh(mask_data["boxes"][idx]).tolist(),
                "predicted_iou": mask_data["iou_preds"][idx].item(),
            })
        return records

    def device_loop(self, image, device):
        scores = self._device_scores(image)
        total = 0.0
        for idx in range(len(scores)):
            total += scores[idx].item()
            total += boxes_to_device(np.zeros(4), device).sum().item()
        return total
