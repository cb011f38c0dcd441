"""Builds npusim, the CPU implementation of the AscendCL ABI, into the extension npuarray._npusim
(and, for in-place builds, npuarray._core._fastpath: ``build_fastpath_inplace``).

cffi API mode: the extension compiles every ``kernels/runtime/*.c`` and
``kernels/ops/*.c`` together with the cdef of ``_cdef_runtime`` and
``_cdef_aclnn``. Two ways in:

* ``setup.py`` (``pip install .`` / ``pip install -e .``) imports ``ffibuilder``;
* ``python npuarray/_acl/_build_npusim.py`` builds in place, next to the package,
  recompiling only the kernel sources that changed, so ``import npuarray`` works
  from the repository without pip.

npuarray's own C helpers (``_launch.c``: the two phases of an operator in
one call, for either provider) are compiled into the same extension, with their
declarations (``_cdef_launch``) kept out of the shared ACL cdef.

Every function the cdef declares must be defined by a kernel source: the build
stops with the list of missing ones (an API-mode module with a missing symbol
would otherwise only fail at import).
"""
import fcntl
import glob
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig

from cffi import FFI

ACL_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(ACL_DIR))
KERNELS = os.path.join(ROOT, "kernels")
INCLUDE_DIRS = [os.path.join(KERNELS, "include"), os.path.join(KERNELS, "runtime"), ACL_DIR]
# npuarray's own C helpers, compiled into the same extension (they call either provider
# through function pointers; their declarations are not part of the shared ACL cdef).
HELPER_SOURCES = [os.path.join(ACL_DIR, "_launch.c")]
HELPER_HEADERS = ["_launch.h"]
MODULE_NAME = "npuarray._npusim"
LIBRARIES = ["dl", "m", "pthread"]
COMPILE_ARGS = ["-O3", "-pthread", "-D_GNU_SOURCE", "-DNPUSIM_IMPLEMENTATION"]  # as kernels/Makefile
if platform.machine() == "x86_64":
    COMPILE_ARGS.append("-mtls-dialect=gnu2")  # TLS descriptors, as kernels/Makefile
LINK_ARGS = ["-Wl,-Bsymbolic-functions"]  # npusim's calls to itself skip the PLT, as kernels/Makefile


def load_cdef(filename):
    """The CDEF string of a sibling module (by path: the package may not be importable yet)."""
    path = os.path.join(ACL_DIR, filename)
    if not os.path.exists(path):
        return ""
    spec = importlib.util.spec_from_file_location("_npuarray_cdef_" + filename[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, "CDEF", "") or ""


def full_cdef():
    """The declarations shared by both providers: runtime first, then aclnn, aclfft, aclblas."""
    return (load_cdef("_cdef_runtime.py") + "\n" + load_cdef("_cdef_aclnn.py") + "\n"
            + load_cdef("_cdef_fft.py") + "\n" + load_cdef("_cdef_blas.py"))


def extension_cdef():
    """What the npusim extension declares: the shared ACL cdef and npuarray's helpers."""
    return (full_cdef() + "\n" + load_cdef("_cdef_launch.py") + "\n"
            + load_cdef("_cdef_npusim.py"))


def declared_functions(cdef):
    """Names of the functions a cdef declares (cffi's own parser, so typedefs are skipped)."""
    ffi = FFI()
    ffi.cdef(cdef)
    return sorted(key.split(" ", 1)[1] for key in ffi._parser._declarations
                  if key.startswith("function "))


def kernel_sources():
    return sorted(glob.glob(os.path.join(KERNELS, "runtime", "*.c"))
                  + glob.glob(os.path.join(KERNELS, "ops", "*.c")))


def extension_sources():
    """The C sources of the extension: npusim's kernels and npuarray's helpers."""
    return kernel_sources() + HELPER_SOURCES


def kernel_headers():
    return sorted(glob.glob(os.path.join(KERNELS, "include", "**", "*.h"), recursive=True)
                  + glob.glob(os.path.join(KERNELS, "runtime", "*.h"))
                  + glob.glob(os.path.join(KERNELS, "ops", "*.h")))


def defined_functions(sources):
    """Names of the functions defined (with a body, at file scope) in the C sources."""
    pattern = re.compile(r"^(?:[A-Za-z_][\w \t*]*[\s*])?([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{",
                         re.MULTILINE)
    names = set()
    for path in sources:
        with open(path, encoding="utf-8", errors="replace") as f:
            names.update(pattern.findall(f.read()))
    return names


def preamble():
    """#includes of the ABI headers: the runtime, the aclnn meta API and every operator."""
    headers = ["acl/acl.h", "aclnn/acl_meta.h", "aclnn/aclnn_base.h", "aclnn/opdev/op_errno.h",
               "cann_ops_fft.h",
               "cann_ops_blas.h",
               "acl/ops/acl_dvpp.h", "acl/dvpp/hi_dvpp.h", "npusim_racecheck.h"]
    headers = [h for h in headers if os.path.exists(os.path.join(KERNELS, "include", h))]
    ops = sorted(glob.glob(os.path.join(KERNELS, "include", "aclnnop", "*.h")))
    headers += ["aclnnop/" + os.path.basename(h) for h in ops]
    return "".join('#include "%s"\n' % h for h in headers)


# Declared for callers that must release what the ABI hands back; defined by libc.
LIBC_FUNCTIONS = {"free"}


def missing_functions(cdef, sources):
    return sorted(set(declared_functions(cdef)) - defined_functions(sources) - LIBC_FUNCTIONS)


def make_ffibuilder(sources, extra_objects=(), extra_flags=()):
    cdef = extension_cdef()
    missing = missing_functions(cdef, extension_sources())
    if missing:
        raise SystemExit("npusim build: declared in the cdef but defined by no kernel source: "
                         + ", ".join(missing))
    ffi = FFI()
    ffi.cdef(cdef)
    helpers = "".join('#include "%s"\n' % h for h in HELPER_HEADERS)
    helpers += '#include "npusim.h"\n'   # npusim's own tools (_cdef_npusim.py)
    ffi.set_source(MODULE_NAME, preamble() + helpers, sources=sources, include_dirs=INCLUDE_DIRS,
                   extra_compile_args=COMPILE_ARGS + list(extra_flags),
                   extra_objects=list(extra_objects), extra_link_args=list(extra_flags) + LINK_ARGS,
                   libraries=LIBRARIES)
    return ffi


def _relative_to_cwd(path):
    """setuptools wants source paths relative to setup.py's directory when it can have them."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def generate_operator_table():
    """Rewrites npusim's dtype checks (kernels/ops/aclnn_dtypes.h) and npuarray's operator
    table (npuarray/_core/_operator_table.py) where kernels/aclnn_dtypes.tsv changed them."""
    path = os.path.join(KERNELS, "tools", "gen_operator_table.py")
    spec = importlib.util.spec_from_file_location("_npuarray_gen_operator_table", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for written in module.write():
        print("generated", os.path.relpath(written, ROOT), flush=True)


# Both builds (setup.py and the in-place one) import this module: the generated files are
# current before anything compiles.
generate_operator_table()
# Used by setup.py (cffi_modules): compiles every kernel source with the module.
ffibuilder = make_ffibuilder([_relative_to_cwd(s) for s in extension_sources()])


# ----------------------------------------------------------------------------------------
# In-place development build with incremental compilation of the kernel sources.

BUILD_DIR = os.path.join(ROOT, "build", "npusim-inplace")


def _object_path(source):
    base = KERNELS if source.startswith(KERNELS + os.sep) else ROOT
    rel = os.path.relpath(source, base).replace(os.sep, "_")
    return os.path.join(BUILD_DIR, "obj", rel[:-2] + ".o")


def _stale(source, obj, newest_header):
    if not os.path.exists(obj):
        return True
    built = os.path.getmtime(obj)
    return built < os.path.getmtime(source) or built < newest_header


def _newest(paths):
    return max((os.path.getmtime(p) for p in paths), default=0.0)


def compile_objects(jobs=2):
    """Compiles the changed kernel sources (at most `jobs` at a time); returns all object paths."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC").split()[0] or "cc"
    newest_kernel_header = _newest(kernel_headers())
    newest_helper_header = max(newest_kernel_header,
                               _newest(os.path.join(ACL_DIR, h) for h in HELPER_HEADERS))
    sources = extension_sources()
    objects = [_object_path(s) for s in sources]
    stale = [(s, o) for s, o in zip(sources, objects) if _stale(
        s, o, newest_helper_header if s in HELPER_SOURCES else newest_kernel_header)]
    os.makedirs(os.path.join(BUILD_DIR, "obj"), exist_ok=True)
    flags = ["-std=c11", "-fPIC"] + COMPILE_ARGS + ["-I" + d for d in INCLUDE_DIRS]
    running = []
    for source, obj in stale:
        while len(running) >= jobs:
            _finish(running.pop(0))
        print("compiling", os.path.relpath(source, ROOT), flush=True)
        running.append((subprocess.Popen([cc, *flags, "-c", source, "-o", obj + ".tmp"]), obj))
    for item in running:
        _finish(item)
    return objects


def _finish(item):
    process, obj = item
    if process.wait() != 0:
        raise SystemExit("npusim build failed compiling %s" % obj)
    os.replace(obj + ".tmp", obj)


def build_inplace():
    """Builds npuarray/_npusim*.so from the current kernels/ tree; returns its path.
    Concurrent builds (several shells, test sessions) take turns on a file lock."""
    os.makedirs(BUILD_DIR, exist_ok=True)
    with open(os.path.join(BUILD_DIR, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_inplace_locked()


def _build_inplace_locked():
    objects = compile_objects()
    ffi = make_ffibuilder([], extra_objects=objects)
    built = ffi.compile(tmpdir=BUILD_DIR, verbose=False)
    target = os.path.join(ROOT, "npuarray", os.path.basename(built))
    # Atomic replace: other processes may be importing the extension right now.
    shutil.copyfile(built, target + ".tmp")
    os.replace(target + ".tmp", target)
    # Another build flavour (pip install -e . makes _npusim.abi3.so) must not shadow this one.
    for other in glob.glob(os.path.join(ROOT, "npuarray", "_npusim.*.so")):
        if other != target:
            os.remove(other)
    build_fastpath_inplace()
    return target


# The core's plain CPython extensions: the host fast path and the DLPack capsules.
CORE_EXTENSIONS = ("_fastpath", "_dlpack")


def build_fastpath_inplace():
    """Builds npuarray/_core/_fastpath*.so (npuarray's host fast path) and _dlpack*.so
    (DLPack capsules), plain CPython extensions (setup.py builds them for installs), when
    their source changed; returns the fast path's."""
    built = [_build_core_extension(name) for name in CORE_EXTENSIONS]
    return built[0]


def _build_core_extension(name):
    source = os.path.join(ROOT, "npuarray", "_core", name + ".c")
    target = os.path.join(ROOT, "npuarray", "_core", name + sysconfig.get_config_var("EXT_SUFFIX"))
    if os.path.exists(target) and os.path.getmtime(target) >= os.path.getmtime(source):
        return target
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC").split()[0] or "cc"
    print("compiling", os.path.relpath(source, ROOT), flush=True)
    command = [cc, "-shared", "-fPIC", "-O2", "-std=c11", "-Wall", "-Wextra",
               "-I" + sysconfig.get_paths()["include"], source, "-o", target + ".tmp"]
    if subprocess.call(command) != 0:
        raise SystemExit("npuarray build failed compiling " + source)
    os.replace(target + ".tmp", target)
    return target


# ----------------------------------------------------------------------------------------
# Sanitizer builds of the extension, for running Python programs against an AddressSanitizer
# or ThreadSanitizer npusim: the kernels' objects come from kernels/Makefile's `asan` / `tsan`
# targets; the extension stays in build/npusim-<variant>/ and is loaded instead of the package's
# own when NPUARRAY_NPUSIM_EXTENSION names it (with the sanitizer's runtime in LD_PRELOAD:
# the interpreter itself is not instrumented).

SANITIZER_FLAGS = {
    "asan": ["-O1", "-g", "-fsanitize=address", "-fno-omit-frame-pointer"],
    "tsan": ["-O1", "-g", "-fsanitize=thread"],
}


def build_sanitized(variant):
    """Builds the npusim extension with `variant` ("asan" or "tsan"); returns its path."""
    flags = SANITIZER_FLAGS[variant]
    subprocess.run(["make", "-s", "-C", KERNELS, "-j2", variant], check=True)
    build_dir = os.path.join(ROOT, "build", "npusim-" + variant)
    os.makedirs(build_dir, exist_ok=True)
    with open(os.path.join(build_dir, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        objects = [os.path.join(KERNELS, "build", "obj", variant, os.path.relpath(source, KERNELS)[:-2] + ".o")
                   for source in kernel_sources()]
        inputs = objects + HELPER_SOURCES + glob.glob(os.path.join(ACL_DIR, "*.py"))
        previous = glob.glob(os.path.join(build_dir, "npuarray", "_npusim*.so"))
        if previous and os.path.getmtime(previous[0]) >= _newest(inputs):
            return previous[0]  # current
        return make_ffibuilder(HELPER_SOURCES, objects, flags).compile(tmpdir=build_dir, verbose=False)


def sanitizer_runtime(variant):
    """The path of the sanitizer's shared runtime (libasan.so / libtsan.so) for LD_PRELOAD."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC").split()[0] or "cc"
    name = "lib%s.so" % variant
    return subprocess.run([cc, "-print-file-name=" + name], check=True, capture_output=True,
                          text=True).stdout.strip()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--sanitizer"]:
        print("built", build_sanitized(sys.argv[2]))
    else:
        print("built", build_inplace())
    sys.exit(0)
