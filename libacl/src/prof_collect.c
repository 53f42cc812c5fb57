// SPDX-License-Identifier: MIT
/*
 * The card's side of a profile: each command of a profiled submission
 * between two DRM_NPU_OP_CLOCK_WRITEs into a device buffer of its
 * stream's, and one copy of those stamps into pinned host memory at the
 * submission's end; read back once the stream's work is done (prof.h).
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model_parse.h"
#include "npu_operator.h"
#include "prof_internal.h"

/* Stamps per buffer pair; a stream takes more buffers as it needs them. */
#define PROF_CHUNK		8192u
#define PROF_MAX_CHUNKS		256u

struct prof_chunk {
	uint64_t dev;			/* device address of its device buffer */
	uint32_t dev_handle, host_handle;
	volatile uint64_t *host;	/* the pinned copy, mapped */
	size_t map_size;
};

struct prof_stream {
	struct acl_stream *s;
	struct acl_device *d;
	struct acl_mutex lock;		/* the stamps, from taking them until queued */
	struct prof_chunk *chunks;
	uint32_t nchunks;
	uint32_t used;			/* stamps handed out */
	struct prof_task *pending;	/* tasks whose stamps are not yet read */
	size_t npending, cap;
	uint64_t seq;
	struct acl_ticket last;
	bool has_last;
};

struct prof_label {
	const struct drm_npu_cmd *cmds;
	const char *name;
	const char *type;
	const struct acl_om_op *ops;
	uint32_t model_id;
};

atomic_int acl_prof_stamping;
struct acl_mutex acl_prof_lock = ACL_MUTEX_INITIALIZER;

static struct prof_stream **pstreams;
static size_t npstreams;
static bool card_offset_known[ACL_MAX_DEVICES];
static int64_t card_offset[ACL_MAX_DEVICES];
static __thread struct prof_label label;

struct prof_task *prof_done;
size_t prof_ndone, prof_done_cap;
_Atomic uint64_t prof_dropped;


static const char *const operator_names[] = {
#define NPU_OPERATOR(NAME, number, min_in, max_in, attrs, rsvd, act, name) [number] = #NAME,
	NPU_OPERATOR_TABLE
#undef NPU_OPERATOR
};

const char *prof_operator_name(unsigned int kind)
{
	if (kind < sizeof(operator_names) / sizeof(operator_names[0]) && operator_names[kind])
		return operator_names[kind];
	return "operator";
}

void acl_prof_label(const struct drm_npu_cmd *cmds, const char *name,
		    const struct acl_om_op *ops, uint32_t model_id)
{
	if (!acl_prof_wants())
		return;
	label = (struct prof_label){ .cmds = cmds, .name = name, .ops = ops,
				     .model_id = ops ? model_id : PROF_NO_MODEL };
}

static const char *copy_type(const struct drm_npu_cmd *c)
{
	bool dst_host = c->flags & (DRM_NPU_CMD_DST_HOST | DRM_NPU_CMD_DST_USER);
	bool src_host = c->flags & (DRM_NPU_CMD_SRC_HOST | DRM_NPU_CMD_SRC_USER);

	if (src_host && !dst_host)
		return "copy H2D";
	if (dst_host && !src_host)
		return "copy D2H";
	return src_host ? "copy H2H" : "copy D2D";
}

/* What a command is, for the timeline. */
static void task_describe(struct prof_task *t, const struct drm_npu_cmd *c, size_t i)
{
	const struct npu_op_desc *desc;

	switch (c->op) {
	case DRM_NPU_OP_COPY:
		t->type = copy_type(c);
		t->bytes = c->size;
		return;
	case DRM_NPU_OP_FILL:
		t->type = "memset";
		t->bytes = c->size;
		return;
	case DRM_NPU_OP_SLOT_WRITE:
		t->type = "event record";
		return;
	case DRM_NPU_OP_SLOT_WAIT:
		t->type = "event wait";
		return;
	case DRM_NPU_OP_VALUE_WRITE:
		t->type = "value write";
		return;
	case DRM_NPU_OP_VALUE_WAIT:
		t->type = "value wait";
		return;
	case DRM_NPU_OP_TIMESTAMP:
		t->type = "event timestamp";
		return;
	case DRM_NPU_OP_COMPUTE:
		desc = (const void *)(uintptr_t)c->src;
		t->type = prof_operator_name(le16toh(desc->kind));
		if (label.cmds == c - i && label.ops) {
			t->name = strdup(label.ops[i].name ? label.ops[i].name : t->type);
			t->model_id = label.model_id;
		} else if (label.cmds == c - i && label.name) {
			t->name = strdup(label.name);
		}
		return;
	case DRM_NPU_OP_NOP:
		t->type = label.cmds == c - i && label.type ? label.type : "nop";
		if (label.cmds == c - i && label.name)
			t->name = strdup(label.name);
		return;
	default:
		t->type = "command";
		return;
	}
}

int64_t prof_card_offset_locked(int32_t device)
{
	return card_offset[device];
}

/* Where the card's clock stands on the host's: read between two host readings. */
static void card_offset_measure_locked(struct acl_device *d)
{
	int64_t before, after;
	uint64_t card;

	if (card_offset_known[d->id])
		return;
	before = acl_now_ns();
	if (drv_get_param(d->fd, DRM_NPU_PARAM_CLOCK_NS, &card))
		return;
	after = acl_now_ns();
	card_offset[d->id] = before + (after - before) / 2 - (int64_t)card;
	card_offset_known[d->id] = true;
}

static void harvest_locked(struct prof_stream *ps, bool wait);

static struct prof_stream *pstream_find_locked(struct acl_stream *s, bool create)
{
	struct prof_stream *ps, **v;

	for (size_t i = 0; i < npstreams; i++)
		if (pstreams[i]->s == s)
			return pstreams[i];
	if (!create)
		return NULL;
	ps = calloc(1, sizeof(*ps));
	v = realloc(pstreams, (npstreams + 1) * sizeof(*v));
	if (!ps || !v) {
		free(ps);
		if (v)
			pstreams = v;
		return NULL;
	}
	pstreams = v;
	ps->s = s;
	ps->d = s->dev;
	acl_mutex_init(&ps->lock);
	pstreams[npstreams++] = ps;
	card_offset_measure_locked(s->dev);
	return ps;
}

static bool chunk_new(struct prof_stream *ps)
{
	struct prof_chunk c = { .map_size = PROF_CHUNK * sizeof(uint64_t) };
	struct prof_chunk *v;
	uint64_t off;
	void *p;

	if (ps->nchunks == PROF_MAX_CHUNKS)
		return false;
	v = realloc(ps->chunks, (ps->nchunks + 1) * sizeof(*v));
	if (!v)
		return false;
	ps->chunks = v;
	if (drv_bo_create(ps->d->fd, c.map_size, DRM_NPU_BO_DEVICE, &c.dev_handle, &c.dev, NULL))
		return false;
	if (drv_bo_create(ps->d->fd, c.map_size, DRM_NPU_BO_HOST, &c.host_handle, NULL, &off)) {
		drv_gem_close(ps->d->fd, c.dev_handle);
		return false;
	}
	p = mmap(NULL, c.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, ps->d->fd, (off_t)off);
	if (p == MAP_FAILED) {
		drv_gem_close(ps->d->fd, c.host_handle);
		drv_gem_close(ps->d->fd, c.dev_handle);
		return false;
	}
	memset(p, 0, c.map_size);
	c.host = p;
	ps->chunks[ps->nchunks++] = c;
	return true;
}

/* The first of 2 * count consecutive stamps in one chunk, or -1. */
static int64_t stamps_take(struct prof_stream *ps, size_t count)
{
	uint32_t need = (uint32_t)(2 * count), at = ps->used;

	if (at % PROF_CHUNK + need > PROF_CHUNK)
		at = (at / PROF_CHUNK + 1) * PROF_CHUNK;
	while (at / PROF_CHUNK >= ps->nchunks)
		if (!chunk_new(ps))
			return -1;
	ps->used = at + need;
	return at;
}

static bool pending_grow(struct prof_stream *ps, size_t more)
{
	struct prof_task *v;
	size_t cap = ps->cap ? ps->cap : 64;

	while (cap < ps->npending + more)
		cap *= 2;
	if (cap == ps->cap)
		return true;
	v = realloc(ps->pending, cap * sizeof(*v));
	if (!v)
		return false;
	ps->pending = v;
	ps->cap = cap;
	return true;
}

/* The commands with their stamps, and the copy of the stamps home. */
static struct drm_npu_cmd *stamped_cmds(struct prof_stream *ps, const struct drm_npu_cmd *cmds,
					size_t count, uint32_t first, size_t *n)
{
	const struct prof_chunk *c = &ps->chunks[first / PROF_CHUNK];
	uint64_t at = c->dev + (uint64_t)(first % PROF_CHUNK) * sizeof(uint64_t);
	struct drm_npu_cmd *v = calloc(3 * count + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		v[3 * i] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_CLOCK_WRITE,
						 .dst = at + 16 * i };
		v[3 * i + 1] = cmds[i];
		v[3 * i + 2] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_CLOCK_WRITE,
						     .dst = at + 16 * i + 8 };
	}
	v[3 * count] = (struct drm_npu_cmd){
		.op = DRM_NPU_OP_COPY, .flags = DRM_NPU_CMD_DST_HOST,
		.dst = (uint64_t)(first % PROF_CHUNK) * sizeof(uint64_t), .dst_handle = c->host_handle,
		.src = at, .size = 16 * count,
	};
	*n = 3 * count + 1;
	return v;
}

static void tasks_add(struct prof_stream *ps, const struct drm_npu_cmd *cmds, size_t count,
		      uint32_t first, bool profiled)
{
	uint64_t tid = prof_thread_id();

	for (size_t i = 0; i < count; i++) {
		struct prof_task *t = &ps->pending[ps->npending++];

		*t = (struct prof_task){
			.device = ps->d->id, .stream = ps->s->obj.index, .internal = !ps->s->ctx,
			.profiled = profiled, .model_id = PROF_NO_MODEL, .seq = ps->seq++,
			.stamp = first + 2 * (uint32_t)i, .tid = tid,
		};
		task_describe(t, &cmds[i], i);
	}
}

/* One piece of a submission, at most half a chunk of commands. */
static aclError submit_piece(struct prof_stream *ps, struct drm_npu_cmd *cmds, size_t count,
			     bool profiled, struct acl_ticket *done)
{
	struct drm_npu_cmd *v;
	struct acl_ticket t;
	int64_t first;
	aclError err;
	size_t n;

	first = pending_grow(ps, count) ? stamps_take(ps, count) : -1;
	if (first < 0) {
		prof_dropped += count;
		return acl_stream_submit_unprofiled(ps->s, cmds, count, done);
	}
	v = stamped_cmds(ps, cmds, count, (uint32_t)first, &n);
	if (!v) {
		ps->used = (uint32_t)first;
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory for %zu profiled commands", count);
	}
	err = acl_stream_submit_kernel(ps->s, v, n, &t);
	free(v);
	if (err) {
		ps->used = (uint32_t)first;
		return err;
	}
	tasks_add(ps, cmds, count, (uint32_t)first, profiled);
	ps->last = t;
	ps->has_last = true;
	if (done)
		*done = t;
	return ACL_SUCCESS;
}

/* The submission on the host's track, named after what it queued. */
static void host_span(struct prof_stream *ps, size_t first, size_t count, int64_t t0)
{
	const struct prof_task *t = &ps->pending[first < ps->npending ? first : 0];
	char name[128];

	if (first >= ps->npending)
		return;
	snprintf(name, sizeof(name), "launch %s%s%s x%zu (stream %u)", t->type,
		 t->name ? ": " : "", t->name ? t->name : "", count, t->stream);
	prof_host_add(name, "api", t0, acl_now_ns());
}

/*
 * The stream's earlier stamps, once all its profiled work is done: their
 * buffers are free again and a subscriber gets its records as the model
 * runs, not only at the end.
 */
static void harvest_if_done_locked(struct prof_stream *ps)
{
	uint32_t err;

	if (ps->has_last && acl_ticket_done(ps->s, &ps->last, &err))
		harvest_locked(ps, false);
}

aclError acl_prof_submit(struct acl_stream *s, struct drm_npu_cmd *cmds, size_t count,
			 struct acl_ticket *done)
{
	const size_t piece = PROF_CHUNK / 2;
	struct prof_stream *ps = NULL;
	bool profiled, subscribed, api;
	aclError err = ACL_SUCCESS;
	int64_t t0 = acl_now_ns();
	size_t first;

	acl_mutex_lock(&acl_prof_lock);
	profiled = prof_device_profiled_locked(s->dev->id);
	api = profiled && prof_api_on_locked();
	subscribed = label.cmds == cmds && label.ops && prof_sub_wants_locked(label.model_id);
	if (profiled || subscribed)
		ps = pstream_find_locked(s, true);
	if (ps) {
		acl_mutex_lock(&ps->lock);
		harvest_if_done_locked(ps);
	}
	acl_mutex_unlock(&acl_prof_lock);
	if (!ps) {
		if (label.cmds == cmds)
			label.cmds = NULL;
		return acl_stream_submit_unprofiled(s, cmds, count, done);
	}

	first = ps->npending;
	for (size_t off = 0; !err && off < count; off += piece) {
		size_t n = count - off < piece ? count - off : piece;

		if (off)
			label.cmds = NULL;	/* names count from the first command */
		err = submit_piece(ps, cmds + off, n, profiled, done);
	}
	if (label.cmds == cmds)
		label.cmds = NULL;
	if (api && !err && count)
		host_span(ps, first, count, t0);
	acl_mutex_unlock(&ps->lock);
	return err;
}

static bool done_add_locked(const struct prof_task *t)
{
	struct prof_task *v;

	if (prof_ndone == prof_done_cap) {
		size_t cap = prof_done_cap ? 2 * prof_done_cap : 256;

		v = realloc(prof_done, cap * sizeof(*v));
		if (!v)
			return false;
		prof_done = v;
		prof_done_cap = cap;
	}
	prof_done[prof_ndone++] = *t;
	return true;
}

/*
 * Reads the stamps of ps's tasks, after waiting for its last submission
 * when wait (the stream is alive). Tasks whose stamps did not arrive (a
 * failed stream) are counted as dropped. The buffers are then free again.
 */
static void harvest_locked(struct prof_stream *ps, bool wait)
{
	ACL_ASSERT_HELD(&acl_prof_lock);
	if (wait && ps->has_last && ps->s)
		acl_stream_wait(ps->s, &ps->last, -1);
	for (size_t i = 0; i < ps->npending; i++) {
		struct prof_task *t = &ps->pending[i];
		volatile uint64_t *w = &ps->chunks[t->stamp / PROF_CHUNK].host[t->stamp % PROF_CHUNK];
		bool kept = false;

		t->start = __atomic_load_n(&w[0], __ATOMIC_ACQUIRE);
		t->end = __atomic_load_n(&w[1], __ATOMIC_ACQUIRE);
		w[0] = w[1] = 0;
		if (!t->start || !t->end) {
			prof_dropped++;
		} else {
			if (t->model_id != PROF_NO_MODEL)
				prof_sub_deliver_locked(t, card_offset[t->device]);
			if (t->profiled)
				kept = done_add_locked(t);
		}
		if (!kept)
			free(t->name);
	}
	ps->npending = 0;
	ps->used = 0;
	ps->has_last = false;
}

void prof_harvest_all_locked(void)
{
	for (size_t i = 0; i < npstreams; i++) {
		acl_mutex_lock(&pstreams[i]->lock);
		harvest_locked(pstreams[i], true);
		acl_mutex_unlock(&pstreams[i]->lock);
	}
}

static void pstream_free(struct prof_stream *ps)
{
	for (uint32_t i = 0; i < ps->nchunks; i++) {
		struct prof_chunk *c = &ps->chunks[i];

		munmap((void *)c->host, c->map_size);
		if (ps->d->fd >= 0) {
			drv_gem_close(ps->d->fd, c->host_handle);
			drv_gem_close(ps->d->fd, c->dev_handle);
		}
	}
	free(ps->chunks);
	free(ps->pending);
	acl_mutex_destroy(&ps->lock);
	free(ps);
}

void acl_prof_stream_gone(struct acl_stream *s, bool waited)
{
	struct prof_stream *ps;

	acl_mutex_lock(&acl_prof_lock);
	ps = pstream_find_locked(s, false);
	if (ps) {
		acl_mutex_lock(&ps->lock);
		harvest_locked(ps, false);
		(void)waited;
		acl_mutex_unlock(&ps->lock);
		for (size_t i = 0; i < npstreams; i++)
			if (pstreams[i] == ps)
				pstreams[i] = pstreams[--npstreams];
		pstream_free(ps);
	}
	acl_mutex_unlock(&acl_prof_lock);
}

/* A profile's or subscription's end: clocks are measured again next time. */
void prof_update_stamping_locked(void)
{
	bool on = prof_device_profiled_locked(-1) || prof_sub_any_locked();

	if (!on)
		memset(card_offset_known, 0, sizeof(card_offset_known));
	atomic_store(&acl_prof_stamping, on);
}

aclError prof_card_marker(aclrtStream stream, const char *msg, const char *type)
{
	struct drm_npu_cmd nop = { .op = DRM_NPU_OP_NOP };
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	label = (struct prof_label){ .cmds = &nop, .name = msg, .type = type,
				     .model_id = PROF_NO_MODEL };
	err = acl_stream_submit(s, &nop, 1, NULL);
	label.cmds = NULL;
	return err;
}
