// SPDX-License-Identifier: MIT
/*
 * libhccl's collectives between ranks on several hosts (guests of
 * tools/vm-run --guests, one process per card started by
 * tools/hccl-launch): rank 0's root info goes to the others over a socket
 * of the test's, as MPI would carry it; then every collective libhccl has,
 * from 1 element to 1 MiB (a few MiB with HCCL_HOSTS_LARGE=1), each result
 * checked element by element against the values of tests/hccl/hccl_values.h
 * and the arithmetic here. Prints TAP, its plan last.
 *
 * Environment (tools/hccl-launch sets it): RANK_ID, RANK_SIZE, DEVICE_ID,
 * HCCL_ROOT_ADDR (where rank 0 hands out its root info), HCCL_IF_IP.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_comm.h>
#include "rank_net.h"
#include "rank_tap.h"
#include "../hccl/hccl_values.h"

#define MAX_RANKS 16
/* A gap left between blocks of the V collectives: their displacements count. */
#define GAP 3

struct ctx {
	HcclComm comm;
	aclrtStream s;
	uint32_t rank, n;
};


static uint32_t env_number(const char *name, uint32_t otherwise)
{
	const char *v = getenv(name);

	return v ? (uint32_t)strtoul(v, NULL, 10) : otherwise;
}

static const char *type_name(HcclDataType t)
{
	switch (t) {
	case HCCL_DATA_TYPE_INT8: return "int8";
	case HCCL_DATA_TYPE_INT16: return "int16";
	case HCCL_DATA_TYPE_INT32: return "int32";
	case HCCL_DATA_TYPE_INT64: return "int64";
	case HCCL_DATA_TYPE_FP16: return "fp16";
	case HCCL_DATA_TYPE_BFP16: return "bf16";
	case HCCL_DATA_TYPE_FP32: return "fp32";
	case HCCL_DATA_TYPE_INT128: return "int128";
	default: return "another type";
	}
}

static const char *const op_names[] = { "sum", "prod", "max", "min" };

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

static void *host_alloc(uint64_t bytes)
{
	void *p = calloc(1, bytes ? bytes : 1);

	if (!p)
		die("out of memory");
	return p;
}

/* Device memory of bytes, zeroed (one byte at least: 0 elements is legal). */
static void *device_zeroed(uint64_t bytes)
{
	void *p;

	if (aclrtMalloc(&p, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMemset(p, bytes ? bytes : 1, 0, bytes ? bytes : 1))
		die("aclrtMalloc failed");
	return p;
}

/* count elements of t on the card: moved_value or value_of of rank r. */
static void *device_values(HcclDataType t, uint32_t r, uint64_t count, bool moving)
{
	size_t es = type_size(t);
	uint8_t *h = host_alloc(count * es);
	void *d = device_zeroed(count * es);
	uint64_t i;

	for (i = 0; i < count; i++)
		put_value(t, h, i, moving ? moved_value(t, r, i) : value_of(r, i));
	if (count && aclrtMemcpy(d, count * es, h, count * es, ACL_MEMCPY_HOST_TO_DEVICE))
		die("aclrtMemcpy to the card failed");
	free(h);
	return d;
}

/* Waits for the operation, then compares dev with want, element by element. */
static void verify(struct ctx *c, const char *what, HcclResult err, HcclDataType t,
		   const void *dev, const int64_t *want, uint64_t count)
{
	size_t es = type_size(t);
	uint8_t *h = host_alloc(count * es);
	char line[224];
	uint64_t i = 0;

	if (!err && aclrtSynchronizeStream(c->s))
		err = HCCL_E_RUNTIME;
	if (!err && count && aclrtMemcpy(h, count * es, dev, count * es, ACL_MEMCPY_DEVICE_TO_HOST))
		die("aclrtMemcpy from the card failed");
	for (; !err && i < count; i++)
		if (get_value(t, h, i) != want[i])
			break;
	if (err || i == count)
		snprintf(line, sizeof(line), "%s: result %d, %llu elements right", what, err,
			 (unsigned long long)i);
	else
		snprintf(line, sizeof(line), "%s: element %llu of %llu is %lld, not %lld", what,
			 (unsigned long long)i, (unsigned long long)count,
			 (long long)get_value(t, h, i), (long long)want[i]);
	check(err == HCCL_SUCCESS && i == count, line);
	free(h);
}

/* Whether the product of n ranks' values (up to 7^n) is exact in t. */
static bool product_exact(HcclDataType t, uint32_t n)
{
	int64_t most = 1, limit;
	uint32_t r;

	switch (t) {
	case HCCL_DATA_TYPE_INT8: limit = 127; break;
	case HCCL_DATA_TYPE_BFP16: limit = 256; break;
	case HCCL_DATA_TYPE_FP16: limit = 2048; break;
	case HCCL_DATA_TYPE_INT16: limit = 32767; break;
	default: limit = 1 << 24; break;
	}
	for (r = 0; r < n && most <= limit; r++)
		most *= 7;
	return most <= limit;
}

static void all_reduce(struct ctx *c, HcclDataType t, HcclReduceOp op, uint64_t count)
{
	void *in = device_values(t, c->rank, count, false);
	void *out = device_zeroed(count * type_size(t));
	int64_t *want = host_alloc(count * sizeof(*want));
	HcclResult err = HcclAllReduce(in, out, count, t, op, c->comm, c->s);
	char what[96];
	uint64_t i;

	for (i = 0; i < count; i++)
		want[i] = reduced_over(op, c->n, i);
	snprintf(what, sizeof(what), "AllReduce %s %s of %llu", type_name(t), op_names[op],
		 (unsigned long long)count);
	verify(c, what, err, t, out, want, count);
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

/* A type the card cannot reduce is refused before anything moves. */
static void all_reduce_refused(struct ctx *c, HcclDataType t)
{
	void *buf = device_zeroed(16 * type_size(t));
	HcclResult err = HcclAllReduce(buf, buf, 16, t, HCCL_REDUCE_SUM, c->comm, c->s);
	char what[128];

	snprintf(what, sizeof(what), "AllReduce of %s is refused: %d (%s)", type_name(t), err,
		 aclGetRecentErrMsg());
	check(err == HCCL_E_NOT_SUPPORT, what);
	aclrtFree(buf);
}

static void broadcast(struct ctx *c, HcclDataType t, uint64_t count, uint32_t root)
{
	void *buf = c->rank == root ? device_values(t, root, count, true) :
				      device_zeroed(count * type_size(t));
	int64_t *want = host_alloc(count * sizeof(*want));
	HcclResult err = HcclBroadcast(buf, count, t, root, c->comm, c->s);
	char what[96];
	uint64_t i;

	for (i = 0; i < count; i++)
		want[i] = moved_value(t, root, i);
	snprintf(what, sizeof(what), "Broadcast %s of %llu from rank %u", type_name(t),
		 (unsigned long long)count, root);
	verify(c, what, err, t, buf, want, count);
	free(want);
	aclrtFree(buf);
}

static void reduce(struct ctx *c, HcclDataType t, HcclReduceOp op, uint64_t count, uint32_t root)
{
	void *in = device_values(t, c->rank, count, false);
	void *out = device_zeroed(count * type_size(t));
	int64_t *want = host_alloc(count * sizeof(*want));
	HcclResult err = HcclReduce(in, out, count, t, op, root, c->comm, c->s);
	char what[96];
	uint64_t i;

	for (i = 0; i < count; i++)
		want[i] = reduced_over(op, c->n, i);
	snprintf(what, sizeof(what), "Reduce %s %s of %llu to rank %u%s", type_name(t),
		 op_names[op], (unsigned long long)count, root,
		 c->rank == root ? "" : " (the root's result only)");
	/* recvBuf holds the result at the root only */
	verify(c, what, err, t, out, want, c->rank == root ? count : 0);
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

static void all_gather(struct ctx *c, HcclDataType t, uint64_t count)
{
	void *in = device_values(t, c->rank, count, true);
	void *out = device_zeroed(c->n * count * type_size(t));
	int64_t *want = host_alloc(c->n * count * sizeof(*want));
	HcclResult err = HcclAllGather(in, out, count, t, c->comm, c->s);
	char what[96];
	uint64_t i;

	for (i = 0; i < c->n * count; i++)
		want[i] = moved_value(t, (uint32_t)(i / count), i % count);
	snprintf(what, sizeof(what), "AllGather %s of %llu per rank", type_name(t),
		 (unsigned long long)count);
	verify(c, what, err, t, out, want, c->n * count);
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

static void reduce_scatter(struct ctx *c, HcclDataType t, HcclReduceOp op, uint64_t count)
{
	void *in = device_values(t, c->rank, c->n * count, false);
	void *out = device_zeroed(count * type_size(t));
	int64_t *want = host_alloc(count * sizeof(*want));
	HcclResult err = HcclReduceScatter(in, out, count, t, op, c->comm, c->s);
	char what[96];
	uint64_t i;

	for (i = 0; i < count; i++)
		want[i] = reduced_over(op, c->n, c->rank * count + i);
	snprintf(what, sizeof(what), "ReduceScatter %s %s of %llu per rank", type_name(t),
		 op_names[op], (unsigned long long)count);
	verify(c, what, err, t, out, want, count);
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

/* Rank r's block of the V collectives: base + 2r elements (none for base 0, rank 0). */
static uint64_t v_count(uint64_t base, uint32_t r)
{
	return base + 2 * r;
}

/* counts[j] = v_count(base, j), blocks GAP elements apart; returns the span. */
static uint64_t v_layout(uint64_t base, uint32_t n, uint64_t *counts, uint64_t *displs)
{
	uint64_t at = 0;

	for (uint32_t j = 0; j < n; j++) {
		counts[j] = v_count(base, j);
		displs[j] = at;
		at += counts[j] + GAP;
	}
	return at;
}

static void all_gather_v(struct ctx *c, HcclDataType t, uint64_t base)
{
	uint64_t counts[MAX_RANKS], displs[MAX_RANKS], span = v_layout(base, c->n, counts, displs);
	void *in = device_values(t, c->rank, counts[c->rank], true);
	void *out = device_zeroed(span * type_size(t));
	int64_t *want = host_alloc(span * sizeof(*want));
	HcclResult err = HcclAllGatherV(in, counts[c->rank], out, counts, displs, t, c->comm, c->s);
	char what[96];

	for (uint32_t j = 0; j < c->n; j++)
		for (uint64_t i = 0; i < counts[j]; i++)
			want[displs[j] + i] = moved_value(t, j, i);
	snprintf(what, sizeof(what), "AllGatherV %s of %llu + 2 x rank, gaps untouched",
		 type_name(t), (unsigned long long)base);
	verify(c, what, err, t, out, want, span);
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

static void reduce_scatter_v(struct ctx *c, HcclDataType t, HcclReduceOp op, uint64_t base)
{
	uint64_t counts[MAX_RANKS], displs[MAX_RANKS], span = v_layout(base, c->n, counts, displs);
	uint64_t mine = counts[c->rank];
	void *in = device_values(t, c->rank, span, false);
	void *out = device_zeroed(mine * type_size(t));
	int64_t *want = host_alloc(mine * sizeof(*want));
	HcclResult err = HcclReduceScatterV(in, counts, displs, out, mine, t, op, c->comm, c->s);
	char what[96];

	for (uint64_t i = 0; i < mine; i++)
		want[i] = reduced_over(op, c->n, displs[c->rank] + i);
	snprintf(what, sizeof(what), "ReduceScatterV %s %s of %llu + 2 x rank", type_name(t),
		 op_names[op], (unsigned long long)base);
	verify(c, what, err, t, out, want, mine);
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

/* Block j of rank r's input goes to rank j. */
static void all_to_all(struct ctx *c, HcclDataType t, uint64_t count)
{
	void *in = device_values(t, c->rank, c->n * count, true);
	void *out = device_zeroed(c->n * count * type_size(t));
	int64_t *want = host_alloc(c->n * count * sizeof(*want));
	HcclResult err = HcclAlltoAll(in, count, t, out, count, t, c->comm, c->s);
	char what[96];
	uint64_t i;

	for (i = 0; i < c->n * count; i++)
		want[i] = moved_value(t, (uint32_t)(i / count), c->rank * count + i % count);
	snprintf(what, sizeof(what), "AlltoAll %s of %llu per pair", type_name(t),
		 (unsigned long long)count);
	verify(c, what, err, t, out, want, c->n * count);
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

/* What rank `from` sends rank `to` in the V all-to-alls. */
static uint64_t a2a_count(uint64_t base, uint32_t from, uint32_t to)
{
	return base + 3 * from + to;
}

/* Rank r's send (or, received, receive) layout: blocks GAP apart. */
static uint64_t a2a_layout(uint64_t base, uint32_t r, uint32_t n, bool sending, uint64_t *counts,
			   uint64_t *displs)
{
	uint64_t at = 0;

	for (uint32_t j = 0; j < n; j++) {
		counts[j] = sending ? a2a_count(base, r, j) : a2a_count(base, j, r);
		displs[j] = at;
		at += counts[j] + GAP;
	}
	return at;
}

static void all_to_all_v(struct ctx *c, HcclDataType t, uint64_t base)
{
	uint64_t sc[MAX_RANKS], sd[MAX_RANKS], rc[MAX_RANKS], rd[MAX_RANKS];
	uint64_t theirs_c[MAX_RANKS], theirs_d[MAX_RANKS];
	uint64_t sspan = a2a_layout(base, c->rank, c->n, true, sc, sd);
	uint64_t rspan = a2a_layout(base, c->rank, c->n, false, rc, rd);
	void *in = device_values(t, c->rank, sspan, true);
	void *out = device_zeroed(rspan * type_size(t));
	int64_t *want = host_alloc(rspan * sizeof(*want));
	HcclResult err = HcclAlltoAllV(in, sc, sd, t, out, rc, rd, t, c->comm, c->s);
	char what[96];

	for (uint32_t j = 0; j < c->n; j++) {
		a2a_layout(base, j, c->n, true, theirs_c, theirs_d);
		for (uint64_t i = 0; i < rc[j]; i++)
			want[rd[j] + i] = moved_value(t, j, theirs_d[c->rank] + i);
	}
	snprintf(what, sizeof(what), "AlltoAllV %s of %llu + 3 x sender + receiver, gaps untouched",
		 type_name(t), (unsigned long long)base);
	verify(c, what, err, t, out, want, rspan);
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

/* AlltoAllVC: every rank's counts in one matrix, blocks packed. */
static void all_to_all_vc(struct ctx *c, HcclDataType t, uint64_t base)
{
	uint64_t m[MAX_RANKS * MAX_RANKS], sspan = 0, rspan = 0, at = 0;
	uint32_t i, j;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++)
			m[i * c->n + j] = a2a_count(base, i, j);
	for (j = 0; j < c->n; j++) {
		sspan += m[c->rank * c->n + j];
		rspan += m[j * c->n + c->rank];
	}
	void *in = device_values(t, c->rank, sspan, true);
	void *out = device_zeroed(rspan * type_size(t));
	int64_t *want = host_alloc(rspan * sizeof(*want));
	HcclResult err = HcclAlltoAllVC(in, m, t, out, t, c->comm, c->s);
	char what[96];

	for (j = 0; j < c->n; j++) {
		uint64_t from = 0;	/* where j's block for this rank starts in j's input */

		for (i = 0; i < c->rank; i++)
			from += m[j * c->n + i];
		for (uint64_t k = 0; k < m[j * c->n + c->rank]; k++)
			want[at++] = moved_value(t, j, from + k);
	}
	snprintf(what, sizeof(what), "AlltoAllVC %s of %llu + 3 x sender + receiver", type_name(t),
		 (unsigned long long)base);
	verify(c, what, err, t, out, want, rspan);
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

/*
 * Rank r with rank r + n/2, on another host when hosts have n/2 ranks
 * each: the lower sends first, the higher receives first.
 */
static void send_recv(struct ctx *c, HcclDataType t, uint64_t count)
{
	uint32_t other = (c->rank + c->n / 2) % c->n;
	void *in = device_values(t, c->rank, count, true);
	void *out = device_zeroed(count * type_size(t));
	int64_t *want = host_alloc(count * sizeof(*want));
	HcclResult err;
	char what[96];
	uint64_t i;

	if (c->n % 2) {
		check(1, "Send/Recv: this rank has no pair # SKIP odd rank count");
		goto out;
	}
	if (c->rank < other) {
		err = HcclSend(in, count, t, other, c->comm, c->s);
		if (!err)
			err = HcclRecv(out, count, t, other, c->comm, c->s);
	} else {
		err = HcclRecv(out, count, t, other, c->comm, c->s);
		if (!err)
			err = HcclSend(in, count, t, other, c->comm, c->s);
	}
	for (i = 0; i < count; i++)
		want[i] = moved_value(t, other, i);
	snprintf(what, sizeof(what), "Send and Recv %s of %llu with rank %u", type_name(t),
		 (unsigned long long)count, other);
	verify(c, what, err, t, out, want, count);
out:
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

/* Around the ring: to the next rank and from the previous, in one call. */
static void batch_send_recv(struct ctx *c, HcclDataType t, uint64_t count)
{
	uint32_t next = (c->rank + 1) % c->n, prev = (c->rank + c->n - 1) % c->n;
	void *in = device_values(t, c->rank, count, true);
	void *out = device_zeroed(count * type_size(t));
	int64_t *want = host_alloc(count * sizeof(*want));
	HcclSendRecvItem items[2] = {
		{ HCCL_SEND, in, count, t, next },
		{ HCCL_RECV, out, count, t, prev },
	};
	HcclResult err = HcclBatchSendRecv(items, 2, c->comm, c->s);
	char what[96];
	uint64_t i;

	for (i = 0; i < count; i++)
		want[i] = moved_value(t, prev, i);
	snprintf(what, sizeof(what), "BatchSendRecv %s of %llu around the ring", type_name(t),
		 (unsigned long long)count);
	verify(c, what, err, t, out, want, count);
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

static void scatter(struct ctx *c, HcclDataType t, uint64_t count, uint32_t root)
{
	void *in = c->rank == root ? device_values(t, root, c->n * count, true) :
				     device_zeroed(c->n * count * type_size(t));
	void *out = device_zeroed(count * type_size(t));
	int64_t *want = host_alloc(count * sizeof(*want));
	HcclResult err = HcclScatter(in, out, count, t, root, c->comm, c->s);
	char what[96];
	uint64_t i;

	for (i = 0; i < count; i++)
		want[i] = moved_value(t, root, c->rank * count + i);
	snprintf(what, sizeof(what), "Scatter %s of %llu per rank from rank %u", type_name(t),
		 (unsigned long long)count, root);
	verify(c, what, err, t, out, want, count);
	free(want);
	aclrtFree(in);
	aclrtFree(out);
}

static const HcclDataType reduce_types[] = {
	HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_FP16, HCCL_DATA_TYPE_BFP16,
	HCCL_DATA_TYPE_INT32, HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT64,
};
#define NREDUCE_TYPES (sizeof(reduce_types) / sizeof(reduce_types[0]))

/* Every type and reduction, odd sizes; the products that fit the type. */
static void reductions(struct ctx *c)
{
	for (size_t k = 0; k < NREDUCE_TYPES; k++)
		for (int op = HCCL_REDUCE_SUM; op <= HCCL_REDUCE_MIN; op++)
			if (op != HCCL_REDUCE_PROD || product_exact(reduce_types[k], c->n))
				all_reduce(c, reduce_types[k], (HcclReduceOp)op, 37);
	if (!type_reduces(HCCL_DATA_TYPE_INT128))
		all_reduce_refused(c, HCCL_DATA_TYPE_INT128);
	reduce(c, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 4099, c->n - 1);
	reduce(c, HCCL_DATA_TYPE_INT8, HCCL_REDUCE_MAX, 1, 0);
	reduce_scatter(c, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 4099);
	reduce_scatter(c, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_MIN, 1);
	reduce_scatter_v(c, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, 1000);
	reduce_scatter_v(c, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_MAX, 0);
}

static void moves(struct ctx *c)
{
	broadcast(c, HCCL_DATA_TYPE_FP16, 7, 0);
	all_gather_v(c, HCCL_DATA_TYPE_INT32, 1000);
	all_gather_v(c, HCCL_DATA_TYPE_INT8, 0);
	all_to_all(c, HCCL_DATA_TYPE_INT32, 4099);
	all_to_all(c, HCCL_DATA_TYPE_INT16, 1);
	all_to_all_v(c, HCCL_DATA_TYPE_INT32, 1000);
	all_to_all_vc(c, HCCL_DATA_TYPE_INT64, 100);
	send_recv(c, HCCL_DATA_TYPE_INT32, 1);
	send_recv(c, HCCL_DATA_TYPE_FP32, 65537);
	batch_send_recv(c, HCCL_DATA_TYPE_INT32, 4099);
	scatter(c, HCCL_DATA_TYPE_INT32, 4099, c->n - 1);
	scatter(c, HCCL_DATA_TYPE_INT8, 1, 0);
}

/* From 1 element to 1 MiB; a few MiB more where time allows. */
static void sizes(struct ctx *c, bool large)
{
	static const uint64_t counts[] = { 1, 4099, 262144, 1048576 };
	size_t k, nk = large ? 4 : 3;

	for (k = 0; k < nk; k++) {
		all_reduce(c, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, counts[k]);
		broadcast(c, HCCL_DATA_TYPE_INT32, counts[k], c->n - 1);
		all_gather(c, HCCL_DATA_TYPE_INT32, counts[k]);
	}
	if (!large)
		return;
	reduce_scatter(c, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_MAX, 1048576);
	all_to_all(c, HCCL_DATA_TYPE_INT32, 524288);
	send_recv(c, HCCL_DATA_TYPE_INT32, 1048576);
}

int main(void)
{
	uint32_t rank = env_number("RANK_ID", MAX_RANKS), n = env_number("RANK_SIZE", 0);
	uint32_t dev = env_number("DEVICE_ID", 0);
	const char *addr = getenv("HCCL_ROOT_ADDR");
	struct ctx c = { .rank = rank, .n = n };
	HcclRootInfo root;

	if (n < 2 || n > MAX_RANKS || rank >= n || !addr)
		die("set RANK_ID, RANK_SIZE (2..16) and HCCL_ROOT_ADDR (address:port)");
	printf("TAP version 13\n");
	if (aclInit(NULL) || aclrtSetDevice(dev) || aclrtCreateStream(&c.s))
		die("the runtime did not start");
	share_root_info(rank, n, addr, &root);
	check(HcclCommInitRootInfo(n, &root, rank, &c.comm) == HCCL_SUCCESS,
	      "HcclCommInitRootInfo joins ranks on several hosts");
	if (tests_failed)
		die("no communicator");
	sizes(&c, env_number("HCCL_HOSTS_LARGE", 0) != 0);
	reductions(&c);
	moves(&c);
	check(HcclBarrier(c.comm, c.s) == HCCL_SUCCESS && aclrtSynchronizeStream(c.s) == ACL_SUCCESS,
	      "HcclBarrier");
	check(HcclCommDestroy(c.comm) == HCCL_SUCCESS, "HcclCommDestroy");
	aclrtDestroyStream(c.s);
	aclrtResetDevice(dev);
	aclFinalize();
	printf("1..%d\n", tests_run);
	return tests_failed ? 1 : 0;
}
