// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mapping the frontend's pages. With feature-persistent (negotiated per
 * ring) a grant is mapped the first time a request names it and stays
 * mapped in ring->pgrants until the ring goes, so a frontend that reuses
 * its grants (Linux's blkfront does) costs no grant hypercall per request
 * in steady state. Past max_persistent_grants, or without the feature, a
 * page is mapped for one request and unmapped when it completes.
 *
 * An xfab frontend in relaxed trust writes from its own pages, granted
 * read-only once and kept: a write segment that is not a persistent
 * grant is looked up in (or mapped read-only into) ring->ro, a bounded
 * cache of kept mappings that the thread also purges when idle. A slot
 * a request uses is pinned until the request is answered.
 *
 * All of it runs in the ring's thread (or in disconnect after the thread
 * stopped), so the tree and the scratch arrays need no lock.
 */
#include <linux/slab.h>
#include "common.h"

static struct xfab_bb_pgrant *pg_find(struct xfab_bb_ring *ring,
				      grant_ref_t gref)
{
	struct rb_node *n = ring->pgrants.rb_node;
	struct xfab_bb_pgrant *pg;

	while (n) {
		pg = rb_entry(n, struct xfab_bb_pgrant, node);
		if (gref < pg->gref)
			n = n->rb_left;
		else if (gref > pg->gref)
			n = n->rb_right;
		else
			return pg;
	}
	return NULL;
}

/* false if gref is already there (one request naming a grant twice). */
static bool pg_insert(struct xfab_bb_ring *ring, struct xfab_bb_pgrant *new)
{
	struct rb_node **link = &ring->pgrants.rb_node, *parent = NULL;
	struct xfab_bb_pgrant *pg;

	while (*link) {
		parent = *link;
		pg = rb_entry(parent, struct xfab_bb_pgrant, node);
		if (new->gref < pg->gref)
			link = &parent->rb_left;
		else if (new->gref > pg->gref)
			link = &parent->rb_right;
		else
			return false;
	}
	rb_link_node(&new->node, parent, link);
	rb_insert_color(&new->node, &ring->pgrants);
	ring->nr_pgrants++;
	return true;
}

static unsigned long page_kaddr(struct page *page)
{
	return (unsigned long)pfn_to_kaddr(page_to_pfn(page));
}

/* Queue the unmap of one mapping as operation nr of the next batch. */
static void unmap_queue(struct xfab_bb_ring *ring, unsigned int nr,
			struct page *page, grant_handle_t handle)
{
	gnttab_set_unmap_op(&ring->unmap_ops[nr], page_kaddr(page),
			    GNTMAP_host_map, handle);
	ring->batch_pages[nr] = page;
}

/* Unmap the nr operations queued; their pages go back to the cache. */
static void unmap_batch(struct xfab_bb_ring *ring, unsigned int nr)
{
	unsigned int ok;

	if (!nr)
		return;
	xfab_bb_inc(ring, unmap_calls);
	if (gnttab_unmap_refs(ring->unmap_ops, NULL, ring->batch_pages, nr)) {
		/* The pages may still be the guest's: leak, never reuse. */
		pr_err_ratelimited("xfab_blkback: unmapping %u grants failed\n",
				   nr);
		return;
	}
	ok = xfab_unmapped(ring->unmap_ops, ring->batch_pages, nr);
	if (ok < nr)
		pr_err_ratelimited("xfab_blkback: Xen kept %u of %u grants mapped: their pages stay out of use\n",
				   nr - ok, nr);
	xfab_bb_add(ring, grant_unmaps, ok);
	atomic_long_sub(ok, &xfab_bb_totals.grants_mapped);
	gnttab_page_cache_put(&ring->page_cache, ring->batch_pages, ok);
}

/* Grants unmapped per hypercall when mappings are dropped in bulk. */
#define PG_FREE_BATCH 32

/* Queue one unmap of a bulk drop; a full batch goes at once. */
static void unmap_add(struct xfab_bb_ring *ring, unsigned int *nr,
		      struct page *page, grant_handle_t handle)
{
	unmap_queue(ring, (*nr)++, page, handle);
	if (*nr == PG_FREE_BATCH) {
		unmap_batch(ring, *nr);
		*nr = 0;
	}
}

/* Keep a page just mapped read-write as persistent, if there is room. */
static void pg_keep(struct xfab_bb_ring *ring, struct xfab_bb_page *p)
{
	struct xfab_bb_pgrant *pg;

	pg = kmalloc(sizeof(*pg), GFP_NOIO);
	if (!pg)
		return;		/* unmapped after this request, as if full */
	pg->gref = p->gref;
	pg->handle = p->handle;
	pg->page = p->page;
	if (!pg_insert(ring, pg)) {
		kfree(pg);
		return;
	}
	p->persistent = true;
}

/* Queue one map operation for pages[i]; rw: map it writable. */
static int map_prepare(struct xfab_bb_ring *ring, struct xfab_bb_page *p,
		       unsigned int nr, bool rw)
{
	u32 flags = GNTMAP_host_map | (rw ? 0 : GNTMAP_readonly);

	if (gnttab_page_cache_get(&ring->page_cache, &p->page))
		return -ENOMEM;
	gnttab_set_map_op(&ring->map_ops[nr], page_kaddr(p->page), flags,
			  p->gref, ring->dev->xdev->otherend_id);
	/* Xen sets the status; anything else means it never got there. */
	ring->map_ops[nr].status = GNTST_general_error;
	ring->batch_pages[nr] = p->page;
	return 0;
}

/* One more kept mapping within the disk's and the backend's bounds? */
static bool ro_budget_take(struct xfab_bb_ring *ring)
{
	struct xfab_bb_dev *dev = ring->dev;

	if (atomic_inc_return(&dev->ro_kept) > READ_ONCE(xfab_bb_ro_dev_max))
		goto undo_dev;
	if (atomic_inc_return(&xfab_bb_totals.ro_kept) >
	    READ_ONCE(xfab_bb_ro_total_max))
		goto undo_all;
	return true;
undo_all:
	atomic_dec(&xfab_bb_totals.ro_kept);
undo_dev:
	atomic_dec(&dev->ro_kept);
	xfab_bb_inc(ring, ro_budget);
	return false;
}

static void ro_budget_put(struct xfab_bb_ring *ring, unsigned int n)
{
	atomic_sub(n, &ring->dev->ro_kept);
	atomic_sub(n, &xfab_bb_totals.ro_kept);
}

/*
 * A write segment of a relaxed-trust frontend: its kept mapping (a hit;
 * the page is NULL if the map is still queued in this batch), or a slot
 * to map it into (*miss). The slot is pinned for the request, and counts
 * against the bounds until it is unmapped. NONE if every slot is pinned
 * or a bound is reached: the page is then mapped for this request only.
 */
static u32 ro_lookup(struct xfab_bb_ring *ring, struct xfab_bb_page *p,
		     u64 now, unsigned int *nevict, bool *miss)
{
	bool evicted, fresh;
	u64 old;
	u32 s;

	*miss = false;
	s = xfab_gc_find(&ring->ro, p->gref, now);
	if (s != XFAB_GC_NONE) {
		xfab_bb_inc(ring, ro_hits);
	} else {
		/*
		 * The bounds count slots in use: a free slot taken is one
		 * more, an evicted one is replaced.
		 */
		fresh = ring->ro.nr < ring->ro.cap;
		if (fresh && !ro_budget_take(ring))
			return XFAB_GC_NONE;
		s = xfab_gc_insert(&ring->ro, p->gref, now, &evicted, &old);
		if (s == XFAB_GC_NONE) {
			if (fresh)
				ro_budget_put(ring, 1);
			xfab_bb_inc(ring, ro_full);
			return s;
		}
		if (evicted && ring->ro_map[s].page) {
			ring->ro_evict[(*nevict)++] = ring->ro_map[s];
			xfab_bb_inc(ring, ro_evictions);
		}
		ring->ro_map[s].page = NULL;
		*miss = true;
	}
	xfab_gc_pin(&ring->ro, s);
	p->ro_slot = s;
	p->page = ring->ro_map[s].page;
	return s;
}

/* Unmap the kept mappings ro_lookup() evicted for this request. */
static void ro_evict_flush(struct xfab_bb_ring *ring, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		unmap_queue(ring, i, ring->ro_evict[i].page,
			    ring->ro_evict[i].handle);
	unmap_batch(ring, n);
}

/*
 * Map grefs[0..n) into pages[0..n). ro: the request only reads guest
 * memory (a write to disk), so a mapping that is not persistent can be
 * read-only; persistent ones are always writable as they serve reads
 * later. Returns 0, or -EIO/-ENOMEM with the entries that did map left in
 * pages[] for xfab_bb_unmap() (which the caller always runs).
 */
int xfab_bb_map(struct xfab_bb_ring *ring, struct xfab_bb_page *pages,
		const grant_ref_t *grefs, unsigned int n, bool ro)
{
	bool *keep = ring->batch_keep, miss;
	unsigned int i, j, nr = 0, room, nevict = 0;
	u64 now = ro && ring->ro_on ? get_jiffies_64() : 0;
	int err = 0, ret = 0;

	for (i = 0; i < n; i++) {
		pages[i].page = NULL;	/* what the caller's unmap skips */
		pages[i].ro_slot = XFAB_GC_NONE;
	}
	room = ring->persistent && ring->nr_pgrants < xfab_bb_max_pgrants ?
	       xfab_bb_max_pgrants - ring->nr_pgrants : 0;
	for (i = 0; i < n; i++) {
		struct xfab_bb_page *p = &pages[i];
		struct xfab_bb_pgrant *pg;

		p->gref = grefs[i];
		p->persistent = false;
		pg = ring->persistent ? pg_find(ring, p->gref) : NULL;
		if (pg) {
			p->page = pg->page;
			p->persistent = true;
			xfab_bb_inc(ring, pgrant_hits);
			continue;
		}
		keep[nr] = false;
		if (ro && ring->ro_on) {
			/*
			 * Kept read-only, or else read-only for this request:
			 * the frontend granted the page read-only, so a
			 * persistent (writable) mapping would be refused.
			 */
			if (ro_lookup(ring, p, now, &nevict, &miss) !=
			    XFAB_GC_NONE && !miss)
				continue;
		} else {
			keep[nr] = room > 0;
			room -= keep[nr];
		}
		if (map_prepare(ring, p, nr, keep[nr] || !ro)) {
			err = -ENOMEM;
			break;
		}
		ring->batch_idx[nr++] = i;
	}
	if (nr) {
		ret = gnttab_map_refs(ring->map_ops, NULL, ring->batch_pages,
				      nr);
		xfab_bb_inc(ring, map_calls);
	}
	for (j = 0; j < nr; j++) {
		struct xfab_bb_page *p = &pages[ring->batch_idx[j]];

		if (ret || ring->map_ops[j].status != GNTST_okay) {
			/* Not mapped (or in an unknown state): never reused. */
			if (!ret)
				gnttab_page_cache_put(&ring->page_cache,
						      &p->page, 1);
			p->page = NULL;
			err = -EIO;
			continue;
		}
		p->handle = ring->map_ops[j].handle;
		xfab_bb_inc(ring, grant_maps);
		atomic_long_inc(&xfab_bb_totals.grants_mapped);
		if (p->ro_slot != XFAB_GC_NONE) {
			ring->ro_map[p->ro_slot].page = p->page;
			ring->ro_map[p->ro_slot].handle = p->handle;
			xfab_bb_inc(ring, ro_maps);
		} else if (keep[j]) {
			pg_keep(ring, p);
		}
	}
	/* Segments that named a grant first mapped in this same batch. */
	for (i = 0; i < n; i++) {
		struct xfab_bb_page *p = &pages[i];

		if (p->ro_slot == XFAB_GC_NONE || p->page)
			continue;
		p->page = ring->ro_map[p->ro_slot].page;
		if (!p->page && !err)
			err = -EIO;
	}
	ro_evict_flush(ring, nevict);
	if (err == -EIO)
		xfab_bb_inc(ring, map_errors);
	return err;
}

/* Release what xfab_bb_map() took for this request. */
void xfab_bb_unmap(struct xfab_bb_ring *ring, struct xfab_bb_page *pages,
		   unsigned int n)
{
	unsigned int i, nr = 0;

	for (i = 0; i < n; i++) {
		struct xfab_bb_page *p = &pages[i];
		u32 s = p->ro_slot;

		if (s != XFAB_GC_NONE) {
			/* kept; a slot whose map failed goes once unused */
			xfab_gc_unpin(&ring->ro, s);
			if (!ring->ro_map[s].page && !ring->ro.ent[s].pins &&
			    !xfab_gc_remove(&ring->ro, s))
				ro_budget_put(ring, 1);
			p->ro_slot = XFAB_GC_NONE;
			p->page = NULL;
			continue;
		}
		if (p->page && !p->persistent)
			unmap_queue(ring, nr++, p->page, p->handle);
		p->page = NULL;
	}
	unmap_batch(ring, nr);
}

/* Unmap every persistent grant of a ring whose I/O has all finished. */
void xfab_bb_pgrants_free(struct xfab_bb_ring *ring)
{
	struct xfab_bb_pgrant *pg;
	struct rb_node *n;
	unsigned int nr = 0;

	while ((n = rb_first(&ring->pgrants))) {
		pg = rb_entry(n, struct xfab_bb_pgrant, node);
		rb_erase(n, &ring->pgrants);
		ring->nr_pgrants--;
		unmap_add(ring, &nr, pg->page, pg->handle);
		kfree(pg);
	}
	unmap_batch(ring, nr);
}

/* ---- kept read-only mappings ---- */

/* Set up ring->ro for cap mappings; xfab_bb_ro_free() undoes any part. */
int xfab_bb_ro_init(struct xfab_bb_ring *ring, unsigned int cap)
{
	ring->ro_map = kvcalloc(cap, sizeof(*ring->ro_map), GFP_KERNEL);
	ring->ro_evict = kvcalloc(XFAB_BB_MAX_PAGES, sizeof(*ring->ro_evict),
				  GFP_KERNEL);
	if (!ring->ro_map || !ring->ro_evict)
		return -ENOMEM;
	ring->ro_purge_at = jiffies + msecs_to_jiffies(xfab_bb_ro_idle_ms);
	return xfab_gc_kalloc(&ring->ro, cap);
}

/*
 * Unmap kept mappings unused for ro_idle_ms (the frontend may be waiting
 * to take their grants back). Thread only.
 */
void xfab_bb_ro_purge(struct xfab_bb_ring *ring)
{
	u64 before = get_jiffies_64() - msecs_to_jiffies(xfab_bb_ro_idle_ms);
	unsigned int nr = 0;
	u32 s;

	while ((s = xfab_gc_idle(&ring->ro, before)) != XFAB_GC_NONE) {
		if (ring->ro_map[s].page) {
			unmap_add(ring, &nr, ring->ro_map[s].page,
				  ring->ro_map[s].handle);
			xfab_bb_inc(ring, ro_purged);
		}
		ring->ro_map[s].page = NULL;
		if (!xfab_gc_remove(&ring->ro, s))
			ro_budget_put(ring, 1);
	}
	unmap_batch(ring, nr);
}

/* Unmap every kept mapping of a ring whose I/O has all finished. */
void xfab_bb_ro_free(struct xfab_bb_ring *ring)
{
	unsigned int nr = 0, s;

	for (s = 0; ring->ro_map && s < ring->ro.cap; s++) {
		if (!ring->ro.ent[s].used || !ring->ro_map[s].page)
			continue;
		unmap_add(ring, &nr, ring->ro_map[s].page,
			  ring->ro_map[s].handle);
		ring->ro_map[s].page = NULL;
	}
	unmap_batch(ring, nr);
	ro_budget_put(ring, ring->ro.nr);
	xfab_gc_kfree(&ring->ro);
	kvfree(ring->ro_map);
	kvfree(ring->ro_evict);
	ring->ro_map = NULL;
	ring->ro_evict = NULL;
	ring->ro_on = false;
}
