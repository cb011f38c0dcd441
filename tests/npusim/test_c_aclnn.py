"""The aclnn C test programs of tests/npusim/c/ (meta API, executors, kernels, the vendor's device-memory
sample with aclnnAdd), built against kernels/include and npusim with tests/cbuild.py.

Each program checks its own results (hand-derived values) and prints "<name> ok"; a failing
check makes it exit non-zero with the failing line on stderr."""
from pathlib import Path

import pytest

from cbuild import BuildError, run_program

# Programs using aclnn are C++, as CANN's aclnn headers require.
PROGRAMS = [
    ("aclnn_meta.cpp", True),
    ("aclnn_executor.cpp", True),
    ("aclnn_kernels.cpp", True),
    ("seed002_device_memory.cpp", True),
    ("aclnn_histc.cpp", True),
]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("source,cxx", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_program(source, cxx):
    out = run_program(source, cxx)
    assert "%s ok" % Path(source).stem.split("_device")[0] in out


SANITIZED = [(source, variant) for variant in ("asan", "tsan")
             for source in ("aclnn_meta.cpp", "aclnn_executor.cpp", "aclnn_kernels.cpp",
                            "aclnn_histc.cpp")]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("source,variant", SANITIZED, ids=["%s-%s" % s for s in SANITIZED])
def test_program_under_sanitizer(source, variant):
    """No leak, use after free, overrun (asan) or data race (tsan) in the meta API, executors,
    kernels and the worker threads that run them."""
    try:
        out = run_program(source, variant=variant, timeout=300)
    except BuildError as exc:
        if "cannot find" in str(exc) and variant in str(exc):
            pytest.skip("the %s sanitizer runtime library is not installed: %s"
                        % (variant, str(exc)[-200:]))
        raise
    assert "%s ok" % Path(source).stem in out
