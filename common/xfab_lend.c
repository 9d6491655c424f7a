// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Pool pages lent to the OS: see xfab_lend.h.
 */
#include "xfab_lend.h"

bool xfab_lend_swap(struct xfab_lend *l, struct xfab_lend_page *slot)
{
	struct xfab_lend_page spare;

	if (!l->nspare)
		return false;
	/* the last spare leaves; its place becomes the first lent one */
	l->nspare--;
	spare = l->p[l->nspare];
	l->p[l->nspare] = *slot;
	*slot = spare;
	return true;
}

u32 xfab_lend_reclaim(struct xfab_lend *l, bool (*is_free)(void *page))
{
	struct xfab_lend_page t;
	u32 i, back = 0;

	for (i = l->nspare; i < l->n; i++) {
		if (!is_free(l->p[i].page))
			continue;
		/* every page before i is looked at already: swap keeps order */
		t = l->p[i];
		l->p[i] = l->p[l->nspare];
		l->p[l->nspare] = t;
		l->nspare++;
		back++;
	}
	return back;
}
