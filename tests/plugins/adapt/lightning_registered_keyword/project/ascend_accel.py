# The project's own NPU accelerator for Lightning, registered under the name "npu" as
# Lightning's "Registering Accelerators" documents, the name given by keyword and through a
# constant: with it, accelerator="npu" selects it.
import torch
import torch_npu  # noqa: F401
from lightning.pytorch.accelerators import Accelerator, AcceleratorRegistry


NAME = "npu"


class AscendAccelerator(Accelerator):
    def setup_device(self, device):
        torch.npu.set_device(device)

    @staticmethod
    def is_available():
        return hasattr(torch, "npu") and torch.npu.is_available()

    @classmethod
    def register_accelerators(cls, accelerator_registry):
        accelerator_registry.register(name=NAME, accelerator=cls, description="Ascend NPU")


AscendAccelerator.register_accelerators(AcceleratorRegistry)
