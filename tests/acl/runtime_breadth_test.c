// SPDX-License-Identifier: MIT
/*
 * The runtime's breadth: 32-bit fills, batched copies, the callbacks of
 * aclInit and aclFinalize, device id mappings, the primary context's
 * state, frees after a device synchronization, aclsysGetCANNVersion, and
 * the calls of vendor-compiled kernels and managed memory, which fail as
 * not supported.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

ACL_DEVICE0_FIXTURE(dev)

#define EXPECT_MSG(want)							\
	do {									\
		const char *m_ = aclGetRecentErrMsg();				\
										\
		EXPECT_NE(NULL, m_);						\
		if (m_)								\
			EXPECT_NE(NULL, strstr(m_, want)) {			\
				TH_LOG("message: %s", m_);			\
			}							\
	} while (0)

#define FILL_BYTE	0x5a
#define GUARD		64	/* bytes checked untouched on each side */

/*
 * Fills n values at byte offset off of a device buffer set to FILL_BYTE,
 * then checks the values and the guard bytes around them. -1 if right,
 * else the first wrong byte's offset from the buffer's start.
 */
static long d32_check(size_t off, size_t n, uint32_t value, aclrtStream stream)
{
	size_t size = GUARD + off + n * 4 + GUARD, i;
	uint8_t *host = malloc(size);
	uint8_t *dev = NULL;
	long bad = -2;
	uint32_t v;

	if (!host || aclrtMalloc((void **)&dev, size, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMemset(dev, size, FILL_BYTE, size))
		goto out;
	if (stream) {
		if (aclrtMemsetD32Async(dev + GUARD + off, n * 4, value, n, stream) ||
		    aclrtSynchronizeStream(stream))
			goto out;
	} else if (aclrtMemsetD32(dev + GUARD + off, n * 4, value, n)) {
		goto out;
	}
	if (aclrtMemcpy(host, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST))
		goto out;
	bad = -1;
	for (i = 0; i < size && bad == -1; i++) {
		if (i < GUARD + off || i >= GUARD + off + n * 4) {
			if (host[i] != FILL_BYTE)
				bad = (long)i;
			continue;
		}
		memcpy(&v, host + GUARD + off + (i - GUARD - off) / 4 * 4, 4);
		if (v != value)
			bad = (long)i;
	}
out:
	aclrtFree(dev);
	free(host);
	return bad;
}

TEST_F(dev, memset_d32_every_alignment_and_size)
{
	/* Sizes around the 8-byte word the card writes first, and doublings. */
	const size_t ns[] = { 1, 2, 3, 4, 5, 7, 64, 1000, 4099, (1 << 20) + 3 };
	const size_t offs[] = { 0, 4, 8, 12 };
	aclrtStream s;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (size_t j = 0; j < sizeof(offs) / sizeof(offs[0]); j++) {
			EXPECT_EQ(-1, d32_check(offs[j], ns[i], 0xdeadbeef, NULL)) {
				TH_LOG("sync: %zu values at offset %zu", ns[i], offs[j]);
			}
			EXPECT_EQ(-1, d32_check(offs[j], ns[i], 0x01020304, s)) {
				TH_LOG("async: %zu values at offset %zu", ns[i], offs[j]);
			}
		}
	/* Four equal bytes: a byte fill. */
	EXPECT_EQ(-1, d32_check(4, 1000, 0x7f7f7f7f, NULL));
	EXPECT_EQ(-1, d32_check(0, 0, 0xdeadbeef, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
}

TEST_F(dev, memset_d32_host_memory_and_errors)
{
	uint32_t *host = malloc(100 * 4), *pinned = NULL;
	uint8_t *dev = NULL;
	aclrtStream s;

	ASSERT_NE(NULL, host);
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&pinned, 100 * 4));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc((void **)&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));

	host[99] = 7;
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetD32(host, 99 * 4, 0xcafef00d, 99));
	for (int i = 0; i < 99; i++)
		ASSERT_EQ(0xcafef00d, host[i]);
	EXPECT_EQ(7, host[99]);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetD32Async(pinned, 100 * 4, 0x12345678, 100, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	for (int i = 0; i < 100; i++)
		ASSERT_EQ(0x12345678, pinned[i]);

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32(NULL, 8, 1, 2));
	EXPECT_EQ(ACL_ERROR_RT_ADDR_UNALIGNED, aclrtMemsetD32(dev + 2, 8, 1, 2));
	EXPECT_MSG("aligned");
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetD32(dev, 7, 1, 2));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetD32Async(dev, 4096, 1, SIZE_MAX / 2, s));

	EXPECT_EQ(ACL_SUCCESS, aclrtFree(dev));
	EXPECT_EQ(ACL_SUCCESS, aclrtFreeHost(pinned));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	free(host);
}

#define NB	4

static aclrtMemcpyBatchAttr batch_attr(aclrtMemLocationType dst, aclrtMemLocationType src)
{
	aclrtMemcpyBatchAttr a = { 0 };

	a.dstLoc.type = dst;
	a.srcLoc.type = src;
	return a;	/* device 0: id 0 */
}

TEST_F(dev, memcpy_batch_there_and_back)
{
	const size_t sizes_c[NB] = { 1, 4096, 100000, 3 << 20 };
	size_t sizes[NB], maxs[NB], idx2[2] = { 0, 2 }, idx1[1] = { 0 }, fail = 0;
	void *dsts[NB], *srcs[NB], *dev[NB], *in[NB], *out[NB];
	aclrtMemcpyBatchAttr h2d = batch_attr(ACL_MEM_LOCATION_TYPE_DEVICE,
					      ACL_MEM_LOCATION_TYPE_HOST);
	aclrtMemcpyBatchAttr d2h = batch_attr(ACL_MEM_LOCATION_TYPE_HOST,
					      ACL_MEM_LOCATION_TYPE_DEVICE);
	aclrtMemcpyBatchAttr two[2] = { d2h, d2h };
	aclrtStream s;
	int i;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	for (i = 0; i < NB; i++) {
		sizes[i] = maxs[i] = sizes_c[i];
		ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&dev[i], sizes[i], ACL_MEM_MALLOC_HUGE_FIRST));
		in[i] = malloc(sizes[i]);
		/* Half of them pinned: the batch takes both kinds of host memory. */
		if (i % 2) {
			ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost(&out[i], sizes[i]));
		} else {
			out[i] = malloc(sizes[i]);
		}
		ASSERT_NE(NULL, in[i]);
		ASSERT_NE(NULL, out[i]);
		fill_pat(in[i], sizes[i], (unsigned)i + 1);
		memset(out[i], 0, sizes[i]);
		dsts[i] = dev[i];
		srcs[i] = in[i];
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, NB, &h2d, idx1, 1, &fail));
	EXPECT_EQ(SIZE_MAX, fail);
	for (i = 0; i < NB; i++) {
		dsts[i] = out[i];
		srcs[i] = dev[i];
	}
	fail = 0;
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, NB, two, idx2, 2,
						     &fail, s));
	EXPECT_EQ(SIZE_MAX, fail);
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	for (i = 0; i < NB; i++)
		EXPECT_EQ(-1, check_pat(out[i], sizes[i], (unsigned)i + 1)) {
			TH_LOG("copy %d of %zu bytes", i, sizes[i]);
		}

	for (i = 0; i < NB; i++) {
		aclrtFree(dev[i]);
		free(in[i]);
		if (i % 2)
			aclrtFreeHost(out[i]);
		else
			free(out[i]);
	}
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
}

TEST_F(dev, memcpy_batch_refusals_name_the_copy)
{
	aclrtMemcpyBatchAttr h2d = batch_attr(ACL_MEM_LOCATION_TYPE_DEVICE,
					      ACL_MEM_LOCATION_TYPE_HOST);
	aclrtMemcpyBatchAttr d2h = batch_attr(ACL_MEM_LOCATION_TYPE_HOST,
					      ACL_MEM_LOCATION_TYPE_DEVICE);
	aclrtMemcpyBatchAttr mixed[2] = { h2d, d2h }, other1 = h2d;
	size_t sizes[3] = { 8, 8, 8 }, idx[2] = { 0, 2 }, idx1[1] = { 0 }, bad_idx[2] = { 0, 3 };
	size_t fail = 0;
	uint8_t host[3][8] = { { 1 }, { 2 }, { 3 } }, back[8];
	void *dev[3], *dsts[3], *srcs[3];

	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&dev[i], 8, ACL_MEM_MALLOC_HUGE_FIRST));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemset(dev[i], 8, 0, 8));
		dsts[i] = dev[i];
		srcs[i] = host[i];
	}
	/* Copy 2 is the first under attrs[1], which goes the other way. */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 3, mixed, idx, 2, &fail));
	EXPECT_EQ(2, fail);
	EXPECT_MSG("one direction");
	/* Copy 1's source is device memory where its attributes say host. */
	srcs[1] = dev[0];
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 3, &h2d, idx1, 1, &fail));
	EXPECT_EQ(1, fail);
	srcs[1] = host[1];
	/* Device 1 is not where copy 0's destination is. */
	other1.dstLoc.id = 1;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 3, &other1, idx1, 1, &fail));
	EXPECT_EQ(0, fail);
	/* Index errors are no copy's: SIZE_MAX. */
	fail = 0;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 3, mixed, bad_idx, 2, &fail));
	EXPECT_EQ(SIZE_MAX, fail);
	fail = 0;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 1, mixed, idx, 2, &fail));
	EXPECT_EQ(SIZE_MAX, fail);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 0, &h2d, idx1, 1, &fail));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 3, &h2d, idx1, 1, NULL));
	/* None of the refused batches copied anything. */
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(back, 8, dev[i], 8, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(0, back[0]);
		aclrtFree(dev[i]);
	}
}

struct cb_log {
	int inits, finis;
	size_t len;
	char text[64];
	aclError ret;
};

static aclError on_init(const char *config, size_t len, void *user)
{
	struct cb_log *l = user;

	l->inits++;
	l->len = len;
	snprintf(l->text, sizeof(l->text), "%.*s", (int)len, config);
	return l->ret;
}

static aclError on_fini(void *user)
{
	((struct cb_log *)user)->finis++;
	return ACL_SUCCESS;
}

TEST(init_and_finalize_callbacks)
{
	static const char config[] = "{\"err_msg_mode\": \"1\"}";
	char path[] = "/tmp/acl-breadth-XXXXXX";
	struct cb_log a = { 0 }, late = { 0 };
	int fd;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(config), write(fd, config, strlen(config)));
	close(fd);

	ASSERT_EQ(ACL_SUCCESS, aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, on_init, &a));
	ASSERT_EQ(ACL_SUCCESS, aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_MODEL, on_fini, &a));
	EXPECT_EQ(0, a.inits);
	ASSERT_EQ(ACL_SUCCESS, aclInit(path));
	EXPECT_EQ(1, a.inits);
	EXPECT_EQ(strlen(config), a.len);
	EXPECT_STREQ(config, a.text);
	EXPECT_EQ(0, a.finis);
	/* Registered while initialized: runs at once, with the same text. */
	ASSERT_EQ(ACL_SUCCESS, aclInitCallbackRegister(ACL_REG_TYPE_OTHER, on_init, &late));
	EXPECT_EQ(1, late.inits);
	EXPECT_STREQ(config, late.text);
	ASSERT_EQ(ACL_SUCCESS, aclFinalize());
	EXPECT_EQ(1, a.finis);
	EXPECT_EQ(1, a.inits);
	unlink(path);

	/* Still registered: the next aclInit, without a file, gives empty text. */
	ASSERT_EQ(ACL_SUCCESS, aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, on_init));
	ASSERT_EQ(ACL_SUCCESS, aclInit(NULL));
	EXPECT_EQ(2, a.inits);
	EXPECT_EQ(0, a.len);
	EXPECT_EQ(1, late.inits);
	/* A failing callback registered late: its error comes back. */
	late.ret = ACL_ERROR_INVALID_PARAM;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclInitCallbackRegister(ACL_REG_TYPE_ACL_DVPP, on_init, &late));
	EXPECT_MSG("init callback");
	ASSERT_EQ(ACL_SUCCESS, aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, on_init));
	ASSERT_EQ(ACL_SUCCESS, aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, on_fini));
	ASSERT_EQ(ACL_SUCCESS, aclFinalize());
	EXPECT_EQ(1, a.finis);
	ASSERT_EQ(ACL_SUCCESS, aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, on_init));

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, on_init));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, NULL, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclFinalizeCallbackRegister((aclRegisterCallbackType)100, on_fini, NULL));
}

TEST_F(dev, device_ids_map_one_to_one)
{
	aclError (*const maps[])(const int32_t, int32_t *const) = {
		aclrtGetLogicDevIdByPhyDevId, aclrtGetPhyDevIdByLogicDevId,
		aclrtGetLogicDevIdByUserDevId, aclrtGetUserDevIdByLogicDevId,
		aclrtGetPhyDevIdByUserDevId, aclrtGetUserDevIdByPhyDevId,
	};
	uint32_t count = 0;
	int32_t out;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&count));
	ASSERT_LT(0, count);
	for (size_t m = 0; m < sizeof(maps) / sizeof(maps[0]); m++) {
		for (int32_t id = 0; id < (int32_t)count; id++) {
			out = -1;
			ASSERT_EQ(ACL_SUCCESS, maps[m](id, &out));
			EXPECT_EQ(id, out);
		}
		EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, maps[m]((int32_t)count, &out));
		EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, maps[m](-1, &out));
		EXPECT_EQ(ACL_ERROR_INVALID_PARAM, maps[m](0, NULL));
	}
}

TEST_F(dev, primary_context_state)
{
	uint32_t count = 0, flags = 7;
	int32_t active = -1;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&count));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetPrimaryCtxState(0, &flags, &active));
	EXPECT_EQ(1, active);
	EXPECT_EQ(0, flags);
	if (count > 1) {
		/* The fixture set device 0 only. */
		ASSERT_EQ(ACL_SUCCESS, aclrtGetPrimaryCtxState((int32_t)count - 1, NULL, &active));
		EXPECT_EQ(0, active);
		ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice((int32_t)count - 1));
		ASSERT_EQ(ACL_SUCCESS, aclrtGetPrimaryCtxState((int32_t)count - 1, NULL, &active));
		EXPECT_EQ(1, active);
		ASSERT_EQ(ACL_SUCCESS, aclrtResetDevice((int32_t)count - 1));
		ASSERT_EQ(ACL_SUCCESS, aclrtGetPrimaryCtxState((int32_t)count - 1, NULL, &active));
		EXPECT_EQ(0, active);
		ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	}
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetPrimaryCtxState((int32_t)count, NULL,
									  &active));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetPrimaryCtxState(0, NULL, NULL));
}

TEST_F(dev, free_with_device_sync_waits_for_queued_work)
{
	const size_t size = 64 << 20;
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
	void *d = NULL, *h = NULL;
	aclrtStream s;
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d, size, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost(&h, 4096));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(d, size, 1, size, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(h, 4096, 2, 4096, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtFreeWithDevSync(d));
	/* Everything queued before the free has run. */
	ASSERT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	EXPECT_EQ(2, ((uint8_t *)h)[4095]);
	ASSERT_EQ(ACL_SUCCESS, aclrtFreeHostWithDevSync(h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeWithDevSync(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeHostWithDevSync(NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
}

TEST_F(dev, cann_version_by_package)
{
	aclCANNPackageVersion v;
	char want[ACL_PKG_VERSION_MAX_SIZE], str[ACL_PKG_VERSION_MAX_SIZE];

	snprintf(want, sizeof(want), "%d.%d.%d", ACL_MAJOR_VERSION, ACL_MINOR_VERSION,
		 ACL_PATCH_VERSION);
	ASSERT_EQ(ACL_SUCCESS, aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &v));
	EXPECT_STREQ(want, v.version);
	snprintf(want, sizeof(want), "%d", ACL_MAJOR_VERSION);
	EXPECT_STREQ(want, v.majorVersion);
	snprintf(want, sizeof(want), "%d", ACL_MINOR_VERSION);
	EXPECT_STREQ(want, v.minorVersion);
	EXPECT_STREQ("0", v.releaseVersion);
	snprintf(want, sizeof(want), "%d", ACL_PATCH_VERSION);
	EXPECT_STREQ(want, v.patchVersion);
	ASSERT_EQ(ACL_SUCCESS, aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &v));
	/* The driver's: what aclsysGetVersionStr says of it. */
	ASSERT_EQ(ACL_SUCCESS, aclsysGetCANNVersion(ACL_PKG_NAME_DRIVER, &v));
	ASSERT_EQ(ACL_SUCCESS, aclsysGetVersionStr((char *)"driver", str));
	EXPECT_STREQ(str, v.version);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetCANNVersion(ACL_PKG_NAME_OPP, &v));
	EXPECT_MSG("opp");
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetCANNVersion((aclCANNPackageName)99, &v));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetCANNVersion(ACL_PKG_NAME_CANN, NULL));
}

TEST_F(dev, vendor_kernels_and_managed_memory_are_not_supported)
{
	aclrtBinHandle bin = NULL;
	aclrtFuncHandle fn = NULL;
	aclrtArgsHandle args = NULL;
	size_t limit = 0;
	void *p = NULL;

	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtBinaryLoadFromFile("/nonexistent.o", NULL, &bin));
	EXPECT_MSG("kernels are not supported");
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtBinaryGetFunction(bin, "k", &fn));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtKernelArgsInit(fn, &args));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtLaunchKernelWithConfig(fn, 8, NULL, NULL, args, NULL));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtBinaryUnLoad(bin));
	EXPECT_EQ(NULL, aclrtCreateBinary("x", 1));
	EXPECT_MSG("kernels are not supported");
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtMemAllocManaged(&p, 4096, ACL_RT_MEM_ATTACH_GLOBAL));
	EXPECT_MSG("managed memory");
	EXPECT_EQ(NULL, p);
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, &limit));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 4096));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceSetLimit((aclrtDeviceLimit)77, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, NULL));
}

TEST_HARNESS_MAIN
