// SPDX-License-Identifier: MIT
/*
 * Interval maps: sorted arrays of non-overlapping [start, end) ranges,
 * looked up by binary search. Used for pinned/registered host memory
 * (to classify copy operands) and for device allocations.
 */
#include <stdlib.h>
#include <string.h>

#include "acl_internal.h"

void acl_rmap_init(struct acl_rmap *m)
{
	acl_rwlock_init(&m->lock);
	m->v = NULL;
	m->n = m->cap = 0;
}

void acl_rmap_destroy(struct acl_rmap *m)
{
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}

/* Index of the last range with start <= addr, or -1. */
static long rmap_floor(const struct acl_rmap *m, uint64_t addr)
{
	long lo = 0, hi = (long)m->n - 1, found = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

struct acl_range *acl_rmap_find_locked(struct acl_rmap *m, uint64_t addr)
{
	long i;

	ACL_ASSERT_RWLOCK_HELD(&m->lock);
	i = rmap_floor(m, addr);
	if (i < 0 || addr >= m->v[i].end)
		return NULL;
	return &m->v[i];
}

int acl_rmap_insert(struct acl_rmap *m, uint64_t start, uint64_t end, void *data)
{
	long i;
	size_t pos;
	int ret = 0;

	acl_rwlock_wrlock(&m->lock);
	i = rmap_floor(m, start);
	pos = (size_t)(i + 1);
	if ((i >= 0 && m->v[i].end > start) || (pos < m->n && m->v[pos].start < end)) {
		ret = -1;	/* overlaps */
		goto out;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct acl_range *v = realloc(m->v, cap * sizeof(*v));

		if (!v) {
			ret = -1;
			goto out;
		}
		m->v = v;
		m->cap = cap;
	}
	memmove(&m->v[pos + 1], &m->v[pos], (m->n - pos) * sizeof(*m->v));
	m->v[pos] = (struct acl_range){ start, end, data };
	m->n++;
out:
	acl_rwlock_unlock(&m->lock);
	return ret;
}

void *acl_rmap_remove(struct acl_rmap *m, uint64_t start)
{
	void *data = NULL;
	long i;

	acl_rwlock_wrlock(&m->lock);
	i = rmap_floor(m, start);
	if (i >= 0 && m->v[i].start == start) {
		data = m->v[i].data;
		memmove(&m->v[i], &m->v[i + 1], (m->n - (size_t)i - 1) * sizeof(*m->v));
		m->n--;
	}
	acl_rwlock_unlock(&m->lock);
	return data;
}
