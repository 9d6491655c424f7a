// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Ring index accounting; see xfab_ring.h for the contract. Everything here
 * is plain arithmetic on values the caller already copied out of shared
 * memory, so it needs no locking and no knowledge of the OS.
 */
#include "xfab_ring.h"

/*
 * Both directions are the same check: the peer may have produced at most
 * 'room' entries past our consumer index, where 'room' is what our own
 * private index says it could legally fill.
 */
static int ring_pending(u32 size, xfab_idx_t prod, xfab_idx_t cons, u32 room,
			u32 *pending)
{
	u32 n = prod - cons;

	if (size == 0 || (size & (size - 1)) != 0 || room > size || n > room) {
		*pending = 0;
		return -EOVERFLOW;
	}
	*pending = n;
	return 0;
}

int xfab_ring_reqs_pending(u32 size, xfab_idx_t req_prod, xfab_idx_t req_cons,
			   xfab_idx_t rsp_prod_pvt, u32 *pending)
{
	u32 in_flight = req_cons - rsp_prod_pvt;

	/*
	 * A corrupt private state (more in flight than slots) is ours, but
	 * still must not turn into a huge 'room'.
	 */
	if (in_flight > size) {
		*pending = 0;
		return -EOVERFLOW;
	}
	return ring_pending(size, req_prod, req_cons, size - in_flight, pending);
}

int xfab_ring_rsps_pending(u32 size, xfab_idx_t rsp_prod, xfab_idx_t rsp_cons,
			   xfab_idx_t req_prod_pvt, u32 *pending)
{
	return ring_pending(size, rsp_prod, rsp_cons, req_prod_pvt - rsp_cons,
			    pending);
}
