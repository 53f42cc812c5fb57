// SPDX-License-Identifier: GPL-2.0
/*
 * npu-card: options, start-up, the control doorbell loop and shutdown.
 *
 *   npu-card --socket PATH --guest-ram FILE --ram-size BYTES [--lowmem BYTES]
 *             [--bar-size BYTES] [--rings N] [--vectors N]
 *             [--copy-engines N] [--compute-engines N] [--serial N]
 *             [--fetch-poll-us N] [--fetch-poll-max-us N] [--fenced-guest]
 *             [--trace FILE] [--peer-dir DIR] [--verbose]
 *   npu-card [--vectors N] --print-vectors
 *
 * The card serves exactly one QEMU and exits (status 0) when it goes away
 * or on SIGTERM/SIGINT.  --print-vectors prints the card's number of MSI-X
 * vectors and exits: QEMU's ivshmem device must be given as many.
 * --fetch-poll-us sets how long a ring with a shadow watches its tail
 * after its last command (0: it sleeps at once, as the race tests want);
 * --fetch-poll-max-us lets it watch up to that long when its last idle
 * spell was that short (emu_card.h; 0, the default: no longer).
 * --fenced-guest says that the guest's barriers are real (KVM, a native
 * test client), so the heartbeat need not look again for stores that a
 * barrier-less guest left in the host's store buffer (emu_ring_recheck).
 * --trace FILE writes when each step of each command happened (trace.c).
 * --peer-dir DIR is where the cards of one host find each other for peer
 * windows (mmu.c): each publishes its device memory there under its serial.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <execinfo.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "emu_card.h"

/* epoll tags beyond the vector numbers */
#define EV_CONN		0xfffffffe
#define EV_SIGNAL	0xffffffff

#define MAX_VECTORS	2048	/* the MSI-X table limit */
#define MAX_ENGINES	1024

bool emu_verbose;

void emu_log(const char *fmt, ...)
{
	va_list ap;

	if (!emu_verbose)
		return;
	va_start(ap, fmt);
	fputs("npu-card: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void emu_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("npu-card: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npu-card --socket PATH --guest-ram FILE --ram-size BYTES\n"
		"                 [--lowmem BYTES] [--bar-size BYTES] [--rings N]\n"
		"                 [--vectors N] [--copy-engines N]\n"
		"                 [--compute-engines N] [--serial N]\n"
		"                 [--fetch-poll-us N] [--fetch-poll-max-us N]\n"
		"                 [--fenced-guest] [--trace FILE] [--peer-dir DIR]\n"
		"                 [--verbose]\n"
		"       npu-card [--vectors N] --print-vectors\n"
		"sizes take a K, M or G suffix; defaults: --bar-size 256M,\n"
		"--rings 64, --vectors %u, --copy-engines 4, --compute-engines 2,\n"
		"--lowmem min(ram, 2G), --fetch-poll-us %u\n",
		NPU_DEFAULT_NUM_VECTORS, EMU_FETCH_POLL_US);
}

/* "64M" and friends; false on garbage or overflow. */
static bool parse_size(const char *s, uint64_t *out)
{
	unsigned int shift = 0;
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || strchr(s, '-'))
		return false;
	if (*end) {
		static const char units[] = "KMG";
		const char *unit = strchr(units, toupper((unsigned char)*end));

		if (!unit || end[1])
			return false;
		shift = 10 * (unit - units + 1);
	}
	if (v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

static bool parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (!parse_size(s, &v) || v < min || v > max)
		return false;
	*out = v;
	return true;
}

enum {
	OPT_SOCKET = 256, OPT_GUEST_RAM, OPT_RAM_SIZE, OPT_LOWMEM, OPT_BAR_SIZE,
	OPT_RINGS, OPT_VECTORS, OPT_COPY_ENGINES, OPT_COMPUTE_ENGINES,
	OPT_SERIAL, OPT_VERBOSE, OPT_HELP, OPT_PRINT_VECTORS,
	OPT_FETCH_POLL_US, OPT_FENCED_GUEST, OPT_TRACE, OPT_FETCH_POLL_MAX_US,
	OPT_PEER_DIR,
};

static const struct option options[] = {
	{ "socket",	  required_argument, NULL, OPT_SOCKET },
	{ "guest-ram",	  required_argument, NULL, OPT_GUEST_RAM },
	{ "ram-size",	  required_argument, NULL, OPT_RAM_SIZE },
	{ "lowmem",	  required_argument, NULL, OPT_LOWMEM },
	{ "bar-size",	  required_argument, NULL, OPT_BAR_SIZE },
	{ "rings",	  required_argument, NULL, OPT_RINGS },
	{ "vectors",	  required_argument, NULL, OPT_VECTORS },
	{ "copy-engines", required_argument, NULL, OPT_COPY_ENGINES },
	{ "compute-engines", required_argument, NULL, OPT_COMPUTE_ENGINES },
	{ "serial",	  required_argument, NULL, OPT_SERIAL },
	{ "verbose",	  no_argument,	     NULL, OPT_VERBOSE },
	{ "help",	  no_argument,	     NULL, OPT_HELP },
	{ "print-vectors", no_argument,	     NULL, OPT_PRINT_VECTORS },
	{ "fetch-poll-us", required_argument, NULL, OPT_FETCH_POLL_US },
	{ "fenced-guest", no_argument,	     NULL, OPT_FENCED_GUEST },
	{ "trace",	  required_argument, NULL, OPT_TRACE },
	{ "fetch-poll-max-us", required_argument, NULL, OPT_FETCH_POLL_MAX_US },
	{ "peer-dir",	  required_argument, NULL, OPT_PEER_DIR },
	{ NULL, 0, NULL, 0 },
};

static bool parse_option(struct emu_config *cfg, int opt, const char *arg)
{
	switch (opt) {
	case OPT_SOCKET:
		cfg->socket_path = arg;
		return true;
	case OPT_GUEST_RAM:
		cfg->guest_ram_path = arg;
		return true;
	case OPT_RAM_SIZE:
		return parse_size(arg, &cfg->ram_size) && cfg->ram_size;
	case OPT_LOWMEM:
		return parse_size(arg, &cfg->lowmem);
	case OPT_BAR_SIZE:
		return parse_size(arg, &cfg->bar_size);
	case OPT_RINGS:
		return parse_u32(arg, 1, NPU_MAX_RINGS, &cfg->num_rings);
	case OPT_VECTORS:
		/* the control vector and at least one ring vector */
		return parse_u32(arg, 2, MAX_VECTORS, &cfg->num_vectors);
	case OPT_COPY_ENGINES:
		return parse_u32(arg, 1, MAX_ENGINES, &cfg->num_copy_engines);
	case OPT_COMPUTE_ENGINES:
		return parse_u32(arg, 1, MAX_ENGINES,
				 &cfg->num_compute_engines);
	case OPT_SERIAL:
		return parse_size(arg, &cfg->serial);
	case OPT_FETCH_POLL_US:
		return parse_u32(arg, 0, EMU_FETCH_POLL_MAX_US, &cfg->fetch_poll_us);
	case OPT_VERBOSE:
		cfg->verbose = true;
		return true;
	case OPT_FENCED_GUEST:
		cfg->fenced_guest = true;
		return true;
	case OPT_TRACE:
		cfg->trace_path = arg;
		return true;
	case OPT_FETCH_POLL_MAX_US:
		return parse_u32(arg, 0, EMU_FETCH_POLL_MAX_US, &cfg->fetch_poll_max_us);
	case OPT_PEER_DIR:
		cfg->peer_dir = arg;
		return true;
	}
	return false;
}

/* Cross-option checks once everything is parsed. */
static bool config_valid(struct emu_config *cfg)
{
	if (!cfg->socket_path || !cfg->guest_ram_path || !cfg->ram_size) {
		emu_err("--socket, --guest-ram and --ram-size are required");
		return false;
	}
	if (cfg->lowmem == UINT64_MAX)
		cfg->lowmem = cfg->ram_size < 2 * GiB ? cfg->ram_size : 2 * GiB;
	if (cfg->lowmem > cfg->ram_size || cfg->lowmem > EMU_HIGHMEM_BASE) {
		emu_err("--lowmem must not exceed --ram-size or 4G");
		return false;
	}
	if (cfg->bar_size <= NPU_REG_WINDOW_SIZE ||
	    (cfg->bar_size & (cfg->bar_size - 1)) || cfg->bar_size > SIZE_MAX) {
		emu_err("--bar-size must be a power of two above 64K");
		return false;
	}
	return true;
}

static int parse_args(int argc, char **argv, struct emu_config *cfg)
{
	bool print_vectors = false;
	int opt;

	*cfg = (struct emu_config) {
		.lowmem = UINT64_MAX,	/* "not given" */
		.bar_size = 256 * MiB,
		.num_rings = 64,
		.num_vectors = NPU_DEFAULT_NUM_VECTORS,
		.num_copy_engines = 4,
		/* each gets the host's CPUs / 2 OpenMP threads (compute.c) */
		.num_compute_engines = 2,
		.serial = 1,
		.fetch_poll_us = EMU_FETCH_POLL_US,
	};
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt == OPT_HELP) {
			usage(stdout);
			exit(0);
		}
		if (opt == OPT_PRINT_VECTORS) {
			print_vectors = true;
			continue;
		}
		if (!parse_option(cfg, opt, optarg)) {
			if (opt != '?')
				emu_err("bad value for --%s: %s",
					options[opt - OPT_SOCKET].name, optarg);
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		emu_err("unexpected argument: %s", argv[optind]);
		return -1;
	}
	if (print_vectors) {
		printf("%u\n", cfg->num_vectors);
		exit(0);
	}
	return config_valid(cfg) ? 0 : -1;
}

/*
 * SIGTERM/SIGINT arrive through a signalfd so the doorbell loop sees them
 * like any other event; block them before any thread exists so no thread
 * takes them the default way.
 */
/*
 * A fault in the card is a bug of the card: say where, into the log that
 * tools/vm-run prints when the card dies, then die as the fault would.
 */
static void crash_report(int sig)
{
	void *frames[64];
	int n = backtrace(frames, 64);
	static const char msg[] = "npu-card: fatal signal; backtrace:\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(128 + sig);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int signals_setup(void)
{
	void *frames[1];
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	/* backtrace() loads its unwinder on first use: not in the handler */
	backtrace(frames, 1);
	signal(SIGSEGV, crash_report);
	signal(SIGBUS, crash_report);
	signal(SIGABRT, crash_report);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return -1;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static int epoll_add(int epfd, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

static int loop_setup(struct emu_card *card, int conn_fd, int sig_fd)
{
	int epfd = epoll_create1(EPOLL_CLOEXEC);

	if (epfd < 0)
		return -1;
	/* the rings' vectors are the ring threads' own (emu_ring_idle_wait) */
	if (epoll_add(epfd, card->to_card[0], 0) ||
	    epoll_add(epfd, conn_fd, EV_CONN) ||
	    epoll_add(epfd, sig_fd, EV_SIGNAL))
		goto fail;
	return epfd;
fail:
	close(epfd);
	return -1;
}

/* QEMU never talks after the handshake; EOF means it is gone. */
static bool conn_alive(int conn_fd)
{
	char buf[64];
	ssize_t n = read(conn_fd, buf, sizeof(buf));

	return n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN));
}

/* Serve control doorbells until the client leaves or a signal. */
static void event_loop(struct emu_card *card, int epfd, int conn_fd)
{
	struct epoll_event ev[4];
	int n, i;

	for (;;) {
		n = epoll_wait(epfd, ev, 4, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			emu_err("epoll_wait: %m");
			return;
		}
		for (i = 0; i < n; i++) {
			uint32_t tag = ev[i].data.u32;

			if (tag == EV_SIGNAL) {
				emu_log("signal, exiting");
				return;
			}
			if (tag == EV_CONN && !conn_alive(conn_fd)) {
				emu_log("client disconnected, exiting");
				return;
			}
			if (tag == 0 && emu_card_take_doorbell(card, 0))
				emu_card_doorbell(card, 0);
		}
	}
}

/* Accept QEMU, hand it the card, serve it. */
static int emu_serve(struct emu_card *card, int listen_fd, int sig_fd)
{
	int conn_fd, epfd, ret = -1;

	conn_fd = emu_ivshmem_accept(listen_fd, sig_fd);
	if (conn_fd < 0)
		return errno == EINTR ? 0 : -1;
	if (emu_ivshmem_handshake(conn_fd, card))
		goto out_conn;
	epfd = loop_setup(card, conn_fd, sig_fd);
	if (epfd < 0) {
		emu_err("epoll: %m");
		goto out_conn;
	}
	event_loop(card, epfd, conn_fd);
	ret = 0;
	close(epfd);
out_conn:
	close(conn_fd);
	return ret;
}

int main(int argc, char **argv)
{
	struct emu_config cfg;
	struct emu_card card;
	int sig_fd, listen_fd, ret = 1;

	if (parse_args(argc, argv, &cfg))
		return 2;
	emu_verbose = cfg.verbose;

	sig_fd = signals_setup();
	if (sig_fd < 0) {
		emu_err("signals: %m");
		return 1;
	}
	/* The card is up before QEMU can connect: a client never waits. */
	if (emu_trace_init(cfg.trace_path))
		goto out_sig;
	if (emu_card_init(&card, &cfg) || emu_card_start(&card))
		goto out_card;
	listen_fd = emu_ivshmem_listen(cfg.socket_path);
	if (listen_fd < 0)
		goto out_card;

	if (emu_serve(&card, listen_fd, sig_fd) == 0)
		ret = 0;

	close(listen_fd);
	unlink(cfg.socket_path);
out_card:
	emu_card_stop(&card);
	emu_card_destroy(&card);
	emu_trace_dump();
out_sig:
	close(sig_fd);
	return ret;
}
