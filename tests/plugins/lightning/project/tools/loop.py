# Decoy: the project's own Trainer class takes an accelerator too, and no Lightning is imported.
class Trainer:
    def __init__(self, accelerator="gpu", devices=1):
        self.accelerator = accelerator
        self.devices = devices


def build():
    return Trainer(accelerator="gpu", devices=8)
