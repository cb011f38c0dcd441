"""aclnnQuantMatmulV5, INT8 x INT8 -> INT32 (hicann/ops-nn
matmul/quant_batch_matmul_v4/docs/aclnnQuantMatmulV5.md): exact against NumPy's int64
products, with bias, transposes, broadcast batches and strided inputs; the combinations npusim
does not implement are refused with ACLNN_ERR_PARAM_INVALID."""
import subprocess
from pathlib import Path

import numpy as np
import pytest
from cbuild import BuildError, build_c_program, program_env

import npuarray as npx
from npuarray._core import _ops
from npuarray._acl import ffi, lib

RNG = np.random.default_rng(21)
C_DIR = Path(__file__).parent / "c"


def _launch(x1, x2, out, bias=None, t1=False, t2=False, scale=None, x1_scale=None, group=0):
    scale = npx.asarray(np.ones(1, np.float32)) if scale is None else scale
    _ops.launch("aclnnQuantMatmulV5", x1, x2, x1_scale, scale, None, None, None, None, bias,
                t1, t2, group, out, stream=_ops.current_stream(out.device))
    return out.to_host()


def _int8(shape):
    return RNG.integers(-128, 128, shape, dtype=np.int8)


def _exact(a, b):
    return (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 5, 33), (13, 130, 70), (96, 257, 65)])
def test_exact_products(m, k, n):
    a, b = _int8((m, k)), _int8((k, n))
    out = npx.empty((m, n), dtype=np.int32)
    np.testing.assert_array_equal(_launch(npx.asarray(a), npx.asarray(b), out), _exact(a, b))


def test_extreme_values_and_bias():
    k = 4096   # |sum| up to 2^26: no wrap
    a, b = np.full((5, k), -128, np.int8), np.full((k, 3), -128, np.int8)
    bias = RNG.integers(-1000, 1000, 3, dtype=np.int32)
    out = npx.empty((5, 3), dtype=np.int32)
    got = _launch(npx.asarray(a), npx.asarray(b), out, bias=npx.asarray(bias))
    np.testing.assert_array_equal(got, _exact(a, b) + bias)


def test_transposed_and_strided_inputs():
    a, b = _int8((20, 31)), _int8((31, 40))
    out = npx.empty((20, 40), dtype=np.int32)
    got = _launch(npx.asarray(np.ascontiguousarray(a.T)), npx.asarray(np.ascontiguousarray(b.T)), out,
                  t1=True, t2=True)
    np.testing.assert_array_equal(got, _exact(a, b))
    big = _int8((40, 62))
    view = npx.asarray(big)[::2, ::2]   # non-contiguous rows and columns
    got = _launch(view, npx.asarray(big[:31, :40]), npx.empty((20, 40), dtype=np.int32))
    np.testing.assert_array_equal(got, _exact(big[::2, ::2], big[:31, :40]))


def test_broadcast_batches():
    a, b = _int8((3, 1, 9, 17)), _int8((4, 17, 5))
    out = npx.empty((3, 4, 9, 5), dtype=np.int32)
    np.testing.assert_array_equal(_launch(npx.asarray(a), npx.asarray(b), out), _exact(a, b))


def _first_phase(x1, x2, out, scale, x1_scale=None, group=0):
    keep = [x1, x2, out, scale] + ([x1_scale] if x1_scale is not None else [])
    tensors = [_ops.acl_tensor(t) for t in keep]
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    x1s = tensors[4] if x1_scale is not None else ffi.NULL
    rc = lib.aclnnQuantMatmulV5GetWorkspaceSize(tensors[0], tensors[1], x1s, tensors[3], ffi.NULL, ffi.NULL,
                                                ffi.NULL, ffi.NULL, ffi.NULL, False, False, group, tensors[2],
                                                ws, ex)
    message = lib.aclGetRecentErrMsg()
    if rc == 0:
        lib.aclDestroyAclOpExecutor(ex[0])
    return rc, ffi.string(message).decode() if message != ffi.NULL else ""


@pytest.mark.parametrize("case", ["x1 int16", "out float16", "x1Scale", "k mismatch", "groupSize", "empty"])
def test_refusals(case):
    x1 = npx.asarray(_int8((4, 6)))
    x2 = npx.asarray(_int8((6, 3)))
    out = npx.empty((4, 3), dtype=np.int32)
    scale = npx.asarray(np.ones(3, np.float32))
    kwargs = {}
    if case == "x1 int16":
        x1 = npx.asarray(np.ones((4, 6), np.int16))
    elif case == "out float16":
        out = npx.empty((4, 3), dtype=np.float16)
    elif case == "x1Scale":
        kwargs["x1_scale"] = npx.asarray(np.ones(4, np.float32))
    elif case == "k mismatch":
        x2 = npx.asarray(_int8((5, 3)))
    elif case == "groupSize":
        kwargs["group"] = 128
    else:
        x1, out = npx.asarray(_int8((0, 6))), npx.empty((0, 3), dtype=np.int32)
    rc, message = _first_phase(x1, x2, out, scale, **kwargs)
    assert rc == 161002 and "aclnnQuantMatmulV5" in message
    assert _first_phase(npx.asarray(_int8((4, 6))), npx.asarray(_int8((6, 3))),
                        npx.empty((4, 3), dtype=np.int32), scale)[0] == 0


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return []


# NPUSIM_QMM_KERNEL forces one of npusim's three int8 paths; each needs these CPU flags.
_PATH_FLAGS = {"portable": (), "vnni": ("avx512_vnni", "avx512bw"), "amx": ("amx_tile", "amx_int8")}


@pytest.fixture(params=sorted(_PATH_FLAGS))
def kernel_path(request, monkeypatch):
    missing = [f for f in _PATH_FLAGS[request.param] if f not in _cpu_flags()]
    if missing:
        pytest.skip("the %s path needs CPU flags %s, which this CPU lacks" % (request.param, ", ".join(missing)))
    monkeypatch.setenv("NPUSIM_QMM_KERNEL", request.param)
    return request.param


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (17, 63, 31), (33, 65, 33), (97, 1100, 70), (200, 2050, 96)])
def test_each_path_is_exact(kernel_path, m, k, n):
    # k beyond one k block (512 on VNNI), m and n beyond one block, ragged edges
    a, b = _int8((m, k)), _int8((k, n))
    out = npx.empty((m, n), dtype=np.int32)
    np.testing.assert_array_equal(_launch(npx.asarray(a), npx.asarray(b), out), _exact(a, b))


def test_each_path_batched_strided_with_bias(kernel_path):
    a, b = _int8((2, 1, 40, 130)), _int8((3, 130, 50))
    bias = RNG.integers(-1000, 1000, 50, dtype=np.int32)
    out = npx.empty((2, 3, 40, 50), dtype=np.int32)
    np.testing.assert_array_equal(_launch(npx.asarray(a), npx.asarray(b), out, bias=npx.asarray(bias)),
                                  _exact(a, b) + bias)
    big = _int8((130, 100))
    got = _launch(npx.asarray(a[0, 0]), npx.asarray(big)[:, ::2], npx.empty((40, 50), dtype=np.int32))
    np.testing.assert_array_equal(got, _exact(a[0, 0], big[:, ::2]))


@pytest.mark.parametrize("m,k,n", [(544, 4160, 96), (544, 4160, 100), (288, 128, 64)])
def test_each_path_accumulates_in_a_strided_out(kernel_path, m, k, n):
    # rows beyond one AMX task (256) with a short last task, k beyond one AMX k block (4096:
    # the accumulators reloaded from out), whole and ragged panels, into an out whose rows
    # are wider than n (AMX accumulates whole blocks in out itself, at out's row stride)
    a, b = _int8((m, k)), _int8((k, n))
    wide = npx.asarray(np.full((m, n + 40), 7, np.int32))
    got = _launch(npx.asarray(a), npx.asarray(b), wide[:, 24:24 + n])
    np.testing.assert_array_equal(got, _exact(a, b))
    rest = wide.to_host()
    assert np.all(rest[:, :24] == 7) and np.all(rest[:, 24 + n:] == 7)


@pytest.mark.parametrize("m,k,n", [(32, 64, 32), (64, 1152, 40), (96, 2048, 100)])
def test_each_path_whole_blocks_read_in_place(kernel_path, m, k, n):
    # rows of 32 and k of 64 multiples (AMX reads x1's rows as tiles, unpacked), also as the
    # tail of wider rows (a row stride beyond k) and batched over a broadcast x1
    wide = _int8((m, k + 192))
    a, b = wide[:, 192:], _int8((k, n))
    got = _launch(npx.asarray(wide)[:, 192:], npx.asarray(b), npx.empty((m, n), dtype=np.int32))
    np.testing.assert_array_equal(got, _exact(a, b))
    batch = _int8((3, k, n))
    got = _launch(npx.asarray(a.copy()), npx.asarray(batch), npx.empty((3, m, n), dtype=np.int32))
    np.testing.assert_array_equal(got, _exact(a, batch))


def test_each_path_wraps_like_the_cube_unit(kernel_path):
    # |sum| = 2^31 + 2^14 at k = 131073 of (-128)(-128): wraps modulo 2^32 as int32 accumulators do
    k = 131073
    a, b = np.full((2, k), -128, np.int8), np.full((k, 2), -128, np.int8)
    got = _launch(npx.asarray(a), npx.asarray(b), npx.empty((2, 2), dtype=np.int32))
    np.testing.assert_array_equal(got, np.full((2, 2), (k * 16384 + 2 ** 31) % 2 ** 32 - 2 ** 31, np.int64))


def test_unknown_kernel_path_is_refused(monkeypatch):
    monkeypatch.setenv("NPUSIM_QMM_KERNEL", "sse2")
    a = npx.asarray(_int8((4, 6)))
    with pytest.raises(npx.AclError, match="NPUSIM_QMM_KERNEL must be amx, vnni or portable"):
        _launch(a, npx.asarray(_int8((6, 3))), npx.empty((4, 3), dtype=np.int32))


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["release", "asan", "tsan"])
def test_c_program_on_every_path(variant):
    """The C program tests/npusim/c/aclnn_quant_matmul.cpp: exact products on each path this CPU runs, with
    no leak, overrun (asan) or data race among the worker threads (tsan)."""
    try:
        exe = build_c_program(C_DIR / "aclnn_quant_matmul.cpp", cxx=True, variant=variant)
    except BuildError as exc:
        if variant != "release" and "cannot find" in str(exc) and variant in str(exc):
            pytest.skip("the %s sanitizer runtime library is not installed: %s" % (variant, str(exc)[-200:]))
        raise
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600, env=program_env(), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "aclnn_quant_matmul ok" in proc.stdout
    assert "portable path: checked" in proc.stdout
