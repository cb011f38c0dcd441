"""aclnnBernoulli, aclnnBernoulliTensor, aclnnInplaceBernoulli and aclnnInplaceBernoulliTensor
(hicann/ops-math random/dsa_gen_bit_mask/docs/aclnnBernoulli&aclnnInplaceBernoulli.md) through
npuarray's launcher: the law (chi-square), p = 0 and 1 exactly, broadcast probabilities,
every documented dtype, reproducibility by (seed, offset), and the documented errors."""
import numpy as np
import pytest
from scipy import stats

import npuarray as npx
from npuarray import _acl, runtime
from npuarray._core import _ops

ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID = 161001, 161002
DTYPES = [np.float16, np.float32, np.float64, np.uint8, np.int8, np.int16, np.int32, np.int64,
          np.bool_]


def empty(shape, dtype):
    device = npx.Device(0)
    return _ops.empty(shape, np.dtype(dtype), device, runtime.get_current_stream(device))


def scalar(p, dtype=np.float32):
    return _ops.acl_scalar(p, np.dtype(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_bernoulli_scalar_law_in_every_dtype(dtype):
    n, p = 200_000, 0.3
    self, out = empty((n,), dtype), empty((n,), dtype)
    _ops.launch("aclnnBernoulli", self, scalar(p), 7, 0, out)
    x = npx.asnumpy(out).astype(np.float64)
    assert set(np.unique(x)) <= {0.0, 1.0}
    ones = int(x.sum())
    assert stats.binomtest(ones, n, p).pvalue > 1e-3


@pytest.mark.parametrize("p", [0.0, 1.0])
def test_bernoulli_extreme_probabilities_are_exact(p):
    out = empty((5000,), np.float32)
    _ops.launch("aclnnInplaceBernoulli", out, scalar(p, np.float64), 1, 0)
    np.testing.assert_array_equal(npx.asnumpy(out), np.full(5000, p, dtype=np.float32))


def test_bernoulli_tensor_broadcasts_probabilities():
    prob = npx.asarray(np.array([0.0, 0.1, 0.5, 0.9, 1.0]))
    self, out = empty((40_000, 5), np.int32), empty((40_000, 5), np.int32)
    _ops.launch("aclnnBernoulliTensor", self, prob, 3, 0, out)
    x = npx.asnumpy(out)
    assert np.all(x[:, 0] == 0) and np.all(x[:, 4] == 1)
    for column, p in ((1, 0.1), (2, 0.5), (3, 0.9)):
        assert stats.binomtest(int(x[:, column].sum()), x.shape[0], p).pvalue > 1e-3


def test_inplace_bernoulli_tensor_on_a_strided_view_matches_contiguous():
    prob = npx.asarray(np.linspace(0.0, 1.0, 64, dtype=np.float32).reshape(8, 8))
    contiguous = empty((8, 8), np.float64)
    _ops.launch("aclnnInplaceBernoulliTensor", contiguous, prob, 11, 5)
    storage = empty((8, 16), np.float64)
    strided = storage[:, ::2]
    _ops.launch("aclnnInplaceBernoulliTensor", strided, prob, 11, 5)
    np.testing.assert_array_equal(npx.asnumpy(strided), npx.asnumpy(contiguous))


def test_same_seed_and_offset_same_draws_and_offset_moves_by_four():
    def draw(n, offset):
        out = empty((n,), np.float32)
        _ops.launch("aclnnInplaceBernoulli", out, scalar(0.5), 99, offset)
        return npx.asnumpy(out)
    a = draw(100_004, 0)
    np.testing.assert_array_equal(draw(100_004, 0), a)
    np.testing.assert_array_equal(draw(100_000, 1), a[4:])  # one counter per four values


def test_bernoulli_documented_errors():
    out = empty((4,), np.float32)
    for bad_p in (-0.1, 1.5, float("nan")):
        with pytest.raises(_acl.AclError) as info:
            _ops.launch("aclnnInplaceBernoulli", out, scalar(bad_p, np.float64), 0, 0)
        assert info.value.code == ACLNN_ERR_PARAM_INVALID
    with pytest.raises(_acl.AclError) as info:  # self and out of different dtypes
        _ops.launch("aclnnBernoulli", empty((4,), np.float64), scalar(0.5), 0, 0, out)
    assert info.value.code == ACLNN_ERR_PARAM_INVALID
    with pytest.raises(_acl.AclError) as info:  # self and out of different shapes
        _ops.launch("aclnnBernoulli", empty((5,), np.float32), scalar(0.5), 0, 0, out)
    assert info.value.code == ACLNN_ERR_PARAM_INVALID
    with pytest.raises(_acl.AclError) as info:  # an integer prob
        _ops.launch("aclnnInplaceBernoulli", out, _ops.acl_scalar(1, np.dtype(np.int32)), 0, 0)
    assert info.value.code == ACLNN_ERR_PARAM_INVALID
    with pytest.raises(_acl.AclError) as info:  # prob not broadcasting to out
        _ops.launch("aclnnInplaceBernoulliTensor", out, npx.asarray(np.full(3, 0.5)), 0, 0)
    assert info.value.code == ACLNN_ERR_PARAM_INVALID
    with pytest.raises(_acl.AclError) as info:  # an integer prob tensor
        _ops.launch("aclnnInplaceBernoulliTensor", out, npx.asarray(np.ones(4, np.int32)), 0, 0)
    assert info.value.code == ACLNN_ERR_PARAM_INVALID


def test_bernoulli_tensor_with_a_probability_outside_0_1_fails_the_launch():
    out = empty((4,), np.float32)
    _ops.launch("aclnnInplaceBernoulliTensor", out, npx.asarray(np.array([0.5, 1.5, 0.2, 0.1])),
                0, 0)
    with pytest.raises(_acl.AclError, match=r"prob\[1\]"):
        npx.get_current_stream().synchronize()
