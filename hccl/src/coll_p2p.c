// SPDX-License-Identifier: MIT
/*
 * Point to point: Send, Recv, BatchSendRecv, the all-to-alls and the
 * barrier. Messages go piece by piece, and where a rank both sends and
 * receives, a piece of each in turn, so that two ranks sending each other
 * more than a link's slots hold never wait for each other.
 */
#include <stdlib.h>

#include "coll.h"

static HcclResult check_peer(struct coll *o, const char *what, uint32_t r)
{
	HcclResult err = coll_check_rank(o, what, r);

	if (!err && r == o->c->rank)
		err = hccl_fail(o->func, HCCL_E_PARA, "%s %u is this rank itself", what, r);
	return err;
}

static HcclResult send_recv(struct coll *o, bool send, void *buf, uint64_t count, HcclDataType t,
			    uint32_t peer)
{
	size_t es = coll_check_type(o, t);
	uint64_t len = count * es, np;
	HcclResult err;

	if (!es)
		return HCCL_E_PARA;
	err = check_peer(o, send ? "destRank" : "srcRank", peer);
	if (!err)
		err = coll_check_buf(o, send ? "sendBuf" : "recvBuf", buf, len);
	np = coll_pieces(o, len);
	for (uint64_t p = 0; p < np && !err; p++)
		err = send ? coll_send(o, peer, buf, len, p) : coll_recv_copy(o, peer, buf, len, p);
	return err;
}

HCCL_EXPORT HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType,
				uint32_t destRank, HcclComm comm, aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, send_recv(&o, true, sendBuf, count, dataType, destRank));
}

HCCL_EXPORT HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType,
				uint32_t srcRank, HcclComm comm, aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, send_recv(&o, false, recvBuf, count, dataType, srcRank));
}

static HcclResult batch_check(struct coll *o, const HcclSendRecvItem *v, uint32_t n, uint64_t *np)
{
	HcclResult err = HCCL_SUCCESS;

	*np = 0;
	for (uint32_t i = 0; i < n && !err; i++) {
		size_t es = coll_check_type(o, v[i].dataType);

		if (!es)
			return HCCL_E_PARA;
		if (v[i].sendRecvType != HCCL_SEND && v[i].sendRecvType != HCCL_RECV)
			return hccl_fail(o->func, HCCL_E_PARA, "item %u is neither HCCL_SEND nor "
					 "HCCL_RECV", i);
		err = check_peer(o, "remoteRank", v[i].remoteRank);
		if (!err)
			err = coll_check_buf(o, "buf", v[i].buf, v[i].count * es);
		if (coll_pieces(o, v[i].count * es) > *np)
			*np = coll_pieces(o, v[i].count * es);
	}
	return err;
}

static HcclResult batch(struct coll *o, HcclSendRecvItem *v, uint32_t n)
{
	HcclResult err;
	uint64_t np;

	if (!v && n)
		return hccl_fail(o->func, HCCL_E_PTR, "sendRecvInfo is NULL");
	err = batch_check(o, v, n, &np);
	/* a round: piece p of every send, then of every receive */
	for (uint64_t p = 0; p < np && !err; p++) {
		for (int want = HCCL_SEND; want <= HCCL_RECV && !err; want++) {
			for (uint32_t i = 0; i < n && !err; i++) {
				uint64_t len = v[i].count * hccl_dtype_size(v[i].dataType);

				if ((int)v[i].sendRecvType != want || p >= coll_pieces(o, len))
					continue;
				err = want == HCCL_SEND ? coll_send(o, v[i].remoteRank, v[i].buf, len, p) :
				      coll_recv_copy(o, v[i].remoteRank, v[i].buf, len, p);
			}
		}
	}
	return err;
}

HCCL_EXPORT HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum,
					 HcclComm comm, aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, batch(&o, sendRecvInfo, itemNum));
}

struct a2a {
	const uint8_t *send;
	uint8_t *recv;
	const uint64_t *scount, *sdispl, *rcount, *rdispl;
	size_t es;
};

/* Each k: to rank + k, from rank - k, a piece of each in turn. */
static HcclResult alltoall_run(struct coll *o, const struct a2a *a)
{
	uint32_t n = o->c->nranks, me = o->c->rank;
	size_t es = a->es;
	HcclResult err;

	if (a->scount[me] != a->rcount[me])
		return hccl_fail(o->func, HCCL_E_PARA, "this rank sends itself %llu elements but "
				 "receives %llu", (unsigned long long)a->scount[me],
				 (unsigned long long)a->rcount[me]);
	o->queued = true;
	err = hccl_copy(a->recv + a->rdispl[me] * es, a->send + a->sdispl[me] * es,
			a->scount[me] * es, o->s);
	for (uint32_t k = 1; k < n && !err; k++) {
		uint32_t to = (me + k) % n, from = (me + n - k) % n;
		uint64_t sl = a->scount[to] * es, rl = a->rcount[from] * es;
		uint64_t sp = coll_pieces(o, sl), rp = coll_pieces(o, rl);

		for (uint64_t p = 0; p < (sp > rp ? sp : rp) && !err; p++) {
			if (p < sp)
				err = coll_send(o, to, a->send + a->sdispl[to] * es, sl, p);
			if (!err && p < rp)
				err = coll_recv_copy(o, from, a->recv + a->rdispl[from] * es, rl, p);
		}
	}
	return err;
}

static HcclResult a2a_check(struct coll *o, const struct a2a *a, HcclDataType st, HcclDataType rt)
{
	uint64_t sspan = 0, rspan = 0;
	HcclResult err;

	if (!coll_check_type(o, st) || !coll_check_type(o, rt))
		return HCCL_E_PARA;
	if (hccl_dtype_size(st) != hccl_dtype_size(rt))
		return hccl_fail(o->func, HCCL_E_PARA, "sendType %s and recvType %s differ in size",
				 hccl_dtype_name(st), hccl_dtype_name(rt));
	for (uint32_t i = 0; i < o->c->nranks; i++) {
		if (a->sdispl[i] + a->scount[i] > sspan)
			sspan = a->sdispl[i] + a->scount[i];
		if (a->rdispl[i] + a->rcount[i] > rspan)
			rspan = a->rdispl[i] + a->rcount[i];
	}
	err = coll_check_buf(o, "sendBuf", a->send, sspan * a->es);
	if (!err)
		err = coll_check_buf(o, "recvBuf", a->recv, rspan * a->es);
	return err;
}

static HcclResult alltoallv(struct coll *o, const void *sendBuf, const uint64_t *sc,
			    const uint64_t *sd, HcclDataType st, const void *recvBuf,
			    const uint64_t *rc, const uint64_t *rd, HcclDataType rt)
{
	struct a2a a = { sendBuf, (uint8_t *)(uintptr_t)recvBuf, sc, sd, rc, rd,
			 hccl_dtype_size(st) };
	HcclResult err;

	if (!sc || !sd || !rc || !rd)
		return hccl_fail(o->func, HCCL_E_PTR, "counts and displacements must not be NULL");
	err = a2a_check(o, &a, st, rt);
	return err ? err : alltoall_run(o, &a);
}

HCCL_EXPORT HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts,
				     const void *sdispls, HcclDataType sendType, const void *recvBuf,
				     const void *recvCounts, const void *rdispls,
				     HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, alltoallv(&o, sendBuf, sendCounts, sdispls, sendType, recvBuf,
				      recvCounts, rdispls, recvType));
}

/* Counts and displacements for every rank, packed: *v holds 4 arrays of n. */
static HcclResult a2a_arrays(struct coll *o, uint64_t **v)
{
	*v = calloc(4 * (size_t)o->c->nranks, sizeof(**v));
	return *v ? HCCL_SUCCESS : hccl_fail(o->func, HCCL_E_MEMORY, "out of host memory");
}

static HcclResult alltoall(struct coll *o, const void *sendBuf, uint64_t sendCount,
			   HcclDataType st, const void *recvBuf, uint64_t recvCount, HcclDataType rt)
{
	uint32_t n = o->c->nranks;
	uint64_t *v;
	HcclResult err = a2a_arrays(o, &v);

	if (err)
		return err;
	for (uint32_t i = 0; i < n; i++) {
		v[i] = sendCount;
		v[n + i] = sendCount * i;
		v[2 * n + i] = recvCount;
		v[3 * n + i] = recvCount * i;
	}
	err = alltoallv(o, sendBuf, v, v + n, st, recvBuf, v + 2 * n, v + 3 * n, rt);
	free(v);
	return err;
}

HCCL_EXPORT HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
				    const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
				    HcclComm comm, aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, alltoall(&o, sendBuf, sendCount, sendType, recvBuf, recvCount,
				     recvType));
}

static HcclResult alltoallvc(struct coll *o, const void *sendBuf, const uint64_t *m,
			     HcclDataType st, const void *recvBuf, HcclDataType rt)
{
	uint32_t n = o->c->nranks, me = o->c->rank;
	uint64_t *v, so = 0, ro = 0;
	HcclResult err;

	if (!m)
		return hccl_fail(o->func, HCCL_E_PTR, "sendCountMatrix is NULL");
	err = a2a_arrays(o, &v);
	if (err)
		return err;
	for (uint32_t i = 0; i < n; i++) {
		v[i] = m[(uint64_t)me * n + i];
		v[n + i] = so;
		so += v[i];
		v[2 * n + i] = m[(uint64_t)i * n + me];
		v[3 * n + i] = ro;
		ro += v[2 * n + i];
	}
	err = alltoallv(o, sendBuf, v, v + n, st, recvBuf, v + 2 * n, v + 3 * n, rt);
	free(v);
	return err;
}

HCCL_EXPORT HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix,
				      HcclDataType sendType, const void *recvBuf,
				      HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, alltoallvc(&o, sendBuf, sendCountMatrix, sendType, recvBuf, recvType));
}

/* An empty message to every other rank and one from each, on the cards. */
static HcclResult barrier(struct coll *o)
{
	uint32_t n = o->c->nranks, me = o->c->rank;
	HcclResult err = HCCL_SUCCESS;

	for (uint32_t k = 1; k < n && !err; k++) {
		uint32_t to = (me + k) % n, from = (me + n - k) % n;
		struct hccl_link *l = o->c->links[from];
		const void *slot;

		err = coll_send_bytes(o, to, NULL, 0);
		if (!err)
			err = l->ops->recv(l, &slot, 0, o->s);
		if (!err)
			err = l->ops->recv_done(l, o->s);
	}
	return err;
}

HCCL_EXPORT HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
	struct coll o;
	HcclResult err = coll_begin(&o, __func__, comm, stream);

	if (err)
		return err;
	return coll_end(&o, barrier(&o));
}
