// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The grant cache of xfab_gcache.h: chained hash buckets for lookup, a
 * doubly linked list through the unpinned slots for recency, a free list
 * for the slots never used or removed. A pinned slot is off the recency
 * list (it goes back, as the newest, when its last pin goes), so the
 * victim is always the list's old end: eviction is O(1) however many
 * slots a peer keeps in flight (a peer controls that number).
 */
#include "xfab_gcache.h"

static u32 gc_hash(const struct xfab_gcache *c, u64 key)
{
	return (u32)((key * 0x9e3779b97f4a7c15ull) >> 32) & c->hmask;
}

int xfab_gc_init(struct xfab_gcache *c, u32 cap, u32 buckets,
		 struct xfab_gc_ent *ent, u32 *bucket)
{
	u32 i;

	if (!cap || cap == XFAB_GC_NONE || !buckets ||
	    (buckets & (buckets - 1)))
		return -EINVAL;
	c->cap = cap;
	c->nr = 0;
	c->hmask = buckets - 1;
	c->bucket = bucket;
	c->ent = ent;
	c->mru = XFAB_GC_NONE;
	c->lru = XFAB_GC_NONE;
	for (i = 0; i < buckets; i++)
		bucket[i] = XFAB_GC_NONE;
	for (i = 0; i < cap; i++) {
		ent[i].used = false;
		ent[i].pins = 0;
		ent[i].next = i + 1 < cap ? i + 1 : XFAB_GC_NONE;
	}
	c->free = 0;
	return 0;
}

static void lru_unlink(struct xfab_gcache *c, u32 s)
{
	struct xfab_gc_ent *e = &c->ent[s];

	if (e->prev != XFAB_GC_NONE)
		c->ent[e->prev].next = e->next;
	else
		c->mru = e->next;
	if (e->next != XFAB_GC_NONE)
		c->ent[e->next].prev = e->prev;
	else
		c->lru = e->prev;
}

static void lru_push(struct xfab_gcache *c, u32 s)
{
	struct xfab_gc_ent *e = &c->ent[s];

	e->prev = XFAB_GC_NONE;
	e->next = c->mru;
	if (c->mru != XFAB_GC_NONE)
		c->ent[c->mru].prev = s;
	else
		c->lru = s;
	c->mru = s;
}

static void hash_unlink(struct xfab_gcache *c, u32 s)
{
	u32 *link = &c->bucket[gc_hash(c, c->ent[s].key)];

	while (*link != XFAB_GC_NONE && *link != s)
		link = &c->ent[*link].hnext;
	if (*link == s)
		*link = c->ent[s].hnext;
}

u32 xfab_gc_find(struct xfab_gcache *c, u64 key, u64 now)
{
	u32 s = c->bucket[gc_hash(c, key)];

	while (s != XFAB_GC_NONE && c->ent[s].key != key)
		s = c->ent[s].hnext;
	if (s == XFAB_GC_NONE)
		return s;
	c->ent[s].stamp = now;
	if (!c->ent[s].pins && c->mru != s) {
		lru_unlink(c, s);
		lru_push(c, s);
	}
	return s;
}

void xfab_gc_pin(struct xfab_gcache *c, u32 slot)
{
	if (!c->ent[slot].pins++)
		lru_unlink(c, slot);
}

void xfab_gc_unpin(struct xfab_gcache *c, u32 slot)
{
	if (c->ent[slot].pins && !--c->ent[slot].pins)
		lru_push(c, slot);
}

/* The least recently used slot nobody pins, or NONE. */
static u32 gc_victim(const struct xfab_gcache *c)
{
	return c->lru;
}

u32 xfab_gc_insert(struct xfab_gcache *c, u64 key, u64 now, bool *evicted,
		   u64 *old_key)
{
	struct xfab_gc_ent *e;
	u32 s, h;

	*evicted = false;
	if (c->free != XFAB_GC_NONE) {
		s = c->free;
		c->free = c->ent[s].next;
		c->nr++;
	} else {
		s = gc_victim(c);
		if (s == XFAB_GC_NONE)
			return s;
		*evicted = true;
		*old_key = c->ent[s].key;
		hash_unlink(c, s);
		lru_unlink(c, s);
	}
	e = &c->ent[s];
	e->key = key;
	e->stamp = now;
	e->used = true;
	e->pins = 0;
	h = gc_hash(c, key);
	e->hnext = c->bucket[h];
	c->bucket[h] = s;
	lru_push(c, s);
	return s;
}

int xfab_gc_remove(struct xfab_gcache *c, u32 slot)
{
	if (slot >= c->cap || !c->ent[slot].used)
		return -ENOENT;
	if (c->ent[slot].pins)
		return -EBUSY;
	hash_unlink(c, slot);
	lru_unlink(c, slot);
	c->ent[slot].used = false;
	c->ent[slot].next = c->free;
	c->free = slot;
	c->nr--;
	return 0;
}

u32 xfab_gc_idle(const struct xfab_gcache *c, u64 before)
{
	u32 s = gc_victim(c);

	return s != XFAB_GC_NONE && c->ent[s].stamp < before ? s :
	       XFAB_GC_NONE;
}
