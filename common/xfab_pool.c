// SPDX-License-Identifier: GPL-2.0 OR MIT
/* A frontend's page pool: the checks and lookups of xfab_pool.h. */
#include "xfab_pool.h"

static const char *const pool_err_names[XFAB_POOL_NR_ERRS] = {
	[XFAB_POOL_OK] = "ok",
	[XFAB_POOL_E_EMPTY] = "empty pool",
	[XFAB_POOL_E_TOO_MANY] = "more pool pages than the backend maps",
	[XFAB_POOL_E_ORDER] = "pool references not strictly ascending",
};

const char *xfab_pool_err_name(int err)
{
	if (err < 0 || err >= XFAB_POOL_NR_ERRS)
		return "unknown";
	return pool_err_names[err];
}

int xfab_pool_check(const u32 *refs, u32 n, u32 max)
{
	u32 i;

	if (!n)
		return XFAB_POOL_E_EMPTY;
	if (n > max || n > XFAB_POOL_MAX_PAGES)
		return XFAB_POOL_E_TOO_MANY;
	for (i = 1; i < n; i++)
		if (refs[i] <= refs[i - 1])
			return XFAB_POOL_E_ORDER;
	return XFAB_POOL_OK;
}

int xfab_pool_find(const u32 *refs, u32 n, u32 ref)
{
	u32 lo = 0, hi = n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (refs[mid] == ref)
			return (int)mid;
		if (refs[mid] < ref)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}
