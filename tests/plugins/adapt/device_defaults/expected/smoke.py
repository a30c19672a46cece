import torch
import torch_npu

from embed import ImageEmbedder

if __name__ == "__main__":
    # every tensor made after this lands on the device
    torch.set_default_dtype(torch.bfloat16)
    torch.set_default_device("npu")
    x = torch.randint(0, 100, (2, 16))
    print(ImageEmbedder("ViT-B/32")(x).size())
