// SPDX-License-Identifier: GPL-2.0 OR MIT
/* LRO merge decisions and header rewrite: see xfab_lro.h. */
#include "xfab_lro.h"

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define IPV4_DF 0x4000
#define IPPROTO_TCP_NR 6

static const char *const lro_why_names[XFAB_LRO_NR_WHY] = {
	[XFAB_LRO_OK] = "ok",
	[XFAB_LRO_NOT_TCP] = "not_tcp",
	[XFAB_LRO_BAD_HDR] = "bad_hdr",
	[XFAB_LRO_FLAGS] = "flags",
	[XFAB_LRO_NO_DATA] = "no_data",
	[XFAB_LRO_CSUM] = "csum",
	[XFAB_LRO_MULTI_SEG] = "multi_seg",
	[XFAB_LRO_MTU] = "mtu",
	[XFAB_LRO_FLOW] = "flow",
	[XFAB_LRO_CLOSED] = "closed",
	[XFAB_LRO_SEQ] = "seq",
	[XFAB_LRO_HDR] = "hdr",
	[XFAB_LRO_MSS] = "mss",
	[XFAB_LRO_FULL] = "full",
	[XFAB_LRO_BY_REF] = "by_ref",
	[XFAB_LRO_END] = "end",
};

const char *xfab_lro_why_name(int why)
{
	if (why < 0 || why >= XFAB_LRO_NR_WHY)
		return "unknown";
	return lro_why_names[why];
}

static u32 be16_at(const u8 *b)
{
	return (u32)b[0] << 8 | b[1];
}

static u32 be32_at(const u8 *b)
{
	return be16_at(b) << 16 | be16_at(b + 2);
}

static void put_be16(u8 *b, u32 v)
{
	b[0] = v >> 8;
	b[1] = v;
}

/* Ones' complement sum of n bytes (n even) as big-endian words, unfolded. */
static u32 sum16(const u8 *b, u32 n, u32 sum)
{
	u32 i;

	for (i = 0; i + 1 < n; i += 2)
		sum += be16_at(b + i);
	return sum;
}

static u32 fold16(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* The IP header: its length, the payload's end, the L4 protocol. */
static int lro_parse_ip(const struct xfab_lro_pkt *p, struct xfab_lro_seg *s,
			u32 *ip_total)
{
	const u8 *b = p->l3;

	if (p->ethertype == XFAB_ETHERTYPE_IPV4) {
		if (p->l3_avail < 20 || b[0] >> 4 != 4)
			return XFAB_LRO_BAD_HDR;
		/* options, fragments, DF clear: leave them to the stack */
		if ((b[0] & 15) != 5 || be16_at(b + 6) != IPV4_DF ||
		    b[9] != IPPROTO_TCP_NR)
			return XFAB_LRO_NOT_TCP;
		/* we rewrite the checksum: a bad one must not become good */
		if (fold16(sum16(b, 20, 0)) != 0xffff)
			return XFAB_LRO_BAD_HDR;
		s->v6 = false;
		s->ip_len = 20;
		*ip_total = be16_at(b + 2);
		return XFAB_LRO_OK;
	}
	if (p->ethertype == XFAB_ETHERTYPE_IPV6) {
		if (p->l3_avail < 40 || b[0] >> 4 != 6)
			return XFAB_LRO_BAD_HDR;
		if (b[6] != IPPROTO_TCP_NR)
			return XFAB_LRO_NOT_TCP;
		s->v6 = true;
		s->ip_len = 40;
		*ip_total = 40 + be16_at(b + 4);
		return XFAB_LRO_OK;
	}
	return XFAB_LRO_NOT_TCP;
}

/*
 * One wire segment, within the MTU. Chained whole on the frag_list, a
 * GSO packet of several segments would be a member longer than the
 * merge's gso_size: skb_segment() BUGs on that. An oversized frame is
 * dropped by a bridge alone, but a GSO packet passes its MTU check.
 */
static int lro_one_segment(const struct xfab_lro_pkt *p,
			   const struct xfab_lro_seg *s, u32 ip_total)
{
	if (p->gso_size && s->payload > p->gso_size)
		return XFAB_LRO_MULTI_SEG;
	if (ip_total > p->mtu)
		return XFAB_LRO_MTU;
	return XFAB_LRO_OK;
}

int xfab_lro_parse(const struct xfab_lro_pkt *p, struct xfab_lro_seg *s)
{
	u32 ip_total, tcp_len;
	const u8 *th;
	int why;

	why = lro_parse_ip(p, s, &ip_total);
	if (why)
		return why;
	if (p->l3_avail < s->ip_len + 20u)
		return XFAB_LRO_BAD_HDR;
	th = p->l3 + s->ip_len;
	tcp_len = (th[12] >> 4) * 4u;
	if (tcp_len < 20 || s->ip_len + tcp_len > p->l3_avail ||
	    ip_total < s->ip_len + tcp_len || ip_total > p->l3_len)
		return XFAB_LRO_BAD_HDR;
	s->flags = th[13];
	if ((th[12] & 15) || (s->flags & ~(TCP_ACK | TCP_PSH)) ||
	    !(s->flags & TCP_ACK))
		return XFAB_LRO_FLAGS;
	s->payload = ip_total - s->ip_len - tcp_len;
	if (!s->payload)
		return XFAB_LRO_NO_DATA;
	/* padding after a data segment: nothing sends that */
	if (ip_total != p->l3_len)
		return XFAB_LRO_BAD_HDR;
	if (!p->csum_ok)
		return XFAB_LRO_CSUM;
	why = lro_one_segment(p, s, ip_total);
	if (why)
		return why;
	s->l3 = p->l3;
	s->hdr_len = s->ip_len + tcp_len;
	s->seq = be32_at(th + 4);
	return XFAB_LRO_OK;
}

/*
 * Still room after this segment: a full one that did not push. A shorter
 * one must be the last, so that every member before it is one mss.
 */
static bool lro_open_after(const struct xfab_lro_seg *s, u32 mss)
{
	return !(s->flags & TCP_PSH) && s->payload == mss;
}

/* The first payload is the mss, as GRO takes its first packet's length. */
void xfab_lro_start(struct xfab_lro_flow *f, const struct xfab_lro_seg *s)
{
	f->head = *s;
	f->mss = s->payload;
	f->next_seq = s->seq + s->payload;
	f->l3_len = s->hdr_len + s->payload;
	f->pieces = 1;
	f->open = lro_open_after(s, f->mss);
	f->psh = s->flags & TCP_PSH;
}

static bool same_bytes(const u8 *a, const u8 *b, u32 from, u32 to)
{
	return !memcmp(a + from, b + from, to - from);
}

/* Addresses and ports: the same connection. */
static bool lro_same_flow(const struct xfab_lro_seg *h,
			  const struct xfab_lro_seg *s)
{
	u32 a = h->v6 ? 8 : 12, z = h->v6 ? 40 : 20;

	return h->v6 == s->v6 &&
	       same_bytes(h->l3, s->l3, a, z) &&
	       same_bytes(h->l3 + h->ip_len, s->l3 + s->ip_len, 0, 4);
}

/*
 * Everything else the merged packet keeps from the first one: IP's
 * version, TOS/traffic class, flow label, TTL/hop limit; TCP's ack,
 * header length, flags bar PSH, window, urgent pointer and options
 * (timestamps included). Left out: lengths, IPv4 id and the checksums,
 * which the merge rewrites, and the sequence number, checked apart.
 */
static bool lro_same_hdr(const struct xfab_lro_seg *h,
			 const struct xfab_lro_seg *s)
{
	const u8 *ht = h->l3 + h->ip_len, *st = s->l3 + s->ip_len;

	if (h->hdr_len != s->hdr_len)
		return false;
	if (h->v6 ? !same_bytes(h->l3, s->l3, 0, 4) ||
		    !same_bytes(h->l3, s->l3, 6, 8) :
		    !same_bytes(h->l3, s->l3, 0, 2) ||
		    !same_bytes(h->l3, s->l3, 6, 10))
		return false;
	return same_bytes(ht, st, 8, 13) &&
	       (ht[13] & ~TCP_PSH) == (st[13] & ~TCP_PSH) &&
	       same_bytes(ht, st, 14, 16) &&
	       same_bytes(ht, st, 18, h->hdr_len - h->ip_len);
}

int xfab_lro_join(struct xfab_lro_flow *f, const struct xfab_lro_seg *s,
		  const struct xfab_lro_limits *lim)
{
	u32 max_l3 = lim->max_l3;

	if (!lro_same_flow(&f->head, s))
		return XFAB_LRO_FLOW;
	if (!f->open)
		return XFAB_LRO_CLOSED;
	if (s->seq != f->next_seq)
		return XFAB_LRO_SEQ;
	if (!lro_same_hdr(&f->head, s))
		return XFAB_LRO_HDR;
	if (s->payload > f->mss)
		return XFAB_LRO_MSS;
	if (max_l3 > 0xffff)
		max_l3 = 0xffff;
	/* the head alone may be past max_l3 (an IPv6 one of 64 KiB + 40) */
	if (f->l3_len > max_l3 || s->payload > max_l3 - f->l3_len ||
	    f->pieces >= lim->max_pieces)
		return XFAB_LRO_FULL;
	f->next_seq += s->payload;
	f->l3_len += s->payload;
	f->pieces++;
	f->open = lro_open_after(s, f->mss);
	f->psh = s->flags & TCP_PSH;
	return XFAB_LRO_OK;
}

void xfab_lro_finish(const struct xfab_lro_flow *f)
{
	u8 *ip = f->head.l3, *th = ip + f->head.ip_len;
	u32 tcp_len = f->l3_len - f->head.ip_len, sum;

	if (f->head.v6) {
		put_be16(ip + 4, tcp_len);
		sum = sum16(ip + 8, 32, 0);	/* addresses */
	} else {
		put_be16(ip + 2, f->l3_len);
		put_be16(ip + 10, 0);
		put_be16(ip + 10, ~fold16(sum16(ip, 20, 0)) & 0xffff);
		sum = sum16(ip + 12, 8, 0);
	}
	if (f->psh)
		th[13] |= TCP_PSH;
	/* the pseudo header: addresses, protocol, TCP length */
	sum += IPPROTO_TCP_NR + (tcp_len & 0xffff) + (tcp_len >> 16);
	put_be16(th + 16, fold16(sum));
}
