# The project's real build script: its CUDA test decides what to build, not where torch runs.
import torch
from setuptools import setup

ext = "cuda" if torch.cuda.is_available() else "cpu"
setup(name="pkg", version="0.1", packages=["pkg"])
