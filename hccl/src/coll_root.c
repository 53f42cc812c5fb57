// SPDX-License-Identifier: MIT
/*
 * Collectives with a root: Broadcast down a chain that starts at the root,
 * Reduce up a chain that ends at it (each rank adds its part to the piece
 * passing by), and Scatter from the root to each rank. Pieces pipeline
 * along the chain: the root's next piece is on its way while the last
 * rank still receives the first.
 */
#include "coll.h"

static uint32_t chain_rank(const struct coll *o, uint32_t root, uint32_t pos)
{
	return (root + pos) % o->c->nranks;
}

static HcclResult broadcast(struct coll *o, void *buf, uint64_t count, HcclDataType t, uint32_t root)
{
	size_t es = coll_check_type(o, t);
	uint32_t n = o->c->nranks, pos = (o->c->rank + n - root) % n;
	uint32_t next = chain_rank(o, root, pos + 1), prev = chain_rank(o, root, pos + n - 1);
	uint64_t len = count * es, np = coll_pieces(o, len);
	HcclResult err;

	if (!es)
		return HCCL_E_PARA;
	err = coll_check_rank(o, "root", root);
	if (!err)
		err = coll_check_buf(o, "buf", buf, len);
	for (uint64_t p = 0; p < np && !err && n > 1; p++) {
		const void *slot;
		struct hccl_link *l;

		if (!pos) {
			err = coll_send(o, next, buf, len, p);
			continue;
		}
		/* received into the slot, forwarded from it, then copied out */
		l = o->c->links[prev];
		o->queued = true;
		err = l->ops->recv(l, &slot, coll_piece_len(o, len, p), o->s);
		if (!err && pos + 1 < n)
			err = coll_send_bytes(o, next, slot, coll_piece_len(o, len, p));
		if (!err)
			err = hccl_copy((uint8_t *)buf + p * o->c->slot_size, slot,
					coll_piece_len(o, len, p), o->s);
		if (!err)
			err = l->ops->recv_done(l, o->s);
	}
	return err;
}

HCCL_EXPORT HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
				     HcclComm comm, aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, broadcast(&o, buf, count, dataType, root));
}

/* The chain runs root + 1, root + 2, ..., root: pos n - 1 is the root. */
static HcclResult reduce_chain(struct coll *o, const uint8_t *in, uint8_t *out, uint64_t count,
			       HcclDataType t, HcclReduceOp op, uint32_t root)
{
	uint32_t n = o->c->nranks, pos = (o->c->rank + n - root - 1) % n;
	uint32_t next = chain_rank(o, root, pos + 2), prev = chain_rank(o, root, pos);
	size_t es = hccl_dtype_size(t);
	uint64_t len = count * es, np = coll_pieces(o, len), slot = o->c->slot_size;
	HcclResult err = HCCL_SUCCESS;

	o->queued = true;
	if (n == 1)
		return hccl_copy(out, in, len, o->s);
	for (uint64_t p = 0; p < np && !err; p++) {
		uint64_t pn = coll_piece_len(o, len, p);

		if (!pos) {
			err = coll_send(o, next, in, len, p);
		} else if (pos + 1 < n) {
			err = coll_recv_reduce(o, prev, o->c->scratch, in + p * slot, pn / es, t, op);
			if (!err)
				err = coll_send_bytes(o, next, o->c->scratch, pn);
		} else {
			err = coll_recv_reduce(o, prev, out + p * slot, in + p * slot, pn / es, t, op);
		}
	}
	return err;
}

static HcclResult reduce(struct coll *o, void *sendBuf, void *recvBuf, uint64_t count,
			 HcclDataType t, HcclReduceOp op, uint32_t root)
{
	HcclResult err = hccl_reduce_check(o->func, t, op);
	uint64_t len = count * hccl_dtype_size(t);

	if (!err)
		err = coll_check_rank(o, "root", root);
	if (!err)
		err = coll_check_buf(o, "sendBuf", sendBuf, len);
	if (!err && o->c->rank == root)
		err = coll_check_buf(o, "recvBuf", recvBuf, len);
	if (err || !count)
		return err;
	return reduce_chain(o, sendBuf, recvBuf, count, t, op, root);
}

HCCL_EXPORT HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count,
				  HcclDataType dataType, HcclReduceOp op, uint32_t root,
				  HcclComm comm, aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, reduce(&o, sendBuf, recvBuf, count, dataType, op, root));
}

static HcclResult scatter(struct coll *o, uint8_t *sendBuf, void *recvBuf, uint64_t recvCount,
			  HcclDataType t, uint32_t root)
{
	size_t es = coll_check_type(o, t);
	uint32_t n = o->c->nranks, me = o->c->rank;
	uint64_t len = recvCount * es, np = coll_pieces(o, len);
	HcclResult err;

	if (!es)
		return HCCL_E_PARA;
	err = coll_check_rank(o, "root", root);
	if (!err && me == root)
		err = coll_check_buf(o, "sendBuf", sendBuf, len * n);
	if (!err)
		err = coll_check_buf(o, "recvBuf", recvBuf, len);
	if (err || !len)
		return err;
	o->queued = true;
	if (me != root) {
		for (uint64_t p = 0; p < np && !err; p++)
			err = coll_recv_copy(o, root, recvBuf, len, p);
		return err;
	}
	for (uint64_t p = 0; p < np && !err; p++)
		for (uint32_t r = 0; r < n && !err; r++)
			if (r != me)
				err = coll_send(o, r, sendBuf + r * len, len, p);
	return err ? err : hccl_copy(recvBuf, sendBuf + me * len, len, o->s);
}

HCCL_EXPORT HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
				   HcclDataType dataType, uint32_t root, HcclComm comm,
				   aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, scatter(&o, sendBuf, recvBuf, recvCount, dataType, root));
}
