"""tests/npusim/c/aclnn_executor_threads.cpp: executors and stream checks with threads launching
at once (a single-use executor raced by two threads runs once, repeatable executors launched by
two threads while a third destroys them, threads exiting with their own free registry slots and
spare executors, a stream destroyed under a thread that launched on it); also under
AddressSanitizer and ThreadSanitizer."""
import pytest

from cbuild import run_program, run_program_or_skip

SOURCE = "aclnn_executor_threads.cpp"


@pytest.mark.timeout(300)
def test_executor_threads():
    assert "aclnn_executor_threads ok" in run_program(SOURCE)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["asan", "tsan"])
def test_executor_threads_under_sanitizer(variant):
    out = run_program_or_skip(SOURCE, variant=variant, timeout=300)
    assert "aclnn_executor_threads ok" in out
