# This package puts its own folder on sys.path, so its bare imports work on Python 3.
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
