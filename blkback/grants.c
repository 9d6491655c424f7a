// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mapping the frontend's pages. With feature-persistent (negotiated per
 * ring) a grant is mapped the first time a request names it and stays
 * mapped in ring->pgrants until the ring goes, so a frontend that reuses
 * its grants (Linux's blkfront does) costs no grant hypercall per request
 * in steady state. Past max_persistent_grants, or without the feature, a
 * page is mapped for one request and unmapped when it completes.
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

/*
 * Map grefs[0..n) into pages[0..n). ro: the request only reads guest
 * memory (a write to disk), so a non-persistent mapping can be
 * read-only; persistent ones are always writable as they serve reads
 * later. Returns 0, or -EIO/-ENOMEM with the entries that did map left in
 * pages[] for xfab_bb_unmap() (which the caller always runs).
 */
int xfab_bb_map(struct xfab_bb_ring *ring, struct xfab_bb_page *pages,
		const grant_ref_t *grefs, unsigned int n, bool ro)
{
	bool *keep = ring->batch_keep;
	unsigned int i, j, nr = 0, room;
	int err = 0, ret;

	for (i = 0; i < n; i++)
		pages[i].page = NULL;	/* what the caller's unmap skips */
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
			ring->st.pgrant_hits++;
			continue;
		}
		keep[nr] = room > 0;
		room -= keep[nr];
		if (map_prepare(ring, p, nr, keep[nr] || !ro)) {
			err = -ENOMEM;
			break;
		}
		ring->batch_idx[nr++] = i;
	}
	if (!nr)
		return err;
	ret = gnttab_map_refs(ring->map_ops, NULL, ring->batch_pages, nr);
	ring->st.map_calls++;
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
		ring->st.grant_maps++;
		atomic_long_inc(&xfab_bb_totals.grants_mapped);
		if (keep[j])
			pg_keep(ring, p);
	}
	if (err == -EIO)
		ring->st.map_errors++;
	return err;
}

/* Unmap what xfab_bb_map() mapped for this request only. */
void xfab_bb_unmap(struct xfab_bb_ring *ring, struct xfab_bb_page *pages,
		   unsigned int n)
{
	unsigned int i, nr = 0;

	for (i = 0; i < n; i++) {
		struct xfab_bb_page *p = &pages[i];

		if (!p->page || p->persistent) {
			p->page = NULL;
			continue;
		}
		gnttab_set_unmap_op(&ring->unmap_ops[nr], page_kaddr(p->page),
				    GNTMAP_host_map, p->handle);
		ring->batch_pages[nr++] = p->page;
		p->page = NULL;
	}
	if (!nr)
		return;
	ring->st.unmap_calls++;
	if (gnttab_unmap_refs(ring->unmap_ops, NULL, ring->batch_pages, nr)) {
		/* The pages may still be the guest's: leak, never reuse. */
		pr_err_ratelimited("xfab_blkback: unmapping %u grants failed\n",
				   nr);
		return;
	}
	ring->st.grant_unmaps += nr;
	atomic_long_sub(nr, &xfab_bb_totals.grants_mapped);
	gnttab_page_cache_put(&ring->page_cache, ring->batch_pages, nr);
}

/* Grants unmapped per hypercall when a ring goes. */
#define PG_FREE_BATCH 32

/* Unmap every persistent grant of a ring whose I/O has all finished. */
void xfab_bb_pgrants_free(struct xfab_bb_ring *ring)
{
	struct xfab_bb_pgrant *pg[PG_FREE_BATCH];
	struct rb_node *n;
	unsigned int nr, i;

	while (!RB_EMPTY_ROOT(&ring->pgrants)) {
		nr = 0;
		while (nr < PG_FREE_BATCH &&
		       (n = rb_first(&ring->pgrants))) {
			pg[nr] = rb_entry(n, struct xfab_bb_pgrant, node);
			rb_erase(n, &ring->pgrants);
			gnttab_set_unmap_op(&ring->unmap_ops[nr],
					    page_kaddr(pg[nr]->page),
					    GNTMAP_host_map, pg[nr]->handle);
			ring->batch_pages[nr] = pg[nr]->page;
			nr++;
		}
		ring->nr_pgrants -= nr;
		ring->st.unmap_calls++;
		if (gnttab_unmap_refs(ring->unmap_ops, NULL, ring->batch_pages,
				      nr)) {
			pr_err_ratelimited("xfab_blkback: unmapping %u persistent grants failed\n",
					   nr);
		} else {
			ring->st.grant_unmaps += nr;
			atomic_long_sub(nr, &xfab_bb_totals.grants_mapped);
			gnttab_page_cache_put(&ring->page_cache,
					      ring->batch_pages, nr);
		}
		for (i = 0; i < nr; i++)
			kfree(pg[i]);
	}
}
