"""Pages of npusim's device memory: aclrtMalloc's default policy (ACL_MEM_MALLOC_HUGE_FIRST)
gives blocks of more than 1 MiB in 2 MiB pages (aclrtPointerGetAttributes' pageSize, as
CANN's runtime reports them), which start on a 2 MiB boundary and are backed by the
system's transparent huge pages where it offers them: a streaming kernel over such a block
pays neither a first-touch fault nor a TLB miss per 4 KiB. NORMAL_ONLY keeps 4 KiB pages."""
import pathlib
import resource

import numpy as np
import pytest

import npuarray as npx
from npuarray._acl import ffi, lib
from npuarray.runtime._device import activate

HUGE = 2 << 20
MiB = 1 << 20
HUGE_FIRST, NORMAL_ONLY = 0, 2   # aclrtMemMallocPolicy
THP = pathlib.Path("/sys/kernel/mm/transparent_hugepage/enabled")

npusim_only = pytest.mark.skipif(npx.backend().name != "npusim",
                                 reason="how npusim backs device memory with host pages")


def malloc(nbytes, policy):
    ptr = ffi.new("void **")
    assert lib.aclrtMalloc(ptr, nbytes, policy) == 0
    return ptr[0]


def page_size(ptr):
    attributes = ffi.new("aclrtPtrAttributes *")
    assert lib.aclrtPointerGetAttributes(ptr, attributes) == 0
    return attributes.pageSize


@npusim_only
def test_huge_page_blocks_start_on_2mib_boundaries_between_small_ones(rng):
    activate(0)
    blocks = []
    try:
        for nbytes in rng.integers(1, 8 * MiB, 12).tolist() + [MiB + 1, 3 * MiB + 5]:
            small = malloc(int(rng.integers(1, 4096)), HUGE_FIRST)   # shifts the free space
            big = malloc(int(nbytes), HUGE_FIRST)
            normal = malloc(int(nbytes), NORMAL_ONLY)
            blocks += [small, big, normal]
            address = int(ffi.cast("uintptr_t", big))
            if nbytes > MiB:
                assert address % HUGE == 0 and page_size(big) == HUGE
            else:
                assert address % 64 == 0 and page_size(big) == 4096
            assert int(ffi.cast("uintptr_t", normal)) % 64 == 0 and page_size(normal) == 4096
        # every block usable over its whole size: the bytes round-trip
        data = rng.integers(0, 256, 3 * MiB + 5, dtype=np.uint8)
        out = np.empty_like(data)
        assert lib.aclrtMemcpy(blocks[-2], data.nbytes, ffi.from_buffer(data), data.nbytes,
                               lib.ACL_MEMCPY_HOST_TO_DEVICE) == 0
        assert lib.aclrtMemcpy(ffi.from_buffer(out), out.nbytes, blocks[-2], out.nbytes,
                               lib.ACL_MEMCPY_DEVICE_TO_HOST) == 0
        np.testing.assert_array_equal(out, data)
    finally:
        for block in blocks:
            assert lib.aclrtFree(block) == 0


@npusim_only
@pytest.mark.skipif(not THP.exists() or "[never]" in THP.read_text(),
                    reason="the system offers no transparent huge pages")
def test_first_touch_of_a_large_block_faults_in_huge_pages():
    nbytes = 64 * MiB
    memory = npx.DeviceMemory(nbytes)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    memory.memset(0x5A)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    # 4 KiB pages: 16384 faults; 2 MiB pages: 32 (a few more from the rest of the process)
    assert faults < nbytes // (4096 * 8)
    back = memory.copy_to_host()
    assert back.nbytes == nbytes and (back[:: 4099] == 0x5A).all()
