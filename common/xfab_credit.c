// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Transmit rate limit: see xfab_credit.h.
 */
#include "xfab_credit.h"

/* One decimal field, ending at stop; false on empty, junk or overflow. */
static bool parse_u64(const char **p, char stop, u64 *out)
{
	const char *s = *p;
	u64 v = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		u64 d = (u64)(*s - '0');

		if (v > (~0ull - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (*s != stop)
		return false;
	*p = s + 1;
	*out = v;
	return true;
}

int xfab_credit_parse(const char *s, u64 *bytes, u64 *usec, const char **why)
{
	if (!parse_u64(&s, ',', bytes) || !parse_u64(&s, '\0', usec)) {
		*why = "not <bytes>,<usec> in decimal";
		return -EINVAL;
	}
	if (!*bytes) {
		*why = "zero bytes per period would stop all traffic";
		return -EINVAL;
	}
	if (!*usec || *usec > 0xffffffffull) {
		*why = "period outside 1..4294967295 usec";
		return -EINVAL;
	}
	return 0;
}

void xfab_credit_init(struct xfab_credit *c, u64 bytes, u64 usec, u64 now)
{
	c->bytes = bytes;
	c->period_ns = usec * 1000;
	c->cap = bytes > XFAB_CREDIT_MIN_CAP ? bytes : XFAB_CREDIT_MIN_CAP;
	c->left = bytes < c->cap ? bytes : c->cap;
	c->next_ns = now + c->period_ns;
}

/* Add the credit of every boundary passed by now; move to the next one. */
static void credit_refill(struct xfab_credit *c, u64 now)
{
	u64 periods = (now - c->next_ns) / c->period_ns + 1;

	/* More periods than it takes to fill the bucket: it is full. */
	if (periods > c->cap / c->bytes ||
	    periods * c->bytes > c->cap - c->left)
		c->left = c->cap;
	else
		c->left += periods * c->bytes;
	c->next_ns += periods * c->period_ns;
}

u64 xfab_credit_take(struct xfab_credit *c, u64 len, u64 now)
{
	if (!c->bytes)
		return 0;
	if (len > c->cap)
		len = c->cap;
	if (len > c->left && now >= c->next_ns)
		credit_refill(c, now);
	if (len <= c->left) {
		c->left -= len;
		return 0;
	}
	return c->next_ns - now;
}
