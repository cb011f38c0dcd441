"""A pyACL program: the data-transfer call sequence of CANN's guide, written the way
published pyACL code is, then the same device memory used as an npuarray array.

    python -m npuarray.pyacl examples/pyacl_memory.py [--size-mb 4] [--device 0]
    NPUSIM_RUN_MODE=device python -m npuarray.pyacl examples/pyacl_memory.py

``import acl`` is served by npuarray.pyacl under the launcher (npusim, or CANN when it is
the loaded provider); run directly, the program falls back to npuarray.pyacl. Following the
guide, it asks acl.rt.get_run_mode: with ACL_HOST (the application on a host) it stages the
data in malloc_host memory and copies it to the device; with ACL_DEVICE (the application
on the board's CPU) malloc_host already is device memory and no host transfer is needed.
The data (a grey-scale ramp image, uint8) lands in DVPP memory (acl.media.dvpp_malloc),
its histogram is computed on the device through npuarray.from_device_pointer, and checked
against NumPy's; exits with status 1 on any failed call or mismatch.
"""
import argparse
import sys

import numpy as np

try:
    import acl
except ImportError:            # run without the launcher
    import npuarray.pyacl as acl

import npuarray as npx

ACL_SUCCESS, ACL_HOST = 0, 1
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE = 1, 2, 3


def check(what, ret):
    if ret != ACL_SUCCESS:
        sys.exit("%s failed: ret = %d (%s)" % (what, ret, acl.get_recent_err_msg()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=4)
    parser.add_argument("--device", type=int, default=0)
    args = parser.parse_args()
    side = int((args.size_mb << 20) ** 0.5)
    image = np.add.outer(np.arange(side), np.arange(side)).astype(np.uint8)  # a ramp, wrapping
    size = image.nbytes

    check("acl.init", acl.init())
    check("acl.rt.set_device", acl.rt.set_device(args.device))
    context, ret = acl.rt.create_context(args.device)
    check("acl.rt.create_context", ret)
    run_mode, ret = acl.rt.get_run_mode()
    check("acl.rt.get_run_mode", ret)

    dvpp, ret = acl.media.dvpp_malloc(size)
    check("acl.media.dvpp_malloc", ret)
    staging, ret = acl.rt.malloc_host(size)
    check("acl.rt.malloc_host", ret)
    raw = image.tobytes()
    # Load the data into malloc_host memory: host memory (ACL_HOST) or device memory (ACL_DEVICE).
    check("acl.rt.memcpy", acl.rt.memcpy(staging, size, acl.util.bytes_to_ptr(raw), size,
                                         ACL_MEMCPY_HOST_TO_DEVICE if run_mode != ACL_HOST else 0))
    kind = ACL_MEMCPY_HOST_TO_DEVICE if run_mode == ACL_HOST else ACL_MEMCPY_DEVICE_TO_DEVICE
    stream, ret = acl.rt.create_stream()
    check("acl.rt.create_stream", ret)
    check("acl.rt.memcpy_async", acl.rt.memcpy_async(dvpp, size, staging, size, kind, stream))
    check("acl.rt.synchronize_stream", acl.rt.synchronize_stream(stream))
    free, total, ret = acl.rt.get_mem_info(1)
    check("acl.rt.get_mem_info", ret)

    # The DVPP memory as an array, without a copy: a histogram of the pixel values on the device.
    pixels = npx.from_device_pointer(dvpp, image.shape, np.uint8, device=args.device)
    counts = npx.bincount(pixels.reshape(-1).astype(np.int64), minlength=256).to_host()
    expected = np.bincount(image.reshape(-1), minlength=256)

    print("run mode: %s" % ("ACL_HOST" if run_mode == ACL_HOST else "ACL_DEVICE"))
    print("image: %dx%d uint8 (%d bytes) in DVPP memory at 0x%x" % (side, side, size, dvpp))
    print("device memory in use: %d of %d bytes" % (total - free, total))
    print("histogram matches NumPy: %s" % np.array_equal(counts, expected))
    del pixels
    for what, ret in (("acl.rt.destroy_stream", acl.rt.destroy_stream(stream)),
                      ("acl.rt.free_host", acl.rt.free_host(staging)),
                      ("acl.media.dvpp_free", acl.media.dvpp_free(dvpp)),
                      ("acl.rt.destroy_context", acl.rt.destroy_context(context)),
                      ("acl.rt.reset_device", acl.rt.reset_device(args.device))):
        check(what, ret)
    return 0 if np.array_equal(counts, expected) else 1


if __name__ == "__main__":
    sys.exit(main())
