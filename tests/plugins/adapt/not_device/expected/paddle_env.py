import subprocess
import sys

import torch


def install_paddle():
    package = "paddlepaddle-gpu" if torch.cuda.is_available() else "paddlepaddle"
    subprocess.check_call([sys.executable, "-m", "pip", "install", package])


def paddle_place():
    import paddle

    if torch.cuda.device_count() > 0:
        paddle.set_device("gpu")
    else:
        paddle.set_device("cpu")
