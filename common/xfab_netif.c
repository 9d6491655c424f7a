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
	[XFAB_TX_PTR_REFUSED] = "tx_drop_ptr_refused",
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

/* One extra-info record into x; returns its drop reason, or the end. */
static int extra_take(const struct xen_netif_extra_info *e,
		      bool gso_zero_ends, struct xfab_netif_extras *x)
{
	int why = XFAB_EXTRA_OK;

	if (x->nr == XFAB_NETIF_MAX_EXTRAS ||
	    e->type == XEN_NETIF_EXTRA_TYPE_NONE ||
	    e->type >= XFAB_NETIF_EXTRA_TYPES)
		return -XFAB_EXTRA_BAD;
	if (e->type == XEN_NETIF_EXTRA_TYPE_GSO) {
		if (e->u.gso.size == 0 && gso_zero_ends)
			return -XFAB_EXTRA_GSO_ZERO;
		if (e->u.gso.size == 0)
			why = XFAB_EXTRA_GSO_ZERO;
		else if (e->u.gso.type != XEN_NETIF_GSO_TYPE_TCPV4 &&
			 e->u.gso.type != XEN_NETIF_GSO_TYPE_TCPV6)
			why = XFAB_EXTRA_BAD_GSO_TYPE;
	}
	if (x->mask & (1u << e->type)) {
		why = why ?: XFAB_EXTRA_DUP;
	} else {
		x->e[e->type] = *e;
		x->mask |= 1u << e->type;
	}
	x->nr++;
	return why;
}

int xfab_netif_extras(const void *slots, size_t stride, u32 first, u32 avail,
		      bool gso_zero_ends, struct xfab_netif_extras *x,
		      int *drop)
{
	struct xen_netif_extra_info e;
	u32 i = first;
	int why;

	do {
		if (i >= avail)
			return -XFAB_EXTRA_INCOMPLETE;
		/* the record is the head of the slot union, whatever its size */
		memcpy(&e, (const u8 *)slots + (size_t)i * stride, sizeof(e));
		why = extra_take(&e, gso_zero_ends, x);
		if (why < 0)
			return why;
		xfab_note_drop(drop, why);
		i++;
	} while (e.flags & XEN_NETIF_EXTRA_FLAG_MORE);
	return i;
}

/* An extras reason in TX terms (GSO_ZERO ends a TX walk: fatal). */
static int tx_extra_err(int why)
{
	static const u8 tx[] = {
		[XFAB_EXTRA_OK] = XFAB_TX_OK,
		[XFAB_EXTRA_BAD_GSO_TYPE] = XFAB_TX_BAD_GSO_TYPE,
		[XFAB_EXTRA_DUP] = XFAB_TX_DUP_EXTRA,
		[XFAB_EXTRA_GSO_ZERO] = XFAB_TX_GSO_ZERO,
		[XFAB_EXTRA_INCOMPLETE] = XFAB_TX_INCOMPLETE,
		[XFAB_EXTRA_BAD] = XFAB_TX_BAD_EXTRA,
	};

	return tx[why];
}

/*
 * Checks every data slot shares: the page, the length, the grant. A
 * pointer slot names a frame, not a grant: frames 0 to 7 are frames
 * like any other (the window decides which it may read).
 */
static int tx_slot(u32 gref, u32 offset, u32 len, u16 flags, bool allow_ptr,
		   int *drop)
{
	bool ptr = flags & XFAB_NETTXF_PTR;

	if (offset + len > XFAB_PAGE_SIZE)
		return -XFAB_TX_CROSS_PAGE;
	if (len == 0)
		xfab_note_drop(drop, XFAB_TX_ZERO_FRAG);
	if (ptr && !allow_ptr)
		xfab_note_drop(drop, XFAB_TX_PTR_REFUSED);
	if (!ptr && gref < GNTTAB_NR_RESERVED_ENTRIES)
		xfab_note_drop(drop, XFAB_TX_BAD_GREF);
	return 0;
}

/*
 * The data slots after the first, from slot i on. Returns the index after
 * the last one, or a negative fatal reason; *bytes gets their total.
 */
static int tx_frags(const union xfab_tx_slot *slots, u32 avail, u32 i,
		    bool allow_ptr, struct xfab_tx_pkt *pkt, u32 *bytes,
		    int *drop)
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
		err = tx_slot(r.gref, r.offset, r.size, r.flags, allow_ptr, drop);
		if (err)
			return err;
		*bytes += r.size;
		if (r.flags & XFAB_NETTXF_PTR)
			pkt->ptr_mask |= 2u << pkt->nr_frags;
		pkt->frag_slot[pkt->nr_frags++] = i++;
		more = r.flags & XEN_NETTXF_more_data;
	}
	return i;
}

int xfab_tx_check(const union xfab_tx_slot *slots, u32 avail, u32 max_frags,
		  bool allow_ptr, struct xfab_tx_pkt *pkt)
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
		int why = 0;

		next = xfab_netif_extras(slots, sizeof(*slots), 1, avail, true,
					 &pkt->ex, &why);
		if (next < 0)
			return tx_extra_err(-next);
		xfab_note_drop(&drop, tx_extra_err(why));
	}
	next = tx_frags(slots, avail, next, allow_ptr, pkt, &frag_bytes, &drop);
	if (next < 0)
		return -next;
	if (frag_bytes > first.size)
		return XFAB_TX_SIZE_MISMATCH;
	pkt->first_len = first.size - frag_bytes;
	err = tx_slot(first.gref, first.offset, pkt->first_len, first.flags,
		      allow_ptr, &drop);
	if (err)
		return -err;
	if (first.flags & XFAB_NETTXF_PTR)
		pkt->ptr_mask |= 1;

	if (first.size < XFAB_ETH_HLEN)
		xfab_note_drop(&drop, XFAB_TX_RUNT);
	if (pkt->nr_frags > max_frags)
		xfab_note_drop(&drop, XFAB_TX_TOO_MANY_FRAGS);
	pkt->consumed = next;
	return drop;
}
