"""Chooses and loads the provider of the AscendCL ABI: the CANN toolkit or npusim.

``NPUARRAY_BACKEND`` = ``auto`` (default) | ``cann`` | ``npusim``. ``auto`` loads
CANN when a toolkit is found (``ASCEND_HOME_PATH``, ``ASCEND_TOOLKIT_HOME``,
``/usr/local/Ascend/ascend-toolkit/latest``, ``/usr/local/Ascend/cann``) and a
device initialises, else npusim. CANN is opened in cffi ABI mode
(``libascendcl.so``, ``libnnopbase.so``, then every per-domain ``libopapi_*.so``
present and ``libopapi.so``, in that order as torch_npu does) and each function is
looked up on first use; ``auto`` refuses CANN when ``ASCEND_OPP_PATH`` (set by the
toolkit's ``set_env.sh``) does not name the operator directory, since every aclnn
operator would then fail with 561107; npusim is the
API-mode extension ``npuarray._npusim`` built from ``kernels/``. Both expose the
same ``lib`` functions; one missing in the loaded provider raises
NotSupportedError when called.
"""
import glob
import importlib.machinery
import importlib.util
import os
import re
import sys
from dataclasses import dataclass

from . import _cdef_aclnn, _cdef_blas, _cdef_fft, _cdef_runtime
from ._errors import NotSupportedError, make_error

CANN_ROOTS_ENV = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
CANN_ROOTS_DEFAULT = ("/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/cann")
CANN_RUNTIME_LIBS = ("libascendcl.so", "libnnopbase.so")
CANN_OPAPI_LIB = "libopapi.so"
CANN_OPAPI_DOMAIN_GLOB = "libopapi_*.so"   # math, nn, cv, transformer, oam, legacy, ...
# CANN's FFT and BLAS libraries (hicann/ops-fft, hicann/ops-blas), when installed
CANN_LIBRARY_LIBS = ("libcann_ops_fft.so", "libops_blas.so",
                     "libacl_dvpp.so", "libacl_dvpp_mpi.so")   # DVPP memory (pyACL's acl.media, acl.himpi)
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_API_NOT_SUPPORT = 200001


class BackendError(RuntimeError):
    """The provider asked for with NPUARRAY_BACKEND cannot be loaded."""


@dataclass(frozen=True)
class Backend:
    """Which provider of the AscendCL ABI is loaded.

    ``name`` is "npusim" or "cann"; ``library`` the paths of the shared objects
    loaded; ``version`` the (major, minor, patch) of aclrtGetVersion; ``reason``
    why this provider was chosen.
    """
    name: str
    library: tuple
    version: tuple
    reason: str


def _unavailable(name, where):
    def call(*args, **kwargs):
        raise NotSupportedError(ACL_ERROR_API_NOT_SUPPORT, name,
                                "%s is not available in %s" % (name, where))
    call.__name__ = name
    call.npuarray_unavailable = True
    return call


class _NpusimLib:
    """npusim's functions as plain attributes: an instance-dict lookup is the fastest
    attribute access for the hot launch path. The build guarantees every declared
    function exists."""

    def __init__(self, lib):
        self.__dict__.update((name, getattr(lib, name)) for name in dir(lib))


class _CannLib:
    """CANN functions looked up across the opened libraries on first use, then cached; a
    declared function none of them exports becomes a NotSupportedError stub."""

    def __init__(self, libs, paths, declared):
        self._libs = libs
        self._paths = paths
        self._declared = frozenset(declared)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        for lib in self._libs:
            try:
                value = getattr(lib, name)
            except (AttributeError, NotImplementedError):
                continue
            setattr(self, name, value)
            return value
        if name not in self._declared:
            raise AttributeError("%r is not declared in npuarray's ACL cdef" % name)
        value = _unavailable(name, "this CANN version (looked in %s)" % ", ".join(self._paths))
        setattr(self, name, value)
        return value


def _full_cdef():
    return "\n".join((_cdef_runtime.CDEF, _cdef_aclnn.CDEF, _cdef_fft.CDEF, _cdef_blas.CDEF))


def _declared_functions(cdef):
    """Names of the functions a cdef declares (a light scan: pycparser costs 0.2 s at import)."""
    text = re.sub(r"/\*.*?\*/", "", cdef, flags=re.DOTALL)
    names = []
    for statement in text.split(";"):
        if "typedef" in statement or "{" in statement or "}" in statement:
            continue
        match = re.search(r"\b([A-Za-z_]\w*)\s*\(", statement)
        if match:
            names.append(match.group(1))
    return names


def _set_blas_library():
    """npusim's matmul dlopens OpenBLAS from NPUSIM_BLAS_LIBRARY (scipy-openblas32's by default).

    OpenBLAS's threads spin for about 2**28 cycles after each call before they sleep,
    holding the cores npusim's other kernels and stream workers need (a k-means step
    went from 1.7 ms to 9 ms, with 60 ms outliers); OPENBLAS_THREAD_TIMEOUT=4 (its
    minimum) lets them sleep at once. NumPy's own OpenBLAS, loaded before, keeps its
    setting."""
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    if os.environ.get("NPUSIM_BLAS_LIBRARY"):
        return
    try:
        import scipy_openblas32
    except ImportError:
        return  # matmul then reports a clear error from npusim itself
    os.environ["NPUSIM_BLAS_LIBRARY"] = os.path.join(scipy_openblas32.get_lib_dir(),
                                                     "libscipy_openblas.so")


def _version(lib, ffi):
    v = ffi.new("int32_t[3]")
    try:
        if lib.aclrtGetVersion(v, v + 1, v + 2) != 0:
            return (0, 0, 0)
    except NotSupportedError:
        return (0, 0, 0)
    return (v[0], v[1], v[2])


def _init(lib, ffi):
    """aclInit once per process; a repeated initialisation (someone else did it) is fine."""
    ret = lib.aclInit(ffi.NULL)
    if ret not in (0, ACL_ERROR_REPEAT_INITIALIZE):
        # The runtime's message names the cause (e.g. the bad environment variable).
        text = lib.aclGetRecentErrMsg()
        raise make_error(ret, "aclInit", "" if text == ffi.NULL else
                         ffi.string(text).decode("utf-8", "replace"))


def _load_extension_from(path):
    """Loads the npusim extension at `path` as ``npuarray._npusim`` (a sanitizer build, see
    ``_build_npusim.build_sanitized``), in place of the package's own."""
    loader = importlib.machinery.ExtensionFileLoader("npuarray._npusim", path)
    spec = importlib.util.spec_from_file_location("npuarray._npusim", path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules["npuarray._npusim"] = module


def load_npusim(reason):
    _set_blas_library()
    if os.environ.get("NPUARRAY_NPUSIM_EXTENSION"):
        _load_extension_from(os.environ["NPUARRAY_NPUSIM_EXTENSION"])
    try:
        # The simulator is a compiled module that may not be built (CANN needs none):
        # loaded only when npusim is the provider, so its absence is reported here.
        from .. import _npusim
    except ImportError as exc:
        raise BackendError(
            "npusim is not built (%s). Build it in place with "
            "`python npuarray/_acl/_build_npusim.py`, or install with `pip install .`" % exc
        ) from exc
    lib = _NpusimLib(_npusim.lib)
    lib.npuarray_free_dims = lib.free   # npusim's aclGetView* arrays come from malloc
    _init(lib, _npusim.ffi)
    backend = Backend("npusim", (os.path.abspath(_npusim.__file__),), _version(lib, _npusim.ffi),
                      reason)
    return backend, _npusim.ffi, lib


def cann_roots():
    """Candidate toolkit roots, in the order the loader tries them."""
    roots = [os.environ[v] for v in CANN_ROOTS_ENV if os.environ.get(v)]
    return roots + list(CANN_ROOTS_DEFAULT)


def find_cann():
    """(root, [library paths]) of the first toolkit with libascendcl.so, or None."""
    for root in cann_roots():
        libdir = os.path.join(root, "lib64")
        if not os.path.exists(os.path.join(libdir, "libascendcl.so")):
            continue
        paths = [os.path.join(libdir, name) for name in CANN_RUNTIME_LIBS]
        # The split operator libraries first, then the monolithic one (deprecated since
        # CANN 9.0.0): torch_npu's order, so an operator moved out of libopapi.so is found.
        paths += sorted(glob.glob(os.path.join(libdir, CANN_OPAPI_DOMAIN_GLOB)))
        paths.append(os.path.join(libdir, CANN_OPAPI_LIB))
        paths += [os.path.join(libdir, n) for n in CANN_LIBRARY_LIBS
                  if os.path.exists(os.path.join(libdir, n))]
        return root, [p for p in paths if os.path.exists(p)]
    return None


def opp_path_problem():
    """Why the CANN operators cannot be used from this environment, or None: without
    ASCEND_OPP_PATH (set by set_env.sh) every aclnn call fails with 561107."""
    opp = os.environ.get("ASCEND_OPP_PATH")
    if not opp:
        return ("ASCEND_OPP_PATH is not set (source the toolkit's set_env.sh); "
                "every aclnn operator would fail with 561107")
    if not os.path.isdir(opp):
        return "ASCEND_OPP_PATH=%s is not a directory" % opp
    return None


def cxx_array_delete(ffi):
    """A function releasing memory that CANN allocated with C++ ``new[]``: aclGetViewShape
    and aclGetViewStrides allocate their result that way (hicann/opbase
    src/nnopbase/common/api/acl_op_api.cpp), so free() must not release it."""
    from cffi import FFI  # cffi's ABI mode serves CANN only (npusim's extension has its ffi)
    cxx = FFI()
    cxx.cdef("void _ZdaPv(void *);")   # operator delete[](void *), Itanium C++ ABI
    delete = cxx.dlopen("libstdc++.so.6")._ZdaPv
    return lambda ptr: delete(cxx.cast("void *", int(ffi.cast("uintptr_t", ptr))))


def load_cann(found):
    """Opens the toolkit's libraries and initialises a device; raises BackendError if it cannot."""
    from cffi import FFI  # cffi's ABI mode serves CANN only (npusim's extension has its ffi)
    root, paths = found
    cdef = _full_cdef()
    ffi = FFI()
    ffi.cdef(cdef)
    try:
        # RTLD_LAZY as torch_npu does: CANN libraries resolve some symbols only when used.
        libs = [ffi.dlopen(path, ffi.RTLD_LAZY | ffi.RTLD_GLOBAL) for path in paths]
    except OSError as exc:
        raise BackendError("cannot open the CANN libraries in %s (was the toolkit's set_env.sh "
                           "sourced, for LD_LIBRARY_PATH?): %s" % (root, exc)) from exc
    lib = _CannLib(libs, [os.path.basename(p) for p in paths], _declared_functions(cdef))
    try:
        _init(lib, ffi)
        count = ffi.new("uint32_t *")
        if lib.aclrtGetDeviceCount(count) != 0 or count[0] == 0:
            raise BackendError("CANN at %s found no NPU device" % root)
        ret = lib.aclrtSetDevice(0)
    except NotSupportedError as exc:
        raise BackendError("the library at %s is not a usable AscendCL runtime: %s"
                           % (paths[0], exc)) from exc
    if ret != 0:
        raise BackendError("CANN at %s cannot initialise device 0 (aclError %d)" % (root, ret))
    reason = "CANN toolkit found at %s with %d device(s), ASCEND_OPP_PATH=%s" % (
        root, count[0], os.environ.get("ASCEND_OPP_PATH"))
    lib.npuarray_free_dims = cxx_array_delete(ffi)
    return Backend("cann", tuple(paths), _version(lib, ffi), reason), ffi, lib


def load():
    """(Backend, ffi, lib) of the provider chosen by NPUARRAY_BACKEND."""
    choice = os.environ.get("NPUARRAY_BACKEND", "auto").strip().lower() or "auto"
    if choice not in ("auto", "cann", "npusim"):
        raise BackendError("NPUARRAY_BACKEND=%r: expected 'auto', 'cann' or 'npusim'" % choice)
    if choice == "npusim":
        return load_npusim("NPUARRAY_BACKEND=npusim")
    found = find_cann()
    if choice == "cann":
        if found is None:
            raise BackendError(
                "NPUARRAY_BACKEND=cann but no CANN toolkit was found (looked for "
                "lib64/libascendcl.so under %s); source the toolkit's set_env.sh or set "
                "ASCEND_HOME_PATH" % ", ".join(cann_roots()))
        return load_cann(found)
    if found is None:
        return load_npusim("no CANN toolkit found (looked in %s)" % ", ".join(cann_roots()))
    problem = opp_path_problem()
    if problem:
        return load_npusim("CANN unusable: toolkit found at %s but %s" % (found[0], problem))
    try:
        return load_cann(found)
    except BackendError as exc:
        return load_npusim("CANN unusable: %s" % exc)
