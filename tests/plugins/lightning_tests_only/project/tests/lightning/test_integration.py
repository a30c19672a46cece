# A library's integration test of Lightning (DeepSpeed's tests/lightning): the project does
# not train with Lightning, so no project-wide finding; the GPU Trainer is still reported.
from pytorch_lightning import LightningModule, Trainer


class Boring(LightningModule):
    pass


def test_fit():
    trainer = Trainer(max_epochs=1, precision=16, accelerator="gpu", devices=1)
    trainer.fit(Boring())
