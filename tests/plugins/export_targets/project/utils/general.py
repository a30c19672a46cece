"""Helpers shared by the scripts."""
import subprocess
from importlib import metadata


def check_requirements(requirements, install=True):
    """Installs the packages it is given that are missing, with pip."""
    missing = []
    for r in [requirements] if isinstance(requirements, str) else requirements:
        try:
            metadata.version(r)
        except metadata.PackageNotFoundError:
            missing.append(r)
    if missing and install:
        subprocess.check_output(f"pip install {' '.join(missing)}", shell=True)
    return not missing
