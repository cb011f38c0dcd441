"""The aclnn C test programs of tests/npusim/c/ (meta API, executors, kernels, the vendor's device-memory
sample with aclnnAdd), built against kernels/include and npusim with tests/cbuild.py.

Each program checks its own results (hand-derived values) and prints "<name> ok"; a failing
check makes it exit non-zero with the failing line on stderr."""
from pathlib import Path

import pytest

from cbuild import run_program, run_program_or_skip

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
    out = run_program_or_skip(source, variant=variant, timeout=300)
    assert "%s ok" % Path(source).stem in out
