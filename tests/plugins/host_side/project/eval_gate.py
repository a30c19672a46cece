# litgpt's pretrain.py fit loop: the validation loss is read only on the steps where
# `not is_accumulating and step_count % interval == 0` holds, a periodic read although the
# condition has a `not` of its own in another operand.
import torch


def fit(model, batches, val_batch, interval, accum):
    step_count = 0
    for i, (x, y) in enumerate(batches):
        is_accumulating = (i + 1) % accum != 0
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        if not is_accumulating:
            step_count += 1
        if val_batch is not None and not is_accumulating and step_count % interval == 0:
            val_loss = torch.nn.functional.mse_loss(model(val_batch[0]), val_batch[1])
            print(f"val loss {val_loss.item():.4f}")
