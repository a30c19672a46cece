import torch


class CPU_Accelerator:
    def device_name(self, index=None):
        return "cpu"

    def visible_devices_envs(self):
        # the launcher hands out cores through the variable it uses for GPUs
        return ["CUDA_VISIBLE_DEVICES"]

    def set_visible_devices_envs(self, current_env, local_accelerator_ids):
        for env in self.visible_devices_envs():
            current_env[env] = ",".join(map(str, local_accelerator_ids))
