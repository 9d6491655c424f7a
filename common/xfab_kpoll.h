/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel only (like xfab_kring.h): the spin of in-ring polling, shared
 * by the backends. xfab_poll.h decides how long a look may last; this
 * does the looking. A look ends when the caller's check finds work,
 * when it asks to stop, when the budget runs out, or when the CPU is
 * wanted elsewhere: where the poller shares CPUs with its peer, the peer
 * may be waiting for exactly this one to produce what we wait for.
 */
#ifndef XFAB_KPOLL_H
#define XFAB_KPOLL_H

#include <linux/sched.h>
#include <linux/sched/clock.h>
#include "xfab_poll.h"

/* What one check of the ring found. */
enum xfab_look {
	XFAB_LOOK_NONE,		/* nothing yet: keep looking */
	XFAB_LOOK_WORK,		/* work came: the look found it */
	XFAB_LOOK_STOP,		/* give up now, as if nothing came */
};

/*
 * Look with check(arg) for up to p's budget, and not past @until (a
 * local_clock() time; the caller saw the budget is not 0, and counts
 * the look), and account the look in p: the next budget grows or
 * shrinks. True if work came.
 */
static inline bool xfab_poll_spin_until(struct xfab_poll *p,
					enum xfab_look (*check)(void *arg),
					void *arg, u64 until)
{
	enum xfab_look seen = XFAB_LOOK_NONE;
	u64 end = min(local_clock() + xfab_poll_budget(p), until);

	do {
		seen = check(arg);
		if (seen != XFAB_LOOK_NONE)
			break;
		cpu_relax();
	} while (local_clock() < end && !need_resched());
	xfab_poll_end(p, seen == XFAB_LOOK_WORK);
	return seen == XFAB_LOOK_WORK;
}

/* xfab_poll_spin_until() with no bound but the budget. */
static inline bool xfab_poll_spin(struct xfab_poll *p,
				  enum xfab_look (*check)(void *arg), void *arg)
{
	return xfab_poll_spin_until(p, check, arg, U64_MAX);
}

#endif /* XFAB_KPOLL_H */
