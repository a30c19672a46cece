import torch
import torch_npu
import torch.nn as nn


class Net(nn.Module):
	def forward(self, x, rank):
		y = x.npu().half()
		z = x.npu(device=rank)
		w = (x
			.npu(
				non_blocking=True)
			.float())
		v = x.to(
			"npu:0",
			non_blocking=True,
		)
		state = torch.load("ckpt.pt", map_location="npu:0")
		device = "npu:%d" % rank
		u = x.to(device)
		t = torch.ones(2, device=f"npu:{rank}")
		name = "cuda:{}".format(rank)
		return y, z, w, v, u, t, state, name