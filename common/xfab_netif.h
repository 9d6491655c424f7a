/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Validation of netif ring traffic written by the peer. The caller copies
 * the slots out of the shared ring first (each exactly once), then hands
 * the copies here; nothing in this file touches shared memory.
 *
 * Verdicts are graded, as docs/design.md asks: a packet merely bad is
 * dropped and counted (the ring stays usable); a chain that breaks the
 * protocol itself (runs past the producer, more slots than any frontend
 * may use, an unknown extra type) means the ring cannot be trusted and the
 * caller disables the vif.
 */
#ifndef XFAB_NETIF_H
#define XFAB_NETIF_H

#include "xfab_types.h"
#ifdef __KERNEL__
#include <xen/interface/grant_table.h>
#include <xen/interface/io/netif.h>
#else
/*
 * Userspace (tests, fuzzers): Xen's public headers describe the same wire
 * ABI, without the xen_/XEN_ prefixes the kernel's copy adds. common/ is
 * written in the kernel's names; these map the ones it uses.
 */
#include <xen/grant_table.h>
#include <xen/io/netif.h>
#define xen_netif_tx_request netif_tx_request
#define xen_netif_extra_info netif_extra_info
#define XEN_NETTXF_csum_blank NETTXF_csum_blank
#define XEN_NETTXF_data_validated NETTXF_data_validated
#define XEN_NETTXF_more_data NETTXF_more_data
#define XEN_NETTXF_extra_info NETTXF_extra_info
#ifndef XEN_NETIF_EXTRA_TYPE_XDP
#define XEN_NETIF_EXTRA_TYPE_XDP 5	/* newer than Xen 4.17's header */
#endif
#endif

/*
 * Extra-info types a TX chain may carry: every type Linux's netif.h knows
 * (XDP included, as Linux's netback accepts it), whatever header we are
 * built with, so that kernel and tests agree.
 */
#define XFAB_NETIF_EXTRA_TYPES (XEN_NETIF_EXTRA_TYPE_XDP + 1)

#define XFAB_ETH_HLEN 14
#define XFAB_NETIF_MAX_EXTRAS (XFAB_NETIF_EXTRA_TYPES - 1)

/*
 * Keep the first drop reason of a packet only (0 is none): it names what
 * the peer did first. Shared by the TX and RX walks and the extras.
 */
static inline void xfab_note_drop(int *drop, int why)
{
	if (!*drop)
		*drop = why;
}

/* The extra-info records of one chain, by type. */
struct xfab_netif_extras {
	u16 nr;			/* records the chain carried */
	u8 mask;		/* bit T set: e[T] holds the record of type T */
	struct xen_netif_extra_info e[XFAB_NETIF_EXTRA_TYPES];
};

/*
 * What reading a chain's extras found. The drops leave the ring usable;
 * XFAB_EXTRA_GSO_ZERO is a drop or the end of the walk, as the caller
 * asks; the rest end the walk.
 */
enum xfab_extra_err {
	XFAB_EXTRA_OK = 0,
	XFAB_EXTRA_BAD_GSO_TYPE,	/* GSO record of a type not offered */
	XFAB_EXTRA_DUP,			/* the same type twice */
	XFAB_EXTRA_GSO_ZERO,		/* GSO record with size 0 */
	XFAB_EXTRA_INCOMPLETE,		/* runs past the copied slots */
	XFAB_EXTRA_BAD,			/* unknown type, or too many records */
};

/*
 * Read the records from slot 'first' of a chain copied into 'avail' slots
 * of 'stride' bytes each (a TX or an RX slot union), into x. Returns the
 * index of the slot after them, or the negative reason that ended the
 * walk; the first drop reason met goes to *drop (left alone if none).
 */
int xfab_netif_extras(const void *slots, size_t stride, u32 first, u32 avail,
		      bool gso_zero_ends, struct xfab_netif_extras *x,
		      int *drop);

/* The chain's GSO record, or NULL if it carried none. */
static inline const struct xen_netif_extra_info *
xfab_netif_gso(const struct xfab_netif_extras *x)
{
	if (!(x->mask & (1u << XEN_NETIF_EXTRA_TYPE_GSO)))
		return NULL;
	return &x->e[XEN_NETIF_EXTRA_TYPE_GSO];
}

/* Data slots a packet may use at most: past this the ring is corrupt. */
#define XFAB_TX_FATAL_SLOTS XEN_NETIF_NR_SLOTS_MIN
/* Ring slots one packet can span: its data slots plus its extras. */
#define XFAB_TX_MAX_CHAIN (XFAB_TX_FATAL_SLOTS + XFAB_NETIF_MAX_EXTRAS)

/* One TX ring slot as copied out: a request or an extra-info record. */
union xfab_tx_slot {
	struct xen_netif_tx_request req;
	struct xen_netif_extra_info extra;
};

/*
 * Reasons, in ethtool -S order. The ones up to XFAB_TX_LAST_DROP drop the
 * packet; the rest are fatal (disable the vif).
 */
enum xfab_tx_err {
	XFAB_TX_OK = 0,
	XFAB_TX_RUNT,		/* shorter than an Ethernet header */
	XFAB_TX_ZERO_FRAG,	/* a data slot of length 0 (XSA-448 class) */
	XFAB_TX_BAD_GREF,	/* a reserved grant ref: never a packet page */
	XFAB_TX_TOO_MANY_FRAGS,	/* more data slots than we take, fewer than fatal */
	XFAB_TX_BAD_GSO_TYPE,	/* GSO extra with a type we do not offload */
	XFAB_TX_DUP_EXTRA,	/* the same extra type twice */
	XFAB_TX_PTR_REFUSED,	/* a pointer slot on a vif not in pointer mode */
	XFAB_TX_LAST_DROP = XFAB_TX_PTR_REFUSED,
	XFAB_TX_INCOMPLETE,	/* chain continues past the producer index */
	XFAB_TX_SLOT_FLOOD,	/* more slots than XEN_NETIF_NR_SLOTS_MIN */
	XFAB_TX_CROSS_PAGE,	/* offset + length past the granted page */
	XFAB_TX_SIZE_MISMATCH,	/* fragments add up to more than the packet */
	XFAB_TX_BAD_EXTRA,	/* unknown extra type, or too many extras */
	XFAB_TX_GSO_ZERO,	/* GSO extra with size 0 */
	XFAB_TX_NR_ERRS
};

static inline bool xfab_tx_err_fatal(int err)
{
	return err > XFAB_TX_LAST_DROP;
}

/* Short names for counters (ethtool -S) and logs; NULL for XFAB_TX_OK. */
const char *xfab_tx_err_name(int err);

/*
 * Pointer mode (docs/pointer-mode.md): a TX slot with this flag names a
 * machine frame of the sender in its gref field instead of a grant. The
 * netif flags use bits 0-3; a stock frontend never sets bit 15.
 */
#define XFAB_NETTXF_PTR (1u << 15)

/* A validated packet: what the datapath may rely on without re-checking. */
struct xfab_tx_pkt {
	u16 consumed;		/* ring slots the packet took, extras included */
	u16 nr_frags;		/* data slots after the first */
	u16 flags;		/* XEN_NETTXF_* of the first slot */
	u32 len;		/* whole packet */
	u16 first_len;		/* bytes in the first slot */
	u32 ptr_mask;		/* pointer slots: bit 0 the first, bit i + 1 frag i */
	struct xfab_netif_extras ex;
	/* index into the slot array of each data slot after the first */
	u8 frag_slot[XFAB_TX_FATAL_SLOTS];
};

/*
 * Check the packet starting at slots[0]; 'avail' slots were copied (at
 * most what the producer index allows), 'max_frags' is how many data slots
 * after the first this backend accepts (<= XFAB_TX_FATAL_SLOTS - 1), and
 * 'allow_ptr' whether this vif negotiated pointer slots (if not, one
 * drops its packet). Returns XFAB_TX_OK or a reason. On OK and on a
 * drop, pkt->consumed says how many slots to consume (and answer); on a
 * fatal reason it is 0.
 */
int xfab_tx_check(const union xfab_tx_slot *slots, u32 avail, u32 max_frags,
		  bool allow_ptr, struct xfab_tx_pkt *pkt);

#endif /* XFAB_NETIF_H */
