// SPDX-License-Identifier: MIT
/*
 * A unix socket between every two ranks of one host: what the card link
 * passes its dma-buf file descriptors over (SCM_RIGHTS), and what tells a
 * rank at once that a peer's process is gone (the monitor polls them).
 * Each rank listens on an abstract name made of the communicator's id and
 * its rank; the lower rank of a pair connects.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hccl_internal.h"
#include "bootstrap_io.h"

static socklen_t sock_name(struct sockaddr_un *sa, uint64_t id, uint32_t rank)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* sun_path[0] stays 0: an abstract name, gone with its socket */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
					    "hccl-%016llx-%u", (unsigned long long)id, rank));
}

static bool same_host(const struct hccl_comm *c, uint32_t r)
{
	return r != c->rank && !strcmp(c->ranks[r].host_id, c->ranks[c->rank].host_id);
}

static int connect_peer(const struct hccl_comm *c, uint32_t peer, int64_t deadline)
{
	struct sockaddr_un sa;
	socklen_t len = sock_name(&sa, c->id, peer);

	while (hccl_now_ms() < deadline) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -errno;
		if (!connect(fd, (struct sockaddr *)&sa, len)) {
			if (!hccl_io_full(fd, (void *)&c->rank, sizeof(c->rank), true, deadline))
				return fd;
		}
		close(fd);
		usleep(20 * 1000);	/* the peer is not listening yet */
	}
	return -ETIMEDOUT;
}

static int accept_peers(struct hccl_comm *c, int lfd, uint32_t want, int64_t deadline)
{
	while (want) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		uint32_t who;
		int fd;

		if (hccl_now_ms() >= deadline)
			return -ETIMEDOUT;
		if (poll(&p, 1, 200) <= 0)
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (hccl_io_full(fd, &who, sizeof(who), false, deadline) || who >= c->rank ||
		    !same_host(c, who) || c->peer_fd[who] >= 0) {
			close(fd);
			continue;
		}
		c->peer_fd[who] = fd;
		want--;
	}
	return 0;
}

HcclResult hccl_peer_sockets_open(struct hccl_comm *c)
{
	int64_t deadline = hccl_now_ms() + hccl_env_long("HCCL_CONNECT_TIMEOUT", 120, 1, 7200) * 1000;
	struct sockaddr_un sa;
	socklen_t len = sock_name(&sa, c->id, c->rank);
	uint32_t lower = 0, r;
	int lfd, ret = 0;

	for (r = 0; r < c->nranks; r++)
		c->peer_fd[r] = -1;
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, len) || listen(lfd, 64)) {
		ret = -errno;
		if (lfd >= 0)
			close(lfd);
		return HCCL_FAIL(HCCL_E_SYSCALL, "rank %u: listening for its peers: %s", c->rank,
				 strerror(-ret));
	}
	for (r = c->rank + 1; r < c->nranks && !ret; r++) {
		if (!same_host(c, r))
			continue;
		ret = connect_peer(c, r, deadline);
		if (ret >= 0) {
			c->peer_fd[r] = ret;
			ret = 0;
		}
	}
	for (r = 0; r < c->rank; r++)
		lower += same_host(c, r);
	if (!ret)
		ret = accept_peers(c, lfd, lower, deadline);
	close(lfd);
	if (ret) {
		hccl_peer_sockets_close(c);
		return HCCL_FAIL(HCCL_E_TIMEOUT, "rank %u: its peers on this host did not all connect "
				 "within HCCL_CONNECT_TIMEOUT: %s", c->rank, strerror(-ret));
	}
	return HCCL_SUCCESS;
}

void hccl_peer_sockets_close(struct hccl_comm *c)
{
	for (uint32_t r = 0; r < c->nranks; r++) {
		if (c->peer_fd[r] >= 0)
			close(c->peer_fd[r]);
		c->peer_fd[r] = -1;
	}
}

int hccl_send_fd(int sock, int fd, const void *msg, size_t len)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	memset(&u, 0, sizeof(u));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -EIO;
}

int hccl_recv_fd(int sock, int *fd, void *msg, size_t len, int timeout_ms)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = msg, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct pollfd p = { .fd = sock, .events = POLLIN };
	struct cmsghdr *cm;
	ssize_t n;

	if (poll(&p, 1, timeout_ms) <= 0)
		return -ETIMEDOUT;
	n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);
	if (n != (ssize_t)len)
		return n == 0 ? -ECONNRESET : -EIO;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -EIO;
	memcpy(fd, CMSG_DATA(cm), sizeof(int));
	return 0;
}
