"""What the core takes from the namespace built on it, handed over by ``npuarray/__init__.py``.

NPUArray's NumPy protocols (``__array_ufunc__``, ``__array_function__``) and
``__array_namespace__`` answer with the whole namespace (NumPy's names, ``linalg``,
``fft``), which imports the core: so the core never imports it, and the namespace
installs itself here once it exists.
"""
__all__ = ["install"]

module = None          # the npuarray module (``x.__array_namespace__()``)
array_ufunc = None     # (array, ufunc, method, *inputs, **kwargs) -> result (NEP 13)
array_function = None  # (array, func, types, args, kwargs) -> result (NEP 18)


def install(namespace, ufunc_handler, function_handler):
    """Makes ``namespace`` (the npuarray module) and its NumPy-protocol handlers the
    ones NPUArray answers with."""
    global module, array_ufunc, array_function
    module, array_ufunc, array_function = namespace, ufunc_handler, function_handler
