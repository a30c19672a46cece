import torch


class CUDA_Accelerator:
    def device_name(self, index=None):
        return "cuda" if index is None else f"cuda:{index}"

    def empty_cache(self):
        torch.cuda.empty_cache()

    def visible_devices_envs(self):
        return ["CUDA_VISIBLE_DEVICES"]
