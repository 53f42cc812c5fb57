// SPDX-License-Identifier: GPL-2.0
/*
 * Engine pools: the copy engines that carry transfers chunk by chunk, and
 * the compute engines that run operators.  Rings share each pool with
 * priority arbitration: a free engine goes to the most urgent job that
 * wants one.
 *
 * A job counts in wanting[] only while it is ready for an engine: not
 * while it holds one, and not while its ring has paused it (a hung ring, a
 * dead card), so a paused job holds back no other ring.  go_on callbacks
 * are called with the pool's lock held, so whoever holds a ring's lock
 * must not take a pool's.
 */
#include <string.h>

#include "emu_card.h"

void emu_engines_init(struct emu_engines *e, uint32_t count)
{
	memset(e, 0, sizeof(*e));
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->changed, NULL);
	e->count = count;
	e->free = count;
	e->busy_at = emu_monotonic_ns();
}

/* Under the lock, before the number of busy engines changes. */
static void engines_account(struct emu_engines *e)
{
	uint64_t now = emu_monotonic_ns();

	e->busy_ns += (uint64_t)(e->count - e->free) * (now - e->busy_at);
	e->busy_at = now;
}

/* Time engines of the pool were busy, added up, since the card started. */
uint64_t emu_engines_busy_ns(struct emu_engines *e)
{
	uint64_t ns;

	pthread_mutex_lock(&e->lock);
	engines_account(e);
	ns = e->busy_ns;
	pthread_mutex_unlock(&e->lock);
	return ns;
}

void emu_engines_destroy(struct emu_engines *e)
{
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->changed);
}

/* A job of ring priority p starts (+1) or stops (-1) wanting an engine. */
void emu_engines_want(struct emu_engines *e, uint32_t priority, int delta)
{
	pthread_mutex_lock(&e->lock);
	e->wanting[priority] += delta;
	pthread_cond_broadcast(&e->changed);
	pthread_mutex_unlock(&e->lock);
}

/* A ring was reset, hung or is quitting, or the card died: look again. */
void emu_engines_changed(struct emu_engines *e)
{
	pthread_mutex_lock(&e->lock);
	pthread_cond_broadcast(&e->changed);
	pthread_mutex_unlock(&e->lock);
}

static bool more_urgent_waiter(struct emu_engines *e, uint32_t priority)
{
	uint32_t p;

	for (p = 0; p < priority; p++)
		if (e->wanting[p])
			return true;
	return false;
}

/*
 * Wait for a free engine that no more urgent job waits for; the job stops
 * wanting one when it gets it.  False, without an engine, once go_on(ctx,
 * false) is: the wait must not outlast a reset, a hang or the card's death.
 */
bool emu_engines_get(struct emu_engines *e, uint32_t priority,
		     bool (*go_on)(void *ctx, bool wait), void *ctx)
{
	bool got = false;

	pthread_mutex_lock(&e->lock);
	while (go_on(ctx, false)) {
		if (e->free && !more_urgent_waiter(e, priority)) {
			engines_account(e);
			e->free--;
			e->wanting[priority]--;
			got = true;
			break;
		}
		pthread_cond_wait(&e->changed, &e->lock);
	}
	pthread_mutex_unlock(&e->lock);
	return got;
}

/*
 * emu_engines_want(+1) and emu_engines_get() under one hold of the lock,
 * for a job that wants a single engine (an operator); it stops wanting on
 * failure as well.  Nobody need be told of a job that got its engine at
 * once: no one else's turn changed.
 */
bool emu_engines_take(struct emu_engines *e, uint32_t priority,
		      bool (*go_on)(void *ctx, bool wait), void *ctx)
{
	bool got = false;

	pthread_mutex_lock(&e->lock);
	e->wanting[priority]++;
	while (go_on(ctx, false)) {
		if (e->free && !more_urgent_waiter(e, priority)) {
			engines_account(e);
			e->free--;
			e->wanting[priority]--;
			got = true;
			break;
		}
		pthread_cond_wait(&e->changed, &e->lock);
	}
	if (!got) {
		e->wanting[priority]--;
		pthread_cond_broadcast(&e->changed);
	}
	pthread_mutex_unlock(&e->lock);
	return got;
}

/* Under the lock: a job waits in emu_engines_get() or _take(). */
static bool anyone_wanting(const struct emu_engines *e)
{
	uint32_t p;

	for (p = 0; p <= NPU_RING_PRIORITY_LOWEST; p++)
		if (e->wanting[p])
			return true;
	return false;
}

/*
 * Give an engine back.  A job that wants another at once (a transfer
 * between its chunks) is back in the queue before anyone looks, so less
 * urgent ones cannot slip in before it asks again.
 */
void emu_engines_put(struct emu_engines *e, uint32_t priority,
		     bool wants_another)
{
	pthread_mutex_lock(&e->lock);
	engines_account(e);
	e->free++;
	if (wants_another)
		e->wanting[priority]++;
	/* only a job counted in wanting[] waits for a free engine */
	if (anyone_wanting(e))
		pthread_cond_broadcast(&e->changed);
	pthread_mutex_unlock(&e->lock);
}
