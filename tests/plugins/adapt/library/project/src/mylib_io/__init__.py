# Copyright (c) the mylib authors.
"""Readers and writers."""
from __future__ import annotations

from .save import save
