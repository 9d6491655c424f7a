/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Frontend-side validation of a netif RX response chain written by the
 * backend. As for TX (xfab_netif.h), the caller copies the slots out of the
 * shared ring first, each exactly once, and hands the copies here.
 *
 * A chain is: one data slot (the first), then the extra-info records it
 * announces with XEN_NETRXF_extra_info, then more data slots while the
 * previous data slot has XEN_NETRXF_more_data. Unlike TX, every data
 * slot's status is the byte count of that slot alone (or a negative
 * XEN_NETIF_RSP_* error). Every slot, extras included, answers one of our
 * requests, so every slot's page comes back to us whatever the verdict.
 *
 * Verdicts are graded: a bad packet is dropped and counted (its slots are
 * consumed and its pages recycled); a chain that breaks the ring protocol
 * disables the vif; a chain that is merely not finished yet is waited for.
 */
#ifndef XFAB_NETIF_RX_H
#define XFAB_NETIF_RX_H

#include "xfab_netif.h"
#ifndef __KERNEL__
/* The RX names common/ uses, mapped as xfab_netif.h maps the TX ones. */
#define xen_netif_rx_response netif_rx_response
#define XEN_NETRXF_data_validated NETRXF_data_validated
#define XEN_NETRXF_csum_blank NETRXF_csum_blank
#define XEN_NETRXF_more_data NETRXF_more_data
#define XEN_NETRXF_extra_info NETRXF_extra_info
#define XEN_NETIF_RSP_DROPPED NETIF_RSP_DROPPED
#define XEN_NETIF_RSP_ERROR NETIF_RSP_ERROR
#endif

/*
 * Data slots one packet may take. Linux's netback packs the data into
 * whole pages, so a 64 KiB packet needs 17; the protocol's floor is what
 * every peer must handle, and more than that is a broken backend.
 */
#define XFAB_RX_MAX_SLOTS XEN_NETIF_NR_SLOTS_MIN
/* each data slot but the first may be a reference with its frame slot */
#define XFAB_RX_MAX_CHAIN (2 * XFAB_RX_MAX_SLOTS - 1 + XFAB_NETIF_MAX_EXTRAS)
/* The biggest GSO packet (64 KiB) plus an Ethernet and a VLAN header. */
#define XFAB_RX_MAX_LEN (0x10000u + XFAB_ETH_HLEN + 4)

/*
 * Pointer mode on RX (docs/pointer-mode.md, "Guest -> guest"), only for
 * a frontend that wrote xfab-ptr-rx = 1: a data slot after the first
 * may carry XFAB_NETRXF_REF instead of bytes. Its offset and status say
 * where in the page and how many, as for any slot, but the page is a
 * machine frame of another member of our group, which the next slot
 * names: a record in the extra-info layout, of type
 * XFAB_NETIF_EXTRA_TYPE_REF, holding {peer, frame low, frame high} in
 * u.pad. We read the bytes through our own window over that peer. The
 * netif flags use bits 0-4 and the extra types 1-5: a stock backend
 * sends neither.
 */
#define XFAB_NETRXF_REF (1u << 15)
#define XFAB_NETIF_EXTRA_TYPE_REF 0xf0

static inline void xfab_rx_ref_pack(struct xen_netif_extra_info *e, u16 peer,
				    u32 frame)
{
	memset(e, 0, sizeof(*e));
	e->type = XFAB_NETIF_EXTRA_TYPE_REF;
	e->u.pad[0] = peer;
	e->u.pad[1] = (u16)frame;
	e->u.pad[2] = (u16)(frame >> 16);
}

/* One RX ring slot as copied out: a response or an extra-info record. */
union xfab_rx_slot {
	struct xen_netif_rx_response rsp;
	struct xen_netif_extra_info extra;
};

/*
 * Reasons, in ethtool -S order. Up to XFAB_RX_LAST_DROP: drop the packet;
 * XFAB_RX_INCOMPLETE: stop and wait for more responses (it cannot stall
 * the ring: a chain that fills the ring trips XFAB_RX_SLOT_FLOOD first);
 * after it: fatal (disable the vif).
 */
enum xfab_rx_err {
	XFAB_RX_OK = 0,
	XFAB_RX_BACKEND_ERR,	/* a data slot with status < 0 */
	XFAB_RX_RUNT,		/* shorter than an Ethernet header */
	XFAB_RX_ZERO_FRAG,	/* a data slot after the first of length 0 */
	XFAB_RX_TOO_BIG,	/* more bytes than XFAB_RX_MAX_LEN */
	XFAB_RX_BAD_GSO_TYPE,	/* GSO extra with a type we did not offer */
	XFAB_RX_GSO_ZERO,	/* GSO extra with size 0 */
	XFAB_RX_DUP_EXTRA,	/* the same extra type twice */
	XFAB_RX_LAST_DROP = XFAB_RX_DUP_EXTRA,
	XFAB_RX_INCOMPLETE,	/* chain continues past the producer index */
	XFAB_RX_BAD_ID,		/* id is not the one we posted in that slot */
	XFAB_RX_CROSS_PAGE,	/* offset + length past the 4 KiB page */
	XFAB_RX_SLOT_FLOOD,	/* more data slots than XFAB_RX_MAX_SLOTS */
	XFAB_RX_BAD_EXTRA,	/* unknown extra type, or too many extras */
	XFAB_RX_BAD_REF,	/* a reference we did not ask for, or malformed */
	XFAB_RX_NR_ERRS
};

static inline bool xfab_rx_err_drop(int err)
{
	return err > XFAB_RX_OK && err <= XFAB_RX_LAST_DROP;
}

static inline bool xfab_rx_err_fatal(int err)
{
	return err > XFAB_RX_INCOMPLETE;
}

/* Short names for counters (ethtool -S) and logs; NULL for XFAB_RX_OK. */
const char *xfab_rx_err_name(int err);

/* A validated chain: what the datapath may rely on without re-checking. */
struct xfab_rx_pkt {
	u16 consumed;		/* ring slots the chain took, extras included */
	u16 nr_data;		/* data slots, the first included */
	u16 flags;		/* XEN_NETRXF_* of the first slot */
	u32 len;		/* bytes over all data slots */
	struct xfab_netif_extras ex;
	/* index into the slot array of each data slot (data_slot[0] == 0) */
	u8 data_slot[XFAB_RX_MAX_SLOTS];
	/* bit k: data slot k is a reference to ref_frame[k] of ref_peer[k] */
	u32 ref_mask;
	u16 ref_peer[XFAB_RX_MAX_SLOTS];
	u32 ref_frame[XFAB_RX_MAX_SLOTS];
};

/*
 * Check the chain starting at slots[0]. 'avail' slots were copied (at most
 * what the producer index allows, see xfab_ring_rsps_pending). 'first_idx'
 * is the ring index of slots[0] and 'ring_size' the ring's slot count (a
 * power of two): we post request id == ring slot, so a data response at
 * index i must carry id i & (ring_size - 1). 'refs': we asked for
 * references (xfab-ptr-rx); without it a reference is fatal.
 * Returns XFAB_RX_OK or a reason. On OK and on a drop, pkt->consumed says
 * how many slots to consume; on XFAB_RX_INCOMPLETE and fatal reasons it
 * is 0.
 */
int xfab_rx_check(const union xfab_rx_slot *slots, u32 avail, u32 first_idx,
		  u32 ring_size, bool refs, struct xfab_rx_pkt *pkt);

#endif /* XFAB_NETIF_RX_H */
