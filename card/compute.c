// SPDX-License-Identifier: GPL-2.0
/*
 * COMPUTE: one operator of the card's operator library (oplib.c and the
 * oplib_*.c families) on tensors in device memory.
 *
 * The descriptor is copied out of guest RAM once, into the ring thread's
 * stack, and checked in full once, before anything else happens: the
 * operator that runs is the one decoded by that check.  The operator
 * then runs on one of the compute engines, which the rings share as they
 * share the copy engines: the most urgent ring waiting gets a free one.
 * Between the steps of an operator its ring may pause it (a hung ring, a
 * HANG_OP fault, a dead card); it then gives its engine back, and waits for
 * one again when the pause ends.  A reset abandons it between steps, or
 * within a step done by a loop; a oneDNN primitive runs to its end.
 *
 * COMPUTE_NS counts the time a ring's operators hold an engine.  It
 * advances while they do, refreshed by every heartbeat, so a driver
 * watching it sees a long operator progress.
 */
#include <string.h>

#include "emu_card.h"
#include "oplib.h"
#include "ring_internal.h"

/* One COMPUTE being run: what the library's hooks need. */
struct emu_compute_run {
	struct emu_card *card;
	const struct emu_compute_client *cl;
};

/*
 * Threads of one operator: the host's CPUs over the engines, so that all
 * engines busy at once keep every CPU busy and none oversubscribed (the
 * library sets it per operator, on the thread that runs it).  Each ring
 * thread that computes gets an OpenMP team of its own, but at most
 * NUM_COMPUTE_ENGINES of them compute at any moment.
 */
int emu_compute_init(struct emu_card *card)
{
	struct oplib_config cfg = {
		.threads = oplib_threads_per_engine(card->cfg.num_compute_engines),
	};

	emu_engines_init(&card->compute_engines, card->cfg.num_compute_engines);
	pthread_mutex_init(&card->compute_lock, NULL);
	card->oplib = oplib_create(&cfg);
	if (!card->oplib) {
		emu_err("cannot start the operator library (oneDNN)");
		return -1;
	}
	emu_log("compute: %u engines of %u threads", card->cfg.num_compute_engines,
		cfg.threads);
	return 0;
}

void emu_compute_destroy(struct emu_card *card)
{
	oplib_destroy(card->oplib);
	card->oplib = NULL;
	pthread_mutex_destroy(&card->compute_lock);
	emu_engines_destroy(&card->compute_engines);
}

/* CPU time of the calling thread: what an operator cost, not how long it took. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The ring got (held) or gave back its engine: COMPUTE_NS is up to date. */
static void compute_held(struct emu_card *card, struct emu_ring *r, bool held)
{
	uint64_t now = emu_monotonic_ns();

	pthread_mutex_lock(&card->compute_lock);
	if (held) {
		r->compute_since = now;
	} else {
		r->compute_ns += now - r->compute_since;
		r->compute_since = 0;
	}
	emu_ring_write64(r, NPU_RING_COMPUTE_NS, r->compute_ns);
	pthread_mutex_unlock(&card->compute_lock);
	/* the thread's CPU time at each end: wall time less it is time it waited for a CPU */
	emu_trace(r->idx, held ? EMU_TRACE_OP_START : EMU_TRACE_OP_END,
		  emu_tracing() ? thread_cpu_ns() : 0);
}

/* Every heartbeat: the rings on an engine show the time so far. */
void emu_compute_tick(struct emu_card *card)
{
	uint64_t now = emu_monotonic_ns();
	uint32_t i;

	pthread_mutex_lock(&card->compute_lock);
	for (i = 0; i < card->cfg.num_rings; i++) {
		struct emu_ring *r = &card->rings[i];

		if (r->compute_since)
			emu_ring_write64(r, NPU_RING_COMPUTE_NS, r->compute_ns +
					 (now - r->compute_since));
	}
	pthread_mutex_unlock(&card->compute_lock);
}

/* RING_CTRL.RESET, once the ring's thread has let go: COMPUTE_NS is 0. */
void emu_compute_reset(struct emu_ring *r)
{
	pthread_mutex_lock(&r->card->compute_lock);
	r->compute_ns = 0;
	r->compute_since = 0;
	emu_ring_write64(r, NPU_RING_COMPUTE_NS, 0);
	pthread_mutex_unlock(&r->card->compute_lock);
}

static bool compute_engine_get(void *arg)
{
	struct emu_compute_run *run = arg;
	struct emu_engines *pool = &run->card->compute_engines;
	uint32_t priority = run->cl->ring->priority;

	/* paused or abandoned: out of the queue meanwhile */
	if (!emu_engines_take(pool, priority, run->cl->go_on, run->cl->ctx))
		return false;
	compute_held(run->card, run->cl->ring, true);
	return true;
}

static void compute_engine_put(void *arg)
{
	struct emu_compute_run *run = arg;

	compute_held(run->card, run->cl->ring, false);
	emu_engines_put(&run->card->compute_engines, run->cl->ring->priority,
			false);
}

static bool compute_go_on(void *arg, bool wait)
{
	struct emu_compute_run *run = arg;

	if (wait)
		return run->cl->go_on(run->cl->ctx, true);
	return run->cl->checkpoint(run->cl->ctx);
}

static bool compute_abandoned(void *arg)
{
	struct emu_compute_run *run = arg;

	return run->cl->abandoned(run->cl->ctx);
}

/*
 * The command's fields, then the descriptor copied out of guest RAM: it is
 * read exactly once, so what runs is what was checked.
 */
static int compute_fetch(struct emu_card *card, uint16_t flags, uint64_t src,
			 uint64_t size, void *desc)
{
	if (!(flags & NPU_CMD_SRC_HOST) || src % NPU_OP_DESC_ALIGN ||
	    size < sizeof(struct npu_op_desc) || size > OPLIB_DESC_MAX)
		return NPU_ERR_OP_PARAM;
	if (!emu_dma_host_ok(card, src, size))
		return NPU_ERR_HOST_ADDR;
	memcpy(desc, emu_dma_host_ptr(card, src), size);
	return NPU_ERR_NONE;
}

/* A descriptor fetched and checked: the operator, unless a FAIL_OP fault stops it. */
static int compute_run(struct emu_card *card, const struct oplib_op *op,
		       const struct emu_compute_client *cl)
{
	struct emu_compute_run run = { .card = card, .cl = cl };
	struct oplib_hooks hooks = {
		.engine_get = compute_engine_get,
		.engine_put = compute_engine_put,
		.go_on = compute_go_on,
		.abandoned = compute_abandoned,
		.ctx = &run,
	};
	int err = NPU_ERR_NONE;

	/* a well-formed operator that the fault makes the library fail */
	if (cl->take_fail_op(cl->ctx))
		err = NPU_ERR_OP_FAILED;
	if (!err)
		err = oplib_run_op(card->oplib, op, cl->ring->as ?
				   cl->ring->as->mirror : emu_dma_dev_ptr(card, 0),
				   &hooks);
	if (err == OPLIB_ABORTED)
		return EMU_COMPUTE_ABORTED;
	if (err)
		emu_log("ring %u: operator failed, error %d", cl->ring->idx, err);
	return err;
}

/* What tensor addresses a ring's operators name: virtual ones if translated. */
static uint64_t compute_addr_space(const struct emu_ring *r)
{
	return r->as ? EMU_MMU_VA_SIZE : r->card->devmem_size;
}

/*
 * On a translated ring: after the descriptor's check against the virtual
 * address space, each tensor's bytes against the ring's address space,
 * inputs read and the output written, before the operator runs.
 */
static int compute_translate(struct emu_ring *r, const struct oplib_op *op)
{
	unsigned int i;
	uint8_t *ptr;
	int err = NPU_ERR_NONE;

	for (i = 0; !err && i < op->num_tensors; i++)
		if (op->t[i].extent)
			err = emu_ring_dev_range(r, op->t[i].addr, op->t[i].extent,
						 i >= op->num_inputs, &ptr);
	return err;
}

/* The descriptor checked once, in full; @within as oplib_check_within()'s. */
static int compute_check(struct emu_ring *r, const void *desc, uint64_t size,
			 const struct oplib_range *within, struct oplib_op *op)
{
	int err;

	err = oplib_check_op(desc, size, compute_addr_space(r), within, op);
	if (!err && r->as)
		err = compute_translate(r, op);
	if (err)
		emu_log("ring %u: operator refused, error %d", r->idx, err);
	return err;
}

int emu_compute(struct emu_card *card, uint16_t flags, uint64_t src,
		uint64_t size, const struct emu_compute_client *cl)
{
	uint8_t desc[OPLIB_DESC_MAX] __attribute__((aligned(NPU_OP_DESC_ALIGN)));
	struct oplib_op op;
	int err;

	err = compute_fetch(card, flags, src, size, desc);
	if (err) {
		emu_log("ring %u: operator refused, error %d", cl->ring->idx, err);
		return err;
	}
	err = compute_check(cl->ring, desc, size, NULL, &op);
	return err ? err : compute_run(card, &op, cl);
}

/*
 * On a direct ring: the descriptor and the tensors by binding, each
 * tensor inside its buffer.  Between emu_direct_enter() and
 * emu_direct_leave(), so that no buffer goes while the operator runs.
 */
int emu_compute_direct(struct emu_ring *r, const struct emu_direct *dir,
		       uint32_t bind, uint64_t offset, uint64_t size,
		       const struct emu_compute_client *cl)
{
	uint8_t desc[OPLIB_DESC_MAX] __attribute__((aligned(NPU_OP_DESC_ALIGN)));
	struct oplib_range within[NPU_OP_MAX_TENSORS];
	struct oplib_op op;
	int err;

	err = emu_direct_op_desc(r, dir, bind, offset, size, desc, within);
	if (err) {
		emu_log("ring %u: operator refused, error %d", cl->ring->idx, err);
		return err;
	}
	err = compute_check(r, desc, size, within, &op);
	return err ? err : compute_run(r->card, &op, cl);
}
