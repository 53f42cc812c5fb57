// SPDX-License-Identifier: MIT
/*
 * The card link between two ranks of one host: each rank owns a region of
 * its card's memory per peer, which the peer's card writes through its
 * peer window (the card-to-card signal of the plan):
 *
 *	+0	data word: the peer's sends so far (the peer writes it)
 *	+64	free word: this rank's sends the peer has released (the peer
 *		writes it)
 *	+4096	nslots slots of slot_size bytes: the peer's sends land here
 *
 * A send waits on its own card for a free slot (its free word), copies
 * into the peer's slot with its card's DMA and then writes the peer's data
 * word; a receive waits on its own card for its data word. Writes go
 * across the window, waits poll local memory. Everything is queued on the
 * caller's stream; no host thread takes part.
 *
 * The region goes to a peer in another process as a dma-buf over the
 * ranks' unix socket; to a peer in this process by peer access.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hccl_internal.h"
#include "npu_acl_share.h"

#define DATA_OFF	0
#define FREE_OFF	64
#define SLOTS_OFF	4096
#define LINK_SLOTS	4

struct card_link {
	struct hccl_link base;
	struct hccl_comm *c;
	uint8_t *local;		/* this rank's region (device address) */
	uint64_t remote;	/* the peer's region for this rank */
	void *mapping;		/* the peer's region mapped here, another process */
	uint64_t sent, received, released;
};

/* What a rank tells its peer of the region it keeps for it. */
struct region_msg {
	uint64_t base, size;	/* the allocation, as exported */
	uint64_t region;	/* the region's address in it */
};

static struct card_link *card(struct hccl_link *l)
{
	return (struct card_link *)l;
}

static uint8_t *slot_at(uint8_t *region, const struct hccl_link *l, uint64_t n)
{
	return region + SLOTS_OFF + ((n - 1) % l->nslots) * l->slot_size;
}

static HcclResult acl_ok(const char *what, aclError e)
{
	return e ? hccl_acl_fail("hccl card link", e, what) : HCCL_SUCCESS;
}

static HcclResult card_send(struct hccl_link *l, const void *src, uint64_t len, aclrtStream s)
{
	struct card_link *k = card(l);
	uint64_t n = k->sent + 1;
	uint8_t *remote = (uint8_t *)(uintptr_t)k->remote;
	HcclResult err = HCCL_SUCCESS;

	if (len > l->slot_size)
		return HCCL_FAIL(HCCL_E_INTERNAL, "a send of %llu bytes is over the slot's %llu",
				 (unsigned long long)len, (unsigned long long)l->slot_size);
	if (n > l->nslots)
		err = acl_ok("waiting for a free slot", aclrtValueWait(k->local + FREE_OFF,
			     n - l->nslots, ACL_STREAM_WAIT_VALUE_GEQ, s));
	if (!err && len)
		err = acl_ok("copying to the peer", aclrtMemcpyAsync(slot_at(remote, l, n), len, src,
			     len, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	if (!err)
		err = acl_ok("signalling the peer", aclrtValueWrite(remote + DATA_OFF, n, 0, s));
	if (!err)
		k->sent = n;
	return err;
}

static HcclResult card_recv(struct hccl_link *l, const void **slot, uint64_t len, aclrtStream s)
{
	struct card_link *k = card(l);
	uint64_t n = k->received + 1;
	HcclResult err;

	if (len > l->slot_size)
		return HCCL_FAIL(HCCL_E_INTERNAL, "a receive of %llu bytes is over the slot's %llu",
				 (unsigned long long)len, (unsigned long long)l->slot_size);
	err = acl_ok("waiting for the peer's data", aclrtValueWait(k->local + DATA_OFF, n,
		     ACL_STREAM_WAIT_VALUE_GEQ, s));
	if (!err) {
		k->received = n;
		*slot = slot_at(k->local, l, n);
	}
	return err;
}

static HcclResult card_recv_done(struct hccl_link *l, aclrtStream s)
{
	struct card_link *k = card(l);
	uint8_t *remote = (uint8_t *)(uintptr_t)k->remote;
	HcclResult err;

	err = acl_ok("releasing a slot", aclrtValueWrite(remote + FREE_OFF, k->released + 1, 0, s));
	if (!err)
		k->released++;
	return err;
}

/* Called with the comm's context current, after its streams are drained. */
static void card_close(struct hccl_link *l)
{
	struct card_link *k = card(l);

	npu_acl_mem_unmap_fd(k->mapping);
	aclrtFree(k->local);
	free(k);
}

static const struct hccl_link_ops card_ops = {
	.name = "card",
	.send = card_send,
	.recv = card_recv,
	.recv_done = card_recv_done,
	.close = card_close,
};

/* Hands the peer our region: a dma-buf with where the region lies. */
static HcclResult offer_region(struct hccl_comm *c, uint32_t peer, struct card_link *k)
{
	struct region_msg m = { .region = (uintptr_t)k->local };
	aclError e;
	int fd, ret;

	e = npu_acl_mem_export_fd(k->local, &fd, &m.base, &m.size);
	if (e)
		return hccl_acl_fail(__func__, e, "exporting the link's memory");
	ret = hccl_send_fd(c->peer_fd[peer], fd, &m, sizeof(m));
	close(fd);
	if (ret)
		return HCCL_FAIL(HCCL_E_SYSCALL, "rank %u: passing its link memory to rank %u failed",
				 c->rank, peer);
	return HCCL_SUCCESS;
}

/* The peer's region for us, reachable from our card. */
static HcclResult take_region(struct hccl_comm *c, uint32_t peer, struct card_link *k)
{
	int timeout = (int)hccl_env_long("HCCL_CONNECT_TIMEOUT", 120, 1, 7200) * 1000;
	struct region_msg m;
	aclError e = ACL_SUCCESS;
	int32_t st = 0;
	int fd, ret;

	ret = hccl_recv_fd(c->peer_fd[peer], &fd, &m, sizeof(m), timeout);
	if (ret)
		return HCCL_FAIL(ret == -ETIMEDOUT ? HCCL_E_TIMEOUT : HCCL_E_SYSCALL,
				 "rank %u: rank %u's link memory did not come: %s", c->rank, peer,
				 strerror(-ret));
	k->remote = m.region;
	if (c->ranks[peer].pid != c->ranks[c->rank].pid)
		e = npu_acl_mem_map_fd(fd, m.base, m.size, &k->mapping);
	else if (!aclrtDevicePeerAccessStatus(c->device, c->ranks[peer].device, &st) && !st)
		e = aclrtDeviceEnablePeerAccess(c->ranks[peer].device, 0);
	close(fd);
	return e ? hccl_acl_fail(__func__, e, "reaching the peer's card") : HCCL_SUCCESS;
}

/* The first half of opening: our region, offered to the peer. */
HcclResult hccl_link_card_offer(struct hccl_comm *c, uint32_t peer, struct hccl_link **out)
{
	struct card_link *k = calloc(1, sizeof(*k));
	uint64_t size = SLOTS_OFF + LINK_SLOTS * c->slot_size;
	HcclResult err;
	aclError e;

	if (!k)
		return HCCL_FAIL(HCCL_E_MEMORY, "out of host memory");
	k->base.ops = &card_ops;
	k->base.peer_rank = peer;
	k->base.slot_size = c->slot_size;
	k->base.nslots = LINK_SLOTS;
	k->c = c;
	e = aclrtMalloc((void **)&k->local, size, ACL_MEM_MALLOC_HUGE_FIRST);
	if (!e)
		e = aclrtMemset(k->local, SLOTS_OFF, 0, SLOTS_OFF);
	if (e) {
		if (k->local)
			aclrtFree(k->local);
		free(k);
		return hccl_acl_fail(__func__, e, "allocating the link's memory");
	}
	err = offer_region(c, peer, k);
	if (err) {
		card_close(&k->base);
		return err;
	}
	*out = &k->base;
	return HCCL_SUCCESS;
}

/* The second half: the peer's region, once it offered it. */
HcclResult hccl_link_card_accept(struct hccl_comm *c, struct hccl_link *l)
{
	return take_region(c, l->peer_rank, card(l));
}
