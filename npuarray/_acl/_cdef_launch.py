"""cffi declarations of npuarray's launch helper (``_launch.h``), compiled into the
npusim extension only: not part of the ACL ABI, so the CANN loader never looks for it.
It reaches either provider through function pointers (see ``npuarray._ops``)."""

CDEF = """
int32_t npuarray_launch_binary(void *get_workspace_size, void *launch, void *self, void *other,
                               void *alpha, void *out, void *stream, uint64_t *workspace_size,
                               void **executor);
"""
