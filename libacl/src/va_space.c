// SPDX-License-Identifier: MIT
/*
 * The process-wide reservation allocator (va_space.h): a sorted array of
 * reservations searched first fit. Reservations are few (a memory pool
 * makes one, each host registration one), so a linear search is enough.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "npu_accel.h"
#include "va_space.h"

struct va_res {
	uint64_t start, end;	/* [start, end) */
};

static struct {
	pthread_mutex_t lock;
	struct va_res *v;
	size_t n, cap;
} va = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Index of the first reservation ending after addr. */
static size_t va_first_after(uint64_t addr)
{
	size_t lo = 0, hi = va.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (va.v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int va_insert(size_t i, uint64_t start, uint64_t end)
{
	if (va.n == va.cap) {
		size_t cap = va.cap ? va.cap * 2 : 16;
		struct va_res *v = realloc(va.v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		va.v = v;
		va.cap = cap;
	}
	for (size_t j = va.n; j > i; j--)
		va.v[j] = va.v[j - 1];
	va.v[i] = (struct va_res){ start, end };
	va.n++;
	return 0;
}

static uint64_t align_up(uint64_t x, uint64_t align)
{
	return (x + align - 1) & ~(align - 1);
}

/* The lowest aligned start with size bytes free, and where it goes; 0 if none. */
static uint64_t va_find_free(uint64_t size, uint64_t align, size_t *at)
{
	uint64_t start = align_up(ACL_VA_USER_START, align);
	size_t i;

	for (i = 0; i <= va.n; i++) {
		uint64_t limit = i < va.n ? va.v[i].start : ACL_VA_USER_END;

		if (start <= limit && limit - start >= size) {
			*at = i;
			return start;
		}
		if (i < va.n)
			start = align_up(va.v[i].end, align);
	}
	return 0;
}

int acl_va_reserve(uint64_t size, uint64_t align, uint64_t want, uint64_t *addr)
{
	uint64_t start;
	size_t i;
	int ret;

	if (!size || !align || (align & (align - 1)) || align < DRM_NPU_VM_PAGE_SIZE ||
	    size > ACL_VA_USER_END - ACL_VA_USER_START)
		return -EINVAL;
	size = align_up(size, DRM_NPU_VM_PAGE_SIZE);
	if (want && (want % align || want < ACL_VA_USER_START || want > ACL_VA_USER_END - size))
		return -EINVAL;
	pthread_mutex_lock(&va.lock);
	if (want) {
		i = va_first_after(want);
		start = want;
		ret = i < va.n && va.v[i].start < want + size ? -EEXIST : 0;
	} else {
		start = va_find_free(size, align, &i);
		ret = start ? 0 : -ENOMEM;
	}
	if (!ret)
		ret = va_insert(i, start, start + size);
	pthread_mutex_unlock(&va.lock);
	if (!ret)
		*addr = start;
	return ret;
}

int acl_va_release(uint64_t addr)
{
	int ret = -ENOENT;
	size_t i;

	pthread_mutex_lock(&va.lock);
	i = va_first_after(addr);
	if (i < va.n && va.v[i].start == addr) {
		for (; i + 1 < va.n; i++)
			va.v[i] = va.v[i + 1];
		va.n--;
		ret = 0;
	}
	pthread_mutex_unlock(&va.lock);
	return ret;
}

int acl_va_lookup(uint64_t addr, uint64_t *start, uint64_t *size)
{
	int ret = -ENOENT;
	size_t i;

	pthread_mutex_lock(&va.lock);
	i = va_first_after(addr);
	if (i < va.n && va.v[i].start <= addr) {
		*start = va.v[i].start;
		*size = va.v[i].end - va.v[i].start;
		ret = 0;
	}
	pthread_mutex_unlock(&va.lock);
	return ret;
}
