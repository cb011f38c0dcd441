"""Binary ufuncs' ``out=``: one launch of the operator straight into ``out`` when that is
exactly NumPy's result (same dtype, operands broadcasting to out's shape, one device, out
either apart from the operands or the very same view), else the result computed and copied
into ``out`` (casts, overlaps, negative steps): both give what NumPy gives."""
import numpy as np
import pytest

import npuarray as npx

NAMES = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "equal", "not_equal",
         "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or"]


def launches(fn):
    """The operator launches and copies ``fn()`` makes, and its result."""
    with npx.profile() as prof:
        result = fn()
    return [r.name for r in prof.records], result


def numpy_into(name, a, b, out):
    with np.errstate(divide="ignore", invalid="ignore"):
        getattr(np, name)(a, b, out=out)
    return out


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_out_of_the_result_dtype_is_written_by_one_launch(name, dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((64, 33)) * 50).astype(dtype)
    b = (rng.standard_normal((64, 33)) * 50).astype(dtype) + (dtype == np.int32)
    want_dtype = np.result_type(getattr(np, name)(a[:1, :1], b[:1, :1]))
    out_host = np.zeros((64, 33), dtype=want_dtype)
    out = npx.asarray(out_host)
    x, y = npx.asarray(a), npx.asarray(b)
    names, result = launches(lambda: getattr(npx, name)(x, y, out=out))
    assert result is out
    if not (name == "divide" and dtype == np.int32):  # (int32 / int32 computes in float64: cast first)
        assert len(names) == 1 and names[0].startswith("aclnn"), names
    np.testing.assert_array_equal(out.to_host(), numpy_into(name, a, b, out_host))


def test_add_into_out_is_one_pass_not_two():
    a, b = npx.ones(1 << 16, dtype=np.float32), npx.full(1 << 16, 2.0, dtype=np.float32)
    out = npx.empty(1 << 16, dtype=np.float32)
    names, _ = launches(lambda: npx.add(a, b, out=out))
    assert names == ["aclnnAdd"]
    names, _ = launches(lambda: npx.add(a, b, out))  # positional out
    assert names == ["aclnnAdd"]
    np.testing.assert_array_equal(out.to_host(), np.full(1 << 16, 3.0, dtype=np.float32))


@pytest.mark.parametrize("call, op", [(lambda m, x, o: m.multiply(x, 2.5, out=o), "aclnnMuls"),
                                      (lambda m, x, o: m.add(3, x, out=o), "aclnnAdds"),
                                      (lambda m, x, o: m.subtract(1.5, x, out=o), "aclnnRsubs"),
                                      (lambda m, x, o: m.less(x, 0.25, out=o), "aclnnLtScalar")])
def test_array_and_python_scalar_into_out(call, op):
    host = np.linspace(-3, 3, 1001)
    x = npx.asarray(host)
    out = npx.empty(host.shape, dtype=np.bool_ if op == "aclnnLtScalar" else np.float64)
    names, result = launches(lambda: call(npx, x, out))
    assert names == [op] and result is out
    want = np.empty(host.shape, dtype=out.dtype)
    call(np, host, want)
    np.testing.assert_array_equal(out.to_host(), want)


def test_out_aliasing_an_input_is_written_in_place():
    host = np.arange(12.0).reshape(3, 4)
    x = npx.asarray(host)
    names, result = launches(lambda: npx.multiply(x, x, out=x))
    assert names == ["aclnnMul"] and result is x
    np.testing.assert_array_equal(x.to_host(), host * host)
    y = npx.asarray(np.ones(4))
    names, _ = launches(lambda: npx.subtract(x, y, out=x))  # out is the first input, y broadcast
    assert names == ["aclnnSub"]
    np.testing.assert_array_equal(x.to_host(), host * host - 1)


def test_out_partly_overlapping_an_input_is_computed_apart():
    host = np.arange(10.0)
    x = npx.asarray(host)
    names, _ = launches(lambda: npx.add(x[:-1], x[1:], out=x[1:]))
    assert "aclnnInplaceCopy" in names  # the result first, then copied
    np.add(host[:-1], host[1:], out=host[1:])
    np.testing.assert_array_equal(x.to_host(), host)


def test_operands_broadcasting_to_a_larger_out():
    a, b = np.arange(5.0), np.arange(3.0).reshape(3, 1)
    out_host = np.zeros((2, 3, 5))
    out, x, y = npx.asarray(out_host), npx.asarray(a), npx.asarray(b)
    names, _ = launches(lambda: npx.add(x, y, out=out))
    assert names == ["aclnnAdd"]
    np.testing.assert_array_equal(out.to_host(), np.add(a, b, out=out_host))


def test_strided_out_and_operands():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((40, 60)), rng.standard_normal((60, 40))
    out_host = np.zeros((40, 120))
    out, x, y = npx.asarray(out_host), npx.asarray(a), npx.asarray(b)
    names, _ = launches(lambda: npx.multiply(x[:, ::2], y.T[:, 1::2], out=out[:, ::4]))
    assert names == ["aclnnMul"]
    np.multiply(a[:, ::2], b.T[:, 1::2], out=out_host[:, ::4])
    np.testing.assert_array_equal(out.to_host(), out_host)


def test_negative_steps_fall_back():
    host = np.arange(8.0)
    x = npx.asarray(host)
    out = npx.zeros(8)
    npx.add(x[::-1], 1.0, out=out)
    np.testing.assert_array_equal(out.to_host(), host[::-1] + 1)
    out2 = npx.zeros(8)
    npx.add(x, x, out=out2[::-1])
    np.testing.assert_array_equal(out2.to_host(), (host + host)[::-1])


@pytest.mark.parametrize("a_dtype, b_dtype, out_dtype", [(np.float32, np.float32, np.float64),
                                                         (np.int32, np.int32, np.float32),
                                                         (np.float64, np.int32, np.float32),
                                                         (np.int8, np.int8, np.int16)])
def test_out_of_another_dtype_casts_the_result(a_dtype, b_dtype, out_dtype):
    a, b = np.arange(1, 50).astype(a_dtype), np.arange(50, 99).astype(b_dtype)
    out_host = np.zeros(49, dtype=out_dtype)
    out = npx.asarray(out_host)
    names, _ = launches(lambda: npx.multiply(npx.asarray(a), npx.asarray(b), out=out))
    assert len(names) > 1  # computed, then cast into out
    np.testing.assert_array_equal(out.to_host(), np.multiply(a, b, out=out_host))


def test_out_refusing_the_cast_raises_type_error_like_numpy():
    a = npx.asarray(np.arange(4.0))
    with pytest.raises(TypeError):
        np.add(np.arange(4.0), np.arange(4.0), out=np.zeros(4, dtype=np.int32))
    with pytest.raises(TypeError, match="same_kind"):
        npx.add(a, a, out=npx.zeros(4, dtype=np.int32))


@pytest.mark.parametrize("out_shape", [(4,), (3, 2), (1, 3)])
def test_out_of_the_wrong_shape_raises_value_error_like_numpy(out_shape):
    a = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError):
        np.add(a, a, out=np.zeros(out_shape))
    with pytest.raises(ValueError):
        npx.add(npx.asarray(a), npx.asarray(a), out=npx.zeros(out_shape))


def test_out_on_another_device_raises_value_error():
    a = npx.asarray(np.arange(3.0))
    out = npx.zeros(3, device=1)
    with pytest.raises(ValueError, match="different devices"):
        npx.add(a, a, out=out)
    np.testing.assert_array_equal(out.to_host(), np.zeros(3))


def test_zero_dimensional_and_empty_outs():
    x = npx.asarray(np.float64(2.5))
    out = npx.asarray(np.float64(0))
    names, result = launches(lambda: npx.multiply(x, x, out=out))
    assert names == ["aclnnMul"] and result is out and float(out.to_host()) == 6.25
    empty = npx.zeros((0, 3))
    names, result = launches(lambda: npx.add(empty, 1.0, out=empty))
    assert names == [] and result is empty and empty.shape == (0, 3)


def test_where_and_dtype_keywords_keep_the_general_path():
    a = np.arange(6.0)
    out_host = np.full(6, -1.0)
    out = npx.asarray(out_host)
    mask = a > 2
    npx.add(npx.asarray(a), 1.0, out=out, where=npx.asarray(mask))
    np.testing.assert_array_equal(out.to_host(), np.add(a, 1.0, out=out_host, where=mask))
    out32 = npx.zeros(6, dtype=np.float32)
    npx.add(npx.asarray(a), npx.asarray(a), out=out32, dtype=np.float32)
    np.testing.assert_array_equal(out32.to_host(), np.add(a, a, out=np.zeros(6, np.float32), dtype=np.float32))


def test_numpy_scalar_operand_into_out():
    host = np.linspace(-2, 2, 101, dtype=np.float32)
    out = npx.empty(101, dtype=np.float32)
    npx.multiply(npx.asarray(host), np.float32(3), out=out)
    np.testing.assert_array_equal(out.to_host(), np.multiply(host, np.float32(3)))
    out64 = npx.empty(101, dtype=np.float64)
    npx.multiply(npx.asarray(host), np.float64(3), out=out64)  # NumPy scalars are strong: float64
    np.testing.assert_array_equal(out64.to_host(), np.multiply(host, np.float64(3)))
