/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The guest's end of a paired benchmark (make bench): a virtio port that
 * tools/vm-run --host-socket joins to a host process's UNIX socket, over
 * which a benchmark asks for a reference run on the host between its own
 * runs on the card, so that both figures come from the same seconds of
 * the host's life.  Lines of text each way:
 *
 *   run KEY\n    -> ran WALL_NS CPU_NS\n   (CPU_NS: over the threads)
 *   info\n       -> info ...\n             (what the server is)
 *   anything else, or a failed run -> error WHY\n
 *
 * Servers: oplib-bench --serve (op-bench's operators, port npu.native) and
 * mdl-bench-ort.js --serve (mdl-bench's models under onnxruntime, npu.ort).
 */
#ifndef BENCH_PORT_H
#define BENCH_PORT_H

#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_PORT_LINE_MAX	128

struct bench_port {
	const char *name;
	FILE *in, *out;
};

/* The port's device, by the name vm-run --host-socket gave it: 0 or -1. */
static inline int bench_port_open(struct bench_port *p, const char *name)
{
	char path[96], found[64];
	glob_t ports;
	int fd = -1;

	p->name = name;
	if (glob("/sys/class/virtio-ports/*/name", 0, NULL, &ports))
		return -1;
	for (size_t i = 0; fd < 0 && i < ports.gl_pathc; i++) {
		FILE *f = fopen(ports.gl_pathv[i], "r");

		if (!f)
			continue;
		if (fgets(found, sizeof(found), f) &&
		    !strcmp(strtok(found, "\n") ?: "", name)) {
			snprintf(path, sizeof(path), "/dev/%s",
				 strrchr(dirname(ports.gl_pathv[i]), '/') + 1);
			fd = open(path, O_RDWR | O_CLOEXEC);
		}
		fclose(f);
	}
	globfree(&ports);
	if (fd < 0)
		return -1;
	p->in = fdopen(fd, "r");
	p->out = fdopen(dup(fd), "w");
	return p->in && p->out ? 0 : -1;
}

/* @request's answer in @line (BENCH_PORT_LINE_MAX bytes); NULL if none. */
static inline char *bench_port_ask(struct bench_port *p, const char *request, char *line)
{
	if (fprintf(p->out, "%s\n", request) < 0 || fflush(p->out) ||
	    !fgets(line, BENCH_PORT_LINE_MAX, p->in))
		return NULL;
	return line;
}

/* One reference run of @key: 0 with its wall and CPU time, or -1. */
static inline int bench_port_run(struct bench_port *p, const char *key, double *wall_ns,
				 double *cpu_ns)
{
	char request[96], line[BENCH_PORT_LINE_MAX] = "(nothing)\n";
	unsigned long long wall, cpu;

	snprintf(request, sizeof(request), "run %s", key);
	if (!bench_port_ask(p, request, line) ||
	    sscanf(line, "ran %llu %llu", &wall, &cpu) != 2) {
		fprintf(stderr, "bench: port %s: no run of %s: %s", p->name, key, line);
		return -1;
	}
	*wall_ns = (double)wall;
	*cpu_ns = (double)cpu;
	return 0;
}

#endif /* BENCH_PORT_H */
