// SPDX-License-Identifier: GPL-2.0
/*
 * The QEMU side of the card, for host tests: see card_client.h.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "card_client.h"

uint64_t client_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void client_default_opts(struct client_opts *o)
{
	*o = (struct client_opts) {
		.ram_size = 64 * MiB,
		.lowmem = 48 * MiB,	/* the top 16 MiB sit above 4 GiB */
		.bar_size = 64 * MiB,
		.rings = 16,
		.vectors = NPU_DEFAULT_NUM_VECTORS,
		.copy_engines = 2,
		.compute_engines = 2,
		.serial = 0x5e41a1,
		.fetch_poll_us = -1,
	};
}

const char *client_card_path(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("NPU_CARD");
	char *slash;
	ssize_t n;

	if (env && *env)
		return env;
	if (access("build/npu-card", X_OK) == 0)
		return "build/npu-card";
	/* build/tests/card_test -> build/npu-card */
	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n > 0) {
		path[n] = '\0';
		slash = strrchr(path, '/');
		if (slash) {
			strcpy(slash, "/../npu-card");
			return path;
		}
	}
	return "build/npu-card";
}

/* Tells apart the cards one test process starts. */
static unsigned int seq;

static int make_guest_ram(struct client *c)
{
	snprintf(c->ram_path, sizeof(c->ram_path), "/dev/shm/npu-test-ram-%d-%u",
		 getpid(), seq);
	c->ram_fd = open(c->ram_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			 0600);
	if (c->ram_fd < 0)
		return -1;
	if (ftruncate(c->ram_fd, c->opts.ram_size))
		return -1;
	c->ram = mmap(NULL, c->opts.ram_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED, c->ram_fd, 0);
	if (c->ram == MAP_FAILED) {
		c->ram = NULL;
		return -1;
	}
	return 0;
}

static void spawn_card(struct client *c, pid_t parent)
{
	char ram[32], low[32], bar[32], rings[16], vecs[16], eng[16], ser[32];
	char ops[16], poll_us[16];
	const char *argv[32];
	int n = 0;

	snprintf(ram, sizeof(ram), "%llu", (unsigned long long)c->opts.ram_size);
	snprintf(low, sizeof(low), "%llu", (unsigned long long)c->opts.lowmem);
	snprintf(bar, sizeof(bar), "%llu", (unsigned long long)c->opts.bar_size);
	snprintf(rings, sizeof(rings), "%u", c->opts.rings);
	snprintf(vecs, sizeof(vecs), "%u", c->opts.vectors);
	snprintf(eng, sizeof(eng), "%u", c->opts.copy_engines);
	snprintf(ops, sizeof(ops), "%u", c->opts.compute_engines);
	snprintf(ser, sizeof(ser), "%#llx", (unsigned long long)c->opts.serial);

	argv[n++] = client_card_path();
	argv[n++] = "--socket";		argv[n++] = c->sock_path;
	argv[n++] = "--guest-ram";	argv[n++] = c->ram_path;
	argv[n++] = "--ram-size";	argv[n++] = ram;
	argv[n++] = "--lowmem";		argv[n++] = low;
	argv[n++] = "--bar-size";	argv[n++] = bar;
	argv[n++] = "--rings";		argv[n++] = rings;
	argv[n++] = "--vectors";	argv[n++] = vecs;
	argv[n++] = "--copy-engines";	argv[n++] = eng;
	argv[n++] = "--compute-engines"; argv[n++] = ops;
	argv[n++] = "--serial";		argv[n++] = ser;
	if (c->opts.fetch_poll_us >= 0) {
		snprintf(poll_us, sizeof(poll_us), "%d", c->opts.fetch_poll_us);
		argv[n++] = "--fetch-poll-us";	argv[n++] = poll_us;
	}
	if (c->opts.fenced_guest)
		argv[n++] = "--fenced-guest";
	if (c->opts.peer_dir) {
		argv[n++] = "--peer-dir";	argv[n++] = c->opts.peer_dir;
	}
	if (getenv("NPU_CARD_VERBOSE"))
		argv[n++] = "--verbose";
	argv[n] = NULL;

	/*
	 * A test that hangs is killed by the harness together with its
	 * process group, which includes us.  A test that ends without
	 * disconnecting (the harness skips the teardown after a failed
	 * ASSERT) takes the card with it: a healthy card would exit on the
	 * closed socket anyway, but a stuck one would linger for good and
	 * keep the harness's output pipe open.  Its socket stays behind;
	 * the next card replaces a stale one.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	execv(argv[0], (char **)argv);
	fprintf(stderr, "cannot run %s: %m\n", argv[0]);
	_exit(127);
}

/* The card needs a moment to create its socket. */
static int connect_card(struct client *c, int timeout_ms)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	uint64_t deadline = client_now_us() + timeout_ms * 1000ULL;
	int fd;

	strcpy(addr.sun_path, c->sock_path);
	while (client_now_us() < deadline) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			return fd;
		close(fd);
		if (waitpid(c->pid, &c->exit_status, WNOHANG) == c->pid) {
			c->pid = 0;
			return -1;
		}
		usleep(1000);
	}
	return -1;
}

/* One ivshmem message: an 8-byte number, maybe with a descriptor. */
static int recv_msg(int conn, int64_t *value, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = value, .iov_len = sizeof(*value) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg;
	struct pollfd pfd = { .fd = conn, .events = POLLIN };

	if (poll(&pfd, 1, 2000) != 1)
		return -1;
	if (recvmsg(conn, &msg, MSG_WAITALL | MSG_CMSG_CLOEXEC) !=
	    sizeof(*value))
		return -1;
	*value = le64toh(*value);
	*fd = -1;
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
	return 0;
}

/* Expect value (and a descriptor iff want_fd). */
static int expect_msg(struct client *c, int64_t want, bool want_fd,
		      int *fd)
{
	int64_t value;
	int got;

	if (recv_msg(c->conn, &value, &got))
		return -1;
	if (value != want || (got >= 0) != want_fd) {
		fprintf(stderr, "handshake: got %lld fd %d, want %lld\n",
			(long long)value, got, (long long)want);
		if (got >= 0)
			close(got);
		return -1;
	}
	if (fd)
		*fd = got;
	return 0;
}

static int handshake(struct client *c)
{
	struct stat st;
	uint32_t v;

	if (expect_msg(c, 0, false, NULL) ||	/* version */
	    expect_msg(c, 0, false, NULL) ||	/* our id */
	    expect_msg(c, -1, true, &c->shm_fd))
		return -1;
	for (v = 0; v < c->vectors; v++)
		if (expect_msg(c, 1, true, &c->to_card[v]))
			return -1;
	for (v = 0; v < c->vectors; v++)
		if (expect_msg(c, 0, true, &c->to_guest[v]))
			return -1;

	if (fstat(c->shm_fd, &st))
		return -1;
	c->bar_size = st.st_size;
	c->bar = mmap(NULL, c->bar_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->shm_fd, 0);
	if (c->bar == MAP_FAILED) {
		c->bar = NULL;
		return -1;
	}
	return 0;
}

/* What a crashed card leaves behind: a socket file nobody listens on. */
static int make_stale_socket(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), ret;

	if (fd < 0)
		return -1;
	strcpy(addr.sun_path, path);
	ret = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	close(fd);
	return ret;
}

int client_start(struct client *c, const struct client_opts *o)
{
	pid_t parent;
	uint32_t v;

	memset(c, 0, sizeof(*c));
	c->opts = *o;
	c->ram_fd = -1;
	c->conn = -1;
	c->shm_fd = -1;
	c->vectors = o->vectors;
	for (v = 0; v < CLIENT_MAX_VECTORS; v++) {
		c->to_card[v] = -1;
		c->to_guest[v] = -1;
	}
	c->low_next = 1 * MiB;
	c->high_next = CLIENT_HIGHMEM_BASE;
	if (c->vectors > CLIENT_MAX_VECTORS)
		return -1;
	seq++;

	snprintf(c->sock_path, sizeof(c->sock_path),
		 "/tmp/npu-card-test-%d-%u-%08x.sock", getpid(), seq,
		 (unsigned int)(client_now_us() * 2654435761u));
	if (make_guest_ram(c))
		return -1;
	if (o->stale_socket && make_stale_socket(c->sock_path))
		return -1;

	c->spawn_us = client_now_us();
	parent = getpid();
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0)
		spawn_card(c, parent);

	c->conn = connect_card(c, 10000);
	if (c->conn < 0)
		return -1;
	if (handshake(c))
		return -1;
	/*
	 * The card has the RAM file open and mapped by now: unlink it, so
	 * that nothing is left in /dev/shm even if the test dies (the
	 * harness skips the teardown of a test that fails an ASSERT).
	 */
	unlink(c->ram_path);
	c->ram_path[0] = '\0';
	return 0;
}

bool client_reap(struct client *c, int timeout_ms)
{
	uint64_t deadline = client_now_us() + timeout_ms * 1000ULL;

	if (!c->pid)
		return true;
	for (;;) {
		if (waitpid(c->pid, &c->exit_status, WNOHANG) == c->pid) {
			c->pid = 0;
			return true;
		}
		if (client_now_us() >= deadline)
			return false;
		usleep(1000);
	}
}

int client_disconnect(struct client *c, int timeout_ms)
{
	if (c->conn >= 0)
		close(c->conn);
	c->conn = -1;
	if (!client_reap(c, timeout_ms)) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &c->exit_status, 0);
		c->pid = 0;
		return -1;
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void client_cleanup(struct client *c)
{
	uint32_t v;

	client_disconnect(c, 2000);
	for (v = 0; v < CLIENT_MAX_VECTORS; v++) {
		close_fd(&c->to_card[v]);
		close_fd(&c->to_guest[v]);
	}
	if (c->bar)
		munmap(c->bar, c->bar_size);
	c->bar = NULL;
	close_fd(&c->shm_fd);
	if (c->ram)
		munmap(c->ram, c->opts.ram_size);
	c->ram = NULL;
	close_fd(&c->ram_fd);
	if (c->ram_path[0])
		unlink(c->ram_path);
	c->ram_path[0] = '\0';
	if (c->sock_path[0])
		unlink(c->sock_path);	/* only if the card left it */
}

/* Registers: the guest's uncached MMIO is shared memory here. */
uint32_t client_reg_rd32(struct client *c, uint32_t off)
{
	return le32toh(__atomic_load_n((uint32_t *)(c->bar + off),
				       __ATOMIC_ACQUIRE));
}

uint64_t client_reg_rd64(struct client *c, uint32_t off)
{
	return le64toh(__atomic_load_n((uint64_t *)(c->bar + off),
				       __ATOMIC_ACQUIRE));
}

void client_reg_wr32(struct client *c, uint32_t off, uint32_t v)
{
	__atomic_store_n((uint32_t *)(c->bar + off), htole32(v),
			 __ATOMIC_RELEASE);
}

void client_reg_wr64(struct client *c, uint32_t off, uint64_t v)
{
	__atomic_store_n((uint64_t *)(c->bar + off), htole64(v),
			 __ATOMIC_RELEASE);
}

static uint32_t ring_off(unsigned int ring, uint32_t off)
{
	return NPU_RING_REG(ring, off);
}

uint32_t client_ring_rd32(struct client *c, unsigned int ring, uint32_t off)
{
	return client_reg_rd32(c, ring_off(ring, off));
}

uint64_t client_ring_rd64(struct client *c, unsigned int ring, uint32_t off)
{
	return client_reg_rd64(c, ring_off(ring, off));
}

void client_ring_wr32(struct client *c, unsigned int ring, uint32_t off,
		      uint32_t v)
{
	client_reg_wr32(c, ring_off(ring, off), v);
}

void client_ring_wr64(struct client *c, unsigned int ring, uint32_t off,
		      uint64_t v)
{
	client_reg_wr64(c, ring_off(ring, off), v);
}

bool client_reg_wait32(struct client *c, uint32_t off, uint32_t mask,
		       uint32_t want, int timeout_ms)
{
	uint64_t deadline = client_now_us() + timeout_ms * 1000ULL;

	for (;;) {
		if ((client_reg_rd32(c, off) & mask) == want)
			return true;
		if (client_now_us() >= deadline)
			return false;
		usleep(20);
	}
}

void client_doorbell(struct client *c, uint32_t vector)
{
	uint64_t one = 1;

	if (write(c->to_card[vector], &one, sizeof(one)) != sizeof(one))
		abort();
}

/* Interrupts raised on vector since the last take; never blocks. */
uint64_t client_irq_take(struct client *c, uint32_t vector)
{
	uint64_t count;

	if (read(c->to_guest[vector], &count, sizeof(count)) != sizeof(count))
		return 0;
	return count;
}

uint64_t client_irq_wait(struct client *c, uint32_t vector, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->to_guest[vector], .events = POLLIN };

	if (poll(&pfd, 1, timeout_ms) != 1)
		return 0;
	return client_irq_take(c, vector);
}

uint8_t *client_gpa_ptr(struct client *c, uint64_t gpa)
{
	if (gpa < CLIENT_HIGHMEM_BASE)
		return c->ram + gpa;
	return c->ram + c->opts.lowmem + (gpa - CLIENT_HIGHMEM_BASE);
}

uint8_t *client_dev_ptr(struct client *c, uint64_t off)
{
	return c->bar + client_reg_rd64(c, NPU_ID_DEVMEM_OFFSET) + off;
}

uint64_t client_devmem_size(struct client *c)
{
	return client_reg_rd64(c, NPU_ID_DEVMEM_SIZE);
}

static uint64_t align_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

uint64_t client_host_alloc(struct client *c, uint64_t size, uint64_t align)
{
	uint64_t gpa = align_up(c->low_next, align ? align : 1);

	if (gpa + size > c->opts.lowmem)
		abort();
	c->low_next = gpa + size;
	return gpa;
}

uint64_t client_host_alloc_high(struct client *c, uint64_t size,
				uint64_t align)
{
	uint64_t gpa = align_up(c->high_next, align ? align : 1);

	if (gpa + size > CLIENT_HIGHMEM_BASE + c->opts.ram_size - c->opts.lowmem)
		abort();
	c->high_next = gpa + size;
	return gpa;
}

uint64_t client_word_rd(uint8_t *p)
{
	return le64toh(__atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE));
}

void client_word_wr(uint8_t *p, uint64_t v)
{
	__atomic_store_n((uint64_t *)p, htole64(v), __ATOMIC_RELEASE);
}

bool client_ctrl_ring_reset(struct client *c, unsigned int ring)
{
	client_ring_wr32(c, ring, NPU_RING_CTRL, NPU_RING_CTRL_RESET);
	client_doorbell(c, 0);
	return client_reg_wait32(c, ring_off(ring, NPU_RING_CTRL), ~0u, 0, CLIENT_CTRL_MS);
}

bool client_ctrl_global_reset(struct client *c)
{
	client_reg_wr32(c, NPU_GLB_CTRL, NPU_GLB_CTRL_RESET);
	client_doorbell(c, 0);
	return client_reg_wait32(c, NPU_GLB_CTRL, NPU_GLB_CTRL_RESET, 0, CLIENT_CTRL_MS);
}

bool client_ctrl_inject(struct client *c, unsigned int ring,
			enum npu_fault kind, uint32_t arg)
{
	client_reg_wr32(c, NPU_INJ_RING, ring);
	client_reg_wr32(c, NPU_INJ_KIND, kind);
	client_reg_wr32(c, NPU_INJ_ARG, arg);
	client_reg_wr32(c, NPU_INJ_CTRL, NPU_INJ_CTRL_GO);
	client_doorbell(c, 0);
	return client_reg_wait32(c, NPU_INJ_CTRL, NPU_INJ_CTRL_GO, 0, CLIENT_CTRL_MS);
}

bool client_ring_wait_status(struct client *c, unsigned int ring,
			     uint32_t status, int timeout_ms)
{
	return client_reg_wait32(c, ring_off(ring, NPU_RING_STATUS), ~0u, status,
				 timeout_ms);
}

uint64_t client_shadows_enable(struct client *c)
{
	uint64_t base = client_host_alloc(c, c->opts.rings *
					  sizeof(struct npu_ring_shadow), 64);

	memset(client_gpa_ptr(c, base), 0,
	       c->opts.rings * sizeof(struct npu_ring_shadow));
	client_reg_wr64(c, NPU_SHADOW_BASE, base);
	return base;
}

struct npu_ring_shadow *client_shadow(struct client *c, uint64_t base,
				      unsigned int ring)
{
	return (struct npu_ring_shadow *)client_gpa_ptr(c, base +
		ring * sizeof(struct npu_ring_shadow));
}

bool client_ring_setup(struct client *c, struct client_ring *r,
		       unsigned int idx, uint32_t size, uint32_t vector)
{
	uint64_t shadows = client_reg_rd64(c, NPU_SHADOW_BASE);

	r->idx = idx;
	r->size = size;
	r->vector = vector;
	r->tail = 0;
	r->doorbells = 0;
	r->quiet = 0;
	r->base = client_host_alloc(c, (uint64_t)size * sizeof(struct npu_cmd),
				    64);
	r->shadow = shadows ? client_shadow(c, shadows, idx) : NULL;

	if (!client_ctrl_ring_reset(c, idx))
		return false;
	if (r->shadow)
		memset(r->shadow, 0, sizeof(*r->shadow));
	client_ring_wr64(c, idx, NPU_RING_BASE, r->base);
	client_ring_wr32(c, idx, NPU_RING_SIZE, size);
	client_ring_wr32(c, idx, NPU_RING_VECTOR, vector);
	client_ring_wr32(c, idx, NPU_RING_TAIL, 0);
	client_ring_wr32(c, idx, NPU_RING_CTRL, NPU_RING_CTRL_ENABLE);
	client_doorbell(c, 0);
	return client_ring_wait_status(c, idx, NPU_RING_IDLE, CLIENT_CTRL_MS);
}

void client_ring_push(struct client *c, struct client_ring *r,
		      const struct npu_cmd *cmd)
{
	uint64_t slot = r->tail & (r->size - 1);

	memcpy(client_gpa_ptr(c, r->base + slot * sizeof(*cmd)), cmd,
	       sizeof(*cmd));
	r->tail++;
}

bool client_ring_fetching(struct client_ring *r)
{
	return __atomic_load_n(&r->shadow->fetching, __ATOMIC_ACQUIRE) != 0;
}

static void ring_submit(struct client *c, struct client_ring *r, bool fence)
{
	if (!r->shadow) {
		/* release: the commands are in memory before the card sees TAIL */
		client_ring_wr32(c, r->idx, NPU_RING_TAIL, r->tail);
		client_doorbell(c, r->vector);
		return;
	}
	__atomic_store_n(&r->shadow->tail, htole32(r->tail), __ATOMIC_RELEASE);
	/* the driver's mb(): the card's last look, or our doorbell */
	if (fence)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (client_ring_fetching(r)) {
		r->quiet++;
	} else {
		r->doorbells++;
		client_doorbell(c, r->vector);
	}
}

void client_ring_submit(struct client *c, struct client_ring *r)
{
	ring_submit(c, r, true);
}

void client_ring_submit_unfenced(struct client *c, struct client_ring *r)
{
	ring_submit(c, r, false);
}

bool client_ring_wait_head(struct client *c, struct client_ring *r,
			   uint32_t head, int timeout_ms)
{
	return client_reg_wait32(c, ring_off(r->idx, NPU_RING_HEAD), ~0u, head,
				 timeout_ms);
}

bool client_ring_run(struct client *c, struct client_ring *r,
		     const struct npu_cmd *cmd, int timeout_ms)
{
	client_ring_push(c, r, cmd);
	client_ring_submit(c, r);
	return client_ring_wait_head(c, r, r->tail, timeout_ms);
}

struct npu_cmd client_cmd_nop(uint16_t flags)
{
	return (struct npu_cmd) {
		.opcode = htole16(NPU_OP_NOP), .flags = htole16(flags),
	};
}

struct npu_cmd client_cmd_copy(uint64_t dst, uint64_t src, uint64_t size,
			       uint16_t flags)
{
	return (struct npu_cmd) {
		.opcode = htole16(NPU_OP_COPY), .flags = htole16(flags),
		.dst = htole64(dst), .src = htole64(src),
		.size = htole64(size),
	};
}

struct npu_cmd client_cmd_fill(uint64_t dst, uint64_t size, uint8_t byte,
			       uint16_t flags)
{
	return (struct npu_cmd) {
		.opcode = htole16(NPU_OP_FILL), .flags = htole16(flags),
		.arg = htole32(byte), .dst = htole64(dst),
		.size = htole64(size),
	};
}

struct npu_cmd client_cmd_fence(uint64_t dst, uint64_t value, uint16_t flags)
{
	return (struct npu_cmd) {
		.opcode = htole16(NPU_OP_FENCE), .flags = htole16(flags),
		.dst = htole64(dst), .value = htole64(value),
	};
}

struct npu_cmd client_cmd_wait(uint64_t dst, uint64_t value,
			       enum npu_wait_cond cond, uint16_t flags)
{
	return (struct npu_cmd) {
		.opcode = htole16(NPU_OP_WAIT), .flags = htole16(flags),
		.arg = htole32(cond), .dst = htole64(dst),
		.value = htole64(value),
	};
}

struct npu_cmd client_cmd_timestamp(uint64_t dst, uint16_t flags)
{
	return (struct npu_cmd) {
		.opcode = htole16(NPU_OP_TIMESTAMP), .flags = htole16(flags),
		.dst = htole64(dst),
	};
}

struct npu_cmd client_cmd_compute(uint64_t desc, uint64_t size, uint16_t flags)
{
	return (struct npu_cmd) {
		.opcode = htole16(NPU_OP_COMPUTE), .flags = htole16(flags),
		.src = htole64(desc), .size = htole64(size),
	};
}

struct npu_op_desc *client_op_init(struct client *c, uint64_t gpa,
				   uint16_t kind, uint8_t num_inputs)
{
	struct npu_op_desc *d = (struct npu_op_desc *)client_gpa_ptr(c, gpa);

	memset(d, 0, sizeof(*d) +
	       (num_inputs + 1) * sizeof(struct npu_tensor_desc));
	d->kind = htole16(kind);
	d->num_inputs = num_inputs;
	d->num_outputs = 1;
	return d;
}

/* Tensor i (inputs first, then the output): float32, row-major. */
void client_op_tensor(struct npu_op_desc *d, unsigned int i, uint64_t addr,
		      unsigned int ndims, const uint64_t *dims)
{
	struct npu_tensor_desc *t = &d->tensors[i];
	uint64_t stride = 1;
	int k;

	memset(t, 0, sizeof(*t));
	t->addr = htole64(addr);
	t->dtype = htole16(NPU_DTYPE_F32);
	t->format = htole16(NPU_FORMAT_STRIDED);
	t->ndims = htole16(ndims);
	for (k = (int)ndims - 1; k >= 0; k--) {
		t->dims[k] = htole64(dims[k]);
		t->strides[k] = htole64(stride);
		stride *= dims[k];
	}
}

uint64_t client_op_size(const struct npu_op_desc *d)
{
	return sizeof(*d) + (d->num_inputs + d->num_outputs) *
			    sizeof(struct npu_tensor_desc);
}

int client_mmu_cmd(struct client *c, uint32_t cmd, uint32_t index,
		   uint64_t addr, uint64_t size)
{
	client_reg_wr32(c, NPU_MMU_CMD, cmd);
	client_reg_wr32(c, NPU_MMU_CMD_INDEX, index);
	client_reg_wr64(c, NPU_MMU_CMD_ADDR, addr);
	client_reg_wr64(c, NPU_MMU_CMD_SIZE, size);
	client_reg_wr32(c, NPU_MMU_CMD_CTRL, NPU_MMU_CMD_CTRL_GO);
	client_doorbell(c, 0);
	if (!client_reg_wait32(c, NPU_MMU_CMD_CTRL, NPU_MMU_CMD_CTRL_GO, 0,
			       CLIENT_CTRL_MS))
		return -1;
	return client_reg_rd32(c, NPU_MMU_CMD_STATUS);
}

uint64_t client_pt_new(struct client *c)
{
	uint64_t gpa = client_host_alloc(c, NPU_MMU_PAGE_SIZE, NPU_MMU_PAGE_SIZE);

	memset(client_gpa_ptr(c, gpa), 0, NPU_MMU_PAGE_SIZE);
	return gpa;
}

void client_pt_map(struct client *c, uint64_t root, uint64_t va,
		   unsigned int level, uint64_t pte)
{
	uint64_t table = root;
	unsigned int l;

	for (l = 0;; l++) {
		unsigned int shift = 12 + 9 * (NPU_MMU_LEVELS - 1 - l);
		uint64_t *e = (uint64_t *)client_gpa_ptr(c, table) +
			      ((va >> shift) & (NPU_MMU_ENTRIES - 1));

		if (l == level) {
			client_word_wr((uint8_t *)e, pte);
			return;
		}
		if (!(client_word_rd((uint8_t *)e) & NPU_PTE_VALID))
			client_word_wr((uint8_t *)e, client_pt_new(c) | NPU_PTE_VALID);
		table = client_word_rd((uint8_t *)e) & NPU_PTE_ADDR_MASK;
	}
}

/* xorshift64*: plenty for test data, and reproducible. */
uint64_t client_rnd_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

void client_rnd_fill(uint64_t *state, void *buf, uint64_t len)
{
	uint8_t *p = buf;
	uint64_t v;

	while (len >= 8) {
		v = client_rnd_next(state);
		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	v = client_rnd_next(state);
	memcpy(p, &v, len);
}
