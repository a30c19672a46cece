from torch.utils.ffi import _wrap_function
from ._roi_align import lib as _lib, ffi as _ffi

__all__ = []


def _import_symbols(locals):
    for symbol in dir(_lib):
        locals[symbol] = _wrap_function(getattr(_lib, symbol), _ffi)
        __all__.append(symbol)


_import_symbols(locals())
