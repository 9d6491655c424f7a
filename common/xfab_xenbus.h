/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The xenbus handshake as pure decisions, tested in userspace. Backend
 * half (xfab_netback, xfab_blkback): what a frontend's state asks of the
 * backend, and the one legal step from where the backend is toward that.
 * Frontend half (xfab_netfront, xfab_blkfront): what a backend's state
 * asks of the frontend. The drivers do the work each decision names
 * (connect the rings, tear them down) and publish the state.
 *
 *   backend:  InitWait --connect ok--> Connected --> Closing --> Closed
 *             --> InitWait
 *   frontend: Initialising --connect ok--> ready (netif: Connected; blkif:
 *             Initialised, then Connected) --> Closed --> Initialising
 *             while the device stays online
 */
#ifndef XFAB_XENBUS_H
#define XFAB_XENBUS_H

#include "xfab_types.h"

/* The wire's state numbers (enum xenbus_state). */
enum {
	XFAB_XS_UNKNOWN = 0,
	XFAB_XS_INITIALISING = 1,
	XFAB_XS_INITWAIT = 2,
	XFAB_XS_INITIALISED = 3,
	XFAB_XS_CONNECTED = 4,
	XFAB_XS_CLOSING = 5,
	XFAB_XS_CLOSED = 6,
};

/* What the driver does before it publishes a step's state. */
enum xfab_be_work {
	XFAB_BE_PUBLISH,	/* nothing: just publish */
	XFAB_BE_CONNECT,	/* map the rings; publish only if that worked */
	XFAB_BE_DISCONNECT,	/* tear the rings down, then publish */
};

/*
 * The state a frontend in state fe asks its backend to head for, or -1
 * for a state a frontend may not be in. ready is the frontend state in
 * which its rings are published (netif: Connected, blkif: Initialised).
 * *gone is set when the device is to be unregistered after (a frontend
 * Closed while the toolstack took the device offline, or Unknown).
 */
int xfab_be_target(int fe, int ready, bool online, bool *gone);

/*
 * The next state on the way from cur to target, with *work what to do
 * before publishing it; returns cur when there is no step to take (at
 * target, or target is not reachable from cur by the backend alone).
 */
int xfab_be_step(int cur, int target, enum xfab_be_work *work);

/* What a frontend does about its backend's new state, before publishing. */
enum xfab_fe_work {
	XFAB_FE_NOTHING,
	XFAB_FE_CONNECT,	/* rings, channels, keys; publish if that worked */
	XFAB_FE_GO_LIVE,	/* the backend took our keys: start I/O */
	XFAB_FE_REFRESH,	/* Connected again while we are: carrier, size */
	XFAB_FE_HOLD,		/* backend going, device stays: stop I/O only */
	XFAB_FE_DETACH,		/* backend going, device taken away: tear down */
};

/*
 * The frontend half, one rule for xfab_netfront and xfab_blkfront: what
 * a frontend in state cur does when its backend shows be, and the state
 * to publish after that work (cur when there is none). ready is as for
 * xfab_be_target(). online is the toolstack's "online" key in the
 * backend's directory: while it is 1, only the backend is going (its
 * driver reloaded, its domain restarted) and the device stays, to be
 * reconnected from Initialising; 0 or absent means a detach. *close asks
 * for Closed to be published after the work and before the state
 * returned. Anything a backend may write, including nonsense, is an
 * input here: unknown states ask for nothing.
 */
int xfab_fe_step(int be, int cur, int ready, bool online,
		 enum xfab_fe_work *work, bool *close);

/*
 * A source of the frontend's unsigned keys: 1 and *val when key holds a
 * decimal number, 0 when it is absent, negative when it holds anything
 * else or cannot be read. The kernel reads xenstore; the tests script it.
 */
struct xfab_kv {
	int (*read_u32)(void *ctx, const char *key, u32 *val);
	void *ctx;
};

/*
 * The grant refs of one ring: ring-page-order from root, read once (a
 * frontend may change it while we read: the order decides which keys
 * are read, and is never looked at again), then "ring-ref" (no order
 * key) or "ring-ref0".."ring-ref<2^order - 1>" from dir (the device's
 * directory, or its queue-N). refs has room for 2^XFAB_RING_MAX_ORDER
 * and is zeroed first, whatever happens. Returns 0 with *nr refs, or
 * -EINVAL with *why naming what was wrong (for xenbus_dev_fatal).
 */
int xfab_ring_refs_read(const struct xfab_kv *root, const struct xfab_kv *dir,
			u32 max_order, u32 *refs, u32 *nr, const char **why);

#endif /* XFAB_XENBUS_H */
