"""float64 / complex128 matmul on the integer matrix unit (npuarray/_core/_ozaki.py): results within
dgemm's error bound ``K u (|A| |B|)`` of exact products (Python fractions on small sizes, a
double-double product on larger ones), on random, ill-conditioned, ill-scaled, zero, batched,
non-contiguous and complex inputs; inputs the scheme cannot take (inf, nan, huge spreads within
a row) go to the composed product and match NumPy."""
from fractions import Fraction

import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ozaki
from npuarray._core._linear_algebra import prepare_matmul

RNG = np.random.default_rng(2121)
U = 2.0 ** -53


def _split(x):
    c = x * (2.0 ** 27 + 1)
    high = c - (c - x)
    return high, x - high


def _exact_dd(a, b):
    """a @ b to about 2**-100 relative (products of 26-bit halves summed in long double pairs)."""
    ah, al = _split(a)
    bh, bl = _split(b)
    ld = np.longdouble
    parts = [ah.astype(ld) @ bh.astype(ld), ah.astype(ld) @ bl.astype(ld), al.astype(ld) @ bh.astype(ld),
             al.astype(ld) @ bl.astype(ld)]
    return parts[0] + (parts[1] + parts[2]) + parts[3]


def _exact_fractions(a, b):
    m, k = a.shape
    n = b.shape[1]
    fa = [[Fraction(float(v)) for v in row] for row in a]
    fb = [[Fraction(float(v)) for v in row] for row in b]
    return [[sum(fa[i][t] * fb[t][j] for t in range(k)) for j in range(n)] for i in range(m)]


def _assert_within_dgemm_bound(c, exact, a, b):
    k = a.shape[-1]
    bound = k * U / (1 - k * U) * (np.abs(a) @ np.abs(b))
    err = np.abs(c.astype(np.longdouble) - exact)
    assert np.all(err <= bound), float(np.max(err / np.where(bound > 0, bound, 1)))


def test_small_product_equals_fractions_within_the_bound(int8_products_taken):
    a = RNG.standard_normal((7, 13)) * 2.0 ** RNG.integers(-20, 21, (7, 13))
    b = RNG.standard_normal((13, 5))
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [True]
    exact = _exact_fractions(a, b)
    bound = 13 * U * (np.abs(a) @ np.abs(b))
    for i in range(7):
        for j in range(5):
            assert abs(Fraction(float(c[i, j])) - exact[i][j]) <= Fraction(float(bound[i, j]))


@pytest.mark.parametrize("kind", ["normal", "uniform", "row-col-scaled", "inner-scaled", "hilbert",
                                  "ill-conditioned", "rectangular"])
def test_within_dgemm_bound(kind, int8_products_taken):
    n = 160
    a, b = RNG.standard_normal((n, n)), RNG.standard_normal((n, n))
    if kind == "uniform":
        a, b = RNG.random((n, n)), RNG.random((n, n))
    elif kind == "row-col-scaled":   # row and column scales 2**-40 .. 2**40
        a = a * 2.0 ** RNG.integers(-40, 41, (n, 1))
        b = b * 2.0 ** RNG.integers(-40, 41, (1, n))
    elif kind == "inner-scaled":
        a = a * 2.0 ** RNG.integers(-8, 9, (1, n))
        b = b * 2.0 ** RNG.integers(-8, 9, (n, 1))
    elif kind == "hilbert":
        a = 1.0 / (np.arange(n)[:, None] + np.arange(n) + 1.0)
    elif kind == "ill-conditioned":   # singular values 1 .. 1e-14
        q1, _ = np.linalg.qr(a)
        q2, _ = np.linalg.qr(b)
        a = (q1 * np.logspace(0, -14, n)) @ q2.T
    elif kind == "rectangular":
        a, b = RNG.standard_normal((90, 33)), RNG.standard_normal((33, 250))
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [True]
    _assert_within_dgemm_bound(c, _exact_dd(a, b), a, b)


def test_zero_rows_columns_and_matrices(int8_products_taken):
    a, b = RNG.standard_normal((40, 50)), RNG.standard_normal((50, 30))
    a[3] = 0
    b[:, 7] = 0
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [True]
    assert np.all(c[3] == 0) and np.all(c[:, 7] == 0)
    _assert_within_dgemm_bound(c, _exact_dd(a, b), a, b)
    zero = (npx.asarray(np.zeros((40, 50))) @ npx.asarray(b)).to_host()
    np.testing.assert_array_equal(zero, np.zeros((40, 30)))


@pytest.mark.parametrize("special", [np.inf, -np.inf, np.nan])
def test_inf_and_nan_take_the_composed_product(special, int8_products_taken):
    a, b = RNG.standard_normal((30, 20)), RNG.standard_normal((20, 25))
    a[4, 5] = special
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [False]
    np.testing.assert_allclose(c, a @ b, rtol=1e-13, atol=1e-13, equal_nan=True)


def test_huge_spread_within_a_row_takes_the_composed_product(int8_products_taken):
    a, b = RNG.standard_normal((30, 20)), RNG.standard_normal((20, 25))
    a[:, ::2] *= 2.0 ** -300   # products that would need far more than DIGITS digits
    b[::2] *= 2.0 ** 300
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [False]
    _assert_within_dgemm_bound(c, _exact_dd(a, b), a, b)


def test_batched_broadcast_and_non_contiguous(int8_products_taken):
    a = RNG.standard_normal((3, 1, 40, 24))
    b = RNG.standard_normal((2, 24, 36))
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [True]
    exact = np.stack([np.stack([_exact_dd(a[i, 0], b[j]) for j in range(2)]) for i in range(3)])
    _assert_within_dgemm_bound(c, exact, np.broadcast_to(a, (3, 2, 40, 24)), b)
    big = RNG.standard_normal((80, 90))
    view = npx.asarray(big)[::2, 1::3]   # (40, 30), strided both ways
    other = npx.asarray(big.T.copy()).T[:30, :50]   # a transposed (column-major) view
    c = (view @ other).to_host()
    _assert_within_dgemm_bound(c, _exact_dd(big[::2, 1::3], big[:30, :50]), big[::2, 1::3], big[:30, :50])


def test_complex128(int8_products_taken):
    a = RNG.standard_normal((50, 40)) + 1j * RNG.standard_normal((50, 40))
    b = RNG.standard_normal((40, 30)) + 1j * RNG.standard_normal((40, 30))
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken and all(int8_products_taken)
    real = _exact_dd(a.real, b.real) - _exact_dd(a.imag, b.imag)
    imag = _exact_dd(a.real, b.imag) + _exact_dd(a.imag, b.real)
    bound = 2 * 80 * U * (np.abs(a) @ np.abs(b))
    assert np.all(np.abs(c.real - real) <= bound) and np.all(np.abs(c.imag - imag) <= bound)


def test_vectors_and_default_threshold():
    a, b = RNG.standard_normal(300), RNG.standard_normal((300, 200))
    np.testing.assert_allclose((npx.asarray(a) @ npx.asarray(b)).to_host(), a @ b, rtol=1e-12, atol=1e-12)
    small = RNG.standard_normal((3, 3))   # below MIN_MULTIPLY_ADDS: composed
    np.testing.assert_allclose((npx.asarray(small) @ npx.asarray(small)).to_host(), small @ small, rtol=1e-14)


def test_on_a_non_default_stream(int8_products_taken):
    a, b = RNG.standard_normal((64, 48)), RNG.standard_normal((48, 32))
    with npx.Stream():
        c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [True]
    _assert_within_dgemm_bound(c, _exact_dd(a, b), a, b)


def test_k_longer_than_one_int32_sum(int8_products_taken, monkeypatch):
    monkeypatch.setattr(_ozaki, "_INT32_LIMIT", 127 * 127 * 8 * 40)   # chunks of k = 40 for s = 8
    a, b = RNG.standard_normal((20, 130)), RNG.standard_normal((130, 10))
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [True]
    _assert_within_dgemm_bound(c, _exact_dd(a, b), a, b)


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (1, 513, 17), (17, 17, 17), (513, 17, 513), (17, 513, 1)])
def test_edge_sizes_within_dgemm_bound(m, k, n, int8_products_taken):
    a, b = RNG.standard_normal((m, k)), RNG.standard_normal((k, n))
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [k > 1]   # k = 1: no room in K u for the slices' additions: the composed product
    _assert_within_dgemm_bound(c, _exact_dd(a, b), a, b)


def test_ill_scaled_small_product_equals_fractions(int8_products_taken):
    # row scales of a and column scales of b from 2**-40 to 2**40, inner scales 2**-6 .. 2**6
    a = RNG.standard_normal((9, 64)) * 2.0 ** RNG.integers(-40, 41, (9, 1)) * 2.0 ** RNG.integers(-6, 7, (1, 64))
    b = RNG.standard_normal((64, 6)) * 2.0 ** RNG.integers(-40, 41, (1, 6))
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [True]
    exact = _exact_fractions(a, b)
    bound = 64 * U * (np.abs(a) @ np.abs(b))
    for i in range(9):
        for j in range(6):
            assert abs(Fraction(float(c[i, j])) - exact[i][j]) <= Fraction(float(bound[i, j]))


def test_inf_and_nan_propagate_like_numpy(int8_products_taken):
    a, b = RNG.standard_normal((40, 36)), RNG.standard_normal((36, 33))
    a[2, 5] = np.inf        # meets b[5, 7] = 0: inf * 0 = nan in c[2, 7], +-inf elsewhere in row 2
    b[5, 7] = 0.0
    a[9, :] = -np.inf
    b[:, 11] = 0.0          # -inf * 0: row 9 is nan in column 11
    b[3, 20] = np.nan       # column 20 all nan
    a[30, 4], a[30, 6] = np.inf, -np.inf   # inf - inf: nan wherever b's two entries share a sign
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    with np.errstate(invalid="ignore"):
        expected = a @ b
    assert int8_products_taken == [False]
    np.testing.assert_array_equal(np.isnan(c), np.isnan(expected))
    np.testing.assert_array_equal(np.isposinf(c), np.isposinf(expected))
    np.testing.assert_array_equal(np.isneginf(c), np.isneginf(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(c[finite], expected[finite], rtol=1e-13, atol=1e-13)


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return []


@pytest.mark.parametrize("path,flags", [("portable", ()), ("vnni", ("avx512_vnni", "avx512bw")),
                                        ("amx", ("amx_tile", "amx_int8"))])
def test_each_int8_path_within_dgemm_bound(path, flags, int8_products_taken, monkeypatch):
    # NPUSIM_QMM_KERNEL forces npusim's int8 path (AMX tiles, AVX-512 VNNI, portable loop)
    missing = [f for f in flags if f not in _cpu_flags()]
    if missing:
        pytest.skip("the %s path needs CPU flags %s, which this CPU lacks" % (path, ", ".join(missing)))
    monkeypatch.setenv("NPUSIM_QMM_KERNEL", path)
    a = RNG.standard_normal((70, 130)) * 2.0 ** RNG.integers(-20, 21, (70, 1))
    b = RNG.standard_normal((130, 45))
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [True]
    _assert_within_dgemm_bound(c, _exact_dd(a, b), a, b)
    assert np.all(np.abs(c - a @ b) <= 2 * 130 * U * (np.abs(a) @ np.abs(b)))   # NumPy's within its bound too


def test_triangular_factor_product_uses_the_float32_bound(int8_products_taken, monkeypatch):
    # L L^T of a Cholesky factor: every product L_ik L_jk (i != j) meets an entry below 2**-7 of its
    # row's largest (the diagonal), which the int8 bound cannot see; the float32 one can
    g = RNG.standard_normal((120, 120))
    lower = np.linalg.cholesky(g @ g.T + 120 * np.eye(120))
    exact_calls = []
    original = _ozaki._Scales._ratio

    def ratio(self, exact):
        exact_calls.append(exact)
        return original(self, exact)
    monkeypatch.setattr(_ozaki._Scales, "_ratio", ratio)
    c = (npx.asarray(lower) @ npx.asarray(lower.T)).to_host()
    assert int8_products_taken == [True] and exact_calls == [False, True]
    _assert_within_dgemm_bound(c, _exact_dd(lower, lower.T), lower, lower.T)
    a, b = RNG.standard_normal((60, 80)), RNG.standard_normal((80, 50))   # dense: the int8 bound suffices
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [True, True] and exact_calls == [False, True, False]
    _assert_within_dgemm_bound(c, _exact_dd(a, b), a, b)


def _digits_on_host(planes_flat, s, k):
    """(M, s K) int8 planes of split_rows (least significant first) as Python ints per (i, k)."""
    planes = planes_flat.reshape(planes_flat.shape[0], s, k).astype(object)
    return [[sum(int(planes[i, j, c]) * 256 ** j for j in range(s)) for c in range(k)]
            for i in range(planes.shape[0])]


@pytest.mark.parametrize("s", [3, 8, 9, 15])
def test_digits_are_the_words_of_the_scaled_values(s):
    # rows spanning 2**-60 .. 2**3, signs mixed, zeros, the largest in [1/4, 1) after scaling
    a = RNG.standard_normal((6, 40)) * 2.0 ** RNG.integers(-60, 4, (6, 40))
    a[2, ::3] = 0.0
    stream = npx.get_current_stream()
    x = npx.asarray(a)
    sigma, _ = _ozaki.power_of_two_scale(_ozaki.largest_magnitude(x, -1))
    planes = _ozaki.split_rows(x, sigma, s, stream).to_host()   # (6, s, 40)
    scale = sigma.to_host()
    assert np.all(planes[:, :-1] >= -128) and np.all(np.abs(planes[:, -1].astype(int)) <= 64 if s <= 8 else True)
    words = _digits_on_host(planes.reshape(6, s * 40), s, 40)
    shift = 62 if s <= 8 else 118   # one word (the top s of 8 digits) or two (15 digits)
    for i in range(6):
        for c in range(40):
            exact = int(Fraction(float(a[i, c])) * Fraction(float(scale[i, 0])) * 2 ** shift)   # trunc
            top = exact if s in (8, 15) else None
            if top is not None:
                assert words[i][c] == top
            else:   # the top s digits: the word less its low digits, within one unit of the last kept
                unit = 256 ** ((8 if s <= 8 else 15) - s)
                assert abs(words[i][c] * unit - exact) < unit


def test_columns_digits_match_rows_digits():
    b = RNG.standard_normal((30, 12)) * 2.0 ** RNG.integers(-30, 3, (30, 12))
    stream = npx.get_current_stream()
    y = npx.asarray(b)
    tau, _ = _ozaki.power_of_two_scale(_ozaki.largest_magnitude(y, -2))
    columns = _ozaki.split_columns(y, tau, 10, stream).to_host()    # (10, 30, 12), most significant first
    rows = _ozaki.split_rows(npx.asarray(b.T.copy()), npx.asarray(tau.to_host().T.copy()), 10, stream).to_host()
    np.testing.assert_array_equal(columns[::-1].transpose(2, 0, 1), rows)   # (12, 10, 30)


def test_long_k_adds_the_diagonals_after_the_first_group_one_by_one(int8_products_taken):
    g = _ozaki.group_size(7, 512)
    assert _ozaki.each_added(7, 512) and _ozaki.roundings_of(7, 512) == 7 - g + 1
    assert not _ozaki.each_added(7, 13) and _ozaki.roundings_of(7, 13) == -(-7 // _ozaki.group_size(7, 13))
    assert _ozaki.ratio_limit(7, 512) < _ozaki.ratio_limit(7, 512, roundings=-(-7 // g))   # the extra roundings
    a, b = RNG.standard_normal((64, 512)), RNG.standard_normal((512, 48))
    with npx.profile() as prof:
        c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [True]
    sums = [r for r in prof.records if r.name in ("aclnnMuls", "aclnnInplaceAdd") and r.shapes[0] == (64, 48)]
    assert sums and all(r.dtypes[1] == np.int32 for r in sums if r.name == "aclnnInplaceAdd")   # no group temporary
    _assert_within_dgemm_bound(c, _exact_dd(a, b), a, b)


def test_slices_for_grows_with_the_ratio_and_refuses_k_of_one():
    counts = [_ozaki.slices_for(r, 512) for r in (1.0, 120.0, 200.0, 1e6, 1e30)]
    assert counts[:4] == sorted(counts[:4]) and counts[1] == 7 and counts[4] is None
    assert _ozaki.slices_for(1.0, 1) is None


@pytest.mark.parametrize("b_shape", [(120, 16), (120,), (120, 1), (120, 64)])
def test_prepared_left_operand_equals_matmul_bit_for_bit(b_shape, int8_products_taken):
    a = RNG.standard_normal((100, 120)) * 2.0 ** RNG.integers(-10, 11, (100, 1))
    b = RNG.standard_normal(b_shape)
    x, y = npx.asarray(a), npx.asarray(b)
    prepared = prepare_matmul(x)
    first = prepared.matmul(y).to_host()
    again = prepared.matmul(npx.asarray(b * 3.0)).to_host()   # the same digits of a, another b
    plain = (x @ y).to_host()
    assert int8_products_taken == [True, True, True]
    np.testing.assert_array_equal(first, plain)
    b2 = b[:, None] if b.ndim == 1 else b
    _assert_within_dgemm_bound(first.reshape(100, -1), _exact_dd(a, b2), a, b2)
    _assert_within_dgemm_bound(again.reshape(100, -1), _exact_dd(a, b2 * 3.0), a, b2 * 3.0)


def test_prepared_batched_and_other_dtypes():
    a = RNG.standard_normal((2, 40, 50))
    b = RNG.standard_normal((50, 9))
    prepared = prepare_matmul(npx.asarray(a))
    c = prepared.matmul(npx.asarray(b)).to_host()
    _assert_within_dgemm_bound(c[1], _exact_dd(a[1], b), a[1], b)
    single = prepare_matmul(npx.asarray(a.astype(np.float32)))   # no digits: matmul as it is
    np.testing.assert_allclose(single.matmul(npx.asarray(b.astype(np.float32))).to_host(),
                               a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=1e-4)
    mixed = prepared.matmul(npx.asarray(b.astype(np.float32)))   # promoted to float64
    assert mixed.dtype == np.float64
    np.testing.assert_allclose(mixed.to_host(), a @ b.astype(np.float32), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="contracted"):
        prepared.matmul(npx.asarray(np.ones((7, 3))))
    with pytest.raises(TypeError):
        prepare_matmul(a)
    with pytest.raises(ValueError):
        prepare_matmul(npx.asarray(np.ones(4)))


def test_prepared_with_an_input_it_cannot_take_runs_the_composed_product(int8_products_taken):
    a = RNG.standard_normal((40, 30))
    a[3, 4] = np.nan
    b = RNG.standard_normal((30, 5))
    c = prepare_matmul(npx.asarray(a)).matmul(npx.asarray(b)).to_host()
    assert int8_products_taken == [False]
    np.testing.assert_array_equal(np.isnan(c), np.isnan(a @ b))
    np.testing.assert_allclose(c[~np.isnan(c)], (a @ b)[~np.isnan(c)], rtol=1e-13, atol=1e-13)


def test_thin_products_take_the_int8_path_by_default():
    a, b = RNG.standard_normal((300, 200)), RNG.standard_normal((200, 3))
    calls = []
    original = _ozaki.product

    def spy(*args, **kwargs):
        calls.append(original(*args, **kwargs))
        return calls[-1]
    try:
        _ozaki.product = spy
        c = (npx.asarray(a) @ npx.asarray(b)).to_host()
        v = (npx.asarray(a) @ npx.asarray(b[:, 0])).to_host()
    finally:
        _ozaki.product = original
    assert calls == [True, True]
    _assert_within_dgemm_bound(c, _exact_dd(a, b), a, b)
    _assert_within_dgemm_bound(v[:, None], _exact_dd(a, b[:, :1]), a, b[:, :1])


def test_wide_spread_takes_two_words_within_the_bound(int8_products_taken, monkeypatch):
    # products spanning 2**-24 .. 2**24 inside each row: more than one word's eight digits
    chosen = []
    original = _ozaki.slices_for
    monkeypatch.setattr(_ozaki, "slices_for", lambda r, k: chosen.append(original(r, k)) or chosen[-1])
    a = RNG.standard_normal((50, 70)) * 2.0 ** RNG.integers(-12, 13, (1, 70))
    b = RNG.standard_normal((70, 40)) * 2.0 ** RNG.integers(-12, 13, (70, 1))
    c = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert int8_products_taken == [True] and chosen[-1] > _ozaki.WORD_DIGITS
    _assert_within_dgemm_bound(c, _exact_dd(a, b), a, b)


def test_magnitudes_of_words_are_floors_or_one_less():
    stream = npx.get_current_stream()
    x = RNG.standard_normal((40, 64)) * 2.0 ** RNG.integers(-12, 1, (40, 64))
    x[3] = 0.0
    x[5, :8] = [-1 + 2.0 ** -52, 1 - 2.0 ** -53, -0.5, 0.5, -2.0 ** -7, 2.0 ** -7, -2.0 ** -8, 5e-324]
    scale = 2.0 ** -np.floor(np.log2(np.maximum(np.abs(x).max(axis=1, keepdims=True), 1e-300)) + 1)
    scale[3] = 0.5   # (a zero row's, as power_of_two_scale gives it)
    words = _ozaki._raw_words(npx.asarray(x), npx.asarray(scale), stream)
    for bits in (7, 5, 1):
        got = _ozaki._magnitude_of_words(words, bits, stream).to_host().astype(np.int64)
        floor = np.floor(np.abs(x) * scale * 2.0 ** bits).astype(np.int64)
        assert np.all((got == floor) | ((got == floor - 1) & (x < 0))), bits
        assert np.all(got >= 0)


@pytest.mark.parametrize("axis", [-1, -2])
def test_nonzero_counts_by_the_int8_product(axis):
    x = RNG.standard_normal((3, 37, 70))
    x[RNG.random(x.shape) < 0.4] = 0.0
    x[0, 5] = 0.0
    x[1, :, 3] = -0.0
    x[2, 7, 9] = 5e-324
    got = _ozaki._count(npx.asarray(x), axis, npx.get_current_stream()).to_host()
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, np.count_nonzero(x, axis=axis, keepdims=True))


@pytest.mark.parametrize("s", [1, 3, 7, 8])
def test_thin_diagonals_equal_the_planes_diagonals(s):
    """The one-launch table of b's digits against a's words in place gives the sums of
    ``add_diagonals`` (every digit product t + u <= s + 1, the same float64 additions)."""
    stream = npx.get_current_stream()
    a = RNG.standard_normal((2, 30, 50)) * 2.0 ** RNG.integers(-20, 1, (2, 30, 50))
    b = RNG.standard_normal((50, 5)) * 2.0 ** RNG.integers(-20, 1, (50, 5))
    x, y = npx.asarray(a), npx.asarray(b)
    left = _ozaki.PreparedLeft(x, stream)
    tau, _ = _ozaki.power_of_two_scale(_ozaki.largest_magnitude(y, -2))
    unit = _ozaki._unit_scale(x._buffer.device, stream)
    thin = npx.asarray(np.zeros((2, 30, 5)))
    _ozaki._thin_diagonals(left, _ozaki._Digits.of(_ozaki._raw_words(y, tau, stream), stream), thin, s, unit, stream)
    planes = npx.asarray(np.zeros((2, 30, 5)))
    b_flat = _ozaki._flat_columns(_ozaki.split_columns(y, tau, s, stream))
    _ozaki.add_diagonals(left.digits(s, stream), b_flat, 50, planes, s, unit, False, stream)
    np.testing.assert_array_equal(thin.to_host(), planes.to_host())
    if s == 8:   # scaled units: a sigma and b tau, within dgemm's bound of the exact product
        scaled_a, scaled_b = a * left.sigma.to_host(), b * tau.to_host()
        _assert_within_dgemm_bound(thin.to_host()[1], _exact_dd(scaled_a[1], scaled_b), scaled_a[1], scaled_b)


def test_deferred_product_flags_what_one_word_cannot_bound(int8_products_taken):
    a = RNG.standard_normal((64, 128))
    a[0, 1::2] = 0.0   # row 0 meets only the rows of b 2**60 below the others
    x = npx.asarray(a)
    prepared = prepare_matmul(x)
    b = RNG.standard_normal((128, 3))
    product, within = prepared.matmul_unverified(npx.asarray(b))
    assert float(within.to_host()) == 1.0 and int8_products_taken == []   # no read-back, no product() call
    _assert_within_dgemm_bound(product.to_host(), _exact_dd(a, b), a, b)
    wide = b * 2.0 ** np.where(np.arange(128) % 2, 30, -30)[:, None]
    assert float(prepared.matmul_unverified(npx.asarray(wide))[1].to_host()) == 0.0
    checked = prepared.matmul(npx.asarray(wide)).to_host()   # as many digits as it needs
    _assert_within_dgemm_bound(checked, _exact_dd(a, wide), a, wide)
    huge = b.copy()
    huge[0, 0] = 2.0 ** 1000
    assert float(prepared.matmul_unverified(npx.asarray(huge))[1].to_host()) == 0.0
    nan = b.copy()
    nan[1, 1] = np.nan
    assert float(prepared.matmul_unverified(npx.asarray(nan))[1].to_host()) == 0.0
    zero = b.copy()
    zero[:, 2] = 0.0   # (its nonzeros are not counted: a zero column is left to matmul)
    assert float(prepared.matmul_unverified(npx.asarray(zero))[1].to_host()) == 0.0
    wider, none = prepared.matmul_unverified(npx.asarray(RNG.standard_normal((128, _ozaki.THIN_COLUMNS + 1))))
    assert none is None and wider.shape == (64, _ozaki.THIN_COLUMNS + 1)
    short, none = prepare_matmul(npx.asarray(a[:, :8])).matmul_unverified(npx.asarray(b[:8]))
    assert none is None   # K of 8: the roundings of the sums alone exceed dgemm's bound
    _assert_within_dgemm_bound(short.to_host(), _exact_dd(a[:, :8], b[:8]), a[:, :8], b[:8])
    sixty, within = prepare_matmul(npx.asarray(a[:, :60])).matmul_unverified(npx.asarray(b[:60]))
    assert float(within.to_host()) == 1.0   # two roundings (groups of diagonals) leave room at K of 60
    _assert_within_dgemm_bound(sixty.to_host(), _exact_dd(a[:, :60], b[:60]), a[:, :60], b[:60])


def test_unit_rows_skip_the_row_scales_with_the_same_products(int8_products_taken):
    a = RNG.standard_normal((48, 40))
    a /= 2.0 ** np.floor(np.log2(np.abs(a).max(axis=1, keepdims=True)) + 1)   # rows' largest in [1/2, 1)
    a[7] = 0.0
    b = RNG.standard_normal((40, 6))
    plain = prepare_matmul(npx.asarray(a)).matmul(npx.asarray(b)).to_host()
    unit = prepare_matmul(npx.asarray(a), unit_rows=True).matmul(npx.asarray(b)).to_host()
    np.testing.assert_array_equal(unit, plain)
    _assert_within_dgemm_bound(unit, _exact_dd(a, b), a, b)


@pytest.mark.parametrize("shapes", [
    ((1, 1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1, 1)),             # 1x1 matrices, 5 batch dims
    ((2, 1, 3, 1, 2, 1, 4, 4), (4, 4)),                          # 8-D (the most CANN takes)
    ((1, 1, 1, 1, 1, 2, 70, 70), (1, 1, 1, 1, 3, 1, 70, 30)),   # broadcast batch, int8 path
    ((1, 1, 1, 1, 1, 0, 3, 4), (1, 1, 1, 1, 1, 1, 4, 2)),        # an empty batch
])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_products_of_many_batch_dimensions(shapes, dtype):
    # The float64 and int64 paths add a dimension to their temporaries and the int8
    # product takes at most 6: batches of 7- and 8-D products are folded into one.
    rng = np.random.default_rng(7)
    a, b = (rng.integers(-50, 50, s).astype(dtype) for s in shapes)
    np.testing.assert_array_equal((npx.asarray(a) @ npx.asarray(b)).to_host(), a @ b)
