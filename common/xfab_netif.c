// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Guest TX packet validation; see xfab_netif.h. The whole chain is walked
 * even after a drop reason is found, because a later slot may still show
 * that the ring is corrupt (fatal wins over drop), and because a dropped
 * packet's slots must still be consumed and answered.
 */
#include "xfab_netif.h"

static const char *const tx_err_names[XFAB_TX_NR_ERRS] = {
	[XFAB_TX_RUNT] = "tx_drop_runt",
	[XFAB_TX_ZERO_FRAG] = "tx_drop_zero_frag",
	[XFAB_TX_BAD_GREF] = "tx_drop_bad_gref",
	[XFAB_TX_TOO_MANY_FRAGS] = "tx_drop_too_many_frags",
	[XFAB_TX_BAD_GSO_TYPE] = "tx_drop_bad_gso_type",
	[XFAB_TX_DUP_EXTRA] = "tx_drop_dup_extra",
	[XFAB_TX_INCOMPLETE] = "tx_fatal_incomplete",
	[XFAB_TX_SLOT_FLOOD] = "tx_fatal_slot_flood",
	[XFAB_TX_CROSS_PAGE] = "tx_fatal_cross_page",
	[XFAB_TX_SIZE_MISMATCH] = "tx_fatal_size_mismatch",
	[XFAB_TX_BAD_EXTRA] = "tx_fatal_bad_extra",
	[XFAB_TX_GSO_ZERO] = "tx_fatal_gso_zero",
};

const char *xfab_tx_err_name(int err)
{
	if (err <= XFAB_TX_OK || err >= XFAB_TX_NR_ERRS)
		return NULL;
	return tx_err_names[err];
}

/* Remember the first drop reason only: it names what the peer did first. */
static void note_drop(int *drop, int why)
{
	if (!*drop)
		*drop = why;
}

/*
 * The extras after the first slot. Returns the index of the slot after
 * them, or a negative fatal reason.
 */
static int tx_extras(const union xfab_tx_slot *slots, u32 avail,
		     struct xfab_tx_pkt *pkt, int *drop)
{
	u32 i = 1;
	struct xen_netif_extra_info e;

	do {
		if (i >= avail)
			return -XFAB_TX_INCOMPLETE;
		if (pkt->nr_extras == XFAB_TX_MAX_EXTRAS)
			return -XFAB_TX_BAD_EXTRA;
		e = slots[i].extra;
		if (e.type == XEN_NETIF_EXTRA_TYPE_NONE ||
		    e.type >= XFAB_NETIF_EXTRA_TYPES)
			return -XFAB_TX_BAD_EXTRA;
		if (e.type == XEN_NETIF_EXTRA_TYPE_GSO) {
			if (e.u.gso.size == 0)
				return -XFAB_TX_GSO_ZERO;
			if (e.u.gso.type != XEN_NETIF_GSO_TYPE_TCPV4 &&
			    e.u.gso.type != XEN_NETIF_GSO_TYPE_TCPV6)
				note_drop(drop, XFAB_TX_BAD_GSO_TYPE);
		}
		if (pkt->extra_mask & (1u << e.type)) {
			note_drop(drop, XFAB_TX_DUP_EXTRA);
		} else {
			pkt->extra[e.type] = e;
			pkt->extra_mask |= 1u << e.type;
		}
		pkt->nr_extras++;
		i++;
	} while (e.flags & XEN_NETIF_EXTRA_FLAG_MORE);
	return i;
}

/* Checks every data slot shares: the page, the length, the grant. */
static int tx_slot(u32 gref, u32 offset, u32 len, int *drop)
{
	if (offset + len > XFAB_PAGE_SIZE)
		return -XFAB_TX_CROSS_PAGE;
	if (len == 0)
		note_drop(drop, XFAB_TX_ZERO_FRAG);
	if (gref < GNTTAB_NR_RESERVED_ENTRIES)
		note_drop(drop, XFAB_TX_BAD_GREF);
	return 0;
}

/*
 * The data slots after the first, from slot i on. Returns the index after
 * the last one, or a negative fatal reason; *bytes gets their total.
 */
static int tx_frags(const union xfab_tx_slot *slots, u32 avail, u32 i,
		    struct xfab_tx_pkt *pkt, u32 *bytes, int *drop)
{
	bool more = pkt->flags & XEN_NETTXF_more_data;
	struct xen_netif_tx_request r;
	int err;

	*bytes = 0;
	while (more) {
		if (i >= avail)
			return -XFAB_TX_INCOMPLETE;
		if (1 + pkt->nr_frags + 1 > XFAB_TX_FATAL_SLOTS)
			return -XFAB_TX_SLOT_FLOOD;
		r = slots[i].req;
		err = tx_slot(r.gref, r.offset, r.size, drop);
		if (err)
			return err;
		*bytes += r.size;
		pkt->frag_slot[pkt->nr_frags++] = i++;
		more = r.flags & XEN_NETTXF_more_data;
	}
	return i;
}

int xfab_tx_check(const union xfab_tx_slot *slots, u32 avail, u32 max_frags,
		  struct xfab_tx_pkt *pkt)
{
	struct xen_netif_tx_request first;
	int next = 1, drop = 0, err;
	u32 frag_bytes;

	memset(pkt, 0, sizeof(*pkt));
	if (avail == 0)
		return XFAB_TX_INCOMPLETE;
	first = slots[0].req;
	pkt->flags = first.flags;
	pkt->len = first.size;

	if (first.flags & XEN_NETTXF_extra_info) {
		next = tx_extras(slots, avail, pkt, &drop);
		if (next < 0)
			return -next;
	}
	next = tx_frags(slots, avail, next, pkt, &frag_bytes, &drop);
	if (next < 0)
		return -next;
	if (frag_bytes > first.size)
		return XFAB_TX_SIZE_MISMATCH;
	pkt->first_len = first.size - frag_bytes;
	err = tx_slot(first.gref, first.offset, pkt->first_len, &drop);
	if (err)
		return -err;

	if (first.size < XFAB_ETH_HLEN)
		note_drop(&drop, XFAB_TX_RUNT);
	if (pkt->nr_frags > max_frags)
		note_drop(&drop, XFAB_TX_TOO_MANY_FRAGS);
	pkt->consumed = next;
	return drop;
}
