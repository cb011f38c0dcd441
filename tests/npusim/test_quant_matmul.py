"""aclnnQuantMatmulV5, INT8 x INT8 -> INT32 (hicann/ops-nn
matmul/quant_batch_matmul_v4/docs/aclnnQuantMatmulV5.md): exact against NumPy's int64
products, with bias, transposes, broadcast batches and strided inputs; the combinations npusim
does not implement are refused with ACLNN_ERR_PARAM_INVALID."""
import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops
from npuarray._acl import ffi, lib

RNG = np.random.default_rng(21)


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
