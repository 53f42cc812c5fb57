/* SPDX-License-Identifier: MIT */
/*
 * How the ranks of tests/hccl-hosts meet: rank 0 listens at HCCL_ROOT_ADDR
 * (IPv4:port, tools/hccl-launch sets it), the others connect to it, again
 * until rank 0 listens. Test control only: the data goes over HCCL.
 */
#ifndef HCCL_HOSTS_RANK_NET_H
#define HCCL_HOSTS_RANK_NET_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The other ranks' boot and start-up under TCG on a loaded host. */
#define CONNECT_TRIES 600

static void die(const char *what);

static int write_all(int fd, const void *p, size_t n)
{
	ssize_t w;

	for (; n; n -= w, p = (const char *)p + w)
		if ((w = write(fd, p, n)) <= 0)
			return -1;
	return 0;
}

static int read_all(int fd, void *p, size_t n)
{
	ssize_t r;

	for (; n; n -= r, p = (char *)p + r)
		if ((r = read(fd, p, n)) <= 0)
			return -1;
	return 0;
}

static int root_socket(const char *spec, struct sockaddr_in *sa)
{
	char host[64];
	const char *colon = strrchr(spec, ':');

	if (!colon || colon - spec >= (long)sizeof(host))
		return -1;
	memcpy(host, spec, colon - spec);
	host[colon - spec] = 0;
	*sa = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(atoi(colon + 1)) };
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1)
		return -1;
	return socket(AF_INET, SOCK_STREAM, 0);
}

/* Rank 0 listens, the others connect (again until rank 0 listens). */
static int connect_root(const char *spec)
{
	struct sockaddr_in sa;
	int fd, i;

	for (i = 0; i < CONNECT_TRIES; i++) {
		fd = root_socket(spec, &sa);
		if (fd < 0)
			die("HCCL_ROOT_ADDR must be IPv4:port");
		if (!connect(fd, (void *)&sa, sizeof(sa)))
			return fd;
		close(fd);
		sleep(1);
	}
	die("rank 0 never answered at HCCL_ROOT_ADDR");
	return -1;
}

static int listen_root(const char *spec)
{
	struct sockaddr_in sa;
	int one = 1, fd = root_socket(spec, &sa);

	if (fd < 0)
		die("HCCL_ROOT_ADDR must be IPv4:port");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (void *)&sa, sizeof(sa)) || listen(fd, SOMAXCONN))
		die("cannot listen on HCCL_ROOT_ADDR's port");
	return fd;
}

#endif /* HCCL_HOSTS_RANK_NET_H */
