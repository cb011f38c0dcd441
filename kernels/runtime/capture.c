/* placeholder replaced below */
#include "rt_internal.h"
aclError rt_capture_record_task(rt_stream *s, rt_task *task, const char *api) { (void)s; (void)api; if (task->ops->release) task->ops->release(rt_task_payload(task)); return ACL_ERROR_RT_INTERNAL_ERROR; }
int rt_capture_event_record(rt_stream *s, rt_event *e, const char *api, aclError *err) { (void)s; (void)e; (void)api; (void)err; return -1; }
int rt_capture_stream_wait(rt_stream *s, rt_event *e, const char *api, aclError *err) { (void)s; (void)e; (void)api; (void)err; return -1; }
aclError rt_capture_check_unsafe(const char *api, aclError code) { (void)api; (void)code; return 0; }
bool rt_stream_is_capturing(const rt_stream *s) { (void)s; return false; }
aclError rt_capture_check_event(const rt_event *e, const char *api) { (void)e; (void)api; return 0; }
