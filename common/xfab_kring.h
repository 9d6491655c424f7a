/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel only (like xfab_xs.h): the shared-ring mechanics every driver
 * needs beside the OS-neutral checks of xfab_ring.h.
 *
 * Publishing: an index the peer reads goes out after what it shows, and
 * the peer is kicked only if the event index it armed lies in what this
 * push showed. The last index published is kept privately: the shared
 * copy is in a page the peer can write, so it is never read back.
 *
 * Freeing the ring pages a frontend made with xenbus_setup_ring(): the
 * backend may still map a page when we let go of it (it is slow, or
 * hostile, or its domain is wedged), and such a page must not be reused
 * while it does (XSA-396). Each page goes to gnttab_end_foreign_access()
 * with the page itself, which frees it once its grant has ended, at once
 * if the backend has unmapped it, later from the grant table's deferred
 * list if not. (Linux's own XSA-396 fix also holds a page whose grant is
 * in use when xenbus_teardown_ring() frees it; this does not rely on
 * that.) The pages of an alloc_pages_exact() allocation are order-0
 * pages each, so they can be freed one by one.
 */
#ifndef XFAB_KRING_H
#define XFAB_KRING_H

#include <linux/mm.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include "xfab_ring.h"

/*
 * Publish 'now' (requests or responses up to it) to the shared producer
 * index; *pushed is the last index published. True: kick the peer.
 */
static inline bool xfab_ring_publish(xfab_idx_t *pushed, xfab_idx_t now,
				     xfab_idx_t *shared_prod,
				     const xfab_idx_t *shared_event)
{
	xfab_idx_t old = *pushed;

	if (old == now)
		return false;
	virt_wmb();		/* the slots before the index that shows them */
	WRITE_ONCE(*shared_prod, now);
	*pushed = now;
	virt_mb();		/* the index out before the event is read */
	return xfab_ring_need_kick(old, now, READ_ONCE(*shared_event));
}

/*
 * Undo a successful xenbus_setup_ring() (a failed one undid itself);
 * nothing to do once *vaddr is NULL, so it may run twice.
 */
static inline void xfab_ring_pages_free(void **vaddr, unsigned int nr_pages,
					grant_ref_t *grefs)
{
	unsigned int i;

	if (!*vaddr)
		return;
	for (i = 0; i < nr_pages; i++) {
		struct page *pg = virt_to_page(*vaddr + i * XEN_PAGE_SIZE);

		if (grefs[i] != INVALID_GRANT_REF)
			gnttab_end_foreign_access(grefs[i], pg);
		else
			__free_page(pg);	/* never granted */
		grefs[i] = INVALID_GRANT_REF;
	}
	*vaddr = NULL;
}

/*
 * After gnttab_unmap_refs() said 0: that only means Xen read the batch.
 * It may still have refused single operations (a stale handle, a PTE
 * that changed), and such a page still maps the peer's frame: given
 * back, its next user (a window, another backend's grant map) would get
 * the peer's memory, or make Xen crash dom0 when it replaces the entry.
 * Moves the pages whose unmap took to the front of pages[] and returns
 * how many; the caller keeps the others out of use for good.
 */
static inline unsigned int xfab_unmapped(const struct gnttab_unmap_grant_ref *ops,
					 struct page **pages, unsigned int nr)
{
	unsigned int i, ok = 0;

	for (i = 0; i < nr; i++)
		if (ops[i].status == GNTST_okay)
			pages[ok++] = pages[i];
	return ok;
}

#endif /* XFAB_KRING_H */
