// SPDX-License-Identifier: MIT
/*
 * acl-bench: costs of the libascendcl runtime on the emulated card, each
 * next to a reference measured in the same run:
 *
 *   null ioctl  DRM_IOCTL_NPU_GET_PARAM vs a null system call (getppid)
 *   call cost   DRM_IOCTL_NPU_SUBMIT of one NOP, one NOP on a direct ring
 *               (written by us, no system call unless the card sleeps),
 *               aclrtMemcpyAsync (64 B, pinned: the stream's direct ring),
 *               aclrtRecordEvent and aclrtLaunchCallback vs the null ioctl:
 *               what submitting costs beyond entering the driver
 *   query       aclrtQueryEventStatus vs a plain memory load
 *   round trip  record + synchronize on an idle stream vs an eventfd
 *               ping-pong between two threads
 *   bandwidth   H2D, D2H, D2D from 4 KiB to 256 MiB vs memcpy
 *   streams     aggregate D2D throughput with 1, 2, 4, 8 streams vs 1
 *
 * The ratio says how many times better than its reference a figure is
 * (above 1: faster or more throughput), whichever way the figure counts.
 * Prints a table, then the same figures as JSON (last line).
 * Run: make bench, or
 * tools/vm-run --mem 2048 --devmem 1024 -- build/tools/acl-bench [--quick] [--calls]
 * (--calls: the call costs, the query and the round trip only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "npu_accel.h"

#define CHECK(call)								\
	do {									\
		aclError r_ = (call);						\
		if (r_ != ACL_SUCCESS) {					\
			const char *m_ = aclGetRecentErrMsg();			\
			fprintf(stderr, "acl-bench: %s failed: %d (%s)\n", #call, r_,	\
				m_ ? m_ : "");					\
			exit(1);						\
		}								\
	} while (0)

static bool quick;
static bool calls_only;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- results ------------------------------------------------------------ */
struct row {
	char name[48];
	double value, ref, ratio;
	const char *unit, *ref_name;
};

static struct row rows[128];
static int nrows;

static void add(const char *name, double value, const char *unit, double ref,
		const char *ref_name, bool higher_better)
{
	struct row *r = &rows[nrows++];

	snprintf(r->name, sizeof(r->name), "%s", name);
	r->value = value;
	r->ref = ref;
	r->unit = unit;
	r->ref_name = ref_name;
	/* A cost is better when lower, a throughput when higher. */
	if (ref <= 0 || value <= 0)
		r->ratio = 0;
	else
		r->ratio = higher_better ? value / ref : ref / value;
	printf("%-30s %12.3f %-5s | %-22s %12.3f %-5s | x%.2f\n", name, value, unit, ref_name, ref,
	       unit, r->ratio);
	fflush(stdout);
}

/* ---- per-call costs ----------------------------------------------------- */
static double null_syscall_ns(void)
{
	int n = quick ? 20000 : 200000;
	double t0 = now_s();

	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
	return (now_s() - t0) * 1e9 / n;
}

/*
 * The driver directly, on a file of its own: the first accel node that
 * answers GET_PARAM is an npu card.
 */
static int card_open(void)
{
	struct drm_npu_get_param p = { .param = DRM_NPU_PARAM_VERSION };
	char path[32];

	for (int i = 0; i < 64; i++) {
		int fd;

		snprintf(path, sizeof(path), "/dev/accel/accel%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!ioctl(fd, DRM_IOCTL_NPU_GET_PARAM, &p))
			return fd;
		close(fd);
	}
	fprintf(stderr, "acl-bench: no npu accel node\n");
	exit(1);
}

static void card_ioctl(int fd, unsigned long req, void *arg, const char *what)
{
	while (ioctl(fd, req, arg)) {
		if (errno == EINTR || errno == EAGAIN)
			continue;
		fprintf(stderr, "acl-bench: %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

static double get_param_ns(int fd)
{
	struct drm_npu_get_param p = { .param = DRM_NPU_PARAM_NUM_RINGS };
	int n = quick ? 20000 : 200000;
	double t0 = now_s();

	for (int i = 0; i < n; i++)
		card_ioctl(fd, DRM_IOCTL_NPU_GET_PARAM, &p, "GET_PARAM");
	return (now_s() - t0) * 1e9 / n;
}

/* One NOP per SUBMIT, in batches the ring takes without waiting. */
static double submit_nop_ns(int fd)
{
	struct drm_npu_stream_create sc = { 0 };
	struct drm_npu_stream_destroy sd = { 0 };
	struct drm_npu_cmd nop = { .op = DRM_NPU_OP_NOP };
	int batches = quick ? 10 : 60, per = 200;
	double total = 0;

	card_ioctl(fd, DRM_IOCTL_NPU_STREAM_CREATE, &sc, "STREAM_CREATE");
	for (int b = 0; b < batches; b++) {
		struct drm_npu_submit s = { 0 };
		struct drm_npu_wait w = { .slot = sc.slot, .timeout_ns = DRM_NPU_WAIT_FOREVER };
		double t0 = now_s();

		for (int i = 0; i < per; i++) {
			s = (struct drm_npu_submit) {
				.stream = sc.id, .cmds = (uintptr_t)&nop, .count = 1,
				.cmd_size = sizeof(nop),
			};
			card_ioctl(fd, DRM_IOCTL_NPU_SUBMIT, &s, "SUBMIT");
		}
		total += now_s() - t0;
		w.value = s.seqno;
		card_ioctl(fd, DRM_IOCTL_NPU_WAIT, &w, "WAIT");
	}
	sd.id = sc.id;
	card_ioctl(fd, DRM_IOCTL_NPU_STREAM_DESTROY, &sd, "STREAM_DESTROY");
	return total * 1e9 / (batches * per);
}

/*
 * One NOP per submission on a direct ring, by the uapi's protocol: the
 * command, the tail, a full barrier, and a kick only if the card sleeps.
 */
static double direct_nop_ns(int fd, unsigned int *kicks)
{
	struct drm_npu_stream_create sc = { .flags = DRM_NPU_STREAM_DIRECT };
	struct drm_npu_stream_destroy sd = { 0 };
	struct drm_npu_stream_map map = { 0 };
	struct drm_npu_stream_kick kick = { 0 };
	struct drm_npu_direct_ctrl *ctrl;
	struct drm_npu_direct_cmd *cmds;
	int batches = quick ? 10 : 60, per = 200;
	uint32_t entries, tail = 0;
	double total = 0;

	card_ioctl(fd, DRM_IOCTL_NPU_STREAM_CREATE, &sc, "STREAM_CREATE (direct)");
	map.stream = sc.id;
	card_ioctl(fd, DRM_IOCTL_NPU_STREAM_MAP, &map, "STREAM_MAP");
	ctrl = mmap(NULL, map.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, map.mmap_offset);
	if (ctrl == MAP_FAILED) {
		perror("acl-bench: mmap of a direct ring");
		exit(1);
	}
	cmds = (struct drm_npu_direct_cmd *)((char *)ctrl + 4096);
	entries = (uint32_t)((map.size - 4096) / sizeof(*cmds));
	kick.stream = sc.id;
	*kicks = 0;
	for (int b = 0; b < batches; b++) {
		struct drm_npu_wait w = { .slot = sc.slot, .timeout_ns = DRM_NPU_WAIT_FOREVER };
		double t0 = now_s();

		for (int i = 0; i < per; i++) {
			cmds[tail & (entries - 1)] = (struct drm_npu_direct_cmd){ .op = DRM_NPU_DOP_NOP };
			__atomic_store_n(&ctrl->tail, ++tail, __ATOMIC_RELEASE);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			if (!__atomic_load_n(&ctrl->fetching, __ATOMIC_ACQUIRE)) {
				card_ioctl(fd, DRM_IOCTL_NPU_STREAM_KICK, &kick, "STREAM_KICK");
				++*kicks;
			}
		}
		total += now_s() - t0;
		/* a fence to wait on, outside the timing */
		cmds[tail & (entries - 1)] = (struct drm_npu_direct_cmd){
			.op = DRM_NPU_DOP_SLOT_WRITE, .dst_bind = sc.slot, .value = (uint64_t)b + 1,
		};
		__atomic_store_n(&ctrl->tail, ++tail, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		card_ioctl(fd, DRM_IOCTL_NPU_STREAM_KICK, &kick, "STREAM_KICK");
		w.value = (uint64_t)b + 1;
		card_ioctl(fd, DRM_IOCTL_NPU_WAIT, &w, "WAIT");
	}
	munmap(ctrl, map.size);
	sd.id = sc.id;
	card_ioctl(fd, DRM_IOCTL_NPU_STREAM_DESTROY, &sd, "STREAM_DESTROY");
	return total * 1e9 / (batches * per);
}

/* Average cost of one call, in batches the ring can take without waiting. */
static double memcpy_async_ns(aclrtStream s, void *d, void *h)
{
	int batches = quick ? 10 : 60, per = 200;
	double total = 0;

	for (int b = 0; b < batches; b++) {
		double t0 = now_s();

		for (int i = 0; i < per; i++)
			CHECK(aclrtMemcpyAsync(d, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE, s));
		total += now_s() - t0;
		CHECK(aclrtSynchronizeStream(s));
	}
	return total * 1e9 / (batches * per);
}

static double record_ns(aclrtStream s, aclrtEvent e)
{
	int batches = quick ? 10 : 60, per = 200;
	double total = 0;

	for (int b = 0; b < batches; b++) {
		double t0 = now_s();

		for (int i = 0; i < per; i++)
			CHECK(aclrtRecordEvent(e, s));
		total += now_s() - t0;
		CHECK(aclrtSynchronizeStream(s));
	}
	return total * 1e9 / (batches * per);
}

static void noop_callback(void *arg)
{
	(void)arg;
}

static volatile bool reports_stop;

static void *report_thread(void *arg)
{
	(void)arg;
	while (!reports_stop)
		aclrtProcessReport(100);
	return NULL;
}

/* aclrtLaunchCallback (not blocking), served by a subscribed thread. */
static double launch_callback_ns(aclrtContext ctx, aclrtStream s)
{
	int batches = quick ? 10 : 60, per = 200;
	double total = 0;
	pthread_t th;

	CHECK(aclrtSetCurrentContext(ctx));
	reports_stop = false;
	if (pthread_create(&th, NULL, report_thread, NULL)) {
		fprintf(stderr, "acl-bench: cannot start the report thread\n");
		exit(1);
	}
	CHECK(aclrtSubscribeReport((uint64_t)th, s));
	for (int b = 0; b < batches; b++) {
		double t0 = now_s();

		for (int i = 0; i < per; i++)
			CHECK(aclrtLaunchCallback(noop_callback, NULL, ACL_CALLBACK_NO_BLOCK, s));
		total += now_s() - t0;
		CHECK(aclrtSynchronizeStream(s));
	}
	reports_stop = true;
	pthread_join(th, NULL);
	CHECK(aclrtUnSubscribeReport((uint64_t)th, s));
	return total * 1e9 / (batches * per);
}

static double query_ns(aclrtEvent e)
{
	aclrtEventRecordedStatus st;
	int n = quick ? 100000 : 1000000;
	double t0 = now_s();

	for (int i = 0; i < n; i++)
		CHECK(aclrtQueryEventStatus(e, &st));
	return (now_s() - t0) * 1e9 / n;
}

static double load_ns(void)
{
	static volatile uint64_t word = 1;
	int n = quick ? 100000 : 1000000;
	uint64_t sum = 0;
	double t0 = now_s();

	for (int i = 0; i < n; i++)
		sum += word;
	if (sum == 42)
		puts("");
	return (now_s() - t0) * 1e9 / n;
}

static double roundtrip_us(aclrtStream s, aclrtEvent e)
{
	int n = quick ? 200 : 2000;
	double t0;

	CHECK(aclrtSynchronizeStream(s));
	t0 = now_s();
	for (int i = 0; i < n; i++) {
		CHECK(aclrtRecordEvent(e, s));
		CHECK(aclrtSynchronizeEvent(e));
	}
	return (now_s() - t0) * 1e6 / n;
}

static int efd_ping, efd_pong;
static int pingpong_n;

static void *pong_thread(void *arg)
{
	uint64_t v;

	(void)arg;
	for (int i = 0; i < pingpong_n; i++) {
		if (read(efd_ping, &v, sizeof(v)) != sizeof(v) ||
		    write(efd_pong, &v, sizeof(v)) != sizeof(v))
			break;
	}
	return NULL;
}

static double eventfd_us(void)
{
	uint64_t v = 1;
	pthread_t th;
	double t0, t;

	pingpong_n = quick ? 200 : 2000;
	efd_ping = eventfd(0, 0);
	efd_pong = eventfd(0, 0);
	pthread_create(&th, NULL, pong_thread, NULL);
	t0 = now_s();
	for (int i = 0; i < pingpong_n; i++) {
		if (write(efd_ping, &v, sizeof(v)) != sizeof(v) ||
		    read(efd_pong, &v, sizeof(v)) != sizeof(v))
			break;
	}
	t = now_s() - t0;
	pthread_join(th, NULL);
	close(efd_ping);
	close(efd_pong);
	return t * 1e6 / pingpong_n;
}

/* ---- bandwidth ---------------------------------------------------------- */
static int reps_for(size_t size)
{
	size_t budget = quick ? (32u << 20) : (384u << 20);
	int r = (int)(budget / size);

	return r < 2 ? 2 : r > 400 ? 400 : r;
}

static double copy_gbs(aclrtStream s, void *dst, void *src, size_t size, aclrtMemcpyKind kind)
{
	int reps = reps_for(size);
	double t0;

	CHECK(aclrtMemcpyAsync(dst, size, src, size, kind, s));	/* warm up */
	CHECK(aclrtSynchronizeStream(s));
	t0 = now_s();
	for (int i = 0; i < reps; i++)
		CHECK(aclrtMemcpyAsync(dst, size, src, size, kind, s));
	CHECK(aclrtSynchronizeStream(s));
	return (double)size * reps / (now_s() - t0) / 1e9;
}

static double memcpy_gbs(void *dst, void *src, size_t size)
{
	int reps = reps_for(size);
	double t0;

	memcpy(dst, src, size);
	t0 = now_s();
	for (int i = 0; i < reps; i++) {
		memcpy(dst, src, size);
		__asm__ volatile("" ::: "memory");
	}
	return (double)size * reps / (now_s() - t0) / 1e9;
}

static void size_name(size_t size, char *buf, size_t len)
{
	if (size >= (1u << 20))
		snprintf(buf, len, "%u MiB", (unsigned)(size >> 20));
	else
		snprintf(buf, len, "%u KiB", (unsigned)(size >> 10));
}

/* ---- streams ------------------------------------------------------------ */
static double streams_gbs(int k, void **bufs, size_t chunk, int copies)
{
	aclrtStream s[8];
	double t0, t;

	for (int i = 0; i < k; i++)
		CHECK(aclrtCreateStream(&s[i]));
	t0 = now_s();
	for (int c = 0; c < copies; c++) {
		int i = c % k;

		CHECK(aclrtMemcpyAsync(bufs[2 * i + 1], chunk, bufs[2 * i], chunk,
				       ACL_MEMCPY_DEVICE_TO_DEVICE, s[i]));
	}
	for (int i = 0; i < k; i++)
		CHECK(aclrtSynchronizeStream(s[i]));
	t = now_s() - t0;
	for (int i = 0; i < k; i++)
		CHECK(aclrtDestroyStream(s[i]));
	return (double)chunk * copies / t / 1e9;
}

int main(int argc, char **argv)
{
	size_t max = 256u << 20, freemem, total;
	void *hA, *hB, *dA, *dB, *small_d, *small_h, *mA, *mB;
	double t_start = now_s(), base = 0;
	aclrtStream s;
	aclrtEvent e;
	char label[96], sz[32];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--calls"))
			calls_only = true;
		else if (!strcmp(argv[i], "--max-mib") && i + 1 < argc)
			max = (size_t)atoi(argv[++i]) << 20;
	}
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateStream(&s));
	CHECK(aclrtCreateEvent(&e));
	CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &freemem, &total));
	/* two device buffers of the largest size must fit */
	while (max > (4u << 20) && 2 * (max + 4096) > freemem)
		max /= 2;
	printf("acl-bench: device 0, %zu MiB device memory (%zu free), largest copy %zu MiB%s\n",
	       total >> 20, freemem >> 20, max >> 20, quick ? ", quick mode" : "");
	printf("%-30s %18s | %-22s %18s | ratio (>1: better)\n", "figure", "libascendcl",
	       "reference", "");

	CHECK(aclrtMalloc(&small_d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMallocHost(&small_h, 4096));
	{
		int fd = card_open();
		double ioc = get_param_ns(fd);
		aclrtContext ctx;

		add("GET_PARAM ioctl (null)", ioc, "ns", null_syscall_ns(), "getppid syscall", false);
		unsigned int kicks;

		add("SUBMIT of 1 NOP (ioctl)", submit_nop_ns(fd), "ns", ioc, "GET_PARAM ioctl", false);
		add("1 NOP on a direct ring", direct_nop_ns(fd, &kicks), "ns", ioc,
		    "GET_PARAM ioctl", false);
		printf("  (%u kicks for %d NOPs)\n", kicks, (quick ? 10 : 60) * 200);
		close(fd);
		add("aclrtMemcpyAsync 64 B (call)", memcpy_async_ns(s, small_d, small_h), "ns", ioc,
		    "GET_PARAM ioctl", false);
		add("aclrtRecordEvent (call)", record_ns(s, e), "ns", ioc, "GET_PARAM ioctl", false);
		CHECK(aclrtGetCurrentContext(&ctx));
		add("aclrtLaunchCallback (call)", launch_callback_ns(ctx, s), "ns", ioc,
		    "GET_PARAM ioctl", false);
		add("aclrtQueryEventStatus", query_ns(e), "ns", load_ns(), "memory load", false);
		add("record+sync round trip", roundtrip_us(s, e), "us", eventfd_us(),
		    "eventfd ping-pong", false);
	}
	if (calls_only)
		goto out;

	CHECK(aclrtMallocHost(&hA, max));
	CHECK(aclrtMallocHost(&hB, max));
	CHECK(aclrtMalloc(&dA, max, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&dB, max, ACL_MEM_MALLOC_HUGE_FIRST));
	/* memcpy reference: ordinary memory, touched before timing */
	mA = malloc(max);
	mB = malloc(max);
	if (!mA || !mB) {
		fprintf(stderr, "acl-bench: out of host memory\n");
		return 1;
	}
	memset(mA, 1, max);
	memset(mB, 2, max);
	memset(hA, 1, max);
	memset(hB, 2, max);
	for (size_t size = 4096; size <= max; size *= 4) {
		double ref = memcpy_gbs(mB, mA, size);

		size_name(size, sz, sizeof(sz));
		snprintf(label, sizeof(label), "H2D %s", sz);
		add(label, copy_gbs(s, dA, hA, size, ACL_MEMCPY_HOST_TO_DEVICE), "GB/s", ref,
		    "memcpy", true);
		snprintf(label, sizeof(label), "D2H %s", sz);
		add(label, copy_gbs(s, hB, dA, size, ACL_MEMCPY_DEVICE_TO_HOST), "GB/s", ref,
		    "memcpy", true);
		snprintf(label, sizeof(label), "D2D %s", sz);
		add(label, copy_gbs(s, dB, dA, size, ACL_MEMCPY_DEVICE_TO_DEVICE), "GB/s", ref,
		    "memcpy", true);
		if (size < max && size * 4 > max)
			size = max / 4;	/* end on max exactly */
	}
	CHECK(aclrtFree(dA));
	CHECK(aclrtFree(dB));
	CHECK(aclrtFreeHost(hA));
	CHECK(aclrtFreeHost(hB));
	free(mA);
	free(mB);

	{
		size_t chunk = 4u << 20;
		int copies = quick ? 32 : 128;
		void *bufs[16];

		for (int i = 0; i < 16; i++)
			CHECK(aclrtMalloc(&bufs[i], chunk, ACL_MEM_MALLOC_HUGE_FIRST));
		for (int k = 1; k <= 8; k *= 2) {
			double g = streams_gbs(k, bufs, chunk, copies);

			if (k == 1)
				base = g;
			snprintf(label, sizeof(label), "D2D 4 MiB x%d, %d stream%s", copies, k,
				 k > 1 ? "s" : "");
			add(label, g, "GB/s", base, "1 stream", true);
		}
		for (int i = 0; i < 16; i++)
			CHECK(aclrtFree(bufs[i]));
	}
out:
	CHECK(aclrtDestroyEvent(e));
	CHECK(aclrtDestroyStream(s));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());

	printf("{\"tool\": \"acl-bench\", \"seconds\": %.1f, \"results\": [", now_s() - t_start);
	for (int i = 0; i < nrows; i++)
		printf("%s{\"name\": \"%s\", \"value\": %.4f, \"unit\": \"%s\", \"reference\": "
		       "\"%s\", \"reference_value\": %.4f, \"ratio\": %.4f}", i ? ", " : "",
		       rows[i].name, rows[i].value, rows[i].unit, rows[i].ref_name, rows[i].ref,
		       rows[i].ratio);
	printf("]}\n");
	return 0;
}
