/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A frontend's page pool, as the backend knows it (docs/protocol.md,
 * "netif: the xfab fast path"). The frontend grants a set of pages once
 * per connect and lists their grant references in a directory page,
 * strictly ascending. The backend copies the list out, checks it here,
 * maps every page once, and from then on a ring slot whose grant
 * reference is in the list is served by memcpy through the kept mapping
 * instead of a grant-copy hypercall. Any other reference is an ordinary
 * grant: the slot format does not change.
 *
 * The list is checked once, on the backend's private copy; lookups are a
 * binary search on that copy, so a frontend rewriting its directory page
 * later changes nothing.
 */
#ifndef XFAB_POOL_H
#define XFAB_POOL_H

#include "xfab_types.h"

/* References one directory page holds: the most a pool can have. */
#define XFAB_POOL_MAX_PAGES (XFAB_PAGE_SIZE / sizeof(u32))

/* Why a list was refused (a counter and a log line name it). */
enum xfab_pool_err {
	XFAB_POOL_OK = 0,
	XFAB_POOL_E_EMPTY,	/* no pages */
	XFAB_POOL_E_TOO_MANY,	/* more than the backend's limit */
	XFAB_POOL_E_ORDER,	/* not strictly ascending: a repeat or disorder */
	XFAB_POOL_NR_ERRS
};

const char *xfab_pool_err_name(int err);

/*
 * Check a list of n references (a private copy) against the backend's
 * limit max (at most XFAB_POOL_MAX_PAGES). Strict ascent keeps each page
 * mapped once and makes lookups a binary search.
 */
int xfab_pool_check(const u32 *refs, u32 n, u32 max);

/* The position of ref in a checked list, or -1 if it is not there. */
int xfab_pool_find(const u32 *refs, u32 n, u32 ref);

#endif /* XFAB_POOL_H */
