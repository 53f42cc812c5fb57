/* SPDX-License-Identifier: MIT */
/*
 * libhccl's insides: a communicator, its ranks and links, and what the
 * parts (bootstrap, links, algorithms, the monitor) tell each other.
 */
#ifndef HCCL_INTERNAL_H
#define HCCL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hccl/hccl.h>
#include "link.h"

#define HCCL_EXPORT __attribute__((visibility("default")))

/* What one rank tells the others at bootstrap: control data only. */
#define HCCL_HOST_ID_LEN	64
#define HCCL_BLOB_LEN		1024
struct hccl_rank_info {
	uint32_t rank;
	int32_t pid;
	int32_t device;			/* the rank's logical device id */
	uint32_t blob_len;
	char host_id[HCCL_HOST_ID_LEN];	/* boot id: ranks alike share a host */
	uint8_t blob[HCCL_BLOB_LEN];	/* another link kind's address (UCX) */
};

/* What a root info carries, inside HcclRootInfo's opaque bytes. */
struct hccl_root {
	uint64_t magic;
	uint64_t id;			/* random: names the communicator */
	uint32_t ipv4;			/* network order */
	uint16_t port;			/* network order */
	uint16_t pad;
};

struct hccl_comm {
	uint64_t magic;
	uint64_t id;
	uint32_t rank, nranks;
	int32_t device;
	aclrtContext ctx;
	char name[COMM_NAME_MAX_LENGTH];
	struct hccl_rank_info *ranks;	/* nranks, from the bootstrap */
	int *peer_fd;			/* nranks: unix socket to a same-host peer, or -1 */
	struct hccl_link **links;	/* nranks: NULL for self */
	uint64_t slot_size;
	void *scratch;			/* slot_size bytes of device memory */
	int32_t exec_timeout_s;		/* HCCL_EXEC_TIMEOUT */
	_Atomic int async_err;		/* HcclResult */
	struct hccl_monitor *monitor;
	struct hccl_ucx *ucx;		/* links to other hosts (link_remote.c) */
	bool sets_device;		/* CommInitAll's: Destroy resets its device */
};

/* ---- errors (error.c) ------------------------------------------------- */
/* Records "func: message" for aclGetRecentErrMsg and the log; returns code. */
HcclResult hccl_fail(const char *func, HcclResult code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define HCCL_FAIL(code, ...) hccl_fail(__func__, code, __VA_ARGS__)
/* An aclError of a runtime call as HCCL_E_RUNTIME, with the runtime's message. */
HcclResult hccl_acl_fail(const char *func, int acl_err, const char *what);

/* ---- environment (error.c) ---------------------------------------------- */
/* An integer environment variable in [min, max], else def. */
long hccl_env_long(const char *name, long def, long min, long max);

/* ---- bootstrap (bootstrap.c) ------------------------------------------ */
HcclResult hccl_root_create(struct hccl_root *root);
/* A root at a place all ranks know beforehand (a rank table's). */
void hccl_root_fixed(struct hccl_root *root, uint64_t id, uint32_t ipv4, uint16_t port);
/* Serves root (its port 0: any, written back) from a thread. */
HcclResult hccl_root_serve(struct hccl_root *root);
/* Every rank's info (nranks of them, by rank) from the root, or an error. */
HcclResult hccl_bootstrap(const struct hccl_root *root, uint32_t nranks,
			  const struct hccl_rank_info *mine, struct hccl_rank_info *all);
void hccl_host_id(char *buf, size_t len);

/* ---- same-host control sockets (peer_sock.c) --------------------------- */
/* A unix socket to every other rank of this host: comm->peer_fd. */
HcclResult hccl_peer_sockets_open(struct hccl_comm *c);
void hccl_peer_sockets_close(struct hccl_comm *c);
int hccl_send_fd(int sock, int fd, const void *msg, size_t len);
int hccl_recv_fd(int sock, int *fd, void *msg, size_t len, int timeout_ms);

/* ---- links ------------------------------------------------------------ */
/*
 * The card link to a rank of this host (link_card.c), opened in two
 * halves so that every rank offers its memory to all its peers before it
 * waits for theirs.
 */
HcclResult hccl_link_card_offer(struct hccl_comm *c, uint32_t peer, struct hccl_link **out);
HcclResult hccl_link_card_accept(struct hccl_comm *c, struct hccl_link *l);
/*
 * The link to a rank of another host (link_remote.c): its transport is
 * opened before the bootstrap and puts its address in mine->blob.
 */
void hccl_remote_prepare(struct hccl_comm *c, const struct hccl_root *root,
			 struct hccl_rank_info *mine);
HcclResult hccl_link_remote_open(struct hccl_comm *c, uint32_t peer, struct hccl_link **out);
void hccl_remote_close(struct hccl_comm *c);
/*
 * For the monitor: HCCL_SUCCESS, or the first failed link to another host
 * (*peer its rank): HCCL_E_NETWORK when the peer is gone.
 */
HcclResult hccl_remote_health(struct hccl_comm *c, uint32_t *peer);
/* Fails every link to another host: their transfers waiting give up. */
void hccl_remote_fail(struct hccl_comm *c, HcclResult err);
/* Every peer on another host is done with this communicator too (HcclCommDestroy). */
void hccl_remote_goodbye(struct hccl_comm *c);

/* ---- communicators (comm.c) ------------------------------------------- */
HcclResult hccl_comm_init(const char *func, uint32_t nranks, const struct hccl_root *root,
			  uint32_t rank, const HcclCommConfig *config, HcclComm *comm);
struct hccl_comm *hccl_comm_get(const char *func, HcclComm comm, HcclResult *err);
/* Checks the stream, the comm's health and makes its context current. */
HcclResult hccl_comm_enter(const char *func, struct hccl_comm *c, aclrtStream stream);

/* ---- the card's arithmetic (reduce_card.c) ------------------------------ */
size_t hccl_dtype_size(HcclDataType t);	/* 0: not a type the header names */
const char *hccl_dtype_name(HcclDataType t);
/* Whether the card reduces t with op: HCCL_SUCCESS or the reason (recorded). */
HcclResult hccl_reduce_check(const char *func, HcclDataType t, HcclReduceOp op);
/* dst[i] = a[i] op b[i], count elements of t, queued on s. */
HcclResult hccl_reduce(void *dst, const void *a, const void *b, uint64_t count, HcclDataType t,
		       HcclReduceOp op, aclrtStream s);
/* A device-to-device copy queued on s (len may be 0). */
HcclResult hccl_copy(void *dst, const void *src, uint64_t len, aclrtStream s);

/* ---- the monitor (monitor.c) ------------------------------------------- */
HcclResult hccl_monitor_start(struct hccl_comm *c);
void hccl_monitor_stop(struct hccl_comm *c);
/* An operation was queued on s: watched until it completes. */
HcclResult hccl_monitor_track(struct hccl_comm *c, aclrtStream s);

#endif /* HCCL_INTERNAL_H */
