// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The polling budget of xfab_poll.h: multiplicative up, halving down. */
#include "xfab_poll.h"

void xfab_poll_init(struct xfab_poll *p, u32 min, u32 max)
{
	p->max = max;
	p->min = min < max ? min : max;
	if (!p->min && max)
		p->min = 1;	/* a budget of 0 would never find work to grow */
	p->budget = max;
	p->polls = 0;
	p->found = 0;
	p->empty = 0;
}

u64 xfab_poll_round_look(struct xfab_poll_round *r,
			 const struct xfab_poll *p, u64 now)
{
	if (!r->until) {
		r->until = now + (p->max ? p->max : 1);
		return r->until;
	}
	if (now >= r->until) {
		r->cut = true;
		return 0;
	}
	return r->until;
}

void xfab_poll_end(struct xfab_poll *p, bool found)
{
	p->polls++;
	if (found) {
		p->found++;
		p->budget = p->budget > p->max / 2 ? p->max : p->budget * 2;
		if (p->budget < p->min)
			p->budget = p->min;
		return;
	}
	p->empty++;
	p->budget /= 2;
	if (p->budget < p->min)
		p->budget = p->min;
}
