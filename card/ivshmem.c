// SPDX-License-Identifier: GPL-2.0
/*
 * The ivshmem server side of the card (see QEMU's docs/specs/ivshmem-spec).
 *
 * QEMU connects once as client 0.  The server speaks, the client only
 * listens: every message is an 8-byte little-endian signed number, some
 * carrying one file descriptor.  We are peer 1, so the guest's doorbell
 * writes of (1 << 16 | vector) land on our eventfds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "emu_card.h"

#define IVSHMEM_PROTOCOL_VERSION	0

int emu_ivshmem_listen(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		emu_err("socket path too long: %s", path);
		return -1;
	}
	strcpy(addr.sun_path, path);

	/* A socket left by a previous run is stale; anything else is not ours. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			emu_err("%s exists and is not a socket", path);
			return -1;
		}
		unlink(path);
	}

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		emu_err("socket: %m");
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(fd, 1) < 0) {
		emu_err("cannot listen on %s: %m", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* Wait for QEMU; a signal on sig_fd gives up (returns -1, errno EINTR). */
int emu_ivshmem_accept(int listen_fd, int sig_fd)
{
	struct pollfd pfd[2] = {
		{ .fd = listen_fd, .events = POLLIN },
		{ .fd = sig_fd, .events = POLLIN },
	};
	int fd;

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			emu_err("poll: %m");
			return -1;
		}
		if (pfd[1].revents) {
			errno = EINTR;
			return -1;
		}
		fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno != EINTR && errno != ECONNABORTED) {
			emu_err("accept: %m");
			return -1;
		}
	}
}

static int emu_ivshmem_send(int conn_fd, int64_t value, int fd)
{
	int64_t le = htole64(value);
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;

	if (fd >= 0) {
		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	if (sendmsg(conn_fd, &msg, MSG_NOSIGNAL) != sizeof(le)) {
		emu_err("ivshmem handshake: %m");
		return -1;
	}
	return 0;
}

/*
 * Version, the client's id, the shared memory, then per vector our
 * doorbell eventfd (filed under our peer id) and per vector the client's
 * own interrupt eventfd (filed under its id).
 */
int emu_ivshmem_handshake(int conn_fd, struct emu_card *card)
{
	uint32_t v, n = card->cfg.num_vectors;

	if (emu_ivshmem_send(conn_fd, IVSHMEM_PROTOCOL_VERSION, -1) ||
	    emu_ivshmem_send(conn_fd, EMU_CLIENT_ID, -1) ||
	    emu_ivshmem_send(conn_fd, -1, card->shm_fd))
		return -1;
	for (v = 0; v < n; v++)
		if (emu_ivshmem_send(conn_fd, EMU_PEER_ID, card->to_card[v]))
			return -1;
	for (v = 0; v < n; v++)
		if (emu_ivshmem_send(conn_fd, EMU_CLIENT_ID,
				     card->to_guest[v]))
			return -1;
	emu_log("client connected, %u vectors", n);
	return 0;
}
