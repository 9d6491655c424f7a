/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Transmit rate limit, as xl's vif "rate=" asks for it: the toolstack
 * writes "<bytes>,<usec>" to the backend's "rate" key, meaning at most
 * <bytes> every <usec> microseconds. A bucket of credit refills by
 * <bytes> at each period boundary. Unused credit carries over up to a
 * cap, and the cap is never below one maximum-size packet, so that a
 * 64 KiB GSO packet on a slow limit waits for enough credit instead of
 * waiting forever.
 *
 * Pure arithmetic on a caller-supplied clock (nanoseconds), so that the
 * tests can drive time.
 */
#ifndef XFAB_CREDIT_H
#define XFAB_CREDIT_H

#include "xfab_types.h"

/* The smallest cap: the largest packet the netif protocol carries. */
#define XFAB_CREDIT_MIN_CAP 65536u

struct xfab_credit {
	u64 bytes;	/* per period; 0: no limit */
	u64 period_ns;
	u64 cap;	/* most credit the bucket holds */
	u64 left;	/* credit now */
	u64 next_ns;	/* the next period boundary */
};

/*
 * Parse the "rate" key: "<bytes>,<usec>", both decimal, bytes >= 1,
 * 1 <= usec <= 2^32 - 1. Returns 0, or -EINVAL with *why naming the
 * problem (for the log).
 */
int xfab_credit_parse(const char *s, u64 *bytes, u64 *usec, const char **why);

/* Start a limit at time now with a full period's credit; bytes 0: none. */
void xfab_credit_init(struct xfab_credit *c, u64 bytes, u64 usec, u64 now);

/*
 * May a packet of len bytes go at time now? 0: yes, and it was charged.
 * Otherwise the nanoseconds until asking again can succeed; nothing was
 * charged. A len above the cap is charged as the cap.
 */
u64 xfab_credit_take(struct xfab_credit *c, u64 len, u64 now);

#endif /* XFAB_CREDIT_H */
