"""mylib: a small model zoo."""
from .models import Net
from .utils import move

__all__ = ["Net", "move"]
