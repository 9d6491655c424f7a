/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Pool pages a frontend lends to its OS (docs/net.md, "The fast path").
 * A pool has one page posted per ring slot plus n pages off the ring:
 * spares, or lent to the stack as a received packet's frags. Lending a
 * slot's page swaps it with a spare, so the ring stays full and the
 * pool's page set never changes (the backend mapped it once). A lent
 * page turns spare again once the OS says nobody else holds it.
 *
 * One array holds both kinds: [0, nspare) spare, [nspare, n) lent. No
 * page is lost or held twice whatever order things come back in; the
 * unit tests check that.
 */
#ifndef XFAB_LEND_H
#define XFAB_LEND_H

#include "xfab_types.h"

struct xfab_lend_page {
	void *page;	/* the OS's page (struct page * in the kernel) */
	u32 ref;	/* its grant reference, kept for the pool's life */
};

struct xfab_lend {
	struct xfab_lend_page *p;
	u32 n, nspare;
};

/*
 * The page at *slot (a ring slot's, just received into) goes lent; a
 * spare takes its place in *slot. False, nothing changed: no spare.
 */
bool xfab_lend_swap(struct xfab_lend *l, struct xfab_lend_page *slot);

/*
 * Lent pages that is_free() says only we hold become spare again.
 * Returns how many did.
 */
u32 xfab_lend_reclaim(struct xfab_lend *l, bool (*is_free)(void *page));

#endif /* XFAB_LEND_H */
