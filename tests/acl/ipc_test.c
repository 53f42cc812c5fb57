// SPDX-License-Identifier: MIT
/*
 * Sharing with other processes: IPC memory, notifies and IPC events
 * between a test and a child it forks before either initializes ACL (a
 * child forked later would share the parent's file of the card, and so
 * its driver context). Keys and replies go through pipes. Also: who may
 * import, a killed importer and a killed exporter (the card's memory all
 * comes back), notifies and count notifies in one process, and every bad
 * argument.
 */
#include <signal.h>
#include <sys/wait.h>

#include "acl_test.h"
#include "kselftest_harness.h"

#define SIZE	(64 * 1024)
#define KEY_LEN	65

/* What goes through a pipe: a number and a key. */
struct msg {
	int64_t v;
	char key[KEY_LEN];
};

struct peer {
	pid_t pid;
	int to, from;	/* pipe ends: to the child, from the child */
};

static void send_msg(int fd, int64_t v, const char *key)
{
	struct msg m = { .v = v };

	if (key)
		memcpy(m.key, key, KEY_LEN);
	if (write(fd, &m, sizeof(m)) != sizeof(m))
		_exit(100);
}

static struct msg recv_msg(int fd)
{
	struct msg m = { .v = -1 };

	if (read(fd, &m, sizeof(m)) != sizeof(m))
		m.v = -1;
	return m;
}

/* Forks fn(to_parent, from_parent) before the caller touches ACL. */
static struct peer spawn(void (*fn)(int, int))
{
	int down[2], up[2];
	struct peer p = { .pid = -1 };

	if (pipe(down) || pipe(up))
		return p;
	p.pid = fork();
	if (!p.pid) {
		close(down[1]);
		close(up[0]);
		fn(up[1], down[0]);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	p.to = down[1];
	p.from = up[0];
	return p;
}

/* Exit status of the child, or -1 if it died of a signal. */
static int reap(struct peer *p)
{
	int status;

	close(p->to);
	close(p->from);
	if (waitpid(p->pid, &status, 0) != p->pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void child_init(int out)
{
	if (!acl_ok_init() || aclrtSetDevice(0))
		_exit(90);
	(void)out;
}

static uint64_t devmem_used(void)
{
	char bdf[64];

	if (dev_bdf(0, bdf, sizeof(bdf)))
		return 0;
	return test_card_attr(bdf, "devmem_used");
}

/* Device 0's card as the tests find it, before any process of theirs uses it. */
static uint64_t devmem_used_before_acl(void)
{
	uint64_t used;

	if (!acl_ok_init())
		return 0;
	used = devmem_used();
	aclFinalize();
	return used;
}

/*
 * The importer: sends its pid, gets a key, tries to import it before it
 * is allowed (expecting ACL_ERROR_RT_NO_PERMISSION), then again once the
 * parent says so; checks pattern 1, writes pattern 2, closes.
 */
static void importer_with_pid(int out, int in)
{
	void *p, *again;
	int32_t pid;
	uint8_t *host = malloc(SIZE);
	struct msg m;

	child_init(out);
	if (!host || aclrtDeviceGetBareTgid(&pid))
		_exit(1);
	send_msg(out, pid, NULL);
	m = recv_msg(in);
	if (aclrtIpcMemImportByKey(&p, m.key, 0) != ACL_ERROR_RT_NO_PERMISSION)
		_exit(2);
	send_msg(out, 0, NULL);
	if (recv_msg(in).v || aclrtIpcMemImportByKey(&p, m.key, 0))
		_exit(3);
	/* Importing again gives the same pointer, and takes one more close. */
	if (aclrtIpcMemImportByKey(&again, m.key, 0) || again != p || aclrtIpcMemClose(m.key))
		_exit(4);
	if (aclrtMemcpy(host, SIZE, p, SIZE, ACL_MEMCPY_DEVICE_TO_HOST) ||
	    check_pat(host, SIZE, 1) >= 0)
		_exit(5);
	/* Not this process's allocation: aclrtFree refuses it. */
	if (aclrtFree(p) != ACL_ERROR_INVALID_PARAM)
		_exit(6);
	fill_pat(host, SIZE, 2);
	if (aclrtMemcpy(p, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE))
		_exit(7);
	if (aclrtIpcMemClose(m.key) || aclrtIpcMemClose(m.key) != ACL_ERROR_INVALID_PARAM)
		_exit(8);
	send_msg(out, 0, NULL);
	aclrtResetDevice(0);
	aclFinalize();
	_exit(0);
}

TEST(memory_with_pid)
{
	struct peer child = spawn(importer_with_pid);
	uint8_t *host = malloc(SIZE);
	char key[KEY_LEN];
	int32_t pid;
	void *p;

	ASSERT_GT(child.pid, 0);
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, SIZE, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill_pat(host, SIZE, 1);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(p, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtIpcMemGetExportKey(p, SIZE, key, sizeof(key),
						       ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
	pid = (int32_t)recv_msg(child.from).v;
	EXPECT_EQ(child.pid, pid);
	send_msg(child.to, 0, key);
	ASSERT_EQ(0, recv_msg(child.from).v);
	ASSERT_EQ(ACL_SUCCESS, aclrtIpcMemSetImportPid(key, &pid, 1));
	send_msg(child.to, 0, NULL);
	ASSERT_EQ(0, recv_msg(child.from).v);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, SIZE, p, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pat(host, SIZE, 2));
	EXPECT_EQ(0, reap(&child));
	EXPECT_EQ(ACL_SUCCESS, aclrtIpcMemClose(key));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
	aclrtResetDevice(0);
	aclFinalize();
	free(host);
}

/* Imports a key from the pipe (any process may), checks pattern 3 at offset 4096. */
static void importer_without_pid(int out, int in)
{
	uint8_t host[4096];
	struct msg m;
	void *p;

	child_init(out);
	m = recv_msg(in);
	if (aclrtIpcMemImportByKey(&p, m.key, ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS))
		_exit(1);
	if (aclrtMemcpy(host, sizeof(host), p, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST) ||
	    check_pat(host, sizeof(host), 3) >= 0)
		_exit(2);
	if (aclrtIpcMemClose(m.key))
		_exit(3);
	_exit(0);
}

TEST(memory_without_pid_and_at_an_offset)
{
	struct peer child = spawn(importer_without_pid);
	uint8_t host[4096];
	char key[KEY_LEN];
	uint8_t *p;

	ASSERT_GT(child.pid, 0);
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc((void **)&p, 3 * 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill_pat(host, sizeof(host), 3);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(p + 4096, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtIpcMemGetExportKey(p + 4096, 4096, key, sizeof(key),
				ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	send_msg(child.to, 0, key);
	EXPECT_EQ(0, reap(&child));
	EXPECT_EQ(ACL_SUCCESS, aclrtIpcMemClose(key));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
	aclrtResetDevice(0);
	aclFinalize();
}

/*
 * Imports memory and a notify, says so, and waits on the card for the
 * notify, which nobody records: it is killed mid-wait.
 */
static void importer_killed_mid_wait(int out, int in)
{
	aclrtNotify n;
	aclrtStream s;
	struct msg mem, nfy;
	void *p;

	child_init(out);
	mem = recv_msg(in);
	nfy = recv_msg(in);
	if (aclrtIpcMemImportByKey(&p, mem.key, 0) || aclrtNotifyImportByKey(&n, nfy.key, 0) ||
	    aclrtCreateStream(&s) || aclrtWaitAndResetNotify(n, s, 0) ||
	    aclrtMemsetAsync(p, SIZE, 0x11, SIZE, s))
		_exit(1);
	send_msg(out, 0, NULL);
	aclrtSynchronizeStream(s);
	_exit(2);
}

TEST(killed_importer_gives_everything_back)
{
	uint64_t before = devmem_used_before_acl();
	struct peer child = spawn(importer_killed_mid_wait);
	uint8_t *host = malloc(SIZE);
	char key[KEY_LEN], nkey[KEY_LEN];
	aclrtNotify n;
	void *p;

	ASSERT_GT(child.pid, 0);
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, SIZE, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(p, SIZE, 0x22, SIZE));
	ASSERT_EQ(ACL_SUCCESS, aclrtIpcMemGetExportKey(p, SIZE, key, sizeof(key),
				ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateNotify(&n, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtNotifyGetExportKey(n, nkey, sizeof(nkey),
				ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	send_msg(child.to, 0, key);
	send_msg(child.to, 0, nkey);
	ASSERT_EQ(0, recv_msg(child.from).v);
	kill(child.pid, SIGKILL);
	EXPECT_EQ(-1, reap(&child));

	/* Its memset never ran: the notify was never recorded. */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, SIZE, p, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0x22, host[0]);
	EXPECT_EQ(0x22, host[SIZE - 1]);
	EXPECT_EQ(ACL_SUCCESS, aclrtIpcMemClose(key));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyNotify(n));
	aclrtResetDevice(0);
	aclFinalize();
	EXPECT_TRUE(test_wait_until(devmem_used() == before, TEST_SETTLE_MS))
		TH_LOG("device memory used: %llu, before: %llu",
		       (unsigned long long)devmem_used(), (unsigned long long)before);
	free(host);
}

/* Exports pattern 4 to anyone, sends the key, and waits to be killed. */
static void exporter_killed(int out, int in)
{
	uint8_t *host = malloc(SIZE);
	char key[KEY_LEN];
	void *p;

	(void)in;
	child_init(out);
	fill_pat(host, SIZE, 4);
	if (aclrtMalloc(&p, SIZE, ACL_MEM_MALLOC_NORMAL_ONLY) ||
	    aclrtMemcpy(p, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE) ||
	    aclrtIpcMemGetExportKey(p, SIZE, key, sizeof(key),
				    ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION))
		_exit(1);
	send_msg(out, 0, key);
	pause();
	_exit(2);
}

TEST(killed_exporter_leaves_the_import_valid)
{
	uint64_t before = devmem_used_before_acl();
	struct peer child = spawn(exporter_killed);
	uint8_t *host = malloc(SIZE);
	struct msg m;
	void *p;

	ASSERT_GT(child.pid, 0);
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	m = recv_msg(child.from);
	ASSERT_EQ(0, m.v);
	ASSERT_EQ(ACL_SUCCESS, aclrtIpcMemImportByKey(&p, m.key, 0));
	kill(child.pid, SIGKILL);
	EXPECT_EQ(-1, reap(&child));

	/* The exporter is gone; what it shared is the importer's until it closes. */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, SIZE, p, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pat(host, SIZE, 4));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(p, SIZE, 0x33, SIZE));
	EXPECT_EQ(ACL_SUCCESS, aclrtIpcMemClose(m.key));
	aclrtResetDevice(0);
	aclFinalize();
	EXPECT_TRUE(test_wait_until(devmem_used() == before, TEST_SETTLE_MS));
	free(host);
}

/*
 * Notifies both ways: the child records the parent's notify A, then
 * waits for notify B of the parent before it copies a pattern into the
 * shared memory.
 */
static void notify_peer(int out, int in)
{
	struct msg mem, a, b;
	aclrtNotify na, nb;
	aclrtStream s;
	uint8_t host[4096];
	int32_t pid;
	void *p;

	child_init(out);
	if (aclrtDeviceGetBareTgid(&pid))
		_exit(1);
	send_msg(out, pid, NULL);
	mem = recv_msg(in);
	a = recv_msg(in);
	b = recv_msg(in);
	fill_pat(host, sizeof(host), 5);
	if (aclrtIpcMemImportByKey(&p, mem.key, 0) || aclrtNotifyImportByKey(&na, a.key, 0) ||
	    aclrtNotifyImportByKey(&nb, b.key, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS) ||
	    aclrtCreateStream(&s))
		_exit(2);
	if (aclrtRecordNotify(na, s) || aclrtWaitAndResetNotify(nb, s, 0) ||
	    aclrtMemcpyAsync(p, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE, s) ||
	    aclrtSynchronizeStream(s))
		_exit(3);
	if (aclrtDestroyNotify(na) || aclrtDestroyNotify(nb) || aclrtIpcMemClose(mem.key))
		_exit(4);
	_exit(0);
}

TEST(notifies_between_processes)
{
	struct peer child = spawn(notify_peer);
	char key[KEY_LEN], ka[KEY_LEN], kb[KEY_LEN];
	uint8_t host[4096];
	aclrtNotify a, b;
	aclrtStream s;
	int32_t pid;
	void *p;

	ASSERT_GT(child.pid, 0);
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, sizeof(host), ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(p, sizeof(host), 0, sizeof(host)));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateNotify(&a, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateNotify(&b, 0));
	pid = (int32_t)recv_msg(child.from).v;
	ASSERT_EQ(ACL_SUCCESS, aclrtIpcMemGetExportKey(p, sizeof(host), key, sizeof(key), 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtIpcMemSetImportPid(key, &pid, 1));
	ASSERT_EQ(ACL_SUCCESS, aclrtNotifyGetExportKey(a, ka, sizeof(ka), 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtNotifySetImportPid(a, &pid, 1));
	ASSERT_EQ(ACL_SUCCESS, aclrtNotifyGetExportKey(b, kb, sizeof(kb), 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtNotifySetImportPid(b, &pid, 1));
	send_msg(child.to, 0, key);
	send_msg(child.to, 0, ka);
	send_msg(child.to, 0, kb);

	/* The child's record of A releases this stream; B releases the child's. */
	ASSERT_EQ(ACL_SUCCESS, aclrtWaitAndResetNotify(a, s, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, sizeof(host), p, sizeof(host),
					   ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, host[0]);	/* the child still waits for B */
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordNotify(b, s));
	EXPECT_EQ(0, reap(&child));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, sizeof(host), p, sizeof(host),
					   ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pat(host, sizeof(host), 5));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyNotify(a));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyNotify(b));
	EXPECT_EQ(ACL_SUCCESS, aclrtIpcMemClose(key));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
	aclrtResetDevice(0);
	aclFinalize();
}

/* Opens the parent's IPC event: not complete, then complete once the parent's gate opens. */
static void event_opener(int out, int in)
{
	aclrtEventRecordedStatus st;
	aclrtIpcEventHandle h;
	aclrtEvent e, mine;
	aclrtStream s;
	struct msg m;

	child_init(out);
	m = recv_msg(in);
	memset(&h, 0, sizeof(h));
	memcpy(h.reserved, m.key, sizeof(h.reserved));
	if (aclrtIpcOpenEventHandle(h, &e) || aclrtCreateStream(&s))
		_exit(1);
	if (aclrtQueryEventStatus(e, &st) || st != ACL_EVENT_RECORDED_STATUS_NOT_READY)
		_exit(2);
	/* Opened events are not exported again. */
	if (aclrtIpcGetEventHandle(e, &h) != ACL_ERROR_INVALID_PARAM)
		_exit(3);
	if (aclrtCreateEventExWithFlag(&mine, ACL_EVENT_SYNC) ||
	    aclrtStreamWaitEvent(s, e) || aclrtRecordEvent(mine, s))
		_exit(4);
	send_msg(out, 0, NULL);
	if (aclrtSynchronizeEvent(e) || aclrtSynchronizeStream(s))
		_exit(5);
	if (aclrtQueryEventStatus(e, &st) || st != ACL_EVENT_RECORDED_STATUS_COMPLETE)
		_exit(6);
	if (aclrtDestroyEvent(e) || aclrtDestroyEvent(mine))
		_exit(7);
	_exit(0);
}

TEST(ipc_event)
{
	struct peer child = spawn(event_opener);
	aclrtEventRecordedStatus st;
	aclrtIpcEventHandle h;
	struct gate g;
	aclrtStream s;
	aclrtEvent e, plain;

	ASSERT_GT(child.pid, 0);
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&plain));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(plain, &h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(e, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcOpenEventHandle(h, NULL));
	memset(&h, 0, sizeof(h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcOpenEventHandle(h, &plain));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtIpcGetEventHandle(e, &h));
	send_msg(child.to, 0, h.reserved);
	ASSERT_EQ(0, recv_msg(child.from).v);
	ASSERT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e));
	EXPECT_EQ(0, reap(&child));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(plain));
	gate_fini(&g);
	aclrtResetDevice(0);
	aclFinalize();
}

FIXTURE(one) {
	aclrtStream s1, s2;
	struct gate g;
	void *p;
	char key[KEY_LEN];
};

FIXTURE_SETUP(one)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s2));
	ASSERT_EQ(ACL_SUCCESS, gate_init(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
}

FIXTURE_TEARDOWN(one)
{
	aclrtResetDevice(0);
	aclFinalize();
}

TEST_F(one, memory_bad_arguments)
{
	char *p = self->p, key[KEY_LEN], bad[KEY_LEN];
	int32_t pid = getpid(), nobody = 0x7ffffff0;
	uint32_t ndev = 0;
	void *out;

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(NULL, 64, key, KEY_LEN, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(p, 64, NULL, KEY_LEN, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(p, 0, key, KEY_LEN, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(p, 64, key, KEY_LEN - 1, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(p, 64, key, KEY_LEN, 2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(p, 8192, key, KEY_LEN, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtIpcMemGetExportKey((void *)(uintptr_t)16, 64, key, KEY_LEN, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtIpcMemGetExportKey(p, 4096, key, KEY_LEN, 0));

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(NULL, &pid, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(key, NULL, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(key, &pid, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(key, &nobody, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid("npumem-1-2-3", &pid, 1));
	EXPECT_EQ(ACL_SUCCESS, aclrtIpcMemSetImportPid(key, &pid, 1));

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(NULL, key, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(&out, NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(&out, key, 2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(&out, "no key", 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(&out, "npumem-1-2-3", 0));
	/* This card's serial, a key it never gave. */
	memcpy(bad, key, KEY_LEN);
	bad[24] = bad[24] == '0' ? '1' : '0';
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(&out, bad, 0));
	/* A notify's key is not memory's. */
	memcpy(bad, "npunfy", 6);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(&out, bad, 0));

	/* Another card cannot reach this one's memory: not supported, and said so. */
	if (aclrtGetDeviceCount(&ndev) == ACL_SUCCESS && ndev >= 2) {
		ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
		EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtIpcMemImportByKey(&out, key, 0));
		EXPECT_NE(NULL, strstr(aclGetRecentErrMsg(), "peer access"));
		ASSERT_EQ(ACL_SUCCESS, aclrtResetDevice(1));
		ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	}

	/* The exporter importing its own key gets its own pointer. */
	ASSERT_EQ(ACL_SUCCESS, aclrtIpcMemImportByKey(&out, key, 0));
	EXPECT_EQ(self->p, out);
	EXPECT_EQ(ACL_SUCCESS, aclrtIpcMemClose(key));	/* the import */
	EXPECT_EQ(ACL_SUCCESS, aclrtIpcMemClose(key));	/* the export */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemClose(key));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemClose(NULL));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtIpcMemSetAttr(key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtIpcMemImportPidInterServer(key, NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetBareTgid(NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtDeviceGetBareTgid(&pid));
	EXPECT_EQ(getpid(), pid);
	/* The allocation is still the exporter's to free. */
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(self->p));
}

TEST_F(one, notify_orders_two_streams)
{
	uint8_t host[64];
	aclrtNotify n;
	uint32_t id;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetNotifyId(n, &id));
	/* s2 fills only after s1, held at the gate, has recorded. */
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->p, 64, 1, 64, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordNotify(n, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtWaitAndResetNotify(n, self->s2, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->p, 64, 2, 64, self->s2));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, 64, self->p, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(2, host[0]);

	/* Reset by the wait: a second wait needs a second record. */
	ASSERT_EQ(ACL_SUCCESS, aclrtWaitAndResetNotify(n, self->s2, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->p, 64, 3, 64, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->p, 64, 4, 64));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, 64, self->p, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(4, host[0]);
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordNotify(n, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, 64, self->p, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(3, host[0]);

	/* A batch reset clears a record nobody waited for. */
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordNotify(n, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtNotifyBatchReset(&n, 1));
	ASSERT_EQ(ACL_SUCCESS, aclrtWaitAndResetNotify(n, self->s2, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->p, 64, 5, 64, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->p, 64, 6, 64));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, 64, self->p, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(6, host[0]);
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordNotify(n, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyNotify(n));
}

TEST_F(one, count_notify)
{
	aclrtCntNotifyRecordInfo rec = { ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 5 };
	aclrtCntNotifyWaitInfo wait = { ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 5, 0, 1, {0} };
	uint8_t host[64];
	aclrtCntNotify c;
	uint32_t id;

	ASSERT_EQ(ACL_SUCCESS, aclrtCntNotifyCreate(&c, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCntNotifyGetId(c, &id));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCntNotifyRecord(c, self->s1, &rec));
	ASSERT_EQ(ACL_SUCCESS, aclrtCntNotifyWaitWithTimeout(c, self->s2, &wait));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->p, 64, 7, 64, self->s2));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, 64, self->p, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(7, host[0]);

	/* isClear reset it to 0: equal to 3 waits for a record of 3, not of 2. */
	wait = (aclrtCntNotifyWaitInfo){ ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 3, 0, 0, {0} };
	ASSERT_EQ(ACL_SUCCESS, aclrtCntNotifyWaitWithTimeout(c, self->s2, &wait));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->p, 64, 8, 64, self->s2));
	rec.value = 2;
	ASSERT_EQ(ACL_SUCCESS, aclrtCntNotifyRecord(c, self->s1, &rec));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->p, 64, 9, 64));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, 64, self->p, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(9, host[0]);
	rec.value = 3;
	ASSERT_EQ(ACL_SUCCESS, aclrtCntNotifyRecord(c, self->s1, &rec));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, 64, self->p, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(8, host[0]);
	/* Bigger than 3 after a reset to 0 waits for a 4. */
	ASSERT_EQ(ACL_SUCCESS, aclrtCntNotifyReset(c, self->s1));
	wait = (aclrtCntNotifyWaitInfo){ ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE, 3, 0, 0, {0} };
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCntNotifyWaitWithTimeout(c, self->s2, &wait));
	rec.value = 4;
	ASSERT_EQ(ACL_SUCCESS, aclrtCntNotifyRecord(c, self->s1, &rec));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	EXPECT_EQ(ACL_SUCCESS, aclrtCntNotifyDestroy(c));
}

TEST_F(one, notify_bad_arguments)
{
	aclrtCntNotifyRecordInfo rec = { ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1 };
	aclrtCntNotifyWaitInfo wait = { ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE, 1, 0, 0, {0} };
	char key[KEY_LEN];
	int32_t pid = getpid();
	aclrtNotify n, out;
	aclrtCntNotify c;
	uint32_t id;

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateNotify(NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateNotify(&n, 2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyCreate(&c, ACL_NOTIFY_DEVICE_USE_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateNotify(&n, ACL_NOTIFY_DEVICE_USE_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtCntNotifyCreate(&c, 0));
	/* A notify is not a count notify, nor the other way round. */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRecordNotify(c, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyReset(n, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRecordNotify(NULL, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtWaitAndResetNotify((aclrtNotify)0x42, self->s1, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetNotifyId(n, NULL));
	/* The card's wait has no deadline to give it. */
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtWaitAndResetNotify(n, self->s1, 1));
	EXPECT_NE(NULL, strstr(aclGetRecentErrMsg(), "pass 0"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyBatchReset(NULL, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyBatchReset(&n, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyBatchReset(&c, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPid(n, &pid, 1));	/* not exported */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyGetExportKey(n, NULL, KEY_LEN, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyGetExportKey(n, key, KEY_LEN - 1, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyGetExportKey(n, key, KEY_LEN, 1));
	ASSERT_EQ(ACL_SUCCESS, aclrtNotifyGetExportKey(n, key, KEY_LEN, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPid(n, NULL, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(NULL, key, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(&out, key, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(&out, "npunfy-x", 0));
	/* This process's own notify is not imported. */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(&out, key, 0));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtNotifySetImportPidInterServer(n, NULL, 0));

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyRecord(c, self->s1, NULL));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCntNotifyRecord(c, self->s1, &rec));
	rec.mode = 3;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyRecord(c, self->s1, &rec));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyWaitWithTimeout(c, self->s1, NULL));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCntNotifyWaitWithTimeout(c, self->s1, &wait));
	wait.mode = ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE;
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCntNotifyWaitWithTimeout(c, self->s1, &wait));
	wait.mode = 9;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyWaitWithTimeout(c, self->s1, &wait));
	wait.mode = ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE;
	wait.isClear = 2;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyWaitWithTimeout(c, self->s1, &wait));
	wait.isClear = 0;
	wait.timeout = 5;
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtCntNotifyWaitWithTimeout(c, self->s1, &wait));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyGetId(c, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtCntNotifyGetId(c, &id));

	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyNotify(n));
	/* A destroyed notify's handle does not name the next one made. */
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateNotify(&out, 0));
	EXPECT_NE(n, out);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRecordNotify(n, self->s1));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyNotify(out));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyNotify(n));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyDestroy(n));
	EXPECT_EQ(ACL_SUCCESS, aclrtCntNotifyDestroy(c));
}

TEST_HARNESS_MAIN
