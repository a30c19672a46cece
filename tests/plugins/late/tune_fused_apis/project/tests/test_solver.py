"""Unit tests: they never run in the training the migration tunes, so no tuning advice here."""
import torch
import torch.nn as nn


def test_sgd_step():
    model = nn.Sequential(nn.Linear(4, 4), nn.GELU())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss = model(torch.ones(2, 4)).sum()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    loader = torch.utils.data.DataLoader(list(range(8)), batch_size=2)
    assert len(list(loader)) == 4
