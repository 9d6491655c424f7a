// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A frontend's page pool, mapped once per connect (docs/protocol.md, "netif:
 * the xfab fast path"). The frontend lists the pool's grant references in
 * a directory page; we copy the list out, check it (common/xfab_pool),
 * and map every page in one batch. From then on the datapath moves the
 * bytes of a slot that names a pool page with memcpy through our mapping
 * instead of a grant-copy hypercall. Anything that goes wrong here turns
 * the pool off for that ring, counted and logged: the vif carries on with
 * grant copy, which every slot still allows.
 *
 * Runs in xenbus context (connect, disconnect) with the datapath of the
 * queue stopped, so nothing here races a reader of the mappings.
 *
 * Every pool's pages are taken from the pool budget (pool_grants_per_vif,
 * pool_grants_total) before anything is allocated or mapped, and given
 * back whole when the pool goes, whatever part of it was mapped: a pool
 * past a bound is refused (counted per queue as pool_refused_vif or
 * pool_refused_total) and the queue grant-copies.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include "common.h"

/* Unmap operations per hypercall at teardown (on the stack). */
#define NB_POOL_UNMAP_BATCH 16

/*
 * The pool pages taken from the budget, over the backend (here) and per
 * vif (vif->pool_grants). One lock for both: vifs connect in xenwatch
 * while others go in module unload.
 */
static DEFINE_SPINLOCK(nb_budget_lock);
static u32 nb_budget_all;

u32 xfab_nb_pool_budget_held(void)
{
	return READ_ONCE(nb_budget_all);
}

/* Take n pages for pool p of queue q, or count which bound refused them. */
static int nb_budget_take(struct xfab_nb_queue *q, struct xfab_nb_pool *p,
			  u32 n)
{
	int why;

	spin_lock(&nb_budget_lock);
	why = xfab_budget_take(&q->vif->pool_grants, &nb_budget_all, n,
			       READ_ONCE(xfab_nb_pool_vif_max),
			       READ_ONCE(xfab_nb_pool_total_max));
	spin_unlock(&nb_budget_lock);
	if (why == XFAB_BUDGET_OK)
		p->charged = n;
	else if (why == XFAB_BUDGET_DEV)
		atomic64_inc(&q->st.pool_refused_vif);
	else
		atomic64_inc(&q->st.pool_refused_total);
	return why;
}

/* Give back what p took; idempotent. */
static void nb_budget_put(struct xfab_nb_queue *q, struct xfab_nb_pool *p)
{
	bool ok;

	if (!p->charged)
		return;
	spin_lock(&nb_budget_lock);
	ok = xfab_budget_put(&q->vif->pool_grants, &nb_budget_all, p->charged);
	spin_unlock(&nb_budget_lock);
	p->charged = 0;
	if (!ok)	/* our own accounting, not the peer's doing */
		pr_err_ratelimited("xfab_netback: %s: gave back more pool budget than held\n",
				   q->name);
}

static unsigned long nb_kaddr(struct page *page)
{
	return (unsigned long)pfn_to_kaddr(page_to_pfn(page));
}

/* Copy the frontend's list out of its directory page (granted read-only). */
static int nb_pool_read_dir(struct xfab_nb_queue *q, grant_ref_t dir,
			    u32 *refs, u32 n)
{
	struct gnttab_map_grant_ref map;
	struct gnttab_unmap_grant_ref unmap;
	struct page *page;
	int err;

	if (gnttab_alloc_pages(1, &page))
		return -ENOMEM;
	gnttab_set_map_op(&map, nb_kaddr(page),
			  GNTMAP_host_map | GNTMAP_readonly, dir,
			  q->vif->domid);
	map.status = GNTST_general_error;
	err = gnttab_map_refs(&map, NULL, &page, 1);
	if (err || map.status != GNTST_okay) {
		/* after a failed call the page's state is unknown: leak it */
		if (!err)
			gnttab_free_pages(1, &page);
		return -EIO;
	}
	memcpy(refs, page_address(page), n * sizeof(*refs));
	gnttab_set_unmap_op(&unmap, nb_kaddr(page), GNTMAP_host_map,
			    map.handle);
	if (gnttab_unmap_refs(&unmap, NULL, &page, 1))
		return -EIO;	/* the page may still be the guest's: leak it */
	gnttab_free_pages(1, &page);
	return 0;
}

/* Unmap nr pages; a page goes back only if Xen let go of it. */
static void nb_pool_unmap_batch(struct gnttab_unmap_grant_ref *ops,
				struct page **pages, u32 nr)
{
	u32 ok;

	if (!nr)
		return;
	if (gnttab_unmap_refs(ops, NULL, pages, nr)) {
		pr_err_ratelimited("xfab_netback: unmapping %u pool pages failed\n",
				   nr);
		return;
	}
	ok = xfab_unmapped(ops, pages, nr);
	if (ok < nr)
		pr_err_ratelimited("xfab_netback: Xen kept %u of %u pool pages mapped: they stay out of use\n",
				   nr - ok, nr);
	atomic_sub(ok, &xfab_nb_totals.pool_pages);
	gnttab_free_pages(ok, pages);
}

/*
 * Unmap the mapped pages and give back every page we may reuse. A page
 * Xen would not unmap, or whose map call failed (pages[] cleared), is
 * leaked: it may still show the guest's memory.
 */
static void nb_pool_release(struct xfab_nb_pool *p)
{
	struct gnttab_unmap_grant_ref ops[NB_POOL_UNMAP_BATCH];
	struct page *pages[NB_POOL_UNMAP_BATCH];
	u32 i, nr = 0;

	for (i = 0; i < p->n; i++) {
		if (!test_bit(i, p->mapped_bit)) {
			if (p->pages[i])	/* never mapped: ours again */
				gnttab_free_pages(1, &p->pages[i]);
			continue;
		}
		gnttab_set_unmap_op(&ops[nr], nb_kaddr(p->pages[i]),
				    GNTMAP_host_map, p->handles[i]);
		pages[nr++] = p->pages[i];
		if (nr == NB_POOL_UNMAP_BATCH) {
			nb_pool_unmap_batch(ops, pages, nr);
			nr = 0;
		}
	}
	nb_pool_unmap_batch(ops, pages, nr);
}

/* Map all n pages at once; on any failure, undo (see nb_pool_release). */
static int nb_pool_map_all(struct xfab_nb_queue *q, struct xfab_nb_pool *p)
{
	u32 flags = GNTMAP_host_map | (p->readonly ? GNTMAP_readonly : 0);
	struct gnttab_map_grant_ref *ops;
	int err = 0;
	u32 i;

	ops = kvcalloc(p->n, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	for (i = 0; i < p->n; i++) {
		gnttab_set_map_op(&ops[i], nb_kaddr(p->pages[i]), flags,
				  p->refs[i], q->vif->domid);
		ops[i].status = GNTST_general_error;
	}
	if (gnttab_map_refs(ops, NULL, p->pages, p->n)) {
		/* which pages are mapped is unknown: keep them all out */
		memset(p->pages, 0, p->n * sizeof(*p->pages));
		err = -EIO;
		goto out;
	}
	for (i = 0; i < p->n; i++) {
		if (ops[i].status != GNTST_okay) {
			err = -EIO;
			continue;
		}
		p->handles[i] = ops[i].handle;
		set_bit(i, p->mapped_bit);
		atomic_inc(&xfab_nb_totals.pool_pages);
	}
out:
	kvfree(ops);
	return err;
}

/*
 * Idempotent; the error path of xfab_nb_pool_map() too. The budget goes
 * back whole, pages Xen would not unmap included: those stay counted in
 * xfab_nb_totals.pool_pages, which is where a leak shows.
 */
void xfab_nb_pool_unmap(struct xfab_nb_queue *q, struct xfab_nb_pool *p)
{
	if (p->n)
		nb_pool_release(p);
	nb_budget_put(q, p);
	kvfree(p->pages);
	kvfree(p->handles);
	kvfree(p->refs);
	bitmap_free(p->mapped_bit);
	p->pages = NULL;
	p->handles = NULL;
	p->refs = NULL;
	p->mapped_bit = NULL;
	p->n = 0;
}

static int nb_pool_alloc(struct xfab_nb_pool *p, u32 n)
{
	p->refs = kvcalloc(n, sizeof(*p->refs), GFP_KERNEL);
	p->handles = kvcalloc(n, sizeof(*p->handles), GFP_KERNEL);
	p->mapped_bit = bitmap_zalloc(n, GFP_KERNEL);
	p->pages = kvcalloc(n, sizeof(*p->pages), GFP_KERNEL);
	if (!p->refs || !p->handles || !p->mapped_bit || !p->pages)
		return -ENOMEM;
	if (gnttab_alloc_pages(n, p->pages)) {
		kvfree(p->pages);
		p->pages = NULL;
		return -ENOMEM;
	}
	p->n = n;
	return 0;
}

/*
 * Map the pool of n pages listed at directory grant dir. Returns 0 with
 * the pool on, or an error with *why saying what failed (the pool is
 * left off and empty): -ENOSPC when the budget refused it.
 */
int xfab_nb_pool_map(struct xfab_nb_queue *q, struct xfab_nb_pool *p,
		     grant_ref_t dir, u32 n, bool readonly, const char **why)
{
	int err;

	xfab_nb_pool_unmap(q, p);	/* nothing held twice, whatever came before */
	p->readonly = readonly;
	if (!n || n > xfab_nb_pool_pages || n > XFAB_POOL_MAX_PAGES) {
		*why = "page count out of range";
		return -EINVAL;
	}
	switch (nb_budget_take(q, p, n)) {
	case XFAB_BUDGET_OK:
		break;
	case XFAB_BUDGET_DEV:
		*why = "the vif's pool budget (pool_grants_per_vif) is spent";
		return -ENOSPC;
	default:
		*why = "the backend's pool budget (pool_grants_total) is spent";
		return -ENOSPC;
	}
	err = nb_pool_alloc(p, n);
	if (err) {
		*why = "no memory for the pool";
		goto fail;
	}
	err = nb_pool_read_dir(q, dir, p->refs, n);
	if (err) {
		*why = "directory page would not map";
		goto fail;
	}
	err = xfab_pool_check(p->refs, n, xfab_nb_pool_pages);
	if (err) {
		*why = xfab_pool_err_name(err);
		err = -EINVAL;
		goto fail;
	}
	err = nb_pool_map_all(q, p);
	if (err) {
		*why = "a pool page would not map";
		goto fail;
	}
	return 0;
fail:
	xfab_nb_pool_unmap(q, p);
	return err;
}
