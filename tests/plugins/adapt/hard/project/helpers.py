def to_gpu(batch):
    return [t.cuda() for t in batch]
