"""Builds and runs the C/C++ test programs of tests/npusim/c/ against npusim.

``build_c_program(source_path, cxx=False)`` runs ``make -C kernels`` (so libnpusim is current),
then compiles ``source_path`` with ``-Ikernels/include`` and links ``kernels/build/libnpusim.so``
with an rpath, returning the executable's path. Executables are cached under
``kernels/build/tests/`` and rebuilt when the source, the library or any header is newer.
``variant="asan"`` / ``"tsan"`` builds against the sanitizer builds of the library instead;
``run_program_or_skip`` skips the calling test when that sanitizer's runtime is not installed.
A file lock serialises builds between concurrently running test sessions.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "kernels"
INCLUDE = KERNELS / "include"
BUILD = KERNELS / "build"
C_PROGRAMS = ROOT / "tests" / "npusim" / "c"

_LIBRARIES = {
    "release": BUILD / "libnpusim.so",
    "asan": BUILD / "asan" / "libnpusim.so",
    "tsan": BUILD / "tsan" / "libnpusim.so",
}
_SANITIZER_FLAGS = {
    "release": ["-O2"],
    "asan": ["-O1", "-g", "-fsanitize=address", "-fno-omit-frame-pointer"],
    "tsan": ["-O1", "-g", "-fsanitize=thread"],
}


class BuildError(RuntimeError):
    """A compiler or make failure; the message holds the tool's output."""


@contextmanager
def _build_lock():
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(BUILD / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run(cmd: list[str], timeout: float = 600) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise BuildError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")


def build_library(variant: str = "release") -> Path:
    """Runs make for the given library variant and returns the library path."""
    target = {"release": "all", "asan": "asan", "tsan": "tsan"}[variant]
    with _build_lock():
        _run(["make", "-s", "-C", str(KERNELS), f"-j{os.cpu_count() or 2}", target])
    return _LIBRARIES[variant]


def _newest_header_mtime() -> float:
    """Of the ABI headers and the test programs' own (C_PROGRAMS/*.h, e.g. rt_check.h)."""
    headers = [*INCLUDE.rglob("*.h"), *C_PROGRAMS.glob("*.h")]
    return max((p.stat().st_mtime for p in headers), default=0.0)


def blas_library() -> str | None:
    """Path of OpenBLAS from scipy-openblas32 (for NPUSIM_BLAS_LIBRARY), or None."""
    try:
        import scipy_openblas32
    except ImportError:
        return None
    path = Path(scipy_openblas32.get_lib_dir()) / "libscipy_openblas.so"
    return str(path) if path.exists() else None


def program_env(**extra: str) -> dict[str, str]:
    """Environment for running a test program: NPUSIM_BLAS_LIBRARY set when available."""
    env = dict(os.environ)
    blas = blas_library()
    if blas and "NPUSIM_BLAS_LIBRARY" not in env:
        env["NPUSIM_BLAS_LIBRARY"] = blas
    env.update(extra)
    return env


def build_c_program(source_path, cxx: bool = False, variant: str = "release") -> Path:
    """Compiles one test program and returns the executable's path (see module docstring)."""
    source = Path(source_path).resolve()
    library = build_library(variant)
    out_dir = BUILD / "tests" / variant
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / source.stem
    inputs = max(source.stat().st_mtime, library.stat().st_mtime, _newest_header_mtime())
    if exe.exists() and exe.stat().st_mtime >= inputs:
        return exe
    compiler = (shutil.which("g++") or "c++") if cxx else (shutil.which("gcc") or "cc")
    std = ["-std=c++17"] if cxx else ["-std=c11"]
    cmd = [compiler, *std, *_SANITIZER_FLAGS[variant], "-Wall", "-Wextra", "-pthread",
           f"-I{INCLUDE}", str(source), "-o", str(exe) + ".tmp",
           f"-L{library.parent}", "-lnpusim", f"-Wl,-rpath,{library.parent}", "-lm"]
    with _build_lock():
        _run(cmd)
        os.replace(str(exe) + ".tmp", exe)
    return exe


def run_program(source, cxx=None, variant="release", timeout=120):
    """Builds and runs C_PROGRAMS/`source` (C++ when `cxx`, by default when it ends in .cpp);
    asserts that it exits 0 and returns its standard output."""
    cxx = source.endswith(".cpp") if cxx is None else cxx
    exe = build_c_program(C_PROGRAMS / source, cxx=cxx, variant=variant)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout, env=program_env())
    assert proc.returncode == 0, "%s failed (%d):\n%s%s" % (source, proc.returncode, proc.stdout, proc.stderr)
    return proc.stdout



def run_program_or_skip(source, variant="release", timeout=300):
    """``run_program`` of `source` built as `variant`; a sanitizer variant whose runtime
    library is not installed skips the calling test (naming what is missing) instead of
    failing it."""
    import pytest
    try:
        return run_program(source, variant=variant, timeout=timeout)
    except BuildError as exc:
        if variant != "release" and "cannot find" in str(exc) and variant in str(exc):
            pytest.skip("the %s sanitizer runtime library is not installed: %s"
                        % (variant, str(exc)[-200:]))
        raise
