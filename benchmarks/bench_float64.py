"""float64 science on the device against NumPy and PyTorch CPU: matrix products on the
integer matrix unit (npuarray/_ozaki.py), solve / cholesky refined from float32 factors,
eigh from aclnnSvd, complex128 FFTs composed of element-wise operators.

* ``matmul`` 512^2 and 1024^2 float64 (``--quick``: 512^2), with the error of one product
  against a double-double reference, as a fraction of dgemm's bound ``K u |A| |B|``, and the
  int8 multiply-adds of its aclnnQuantMatmulV5 launches with their time on a real NPU's cube
  unit (an assumed 640 int8 TOPS);
* thin products (512^2 float64) @ (512 x 16): ``matmul`` and ``prepare_matmul(a).matmul``
  (the left operand split once, as iterative refinement uses it), and 512^2 complex128;
* ``int8 product`` 1024 x 8192 x 1024 on npusim's AMX and VNNI paths (not with ``--quick``);
* ``solve`` (16 right-hand sides, and one) and ``cholesky`` of a 512^2 float64 SPD matrix,
  and ``cholesky`` of one of condition number 1e6 (several refinement steps);
* ``eigh`` 512^2 float32 and float64 (``--quick``: 256^2);
* ``fft`` of 2^20 complex128, and of length 2 * 401 (Bluestein);
* the pool's peak of a 2048^2 float64 product against its operands (not with ``--quick``).

Every npuarray timing ends with a synchronisation of the stream. Ratios are NumPy time /
npuarray time.
"""
import os
import subprocess
import sys

import numpy as np

import npuarray as npx
from npuarray._core import _ozaki
from npuarray._core._linear_algebra import prepare_matmul

from . import _targets
from ._harness import synchronized, torch_or_none


def _torch(torch, name, *arrays):
    if torch is None:
        return {}
    tensors = [torch.from_numpy(a) for a in arrays]
    fn = eval("torch." + name, {"torch": torch})   # a dotted name of torch's API
    return {"torch": lambda: fn(*tensors)}


def _exact(a, b):
    """a @ b in long double from 26-bit halves (error about 2**-64 relative)."""
    def split(x):
        t = x * (2.0 ** 27 + 1)
        high = t - (t - x)
        return high, x - high
    ah, al = split(a)
    bh, bl = split(b)
    ld = np.longdouble
    return (ah.astype(ld) @ bh + (ah.astype(ld) @ bl + al.astype(ld) @ bh)) + al.astype(ld) @ bl


def _dgemm_bound_fraction(a, b, c):
    bound = a.shape[1] * 2.0 ** -53 * (np.abs(a) @ np.abs(b))
    return float(np.max(np.abs(c - _exact(a, b)) / bound))


def _matmul(harness, stream, torch, rng):
    for n, target in ((512, _targets.F64_MATMUL_512), (1024, _targets.F64_MATMUL_1024)):
        if harness.quick and n > 512:
            continue
        a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        x, y = npx.asarray(a), npx.asarray(b)
        impls = {"npuarray": synchronized(stream, lambda x=x, y=y: x @ y),
                 "numpy": lambda a=a, b=b: a @ b, **_torch(torch, "matmul", a, b)}
        harness.compare("matmul %dx%d float64" % (n, n), impls, repeat=3, target=target)
        print("  matmul %d^2 float64: max error / dgemm bound = %.3g (numpy: %.3g)"
              % (n, _dgemm_bound_fraction(a, b, (x @ y).to_host()), _dgemm_bound_fraction(a, b, a @ b)))
        print("  matmul %d^2 float64: %s" % (n, _cube_estimate(x, y)))


def _thin_and_complex(harness, stream, torch, rng):
    """(512^2) @ (512 x 16) float64, plain and with the left operand split once, and a
    512^2 complex128 product (four real products' worth of int8 digits)."""
    a, b = rng.standard_normal((512, 512)), rng.standard_normal((512, 16))
    x, y = npx.asarray(a), npx.asarray(b)
    prepared = prepare_matmul(x)
    harness.compare("matmul 512x512 @ 512x16 float64", {
        "npuarray": synchronized(stream, lambda: x @ y), "numpy": lambda: a @ b,
        **_torch(torch, "matmul", a, b)}, repeat=5)
    harness.compare("matmul 512x512 @ 512x16 float64, prepared", {
        "npuarray": synchronized(stream, lambda: prepared.matmul(y)), "numpy": lambda: a @ b,
        **_torch(torch, "matmul", a, b)}, repeat=5)
    print("  thin 512x16 float64: max error / dgemm bound = %.3g (prepared: %.3g)"
          % (_dgemm_bound_fraction(a, b, (x @ y).to_host()),
             _dgemm_bound_fraction(a, b, prepared.matmul(y).to_host())))
    c = rng.standard_normal((512, 512)) + 1j * rng.standard_normal((512, 512))
    d = rng.standard_normal((512, 512)) + 1j * rng.standard_normal((512, 512))
    z, w = npx.asarray(c), npx.asarray(d)
    harness.compare("matmul 512x512 complex128", {
        "npuarray": synchronized(stream, lambda: z @ w), "numpy": lambda: c @ d,
        **_torch(torch, "matmul", c, d)}, repeat=3)
    result = (z @ w).to_host()
    bound = 2 * 512 * 2.0 ** -53 * (np.abs(c) @ np.abs(d))
    exact = (_exact(c.real, d.real) - _exact(c.imag, d.imag)) + 1j * (_exact(c.real, d.imag) + _exact(c.imag, d.real))
    print("  matmul 512^2 complex128: max error / (2 K u |A| |B|) = %.3g (numpy: %.3g)"
          % (np.max(np.abs(result - exact) / bound), np.max(np.abs(c @ d - exact) / bound)))


# An Ascend 910B-class cube unit: 640 int8 TOPS (2 operations per multiply-add), an assumed figure.
_CUBE_INT8_MACS_PER_SECOND = 320e12


def _cube_estimate(x, y):
    """The int8 multiply-adds of one product's aclnnQuantMatmulV5 launches (from a profile)
    and their time on a real NPU's cube unit at the assumed rate."""
    with npx.profile() as prof:
        (x @ y).to_host()
    macs = 0
    for record in prof.records:
        if record.name == "aclnnQuantMatmulV5":
            x1, x2 = record.shapes[0], record.shapes[1]
            macs += int(np.prod(np.broadcast_shapes(x1[:-2], x2[:-2]), dtype=np.int64)) * x1[-2] * x1[-1] * x2[-1]
    return "%d int8 products, %.3g G multiply-adds: %.3f ms on a 640-TOPS int8 cube" % (
        sum(r.name == "aclnnQuantMatmulV5" for r in prof.records), macs / 1e9, macs / _CUBE_INT8_MACS_PER_SECOND * 1e3)


def _launches(call):
    """The int8 (aclnnQuantMatmulV5) and float32 (aclnnMatmul) products of one call, from a
    profile."""
    with npx.profile() as prof:
        call().to_host()
    names = [record.name for record in prof.records]
    return "%d int8 products, %d float32 products, %d reads" % (
        names.count("aclnnQuantMatmulV5"), names.count("aclnnMatmul"), names.count("ACL_MEMCPY_DEVICE_TO_HOST"))


def _int8_paths(harness, rng):
    """aclnnQuantMatmulV5 of (1024, 8192) x (8192, 1024) int8 (one float64 product's longest
    diagonal) on each int8 path of npusim this CPU runs (NPUSIM_QMM_KERNEL)."""
    if harness.quick:
        return
    a = npx.asarray(rng.integers(-127, 128, (1024, 8192), dtype=np.int8))
    b = npx.asarray(rng.integers(-127, 128, (8192, 1024), dtype=np.int8))
    stream = npx.get_current_stream()
    unit = npx.asarray(np.ones(1, np.float32))
    out = _ozaki._quant_product(a, b, unit, stream)
    for path in ("amx", "vnni"):
        os.environ["NPUSIM_QMM_KERNEL"] = path
        try:
            _ozaki._quant_product(a, b, unit, stream, out).to_host()
        except npx.AclError as error:
            print("  int8 %s path: not on this CPU (%s)" % (path, error))
            continue
        seconds = harness.measure("int8 product 1024x8192x1024 (%s)" % path, synchronized(
            stream, lambda: _ozaki._quant_product(a, b, unit, stream, out)), repeat=3)
        print("  int8 %s path: %.0f G multiply-adds/s" % (path, 1024 * 8192 * 1024 / seconds / 1e9))
    os.environ.pop("NPUSIM_QMM_KERNEL", None)


def _factorisations(harness, stream, torch, rng):
    n = 256 if harness.quick else 512
    g = rng.standard_normal((n, n))
    spd, rhs = g @ g.T + n * np.eye(n), rng.standard_normal((n, 16))
    s, r = npx.asarray(spd), npx.asarray(rhs)
    harness.compare("solve %dx%d float64" % (n, n), {
        "npuarray": synchronized(stream, lambda: npx.linalg.solve(s, r)),
        "numpy": lambda: np.linalg.solve(spd, rhs), **_torch(torch, "linalg.solve", spd, rhs)},
        repeat=3, target=None if harness.quick else _targets.F64_SOLVE_512)
    v, vector = r[:, 0], rhs[:, 0].copy()
    harness.compare("solve %dx%d float64, one right-hand side" % (n, n), {
        "npuarray": synchronized(stream, lambda: npx.linalg.solve(s, v)),
        "numpy": lambda: np.linalg.solve(spd, vector), **_torch(torch, "linalg.solve", spd, vector)},
        repeat=3, target=None if harness.quick else _targets.F64_SOLVE_512)
    harness.compare("cholesky %dx%d float64" % (n, n), {
        "npuarray": synchronized(stream, lambda: npx.linalg.cholesky(s)),
        "numpy": lambda: np.linalg.cholesky(spd), **_torch(torch, "linalg.cholesky", spd)},
        repeat=3, target=None if harness.quick else _targets.F64_CHOLESKY_512)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    ill = (q * np.logspace(0, -6, n)) @ q.T   # condition 1e6: the refinement takes several steps
    ill = (ill + ill.T) / 2
    d = npx.asarray(ill)
    harness.compare("cholesky %dx%d float64, condition 1e6" % (n, n), {
        "npuarray": synchronized(stream, lambda: npx.linalg.cholesky(d)),
        "numpy": lambda: np.linalg.cholesky(ill), **_torch(torch, "linalg.cholesky", ill)}, repeat=3)
    for name, call in (("solve", lambda: npx.linalg.solve(s, r)), ("cholesky", lambda: npx.linalg.cholesky(s)),
                       ("cholesky, condition 1e6,", lambda: npx.linalg.cholesky(d))):
        print("  %s %d^2 float64: %s" % (name, n, _launches(call)))
    for dtype in (np.float32, np.float64):
        h = spd.astype(dtype)
        d = npx.asarray(h)
        harness.compare("eigh %dx%d %s" % (n, n, np.dtype(dtype).name), {
            "npuarray": synchronized(stream, lambda d=d: npx.linalg.eigh(d)),
            "numpy": lambda h=h: np.linalg.eigh(h), **_torch(torch, "linalg.eigh", h)},
            repeat=3, target=None if harness.quick else _targets.EIGH_512)


def _fft(harness, stream, torch, rng):
    for n, target in ((1 << 20, _targets.C128_FFT_2_20), (2 * 401, None)):
        host = rng.standard_normal(n) + 1j * rng.standard_normal(n)
        x = npx.asarray(host)
        harness.compare("fft %d complex128" % n, {
            "npuarray": synchronized(stream, lambda x=x: npx.fft.fft(x)),
            "numpy": lambda host=host: np.fft.fft(host), **_torch(torch, "fft.fft", host)},
            repeat=3, target=target)
        error = np.max(np.abs(npx.fft.fft(x).to_host() - np.fft.fft(host))) / np.max(np.abs(np.fft.fft(host)))
        print("  fft %d complex128: max error / max |X| = %.3g" % (n, error))


# Run in a fresh interpreter: the pool's high-water mark counts every block the process
# ever held, so the benchmarks that ran before would otherwise be in it.
_PEAK_SCRIPT = """
import numpy as np, npuarray as npx
pool = npx.get_default_memory_pool()
rng = np.random.default_rng(3)
a, b = npx.asarray(rng.standard_normal((2048, 2048))), npx.asarray(rng.standard_normal((2048, 2048)))
(a @ b).to_host()
print(pool.peak_total_bytes(), a.nbytes + b.nbytes, a.nbytes)
"""


def _peak_memory(harness):
    """The pool's high-water mark over a 2048^2 float64 product (operands included), in a
    process that does nothing else."""
    if harness.quick:
        return
    done = subprocess.run([sys.executable, "-c", _PEAK_SCRIPT], capture_output=True, text=True,
                          check=True)
    peak, operands, result = map(int, done.stdout.split())
    print("  matmul 2048^2 float64: pool peak %.0f MiB for %.0f MiB of operands (%.2fx, the "
          "result's %.0f MiB included)" % (peak / 2**20, operands / 2**20, peak / operands,
                                           result / 2**20))


def run(harness):
    torch = torch_or_none()
    stream = npx.get_current_stream()
    rng = np.random.default_rng(21)
    _peak_memory(harness)
    _matmul(harness, stream, torch, rng)
    _thin_and_complex(harness, stream, torch, rng)
    _int8_paths(harness, rng)
    _factorisations(harness, stream, torch, rng)
    _fft(harness, stream, torch, rng)
