// SPDX-License-Identifier: MIT
/*
 * Bootstrap: HcclGetRootInfo listens on the root's address (HCCL_IF_IP,
 * else the host's first IPv4 address other than loopback; port
 * HCCL_IF_BASE_PORT and up, else any) and serves one communicator from a
 * thread of its own: every rank connects, says who it is, and gets every
 * rank's info back. Control messages only; the thread ends once it has
 * answered all ranks or HCCL_CONNECT_TIMEOUT passes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hccl_internal.h"
#include "bootstrap_io.h"

#define ROOT_MAGIC	0x48434c52544f4f31ULL	/* "HCLRTOO1" */
#define HELLO_MAGIC	0x48434c48454c4c4fULL

struct hello {
	uint64_t magic, id;
	uint32_t nranks;
	uint32_t pad;
	struct hccl_rank_info info;
};

/* The root's answer: status (an HcclResult) then, if 0, nranks infos. */
struct answer {
	uint64_t magic;
	int32_t status;
	uint32_t pad;
};

struct server {
	int lfd;
	uint64_t id;
	int timeout_ms;
};

int64_t hccl_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int hccl_io_full(int fd, void *buf, size_t len, bool out, int64_t deadline_ms)
{
	uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = out ? POLLOUT : POLLIN };
		int64_t left = deadline_ms - hccl_now_ms();
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
			return -errno;
		if (!pfd.revents)
			continue;
		n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void answer_one(int fd, int32_t status, const struct hccl_rank_info *all, uint32_t n,
		       int64_t deadline)
{
	struct answer a = { .magic = HELLO_MAGIC, .status = status };

	if (!hccl_io_full(fd, &a, sizeof(a), true, deadline) && !status)
		hccl_io_full(fd, (void *)all, n * sizeof(*all), true, deadline);
}

/* Takes a hello from fd into the table; an HcclResult for that rank. */
static int32_t take_hello(struct server *s, int fd, struct hccl_rank_info **all, uint32_t *nranks,
			  int **fds, int64_t deadline)
{
	struct hello h;
	uint32_t r;

	if (hccl_io_full(fd, &h, sizeof(h), false, deadline) || h.magic != HELLO_MAGIC)
		return -1;	/* not a rank: drop the connection */
	if (h.id != s->id)
		return HCCL_E_PARA;
	if (!*nranks) {
		if (!h.nranks || h.nranks > 65536)
			return HCCL_E_PARA;
		*all = calloc(h.nranks, sizeof(**all));
		*fds = malloc(h.nranks * sizeof(**fds));
		if (!*all || !*fds) {
			free(*all);
			free(*fds);
			*all = NULL;
			*fds = NULL;
			return HCCL_E_MEMORY;
		}
		*nranks = h.nranks;
		for (r = 0; r < h.nranks; r++)
			(*fds)[r] = -1;
	}
	r = h.info.rank;
	if (h.nranks != *nranks || r >= *nranks || (*fds)[r] >= 0)
		return HCCL_E_PARA;
	(*all)[r] = h.info;
	(*fds)[r] = fd;
	return HCCL_SUCCESS;
}

static void *serve(void *arg)
{
	struct server *s = arg;
	int64_t deadline = hccl_now_ms() + s->timeout_ms;
	struct hccl_rank_info *all = NULL;
	uint32_t nranks = 0, joined = 0, r;
	int *fds = NULL;

	while (!nranks || joined < nranks) {
		struct pollfd pfd = { .fd = s->lfd, .events = POLLIN };
		int64_t left = deadline - hccl_now_ms();
		int32_t st;
		int fd;

		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)(left > 1000 ? 1000 : left)) <= 0)
			continue;
		fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		st = take_hello(s, fd, &all, &nranks, &fds, deadline);
		if (st == HCCL_SUCCESS) {
			joined++;
			continue;
		}
		if (st > 0)
			answer_one(fd, st, NULL, 0, deadline);
		close(fd);
	}
	for (r = 0; r < nranks; r++) {
		if (fds[r] < 0)
			continue;
		answer_one(fds[r], joined == nranks ? HCCL_SUCCESS : HCCL_E_TIMEOUT, all, nranks,
			   deadline + 1000);
		close(fds[r]);
	}
	free(fds);
	free(all);
	close(s->lfd);
	free(s);
	return NULL;
}

/* This host's IPv4 address for others to reach the root (network order). */
static HcclResult root_ip(uint32_t *ip)
{
	const char *env = getenv("HCCL_IF_IP");
	struct ifaddrs *ifs, *i;
	struct in_addr a;

	if (env && *env) {
		if (inet_pton(AF_INET, env, &a) != 1)
			return HCCL_FAIL(HCCL_E_PARA, "HCCL_IF_IP=%s is not an IPv4 address", env);
		*ip = a.s_addr;
		return HCCL_SUCCESS;
	}
	*ip = htonl(INADDR_LOOPBACK);
	if (getifaddrs(&ifs))
		return HCCL_SUCCESS;
	for (i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    (i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP))
			continue;
		*ip = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr;
		break;
	}
	freeifaddrs(ifs);
	return HCCL_SUCCESS;
}

/*
 * A listening socket on ip: at *port if set (network order), else at
 * HCCL_IF_BASE_PORT or the first free of the 16 above it, else anywhere.
 */
static HcclResult root_listen(uint32_t ip, int *lfd, uint16_t *port)
{
	long base = *port ? ntohs(*port) : hccl_env_long("HCCL_IF_BASE_PORT", 0, 1024, 65520);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = ip };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), tries = *port ? 1 : base ? 16 : 1;
	int one = 1;

	if (fd < 0)
		return HCCL_FAIL(HCCL_E_TCP_CONNECT, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	for (int i = 0; i < tries; i++) {
		sa.sin_port = htons(base ? (uint16_t)(base + i) : 0);
		if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		if (i == tries - 1) {
			close(fd);
			return HCCL_FAIL(HCCL_E_TCP_CONNECT, "binding %s port %ld..%ld: %s",
					 inet_ntoa(sa.sin_addr), base, base + tries - 1,
					 strerror(errno));
		}
	}
	if (listen(fd, 128) || getsockname(fd, (struct sockaddr *)&sa, &len)) {
		close(fd);
		return HCCL_FAIL(HCCL_E_TCP_CONNECT, "listen: %s", strerror(errno));
	}
	*lfd = fd;
	*port = sa.sin_port;
	return HCCL_SUCCESS;
}

static int connect_timeout_ms(void)
{
	return (int)hccl_env_long("HCCL_CONNECT_TIMEOUT", 120, 1, 7200) * 1000;
}

HcclResult hccl_root_serve(struct hccl_root *root)
{
	struct server *s = calloc(1, sizeof(*s));
	pthread_t t;
	HcclResult err;

	if (!s)
		return HCCL_FAIL(HCCL_E_MEMORY, "out of host memory");
	err = root_listen(root->ipv4, &s->lfd, &root->port);
	if (err) {
		free(s);
		return err;
	}
	s->id = root->id;
	s->timeout_ms = connect_timeout_ms();
	if (pthread_create(&t, NULL, serve, s)) {
		close(s->lfd);
		free(s);
		return HCCL_FAIL(HCCL_E_INTERNAL, "cannot start the root's thread");
	}
	pthread_detach(t);
	return HCCL_SUCCESS;
}

HcclResult hccl_root_create(struct hccl_root *root)
{
	HcclResult err;

	memset(root, 0, sizeof(*root));
	root->magic = ROOT_MAGIC;
	while (!root->id)
		if (getrandom(&root->id, sizeof(root->id), 0) != sizeof(root->id))
			root->id = (uint64_t)hccl_now_ms() ^ ((uint64_t)getpid() << 32);
	err = root_ip(&root->ipv4);
	return err ? err : hccl_root_serve(root);
}

void hccl_root_fixed(struct hccl_root *root, uint64_t id, uint32_t ipv4, uint16_t port)
{
	memset(root, 0, sizeof(*root));
	root->magic = ROOT_MAGIC;
	root->id = id;
	root->ipv4 = ipv4;
	root->port = port;
}

static int root_connect(const struct hccl_root *root, int64_t deadline)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = root->ipv4,
				  .sin_port = root->port };

	while (hccl_now_ms() < deadline) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

		if (fd < 0)
			return -errno;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return fd;
		close(fd);
		usleep(100 * 1000);	/* the root's process may not be up yet */
	}
	return -ETIMEDOUT;
}

HcclResult hccl_bootstrap(const struct hccl_root *root, uint32_t nranks,
			  const struct hccl_rank_info *mine, struct hccl_rank_info *all)
{
	int64_t deadline = hccl_now_ms() + connect_timeout_ms();
	struct hello h = { .magic = HELLO_MAGIC, .id = root->id, .nranks = nranks, .info = *mine };
	struct answer a;
	int fd, ret;
	char ip[INET_ADDRSTRLEN];

	if (root->magic != ROOT_MAGIC)
		return HCCL_FAIL(HCCL_E_PARA, "the root info was not made by HcclGetRootInfo");
	inet_ntop(AF_INET, &root->ipv4, ip, sizeof(ip));
	fd = root_connect(root, deadline);
	if (fd < 0)
		return HCCL_FAIL(HCCL_E_TCP_CONNECT, "rank %u cannot reach the root at %s:%u within "
				 "HCCL_CONNECT_TIMEOUT: %s", mine->rank, ip, ntohs(root->port),
				 strerror(-fd));
	ret = hccl_io_full(fd, &h, sizeof(h), true, deadline);
	if (!ret)
		ret = hccl_io_full(fd, &a, sizeof(a), false, deadline);
	if (!ret && a.status) {
		close(fd);
		return HCCL_FAIL((HcclResult)a.status, "the root at %s:%u refused rank %u of %u: %s",
				 ip, ntohs(root->port), mine->rank, nranks,
				 a.status == HCCL_E_TIMEOUT ? "not every rank joined in time" :
				 "another rank has its number, or the rank count differs");
	}
	if (!ret)
		ret = hccl_io_full(fd, all, nranks * sizeof(*all), false, deadline);
	close(fd);
	if (ret)
		return HCCL_FAIL(ret == -ETIMEDOUT ? HCCL_E_TIMEOUT : HCCL_E_TCP_TRANSFER,
				 "rank %u: bootstrap with the root at %s:%u: %s", mine->rank, ip,
				 ntohs(root->port), strerror(-ret));
	return HCCL_SUCCESS;
}

void hccl_host_id(char *buf, size_t len)
{
	static const char *const files[] = { "/proc/sys/kernel/random/boot_id", "/etc/machine-id" };
	char host[64] = "";

	memset(buf, 0, len);
	for (size_t i = 0; i < 2 && !buf[0]; i++) {
		FILE *f = fopen(files[i], "re");

		if (f) {
			if (fgets(buf, (int)len, f))
				buf[strcspn(buf, "\n")] = '\0';
			fclose(f);
		}
	}
	if (!buf[0] && !gethostname(host, sizeof(host) - 1))
		snprintf(buf, len, "%s", host);
}
