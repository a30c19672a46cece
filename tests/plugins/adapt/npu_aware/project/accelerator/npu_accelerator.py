import torch


class NPU_Accelerator:
    def device_name(self, index=None):
        return "npu" if index is None else f"npu:{index}"

    def empty_cache(self):
        torch.npu.empty_cache()

    def visible_devices_envs(self):
        return ["ASCEND_RT_VISIBLE_DEVICES"]
