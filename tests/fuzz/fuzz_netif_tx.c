// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: arbitrary bytes as the TX ring slots a hostile
 * frontend wrote. Checks the same invariants as the unit test's random
 * walk, but coverage-guided; ASan/UBSan catch any read past the copy.
 */
#include <stdint.h>
#include <stdlib.h>
#include "../../common/xfab_netif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union xfab_tx_slot *slots;
	struct xfab_tx_pkt pkt;
	u32 avail, max_frags, sum, k;
	bool allow_ptr;
	int err;

	if (size < 2)
		return 0;
	max_frags = data[0] % XFAB_TX_FATAL_SLOTS;
	allow_ptr = data[0] & 0x80;
	data++, size--;
	avail = size / sizeof(*slots);
	/* exactly the copied slots: an overread lands in ASan's redzone */
	slots = malloc(avail * sizeof(*slots) + 1);
	memcpy(slots, data, avail * sizeof(*slots));
	err = xfab_tx_check(slots, avail, max_frags, allow_ptr, &pkt);
	if (err < 0 || err >= XFAB_TX_NR_ERRS)
		abort();
	if (!xfab_tx_err_fatal(err)) {
		if (pkt.consumed < 1 || pkt.consumed > avail ||
		    pkt.consumed != 1 + pkt.ex.nr + pkt.nr_frags)
			abort();
		sum = pkt.first_len;
		for (k = 0; k < pkt.nr_frags; k++) {
			const struct xen_netif_tx_request *r = &slots[pkt.frag_slot[k]].req;

			if (r->offset + r->size > XFAB_PAGE_SIZE)
				abort();
			sum += r->size;
		}
		if (sum != pkt.len ||
		    slots[0].req.offset + pkt.first_len > XFAB_PAGE_SIZE)
			abort();
		if (err == XFAB_TX_OK && (pkt.len < XFAB_ETH_HLEN || pkt.nr_frags > max_frags))
			abort();
		/* pointer slots pass only where allowed; the mask names slots */
		if ((err == XFAB_TX_OK && !allow_ptr && pkt.ptr_mask) ||
		    pkt.ptr_mask >> (1 + pkt.nr_frags))
			abort();
	} else if (pkt.consumed != 0) {
		abort();
	}
	free(slots);
	return 0;
}
