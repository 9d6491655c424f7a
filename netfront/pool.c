// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The lists of pool pages xfab_netfront hands an xfab backend
 * (docs/protocol.md, "netif: the xfab fast path"): one page per pool,
 * granted read-only, holding the pool pages' grant references in the
 * ascending order the backend checks for. The backend maps the pool
 * once and moves a slot's bytes with memcpy. A list that cannot be made
 * costs only speed: every pool page is also named by its grant in its
 * slot, so the backend falls back to grant copy.
 */
#include <linux/mm.h>
#include <linux/sort.h>
#include <xen/page.h>
#include "common.h"

static int nf_cmp_ref(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * A pool page: zeroed (a backend may read all of a granted page, and
 * its old contents are none of its business) and granted for as long as
 * the rings live, from the queue's private reference pool (head), which
 * holds one reference per slot, so claiming cannot fail. NULL: no memory.
 */
struct page *xfab_nf_pool_page(struct xfab_nf_queue *q, grant_ref_t *head,
			       bool readonly, grant_ref_t *ref)
{
	struct page *pg = alloc_page(GFP_NOIO | __GFP_ZERO);

	if (!pg)
		return NULL;
	*ref = gnttab_claim_grant_reference(head);
	gnttab_grant_foreign_access_ref(*ref, q->info->xbdev->otherend_id,
					xen_page_to_gfn(pg), readonly);
	return pg;
}

/* A zeroed list page for the caller to fill; NULL: no memory. */
u32 *xfab_nf_pool_dir_start(struct xfab_nf_pool_dir *d)
{
	d->page = alloc_page(GFP_NOIO | __GFP_ZERO);
	d->n = 0;
	return d->page ? page_address(d->page) : NULL;
}

/* Sort the n references the caller wrote and grant the list. */
void xfab_nf_pool_dir_finish(struct xfab_nf_queue *q,
			     struct xfab_nf_pool_dir *d, unsigned int n,
			     const char *what)
{
	domid_t be = q->info->xbdev->otherend_id;
	int ref = -ENOMEM;

	if (d->page) {
		sort(page_address(d->page), n, sizeof(u32), nf_cmp_ref, NULL);
		ref = gnttab_grant_foreign_access(be, xen_page_to_gfn(d->page),
						  1);
	}
	if (ref >= 0) {
		d->ref = ref;
		d->n = n;
		return;
	}
	if (d->page)
		__free_page(d->page);
	d->page = NULL;
	netdev_warn(q->info->netdev, "queue %u: %s pool not published (no page or grant for its list): %s by grant copy\n",
		    q->id, what, what);
}

/* Teardown: a backend that still maps the list keeps it till it lets go. */
void xfab_nf_pool_dir_release(struct xfab_nf_pool_dir *d)
{
	if (d->page)
		gnttab_end_foreign_access(d->ref, d->page);
	d->page = NULL;
	d->n = 0;
}
