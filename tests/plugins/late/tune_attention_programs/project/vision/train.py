import torch

from common.attention import Attention


def main():
    model = Attention(16).cuda()
    opt = torch.optim.AdamW(model.parameters())
    scaler = torch.cuda.amp.GradScaler()
    for x in [torch.randn(4, 8, 16)]:
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            loss = model(x.cuda()).float().pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()


if __name__ == "__main__":
    main()
