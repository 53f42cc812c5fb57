/* SPDX-License-Identifier: MIT */
/*
 * The link between two ranks that the algorithms use. Every call enqueues
 * work on the stream and returns: no host thread sits in the data path of
 * a card-to-card link. A link carries a stream of messages in order; each
 * message lands in one of the receiver's slots (slot_size bytes, nslots of
 * them), so a sender blocks on the card, not on the host, when the
 * receiver has not yet released a slot.
 */
#ifndef HCCL_LINK_H
#define HCCL_LINK_H

#include <stdint.h>
#include <acl/acl.h>
#include <hccl/hccl_types.h>

struct hccl_link;

struct hccl_link_ops {
	const char *name;
	/* src (device) -> the peer's next receive slot; len <= slot size */
	HcclResult (*send)(struct hccl_link *l, const void *src, uint64_t len, aclrtStream s);
	/* waits for the peer's next send and hands its device address
	 * (valid until recv_done) */
	HcclResult (*recv)(struct hccl_link *l, const void **slot, uint64_t len, aclrtStream s);
	/* the slot from the last recv may be reused by the peer */
	HcclResult (*recv_done)(struct hccl_link *l, aclrtStream s);
	void (*close)(struct hccl_link *l);
};

/* What every link kind embeds first; the algorithms read only this. */
struct hccl_link {
	const struct hccl_link_ops *ops;
	uint32_t peer_rank;
	uint64_t slot_size;	/* bytes one send may carry */
	uint32_t nslots;	/* sends in flight before the sender waits */
};

#endif /* HCCL_LINK_H */
