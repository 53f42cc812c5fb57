// SPDX-License-Identifier: MIT
/*
 * The link to a rank on another host: the UCX link (link_ucx.c). Each
 * rank opens its UCX worker before the bootstrap, whose per-rank blob
 * carries the worker's address; a rank that could not open one (no
 * network) can still join communicators within its host. A root on a
 * loopback address is reached from its host only, so then no rank opens
 * UCX at all (nor has its threads and signal handlers).
 *
 * The monitor asks the links' health here: with no unix socket to a peer
 * on another host, UCX's endpoint (its error callback, called as the
 * monitor progresses the worker) is what says that the peer's process is
 * gone.
 */
#include <netinet/in.h>
#include <string.h>
#include "hccl_internal.h"
#include "link_ucx.h"

/* Messages in flight each way before a sender waits. */
#define REMOTE_SLOTS 2

void hccl_remote_prepare(struct hccl_comm *c, const struct hccl_root *root,
			 struct hccl_rank_info *mine)
{
	const void *blob;
	size_t len;

	if (ntohl(root->ipv4) >> 24 == IN_LOOPBACKNET)
		return;
	if (hccl_ucx_create(c->rank, (uint32_t)c->exec_timeout_s, &c->ucx, &blob, &len))
		return;
	if (len > sizeof(mine->blob)) {
		hccl_ucx_destroy(c->ucx);
		c->ucx = NULL;
		return;
	}
	memcpy(mine->blob, blob, len);
	mine->blob_len = (uint32_t)len;
}

void hccl_remote_close(struct hccl_comm *c)
{
	hccl_ucx_destroy(c->ucx);
	c->ucx = NULL;
}

HcclResult hccl_link_remote_open(struct hccl_comm *c, uint32_t peer, struct hccl_link **out)
{
	const struct hccl_rank_info *p = &c->ranks[peer];
	HcclResult err;

	if (!c->ucx || !p->blob_len || p->blob_len > sizeof(p->blob))
		return HCCL_FAIL(HCCL_E_NOT_SUPPORT, "rank %u is on another host than rank %u, and "
				 "%s has no UCX worker (is the network up?)", peer, c->rank,
				 c->ucx ? "it" : "this rank");
	err = hccl_link_ucx_open(c->ucx, peer, p->blob, p->blob_len, c->slot_size, REMOTE_SLOTS,
				 out);
	if (err)
		return HCCL_FAIL(err, "opening the UCX link from rank %u to rank %u failed", c->rank,
				 peer);
	return HCCL_SUCCESS;
}

/* The open UCX link to r, or NULL (r is on this host, or this rank). */
static struct hccl_link *ucx_link(const struct hccl_comm *c, uint32_t r)
{
	if (!c->ucx || r == c->rank || !strcmp(c->ranks[r].host_id, c->ranks[c->rank].host_id))
		return NULL;
	return c->links[r];
}

HcclResult hccl_remote_health(struct hccl_comm *c, uint32_t *peer)
{
	HcclResult err;
	uint32_t r;

	if (!c->ucx)
		return HCCL_SUCCESS;
	hccl_ucx_progress(c->ucx);
	for (r = 0; r < c->nranks; r++) {
		if (!ucx_link(c, r))
			continue;
		err = hccl_link_ucx_error(c->links[r]);
		if (err != HCCL_SUCCESS) {
			*peer = r;
			return err;
		}
	}
	return HCCL_SUCCESS;
}

void hccl_remote_fail(struct hccl_comm *c, HcclResult err)
{
	for (uint32_t r = 0; r < c->nranks; r++)
		if (ucx_link(c, r))
			hccl_link_ucx_fail(c->links[r], err);
}

void hccl_remote_goodbye(struct hccl_comm *c)
{
	/* in rank order on every rank, and each goodbye is sent before it waits */
	for (uint32_t r = 0; r < c->nranks; r++)
		if (ucx_link(c, r))
			hccl_link_ucx_goodbye(c->links[r]);
}
