from .data import PrefetchLoader
