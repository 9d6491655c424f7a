/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * How old is a thing that was stamped with a free-running clock, and has
 * it waited longer than a limit? Used by xfab_netback to age the packets
 * it queues for a guest (rx_drain_ms): a guest that posts a few buffers
 * now and then keeps its queue moving, so only the age of each packet
 * bounds how long dom0 holds what was sent to it.
 *
 * The clock is any counter of ticks (jiffies in the kernel) cut to 32
 * bits: a stamp costs 4 bytes of skb->cb, and every age that matters is
 * far below 2^32 ticks (198 days at 250 Hz). Ages are taken modulo 2^32,
 * so the counter's wrap changes nothing. A stamp that reads as later
 * than now (it cannot happen with one monotonic clock) gives an age near
 * 2^32: such a thing counts as old and goes, rather than staying forever.
 */
#ifndef XFAB_AGE_H
#define XFAB_AGE_H

#include "xfab_types.h"

/* Ticks since stamp, at time now. */
static inline u32 xfab_age(u32 now, u32 stamp)
{
	return now - stamp;
}

/* Has a thing stamped at stamp waited longer than limit ticks? */
static inline bool xfab_age_over(u32 now, u32 stamp, u32 limit)
{
	return xfab_age(now, stamp) > limit;
}

/*
 * Ticks from now until xfab_age_over() turns true for it (it is true
 * once the age exceeds limit, i.e. limit + 1 ticks after the stamp);
 * 0 if it already is. limit must be below 2^32 - 1.
 */
static inline u32 xfab_age_left(u32 now, u32 stamp, u32 limit)
{
	u32 age = xfab_age(now, stamp);

	return age > limit ? 0 : limit - age + 1;
}

#endif /* XFAB_AGE_H */
