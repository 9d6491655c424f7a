/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel only (like xfab_xs.h): freeing the shared ring pages a frontend
 * made with xenbus_setup_ring(). The backend may still map a page when we
 * let go of it (it is slow, or hostile, or its domain is wedged): such a
 * page must not be reused while it does, or the backend reads and writes
 * whatever we put there next (XSA-396). xenbus_teardown_ring() ends the
 * grants but frees the pages at once; here each page goes to
 * gnttab_end_foreign_access(), which frees it when its grant has ended,
 * at once if the backend has unmapped it, later from the grant table's
 * deferred list if not. The pages of an alloc_pages_exact() allocation
 * (what xenbus_setup_ring() uses) are order-0 pages each, so they can be
 * freed one by one.
 */
#ifndef XFAB_KRING_H
#define XFAB_KRING_H

#include <linux/mm.h>
#include <xen/grant_table.h>
#include <xen/page.h>

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

#endif /* XFAB_KRING_H */
