"""cffi declarations of npusim's own tools (not part of the ACL ABI, so the CANN loader never
looks for them): the strict-mode log (kernels/runtime/notes.c), the stream race detector
(kernels/include/npusim_racecheck.h) and the one-call direct copy on an idle stream
(kernels/runtime/copy.c)."""

CDEF = """
size_t npusim_take_notes(char *buf, size_t cap);
int npusim_racecheck_set_mode(int mode);
int npusim_racecheck_get_mode(void);
size_t npusim_racecheck_next_report(char *buf, size_t size);
void npusim_racecheck_set_site_provider(void (*provider)(char *buf, size_t size));
#define NPUSIM_STREAM_BUSY -1
aclError npusim_memcpy_if_idle(void *dst, size_t destMax, const void *src, size_t count,
                               aclrtMemcpyKind kind, aclrtStream stream);
"""
