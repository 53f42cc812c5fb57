// SPDX-License-Identifier: GPL-2.0
/*
 * The ring engine: one thread per ring fetches commands from guest RAM and
 * executes them in order (ring_cmd.c, ring_dcmd.c), completes them, and
 * between spells of work watches its tail or sleeps until a doorbell.
 * Here too: the ring's enable, reset and faults.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ring_internal.h"

/* Caller holds r->lock. */
static bool emu_ring_current(struct emu_ring_ctx *ctx)
{
	return ctx->r->gen == ctx->gen && !ctx->r->quit;
}

/* Caller holds r->lock: a hung ring or operator, or a dead card. */
static bool emu_ring_paused(struct emu_ring *r)
{
	return r->hang || r->op_hung || emu_card_is_dead(r->card);
}

/*
 * Tell the ring's thread that something changed: a doorbell, a fence, a
 * reset, a fault.  Called with the ring's lock held.
 */
static void emu_ring_wake(struct emu_ring *r)
{
	uint64_t one = 1;
	ssize_t n;

	pthread_cond_broadcast(&r->wake);
	if (!r->idle_waiting)
		return;
	/* only fails when the counter is full, and so readable anyway */
	n = write(r->wake_fd, &one, sizeof(one));
	(void)n;
}

/*
 * Every place a ring can pause goes through here: a hung ring or operator
 * or a dead card blocks, a reset (gen change) or shutdown makes us give up.
 */
bool emu_ring_checkpoint(struct emu_ring_ctx *ctx)
{
	struct emu_ring *r = ctx->r;
	bool ok;

	pthread_mutex_lock(&r->lock);
	while (emu_ring_current(ctx) && emu_ring_paused(r))
		pthread_cond_wait(&r->wake, &r->lock);
	ok = emu_ring_current(ctx);
	pthread_mutex_unlock(&r->lock);
	return ok;
}

/* emu_ring_checkpoint() without the waiting: true if nothing would stop us. */
static bool emu_ring_may_go_on(struct emu_ring_ctx *ctx)
{
	struct emu_ring *r = ctx->r;
	bool ok;

	pthread_mutex_lock(&r->lock);
	ok = emu_ring_current(ctx) && !emu_ring_paused(r);
	pthread_mutex_unlock(&r->lock);
	return ok;
}

static bool emu_ring_dma_go_on(void *ctx, bool wait)
{
	return wait ? emu_ring_checkpoint(ctx) : emu_ring_may_go_on(ctx);
}

/*
 * Per chunk, not per command: a driver that watches BYTES_DONE for
 * progress sees a long copy move.
 */
static void emu_ring_dma_moved(void *arg, uint64_t bytes)
{
	struct emu_ring_ctx *ctx = arg;
	struct emu_ring *r = ctx->r;

	r->bytes_done += bytes;
	emu_ring_write64(r, NPU_RING_BYTES_DONE, r->bytes_done);
}

struct emu_dma_client emu_ring_dma_client(struct emu_ring_ctx *ctx)
{
	return (struct emu_dma_client) {
		.go_on = emu_ring_dma_go_on,
		.moved = emu_ring_dma_moved,
		.ctx = ctx,
		.priority = ctx->r->priority,
	};
}

/*
 * Midway through an operator: where an armed HANG_OP takes effect, and
 * the operator stops until the ring is reset.
 */
static bool emu_ring_compute_checkpoint(void *arg)
{
	struct emu_ring_ctx *ctx = arg;
	struct emu_ring *r = ctx->r;

	pthread_mutex_lock(&r->lock);
	if (r->hang_op && emu_ring_current(ctx)) {
		r->hang_op = false;
		r->op_hung = true;
		emu_log("ring %u: operator hung (fault)", r->idx);
	}
	pthread_mutex_unlock(&r->lock);
	return emu_ring_may_go_on(ctx);
}

/* Reset or quitting: what the ring was doing is no longer wanted. */
bool emu_ring_gone(struct emu_ring_ctx *ctx)
{
	bool gone;

	pthread_mutex_lock(&ctx->r->lock);
	gone = !emu_ring_current(ctx);
	pthread_mutex_unlock(&ctx->r->lock);
	return gone;
}

/* Reset or quitting: an operator's loop stops early. */
static bool emu_ring_abandoned(void *arg)
{
	return emu_ring_gone(arg);
}

/* One-shot FAIL_OP fault: consumed by the operator that hits it. */
static bool emu_ring_take_fail_op(void *arg)
{
	struct emu_ring_ctx *ctx = arg;
	struct emu_ring *r = ctx->r;
	bool fail;

	pthread_mutex_lock(&r->lock);
	fail = r->fail_op;
	r->fail_op = false;
	pthread_mutex_unlock(&r->lock);
	return fail;
}

struct emu_compute_client emu_ring_compute_client(struct emu_ring_ctx *ctx)
{
	return (struct emu_compute_client) {
		.go_on = emu_ring_dma_go_on,
		.checkpoint = emu_ring_compute_checkpoint,
		.abandoned = emu_ring_abandoned,
		.take_fail_op = emu_ring_take_fail_op,
		.ctx = ctx,
		.ring = ctx->r,
	};
}

/* Sleep, but wake up for a reset; false if the ring was reset. */
static bool emu_ring_sleep_us(struct emu_ring_ctx *ctx, uint32_t us)
{
	struct emu_ring *r = ctx->r;
	uint64_t deadline = emu_monotonic_ns() + (uint64_t)us * 1000;
	struct timespec ts = emu_ns_to_timespec(deadline);
	bool ok;

	pthread_mutex_lock(&r->lock);
	while (emu_ring_current(ctx) && emu_monotonic_ns() < deadline)
		pthread_cond_timedwait(&r->wake, &r->lock, &ts);
	ok = emu_ring_current(ctx);
	pthread_mutex_unlock(&r->lock);
	return ok;
}

void emu_ring_set_status(struct emu_ring *r, enum npu_ring_state state)
{
	emu_ring_write32(r, NPU_RING_STATUS, state);
}

void emu_ring_raise_irq(struct emu_ring *r)
{
	uint32_t vector;

	pthread_mutex_lock(&r->lock);
	if (r->drop_irqs) {
		r->drop_irqs--;
		pthread_mutex_unlock(&r->lock);
		emu_log("ring %u: interrupt dropped (fault)", r->idx);
		return;
	}
	vector = r->vector;
	pthread_mutex_unlock(&r->lock);
	emu_card_raise_irq(r->card, vector);
	emu_trace(r->idx, EMU_TRACE_IRQ, vector);
}

/* One-shot FAIL_DMA fault: consumed by the transfer that hits it. */
bool emu_ring_take_fail_dma(struct emu_ring *r)
{
	bool fail;

	pthread_mutex_lock(&r->lock);
	fail = r->fail_dma;
	r->fail_dma = false;
	pthread_mutex_unlock(&r->lock);
	return fail;
}

static uint32_t emu_ring_delay_us(struct emu_ring *r)
{
	uint32_t us;

	pthread_mutex_lock(&r->lock);
	us = r->delay_us;
	pthread_mutex_unlock(&r->lock);
	return us;
}

/*
 * Sleep until a fence is written anywhere on the card, the poll period
 * passes or the ring is reset.  seq is the fence count the caller saw
 * before it last looked at the word, so a fence in between is not missed.
 */
void emu_ring_wait_for_fence(struct emu_ring_ctx *ctx, uint64_t seq)
{
	struct emu_ring *r = ctx->r;
	struct timespec ts = emu_ns_to_timespec(emu_monotonic_ns() +
						EMU_WAIT_POLL_NS);

	pthread_mutex_lock(&r->lock);
	r->waiting = true;
	/* counted before the look: see emu_card_fence_written() */
	__atomic_add_fetch(&r->card->fence_waiters, 1, __ATOMIC_SEQ_CST);
	if (emu_ring_current(ctx) &&
	    __atomic_load_n(&r->card->fence_seq, __ATOMIC_SEQ_CST) == seq)
		pthread_cond_timedwait(&r->wake, &r->lock, &ts);
	__atomic_sub_fetch(&r->card->fence_waiters, 1, __ATOMIC_RELEASE);
	r->waiting = false;
	pthread_mutex_unlock(&r->lock);
}

/*
 * Stop on an error: HEAD stays on the command.  ERROR and ERROR_INDEX go
 * out before STATUS so a driver that sees STOPPED sees why.
 */
static void emu_ring_fail(struct emu_ring_ctx *ctx, int err)
{
	struct emu_ring *r = ctx->r;

	emu_log("ring %u: command %u failed, error %d", r->idx, r->head, err);
	emu_ring_write32(r, NPU_RING_ERROR, err);
	emu_ring_write32(r, NPU_RING_ERROR_INDEX, r->head);
	emu_ring_set_status(r, NPU_RING_STOPPED);

	pthread_mutex_lock(&r->lock);
	if (emu_ring_current(ctx))
		r->mode = EMU_RING_MODE_STOPPED;
	pthread_mutex_unlock(&r->lock);
	emu_ring_raise_irq(r);
}

/*
 * Keeps a clear IRQ_IF word for emu_ring_recheck(); false when there is no
 * room for it, and the caller interrupts at once instead.
 */
static bool emu_ring_note_clear_word(struct emu_ring *r, uint64_t gpa)
{
	bool kept = false;
	uint32_t i;

	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->nclear && !kept; i++)
		kept = r->clear_words[i] == gpa;
	if (!kept && r->nclear < EMU_RECHECK_WORDS) {
		r->clear_words[r->nclear++] = gpa;
		kept = true;
	}
	pthread_mutex_unlock(&r->lock);
	return kept;
}

static uint32_t emu_irq_word(struct emu_card *card, uint64_t gpa)
{
	return __atomic_load_n((uint32_t *)emu_dma_host_ptr(card, gpa),
			       __ATOMIC_RELAXED);
}

/*
 * An IRQ_IF command interrupts if its word is non-zero once its writes are
 * out.  The full fence pairs with the driver's between setting the word and
 * looking at what the command writes (docs/hardware.md): either the driver
 * sees the writes, or we see the word.
 */
static bool emu_irq_wanted(struct emu_ring *r, const struct emu_cmd *c)
{
	if (c->flags & NPU_CMD_IRQ)
		return true;
	if (!(c->flags & NPU_CMD_IRQ_IF))
		return false;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (emu_irq_word(r->card, c->src))
		return true;
	return !emu_ring_note_clear_word(r, c->src);
}

/*
 * A command done, on the ring or inside a program: OPS_DONE and CMDS_DONE
 * advance, so that the driver's hang check sees a long program move.
 */
static void emu_ring_count_done(struct emu_ring *r, const struct emu_cmd *c)
{
	if (c->opcode == NPU_OP_COMPUTE) {
		r->ops_done++;
		emu_ring_write64(r, NPU_RING_OPS_DONE, r->ops_done);
	}
	r->cmds_done++;
	emu_ring_write64(r, NPU_RING_CMDS_DONE, r->cmds_done);
}

/*
 * OPS_DONE and CMDS_DONE, then HEAD (and the shadow's copy): its release
 * store publishes the command's writes.  BYTES_DONE has advanced chunk by
 * chunk already.
 */
static void emu_ring_complete(struct emu_ring *r, const struct emu_cmd *c)
{
	emu_ring_count_done(r, c);
	r->head++;
	emu_ring_write32(r, NPU_RING_HEAD, r->head);
	if (r->shadow)
		__atomic_store_n(&r->shadow->head, htole32(r->head),
				 __ATOMIC_RELEASE);
	if (r->direct)
		__atomic_store_n(&r->dir.kshadow->head, htole32(r->head),
				 __ATOMIC_RELEASE);
	emu_trace(r->idx, EMU_TRACE_DONE, c->opcode);
	if (emu_irq_wanted(r, c))
		emu_ring_raise_irq(r);
}

/* A command of a program done: as a ring's, HEAD aside. */
void emu_ring_inner_done(struct emu_ring *r, const struct emu_cmd *c)
{
	emu_ring_count_done(r, c);
	emu_trace(r->idx, EMU_TRACE_DONE, c->opcode);
	if (emu_irq_wanted(r, c))
		emu_ring_raise_irq(r);
}

/* Run one command; false when the ring must not go on. */
static bool emu_ring_step(struct emu_ring_ctx *ctx)
{
	struct emu_ring *r = ctx->r;
	uint32_t delay = emu_ring_delay_us(r);
	struct emu_cmd c;
	int err;

	if (delay && !emu_ring_sleep_us(ctx, delay))
		return false;
	if (!emu_ring_checkpoint(ctx))
		return false;

	if (r->direct) {
		struct emu_dcmd d;

		emu_ring_fetch_direct(r, &d);
		emu_trace(r->idx, EMU_TRACE_FETCH, d.opcode);
		err = emu_exec_direct(ctx, &d, &c);
	} else {
		emu_ring_fetch(r, &c);
		emu_trace(r->idx, EMU_TRACE_FETCH, c.opcode);
		err = emu_exec_cmd(ctx, &c);
	}
	if (err == CMD_ABORTED)
		return false;
	if (err) {
		emu_ring_fail(ctx, err);
		return false;
	}
	emu_ring_complete(r, &c);
	return true;
}

/*
 * The driver's tail: the shadow's when the ring has one, else TAIL.  The
 * acquire load makes the commands up to it visible.
 */
static uint32_t emu_ring_tail(struct emu_ring *r)
{
	if (r->shadow)
		return le32toh(__atomic_load_n(&r->shadow->tail,
					       __ATOMIC_ACQUIRE));
	return emu_ring_read32(r, NPU_RING_TAIL);
}

static void emu_ring_set_fetching(struct emu_ring *r, bool fetching)
{
	__atomic_store_n(&r->shadow->fetching, htole32(fetching),
			 __ATOMIC_RELEASE);
}

/* One of the card's EMU_MAX_POLLERS turns at watching a tail. */
static bool emu_card_poller_get(struct emu_card *card)
{
	uint32_t n = __atomic_load_n(&card->pollers, __ATOMIC_RELAXED);

	do {
		if (n >= EMU_MAX_POLLERS)
			return false;
	} while (!__atomic_compare_exchange_n(&card->pollers, &n, n + 1, false,
					      __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	return true;
}

static void emu_card_poller_put(struct emu_card *card)
{
	__atomic_sub_fetch(&card->pollers, 1, __ATOMIC_RELEASE);
}

/*
 * The ring has commands again after an idle spell: the next watch lasts
 * long enough to have caught this one, within bounds (emu_card.h).
 */
static void emu_ring_idle_ended(struct emu_ring *r)
{
	uint64_t base = r->card->cfg.fetch_poll_us * 1000ULL;
	uint64_t max = r->card->cfg.fetch_poll_max_us * 1000ULL;
	uint64_t gap, want;

	if (!r->idle_since)
		return;
	gap = emu_monotonic_ns() - r->idle_since;
	want = gap + gap / 2;
	r->idle_since = 0;
	if (max < base)
		max = base;
	if (gap > max || want < base)
		want = base;
	r->poll_ns = want < max ? want : max;
}

/*
 * A ring with a shadow that ran out of commands watches its tail for
 * poll_ns, yielding the CPU between looks; true when new commands came.
 * A reset, a hang or a dead card ends the watch.
 */
static bool emu_ring_poll_tail(struct emu_ring_ctx *ctx)
{
	struct emu_ring *r = ctx->r;
	uint64_t end = emu_monotonic_ns() + r->poll_ns;
	bool found = false;

	if (!r->shadow || !r->card->cfg.fetch_poll_us ||
	    !emu_card_poller_get(r->card))
		return false;
	while (emu_ring_may_go_on(ctx)) {
		if (emu_ring_tail(r) != r->head) {
			emu_trace(r->idx, EMU_TRACE_POLL_HIT, 0);
			found = true;
			break;
		}
		if (emu_monotonic_ns() >= end)
			break;
		sched_yield();
	}
	emu_card_poller_put(r->card);
	return found;
}

/*
 * Before sleeping until a doorbell, say so in the shadow, then look at the
 * tail once more.  The full fence pairs with the driver's between writing
 * the tail and reading fetching (docs/hardware.md): either the driver sees
 * fetching clear and rings, or we see its tail here.  False when there is
 * work after all.
 */
static bool emu_ring_may_sleep(struct emu_ring *r)
{
	if (!r->shadow)
		return true;
	emu_ring_set_fetching(r, false);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (emu_ring_tail(r) == r->head)
		return true;
	emu_ring_set_fetching(r, true);
	return false;
}

/*
 * Execute until the ring is empty (and, with a shadow, stays so while it
 * watches the tail), stopped, hung-and-reset or reset.
 */
static void emu_ring_run(struct emu_ring_ctx *ctx)
{
	struct emu_ring *r = ctx->r;

	if (r->shadow)
		emu_ring_set_fetching(r, true);
	for (;;) {
		if (!emu_ring_checkpoint(ctx))
			return;
		if (emu_ring_tail(r) == r->head) {
			if (!r->idle_since)
				r->idle_since = emu_monotonic_ns();
			emu_ring_set_status(r, NPU_RING_IDLE);
			if (emu_ring_poll_tail(ctx) || !emu_ring_may_sleep(r))
				continue;
			emu_trace(r->idx, EMU_TRACE_SLEEP, 0);
			return;
		}
		emu_ring_idle_ended(r);
		emu_ring_set_status(r, NPU_RING_RUNNING);
		if (!emu_ring_step(ctx))
			return;
	}
}

static bool emu_ring_has_work(struct emu_ring *r)
{
	return r->mode == EMU_RING_MODE_ENABLED && r->kick;
}

/*
 * Sleep, lock dropped, until emu_ring_wake() or a doorbell.  An enabled
 * ring waits on its vector's doorbell itself rather than being passed it
 * by the main thread: a doorbell then costs one host thread wake-up, not
 * two (docs/hardware.md, "Doorbells and interrupts on demand").  Rings that
 * share a vector all wait on it, and whichever takes the doorbell passes it
 * to every ring on the vector, as the main thread would.
 */
static void emu_ring_idle_wait(struct emu_ring *r)
{
	struct pollfd pfd[2] = {
		{ .fd = r->wake_fd, .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	uint32_t vector = r->vector;
	uint64_t count;
	ssize_t n;

	if (r->mode == EMU_RING_MODE_ENABLED)
		pfd[1].fd = r->card->to_card[vector];
	r->idle_waiting = true;
	pthread_mutex_unlock(&r->lock);

	if (poll(pfd, 2, -1) < 0 && errno != EINTR)
		emu_err("ring %u: poll: %m", r->idx);

	pthread_mutex_lock(&r->lock);
	r->idle_waiting = false;
	n = read(r->wake_fd, &count, sizeof(count));
	(void)n;
	pthread_mutex_unlock(&r->lock);

	if ((pfd[1].revents & POLLIN) &&
	    emu_card_take_doorbell(r->card, vector)) {
		emu_trace(r->idx, EMU_TRACE_DOORBELL, vector);
		emu_card_doorbell(r->card, vector);
	}
	pthread_mutex_lock(&r->lock);
}

static void *emu_ring_main(void *arg)
{
	struct emu_ring_ctx ctx = { .r = arg };
	struct emu_ring *r = ctx.r;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!r->quit && !emu_ring_has_work(r))
			emu_ring_idle_wait(r);
		if (r->quit)
			break;
		/*
		 * Clear the kick before looking at TAIL: a doorbell that
		 * comes after this sets it again and we look once more.
		 */
		r->kick = false;
		r->busy = true;
		ctx.gen = r->gen;
		pthread_mutex_unlock(&r->lock);
		emu_trace(r->idx, EMU_TRACE_RING_WAKE, 0);

		emu_ring_run(&ctx);

		pthread_mutex_lock(&r->lock);
		r->busy = false;
		pthread_cond_broadcast(&r->idle);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int emu_ring_init(struct emu_ring *r, struct emu_card *card, unsigned int idx)
{
	pthread_condattr_t attr;

	memset(r, 0, sizeof(*r));
	r->card = card;
	r->idx = idx;
	r->poll_ns = card->cfg.fetch_poll_us * 1000ULL;
	r->mode = EMU_RING_MODE_DISABLED;
	pthread_mutex_init(&r->lock, NULL);
	/* timed waits use CLOCK_MONOTONIC, like the card's clock */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&r->wake, &attr);
	pthread_cond_init(&r->idle, &attr);
	pthread_condattr_destroy(&attr);
	r->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->wake_fd < 0) {
		emu_err("ring %u: cannot create its eventfd: %m", idx);
		return -1;
	}
	return 0;
}

int emu_ring_start(struct emu_ring *r)
{
	pthread_attr_t attr;
	int err;

	/*
	 * 64 rings by default: keep their stacks small.  A ring's operators
	 * run on it too (oneDNN's kernels, reference code and JIT compiler,
	 * which the card's operators run in under 64 KiB): room to spare.
	 */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 1 * MiB);
	err = pthread_create(&r->thread, &attr, emu_ring_main, r);
	pthread_attr_destroy(&attr);
	if (err) {
		errno = err;
		emu_err("cannot start ring %u: %m", r->idx);
		return -1;
	}
	return 0;
}

void emu_ring_stop_thread(struct emu_ring *r)
{
	pthread_mutex_lock(&r->lock);
	r->quit = true;
	r->gen++;
	emu_ring_wake(r);
	pthread_mutex_unlock(&r->lock);
	emu_card_engines_changed(r->card);
	pthread_join(r->thread, NULL);
}

void emu_ring_destroy(struct emu_ring *r)
{
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->wake);
	pthread_cond_destroy(&r->idle);
	if (r->wake_fd >= 0)
		close(r->wake_fd);
}

/*
 * RING_CTRL.RESET: abandon whatever the ring does (a copy between chunks or
 * waiting for an engine, a WAIT, a hang, a delay), then put it back to its
 * reset state.  Once disabled the ring cannot start anew while we let go
 * of its lock: only we, on the main thread, enable rings.
 */
void emu_ring_reset(struct emu_ring *r)
{
	pthread_mutex_lock(&r->lock);
	r->gen++;
	r->mode = EMU_RING_MODE_DISABLED;
	r->kick = false;
	r->hang = false;
	r->op_hung = false;
	r->nclear = 0;
	r->nolder = 0;
	emu_ring_wake(r);
	pthread_mutex_unlock(&r->lock);
	/* outside the ring's lock: engine waiters take it under a pool's lock */
	emu_card_engines_changed(r->card);

	pthread_mutex_lock(&r->lock);
	while (r->busy)
		pthread_cond_wait(&r->idle, &r->lock);

	r->head = 0;
	r->cmds_done = 0;
	r->bytes_done = 0;
	r->ops_done = 0;
	/* the shadow is the driver's again: nothing of ours writes it now */
	r->shadow = NULL;
	if (r->direct)
		emu_direct_leave(&r->dir);
	r->direct = false;
	r->as = NULL;
	emu_ring_write32(r, NPU_RING_HEAD, 0);
	emu_ring_write64(r, NPU_RING_FAULT_ADDR, 0);
	emu_ring_write32(r, NPU_RING_ERROR, NPU_ERR_NONE);
	emu_ring_write32(r, NPU_RING_ERROR_INDEX, 0);
	emu_ring_write64(r, NPU_RING_CMDS_DONE, 0);
	emu_ring_write64(r, NPU_RING_BYTES_DONE, 0);
	emu_ring_write64(r, NPU_RING_OPS_DONE, 0);
	emu_compute_reset(r);
	emu_ring_set_status(r, NPU_RING_DISABLED);
	emu_ring_write32(r, NPU_RING_CTRL, 0);
	pthread_mutex_unlock(&r->lock);
	emu_log("ring %u: reset", r->idx);
}

static bool emu_ring_config_ok(struct emu_ring *r, uint64_t base, uint32_t size,
			       uint32_t vector)
{
	struct emu_card *card = r->card;

	if (size < 2 || size > EMU_MAX_RING_ENTRIES ||
	    (size & (size - 1)))
		return false;
	if (vector < 1 || vector >= card->cfg.num_vectors)
		return false;
	if (base & (sizeof(struct npu_cmd) - 1))
		return false;
	return emu_dma_host_ok(card, base,
			       (uint64_t)size * sizeof(struct npu_cmd));
}

/*
 * The ring's entry of the shadow array at SHADOW_BASE: false if it is not
 * host memory; *shadow stays NULL when there is no array.
 */
static bool emu_ring_shadow_ok(struct emu_ring *r,
			       struct npu_ring_shadow **shadow)
{
	uint64_t base = emu_reg_read64(r->card, NPU_SHADOW_BASE);
	uint64_t gpa = base + (uint64_t)r->idx * sizeof(**shadow);

	*shadow = NULL;
	if (!base)
		return true;
	if (base & 63 || gpa < base ||
	    !emu_dma_host_ok(r->card, gpa, sizeof(**shadow)))
		return false;
	*shadow = (struct npu_ring_shadow *)emu_dma_host_ptr(r->card, gpa);
	return true;
}

/*
 * RING_CTRL.ENABLE on a disabled ring: latch the configuration.  A bad one
 * stops the ring; being a control write, it is not signalled by interrupt.
 */
void emu_ring_enable(struct emu_ring *r)
{
	uint64_t base = emu_ring_read64(r, NPU_RING_BASE);
	uint32_t size = emu_ring_read32(r, NPU_RING_SIZE);
	uint32_t vector = emu_ring_read32(r, NPU_RING_VECTOR);
	uint32_t priority = emu_ring_read32(r, NPU_RING_PRIORITY);
	bool direct = emu_ring_read64(r, NPU_RING_BIND_BASE) != 0;
	uint32_t as_index = emu_ring_read32(r, NPU_RING_AS);
	struct npu_ring_shadow *shadow = NULL, *kshadow;
	struct emu_as *as;
	struct emu_direct dir = { 0 };

	pthread_mutex_lock(&r->lock);
	if (r->mode != EMU_RING_MODE_DISABLED)
		goto out;

	if (!emu_ring_config_ok(r, base, size, vector) ||
	    priority > NPU_RING_PRIORITY_LOWEST ||
	    !emu_mmu_as_latch(r->card, as_index, &as) ||
	    !emu_ring_shadow_ok(r, &kshadow) ||
	    (direct && emu_direct_latch(r->card, r->idx, kshadow, &dir, &shadow))) {
		emu_log("ring %u: bad config base %#llx size %u vector %u",
			r->idx, (unsigned long long)base, size, vector);
		r->mode = EMU_RING_MODE_STOPPED;
		emu_ring_write32(r, NPU_RING_ERROR, NPU_ERR_RING_CONFIG);
		emu_ring_write32(r, NPU_RING_ERROR_INDEX, r->head);
		emu_ring_set_status(r, NPU_RING_STOPPED);
		goto out;
	}
	r->base = base;
	r->size = size;
	r->vector = vector;
	r->priority = priority;
	r->as = as;
	r->direct = direct;
	r->dir = dir;
	r->shadow = direct ? shadow : kshadow;
	if (direct)
		__atomic_store_n(&kshadow->head, htole32(r->head), __ATOMIC_RELEASE);
	if (r->shadow) {
		__atomic_store_n(&r->shadow->head, htole32(r->head),
				 __ATOMIC_RELEASE);
		emu_ring_set_fetching(r, true);
	}
	r->mode = EMU_RING_MODE_ENABLED;
	emu_ring_set_status(r, NPU_RING_IDLE);
	/* commands written before ENABLE run without a doorbell */
	r->kick = true;
	emu_ring_wake(r);
	emu_log("ring %u: enabled%s, base %#llx size %u vector %u", r->idx,
		direct ? " (direct)" : "", (unsigned long long)base, size, vector);
out:
	pthread_mutex_unlock(&r->lock);
}

/* A doorbell on vector: look for work if the ring is enabled on it. */
void emu_ring_doorbell(struct emu_ring *r, uint32_t vector)
{
	pthread_mutex_lock(&r->lock);
	if (r->mode == EMU_RING_MODE_ENABLED && r->vector == vector) {
		r->kick = true;
		emu_ring_wake(r);
	}
	pthread_mutex_unlock(&r->lock);
}

/*
 * Once per heartbeat, the card looks again at what it decided on while the
 * guest's stores might not have reached memory yet.  QEMU's single-threaded
 * TCG (tools/vm-run) gives the guest's mb() no host fence, so the host CPU
 * may hold the driver's store of a tail or of an IRQ_IF word in its store
 * buffer while the driver's next load reads the card's word: the
 * store-to-load reordering docs/hardware.md's argument rules out.  A store
 * buffer drains within a microsecond, so one heartbeat later the store is
 * in memory.  A sleeping ring with commands past HEAD is woken as by a
 * doorbell; an IRQ_IF word found clear at least one heartbeat ago that is
 * now set interrupts, late but not lost.  Native drivers, whose barriers
 * are real, never need either.
 */
void emu_ring_recheck(struct emu_ring *r)
{
	uint64_t words[EMU_RECHECK_WORDS];
	uint32_t i, n;
	bool enabled, irq = false;

	pthread_mutex_lock(&r->lock);
	n = r->nolder;
	memcpy(words, r->older_words, n * sizeof(words[0]));
	memcpy(r->older_words, r->clear_words, r->nclear * sizeof(words[0]));
	r->nolder = r->nclear;
	r->nclear = 0;
	enabled = r->mode == EMU_RING_MODE_ENABLED;
	if (enabled && r->shadow && !r->busy && !r->kick &&
	    emu_ring_tail(r) != r->head) {
		emu_log("ring %u: woken by the heartbeat", r->idx);
		r->kick = true;
		emu_ring_wake(r);
	}
	pthread_mutex_unlock(&r->lock);

	for (i = 0; i < n && enabled; i++)
		irq |= emu_irq_word(r->card, words[i]) != 0;
	if (irq)
		emu_ring_raise_irq(r);
}

/* Some ring wrote a fence: a WAIT of ours may be satisfied now. */
void emu_ring_poke(struct emu_ring *r)
{
	pthread_mutex_lock(&r->lock);
	if (r->waiting)
		emu_ring_wake(r);
	pthread_mutex_unlock(&r->lock);
}

bool emu_ring_reset_stuck(struct emu_ring *r)
{
	bool stuck;

	pthread_mutex_lock(&r->lock);
	stuck = r->stuck_reset;
	pthread_mutex_unlock(&r->lock);
	return stuck;
}

void emu_ring_inject(struct emu_ring *r, uint32_t kind, uint32_t arg)
{
	pthread_mutex_lock(&r->lock);
	switch (kind) {
	case NPU_FAULT_CLEAR:
		r->hang = false;
		r->fail_dma = false;
		r->delay_us = 0;
		r->drop_irqs = 0;
		r->stuck_reset = false;
		r->fail_op = false;
		/* an operator hung already stays so until reset */
		r->hang_op = false;
		break;
	case NPU_FAULT_STUCK_RESET:
		r->stuck_reset = true;
		break;
	case NPU_FAULT_HANG_RING:
		r->hang = true;
		break;
	case NPU_FAULT_FAIL_DMA:
		r->fail_dma = true;
		break;
	case NPU_FAULT_DELAY:
		r->delay_us = arg;
		break;
	case NPU_FAULT_DROP_IRQ:
		r->drop_irqs = arg;
		break;
	case NPU_FAULT_FAIL_OP:
		r->fail_op = true;
		break;
	case NPU_FAULT_HANG_OP:
		r->hang_op = true;
		break;
	}
	/* a ring that is no longer hung goes on now */
	emu_ring_wake(r);
	pthread_mutex_unlock(&r->lock);
	/* and one just hung leaves the engine queues now */
	emu_card_engines_changed(r->card);
	emu_log("ring %u: fault %u arg %u", r->idx, kind, arg);
}
