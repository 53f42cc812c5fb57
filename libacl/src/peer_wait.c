// SPDX-License-Identifier: MIT
/*
 * A stream of one card waiting, on the card, for an event of another: the
 * card-to-card signal. No host thread takes part.
 *
 * For each (owner, waiter) pair of devices, the owner being the card the
 * event is recorded on, there is a signal: a page of the waiter's memory
 * mapped at one address outside the windows in both cards' address spaces
 * (into the owner's through PRIME, so through its peer window), and a
 * relay stream of the owner's. Each cross-card wait takes the pair's next
 * sequence number n and queues
 *   on the relay:  SLOT_WAIT (the event's slot >= its recorded value),
 *                  VALUE_WRITE (the signal word = n)
 *   on the stream: VALUE_WAIT (the signal word >= n)
 * so the owner's card writes across the window and the waiter's card polls
 * its own memory. The relay is one stream, so the word only grows, and a
 * wait is never released by the record of a later one.
 *
 * Failure: a relay whose event's stream failed is failed by the driver
 * (DRM_NPU_ERR_DEPENDENCY) and never writes n. The waiter's card cannot
 * see that, so the runtime breaks the signal when it learns it: while a
 * synchronization of the waiter sleeps, and at the pair's next wait. The
 * page is unmapped from the waiter, whose streams waiting on it then stop
 * with a page fault at the signal's address: released with an error, as a
 * same-card wait on a failed event fails its stream. A fresh signal serves
 * later waits.
 */
#include <errno.h>
#include <stdlib.h>

#include "capture.h"
#include "peer.h"
#include "va_space.h"
#include "vmm.h"

#define SIGNAL_BYTES	DRM_NPU_VM_PAGE_SIZE

struct peer_signal {
	struct acl_device *owner, *waiter;
	uint32_t bo;		/* the page, in the waiter's file */
	uint32_t import;	/* the page, in the owner's file */
	uint64_t addr;		/* where both cards see it */
	struct acl_stream *relay;	/* the owner's */
	uint64_t seq;		/* the last value handed to a wait */
};

static struct acl_mutex signal_lock = ACL_MUTEX_INITIALIZER;
/* [owner][waiter] */
static struct peer_signal *signals[ACL_MAX_DEVICES][ACL_MAX_DEVICES];

/* Undoes what signal_new did, as far as it got (signal_lock held). */
static void signal_free(struct peer_signal *sig)
{
	struct acl_device *o = sig->owner, *w = sig->waiter;

	if (sig->relay)
		acl_stream_free(sig->relay, false);
	if (sig->import && o->fd >= 0) {
		drv_vm_bind(o->fd, DRM_NPU_VM_UNMAP, 0, 0, 0, sig->addr, SIGNAL_BYTES);
		drv_gem_close(o->fd, sig->import);
	}
	if (sig->bo && w->fd >= 0) {
		/* the waiter's streams still waiting on the word fault here */
		drv_vm_bind(w->fd, DRM_NPU_VM_UNMAP, 0, 0, 0, sig->addr, SIGNAL_BYTES);
		drv_gem_close(w->fd, sig->bo);
	}
	if (sig->addr)
		acl_va_release(sig->addr);
	free(sig);
}

/* A new buffer's bytes are not known: the word starts at 0 before any wait reads it. */
static aclError signal_zero(struct peer_signal *sig)
{
	struct drm_npu_cmd zero = { .op = DRM_NPU_OP_VALUE_WRITE, .dst = sig->addr };
	aclError err = acl_stream_submit(sig->relay, &zero, 1, NULL);

	return err ? err : acl_stream_sync(sig->relay, -1);
}

static aclError signal_new(struct acl_device *o, struct acl_device *w, struct peer_signal **out)
{
	const char *fn = "aclrtStreamWaitEvent";
	struct peer_signal *sig = calloc(1, sizeof(*sig));
	aclError err = ACL_SUCCESS;
	uint64_t window_addr;
	int ret;

	if (!sig)
		return acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of host memory");
	sig->owner = o;
	sig->waiter = w;
	ret = acl_va_reserve(SIGNAL_BYTES, SIGNAL_BYTES, 0, &sig->addr);
	if (ret) {
		sig->addr = 0;
		err = acl_fail(fn, ACL_ERROR_RT_MEMORY_ALLOCATION, "no device address left for "
			       "a card-to-card signal");
		goto fail;
	}
	ret = drv_bo_create(w->fd, SIGNAL_BYTES, DRM_NPU_BO_DEVICE, &sig->bo, &window_addr, NULL);
	if (!ret)
		ret = drv_vm_bind(w->fd, DRM_NPU_VM_MAP, 0, sig->bo, 0, sig->addr, SIGNAL_BYTES);
	if (ret) {
		err = acl_drv_fail(fn, w, ret, "making the signal page of device %d's waits on "
				   "device %d", w->id, o->id);
		goto fail;
	}
	ret = drv_prime_share(w->fd, sig->bo, o->fd, &sig->import);
	if (!ret)
		ret = drv_vm_bind(o->fd, DRM_NPU_VM_MAP, 0, sig->import, 0, sig->addr, SIGNAL_BYTES);
	if (ret) {
		err = acl_drv_fail(fn, o, ret, "mapping device %d's signal page through the peer "
				   "window", w->id);
		goto fail;
	}
	sig->relay = acl_stream_new(o, NULL, DRM_NPU_PRIORITY_HIGHEST, 0, &err);
	if (!sig->relay)
		goto fail;
	err = signal_zero(sig);
	if (err)
		goto fail;
	*out = sig;
	return ACL_SUCCESS;
fail:
	signal_free(sig);
	return err;
}

/* Whether the relay failed (its event's stream failed, or the card). */
static bool signal_broken(const struct peer_signal *sig)
{
	return acl_kstream_err(sig->owner, atomic_load(&sig->relay->kst)) != 0;
}

/* The pair's signal, made or made anew (signal_lock held). */
static aclError signal_get(struct acl_device *o, struct acl_device *w, struct peer_signal **out)
{
	struct peer_signal **pp = &signals[o->id][w->id];

	ACL_ASSERT_HELD(&signal_lock);
	if (*pp && signal_broken(*pp)) {
		signal_free(*pp);
		*pp = NULL;
	}
	if (!*pp) {
		aclError err = signal_new(o, w, pp);

		if (err)
			return err;
	}
	*out = *pp;
	return ACL_SUCCESS;
}

/* Queues the relay's half and the stream's half of one wait (signal_lock held). */
static aclError signal_wait(struct peer_signal *sig, struct acl_stream *s, uint32_t slot,
			    uint64_t value)
{
	struct drm_npu_cmd relay[2] = {
		{ .op = DRM_NPU_OP_SLOT_WAIT, .slot = slot, .value = value },
		{ .op = DRM_NPU_OP_VALUE_WRITE, .dst = sig->addr, .value = sig->seq + 1 },
	};
	struct drm_npu_cmd wait = {
		.op = DRM_NPU_OP_VALUE_WAIT, .dst = sig->addr, .cond = DRM_NPU_WAIT_GEQ,
		.value = sig->seq + 1,
	};
	aclError err;

	err = acl_stream_submit(sig->relay, relay, 2, NULL);
	if (err)
		return err;
	sig->seq++;
	/* Failing here leaves a write nobody waits for: harmless. */
	return acl_stream_submit(s, &wait, 1, NULL);
}

aclError acl_peer_wait_event(struct acl_stream *s, struct acl_event *ev)
{
	const char *fn = "aclrtStreamWaitEvent";
	struct acl_device *o = ev->dev;
	struct peer_signal *sig = NULL;
	uint64_t st;
	aclError err;

	if (acl_capturing(s))
		return acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "a model cannot hold a wait "
				"for an event of another device (%d) than its stream's (%d)",
				o->id, s->dev->id);
	st = atomic_load(&ev->state);
	if (!ACL_EV_VALUE(st) && acl_ipc_event_opened(ev))
		return acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "an IPC event opened from "
				"another process is waited for on its own device (%d) only", o->id);
	if (!ACL_EV_VALUE(st) || acl_seq_reached(acl_slot_value(o, ACL_EV_SLOT(st)),
						 ACL_EV_VALUE(st)))
		return ACL_SUCCESS;	/* never recorded, or done */
	if (acl_slot_err(o, ACL_EV_SLOT(st)))
		return acl_fail(fn, acl_slot_error(o, DRM_NPU_ERR_DEPENDENCY), "the stream that "
				"recorded the event on device %d failed", o->id);
	acl_mutex_lock(&signal_lock);
	err = signal_get(o, s->dev, &sig);
	if (!err)
		err = signal_wait(sig, s, ACL_EV_SLOT(st), ACL_EV_VALUE(st));
	/* the relay failed since signal_get looked: once more on a fresh one */
	if (err && sig && signal_broken(sig) && !(err = signal_get(o, s->dev, &sig)))
		err = signal_wait(sig, s, ACL_EV_SLOT(st), ACL_EV_VALUE(st));
	acl_mutex_unlock(&signal_lock);
	return err;
}

void acl_peer_signal_check(struct acl_device *w)
{
	if (!acl_mutex_trylock(&signal_lock))
		return;		/* whoever holds it checks at the pair's next wait */
	for (int o = 0; o < ACL_MAX_DEVICES; o++) {
		struct peer_signal **pp = &signals[o][w->id];

		if (*pp && signal_broken(*pp)) {
			ACL_LOGW("device %d's waits for events of device %d are released with an "
				 "error: a stream of device %d that they waited for failed",
				 w->id, o, o);
			signal_free(*pp);
			*pp = NULL;
		}
	}
	acl_mutex_unlock(&signal_lock);
}

void acl_peer_signal_drop(struct acl_device *d)
{
	acl_mutex_lock(&signal_lock);
	for (int i = 0; i < ACL_MAX_DEVICES; i++) {
		struct peer_signal **to = &signals[d->id][i], **from = &signals[i][d->id];

		if (*to)
			signal_free(*to);
		*to = NULL;
		if (*from)
			signal_free(*from);
		*from = NULL;
	}
	acl_mutex_unlock(&signal_lock);
}
