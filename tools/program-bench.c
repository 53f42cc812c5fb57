// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a program saves: 100 small device copies submitted as 100 SUBMITs,
 * as one batch of 100, and as one DRM_NPU_OP_PROGRAM of a program holding
 * them.  Prints, per copy, the host time the submission took and the time
 * to completion (submission and wait), medians of several rounds.  Runs in
 * the guest (make bench).
 */

#include "npu_test_ioctl.h"
#include "../tools/bench_clock.h"

#define TASKS	100
#define ROUNDS	41
#define COPY	256

struct bench {
	struct test_card card;
	struct drm_npu_stream_create stream;
	struct drm_npu_cmd copies[TASKS];
	uint32_t program;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "program-bench: %s: %s\n", what, strerror(-err));
	exit(1);
}

/* One round of a mode; the submission's and the whole round's ns. */
static void round_of(struct bench *b, int mode, uint64_t *submit_ns, uint64_t *total_ns)
{
	struct drm_npu_cmd run = { .op = DRM_NPU_OP_PROGRAM, .value = b->program };
	uint64_t t0 = now_ns(), seq = 0;
	unsigned int i;
	int ret = 0;

	switch (mode) {
	case 0:
		for (i = 0; i < TASKS && !ret; i++)
			ret = test_submit(b->card.fd, b->stream.id, &b->copies[i], 1, 0, &seq);
		break;
	case 1:
		ret = test_submit(b->card.fd, b->stream.id, b->copies, TASKS, 0, &seq);
		break;
	default:
		ret = test_submit(b->card.fd, b->stream.id, &run, 1, 0, &seq);
		break;
	}
	if (ret)
		die("submit", ret);
	*submit_ns = now_ns() - t0;
	ret = test_wait(b->card.fd, b->stream.slot, seq, 60000);
	if (ret)
		die("wait", ret);
	*total_ns = now_ns() - t0;
}

int main(void)
{
	static const char *const modes[] = {
		"100 SUBMITs of one copy", "one SUBMIT of 100 copies",
		"one DRM_NPU_OP_PROGRAM of 100 copies",
	};
	uint64_t submit[ROUNDS], total[ROUNDS];
	struct drm_npu_program_create pc = { 0 };
	struct drm_npu_bo_create bo;
	static struct bench b;
	unsigned int i, r;
	int mode, ret;

	ret = test_card_open(&b.card, 0);
	if (!ret)
		ret = test_stream_create(b.card.fd, 0, 0, &b.stream);
	if (!ret)
		ret = test_bo_create(b.card.fd, 2 * TASKS * COPY, 0, &bo);
	if (ret)
		die("setup", ret);
	for (i = 0; i < TASKS; i++)
		b.copies[i] = test_cmd_copy(bo.addr + (TASKS + i) * COPY, bo.addr + i * COPY,
					    COPY, 0);
	pc.cmds = (uintptr_t)b.copies;
	pc.count = TASKS;
	pc.cmd_size = sizeof(b.copies[0]);
	ret = test_ioctl(b.card.fd, DRM_IOCTL_NPU_PROGRAM_CREATE, &pc);
	if (ret)
		die("PROGRAM_CREATE", ret);
	b.program = pc.id;

	printf("program-bench: %d copies of %d bytes, host ns per copy, median of %d\n",
	       TASKS, COPY, ROUNDS);
	printf("%-40s %10s %12s\n", "", "submit", "to the end");
	for (mode = 0; mode < 3; mode++) {
		round_of(&b, mode, &submit[0], &total[0]);	/* warm */
		for (r = 0; r < ROUNDS; r++)
			round_of(&b, mode, &submit[r], &total[r]);
		printf("%-40s %10llu %12llu\n", modes[mode],
		       (unsigned long long)median_u64(submit, ROUNDS) / TASKS,
		       (unsigned long long)median_u64(total, ROUNDS) / TASKS);
	}
	test_card_close(&b.card);
	return 0;
}
