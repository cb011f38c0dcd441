"""vectorize, apply_along_axis, apply_over_axes, piecewise (npuarray/_functional.py)
against NumPy."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import FLOAT_DTYPES, NUMERIC_DTYPES, assert_matches, sample, up


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_apply_along_axis_reduction(rng, dtype, axis):
    a = sample(rng, (2, 3, 4), dtype)
    assert_matches(npx.apply_along_axis(lambda v: npx.max(v), axis, up(a)),
                   np.apply_along_axis(np.max, axis, a))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_apply_along_axis_vector_and_matrix_results(rng, axis):
    a = rng.standard_normal((2, 3, 4))
    assert_matches(npx.apply_along_axis(lambda v: npx.stack([v[0], v[-1]]), axis, up(a)),
                   np.apply_along_axis(lambda v: np.stack([v[0], v[-1]]), axis, a))
    assert_matches(npx.apply_along_axis(lambda v: npx.outer(v, v), axis, up(a)),
                   np.apply_along_axis(lambda v: np.outer(v, v), axis, a))


def test_apply_along_axis_args_kwargs_and_first_dtype(rng):
    a = rng.integers(0, 10, (3, 5))
    got = npx.apply_along_axis(lambda v, s, t=0: npx.sum(v) * s + t, 1, up(a), 2, t=1)
    assert_matches(got, np.apply_along_axis(lambda v, s, t=0: v.sum() * s + t, 1, a, 2, t=1))
    # Results take the first result's dtype, as NumPy's buffer does.
    flip = npx.apply_along_axis(lambda v: v[0] if v.shape[0] else 0.5, 1, up(a))
    assert flip.dtype == np.int64


def test_apply_along_axis_errors(rng):
    x = up(rng.standard_normal((0, 3)))
    with pytest.raises(ValueError):
        np.apply_along_axis(np.sum, 0, np.zeros((3, 0)))
    with pytest.raises(ValueError, match="iteration dimensions are 0"):
        npx.apply_along_axis(npx.sum, 1, x)
    with pytest.raises(np.exceptions.AxisError):
        npx.apply_along_axis(npx.sum, 2, up(np.ones((2, 2))))
    # A host operand is uploaded: an implicit transfer, refused under the guard.
    assert_matches(npx.apply_along_axis(npx.sum, 0, np.ones((2, 2))), np.full(2, 2.0))
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        npx.apply_along_axis(npx.sum, 0, np.ones((2, 2)))


@pytest.mark.parametrize("axes", [0, [0], [0, 2], [-1, 1], (1, 2)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ["int32"])
def test_apply_over_axes_matches_numpy(rng, axes, dtype):
    a = sample(rng, (2, 3, 4), dtype)
    assert_matches(npx.apply_over_axes(lambda t, ax: npx.sum(t, axis=ax), up(a), axes),
                   np.apply_over_axes(np.sum, a, axes), rtol=1e-5)
    assert_matches(npx.apply_over_axes(lambda t, ax: npx.max(t, axis=ax, keepdims=True),
                                       up(a), axes),
                   np.apply_over_axes(np.max, a, axes))


def test_apply_over_axes_wrong_shape():
    a = np.ones((2, 3))
    with pytest.raises(ValueError):
        np.apply_over_axes(lambda t, ax: t.sum(), a, [0])
    with pytest.raises(ValueError, match="correct shape"):
        npx.apply_over_axes(lambda t, ax: npx.sum(t), up(a), [0])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_piecewise_matches_numpy(rng, dtype):
    a = sample(rng, (4, 5), dtype)
    x = up(a)
    cases = [
        ([a < 0, a >= 0], [x < 0, x >= 0], [lambda v: -v, lambda v: v],
         [lambda v: -v, lambda v: v]),
        ([a < 0, a > 2], [x < 0, x > 2], [-1, lambda v: v * 2, 7], [-1, lambda v: v * 2, 7]),
        ([a > 1], [x > 1], [3, 4], [3, 4]),
    ]
    for host_conds, dev_conds, host_funcs, dev_funcs in cases:
        assert_matches(npx.piecewise(x, dev_conds, dev_funcs),
                       np.piecewise(a, host_conds, host_funcs))


def test_piecewise_single_condition_array(rng):
    a = rng.standard_normal(7)
    x = up(a)
    assert_matches(npx.piecewise(x, x > 0, [1.5]), np.piecewise(a, a > 0, [1.5]))
    assert_matches(npx.piecewise(x, x > 0, [1.5, lambda v: v]),
                   np.piecewise(a, a > 0, [1.5, lambda v: v]))
    # A 2-D array of conditions is a list of row conditions, in both.
    b = np.ones((4, 5))
    with pytest.raises(ValueError):
        np.piecewise(b, b > 0, [1.5])
    with pytest.raises(ValueError):
        npx.piecewise(up(b), up(b) > 0, [1.5])


def test_piecewise_later_conditions_win_and_args():
    a = np.linspace(-3, 3, 13)
    x = up(a)
    expected = np.piecewise(a, [a > -1, a > 1], [lambda v, k: v * k, lambda v, k: v + k], 10)
    assert_matches(npx.piecewise(x, [x > -1, x > 1], [lambda v, k: v * k, lambda v, k: v + k],
                                 10), expected)
    assert_matches(npx.piecewise(x, True, [2.0]), np.piecewise(a, True, [2.0]))


def test_piecewise_count_mismatch():
    a = np.arange(4.0)
    with pytest.raises(ValueError):
        np.piecewise(a, [a > 1, a > 2], [1])
    with pytest.raises(ValueError, match="condition"):
        npx.piecewise(up(a), [up(a) > 1, up(a) > 2], [1])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_vectorize_matches_numpy(rng, dtype):
    a = sample(rng, (3, 4), dtype)
    b = sample(rng, (4,), dtype)

    def host(p, q):
        return p * q + 1

    def dev(p, q):
        return p * q + 1
    assert_matches(npx.vectorize(dev)(up(a), up(b)), np.vectorize(host)(a, b), rtol=1e-6,
                   atol=1e-6)
    assert_matches(npx.vectorize(dev, otypes="f")(up(a), 2), np.vectorize(host, otypes="f")(a, 2),
                   rtol=1e-6, atol=1e-6)
    assert_matches(npx.vectorize(dev, otypes=[np.float64])(up(a), up(b)),
                   np.vectorize(host, otypes=[np.float64])(a, b), rtol=1e-6, atol=1e-6)


def test_vectorize_tuples_excluded_and_constants(rng):
    a = rng.standard_normal(6)
    both = npx.vectorize(lambda p, q: (p + q, p - q))(up(a), up(a[::-1].copy()))
    expected = np.vectorize(lambda p, q: (p + q, p - q))(a, a[::-1])
    for got, want in zip(both, expected):
        assert_matches(got, want)
    scaled = npx.vectorize(lambda p, scale: p * scale[0], excluded={"scale"})
    assert_matches(scaled(up(a), scale=[3.0]),
                   np.vectorize(lambda p, scale: p * scale[0], excluded={"scale"})(a, scale=[3.0]))
    assert_matches(npx.vectorize(lambda p: 3)(up(a)), np.vectorize(lambda p: 3)(a))


def test_vectorize_doc_and_refusals():
    def f(p):
        """doc of f"""
        return p
    assert npx.vectorize(f).__doc__ == "doc of f"
    assert npx.vectorize(f, doc="other").__doc__ == "other"
    with pytest.raises(TypeError, match="signature"):
        npx.vectorize(f, signature="(n)->()")
    with pytest.raises(TypeError, match="callable"):
        npx.vectorize(3)
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        npx.vectorize(f)(np.ones(3))


def test_vectorize_runs_on_the_device(rng):
    x = up(rng.standard_normal(5))
    with npx.transfer_guard("disallow"):
        y = npx.vectorize(lambda p: npx.where(p > 0, p, 0.0))(x)
    assert_matches(y, np.maximum(x.to_host(), 0.0))


def test_vectorize_element_logic_runs_on_host_copies(rng):
    a = rng.standard_normal((3, 4))

    def relu_twice(v):
        return v * 2 if v > 0 else 0.0
    expected = np.vectorize(relu_twice)(a)
    assert_matches(npx.vectorize(relu_twice)(up(a)), expected)
    assert_matches(npx.vectorize(relu_twice, otypes="f")(up(a)),
                   np.vectorize(relu_twice, otypes="f")(a), rtol=1e-6)
    pair = npx.vectorize(lambda v, w: (v if v > w else w, int(v > w)))(up(a), np.float64(0.5))
    want = np.vectorize(lambda v, w: (v if v > w else w, int(v > w)))(a, np.float64(0.5))
    for got, exp in zip(pair, want, strict=True):
        assert_matches(got, exp)
    assert_matches(npx.vectorize(relu_twice)(np.float64(3.0)), np.vectorize(relu_twice)(3.0))


def test_vectorize_host_copies_follow_the_transfer_guard(rng):
    x = up(rng.standard_normal(4))
    f = npx.vectorize(lambda v: v if v > 0 else 0.0)
    with npx.transfer_guard("disallow"):
        with pytest.raises(npx.ImplicitTransferError, match="vectorize"):
            f(x)


def test_vectorize_errors_of_pyfunc_propagate(rng):
    x = up(rng.standard_normal(4))
    with pytest.raises(TypeError):
        np.vectorize(lambda v: v + "a")(x.to_host())
    with pytest.raises(TypeError):
        npx.vectorize(lambda v: v + "a")(x)


def test_on_a_non_default_stream(rng):
    a = rng.standard_normal((4, 6))
    with npx.Stream() as stream:
        x = up(a)
        rows = npx.apply_along_axis(lambda v: npx.sum(v * v), 1, x)
        pieces = npx.piecewise(x, [x < 0], [lambda v: -v, lambda v: v])
        stream.synchronize()
    assert_matches(rows, np.apply_along_axis(lambda v: np.sum(v * v), 1, a))
    assert_matches(pieces, np.abs(a))


def test_numpy_functions_dispatch_to_the_device(rng):
    a = rng.standard_normal((3, 4))
    assert_matches(np.apply_along_axis(lambda v: npx.max(v), 1, up(a)), a.max(axis=1))
    assert_matches(np.piecewise(up(a), [up(a) > 0], [1.0, -1.0]), np.sign(a))
