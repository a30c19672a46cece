# A PyTorch Lightning training script as most are written: the device, the process group
# and mixed precision are the Trainer's settings, not code in the training step.
import pytorch_lightning as pl
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class LitClassifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(32, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.layer(x), y)
        self.log("train_loss", loss, sync_dist=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def main():
    data = DataLoader(TensorDataset(torch.randn(64, 32), torch.randint(0, 2, (64,))), batch_size=8,
                      num_workers=4, pin_memory=True)
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp", precision=16, max_epochs=10)
    trainer.fit(LitClassifier(), data)
    # a CPU run for a smoke test is not tied to the GPU
    smoke = pl.Trainer(accelerator="cpu", devices=1, fast_dev_run=True)
    smoke.fit(LitClassifier(), data)


if __name__ == "__main__":
    main()
