/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A budget of things a peer can make a backend hold (grant mappings,
 * pinned pages), bounded twice: per device and over the whole backend.
 * One device may not take more than its share, and all of them together
 * may not take what the rest of the domain needs (dom0's maptrack table
 * is shared by every backend and tool that maps grants).
 *
 * The counts are the caller's, under the caller's lock: this file only
 * decides. A take is all or nothing, so that what the caller records as
 * taken is exactly what it gives back.
 */
#ifndef XFAB_BUDGET_H
#define XFAB_BUDGET_H

#include "xfab_types.h"

/* What a take ran into (a counter per refusal names it). */
enum xfab_budget_why {
	XFAB_BUDGET_OK = 0,
	XFAB_BUDGET_DEV,	/* the device's bound */
	XFAB_BUDGET_ALL,	/* the backend's bound */
	XFAB_BUDGET_NR
};

const char *xfab_budget_why_name(int why);

/*
 * Take n from a device that holds *dev (bound dev_max) in a backend that
 * holds *all (bound all_max). XFAB_BUDGET_OK: both counts grew by n.
 * Otherwise neither changed; the device's bound is checked first. 0
 * is always taken. A bound lowered below what is held refuses every take until enough is
 * given back; what is held is never taken away.
 */
int xfab_budget_take(u32 *dev, u32 *all, u32 n, u32 dev_max, u32 all_max);

/*
 * Give back n taken before. False if either count held less than n (a
 * caller's accounting bug): that count is left at 0, never wrapped.
 */
bool xfab_budget_put(u32 *dev, u32 *all, u32 n);

#endif /* XFAB_BUDGET_H */
