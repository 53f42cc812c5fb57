// SPDX-License-Identifier: MIT
/*
 * Copies and fills. Every copy becomes COPY commands on a stream, cut into
 * pieces of at most ACL_COPY_CHUNK bytes; a host operand is named by
 * pinned-buffer handle + offset (aclrtMallocHost memory of the stream's
 * card) or as user memory that the driver pins for the command. Calls
 * that touch pageable memory wait for their work before returning, as the
 * caller may reuse that memory at once; the synchronous calls run on
 * internal streams of the device and wait too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "peer.h"

struct cmdbuf {
	struct drm_npu_cmd *v;
	size_t n, cap;
	bool oom;		/* a command could not be added */
	struct drm_npu_cmd local[8];
};

static void cmdbuf_init(struct cmdbuf *b)
{
	b->v = b->local;
	b->n = 0;
	b->cap = sizeof(b->local) / sizeof(b->local[0]);
	b->oom = false;
}

static struct drm_npu_cmd *cmdbuf_add(struct cmdbuf *b)
{
	if (b->n == b->cap) {
		size_t cap = b->cap * 4;
		struct drm_npu_cmd *v = b->v == b->local ? malloc(cap * sizeof(*v))
							 : realloc(b->v, cap * sizeof(*v));

		if (!v) {
			b->oom = true;
			return NULL;
		}
		if (b->v == b->local)
			memcpy(v, b->local, sizeof(b->local));
		b->v = v;
		b->cap = cap;
	}
	memset(&b->v[b->n], 0, sizeof(b->v[0]));
	return &b->v[b->n++];
}

static void cmdbuf_free(struct cmdbuf *b)
{
	if (b->v != b->local)
		free(b->v);
}

static void put_operand(struct drm_npu_cmd *c, const struct acl_opnd *o, uint64_t off, bool dst)
{
	uint64_t addr = o->addr + off;

	switch (o->kind) {
	case ACL_OPND_PINNED:
		c->flags |= dst ? DRM_NPU_CMD_DST_HOST : DRM_NPU_CMD_SRC_HOST;
		if (dst)
			c->dst_handle = o->handle;
		else
			c->src_handle = o->handle;
		break;
	case ACL_OPND_USER:
	case ACL_OPND_FOREIGN:
		c->flags |= dst ? DRM_NPU_CMD_DST_USER : DRM_NPU_CMD_SRC_USER;
		break;
	default:
		break;
	}
	if (dst)
		c->dst = addr;
	else
		c->src = addr;
}

/* Appends COPY (src != NULL) or FILL commands for one contiguous run. */
static void add_run(struct cmdbuf *b, const struct acl_opnd *dst, uint64_t doff,
		    const struct acl_opnd *src, uint64_t soff, uint64_t len, uint8_t fill)
{
	while (len) {
		uint64_t n = len > ACL_COPY_CHUNK ? ACL_COPY_CHUNK : len;
		struct drm_npu_cmd *c = cmdbuf_add(b);

		if (!c)
			return;
		c->op = src ? DRM_NPU_OP_COPY : DRM_NPU_OP_FILL;
		c->size = n;
		put_operand(c, dst, doff, true);
		if (src)
			put_operand(c, src, soff, false);
		else
			c->value = fill;
		doff += n;
		soff += n;
		len -= n;
	}
}

/* The checks every copy makes before it looks at the memory. */
static aclError copy_args(const char *fn, const void *dst, const void *src, aclrtMemcpyKind kind)
{
	if (!dst)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "dst is NULL");
	if (!src)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "src is NULL");
	if ((unsigned)kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "invalid memcpy kind %d", (int)kind);
	return ACL_SUCCESS;
}

/* A synchronous copy between host pointers needs no device: the CPU does it. */
static bool cpu_copy(bool sync, const void *dst, const void *src, aclrtMemcpyKind kind)
{
	return sync && !acl_is_dev_ptr(dst) && !acl_is_dev_ptr(src) &&
	       (kind == ACL_MEMCPY_HOST_TO_HOST || kind == ACL_MEMCPY_DEFAULT);
}

static aclError kind_check(const char *fn, aclrtMemcpyKind kind, const void *dst,
			   const struct acl_opnd *od, const void *src, const struct acl_opnd *os)
{
	bool dd = od->kind == ACL_OPND_DEVICE, sd = os->kind == ACL_OPND_DEVICE;
	/* Registered host memory may stand where device memory is expected. */
	bool dreg = !dd && !od->pageable && od->kind == ACL_OPND_USER;
	bool sreg = !sd && !os->pageable && os->kind == ACL_OPND_USER;
	bool ok;

	switch (kind) {
	case ACL_MEMCPY_HOST_TO_HOST:
		ok = !dd && !sd;
		break;
	case ACL_MEMCPY_HOST_TO_DEVICE:
	case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
		ok = (dd || dreg) && !sd;
		break;
	case ACL_MEMCPY_DEVICE_TO_HOST:
		ok = (sd || sreg) && !dd;
		break;
	case ACL_MEMCPY_DEVICE_TO_DEVICE:
		ok = (dd || dreg) && (sd || sreg);
		break;
	case ACL_MEMCPY_DEFAULT:
		ok = true;
		break;
	default:
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "invalid memcpy kind %d", (int)kind);
	}
	if (!ok)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
				"kind %d does not match the pointers: dst %p is %s memory, src %p is %s memory",
				(int)kind, dst, dd ? "device" : "host", src, sd ? "device" : "host");
	return ACL_SUCCESS;
}

/* Internal streams for synchronous calls, at most, per device. */
#define COPY_STREAMS		4
/* A further internal stream is made only while this many rings are free. */
#define COPY_RING_MARGIN	16

/*
 * The internal streams of a device, made as synchronous calls overlap:
 * exists from acl_copy_pool_init to acl_copy_pool_fini, while the device
 * is open.
 */
struct copy_pool {
	struct acl_mutex lock;
	struct acl_stream *streams[COPY_STREAMS];
	int users[COPY_STREAMS];	/* calls running on each */
};

static struct copy_pool copy_pools[ACL_MAX_DEVICES] = {
	[0 ... ACL_MAX_DEVICES - 1] = { .lock = ACL_MUTEX_INITIALIZER },
};

static struct copy_pool *pool_of(struct acl_device *d)
{
	return &copy_pools[d - acl_devices];
}

void acl_copy_pool_init(struct acl_device *d)
{
	struct copy_pool *p = pool_of(d);

	acl_mutex_lock(&p->lock);
	memset(p->streams, 0, sizeof(p->streams));
	memset(p->users, 0, sizeof(p->users));
	acl_mutex_unlock(&p->lock);
}

/* Frees the internal streams, waiting for their work unless !wait. */
void acl_copy_pool_fini(struct acl_device *d, bool wait)
{
	struct acl_stream *streams[COPY_STREAMS];
	struct copy_pool *p = pool_of(d);

	acl_mutex_lock(&p->lock);
	memcpy(streams, p->streams, sizeof(streams));
	memset(p->streams, 0, sizeof(p->streams));
	memset(p->users, 0, sizeof(p->users));
	acl_mutex_unlock(&p->lock);
	for (int i = 0; i < COPY_STREAMS && streams[i]; i++)
		acl_stream_free(streams[i], wait);
}

/*
 * Whether another internal stream may take a ring: the first always may;
 * more only while the card has rings to spare, so that they do not crowd
 * out the application's own streams.
 */
static bool copy_stream_affordable(struct acl_device *d, int have)
{
	uint64_t free_rings = 0;

	if (have == 0)
		return true;
	if (have == COPY_STREAMS)
		return false;
	return !drv_get_param(d->fd, DRM_NPU_PARAM_FREE_RINGS, &free_rings) &&
	       free_rings >= COPY_RING_MARGIN;
}

/*
 * An internal stream for a synchronous call, to be given back with
 * copy_stream_put: an idle one, else a new one if affordable, else the
 * least used. Calls that overlap thus run on rings of their own, in
 * parallel, and a failed copy fails no other thread's call, while the
 * rings taken stay few (COPY_STREAMS per device at most).
 */
static struct acl_stream *copy_stream_get(struct acl_device *d, aclError *err)
{
	struct copy_pool *p = pool_of(d);
	struct acl_stream *s = NULL;
	int n, best = -1;

	acl_mutex_lock(&p->lock);
	for (n = 0; n < COPY_STREAMS && p->streams[n]; n++)
		if (best < 0 || p->users[n] < p->users[best])
			best = n;
	if ((best < 0 || p->users[best]) && copy_stream_affordable(d, n)) {
		s = acl_stream_new(d, NULL, DRM_NPU_PRIORITY_HIGHEST, 0, err);
		if (s) {
			p->streams[n] = s;
			best = n;
		}
	}
	if (best >= 0) {
		p->users[best]++;
		s = p->streams[best];
	}
	acl_mutex_unlock(&p->lock);
	return s;
}

static void copy_stream_put(struct acl_stream *s)
{
	struct copy_pool *p = pool_of(s->dev);

	acl_mutex_lock(&p->lock);
	for (int i = 0; i < COPY_STREAMS; i++)
		if (p->streams[i] == s)
			p->users[i]--;
	acl_mutex_unlock(&p->lock);
}

/* The stream a call runs on: the given one, or an internal one (sync). */
static struct acl_stream *pick_stream(aclrtStream stream, bool sync, aclError *err)
{
	struct acl_context *c;

	if (!sync)
		return acl_stream_resolve(stream, err);
	c = acl_current_ctx();
	if (!c) {
		*err = ACL_ERROR_RT_CONTEXT_NULL;
		return NULL;
	}
	return copy_stream_get(c->dev, err);
}

/* Gives back what pick_stream took. */
static void put_stream(struct acl_stream *s, bool sync)
{
	if (sync)
		copy_stream_put(s);
}

/* A copy on its way to the card: its stream and its operands. */
struct copy {
	struct acl_stream *s;
	struct acl_opnd dst, src;
	bool sync;		/* s is an internal stream, given back by copy_done */
	bool wait;		/* synchronous or pageable: done before the call returns */
};

/*
 * Picks the stream, classifies [dst, +dlen) and [src, +slen), checks kind.
 * On success the caller ends with copy_done.
 */
static aclError copy_setup(const char *fn, struct copy *c, aclrtStream stream, bool sync,
			   aclrtMemcpyKind kind, void *dst, size_t dlen, const void *src, size_t slen)
{
	aclError err = ACL_SUCCESS;

	c->s = pick_stream(stream, sync, &err);
	if (!c->s)
		return err;
	c->sync = sync;
	acl_classify(c->s->dev, dst, dlen, &c->dst);
	acl_classify(c->s->dev, src, slen, &c->src);
	c->wait = sync || c->dst.pageable || c->src.pageable;
	err = kind_check(fn, kind, dst, &c->dst, src, &c->src);
	if (!err)
		err = acl_peer_check_operand(fn, c->s->dev, &c->dst, dlen);
	if (!err)
		err = acl_peer_check_operand(fn, c->s->dev, &c->src, slen);
	if (err)
		put_stream(c->s, sync);
	return err;
}

/* Passes err on. */
static aclError copy_done(struct copy *c, aclError err)
{
	put_stream(c->s, c->sync);
	return err;
}

/* Submits the commands in b on s, waits for them if asked to, frees b. */
static aclError run(const char *fn, struct acl_stream *s, struct cmdbuf *b, bool wait)
{
	struct acl_ticket t;
	aclError err = ACL_SUCCESS;

	if (b->oom)
		err = acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of host memory");
	else if (wait && acl_capturing(s))
		err = acl_fail(fn, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, "a captured copy or fill "
			       "can only use device memory or host memory of aclrtMallocHost");
	else if (b->n)
		err = acl_stream_submit(s, b->v, b->n, &t);
	if (!err && b->n && wait)
		err = acl_stream_wait(s, &t, -1);
	cmdbuf_free(b);
	return err;
}

/*
 * A pinned buffer of another card is reached through a bounce buffer in
 * ordinary memory (it is host memory, so the CPU copies it).
 */
aclError acl_copy_1d(const char *fn, void *dst, size_t destMax, const void *src, size_t count,
		     aclrtMemcpyKind kind, aclrtStream stream, bool sync)
{
	struct cmdbuf b;
	struct copy c;
	aclError err = copy_args(fn, dst, src, kind);
	void *bounce = NULL;

	if (err || !count)
		return err;
	if (count > destMax)
		return acl_fail(fn, ACL_ERROR_RT_PARAM_INVALID,
				"count %zu is larger than destMax %zu", count, destMax);
	if (dst == src)
		return ACL_SUCCESS;
	if (sync && (err = acl_capture_check_unsafe(fn)))
		return err;
	if (cpu_copy(sync, dst, src, kind)) {
		memmove(dst, src, count);
		return ACL_SUCCESS;
	}
	err = copy_setup(fn, &c, stream, sync, kind, dst, count, src, count);
	if (err)
		return err;
	if (c.dst.kind == ACL_OPND_FOREIGN || c.src.kind == ACL_OPND_FOREIGN) {
		bounce = malloc(count);
		if (!bounce)
			return copy_done(&c, acl_fail(fn, ACL_ERROR_BAD_ALLOC,
						      "no memory for a bounce buffer"));
		if (c.src.kind == ACL_OPND_FOREIGN) {
			memcpy(bounce, src, count);
			c.src = (struct acl_opnd){ .kind = ACL_OPND_USER, .addr = (uintptr_t)bounce };
		}
		if (c.dst.kind == ACL_OPND_FOREIGN)
			c.dst = (struct acl_opnd){ .kind = ACL_OPND_USER, .addr = (uintptr_t)bounce };
		c.wait = true;
	}
	cmdbuf_init(&b);
	add_run(&b, &c.dst, 0, &c.src, 0, count, 0);
	err = run(fn, c.s, &b, c.wait);
	if (!err && bounce && c.dst.addr == (uintptr_t)bounce)
		memcpy(dst, bounce, count);
	free(bounce);
	return copy_done(&c, err);
}

ACL_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
				aclrtMemcpyKind kind)
{
	return acl_copy_1d(__func__, dst, destMax, src, count, kind, NULL, true);
}

ACL_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
				     aclrtMemcpyKind kind, aclrtStream stream)
{
	return acl_copy_1d(__func__, dst, destMax, src, count, kind, stream, false);
}

static aclError copy_2d(const char *fn, void *dst, size_t dpitch, const void *src, size_t spitch,
			size_t width, size_t height, aclrtMemcpyKind kind, aclrtStream stream,
			bool sync)
{
	struct cmdbuf b;
	struct copy c;
	size_t dspan, sspan, i;
	aclError err = copy_args(fn, dst, src, kind);

	if (err || !width || !height)
		return err;
	if (width > spitch || width > dpitch)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
				"width %zu is larger than spitch %zu or dpitch %zu", width, spitch,
				dpitch);
	if (height - 1 > (SIZE_MAX - width) / dpitch || height - 1 > (SIZE_MAX - width) / spitch)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "the matrix overflows the address space");
	dspan = (height - 1) * dpitch + width;
	sspan = (height - 1) * spitch + width;
	if (sync && (err = acl_capture_check_unsafe(fn)))
		return err;
	if (cpu_copy(sync, dst, src, kind)) {
		for (i = 0; i < height; i++)
			memmove((char *)dst + i * dpitch, (const char *)src + i * spitch, width);
		return ACL_SUCCESS;
	}
	err = copy_setup(fn, &c, stream, sync, kind, dst, dspan, src, sspan);
	if (err)
		return err;
	if (c.dst.kind == ACL_OPND_FOREIGN || c.src.kind == ACL_OPND_FOREIGN)
		return copy_done(&c, acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
					      "2D copies with pinned memory of another device are not supported"));
	cmdbuf_init(&b);
	if (dpitch == width && spitch == width)
		add_run(&b, &c.dst, 0, &c.src, 0, dspan, 0);
	else
		for (i = 0; i < height && !b.oom; i++)
			add_run(&b, &c.dst, i * dpitch, &c.src, i * spitch, width, 0);
	return copy_done(&c, run(fn, c.s, &b, c.wait));
}

ACL_EXPORT aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
				  size_t width, size_t height, aclrtMemcpyKind kind)
{
	return copy_2d(__func__, dst, dpitch, src, spitch, width, height, kind, NULL, true);
}

ACL_EXPORT aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
				       size_t width, size_t height, aclrtMemcpyKind kind,
				       aclrtStream stream)
{
	return copy_2d(__func__, dst, dpitch, src, spitch, width, height, kind, stream, false);
}

static aclError fill(const char *fn, void *p, size_t maxCount, int32_t value, size_t count,
		     aclrtStream stream, bool sync)
{
	struct acl_stream *s;
	struct acl_opnd od;
	struct cmdbuf b;
	aclError err = ACL_SUCCESS;

	if (!p)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
	if (!count)
		return ACL_SUCCESS;
	if (count > maxCount)
		return acl_fail(fn, ACL_ERROR_RT_PARAM_INVALID, "count %zu is larger than maxCount %zu",
				count, maxCount);
	if (sync && (err = acl_capture_check_unsafe(fn)))
		return err;
	if (sync && !acl_is_dev_ptr(p)) {
		memset(p, (uint8_t)value, count);
		return ACL_SUCCESS;
	}
	s = pick_stream(stream, sync, &err);
	if (!s)
		return err;
	acl_classify(s->dev, p, count, &od);
	if (od.kind == ACL_OPND_FOREIGN) {
		/* Host memory all the same: keep the stream order, then fill. */
		err = acl_stream_sync(s, -1);
		if (!err)
			memset(p, (uint8_t)value, count);
	} else {
		cmdbuf_init(&b);
		add_run(&b, &od, 0, NULL, 0, count, (uint8_t)value);
		err = run(fn, s, &b, sync || od.pageable);
	}
	put_stream(s, sync);
	return err;
}

ACL_EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
	return fill(__func__, devPtr, maxCount, value, count, NULL, true);
}

ACL_EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
				     aclrtStream stream)
{
	return fill(__func__, devPtr, maxCount, value, count, stream, false);
}

/*
 * Device memory gets a 32-bit pattern from the card, which fills bytes
 * only: a VALUE_WRITE puts it twice in the first 8-byte aligned word of
 * the range, a copy puts it before that word when the range starts 4 bytes
 * earlier, and copies double it from there to the end (log2 of the size
 * commands, all in the stream's order). A range too short to hold that
 * word is copied from the host, waiting.
 */
static void add_pattern32(struct cmdbuf *b, const struct acl_opnd *od, uint64_t bytes,
			  uint32_t value)
{
	uint64_t word = (8 - (od->addr & 7)) & 7, have = 8;
	struct drm_npu_cmd *c = cmdbuf_add(b);

	if (!c)
		return;
	c->op = DRM_NPU_OP_VALUE_WRITE;
	c->dst = od->addr + word;
	c->value = (uint64_t)value << 32 | value;
	if (word)
		add_run(b, od, 0, od, word, word, 0);
	while (word + have < bytes) {
		uint64_t n = bytes - word - have < have ? bytes - word - have : have;

		add_run(b, od, word + have, od, word, n, 0);
		have += n;
	}
}

static aclError fill32(const char *fn, void *p, size_t memSize, uint32_t value, size_t n,
		       aclrtStream stream, bool sync)
{
	uint32_t small[2] = { value, value };
	struct acl_opnd od, os;
	struct acl_stream *s;
	struct cmdbuf b;
	aclError err = ACL_SUCCESS;
	size_t bytes = n * 4, i;

	if (!p)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "ptr is NULL");
	if ((uintptr_t)p & 3)
		return acl_fail(fn, ACL_ERROR_RT_ADDR_UNALIGNED, "%p is not 4-byte aligned", p);
	if (n > memSize / 4)
		return acl_fail(fn, ACL_ERROR_RT_PARAM_INVALID,
				"%zu values of 4 bytes do not fit memSize %zu", n, memSize);
	if (!n)
		return ACL_SUCCESS;
	if (value % 0x01010101u == 0)
		return fill(fn, p, memSize, (int32_t)(value & 0xff), bytes, stream, sync);
	if (sync && (err = acl_capture_check_unsafe(fn)))
		return err;
	s = !sync || acl_is_dev_ptr(p) ? pick_stream(stream, sync, &err) : NULL;
	if (!s && err)
		return err;
	if (s)
		acl_classify(s->dev, p, bytes, &od);
	if (!s || od.kind != ACL_OPND_DEVICE) {
		/* Host memory: the CPU fills it, after the stream's earlier work. */
		err = s ? acl_stream_sync(s, -1) : ACL_SUCCESS;
		for (i = 0; !err && i < n; i++)
			((uint32_t *)p)[i] = value;
	} else {
		cmdbuf_init(&b);
		if (bytes >= 8 + ((8 - (od.addr & 7)) & 7)) {
			add_pattern32(&b, &od, bytes, value);
			err = run(fn, s, &b, sync);
		} else {
			acl_classify(s->dev, small, bytes, &os);
			add_run(&b, &od, 0, &os, 0, bytes, 0);
			err = run(fn, s, &b, true);
		}
	}
	if (s)
		put_stream(s, sync);
	return err;
}

ACL_EXPORT aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N)
{
	return fill32(__func__, ptr, memSize, value, N, NULL, true);
}

ACL_EXPORT aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N,
					aclrtStream stream)
{
	return fill32(__func__, ptr, memSize, value, N, stream, false);
}

static aclError value_op(const char *fn, void *devAddr, uint64_t value, uint32_t flag,
			 aclrtStream stream, bool wait)
{
	struct drm_npu_cmd c = { .op = wait ? DRM_NPU_OP_VALUE_WAIT : DRM_NPU_OP_VALUE_WRITE };
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	if (!devAddr)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "devAddr is NULL");
	if (!acl_is_dev_ptr(devAddr))
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%p is not device memory", devAddr);
	if ((uintptr_t)devAddr & 7)
		return acl_fail(fn, ACL_ERROR_RT_ADDR_UNALIGNED, "%p is not 8-byte aligned", devAddr);
	if (wait ? flag > ACL_STREAM_WAIT_VALUE_NOR : flag != 0)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "invalid flag %u", flag);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	c.dst = (uintptr_t)devAddr;
	c.value = value;
	c.cond = wait ? flag : 0;
	return acl_stream_submit(s, &c, 1, NULL);
}

ACL_EXPORT aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
	return value_op(__func__, devAddr, value, flag, stream, false);
}

ACL_EXPORT aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
	return value_op(__func__, devAddr, value, flag, stream, true);
}
