// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Frontend RX chain validation; see xfab_netif_rx.h. As on TX, the whole
 * chain is walked even after a drop reason is found: a later slot may
 * still show that the ring is corrupt (fatal wins over drop), and a
 * dropped chain's slots must all be consumed so their pages come back.
 */
#include "xfab_netif_rx.h"

static const char *const rx_err_names[XFAB_RX_NR_ERRS] = {
	[XFAB_RX_BACKEND_ERR] = "rx_drop_backend_err",
	[XFAB_RX_RUNT] = "rx_drop_runt",
	[XFAB_RX_ZERO_FRAG] = "rx_drop_zero_frag",
	[XFAB_RX_TOO_BIG] = "rx_drop_too_big",
	[XFAB_RX_BAD_GSO_TYPE] = "rx_drop_bad_gso_type",
	[XFAB_RX_GSO_ZERO] = "rx_drop_gso_zero",
	[XFAB_RX_DUP_EXTRA] = "rx_drop_dup_extra",
	[XFAB_RX_INCOMPLETE] = "rx_wait_incomplete",
	[XFAB_RX_BAD_ID] = "rx_fatal_bad_id",
	[XFAB_RX_CROSS_PAGE] = "rx_fatal_cross_page",
	[XFAB_RX_SLOT_FLOOD] = "rx_fatal_slot_flood",
	[XFAB_RX_BAD_EXTRA] = "rx_fatal_bad_extra",
	[XFAB_RX_BAD_REF] = "rx_fatal_bad_ref",
};

const char *xfab_rx_err_name(int err)
{
	if (err <= XFAB_RX_OK || err >= XFAB_RX_NR_ERRS)
		return NULL;
	return rx_err_names[err];
}

/* An extras reason in RX terms (a zero GSO size only drops the packet). */
static int rx_extra_err(int why)
{
	static const u8 rx[] = {
		[XFAB_EXTRA_OK] = XFAB_RX_OK,
		[XFAB_EXTRA_BAD_GSO_TYPE] = XFAB_RX_BAD_GSO_TYPE,
		[XFAB_EXTRA_DUP] = XFAB_RX_DUP_EXTRA,
		[XFAB_EXTRA_GSO_ZERO] = XFAB_RX_GSO_ZERO,
		[XFAB_EXTRA_INCOMPLETE] = XFAB_RX_INCOMPLETE,
		[XFAB_EXTRA_BAD] = XFAB_RX_BAD_EXTRA,
	};

	return rx[why];
}

/*
 * One data slot at chain position i (ring index first_idx + i). Returns 0
 * or a negative fatal reason; adds its bytes to pkt->len.
 */
static int rx_data(const struct xen_netif_rx_response *r, u32 i,
		   u32 first_idx, u32 ring_size, struct xfab_rx_pkt *pkt,
		   int *drop)
{
	if (r->id != ((first_idx + i) & (ring_size - 1)))
		return -XFAB_RX_BAD_ID;
	pkt->data_slot[pkt->nr_data++] = i;
	if (r->status < 0) {
		xfab_note_drop(drop, XFAB_RX_BACKEND_ERR);
		return 0;
	}
	if ((u32)r->offset + (u32)r->status > XFAB_PAGE_SIZE)
		return -XFAB_RX_CROSS_PAGE;
	if (r->status == 0 && pkt->nr_data > 1)
		xfab_note_drop(drop, XFAB_RX_ZERO_FRAG);
	pkt->len += r->status;
	return 0;
}

/*
 * The frame slot after reference data slot k, at chain position i. Only
 * after the first slot: the first carries the headers we parse, in our
 * own page. Returns 0 or a negative reason.
 */
static int rx_ref(const union xfab_rx_slot *slots, u32 avail, u32 i,
		  bool refs, struct xfab_rx_pkt *pkt)
{
	struct xen_netif_extra_info e;
	u32 k = pkt->nr_data - 1;

	if (!refs || k == 0)
		return -XFAB_RX_BAD_REF;
	if (i >= avail)
		return -XFAB_RX_INCOMPLETE;
	e = slots[i].extra;
	if (e.type != XFAB_NETIF_EXTRA_TYPE_REF || e.flags)
		return -XFAB_RX_BAD_REF;
	pkt->ref_mask |= 1u << k;
	pkt->ref_peer[k] = e.u.pad[0];
	pkt->ref_frame[k] = e.u.pad[1] | (u32)e.u.pad[2] << 16;
	return 0;
}

/* Every data slot from the first; returns the index after the chain. */
static int rx_walk(const union xfab_rx_slot *slots, u32 avail, u32 first_idx,
		   u32 ring_size, bool refs, struct xfab_rx_pkt *pkt, int *drop)
{
	struct xen_netif_rx_response r = slots[0].rsp;
	u32 i = 0;
	int err;

	for (;;) {
		err = rx_data(&r, i, first_idx, ring_size, pkt, drop);
		if (err)
			return err;
		if (i == 0 && (r.flags & XEN_NETRXF_extra_info)) {
			int why = 0;

			err = xfab_netif_extras(slots, sizeof(*slots), 1, avail,
						false, &pkt->ex, &why);
			if (err < 0)
				return -rx_extra_err(-err);
			xfab_note_drop(drop, rx_extra_err(why));
			i = err - 1;
		}
		if (r.flags & XFAB_NETRXF_REF) {
			err = rx_ref(slots, avail, ++i, refs, pkt);
			if (err)
				return err;
		}
		if (!(r.flags & XEN_NETRXF_more_data))
			return i + 1;
		/* a full chain that goes on can never become valid */
		if (pkt->nr_data == XFAB_RX_MAX_SLOTS)
			return -XFAB_RX_SLOT_FLOOD;
		if (++i >= avail)
			return -XFAB_RX_INCOMPLETE;
		r = slots[i].rsp;
	}
}

int xfab_rx_check(const union xfab_rx_slot *slots, u32 avail, u32 first_idx,
		  u32 ring_size, bool refs, struct xfab_rx_pkt *pkt)
{
	int next, drop = 0;

	memset(pkt, 0, sizeof(*pkt));
	if (avail == 0)
		return XFAB_RX_INCOMPLETE;
	/* ids are slot numbers: without a sane ring size none can match */
	if (ring_size == 0 || (ring_size & (ring_size - 1)) != 0)
		return XFAB_RX_BAD_ID;
	pkt->flags = slots[0].rsp.flags;
	next = rx_walk(slots, avail, first_idx, ring_size, refs, pkt, &drop);
	if (next < 0) {
		pkt->consumed = 0;
		return -next;
	}
	if (pkt->len > XFAB_RX_MAX_LEN)
		xfab_note_drop(&drop, XFAB_RX_TOO_BIG);
	if (pkt->len < XFAB_ETH_HLEN)
		xfab_note_drop(&drop, XFAB_RX_RUNT);
	pkt->consumed = next;
	return drop;
}
