"""cffi declarations of npuarray's launch helper (``_launch.h``), compiled into the
npusim extension only: not part of the ACL ABI, so the CANN loader never looks for it.
It reaches either provider through function pointers (see ``npuarray._core._ops``)."""

CDEF = """
#define NPUARRAY_NEEDS_WORKSPACE -1
int32_t npuarray_aclnn_launch(void *get_workspace_size, void *launch, int32_t count, void *a,
                              void *b, void *c, void *d, void *stream);
int32_t npuarray_aclnn_failed_phase(void);
void npuarray_aclnn_pending(uint64_t *workspace_size, void **executor);
int32_t npuarray_aclnn_launch_reduce(void *get_workspace_size, void *launch, void *self,
                                     void *dim, bool keep_dim, void *out, void *stream);
int32_t npuarray_aclnn_launch_reduce_dtype(void *get_workspace_size, void *launch, void *self,
                                           void *dim, bool keep_dim, aclDataType dtype,
                                           void *out, void *stream);
int32_t npuarray_aclnn_launch_reduce_index(void *get_workspace_size, void *launch, void *self,
                                           int64_t dim, bool keep_dim, void *out, void *stream);
int32_t npuarray_aclnn_launch_std(void *get_workspace_size, void *launch, void *self, void *dim,
                                  int64_t correction, bool keep_dim, void *out, void *stream);
int32_t npuarray_aclnn_launch_var(void *get_workspace_size, void *launch, void *self, void *dim,
                                  bool unbiased, bool keep_dim, void *out, void *stream);
int32_t npuarray_aclnn_launch_matmul(void *get_workspace_size, void *launch, void *self,
                                     void *mat2, void *out, int8_t cube_math_type, void *stream);
"""
