import torch
import torch.nn as nn


class Net(nn.Module):
	def forward(self, x, rank):
		y = x.cuda().half()
		z = x.cuda(device=rank)
		w = (x
			.cuda(
				non_blocking=True)
			.float())
		v = x.to(
			"cuda:0",
			non_blocking=True,
		)
		state = torch.load("ckpt.pt", map_location="cuda:0")
		device = "cuda:%d" % rank
		u = x.to(device)
		t = torch.ones(2, device=f"cuda:{rank}")
		name = "cuda:{}".format(rank)
		return y, z, w, v, u, t, state, name