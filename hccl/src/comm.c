// SPDX-License-Identifier: MIT
/*
 * Communicators: made from a root info (every rank calls Init with the
 * same one), or all at once for the devices of this process; their ranks'
 * links opened at Init, closed at Destroy. Handles are checked against
 * the live communicators before use, so a stale one is an error, not a
 * crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hccl_internal.h"
#include "bootstrap_io.h"

#define COMM_MAGIC		0x48434f4d4d554e49ULL
#define DEFAULT_BUFFSIZE_MB	16	/* per link: our cards have little memory */
#define DEFAULT_EXEC_TIMEOUT_S	1836	/* the vendor's documented default */
#define MAX_EXEC_TIMEOUT_S	2147483

static pthread_mutex_t comms_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hccl_comm **comms;
static size_t ncomms;

static bool comm_add(struct hccl_comm *c)
{
	struct hccl_comm **v;

	pthread_mutex_lock(&comms_lock);
	v = realloc(comms, (ncomms + 1) * sizeof(*v));
	if (v) {
		comms = v;
		comms[ncomms++] = c;
	}
	pthread_mutex_unlock(&comms_lock);
	return v != NULL;
}

static bool comm_remove(struct hccl_comm *c)
{
	bool found = false;

	pthread_mutex_lock(&comms_lock);
	for (size_t i = 0; i < ncomms && !found; i++) {
		if (comms[i] == c) {
			comms[i] = comms[--ncomms];
			found = true;
		}
	}
	pthread_mutex_unlock(&comms_lock);
	return found;
}

struct hccl_comm *hccl_comm_get(const char *func, HcclComm comm, HcclResult *err)
{
	struct hccl_comm *c = NULL;

	pthread_mutex_lock(&comms_lock);
	for (size_t i = 0; i < ncomms && !c; i++)
		if (comms[i] == comm)
			c = comm;
	pthread_mutex_unlock(&comms_lock);
	if (!c)
		*err = hccl_fail(func, comm ? HCCL_E_PARA : HCCL_E_PTR,
				 "%p is not a live communicator", comm);
	return c;
}

HCCL_EXPORT HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
	struct hccl_root root;
	HcclResult err;

	if (!rootInfo)
		return HCCL_FAIL(HCCL_E_PTR, "rootInfo is NULL");
	err = hccl_root_create(&root);
	if (err)
		return err;
	memset(rootInfo, 0, sizeof(*rootInfo));
	memcpy(rootInfo->internal, &root, sizeof(root));
	return HCCL_SUCCESS;
}

/* The config's numbers, checked; NULL config: the environment's. */
static HcclResult apply_config(const char *func, struct hccl_comm *c, const HcclCommConfig *cfg)
{
	const HcclCommConfigInfo *info = (const HcclCommConfigInfo *)(const void *)cfg;
	long mb = hccl_env_long("HCCL_BUFFSIZE", DEFAULT_BUFFSIZE_MB, 1, 4096);

	c->exec_timeout_s = (int32_t)hccl_env_long("HCCL_EXEC_TIMEOUT", DEFAULT_EXEC_TIMEOUT_S, 0,
						   MAX_EXEC_TIMEOUT_S);
	if (cfg) {
		if (info->magicWord != HCCL_COMM_CONFIG_MAGIC_WORD || info->size < sizeof(*cfg))
			return hccl_fail(func, HCCL_E_PARA, "the config was not set up by "
					 "HcclCommConfigInit");
		if (cfg->hcclBufferSize != HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET) {
			if (!cfg->hcclBufferSize || cfg->hcclBufferSize > 4096)
				return hccl_fail(func, HCCL_E_PARA, "hcclBufferSize %u MB is not in "
						 "[1, 4096]", cfg->hcclBufferSize);
			mb = cfg->hcclBufferSize;
		}
		if (cfg->hcclExecTimeOut != HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET) {
			if (cfg->hcclExecTimeOut < 0)
				return hccl_fail(func, HCCL_E_PARA, "hcclExecTimeOut %d is negative",
						 cfg->hcclExecTimeOut);
			c->exec_timeout_s = cfg->hcclExecTimeOut;
		}
		if (memchr(cfg->hcclCommName, 0, sizeof(cfg->hcclCommName)) && cfg->hcclCommName[0])
			snprintf(c->name, sizeof(c->name), "%s", cfg->hcclCommName);
	}
	/* four slots per link, each a quarter of the buffer, 64 KiB aligned */
	c->slot_size = ((uint64_t)mb << 20) / 4 & ~((64ULL << 10) - 1);
	if (!c->slot_size)
		c->slot_size = 64ULL << 10;
	return HCCL_SUCCESS;
}

static void comm_free(struct hccl_comm *c)
{
	if (!c)
		return;
	if (c->links)
		for (uint32_t r = 0; r < c->nranks; r++)
			if (c->links[r])
				c->links[r]->ops->close(c->links[r]);
	if (c->scratch)
		aclrtFree(c->scratch);
	if (c->peer_fd)
		hccl_peer_sockets_close(c);
	hccl_remote_close(c);
	free(c->links);
	free(c->peer_fd);
	free(c->ranks);
	free(c);
}

static bool on_this_host(const struct hccl_comm *c, uint32_t r)
{
	return !strcmp(c->ranks[r].host_id, c->ranks[c->rank].host_id);
}

/* Every peer's link: offered to all before any is waited for. */
static HcclResult open_links(struct hccl_comm *c)
{
	HcclResult err = hccl_peer_sockets_open(c);
	uint32_t r;

	for (r = 0; r < c->nranks && !err; r++) {
		if (r == c->rank)
			continue;
		if (on_this_host(c, r))
			err = hccl_link_card_offer(c, r, &c->links[r]);
		else
			err = hccl_link_remote_open(c, r, &c->links[r]);
	}
	for (r = 0; r < c->nranks && !err; r++)
		if (r != c->rank && on_this_host(c, r))
			err = hccl_link_card_accept(c, c->links[r]);
	return err;
}

HcclResult hccl_comm_init(const char *func, uint32_t nranks, const struct hccl_root *root,
			  uint32_t rank, const HcclCommConfig *config, HcclComm *comm)
{
	struct hccl_rank_info mine = { .rank = rank, .pid = getpid() };
	struct hccl_comm *c;
	HcclResult err;
	aclError e;

	if (!nranks || rank >= nranks)
		return hccl_fail(func, HCCL_E_PARA, "rank %u is not in [0, nRanks %u)", rank, nranks);
	c = calloc(1, sizeof(*c));
	if (!c)
		return hccl_fail(func, HCCL_E_MEMORY, "out of host memory");
	c->magic = COMM_MAGIC;
	c->id = root->id;
	c->rank = rank;
	c->nranks = nranks;
	snprintf(c->name, sizeof(c->name), "hccl-%016llx", (unsigned long long)root->id);
	err = apply_config(func, c, config);
	if (err)
		goto fail;
	e = aclrtGetCurrentContext(&c->ctx);
	if (!e)
		e = aclrtGetDevice(&c->device);
	if (e) {
		err = hccl_fail(func, HCCL_E_RUNTIME, "no current device: call aclrtSetDevice first");
		goto fail;
	}
	mine.device = c->device;
	hccl_host_id(mine.host_id, sizeof(mine.host_id));
	hccl_remote_prepare(c, root, &mine);
	c->ranks = calloc(nranks, sizeof(*c->ranks));
	c->peer_fd = calloc(nranks, sizeof(*c->peer_fd));
	c->links = calloc(nranks, sizeof(*c->links));
	if (!c->ranks || !c->peer_fd || !c->links) {
		err = hccl_fail(func, HCCL_E_MEMORY, "out of host memory");
		goto fail;
	}
	for (uint32_t r = 0; r < nranks; r++)
		c->peer_fd[r] = -1;
	err = hccl_bootstrap(root, nranks, &mine, c->ranks);
	if (!err)
		err = open_links(c);
	if (!err && (e = aclrtMalloc(&c->scratch, c->slot_size, ACL_MEM_MALLOC_HUGE_FIRST)))
		err = hccl_acl_fail(func, e, "allocating the communicator's scratch memory");
	if (!err)
		err = hccl_monitor_start(c);
	if (!err && !comm_add(c)) {
		hccl_monitor_stop(c);
		err = hccl_fail(func, HCCL_E_MEMORY, "out of host memory");
	}
	if (err)
		goto fail;
	*comm = c;
	return HCCL_SUCCESS;
fail:
	comm_free(c);
	return err;
}

static HcclResult init_root_info(const char *func, uint32_t nranks, const HcclRootInfo *rootInfo,
				 uint32_t rank, const HcclCommConfig *config, HcclComm *comm)
{
	struct hccl_root root;

	if (!rootInfo || !comm)
		return hccl_fail(func, HCCL_E_PTR, "rootInfo and comm must not be NULL");
	memcpy(&root, rootInfo->internal, sizeof(root));
	return hccl_comm_init(func, nranks, &root, rank, config, comm);
}

HCCL_EXPORT HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo,
					    uint32_t rank, HcclComm *comm)
{
	return init_root_info(__func__, nRanks, rootInfo, rank, NULL, comm);
}

HCCL_EXPORT HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo,
						  uint32_t rank, const HcclCommConfig *config,
						  HcclComm *comm)
{
	if (!config)
		return HCCL_FAIL(HCCL_E_PTR, "config is NULL");
	return init_root_info(__func__, nRanks, rootInfo, rank, config, comm);
}

struct init_all_arg {
	uint32_t ndev, rank;
	int32_t device;
	const HcclRootInfo *root;
	HcclComm comm;
	HcclResult err;
};

/* The device reference it takes is the communicator's, or dropped on failure. */
static void *init_one(void *p)
{
	struct init_all_arg *a = p;
	aclError e = aclrtSetDevice(a->device);

	if (e) {
		a->err = hccl_acl_fail("HcclCommInitAll", e, "aclrtSetDevice");
		return NULL;
	}
	a->err = init_root_info("HcclCommInitAll", a->ndev, a->root, a->rank, NULL, &a->comm);
	if (a->err)
		aclrtResetDevice(a->device);
	else
		((struct hccl_comm *)a->comm)->sets_device = true;
	return NULL;
}

HCCL_EXPORT HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms_out)
{
	struct init_all_arg *a;
	pthread_t *t;
	HcclRootInfo root;
	HcclResult err;
	uint32_t i, started = 0;

	if (!devices || !comms_out)
		return HCCL_FAIL(HCCL_E_PTR, "devices and comms must not be NULL");
	if (!ndev || ndev > 64)
		return HCCL_FAIL(HCCL_E_PARA, "ndev %u is not in [1, 64]", ndev);
	for (i = 0; i < ndev; i++)
		for (uint32_t j = 0; j < i; j++)
			if (devices[i] == devices[j])
				return HCCL_FAIL(HCCL_E_PARA, "device %d is listed twice", devices[i]);
	err = HcclGetRootInfo(&root);
	if (err)
		return err;
	a = calloc(ndev, sizeof(*a));
	t = calloc(ndev, sizeof(*t));
	if (!a || !t) {
		free(a);
		free(t);
		return HCCL_FAIL(HCCL_E_MEMORY, "out of host memory");
	}
	/* each rank's Init waits for the others: one thread each */
	for (i = 0; i < ndev; i++) {
		a[i] = (struct init_all_arg){ .ndev = ndev, .rank = i, .device = devices[i],
					      .root = &root };
		if (pthread_create(&t[i], NULL, init_one, &a[i]))
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	err = started < ndev ? HCCL_FAIL(HCCL_E_INTERNAL, "cannot start a thread per device") : 0;
	for (i = 0; i < started && !err; i++)
		err = a[i].err;
	for (i = 0; i < started; i++) {
		if (err && a[i].comm)
			HcclCommDestroy(a[i].comm);
		comms_out[i] = err ? NULL : a[i].comm;
	}
	free(a);
	free(t);
	return err;
}

HCCL_EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
	HcclResult err = HCCL_SUCCESS;
	struct hccl_comm *c = hccl_comm_get(__func__, comm, &err);

	if (!c)
		return err;
	if (!rankSize)
		return HCCL_FAIL(HCCL_E_PTR, "rankSize is NULL");
	*rankSize = c->nranks;
	return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
	HcclResult err = HCCL_SUCCESS;
	struct hccl_comm *c = hccl_comm_get(__func__, comm, &err);

	if (!c)
		return err;
	if (!rank)
		return HCCL_FAIL(HCCL_E_PTR, "rank is NULL");
	*rank = c->rank;
	return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetCommName(HcclComm comm, char *commName)
{
	HcclResult err = HCCL_SUCCESS;
	struct hccl_comm *c = hccl_comm_get(__func__, comm, &err);

	if (!c)
		return err;
	if (!commName)
		return HCCL_FAIL(HCCL_E_PTR, "commName is NULL");
	memcpy(commName, c->name, sizeof(c->name));
	return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError)
{
	HcclResult err = HCCL_SUCCESS;
	struct hccl_comm *c = hccl_comm_get(__func__, comm, &err);

	if (!c)
		return err;
	if (!asyncError)
		return HCCL_FAIL(HCCL_E_PTR, "asyncError is NULL");
	*asyncError = (HcclResult)atomic_load(&c->async_err);
	return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclCommDestroy(HcclComm comm)
{
	HcclResult err = HCCL_SUCCESS;
	struct hccl_comm *c = hccl_comm_get(__func__, comm, &err);
	aclrtContext prev = NULL;
	bool sets_device;
	int32_t device;

	if (!c || !comm_remove(c))
		return c ? HCCL_FAIL(HCCL_E_PARA, "%p is being destroyed by another thread", comm) :
			   err;
	aclrtGetCurrentContext(&prev);
	aclrtSetCurrentContext(c->ctx);
	/* waits for the work queued, then for the peers to be done with ours */
	hccl_monitor_stop(c);
	device = c->device;
	sets_device = c->sets_device;
	comm_free(c);
	if (prev)
		aclrtSetCurrentContext(prev);
	if (sets_device)
		aclrtResetDevice(device);
	return HCCL_SUCCESS;
}

static int32_t deterministic;

HCCL_EXPORT HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue)
{
	if (config != HCCL_DETERMINISTIC)
		return HCCL_FAIL(HCCL_E_PARA, "config %d is not HCCL_DETERMINISTIC", config);
	if (configValue.value < 0 || configValue.value > 2)
		return HCCL_FAIL(HCCL_E_PARA, "deterministic %d is not 0, 1 or 2", configValue.value);
	/* every reduction here is in a fixed order: deterministic already */
	deterministic = configValue.value;
	return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue)
{
	if (!configValue)
		return HCCL_FAIL(HCCL_E_PTR, "configValue is NULL");
	if (config != HCCL_DETERMINISTIC)
		return HCCL_FAIL(HCCL_E_PARA, "config %d is not HCCL_DETERMINISTIC", config);
	configValue->value = deterministic;
	return HCCL_SUCCESS;
}

HCCL_EXPORT uint32_t HcclGetCommConfigCapability(void)
{
	/* buffer size, deterministic, comm name, ..., exec timeout: the vendor's numbering */
	return HCCL_COMM_CONFIG_EXEC_TIMEOUT + 1;
}
