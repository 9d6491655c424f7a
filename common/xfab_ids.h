/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Request ids a frontend hands out and the peer echoes in its responses.
 * A response may only name an id that is in flight: one out of range, or
 * one already answered (a duplicate or forged response), means the peer
 * is broken or hostile and must never be used to index our state.
 *
 * The caller provides the storage (so this works in kernel and userspace
 * alike) and serialises access (one lock or one context per ring).
 */
#ifndef XFAB_IDS_H
#define XFAB_IDS_H

#include "xfab_types.h"

#define XFAB_IDS_END 0xffffu	/* end of the free list */

struct xfab_ids {
	u32 nr;			/* ids 0 .. nr-1 */
	u32 in_flight;
	u16 free_head;
	u16 *link;		/* nr entries: next free id */
	u8 *busy;		/* nr entries: 1 while in flight */
};

/* nr must be 1 .. 0xffff; link and busy hold nr entries each. */
int xfab_ids_init(struct xfab_ids *ids, u32 nr, u16 *link, u8 *busy);

/* A free id, or -ENOSPC when all are in flight. */
int xfab_ids_get(struct xfab_ids *ids);

/*
 * The peer answered 'id' (as it wrote it: any 32-bit value). Returns 0
 * and frees it, -ERANGE if it is not an id we could have issued, or
 * -EALREADY if it is not in flight.
 */
int xfab_ids_put(struct xfab_ids *ids, u32 id);

static inline bool xfab_ids_busy(const struct xfab_ids *ids, u32 id)
{
	return id < ids->nr && ids->busy[id];
}

#endif /* XFAB_IDS_H */
