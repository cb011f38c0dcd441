"""Main-namespace linear algebra against NumPy: tensordot and vecdot (every
numeric dtype, axes forms, broadcasting, 0-d, empty and non-contiguous
operands, streams, bad input), complex matmul, and matrix_transpose."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from test_elementwise import ALL, BF16, COMPLEX, random_array

NUMERIC = [name for name in ALL if name != "bool"]


def up(a):
    return npx.asarray(a)


def _wide(a):
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def assert_close_to(result, expected_of, a, b, k):
    """``result`` has ``expected_of(a, b)``'s shape and the promoted dtype;
    integers match NumPy exactly (both wrap), floating results are within the
    rounding bound of a sum of ``k`` products: 2 k eps (|a| . |b|)."""
    want = npx.result_type(a.dtype, b.dtype)
    assert result.dtype == want
    got = result.to_host()
    if want.kind in "iu":
        expected = expected_of(a, b)
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected.astype(want))
        return
    expected = expected_of(_wide(a), _wide(b))
    assert got.shape == expected.shape
    real = np.float32 if want == BF16 else (np.float32 if want == np.complex64 else
                                            np.float64 if want == np.complex128 else want)
    eps = float(np.finfo(real).eps) if want != BF16 else 2.0 ** -7
    bound = 2 * max(k, 1) * eps * np.abs(expected_of(np.abs(_wide(a)), np.abs(_wide(b))))
    error = np.abs(_wide(got) - expected)
    assert np.all(error <= bound + 1e-300), (error.max(), bound.max())


def tensordot_reference(axes):
    return lambda a, b: np.tensordot(a, b, axes=axes)


def vecdot_reference(axis):
    return lambda a, b: np.vecdot(a, b, axis=axis)


def random_numeric(rng, shape, dtype):
    a = random_array(rng, shape, dtype, low=-4, high=4)
    if np.dtype(a.dtype).kind == "c":
        a = a + 1j * random_array(rng, shape, "float64").astype(a.dtype)
    return a


# -- tensordot -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("s1, s2, axes", [
    ((3, 4, 5), (4, 5, 2), 2),
    ((3, 4), (4, 6), 1),
    ((2, 3), (4,), 0),
    ((3, 4, 5), (5, 2, 3), ([0, 2], [2, 0])),
    ((3, 4, 5), (5, 4), ((-1, -2), (0, -1))),
])
def test_tensordot_dtypes_and_axes(rng, dtype, s1, s2, axes):
    a, b = random_numeric(rng, s1, dtype), random_numeric(rng, s2, dtype)
    k = int(np.prod([s1[i] for i in (range(len(s1) - axes, len(s1)) if isinstance(axes, int)
                                      else axes[0])]))
    assert_close_to(npx.tensordot(up(a), up(b), axes=axes), tensordot_reference(axes),
                    a, b, k)


def test_tensordot_default_axes_and_promotion(rng):
    a = random_numeric(rng, (2, 3, 4), "float32")
    b = random_numeric(rng, (3, 4, 5), "int16")
    result = npx.tensordot(up(a), up(b))
    assert_close_to(result, tensordot_reference(2), a, b, 12)
    assert result.dtype == np.float32
    c = random_numeric(rng, (3, 4), "complex64")
    assert_close_to(npx.tensordot(up(a), up(c)), tensordot_reference(2), a, c, 12)


def test_tensordot_does_not_conjugate(rng):
    a = np.array([1j, 2j, 3j])
    b = np.array([1, 2j, 3])
    assert npx.tensordot(up(a), up(b), axes=1).to_host() == np.tensordot(a, b, axes=1)


def test_tensordot_0d_operands(rng):
    a, b = random_numeric(rng, (), "float64"), random_numeric(rng, (3, 2), "float64")
    assert_close_to(npx.tensordot(up(a), up(b), axes=0), tensordot_reference(0), a, b, 1)
    assert_close_to(npx.tensordot(up(b), up(a), axes=((), ())), tensordot_reference(0), b, a, 1)
    assert npx.tensordot(up(a), up(a), axes=0).shape == ()


@pytest.mark.parametrize("s1, s2, axes", [((0, 3), (3, 4), 1), ((3, 0), (0, 4), 1),
                                          ((2, 0, 3), (0, 3), 2), ((0,), (0,), 1),
                                          ((2, 3), (3, 0), 1)])
def test_tensordot_empty(rng, s1, s2, axes):
    a, b = random_numeric(rng, s1, "float32"), random_numeric(rng, s2, "float32")
    result = npx.tensordot(up(a), up(b), axes=axes)
    expected = np.tensordot(a, b, axes=axes)
    assert result.shape == expected.shape and result.dtype == np.float32
    np.testing.assert_array_equal(result.to_host(), expected)  # K = 0 gives zeros


@pytest.mark.parametrize("dtype", ["float32", "complex128", "int64"])
def test_tensordot_non_contiguous(rng, dtype):
    a, b = random_numeric(rng, (6, 5, 4), dtype), random_numeric(rng, (8, 5, 6), dtype)
    x, y = up(a), up(b)
    cases = [(x.T, y[::2].T, 1, a.T, b[::2].T),
             (x[::-1, 1:], y[:, ::-2, ::-1], ([0], [2]), a[::-1, 1:], b[:, ::-2, ::-1]),
             (npx.permute_dims(x, (2, 0, 1)), y[::3], ([1, 2], [2, 1]),
              np.transpose(a, (2, 0, 1)), b[::3])]
    for x1, x2, axes, h1, h2 in cases:
        k = int(np.prod([h1.shape[i] for i in (
            range(h1.ndim - axes, h1.ndim) if isinstance(axes, int) else axes[0])]))
        assert_close_to(npx.tensordot(x1, x2, axes=axes), tensordot_reference(axes), h1, h2, k)


def test_tensordot_on_a_non_default_stream(rng):
    a, b = random_numeric(rng, (16, 9, 3), "float64"), random_numeric(rng, (9, 3, 7), "complex128")
    x, y = up(a), up(b)
    with npx.Stream() as stream:
        result = npx.tensordot(x, y, axes=2)
        host = result.to_host(stream=stream)
    np.testing.assert_allclose(host, np.tensordot(a, b, axes=2), rtol=1e-12, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_tensordot_hypothesis(data):
    ndim1, ndim2 = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4))
    count = data.draw(st.integers(0, min(ndim1, ndim2)))
    contracted = [data.draw(st.integers(0, 3)) for _ in range(count)]
    axes1 = data.draw(st.permutations(range(ndim1)))[:count]
    axes2 = data.draw(st.permutations(range(ndim2)))[:count]
    shape1 = [data.draw(st.integers(0, 3)) for _ in range(ndim1)]
    shape2 = [data.draw(st.integers(0, 3)) for _ in range(ndim2)]
    for i, j, n in zip(axes1, axes2, contracted):
        shape1[i] = shape2[j] = n
    if data.draw(st.booleans()):  # negative axes count from the end
        axes1 = [i - ndim1 for i in axes1]
    dtype = data.draw(st.sampled_from(["float64", "int32", "complex64"]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a, b = random_numeric(rng, tuple(shape1), dtype), random_numeric(rng, tuple(shape2), dtype)
    axes = (tuple(axes1), tuple(axes2))
    assert_close_to(npx.tensordot(up(a), up(b), axes=axes), tensordot_reference(axes), a, b,
                    int(np.prod(contracted)))


def test_tensordot_bad_input_then_next_operation_works(rng):
    a, b = random_numeric(rng, (3, 4), "float32"), random_numeric(rng, (4, 5), "float32")
    x, y = up(a), up(b)
    with pytest.raises(ValueError, match="differ in size"):
        npx.tensordot(x, y, axes=([0], [0]))
    with pytest.raises(ValueError, match="differ in size"):  # contracted axes never broadcast
        npx.tensordot(x, up(np.ones((1, 5), np.float32)), axes=1)
    with pytest.raises(ValueError):
        npx.tensordot(x, y, axes=3)
    with pytest.raises(ValueError):
        npx.tensordot(x, y, axes=-1)
    with pytest.raises(ValueError):
        npx.tensordot(x, y, axes=([1], [0, 1]))
    with pytest.raises(ValueError):
        npx.tensordot(x, y, axes=([1, 1], [0, 0]))
    with pytest.raises(ValueError):
        npx.tensordot(x, y, axes=([1],))
    with pytest.raises(IndexError):  # AxisError: an IndexError and a ValueError, as NumPy
        npx.tensordot(x, y, axes=([2], [0]))
    with pytest.raises(ValueError):
        npx.tensordot(x, y, axes=([-3], [0]))
    with pytest.raises(TypeError):
        npx.tensordot(x, y, axes=1.5)
    with pytest.raises(TypeError):
        npx.tensordot(up(a > 0), up(b > 0), axes=1)
    with pytest.raises(TypeError):
        npx.tensordot(x, b, axes=1)
    with pytest.raises(ValueError, match="different devices"):
        npx.tensordot(x, y.to_device(1), axes=1)
    assert_close_to(npx.tensordot(x, y, axes=1), tensordot_reference(1), a, b, 4)


# -- vecdot ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("s1, s2, axis", [((5,), (5,), -1), ((3, 5), (5,), -1),
                                          ((2, 1, 4), (3, 4), -1), ((4, 3), (2, 4, 1), -2),
                                          ((6, 2, 3), (6, 2, 3), -3)])
def test_vecdot_dtypes_and_broadcasting(rng, dtype, s1, s2, axis):
    a, b = random_numeric(rng, s1, dtype), random_numeric(rng, s2, dtype)
    assert_close_to(npx.vecdot(up(a), up(b), axis=axis), vecdot_reference(axis), a, b,
                    s1[axis])


def test_vecdot_conjugates_x1():
    # The spec's definition: sum(conj(a_i) * b_i); the conformance suite's example.
    x1 = np.array([1j, 2j, 3j])
    x2 = np.array([1, 2j, 3])
    result = npx.vecdot(up(x1), up(x2))
    assert result.shape == () and result.dtype == np.complex128
    assert complex(result.to_host()) == 4 - 10j
    mixed = npx.vecdot(up(x1.astype(np.complex64)), up(np.array([1.0, 2.0, 3.0], np.float32)))
    assert mixed.dtype == np.complex64 and complex(mixed.to_host()) == -14j


def test_vecdot_non_negative_axis_is_per_operand_as_numpy(rng):
    a, b = random_numeric(rng, (4, 3), "float64"), random_numeric(rng, (4,), "float64")
    assert_close_to(npx.vecdot(up(a), up(b), axis=0), vecdot_reference(0), a, b, 4)
    c = random_numeric(rng, (2, 4, 3), "float64")
    assert_close_to(npx.vecdot(up(c), up(c), axis=1), vecdot_reference(1), c, c, 4)


@pytest.mark.parametrize("s1, s2", [((0,), (0,)), ((3, 0), (0,)), ((0, 4), (1, 4)),
                                    ((2, 0, 3), (1, 3))])
def test_vecdot_empty(rng, s1, s2):
    a, b = random_numeric(rng, s1, "complex64"), random_numeric(rng, s2, "complex64")
    result = npx.vecdot(up(a), up(b))
    expected = np.vecdot(a, b)
    assert result.shape == expected.shape and result.dtype == np.complex64
    np.testing.assert_array_equal(result.to_host(), expected)


def test_vecdot_non_contiguous(rng):
    a, b = random_numeric(rng, (5, 8, 6), "complex128"), random_numeric(rng, (8, 6), "float32")
    x, y = up(a), up(b)
    assert_close_to(npx.vecdot(x[:, ::-2].mT, y[::2].T), vecdot_reference(-1),
                    np.swapaxes(a[:, ::-2], -1, -2), b[::2].T, 4)
    assert_close_to(npx.vecdot(x[::-1, :5, 1], y[1:6, ::-1][:, :5], axis=-2),
                    vecdot_reference(-2), a[::-1, :5, 1], b[1:6, ::-1][:, :5], 5)


# IEEE 754 propagation through the sum of products (the standard lists no special cases
# for vecdot; NumPy's results are the reference): (x1, x2, expected).
IEEE_CASES = [
    ([np.inf, 1.0], [0.0, 1.0], np.nan),
    ([np.inf, 1.0], [1.0, 1.0], np.inf),
    ([np.inf, -np.inf], [1.0, 1.0], np.nan),
    ([np.nan, 0.0], [1.0, 1.0], np.nan),
    ([-np.inf, 2.0], [2.0, 3.0], -np.inf),
    ([-0.0, -0.0], [1.0, 1.0], -0.0),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("x1, x2, expected", IEEE_CASES)
def test_vecdot_ieee_cases(dtype, x1, x2, expected):
    a, b = np.array(x1, dtype), np.array(x2, dtype)
    got = npx.vecdot(up(a), up(b)).to_host()
    with np.errstate(invalid="ignore"):
        reference = np.vecdot(a, b)
    np.testing.assert_array_equal(reference, np.array(expected, dtype))
    np.testing.assert_array_equal(got, reference)
    assert np.signbit(got) == np.signbit(reference)


def test_vecdot_on_a_non_default_stream(rng):
    a, b = random_numeric(rng, (64, 33), "float32"), random_numeric(rng, (33,), "float32")
    x, y = up(a), up(b)
    with npx.Stream() as stream:
        host = npx.vecdot(x, y).to_host(stream=stream)
    np.testing.assert_allclose(host, np.vecdot(a.astype(np.float64), b), rtol=1e-5, atol=1e-5)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_vecdot_hypothesis(data):
    k = data.draw(st.integers(0, 5))
    batch = tuple(data.draw(st.lists(st.integers(0, 3), max_size=3)))
    other = tuple(1 if data.draw(st.booleans()) else n for n in batch)
    other = other[data.draw(st.integers(0, len(other))):]
    position = data.draw(st.integers(0, min(len(batch), len(other))))
    s1 = batch[:len(batch) - position] + (k,) + batch[len(batch) - position:]
    s2 = other[:len(other) - position] + (k,) + other[len(other) - position:]
    dtype = data.draw(st.sampled_from(["float64", "int16", "complex128", "uint8"]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a, b = random_numeric(rng, s1, dtype), random_numeric(rng, s2, dtype)
    axis = -1 - position
    assert_close_to(npx.vecdot(up(a), up(b), axis=axis), vecdot_reference(axis), a, b, k)


def test_vecdot_bad_input_then_next_operation_works(rng):
    a, b = random_numeric(rng, (3, 4), "float64"), random_numeric(rng, (3, 5), "float64")
    x, y = up(a), up(b)
    with pytest.raises(ValueError, match="differ in length"):
        npx.vecdot(x, y)
    with pytest.raises(ValueError, match="differ in length"):  # never broadcast
        npx.vecdot(x, up(np.ones((3, 1))))
    with pytest.raises(ValueError, match="do not broadcast"):
        npx.vecdot(x, up(np.ones((2, 4))))
    with pytest.raises(ValueError):
        npx.vecdot(up(np.float64(2)), x)
    with pytest.raises(IndexError):  # AxisError, as NumPy
        npx.vecdot(x, x, axis=-3)
    with pytest.raises(ValueError):
        npx.vecdot(x, x, axis=2)
    with pytest.raises(TypeError):
        npx.vecdot(up(a > 0), up(a > 0))
    with pytest.raises(TypeError):
        npx.vecdot(x, a)
    assert_close_to(npx.vecdot(x, x), vecdot_reference(-1), a, a, 4)


# -- matmul (complex) and matrix_transpose ---------------------------------------------------

@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("s1, s2", [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)),
                                    ((2, 3), (3, 4)), ((5, 1, 2, 3), (4, 3, 2)),
                                    ((0, 3), (3, 2)), ((2, 0), (0, 2))])
def test_matmul_complex(rng, dtype, s1, s2):
    a, b = random_numeric(rng, s1, dtype), random_numeric(rng, s2, dtype)
    assert_close_to(npx.matmul(up(a), up(b)), np.matmul, a, b, s1[-1])


def test_matmul_complex_non_contiguous_and_mixed(rng):
    a = random_numeric(rng, (6, 4), "complex64")
    b = random_numeric(rng, (5, 6), "float64")
    x, y = up(a), up(b)
    assert_close_to(x.T @ y.T, np.matmul, a.T, b.T, 6)
    assert (x.T @ y.T).dtype == np.complex128
    assert_close_to(x[::-2, 1:] @ x[:3, ::-1], np.matmul, a[::-2, 1:], a[:3, ::-1], 3)


@pytest.mark.parametrize("dtype", ALL)
def test_matrix_transpose(rng, dtype):
    a = random_numeric(rng, (2, 3, 4), dtype)
    x = up(a)
    result = npx.matrix_transpose(x)
    assert result.dtype == x.dtype
    np.testing.assert_array_equal(result.to_host(), np.matrix_transpose(a))
    np.testing.assert_array_equal(npx.matrix_transpose(x[:, ::-1]).to_host(),
                                  np.matrix_transpose(a[:, ::-1]))
    assert npx.matrix_transpose(up(a[0, :0])).shape == (4, 0)


def test_matrix_transpose_bad_input():
    with pytest.raises(ValueError):
        npx.matrix_transpose(npx.ones(3))
    with pytest.raises(TypeError):
        npx.matrix_transpose(np.ones((2, 2)))
    assert npx.matrix_transpose(npx.ones((2, 3))).shape == (3, 2)
