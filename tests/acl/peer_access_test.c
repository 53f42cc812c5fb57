// SPDX-License-Identifier: MIT
/*
 * Peer access between two cards (libacl/src/peer.c): what
 * aclrtDeviceCanAccessPeer answers, enabling, disabling and the status,
 * copies between the cards' memory in both directions through the peer
 * window, verified byte for byte, allocations made after enabling, a
 * freed peer allocation that faults, and the errors. Needs two cards
 * (tools/vm-run --cards 2). On a driver without peer windows (before
 * 1.6) every call says so and the copy tests are skipped.
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "acl_test.h"
#include "kselftest_harness.h"
#include "npu_accel.h"

#define BIG	(64u << 20)
#define SLACK	8192u	/* room for the offsets */

/* Whether the first card's driver has peer windows. */
static bool driver_has_peers(void)
{
	struct drm_npu_get_param p = { .param = DRM_NPU_PARAM_NUM_PEERS };
	int fd = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return false;
	ret = ioctl(fd, DRM_IOCTL_NPU_GET_PARAM, &p);
	close(fd);
	return !ret && p.value > 0;
}

FIXTURE(two) {
	bool peers;
	uint8_t *host, *back;
};

FIXTURE_SETUP(two)
{
	uint32_t n = 0;

	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&n));
	if (n < 2)
		SKIP(return, "needs two cards, has %u", n);
	self->peers = driver_has_peers();
	self->host = malloc(BIG + SLACK);
	self->back = malloc(BIG + SLACK);
	ASSERT_NE(NULL, self->host);
	ASSERT_NE(NULL, self->back);
}

FIXTURE_TEARDOWN(two)
{
	free(self->host);
	free(self->back);
	aclrtResetDeviceForce(1);
	aclrtResetDeviceForce(0);
	aclFinalize();
}

#define NEED_PEERS()								\
	do {									\
		if (!self->peers)						\
			SKIP(return, "the driver has no peer windows");		\
	} while (0)

#define EXPECT_MSG(want)							\
	do {									\
		const char *m_ = aclGetRecentErrMsg();				\
										\
		EXPECT_NE(NULL, m_);						\
		if (m_) {							\
			EXPECT_NE(NULL, strstr(m_, want)) {			\
				TH_LOG("message: %s", m_);			\
			}							\
		}								\
	} while (0)

static void *dev_alloc(int32_t dev, size_t n)
{
	void *p = NULL;

	if (aclrtSetDevice(dev) || aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST_P2P))
		return NULL;
	return p;
}

TEST_F(two, can_access_peer)
{
	int32_t can = -1;

	EXPECT_EQ(ACL_SUCCESS, aclrtDeviceCanAccessPeer(&can, 0, 1));
	EXPECT_EQ(self->peers, can);
	can = -1;
	EXPECT_EQ(ACL_SUCCESS, aclrtDeviceCanAccessPeer(&can, 1, 0));
	EXPECT_EQ(self->peers, can);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(&can, 0, 0));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, 0, 9));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, -1, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(NULL, 0, 1));
}

TEST_F(two, enable_disable_status)
{
	int32_t st = -1;

	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_SUCCESS, aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(0, st);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceEnablePeerAccess(1, 1));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(0, 0));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(9, 0));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceDisablePeerAccess(0));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDevicePeerAccessStatus(0, 9, &st));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDevicePeerAccessStatus(0, 1, NULL));
	/* nothing enabled: nothing to disable */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceDisablePeerAccess(1));
	EXPECT_MSG("has not enabled access");
	if (!self->peers) {
		EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtDeviceEnablePeerAccess(1, 0));
		EXPECT_MSG("no peer windows");
		return;
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceEnablePeerAccess(1, 0));
	EXPECT_EQ(ACL_SUCCESS, aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(1, st);
	/* one way only */
	EXPECT_EQ(ACL_SUCCESS, aclrtDevicePeerAccessStatus(1, 0, &st));
	EXPECT_EQ(0, st);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceEnablePeerAccess(1, 0));
	EXPECT_MSG("already");
	EXPECT_EQ(ACL_SUCCESS, aclrtDeviceDisablePeerAccess(1));
	EXPECT_EQ(ACL_SUCCESS, aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(0, st);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceDisablePeerAccess(1));
	/* and again */
	EXPECT_EQ(ACL_SUCCESS, aclrtDeviceEnablePeerAccess(1, 0));
	EXPECT_EQ(ACL_SUCCESS, aclrtDeviceDisablePeerAccess(1));
}

/*
 * Copies n bytes from src + soff to dst + doff with device cur current,
 * dst filled with seed 2 beforehand and src with seed 1; then checks
 * dst through its own device: the copied bytes and the bytes either side
 * (dst holds doff + n + 64 bytes).
 * 0 when all is right, else the first wrong byte's index + 1, or -1 when
 * a call failed.
 */
static long copy_check(struct _test_data_two *self, int32_t cur, void *dst, int32_t ddev,
		       size_t doff, const void *src, int32_t sdev, size_t soff, size_t n,
		       bool async)
{
	size_t span = doff + n + 64;
	aclrtStream s = NULL;

	fill_pat(self->host, n + soff, 1);
	if (aclrtSetDevice(sdev) ||
	    aclrtMemcpy((void *)src, n + soff, self->host, n + soff, ACL_MEMCPY_HOST_TO_DEVICE))
		return -1;
	fill_pat(self->back, span, 2);
	if (aclrtSetDevice(ddev) ||
	    aclrtMemcpy(dst, span, self->back, span, ACL_MEMCPY_HOST_TO_DEVICE))
		return -1;
	if (aclrtSetDevice(cur))
		return -1;
	if (async) {
		if (aclrtCreateStream(&s) ||
		    aclrtMemcpyAsync((char *)dst + doff, n, (const char *)src + soff, n,
				     ACL_MEMCPY_DEVICE_TO_DEVICE, s) ||
		    aclrtSynchronizeStream(s) || aclrtDestroyStream(s))
			return -1;
	} else if (aclrtMemcpy((char *)dst + doff, n, (const char *)src + soff, n,
			       ACL_MEMCPY_DEFAULT)) {
		return -1;
	}
	if (aclrtSetDevice(ddev) ||
	    aclrtMemcpy(self->back, span, dst, span, ACL_MEMCPY_DEVICE_TO_HOST))
		return -1;
	for (size_t i = 0; i < span; i++) {
		uint8_t want = i >= doff && i < doff + n ? pat(i - doff + soff, 1) : pat(i, 2);

		if (self->back[i] != want)
			return (long)i + 1;
	}
	return 0;
}

#ifdef __SANITIZE_THREAD__
#define TSAN_BUILD	1
#else
#define TSAN_BUILD	0
#endif

TEST_F_TIMEOUT(two, copies_every_size_and_alignment, 120)
{
	static const size_t sizes[] = {
		1, 2, 3, 7, 8, 63, 64, 65, 511, 512, 4095, 4096, 4097, 65536 + 3,
		(1u << 20) - 1, 2u << 20, (2u << 20) + 1, 5u << 20, BIG,
	};
	static const size_t offs[] = { 0, 1, 7, 64, 4095 };
	void *a, *b;
	long r;

	NEED_PEERS();
	a = dev_alloc(0, BIG + SLACK);
	b = dev_alloc(1, BIG + SLACK);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	/* each card reaches the other: enabled after both allocations */
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceEnablePeerAccess(0, 0));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (size_t j = 0; j < sizeof(offs) / sizeof(offs[0]); j++) {
			size_t n = sizes[i], so = offs[j], doff = offs[(j + i) % 5];
			bool async = (i + j) & 1;

			/*
			 * 64 MiB aligned and not (the smaller sizes take
			 * every offset); under ThreadSanitizer, which checks
			 * every byte compared, aligned only.
			 */
			if (n == BIG && j != 0 && (TSAN_BUILD || j != 4))
				continue;
			/* card 0 writes card 1's memory, then reads it back */
			r = copy_check(self, 0, b, 1, doff, a, 0, so, n, async);
			EXPECT_EQ(0, r) TH_LOG("0 -> 1, %zu bytes, src +%zu, dst +%zu", n, so, doff);
			r = copy_check(self, 0, a, 0, doff, b, 1, so, n, !async);
			EXPECT_EQ(0, r) TH_LOG("1 -> 0 on 0, %zu bytes, +%zu, +%zu", n, so, doff);
			/* and card 1 the other way */
			r = copy_check(self, 1, a, 0, doff, b, 1, so, n, async);
			EXPECT_EQ(0, r) TH_LOG("1 -> 0 on 1, %zu bytes, +%zu, +%zu", n, so, doff);
		}
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(b));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(a));
}

TEST_F(two, allocations_after_enabling)
{
	void *a, *b;

	NEED_PEERS();
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceEnablePeerAccess(1, 0));
	a = dev_alloc(0, 1 << 20);
	b = dev_alloc(1, 3 << 20);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(0, copy_check(self, 0, b, 1, 100, a, 0, 3, 1000, false));
	EXPECT_EQ(0, copy_check(self, 0, a, 0, 0, b, 1, 4096, 1 << 19, true));
}

TEST_F(two, copy_needs_peer_access)
{
	void *a, *b;

	NEED_PEERS();
	a = dev_alloc(0, 4096);
	b = dev_alloc(1, 4096);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	/* addresses are unique across the cards */
	EXPECT_NE(a, b);
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_ERROR_RT_NO_PERMISSION,
		  aclrtMemcpy(b, 4096, a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
	EXPECT_MSG("aclrtDeviceEnablePeerAccess");
	EXPECT_EQ(ACL_ERROR_RT_NO_PERMISSION,
		  aclrtMemcpyAsync(a, 4096, b, 4096, ACL_MEMCPY_DEFAULT, NULL));
	/* enabled the other way only */
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceEnablePeerAccess(0, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_ERROR_RT_NO_PERMISSION,
		  aclrtMemcpy(b, 4096, a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceEnablePeerAccess(1, 0));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy(b, 4096, a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
	/* disabled again: refused again */
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceDisablePeerAccess(1));
	EXPECT_EQ(ACL_ERROR_RT_NO_PERMISSION,
		  aclrtMemcpy(b, 4096, a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
}

/*
 * Freed on its card, a peer allocation is unmapped from the card that
 * reached it first: a copy there faults, and the memory's next owner
 * keeps its bytes.
 */
TEST_F(two, freed_peer_memory_faults)
{
	void *a, *b, *b2;
	size_t n = 1 << 20;

	NEED_PEERS();
	a = dev_alloc(0, n + 64);
	b = dev_alloc(1, n);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceEnablePeerAccess(1, 0));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtFree(b));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_NE(ACL_SUCCESS, aclrtMemcpy(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
	/* the next allocation on card 1 (the same place, likely) is untouched */
	b2 = dev_alloc(1, n);
	ASSERT_NE(NULL, b2);
	fill_pat(self->host, n, 5);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(b2, n, self->host, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	/* card 0 still works, and reaches the new allocation */
	EXPECT_EQ(0, copy_check(self, 0, a, 0, 0, b2, 1, 0, n, false));
}

/* The vendor's order: card 1 is reset while card 0 still reaches it. */
TEST_F(two, reset_of_the_peer)
{
	int32_t st = -1;
	void *a, *b;

	NEED_PEERS();
	a = dev_alloc(0, 4096);
	b = dev_alloc(1, 4096);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetDeviceForce(1));
	EXPECT_EQ(ACL_SUCCESS, aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(1, st);
	/* card 1 again: its new memory is reachable */
	b = dev_alloc(1, 8192);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(0, copy_check(self, 0, b, 1, 0, a, 0, 0, 4096, false));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_SUCCESS, aclrtDeviceDisablePeerAccess(1));
}

TEST_HARNESS_MAIN
