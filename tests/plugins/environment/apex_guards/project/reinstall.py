import subprocess
import sys

try:
    import apex
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "apex"])
    import apex
