/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * LRO in the backend: which TCP segments may be merged into one large
 * packet, and how the merged packet's headers are rewritten
 * (docs/net.md, "LRO"). Guest TX arrives as one packet per TCP segment
 * when the guest does not segment offload; each costs dom0's stack a
 * full traversal. Merging the consecutive segments of one flow before
 * the stack sees them pays that once per merged packet.
 *
 * The merged packet must be one Linux's GRO could have built, because
 * dom0 forwards it and code we did not write cuts it up again: a port
 * without frag_list support makes skb_segment() walk the frag_list one
 * gso_size at a time, and it BUGs on a member whose linear part is
 * longer than that. So, as GRO does: each packet in a merge is one wire
 * segment (a GSO packet carrying more than its gso_size goes up alone);
 * the first one's payload is the flow's mss (the merge's gso_size); each
 * later one carries at most mss and the merge ends after a shorter or
 * pushed one, so every member but the last is exactly one mss and the
 * segment boundaries are the members' boundaries. Each segment also
 * fits the device's MTU: a bridge drops an oversized frame but forwards
 * any GSO packet, whose segments would then be past the MTU.
 *
 * Everything here reads the caller's private copy of the headers: the
 * guest may rewrite its pages while we look, never this copy. A merge is
 * refused unless the segments are provably the next bytes of the same
 * flow with identical headers apart from sequence number, lengths, IP id
 * and checksums, so the merged packet says nothing the segments did not.
 */
#ifndef XFAB_LRO_H
#define XFAB_LRO_H

#include "xfab_types.h"

/* Why a packet was not merged: a counter each (ethtool -S lro_stop_*). */
enum xfab_lro_why {
	XFAB_LRO_OK = 0,
	/*
	 * The packet can start no merge and join none: not TCP over IPv4 or
	 * IPv6 without options, extension headers or fragmenting, or DF
	 * clear (NOT_TCP); lengths that disagree, a bad IPv4 header checksum,
	 * headers past the copied bytes (BAD_HDR); SYN, FIN, RST, URG, ECE,
	 * CWR, AE or no ACK (FLAGS); no payload, a pure ACK (NO_DATA); a
	 * checksum neither partial nor validated (CSUM); a GSO packet with
	 * more than gso_size bytes of payload, i.e. more than one wire
	 * segment (MULTI_SEG); IP length past the device's MTU (MTU).
	 */
	XFAB_LRO_NOT_TCP,
	XFAB_LRO_BAD_HDR,
	XFAB_LRO_FLAGS,
	XFAB_LRO_NO_DATA,
	XFAB_LRO_CSUM,
	XFAB_LRO_MULTI_SEG,
	XFAB_LRO_MTU,
	/*
	 * It cannot join the merge in progress: another flow (FLOW); the
	 * last segment was short or pushed (CLOSED); not the next byte
	 * (SEQ); same flow, another ack, window, options, TOS, TTL or flow
	 * label (HDR); more payload than the flow's mss (MSS); past 64 KiB
	 * or the caller's piece limit (FULL); the caller's own reason, a
	 * packet sent by reference that cannot join the merge's frags (no
	 * room, bytes laid out so they cannot move there, or a merge of the
	 * other kind in progress) (BY_REF).
	 */
	XFAB_LRO_FLOW,
	XFAB_LRO_CLOSED,
	XFAB_LRO_SEQ,
	XFAB_LRO_HDR,
	XFAB_LRO_MSS,
	XFAB_LRO_FULL,
	XFAB_LRO_BY_REF,
	XFAB_LRO_END,		/* the caller's batch ended (never returned) */
	XFAB_LRO_NR_WHY
};

const char *xfab_lro_why_name(int why);

#define XFAB_ETHERTYPE_IPV4 0x0800
#define XFAB_ETHERTYPE_IPV6 0x86dd

/* One packet as the caller hands it over. */
struct xfab_lro_pkt {
	u8 *l3;			/* private copy: the IP header onward */
	u32 l3_avail;		/* bytes readable at l3 */
	u32 l3_len;		/* bytes from l3 to the packet's end */
	u16 ethertype;		/* host order */
	u16 gso_size;		/* 0: not a GSO packet */
	u32 mtu;		/* the device's: IP bytes a segment may have */
	bool csum_ok;		/* checksum partial, or validated by the guest */
};

/*
 * What the parse found (valid only when it returned XFAB_LRO_OK): one
 * wire segment, hdr_len + payload <= the MTU.
 */
struct xfab_lro_seg {
	u8 *l3;
	bool v6;
	u8 ip_len;		/* IP header bytes: where TCP starts */
	u8 hdr_len;		/* IP + TCP header bytes */
	u8 flags;		/* TCP flags */
	u32 seq;
	u32 payload;		/* TCP payload bytes */
};

/* A merge in progress: the first packet's headers and the running sums. */
struct xfab_lro_flow {
	struct xfab_lro_seg head;
	u32 mss;		/* the head's payload: the gso_size */
	u32 next_seq;		/* the byte the next segment must start at */
	u32 l3_len;		/* of the merged packet */
	u32 pieces;		/* packets in it, one wire segment each */
	bool open;		/* no short or pushed segment yet */
	bool psh;		/* the last one pushed */
};

/* The caller's limits: bytes from l3 on, and packets per merge. */
struct xfab_lro_limits {
	u32 max_l3;		/* at most 65535: IP's length fields */
	u32 max_pieces;
};

/* Parse p's headers; XFAB_LRO_OK when it may start or join a merge. */
int xfab_lro_parse(const struct xfab_lro_pkt *p, struct xfab_lro_seg *s);

/* Start a merge with s (parsed OK). */
void xfab_lro_start(struct xfab_lro_flow *f, const struct xfab_lro_seg *s);

/*
 * May s (parsed OK) join f? XFAB_LRO_OK: it did (f now counts it and the
 * caller appends its payload, which follows its hdr_len header bytes);
 * anything else: f is unchanged and the caller ends the merge.
 */
int xfab_lro_join(struct xfab_lro_flow *f, const struct xfab_lro_seg *s,
		  const struct xfab_lro_limits *lim);

/*
 * Rewrite the first packet's headers (f->head.l3) for a merge of two or
 * more packets: IP length, IPv4 header checksum, PSH if the last segment
 * had it, and the TCP checksum field holding the pseudo-header sum, as a
 * partial checksum expects (start: head.ip_len, field at offset 16).
 */
void xfab_lro_finish(const struct xfab_lro_flow *f);

#endif /* XFAB_LRO_H */
