// SPDX-License-Identifier: MIT
/*
 * The monitor: a thread per communicator, outside the data path, that
 * watches the operations queued (an event recorded after each) and the
 * peers' sockets (UCX's endpoints for peers on other hosts). A peer's
 * process gone, or an operation not complete
 * HCCL_EXEC_TIMEOUT seconds after it was queued, makes the communicator's
 * async error HCCL_E_REMOTE or HCCL_E_TIMEOUT and stops the streams that
 * still wait (aclrtStreamStop): their synchronizations fail instead of
 * waiting forever for a card-to-card signal that will not come.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hccl_internal.h"
#include "bootstrap_io.h"

#define POLL_MS		20

struct tracked {
	aclrtStream stream;
	aclrtEvent event;
	int64_t deadline_ms;	/* 0: none */
};

struct hccl_monitor {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct tracked *v;
	size_t n, cap;
	bool stop;
};

static void drop(struct hccl_monitor *m, size_t i)
{
	aclrtDestroyEvent(m->v[i].event);
	m->v[i] = m->v[--m->n];
}

/* Stops every stream still waiting (lock held). */
static void fail_all(struct hccl_comm *c, struct hccl_monitor *m, HcclResult why, const char *what)
{
	int expected = HCCL_SUCCESS;

	if (atomic_compare_exchange_strong(&c->async_err, &expected, why))
		fprintf(stderr, "hccl: communicator %s rank %u: %s; its streams are stopped\n",
			c->name, c->rank, what);
	hccl_remote_fail(c, why);
	while (m->n) {
		aclrtStreamStop(m->v[0].stream);
		drop(m, 0);
	}
	pthread_cond_broadcast(&m->changed);
}

/* Whether r is a rank of another process (one of ours cannot die alone). */
static bool other_process(const struct hccl_comm *c, uint32_t r)
{
	return c->ranks[r].pid != c->ranks[c->rank].pid;
}

/* A peer whose socket says its process is gone, or -1. */
static int dead_peer(struct hccl_comm *c)
{
	for (uint32_t r = 0; r < c->nranks; r++) {
		struct pollfd p = { .fd = c->peer_fd[r], .events = POLLIN };
		char b;

		if (p.fd < 0 || !other_process(c, r) || poll(&p, 1, 0) <= 0)
			continue;
		if (p.revents & (POLLHUP | POLLERR) ||
		    recv(p.fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
			return (int)r;
	}
	return -1;
}

/* A link to another host that failed fails the communicator. */
static void remote_check(struct hccl_comm *c, struct hccl_monitor *m)
{
	uint32_t peer = 0;
	HcclResult err = hccl_remote_health(c, &peer);
	char what[128];

	if (err == HCCL_SUCCESS || atomic_load(&c->async_err))
		return;
	if (err == HCCL_E_NETWORK)
		snprintf(what, sizeof(what), "rank %u, on another host, is gone (UCX lost it)", peer);
	else
		snprintf(what, sizeof(what), "the link to rank %u, on another host, failed: %s", peer,
			 HcclGetErrorString(err));
	fail_all(c, m, err == HCCL_E_NETWORK ? HCCL_E_REMOTE : err, what);
}

static void check(struct hccl_comm *c, struct hccl_monitor *m)
{
	int64_t now = hccl_now_ms();
	char what[128];
	int peer;

	for (size_t i = 0; i < m->n;) {
		aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;

		if (!aclrtQueryEventStatus(m->v[i].event, &st) &&
		    st == ACL_EVENT_RECORDED_STATUS_COMPLETE) {
			drop(m, i);
			pthread_cond_broadcast(&m->changed);
			continue;
		}
		if (m->v[i].deadline_ms && now >= m->v[i].deadline_ms) {
			snprintf(what, sizeof(what), "an operation did not complete within "
				 "HCCL_EXEC_TIMEOUT (%d s)", c->exec_timeout_s);
			fail_all(c, m, HCCL_E_TIMEOUT, what);
			return;
		}
		i++;
	}
	peer = dead_peer(c);
	if (peer >= 0) {
		snprintf(what, sizeof(what), "rank %d's process is gone", peer);
		/* its socket stays readable: stop watching it */
		close(c->peer_fd[peer]);
		c->peer_fd[peer] = -1;
		fail_all(c, m, HCCL_E_REMOTE, what);
		return;
	}
	remote_check(c, m);
}

static void *watch(void *p)
{
	struct hccl_comm *c = p;
	struct hccl_monitor *m = c->monitor;

	aclrtSetCurrentContext(c->ctx);
	pthread_mutex_lock(&m->lock);
	while (!m->stop || m->n) {
		check(c, m);
		pthread_mutex_unlock(&m->lock);
		usleep(POLL_MS * 1000);
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

HcclResult hccl_monitor_start(struct hccl_comm *c)
{
	struct hccl_monitor *m = calloc(1, sizeof(*m));

	if (!m)
		return HCCL_FAIL(HCCL_E_MEMORY, "out of host memory");
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->changed, NULL);
	c->monitor = m;
	if (pthread_create(&m->thread, NULL, watch, c)) {
		free(m);
		c->monitor = NULL;
		return HCCL_FAIL(HCCL_E_INTERNAL, "cannot start the communicator's monitor");
	}
	return HCCL_SUCCESS;
}

HcclResult hccl_monitor_track(struct hccl_comm *c, aclrtStream s)
{
	struct hccl_monitor *m = c->monitor;
	struct tracked t = { .stream = s };
	aclError e = aclrtCreateEvent(&t.event);

	if (!e)
		e = aclrtRecordEvent(t.event, s);
	if (e) {
		if (t.event)
			aclrtDestroyEvent(t.event);
		return hccl_acl_fail("hccl", e, "recording the operation's completion");
	}
	if (c->exec_timeout_s)
		t.deadline_ms = hccl_now_ms() + (int64_t)c->exec_timeout_s * 1000;
	pthread_mutex_lock(&m->lock);
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct tracked *v = realloc(m->v, cap * sizeof(*v));

		if (!v) {
			pthread_mutex_unlock(&m->lock);
			aclrtDestroyEvent(t.event);
			return HCCL_FAIL(HCCL_E_MEMORY, "out of host memory");
		}
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n++] = t;
	pthread_mutex_unlock(&m->lock);
	return HCCL_SUCCESS;
}

/*
 * The peers of this host are done with our memory once they say so. Ranks
 * of this process are destroyed one after the other by one thread: they
 * cannot wait for each other. The peers of other hosts say so too, so
 * that none of them takes our endpoints' closing for our death while its
 * monitor still runs.
 */
static void goodbye(struct hccl_comm *c)
{
	int64_t deadline = hccl_now_ms() + (int64_t)(c->exec_timeout_s ? c->exec_timeout_s : 60) * 1000;
	uint8_t b = 1;
	uint32_t r;

	for (r = 0; r < c->nranks; r++)
		if (c->peer_fd[r] >= 0 && other_process(c, r))
			hccl_io_full(c->peer_fd[r], &b, 1, true, deadline);
	for (r = 0; r < c->nranks; r++)
		if (c->peer_fd[r] >= 0 && other_process(c, r))
			hccl_io_full(c->peer_fd[r], &b, 1, false, deadline);
	hccl_remote_goodbye(c);
}

void hccl_monitor_stop(struct hccl_comm *c)
{
	struct hccl_monitor *m = c->monitor;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->stop = true;		/* the thread ends once every operation is over */
	pthread_mutex_unlock(&m->lock);
	pthread_join(m->thread, NULL);
	if (!atomic_load(&c->async_err))
		goodbye(c);
	pthread_cond_destroy(&m->changed);
	pthread_mutex_destroy(&m->lock);
	free(m->v);
	free(m);
	c->monitor = NULL;
}
