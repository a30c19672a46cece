import torch

model = Net().cuda()
# a comment: y.cuda() is not code
x = torch.randn(4, 4).cuda(non_blocking=True)
msg = "z.cuda() in a string is not code"
