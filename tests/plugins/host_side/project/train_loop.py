# A detector's training loop in the style of older PyTorch projects: periodic logging
# under `step % N == 0`, loss read with `.data[0]`, counters read with float().
import numpy as np
import torch

from util.netio import save_net


def train(net, loader, optimizer, disp_interval, log_interval, use_tb, debug, args):
    train_loss = 0
    tp, step_cnt = 0., 0
    lr = 0.01
    for step, (im, boxes) in enumerate(loader):
        net(im.cuda(), boxes)
        loss = net.loss + net.rpn.loss
        if debug:
            tp += float(net.tp)
        train_loss += loss.data[0]
        total = float(loss)
        step_cnt += 1
        rate = float(lr) * int(step_cnt) + float(args.lr)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % disp_interval == 0:
            print(net.cls.data.cpu().numpy()[0], train_loss / step_cnt, tp, total, rate)
        if use_tb and step % log_interval == 0:
            if debug:
                losses = {'cls': float(net.cls.data.cpu().numpy()[0])}
                print(losses)
        if (step + 1) % 100 == 0:
            print(net.box.item())
        if not step % 10:
            print(net.box.tolist())
        if step % 10 != 0:
            print(net.cls.item())
    save_net('final.h5', net)


def bind(bindings, names, context):
    # TensorRT-style bindings: the address, sizes and counts of a device tensor are host
    # integers; int() of them waits for nothing
    addrs = {}
    for name in names:
        addrs[name] = int(bindings[name].data.data_ptr())
        rows = int(bindings[name].data.size(0))
        count = int(bindings[name].data.numel())
        width = int(bindings[name].data.shape[1])
        depth = int(len(bindings[name].data))
        context.set(addrs[name], rows, count, width, depth)
    return addrs


def predict(net, loader, results):
    # moving a device tensor to the host with .to() waits for it like .cpu(); a
    # non-blocking copy does not wait, and a move to another device is no read
    for im in loader:
        out = net(im)
        results.append(out.to("cpu"))
        boxes = out.to(device='cpu')
        feats = out.to(torch.device("cpu"))
        early = out.to("cpu", non_blocking=True)
        moved = out.to(im.device)
        results.append((boxes, feats, early, moved))


def gather(net, loader):
    # the value of a .to("cpu") chain is on the host: only the move waits
    kept = []
    for im in loader:
        kept.append(net(im).to("cpu").tolist())
    return kept
