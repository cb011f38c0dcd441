"""Correctness of the fast paths added for host overhead and throughput: the memoised aclTensors of operator results, the stream worker that
spins briefly before sleeping, and the streaming-store path of large contiguous
element-wise outputs. Each result is compared with NumPy."""
import time

import numpy as np

import npuarray as npx
from npuarray._core import _ops


def test_results_on_a_recycled_block_share_one_acl_tensor():
    x = npx.asarray(np.arange(16, dtype=np.float32))
    first = x + x
    handle, ptr = first._acl_tensor, first._buffer.ptr
    del first  # the block returns to the pool and is taken again, same shape and dtype
    second = x + x
    assert second._buffer.ptr == ptr
    assert second._acl_tensor is handle
    np.testing.assert_array_equal(second.to_host(), 2 * np.arange(16, dtype=np.float32))


def _described(handle):
    """(view shape, aclDataType) that an aclTensor describes."""
    lib, ffi = _ops.lib, _ops.ffi
    dims, count, dtype = ffi.new("int64_t **"), ffi.new("uint64_t *"), ffi.new("aclDataType *")
    assert lib.aclGetViewShape(handle, dims, count) == 0
    shape = [dims[0][i] for i in range(count[0])]
    lib.free(dims[0])
    assert lib.aclGetDataType(handle, dtype) == 0
    return shape, dtype[0]


def test_memoised_acl_tensor_is_per_shape_and_dtype():
    x = npx.asarray(np.arange(12, dtype=np.float32))
    y = x + x
    handle, ptr = y._acl_tensor, y._buffer.ptr
    del y
    w = x.astype(np.int32)  # same size class: the same block, another dtype
    assert w._buffer.ptr == ptr
    assert w._acl_tensor is not handle
    assert _described(w._acl_tensor) == ([12], 3)  # ACL_INT32
    np.testing.assert_array_equal(w.to_host(), np.arange(12, dtype=np.int32))
    del w
    z = npx.reshape(x + x, (3, 4))
    assert _described(_ops.acl_tensor(z)) == ([3, 4], 0)  # ACL_FLOAT
    np.testing.assert_array_equal(z.to_host(), 2 * np.arange(12, dtype=np.float32).reshape(3, 4))


def test_masked_select_does_not_change_a_shared_acl_tensor():
    # aclnnMaskedSelect rewrites its output tensor's shape; later results on the
    # same recycled block must still be described with their full shape.
    rng = np.random.default_rng(0)
    a = rng.standard_normal(64).astype(np.float32)
    x = npx.asarray(a)
    for _ in range(3):
        selected = x[x > 0]
        np.testing.assert_array_equal(selected.to_host(), a[a > 0])
        del selected
        np.testing.assert_array_equal((x + x).to_host(), a + a)
        np.testing.assert_array_equal(npx.arange(64, dtype=np.float32).to_host(),
                                      np.arange(64, dtype=np.float32))


def test_dependent_chain_with_pauses_longer_than_the_worker_spin():
    # Tasks arrive both while the stream worker spins and after it went to sleep.
    x = npx.asarray(np.zeros(16, np.float32))
    one = npx.asarray(np.ones(16, np.float32))
    stream = npx.get_current_stream()
    for i in range(200):
        x = x + one
        if i % 20 == 0:
            time.sleep(0.002)  # well beyond the worker's ~50 us spin
    stream.synchronize()
    np.testing.assert_array_equal(x.to_host(), np.full(16, 200, np.float32))


def test_work_from_many_streams_and_threads_completes():
    import threading
    errors = []

    def run(seed):
        try:
            with npx.Stream():
                a = np.random.default_rng(seed).standard_normal(1000).astype(np.float32)
                x = npx.asarray(a)
                y = x
                for _ in range(50):
                    y = y * 1.0 + x
                np.testing.assert_allclose(y.to_host(), 51 * a, rtol=1e-5)
        except Exception as exc:  # reported in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors


def test_large_contiguous_results_with_unaligned_and_in_place_outputs():
    # Large enough that each parallel chunk takes the streaming-store path.
    n = (1 << 22) + 3
    rng = np.random.default_rng(1)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    np.testing.assert_array_equal((x + y).to_host(), a + b)
    # Views starting one element in: destination not 16-byte aligned.
    np.testing.assert_array_equal((x[1:] * y[:-1]).to_host(), a[1:] * b[:-1])
    x += y  # in place: every element is read before it is written
    np.testing.assert_array_equal(x.to_host(), a + b)
    d = rng.standard_normal((1 << 21) + 5)
    z = npx.asarray(d)
    np.testing.assert_array_equal((z - 2.5).to_host(), d - 2.5)
    np.testing.assert_array_equal((z > 0).to_host(), d > 0)
