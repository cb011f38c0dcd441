"""poly, polyval, polyfit, roots, polyadd ... and poly1d (npuarray/_polynomial.py)
against NumPy."""
import warnings

import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import assert_matches, up

COEFF_DTYPES = ["int32", "int64", "float32", "float64", "complex128"]


def coefficients(rng, n, dtype):
    c = rng.integers(1, 9, n) * rng.choice([-1, 1], n)
    if np.dtype(dtype).kind == "c":
        return (c + 1j * rng.integers(-3, 4, n)).astype(dtype)
    return c.astype(dtype)


@pytest.mark.parametrize("dtype", COEFF_DTYPES)
def test_polyval_matches_numpy(rng, dtype):
    p = coefficients(rng, 5, dtype)
    x = rng.uniform(-2, 2, (3, 4))
    assert_matches(npx.polyval(up(p), up(x)), np.polyval(p, x), rtol=1e-12)
    xi = rng.integers(-3, 4, 6).astype(dtype)
    assert_matches(npx.polyval(up(p), up(xi)), np.polyval(p, xi))
    assert_matches(npx.polyval(up(p), 1.5), np.polyval(p, 1.5))


def test_polyval_of_poly1d_composes():
    p, q = np.poly1d([1.0, 2.0, 3.0]), np.poly1d([2.0, -1.0])
    got = npx.polyval(npx.poly1d(up(p.coeffs)), npx.poly1d(up(q.coeffs)))
    assert isinstance(got, npx.poly1d)
    assert_matches(got.coeffs, np.polyval(p, q).coeffs)


@pytest.mark.parametrize("dtype", COEFF_DTYPES)
@pytest.mark.parametrize("n1,n2", [(1, 1), (3, 3), (2, 5), (6, 3)])
def test_polyadd_polysub_polymul(rng, dtype, n1, n2):
    a, b = coefficients(rng, n1, dtype), coefficients(rng, n2, dtype)
    for name in ("polyadd", "polysub", "polymul"):
        assert_matches(getattr(npx, name)(up(a), up(b)), getattr(np, name)(a, b))


def test_polymul_trims_leading_zeros():
    a, b = np.array([0.0, 0.0, 1.0, 2.0]), np.array([0.0, 3.0])
    assert_matches(npx.polymul(up(a), up(b)), np.polymul(a, b))


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "complex128"])
@pytest.mark.parametrize("nu,nv", [(5, 2), (4, 4), (2, 3), (6, 1)])
def test_polydiv_matches_numpy(rng, dtype, nu, nv):
    u, v = coefficients(rng, nu, dtype), coefficients(rng, nv, dtype)
    q, r = npx.polydiv(up(u), up(v))
    eq, er = np.polydiv(u, v)
    assert_matches(q, eq, rtol=1e-5 if dtype == "float32" else 1e-12)
    assert_matches(r, er, rtol=1e-4 if dtype == "float32" else 1e-10, atol=1e-9)


def test_polydiv_exact_remainder_is_trimmed():
    u, v = np.array([1.0, -3.0, 2.0]), np.array([1.0, -1.0])
    q, r = npx.polydiv(up(u), up(v))
    eq, er = np.polydiv(u, v)
    assert_matches(q, eq)
    assert_matches(r, er)


@pytest.mark.parametrize("m", [0, 1, 2, 5])
@pytest.mark.parametrize("dtype", ["int64", "float64", "complex128"])
def test_polyder_matches_numpy(rng, m, dtype):
    p = coefficients(rng, 5, dtype)
    assert_matches(npx.polyder(up(p), m), np.polyder(p, m))


@pytest.mark.parametrize("m,k", [(0, None), (1, None), (2, None), (1, 3.0), (2, [1.0, 2.0]),
                                 (3, 5.0), (2, [4.0, -1.0, 9.0])])
@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_polyint_matches_numpy(rng, m, k, dtype):
    p = coefficients(rng, 4, dtype)
    assert_matches(npx.polyint(up(p), m, k), np.polyint(p, m, k))


def test_polyder_polyint_errors():
    p = np.array([1.0, 2.0])
    with pytest.raises(ValueError):
        np.polyder(p, -1)
    with pytest.raises(ValueError, match="positive"):
        npx.polyder(up(p), -1)
    with pytest.raises(ValueError, match="positive"):
        npx.polyint(up(p), -1)
    with pytest.raises(ValueError):
        np.polyint(p, 3, [1.0, 2.0])
    with pytest.raises(ValueError, match="length"):
        npx.polyint(up(p), 3, [1.0, 2.0])


@pytest.mark.parametrize("zeros", [[1.0, 2.0], [3.0], [1 + 2j, 1 - 2j, 0.5], [1j, 2.0],
                                   [-1.0, -1.0, 4.0]])
def test_poly_of_roots(zeros):
    z = np.array(zeros)
    assert_matches(npx.poly(up(z)), np.poly(z), rtol=1e-12, atol=1e-12)


def test_poly_of_matrix_and_special_cases(rng):
    a = rng.standard_normal((3, 3))
    sym = a + a.T
    assert_matches(npx.poly(up(sym)), np.poly(sym), rtol=1e-10, atol=1e-12)
    assert npx.poly(up(np.zeros(0))) == np.poly(np.zeros(0)) == 1.0
    assert_matches(npx.poly(up(np.array([1, 2]))), np.poly(np.array([1, 2])))
    with pytest.raises(ValueError):
        np.poly(np.ones((2, 3)))
    with pytest.raises(ValueError, match="square"):
        npx.poly(up(np.ones((2, 3))))


def _sorted(z):
    z = np.asarray(z)
    return z[np.lexsort((z.imag, z.real))]


@pytest.mark.parametrize("p", [[1.0, -3.0, 2.0], [1.0, 0.0, 1.0], [2.0, -4.0],
                               [0.0, 0.0, 1.0, -6.0, 11.0, -6.0], [1.0, 2.0, 0.0, 0.0], [5.0],
                               [0.0, 0.0], [1, -6, 11, -6]])
def test_roots_matches_numpy(p):
    p = np.array(p)
    got, expected = npx.roots(up(p)), np.roots(p)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(_sorted(got.to_host()), _sorted(expected), atol=1e-10)


def test_roots_rejects_matrices():
    with pytest.raises(ValueError):
        np.roots(np.ones((2, 2)))
    with pytest.raises(ValueError, match="rank-1"):
        npx.roots(up(np.ones((2, 2))))


@pytest.mark.parametrize("deg", [0, 1, 2, 4])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_polyfit_matches_numpy(rng, deg, dtype):
    x = np.arange(12).astype(dtype)
    y = (rng.standard_normal(12) * 3 + x ** 2 / 4).astype(dtype)
    assert_matches(npx.polyfit(up(x), up(y), deg), np.polyfit(x, y, deg), rtol=1e-8,
                   atol=1e-10)


def test_polyfit_weights_2d_full_and_cov(rng):
    x = np.linspace(0, 1, 20)
    y2 = np.stack([3 * x ** 2 - x, np.sin(3 * x)], axis=1) + 0.01 * rng.standard_normal((20, 2))
    w = rng.uniform(0.5, 2, 20)
    assert_matches(npx.polyfit(up(x), up(y2), 2, w=up(w)), np.polyfit(x, y2, 2, w=w), rtol=1e-8)
    c, res, rank, sv, rcond = npx.polyfit(up(x), up(y2[:, 0]), 3, full=True)
    ec, eres, erank, esv, ercond = np.polyfit(x, y2[:, 0], 3, full=True)
    assert_matches(c, ec, rtol=1e-8)
    assert_matches(res, eres, rtol=1e-6)
    assert rank == erank and rcond == ercond
    assert_matches(sv, esv, rtol=1e-10)
    for cov in (True, "unscaled"):
        c, v = npx.polyfit(up(x), up(y2[:, 1]), 2, cov=cov)
        ec, ev = np.polyfit(x, y2[:, 1], 2, cov=cov)
        assert_matches(v, ev, rtol=1e-6, atol=1e-14)
    c, v = npx.polyfit(up(x), up(y2), 1, cov=True)
    assert_matches(v, np.polyfit(x, y2, 1, cov=True)[1], rtol=1e-6, atol=1e-14)


def test_polyfit_rank_warning():
    x = np.ones(6)
    y = np.arange(6.0)
    with pytest.warns(np.exceptions.RankWarning):
        np.polyfit(x, y, 2)
    with pytest.warns(np.exceptions.RankWarning):
        npx.polyfit(up(x), up(y), 2)


def test_polyfit_errors():
    x, y = up(np.arange(5.0)), up(np.arange(5.0))
    cases = [((x, y, -1), {}, ValueError), ((up(np.ones((2, 2))), y, 1), {}, TypeError),
             ((up(np.ones(0)), up(np.ones(0)), 1), {}, TypeError),
             ((x, up(np.ones(4)), 1), {}, TypeError),
             ((x, up(np.ones((5, 2, 2))), 1), {}, TypeError),
             ((x, y, 1), {"w": up(np.ones(4))}, TypeError),
             ((x, y, 1), {"w": up(np.ones((5, 1)))}, TypeError),
             ((x, y, 4), {"cov": True}, ValueError)]
    for args, kwargs, error in cases:
        host_args = [a.to_host() if isinstance(a, npx.NPUArray) else a for a in args]
        host_kwargs = {k: v.to_host() for k, v in kwargs.items() if isinstance(v, npx.NPUArray)}
        host_kwargs.update({k: v for k, v in kwargs.items() if not isinstance(v, npx.NPUArray)})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.RankWarning)
            with pytest.raises(error):
                np.polyfit(*host_args, **host_kwargs)
            with pytest.raises(error):
                npx.polyfit(*args, **kwargs)


def test_host_operands_are_uploaded_under_the_guard():
    assert_matches(npx.polyval(np.ones(3), up(np.full(2, 2.0))), np.polyval(np.ones(3), [2.0, 2.0]))
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        npx.polyadd(np.ones(3), up(np.ones(2)))


def test_poly1d_matches_numpys(rng):
    c = np.array([0.0, 2.0, -3.0, 1.0])
    p, e = npx.poly1d(up(c)), np.poly1d(c)
    assert p.order == e.order == len(p) and p.variable == "x"
    assert_matches(p.coeffs, e.coeffs)
    for alias in (p.c, p.coef, p.coefficients):
        assert_matches(alias, e.coeffs)
    assert p.o == e.o
    assert str(p) == str(e) and repr(p) == repr(e)
    assert str(npx.poly1d(up(c), variable="z")) == str(np.poly1d(c, variable="z"))
    np.testing.assert_array_equal(np.asarray(p), np.asarray(e))
    x = rng.uniform(-2, 2, 7)
    assert_matches(p(up(x)), e(x))
    assert_matches(p(2.0), e(2.0))
    q, f = npx.poly1d(up(np.array([1.0, 1.0]))), np.poly1d([1.0, 1.0])
    for got, want in [(p + q, e + f), (p - q, e - f), (p * q, e * f), (p * 2, e * 2),
                      (2 * p, 2 * e), (p ** 3, e ** 3), (-p, -e), (p / 2, e / 2),
                      (3 - p, 3 - e), (p.deriv(), e.deriv()), (p.deriv(2), e.deriv(2)),
                      (p.integ(), e.integ()), (p.integ(2, [1.0, 2.0]), e.integ(2, [1.0, 2.0]))]:
        assert isinstance(got, npx.poly1d)
        assert_matches(got.coeffs, want.coeffs, rtol=1e-12)
    quotient, remainder = p / q
    eq, er = e / f
    assert_matches(quotient.coeffs, eq.coeffs)
    assert_matches(remainder.coeffs, er.coeffs)
    assert p == npx.poly1d(up(c)) and p != q and not (p == q)
    np.testing.assert_allclose(_sorted(p.roots.to_host()), _sorted(e.roots))


def test_poly1d_roots_constructor_indexing_and_errors():
    r = np.array([1.0, 2.0, 3.0])
    p, e = npx.poly1d(up(r), r=True), np.poly1d(r, r=True)
    assert_matches(p.coeffs, e.coeffs)
    assert float(p[0].to_host()) == e[0] and float(p[2].to_host()) == e[2]
    assert float(p[7].to_host()) == e[7] == 0
    p[5] = 4.0
    e[5] = 4.0
    assert_matches(p.coeffs, e.coeffs)
    assert [float(v.to_host()) for v in p] == list(e)
    assert_matches(npx.poly1d([1, 2, 3]).coeffs, np.poly1d([1, 2, 3]).coeffs)
    assert_matches(npx.poly1d(0.0).coeffs, np.poly1d(0.0).coeffs)
    assert_matches(npx.poly1d(npx.poly1d(up(r)), variable="t").coeffs, r)
    with pytest.raises(ValueError):
        np.poly1d(np.ones((2, 2)))
    with pytest.raises(ValueError, match="1d"):
        npx.poly1d(up(np.ones((2, 2))))
    for bad in (-1, 1.5):
        with pytest.raises(ValueError):
            e ** bad
        with pytest.raises(ValueError, match="non-negative"):
            p ** bad
    with pytest.raises(ValueError):
        p[-1] = 2.0


def test_on_a_non_default_stream(rng):
    p = rng.standard_normal(6)
    x = rng.standard_normal(50)
    with npx.Stream() as stream:
        value = npx.polyval(npx.polyder(up(p)), up(x))
        fit = npx.polyfit(up(x), value, 4)
        stream.synchronize()
    assert_matches(value, np.polyval(np.polyder(p), x), rtol=1e-12)
    assert_matches(fit, np.polyfit(x, np.polyval(np.polyder(p), x), 4), rtol=1e-8, atol=1e-10)


def test_numpy_functions_dispatch_to_the_device(rng):
    p, x = rng.standard_normal(4), rng.standard_normal(9)
    for got, want in [(np.polyval(up(p), up(x)), np.polyval(p, x)),
                      (np.polyder(up(p), 2), np.polyder(p, 2)),
                      (np.polyint(up(p)), np.polyint(p)),
                      (np.polyadd(up(p), up(x)), np.polyadd(p, x)),
                      (np.polymul(up(p), up(p)), np.polymul(p, p)),
                      (np.polyfit(up(x), up(x * 2), 1), np.polyfit(x, x * 2, 1))]:
        assert_matches(got, want, rtol=1e-10, atol=1e-12)
