"""ACL error codes and the exceptions npuarray raises for them.

Every non-zero aclError / aclnnStatus returned by the provider becomes an
``AclError`` (or a subclass for the common families) carrying the numeric
``code``, the ACL constant ``name``, the runtime's recent error ``message``
(aclGetRecentErrMsg) and the ``api`` that returned it. Code names and meanings
follow CANN's acl_base.h, rt_error_codes.h, ge_error_codes.h and nnopbase's
op_errno.h (docs/acl-abi.md section 3).
"""

ERROR_NAMES = {
    # ACL generic codes (acl/acl_base.h)
    100000: "ACL_ERROR_INVALID_PARAM",
    100001: "ACL_ERROR_UNINITIALIZE",
    100002: "ACL_ERROR_REPEAT_INITIALIZE",
    100003: "ACL_ERROR_INVALID_FILE",
    100004: "ACL_ERROR_WRITE_FILE",
    100005: "ACL_ERROR_INVALID_FILE_SIZE",
    100006: "ACL_ERROR_PARSE_FILE",
    100007: "ACL_ERROR_FILE_MISSING_ATTR",
    100008: "ACL_ERROR_FILE_ATTR_INVALID",
    100009: "ACL_ERROR_INVALID_DUMP_CONFIG",
    100010: "ACL_ERROR_INVALID_PROFILING_CONFIG",
    100011: "ACL_ERROR_INVALID_MODEL_ID",
    100024: "ACL_ERROR_OP_NOT_FOUND",
    100025: "ACL_ERROR_OP_LOAD_FAILED",
    100026: "ACL_ERROR_UNSUPPORTED_DATA_TYPE",
    100027: "ACL_ERROR_FORMAT_NOT_MATCH",
    100032: "ACL_ERROR_INVALID_QUEUE_ID",
    100033: "ACL_ERROR_REPEAT_SUBSCRIBE",
    100034: "ACL_ERROR_STREAM_NOT_SUBSCRIBE",
    100035: "ACL_ERROR_THREAD_NOT_SUBSCRIBE",
    100036: "ACL_ERROR_WAIT_CALLBACK_TIMEOUT",
    100037: "ACL_ERROR_REPEAT_FINALIZE",
    200000: "ACL_ERROR_BAD_ALLOC",
    200001: "ACL_ERROR_API_NOT_SUPPORT",
    200002: "ACL_ERROR_INVALID_DEVICE",
    200003: "ACL_ERROR_MEMORY_ADDRESS_UNALIGNED",
    200004: "ACL_ERROR_RESOURCE_NOT_MATCH",
    200005: "ACL_ERROR_INVALID_RESOURCE_HANDLE",
    200006: "ACL_ERROR_FEATURE_UNSUPPORTED",
    200007: "ACL_ERROR_PROF_MODULES_UNSUPPORTED",
    300000: "ACL_ERROR_STORAGE_OVER_LIMIT",
    500000: "ACL_ERROR_INTERNAL_ERROR",
    500001: "ACL_ERROR_FAILURE",
    500002: "ACL_ERROR_GE_FAILURE",
    500003: "ACL_ERROR_RT_FAILURE",
    500004: "ACL_ERROR_DRV_FAILURE",
    500005: "ACL_ERROR_PROFILING_FAILURE",
    # runtime parameter / usage codes (acl/error_codes/rt_error_codes.h)
    107000: "ACL_ERROR_RT_PARAM_INVALID",
    107001: "ACL_ERROR_RT_INVALID_DEVICEID",
    107002: "ACL_ERROR_RT_CONTEXT_NULL",
    107003: "ACL_ERROR_RT_STREAM_CONTEXT",
    107004: "ACL_ERROR_RT_MODEL_CONTEXT",
    107005: "ACL_ERROR_RT_STREAM_MODEL",
    107006: "ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID",
    107007: "ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL",
    107008: "ACL_ERROR_RT_ADDR_UNALIGNED",
    107009: "ACL_ERROR_RT_FILE_OPEN",
    107010: "ACL_ERROR_RT_FILE_WRITE",
    107011: "ACL_ERROR_RT_STREAM_SUBSCRIBE",
    107012: "ACL_ERROR_RT_THREAD_SUBSCRIBE",
    107013: "ACL_ERROR_RT_GROUP_NOT_SET",
    107014: "ACL_ERROR_RT_GROUP_NOT_CREATE",
    107015: "ACL_ERROR_RT_STREAM_NO_CB_REG",
    107016: "ACL_ERROR_RT_INVALID_MEMORY_TYPE",
    107017: "ACL_ERROR_RT_INVALID_HANDLE",
    107018: "ACL_ERROR_RT_INVALID_MALLOC_TYPE",
    107019: "ACL_ERROR_RT_WAIT_TIMEOUT",
    107020: "ACL_ERROR_RT_TASK_TIMEOUT",
    107021: "ACL_ERROR_RT_SYSPARAMOPT_NOT_SET",
    107022: "ACL_ERROR_RT_DEVICE_TASK_ABORT",
    107023: "ACL_ERROR_RT_STREAM_ABORT",
    107024: "ACL_ERROR_RT_CAPTURE_DEPENDENCY",
    107025: "ACL_ERROR_RT_STREAM_UNJOINED",
    107026: "ACL_ERROR_RT_MODEL_CAPTURED",
    107027: "ACL_ERROR_RT_STREAM_CAPTURED",
    107028: "ACL_ERROR_RT_EVENT_CAPTURED",
    107029: "ACL_ERROR_RT_STREAM_NOT_CAPTURED",
    107030: "ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT",
    107031: "ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT",
    107032: "ACL_ERROR_STREAM_CAPTURE_CONFLICT",
    107033: "ACL_ERROR_STREAM_TASK_GROUP_STATUS",
    107034: "ACL_ERROR_STREAM_TASK_GROUP_INTR",
    107035: "ACL_ERROR_RT_TASK_ABORT_STOP",
    107036: "ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED",
    107037: "ACL_ERROR_RT_MODEL_RUNNING",
    107038: "ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD",
    107039: "ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY",
    107040: "ACL_ERROR_RT_MODEL_UPDATE_FAILED",
    107041: "ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC",
    107042: "ACL_ERROR_RT_SYMBOL_NOT_FOUND",
    107043: "ACL_ERROR_RT_INVALID_SYMBOL",
    107044: "ACL_ERROR_RT_INVALID_DEVICE_FUNCTION",
    107045: "ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING",
    # runtime resource codes
    207000: "ACL_ERROR_RT_FEATURE_NOT_SUPPORT",
    207001: "ACL_ERROR_RT_MEMORY_ALLOCATION",
    207002: "ACL_ERROR_RT_MEMORY_FREE",
    207003: "ACL_ERROR_RT_AICORE_OVER_FLOW",
    207004: "ACL_ERROR_RT_NO_DEVICE",
    207005: "ACL_ERROR_RT_RESOURCE_ALLOC_FAIL",
    207006: "ACL_ERROR_RT_NO_PERMISSION",
    207007: "ACL_ERROR_RT_NO_EVENT_RESOURCE",
    207008: "ACL_ERROR_RT_NO_STREAM_RESOURCE",
    207009: "ACL_ERROR_RT_NO_NOTIFY_RESOURCE",
    207010: "ACL_ERROR_RT_NO_MODEL_RESOURCE",
    207011: "ACL_ERROR_RT_NO_CDQ_RESOURCE",
    207012: "ACL_ERROR_RT_OVER_LIMIT",
    207013: "ACL_ERROR_RT_QUEUE_EMPTY",
    207014: "ACL_ERROR_RT_QUEUE_FULL",
    207015: "ACL_ERROR_RT_REPEATED_INIT",
    207016: "ACL_ERROR_RT_AIVEC_OVER_FLOW",
    207017: "ACL_ERROR_RT_OVER_FLOW",
    207018: "ACL_ERROR_RT_DEVICE_OOM",
    207019: "ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP",
    207020: "ACL_ERROR_RT_TIMEOUT",
    207021: "ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED",
    # runtime internal / execution codes
    507000: "ACL_ERROR_RT_INTERNAL_ERROR",
    507001: "ACL_ERROR_RT_TS_ERROR",
    507002: "ACL_ERROR_RT_STREAM_TASK_FULL",
    507003: "ACL_ERROR_RT_STREAM_TASK_EMPTY",
    507004: "ACL_ERROR_RT_STREAM_NOT_COMPLETE",
    507005: "ACL_ERROR_RT_END_OF_SEQUENCE",
    507006: "ACL_ERROR_RT_EVENT_NOT_COMPLETE",
    507007: "ACL_ERROR_RT_CONTEXT_RELEASE_ERROR",
    507008: "ACL_ERROR_RT_SOC_VERSION",
    507009: "ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT",
    507010: "ACL_ERROR_RT_LOST_HEARTBEAT",
    507011: "ACL_ERROR_RT_MODEL_EXECUTE",
    507012: "ACL_ERROR_RT_REPORT_TIMEOUT",
    507013: "ACL_ERROR_RT_SYS_DMA",
    507014: "ACL_ERROR_RT_AICORE_TIMEOUT",
    507015: "ACL_ERROR_RT_AICORE_EXCEPTION",
    507016: "ACL_ERROR_RT_AICORE_TRAP_EXCEPTION",
    507017: "ACL_ERROR_RT_AICPU_TIMEOUT",
    507018: "ACL_ERROR_RT_AICPU_EXCEPTION",
    507033: "ACL_ERROR_RT_DEV_SETUP_ERROR",
    507034: "ACL_ERROR_RT_VECTOR_CORE_TIMEOUT",
    507035: "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION",
    507046: "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT",
    507047: "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT",
    507053: "ACL_ERROR_RT_DEVICE_MEM_ERROR",
    507054: "ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR",
    507899: "ACL_ERROR_RT_DRV_INTERNAL_ERROR",
    507900: "ACL_ERROR_RT_AICPU_INTERNAL_ERROR",
    507901: "ACL_ERROR_RT_SOCKET_CLOSE",
    507903: "ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED",
    # GE (graph engine) allocation code seen from model APIs (ge_error_codes.h)
    245000: "ACL_ERROR_GE_MEMORY_ALLOCATION",
    # aclnn status codes (nnopbase opdev/op_errno.h)
    161001: "ACLNN_ERR_PARAM_NULLPTR",
    161002: "ACLNN_ERR_PARAM_INVALID",
    361001: "ACLNN_ERR_RUNTIME_ERROR",
    561000: "ACLNN_ERR_INNER",
    561001: "ACLNN_ERR_INNER_INFERSHAPE_ERROR",
    561002: "ACLNN_ERR_INNER_TILING_ERROR",
    561003: "ACLNN_ERR_INNER_FIND_KERNEL_ERROR",
    561101: "ACLNN_ERR_INNER_CREATE_EXECUTOR",
    561102: "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR",
    561103: "ACLNN_ERR_INNER_NULLPTR",
    561104: "ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE",
    561105: "ACLNN_ERR_INNER_KEY_CONFLICT",
    561106: "ACLNN_ERR_INNER_INVALID_IMPL_MODE",
    561107: "ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND",
    561108: "ACLNN_ERR_INNER_LOAD_JSON_FAILED",
}

# One-line meaning of each graph-capture code (CANN aclError documentation).
CAPTURE_MEANINGS = {
    107024: "an event-wait task was captured without a matching captured event record",
    107025: "a stream joined into the capture did not rejoin the origin stream before "
            "aclmdlRICaptureEnd (its last task must be an event record waited on by the capture)",
    107026: "the model is being captured: it cannot be executed or destroyed yet",
    107027: "the stream is being captured: synchronising, querying or destroying it, "
            "or beginning a second capture on it, is not allowed",
    107028: "the event was recorded in a capture: it cannot be synchronised, queried or timed",
    107029: "the stream is not being captured",
    107030: "this operation is not allowed in the current capture mode "
            "(synchronous copies and memsets are unsafe while a GLOBAL/THREAD_LOCAL capture runs)",
    107031: "the default stream cannot be captured; use an explicitly created stream",
    107032: "the event and the stream belong to different captures",
    107033: "task group status is wrong for this call",
    107034: "task group was interrupted",
    107035: "the task was aborted",
    107036: "aclmdlRICaptureEnd was called on a stream where the capture did not begin",
    107037: "the model is running",
    107038: "aclmdlRICaptureEnd must be called from the thread that called aclmdlRICaptureBegin "
            "(unless the capture mode is RELAXED)",
    107041: "an asynchronous operation would have become synchronous (pageable host memory) "
            "while a non-RELAXED capture is active",
    107045: "a sub-graph is being captured",
    507903: "the capture was invalidated by an earlier illegal operation; end it and start again",
}

OUT_OF_MEMORY_CODES = frozenset({200000, 207001, 207018, 245000})
INVALID_VALUE_CODES = frozenset({
    100000, 100026, 100027, 107000, 107001, 107003, 107008, 107016, 107017, 107018,
    161001, 161002, 200002, 200003, 200004, 200005, 561103,
})
CAPTURE_CODES = frozenset(set(range(107024, 107039)) | {107041, 107045, 507903})
NOT_SUPPORTED_CODES = frozenset({200001, 200006, 200007, 207000, 207019, 207021, 507009})


def error_name(code):
    """The ACL constant name of `code` (e.g. 107000 -> "ACL_ERROR_RT_PARAM_INVALID")."""
    return ERROR_NAMES.get(code, "ACL_ERROR_UNKNOWN_%d" % code)


class AclError(RuntimeError):
    """A non-zero status returned by an AscendCL / aclnn call.

    Attributes: ``code`` (int, the aclError value), ``name`` (its ACL constant
    name), ``message`` (the runtime's recent error message, possibly empty),
    ``api`` (the name of the C function that failed).
    """

    def __init__(self, code, api="", message=""):
        self.code = int(code)
        self.name = error_name(self.code)
        self.api = api
        self.message = message or ""
        super().__init__(self._text())

    def _text(self):
        where = "%s failed: " % self.api if self.api else ""
        text = "%s%s (%d)" % (where, self.name, self.code)
        meaning = CAPTURE_MEANINGS.get(self.code)
        if meaning:
            text += ": " + meaning
        if self.message:
            text += ". " + self.message.strip()
        return text

    def __reduce__(self):
        return (_rebuild, (type(self), self.code, self.api, self.message))


def _rebuild(cls, code, api, message):
    return cls(code, api, message)


class OutOfMemoryError(AclError, MemoryError):
    """Device or pinned host memory is exhausted (207001, 207018, 200000, 245000)."""


class InvalidValueError(AclError, ValueError):
    """An argument was rejected by the runtime or an operator (100000, 107000, 107001, 161001, 161002, ...)."""


class CaptureError(AclError):
    """Graph capture was used incorrectly (107024-107038, 107041, 507903); the message says how."""


class NotSupportedError(AclError):
    """The feature is not supported by this provider or product (207000, 200001, 200006, ...)."""


def error_class(code):
    if code in OUT_OF_MEMORY_CODES:
        return OutOfMemoryError
    if code in CAPTURE_CODES:
        return CaptureError
    if code in NOT_SUPPORTED_CODES:
        return NotSupportedError
    if code in INVALID_VALUE_CODES:
        return InvalidValueError
    return AclError


def make_error(code, api="", message=""):
    """The exception instance for `code` returned by `api`."""
    return error_class(code)(code, api, message)
