import torch
x = torch.zeros(3).cuda()
torch.cuda.synchronize()
