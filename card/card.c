// SPDX-License-Identifier: GPL-2.0
/*
 * The card: BAR2 and its registers, the control doorbell (vector 0),
 * interrupts, the heartbeat, fault injection and the engine pools.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu_card.h"
#include "oplib.h"

/* The card's clock: what TIMESTAMP, FENCE_TIME and CLOCK_NS show. */
uint64_t emu_card_clock_ns(struct emu_card *card)
{
	return emu_monotonic_ns() - card->start_ns;
}

/* The read-only identity block; constant for the card's life. */
static void emu_card_write_identity(struct emu_card *card)
{
	const struct emu_config *cfg = &card->cfg;

	emu_reg_write32(card, NPU_ID_MAGIC, NPU_MAGIC);
	emu_reg_write32(card, NPU_ID_VERSION, NPU_VERSION);
	emu_reg_write32(card, NPU_ID_NUM_RINGS, cfg->num_rings);
	emu_reg_write32(card, NPU_ID_NUM_COPY_ENGINES, cfg->num_copy_engines);
	emu_reg_write32(card, NPU_ID_NUM_VECTORS, cfg->num_vectors);
	emu_reg_write32(card, NPU_ID_DOORBELL_ID, EMU_PEER_ID);
	emu_reg_write64(card, NPU_ID_DEVMEM_OFFSET, NPU_REG_WINDOW_SIZE);
	emu_reg_write64(card, NPU_ID_DEVMEM_SIZE, card->devmem_size);
	emu_reg_write32(card, NPU_ID_MAX_RING_ENTRIES, EMU_MAX_RING_ENTRIES);
	emu_reg_write32(card, NPU_ID_CMD_SIZE, sizeof(struct npu_cmd));
	emu_reg_write32(card, NPU_ID_HEARTBEAT_PERIOD_US, EMU_HEARTBEAT_US);
	emu_reg_write32(card, NPU_ID_FW_VERSION, EMU_FW_VERSION);
	emu_reg_write64(card, NPU_ID_SERIAL, cfg->serial);
	emu_reg_write32(card, NPU_ID_NUM_COMPUTE_ENGINES,
			cfg->num_compute_engines);
	emu_reg_write32(card, NPU_ID_OPLIB_VERSION, OPLIB_VERSION);
	emu_reg_write64(card, NPU_ID_OPERATORS, oplib_operators(card->oplib));
	emu_reg_write32(card, NPU_ID_DTYPES, oplib_dtypes(card->oplib));
	emu_reg_write32(card, NPU_ID_OP_DESC_MAX, OPLIB_DESC_MAX);
	emu_reg_write32(card, NPU_GLB_STATUS, NPU_GLB_STATUS_READY);
}

static int emu_card_map_bar(struct emu_card *card)
{
	card->shm_fd = memfd_create("npu-bar2", MFD_CLOEXEC);
	if (card->shm_fd < 0 || ftruncate(card->shm_fd, card->cfg.bar_size)) {
		emu_err("cannot create BAR2 memory: %m");
		return -1;
	}
	card->bar = mmap(NULL, card->cfg.bar_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, card->shm_fd, 0);
	if (card->bar == MAP_FAILED) {
		card->bar = NULL;
		emu_err("cannot map BAR2: %m");
		return -1;
	}
	card->devmem_size = card->cfg.bar_size - NPU_REG_WINDOW_SIZE;
	return 0;
}

/* Two eventfds per vector: doorbells in, interrupts out. */
static int emu_card_make_eventfds(struct emu_card *card)
{
	uint32_t n = card->cfg.num_vectors, v;

	card->to_card = malloc(n * sizeof(int));
	card->to_guest = malloc(n * sizeof(int));
	if (!card->to_card || !card->to_guest)
		return -1;
	for (v = 0; v < n; v++) {
		card->to_card[v] = -1;
		card->to_guest[v] = -1;
	}
	for (v = 0; v < n; v++) {
		card->to_card[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		card->to_guest[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (card->to_card[v] < 0 || card->to_guest[v] < 0) {
			emu_err("cannot create eventfds: %m");
			return -1;
		}
	}
	return 0;
}

int emu_card_init(struct emu_card *card, const struct emu_config *cfg)
{
	uint32_t i;

	memset(card, 0, sizeof(*card));
	card->cfg = *cfg;
	card->shm_fd = -1;
	card->ram_fd = -1;
	card->start_ns = emu_monotonic_ns();
	pthread_mutex_init(&card->heartbeat_lock, NULL);

	emu_engines_init(&card->copy_engines, cfg->num_copy_engines);
	if (emu_card_map_bar(card) || emu_dma_init(card) ||
	    emu_card_make_eventfds(card))
		return -1;

	card->rings = calloc(cfg->num_rings, sizeof(*card->rings));
	if (!card->rings || emu_compute_init(card))
		return -1;
	for (i = 0; i < cfg->num_rings; i++)
		card->rings[i].wake_fd = -1;
	for (i = 0; i < cfg->num_rings; i++)
		if (emu_ring_init(&card->rings[i], card, i))
			return -1;

	emu_card_write_identity(card);
	emu_telemetry_init(card);
	return emu_mmu_init(card);
}

/*
 * Tick every HEARTBEAT_PERIOD_US, on an absolute schedule; a live card
 * also looks again at its rings (emu_ring_recheck()) unless the guest's
 * barriers are real.
 */
static void *emu_heartbeat_main(void *arg)
{
	struct emu_card *card = arg;
	uint64_t period = EMU_HEARTBEAT_US * 1000ULL;
	uint64_t next = emu_monotonic_ns();
	uint32_t i;

	while (!__atomic_load_n(&card->quit, __ATOMIC_ACQUIRE)) {
		struct timespec ts;

		next += period;
		/* fell far behind (a stopped process): do not burst */
		if (emu_monotonic_ns() > next + 10 * period)
			next = emu_monotonic_ns();
		ts = emu_ns_to_timespec(next);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);

		pthread_mutex_lock(&card->heartbeat_lock);
		if (!card->dead) {
			card->heartbeat++;
			emu_reg_write64(card, NPU_GLB_CLOCK_NS,
					emu_card_clock_ns(card));
			emu_reg_write64(card, NPU_GLB_HEARTBEAT,
					card->heartbeat);
			emu_compute_tick(card);
			emu_telemetry_tick(card);
		}
		pthread_mutex_unlock(&card->heartbeat_lock);
		for (i = 0; i < card->cfg.num_rings && !card->cfg.fenced_guest &&
			    !emu_card_is_dead(card); i++)
			emu_ring_recheck(&card->rings[i]);
	}
	return NULL;
}

int emu_card_start(struct emu_card *card)
{
	uint32_t i;
	int err;

	for (i = 0; i < card->cfg.num_rings; i++) {
		if (emu_ring_start(&card->rings[i]))
			return -1;
		card->rings_started++;
	}
	err = pthread_create(&card->heartbeat_thread, NULL, emu_heartbeat_main,
			     card);
	if (err) {
		errno = err;
		emu_err("cannot start the heartbeat: %m");
		return -1;
	}
	card->heartbeat_started = true;
	return 0;
}

/* Stop whatever emu_card_start() got going. */
void emu_card_stop(struct emu_card *card)
{
	uint32_t i;

	__atomic_store_n(&card->quit, true, __ATOMIC_RELEASE);
	for (i = 0; i < card->rings_started; i++)
		emu_ring_stop_thread(&card->rings[i]);
	card->rings_started = 0;
	if (card->heartbeat_started)
		pthread_join(card->heartbeat_thread, NULL);
	card->heartbeat_started = false;
}

void emu_card_destroy(struct emu_card *card)
{
	uint32_t i;

	if (card->rings) {
		for (i = 0; i < card->cfg.num_rings; i++)
			emu_ring_destroy(&card->rings[i]);
		free(card->rings);
	}
	for (i = 0; card->to_card && i < card->cfg.num_vectors; i++) {
		if (card->to_card[i] >= 0)
			close(card->to_card[i]);
		if (card->to_guest[i] >= 0)
			close(card->to_guest[i]);
	}
	free(card->to_card);
	free(card->to_guest);
	emu_mmu_destroy(card);
	emu_compute_destroy(card);
	emu_dma_destroy(card);
	emu_engines_destroy(&card->copy_engines);
	if (card->bar)
		munmap(card->bar, card->cfg.bar_size);
	if (card->shm_fd >= 0)
		close(card->shm_fd);
	pthread_mutex_destroy(&card->heartbeat_lock);
	emu_telemetry_destroy(card);
}

/* Raise MSI-X vector: QEMU turns the eventfd write into the message. */
void emu_card_raise_irq(struct emu_card *card, uint32_t vector)
{
	uint64_t one = 1;

	if (emu_card_is_dead(card) || vector >= card->cfg.num_vectors)
		return;
	/* Can only fail if the counter saturates: the guest sees it anyway. */
	if (write(card->to_guest[vector], &one, sizeof(one)) != sizeof(one))
		emu_log("interrupt on vector %u: %m", vector);
}

/* Jobs waiting for an engine look at their ring and the card again. */
void emu_card_engines_changed(struct emu_card *card)
{
	emu_engines_changed(&card->copy_engines);
	emu_engines_changed(&card->compute_engines);
}

void emu_card_fence_written(struct emu_card *card)
{
	uint32_t i;

	/*
	 * Pairs with emu_ring_wait_for_fence(): either we see its waiter
	 * counted, or it sees our fence_seq and does not sleep.  So a fence
	 * takes no ring's lock while no ring waits, the usual case.
	 */
	__atomic_add_fetch(&card->fence_seq, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&card->fence_waiters, __ATOMIC_SEQ_CST))
		return;
	for (i = 0; i < card->cfg.num_rings; i++)
		emu_ring_poke(&card->rings[i]);
}

static void emu_card_set_dead(struct emu_card *card, bool dead)
{
	pthread_mutex_lock(&card->heartbeat_lock);
	__atomic_store_n(&card->dead, dead, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&card->heartbeat_lock);
	/* transfers and operators waiting for an engine pause instead */
	emu_card_engines_changed(card);
}

/*
 * GLB_CTRL.RESET: every ring back to its reset state, every fault
 * disarmed, the heartbeat running again.  Rings are reset while the card
 * may still be dead so none of them gets going before the reset is done.
 */
static void emu_card_global_reset(struct emu_card *card)
{
	uint32_t i;

	for (i = 0; i < card->cfg.num_rings; i++) {
		emu_ring_reset(&card->rings[i]);
		emu_ring_inject(&card->rings[i], NPU_FAULT_CLEAR, 0);
	}
	emu_mmu_reset(card);
	emu_card_set_dead(card, false);
	emu_card_write_identity(card);
	emu_telemetry_reset(card);
	emu_reg_write64(card, NPU_SHADOW_BASE, 0);
	emu_reg_write32(card, NPU_GLB_ERROR, 0);
	emu_reg_write32(card, NPU_INJ_CTRL, 0);
	emu_reg_write32(card, NPU_GLB_CTRL, emu_reg_read32(card, NPU_GLB_CTRL) &
					     ~NPU_GLB_CTRL_RESET);
	emu_log("global reset");
}

static void emu_card_inject(struct emu_card *card)
{
	uint32_t ring = emu_reg_read32(card, NPU_INJ_RING);
	uint32_t kind = emu_reg_read32(card, NPU_INJ_KIND);
	uint32_t arg = emu_reg_read32(card, NPU_INJ_ARG);

	if (kind == NPU_FAULT_STOP_HEARTBEAT) {
		emu_log("fault: heartbeat stopped, card dead");
		emu_card_set_dead(card, true);
	} else if (emu_telemetry_inject(card, kind, arg)) {
		return;
	} else if (kind > NPU_FAULT_LAST) {
		emu_log("fault: unknown kind %u ignored", kind);
	} else if (ring >= card->cfg.num_rings) {
		emu_log("fault: no ring %u, ignored", ring);
	} else {
		emu_ring_inject(&card->rings[ring], kind, arg);
	}
}

/*
 * A ring whose reset is stuck (a fault) leaves RESET set and goes on, as a
 * broken ring would: the driver must not free what it uses.  Only a
 * global reset gets it back.
 */
static void emu_card_ring_control(struct emu_ring *r)
{
	uint32_t ctrl = emu_ring_read32(r, NPU_RING_CTRL);

	if (ctrl & NPU_RING_CTRL_RESET) {
		if (!emu_ring_reset_stuck(r))
			emu_ring_reset(r);
	} else if (ctrl & NPU_RING_CTRL_ENABLE) {
		emu_ring_enable(r);
	}
}

/*
 * A doorbell on vector 0: apply the control registers.  A dead card only
 * listens for a global reset.
 */
void emu_card_control(struct emu_card *card)
{
	uint32_t i;

	if (emu_reg_read32(card, NPU_GLB_CTRL) & NPU_GLB_CTRL_RESET) {
		emu_card_global_reset(card);
		return;
	}
	if (emu_card_is_dead(card))
		return;

	for (i = 0; i < card->cfg.num_rings; i++)
		emu_card_ring_control(&card->rings[i]);

	if (emu_reg_read32(card, NPU_INJ_CTRL) & NPU_INJ_CTRL_GO) {
		emu_card_inject(card);
		emu_reg_write32(card, NPU_INJ_CTRL, 0);
	}
	emu_mmu_control(card);
}

/* Drain a vector's doorbell eventfd; true if it had been rung. */
bool emu_card_take_doorbell(struct emu_card *card, uint32_t vector)
{
	uint64_t count;

	return read(card->to_card[vector], &count, sizeof(count)) ==
	       sizeof(count);
}

void emu_card_doorbell(struct emu_card *card, uint32_t vector)
{
	uint32_t i;

	if (vector == 0) {
		emu_card_control(card);
		return;
	}
	for (i = 0; i < card->cfg.num_rings; i++)
		emu_ring_doorbell(&card->rings[i], vector);
}
