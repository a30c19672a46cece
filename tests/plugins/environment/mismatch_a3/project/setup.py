from setuptools import setup

setup(
    name="llm-train",
    install_requires=["torch>=2.1", "numpy"],
)
