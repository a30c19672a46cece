import os


class HPU_Accelerator:
    def set_visible(self, ids):
        # Habana's launcher reads the CUDA name too
        os.environ["CUDA_VISIBLE_DEVICES"] = ids


def launch_on_gpus(ids):
    os.environ["CUDA_VISIBLE_DEVICES"] = ids
