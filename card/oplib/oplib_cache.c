// SPDX-License-Identifier: GPL-2.0
/*
 * The plan cache: plans (their oneDNN primitives, JIT-compiled) keyed by
 * the operator's descriptor with its tensor addresses zeroed, since
 * nothing else in a descriptor changes what a plan does.
 *
 * A hash table of at most capacity entries, evicted least recently used
 * first.  One mutex guards the table; plans are built outside it, so a
 * ring compiling a new operator holds up no other ring.  Entries are
 * counted references: an evicted plan lives on until its last run ends.
 */
#include <stdlib.h>

#include "oplib_impl.h"

struct oplib_cache_entry {
	struct oplib_cache_entry *hash_next;
	struct oplib_cache_entry *lru_prev;	/* more recently used */
	struct oplib_cache_entry *lru_next;	/* less recently used */
	uint64_t hash;
	unsigned int refs;	/* the table's, while in it, and each user's */
	struct oplib_plan *plan;
	size_t key_size;
	uint8_t key[];
};

/* FNV-1a */
static uint64_t key_hash(const void *key, size_t size)
{
	const uint8_t *p = key;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (size--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

int oplib_cache_init(struct oplib_cache *cache, unsigned int capacity)
{
	memset(cache, 0, sizeof(*cache));
	cache->capacity = capacity;
	/* a power of two, about as many buckets as entries */
	cache->nbuckets = 16;
	while (cache->nbuckets < capacity)
		cache->nbuckets *= 2;
	cache->buckets = calloc(cache->nbuckets, sizeof(*cache->buckets));
	if (!cache->buckets)
		return -1;
	pthread_mutex_init(&cache->lock, NULL);
	return 0;
}

static void entry_free(struct oplib_cache_entry *e)
{
	oplib_plan_destroy(e->plan);
	free(e);
}

static struct oplib_cache_entry **bucket(struct oplib_cache *cache,
					 uint64_t hash)
{
	return &cache->buckets[hash & (cache->nbuckets - 1)];
}

static void lru_unlink(struct oplib_cache *cache, struct oplib_cache_entry *e)
{
	if (e->lru_prev)
		e->lru_prev->lru_next = e->lru_next;
	else
		cache->lru_head = e->lru_next;
	if (e->lru_next)
		e->lru_next->lru_prev = e->lru_prev;
	else
		cache->lru_tail = e->lru_prev;
	e->lru_prev = NULL;
	e->lru_next = NULL;
}

static void lru_push(struct oplib_cache *cache, struct oplib_cache_entry *e)
{
	e->lru_prev = NULL;
	e->lru_next = cache->lru_head;
	if (cache->lru_head)
		cache->lru_head->lru_prev = e;
	else
		cache->lru_tail = e;
	cache->lru_head = e;
}

/* Out of the table; true if that dropped the last reference. */
static bool table_remove(struct oplib_cache *cache, struct oplib_cache_entry *e)
{
	struct oplib_cache_entry **pp = bucket(cache, e->hash);

	while (*pp != e)
		pp = &(*pp)->hash_next;
	*pp = e->hash_next;
	lru_unlink(cache, e);
	cache->entries--;
	return --e->refs == 0;
}

void oplib_cache_destroy(struct oplib_cache *cache)
{
	/* no user is left: every entry has only the table's reference */
	while (cache->lru_head) {
		struct oplib_cache_entry *e = cache->lru_head;

		table_remove(cache, e);
		entry_free(e);
	}
	free(cache->buckets);
	pthread_mutex_destroy(&cache->lock);
}

static struct oplib_cache_entry *lookup(struct oplib_cache *cache,
					const void *key, size_t key_size,
					uint64_t hash)
{
	struct oplib_cache_entry *e;

	for (e = *bucket(cache, hash); e; e = e->hash_next)
		if (e->hash == hash && e->key_size == key_size &&
		    !memcmp(e->key, key, key_size))
			return e;
	return NULL;
}

/* A cached plan, referenced for the caller; NULL (a miss) if none. */
struct oplib_cache_entry *oplib_cache_get(struct oplib_cache *cache,
					  const void *key, size_t key_size)
{
	uint64_t hash = key_hash(key, key_size);
	struct oplib_cache_entry *e;

	pthread_mutex_lock(&cache->lock);
	e = lookup(cache, key, key_size, hash);
	if (e) {
		e->refs++;
		lru_unlink(cache, e);
		lru_push(cache, e);
		cache->hits++;
	} else {
		cache->misses++;
	}
	pthread_mutex_unlock(&cache->lock);
	return e;
}

/*
 * Add a plan the caller built after a miss; returns its entry, referenced
 * for the caller, or NULL (the plan freed) when memory runs out.  If another
 * thread added the same key meanwhile, the caller gets that entry and its
 * own plan is freed.
 */
struct oplib_cache_entry *oplib_cache_add(struct oplib_cache *cache,
					  const void *key, size_t key_size,
					  struct oplib_plan *plan)
{
	uint64_t hash = key_hash(key, key_size);
	struct oplib_cache_entry *e, *old, *victim = NULL;

	e = malloc(sizeof(*e) + key_size);
	if (!e) {
		oplib_plan_destroy(plan);
		return NULL;
	}
	memset(e, 0, sizeof(*e));
	e->hash = hash;
	e->plan = plan;
	e->key_size = key_size;
	memcpy(e->key, key, key_size);

	pthread_mutex_lock(&cache->lock);
	old = lookup(cache, key, key_size, hash);
	if (old) {
		old->refs++;
		pthread_mutex_unlock(&cache->lock);
		entry_free(e);
		return old;
	}
	/* the table's reference and the caller's */
	e->refs = 2;
	e->hash_next = *bucket(cache, hash);
	*bucket(cache, hash) = e;
	lru_push(cache, e);
	cache->entries++;
	if (cache->entries > cache->capacity) {
		struct oplib_cache_entry *lru = cache->lru_tail;

		cache->evictions++;
		if (table_remove(cache, lru))
			victim = lru;
	}
	pthread_mutex_unlock(&cache->lock);
	/* primitives are destroyed outside the lock: it takes a while */
	if (victim)
		entry_free(victim);
	return e;
}

const struct oplib_plan *oplib_cache_plan(const struct oplib_cache_entry *e)
{
	return e->plan;
}

void oplib_cache_put(struct oplib_cache *cache, struct oplib_cache_entry *e)
{
	bool last;

	pthread_mutex_lock(&cache->lock);
	last = --e->refs == 0;
	pthread_mutex_unlock(&cache->lock);
	if (last)
		entry_free(e);
}
