// The device-memory sample of docs/seeds/002_c23c1f2408f164a3.txt, unmodified except that its
// placeholders are filled in: input initialisation, STEP 5 (aclnnAdd: out = A + alpha * B, the
// tensors created as in seed 003) and STEP 7 (check the result on the host). Compiled with g++.
// Prints "seed002 ok" and exits 0 when every element is right.
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

#define CHECK_ACL(expr)                                                                        \
    do {                                                                                       \
        int rc_ = (expr);                                                                      \
        if (rc_ != 0) {                                                                        \
            std::printf("%s failed: %d (%s)\n", #expr, rc_, aclGetRecentErrMsg());             \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

static aclTensor *CreateAclTensor(void *deviceAddr, const std::vector<int64_t> &shape, aclDataType dataType)
{
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
        strides[i] = shape[i + 1] * strides[i + 1];
    }
    return aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                           shape.data(), shape.size(), deviceAddr);
}

int main(void)
{
    int32_t deviceId = 0;
    int64_t N = 16;
    const size_t bytes = static_cast<size_t>(N) * sizeof(float);
    aclrtStream stream = nullptr;

    // STEP 1: 初始化、Stream创建
    CHECK_ACL(aclInit(nullptr));
    CHECK_ACL(aclrtSetDevice(deviceId));
    CHECK_ACL(aclrtCreateStream(&stream));

    // STEP 2: 申请Host内存
    void* hostA = nullptr;
    void* hostB = nullptr;
    void* hostOut = nullptr;

    CHECK_ACL(aclrtMallocHost(&hostA, bytes));
    CHECK_ACL(aclrtMallocHost(&hostB, bytes));
    CHECK_ACL(aclrtMallocHost(&hostOut, bytes));

    // 输入数据初始化
    for (int64_t i = 0; i < N; i++) {
        static_cast<float *>(hostA)[i] = 0.5f * static_cast<float>(i) - 3.0f;
        static_cast<float *>(hostB)[i] = 10.0f / static_cast<float>(i + 1);
        static_cast<float *>(hostOut)[i] = -999.0f;
    }

    // STEP 3: 申请Device内存
    void* deviceA = nullptr;
    void* deviceB = nullptr;
    void* deviceOut = nullptr;

    CHECK_ACL(aclrtMalloc(&deviceA, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&deviceB, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&deviceOut, bytes, ACL_MEM_MALLOC_HUGE_FIRST));

    // STEP 4: 将输入数据从Host内存传输到Device内存
    CHECK_ACL(aclrtMemcpy(deviceA, bytes, hostA, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ACL(aclrtMemcpy(deviceB, bytes, hostB, bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    // STEP 5: 执行计算操作,比如aclnnAdd,将计算结果保存在Device内存
    std::vector<int64_t> shape = {4, 4};
    aclTensor *self = CreateAclTensor(deviceA, shape, aclDataType::ACL_FLOAT);
    aclTensor *other = CreateAclTensor(deviceB, shape, aclDataType::ACL_FLOAT);
    aclTensor *out = CreateAclTensor(deviceOut, shape, aclDataType::ACL_FLOAT);
    float alphaValue = 2.0f;
    aclScalar *alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_FLOAT);
    if (!self || !other || !out || !alpha) {
        std::printf("creating the aclnn arguments failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    CHECK_ACL(aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspaceSize, &executor));
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        CHECK_ACL(aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    }
    CHECK_ACL(aclnnAdd(workspaceAddr, workspaceSize, executor, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclDestroyScalar(alpha);
    if (workspaceAddr) (void)aclrtFree(workspaceAddr);

    // STEP 6: 将计算结果从Device内存传输到Host内存
    CHECK_ACL(aclrtMemcpy(hostOut, bytes, deviceOut, bytes, ACL_MEMCPY_DEVICE_TO_HOST));

    // STEP 7: 在Host侧处理计算结果
    int wrong = 0;
    for (int64_t i = 0; i < N; i++) {
        float a = static_cast<float *>(hostA)[i], b = static_cast<float *>(hostB)[i];
        float expected = a + alphaValue * b;
        float got = static_cast<float *>(hostOut)[i];
        if (std::fabs(got - expected) > 1e-6f * std::fabs(expected)) {
            std::printf("out[%lld] = %.9g, expected %.9g\n", static_cast<long long>(i), got, expected);
            wrong++;
        }
    }

    // STEP 8: 资源清理
    // STEP 8.1: 释放Host和Device内存
    if (deviceA) (void)aclrtFree(deviceA);
    if (deviceB) (void)aclrtFree(deviceB);
    if (deviceOut) (void)aclrtFree(deviceOut);
    if (hostA) (void)aclrtFreeHost(hostA);
    if (hostB) (void)aclrtFreeHost(hostB);
    if (hostOut) (void)aclrtFreeHost(hostOut);

    // STEP 8.2: 清理设备和进程资源
    if (stream) (void)aclrtDestroyStream(stream);
    (void)aclrtResetDevice(deviceId);
    (void)aclFinalize();

    if (wrong) return 1;
    std::printf("seed002 ok\n");
    return 0;
}
