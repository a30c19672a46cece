import os

try:
    local_rank = int(os.environ["LOCAL_RANK"])
    from apex.parallel import DistributedDataParallel
except KeyError:
    local_rank = 0
