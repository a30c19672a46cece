# A torch 0.3 training loop: Variables, volatile evaluation and losses read with .data[0].
import torch
from torch.autograd import Variable

from roi.functions import pool

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
train_loss = 0.0
for step in range(10):
    x = Variable(torch.randn(8, 4))
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    train_loss += loss.data[0]
    total = model(x).sum().data[0]

rois = Variable(torch.zeros(4, 5))
for roi in rois:
    batch_ind = int(roi[0].data[0])

val = Variable(torch.randn(2, 4), volatile=True)
model.weight.data[0] = 0.0
first = val.data[0]
print(train_loss, total, batch_ind, pool(val, rois), first)

# The same reads through numpy or the host copy: a 0-dim array or tensor, indexed.
rpn_cross_entropy = torch.nn.functional.cross_entropy(model(x), torch.zeros(8).long())
print('%.4f' % rpn_cross_entropy.data.cpu().numpy()[0])
print('%.4f' % loss.data.cpu()[0])
print(model(x).mean().data.numpy()[0])
row = model.weight.data.cpu().numpy()[0]
