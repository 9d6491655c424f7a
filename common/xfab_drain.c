// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The bounds on ring sets a device holds; see xfab_drain.h. */
#include "xfab_drain.h"

/* Sets past a device's first, when it holds n. */
static u32 drain_extra_of(u32 n)
{
	return n > 1 ? n - 1 : 0;
}

/*
 * d now holds live + draining sets: *extra follows. Every change goes
 * through here, so *extra is always the sum of what the devices hold
 * past their first, and a device's last set leaving takes its share
 * with it.
 */
static void drain_set(struct xfab_drain_dev *d, u32 *extra, bool live,
		      u32 draining)
{
	u32 before = drain_extra_of((u32)d->live + d->draining);
	u32 after = drain_extra_of((u32)live + draining);

	/* the backend's count never wraps, even on a caller's bug */
	if (after >= before)
		*extra += after - before;
	else if (*extra >= before - after)
		*extra -= before - after;
	else
		*extra = 0;
	d->live = live;
	d->draining = draining;
}

int xfab_drain_connect(struct xfab_drain_dev *d, u32 *extra, u32 dev_max,
		       u32 all_max)
{
	if (d->live)
		return XFAB_DRAIN_OK;	/* the set it has is the one asked for */
	if (!dev_max)
		dev_max = 1;
	/* with nothing draining this is its first set: never refused */
	if (d->draining >= dev_max)
		return XFAB_DRAIN_DEV;
	if (d->draining && *extra >= all_max)
		return XFAB_DRAIN_ALL;
	drain_set(d, extra, true, d->draining);
	return XFAB_DRAIN_OK;
}

bool xfab_drain_release(struct xfab_drain_dev *d, u32 *extra, bool drain)
{
	if (!d->live)
		return false;
	drain_set(d, extra, false, d->draining + (drain ? 1 : 0));
	return true;
}

bool xfab_drain_done(struct xfab_drain_dev *d, u32 *extra)
{
	if (!d->draining)
		return false;
	drain_set(d, extra, d->live, d->draining - 1);
	return true;
}
