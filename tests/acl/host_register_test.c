// SPDX-License-Identifier: MIT
/*
 * Host memory the card reaches by address: registered memory's device
 * address in copies, fills and an aclnn Add, checked byte by byte in the
 * host memory itself; unaligned starts; read-only registrations faulting
 * on a write with the vendor's code; aclrtMallocHost memory's device
 * address, mapped once on first asking and registered as the vendor's
 * zero-copy sample does; and every bad argument.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <sys/mman.h>

#include "acl_test.h"
#include "acl_test_aclnn.h"
#include "kselftest_harness.h"
#include "npu_accel.h"

#define PAGE	4096
#define USER_BASE (DRM_NPU_DEVICE_ADDR_BASE + (1ULL << 38))

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

FIXTURE(reg) {
	aclrtStream s;
	uint8_t *buf;		/* ordinary memory, page aligned */
	size_t n;
};

FIXTURE_SETUP(reg)
{
	self->n = 3 << 20;
	self->buf = mmap(NULL, self->n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s));
}

FIXTURE_TEARDOWN(reg)
{
	aclrtDestroyStream(self->s);
	aclrtResetDevice(0);
	aclFinalize();
	munmap(self->buf, self->n);
}

TEST_F(reg, device_address_in_copies_and_fills)
{
	uint8_t *at = self->buf + 100, *dev_addr, *again;
	size_t n = self->n - 200, i;
	aclrtPtrAttributes attr;
	void *dev, *base;
	size_t size;

	/* an unaligned start: the device address is as far into its page */
	ASSERT_EQ(ACL_SUCCESS, aclrtHostRegister(at, n, ACL_HOST_REGISTER_MAPPED,
						 (void **)&dev_addr));
	EXPECT_LE(USER_BASE, (uintptr_t)dev_addr);
	EXPECT_EQ(100, (uintptr_t)dev_addr % PAGE);
	ASSERT_EQ(ACL_SUCCESS, aclrtHostGetDevicePointer(at + 5000, (void **)&again, 0));
	EXPECT_EQ(dev_addr + 5000, again);
	ASSERT_EQ(ACL_SUCCESS, aclrtPointerGetAttributes(dev_addr + 7, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, attr.location.type);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemGetAddressRange(dev_addr + 7, &base, &size));
	EXPECT_EQ(dev_addr, base);
	EXPECT_EQ(n, size);

	/* the card writes the host memory through its device address */
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pat(at, n, 7);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(dev, n, dev_addr, n, ACL_MEMCPY_DEVICE_TO_DEVICE,
						self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(dev_addr, n, 0, n, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	for (i = 0; i < n; i++)
		if (at[i])
			break;
	EXPECT_EQ(n, i);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(dev_addr, n, dev, n, ACL_MEMCPY_DEVICE_TO_DEVICE,
						self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(-1, check_pat(at, n, 7));
	/* the bytes around the registration are not the card's */
	EXPECT_EQ(0, self->buf[99]);
	EXPECT_EQ(0, self->buf[self->n - 100]);
	/* and ACL_MEMCPY_DEFAULT takes the device address for the card's */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(dev, 64, dev_addr + 64, 64, ACL_MEMCPY_DEFAULT));

	ASSERT_EQ(ACL_SUCCESS, aclrtHostUnregister(at));
	EXPECT_EQ(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
		  aclrtHostGetDevicePointer(at, (void **)&again, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAddressRange(dev_addr, &base, &size));
	aclrtFree(dev);
}

TEST_F(reg, read_only_registration_faults_on_write)
{
	char addr[32];
	uint8_t *dev_addr;
	aclrtStream s;
	void *dev;

	fill_pat(self->buf, PAGE * 4, 8);
	ASSERT_EQ(0, mprotect(self->buf, self->n, PROT_READ));
	ASSERT_EQ(ACL_SUCCESS, aclrtHostRegister(self->buf, PAGE * 4, ACL_HOST_REGISTER_READONLY,
						 (void **)&dev_addr));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&dev, PAGE * 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(dev, PAGE * 4, dev_addr, PAGE * 4,
					   ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(dev_addr + PAGE, PAGE, dev, PAGE,
						ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	last_msg[0] = '\0';
	EXPECT_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
	snprintf(addr, sizeof(addr), "%#llx", (unsigned long long)(uintptr_t)(dev_addr + PAGE));
	EXPECT_TRUE(msg_has(addr)) TH_LOG("%s", last_msg);
	EXPECT_TRUE(msg_has("read-only"));
	aclrtDestroyStreamForce(s);
	EXPECT_EQ(-1, check_pat(self->buf, PAGE * 4, 8));
	ASSERT_EQ(ACL_SUCCESS, aclrtHostUnregister(self->buf));
	/* read-only memory registered read-write: refused */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(self->buf, PAGE,
			ACL_HOST_REGISTER_MAPPED, (void **)&dev_addr));
	mprotect(self->buf, self->n, PROT_READ | PROT_WRITE);
	aclrtFree(dev);
}

TEST_F(reg, malloc_host_device_pointer)
{
	uint8_t *host, *d1, *d2, *d3;
	void *dev;
	size_t n = 1 << 20;

	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, n));
	ASSERT_EQ(ACL_SUCCESS, aclrtHostGetDevicePointer(host, (void **)&d1, 0));
	EXPECT_LE(USER_BASE, (uintptr_t)d1);
	ASSERT_EQ(ACL_SUCCESS, aclrtHostGetDevicePointer(host + 777, (void **)&d2, 0));
	EXPECT_EQ(d1 + 777, d2);	/* mapped once */
	/* registered as the vendor's zero-copy sample does: the same address */
	ASSERT_EQ(ACL_SUCCESS, aclrtHostRegisterV2(host, n, ACL_HOST_REG_MAPPED));
	EXPECT_EQ(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		  aclrtHostRegisterV2(host, n, ACL_HOST_REG_MAPPED));
	ASSERT_EQ(ACL_SUCCESS, aclrtHostGetDevicePointer(host, (void **)&d3, 0));
	EXPECT_EQ(d1, d3);

	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pat(host, n, 9);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(dev, n, d1, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
	memset(host, 0, n);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(d1, n, dev, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
	EXPECT_EQ(-1, check_pat(host, n, 9));
	ASSERT_EQ(ACL_SUCCESS, aclrtHostUnregister(host));
	EXPECT_EQ(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(host));
	/* still aclrtMallocHost memory, still mapped */
	ASSERT_EQ(ACL_SUCCESS, aclrtHostGetDevicePointer(host, (void **)&d3, 0));
	EXPECT_EQ(d1, d3);
	ASSERT_EQ(ACL_SUCCESS, aclrtFreeHost(host));
	EXPECT_EQ(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
		  aclrtHostGetDevicePointer(host, (void **)&d3, 0));
	aclrtFree(dev);
}

/* ---- an operator on host memory -------------------------------------------- */
#define N 1000

TEST_F(reg, aclnn_add_on_host_memory)
{
	const int64_t dims[1] = { N };
	float *in = (float *)self->buf, *out, one = 1.0f;
	struct aclnn nn = { 0 };
	uint8_t *din, *dout;
	void *ta, *tb, *ty, *alpha, *x = NULL;
	uint64_t ws = 0;
	int i, wrong = 0;

	ASSERT_TRUE(aclnn_open(&nn)) TH_LOG("libopapi: %s", dlerror());
	for (i = 0; i < 2 * N; i++)
		in[i] = (float)i;
	ASSERT_EQ(ACL_SUCCESS, aclrtHostRegister(in, 8 * N, ACL_HOST_REGISTER_MAPPED,
						 (void **)&din));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&out, 4 * N));
	ASSERT_EQ(ACL_SUCCESS, aclrtHostGetDevicePointer(out, (void **)&dout, 0));
	ta = nn.create_tensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, din);
	tb = nn.create_tensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, din + 4 * N);
	ty = nn.create_tensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, dout);
	alpha = nn.create_scalar(&one, ACL_FLOAT);
	ASSERT_EQ(0, nn.add_ws(ta, tb, alpha, ty, &ws, &x));
	ASSERT_EQ(0, ws);
	ASSERT_EQ(0, nn.add(NULL, 0, x, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	for (i = 0; i < N; i++)
		wrong += out[i] != (float)i + (float)(i + N);
	EXPECT_EQ(0, wrong);
	nn.destroy_tensor(ta);
	nn.destroy_tensor(tb);
	nn.destroy_tensor(ty);
	nn.destroy_scalar(alpha);
	EXPECT_EQ(ACL_SUCCESS, aclrtHostUnregister(in));
	aclrtFreeHost(out);
}

TEST_F(reg, bad_arguments)
{
	void *p;
	int on_stack;

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegisterV2(NULL, PAGE, ACL_HOST_REG_MAPPED));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegisterV2(self->buf, 0, ACL_HOST_REG_MAPPED));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegisterV2(self->buf, PAGE, 0x1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegisterV2((void *)(uintptr_t)USER_BASE, PAGE,
							       ACL_HOST_REG_MAPPED));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(self->buf, PAGE,
			ACL_HOST_REGISTER_MAPPED, NULL));
	/* memory that is not the process's */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegister((void *)(uintptr_t)0x1000, PAGE,
			ACL_HOST_REGISTER_MAPPED, &p));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(NULL, &p, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(self->buf, NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(self->buf, &p, 1));
	EXPECT_EQ(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostGetDevicePointer(&on_stack, &p, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtHostRegisterV2(self->buf, PAGE, ACL_HOST_REG_MAPPED |
						   ACL_HOST_REG_PINNED));
	/* a registration's own reservation is not aclrtReleaseMemAddress's */
	ASSERT_EQ(ACL_SUCCESS, aclrtHostGetDevicePointer(self->buf, &p, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(p));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostUnregister(NULL));
	EXPECT_EQ(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(self->buf + 1));
	EXPECT_EQ(ACL_SUCCESS, aclrtHostUnregister(self->buf));
}

TEST_HARNESS_MAIN
