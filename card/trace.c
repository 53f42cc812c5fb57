// SPDX-License-Identifier: GPL-2.0
/*
 * --trace FILE: the card notes when each step of a command happens, in
 * host CLOCK_MONOTONIC, so that the time between a doorbell and an
 * interrupt can be taken apart (docs/hardware.md, "Latency").  Notes go
 * into a fixed array, a few nanoseconds each and no lock, and into FILE
 * when the card stops; a full array drops the later ones.  The file starts
 * with the offset of CLOCK_REALTIME to CLOCK_MONOTONIC, which lines the
 * notes up with QEMU's time-stamped trace (gettimeofday).
 */
#include <stdio.h>
#include <stdlib.h>

#include "emu_card.h"

#define EMU_TRACE_MAX	(1u << 20)

struct emu_trace_note {
	uint64_t ns;
	uint32_t ring;
	uint32_t event;
	uint64_t arg;
};

static const char *const emu_trace_names[] = {
	[EMU_TRACE_DOORBELL]	= "doorbell",
	[EMU_TRACE_RING_WAKE]	= "ring-wake",
	[EMU_TRACE_POLL_HIT]	= "poll-hit",
	[EMU_TRACE_FETCH]	= "fetch",
	[EMU_TRACE_OP_START]	= "op-start",
	[EMU_TRACE_OP_END]	= "op-end",
	[EMU_TRACE_FENCE]	= "fence",
	[EMU_TRACE_DONE]	= "done",
	[EMU_TRACE_IRQ]		= "irq",
	[EMU_TRACE_SLEEP]	= "sleep",
};

static struct emu_trace_note *emu_trace_notes;
static uint32_t emu_trace_count;
static const char *emu_trace_path;

int emu_trace_init(const char *path)
{
	emu_trace_path = path;
	if (!path)
		return 0;
	emu_trace_notes = calloc(EMU_TRACE_MAX, sizeof(*emu_trace_notes));
	if (!emu_trace_notes) {
		emu_err("--trace: no memory");
		return -1;
	}
	return 0;
}

bool emu_tracing(void)
{
	return emu_trace_notes;
}

void emu_trace(uint32_t ring, enum emu_trace_event event, uint64_t arg)
{
	uint32_t i;

	if (!emu_trace_notes)
		return;
	i = __atomic_fetch_add(&emu_trace_count, 1, __ATOMIC_RELAXED);
	if (i < EMU_TRACE_MAX)
		emu_trace_notes[i] = (struct emu_trace_note){
			.ns = emu_monotonic_ns(), .ring = ring,
			.event = event, .arg = arg,
		};
}

static int64_t realtime_offset_ns(void)
{
	struct timespec rt;
	uint64_t mono = emu_monotonic_ns();

	clock_gettime(CLOCK_REALTIME, &rt);
	return (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec - (int64_t)mono;
}

void emu_trace_dump(void)
{
	uint32_t n = emu_trace_count < EMU_TRACE_MAX ? emu_trace_count : EMU_TRACE_MAX;
	FILE *f;

	if (!emu_trace_notes)
		return;
	f = fopen(emu_trace_path, "w");
	if (!f) {
		emu_err("--trace %s: %m", emu_trace_path);
	} else {
		fprintf(f, "# realtime-monotonic %lld notes %u dropped %u\n",
			(long long)realtime_offset_ns(), n, emu_trace_count - n);
		for (uint32_t i = 0; i < n; i++)
			fprintf(f, "%llu %u %s %llu\n",
				(unsigned long long)emu_trace_notes[i].ns,
				emu_trace_notes[i].ring,
				emu_trace_names[emu_trace_notes[i].event],
				(unsigned long long)emu_trace_notes[i].arg);
		fclose(f);
	}
	free(emu_trace_notes);
	emu_trace_notes = NULL;
}
