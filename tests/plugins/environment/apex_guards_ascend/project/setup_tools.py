import subprocess
import sys


def check_requirements(*names):
    """Installs the named packages with pip when they are missing."""
    subprocess.run([sys.executable, "-m", "pip", "install", *names], check=True)
