# Lightning 2.x under the unified package, with the 1.x `gpus=` spelling kept in a helper.
from lightning.pytorch import Trainer
from lightning.pytorch.strategies import DDPStrategy
import lightning as L


def make_trainer(n):
    return Trainer(gpus=n, strategy=DDPStrategy(find_unused_parameters=False), precision="bf16-mixed")


def make_fabric():
    fabric = L.Fabric(accelerator="cuda", devices=2, strategy="ddp", precision="16-mixed")
    fabric.launch()
    return fabric
