"""Provider selection (NPUARRAY_BACKEND), npuarray.backend()/show_config(), and the ACL
exceptions: the code table, the class families, and pickling."""
import io
import pickle

import pytest

import npuarray as npx
from npuarray._acl import _errors, check, make_error


def test_backend_is_npusim_here():
    info = npx.backend()
    assert info.name == "npusim"
    assert info.library and info.library[0].endswith(".so")
    major, minor, patch = info.version
    assert (major, minor) >= (1, 0)
    assert info.reason


def test_show_config_lists_backend_and_devices():
    out = io.StringIO()
    npx.show_config(file=out)
    text = out.getvalue()
    assert "npuarray backend: npusim" in text
    assert "devices: %d" % npx.device_count() in text
    assert text.count("MiB free of") == npx.device_count()


def test_backend_npusim_explicitly(run_python):
    result = run_python("import npuarray as npx; b = npx.backend(); print(b.name, b.reason)",
                        NPUARRAY_BACKEND="npusim")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "npusim NPUARRAY_BACKEND=npusim"


def test_backend_cann_without_toolkit_is_a_clear_error(run_python, tmp_path):
    result = run_python("import npuarray", NPUARRAY_BACKEND="cann",
                        ASCEND_HOME_PATH=str(tmp_path), ASCEND_TOOLKIT_HOME=None)
    assert result.returncode != 0
    assert "BackendError" in result.stderr
    assert "no CANN toolkit was found" in result.stderr and str(tmp_path) in result.stderr


def test_backend_auto_falls_back_to_npusim(run_python, tmp_path):
    result = run_python("import npuarray as npx; b = npx.backend(); print(b.name, b.reason)",
                        NPUARRAY_BACKEND=None, ASCEND_HOME_PATH=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("npusim no CANN toolkit found")


def test_backend_unknown_value(run_python):
    result = run_python("import npuarray", NPUARRAY_BACKEND="cuda")
    assert result.returncode != 0
    assert "NPUARRAY_BACKEND='cuda'" in result.stderr


def test_cann_with_a_broken_toolkit_is_a_clear_error(run_python, tmp_path):
    """A toolkit directory whose libascendcl.so is not a library: a BackendError, no crash."""
    (tmp_path / "lib64").mkdir()
    (tmp_path / "lib64" / "libascendcl.so").write_bytes(b"not an ELF file")
    result = run_python("import npuarray", NPUARRAY_BACKEND="cann",
                        ASCEND_HOME_PATH=str(tmp_path))
    assert result.returncode != 0
    assert "BackendError" in result.stderr and "cannot open the CANN libraries" in result.stderr
    auto = run_python("import npuarray as npx; print(npx.backend().name, npx.backend().reason)",
                      NPUARRAY_BACKEND="auto", ASCEND_HOME_PATH=str(tmp_path))
    assert auto.returncode == 0, auto.stderr
    assert auto.stdout.startswith("npusim CANN unusable")


# -- exceptions ----------------------------------------------------------------------------

@pytest.mark.parametrize("code, cls, name", [
    (207001, npx.OutOfMemoryError, "ACL_ERROR_RT_MEMORY_ALLOCATION"),
    (207018, npx.OutOfMemoryError, "ACL_ERROR_RT_DEVICE_OOM"),
    (200000, npx.OutOfMemoryError, "ACL_ERROR_BAD_ALLOC"),
    (100000, npx.InvalidValueError, "ACL_ERROR_INVALID_PARAM"),
    (107000, npx.InvalidValueError, "ACL_ERROR_RT_PARAM_INVALID"),
    (107001, npx.InvalidValueError, "ACL_ERROR_RT_INVALID_DEVICEID"),
    (161001, npx.InvalidValueError, "ACLNN_ERR_PARAM_NULLPTR"),
    (161002, npx.InvalidValueError, "ACLNN_ERR_PARAM_INVALID"),
    (107027, npx.CaptureError, "ACL_ERROR_RT_STREAM_CAPTURED"),
    (107031, npx.CaptureError, "ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT"),
    (107041, npx.CaptureError, "ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC"),
    (507903, npx.CaptureError, "ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED"),
    (207000, npx.NotSupportedError, "ACL_ERROR_RT_FEATURE_NOT_SUPPORT"),
    (200001, npx.NotSupportedError, "ACL_ERROR_API_NOT_SUPPORT"),
    (100002, npx.AclError, "ACL_ERROR_REPEAT_INITIALIZE"),
    (507046, npx.AclError, "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT"),
])
def test_error_families_and_names(code, cls, name):
    exc = make_error(code, "aclrtSomething", "what went wrong")
    assert type(exc) is cls and isinstance(exc, npx.AclError)
    assert exc.code == code and exc.name == name
    assert exc.api == "aclrtSomething" and exc.message == "what went wrong"
    assert str(code) in str(exc) and name in str(exc) and "what went wrong" in str(exc)


def test_error_base_classes():
    assert issubclass(npx.OutOfMemoryError, MemoryError)
    assert issubclass(npx.InvalidValueError, ValueError)
    assert issubclass(npx.AclError, RuntimeError)


def test_capture_errors_explain_themselves():
    for code in (107024, 107025, 107026, 107027, 107028, 107029, 107030, 107031, 107032,
                 107036, 107038, 107041, 507903):
        exc = make_error(code, "aclmdlRICaptureEnd")
        assert isinstance(exc, npx.CaptureError)
        assert _errors.CAPTURE_MEANINGS[code] in str(exc)


def test_unknown_codes_keep_their_number():
    exc = make_error(999999, "aclrtX")
    assert type(exc) is npx.AclError and exc.code == 999999
    assert "999999" in exc.name


def test_every_reference_code_has_a_name():
    for code in [100000, 100001, 100002, 100037, 107000, 107001, 107002, 107019, 107035, 107045,
                 207000, 207001, 207018, 507000, 507046, 507047, 507903, 161001, 561103]:
        assert not _errors.error_name(code).startswith("ACL_ERROR_UNKNOWN"), code


@pytest.mark.parametrize("code", [207001, 100000, 107027, 207000, 100002])
def test_exceptions_pickle_round_trip(code):
    exc = make_error(code, "aclrtMemcpy", "count > destMax")
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc)
    assert (back.code, back.name, back.api, back.message) == (exc.code, exc.name, exc.api,
                                                              exc.message)
    assert str(back) == str(exc)


def test_check_passes_success_and_raises_failures():
    check(0, "aclrtX")
    with pytest.raises(npx.InvalidValueError) as info:
        check(107000, "aclrtX")
    assert info.value.code == 107000


def test_missing_functions_raise_not_supported():
    from npuarray._acl._loader import _unavailable
    stub = _unavailable("aclrtFutureCall", "this CANN version")
    with pytest.raises(npx.NotSupportedError) as info:
        stub()
    assert "aclrtFutureCall is not available in this CANN version" in str(info.value)
    assert info.value.code == 200001


def test_cann_loader_on_a_toolkit_layout(run_python, tmp_path):
    """The CANN path (ffi.dlopen, per-symbol lookup, ABI-mode cdef) against a toolkit tree
    whose libascendcl.so is npusim's standalone library: same ABI, so the runtime works."""
    from cbuild import build_library
    library = build_library()
    (tmp_path / "lib64").mkdir()
    (tmp_path / "lib64" / "libascendcl.so").symlink_to(library)
    code = """
import numpy as np
import npuarray as npx
from npuarray._acl import lib
info = npx.backend()
assert info.name == "cann" and info.library[0].endswith("libascendcl.so"), info
memory = npx.DeviceMemory(1 << 16)
data = np.arange(1 << 14, dtype=np.float32)
with npx.Stream() as s:
    memory.copy_from_host(data, blocking=False)
    out = memory.copy_to_host(np.zeros_like(data), blocking=False)
    s.synchronize()
assert (out == data).all()
assert npx._acl.available("aclrtMemcpyAsync")
print("ok", info.version)
"""
    result = run_python(code, NPUARRAY_BACKEND="cann", ASCEND_HOME_PATH=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok (1, ")


def test_cann_lookup_of_missing_and_undeclared_functions():
    """Per-symbol lookup: a declared function the libraries lack raises NotSupportedError
    when called (naming the libraries searched); an undeclared name is an AttributeError."""
    from cffi import FFI
    from npuarray._acl._loader import _CannLib
    ffi = FFI()
    ffi.cdef("int aclrtMalloc(void **devPtr, size_t size, int policy); size_t strlen(const char *);")
    libc = ffi.dlopen(None)
    lib = _CannLib([libc], ["libc"], ["aclrtMalloc", "strlen"])
    assert lib.strlen(b"abc") == 3                      # found, then cached
    assert lib.__dict__["strlen"] is lib.strlen
    with pytest.raises(npx.NotSupportedError) as info:
        lib.aclrtMalloc(ffi.NULL, 1, 0)
    assert "aclrtMalloc is not available in this CANN version (looked in libc)" in str(info.value)
    with pytest.raises(AttributeError):
        lib.aclrtMaloc


def test_library_without_the_runtime_falls_back(run_python, tmp_path):
    """A libascendcl.so that is a shared library but not AscendCL: a clear BackendError for
    NPUARRAY_BACKEND=cann, and npusim (with the reason) for auto."""
    import _cffi_backend  # any shared object that is not AscendCL will do
    (tmp_path / "lib64").mkdir()
    (tmp_path / "lib64" / "libascendcl.so").symlink_to(_cffi_backend.__file__)
    strict = run_python("import npuarray", NPUARRAY_BACKEND="cann", ASCEND_HOME_PATH=str(tmp_path))
    assert strict.returncode != 0
    assert "not a usable AscendCL runtime" in strict.stderr
    auto = run_python("import npuarray as npx; print(npx.backend().name, npx.backend().reason)",
                      NPUARRAY_BACKEND="auto", ASCEND_HOME_PATH=str(tmp_path))
    assert auto.returncode == 0, auto.stderr
    assert auto.stdout.startswith("npusim CANN unusable")
