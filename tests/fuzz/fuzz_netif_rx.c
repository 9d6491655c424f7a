// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: arbitrary bytes as the RX ring slots a hostile backend
 * wrote. Checks the same invariants as the unit test's random walk, but
 * coverage-guided; ASan/UBSan catch any read past the copy.
 */
#include <stdint.h>
#include <stdlib.h>
#include "../../common/xfab_netif_rx.h"

#define RING 256u

static void check_pkt(const union xfab_rx_slot *slots, u32 avail, u32 first,
		      const struct xfab_rx_pkt *pkt, int err)
{
	u32 sum = 0, k;

	if (pkt->consumed < 1 || pkt->consumed > avail ||
	    pkt->consumed != pkt->nr_data + pkt->ex.nr +
			     __builtin_popcount(pkt->ref_mask) ||
	    pkt->nr_data > XFAB_RX_MAX_SLOTS || pkt->data_slot[0] != 0 ||
	    (pkt->ref_mask & 1) || (pkt->ref_mask >> pkt->nr_data))
		abort();
	for (k = 0; k < pkt->nr_data; k++) {
		const struct xen_netif_rx_response *r = &slots[pkt->data_slot[k]].rsp;

		if (pkt->data_slot[k] >= pkt->consumed ||
		    r->id != ((first + pkt->data_slot[k]) & (RING - 1)))
			abort();
		/* a reference's frame slot follows it, inside the chain */
		if (((pkt->ref_mask >> k) & 1) &&
		    (pkt->data_slot[k] + 1u >= pkt->consumed ||
		     slots[pkt->data_slot[k] + 1].extra.type !=
		     XFAB_NETIF_EXTRA_TYPE_REF))
			abort();
		if (r->status < 0) {
			if (err == XFAB_RX_OK)
				abort();
			continue;
		}
		if (r->offset + r->status > XFAB_PAGE_SIZE)
			abort();
		sum += r->status;
	}
	if (sum != pkt->len)
		abort();
	if (err == XFAB_RX_OK &&
	    (pkt->len < XFAB_ETH_HLEN || pkt->len > XFAB_RX_MAX_LEN))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union xfab_rx_slot *slots;
	struct xfab_rx_pkt pkt;
	u32 avail, first;
	bool refs;
	int err;

	if (size < 2)
		return 0;
	/*
	 * The first byte picks where the chain sits in the ring and, in its
	 * low bit, whether we asked for references.
	 */
	first = data[0];
	refs = data[0] & 1;
	data++, size--;
	avail = size / sizeof(*slots);
	/* exactly the copied slots: an overread lands in ASan's redzone */
	slots = malloc(avail * sizeof(*slots) + 1);
	memcpy(slots, data, avail * sizeof(*slots));
	err = xfab_rx_check(slots, avail, first, RING, refs, &pkt);
	if (err < 0 || err >= XFAB_RX_NR_ERRS)
		abort();
	if (err == XFAB_RX_INCOMPLETE || xfab_rx_err_fatal(err)) {
		if (pkt.consumed != 0)
			abort();
	} else {
		check_pkt(slots, avail, first, &pkt, err);
	}
	free(slots);
	return 0;
}
