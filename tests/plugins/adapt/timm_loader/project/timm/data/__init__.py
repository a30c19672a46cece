from .loader import PrefetchLoader
