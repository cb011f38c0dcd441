"""Operators on non-default streams: the same computations on two streams at once
(from two threads and interleaved from one), results produced on one stream and
consumed on another, and non-blocking downloads read after synchronising."""
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _elementwise as ew
from npuarray._core._linear_algebra import matmul
from npuarray._core._searching import argmax
from npuarray._core._statistical import sum as npx_sum
from test_elementwise import assert_matches, random_array


def chain(x, w):
    """A few dependent operators of every family."""
    y = ew.exp(ew.multiply(matmul(x, w), 0.01))
    z = ew.where(ew.greater(y, 1.0), ew.sqrt(y), ew.negative(y))
    return npx_sum(z, axis=0), argmax(z, axis=1)


def chain_host(a, w):
    y = np.exp((a @ w) * np.float32(0.01))
    z = np.where(y > 1.0, np.sqrt(y), -y)
    return z.sum(axis=0), z.argmax(axis=1)


def test_two_streams_at_once_from_two_threads(rng):
    inputs = [(random_array(rng, (64, 48), "float32"), random_array(rng, (48, 32), "float32"))
              for _ in range(2)]
    results, errors = [None, None], []

    def work(i):
        try:
            with npx.Stream() as stream:
                x, w = npx.asarray(inputs[i][0]), npx.asarray(inputs[i][1])
                outs = []
                for _ in range(5):
                    outs.append(chain(x, w))
                stream.synchronize()
                results[i] = outs
        except Exception as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    for i in range(2):
        sums, idx = chain_host(*inputs[i])
        for s, a in results[i]:
            np.testing.assert_allclose(s.to_host(), sums, rtol=1e-4, atol=1e-4)
            assert_matches(a, idx)


def test_interleaved_streams_from_one_thread(rng):
    a = random_array(rng, (1 << 16,), "float32")
    b = random_array(rng, (1 << 16,), "float32")
    s1, s2 = npx.Stream(), npx.Stream()
    with s1:
        x1 = npx.asarray(a)
    with s2:
        x2 = npx.asarray(b)
    acc1, acc2 = x1, x2
    for i in range(10):
        with s1:
            acc1 = ew.add(ew.multiply(acc1, 0.5), x1)
        with s2:
            acc2 = ew.subtract(ew.multiply(acc2, 0.5), x2)
    e1, e2 = a.copy(), b.copy()
    for i in range(10):
        e1 = e1 * np.float32(0.5) + a
        e2 = e2 * np.float32(0.5) - b
    with s1:
        h1 = acc1.to_host(blocking=False)
    with s2:
        h2 = acc2.to_host(blocking=False)
    s1.synchronize()
    s2.synchronize()
    np.testing.assert_allclose(h1, e1, rtol=1e-5)
    np.testing.assert_allclose(h2, e2, rtol=1e-5)


def test_result_of_one_stream_used_on_another(rng):
    a = random_array(rng, (256, 256), "float32")
    s1, s2 = npx.Stream(), npx.Stream()
    with s1:
        x = npx.asarray(a)
        y = matmul(x, x)            # queued on s1
        for _ in range(3):
            y = ew.add(y, 1.0)
    with s2:                        # s2 must wait for s1's work on y
        z = npx_sum(y, axis=1)
        host = z.to_host()
    np.testing.assert_allclose(host, (a @ a + 3).sum(axis=1), rtol=1e-4, atol=1e-2)


def test_non_blocking_download_after_synchronize(rng):
    a = random_array(rng, (1000,), "float64")
    with npx.Stream() as stream:
        x = ew.sqrt(ew.abs(npx.asarray(a)))
        host = x.to_host(blocking=False)
        stream.synchronize()
    np.testing.assert_allclose(host, np.sqrt(np.abs(a)))


def test_errors_on_a_stream_leave_it_usable(rng):
    a = random_array(rng, (8, 3), "float32")
    with npx.Stream() as stream:
        x = npx.asarray(a)
        with pytest.raises(ValueError):
            matmul(x, x)
        with pytest.raises(ValueError):
            ew.add(x, npx.asarray(np.ones(4, np.float32)))
        y = ew.add(x, 1.0)
        stream.synchronize()
        assert_matches(y, a + 1)
