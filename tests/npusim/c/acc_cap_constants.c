/* Acceptance: the capture-related names and values of kernels/include match CANN
 * (docs/acl-abi.md sections 2.4, 2.5, 3.2 and 4), in C and (via acc_cap_constants_cxx.cpp)
 * in C++, and the aclmdlRI functions have CANN's signatures (assigned to typed pointers). */
#include <stdio.h>

#include "acl/acl.h"

#ifdef __cplusplus
#define CHECK(cond) static_assert(cond, #cond)
#else
#define CHECK(cond) _Static_assert(cond, #cond)
#endif

CHECK(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL == 0);
CHECK(ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL == 1);
CHECK(ACL_MODEL_RI_CAPTURE_MODE_RELAXED == 2);
CHECK(ACL_MODEL_RI_CAPTURE_STATUS_NONE == 0);
CHECK(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE == 1);
CHECK(ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED == 2);
CHECK(ACL_ERROR_RT_CAPTURE_DEPENDENCY == 107024);
CHECK(ACL_ERROR_RT_STREAM_UNJOINED == 107025);
CHECK(ACL_ERROR_RT_MODEL_CAPTURED == 107026);
CHECK(ACL_ERROR_RT_STREAM_CAPTURED == 107027);
CHECK(ACL_ERROR_RT_EVENT_CAPTURED == 107028);
CHECK(ACL_ERROR_RT_STREAM_NOT_CAPTURED == 107029);
CHECK(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT == 107030);
CHECK(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT == 107031);
CHECK(ACL_ERROR_STREAM_CAPTURE_CONFLICT == 107032);
CHECK(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED == 107036);
CHECK(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD == 107038);
CHECK(ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY == 107039);
CHECK(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC == 107041);
CHECK(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED == 507903);
CHECK(ACL_EVENT_SYNC == 0x1u);
CHECK(ACL_EVENT_CAPTURE_STREAM_PROGRESS == 0x2u);
CHECK(ACL_EVENT_TIME_LINE == 0x8u);
CHECK(ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY == 0x0ul);
CHECK(ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE == 0x1ul);

int main(void)
{
    aclError (*begin)(aclrtStream, aclmdlRICaptureMode) = aclmdlRICaptureBegin;
    aclError (*end)(aclrtStream, aclmdlRI *) = aclmdlRICaptureEnd;
    aclError (*info)(aclrtStream, aclmdlRICaptureStatus *, aclmdlRI *) = aclmdlRICaptureGetInfo;
    aclError (*exchange)(aclmdlRICaptureMode *) = aclmdlRICaptureThreadExchangeMode;
    aclError (*execute_async)(aclmdlRI, aclrtStream) = aclmdlRIExecuteAsync;
    aclError (*execute)(aclmdlRI, int32_t) = aclmdlRIExecute;
    aclError (*destroy)(aclmdlRI) = aclmdlRIDestroy;
    aclError (*debug_print)(aclmdlRI) = aclmdlRIDebugPrint;
    aclError (*get_streams)(aclmdlRI, aclrtStream *, uint32_t *) = aclmdlRIGetStreams;
    aclError (*host_func)(aclrtStream, aclrtHostFunc, void *) = aclrtLaunchHostFunc;
    int failures = 0;

    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
    aclrtStream stream = NULL;
    aclmdlRI model = NULL;
    aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS) return 1;
    failures += begin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) != ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT;
    failures += begin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) != ACL_SUCCESS;
    failures += info(stream, &status, &model) != ACL_SUCCESS || status != ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    failures += exchange(&mode) != ACL_SUCCESS || mode != ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
    failures += exchange(&mode) != ACL_SUCCESS || mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    failures += end(stream, &model) != ACL_SUCCESS || model == NULL;
    failures += execute_async(model, stream) != ACL_SUCCESS;
    failures += aclrtSynchronizeStream(stream) != ACL_SUCCESS;
    failures += debug_print(model) != ACL_SUCCESS;
    uint32_t count = 1;
    aclrtStream streams[1] = {NULL};
    failures += get_streams(model, streams, &count) != ACL_SUCCESS || count != 1 || streams[0] != stream;
    failures += destroy(model) != ACL_SUCCESS;
    (void)execute;
    (void)host_func;
    failures += aclrtDestroyStream(stream) != ACL_SUCCESS;
    failures += aclrtResetDevice(0) != ACL_SUCCESS;
    failures += aclFinalize() != ACL_SUCCESS;
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "acc_cap_constants ok", failures);
    return failures != 0;
}
