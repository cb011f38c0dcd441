/* Vendor document 000 (data transfer): the intra-host, host<->device and intra-device samples,
 * compiled as given. The document lost the samples' line breaks; they are restored at the
 * comment boundaries, the code itself is unchanged. Only the placeholder ReadFile and the
 * elided "......" lines are supplied (seed_harness.h, main). Every call's return code and every
 * copied byte is checked. */
#include "rt_seed_harness.h"

static void intra_host(void)
{
    //1. Allocate memory.
    uint64_t size = 1 * 1024 * 1024;
    void* hostPtrA = NULL;
    void* hostPtrB = NULL;
    aclrtMallocHost(&hostPtrA, size);
    aclrtMallocHost(&hostPtrB, size);
    // 2. After the memory is allocated, load data into the memory and implement the user-defined function ReadFile.
    ReadFile(fileName, hostPtrA, size);
    // 3. Perform synchronous memory copy.
    // Copy memory synchronously. hostPtrA indicates the pointer to the source memory address on the host. hostPtrB indicates the pointer to the destination memory address on the host. size indicates the memory size.
    aclrtMemcpy(hostPtrB, size, hostPtrA, size, ACL_MEMCPY_HOST_TO_HOST);
    // 4. Destroy allocations in a timely manner.
    aclrtFreeHost(hostPtrA);
    aclrtFreeHost(hostPtrB);
    // ......
}

static void host_to_device_sync(void)
{
    // 1. Allocate memory.
    uint64_t size = 1 * 1024 * 1024;
    void* hostPtrA = NULL;
    void* devPtrB = NULL;
    aclrtMallocHost(&hostPtrA, size);
    aclrtMalloc(&devPtrB, size, ACL_MEM_MALLOC_HUGE_FIRST);
    // 2. After the memory is allocated, load data into the memory and implement the user-defined function ReadFile.
    ReadFile(fileName, hostPtrA, size);
    // 3. Perform synchronous memory copy.
    // Copy memory synchronously. hostPtrA indicates the pointer to the source memory address on the host. devPtrB indicates the pointer to the destination memory address on the device. size indicates the memory size.
    aclrtMemcpy(devPtrB, size, hostPtrA, size, ACL_MEMCPY_HOST_TO_DEVICE);
    // 4. Destroy allocations in a timely manner.
    aclrtFreeHost(hostPtrA);
    aclrtFree(devPtrB);
    // ......
}

static void host_to_device_async(void)
{
    // 1. Allocate memory.
    uint64_t size = 1 * 1024 * 1024;
    void* hostAddr = NULL;
    void* devAddr = NULL;
    aclrtMallocHost(&hostAddr, size);
    aclrtMalloc(&devAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    // 2. Copy memory asynchronously.
    aclrtStream stream = NULL;
    aclrtCreateStream(&stream);
    // After the memory is allocated, load data into the memory and implement the user-defined function ReadFile.
    ReadFile(fileName, hostAddr, size);
    aclrtMemcpyAsync(devAddr, size, hostAddr, size, ACL_MEMCPY_HOST_TO_DEVICE, stream);
    aclrtSynchronizeStream(stream);
    // 3. Destroy allocations.
    aclrtDestroyStream(stream);
    aclrtFreeHost(hostAddr);
    aclrtFree(devAddr);
    // ......
}

static void device_to_host_sync(void)
{
    // 1. Allocate memory.
    uint64_t size = 1 * 1024 * 1024;
    void* devPtrA = NULL;
    void* hostPtrB = NULL;
    aclrtMalloc(&devPtrA, size, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMallocHost(&hostPtrB, size);
    // 2. After the memory is allocated, load data into the memory and implement the user-defined function ReadFile.
    ReadFile(fileName, devPtrA, size);
    // 3. Perform synchronous memory copy.
    // Copy memory synchronously. devPtrA indicates the pointer to the source memory address on the device. hostPtrB indicates the pointer to the destination memory address on the host. size indicates the memory size.
    aclrtMemcpy(hostPtrB, size, devPtrA, size, ACL_MEMCPY_DEVICE_TO_HOST);
    // 4. Destroy allocations in a timely manner.
    aclrtFree(devPtrA);
    aclrtFreeHost(hostPtrB);
    // ......
}

static void device_to_host_async(void)
{
    // 1. Allocate memory.
    uint64_t size = 1 * 1024 * 1024;
    void* hostAddr = NULL;
    void* devAddr = NULL;
    aclrtMallocHost(&hostAddr, size);
    aclrtMalloc(&devAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    // 2. After the memory is allocated, load data into the memory and implement the user-defined function ReadFile.
    ReadFile(fileName, devAddr, size);
    // 3. Copy memory asynchronously.
    aclrtStream stream = NULL;
    aclrtCreateStream(&stream);
    aclrtMemcpyAsync(hostAddr, size, devAddr, size, ACL_MEMCPY_DEVICE_TO_HOST, stream);
    aclrtSynchronizeStream(stream);
    // 4. Destroy allocations.
    aclrtDestroyStream(stream);
    aclrtFreeHost(hostAddr);
    aclrtFree(devAddr);
    // ......
}

static void intra_device(void)
{
    //1. Allocate memory.
    uint64_t size = 1 * 1024 * 1024;
    void* devPtrA = NULL;
    void* devPtrB = NULL;
    aclrtMalloc(&devPtrA, size, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&devPtrB, size, ACL_MEM_MALLOC_HUGE_FIRST);
    // 2. After the memory is allocated, load data into the memory and implement the user-defined function ReadFile.
    ReadFile(fileName, devPtrA, size);
    // 3. Perform synchronous or asynchronous memory copy.
    // Copy memory synchronously. devPtrA indicates the pointer to the source memory address on the device. devPtrB indicates the pointer to the destination memory address on the device. size indicates the memory size.
    aclrtMemcpy(devPtrB, size, devPtrA, size, ACL_MEMCPY_DEVICE_TO_DEVICE);
    // Copy memory asynchronously.
    // Explicitly create a stream.
    aclrtStream stream;
    aclrtCreateStream(&stream);
    aclrtMemcpyAsync(devPtrB, size, devPtrA, size, ACL_MEMCPY_DEVICE_TO_DEVICE, stream);
    aclrtSynchronizeStream(stream);
    // 4. Destroy allocations in a timely manner.
    aclrtDestroyStream(stream);
    aclrtFree(devPtrA);
    aclrtFree(devPtrB);
    // ......
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    size_t free0, total, free1;
    check_ok(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total), "aclrtGetMemInfo", __LINE__);
    intra_host();
    host_to_device_sync();
    host_to_device_async();
    device_to_host_sync();
    device_to_host_async();
    intra_device();
    /* Every sample frees what it allocates: device memory is back to where it started. */
    check_ok(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total), "aclrtGetMemInfo", __LINE__);
    if (free1 != free0) FAIL("device free memory %zu before the samples, %zu after", free0, free1);
    if (g_copies_verified != 7) FAIL("%d copies verified, expected 7", g_copies_verified);
    aclrtResetDevice(0);
    aclFinalize();
    if (g_failures) { fprintf(stderr, "%d check(s) failed\n", g_failures); return 1; }
    printf("seed000 data transfer: %d copies verified\n", g_copies_verified);
    return 0;
}
