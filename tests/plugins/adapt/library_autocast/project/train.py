import torch
import ultralytics.utils.torch_utils as tu

from utils.torch_utils import amp_context, pick_device


def train(model, loader, epochs, amp=True):
    device = pick_device()
    scaler = torch.cuda.amp.GradScaler(enabled=amp)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _epoch in range(epochs):
        for images, targets in loader:
            with amp_context(amp):
                loss = model(images.to(device), targets)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()


def evaluate(model, loader, half):
    with amp_context(
        half,
    ):
        outputs = [model(x) for x, _y in loader]
    with tu.autocast(half):
        outputs += [model(x) for x, _y in loader]
    # the device is given: nothing to change
    with amp_context(half, device="cpu"):
        outputs += [model(x.cpu()) for x, _y in loader]
    with tu.autocast(half, "cpu"):
        outputs += [model(x.cpu()) for x, _y in loader]
    return outputs
