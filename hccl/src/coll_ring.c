// SPDX-License-Identifier: MIT
/*
 * The ring: AllReduce as reduce-scatter then allgather, AllGather(V) and
 * ReduceScatter(V). The data is cut into one block per rank and each block
 * into slot-sized pieces; piece by piece, every step sends to the next
 * rank and receives from the previous one, so that the cards copy and
 * reduce different pieces at once. Every rank sends and receives exactly
 * one message per piece and step, empty where a block is shorter, which
 * keeps the links in step whatever the block sizes.
 */
#include <stdlib.h>

#include "coll.h"

struct blocks {
	uint64_t *off, *len;	/* elements, per rank */
	uint64_t max_bytes;	/* the longest block */
};

static HcclResult blocks_init(struct coll *o, struct blocks *b, size_t es)
{
	uint32_t n = o->c->nranks;

	b->off = calloc(n, sizeof(*b->off));
	b->len = calloc(n, sizeof(*b->len));
	b->max_bytes = 0;
	if (!b->off || !b->len) {
		free(b->off);
		free(b->len);
		return hccl_fail(o->func, HCCL_E_MEMORY, "out of host memory");
	}
	(void)es;
	return HCCL_SUCCESS;
}

static void blocks_even(struct blocks *b, uint32_t n, uint64_t count, size_t es)
{
	for (uint32_t i = 0; i < n; i++) {
		b->off[i] = count * i / n;
		b->len[i] = count * (i + 1) / n - b->off[i];
		if (b->len[i] * es > b->max_bytes)
			b->max_bytes = b->len[i] * es;
	}
}

static void blocks_free(struct blocks *b)
{
	free(b->off);
	free(b->len);
}

static uint32_t ring_at(const struct coll *o, int64_t delta)
{
	int64_t n = o->c->nranks;

	return (uint32_t)((((int64_t)o->c->rank + delta) % n + n) % n);
}

/*
 * in holds this rank's data; afterwards buf holds every rank's reduced.
 * Each block of buf is first written by a reduction or a receive, never
 * read before: in needs no copy to buf first (in may be buf).
 */
static HcclResult ring_allreduce(struct coll *o, const uint8_t *in, uint8_t *buf,
				 const struct blocks *b, size_t es, HcclDataType t, HcclReduceOp op)
{
	uint32_t n = o->c->nranks, next = ring_at(o, 1), prev = ring_at(o, -1);
	uint64_t np = coll_pieces(o, b->max_bytes), slot = o->c->slot_size;
	HcclResult err = HCCL_SUCCESS;

	for (uint64_t p = 0; p < np && !err; p++) {
		for (uint32_t k = 0; k + 1 < n && !err; k++) {
			uint32_t sb = ring_at(o, -(int64_t)k), rb = ring_at(o, -(int64_t)k - 1);
			uint64_t at = b->off[rb] * es + p * slot;
			/* the first step sends this rank's own block, the others
			 * the one the step before reduced */
			const uint8_t *src = k ? buf : in;

			err = coll_send(o, next, src + b->off[sb] * es, b->len[sb] * es, p);
			if (!err)
				err = coll_recv_reduce(o, prev, buf + at, in + at,
						       coll_piece_len(o, b->len[rb] * es, p) / es, t, op);
		}
		for (uint32_t k = 0; k + 1 < n && !err; k++) {
			uint32_t sb = ring_at(o, 1 - (int64_t)k), rb = ring_at(o, -(int64_t)k);

			err = coll_send(o, next, buf + b->off[sb] * es, b->len[sb] * es, p);
			if (!err)
				err = coll_recv_copy(o, prev, buf + b->off[rb] * es, b->len[rb] * es, p);
		}
	}
	return err;
}

/* buf holds this rank's block at its place; afterwards every rank's. */
static HcclResult ring_allgather(struct coll *o, uint8_t *buf, const struct blocks *b, size_t es)
{
	uint32_t n = o->c->nranks, next = ring_at(o, 1), prev = ring_at(o, -1);
	uint64_t np = coll_pieces(o, b->max_bytes);
	HcclResult err = HCCL_SUCCESS;

	for (uint64_t p = 0; p < np && !err; p++) {
		for (uint32_t k = 0; k + 1 < n && !err; k++) {
			uint32_t sb = ring_at(o, -(int64_t)k), rb = ring_at(o, -(int64_t)k - 1);

			err = coll_send(o, next, buf + b->off[sb] * es, b->len[sb] * es, p);
			if (!err)
				err = coll_recv_copy(o, prev, buf + b->off[rb] * es, b->len[rb] * es, p);
		}
	}
	return err;
}

/* Every rank's blocks of in reduced; this rank's block to out. */
static HcclResult ring_reduce_scatter(struct coll *o, const uint8_t *in, uint8_t *out,
				      const struct blocks *b, size_t es, HcclDataType t,
				      HcclReduceOp op)
{
	uint32_t n = o->c->nranks, next = ring_at(o, 1), prev = ring_at(o, -1);
	uint64_t np = coll_pieces(o, b->max_bytes), slot = o->c->slot_size;
	uint8_t *scratch = o->c->scratch;
	HcclResult err = HCCL_SUCCESS;

	for (uint64_t p = 0; p < np && !err; p++) {
		for (uint32_t k = 0; k + 1 < n && !err; k++) {
			uint32_t sb = ring_at(o, -(int64_t)k - 1), rb = ring_at(o, -(int64_t)k - 2);
			uint64_t sn = coll_piece_len(o, b->len[sb] * es, p);
			uint64_t rn = coll_piece_len(o, b->len[rb] * es, p);
			const uint8_t *src = k ? scratch : in + b->off[sb] * es + p * slot;
			uint8_t *dst = k + 2 == n ? out + p * slot : scratch;

			err = coll_send_bytes(o, next, src, sn);
			if (!err)
				err = coll_recv_reduce(o, prev, dst, in + b->off[rb] * es + p * slot,
						       rn / es, t, op);
		}
	}
	return err;
}

static HcclResult allreduce(struct coll *o, void *sendBuf, void *recvBuf, uint64_t count,
			    HcclDataType t, HcclReduceOp op)
{
	size_t es = hccl_dtype_size(t);
	struct blocks b;
	HcclResult err;

	err = hccl_reduce_check(o->func, t, op);
	if (!err)
		err = coll_check_buf(o, "sendBuf", sendBuf, count * es);
	if (!err)
		err = coll_check_buf(o, "recvBuf", recvBuf, count * es);
	if (err || !count)
		return err;
	err = blocks_init(o, &b, es);
	if (err)
		return err;
	blocks_even(&b, o->c->nranks, count, es);
	o->queued = true;
	if (o->c->nranks == 1)
		err = hccl_copy(recvBuf, sendBuf, count * es, o->s);
	else
		err = ring_allreduce(o, sendBuf, recvBuf, &b, es, t, op);
	blocks_free(&b);
	return err;
}

HCCL_EXPORT HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count,
				     HcclDataType dataType, HcclReduceOp op, HcclComm comm,
				     aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, allreduce(&o, sendBuf, recvBuf, count, dataType, op));
}

/* counts and displs of a V call (NULL: sendCount each, packed), checked. */
static HcclResult blocks_from(struct coll *o, struct blocks *b, size_t es, const uint64_t *counts,
			      const uint64_t *displs, uint64_t each, uint64_t *span)
{
	uint32_t n = o->c->nranks;
	HcclResult err = blocks_init(o, b, es);

	if (err)
		return err;
	*span = 0;
	for (uint32_t i = 0; i < n; i++) {
		b->len[i] = counts ? counts[i] : each;
		b->off[i] = displs ? displs[i] : each * i;
		if (b->off[i] + b->len[i] < b->off[i] || (b->off[i] + b->len[i]) > UINT64_MAX / es) {
			blocks_free(b);
			return hccl_fail(o->func, HCCL_E_PARA, "rank %u's block overflows", i);
		}
		if (b->off[i] + b->len[i] > *span)
			*span = b->off[i] + b->len[i];
		if (b->len[i] * es > b->max_bytes)
			b->max_bytes = b->len[i] * es;
	}
	return HCCL_SUCCESS;
}

/* A V call's own block must hold what this rank sends or receives. */
static HcclResult check_own_count(struct coll *o, const struct blocks *b, const char *name,
				  uint64_t count)
{
	if (b->len[o->c->rank] == count)
		return HCCL_SUCCESS;
	return hccl_fail(o->func, HCCL_E_PARA, "%s %llu is not this rank's count %llu", name,
			 (unsigned long long)count, (unsigned long long)b->len[o->c->rank]);
}

static HcclResult allgather(struct coll *o, void *sendBuf, uint64_t sendCount, void *recvBuf,
			    const uint64_t *counts, const uint64_t *displs, HcclDataType t)
{
	size_t es = coll_check_type(o, t);
	uint64_t span;
	struct blocks b;
	HcclResult err;

	if (!es)
		return HCCL_E_PARA;
	err = blocks_from(o, &b, es, counts, displs, sendCount, &span);
	if (err)
		return err;
	err = check_own_count(o, &b, "sendCount", sendCount);
	if (!err)
		err = coll_check_buf(o, "sendBuf", sendBuf, sendCount * es);
	if (!err)
		err = coll_check_buf(o, "recvBuf", recvBuf, span * es);
	if (!err && span) {
		o->queued = true;
		err = hccl_copy((uint8_t *)recvBuf + b.off[o->c->rank] * es, sendBuf, sendCount * es,
				o->s);
		if (!err)
			err = ring_allgather(o, recvBuf, &b, es);
	}
	blocks_free(&b);
	return err;
}

HCCL_EXPORT HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
				     HcclDataType dataType, HcclComm comm, aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, allgather(&o, sendBuf, sendCount, recvBuf, NULL, NULL, dataType));
}

HCCL_EXPORT HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf,
				      const void *recvCounts, const void *recvDispls,
				      HcclDataType dataType, HcclComm comm, aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	if (!recvCounts || !recvDispls)
		return coll_end(&o, hccl_fail(__func__, HCCL_E_PTR, "recvCounts and recvDispls "
					      "must not be NULL"));
	return coll_end(&o, allgather(&o, sendBuf, sendCount, recvBuf, recvCounts, recvDispls,
				      dataType));
}

static HcclResult reduce_scatter(struct coll *o, void *sendBuf, const uint64_t *counts,
				 const uint64_t *displs, void *recvBuf, uint64_t recvCount,
				 HcclDataType t, HcclReduceOp op)
{
	size_t es = hccl_dtype_size(t);
	uint64_t span;
	struct blocks b;
	HcclResult err = hccl_reduce_check(o->func, t, op);

	if (err)
		return err;
	err = blocks_from(o, &b, es, counts, displs, recvCount, &span);
	if (err)
		return err;
	err = check_own_count(o, &b, "recvCount", recvCount);
	if (!err)
		err = coll_check_buf(o, "sendBuf", sendBuf, span * es);
	if (!err)
		err = coll_check_buf(o, "recvBuf", recvBuf, recvCount * es);
	if (!err && span) {
		o->queued = true;
		if (o->c->nranks == 1)
			err = hccl_copy(recvBuf, (uint8_t *)sendBuf + b.off[0] * es, recvCount * es,
					o->s);
		else
			err = ring_reduce_scatter(o, sendBuf, recvBuf, &b, es, t, op);
	}
	blocks_free(&b);
	return err;
}

HCCL_EXPORT HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
					 HcclDataType dataType, HcclReduceOp op, HcclComm comm,
					 aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, reduce_scatter(&o, sendBuf, NULL, NULL, recvBuf, recvCount, dataType,
					   op));
}

HCCL_EXPORT HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts,
					  const void *sendDispls, void *recvBuf, uint64_t recvCount,
					  HcclDataType dataType, HcclReduceOp op, HcclComm comm,
					  aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	if (!sendCounts || !sendDispls)
		return coll_end(&o, hccl_fail(__func__, HCCL_E_PTR, "sendCounts and sendDispls "
					      "must not be NULL"));
	return coll_end(&o, reduce_scatter(&o, sendBuf, sendCounts, sendDispls, recvBuf, recvCount,
					   dataType, op));
}
