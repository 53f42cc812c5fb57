/* SPDX-License-Identifier: MIT */
/*
 * What the collectives share: an operation's begin and end (the
 * communicator checked, its context current, its completion watched),
 * argument checks, and moving messages of any length through a link's
 * slots in pieces.
 */
#ifndef HCCL_COLL_H
#define HCCL_COLL_H

#include "hccl_internal.h"

struct coll {
	const char *func;
	struct hccl_comm *c;
	aclrtStream s;
	aclrtContext prev;
	bool queued;		/* something reached the stream: a failure breaks the comm */
};

HcclResult coll_begin(struct coll *o, const char *func, HcclComm comm, aclrtStream s);
HcclResult coll_end(struct coll *o, HcclResult err);

/* buf is device memory of len bytes (NULL only when len is 0). */
HcclResult coll_check_buf(struct coll *o, const char *what, const void *buf, uint64_t len);
/* t is a type of the header: its size, else 0 (error recorded). */
size_t coll_check_type(struct coll *o, HcclDataType t);
HcclResult coll_check_rank(struct coll *o, const char *what, uint32_t r);

/* Pieces that len bytes take on a link of c: 0 for 0. */
uint64_t coll_pieces(const struct coll *o, uint64_t len);
/* Bytes of piece p of a message of len bytes. */
uint64_t coll_piece_len(const struct coll *o, uint64_t len, uint64_t p);

/* n bytes at src (one piece at most) to rank to. */
HcclResult coll_send_bytes(struct coll *o, uint32_t to, const void *src, uint64_t n);
/* Piece p of src (len bytes) to rank to. */
HcclResult coll_send(struct coll *o, uint32_t to, const uint8_t *src, uint64_t len, uint64_t p);
/* Piece p of the message from rank from, copied into dst (len bytes in all). */
HcclResult coll_recv_copy(struct coll *o, uint32_t from, uint8_t *dst, uint64_t len, uint64_t p);
/* Piece p received from rank from, reduced: dst = a op slot; then released. */
HcclResult coll_recv_reduce(struct coll *o, uint32_t from, void *dst, const void *a, uint64_t count,
			    HcclDataType t, HcclReduceOp op);

#endif
