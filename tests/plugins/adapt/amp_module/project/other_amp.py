# an amp of the project's own, and torch.cuda's amp named in a string: neither changes
from utils import amp

DOC = "from torch.cuda import amp"


def wrap(model):
    return amp.wrap(model)
