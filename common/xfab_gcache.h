/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A bounded cache of grants kept across requests: a map from a 64-bit key
 * to a slot, least recently used out first. The frontend keys it by the
 * page it granted read-only (slot data: the grant), the backend by the
 * frontend's grant reference (slot data: its mapping); either keeps its
 * per-slot data in its own array indexed by slot number.
 *
 * A slot in use by a request in flight is pinned and is never evicted;
 * when every slot is pinned an insert fails and the caller falls back to
 * its per-request path. Eviction hands the caller the slot back with the
 * old key, so it can end the old grant or unmap the old page before it
 * stores the new one.
 *
 * The caller provides the storage and serialises access (one lock or one
 * thread per ring), as with xfab_ids.
 */
#ifndef XFAB_GCACHE_H
#define XFAB_GCACHE_H

#include "xfab_types.h"

#define XFAB_GC_NONE 0xffffffffu

struct xfab_gc_ent {
	u64 key;
	u64 stamp;		/* caller's clock at the last use */
	u32 hnext;		/* next in its hash chain */
	u32 prev, next;		/* LRU list, or free list (next only) */
	u32 pins;
	bool used;
};

struct xfab_gcache {
	u32 cap, nr;
	u32 hmask;		/* buckets - 1 */
	u32 *bucket;		/* first slot of each chain */
	struct xfab_gc_ent *ent;
	u32 mru, lru;		/* ends of the LRU list */
	u32 free;
};

/*
 * cap slots (1 .. 0xfffffffe) in ent[cap]; buckets a power of two in
 * bucket[buckets]. -EINVAL on a bad size.
 */
int xfab_gc_init(struct xfab_gcache *c, u32 cap, u32 buckets,
		 struct xfab_gc_ent *ent, u32 *bucket);

/* The slot holding key (now the most recent, stamped now), or NONE. */
u32 xfab_gc_find(struct xfab_gcache *c, u64 key, u64 now);

/*
 * A slot for key, which must not be cached. If the cache is full the
 * least recently used unpinned slot is taken: *evicted is set and
 * *old_key is the key it held (release its data first). NONE if all
 * slots are pinned.
 */
u32 xfab_gc_insert(struct xfab_gcache *c, u64 key, u64 now, bool *evicted,
		   u64 *old_key);

/* Drop a slot (its data already released). Pinned slots stay. */
int xfab_gc_remove(struct xfab_gcache *c, u32 slot);

/*
 * The least recently used unpinned slot last used before 'before', or
 * NONE: what an idle purge releases and removes, one at a time.
 */
u32 xfab_gc_idle(const struct xfab_gcache *c, u64 before);

/* Teardown walks ent[0..cap) and releases every slot with .used set. */

/*
 * A pinned slot is in use by a request in flight: never evicted, never
 * idle. Unpinning more than was pinned is ignored; the last unpin makes
 * the slot the most recently used.
 */
void xfab_gc_pin(struct xfab_gcache *c, u32 slot);
void xfab_gc_unpin(struct xfab_gcache *c, u32 slot);

#ifdef __KERNEL__
#include <linux/slab.h>
#include <linux/log2.h>

/*
 * A cache of cap slots with its storage from the kernel (the drivers'
 * common case; userspace tests bring their own arrays). Undone by
 * xfab_gc_kfree(), also after a failure or on a cache never set up.
 */
static inline int xfab_gc_kalloc(struct xfab_gcache *c, u32 cap)
{
	u32 buckets = roundup_pow_of_two(cap);
	struct xfab_gc_ent *ent = kvcalloc(cap, sizeof(*ent), GFP_KERNEL);
	u32 *bucket = kvcalloc(buckets, sizeof(*bucket), GFP_KERNEL);

	if (!ent || !bucket || xfab_gc_init(c, cap, buckets, ent, bucket)) {
		kvfree(ent);
		kvfree(bucket);
		return -ENOMEM;
	}
	return 0;
}

static inline void xfab_gc_kfree(struct xfab_gcache *c)
{
	kvfree(c->ent);
	kvfree(c->bucket);
	memset(c, 0, sizeof(*c));
}
#endif

#endif /* XFAB_GCACHE_H */
