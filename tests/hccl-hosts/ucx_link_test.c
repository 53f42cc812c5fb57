// SPDX-License-Identifier: MIT
/*
 * hccl/src/link_ucx.c between ranks on several hosts (guests of
 * tools/vm-run --guests, ranks started by tools/hccl-launch): messages of
 * several sizes around a ring, all ranks at once, checked byte by byte on
 * the receiving card's memory; then a receive whose peer has gone fails
 * instead of hanging. Prints TAP.
 *
 * Environment (tools/hccl-launch sets it): RANK_ID, RANK_SIZE,
 * HCCL_ROOT_ADDR (rank 0's IPv4 address and a port, where the ranks swap
 * their UCX worker addresses), DEVICE_ID (default 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../hccl/src/link_ucx.h"
#include "rank_net.h"
#include "rank_tap.h"

#define MAX_RANKS 16
#define MAX_BLOB 4096
#define SLOT_SIZE (1u << 20)
#define NSLOTS 2
#define PEER_GONE_TIMEOUT_S 10

static const uint64_t sizes[] = { 1, 4096, 65537, SLOT_SIZE };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))


/* The byte i of message k sent by rank r. */
static uint8_t pattern(uint32_t r, uint32_t k, uint64_t i)
{
	return (uint8_t)(i * 7 + k * 31 + r * 101 + (i >> 8));
}

struct blob {
	uint64_t len;
	uint8_t bytes[MAX_BLOB];
};

/*
 * Every rank's worker address to every rank through rank 0: each other
 * rank sends its own and gets the whole table back. Returns rank 0's
 * connections (fds[1..n-1]) or the other ranks' one (fds[0]).
 */
static void exchange_blobs(uint32_t rank, uint32_t n, const char *root, struct blob *table,
			   int *fds)
{
	uint32_t r, i;
	int lfd;

	if (rank) {
		fds[0] = connect_root(root);
		if (write_all(fds[0], &rank, sizeof(rank)) ||
		    write_all(fds[0], &table[rank], sizeof(table[rank])) ||
		    read_all(fds[0], table, n * sizeof(*table)))
			die("exchanging worker addresses failed");
		return;
	}
	lfd = listen_root(root);
	for (i = 1; i < n; i++) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0 || read_all(fd, &r, sizeof(r)) || r == 0 || r >= n ||
		    read_all(fd, &table[r], sizeof(table[r])))
			die("a rank's worker address did not arrive");
		fds[r] = fd;
	}
	close(lfd);
	for (r = 1; r < n; r++)
		if (write_all(fds[r], table, n * sizeof(*table)))
			die("sending the worker addresses failed");
}

/* Every rank has received everything before any leaves. */
static void barrier(uint32_t rank, uint32_t n, int *fds)
{
	uint32_t r;
	char byte = 1;

	if (rank) {
		if (write_all(fds[0], &byte, 1) || read_all(fds[0], &byte, 1))
			die("the barrier failed");
		return;
	}
	for (r = 1; r < n; r++)
		if (read_all(fds[r], &byte, 1))
			die("the barrier failed");
	for (r = 1; r < n; r++)
		if (write_all(fds[r], &byte, 1))
			die("the barrier failed");
}

static void fill_device(void *dev, uint32_t rank, uint32_t k, uint64_t len, uint8_t *host)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		host[i] = pattern(rank, k, i);
	if (aclrtMemcpy(dev, len, host, len, ACL_MEMCPY_HOST_TO_DEVICE))
		die("aclrtMemcpy to the card failed");
}

static uint64_t first_mismatch(const uint8_t *got, uint32_t rank, uint32_t k, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		if (got[i] != pattern(rank, k, i))
			return i;
	return len;
}

/*
 * Around the ring: each rank sends every size to the next rank, then
 * receives every size from the previous one, all ranks at once. With two
 * ranks both links are the same one, both ways.
 */
static void ring(struct hccl_link *next, struct hccl_link *prev, uint32_t rank, uint32_t n,
		 aclrtStream s, uint8_t *host)
{
	uint32_t from = (rank + n - 1) % n, k;
	void *src[NSIZES];
	const void *slot;
	char what[128];
	HcclResult err;
	uint64_t bad;

	for (k = 0; k < NSIZES; k++) {
		if (aclrtMalloc(&src[k], sizes[k], ACL_MEM_MALLOC_HUGE_FIRST))
			die("aclrtMalloc failed");
		fill_device(src[k], rank, k, sizes[k], host);
		check(next->ops->send(next, src[k], sizes[k], s) == HCCL_SUCCESS,
		      "send enqueues");
	}
	for (k = 0; k < NSIZES; k++) {
		check(prev->ops->recv(prev, &slot, sizes[k], s) == HCCL_SUCCESS, "recv enqueues");
		if (aclrtMemcpyAsync(host, sizes[k], slot, sizes[k], ACL_MEMCPY_DEVICE_TO_HOST, s) ||
		    aclrtSynchronizeStream(s))
			die("copying the received slot back failed");
		bad = first_mismatch(host, from, k, sizes[k]);
		snprintf(what, sizeof(what), "%llu bytes from rank %u arrive intact (right up to byte %llu)",
			 (unsigned long long)sizes[k], from, (unsigned long long)bad);
		check(bad == sizes[k], what);
		err = prev->ops->recv_done(prev, s);
		snprintf(what, sizeof(what), "recv_done (%d)", err);
		check(err == HCCL_SUCCESS, what);
	}
	check(hccl_link_ucx_error(next) == HCCL_SUCCESS && hccl_link_ucx_error(prev) == HCCL_SUCCESS,
	      "no transfer failed on the stream");
	for (k = 0; k < NSIZES; k++)
		aclrtFree(src[k]);
}

/*
 * The other ranks leave (closing their bootstrap sockets tells rank 0);
 * rank 0's next receive from its previous rank must then fail, not hang,
 * and stop its stream.
 */
static void peer_gone(struct hccl_link *prev, uint32_t n, int *fds, aclrtStream s)
{
	const void *slot;
	HcclResult err;
	uint32_t r;
	char byte;

	for (r = 1; r < n; r++)
		if (read(fds[r], &byte, 1) != 0)
			die("a rank sent more than it should");
	if (prev->ops->recv(prev, &slot, 1, s) != HCCL_SUCCESS)
		die("the receive from a departed peer did not enqueue");
	check(aclrtSynchronizeStream(s) == ACL_ERROR_RT_STREAM_ABORT,
	      "the failed receive stops its stream: its synchronization fails");
	err = hccl_link_ucx_error(prev);
	check(err == HCCL_E_NETWORK || err == HCCL_E_TIMEOUT,
	      "a receive from a rank that has gone fails (network error or HCCL_EXEC_TIMEOUT)");
	check(prev->ops->send(prev, slot, 1, s) == err, "later calls on the link fail the same way");
}

static uint32_t env_number(const char *name, uint32_t otherwise)
{
	const char *v = getenv(name);

	return v ? (uint32_t)strtoul(v, NULL, 10) : otherwise;
}

static struct hccl_link *open_link(struct hccl_ucx *ucx, uint32_t peer, const struct blob *b)
{
	struct hccl_link *link = NULL;

	check(hccl_link_ucx_open(ucx, peer, b->bytes, b->len, SLOT_SIZE, NSLOTS, &link) ==
		      HCCL_SUCCESS, "a link to a neighbour opens");
	if (!link)
		die("no link");
	return link;
}

int main(void)
{
	uint32_t rank = env_number("RANK_ID", MAX_RANKS), n = env_number("RANK_SIZE", 0);
	uint32_t dev = env_number("DEVICE_ID", 0);
	const char *root = getenv("HCCL_ROOT_ADDR");
	static struct blob table[MAX_RANKS];
	struct hccl_link *next, *prev;
	int fds[MAX_RANKS] = { 0 };
	struct hccl_ucx *ucx;
	aclrtStream stream;
	const void *blob;
	uint8_t *host;
	uint32_t r;
	size_t len;

	if (n < 2 || n > MAX_RANKS || rank >= n || !root)
		die("set RANK_ID, RANK_SIZE (2..16) and HCCL_ROOT_ADDR (address:port)");
	printf("TAP version 13\n1..%zu\n", 4 * NSIZES + 3 + (n > 2) + (rank == 0 ? 3 : 0));
	if (aclInit(NULL) || aclrtSetDevice(dev) || aclrtCreateStream(&stream))
		die("the runtime did not start");
	host = malloc(SLOT_SIZE);
	if (!host)
		die("out of memory");
	check(hccl_ucx_create(rank, PEER_GONE_TIMEOUT_S, &ucx, &blob, &len) == HCCL_SUCCESS &&
		      len <= MAX_BLOB, "the UCX worker opens");
	table[rank].len = len;
	memcpy(table[rank].bytes, blob, len);
	exchange_blobs(rank, n, root, table, fds);
	next = open_link(ucx, (rank + 1) % n, &table[(rank + 1) % n]);
	prev = n == 2 ? next : open_link(ucx, (rank + n - 1) % n, &table[(rank + n - 1) % n]);
	ring(next, prev, rank, n, stream, host);
	barrier(rank, n, fds);
	if (rank == 0)
		peer_gone(prev, n, fds, stream);
	for (r = 0; r < n; r++)
		if (fds[r] > 0)
			close(fds[r]);
	if (prev != next)
		prev->ops->close(prev);
	next->ops->close(next);
	hccl_ucx_destroy(ucx);
	free(host);
	aclrtDestroyStream(stream);
	aclrtResetDevice(dev);
	aclFinalize();
	return tests_failed ? 1 : 0;
}
