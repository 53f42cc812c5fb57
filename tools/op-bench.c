// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * op-bench: operators on the card (DRM_NPU_OP_COMPUTE), timed from the
 * guest, each beside the same operator run natively on the host by
 * oplib-bench (bench_operators.h defines them for both).  The ratio,
 * native / card, says what the ring, the driver and the guest cost on top
 * of the math: 1 would be nothing.  The native figure is oplib-bench's
 * CPU time over its threads, not its wall time: on a busy host a process
 * that computes without a break is the scheduler's first victim, while
 * the card's ring thread, which sleeps between operators, is not, so the
 * two wall times are not comparable, but the work is the same.  On an
 * idle host the two native figures agree.
 *
 * Per operator: device buffers, inputs copied from user memory and the
 * output filled with zeros, one warm-up run (the card builds its
 * primitives), then --runs runs, each one submission (a TIMESTAMP, then
 * the COMPUTE) and a wait on the stream's fence, waited for as libacl's
 * aclrtSynchronizeStream() does (libacl/src/stream.c): a look at the
 * mapped slot for up to 50 us, then DRM_IOCTL_NPU_WAIT; then --batch-runs
 * submissions of --batch operators at once, which spread the per
 * submission cost over the batch.  The card's own time of an operator is
 * its stream fence's timestamp less the TIMESTAMP's, both the card's
 * clock; the rest is the submission, the doorbell, the interrupt and the
 * wake-up.  The card's clock placed on the guest's (clock_align()) splits
 * the rest in two: from the call to the card's TIMESTAMP (the submission
 * and the doorbell), and from the fence to the wait's return (the
 * interrupt and the wake-up).  Last, a corner of the output is checked
 * against plain loops.
 *
 * Then --runs more single operators on a direct ring (DRM_NPU_DOP_COMPUTE,
 * driver 1.3): the same descriptor with its tensors named by handle, in a
 * host buffer; written into the mapped ring with a TIMESTAMP before and a
 * SLOT_WRITE after, with a kick only when the card does not watch the
 * ring: no SUBMIT ioctl, and no check by the driver (the card checks).
 *
 * Prints a table of medians in acl-bench's style; then where the time
 * goes, with the minima and the native CPU time, which say more than
 * medians on a busy host; then the figures as JSON.
 *
 *   op-bench [--native FILE | --native-port] [--runs N] [--batch K] [--batch-runs N]
 *
 * FILE is what oplib-bench --json wrote on the host before the guest
 * booted.  --native-port pairs the runs instead (make bench does): before
 * each submission, oplib-bench --serve runs the same operator once on the
 * host, asked on the virtio port BENCH_PORT_NAME, so that the native and
 * the card's figures come from the same seconds of the host's life
 * (bench_operators.h says why that matters); the ratio is then the median
 * of each pair's, so that the host's speed, which swings between seconds,
 * cancels out in the pair rather than in the medians.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "npu_test_ioctl.h"
#include "bench_operators.h"
#include "bench_port.h"

/* Generous: a run takes milliseconds, a batch under a second. */
#define WAIT_MS			60000
/* libacl's spin before it sleeps in the kernel (SPIN_NS in stream.c) */
#define SPIN_NS			50000
/* Output elements checked against plain loops. */
#define VERIFY_ELEMS		1024
/* The direct ring: one run at a time needs three entries. */
#define DIRECT_ENTRIES		16

struct bench_cfg {
	unsigned int runs;
	unsigned int batch;
	unsigned int batch_runs;
};

/* One open card with a stream and an event slot for TIMESTAMP. */
struct bench_card {
	struct test_card card;
	struct drm_npu_stream_create stream;
	uint32_t ts_slot;
	uint64_t engines;
	int64_t clock_offset;	/* the card's clock less the guest's */
	int64_t clock_error;	/* within this much */
	/* the last submission: from the call to the TIMESTAMP, from the fence to the return */
	double to_card_ns, back_ns;
	/* a direct stream, when the driver has them with operators */
	bool has_direct;
	struct drm_npu_stream_create direct;
	struct drm_npu_direct_ctrl *dctrl;
	struct drm_npu_direct_cmd *dcmds;
	size_t dmap_size;
	struct drm_npu_bo_create desc_bo;	/* the direct descriptor, by handle */
	void *desc_map;
	uint32_t desc_size;			/* and its length */
	uint32_t done_slot;			/* the direct ring's SLOT_WRITE */
	uint64_t done_seq;
};

/* What the host measured: oplib-bench's JSON, or its answers on the port. */
struct native {
	bool loaded;
	bool paired;
	struct bench_port port;
	unsigned int engines;
	unsigned int threads;
	double load;
	double ns[BENCH_NUM_OPS];	/* medians */
	double min_ns[BENCH_NUM_OPS];
	double cpu_ns[BENCH_NUM_OPS];	/* CPU time over the threads */
};

/* Medians unless named min; batches per operator. */
struct op_figures {
	double first_ns;	/* the warm-up run */
	double single_ns;	/* one operator: submit to fence */
	double single_min_ns;
	double card_ns;		/* of which on the card */
	double card_min_ns;
	double to_card_ns;	/* submit to the card's TIMESTAMP */
	double back_ns;		/* the fence to the wait's return */
	double batch_ns;
	double batch_card_ns;
	double idle_wake_ns;	/* how late the guest wakes from a sleep as long */
	double native_batch_ns;	/* paired: the native CPU time beside the batches */
	double direct_ns;	/* one operator on a direct ring: the call to the fence */
	double direct_card_ns;
	double direct_to_card_ns;
	double direct_back_ns;
	double native_direct_ns; /* paired: the native CPU time beside those */
	/* paired: medians of native / card over the runs, single, batch, direct */
	double ratio, batch_ratio, direct_ratio;
};

/* One operator on the card: its buffers, their inputs, its descriptor. */
struct op_setup {
	struct drm_npu_bo_create bos[BENCH_MAX_TENSORS];
	float *inputs[BENCH_MAX_TENSORS];
	unsigned int num_tensors;
	struct bench_desc desc;
	uint32_t desc_size;	/* the driver takes exactly the operator's tensors */
};

static void die(const char *what, int err)
{
	fprintf(stderr, "op-bench: %s: %s\n", what, strerror(-err));
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static uint64_t fence_timestamp(const struct bench_card *bc, uint32_t slot)
{
	return __atomic_load_n(&bc->card.fence[slot].timestamp, __ATOMIC_ACQUIRE);
}

/* ---- the host's paired runs --------------------------------------------- */

/* The port, and what the server says it is. */
static void native_port_open(struct native *n)
{
	char line[BENCH_PORT_LINE_MAX];

	if (bench_port_open(&n->port, BENCH_PORT_NAME)) {
		fprintf(stderr, "op-bench: no virtio port %s (vm-run --host-socket)\n",
			BENCH_PORT_NAME);
		exit(1);
	}
	if (!bench_port_ask(&n->port, "info", line) ||
	    sscanf(line, "info %u %u %lf", &n->engines, &n->threads, &n->load) != 3) {
		fprintf(stderr, "op-bench: port %s: no info\n", BENCH_PORT_NAME);
		exit(1);
	}
	n->loaded = true;
	n->paired = true;
}

/* One native run of @id on the host: its CPU time over the threads. */
static double native_ask(struct native *n, enum bench_op_id id, double *wall_ns)
{
	double cpu_ns;

	if (bench_port_run(&n->port, bench_operators[id].key, wall_ns, &cpu_ns))
		exit(1);
	return cpu_ns;
}

/* ---- the card ----------------------------------------------------------- */

/*
 * The card's clock against the guest's: a TIMESTAMP's value against the
 * middle of the submission and the spin that saw it done, from the round
 * that took the least time, back to back so that the ring is still
 * awake. Right to within half that round. (CLOCK_NS, refreshed each
 * heartbeat, is too coarse for this.)
 */
static void clock_align(struct bench_card *bc)
{
	const volatile struct drm_npu_fence_slot *slot = &bc->card.fence[bc->stream.slot];
	struct drm_npu_cmd ts = { .op = DRM_NPU_OP_TIMESTAMP, .slot = bc->ts_slot };
	int64_t best = INT64_MAX;

	for (int i = 0; i < 64; i++) {
		int64_t t0 = test_now_ns(), t1;
		uint64_t seq;
		int err = test_submit(bc->card.fd, bc->stream.id, &ts, 1, 0, &seq);

		while (!err && (int64_t)(slot->value - seq) < 0)
			if (slot->error)
				err = -EIO;
		t1 = test_now_ns();
		if (err)
			die("TIMESTAMP", err);
		if (t1 - t0 < best) {
			best = t1 - t0;
			bc->clock_error = best / 2;
			bc->clock_offset = (int64_t)fence_timestamp(bc, bc->ts_slot) -
					   (t0 + (t1 - t0) / 2);
		}
	}
}

/*
 * A direct stream at the highest priority, its ring mapped, a host buffer
 * for the descriptor and a slot for its SLOT_WRITE.  Skipped on a driver
 * before 1.3, whose card refuses operators on a direct ring.
 */
static void direct_open(struct bench_card *bc)
{
	struct drm_npu_stream_map map = { 0 };
	drmVersionPtr v = drmGetVersion(bc->card.fd);
	int fd = bc->card.fd, err;
	void *p;

	if (!v)
		die("drmGetVersion", -errno);
	bc->has_direct = v->version_major > 1 || v->version_minor >= 3;
	drmFreeVersion(v);
	if (!bc->has_direct)
		return;
	memset(&bc->direct, 0, sizeof(bc->direct));
	bc->direct.flags = DRM_NPU_STREAM_DIRECT;
	bc->direct.priority = DRM_NPU_PRIORITY_HIGHEST;
	bc->direct.ring_entries = DIRECT_ENTRIES;
	err = test_ioctl(fd, DRM_IOCTL_NPU_STREAM_CREATE, &bc->direct);
	map.stream = bc->direct.id;
	if (!err)
		err = test_ioctl(fd, DRM_IOCTL_NPU_STREAM_MAP, &map);
	if (err)
		die("direct stream", err);
	p = mmap(NULL, map.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, map.mmap_offset);
	if (p == MAP_FAILED)
		die("direct ring mmap", -errno);
	bc->dctrl = p;
	bc->dcmds = (void *)((char *)p + 4096);
	bc->dmap_size = map.size;
	err = test_bo_create(fd, 4096, DRM_NPU_BO_HOST, &bc->desc_bo);
	if (err)
		die("descriptor buffer", err);
	bc->desc_map = mmap(NULL, bc->desc_bo.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    bc->desc_bo.mmap_offset);
	if (bc->desc_map == MAP_FAILED)
		die("descriptor mmap", -errno);
	err = test_slot_alloc(fd, &bc->done_slot);
	if (err)
		die("SLOT_ALLOC", err);
}

static void card_open(struct bench_card *bc)
{
	uint64_t operators, dtypes;
	int err;

	err = test_card_open(&bc->card, 0);
	if (err)
		die("no card", err);
	operators = test_param_or_die(bc->card.fd, DRM_NPU_PARAM_OPERATORS);
	dtypes = test_param_or_die(bc->card.fd, DRM_NPU_PARAM_DTYPES);
	bc->engines = test_param_or_die(bc->card.fd, DRM_NPU_PARAM_NUM_COMPUTE_ENGINES);
	for (unsigned int i = 0; i < BENCH_NUM_OPS; i++)
		if (!(operators & 1ULL << bench_operators[i].kind))
			die(bench_operators[i].name, -EOPNOTSUPP);
	if (!(dtypes & 1ULL << NPU_DTYPE_F32))
		die("float32", -EOPNOTSUPP);
	err = test_stream_create(bc->card.fd, DRM_NPU_PRIORITY_HIGHEST, 0, &bc->stream);
	if (err)
		die("STREAM_CREATE", err);
	err = test_slot_alloc(bc->card.fd, &bc->ts_slot);
	if (err)
		die("SLOT_ALLOC", err);
	clock_align(bc);
	direct_open(bc);
}

static void card_close(struct bench_card *bc)
{
	if (bc->has_direct) {
		munmap(bc->dctrl, bc->dmap_size);
		munmap(bc->desc_map, bc->desc_bo.size);
		test_stream_destroy(bc->card.fd, bc->direct.id, 0);
		test_bo_close(bc->card.fd, bc->desc_bo.handle);
		test_slot_op(bc->card.fd, DRM_IOCTL_NPU_SLOT_FREE, bc->done_slot, 0);
	}
	test_stream_destroy(bc->card.fd, bc->stream.id, 0);
	test_slot_op(bc->card.fd, DRM_IOCTL_NPU_SLOT_FREE, bc->ts_slot, 0);
	test_card_close(&bc->card);
}

/* An application's wait, through libacl: a short spin, then the kernel's. */
static int bench_wait(struct bench_card *bc, uint32_t slot_idx, uint64_t seq)
{
	const volatile struct drm_npu_fence_slot *slot = &bc->card.fence[slot_idx];
	int64_t end = test_now_ns() + SPIN_NS;

	do {
		if ((int64_t)(slot->value - seq) >= 0)
			return 0;
		if (slot->error)
			break;
	} while (test_now_ns() < end);
	return test_wait(bc->card.fd, slot_idx, seq, WAIT_MS);
}

static int run_cmd(struct bench_card *bc, struct drm_npu_cmd cmd)
{
	uint64_t seq;
	int err = test_submit(bc->card.fd, bc->stream.id, &cmd, 1, 0, &seq);

	return err ?: test_wait(bc->card.fd, bc->stream.slot, seq, WAIT_MS);
}

/* Inputs hold bench_fill()'s values, as natively; the output zeros. */
static void op_setup(struct bench_card *bc, enum bench_op_id id, struct op_setup *s)
{
	const struct bench_operator *op = &bench_operators[id];
	uint64_t addrs[BENCH_MAX_TENSORS];
	unsigned int i;
	int err;

	memset(s, 0, sizeof(*s));
	s->num_tensors = bench_op_num_tensors(op);
	s->desc_size = bench_desc_size(id);
	for (i = 0; i < s->num_tensors; i++) {
		uint64_t bytes = bench_tensor_bytes(&op->tensors[i]);

		err = test_bo_create(bc->card.fd, bytes, DRM_NPU_BO_DEVICE, &s->bos[i]);
		if (err)
			die("BO_CREATE", err);
		addrs[i] = s->bos[i].addr;
		if (i == op->num_inputs) {
			err = run_cmd(bc, test_cmd_fill(addrs[i], 0, bytes, 0));
			if (err)
				die("FILL", err);
			continue;
		}
		s->inputs[i] = malloc(bytes);
		if (!s->inputs[i])
			die("inputs", -ENOMEM);
		bench_fill(s->inputs[i], bytes / sizeof(float));
		err = run_cmd(bc, test_cmd_copy(addrs[i], (uintptr_t)s->inputs[i], bytes,
						DRM_NPU_CMD_SRC_USER));
		if (err)
			die("COPY", err);
	}
	bench_desc_build(id, addrs, &s->desc);
	if (bc->has_direct) {
		struct bench_desc by_handle;
		struct npu_op_desc *d = (struct npu_op_desc *)by_handle.bytes;

		memset(addrs, 0, sizeof(addrs));
		bench_desc_build(id, addrs, &by_handle);
		for (i = 0; i < s->num_tensors; i++)
			d->tensors[i].bind = htole16(s->bos[i].handle);
		memcpy(bc->desc_map, by_handle.bytes, s->desc_size);
		bc->desc_size = s->desc_size;
	}
}

static void op_teardown(struct bench_card *bc, struct op_setup *s)
{
	for (unsigned int i = 0; i < s->num_tensors; i++) {
		test_bo_close(bc->card.fd, s->bos[i].handle);
		free(s->inputs[i]);
	}
}

/*
 * A run from @t0 to @t1 on the guest's clock, whose TIMESTAMP and fence
 * (in @done_slot) the card stamped: the way there and back into @bc, and
 * the card's own time returned.
 */
static double split_times(struct bench_card *bc, int64_t t0, int64_t t1, uint32_t done_slot)
{
	int64_t ts = (int64_t)fence_timestamp(bc, bc->ts_slot);
	int64_t done = (int64_t)fence_timestamp(bc, done_slot);

	bc->to_card_ns = (double)(ts - (t0 + bc->clock_offset));
	bc->back_ns = (double)(t1 + bc->clock_offset - done);
	return (double)(done - ts);
}

/*
 * One submission: a TIMESTAMP, then @count operators; the wall time from
 * submit to the fence and the card's own time, both in ns.
 */
static void submit_ops(struct bench_card *bc, const struct op_setup *s,
		       unsigned int count, double *wall_ns, double *card_ns)
{
	struct drm_npu_cmd cmds[1 + DRM_NPU_MAX_BATCH] = {
		{ .op = DRM_NPU_OP_TIMESTAMP, .slot = bc->ts_slot },
	};
	uint64_t seq;
	int64_t t0, t1;
	int err;

	for (unsigned int i = 1; i <= count; i++)
		cmds[i] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_COMPUTE,
						.src = (uintptr_t)s->desc.bytes,
						.size = s->desc_size };
	t0 = test_now_ns();
	err = test_submit(bc->card.fd, bc->stream.id, cmds, 1 + count, 0, &seq);
	if (!err)
		err = bench_wait(bc, bc->stream.slot, seq);
	t1 = test_now_ns();
	*wall_ns = (double)(t1 - t0);
	if (err) {
		fprintf(stderr, "op-bench: slot error %u\n",
			bc->card.fence[bc->stream.slot].error);
		die("COMPUTE", err);
	}
	*card_ns = split_times(bc, t0, t1, bc->stream.slot);
}

/* One operator on the direct ring, timed as submit_ops() times one. */
static void submit_direct(struct bench_card *bc, double *wall_ns, double *card_ns)
{
	struct drm_npu_direct_cmd cmds[3] = {
		{ .op = DRM_NPU_DOP_TIMESTAMP, .dst_bind = bc->ts_slot },
		{ .op = DRM_NPU_DOP_COMPUTE, .src_bind = bc->desc_bo.handle,
		  .size = bc->desc_size },
		{ .op = DRM_NPU_DOP_SLOT_WRITE, .dst_bind = bc->done_slot,
		  .value = ++bc->done_seq },
	};
	int64_t t0, t1;
	int err;

	t0 = test_now_ns();
	err = test_direct_push(bc->card.fd, bc->direct.id, bc->dctrl, bc->dcmds, DIRECT_ENTRIES,
			       cmds, 3);
	if (!err)
		err = bench_wait(bc, bc->done_slot, bc->done_seq);
	t1 = test_now_ns();
	*wall_ns = (double)(t1 - t0);
	if (err) {
		fprintf(stderr, "op-bench: direct stream error %u\n",
			bc->card.fence[bc->direct.slot].error);
		die("direct COMPUTE", err);
	}
	*card_ns = split_times(bc, t0, t1, bc->done_slot);
}

/*
 * Medians and minima of @n submissions of @count operators, per operator;
 * paired, each after a native run of the operator, whose median wall
 * time, minimum and median CPU time go to @native_ns.
 */
static void measure(struct bench_card *bc, const struct op_setup *s, unsigned int count,
		    bool direct, unsigned int n, struct native *nat, enum bench_op_id id,
		    double wall_ns[2], double card_ns[2], double split_ns[2], double native_ns[3],
		    double *ratio)
{
	double *wall = calloc(n, sizeof(*wall)), *card = calloc(n, sizeof(*card));
	double *nwall = calloc(n, sizeof(*nwall)), *ncpu = calloc(n, sizeof(*ncpu));
	double *to = calloc(n, sizeof(*to)), *back = calloc(n, sizeof(*back));

	if (!wall || !card || !nwall || !ncpu || !to || !back)
		die("measure", -ENOMEM);
	for (unsigned int i = 0; i < n; i++) {
		if (nat->paired)
			ncpu[i] = native_ask(nat, id, &nwall[i]);
		if (direct)
			submit_direct(bc, &wall[i], &card[i]);
		else
			submit_ops(bc, s, count, &wall[i], &card[i]);
		to[i] = bc->to_card_ns;
		back[i] = bc->back_ns;
	}
	split_ns[0] = median(to, n);
	split_ns[1] = median(back, n);
	/* paired: each run against the native run just before it, its host's speed */
	for (unsigned int i = 0; i < n; i++)
		to[i] = ncpu[i] * count / wall[i];
	*ratio = nat->paired ? median(to, n) : 0;
	free(to);
	free(back);
	wall_ns[0] = median(wall, n) / count;
	wall_ns[1] = wall[0] / count;
	card_ns[0] = median(card, n) / count;
	card_ns[1] = card[0] / count;
	native_ns[0] = median(nwall, n);
	native_ns[1] = nwall[0];
	native_ns[2] = median(ncpu, n);
	free(wall);
	free(card);
	free(nwall);
	free(ncpu);
}

/*
 * The control for the rest: how late a nanosleep() as long as the
 * operator ends, what the guest's waking up alone costs (TCG and a busy
 * host make it dear) with neither the driver nor the card involved.
 */
static double idle_wake_ns(double sleep_ns, unsigned int n)
{
	struct timespec ts = { .tv_sec = (time_t)(sleep_ns / 1e9),
			       .tv_nsec = (long)fmod(sleep_ns, 1e9) };
	double *late = calloc(n, sizeof(*late)), m;
	int64_t t0;

	if (!late)
		die("idle_wake_ns", -ENOMEM);
	for (unsigned int i = 0; i < n; i++) {
		t0 = test_now_ns();
		nanosleep(&ts, NULL);
		late[i] = (double)(test_now_ns() - t0) - sleep_ns;
	}
	m = median(late, n);
	free(late);
	return m;
}

static void op_measure(struct bench_card *bc, const struct op_setup *s,
		       const struct bench_cfg *cfg, struct native *n, enum bench_op_id id,
		       struct op_figures *f)
{
	double wall[2], card[2], split[2], native[3];

	submit_ops(bc, s, 1, &f->first_ns, &card[0]);
	measure(bc, s, 1, false, cfg->runs, n, id, wall, card, split, native, &f->ratio);
	f->to_card_ns = split[0];
	f->back_ns = split[1];
	f->single_ns = wall[0];
	f->single_min_ns = wall[1];
	f->card_ns = card[0];
	f->card_min_ns = card[1];
	if (n->paired) {
		n->ns[id] = native[0];
		n->min_ns[id] = native[1];
		n->cpu_ns[id] = native[2];
	}
	measure(bc, s, cfg->batch, false, cfg->batch_runs, n, id, wall, card, split, native,
		&f->batch_ratio);
	f->batch_ns = wall[0];
	f->batch_card_ns = card[0];
	f->native_batch_ns = n->paired ? native[2] : n->cpu_ns[id];
	if (bc->has_direct) {
		/* the card's first look at this descriptor; its primitive is built */
		submit_direct(bc, &wall[0], &card[0]);
		measure(bc, s, 1, true, cfg->runs, n, id, wall, card, split, native,
			&f->direct_ratio);
		f->direct_ns = wall[0];
		f->direct_card_ns = card[0];
		f->direct_to_card_ns = split[0];
		f->direct_back_ns = split[1];
		f->native_direct_ns = n->paired ? native[2] : n->cpu_ns[id];
	}
	f->idle_wake_ns = idle_wake_ns(f->card_ns, cfg->runs);
}

/* ---- the check: the first output elements by plain loops ---------------- */

static double ref_conv2d(const struct op_setup *s, uint64_t e)
{
	const struct bench_tensor_shape *x = &bench_operators[BENCH_CONV2D].tensors[0];
	const struct bench_tensor_shape *w = &bench_operators[BENCH_CONV2D].tensors[1];
	int64_t c_in = x->dims[1], h_in = x->dims[2], w_in = x->dims[3];
	int64_t kh = w->dims[2], kw = w->dims[3];
	int64_t ow = e % w_in, oh = e / w_in % h_in, oc = e / w_in / h_in % w->dims[0];
	double sum = 0;

	for (int64_t c = 0; c < c_in; c++)
		for (int64_t r = 0; r < kh; r++)
			for (int64_t q = 0; q < kw; q++) {
				int64_t ih = oh + r - 1, iw = ow + q - 1;

				if (ih < 0 || ih >= h_in || iw < 0 || iw >= w_in)
					continue;
				sum += (double)s->inputs[0][(c * h_in + ih) * w_in + iw] *
				       s->inputs[1][((oc * c_in + c) * kh + r) * kw + q];
			}
	return sum;
}

static double ref_matmul(const struct op_setup *s, uint64_t e)
{
	const struct bench_tensor_shape *a = &bench_operators[BENCH_MATMUL].tensors[0];
	const struct bench_tensor_shape *b = &bench_operators[BENCH_MATMUL].tensors[1];
	uint64_t k_dim = a->dims[1], n_dim = b->dims[1];
	uint64_t row = e / n_dim, col = e % n_dim;
	double sum = 0;

	for (uint64_t k = 0; k < k_dim; k++)
		sum += (double)s->inputs[0][row * k_dim + k] * s->inputs[1][k * n_dim + col];
	return sum;
}

static double ref_add(const struct op_setup *s, uint64_t e)
{
	return (double)s->inputs[0][e] + s->inputs[1][e];
}

static void op_verify(struct bench_card *bc, enum bench_op_id id, const struct op_setup *s)
{
	static double (*const ref[BENCH_NUM_OPS])(const struct op_setup *, uint64_t) = {
		[BENCH_CONV2D] = ref_conv2d,
		[BENCH_MATMUL] = ref_matmul,
		[BENCH_ADD] = ref_add,
	};
	const struct bench_operator *op = &bench_operators[id];
	float got[VERIFY_ELEMS];
	int err;

	err = run_cmd(bc, test_cmd_copy((uintptr_t)got, s->bos[op->num_inputs].addr,
					sizeof(got), DRM_NPU_CMD_DST_USER));
	if (err)
		die("COPY back", err);
	for (uint64_t e = 0; e < VERIFY_ELEMS; e++) {
		double want = ref[id](s, e);

		if (fabs(got[e] - want) > 1e-3 * (1 + fabs(want))) {
			fprintf(stderr, "op-bench: %s: element %llu is %g, not %g\n", op->name,
				(unsigned long long)e, got[e], want);
			exit(1);
		}
	}
}

/* ---- the host's figures ------------------------------------------------- */

static bool json_u32(json_object *o, const char *key, unsigned int *v)
{
	json_object *f;

	if (!json_object_object_get_ex(o, key, &f))
		return false;
	*v = (unsigned int)json_object_get_int(f);
	return true;
}

static bool native_result(json_object *r, struct native *n)
{
	json_object *key, *ns, *min, *cpu;

	if (!json_object_object_get_ex(r, "key", &key) ||
	    !json_object_object_get_ex(r, "ns_per_run", &ns) ||
	    !json_object_object_get_ex(r, "min_ns", &min) ||
	    !json_object_object_get_ex(r, "cpu_ns", &cpu))
		return false;
	for (unsigned int i = 0; i < BENCH_NUM_OPS; i++) {
		if (strcmp(json_object_get_string(key), bench_operators[i].key))
			continue;
		n->ns[i] = json_object_get_double(ns);
		n->min_ns[i] = json_object_get_double(min);
		n->cpu_ns[i] = json_object_get_double(cpu);
	}
	return true;
}

static void native_load(const char *path, struct native *n)
{
	json_object *root = json_object_from_file(path), *results, *load;
	bool ok = root && json_u32(root, "engines", &n->engines) &&
		  json_u32(root, "threads", &n->threads) &&
		  json_object_object_get_ex(root, "load", &load) &&
		  json_object_object_get_ex(root, "results", &results);

	for (size_t i = 0; ok && i < json_object_array_length(results); i++)
		ok = native_result(json_object_array_get_idx(results, i), n);
	if (!ok) {
		fprintf(stderr, "op-bench: %s: not oplib-bench's JSON\n", path);
		exit(1);
	}
	n->load = json_object_get_double(load);
	n->loaded = true;
	json_object_put(root);
}

/* ---- results ------------------------------------------------------------ */

struct row {
	char name[48];
	double card_ms, native_ms, ratio, gflops;
};

static struct row rows[3 * BENCH_NUM_OPS];
static unsigned int nrows;
static char ref_name[32];

/* @ratio: the paired runs' median, else 0 for the medians' ratio */
static void add_row(const char *name, double card_ns, double native_ns, double ratio,
		    double flops)
{
	struct row *r = &rows[nrows++];

	snprintf(r->name, sizeof(r->name), "%s", name);
	r->card_ms = card_ns / 1e6;
	r->native_ms = native_ns / 1e6;
	r->ratio = ratio ?: native_ns > 0 && card_ns > 0 ? native_ns / card_ns : 0;
	r->gflops = flops / card_ns;
	printf("%-30s %12.3f %-5s | %-22s %12.3f %-5s | x%.2f | %8.2f GFLOP/s\n", r->name,
	       r->card_ms, "ms", ref_name, r->native_ms, "ms", r->ratio, r->gflops);
	fflush(stdout);
}

static void print_header(const struct bench_card *bc, const struct native *n,
			 const struct bench_cfg *cfg)
{
	printf("op-bench: card 0, %llu compute engines, %u runs, batches of %u; "
	       "the card's clock on the guest's within %.1f us\n",
	       (unsigned long long)bc->engines, cfg->runs, cfg->batch, bc->clock_error / 1e3);
	if (n->loaded) {
		printf("op-bench: native: oplib-bench on the host, %u OpenMP thread%s per "
		       "operator (the host's CPUs over %u engines); host load %.2f; %s\n",
		       n->threads, n->threads == 1 ? "" : "s", n->engines, n->load,
		       n->paired ? "paired: a native run before each submission; ratio: the "
				   "median of each run's native / card" :
				    "measured before the guest booted");
		if (n->engines != bc->engines)
			printf("op-bench: WARNING: the card has %llu engines, oplib-bench "
			       "assumed %u: its threads differ from an engine's\n",
			       (unsigned long long)bc->engines, n->engines);
		snprintf(ref_name, sizeof(ref_name), "native CPU, %u thread%s",
			 n->threads, n->threads == 1 ? "" : "s");
	} else {
		snprintf(ref_name, sizeof(ref_name), "native: not given");
	}
	printf("%-30s %18s | %-22s %18s | ratio (>1: better) | card\n", "operator",
	       "card (guest)", "reference", "");
}

/*
 * Where the time goes, per operator: the card's own time and the rest
 * (the submission, the doorbell, the interrupt, the wake-up), what a
 * batch saves, and the minima and the native CPU time, which say more
 * than medians on a busy host.
 */
static void print_breakdown(const struct op_figures *f, const struct native *n)
{
	printf("%-30s %8s %8s %8s %8s %8s %8s %8s | %8s %8s | %8s %8s\n", "per operator, us",
	       "card", "on card", "the rest", "to card", "back", "wake", "batched", "native",
	       "cpu", "card min", "nat. min");
	for (unsigned int i = 0; i < BENCH_NUM_OPS; i++)
		printf("%-30s %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f | %8.0f %8.0f | %8.0f %8.0f\n",
		       bench_operators[i].name, f[i].single_ns / 1e3, f[i].card_ns / 1e3,
		       (f[i].single_ns - f[i].card_ns) / 1e3, f[i].to_card_ns / 1e3,
		       f[i].back_ns / 1e3, f[i].idle_wake_ns / 1e3,
		       f[i].batch_ns / 1e3, n->ns[i] / 1e3, n->cpu_ns[i] / 1e3,
		       f[i].single_min_ns / 1e3, n->min_ns[i] / 1e3);
	for (unsigned int i = 0; i < BENCH_NUM_OPS && f[i].direct_ns > 0; i++) {
		char name[48];

		snprintf(name, sizeof(name), "%s, direct ring", bench_operators[i].key);
		printf("%-30s %8.0f %8.0f %8.0f %8.0f %8.0f %8s %8s | %8.0f\n", name,
		       f[i].direct_ns / 1e3, f[i].direct_card_ns / 1e3,
		       (f[i].direct_ns - f[i].direct_card_ns) / 1e3, f[i].direct_to_card_ns / 1e3,
		       f[i].direct_back_ns / 1e3, "", "", f[i].native_direct_ns / 1e3);
	}
	printf("(the rest: submit, doorbell, interrupt, wake-up; of it, to card: from the call "
	       "to the card's TIMESTAMP, back: from the fence to the wait's return, both medians "
	       "on the guest's clock; wake: the guest's own, after a nanosleep as long as the "
	       "operator)\n");
}

static void print_json(const struct bench_card *bc, const struct native *n,
		       const struct bench_cfg *cfg, const struct op_figures *f,
		       double seconds)
{
	printf("{\"tool\": \"op-bench\", \"seconds\": %.1f, \"engines\": %llu, "
	       "\"threads\": %u, \"host_load\": %.2f, \"runs\": %u, \"batch\": %u, "
	       "\"results\": [", seconds, (unsigned long long)bc->engines, n->threads,
	       n->load, cfg->runs, cfg->batch);
	for (unsigned int i = 0; i < nrows; i++)
		printf("%s{\"name\": \"%s\", \"value\": %.4f, \"unit\": \"ms\", "
		       "\"reference\": \"%s\", \"reference_value\": %.4f, \"ratio\": %.4f, "
		       "\"gflops\": %.3f}", i ? ", " : "", rows[i].name, rows[i].card_ms,
		       ref_name, rows[i].native_ms, rows[i].ratio, rows[i].gflops);
	printf("], \"operators\": [");
	for (unsigned int i = 0; i < BENCH_NUM_OPS; i++)
		printf("%s{\"key\": \"%s\", \"first_ns\": %.0f, \"ns_per_run\": %.0f, "
		       "\"min_ns\": %.0f, \"card_ns_per_run\": %.0f, \"card_min_ns\": %.0f, "
		       "\"batch_ns_per_op\": %.0f, \"batch_card_ns_per_op\": %.0f, "
		       "\"idle_wake_ns\": %.0f, \"native_ns\": %.0f, \"native_min_ns\": %.0f, "
		       "\"native_cpu_ns\": %.0f, \"direct_ns_per_run\": %.0f, "
		       "\"direct_card_ns_per_run\": %.0f, \"direct_to_card_ns\": %.0f, "
		       "\"direct_back_ns\": %.0f}",
		       i ? ", " : "", bench_operators[i].key, f[i].first_ns, f[i].single_ns,
		       f[i].single_min_ns, f[i].card_ns, f[i].card_min_ns, f[i].batch_ns,
		       f[i].batch_card_ns, f[i].idle_wake_ns, n->ns[i], n->min_ns[i],
		       n->cpu_ns[i], f[i].direct_ns, f[i].direct_card_ns, f[i].direct_to_card_ns,
		       f[i].direct_back_ns);
	printf("]}\n");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: op-bench [--native FILE | --native-port] [--runs N] [--batch K] "
		   "[--batch-runs N]\n"
		   "defaults: --runs 40 --batch 8 --batch-runs 10; FILE: oplib-bench --json; "
		   "--native-port: oplib-bench --serve on the port " BENCH_PORT_NAME "\n");
}

static void parse_args(int argc, char **argv, struct bench_cfg *cfg, const char **native,
		       bool *paired)
{
	static const struct option options[] = {
		{ "native", required_argument, NULL, 'n' },
		{ "native-port", no_argument, NULL, 'p' },
		{ "runs", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		{ "batch-runs", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'n':
			*native = optarg;
			break;
		case 'p':
			*paired = true;
			break;
		case 'r':
			cfg->runs = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			cfg->batch = strtoul(optarg, NULL, 0);
			break;
		case 'B':
			cfg->batch_runs = strtoul(optarg, NULL, 0);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	/* the TIMESTAMP takes one command of the batch */
	if (!cfg->runs || !cfg->batch || cfg->batch >= DRM_NPU_MAX_BATCH ||
	    !cfg->batch_runs || optind < argc || (*native && *paired)) {
		usage(stderr);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg = { .runs = 40, .batch = 8, .batch_runs = 10 };
	struct op_figures figs[BENCH_NUM_OPS];
	int64_t t_start = test_now_ns();
	struct native native = { 0 };
	const char *native_path = NULL;
	struct bench_card bc;
	bool paired = false;
	char label[48];

	memset(figs, 0, sizeof(figs));
	parse_args(argc, argv, &cfg, &native_path, &paired);
	if (native_path)
		native_load(native_path, &native);
	if (paired)
		native_port_open(&native);
	card_open(&bc);
	print_header(&bc, &native, &cfg);
	for (unsigned int i = 0; i < BENCH_NUM_OPS; i++) {
		const struct bench_operator *op = &bench_operators[i];
		struct op_setup s;

		op_setup(&bc, i, &s);
		op_measure(&bc, &s, &cfg, &native, i, &figs[i]);
		op_verify(&bc, i, &s);
		op_teardown(&bc, &s);
		add_row(op->name, figs[i].single_ns, native.cpu_ns[i], figs[i].ratio, op->flops);
		snprintf(label, sizeof(label), "%s, x%u batch", op->key, cfg.batch);
		add_row(label, figs[i].batch_ns, figs[i].native_batch_ns, figs[i].batch_ratio,
			op->flops);
		if (bc.has_direct) {
			snprintf(label, sizeof(label), "%s, direct ring", op->key);
			add_row(label, figs[i].direct_ns, figs[i].native_direct_ns,
				figs[i].direct_ratio, op->flops);
		}
	}
	print_breakdown(figs, &native);
	card_close(&bc);
	print_json(&bc, &native, &cfg, figs, (test_now_ns() - t_start) / 1e9);
	return 0;
}
