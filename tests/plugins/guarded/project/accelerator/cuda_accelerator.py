# A project that abstracts the device (DeepSpeed's accelerator/ layout): this CUDA backend
# sits beside npu_accelerator.py, which the project selects on Ascend.
try:
    import pynvml
except ImportError:
    pynvml = None


class CudaAccelerator:
    def memory(self, index):
        return pynvml.nvmlDeviceGetMemoryInfo(pynvml.nvmlDeviceGetHandleByIndex(index))
