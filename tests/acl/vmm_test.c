// SPDX-License-Identifier: MIT
/*
 * Virtual memory: reserved addresses, physical allocations mapped there,
 * copies, fills and an aclnn Add through them checked byte by byte, a
 * remap keeping the memory's contents, read-only and no access faulting
 * with the vendor's code and the address in the message, handles freed
 * while mapped, another card given access (two cards), sharing an
 * allocation with another process by shareable handle (its pid allowed
 * first), a process that exits with mappings giving the card's memory
 * back, and every bad argument.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <sys/wait.h>

#include "acl_test.h"
#include "acl_test_aclnn.h"
#include "kselftest_harness.h"
#include "npu_accel.h"

#define G	(2ULL << 20)		/* the granularity: DRM_NPU_VM_BLOCK_SIZE */
#define USER_BASE (DRM_NPU_DEVICE_ADDR_BASE + (1ULL << 38))
#define VA_END	(DRM_NPU_DEVICE_ADDR_BASE + (1ULL << 39))
#define ACL_MAX_DEVICES_TEST 64	/* a device id no process has */

/*
 * Whether the thread's last error message says what. Reading the message
 * clears it: it is kept here for the checks that follow.
 */
static char last_msg[1024];

static bool msg_has(const char *what)
{
	const char *m = aclGetRecentErrMsg();

	if (m)
		snprintf(last_msg, sizeof(last_msg), "%s", m);
	return strstr(last_msg, what);
}

static aclrtPhysicalMemProp dev_prop(uint32_t dev)
{
	aclrtPhysicalMemProp p = {
		.handleType = ACL_MEM_HANDLE_TYPE_NONE,
		.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED,
		.memAttr = ACL_HBM_MEM_HUGE,
		.location = { .id = dev, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
	};
	return p;
}

static uint64_t devmem_used(void)
{
	char bdf[64];

	return dev_bdf(0, bdf, sizeof(bdf)) ? 0 : test_card_attr(bdf, "devmem_used");
}

FIXTURE(vmm) {
	aclrtStream s;
	uint8_t *host;		/* 2 G of pinned memory */
};

FIXTURE_SETUP(vmm)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&self->host, 2 * G));
}

FIXTURE_TEARDOWN(vmm)
{
	aclrtFreeHost(self->host);
	aclrtDestroyStream(self->s);
	aclrtResetDevice(0);
	aclFinalize();
}

TEST_F(vmm, granularity)
{
	aclrtPhysicalMemProp p = dev_prop(0);
	size_t g = 0;

	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAllocationGranularity(&p,
			ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
	EXPECT_EQ(G, g);
	g = 0;
	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAllocationGranularity(&p,
			ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &g));
	EXPECT_EQ(G, g);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(NULL,
			ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&p,
			ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&p,
			ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, &g));
	p.location.id = ACL_MAX_DEVICES_TEST;
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemGetAllocationGranularity(&p,
			ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
	p = dev_prop(0);
	p.location.type = ACL_MEM_LOCATION_TYPE_HOST;
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemGetAllocationGranularity(&p,
			ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
	EXPECT_TRUE(msg_has("host memory"));
}

TEST_F(vmm, reserve_and_release)
{
	void *a, *b, *c;

	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddress(&a, 3 * G, 0, NULL, 0));
	EXPECT_LE(USER_BASE, (uintptr_t)a);
	EXPECT_GT(VA_END, (uintptr_t)a + 3 * G);
	EXPECT_EQ(0, (uintptr_t)a % G);
	/* a size not a multiple of the granularity takes whole granules */
	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddress(&b, 1, 0, NULL, 1));
	EXPECT_TRUE((uintptr_t)b >= (uintptr_t)a + 3 * G || (uintptr_t)b + G <= (uintptr_t)a);
	/* 1 GiB alignment asked */
	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddress(&c, G, 1ULL << 30, NULL, 0));
	EXPECT_EQ(0, (uintptr_t)c % (1ULL << 30));
	EXPECT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress(c));
	/* an expected address: honoured when free, refused when taken */
	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddress(&c, G, 0, (char *)a + 64 * G, 0));
	EXPECT_EQ((char *)a + 64 * G, c);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&c, G, 0, (char *)a + G, 0));
	EXPECT_TRUE(msg_has("overlaps a reservation"));
	EXPECT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress((char *)a + 64 * G));
	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddressNoUCMemory(&c, G, 0, (char *)a + 64 * G, 0));
	EXPECT_EQ((char *)a + 64 * G, c);
	EXPECT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress(c));

	/* bad arguments */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(NULL, G, 0, NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&c, 0, 0, NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&c, G, 3 * G, NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&c, G, 0, NULL, 2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&c, G, 0, (char *)a + 4096, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&c, G, 0,
			(void *)(uintptr_t)(USER_BASE - G), 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&c, 2 * G, 0,
			(void *)(uintptr_t)(VA_END - G), 0));
	EXPECT_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtReserveMemAddress(&c, VA_END - USER_BASE,
			0, NULL, 0));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtReserveMemAddressNoUCMemory(&c, G, 0,
			NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress((char *)a + G));
	EXPECT_TRUE(msg_has("not the start of a reservation"));
	EXPECT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress(a));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(a));
	EXPECT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress(b));
}

/* Copies n bytes of pattern seed to dev and back through the stream, and checks them. */
static long round_trip(struct __test_metadata *_metadata, aclrtStream s, uint8_t *host,
		       void *dev, size_t n, unsigned seed)
{
	fill_pat(host, n, seed);
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	memset(host, 0, n);
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(host, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	return check_pat(host, n, seed);
}

TEST_F(vmm, map_copy_fill_unmap_remap)
{
	aclrtPhysicalMemProp prop = dev_prop(0), got;
	aclrtDrvMemHandle h, r;
	aclrtPtrAttributes attr;
	uint8_t *va, *at;
	void *dev, *base;
	size_t size, i;

	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddress((void **)&va, 4 * G, 0, NULL, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocPhysical(&h, 2 * G, &prop, 0));
	at = va + G;
	ASSERT_EQ(ACL_SUCCESS, aclrtMapMem(at, 2 * G, 0, h, 0));

	/* across the granule boundary, both ways, whole */
	EXPECT_EQ(-1, round_trip(_metadata, self->s, self->host, at, 2 * G, 1));
	/* device to device: an aclrtMalloc buffer and the mapping */
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&dev, G, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(dev, G, at + G - 4096, G, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->host, G, dev, G, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < G; i++)
		if (self->host[i] != pat(G - 4096 + i, 1))
			break;
	EXPECT_EQ(G, i);
	/* a fill of a range inside it */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(at + 100, 1000, 0xa5, 1000));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->host, 4096, at, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 4096; i++)
		if (self->host[i] != (i >= 100 && i < 1100 ? 0xa5 : pat(i, 1)))
			break;
	EXPECT_EQ(4096, i);
	/* ACL_MEMCPY_DEFAULT knows the address for the card's */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->host, 64, at + 2000, 64, ACL_MEMCPY_DEFAULT));
	EXPECT_EQ(pat(2000, 1), self->host[0]);

	/* what the address says about itself */
	ASSERT_EQ(ACL_SUCCESS, aclrtPointerGetAttributes(at + 5, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, attr.location.type);
	EXPECT_EQ(0, attr.location.id);
	EXPECT_EQ(G, attr.pageSize);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAddressRange(at + G + 5, &base, &size));
	EXPECT_EQ(at, base);
	EXPECT_EQ(2 * G, size);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAddressRange(va, &base, &size));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemRetainAllocationHandle(at + G, &r));
	EXPECT_EQ(h, r);
	EXPECT_EQ(ACL_SUCCESS, aclrtFreePhysical(r));	/* the retain's reference */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAllocationPropertiesFromHandle(h, &got));
	EXPECT_EQ(0, memcmp(&prop, &got, sizeof(got)));

	/* unmapped, then mapped elsewhere: the memory kept its contents */
	ASSERT_EQ(ACL_SUCCESS, aclrtUnmapMem(at));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtUnmapMem(at));
	ASSERT_EQ(ACL_SUCCESS, aclrtMapMem(va + 2 * G, 2 * G, 0, h, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->host, 4096, va + 2 * G + G, 4096,
					   ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 4096; i++)
		if (self->host[i] != pat(G + i, 1))
			break;
	EXPECT_EQ(4096, i);
	/* a second granule mapped alone, from an offset */
	ASSERT_EQ(ACL_SUCCESS, aclrtUnmapMem(va + 2 * G));
	ASSERT_EQ(ACL_SUCCESS, aclrtMapMem(va, G, G, h, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->host, 64, va, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(pat(G, 1), self->host[0]);
	EXPECT_EQ(pat(G + 63, 1), self->host[63]);
	ASSERT_EQ(ACL_SUCCESS, aclrtUnmapMem(va));
	EXPECT_EQ(ACL_SUCCESS, aclrtFreePhysical(h));
	EXPECT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress(va));
	aclrtFree(dev);
}

TEST_F(vmm, physical_and_map_bad_arguments)
{
	aclrtPhysicalMemProp prop = dev_prop(0), bad;
	aclrtMemAccessDesc desc = { .flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
				    .location = { 0, ACL_MEM_LOCATION_TYPE_DEVICE } };
	aclrtDrvMemHandle h, h2;
	uint64_t flag;
	void *va, *dev;
	char other;

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(NULL, G, &prop, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 0, &prop, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, G, NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, G, &prop, 1));
	bad = prop;
	bad.handleType = (aclrtMemHandleType)7;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, G, &bad, 0));
	bad = prop;
	bad.allocationType = (aclrtMemAllocationType)1;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, G, &bad, 0));
	bad = prop;
	bad.memAttr = (aclrtMemAttr)99;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, G, &bad, 0));
	bad = prop;
	bad.location.type = ACL_MEM_LOCATION_TYPE_HOST_NUMA;
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMallocPhysical(&h, G, &bad, 0));
	bad = prop;
	bad.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, G, &bad, 0));
	bad = prop;
	bad.location.id = ACL_MAX_DEVICES_TEST;
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMallocPhysical(&h, G, &bad, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(&other));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationPropertiesFromHandle(&other, &bad));

	/* a size short of a granule takes a whole one */
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocPhysical(&h, G - 1, &prop, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocPhysical(&h2, G, &prop, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddress(&va, 4 * G, 0, NULL, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(NULL, G, 0, h, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, G, 0, NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, G, 0, &other, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, G, 0, h, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, 0, 0, h, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, 4096, 0, h, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem((char *)va + 4096, G, 0, h, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, G, 4096, h, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, 2 * G, 0, h, 0));	/* past its end */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, G, G, h, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(dev, G, 0, h, 0));	/* not reserved */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem((char *)va + 4 * G, G, 0, h, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMapMem((char *)va + 3 * G, G, 0, h, 0));
	/* over the end of the reservation, over a mapping */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem((char *)va + 3 * G, G, 0, h2, 0));
	EXPECT_TRUE(msg_has("already mapped"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(va));
	EXPECT_TRUE(msg_has("aclrtUnmapMem it first"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtUnmapMem(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtUnmapMem((char *)va + 3 * G + 4096));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemRetainAllocationHandle(va, &h2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemRetainAllocationHandle(NULL, &h2));

	/* access: bad descriptions, ranges that are not whole mappings */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(NULL, G, &desc, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess((char *)va + 3 * G, G, NULL, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess((char *)va + 3 * G, 0, &desc, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess((char *)va + 3 * G, G, &desc, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, G, &desc, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess((char *)va + 2 * G, 2 * G, &desc, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess((char *)va + 3 * G, G / 2, &desc, 1));
	desc.flags = (aclrtMemAccessFlags)2;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess((char *)va + 3 * G, G, &desc, 1));
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
	desc.location.type = ACL_MEM_LOCATION_TYPE_HOST;
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemSetAccess((char *)va + 3 * G, G,
								      &desc, 1));
	desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	desc.location.id = ACL_MAX_DEVICES_TEST;
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemSetAccess((char *)va + 3 * G, G,
								   &desc, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(va, &desc.location, &flag));
	desc.location.id = 0;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(va, &desc.location, &flag));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(va, NULL, &flag));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(va, &desc.location, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAccess((char *)va + 3 * G + 5, &desc.location, &flag));
	EXPECT_EQ(ACL_RT_MEM_ACCESS_FLAGS_READWRITE, flag);
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemP2PMap(dev, 64, 1, 0));
	EXPECT_TRUE(msg_has("aclrtMemSetAccess"));

	/* freed while mapped: usable until unmapped, then gone */
	EXPECT_EQ(ACL_SUCCESS, aclrtFreePhysical(h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(h));
	EXPECT_EQ(-1, round_trip(_metadata, self->s, self->host, (char *)va + 3 * G, G, 2));
	EXPECT_EQ(ACL_SUCCESS, aclrtUnmapMem((char *)va + 3 * G));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, G, 0, h, 0));
	EXPECT_EQ(ACL_SUCCESS, aclrtFreePhysical(h2));
	EXPECT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress(va));
	aclrtFree(dev);
}

/* Sync after a write into [at, +n) that must fault: the code and the address named. */
static void expect_write_fault(struct __test_metadata *_metadata, uint8_t *host, uint8_t *at,
			       size_t n)
{
	char addr[32];
	aclrtStream s;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(at, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
	last_msg[0] = '\0';
	EXPECT_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
	snprintf(addr, sizeof(addr), "%#llx", (unsigned long long)(uintptr_t)at);
	EXPECT_TRUE(msg_has(addr)) TH_LOG("%s", last_msg);
	EXPECT_TRUE(msg_has("writing")) TH_LOG("%s", last_msg);
	aclrtDestroyStreamForce(s);
}

TEST_F(vmm, read_only_and_no_access_fault)
{
	aclrtPhysicalMemProp prop = dev_prop(0);
	aclrtMemAccessDesc desc = { .flags = ACL_RT_MEM_ACCESS_FLAGS_READ,
				    .location = { 0, ACL_MEM_LOCATION_TYPE_DEVICE } };
	aclrtDrvMemHandle h;
	uint64_t flag;
	uint8_t *va;

	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddress((void **)&va, G, 0, NULL, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocPhysical(&h, G, &prop, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMapMem(va, G, 0, h, 0));
	EXPECT_EQ(-1, round_trip(_metadata, self->s, self->host, va, G, 3));

	ASSERT_EQ(ACL_SUCCESS, aclrtMemSetAccess(va, G, &desc, 1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAccess(va, &desc.location, &flag));
	EXPECT_EQ(ACL_RT_MEM_ACCESS_FLAGS_READ, flag);
	/* read-only: reads see the contents, a write faults */
	memset(self->host, 0, G);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->host, G, va, G, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pat(self->host, G, 3));
	expect_write_fault(_metadata, self->host, va + 8192, 4096);
	EXPECT_TRUE(msg_has("read-only"));

	/* no access: mapped for nothing; a mapping made so is the same */
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_NONE;
	ASSERT_EQ(ACL_SUCCESS, aclrtMemSetAccess(va, G, &desc, 1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAccess(va, &desc.location, &flag));
	EXPECT_EQ(ACL_RT_MEM_ACCESS_FLAGS_NONE, flag);
	expect_write_fault(_metadata, self->host, va, 4096);
	EXPECT_TRUE(msg_has("nothing is mapped"));
	ASSERT_EQ(ACL_SUCCESS, aclrtUnmapMem(va));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemMapNoAccess(va, G, 0, h, 0));
	expect_write_fault(_metadata, self->host, va, 4096);

	/* read-write again: the contents are still the memory's */
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	ASSERT_EQ(ACL_SUCCESS, aclrtMemSetAccess(va, G, &desc, 1));
	memset(self->host, 0, G);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->host, G, va, G, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pat(self->host, G, 3));
	EXPECT_EQ(-1, round_trip(_metadata, self->s, self->host, va, G, 4));
	ASSERT_EQ(ACL_SUCCESS, aclrtUnmapMem(va));
	ASSERT_EQ(ACL_SUCCESS, aclrtFreePhysical(h));
	ASSERT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress(va));
}

/*
 * Another card given access: device 1 reads device 0's memory at the same
 * address (a peer buffer through its peer window) and writes it; device
 * 0 sees the writes. Unmapping takes it from both.
 */
TEST(access_from_another_device)
{
	aclrtPhysicalMemProp prop = dev_prop(0);
	aclrtMemAccessDesc desc = { .flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
				    .location = { 1, ACL_MEM_LOCATION_TYPE_DEVICE } };
	aclrtDrvMemHandle h;
	uint32_t ndev = 0;
	uint64_t flag;
	uint8_t *host, *va;

	ASSERT_TRUE(acl_ok_init());
	if (aclrtGetDeviceCount(&ndev) || ndev < 2) {
		aclFinalize();
		SKIP(return, "one card");
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, G));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocPhysical(&h, G, &prop, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddress((void **)&va, G, 0, NULL, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMapMem(va, G, 0, h, 0));
	fill_pat(host, G, 10);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(va, G, host, G, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAccess(va, &desc.location, &flag));
	EXPECT_EQ(ACL_RT_MEM_ACCESS_FLAGS_NONE, flag);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemSetAccess(va, G, &desc, 1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAccess(va, &desc.location, &flag));
	EXPECT_EQ(ACL_RT_MEM_ACCESS_FLAGS_READWRITE, flag);

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	memset(host, 0, G);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, G, va, G, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pat(host, G, 10));
	fill_pat(host, G, 11);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(va, G, host, G, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	memset(host, 0, G);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, G, va, G, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pat(host, G, 11));

	ASSERT_EQ(ACL_SUCCESS, aclrtUnmapMem(va));
	ASSERT_EQ(ACL_SUCCESS, aclrtFreePhysical(h));
	ASSERT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress(va));
	aclrtFreeHost(host);
	aclrtResetDevice(1);
	aclrtResetDevice(0);
	aclFinalize();
}

/* ---- an operator on mapped memory ------------------------------------------ */
#define N 1000

/* y = a + b, N floats each, on the card. */
static int run_add(struct aclnn *nn, void *a, void *b, void *y, aclrtStream s)
{
	const int64_t dims[1] = { N };
	float one = 1.0f;
	void *ta = nn->create_tensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, a);
	void *tb = nn->create_tensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, b);
	void *ty = nn->create_tensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, y);
	void *alpha = nn->create_scalar(&one, ACL_FLOAT), *x = NULL;
	uint64_t ws = 0;
	int ret = nn->add_ws(ta, tb, alpha, ty, &ws, &x);

	if (!ret)
		ret = ws ? -1 : nn->add(NULL, 0, x, s);
	nn->destroy_tensor(ta);
	nn->destroy_tensor(tb);
	nn->destroy_tensor(ty);
	nn->destroy_scalar(alpha);
	return ret;
}

TEST_F(vmm, aclnn_add_on_mapped_memory)
{
	aclrtPhysicalMemProp prop = dev_prop(0);
	struct aclnn nn = { 0 };
	aclrtDrvMemHandle h;
	float *f = (float *)self->host;
	uint8_t *va;
	int i, wrong = 0;

	ASSERT_TRUE(aclnn_open(&nn)) TH_LOG("libopapi: %s", dlerror());
	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddress((void **)&va, 2 * G, 0, NULL, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocPhysical(&h, 2 * G, &prop, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMapMem(va, 2 * G, 0, h, 0));
	for (i = 0; i < 2 * N; i++)
		f[i] = (float)i * 0.5f;
	/* a at the first granule's end, straddling into the second; b and y in the second */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(va + G - 2048, 8 * N, f, 8 * N,
					   ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(0, run_add(&nn, va + G - 2048, va + G - 2048 + 4 * N, va + G + 65536, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	memset(f, 0, 4 * N);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(f, 4 * N, va + G + 65536, 4 * N,
					   ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < N; i++)
		wrong += f[i] != (float)i * 0.5f + (float)(i + N) * 0.5f;
	EXPECT_EQ(0, wrong);
	ASSERT_EQ(ACL_SUCCESS, aclrtUnmapMem(va));
	ASSERT_EQ(ACL_SUCCESS, aclrtFreePhysical(h));
	ASSERT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress(va));
}

/* ---- another process ------------------------------------------------------- */

struct child {
	pid_t pid;
	int to, from;
};

/* Forks fn before this process touches ACL (the child must have a card file of its own). */
static struct child spawn(void (*fn)(int, int))
{
	int down[2], up[2];
	struct child c = { .pid = -1 };

	if (pipe(down) || pipe(up))
		return c;
	c.pid = fork();
	if (!c.pid) {
		close(down[1]);
		close(up[0]);
		fn(up[1], down[0]);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	c.to = down[1];
	c.from = up[0];
	return c;
}

static int reap(struct child *c)
{
	int status;

	close(c->to);
	close(c->from);
	if (waitpid(c->pid, &status, 0) != c->pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void put(int fd, uint64_t v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		_exit(100);
}

static uint64_t get(int fd)
{
	uint64_t v = 0;

	return read(fd, &v, sizeof(v)) == sizeof(v) ? v : 0;
}

/*
 * The importer: refused until allowed, then maps the memory at its own
 * address, checks the exporter's pattern and writes its own.
 */
static void importer(int out, int in)
{
	aclrtPhysicalMemProp prop = dev_prop(0);
	aclrtDrvMemHandle h;
	uint64_t key;
	uint8_t *host, *va;

	if (!acl_ok_init() || aclrtSetDevice(0) || aclrtMallocHost((void **)&host, G))
		_exit(90);
	put(out, (uint64_t)getpid());
	key = get(in);
	if (aclrtMemImportFromShareableHandle(key, 0, &h) != ACL_ERROR_RT_NO_PERMISSION)
		_exit(91);
	put(out, 1);			/* refused: now allow it */
	if (get(in) != 2 || aclrtMemImportFromShareableHandle(key, 0, &h))
		_exit(92);
	if (aclrtMemGetAllocationPropertiesFromHandle(h, &prop) ||
	    prop.location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
		_exit(93);
	if (aclrtReserveMemAddress((void **)&va, G, 0, NULL, 0) || aclrtMapMem(va, G, 0, h, 0))
		_exit(94);
	if (aclrtMemcpy(host, G, va, G, ACL_MEMCPY_DEVICE_TO_HOST) || check_pat(host, G, 5) != -1)
		_exit(95);
	fill_pat(host, G, 6);
	if (aclrtMemcpy(va, G, host, G, ACL_MEMCPY_HOST_TO_DEVICE))
		_exit(96);
	if (aclrtUnmapMem(va) || aclrtFreePhysical(h) || aclrtReleaseMemAddress(va))
		_exit(97);
	put(out, 3);
	aclrtFreeHost(host);
	aclrtResetDevice(0);
	aclFinalize();
}

TEST(shareable_handle_to_another_process)
{
	struct child c = spawn(importer);
	aclrtPhysicalMemProp prop = dev_prop(0);
	aclrtMemFabricHandle fabric;
	aclrtDrvMemHandle h, self_h;
	uint64_t key = 0, again;
	int32_t pid, nobody = 0x7ffffff0;
	uint8_t *host, *va;

	ASSERT_LT(0, c.pid);
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, G));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocPhysical(&h, G, &prop, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddress((void **)&va, G, 0, NULL, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMapMem(va, G, 0, h, 0));
	fill_pat(host, G, 5);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(va, G, host, G, ACL_MEMCPY_HOST_TO_DEVICE));

	/* bad arguments first */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(NULL,
			ACL_MEM_HANDLE_TYPE_NONE, 0, &key));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h,
			ACL_MEM_HANDLE_TYPE_NONE, 0, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h,
			ACL_MEM_HANDLE_TYPE_POSIX, 0, &key));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h,
			ACL_MEM_HANDLE_TYPE_NONE, 2, &key));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemExportToShareableHandleV2(h, 0,
			ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &fabric));
	EXPECT_TRUE(msg_has("FABRIC"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandleV2(h, 0,
			(aclrtMemSharedHandleType)9, &key));

	ASSERT_EQ(ACL_SUCCESS, aclrtMemExportToShareableHandleV2(h, 0,
			ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &key));
	EXPECT_NE(0, key);
	/* one shareable handle per allocation */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h,
			ACL_MEM_HANDLE_TYPE_NONE, 0, &again));
	/* this process has the memory already */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(key, 0, &self_h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(0, 0, &self_h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(key, 0, NULL));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemImportFromShareableHandle(key,
			ACL_MAX_DEVICES_TEST, &self_h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(key, NULL, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(key, &nobody, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(key, &nobody, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(key + 1, &pid, 1));

	pid = (int32_t)get(c.from);
	put(c.to, key);
	EXPECT_EQ(1, get(c.from));	/* refused while not allowed */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemSetPidToShareableHandleV2(&key,
			ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1));
	put(c.to, 2);
	EXPECT_EQ(3, get(c.from));
	EXPECT_EQ(0, reap(&c));
	/* the importer's writes are in this process's memory */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, G, va, G, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pat(host, G, 6));
	EXPECT_EQ(ACL_SUCCESS, aclrtUnmapMem(va));
	EXPECT_EQ(ACL_SUCCESS, aclrtFreePhysical(h));
	EXPECT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress(va));
	aclrtFreeHost(host);
	aclrtResetDevice(0);
	aclFinalize();
}

/* Maps 8 granules and exits without a word of cleanup. */
static void leaver(int out, int in)
{
	aclrtPhysicalMemProp prop = dev_prop(0);
	aclrtDrvMemHandle h;
	void *va;

	(void)in;
	if (!acl_ok_init() || aclrtSetDevice(0) || aclrtMallocPhysical(&h, 8 * G, &prop, 0) ||
	    aclrtReserveMemAddress(&va, 8 * G, 0, NULL, 0) || aclrtMapMem(va, 8 * G, 0, h, 0) ||
	    aclrtMemset(va, 8 * G, 1, 8 * G))
		_exit(90);
	put(out, 1);
	_exit(0);
}

TEST(process_exit_with_mappings_leaves_nothing)
{
	uint64_t before;
	struct child c;

	ASSERT_TRUE(acl_ok_init());
	before = devmem_used();
	aclFinalize();
	c = spawn(leaver);
	ASSERT_LT(0, c.pid);
	EXPECT_EQ(1, get(c.from));
	EXPECT_EQ(0, reap(&c));
	/* the driver frees a closed file's buffers as it closes */
	EXPECT_EQ(before, devmem_used());
}

TEST_HARNESS_MAIN
