from setuptools import setup

setup(
    name="deps-fixture",
    install_requires=["torch==2.3.1", "mmcv-full>=1.7"],
    description="needs flash-attn and triton on GPUs",
)
