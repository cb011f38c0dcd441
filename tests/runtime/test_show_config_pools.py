"""``show_config()`` / ``python -m npuarray`` print each device's memory pool (in use, held,
cached, peak held, limit) and the pinned host pool, with the pools' own numbers."""
import io
import re
import subprocess
import sys

import numpy as np
import pytest

import npuarray as npx
from conftest import package_env
from npuarray.runtime._config import format_bytes

_POOL_LINE = re.compile(
    r"  device (\d+): \d+ MiB free of \d+ MiB\n    pool: (.+) in use, (.+) held \((.+) cached "
    r"in (\d+) free blocks\), peak held (.+), limit (.+) \(NPUARRAY_MEMORY_LIMIT\)\n")


def pool_lines():
    out = io.StringIO()
    npx.show_config(file=out)
    text = out.getvalue()
    return {int(m[0]): m[1:] for m in _POOL_LINE.findall(text)}, text


def expected_line(pool):
    return (format_bytes(pool.used_bytes()), format_bytes(pool.total_bytes()),
            format_bytes(pool.free_bytes()), str(pool.n_free_blocks()),
            format_bytes(pool.peak_total_bytes()),
            format_bytes(pool.get_limit()) if pool.get_limit() else "none")


@pytest.mark.parametrize("n, text", [(0, "0 B"), (512, "512 B"), (1023, "1023 B"),
                                     (1024, "1.00 KiB"), (1536, "1.50 KiB"),
                                     (2**20, "1.00 MiB"), (5 * 2**20 + 2**19, "5.50 MiB"),
                                     (3 * 2**30, "3.00 GiB"), (2**42, "4096.00 GiB")])
def test_format_bytes(n, text):
    assert format_bytes(n) == text


def test_every_device_has_a_pool_line():
    lines, text = pool_lines()
    assert sorted(lines) == list(range(npx.device_count()))
    for index, line in lines.items():
        assert line == expected_line(npx.get_default_memory_pool(index))
    assert "pinned host pool: " in text


def test_pool_line_follows_allocations(rng):
    device = npx.device_count() - 1  # the last device: other tests here use device 0
    pool = npx.get_default_memory_pool(device)
    pool.free_all_blocks()
    host = rng.standard_normal((512, 512))  # 2 MiB
    x = npx.asarray(host, device=device)
    y = npx.asarray(host[:, :128], device=device)
    npx.Device(device).synchronize()
    lines, _ = pool_lines()
    assert lines[device] == expected_line(pool)
    assert pool.used_bytes() >= host.nbytes + host.nbytes // 4
    held_with_both = pool.total_bytes()
    del y
    lines, _ = pool_lines()
    assert lines[device] == expected_line(pool)
    assert pool.free_bytes() > 0 and int(lines[device][3]) >= 1  # y's block is cached
    pool.free_all_blocks()
    lines, _ = pool_lines()
    assert lines[device] == expected_line(pool)
    assert pool.total_bytes() < held_with_both <= pool.peak_total_bytes()  # the peak stays
    np.testing.assert_array_equal(x.to_host(), host)


def test_peak_is_the_held_high_water_mark():
    pool = npx.MemoryPool(0)
    with npx.using_pool(pool):
        a = npx.empty(2**18)  # 2 MiB
        b = npx.empty(2**17)
        peak = pool.total_bytes()
        del a, b
        pool.free_all_blocks()
        assert pool.total_bytes() == 0 and pool.peak_total_bytes() == peak
        c = npx.empty(2**10)
        assert pool.peak_total_bytes() == peak  # a smaller block does not raise it
        del c
    assert peak >= 3 * 2**20


def test_python_dash_m_npuarray_prints_pools_with_the_limit(tmp_path):
    env_overrides = {"NPUARRAY_MEMORY_LIMIT": "48MiB", "NPUSIM_DEVICE_COUNT": "2"}
    code = ("import npuarray as npx\n"
            "x = npx.ones(2**17, device=1)\n"  # 1 MiB in use on device 1
            "npx.show_config()\n"
            "pool = npx.get_default_memory_pool(1)\n"
            "print('numbers', pool.used_bytes(), pool.total_bytes(), pool.peak_total_bytes())\n")
    env = package_env(**env_overrides)
    plain = subprocess.run([sys.executable, "-m", "npuarray"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.count("pool: 0 B in use, 0 B held (0 B cached in 0 free blocks), "
                              "peak held 0 B, limit 48.00 MiB (NPUARRAY_MEMORY_LIMIT)") == 2
    used = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert used.returncode == 0, used.stderr
    numbers = [int(v) for v in used.stdout.split("numbers")[1].split()]
    lines = dict((int(m[0]), m[1:]) for m in _POOL_LINE.findall(used.stdout))
    assert lines[1][0] == format_bytes(numbers[0]) == "1.00 MiB"
    assert lines[1][1] == format_bytes(numbers[1]) and lines[1][4] == format_bytes(numbers[2])
    assert lines[0][0] == "0 B" and lines[1][5] == "48.00 MiB"


def test_bad_memory_limit_is_a_clear_error(tmp_path):
    env = package_env(NPUARRAY_MEMORY_LIMIT="lots")
    result = subprocess.run([sys.executable, "-m", "npuarray"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "NPUARRAY_MEMORY_LIMIT" in result.stderr and "Traceback" in result.stderr
    assert npx.get_default_memory_pool(0).get_limit() >= 0  # this process is unaffected
