"""NPUArray's binary operators defer to another library's array (return NotImplemented,
so Python calls its reflected operator), as NumPy's operators do; npuarray's functions and
NumPy / list operands keep npuarray's own TypeError."""
import operator

import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import assert_matches

# operator -> the method Python calls on the right operand when the left one returns
# NotImplemented
REFLECTED = {
    operator.add: "__radd__", operator.sub: "__rsub__", operator.mul: "__rmul__",
    operator.truediv: "__rtruediv__", operator.floordiv: "__rfloordiv__",
    operator.mod: "__rmod__", operator.pow: "__rpow__", operator.matmul: "__rmatmul__",
    operator.and_: "__rand__", operator.or_: "__ror__", operator.xor: "__rxor__",
    operator.lshift: "__rlshift__", operator.rshift: "__rrshift__",
    operator.eq: "__eq__", operator.ne: "__ne__", operator.lt: "__gt__",
    operator.le: "__ge__", operator.gt: "__lt__", operator.ge: "__le__"}


class ForeignArray:
    """A stand-in for another library's array (it has the NumPy protocols, as Dask
    and CuPy arrays do): each reflected operator records its call."""
    __array_ufunc__ = None

    def __init__(self):
        self.called = []


def _recorder(name):
    def reflected(self, other):
        self.called.append((name, other))
        return "foreign"
    return reflected


for _name in set(REFLECTED.values()):
    setattr(ForeignArray, _name, _recorder(_name))


@pytest.mark.parametrize("op", list(REFLECTED), ids=lambda f: f.__name__)
def test_operators_defer_to_a_foreign_array(op):
    x = npx.asarray(np.arange(1, 5, dtype=np.int64))
    foreign = ForeignArray()
    assert op(x, foreign) == "foreign"
    assert foreign.called == [(REFLECTED[op], x)]


@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.pow, operator.and_],
                         ids=lambda f: f.__name__)
def test_a_plain_object_on_the_left_gets_pythons_type_error(op):
    x = npx.asarray(np.arange(1, 5, dtype=np.int64))

    class Plain:
        pass
    with pytest.raises(TypeError):       # a plain object: Python's TypeError
        op(Plain(), x)


@pytest.mark.parametrize("other", [[1, 2, 3, 4], np.ones(4), (1, 2, 3, 4)],
                         ids=["list", "ndarray", "tuple"])
def test_host_data_is_uploaded_not_deferred_to(other):
    a = np.arange(4.0)
    x = npx.asarray(a)
    host = np.asarray(other, dtype=np.float64)
    assert_matches(x + other, a + host)
    assert_matches(x % other, a % host)
    assert_matches(npx.add(x, other), a + host)
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        x + other


def test_functions_do_not_defer():
    x = npx.asarray(np.arange(4.0))
    with pytest.raises(TypeError, match="ForeignArray"):
        npx.add(x, ForeignArray())
    with pytest.raises(TypeError, match="ForeignArray"):
        npx.remainder(x, ForeignArray())


def test_npuarray_plus_dask_array_stays_on_the_device(rng):
    da = pytest.importorskip("dask.array", reason="needs dask[array]")
    a = rng.standard_normal(12)
    b = rng.standard_normal(12)
    x = npx.asarray(a)
    d = da.from_array(npx.asarray(b), chunks=4)
    with npx.transfer_guard("disallow"):
        sums = (x + d).compute()
        powers = (npx.abs(x) ** d).compute()
        left = (d - x).compute()
    assert isinstance(sums, npx.NPUArray)
    np.testing.assert_allclose(sums.to_host(), a + b)
    np.testing.assert_allclose(powers.to_host(), np.abs(a) ** b)
    np.testing.assert_allclose(left.to_host(), b - a)
