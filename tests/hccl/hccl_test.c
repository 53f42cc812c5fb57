// SPDX-License-Identifier: MIT
/*
 * libhccl between two ranks of one host, a process each on cards 0 and 1
 * (hccl_ranks.h): every collective, every data type and reduction at small
 * sizes, messages of many pieces (a small HCCL_BUFFSIZE makes a link's
 * slots 256 KiB) and a 64 MiB AllReduce, all checked element by element
 * against the test's arithmetic (hccl_values.h); HcclCommInitAll in one
 * process; a killed rank and an operation past HCCL_EXEC_TIMEOUT; bad
 * arguments.
 */
#include "kselftest_harness.h"
#include "npu_test_timeout.h"
#include "hccl_ranks.h"
#include "hccl_values.h"

static const HcclReduceOp all_ops[] = {
	HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX, HCCL_REDUCE_MIN,
};

/* Device memory holding n bytes of host; NULL for n 0. */
static void *dev_copy(struct rank_ctx *c, const void *host, size_t n)
{
	void *d = NULL;

	if (!n)
		return NULL;
	CHECK_OK(c, aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	if (d && host)
		CHECK_OK(c, aclrtMemcpy(d, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));
	else if (d)
		CHECK_OK(c, aclrtMemset(d, n, 0, n));
	return d;
}

static void *host_of(struct rank_ctx *c, const void *dev, size_t n)
{
	void *h = calloc(1, n ? n : 1);

	if (n)
		CHECK_OK(c, aclrtMemcpy(h, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
	return h;
}

/* count elements of rank r's values in t, from element first on. */
static void *values(HcclDataType t, uint32_t r, uint64_t first, uint64_t count)
{
	void *h = calloc(count ? count : 1, type_size(t));

	for (uint64_t i = 0; i < count; i++)
		put_value(t, h, i, value_of(r, first + i));
	return h;
}

static void sync_ok(struct rank_ctx *c)
{
	CHECK_OK(c, aclrtSynchronizeStream(c->stream));
}

/* Element by element: buf[i] == value_of(r, first + i) op'd as asked. */
static void check_values(struct rank_ctx *c, const char *what, HcclDataType t, const void *buf,
			 uint64_t count, uint64_t first, int op)
{
	for (uint64_t i = 0; i < count; i++) {
		int64_t want = op < 0 ? value_of((uint32_t)(-op - 1), first + i) :
			       reduced((HcclReduceOp)op, value_of(0, first + i),
				       value_of(1, first + i));
		int64_t got = get_value(t, buf, i);

		if (got != want) {
			CHECK(c, got == want, "%s type %d: element %llu is %lld, not %lld", what, t,
			      (unsigned long long)i, (long long)got, (long long)want);
			return;
		}
	}
}
#define FROM_RANK(r)	(-(int)(r) - 1)

static void allreduce_one(struct rank_ctx *c, HcclDataType t, HcclReduceOp op, uint64_t count)
{
	size_t n = count * type_size(t);
	void *h = values(t, c->rank, 0, count), *in = dev_copy(c, h, n), *out = dev_copy(c, NULL, n);
	HcclResult r = HcclAllReduce(in, out, count, t, op, c->comm, c->stream);

	if (type_reduces(t)) {
		CHECK(c, r == HCCL_SUCCESS, "AllReduce type %d op %d: %d: %s", t, op, r,
		      aclGetRecentErrMsg());
		sync_ok(c);
		free(h);
		h = host_of(c, out, n);
		check_values(c, "AllReduce", t, h, count, 0, op);
	} else {
		/* read once: reading the message clears it */
		const char *msg = aclGetRecentErrMsg();

		CHECK(c, r == HCCL_E_NOT_SUPPORT, "AllReduce of type %d gave %d", t, r);
		CHECK(c, msg && strstr(msg, "not supported") && strstr(msg, unreduced_type_name(t)),
		      "message: %s", msg ? msg : "(none)");
	}
	free(h);
	aclrtFree(in);
	aclrtFree(out);
}

static void every_type_and_op(struct rank_ctx *c)
{
	for (size_t t = 0; t < NTYPES; t++)
		for (size_t o = 0; o < 4; o++) {
			allreduce_one(c, all_types[t], all_ops[o], 1);
			allreduce_one(c, all_types[t], all_ops[o], 37);
		}
}

FIXTURE(ranks) {};
FIXTURE_SETUP(ranks) {}
FIXTURE_TEARDOWN(ranks) {}

TEST_F_TIMEOUT(ranks, allreduce_every_type_and_reduction, 240)
{
	run_ranks(_metadata, every_type_and_op);
}

/* Reduce to root 1 and ReduceScatter, every type the card reduces, every op. */
static void reduce_and_reduce_scatter(struct rank_ctx *c)
{
	for (size_t ti = 0; ti < NTYPES; ti++) {
		HcclDataType t = all_types[ti];
		size_t es = type_size(t);

		if (!type_reduces(t))
			continue;
		for (size_t o = 0; o < 4; o++) {
			uint64_t count = 11;
			void *h = values(t, c->rank, 0, 2 * count), *in = dev_copy(c, h, 2 * count * es);
			void *out = dev_copy(c, NULL, 2 * count * es);

			CHECK_OK(c, HcclReduce(in, out, 2 * count, t, all_ops[o], 1, c->comm, c->stream));
			sync_ok(c);
			free(h);
			if (c->rank == 1) {
				h = host_of(c, out, 2 * count * es);
				check_values(c, "Reduce", t, h, 2 * count, 0, all_ops[o]);
				free(h);
			}
			CHECK_OK(c, HcclReduceScatter(in, out, count, t, all_ops[o], c->comm,
						      c->stream));
			sync_ok(c);
			h = host_of(c, out, count * es);
			check_values(c, "ReduceScatter", t, h, count, c->rank * count, all_ops[o]);
			free(h);
			aclrtFree(in);
			aclrtFree(out);
		}
	}
}

TEST_F_TIMEOUT(ranks, reduce_and_reduce_scatter_every_type, 240)
{
	run_ranks(_metadata, reduce_and_reduce_scatter);
}

/* The moving collectives carry bytes: every type, the header's sizes. */
static void moves_every_type(struct rank_ctx *c)
{
	for (size_t ti = 0; ti < NTYPES; ti++) {
		HcclDataType t = all_types[ti];
		size_t es = type_size(t);
		uint64_t count = 5;
		void *h = values(t, c->rank, 0, count), *in = dev_copy(c, h, count * es);
		void *out = dev_copy(c, NULL, 2 * count * es);

		free(h);
		CHECK_OK(c, HcclAllGather(in, out, count, t, c->comm, c->stream));
		sync_ok(c);
		h = host_of(c, out, 2 * count * es);
		check_values(c, "AllGather 0", t, h, count, 0, FROM_RANK(0));
		check_values(c, "AllGather 1", t, (uint8_t *)h + count * es, count, 0, FROM_RANK(1));
		free(h);
		CHECK_OK(c, HcclBroadcast(in, count, t, 1, c->comm, c->stream));
		sync_ok(c);
		h = host_of(c, in, count * es);
		check_values(c, "Broadcast", t, h, count, 0, FROM_RANK(1));
		free(h);
		aclrtFree(in);
		aclrtFree(out);
	}
}

TEST_F_TIMEOUT(ranks, allgather_and_broadcast_every_type, 240)
{
	run_ranks(_metadata, moves_every_type);
}

/* Sizes that take many pieces of 256 KiB slots, odd so blocks differ. */
#define BIG	300001ULL

static void many_pieces_reductions(struct rank_ctx *c)
{
	HcclDataType t = HCCL_DATA_TYPE_FP32;
	void *h = values(t, c->rank, 0, 2 * BIG), *in = dev_copy(c, h, 2 * BIG * 4);
	void *out = dev_copy(c, NULL, 2 * BIG * 4);

	free(h);
	CHECK_OK(c, HcclAllReduce(in, out, 2 * BIG, t, HCCL_REDUCE_SUM, c->comm, c->stream));
	sync_ok(c);
	h = host_of(c, out, 2 * BIG * 4);
	check_values(c, "AllReduce", t, h, 2 * BIG, 0, HCCL_REDUCE_SUM);
	free(h);
	/* in place, as the vendor allows */
	CHECK_OK(c, HcclAllReduce(in, in, BIG, t, HCCL_REDUCE_MAX, c->comm, c->stream));
	sync_ok(c);
	h = host_of(c, in, BIG * 4);
	check_values(c, "AllReduce in place", t, h, BIG, 0, HCCL_REDUCE_MAX);
	free(h);
	aclrtFree(in);
	h = values(t, c->rank, 0, 2 * BIG);
	in = dev_copy(c, h, 2 * BIG * 4);
	free(h);
	CHECK_OK(c, HcclReduce(in, out, 2 * BIG, t, HCCL_REDUCE_PROD, 0, c->comm, c->stream));
	sync_ok(c);
	if (!c->rank) {
		h = host_of(c, out, 2 * BIG * 4);
		check_values(c, "Reduce", t, h, 2 * BIG, 0, HCCL_REDUCE_PROD);
		free(h);
	}
	CHECK_OK(c, HcclReduceScatter(in, out, BIG, t, HCCL_REDUCE_MIN, c->comm, c->stream));
	sync_ok(c);
	h = host_of(c, out, BIG * 4);
	check_values(c, "ReduceScatter", t, h, BIG, c->rank * BIG, HCCL_REDUCE_MIN);
	free(h);
	aclrtFree(in);
	aclrtFree(out);
}

TEST_F_TIMEOUT(ranks, reductions_of_many_pieces, 240)
{
	setenv("HCCL_BUFFSIZE", "1", 1);
	run_ranks(_metadata, many_pieces_reductions);
}

static void many_pieces_moves(struct rank_ctx *c)
{
	HcclDataType t = HCCL_DATA_TYPE_INT8;
	uint64_t n = 5 * BIG, other = 1 - c->rank;
	void *h = values(t, c->rank, 0, 2 * n), *in = dev_copy(c, h, 2 * n);
	void *out = dev_copy(c, NULL, 2 * n);
	uint64_t sc[2], sd[2], rc[2], rd[2];

	free(h);
	CHECK_OK(c, HcclBroadcast(in, n, t, 0, c->comm, c->stream));
	sync_ok(c);
	h = host_of(c, in, n);
	check_values(c, "Broadcast", t, h, n, 0, FROM_RANK(0));
	free(h);
	aclrtFree(in);
	h = values(t, c->rank, 0, 2 * n);
	in = dev_copy(c, h, 2 * n);
	free(h);
	CHECK_OK(c, HcclAllGather(in, out, n, t, c->comm, c->stream));
	sync_ok(c);
	h = host_of(c, out, 2 * n);
	check_values(c, "AllGather 0", t, h, n, 0, FROM_RANK(0));
	check_values(c, "AllGather 1", t, (uint8_t *)h + n, n, 0, FROM_RANK(1));
	free(h);
	/* AlltoAll: block j of rank r goes to rank j */
	CHECK_OK(c, HcclAlltoAll(in, n, t, out, n, t, c->comm, c->stream));
	sync_ok(c);
	h = host_of(c, out, 2 * n);
	check_values(c, "AlltoAll 0", t, h, n, c->rank * n, FROM_RANK(0));
	check_values(c, "AlltoAll 1", t, (uint8_t *)h + n, n, c->rank * n, FROM_RANK(1));
	free(h);
	/* AlltoAllV: rank r sends (r + 1) * n / 2 + j elements to j from offset j */
	for (uint32_t j = 0; j < 2; j++) {
		sc[j] = (c->rank + 1) * n / 2 + j;
		sd[j] = j;
		rc[j] = (j + 1) * n / 2 + c->rank;
		rd[j] = j ? rc[0] : 0;
	}
	CHECK_OK(c, HcclAlltoAllV(in, sc, sd, t, out, rc, rd, t, c->comm, c->stream));
	sync_ok(c);
	h = host_of(c, out, rc[0] + rc[1]);
	check_values(c, "AlltoAllV 0", t, h, rc[0], c->rank, FROM_RANK(0));
	check_values(c, "AlltoAllV 1", t, (uint8_t *)h + rc[0], rc[1], c->rank, FROM_RANK(1));
	free(h);
	/* Send then Recv one way, then both at once with BatchSendRecv */
	if (!c->rank)
		CHECK_OK(c, HcclSend(in, n, t, 1, c->comm, c->stream));
	else
		CHECK_OK(c, HcclRecv(out, n, t, 0, c->comm, c->stream));
	sync_ok(c);
	if (c->rank) {
		h = host_of(c, out, n);
		check_values(c, "Recv", t, h, n, 0, FROM_RANK(0));
		free(h);
	}
	{
		HcclSendRecvItem items[2] = {
			{ HCCL_SEND, in, n, t, (uint32_t)other },
			{ HCCL_RECV, out, n, t, (uint32_t)other },
		};

		CHECK_OK(c, HcclBatchSendRecv(items, 2, c->comm, c->stream));
		sync_ok(c);
		h = host_of(c, out, n);
		check_values(c, "BatchSendRecv", t, h, n, 0, FROM_RANK(other));
		free(h);
	}
	CHECK_OK(c, HcclBarrier(c->comm, c->stream));
	sync_ok(c);
	aclrtFree(in);
	aclrtFree(out);
}

TEST_F_TIMEOUT(ranks, moves_of_many_pieces, 240)
{
	setenv("HCCL_BUFFSIZE", "1", 1);
	run_ranks(_metadata, many_pieces_moves);
}

#define BIG64	(16ULL << 20)	/* float32 elements: 64 MiB */

static void allreduce_64mib(struct rank_ctx *c)
{
	HcclDataType t = HCCL_DATA_TYPE_FP32;
	void *h = values(t, c->rank, 0, BIG64), *in = dev_copy(c, h, BIG64 * 4);

	free(h);
	CHECK_OK(c, HcclAllReduce(in, in, BIG64, t, HCCL_REDUCE_SUM, c->comm, c->stream));
	sync_ok(c);
	h = host_of(c, in, BIG64 * 4);
	check_values(c, "AllReduce 64 MiB", t, h, BIG64, 0, HCCL_REDUCE_SUM);
	free(h);
	aclrtFree(in);
}

TEST_F_TIMEOUT(ranks, allreduce_64_mib, 300)
{
	run_ranks(_metadata, allreduce_64mib);
}

static void bad_arguments(struct rank_ctx *c)
{
	uint32_t n = 0, me = 9;
	void *d = dev_copy(c, NULL, 64), *host = calloc(1, 64);
	HcclResult async = HCCL_E_RESERVED;
	char name[COMM_NAME_MAX_LENGTH];

	CHECK_OK(c, HcclGetRankSize(c->comm, &n));
	CHECK(c, n == 2, "rank size %u", n);
	CHECK_OK(c, HcclGetRankId(c->comm, &me));
	CHECK(c, me == c->rank, "rank id %u", me);
	CHECK_OK(c, HcclGetCommName(c->comm, name));
	CHECK(c, HcclGetRankSize(NULL, &n) == HCCL_E_PTR, "NULL comm");
	CHECK(c, HcclGetRankSize((HcclComm)host, &n) == HCCL_E_PARA, "made-up comm");
	CHECK(c, HcclGetRankSize(c->comm, NULL) == HCCL_E_PTR, "NULL out");
	CHECK(c, HcclGetRootInfo(NULL) == HCCL_E_PTR, "NULL root info");
	CHECK(c, HcclAllReduce(d, d, 4, (HcclDataType)13, HCCL_REDUCE_SUM, c->comm, c->stream) ==
	      HCCL_E_PARA, "type 13");
	CHECK(c, HcclAllReduce(d, d, 4, HCCL_DATA_TYPE_FP32, (HcclReduceOp)7, c->comm, c->stream) ==
	      HCCL_E_PARA, "op 7");
	CHECK(c, HcclAllReduce(host, d, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c->comm,
			       c->stream) == HCCL_E_PARA, "host memory");
	CHECK(c, HcclAllReduce(NULL, d, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c->comm,
			       c->stream) == HCCL_E_PTR, "NULL buffer");
	CHECK(c, HcclAllReduce(d, d, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c->comm, NULL) ==
	      HCCL_E_PTR, "NULL stream");
	CHECK(c, HcclBroadcast(d, 4, HCCL_DATA_TYPE_FP32, 2, c->comm, c->stream) == HCCL_E_PARA,
	      "root 2");
	CHECK(c, HcclSend(d, 4, HCCL_DATA_TYPE_FP32, c->rank, c->comm, c->stream) == HCCL_E_PARA,
	      "send to itself");
	CHECK(c, HcclRecv(d, 4, HCCL_DATA_TYPE_FP32, 5, c->comm, c->stream) == HCCL_E_PARA,
	      "rank 5");
	CHECK(c, strcmp(HcclGetErrorString(HCCL_E_TIMEOUT), "timeout") == 0, "error string");
	/* none of that broke the communicator */
	CHECK_OK(c, HcclGetCommAsyncError(c->comm, &async));
	CHECK(c, async == HCCL_SUCCESS, "async error %d", async);
	CHECK_OK(c, HcclBarrier(c->comm, c->stream));
	sync_ok(c);
	free(host);
	aclrtFree(d);
}

TEST_F(ranks, bad_arguments)
{
	run_ranks(_metadata, bad_arguments);
}

/* Rank 0 waits on its card for rank 1, whose process is then killed. */
static void waits_for_a_peer(struct rank_ctx *c)
{
	void *d = dev_copy(c, NULL, 4096);
	HcclResult async = HCCL_SUCCESS;
	char ready = 1;

	if (c->rank) {
		if (write(c->to_parent, &ready, 1) != 1)
			c->fails++;
		pause();	/* killed here */
	}
	CHECK_OK(c, HcclRecv(d, 1024, HCCL_DATA_TYPE_INT32, 1, c->comm, c->stream));
	if (write(c->to_parent, &ready, 1) != 1)
		c->fails++;
	CHECK(c, aclrtSynchronizeStream(c->stream) != ACL_SUCCESS, "the stream completed");
	CHECK_OK(c, HcclGetCommAsyncError(c->comm, &async));
	CHECK(c, async == (getenv("HCCL_TEST_KILL") ? HCCL_E_REMOTE : HCCL_E_TIMEOUT),
	      "async error %d", async);
	CHECK(c, HcclBarrier(c->comm, c->stream) == async, "a failed communicator works on");
	aclrtFree(d);
}

static void peer_fails(struct __test_metadata *_metadata, bool kill_it)
{
	struct ranks rs;
	int st[NRANKS];
	char b;

	ranks_start(&rs, waits_for_a_peer, waits_for_a_peer);
	ASSERT_EQ(1, read(rs.from[1], &b, 1));
	if (kill_it) {
		ASSERT_EQ(1, read(rs.from[0], &b, 1));
		kill(rs.pid[1], SIGKILL);
	} else {
		/* rank 0 must fail on its own; rank 1 is killed after it */
		int s0 = 0;

		ASSERT_EQ(rs.pid[0], waitpid(rs.pid[0], &s0, 0));
		rs.pid[0] = -1;
		EXPECT_TRUE(WIFEXITED(s0) && WEXITSTATUS(s0) == 0);
		kill(rs.pid[1], SIGKILL);
	}
	ranks_wait(&rs, st);
	if (kill_it)
		EXPECT_EQ(0, st[0]);
	EXPECT_EQ(128 + SIGKILL, st[1]);
}

TEST_F_TIMEOUT(ranks, killed_rank_fails_the_others_calls, 120)
{
	setenv("HCCL_TEST_KILL", "1", 1);
	peer_fails(_metadata, true);
}

TEST_F_TIMEOUT(ranks, exec_timeout_bounds_a_wait, 120)
{
	setenv("HCCL_EXEC_TIMEOUT", "3", 1);
	peer_fails(_metadata, false);
}

/* HcclCommInitAll: both cards' ranks in this one process. */
static int init_all_child(void)
{
	int32_t devs[2] = { 0, 1 };
	HcclComm comms[2] = { 0 };
	aclrtStream s[2];
	void *in[2], *out[2];
	uint64_t count = 1000;
	int fails = 0;

	if (aclInit(NULL) || HcclCommInitAll(2, devs, comms)) {
		fprintf(stderr, "InitAll: %s\n", aclGetRecentErrMsg());
		return 100;
	}
	for (int r = 0; r < 2; r++) {
		void *h = values(HCCL_DATA_TYPE_INT32, (uint32_t)r, 0, count);

		if (aclrtSetDevice(r) || aclrtCreateStream(&s[r]) ||
		    aclrtMalloc(&in[r], count * 4, ACL_MEM_MALLOC_HUGE_FIRST) ||
		    aclrtMalloc(&out[r], count * 4, ACL_MEM_MALLOC_HUGE_FIRST) ||
		    aclrtMemcpy(in[r], count * 4, h, count * 4, ACL_MEMCPY_HOST_TO_DEVICE))
			return 101;
		free(h);
	}
	for (int r = 0; r < 2; r++)
		if (aclrtSetDevice(r) || HcclAllReduce(in[r], out[r], count, HCCL_DATA_TYPE_INT32,
						       HCCL_REDUCE_SUM, comms[r], s[r]))
			return 102;
	for (int r = 0; r < 2; r++) {
		int32_t h[1000];

		if (aclrtSetDevice(r) || aclrtSynchronizeStream(s[r]) ||
		    aclrtMemcpy(h, sizeof(h), out[r], sizeof(h), ACL_MEMCPY_DEVICE_TO_HOST))
			return 103;
		for (uint64_t i = 0; i < count; i++)
			if (h[i] != value_of(0, i) + value_of(1, i)) {
				fprintf(stderr, "rank %d element %llu: %d\n", r,
					(unsigned long long)i, h[i]);
				fails++;
				break;
			}
		aclrtFree(in[r]);
		aclrtFree(out[r]);
		aclrtDestroyStream(s[r]);
	}
	for (int r = 0; r < 2; r++)
		if (HcclCommDestroy(comms[r]))
			fails++;
	aclFinalize();
	return fails;
}

TEST_F_TIMEOUT(ranks, init_all_in_one_process, 120)
{
	pid_t pid = fork();
	int st = 0;

	if (!pid)
		_exit(init_all_child());
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/* The process's open files of the cards: one per device its runtime holds. */
static int card_files(void)
{
	char path[64], target[64];
	int n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		n += !strncmp(target, "/dev/accel/", strlen("/dev/accel/"));
	}
	return n;
}

/*
 * Each rank of HcclCommInitAll sets its device; HcclCommDestroy resets it,
 * so a process that only communicates holds no card after, however often.
 */
static int init_all_destroy_child(void)
{
	int32_t devs[2] = { 0, 1 };
	HcclComm comms[2] = { 0 };
	int before, fails = 0;

	if (aclInit(NULL))
		return 100;
	before = card_files();
	for (int round = 0; round < 3; round++) {
		if (HcclCommInitAll(2, devs, comms)) {
			fprintf(stderr, "InitAll: %s\n", aclGetRecentErrMsg());
			return 101;
		}
		if (card_files() != before + 2) {
			fprintf(stderr, "round %d: %d card files open with 2 ranks, %d before\n",
				round, card_files(), before);
			fails++;
		}
		for (int r = 0; r < 2; r++)
			fails += HcclCommDestroy(comms[r]) != HCCL_SUCCESS;
		if (card_files() != before) {
			fprintf(stderr, "round %d: %d card files open after Destroy, %d before\n",
				round, card_files(), before);
			fails++;
		}
	}
	aclFinalize();
	return fails;
}

TEST_F_TIMEOUT(ranks, init_all_destroy_gives_the_devices_back, 120)
{
	pid_t pid = fork();
	int st = 0;

	if (!pid)
		_exit(init_all_destroy_child());
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/* The vendor's rank table for two devices of one server, as its docs show. */
static const char table_ok[] =
	"{\"status\":\"completed\",\"version\":\"1.0\",\"server_count\":\"1\","
	"\"server_list\":[{\"server_id\":\"node_0\",\"device\":["
	"{\"device_id\":\"0\",\"rank_id\":\"0\"},"
	"{\"device_id\":\"1\",\"rank_id\":\"1\"}]}]}";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void allreduce_small(struct rank_ctx *c)
{
	allreduce_one(c, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, 100);
}

TEST_F_TIMEOUT(ranks, cluster_info_rank_table, 120)
{
	char path[64], port[16];

	snprintf(path, sizeof(path), "/tmp/hccl-table-%d.json", getpid());
	write_file(path, table_ok);
	setenv("HCCL_TEST_RANK_TABLE", path, 1);
	/* a port of its own, so that runs in parallel do not meet */
	snprintf(port, sizeof(port), "%d", 40000 + getpid() % 20000);
	setenv("HCCL_IF_BASE_PORT", port, 1);
	run_ranks(_metadata, allreduce_small);
	unlink(path);
}

TEST(malformed_rank_tables)
{
	static const char *const bad[] = {
		"not json",
		"{\"status\":\"initializing\",\"version\":\"1.0\",\"server_count\":\"0\",\"server_list\":[]}",
		"{\"status\":\"completed\",\"version\":\"2.0\",\"server_count\":\"0\",\"server_list\":[]}",
		"{\"status\":\"completed\",\"version\":\"1.0\",\"server_count\":\"2\",\"server_list\":[]}",
		"{\"status\":\"completed\",\"version\":\"1.0\",\"server_count\":\"1\",\"server_list\":"
		"[{\"server_id\":\"n\",\"device\":[{\"device_id\":\"0\",\"rank_id\":\"1\"}]}]}",
		"{\"status\":\"completed\",\"version\":\"1.0\",\"server_count\":\"1\",\"server_list\":"
		"[{\"server_id\":\"n\",\"device\":[{\"device_id\":\"0\",\"rank_id\":\"0\"},"
		"{\"device_id\":\"1\",\"rank_id\":\"0\"}]}]}",
		"{\"status\":\"completed\",\"version\":\"1.0\",\"server_count\":\"1\",\"server_list\":"
		"[{\"server_id\":\"n\",\"device\":[{\"device_id\":0,\"rank_id\":\"0\"}]}]}",
	};
	char path[64];
	HcclComm comm = NULL;

	snprintf(path, sizeof(path), "/tmp/hccl-bad-%d.json", getpid());
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(path, bad[i]);
		EXPECT_EQ(HCCL_E_PARA, HcclCommInitClusterInfo(path, 0, &comm)) TH_LOG("table %zu", i);
		EXPECT_TRUE(strstr(aclGetRecentErrMsg(), "rank table") != NULL);
	}
	write_file(path, table_ok);
	EXPECT_EQ(HCCL_E_PARA, HcclCommInitClusterInfo(path, 2, &comm));
	unlink(path);
	EXPECT_EQ(HCCL_E_OPEN_FILE_FAILURE, HcclCommInitClusterInfo(path, 0, &comm));
	EXPECT_EQ(HCCL_E_PTR, HcclCommInitClusterInfo(NULL, 0, &comm));
	EXPECT_TRUE(comm == NULL);
}

TEST_HARNESS_MAIN
