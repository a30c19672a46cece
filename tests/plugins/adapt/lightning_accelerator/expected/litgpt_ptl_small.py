# litgpt's tutorials/examples/ptl-trainer/litgpt_ptl_small.py: a Lightning Trainer on
# CUDA; the second Trainer chooses its accelerator by a CUDA test, as the Trainer of a
# Lightning project the review ran did.
import lightning as L
import torch


if __name__ == "__main__":
    accumulate_grad_batches = 1

    trainer = L.Trainer(
        devices=1,
        accelerator="cuda",
        max_epochs=1,
        accumulate_grad_batches=accumulate_grad_batches,
        precision="bf16-true",
    )

    trainer = L.Trainer(
        devices=1,
        accelerator="gpu" if torch.cuda.is_available() else "cpu",
        max_epochs=1,
    )
