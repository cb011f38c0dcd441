// Vendor document 000 (data transfer), inter-device sample: C++ (it uses `auto`), compiled as
// given with its line breaks restored. The elided "......" lines hold the harness's checks: the
// memset bytes on device 0; the copy itself is verified byte by byte by the aclrtMemcpy wrapper
// of rt_seed_harness.h. main is renamed so the harness can check the outcome.
#include "rt_seed_harness.h"

#define main sample_main
int main(int argc, const char *argv[])
{
    // Initialize AscendCL.
    auto ret = aclInit(NULL);
    int32_t canAccessPeer = 0;
    // Query whether memory copy is supported between device 0 and device 1.
    ret = aclrtDeviceCanAccessPeer(&canAccessPeer, 0, 1);
    // 1 indicates that memory copy is supported.
    if (canAccessPeer == 1) {
        // ************************************************************
        // Operations on device 0.
        ret = aclrtSetDevice(0);
        ret = aclrtDeviceEnablePeerAccess(1, 0);
        void *dev0;
        ret = aclrtMalloc(&dev0, 10, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
        ret = aclrtMemset(dev0, 10, 1, 10);
        g_expected_fill = 1; expect_pattern(dev0, 10, "dev0 after aclrtMemset", __LINE__); // ......
        // ************************************************************
        // Copy memory from device 1 to device 0. The device 1 is set through aclrtSetDevice, while device 0 is specified by the first parameter of aclrtDeviceEnablePeerAccess.
        ret = aclrtSetDevice(1);
        ret = aclrtDeviceEnablePeerAccess(0, 0);
        void *dev1;
        ret = aclrtMalloc(&dev1, 10, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
        ret = aclrtMemset(dev1, 10, 0, 10);
        // Perform memory copy to transfer data from device 0 to device 1.
        ret = aclrtMemcpy(dev1, 10, dev0, 10, ACL_MEMCPY_DEVICE_TO_DEVICE);
        ret = aclrtResetDevice(1);
        (void)argc; (void)argv; // ......
        // ************************************************************
        // ************************************************************
        // Call aclrtResetDevice to release the resources of device 0.
        ret = aclrtSetDevice(0);
        ret = aclrtResetDevice(0);
        (void)ret; // ......
        // ************************************************************
        printf("P2P copy success\n");
    } else {
        printf("current device doesn't support p2p feature\n");
    }
    // Deinitialize AscendCL.
    aclFinalize();
    return 0;
}
#undef main

int main(int argc, const char *argv[])
{
    // NPUSIM_PCIE_SWITCH_SIZE=1 puts every device on its own switch: then the sample must take
    // its "no p2p" branch (argv[1] = "expect-no-peer").
    bool expect_peer = !(argc > 1 && strcmp(argv[1], "expect-no-peer") == 0);
    sample_main(argc, argv);
    int expected_copies = expect_peer ? 1 : 0;
    if (g_copies_verified != expected_copies)
        FAIL("%d device-to-device copies verified, expected %d", g_copies_verified, expected_copies);
    if (g_failures) { fprintf(stderr, "%d check(s) failed\n", g_failures); return 1; }
    return 0;
}
