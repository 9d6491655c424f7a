/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The adaptive budget of in-ring polling. A consumer that has just
 * emptied its ring keeps looking at it for up to 'budget' (the caller's
 * time unit) before it re-arms its event index and sleeps: while it
 * looks, the producer sees no armed index and does not kick. A look that
 * finds work doubles the budget (up to max); one that finds nothing
 * halves it, down to min, so an idle or overcommitted peer (the poller
 * may be spinning on the CPU the producer needs) costs less each time.
 * max 0 turns polling off.
 */
#ifndef XFAB_POLL_H
#define XFAB_POLL_H

#include "xfab_types.h"

struct xfab_poll {
	u32 budget, min, max;
	u64 polls, found, empty;	/* looks, and how they ended */
};

/* min is clamped to 1 .. max (max 0: off); the first look gets max. */
void xfab_poll_init(struct xfab_poll *p, u32 min, u32 max);

/* How long the next look may last (0: do not poll). */
static inline u32 xfab_poll_budget(const struct xfab_poll *p)
{
	return p->budget;
}

/* A look ended: it found work, or the budget ran out. */
void xfab_poll_end(struct xfab_poll *p, bool found);

/*
 * One consumer round (a NAPI poll) spins for at most one largest budget
 * in all. Each look is bounded, but a producer that posts one request
 * just before each look would end keeps every look finding work, so a
 * round of 64 looks would spin 64 budgets with the CPU held.
 */
struct xfab_poll_round {
	u64 until;	/* the round's spinning ends here (0: no look yet) */
	bool cut;	/* a look was refused: the round reached its bound */
};

/*
 * May a look start at @now (the caller's clock, in budget units)? The
 * time it must end by, or 0: the round has spun its bound (then
 * r->cut is set). The round starts clear ({ 0 }).
 */
u64 xfab_poll_round_look(struct xfab_poll_round *r,
			 const struct xfab_poll *p, u64 now);

#endif /* XFAB_POLL_H */
