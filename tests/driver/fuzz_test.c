// SPDX-License-Identifier: GPL-2.0-only
/*
 * Random ioctls and mmaps, built from a mix of valid and invalid values:
 * each must succeed or fail with an errno of the documented kind, the card
 * must never have to reject a command (the driver checks them all first),
 * another process's work must go on untouched, and closing the file must
 * give everything back. Operators come valid, or mangled from valid ones;
 * the card may refuse their shapes (OP_PARAM), never their memory.
 *
 * The seed is printed; NPU_FUZZ_SEED=<n> repeats a run, NPU_FUZZ_CALLS=<n>
 * makes it longer.
 */

#define _GNU_SOURCE
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"
#include "npu_operator.h"

#define FUZZ_CHILDREN	2
#define MAX_BOS		16
#define MAX_STREAMS	8
#define MAX_SLOTS	16
#define USER_SIZE	(256u << 10)
#define HOST_BO_MAX	(4u << 20)
#define DESC_BYTES	(sizeof(struct npu_op_desc) + \
			 NPU_OP_MAX_TENSORS * sizeof(struct npu_tensor_desc))

/* Room for a descriptor, and for sizes that overrun it. */
struct fuzz_desc {
	_Alignas(64) uint8_t bytes[DESC_BYTES + 256];
};

struct fuzzer {
	struct test_card card;
	uint64_t state;
	uint64_t devmem_size;
	uint32_t num_slots;
	uint64_t fence_offset;
	uint64_t operators, dtypes;

	struct drm_npu_bo_create bos[MAX_BOS];
	int nbos;
	struct drm_npu_stream_create streams[MAX_STREAMS];
	int nstreams;
	uint32_t slots[MAX_SLOTS];
	int nslots;
	uint32_t gone_stream, gone_slot, gone_handle;	/* freed earlier */

	uint8_t *user;		/* read-write, between PROT_NONE guard pages */
	uint8_t *user_ro;	/* read-only, likewise */
	uint8_t *unmapped;
	struct drm_npu_cmd cmds[DRM_NPU_MAX_BATCH + 8];
	struct fuzz_desc descs[DRM_NPU_MAX_BATCH + 8];	/* one per command */
	uint8_t arg[1 << 14];	/* the largest size an ioctl number can carry */

	unsigned long ok[16];	/* successes, by ioctl_index() */
	unsigned long ops;	/* operators in batches the driver took */
	unsigned long errs[256];	/* failures by errno */
};

static uint64_t rnd(struct fuzzer *f)
{
	/* splitmix64: every seed gives a full-period, well-mixed stream */
	uint64_t z = (f->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t below(struct fuzzer *f, uint32_t n)
{
	return (uint32_t)(rnd(f) % n);
}

static bool one_in(struct fuzzer *f, uint32_t n)
{
	return below(f, n) == 0;
}

static uint64_t pick_size(struct fuzzer *f)
{
	static const uint64_t sizes[] = {
		0, 1, 7, 8, 63, 64, 65, 4095, 4096, 4097, 65536, 1 << 20,
		DRM_NPU_MAX_HOST_SIZE, DRM_NPU_MAX_HOST_SIZE + 1, 1ULL << 63, ~0ULL,
	};

	if (one_in(f, 4))
		return rnd(f) & 0x3ffff;
	if (one_in(f, 16))
		return f->devmem_size + below(f, 3) - 1;
	return sizes[below(f, sizeof(sizes) / sizeof(sizes[0]))];
}

static uint64_t pick_device_addr(struct fuzzer *f)
{
	struct drm_npu_bo_create *bo;

	if (f->nbos && !one_in(f, 4)) {
		bo = &f->bos[below(f, f->nbos)];
		if (bo->flags == DRM_NPU_BO_DEVICE)
			return bo->addr + bo->size * below(f, 2) + below(f, 130) - 65;
	}
	switch (below(f, 5)) {
	case 0:
		return DRM_NPU_DEVICE_ADDR_BASE;
	case 1:
		return DRM_NPU_DEVICE_ADDR_BASE + f->devmem_size - below(f, 65);
	case 2:
		return DRM_NPU_DEVICE_ADDR_BASE - 64;
	case 3:
		return ~0ULL - below(f, 4096);
	default:
		return rnd(f);
	}
}

static uint64_t pick_user_addr(struct fuzzer *f)
{
	switch (below(f, 7)) {
	case 0:
	case 1:
		return (uintptr_t)f->user + below(f, USER_SIZE + 4096) - 1;
	case 2:
		return (uintptr_t)f->user_ro + below(f, 4096);
	case 3:
		return (uintptr_t)f->unmapped;
	case 4:
		return 0;
	case 5:
		return ~0ULL - below(f, 4096);
	default:
		return rnd(f) & ((1ULL << 47) - 1);
	}
}

static uint32_t pick_handle(struct fuzzer *f)
{
	if (f->nbos && !one_in(f, 3))
		return f->bos[below(f, f->nbos)].handle;
	switch (below(f, 4)) {
	case 0:
		return 0;
	case 1:
		return f->gone_handle;
	case 2:
		return ~0u;
	default:
		return (uint32_t)rnd(f);
	}
}

static uint32_t pick_stream_id(struct fuzzer *f)
{
	if (f->nstreams && !one_in(f, 4))
		return f->streams[below(f, f->nstreams)].id;
	switch (below(f, 3)) {
	case 0:
		return f->gone_stream;
	case 1:
		return below(f, 256);
	default:
		return (uint32_t)rnd(f);
	}
}

static uint32_t pick_slot(struct fuzzer *f)
{
	if (f->nslots && one_in(f, 2))
		return f->slots[below(f, f->nslots)];
	if (f->nstreams && one_in(f, 2))
		return f->streams[below(f, f->nstreams)].slot;
	switch (below(f, 4)) {
	case 0:
		return f->gone_slot;
	case 1:
		return f->num_slots - below(f, 2);
	case 2:
		return below(f, f->num_slots);
	default:
		return (uint32_t)rnd(f);
	}
}

/* Mostly zero or one valid bit, sometimes anything. */
static uint32_t pick_flags(struct fuzzer *f, uint32_t valid)
{
	if (one_in(f, 8))
		return (uint32_t)rnd(f);
	return (uint32_t)rnd(f) & valid;
}

static uint64_t pick_pad(struct fuzzer *f)
{
	return one_in(f, 16) ? 1ULL << below(f, 64) : 0;
}

static uint64_t operand(struct fuzzer *f, uint32_t flags, uint32_t host, uint32_t user,
			uint32_t *handle)
{
	if (flags & host) {
		*handle = pick_handle(f);
		return one_in(f, 4) ? rnd(f) : below(f, 70000);
	}
	if (flags & user)
		return pick_user_addr(f);
	return pick_device_addr(f);
}

/* One of the buffers of the given kind (DRM_NPU_BO_*), NULL if none. */
static struct drm_npu_bo_create *some_bo(struct fuzzer *f, uint32_t flags)
{
	int i, start;

	if (!f->nbos)
		return NULL;
	start = (int)below(f, f->nbos);
	for (i = 0; i < f->nbos; i++) {
		struct drm_npu_bo_create *bo = &f->bos[(start + i) % f->nbos];

		if (bo->flags == flags)
			return bo;
	}
	return NULL;
}

/*
 * A valid operand of the kind its flags say: a device address, an offset
 * into a host buffer, or a pointer into our own memory. *room is what
 * is left of it from there.
 */
static bool valid_operand(struct fuzzer *f, uint32_t kind, __u64 *at, __u32 *handle,
			  uint64_t *room)
{
	struct drm_npu_bo_create *bo;
	uint64_t off;

	if (kind == 2) {	/* user */
		off = below(f, USER_SIZE);
		*at = (uintptr_t)f->user + off;
		*room = USER_SIZE - off;
		return true;
	}
	bo = some_bo(f, kind ? DRM_NPU_BO_HOST : DRM_NPU_BO_DEVICE);
	if (!bo)
		return false;
	off = bo->size > 1 ? rnd(f) % bo->size : 0;
	if (one_in(f, 2))
		off &= ~63ULL;
	*at = kind ? off : bo->addr + off;
	*handle = kind ? bo->handle : 0;
	*room = bo->size - off;
	return true;
}

static struct npu_op_desc *cmd_desc(struct fuzzer *f, struct drm_npu_cmd *c)
{
	return (struct npu_op_desc *)f->descs[c - f->cmds].bytes;
}

/*
 * Places @n tensors in our device buffers, 64-byte aligned (as buffers
 * are), and returns the fewest bytes any of them has room for; 0 if there
 * is no device buffer.
 */
static uint64_t place_tensors(struct fuzzer *f, struct npu_tensor_desc *t, unsigned int n)
{
	uint64_t room, least = ~0ULL;
	__u32 handle;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!valid_operand(f, 0, &t[i].addr, &handle, &room))
			return 0;
		room += t[i].addr & 63;
		t[i].addr &= ~63ULL;
		least = room < least ? room : least;
	}
	return least;
}

static void dense_tensor(struct npu_tensor_desc *t, uint16_t dtype, unsigned int ndims,
			 const uint64_t *dims)
{
	uint64_t stride = 1;
	int d;

	t->dtype = dtype;
	t->ndims = ndims;
	for (d = (int)ndims - 1; d >= 0; d--) {
		t->dims[d] = dims[d];
		t->strides[d] = stride;
		stride *= dims[d];
	}
}

/*
 * An operator the driver takes and the card runs, sized to the room its
 * tensors have: elementwise ones of any function or comparison, a cast, a
 * triangle of a row or a small matrix product, on our own buffers.
 */
static bool plausible_compute(struct fuzzer *f, struct drm_npu_cmd *c)
{
	static const uint16_t kinds[] = {
		NPU_OPERATOR_UNARY, NPU_OPERATOR_BINARY, NPU_OPERATOR_CAST, NPU_OPERATOR_MATMUL,
		NPU_OPERATOR_TRIANGLE,
	};
#define NPU_OPERATOR(NAME, number, min, ...)	[NPU_OPERATOR_##NAME] = (min),
	static const uint8_t min_inputs[] = { NPU_OPERATOR_TABLE };
#undef NPU_OPERATOR
	struct npu_op_desc *d = cmd_desc(f, c);
	uint16_t kind = kinds[below(f, sizeof(kinds) / sizeof(kinds[0]))];
	uint16_t to = below(f, NPU_DTYPE_LAST + 1);
	uint64_t room, n, m, k, p;
	unsigned int i;

	if (!(f->operators & 1ULL << kind) || !(f->dtypes & 1ULL << NPU_DTYPE_F32) ||
	    !(f->dtypes & 1ULL << to))
		return false;
	memset(d, 0, DESC_BYTES);
	d->kind = kind;
	d->num_inputs = min_inputs[kind];
	d->num_outputs = 1;
	room = place_tensors(f, d->tensors, d->num_inputs + 1) / 4;
	if (!room)
		return false;
	n = 1 + below(f, room < 4096 ? room : 4096);
	for (i = 0; i <= d->num_inputs; i++)
		dense_tensor(&d->tensors[i], NPU_DTYPE_F32, 1, &n);
	switch (kind) {
	case NPU_OPERATOR_UNARY:
		d->attrs.unary.fn.kind = below(f, NPU_UNARY_LAST + 1);
		/* the one function that divides by its alpha */
		if (d->attrs.unary.fn.kind == NPU_UNARY_SOFTPLUS_BETA)
			d->attrs.unary.fn.alpha = 0x3f800000;	/* 1.0f */
		break;
	case NPU_OPERATOR_TRIANGLE:
		for (i = 0; i <= d->num_inputs; i++)
			dense_tensor(&d->tensors[i], NPU_DTYPE_F32, 2, (uint64_t[]){ 1, n });
		d->attrs.triangle.upper = below(f, 2);
		d->attrs.triangle.diagonal = below(f, 2 * n + 1) - n;
		break;
	case NPU_OPERATOR_BINARY:
		d->attrs.binary.kind = below(f, NPU_BINARY_LAST + 1);
		break;
	case NPU_OPERATOR_CAST:
		d->tensors[1].dtype = to;
		break;
	default:
		/* m x k by k x p, each matrix in the room */
		m = 1 + below(f, 16);
		k = 1 + below(f, 16);
		p = 1 + below(f, 16);
		while (m * k > room || k * p > room || m * p > room) {
			m = (m + 1) / 2;
			k = (k + 1) / 2;
			p = (p + 1) / 2;
		}
		dense_tensor(&d->tensors[0], NPU_DTYPE_F32, 2, (uint64_t[]){ m, k });
		dense_tensor(&d->tensors[1], NPU_DTYPE_F32, 2, (uint64_t[]){ k, p });
		dense_tensor(&d->tensors[2], NPU_DTYPE_F32, 2, (uint64_t[]){ m, p });
		d->attrs.matmul.alpha = 0x3f800000;	/* 1.0f */
		break;
	}
	c->src = (uintptr_t)d;
	c->size = sizeof(*d) + (d->num_inputs + d->num_outputs) * sizeof(d->tensors[0]);
	return true;
}

/* A command the driver should take, so that the card gets work to do. */
static void plausible_cmd(struct fuzzer *f, struct drm_npu_cmd *c)
{
	static const uint32_t dst_flag[] = { 0, DRM_NPU_CMD_DST_HOST, DRM_NPU_CMD_DST_USER };
	static const uint32_t src_flag[] = { 0, DRM_NPU_CMD_SRC_HOST, DRM_NPU_CMD_SRC_USER };
	uint32_t dst_kind = below(f, 3), src_kind = below(f, 3);
	uint64_t room = ~0ULL, src_room;
	uint32_t slot;

	memset(c, 0, sizeof(*c));
	c->op = below(f, DRM_NPU_OP_COMPUTE + 1);
	switch (c->op) {
	case DRM_NPU_OP_COPY:
		if (!valid_operand(f, src_kind, &c->src, &c->src_handle, &src_room))
			break;
		c->flags |= src_flag[src_kind];
		room = src_room;
		/* fall through */
	case DRM_NPU_OP_FILL:
		if (!valid_operand(f, dst_kind, &c->dst, &c->dst_handle, &src_room))
			break;
		c->flags |= dst_flag[dst_kind];
		room = room < src_room ? room : src_room;
		c->size = 1 + rnd(f) % (room < (1 << 20) ? room : (1 << 20));
		c->value = c->op == DRM_NPU_OP_FILL ? below(f, 256) : 0;
		return;
	case DRM_NPU_OP_SLOT_WRITE:
	case DRM_NPU_OP_SLOT_WAIT:
	case DRM_NPU_OP_TIMESTAMP:
		if (!f->nslots)
			break;
		slot = f->slots[below(f, f->nslots)];
		c->slot = slot;
		/* A wait mostly for what is there already, now and then for a signal. */
		c->value = f->card.fence[slot].value + (one_in(f, 8) ? 1 : 0);
		if (c->op == DRM_NPU_OP_TIMESTAMP)
			c->value = 0;
		return;
	case DRM_NPU_OP_VALUE_WRITE:
	case DRM_NPU_OP_VALUE_WAIT:
		if (!valid_operand(f, 0, &c->dst, &c->dst_handle, &room) || room < 8)
			break;
		c->dst &= ~7ULL;
		c->value = c->op == DRM_NPU_OP_VALUE_WAIT ? 0 : rnd(f);
		return;
	case DRM_NPU_OP_COMPUTE:
		if (plausible_compute(f, c))
			return;
		break;
	default:
		return;
	}
	memset(c, 0, sizeof(*c));	/* no buffer to use: a NOP */
}

/* A valid operator with one thing wrong, or a few. */
static void fuzz_compute(struct fuzzer *f, struct drm_npu_cmd *c)
{
	struct npu_op_desc *d = cmd_desc(f, c);
	uint8_t *bytes = (uint8_t *)d;
	struct npu_tensor_desc *t;
	unsigned int i, n = 1 + below(f, 3);

	if (!plausible_compute(f, c)) {
		memset(d, 0, DESC_BYTES);
		c->src = (uintptr_t)d;
		c->size = sizeof(*d) + 2 * sizeof(d->tensors[0]);
	}
	c->op = DRM_NPU_OP_COMPUTE;
	for (i = 0; i < n; i++) {
		t = &d->tensors[below(f, NPU_OP_MAX_TENSORS)];
		switch (below(f, 8)) {
		case 0:
			t->addr = pick_device_addr(f);
			break;
		case 1:
			t->dims[below(f, NPU_TENSOR_MAX_DIMS)] = one_in(f, 2) ? rnd(f) : below(f, 70000);
			break;
		case 2:
			t->strides[below(f, NPU_TENSOR_MAX_DIMS)] = one_in(f, 2) ? rnd(f) : below(f, 70000);
			break;
		case 3:
			((uint16_t *)&t->dtype)[below(f, 4)] = one_in(f, 2) ? rnd(f) : below(f, 10);
			break;
		case 4:
			c->size = one_in(f, 2) ? pick_size(f) : c->size + below(f, 300) - 150;
			if (c->size > sizeof(f->descs[0]) && one_in(f, 2))
				c->size = sizeof(f->descs[0]);
			break;
		case 5:
			c->src = one_in(f, 2) ? pick_user_addr(f) : c->src + below(f, 64);
			break;
		default:
			bytes[below(f, DESC_BYTES)] ^= 1u << below(f, 8);
			break;
		}
	}
}

static void fuzz_cmd(struct fuzzer *f, struct drm_npu_cmd *c)
{
	memset(c, 0, sizeof(*c));
	c->op = one_in(f, 16) ? (uint32_t)rnd(f) : below(f, DRM_NPU_OP_COMPUTE + 2);
	c->flags = pick_flags(f, DRM_NPU_CMD_DST_HOST | DRM_NPU_CMD_SRC_HOST |
				 DRM_NPU_CMD_DST_USER | DRM_NPU_CMD_SRC_USER);
	switch (c->op) {
	case DRM_NPU_OP_COPY:
		c->src = operand(f, c->flags, DRM_NPU_CMD_SRC_HOST, DRM_NPU_CMD_SRC_USER,
				 &c->src_handle);
		/* fall through */
	case DRM_NPU_OP_FILL:
		c->dst = operand(f, c->flags, DRM_NPU_CMD_DST_HOST, DRM_NPU_CMD_DST_USER,
				 &c->dst_handle);
		c->size = pick_size(f);
		c->value = c->op == DRM_NPU_OP_FILL ? below(f, 256) : 0;
		break;
	case DRM_NPU_OP_SLOT_WRITE:
	case DRM_NPU_OP_SLOT_WAIT:
	case DRM_NPU_OP_TIMESTAMP:
		c->slot = pick_slot(f);
		c->value = one_in(f, 2) ? below(f, 4) : rnd(f);
		break;
	case DRM_NPU_OP_VALUE_WRITE:
	case DRM_NPU_OP_VALUE_WAIT:
		c->dst = pick_device_addr(f) & ~(one_in(f, 4) ? 0ULL : 7ULL);
		c->value = rnd(f) & 3;
		c->cond = one_in(f, 8) ? (uint32_t)rnd(f) : below(f, 4);
		break;
	case DRM_NPU_OP_COMPUTE:
		fuzz_compute(f, c);
		break;
	}
	/* Now and then a field the op does not use, or the pad, is set. */
	if (one_in(f, 16))
		((uint64_t *)c)[1 + below(f, 4)] ^= 1ULL << below(f, 64);
	c->pad = pick_pad(f);
}

static unsigned long fuzz_submit(struct fuzzer *f, struct drm_npu_submit *s)
{
	uint32_t i, n = one_in(f, 16) ? below(f, DRM_NPU_MAX_BATCH + 3) : 1 + below(f, 4);
	bool plausible = one_in(f, 2);

	for (i = 0; i < n && i < DRM_NPU_MAX_BATCH + 8; i++) {
		if (plausible && !one_in(f, 32))
			plausible_cmd(f, &f->cmds[i]);
		else
			fuzz_cmd(f, &f->cmds[i]);
	}
	s->stream = pick_stream_id(f);
	s->flags = one_in(f, 4) ? pick_flags(f, 0) : DRM_NPU_SUBMIT_NONBLOCK;
	s->cmds = one_in(f, 32) ? pick_user_addr(f) : (uintptr_t)f->cmds;
	s->count = n;
	s->cmd_size = one_in(f, 16) ? below(f, 128) : sizeof(struct drm_npu_cmd);
	return DRM_IOCTL_NPU_SUBMIT;
}

static unsigned long fuzz_wait(struct fuzzer *f, struct drm_npu_wait *w)
{
	w->slot = pick_slot(f);
	w->flags = pick_flags(f, 0);
	w->value = w->slot < f->num_slots ? f->card.fence[w->slot].value + below(f, 3) : rnd(f);
	switch (below(f, 4)) {
	case 0:
		w->timeout_ns = 0;
		break;
	case 1:
		w->timeout_ns = one_in(f, 8) ? DRM_NPU_WAIT_FOREVER : (int64_t)rnd(f);
		break;
	default:
		w->timeout_ns = test_now_ns() + below(f, 2000000);
	}
	return DRM_IOCTL_NPU_WAIT;
}

/* Builds one ioctl into f->arg; returns its number. */
/* Mostly pages of the user range, sometimes anything. */
static unsigned long fuzz_vm_bind(struct fuzzer *f, struct drm_npu_vm_bind *b)
{
	b->op = one_in(f, 8) ? (uint32_t)rnd(f) : below(f, 2);
	b->flags = pick_flags(f, DRM_NPU_VM_READ_ONLY);
	b->handle = pick_handle(f);
	b->pad = (uint32_t)pick_pad(f);
	b->offset = one_in(f, 4) ? rnd(f) : (uint64_t)below(f, 4) * DRM_NPU_VM_PAGE_SIZE;
	b->addr = one_in(f, 4) ? pick_device_addr(f) :
		  DRM_NPU_VA_USER_BASE + (uint64_t)below(f, 64) * DRM_NPU_VM_PAGE_SIZE;
	b->size = one_in(f, 4) ? pick_size(f) :
		  (uint64_t)(1 + below(f, 8)) * DRM_NPU_VM_PAGE_SIZE;
	if (b->op == DRM_NPU_VM_UNMAP && !one_in(f, 4)) {
		b->flags = 0;
		b->handle = 0;
		b->offset = 0;
	}
	return DRM_IOCTL_NPU_VM_BIND;
}

static unsigned long fuzz_one(struct fuzzer *f)
{
	struct drm_npu_bo_create *bo = (void *)f->arg;
	struct drm_npu_stream_create *sc = (void *)f->arg;
	struct drm_npu_stream_destroy *sd = (void *)f->arg;
	struct drm_npu_get_param *gp = (void *)f->arg;
	struct drm_npu_slot *sl = (void *)f->arg;
	struct drm_gem_close *gc = (void *)f->arg;

	memset(f->arg, 0, 256);
	switch (below(f, 13)) {
	case 0:
		gp->param = one_in(f, 8) ? (uint32_t)rnd(f) : below(f, DRM_NPU_PARAM_OP_DESC_MAX + 3);
		gp->pad = (uint32_t)pick_pad(f);
		return DRM_IOCTL_NPU_GET_PARAM;
	case 1:
		bo->size = pick_size(f);
		bo->flags = pick_flags(f, DRM_NPU_BO_HOST);
		bo->mmap_offset = pick_pad(f);
		/* Host buffers pin RAM: keep the guest out of the OOM killer. */
		if (bo->flags == DRM_NPU_BO_HOST && bo->size > HOST_BO_MAX && bo->size <= 1ULL << 34)
			bo->size = 1 + (bo->size & (HOST_BO_MAX - 1));
		return DRM_IOCTL_NPU_BO_CREATE;
	case 2:
		gc->handle = pick_handle(f);
		gc->pad = (uint32_t)pick_pad(f);
		return DRM_IOCTL_GEM_CLOSE;
	case 3:
		sc->flags = pick_flags(f, 0);
		sc->priority = one_in(f, 8) ? (uint32_t)rnd(f) : below(f, 8);
		sc->ring_entries = one_in(f, 4) ? (uint32_t)rnd(f) : 8u << below(f, 4);
		sc->pad = (uint32_t)pick_pad(f);
		return DRM_IOCTL_NPU_STREAM_CREATE;
	case 4:
		sd->id = pick_stream_id(f);
		sd->flags = pick_flags(f, DRM_NPU_STREAM_DESTROY_ABORT);
		return DRM_IOCTL_NPU_STREAM_DESTROY;
	case 5:
	case 6:
	case 7:
		return fuzz_submit(f, (void *)f->arg);
	case 8:
		return fuzz_wait(f, (void *)f->arg);
	case 9:
		sl->pad = (uint32_t)pick_pad(f);
		return DRM_IOCTL_NPU_SLOT_ALLOC;
	case 10:
		sl->slot = pick_slot(f);
		sl->pad = (uint32_t)pick_pad(f);
		sl->value = one_in(f, 2) ? 0 : rnd(f);
		return one_in(f, 2) ? DRM_IOCTL_NPU_SLOT_FREE : DRM_IOCTL_NPU_SLOT_SIGNAL;
	case 11:
		return fuzz_vm_bind(f, (void *)f->arg);
	default:
		/* A driver ioctl number with the wrong size or direction. */
		memset(f->arg, (int)below(f, 256), sizeof(f->arg));
		return _IOC(below(f, 4), DRM_IOCTL_BASE, DRM_COMMAND_BASE + below(f, 12),
			    below(f, 2) ? below(f, 64) : below(f, sizeof(f->arg)));
	}
}

static void forget(uint32_t *ids, size_t stride, int *n, uint32_t id, uint32_t *gone)
{
	int i;

	for (i = 0; i < *n; i++) {
		uint32_t *at = (uint32_t *)((uint8_t *)ids + i * stride);

		if (*at == id) {
			memmove(at, (uint8_t *)at + stride, (*n - i - 1) * stride);
			(*n)--;
			*gone = id;
			return;
		}
	}
}

/* Remembers what a successful call created and forgets what it freed. */
static void account(struct fuzzer *f, unsigned long nr)
{
	struct drm_npu_bo_create *bo = (void *)f->arg;
	struct drm_npu_stream_create *sc = (void *)f->arg;
	struct drm_npu_stream_destroy *sd = (void *)f->arg;
	struct drm_npu_slot *sl = (void *)f->arg;
	struct drm_gem_close *gc = (void *)f->arg;
	struct drm_npu_submit *sub = (void *)f->arg;
	unsigned int i;

	if (nr == DRM_IOCTL_NPU_SUBMIT && sub->cmds == (uintptr_t)f->cmds) {
		for (i = 0; i < sub->count; i++)
			f->ops += f->cmds[i].op == DRM_NPU_OP_COMPUTE;
	} else if (nr == DRM_IOCTL_NPU_BO_CREATE) {
		if (f->nbos < MAX_BOS)
			f->bos[f->nbos++] = *bo;
		else
			test_bo_close(f->card.fd, bo->handle);
	} else if (nr == DRM_IOCTL_GEM_CLOSE) {
		forget(&f->bos[0].handle, sizeof(f->bos[0]), &f->nbos, gc->handle, &f->gone_handle);
	} else if (nr == DRM_IOCTL_NPU_STREAM_CREATE) {
		if (f->nstreams < MAX_STREAMS)
			f->streams[f->nstreams++] = *sc;
		else
			test_stream_destroy(f->card.fd, sc->id, DRM_NPU_STREAM_DESTROY_ABORT);
	} else if (nr == DRM_IOCTL_NPU_STREAM_DESTROY) {
		forget(&f->streams[0].id, sizeof(f->streams[0]), &f->nstreams, sd->id,
		       &f->gone_stream);
	} else if (nr == DRM_IOCTL_NPU_SLOT_ALLOC) {
		if (f->nslots < MAX_SLOTS)
			f->slots[f->nslots++] = sl->slot;
		else
			test_slot_op(f->card.fd, DRM_IOCTL_NPU_SLOT_FREE, sl->slot, 0);
	} else if (nr == DRM_IOCTL_NPU_SLOT_FREE) {
		forget(f->slots, sizeof(f->slots[0]), &f->nslots, sl->slot, &f->gone_slot);
	}
}

static bool expected_errno(int err)
{
	switch (err) {
	case EINVAL: case ENOENT: case EFAULT: case ENOMEM: case ENOSPC:
	case EBUSY: case EAGAIN: case EINTR: case ETIME: case EIO:
	case ENOTTY: case EOVERFLOW: case E2BIG: case EPERM: case EACCES:
	case EEXIST:
		return true;
	}
	return false;
}

/*
 * A mapping of the fence area, of a buffer or of nothing: 0 or -errno. A
 * writable mapping of the fence area ends the run.
 */
static int fuzz_mmap(struct fuzzer *f)
{
	int prot = one_in(f, 2) ? PROT_READ : PROT_READ | PROT_WRITE;
	uint64_t off = f->fence_offset, len = 4096 << below(f, 3);
	void *p;

	if (f->nbos && one_in(f, 2))
		off = f->bos[below(f, f->nbos)].mmap_offset;
	if (one_in(f, 4))
		off = rnd(f) & ~4095ULL;
	p = mmap(NULL, len, prot, one_in(f, 4) ? MAP_PRIVATE : MAP_SHARED, f->card.fd,
		 (off_t)off);
	if (p == MAP_FAILED)
		return errno == ENXIO ? -EINVAL : -errno;
	if (off == f->fence_offset && (prot & PROT_WRITE)) {
		fprintf(stderr, "# the fence area was mapped writable\n");
		_exit(14);
	}
	(void)*(volatile uint8_t *)p;
	munmap(p, len);
	return 0;
}

/* The card found a command the driver should have refused. */
static int rejected_slot(struct fuzzer *f)
{
	uint32_t i;

	for (i = 0; i < f->num_slots; i++)
		if (f->card.fence[i].error == DRM_NPU_ERR_REJECTED ||
		    f->card.fence[i].error == DRM_NPU_ERR_DMA)
			return (int)i;
	return -1;
}

static uint8_t *guarded_map(size_t size, int prot)
{
	uint8_t *p = mmap(NULL, size + 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || mprotect(p + 4096, size, prot | PROT_WRITE))
		return NULL;
	memset(p + 4096, 0x5a, size);
	if (mprotect(p + 4096, size, prot))
		return NULL;
	return p + 4096;
}

static const struct {
	unsigned long nr;
	const char *name;
} ioctls[] = {
	{ DRM_IOCTL_NPU_GET_PARAM, "get_param" }, { DRM_IOCTL_NPU_BO_CREATE, "bo_create" },
	{ DRM_IOCTL_GEM_CLOSE, "gem_close" }, { DRM_IOCTL_NPU_STREAM_CREATE, "stream_create" },
	{ DRM_IOCTL_NPU_STREAM_DESTROY, "stream_destroy" }, { DRM_IOCTL_NPU_SUBMIT, "submit" },
	{ DRM_IOCTL_NPU_WAIT, "wait" }, { DRM_IOCTL_NPU_SLOT_ALLOC, "slot_alloc" },
	{ DRM_IOCTL_NPU_SLOT_FREE, "slot_free" }, { DRM_IOCTL_NPU_SLOT_SIGNAL, "slot_signal" },
	{ DRM_IOCTL_NPU_VM_BIND, "vm_bind" }, { 0, "mmap" },
};

#define NAMED_IOCTLS	(sizeof(ioctls) / sizeof(ioctls[0]))

/* Where a call is counted: its name, or NAMED_IOCTLS for an odd size. */
static unsigned int ioctl_index(unsigned long nr)
{
	unsigned int i;

	for (i = 0; i < NAMED_IOCTLS && ioctls[i].nr != nr; i++)
		;
	return i;
}

/* What the run reached, so that a reader can tell it did more than fail. */
static void report_calls(struct fuzzer *f, uint64_t seed)
{
	char line[1024];
	unsigned int i;
	int n;

	n = snprintf(line, sizeof(line), "seed %llu succeeded:", (unsigned long long)seed);
	for (i = 0; i <= NAMED_IOCTLS; i++)
		if (f->ok[i] && n < (int)sizeof(line))
			n += snprintf(line + n, sizeof(line) - n, " %s %lu",
				      i < NAMED_IOCTLS ? ioctls[i].name : "odd-size", f->ok[i]);
	if (n < (int)sizeof(line))
		snprintf(line + n, sizeof(line) - n, ", with %lu operators", f->ops);
	ksft_print_msg("%s\n", line);
	n = snprintf(line, sizeof(line), "seed %llu failed:", (unsigned long long)seed);
	for (i = 0; i < 256; i++)
		if (f->errs[i] && n < (int)sizeof(line))
			n += snprintf(line + n, sizeof(line) - n, " %s %lu",
				      strerrorname_np((int)i) ?: "?", f->errs[i]);
	ksft_print_msg("%s\n", line);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* Runs in a child: exit 0, or the status names what went wrong. */
static void fuzz(uint64_t seed, unsigned long calls)
{
	struct itimerval every_2ms = { { 0, 2000 }, { 0, 2000 } };
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct fuzzer *f = calloc(1, sizeof(*f));
	unsigned long i, nr;
	int ret, slot;

	if (!f || test_card_open(&f->card, 0))
		_exit(10);
	f->state = seed;
	f->devmem_size = test_param_or_die(f->card.fd, DRM_NPU_PARAM_DEVMEM_SIZE);
	f->num_slots = test_param_or_die(f->card.fd, DRM_NPU_PARAM_NUM_SLOTS);
	f->fence_offset = test_param_or_die(f->card.fd, DRM_NPU_PARAM_FENCE_MMAP_OFFSET);
	f->operators = test_param_or_die(f->card.fd, DRM_NPU_PARAM_OPERATORS);
	f->dtypes = test_param_or_die(f->card.fd, DRM_NPU_PARAM_DTYPES);
	f->gone_stream = f->gone_slot = f->gone_handle = ~0u;
	f->user = guarded_map(USER_SIZE, PROT_READ | PROT_WRITE);
	f->user_ro = guarded_map(4096, PROT_READ);
	f->unmapped = guarded_map(4096, PROT_NONE);
	if (!f->user || !f->user_ro || !f->unmapped)
		_exit(11);

	/* Signals make blocking calls (a ring stalled on a WAIT) return. */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every_2ms, NULL);

	for (i = 0; i < calls; i++) {
		if (one_in(f, 64)) {
			ret = fuzz_mmap(f);
			nr = 0;
		} else {
			nr = fuzz_one(f);
			ret = ioctl(f->card.fd, nr, f->arg) ? -errno : 0;
			if (!ret)
				account(f, nr);
		}
		if (!ret)
			f->ok[ioctl_index(nr)]++;
		else
			f->errs[-ret & 255]++;
		if (ret && !expected_errno(-ret)) {
			fprintf(stderr, "# call %lu (ioctl %#lx): unexpected %s\n", i, nr,
				strerror(-ret));
			_exit(12);
		}
		slot = rejected_slot(f);
		if (slot >= 0) {
			fprintf(stderr, "# call %lu (ioctl %#lx): slot %d has card error %u\n",
				i, nr, slot, f->card.fence[slot].error);
			_exit(13);
		}
	}
	report_calls(f, seed);
	/* Half the time the file closes with everything still in it. */
	if (one_in(f, 2)) {
		while (f->nstreams)
			test_stream_destroy(f->card.fd, f->streams[--f->nstreams].id,
					    DRM_NPU_STREAM_DESTROY_ABORT);
		while (f->nbos)
			test_bo_close(f->card.fd, f->bos[--f->nbos].handle);
	}
	_exit(0);
}

static uint64_t env_or(const char *name, uint64_t fallback)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : fallback;
}

FIXTURE(fuzz) {
	struct test_card card;
	struct drm_npu_stream_create stream;
	struct drm_npu_bo_create buf;
	uint8_t *pattern, *back;
};

#define BYSTANDER_SIZE	(1u << 20)

FIXTURE_SETUP(fuzz)
{
	self->pattern = malloc(BYSTANDER_SIZE);
	self->back = malloc(BYSTANDER_SIZE);
	ASSERT_TRUE(self->pattern && self->back);
	ASSERT_EQ(0, test_card_open(&self->card, 0));
}

FIXTURE_TEARDOWN(fuzz)
{
	test_card_close(&self->card);
	free(self->pattern);
	free(self->back);
}

TEST_F_TIMEOUT(fuzz, random_calls_fail_cleanly_and_touch_nothing_else, 300)
{
	uint64_t seed = env_or("NPU_FUZZ_SEED", (uint64_t)test_now_ns());
	unsigned long calls = env_or("NPU_FUZZ_CALLS", 20000);
	struct test_baseline before, after;
	pid_t pids[FUZZ_CHILDREN];
	int i, status;

	before = test_read_baseline(self->card.bdf);
	/* A bystander: a buffer of known data and a stream of its own. */
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	ASSERT_EQ(0, test_bo_create(self->card.fd, BYSTANDER_SIZE, 0, &self->buf));
	test_fill_random(self->pattern, BYSTANDER_SIZE, (unsigned int)seed);
	ASSERT_EQ(0, test_run(&self->card, &self->stream,
			      test_cmd_copy(self->buf.addr, (uintptr_t)self->pattern,
					    BYSTANDER_SIZE, DRM_NPU_CMD_SRC_USER)));

	ksft_print_msg("seed %llu, %lu calls in each of %d processes\n",
		       (unsigned long long)seed, calls, FUZZ_CHILDREN);
	for (i = 0; i < FUZZ_CHILDREN; i++) {
		pids[i] = fork();
		ASSERT_GE(pids[i], 0);
		if (!pids[i])
			fuzz(seed + i, calls);
	}
	for (i = 0; i < FUZZ_CHILDREN; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) {
			TH_LOG("fuzzer %d (seed %llu) failed", i, (unsigned long long)(seed + i));
		}
	}

	/* The bystander's data and stream are as they were. */
	EXPECT_EQ(0, self->card.fence[self->stream.slot].error);
	ASSERT_EQ(0, test_run(&self->card, &self->stream,
			      test_cmd_copy((uintptr_t)self->back, self->buf.addr,
					    BYSTANDER_SIZE, DRM_NPU_CMD_DST_USER)));
	EXPECT_EQ(0, memcmp(self->pattern, self->back, BYSTANDER_SIZE));
	ASSERT_EQ(0, test_stream_destroy(self->card.fd, self->stream.id, 0));
	ASSERT_EQ(0, test_bo_close(self->card.fd, self->buf.handle));

	/* Everything the fuzzers held is back. */
	after = test_settled_baseline(self->card.bdf, &before);
	EXPECT_EQ(before.devmem, after.devmem);
	EXPECT_EQ(before.rings, after.rings);
	EXPECT_EQ(before.pinned, after.pinned);
}

TEST_HARNESS_MAIN
