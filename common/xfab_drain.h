/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Ring sets a block backend holds for one device: the connected one, and
 * those let go at a disconnect while the disk still had requests of
 * theirs ("draining": their grants stay mapped until the disk answers).
 * A frontend that disconnects and connects again and again on a slow
 * disk would pile these up; two bounds stop it:
 *
 *   - per device: at most dev_max sets draining. A device at its bound
 *     is not connected until one of them finishes.
 *   - over the backend: each device's first set (connected or draining)
 *     is its own, every further one is "extra", and at most all_max
 *     extras are held over all devices. So the backend holds at most
 *     (devices + all_max) ring sets, and a device that holds nothing
 *     else always connects, whatever other devices hold.
 *
 * Either way a connect is refused only while the device has a set
 * draining, so the end of that drain is always there to retry it: no
 * device waits for another device's disk, or for nothing.
 *
 * The counts are the caller's, under the caller's lock; this file only
 * decides and counts.
 */
#ifndef XFAB_DRAIN_H
#define XFAB_DRAIN_H

#include "xfab_types.h"

/* One device's ring sets. */
struct xfab_drain_dev {
	u32 draining;		/* let go, the disk still has requests of theirs */
	bool live;		/* one is connected (or being connected) */
};

/* What a connect ran into (a counter per refusal names it). */
enum xfab_drain_why {
	XFAB_DRAIN_OK = 0,
	XFAB_DRAIN_DEV,		/* the device's sets draining: dev_max */
	XFAB_DRAIN_ALL,		/* the backend's extra sets: all_max */
};

/*
 * A new set for d, which has none connected. XFAB_DRAIN_OK: d->live is
 * set and *extra counts it if it is one past d's first; otherwise
 * nothing changed. dev_max 0 is taken as 1: a device may always drain
 * one set while it connects the next.
 */
int xfab_drain_connect(struct xfab_drain_dev *d, u32 *extra, u32 dev_max,
		       u32 all_max);

/*
 * The connected set is let go: into draining (drain) or freed. False if
 * d had none connected (a caller's accounting bug; nothing changed).
 */
bool xfab_drain_release(struct xfab_drain_dev *d, u32 *extra, bool drain);

/*
 * A draining set finished and was freed. False if d had none draining
 * (a caller's accounting bug; nothing changed).
 */
bool xfab_drain_done(struct xfab_drain_dev *d, u32 *extra);

#endif /* XFAB_DRAIN_H */
