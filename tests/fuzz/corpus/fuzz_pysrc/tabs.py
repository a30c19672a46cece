def f(device="cuda:0"):
	if device:
		return x.to(device)
