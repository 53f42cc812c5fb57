// SPDX-License-Identifier: MIT
/*
 * The link between ranks on different hosts (link_ucx.h).
 *
 * A send is, on the caller's stream: the card copies the message into a
 * host staging slot, then a host function hands the slot to UCX and
 * progresses the worker until UCX is done with it. A receive: a host
 * function posts the tag receive into a host slot and progresses until it
 * completes, then the card copies it into the link's device slot. Host
 * functions block their stream, so the stream's order is the messages'
 * order, and the copies never race UCX for a slot.
 *
 * A transfer that fails (the peer gone, HCCL_EXEC_TIMEOUT, the link
 * failed by hccl_link_ucx_fail) stops its stream (aclrtStreamStop): what
 * follows on the stream would read a slot that never arrived, so its
 * synchronization fails instead of completing with stale data.
 *
 * Every message is eager (RNDV_THRESH=inf): a send completes once UCX has
 * taken the bytes, whether or not the peer has posted its receive yet, so
 * two ranks that send to each other first and receive second cannot wait
 * on each other. Tags name the sender and the message's number on the
 * link, so messages from several peers never match the wrong receive.
 */
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucp/api/ucp.h>
#include "link_ucx.h"

struct hccl_ucx {
	ucp_context_h context;
	ucp_worker_h worker;
	ucp_address_t *address;
	size_t address_len;
	int wakeup_fd;		/* -1: poll the worker without sleeping */
	uint32_t rank;
	uint32_t timeout_s;
};

struct link_ucx {
	struct hccl_link base;
	struct hccl_ucx *ucx;
	ucp_ep_h ep;
	void **tx_host;		/* nslots staging slots each */
	void **rx_host;
	void **rx_dev;
	uint32_t send_seq;	/* messages enqueued so far, each way */
	uint32_t recv_seq;
	_Atomic HcclResult error;
	/*
	 * The transfers enqueued and not yet finished: a stopped stream drops
	 * its host functions unrun, so close frees what is left, once no
	 * host function runs any more.
	 */
	pthread_mutex_t lock;
	pthread_cond_t idle;
	struct ucx_transfer *pending;
	uint32_t running;
};

/* What one host function does. */
struct ucx_transfer {
	struct ucx_transfer *next;	/* in the link's pending list */
	struct link_ucx *link;
	aclrtStream stream;
	void *buf;
	uint64_t len;
	ucp_tag_t tag;
	uint64_t received;	/* bytes a receive got */
};

#define UCX_TAG_MASK_ALL UINT64_MAX

static ucp_tag_t message_tag(uint32_t sender, uint32_t seq)
{
	return (ucp_tag_t)sender << 32 | seq;
}

/* Outside every message's tag: ranks are below 2^31. */
static ucp_tag_t goodbye_tag(uint32_t sender)
{
	return 1ULL << 63 | (ucp_tag_t)sender << 32;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void note_error(struct link_ucx *l, HcclResult err)
{
	HcclResult none = HCCL_SUCCESS;

	atomic_compare_exchange_strong(&l->error, &none, err);
}

/* Sleeps on the worker's event fd when there is nothing to progress. */
static void idle(struct hccl_ucx *ucx)
{
	struct pollfd pfd = { .fd = ucx->wakeup_fd, .events = POLLIN };

	if (ucx->wakeup_fd < 0 || ucp_worker_arm(ucx->worker) != UCS_OK)
		return;
	/* A bounded sleep: the deadline is checked between them. */
	poll(&pfd, 1, 100);
}

/* Progresses until req is done; a request UCX completed at once is NULL. */
static HcclResult wait_request(struct link_ucx *l, void *req)
{
	double deadline = l->ucx->timeout_s ? now_s() + l->ucx->timeout_s : INFINITY;
	ucs_status_t st;

	if (req == NULL)
		return HCCL_SUCCESS;
	if (UCS_PTR_IS_ERR(req))
		return HCCL_E_NETWORK;
	while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
		HcclResult failed = atomic_load(&l->error);

		if (ucp_worker_progress(l->ucx->worker))
			continue;
		/* A receive waits on the worker, not on the endpoint that failed. */
		if (failed == HCCL_SUCCESS && now_s() > deadline)
			failed = HCCL_E_TIMEOUT;
		if (failed != HCCL_SUCCESS) {
			ucp_request_cancel(l->ucx->worker, req);
			while (ucp_request_check_status(req) == UCS_INPROGRESS)
				ucp_worker_progress(l->ucx->worker);
			ucp_request_free(req);
			return failed;
		}
		idle(l->ucx);
	}
	ucp_request_free(req);
	return st == UCS_OK ? HCCL_SUCCESS : HCCL_E_NETWORK;
}

static void transfer_start(struct ucx_transfer *t)
{
	struct link_ucx *l = t->link;
	struct ucx_transfer **pp;

	pthread_mutex_lock(&l->lock);
	for (pp = &l->pending; *pp != t; pp = &(*pp)->next)
		;
	*pp = t->next;
	l->running++;
	pthread_mutex_unlock(&l->lock);
}

/* Stops the stream of a transfer that failed; frees the transfer. */
static void transfer_end(struct ucx_transfer *t, HcclResult err)
{
	struct link_ucx *l = t->link;

	note_error(l, err);
	if (atomic_load(&l->error) != HCCL_SUCCESS)
		aclrtStreamStop(t->stream);
	pthread_mutex_lock(&l->lock);
	if (!--l->running)
		pthread_cond_broadcast(&l->idle);
	pthread_mutex_unlock(&l->lock);
	free(t);
}

/* The length a receive got. */
static void received(void *req, ucs_status_t status, const ucp_tag_recv_info_t *info, void *arg)
{
	struct ucx_transfer *t = arg;

	(void)req;
	if (status == UCS_OK)
		t->received = info->length;
}

static void send_on_stream(void *arg)
{
	struct ucx_transfer *t = arg;
	struct link_ucx *l = t->link;
	ucp_request_param_t param = { 0 };
	HcclResult err = HCCL_SUCCESS;
	void *req;

	transfer_start(t);
	if (atomic_load(&l->error) == HCCL_SUCCESS) {
		req = ucp_tag_send_nbx(l->ep, t->buf, t->len, t->tag, &param);
		err = wait_request(l, req);
	}
	transfer_end(t, err);
}

static void recv_on_stream(void *arg)
{
	struct ucx_transfer *t = arg;
	struct link_ucx *l = t->link;
	/*
	 * Always through the callback: UCX 1.13 leaves recv_info unfilled when
	 * a receive matches a message already there.
	 */
	ucp_request_param_t param = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
				UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
		.cb.recv = received,
		.user_data = t,
	};
	HcclResult err = HCCL_SUCCESS;
	void *req;

	transfer_start(t);
	if (atomic_load(&l->error) == HCCL_SUCCESS) {
		req = ucp_tag_recv_nbx(l->ucx->worker, t->buf, t->len, t->tag, UCX_TAG_MASK_ALL,
				       &param);
		err = wait_request(l, req);
		/* Both sides name the length: a mismatch is a protocol error. */
		if (err == HCCL_SUCCESS && t->received != t->len)
			err = HCCL_E_INTERNAL;
	}
	transfer_end(t, err);
}

static HcclResult enqueue(struct link_ucx *l, aclrtHostFunc fn, void *buf, uint64_t len,
			  ucp_tag_t tag, aclrtStream s)
{
	struct ucx_transfer *t = malloc(sizeof(*t));

	if (!t)
		return HCCL_E_MEMORY;
	*t = (struct ucx_transfer){ .link = l, .stream = s, .buf = buf, .len = len, .tag = tag };
	pthread_mutex_lock(&l->lock);
	t->next = l->pending;
	l->pending = t;
	pthread_mutex_unlock(&l->lock);
	if (aclrtLaunchHostFunc(s, fn, t) != ACL_SUCCESS) {
		transfer_start(t);
		transfer_end(t, HCCL_SUCCESS);
		return HCCL_E_RUNTIME;
	}
	return HCCL_SUCCESS;
}

static struct link_ucx *to_ucx(struct hccl_link *link)
{
	return (struct link_ucx *)link;
}

static HcclResult link_usable(struct link_ucx *l, uint64_t len)
{
	HcclResult err = atomic_load(&l->error);

	if (err != HCCL_SUCCESS)
		return err;
	return len <= l->base.slot_size ? HCCL_SUCCESS : HCCL_E_PARA;
}

static HcclResult ucx_send(struct hccl_link *link, const void *src, uint64_t len, aclrtStream s)
{
	struct link_ucx *l = to_ucx(link);
	uint32_t seq = l->send_seq;
	void *slot = l->tx_host[seq % l->base.nslots];
	HcclResult err = link_usable(l, len);

	if (err != HCCL_SUCCESS)
		return err;
	if (len && aclrtMemcpyAsync(slot, len, src, len, ACL_MEMCPY_DEVICE_TO_HOST, s) != ACL_SUCCESS)
		return HCCL_E_RUNTIME;
	err = enqueue(l, send_on_stream, slot, len, message_tag(l->ucx->rank, seq), s);
	if (err == HCCL_SUCCESS)
		l->send_seq++;
	return err;
}

static HcclResult ucx_recv(struct hccl_link *link, const void **slot, uint64_t len, aclrtStream s)
{
	struct link_ucx *l = to_ucx(link);
	uint32_t seq = l->recv_seq, i = seq % l->base.nslots;
	HcclResult err = link_usable(l, len);

	if (err != HCCL_SUCCESS)
		return err;
	err = enqueue(l, recv_on_stream, l->rx_host[i], len, message_tag(link->peer_rank, seq), s);
	if (err != HCCL_SUCCESS)
		return err;
	l->recv_seq++;
	if (len && aclrtMemcpyAsync(l->rx_dev[i], len, l->rx_host[i], len, ACL_MEMCPY_HOST_TO_DEVICE,
				    s) != ACL_SUCCESS)
		return HCCL_E_RUNTIME;
	*slot = l->rx_dev[i];
	return HCCL_SUCCESS;
}

/* The next receive into a slot is ordered after its users on the stream. */
static HcclResult ucx_recv_done(struct hccl_link *link, aclrtStream s)
{
	(void)s;
	return atomic_load(&to_ucx(link)->error);
}

static void free_slots(void **slots, uint32_t n, aclError (*release)(void *))
{
	uint32_t i;

	if (!slots)
		return;
	for (i = 0; i < n; i++)
		if (slots[i])
			release(slots[i]);
	free(slots);
}

static void close_endpoint(struct link_ucx *l)
{
	ucp_request_param_t param = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
		.flags = UCP_EP_CLOSE_FLAG_FORCE,
	};
	void *req;

	if (!l->ep)
		return;
	req = ucp_ep_close_nbx(l->ep, &param);
	if (req && !UCS_PTR_IS_ERR(req)) {
		while (ucp_request_check_status(req) == UCS_INPROGRESS)
			ucp_worker_progress(l->ucx->worker);
		ucp_request_free(req);
	}
}

/* After the transfers still running; those never run (their stream stopped) are freed. */
static void drain_transfers(struct link_ucx *l)
{
	struct ucx_transfer *t;

	pthread_mutex_lock(&l->lock);
	while (l->running)
		pthread_cond_wait(&l->idle, &l->lock);
	while ((t = l->pending)) {
		l->pending = t->next;
		free(t);
	}
	pthread_mutex_unlock(&l->lock);
}

static void ucx_close(struct hccl_link *link)
{
	struct link_ucx *l = to_ucx(link);
	uint32_t n = link->nslots;

	/* A host function still waiting gives up now. */
	note_error(l, HCCL_E_INTERNAL);
	drain_transfers(l);
	close_endpoint(l);
	free_slots(l->tx_host, n, aclrtFreeHost);
	free_slots(l->rx_host, n, aclrtFreeHost);
	free_slots(l->rx_dev, n, aclrtFree);
	pthread_cond_destroy(&l->idle);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

static const struct hccl_link_ops ucx_link_ops = {
	.name = "ucx",
	.send = ucx_send,
	.recv = ucx_recv,
	.recv_done = ucx_recv_done,
	.close = ucx_close,
};

static aclError malloc_device(void **p, size_t size)
{
	return aclrtMalloc(p, size, ACL_MEM_MALLOC_HUGE_FIRST);
}

static HcclResult alloc_slots(void ***slots, uint32_t n, uint64_t size,
			      aclError (*alloc)(void **, size_t))
{
	uint32_t i;

	*slots = calloc(n, sizeof(**slots));
	if (!*slots)
		return HCCL_E_MEMORY;
	for (i = 0; i < n; i++)
		if (alloc(&(*slots)[i], size) != ACL_SUCCESS)
			return HCCL_E_MEMORY;
	return HCCL_SUCCESS;
}

/* A peer that dies fails the link's transfers instead of hanging them. */
static void peer_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	(void)ep;
	(void)status;
	note_error(arg, HCCL_E_NETWORK);
}

static HcclResult open_endpoint(struct link_ucx *l, const void *peer_blob)
{
	ucp_ep_params_t params = {
		.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
			      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER,
		.address = peer_blob,
		.err_mode = UCP_ERR_HANDLING_MODE_PEER,
		.err_handler = { .cb = peer_failed, .arg = l },
	};

	return ucp_ep_create(l->ucx->worker, &params, &l->ep) == UCS_OK ? HCCL_SUCCESS :
									  HCCL_E_NETWORK;
}

HcclResult hccl_link_ucx_open(struct hccl_ucx *ucx, uint32_t peer_rank, const void *peer_blob,
			      size_t peer_blob_len, uint64_t slot_size, uint32_t nslots,
			      struct hccl_link **link)
{
	struct link_ucx *l;
	HcclResult err;

	if (!ucx || !peer_blob || !peer_blob_len || !slot_size || !nslots || !link)
		return HCCL_E_PARA;
	l = calloc(1, sizeof(*l));
	if (!l)
		return HCCL_E_MEMORY;
	l->base = (struct hccl_link){ .ops = &ucx_link_ops, .peer_rank = peer_rank,
				      .slot_size = slot_size, .nslots = nslots };
	l->ucx = ucx;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->idle, NULL);
	err = alloc_slots(&l->tx_host, nslots, slot_size, aclrtMallocHost);
	if (err == HCCL_SUCCESS)
		err = alloc_slots(&l->rx_host, nslots, slot_size, aclrtMallocHost);
	if (err == HCCL_SUCCESS)
		err = alloc_slots(&l->rx_dev, nslots, slot_size, malloc_device);
	if (err == HCCL_SUCCESS)
		err = open_endpoint(l, peer_blob);
	if (err != HCCL_SUCCESS) {
		ucx_close(&l->base);
		return err;
	}
	*link = &l->base;
	return HCCL_SUCCESS;
}

HcclResult hccl_link_ucx_error(struct hccl_link *link)
{
	return atomic_load(&to_ucx(link)->error);
}

HcclResult hccl_link_ucx_goodbye(struct hccl_link *link)
{
	struct link_ucx *l = to_ucx(link);
	ucp_request_param_t param = { 0 };
	uint8_t mine = 1, theirs = 0;
	HcclResult sent, heard;
	void *rreq;

	if (atomic_load(&l->error) != HCCL_SUCCESS)
		return atomic_load(&l->error);
	rreq = ucp_tag_recv_nbx(l->ucx->worker, &theirs, 1, goodbye_tag(link->peer_rank),
				UCX_TAG_MASK_ALL, &param);
	sent = wait_request(l, ucp_tag_send_nbx(l->ep, &mine, 1, goodbye_tag(l->ucx->rank),
						&param));
	heard = wait_request(l, rreq);
	return sent != HCCL_SUCCESS ? sent : heard;
}

void hccl_link_ucx_fail(struct hccl_link *link, HcclResult err)
{
	note_error(to_ucx(link), err);
}

void hccl_ucx_progress(struct hccl_ucx *ucx)
{
	if (ucx)
		while (ucp_worker_progress(ucx->worker))
			;
}

static HcclResult open_context(struct hccl_ucx *ucx)
{
	ucp_params_t params = {
		.field_mask = UCP_PARAM_FIELD_FEATURES,
		.features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP,
	};
	ucp_config_t *config;
	ucs_status_t st;

	if (ucp_config_read(NULL, NULL, &config) != UCS_OK)
		return HCCL_E_NETWORK;
	st = ucp_config_modify(config, "RNDV_THRESH", "inf");
	if (st == UCS_OK)
		st = ucp_init(&params, config, &ucx->context);
	ucp_config_release(config);
	return st == UCS_OK ? HCCL_SUCCESS : HCCL_E_NETWORK;
}

/*
 * The network part of the address only: peers on other hosts reach us
 * through it, and it is a fraction of the size of one naming shared
 * memory too (the bootstrap's blob is small).
 */
static HcclResult worker_address(struct hccl_ucx *ucx)
{
	ucp_worker_attr_t attr = {
		.field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS | UCP_WORKER_ATTR_FIELD_ADDRESS_FLAGS,
		.address_flags = UCP_WORKER_ADDRESS_FLAG_NET_ONLY,
	};

	if (ucp_worker_query(ucx->worker, &attr) != UCS_OK)
		return HCCL_E_NETWORK;
	ucx->address = attr.address;
	ucx->address_len = attr.address_length;
	return HCCL_SUCCESS;
}

static HcclResult open_worker(struct hccl_ucx *ucx)
{
	/* Host functions and the caller's thread both use the worker. */
	ucp_worker_params_t params = {
		.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
		.thread_mode = UCS_THREAD_MODE_MULTI,
	};

	if (ucp_worker_create(ucx->context, &params, &ucx->worker) != UCS_OK)
		return HCCL_E_NETWORK;
	if (ucp_worker_get_efd(ucx->worker, &ucx->wakeup_fd) != UCS_OK)
		ucx->wakeup_fd = -1;
	return worker_address(ucx);
}

HcclResult hccl_ucx_create(uint32_t rank, uint32_t timeout_s, struct hccl_ucx **out,
			   const void **blob, size_t *blob_len)
{
	struct hccl_ucx *ucx;
	HcclResult err;

	if (!out || !blob || !blob_len)
		return HCCL_E_PARA;
	ucx = calloc(1, sizeof(*ucx));
	if (!ucx)
		return HCCL_E_MEMORY;
	ucx->rank = rank;
	ucx->timeout_s = timeout_s;
	ucx->wakeup_fd = -1;
	err = open_context(ucx);
	if (err == HCCL_SUCCESS)
		err = open_worker(ucx);
	if (err != HCCL_SUCCESS) {
		hccl_ucx_destroy(ucx);
		return err;
	}
	*out = ucx;
	*blob = ucx->address;
	*blob_len = ucx->address_len;
	return HCCL_SUCCESS;
}

void hccl_ucx_destroy(struct hccl_ucx *ucx)
{
	if (!ucx)
		return;
	if (ucx->address)
		ucp_worker_release_address(ucx->worker, ucx->address);
	if (ucx->worker)
		ucp_worker_destroy(ucx->worker);
	if (ucx->context)
		ucp_cleanup(ucx->context);
	free(ucx);
}
