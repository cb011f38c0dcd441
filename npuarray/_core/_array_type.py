"""The array type as the modules below NPUArray see it, registered once by ``_array``.

NPUArray's class body names the functions its methods and operators run
(``__add__`` is ``_elementwise``'s ``add`` operator, ``sum`` is ``_statistical.sum``),
so ``_array`` imports the operator modules and they cannot import it: imports in
``_core`` point one way, from the class down to the launch path. The operator
modules make and recognise arrays through ``NPUArray`` here, which ``_array``
sets with ``register`` when the class exists (before any array can be made).
"""
__all__ = ["NPUArray", "register"]

NPUArray = None  # npuarray's array class, set once by register()


def register(array_type):
    """Makes ``array_type`` the class the operator modules create and accept;
    RuntimeError when another class is already registered."""
    global NPUArray
    if NPUArray is not None and NPUArray is not array_type:
        raise RuntimeError(f"the array type is already {NPUArray.__qualname__}")
    NPUArray = array_type
