// SPDX-License-Identifier: MIT
/*
 * libhccl's collectives between ranks on several hosts (guests of
 * tools/vm-run --guests, one process per card started by
 * tools/hccl-launch): rank 0's root info goes to the others over a socket
 * of the test's, as MPI would carry it; then AllReduce, Broadcast and
 * AllGather, each checked element by element against arithmetic here, and
 * a barrier. Prints TAP.
 *
 * Environment (tools/hccl-launch sets it): RANK_ID, RANK_SIZE, DEVICE_ID,
 * HCCL_ROOT_ADDR (where rank 0 hands out its root info), HCCL_IF_IP.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_comm.h>
#include "rank_net.h"

#define MAX_RANKS 16

static const uint64_t counts[] = { 1, 4099, 262144 };
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

static int tests_run, tests_failed;

static void check(int ok, const char *what)
{
	tests_run++;
	if (!ok)
		tests_failed++;
	printf("%s %d - %s\n", ok ? "ok" : "not ok", tests_run, what);
	fflush(stdout);
}

static void die(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

static uint32_t env_number(const char *name, uint32_t otherwise)
{
	const char *v = getenv(name);

	return v ? (uint32_t)strtoul(v, NULL, 10) : otherwise;
}

/* Rank 0 makes the root info and hands it to every other rank. */
static void share_root_info(uint32_t rank, uint32_t n, const char *addr, HcclRootInfo *root)
{
	uint32_t i;
	int lfd, fd;

	if (rank) {
		fd = connect_root(addr);
		if (read_all(fd, root, sizeof(*root)))
			die("the root info did not arrive");
		close(fd);
		return;
	}
	if (HcclGetRootInfo(root))
		die("HcclGetRootInfo failed");
	lfd = listen_root(addr);
	for (i = 1; i < n; i++) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0 || write_all(fd, root, sizeof(*root)))
			die("handing out the root info failed");
		close(fd);
	}
	close(lfd);
}

static void *device_buffer(uint64_t bytes)
{
	void *p;

	if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST))
		die("aclrtMalloc failed");
	return p;
}

static void to_device(void *dev, const void *host, uint64_t bytes)
{
	if (aclrtMemcpy(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE))
		die("aclrtMemcpy to the card failed");
}

static void to_host(void *host, const void *dev, uint64_t bytes)
{
	if (aclrtMemcpy(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST))
		die("aclrtMemcpy from the card failed");
}

static void report(const char *op, uint64_t count, uint64_t bad, HcclResult err)
{
	char what[160];

	snprintf(what, sizeof(what), "%s of %llu elements: result %d, right up to element %llu", op,
		 (unsigned long long)count, err, (unsigned long long)bad);
	check(err == HCCL_SUCCESS && bad == count, what);
}

/* Rank r contributes r + 1 + i % 7: the sum is n(n+1)/2 + n(i % 7), exact in float. */
static void all_reduce(HcclComm comm, aclrtStream s, uint32_t rank, uint32_t n, uint64_t count)
{
	float *host = malloc(count * sizeof(float));
	void *in = device_buffer(count * sizeof(float)), *out = device_buffer(count * sizeof(float));
	HcclResult err;
	uint64_t i;

	if (!host)
		die("out of memory");
	for (i = 0; i < count; i++)
		host[i] = (float)(rank + 1 + i % 7);
	to_device(in, host, count * sizeof(float));
	err = HcclAllReduce(in, out, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, s);
	if (!err && aclrtSynchronizeStream(s))
		err = HCCL_E_RUNTIME;
	to_host(host, out, count * sizeof(float));
	for (i = 0; i < count; i++)
		if (host[i] != (float)(n * (n + 1) / 2 + n * (i % 7)))
			break;
	report("AllReduce fp32 sum", count, i, err);
	aclrtFree(in);
	aclrtFree(out);
	free(host);
}

/* The root's element i is root * 1000003 + i. */
static void broadcast(HcclComm comm, aclrtStream s, uint32_t rank, uint32_t n, uint64_t count)
{
	uint32_t root = n - 1;
	int32_t *host = malloc(count * sizeof(int32_t));
	void *buf = device_buffer(count * sizeof(int32_t));
	HcclResult err;
	uint64_t i;

	if (!host)
		die("out of memory");
	for (i = 0; i < count; i++)
		host[i] = rank == root ? (int32_t)(root * 1000003 + i) : -1;
	to_device(buf, host, count * sizeof(int32_t));
	err = HcclBroadcast(buf, count, HCCL_DATA_TYPE_INT32, root, comm, s);
	if (!err && aclrtSynchronizeStream(s))
		err = HCCL_E_RUNTIME;
	to_host(host, buf, count * sizeof(int32_t));
	for (i = 0; i < count; i++)
		if (host[i] != (int32_t)(root * 1000003 + i))
			break;
	report("Broadcast int32 from the last rank", count, i, err);
	aclrtFree(buf);
	free(host);
}

/* Rank r's element i is r * 1000003 + i; the result is every rank's, in rank order. */
static void all_gather(HcclComm comm, aclrtStream s, uint32_t rank, uint32_t n, uint64_t count)
{
	int32_t *host = malloc(n * count * sizeof(int32_t));
	void *in = device_buffer(count * sizeof(int32_t));
	void *out = device_buffer(n * count * sizeof(int32_t));
	HcclResult err;
	uint64_t i;

	if (!host)
		die("out of memory");
	for (i = 0; i < count; i++)
		host[i] = (int32_t)(rank * 1000003 + i);
	to_device(in, host, count * sizeof(int32_t));
	err = HcclAllGather(in, out, count, HCCL_DATA_TYPE_INT32, comm, s);
	if (!err && aclrtSynchronizeStream(s))
		err = HCCL_E_RUNTIME;
	to_host(host, out, n * count * sizeof(int32_t));
	for (i = 0; i < n * count; i++)
		if (host[i] != (int32_t)(i / count * 1000003 + i % count))
			break;
	report("AllGather int32", n * count, i, err);
	aclrtFree(in);
	aclrtFree(out);
	free(host);
}

int main(void)
{
	uint32_t rank = env_number("RANK_ID", MAX_RANKS), n = env_number("RANK_SIZE", 0);
	uint32_t dev = env_number("DEVICE_ID", 0), k;
	const char *addr = getenv("HCCL_ROOT_ADDR");
	HcclRootInfo root;
	aclrtStream s;
	HcclComm comm;

	if (n < 2 || n > MAX_RANKS || rank >= n || !addr)
		die("set RANK_ID, RANK_SIZE (2..16) and HCCL_ROOT_ADDR (address:port)");
	printf("TAP version 13\n1..%zu\n", 3 * NCOUNTS + 3);
	if (aclInit(NULL) || aclrtSetDevice(dev) || aclrtCreateStream(&s))
		die("the runtime did not start");
	share_root_info(rank, n, addr, &root);
	check(HcclCommInitRootInfo(n, &root, rank, &comm) == HCCL_SUCCESS,
	      "HcclCommInitRootInfo joins ranks on several hosts");
	if (tests_failed)
		die("no communicator");
	for (k = 0; k < NCOUNTS; k++) {
		all_reduce(comm, s, rank, n, counts[k]);
		broadcast(comm, s, rank, n, counts[k]);
		all_gather(comm, s, rank, n, counts[k]);
	}
	check(HcclBarrier(comm, s) == HCCL_SUCCESS && aclrtSynchronizeStream(s) == ACL_SUCCESS,
	      "HcclBarrier");
	check(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
	aclrtDestroyStream(s);
	aclrtResetDevice(dev);
	aclFinalize();
	return tests_failed ? 1 : 0;
}
