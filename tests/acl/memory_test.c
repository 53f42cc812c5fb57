// SPDX-License-Identifier: MIT
/*
 * Memory: device allocation (sizes, alignment, policies, errors, running
 * out), pinned host memory, registered host memory, memory information,
 * pointer attributes and address ranges.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

ACL_DEVICE0_FIXTURE(dev)

TEST_F(dev, malloc_free)
{
	static const size_t sizes[] = { 1, 31, 32, 33, 4096, 65537, 1 << 20, 10u << 20 };
	void *p;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, sizes[i], ACL_MEM_MALLOC_HUGE_FIRST));
		EXPECT_GE((uintptr_t)p, 1ULL << 56);
		EXPECT_EQ(0, (uintptr_t)p % 64);
		EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocAlign32(&p, 100, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocCached(&p, 100, ACL_MEM_MALLOC_HUGE_ONLY));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, 100,
					   ACL_MEM_MALLOC_HUGE_FIRST | ACL_MEM_TYPE_HIGH_BAND_WIDTH));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
}

/*
 * ggml's CANN backend places tensors at 128-byte steps from an allocation's
 * start and takes the allocation's own start to be as aligned; odd sizes
 * kept alive push later buffers off any alignment the driver's 64 gives.
 * Each one is whole: pinned copies (direct rings, which name a buffer by
 * its handle and an offset) and pageable ones reach its first and last byte.
 */
TEST_F(dev, malloc_start_holds_tensors_at_128_byte_steps)
{
	static const size_t sizes[] = { 1, 33, 100, 65, 4097, 200, 31, 1000 };
	enum { N = sizeof(sizes) / sizeof(sizes[0]) };
	uint8_t *up, *down, last = 0;
	aclrtStream s;
	void *p[N];
	size_t i, j;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&up, 4097));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&down, 4097));
	for (i = 0; i < N; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p[i], sizes[i], ACL_MEM_MALLOC_HUGE_FIRST));
		EXPECT_EQ(0, (uintptr_t)p[i] % 128);
	}
	for (i = 0; i < N; i++) {
		for (j = 0; j < sizes[i]; j++)
			up[j] = (uint8_t)(i * 31 + j * 7 + 1);
		memset(down, 0, sizes[i]);
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(p[i], sizes[i], up, sizes[i],
							ACL_MEMCPY_HOST_TO_DEVICE, s));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(down, sizes[i], p[i], sizes[i],
							ACL_MEMCPY_DEVICE_TO_HOST, s));
		ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
		EXPECT_EQ(0, memcmp(up, down, sizes[i]));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(&last, 1, (uint8_t *)p[i] + sizes[i] - 1, 1,
						   ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(up[sizes[i] - 1], last);
	}
	for (i = 0; i < N; i++)
		EXPECT_EQ(ACL_SUCCESS, aclrtFree(p[i]));
	aclrtFreeHost(up);
	aclrtFreeHost(down);
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
}

TEST_F(dev, malloc_errors)
{
	void *p;

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, 64, (aclrtMemMallocPolicy)0x55));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocCached(NULL, 1, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFree(NULL));
	/* not an allocation, or not its start */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFree((void *)0x1000));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFree((char *)p + 64));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFree(p));	/* double free */
}

TEST_F(dev, out_of_device_memory)
{
	size_t freemem, total;
	void *p, *big[64];
	int n = 0;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetMemInfo(ACL_HBM_MEM, &freemem, &total));
	EXPECT_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMalloc(&p, total + 4096,
							     ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_NE(NULL, aclGetRecentErrMsg());
	/* fill it up in 16 MiB pieces, then one more fails */
	while (n < 64 && aclrtMalloc(&big[n], 16 << 20, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS)
		n++;
	EXPECT_LT(n, 64);
	EXPECT_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMalloc(&p, 16 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
	while (n > 0)
		EXPECT_EQ(ACL_SUCCESS, aclrtFree(big[--n]));
	EXPECT_EQ(ACL_SUCCESS, aclrtMalloc(&p, 16 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
}

TEST_F(dev, mem_info)
{
	size_t f0, t0, f1, t1;
	void *p;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetMemInfo(ACL_HBM_MEM, &f0, &t0));
	EXPECT_GT(t0, 0);
	EXPECT_LE(f0, t0);
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, 8 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetMemInfo(ACL_DDR_MEM, &f1, &t1));
	EXPECT_EQ(t0, t1);
	EXPECT_GE(f0 - f1, 8u << 20);
	aclrtFree(p);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo((aclrtMemAttr)99, &f0, &t0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo(ACL_HBM_MEM, NULL, &t0));
	TH_LOG("device memory: %zu of %zu bytes free", f0, t0);
}

TEST_F(dev, free_does_not_synchronize)
{
	struct gate g;
	aclrtStream s;
	void *p;
	uint8_t *host;
	size_t n = 1 << 20;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, n));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(p, n, 0x42, n, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(host, n, p, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
	/* freed while queued work still uses it: returns at once */
	ASSERT_EQ(ACL_SUCCESS, aclrtFree(p));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	EXPECT_EQ(0x42, host[0]);
	EXPECT_EQ(0x42, host[n - 1]);
	aclrtFreeHost(host);
	aclrtDestroyStream(s);
	gate_fini(&g);
}

TEST_F(dev, malloc_host)
{
	uint8_t *h;
	void *base;
	size_t size;

	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&h, 100000));
	EXPECT_EQ(0, (uintptr_t)h % 64);
	memset(h, 0xab, 100000);	/* usable from the host */
	EXPECT_EQ(0xab, h[99999]);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAddressRange(h + 5000, &base, &size));
	EXPECT_EQ((void *)h, base);
	EXPECT_EQ(100000, size);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(h + 64));
	EXPECT_EQ(ACL_SUCCESS, aclrtFreeHost(h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(NULL, 10));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocHost((void **)&h, 0));
	char local[8];
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(local));
}

TEST_F(dev, pointer_attributes)
{
	aclrtPtrAttributes a;
	void *d, *h;
	char stack[16];

	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost(&h, 4096));
	ASSERT_EQ(ACL_SUCCESS, aclrtPointerGetAttributes((char *)d + 100, &a));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, a.location.type);
	EXPECT_EQ(0, a.location.id);
	EXPECT_EQ(4096, a.pageSize);
	ASSERT_EQ(ACL_SUCCESS, aclrtPointerGetAttributes(h, &a));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, a.location.type);
	ASSERT_EQ(ACL_SUCCESS, aclrtPointerGetAttributes(stack, &a));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_UNREGISTERED, a.location.type);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtPointerGetAttributes(NULL, &a));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtPointerGetAttributes(d, NULL));
	aclrtFree(d);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtPointerGetAttributes(d, &a));
	aclrtFreeHost(h);
}

TEST_F(dev, address_range)
{
	void *d, *base = NULL;
	size_t size = 0;

	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAddressRange((char *)d + 999, &base, &size));
	EXPECT_EQ(d, base);
	EXPECT_EQ(1000, size);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAddressRange((char *)d + 5000, &base, &size));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAddressRange(NULL, &base, &size));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAddressRange(d, NULL, NULL));
	aclrtFree(d);
}

TEST_F(dev, host_register)
{
	size_t n = 3 << 20;
	uint8_t *buf = aligned_alloc(4096, n), *back = malloc(n);
	void *dev_alias = NULL, *d;
	aclrtStream s;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(ACL_SUCCESS, aclrtHostRegister(buf, n, ACL_HOST_REGISTER_MAPPED, &dev_alias));
	EXPECT_NE(NULL, dev_alias);
	EXPECT_EQ(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		  aclrtHostRegister(buf + 4096, 10, ACL_HOST_REGISTER_MAPPED, &dev_alias));
	/* registered memory: asynchronous copies are allowed to stay async */
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pat(buf, n, 3);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(d, n, buf, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	memset(buf, 0, n);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(buf, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	EXPECT_EQ(-1, check_pat(buf, n, 3));
	/* the alias works where device memory is expected */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(back, n, dev_alias, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pat(back, n, 3));
	EXPECT_EQ(ACL_SUCCESS, aclrtHostUnregister(buf));
	EXPECT_EQ(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(buf));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtHostRegister(NULL, 10, ACL_HOST_REGISTER_MAPPED, &dev_alias));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(buf, 0, ACL_HOST_REGISTER_MAPPED,
							      &dev_alias));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(buf, 10, (aclrtHostRegisterType)3,
							      &dev_alias));
	aclrtFree(d);
	aclrtDestroyStream(s);
	free(buf);
	free(back);
}

/* aclFinalize releases the runtime's state, registrations included. */
TEST_F(dev, registration_ends_with_finalize)
{
	size_t n = 1 << 20;
	uint8_t *buf = aligned_alloc(4096, n);
	void *alias;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(ACL_SUCCESS, aclrtHostRegister(buf, n, ACL_HOST_REGISTER_MAPPED, &alias));
	ASSERT_EQ(ACL_SUCCESS, aclFinalize());
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(buf));
	EXPECT_EQ(ACL_SUCCESS, aclrtHostRegister(buf, n, ACL_HOST_REGISTER_MAPPED, &alias));
	EXPECT_EQ(ACL_SUCCESS, aclrtHostUnregister(buf));
	free(buf);
}

TEST_F(dev, memory_is_per_device_file)
{
	uint32_t ndev;
	void *p;
	aclrtContext c;

	/* memory of the default context is usable from an explicit one */
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateContext(&c, 0));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemset(p, 4096, 1, 4096));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyContext(c));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p));
	aclrtResetDevice(0);
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&ndev));
}

TEST_HARNESS_MAIN
