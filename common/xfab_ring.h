/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Index accounting for Xen shared rings (netif, blkif), written so that a
 * hostile peer's producer index can never make us consume slots that do not
 * hold a request for us (XSA-39 class), and so that the same arithmetic
 * runs in the kernel and in the userspace tests.
 *
 * A Xen ring has 'size' slots (a power of two). Both producer and consumer
 * indices are free-running u32 that wrap; the slot is idx & (size - 1).
 * Each side keeps private copies of its own indices and copies the peer's
 * index out of the shared page once per check.
 */
#ifndef XFAB_RING_H
#define XFAB_RING_H

#include "xfab_types.h"

/* Biggest ring we accept: 2^XFAB_RING_MAX_ORDER pages of 4 KiB. */
#define XFAB_RING_MAX_ORDER 4

/*
 * Backend side: new requests the peer claims to have produced.
 *   req_prod      copied once from the shared page (peer-written)
 *   req_cons      our consumer index
 *   rsp_prod_pvt  responses we have produced so far
 * Requests consumed but not answered still own their slots, so the peer
 * can have produced at most size - (req_cons - rsp_prod_pvt) new ones.
 * Returns 0 and sets *pending, or -EOVERFLOW if the peer's index is
 * impossible (the caller disables the device: the ring is corrupt).
 */
int xfab_ring_reqs_pending(u32 size, xfab_idx_t req_prod, xfab_idx_t req_cons,
			   xfab_idx_t rsp_prod_pvt, u32 *pending);

/*
 * Frontend side: new responses the peer claims to have produced.
 *   rsp_prod      copied once from the shared page (peer-written)
 *   rsp_cons      our consumer index
 *   req_prod_pvt  requests we have produced so far
 * The peer can only answer requests we made and it has not yet answered.
 */
int xfab_ring_rsps_pending(u32 size, xfab_idx_t rsp_prod, xfab_idx_t rsp_cons,
			   xfab_idx_t req_prod_pvt, u32 *pending);

/* Free request slots a frontend may still fill. */
static inline u32 xfab_ring_free_reqs(u32 size, xfab_idx_t req_prod_pvt,
				      xfab_idx_t rsp_cons)
{
	u32 used = req_prod_pvt - rsp_cons;

	return used >= size ? 0 : size - used;
}

/*
 * After moving a producer index from old to new: must the peer be kicked?
 * It must iff its event index (the index it asked to be woken at, copied
 * once) lies in (old, new]. Wrap-safe because it compares distances.
 */
static inline bool xfab_ring_need_kick(xfab_idx_t old, xfab_idx_t new,
				       xfab_idx_t event)
{
	return (u32)(new - event) < (u32)(new - old);
}

#endif /* XFAB_RING_H */
