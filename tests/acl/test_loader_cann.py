"""The CANN side of the loader, checked offline with a fake toolkit tree: which libraries it
opens and in which order, the ASCEND_OPP_PATH check of ``auto``, the reason reported by
``npuarray.backend()``, and the release of aclGetViewShape's C++ ``new[]`` array."""
import os
import subprocess
import sys

import pytest
from cffi import FFI

from npuarray._acl import _loader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _toolkit(tmp_path, names):
    libdir = tmp_path / "lib64"
    libdir.mkdir()
    for name in names:
        (libdir / name).write_bytes(b"not a shared object")
    return tmp_path


def _found(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path))
    root, paths = _loader.find_cann()
    assert root == str(tmp_path)
    return [os.path.basename(p) for p in paths]


def test_split_operator_libraries_are_all_opened_before_libopapi(tmp_path, monkeypatch):
    _toolkit(tmp_path, ["libascendcl.so", "libnnopbase.so", "libopapi.so", "libopapi_math.so",
                        "libopapi_nn.so", "libopapi_oam.so", "libopapi_legacy.so"])
    assert _found(tmp_path, monkeypatch) == [
        "libascendcl.so", "libnnopbase.so", "libopapi_legacy.so", "libopapi_math.so",
        "libopapi_nn.so", "libopapi_oam.so", "libopapi.so"]


def test_only_split_libraries(tmp_path, monkeypatch):
    _toolkit(tmp_path, ["libascendcl.so", "libnnopbase.so", "libopapi_math.so", "libopapi_cv.so"])
    assert _found(tmp_path, monkeypatch) == [
        "libascendcl.so", "libnnopbase.so", "libopapi_cv.so", "libopapi_math.so"]


def test_only_monolithic_libopapi(tmp_path, monkeypatch):
    _toolkit(tmp_path, ["libascendcl.so", "libnnopbase.so", "libopapi.so"])
    assert _found(tmp_path, monkeypatch) == ["libascendcl.so", "libnnopbase.so", "libopapi.so"]


def test_opp_path_problem(tmp_path, monkeypatch):
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    assert "ASCEND_OPP_PATH is not set" in _loader.opp_path_problem()
    monkeypatch.setenv("ASCEND_OPP_PATH", str(tmp_path / "missing"))
    assert "is not a directory" in _loader.opp_path_problem()
    monkeypatch.setenv("ASCEND_OPP_PATH", str(tmp_path))
    assert _loader.opp_path_problem() is None


def _backend_in_child(env):
    code = "import npuarray as n; b = n.backend(); print(b.name); print(b.reason)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def _child_env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("ASCEND_OPP_PATH", "ASCEND_TOOLKIT_HOME", "NPUARRAY_BACKEND")}
    env.update(ASCEND_HOME_PATH=str(tmp_path), PYTHONPATH=ROOT, **extra)
    return env


def test_auto_without_opp_path_falls_back_to_npusim_and_says_why(tmp_path):
    _toolkit(tmp_path, ["libascendcl.so", "libnnopbase.so", "libopapi.so"])
    name, reason = _backend_in_child(_child_env(tmp_path))
    assert name == "npusim"
    assert reason.startswith("CANN unusable: toolkit found at %s but ASCEND_OPP_PATH is not set"
                             % tmp_path)


def test_auto_with_unusable_toolkit_falls_back_to_npusim_and_says_why(tmp_path):
    _toolkit(tmp_path, ["libascendcl.so", "libnnopbase.so", "libopapi.so"])
    name, reason = _backend_in_child(_child_env(tmp_path, ASCEND_OPP_PATH=str(tmp_path)))
    assert name == "npusim"
    assert reason.startswith("CANN unusable: cannot open the CANN libraries")


def test_cxx_array_delete_releases_new_array_memory():
    # Allocate as CANN does (operator new[], _Znam) and release through the loader's helper.
    cxx = FFI()
    cxx.cdef("void *_Znam(size_t);")
    new_array = cxx.dlopen("libstdc++.so.6")._Znam
    ffi = FFI()
    delete = _loader.cxx_array_delete(ffi)
    addresses = set()
    for _ in range(1000):
        ptr = new_array(64 * 8)
        address = int(cxx.cast("uintptr_t", ptr))
        addresses.add(address)
        ffi.cast("int64_t *", address)[63] = 7
        delete(ffi.cast("void *", address))
    # Released blocks are handed out again: 1000 leaked blocks would have 1000 addresses.
    assert len(addresses) < 10


def test_npusim_view_shape_release_is_free():
    import npuarray as npx
    from npuarray._acl import lib
    assert npx.backend().name == "npusim"
    assert lib.npuarray_free_dims is lib.free


@pytest.mark.parametrize("shape", [(0,), (3, 4), ()])
def test_view_shape_roundtrip_after_release(shape):
    import numpy as np
    import npuarray as npx
    from npuarray._core import _ops
    x = npx.asarray(np.ones(shape, dtype=np.float32))
    assert _ops.view_shape(x) == shape
