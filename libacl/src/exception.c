// SPDX-License-Identifier: MIT
/*
 * Task ids and exception information.
 *
 * A task is one submission to a stream of a context (a copy, a fill, an
 * operator, an event record or wait, a callback...): each thread numbers
 * its tasks from 1 (aclrtGetThreadLastTaskId; 0 before the first). Each
 * stream keeps its last TASK_LOG_LEN tasks: the kernel stream, the
 * sequence number the last of its commands completes at, the task's id
 * and the submitting thread.
 *
 * When a stream fails (the card reports an error in its slot), the
 * failing task is the oldest logged one its kernel stream had not
 * completed. The thread that finds the failure (a synchronization, a
 * query, a submission) records it while it holds the stream's lock, and
 * calls the exception callbacks once it has let go of the lock, before
 * its call returns: so a callback sees the failure before the caller
 * sees its error code. aclrtGetErrorVerbose reports the device's latest
 * failure.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl_internal.h"

#define TASK_LOG_LEN	64
#define EXC_CB_MAX	32

struct acl_task_rec {
	struct acl_kstream *k;
	uint64_t seq;
	uint32_t task_id;
	uint32_t tid;
};

struct acl_task_log {
	uint32_t next;			/* where the next record goes */
	struct acl_task_rec rec[TASK_LOG_LEN];
};

/* What the callbacks get: aclrtExceptionInfo. */
struct rtExceptionInfo {
	uint32_t task_id;
	uint32_t stream_id;
	uint32_t tid;
	uint32_t device_id;
	uint32_t retcode;
};

static __thread uint32_t tls_last_task;
static __thread uint32_t tls_tid;	/* 0 until the thread's first task */
static __thread struct rtExceptionInfo tls_pending;
static __thread bool tls_has_pending;

static struct acl_mutex exc_lock = ACL_MUTEX_INITIALIZER;
static aclrtExceptionInfoCallback exc_set_cb;		/* aclrtSetExceptionInfoCallback */
static aclrtExceptionInfoCallback exc_cbs[EXC_CB_MAX];	/* ...CallbackRegister */
static int exc_ncbs;
static uint32_t dev_last_err[ACL_MAX_DEVICES];		/* enum drm_npu_error */

/* A child of fork() is a thread of its own, with an id of its own. */
static void forget_tid(void)
{
	tls_tid = 0;
}

static void watch_forks(void)
{
	pthread_atfork(NULL, NULL, forget_tid);
}

void acl_task_note_locked(struct acl_stream *s, struct acl_kstream *k, uint64_t seq)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct acl_task_log *log = s->tasks;
	uint32_t id;

	ACL_ASSERT_HELD(&s->lock);
	if (!s->ctx)
		return;		/* internal streams run no tasks of the user's */
	id = ++tls_last_task;
	/* Once per thread: submissions make no system call of their own. */
	if (!tls_tid) {
		pthread_once(&once, watch_forks);
		tls_tid = (uint32_t)gettid();
	}
	if (!log) {
		log = calloc(1, sizeof(*log));
		if (!log)
			return;	/* the ids go on; only the failing one is not named */
		s->tasks = log;
	}
	log->rec[log->next] = (struct acl_task_rec){ k, seq, id, tls_tid };
	log->next = (log->next + 1) % TASK_LOG_LEN;
}

void acl_task_log_free(struct acl_stream *s)
{
	free(s->tasks);
	s->tasks = NULL;
}

/* The oldest logged task of k that had not completed when k stopped at value. */
static const struct acl_task_rec *failed_task(struct acl_stream *s, struct acl_kstream *k,
					      uint64_t value)
{
	struct acl_task_log *log = s->tasks;
	uint32_t i, at;

	if (!log)
		return NULL;
	for (i = 0; i < TASK_LOG_LEN; i++) {
		at = (log->next + i) % TASK_LOG_LEN;
		if (log->rec[at].k == k && !acl_seq_reached(value, log->rec[at].seq))
			return &log->rec[at];
	}
	return NULL;
}

void acl_exception_note_locked(struct acl_stream *s, struct acl_kstream *k, aclError code)
{
	const struct acl_task_rec *t;
	uint64_t value;
	uint32_t e;

	ACL_ASSERT_HELD(&s->lock);
	acl_kstream_state(s->dev, k, &value, &e);
	if (s->dev->id >= 0 && s->dev->id < ACL_MAX_DEVICES)
		__atomic_store_n(&dev_last_err[s->dev->id], e, __ATOMIC_RELAXED);
	if (tls_has_pending || !s->ctx)
		return;		/* the first failure a call finds is the one reported */
	t = failed_task(s, k, value);
	tls_pending = (struct rtExceptionInfo){
		.task_id = t ? t->task_id : 0,
		.stream_id = s->obj.index,
		.tid = t ? t->tid : 0,
		.device_id = (uint32_t)s->dev->id,
		.retcode = (uint32_t)code,
	};
	tls_has_pending = true;
}

void acl_exception_deliver(void)
{
	aclrtExceptionInfoCallback cbs[EXC_CB_MAX + 1];
	struct rtExceptionInfo info;
	int i, n = 0;

	if (!tls_has_pending)
		return;
	info = tls_pending;
	tls_has_pending = false;
	acl_mutex_lock(&exc_lock);
	if (exc_set_cb)
		cbs[n++] = exc_set_cb;
	for (i = 0; i < exc_ncbs; i++)
		cbs[n++] = exc_cbs[i];
	acl_mutex_unlock(&exc_lock);
	for (i = 0; i < n; i++)
		cbs[i](&info);
}

/* ---- public API -------------------------------------------------------- */

ACL_EXPORT aclError aclrtGetThreadLastTaskId(uint32_t *taskId)
{
	ACL_CHECK_NULL(taskId);
	*taskId = tls_last_task;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
	acl_mutex_lock(&exc_lock);
	exc_set_cb = callback;
	acl_mutex_unlock(&exc_lock);
	return ACL_SUCCESS;
}

static int exc_find(aclrtExceptionInfoCallback callback)
{
	int i;

	for (i = 0; i < exc_ncbs; i++)
		if (exc_cbs[i] == callback)
			return i;
	return -1;
}

ACL_EXPORT aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback)
{
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(callback);
	acl_mutex_lock(&exc_lock);
	if (exc_find(callback) < 0) {
		if (exc_ncbs < EXC_CB_MAX)
			exc_cbs[exc_ncbs++] = callback;
		else
			err = ACL_FAIL(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "%d exception callbacks are "
				       "registered already, the most there may be", EXC_CB_MAX);
	}
	acl_mutex_unlock(&exc_lock);
	return err;
}

ACL_EXPORT aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback)
{
	aclError err = ACL_SUCCESS;
	int i;

	ACL_CHECK_NULL(callback);
	acl_mutex_lock(&exc_lock);
	i = exc_find(callback);
	if (i < 0)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the exception callback %p is not registered",
			       (void *)callback);
	else
		exc_cbs[i] = exc_cbs[--exc_ncbs];
	acl_mutex_unlock(&exc_lock);
	return err;
}

/*
 * The getters return 0 for a NULL info, as there is no other way for them
 * to report it; the message says so.
 */
#define INFO_FIELD(info, field) \
	((info) ? (info)->field : \
	 (ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the exception information is NULL"), 0))

ACL_EXPORT uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return INFO_FIELD(info, task_id);
}

ACL_EXPORT uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return INFO_FIELD(info, stream_id);
}

ACL_EXPORT uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return INFO_FIELD(info, tid);
}

ACL_EXPORT uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return INFO_FIELD(info, device_id);
}

ACL_EXPORT uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return INFO_FIELD(info, retcode);
}

#define NO_KERNELS "this runtime launches no kernel binaries (the card runs its own " \
	"operators), so a failed task has no function handle or kernel arguments"

ACL_EXPORT aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info,
							aclrtFuncHandle *func)
{
	ACL_CHECK_NULL(info);
	ACL_CHECK_NULL(func);
	return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, NO_KERNELS);
}

ACL_EXPORT aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info,
						  void **devArgsPtr, uint32_t *devArgsLen)
{
	ACL_CHECK_NULL(info);
	ACL_CHECK_NULL(devArgsPtr);
	ACL_CHECK_NULL(devArgsLen);
	return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, NO_KERNELS);
}

/* The device's latest failure, by the vendor's error types. */
ACL_EXPORT aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo)
{
	uint32_t e;

	ACL_CHECK_NULL(errorInfo);
	acl_enumerate_devices(false);
	if (!acl_device_get(deviceId))
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
	e = __atomic_load_n(&dev_last_err[deviceId], __ATOMIC_RELAXED);
	memset(errorInfo, 0, sizeof(*errorInfo));
	switch (e) {
	case DRM_NPU_ERR_NONE:
		errorInfo->errorType = ACL_RT_NO_ERROR;
		break;
	case DRM_NPU_ERR_DMA:
		errorInfo->errorType = ACL_RT_ERROR_MEMORY;
		break;
	/* A descriptor the card refused, or its library failed: software's. */
	case DRM_NPU_ERR_OP_UNSUPPORTED:
	case DRM_NPU_ERR_OP_PARAM:
	case DRM_NPU_ERR_OP_FAILED:
		errorInfo->errorType = ACL_RT_ERROR_AICORE;
		errorInfo->hasDetail = 1;
		errorInfo->detail.aicoreErrType = ACL_RT_AICORE_ERROR_SW;
		break;
	default:
		errorInfo->errorType = ACL_RT_ERROR_OTHERS;
		break;
	}
	return ACL_SUCCESS;
}
