// SPDX-License-Identifier: MIT
/* The collectives' shared steps (coll.h). */
#include <string.h>

#include "coll.h"

HcclResult coll_begin(struct coll *o, const char *func, HcclComm comm, aclrtStream s)
{
	HcclResult err = HCCL_SUCCESS;
	int async;

	memset(o, 0, sizeof(*o));
	o->func = func;
	o->s = s;
	o->c = hccl_comm_get(func, comm, &err);
	if (!o->c)
		return err;
	if (!s)
		return hccl_fail(func, HCCL_E_PTR, "stream is NULL");
	async = atomic_load(&o->c->async_err);
	if (async)
		return hccl_fail(func, (HcclResult)async, "the communicator failed before (%s): "
				 "destroy it", HcclGetErrorString((HcclResult)async));
	aclrtGetCurrentContext(&o->prev);
	if (o->prev != o->c->ctx && aclrtSetCurrentContext(o->c->ctx))
		return hccl_fail(func, HCCL_E_RUNTIME, "cannot make the communicator's context "
				 "current");
	return HCCL_SUCCESS;
}

HcclResult coll_end(struct coll *o, HcclResult err)
{
	if (!err && o->queued)
		err = hccl_monitor_track(o->c, o->s);
	if (err && o->queued) {
		int expected = HCCL_SUCCESS;

		/* the peers' links went on without us: nothing on them can be trusted */
		atomic_compare_exchange_strong(&o->c->async_err, &expected, err);
	}
	if (o->prev && o->prev != o->c->ctx)
		aclrtSetCurrentContext(o->prev);
	return err;
}

HcclResult coll_check_buf(struct coll *o, const char *what, const void *buf, uint64_t len)
{
	aclrtPtrAttributes a;

	if (!len)
		return HCCL_SUCCESS;
	if (!buf)
		return hccl_fail(o->func, HCCL_E_PTR, "%s is NULL", what);
	if (aclrtPointerGetAttributes((void *)buf, &a) ||
	    a.location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
		return hccl_fail(o->func, HCCL_E_PARA, "%s %p is not device memory", what, buf);
	return HCCL_SUCCESS;
}

size_t coll_check_type(struct coll *o, HcclDataType t)
{
	size_t n = hccl_dtype_size(t);

	if (!n)
		hccl_fail(o->func, HCCL_E_PARA, "data type %d is not one of HcclDataType's", t);
	return n;
}

HcclResult coll_check_rank(struct coll *o, const char *what, uint32_t r)
{
	if (r >= o->c->nranks)
		return hccl_fail(o->func, HCCL_E_PARA, "%s %u is not a rank of the communicator "
				 "(%u ranks)", what, r, o->c->nranks);
	return HCCL_SUCCESS;
}

uint64_t coll_pieces(const struct coll *o, uint64_t len)
{
	return (len + o->c->slot_size - 1) / o->c->slot_size;
}

uint64_t coll_piece_len(const struct coll *o, uint64_t len, uint64_t p)
{
	uint64_t at = p * o->c->slot_size;

	if (at >= len)
		return 0;
	return len - at < o->c->slot_size ? len - at : o->c->slot_size;
}

HcclResult coll_send_bytes(struct coll *o, uint32_t to, const void *src, uint64_t n)
{
	struct hccl_link *l = o->c->links[to];

	o->queued = true;
	return l->ops->send(l, src, n, o->s);
}

HcclResult coll_send(struct coll *o, uint32_t to, const uint8_t *src, uint64_t len, uint64_t p)
{
	return coll_send_bytes(o, to, src + p * o->c->slot_size, coll_piece_len(o, len, p));
}

HcclResult coll_recv_copy(struct coll *o, uint32_t from, uint8_t *dst, uint64_t len, uint64_t p)
{
	struct hccl_link *l = o->c->links[from];
	uint64_t n = coll_piece_len(o, len, p);
	const void *slot;
	HcclResult err;

	o->queued = true;
	err = l->ops->recv(l, &slot, n, o->s);
	if (!err)
		err = hccl_copy(dst + p * o->c->slot_size, slot, n, o->s);
	if (!err)
		err = l->ops->recv_done(l, o->s);
	return err;
}

HcclResult coll_recv_reduce(struct coll *o, uint32_t from, void *dst, const void *a, uint64_t count,
			    HcclDataType t, HcclReduceOp op)
{
	struct hccl_link *l = o->c->links[from];
	const void *slot;
	HcclResult err;

	o->queued = true;
	err = l->ops->recv(l, &slot, count * hccl_dtype_size(t), o->s);
	if (!err)
		err = hccl_reduce(dst, a, slot, count, t, op, o->s);
	if (!err)
		err = l->ops->recv_done(l, o->s);
	return err;
}
