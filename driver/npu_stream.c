// SPDX-License-Identifier: GPL-2.0-only
/*
 * Streams: in-order queues of work, each on a ring of its own. A stream
 * retires its jobs as the card completes them, and fails as a whole when
 * the card reports an error, when it stops making progress, or when the
 * card dies: its waiters then see the error instead of hanging.
 */

#include "npu_drv.h"

/*
 * The card interrupts only for batches someone waits for, so completed
 * jobs are retired by a submission that finds enough of them, by a wait on
 * their context, or by the stream's retire work, which looks this long
 * after an idle stream's submission and again this often while the stream
 * has jobs.
 */
#define NPU_RETIRE_LAZY_MS	10

/* Completed jobs a submission leaves for one retire of them all. */
#define NPU_RETIRE_BATCH	32

static void npu_stream_release(struct kref *ref)
{
	struct npu_stream *stream = container_of(ref, struct npu_stream, ref);

	mutex_destroy(&stream->submit_lock);
	npu_job_pool_fini(stream);
	/* npu_stream_get() may still be looking at it under RCU. */
	kfree_rcu(stream, rcu);
}

void npu_stream_put(struct npu_stream *stream)
{
	kref_put(&stream->ref, npu_stream_release);
}

/**
 * npu_stream_get - look up a stream of a context
 * @ctx: the context
 * @id: stream number
 *
 * Lock-free, so that threads submitting to their own streams do not
 * contend on the context.
 *
 * Return: the stream with a reference, or NULL.
 */
struct npu_stream *npu_stream_get(struct npu_ctx *ctx, u32 id)
{
	struct npu_stream *stream;

	rcu_read_lock();
	stream = xa_load(&ctx->streams, id);
	if (stream && !kref_get_unless_zero(&stream->ref))
		stream = NULL;
	rcu_read_unlock();
	return stream;
}

static struct drm_npu_fence_slot *npu_stream_slot(struct npu_stream *stream)
{
	return npu_ctx_slot(stream->ctx, stream->slot);
}

/*
 * Decided from the ring's own completion word: the stream's slot lies in
 * memory that userspace can have the card write with any value.
 */
static bool npu_job_done(struct npu_stream *stream, struct npu_job *job)
{
	return (s64)(READ_ONCE(*stream->ring->done) - job->seqno) >= 0;
}

static void npu_job_fail_events(struct npu_stream *stream, struct npu_job *job)
{
	unsigned int i;

	lockdep_assert_held(&stream->lock);
	for (i = 0; i < job->nevents; i++)
		WRITE_ONCE(npu_ctx_slot(stream->ctx, job->event_slots[i])->error,
			   stream->error);
	npu_job_set_program_events(stream->ctx, job, stream->error);
}

/* The events of queued jobs that a ring which did not stop keeps. */
static void npu_stream_fail_kept_events(struct npu_stream *stream)
{
	struct npu_job *job;

	spin_lock_irq(&stream->lock);
	list_for_each_entry(job, &stream->jobs, link)
		npu_job_fail_events(stream, job);
	spin_unlock_irq(&stream->lock);
}

/*
 * Frees the jobs the card completed, or every job when @all; the caller
 * guarantees that the card no longer runs the ring in that case.  The
 * counters move under the lock, in job order, whoever retires.
 */
static void npu_stream_retire(struct npu_stream *stream, bool all)
{
	struct npu_job *job, *next;
	LIST_HEAD(done);
	u64 bytes = 0;
	bool retired;

	npu_compute_sample(stream);
	spin_lock_irq(&stream->lock);
	list_for_each_entry_safe(job, next, &stream->jobs, link) {
		if (npu_job_done(stream, job)) {
			WRITE_ONCE(stream->completed, job->seqno);
			bytes += job->bytes;
		} else if (all) {
			npu_job_fail_events(stream, job);
		} else {
			break;
		}
		list_move_tail(&job->link, &done);
	}
	if (bytes) {
		atomic64_add(bytes, &stream->bytes);
		atomic64_add(bytes, &stream->ctx->bytes_moved);
	}
	retired = !list_empty(&done);
	if (retired && list_empty(&stream->jobs))
		atomic64_add(ktime_to_ns(ktime_sub(ktime_get(), stream->busy_since)),
			     &stream->ctx->busy_ns);
	spin_unlock_irq(&stream->lock);

	npu_jobs_recycle(stream, &done);
	/*
	 * Waiters are rare now that most retires come from submissions:
	 * wq_has_sleeper()'s barrier pairs with the one in prepare_to_wait().
	 */
	if (wq_has_sleeper(&stream->space_wq))
		wake_up_all(&stream->space_wq);
	/* Also when the card's interrupt was lost: the hang check got here. */
	if (retired && wq_has_sleeper(&stream->ctx->wq))
		wake_up_all(&stream->ctx->wq);
}

/**
 * npu_stream_update - retire what the card completed before reporting on it
 * @stream: the stream
 *
 * The card's fence write reaches userspace before its interrupt is handled;
 * a report read right after a wait must already count the work waited for.
 */
void npu_stream_update(struct npu_stream *stream)
{
	npu_stream_retire(stream, false);
}

/**
 * npu_stream_retire_completed - retire completed jobs once there are enough
 * @stream: the stream
 *
 * A submission's retire: a retire costs about what a submission does
 * (the locks, the ring's counters, a free per job), so a stream whose card
 * keeps up leaves NPU_RETIRE_BATCH completed jobs for one retire, which a
 * look at the ring's completion word tells.  Reports still count the
 * counters through npu_stream_update(), and the retire work frees what is
 * left at the latest NPU_RETIRE_LAZY_MS later.
 */
void npu_stream_retire_completed(struct npu_stream *stream)
{
	if (READ_ONCE(*stream->ring->done) - READ_ONCE(stream->completed) <
	    NPU_RETIRE_BATCH)
		return;
	npu_stream_retire(stream, false);
}

/**
 * npu_ctx_retire - retire what the card completed on every stream of a context
 * @ctx: the context
 *
 * Before a report on the context, which counts everything done.
 */
void npu_ctx_retire(struct npu_ctx *ctx)
{
	struct npu_stream *stream;
	unsigned long id;

	mutex_lock(&ctx->lock);
	xa_for_each(&ctx->streams, id, stream)
		npu_stream_retire(stream, false);
	mutex_unlock(&ctx->lock);
}

/* A completed job of @stream pinned user memory. */
static bool npu_stream_done_pinned(struct npu_stream *stream)
{
	struct npu_job *job;
	bool pinned = false;

	spin_lock_irq(&stream->lock);
	list_for_each_entry(job, &stream->jobs, link) {
		if (!npu_job_done(stream, job))
			break;
		if (job->npins) {
			pinned = true;
			break;
		}
	}
	spin_unlock_irq(&stream->lock);
	return pinned;
}

/**
 * npu_ctx_retire_for_waiter - retire what a waiter must not return before
 * @ctx: the context
 *
 * As npu_ctx_retire(), but only the streams whose completed jobs pinned
 * user memory: the waiter reads that memory next, so the buffers must be
 * unmapped for the card (synced for the CPU) first, not whenever the
 * interrupt's work gets to them; that also keeps a loop that submits into
 * the same user buffer from stacking mappings of it. The rest (device
 * buffers, descriptors) is the next submission's to retire, which does so
 * once its own batch is on the ring, while the card runs it; or the retire
 * work's. Freeing a job costs ~100 us under TCG, which a waiter would
 * otherwise spend between the interrupt and its return.
 */
void npu_ctx_retire_for_waiter(struct npu_ctx *ctx)
{
	struct npu_stream *stream;
	unsigned long id;

	mutex_lock(&ctx->lock);
	xa_for_each(&ctx->streams, id, stream)
		if (npu_stream_done_pinned(stream))
			npu_stream_retire(stream, false);
	mutex_unlock(&ctx->lock);
}

/**
 * npu_stream_fail - fail a stream and all its queued work
 * @stream: the stream
 * @error: enum drm_npu_error
 *
 * Stops the ring, then releases what the queued jobs held and marks their
 * slots failed. The stream accepts no work afterwards.
 */
void npu_stream_fail(struct npu_stream *stream, u32 error)
{
	struct npu_ctx *ctx = stream->ctx;
	bool stopped;

	spin_lock_irq(&stream->lock);
	if (stream->state != NPU_STREAM_ACTIVE) {
		spin_unlock_irq(&stream->lock);
		return;
	}
	/*
	 * The slot says why before SUBMIT can answer -EIO, so that whoever
	 * learns of the failure from SUBMIT finds its reason there too.
	 */
	if (error == DRM_NPU_ERR_PAGE_FAULT)
		npu_vm_report_fault(stream);
	WRITE_ONCE(npu_stream_slot(stream)->error, error);
	WRITE_ONCE(stream->error, error);
	WRITE_ONCE(stream->state, NPU_STREAM_FAILED);
	spin_unlock_irq(&stream->lock);
	/* A submitter waiting for ring space gives up its lock. */
	wake_up_all(&stream->space_wq);

	mutex_lock(&stream->submit_lock);
	/* What the ring computed for the stream, before a reset zeroes it. */
	npu_compute_sample(stream);
	stopped = npu_rings_stopped(ctx->ndev) || !npu_ring_reset(stream->ring);
	WRITE_ONCE(npu_stream_slot(stream)->error, error);
	if (stopped) {
		npu_stream_retire(stream, true);
		if (stream->direct)
			npu_direct_fail_events(stream, error);
	} else {
		drm_err(&ctx->ndev->drm, "ring %u did not stop; its pages stay pinned\n",
			stream->ring->index);
		npu_stream_fail_kept_events(stream);
		if (error == DRM_NPU_ERR_HANG)
			npu_reset_hung_ring(stream->ring);
	}
	mutex_unlock(&stream->submit_lock);
	wake_up_all(&ctx->wq);
	/* Streams waiting on the card for this one's events would wait forever. */
	queue_work(system_wq, &ctx->propagate_work);
}

/**
 * npu_stream_release_stopped - let go of what a failed stream's ring kept
 * @stream: a failed stream, its ring stopped by a card reset
 *
 * A ring that did not confirm its own reset kept the stream's queued jobs;
 * once the whole card is reset they can go.
 */
void npu_stream_release_stopped(struct npu_stream *stream)
{
	mutex_lock(&stream->submit_lock);
	npu_stream_retire(stream, true);
	mutex_unlock(&stream->submit_lock);
}

/* The stream waits, in a queued job, on a slot that failed before reaching the value. */
static bool npu_stream_waits_on_failure(struct npu_stream *stream)
{
	struct npu_job *job;
	bool blocked = false;
	unsigned int i;

	spin_lock_irq(&stream->lock);
	list_for_each_entry(job, &stream->jobs, link) {
		for (i = 0; i < job->nwaits && !blocked; i++)
			blocked = npu_ctx_wait_failed(stream->ctx, &job->waits[i]);
		blocked = blocked || npu_job_programs_wait_on_failure(stream->ctx, job);
		if (blocked)
			break;
	}
	spin_unlock_irq(&stream->lock);
	return blocked;
}

/**
 * npu_ctx_propagate_work - fail the streams that wait for failed work
 * @work: npu_ctx.propagate_work
 *
 * A failed stream's events never reach their values, so a stream waiting
 * on one on the card would only end by the hang timeout; fail it now.
 * Failing it queues this work again, which follows chains of streams.
 */
void npu_ctx_propagate_work(struct work_struct *work)
{
	struct npu_ctx *ctx = container_of(work, struct npu_ctx, propagate_work);
	struct npu_stream *stream;
	unsigned long id;

	mutex_lock(&ctx->lock);
	xa_for_each(&ctx->streams, id, stream) {
		if (READ_ONCE(stream->state) == NPU_STREAM_ACTIVE &&
		    npu_stream_waits_on_failure(stream))
			npu_stream_fail(stream, DRM_NPU_ERR_DEPENDENCY);
	}
	mutex_unlock(&ctx->lock);
}

/* Nothing queued, or nothing that will run any more; a direct stream has no jobs. */
static bool npu_stream_idle(struct npu_stream *stream)
{
	bool idle;

	spin_lock_irq(&stream->lock);
	idle = list_empty(&stream->jobs) || stream->state != NPU_STREAM_ACTIVE;
	spin_unlock_irq(&stream->lock);
	return idle;
}

static u32 npu_ring_error_to_uapi(u32 error)
{
	switch (error) {
	case NPU_ERR_DMA:
		return DRM_NPU_ERR_DMA;
	/* The driver checked the descriptor; what is left is the operator's. */
	case NPU_ERR_OPERATOR:
		return DRM_NPU_ERR_OP_UNSUPPORTED;
	case NPU_ERR_OP_PARAM:
		return DRM_NPU_ERR_OP_PARAM;
	case NPU_ERR_OP_FAILED:
		return DRM_NPU_ERR_OP_FAILED;
	case NPU_ERR_PAGE_FAULT:
		return DRM_NPU_ERR_PAGE_FAULT;
	default:
		return DRM_NPU_ERR_REJECTED;
	}
}

static void npu_stream_retire_work(struct work_struct *work)
{
	struct npu_stream *stream = container_of(to_delayed_work(work),
						 struct npu_stream, retire_work);
	struct npu_device *ndev = stream->ctx->ndev;
	u32 status = NPU_RING_IDLE, error = 0;
	int idx;

	if (drm_dev_enter(&ndev->drm, &idx)) {
		status = npu_ring_status(stream->ring);
		error = npu_ring_error(stream->ring);
		drm_dev_exit(idx);
	}
	if (status == NPU_RING_STOPPED && READ_ONCE(stream->state) == NPU_STREAM_ACTIVE) {
		drm_dbg_driver(&ndev->drm, "ring %u stopped with error %u\n",
			       stream->ring->index, error);
		npu_stream_fail(stream, npu_ring_error_to_uapi(error));
		return;
	}
	npu_stream_retire(stream, false);
	if (!npu_stream_idle(stream))
		queue_delayed_work(system_wq, &stream->retire_work,
				   msecs_to_jiffies(NPU_RETIRE_LAZY_MS));
}

/*
 * Commands executed, bytes moved and time computed: a long copy advances
 * the bytes, a long operator the time, which a hung one does not.
 */
static u64 npu_stream_progress(struct npu_ring *ring)
{
	return npu_ring_rd64(ring, NPU_RING_CMDS_DONE) +
	       npu_ring_rd64(ring, NPU_RING_BYTES_DONE) +
	       npu_ring_rd64(ring, NPU_RING_COMPUTE_NS);
}

static void npu_stream_hang_check(struct npu_stream *stream)
{
	struct npu_ring *ring = stream->ring;
	bool direct_idle = false;
	u32 status, error;
	u64 progress;
	int idx;

	if (!drm_dev_enter(&stream->ctx->ndev->drm, &idx))
		return;
	status = npu_ring_status(ring);
	error = npu_ring_error(ring);
	progress = npu_stream_progress(ring);
	/* A direct ring is idle when the card has all that userspace gave it. */
	if (stream->direct)
		direct_idle = status == NPU_RING_IDLE &&
			      npu_direct_ring_tail(ring) == npu_ring_rd32(ring, NPU_RING_HEAD);
	drm_dev_exit(idx);

	/* Stopped with an error whose interrupt was lost. */
	if (status == NPU_RING_STOPPED) {
		npu_stream_fail(stream, npu_ring_error_to_uapi(error));
		return;
	}
	/*
	 * A ring stalled on a WAIT waits for another stream or for the CPU,
	 * whose failures reach it as DEPENDENCY; a card that stops its
	 * heartbeat is dead, not hung: wait for that verdict.
	 */
	if (progress == stream->progress && status != NPU_RING_WAITING && !direct_idle &&
	    !npu_card_heartbeat_stale(stream->ctx->ndev)) {
		drm_warn(&stream->ctx->ndev->drm, "ring %u made no progress for %u ms, declared hung\n",
			 ring->index, npu_hang_timeout_ms);
		npu_stream_fail(stream, DRM_NPU_ERR_HANG);
		return;
	}
	stream->progress = progress;
	schedule_delayed_work(&stream->hang_work, msecs_to_jiffies(npu_hang_timeout_ms));
}

static void npu_stream_hang_work(struct work_struct *work)
{
	struct npu_stream *stream = container_of(to_delayed_work(work),
						 struct npu_stream, hang_work);

	/* Also retires what completed with its interrupt lost. */
	npu_stream_retire(stream, false);
	/* Only the card knows what a direct stream queued: it is watched while it lives. */
	if (READ_ONCE(stream->state) == NPU_STREAM_ACTIVE &&
	    (stream->direct || !npu_stream_idle(stream)))
		npu_stream_hang_check(stream);
}

/* Called under npu_device.rings_lock from the ring's interrupt. */
void npu_stream_irq(struct npu_stream *stream)
{
	bool woke = wq_has_sleeper(&stream->ctx->wq);

	lockdep_assert_held(&stream->ctx->ndev->rings_lock);
	wake_up_all(&stream->ctx->wq);
	wake_up_all(&stream->space_wq);
	/*
	 * Now, also when a lazy retire is pending; unless the interrupt wakes
	 * someone on a ring that still runs. A woken waiter retires what needs
	 * it before returning (npu_ctx_retire_for_waiter()), and the work, at
	 * high priority, would run first, on the waiter's critical path.
	 */
	if (!woke || npu_ring_status(stream->ring) == NPU_RING_STOPPED)
		mod_delayed_work(system_highpri_wq, &stream->retire_work, 0);
}

/**
 * npu_stream_add_job - account a job that is about to reach the ring
 * @stream: the stream, with submit_lock held
 * @job: the job
 */
void npu_stream_add_job(struct npu_stream *stream, struct npu_job *job)
{
	bool was_idle;

	lockdep_assert_held(&stream->submit_lock);
	spin_lock_irq(&stream->lock);
	was_idle = list_empty(&stream->jobs);
	if (was_idle)
		stream->busy_since = ktime_get();
	list_add_tail(&job->link, &stream->jobs);
	npu_job_pool_set_spare(stream);
	spin_unlock_irq(&stream->lock);
	/*
	 * Both works queue themselves again for as long as they find jobs
	 * (under the lock, as here), so only an idle stream's first job arms
	 * them; either does nothing when it is pending already.
	 */
	if (!was_idle)
		return;
	schedule_delayed_work(&stream->hang_work, msecs_to_jiffies(npu_hang_timeout_ms));
	queue_delayed_work(system_wq, &stream->retire_work,
			   msecs_to_jiffies(NPU_RETIRE_LAZY_MS));
}

const char *npu_stream_state_name(struct npu_stream *stream)
{
	switch (READ_ONCE(stream->state)) {
	case NPU_STREAM_FAILED:
		return READ_ONCE(stream->error) == DRM_NPU_ERR_HANG ? "hung" : "failed";
	case NPU_STREAM_DESTROYED:
		return "destroyed";
	default:
		if (stream->direct)
			return "direct";
		return list_empty(&stream->jobs) ? "idle" : "busy";
	}
}

/*
 * The card did not stop the ring: the pages and buffers of the stream's
 * queued jobs, and the fence area the ring writes, stay with the ring
 * until a global reset (npu_rings_reclaim()).
 */
static void npu_stream_leave_to_ring(struct npu_stream *stream)
{
	struct npu_ring *ring = stream->ring;

	spin_lock_irq(&stream->lock);
	list_splice_tail_init(&stream->jobs, &ring->kept_jobs);
	spin_unlock_irq(&stream->lock);
	drm_gem_object_get(&stream->ctx->fence->gem);
	ring->kept_fence = &stream->ctx->fence->gem;
}

/*
 * Waits until the stream has nothing queued, with the card interrupting
 * for each of its batches meanwhile (they write the stream's slot): from
 * the retire below on, the retire work those interrupts queue wakes us.
 */
static int npu_stream_wait_idle(struct npu_stream *stream, bool interruptible)
{
	int ret = 0;

	npu_ctx_slot_irq_get(stream->ctx, stream->slot);
	npu_stream_retire(stream, false);
	if (interruptible)
		ret = wait_event_interruptible(stream->space_wq, npu_stream_idle(stream));
	else
		wait_event(stream->space_wq, npu_stream_idle(stream));
	npu_ctx_slot_irq_put(stream->ctx, stream->slot);
	return ret;
}

/**
 * npu_stream_destroy - tear down a stream taken out of its context's table
 * @stream: the stream; the caller gives up the table's reference
 * @abort: fail queued work instead of waiting for it
 */
void npu_stream_destroy(struct npu_stream *stream, bool abort)
{
	struct npu_ctx *ctx = stream->ctx;

	if (!abort)
		npu_stream_wait_idle(stream, false);
	npu_stream_fail(stream, DRM_NPU_ERR_ABORTED);
	spin_lock_irq(&stream->lock);
	WRITE_ONCE(stream->state, NPU_STREAM_DESTROYED);
	spin_unlock_irq(&stream->lock);

	if (stream->direct)
		npu_direct_stream_stop(stream);
	npu_sysfs_stream_remove(stream);
	npu_ring_attach(stream->ring, NULL);
	cancel_delayed_work_sync(&stream->retire_work);
	cancel_delayed_work_sync(&stream->hang_work);

	if (stream->ring->cmds && npu_ring_stop(stream->ring))
		npu_stream_leave_to_ring(stream);
	npu_ring_release(stream->ring);
	npu_ctx_slot_free(ctx, stream->slot);
	npu_stream_put(stream);
}

static int npu_stream_check_args(struct npu_device *ndev,
				 struct drm_npu_stream_create *args)
{
	if (args->flags & ~DRM_NPU_STREAM_DIRECT || args->pad || args->id || args->slot)
		return -EINVAL;
	if (args->priority > DRM_NPU_PRIORITY_LOWEST)
		return -EINVAL;
	if (args->ring_entries &&
	    (args->ring_entries < 4 || !is_power_of_2(args->ring_entries) ||
	     args->ring_entries > ndev->id.max_ring_entries))
		return -EINVAL;
	return 0;
}

static struct npu_stream *npu_stream_alloc(struct npu_ctx *ctx, u32 priority)
{
	struct npu_stream *stream = kzalloc(sizeof(*stream), GFP_KERNEL);

	if (!stream)
		return NULL;
	kref_init(&stream->ref);
	stream->ctx = ctx;
	stream->priority = priority;
	stream->state = NPU_STREAM_ACTIVE;
	mutex_init(&stream->submit_lock);
	spin_lock_init(&stream->lock);
	INIT_LIST_HEAD(&stream->jobs);
	INIT_LIST_HEAD(&stream->job_pool);
	init_waitqueue_head(&stream->space_wq);
	INIT_DELAYED_WORK(&stream->retire_work, npu_stream_retire_work);
	INIT_DELAYED_WORK(&stream->hang_work, npu_stream_hang_work);
	INIT_LIST_HEAD(&stream->direct_link);
	return stream;
}

int npu_stream_create_ioctl(struct drm_device *dev, void *data,
			    struct drm_file *file)
{
	struct drm_npu_stream_create *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	struct npu_device *ndev = ctx->ndev;
	struct npu_stream *stream;
	u32 entries, id;
	int ret, slot, idx;

	ret = npu_stream_check_args(ndev, args);
	if (ret)
		return ret;
	entries = args->ring_entries ?:
		  min(DRM_NPU_RING_ENTRIES_DEFAULT, ndev->id.max_ring_entries);

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;
	ret = npu_reset_stream_create_begin(ctx);
	if (ret)
		goto out_exit;
	ret = -ENODEV;
	if (READ_ONCE(ndev->dead))
		goto out_reset;

	ret = -ENOMEM;
	stream = npu_stream_alloc(ctx, args->priority);
	if (!stream)
		goto out_reset;
	stream->direct = args->flags & DRM_NPU_STREAM_DIRECT;

	slot = npu_ctx_slot_alloc(ctx, false);
	if (slot < 0) {
		ret = slot;
		goto err_free;
	}
	stream->slot = slot;

	ret = npu_vm_activate(ctx);
	if (ret)
		goto err_slot;
	ret = -EBUSY;
	stream->ring = npu_ring_claim(ndev);
	if (!stream->ring)
		goto err_slot;
	stream->ring->as = npu_vm_as(ctx);
	if (stream->direct)
		ret = npu_direct_stream_start(stream, entries);
	else
		ret = npu_ring_start(stream->ring, entries, stream->priority);
	if (ret)
		goto err_ring;

	/* Reserve the id; lookups find nothing there until the stream is ready. */
	mutex_lock(&ctx->lock);
	ret = xa_alloc(&ctx->streams, &id, NULL, xa_limit_31b, GFP_KERNEL);
	mutex_unlock(&ctx->lock);
	if (ret)
		goto err_stop;

	stream->id = id;
	npu_ring_attach(stream->ring, stream);
	npu_sysfs_stream_add(stream);
	/* From here another thread may destroy it: use only the copies. */
	mutex_lock(&ctx->lock);
	xa_store(&ctx->streams, id, stream, GFP_KERNEL);
	mutex_unlock(&ctx->lock);
	args->id = id;
	args->slot = slot;
	if (stream->direct)
		schedule_delayed_work(&stream->hang_work,
				      msecs_to_jiffies(npu_hang_timeout_ms));
	npu_reset_stream_create_end(ctx);
	drm_dev_exit(idx);
	return 0;

err_stop:
	if (stream->direct)
		npu_direct_stream_stop(stream);
	npu_ring_stop(stream->ring);
err_ring:
	npu_ring_release(stream->ring);
err_slot:
	npu_ctx_slot_free(ctx, slot);
err_free:
	npu_stream_put(stream);
out_reset:
	npu_reset_stream_create_end(ctx);
out_exit:
	drm_dev_exit(idx);
	return ret;
}

int npu_stream_destroy_ioctl(struct drm_device *dev, void *data,
			     struct drm_file *file)
{
	struct drm_npu_stream_destroy *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	struct npu_stream *stream;
	bool abort = args->flags & DRM_NPU_STREAM_DESTROY_ABORT;
	int ret = 0;

	if (args->flags & ~DRM_NPU_STREAM_DESTROY_ABORT)
		return -EINVAL;
	stream = npu_stream_get(ctx, args->id);
	if (!stream)
		return -ENOENT;

	if (!abort && npu_stream_wait_idle(stream, true)) {
		npu_stream_put(stream);
		return -ERESTARTSYS;
	}

	mutex_lock(&ctx->lock);
	if (xa_load(&ctx->streams, args->id) == stream)
		xa_erase(&ctx->streams, args->id);
	else
		ret = -ENOENT;	/* another thread destroyed it meanwhile */
	mutex_unlock(&ctx->lock);

	if (!ret)
		npu_stream_destroy(stream, abort);
	npu_stream_put(stream);
	return ret;
}
