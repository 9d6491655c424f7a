// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * LRO merge decisions with real IPv4/IPv6 TCP headers built here: what
 * parses, each reason a packet is refused, runs that merge and where
 * they stop, and the merged packet's headers checked against checksums
 * computed from scratch over the whole merged packet.
 */
#include <stdlib.h>
#include "xfab_test.h"
#include "../../common/xfab_lro.h"

#define ACK 0x10
#define PSH 0x08
#define MSS 1448
#define MTU 9000	/* the default: room for any test's single segment */
#define BUF 70000

/* How a test packet is made; zero fields take the defaults below. */
struct mk {
	bool v6;
	u32 seq, ack, len;	/* len: payload */
	u8 flags;		/* 0: ACK */
	u32 tsval;
	u16 sport, win;
	u16 gso;		/* the GSO size it comes with; 0: none */
};

static void put16(u8 *b, u32 v)
{
	b[0] = v >> 8;
	b[1] = v;
}

static void put32(u8 *b, u32 v)
{
	put16(b, v >> 16);
	put16(b + 2, v);
}

static u32 ref_sum(const u8 *b, u32 n)
{
	u32 s = 0, i;

	for (i = 0; i < n; i++)
		s += i & 1 ? b[i] : b[i] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/*
 * IP + TCP (with a 12-byte timestamp option) + payload bytes that follow
 * the sequence number, so that a merged packet's bytes are known.
 * Returns the l3 length; the IPv4 header checksum is right.
 */
static u32 mk_pkt(u8 *b, const struct mk *m)
{
	u32 ip = m->v6 ? 40 : 20, tcp = 32, i;
	u8 *th = b + ip;

	memset(b, 0, ip + tcp);
	if (m->v6) {
		b[0] = 0x60;
		put16(b + 4, tcp + m->len);
		b[6] = 6;
		b[7] = 64;
		b[23] = 1;	/* 2001:db8::1 -> ::2, roughly */
		b[39] = 2;
	} else {
		b[0] = 0x45;
		put16(b + 2, ip + tcp + m->len);
		put16(b + 4, m->seq & 0xffff);	/* ids differ */
		put16(b + 6, 0x4000);
		b[8] = 64;
		b[9] = 6;
		put32(b + 12, 0x0a000002);
		put32(b + 16, 0x0a000001);
		put16(b + 10, ~ref_sum(b, 20) & 0xffff);
	}
	put16(th, m->sport ? m->sport : 40000);
	put16(th + 2, 5001);
	put32(th + 4, m->seq);
	put32(th + 8, m->ack ? m->ack : 777);
	th[12] = (tcp / 4) << 4;
	th[13] = m->flags ? m->flags : ACK;
	put16(th + 14, m->win ? m->win : 500);
	put16(th + 16, 0xbeef);		/* whatever the guest left */
	th[20] = 1;
	th[21] = 1;
	th[22] = 8;
	th[23] = 10;
	put32(th + 24, m->tsval ? m->tsval : 1000);
	put32(th + 28, 2000);
	for (i = 0; i < m->len; i++)
		th[tcp + i] = (u8)((m->seq + i) * 7 + 3);
	return ip + tcp + m->len;
}

static struct xfab_lro_pkt pkt_of(u8 *b, u32 len, bool v6)
{
	struct xfab_lro_pkt p = {
		.l3 = b, .l3_avail = len < 128 ? len : 128, .l3_len = len,
		.ethertype = v6 ? XFAB_ETHERTYPE_IPV6 : XFAB_ETHERTYPE_IPV4,
		.mtu = MTU, .csum_ok = true,
	};
	return p;
}

static int parse_mk(u8 *b, const struct mk *m, struct xfab_lro_seg *s)
{
	struct xfab_lro_pkt p = pkt_of(b, mk_pkt(b, m), m->v6);

	p.gso_size = m->gso;
	return xfab_lro_parse(&p, s);
}

static const struct xfab_lro_limits lim64k = { 65535, 64 };

TEST(lro_parse_reads_v4_and_v6_segments)
{
	static u8 b[BUF];
	struct xfab_lro_seg s;
	struct mk m = { .seq = 5, .len = MSS };

	ASSERT_EQ(parse_mk(b, &m, &s), XFAB_LRO_OK);
	ASSERT_FALSE(s.v6);
	ASSERT_EQ(s.ip_len, 20);
	ASSERT_EQ(s.hdr_len, 52);
	ASSERT_EQ(s.payload, MSS);
	ASSERT_EQ(s.seq, 5);
	m.v6 = true;
	ASSERT_EQ(parse_mk(b, &m, &s), XFAB_LRO_OK);
	ASSERT_TRUE(s.v6);
	ASSERT_EQ(s.hdr_len, 72);
	ASSERT_EQ(strcmp(xfab_lro_why_name(XFAB_LRO_SEQ), "seq"), 0);
	ASSERT_EQ(strcmp(xfab_lro_why_name(XFAB_LRO_NR_WHY), "unknown"), 0);
	ASSERT_EQ(strcmp(xfab_lro_why_name(-1), "unknown"), 0);
}

/* Parse a packet made from m with this GSO size and MTU. */
static int parse_gso(u8 *b, const struct mk *m, u16 gso_size, u32 mtu,
		     struct xfab_lro_seg *s)
{
	struct xfab_lro_pkt p = pkt_of(b, mk_pkt(b, m), m->v6);

	p.gso_size = gso_size;
	p.mtu = mtu;
	return xfab_lro_parse(&p, s);
}

/*
 * A GSO packet of more than one wire segment may not start a merge:
 * chained on a frag_list it would be a member longer than gso_size.
 * One that carries gso_size bytes or less is one segment, and may.
 */
TEST(lro_parse_refuses_a_gso_packet_of_several_segments)
{
	static u8 b[BUF];
	struct xfab_lro_seg s;
	struct mk m = { .len = 3 * MSS + 10 };

	ASSERT_EQ(parse_gso(b, &m, MSS, MTU, &s), XFAB_LRO_MULTI_SEG);
	m.len = MSS + 1;
	ASSERT_EQ(parse_gso(b, &m, MSS, MTU, &s), XFAB_LRO_MULTI_SEG);
	m.len = MSS;
	ASSERT_EQ(parse_gso(b, &m, MSS, MTU, &s), XFAB_LRO_OK);
	ASSERT_EQ(s.payload, MSS);
	m.len = 100;
	ASSERT_EQ(parse_gso(b, &m, MSS, MTU, &s), XFAB_LRO_OK);
	m = (struct mk){ .v6 = true, .len = 2 * MSS };
	ASSERT_EQ(parse_gso(b, &m, MSS, MTU, &s), XFAB_LRO_MULTI_SEG);
	m.len = MSS;
	ASSERT_EQ(parse_gso(b, &m, MSS, MTU, &s), XFAB_LRO_OK);
	ASSERT_LT(XFAB_LRO_MULTI_SEG, XFAB_LRO_FLOW);
	ASSERT_EQ(strcmp(xfab_lro_why_name(XFAB_LRO_MULTI_SEG), "multi_seg"),
		  0);
}

/*
 * Each segment's IP length fits the device's MTU, to the byte; 0 is an
 * MTU like any other, not "no limit".
 */
TEST(lro_parse_refuses_a_segment_past_the_mtu)
{
	static u8 b[BUF];
	struct xfab_lro_seg s;
	struct mk m = { .len = 1448 };	/* 52 header bytes: 1500 */

	ASSERT_EQ(parse_gso(b, &m, 0, 1500, &s), XFAB_LRO_OK);
	ASSERT_EQ(parse_gso(b, &m, 0, 1499, &s), XFAB_LRO_MTU);
	ASSERT_EQ(parse_gso(b, &m, MSS, 1499, &s), XFAB_LRO_MTU);
	ASSERT_EQ(parse_gso(b, &m, 0, 0, &s), XFAB_LRO_MTU);
	m.len = 1;
	ASSERT_EQ(parse_gso(b, &m, 0, 0, &s), XFAB_LRO_MTU);
	m = (struct mk){ .v6 = true, .len = 1428 };	/* 72 + 1428 */
	ASSERT_EQ(parse_gso(b, &m, 0, 1500, &s), XFAB_LRO_OK);
	m.len = 1429;
	ASSERT_EQ(parse_gso(b, &m, 0, 1500, &s), XFAB_LRO_MTU);
	/* a jumbo frame from a guest on a 1500 vif */
	m = (struct mk){ .len = 8948 };
	ASSERT_EQ(parse_gso(b, &m, 0, 1500, &s), XFAB_LRO_MTU);
	ASSERT_EQ(parse_gso(b, &m, 0, 9000, &s), XFAB_LRO_OK);
	ASSERT_LT(XFAB_LRO_MTU, XFAB_LRO_FLOW);
	ASSERT_EQ(strcmp(xfab_lro_why_name(XFAB_LRO_MTU), "mtu"), 0);
}

/* Make a good v4 packet, let edit break it, expect why. */
static int parse_edited(void (*edit)(u8 *b, struct xfab_lro_pkt *p))
{
	static u8 b[BUF];
	struct mk m = { .len = 100 };
	struct xfab_lro_pkt p = pkt_of(b, mk_pkt(b, &m), false);
	struct xfab_lro_seg s;

	edit(b, &p);
	return xfab_lro_parse(&p, &s);
}

static void fix_v4_csum(u8 *b)
{
	put16(b + 10, 0);
	put16(b + 10, ~ref_sum(b, 20) & 0xffff);
}

static void e_udp(u8 *b, struct xfab_lro_pkt *p) { b[9] = 17; fix_v4_csum(b); (void)p; }
static void e_ipopt(u8 *b, struct xfab_lro_pkt *p) { b[0] = 0x46; fix_v4_csum(b); (void)p; }
static void e_mf(u8 *b, struct xfab_lro_pkt *p) { put16(b + 6, 0x6000); fix_v4_csum(b); (void)p; }
static void e_nodf(u8 *b, struct xfab_lro_pkt *p) { put16(b + 6, 0); fix_v4_csum(b); (void)p; }
static void e_arp(u8 *b, struct xfab_lro_pkt *p) { p->ethertype = 0x0806; (void)b; }
static void e_ver(u8 *b, struct xfab_lro_pkt *p) { b[0] = 0x65; (void)p; }
static void e_ipcsum(u8 *b, struct xfab_lro_pkt *p) { b[10] ^= 1; (void)p; }
static void e_long(u8 *b, struct xfab_lro_pkt *p) { put16(b + 2, p->l3_len + 1); fix_v4_csum(b); }
static void e_pad(u8 *b, struct xfab_lro_pkt *p) { put16(b + 2, p->l3_len - 1); fix_v4_csum(b); }
static void e_short(u8 *b, struct xfab_lro_pkt *p) { p->l3_avail = 30; (void)b; }
static void e_doff4(u8 *b, struct xfab_lro_pkt *p) { b[32] = 4 << 4; (void)p; }
static void e_doff15(u8 *b, struct xfab_lro_pkt *p) { b[32] = 15 << 4; p->l3_avail = 70; }
static void e_hdr_past(u8 *b, struct xfab_lro_pkt *p) { b[32] = 15 << 4; put16(b + 2, 70); fix_v4_csum(b); p->l3_len = 70; }
static void e_syn(u8 *b, struct xfab_lro_pkt *p) { b[33] = 0x12; (void)p; }
static void e_fin(u8 *b, struct xfab_lro_pkt *p) { b[33] = 0x11; (void)p; }
static void e_rst(u8 *b, struct xfab_lro_pkt *p) { b[33] = 0x14; (void)p; }
static void e_urg(u8 *b, struct xfab_lro_pkt *p) { b[33] = 0x30; (void)p; }
static void e_cwr(u8 *b, struct xfab_lro_pkt *p) { b[33] = 0x90; (void)p; }
static void e_noack(u8 *b, struct xfab_lro_pkt *p) { b[33] = PSH; (void)p; }
static void e_ae(u8 *b, struct xfab_lro_pkt *p) { b[32] |= 1; (void)p; }
static void e_nodata(u8 *b, struct xfab_lro_pkt *p) { put16(b + 2, 52); fix_v4_csum(b); p->l3_len = 52; }
static void e_csum(u8 *b, struct xfab_lro_pkt *p) { p->csum_ok = false; (void)b; }

TEST(lro_parse_refuses_each_kind_of_packet)
{
	ASSERT_EQ(parse_edited(e_udp), XFAB_LRO_NOT_TCP);
	ASSERT_EQ(parse_edited(e_ipopt), XFAB_LRO_NOT_TCP);
	ASSERT_EQ(parse_edited(e_mf), XFAB_LRO_NOT_TCP);
	ASSERT_EQ(parse_edited(e_nodf), XFAB_LRO_NOT_TCP);
	ASSERT_EQ(parse_edited(e_arp), XFAB_LRO_NOT_TCP);
	ASSERT_EQ(parse_edited(e_ver), XFAB_LRO_BAD_HDR);
	ASSERT_EQ(parse_edited(e_ipcsum), XFAB_LRO_BAD_HDR);
	ASSERT_EQ(parse_edited(e_long), XFAB_LRO_BAD_HDR);
	ASSERT_EQ(parse_edited(e_pad), XFAB_LRO_BAD_HDR);
	ASSERT_EQ(parse_edited(e_short), XFAB_LRO_BAD_HDR);
	ASSERT_EQ(parse_edited(e_doff4), XFAB_LRO_BAD_HDR);
	ASSERT_EQ(parse_edited(e_doff15), XFAB_LRO_BAD_HDR);
	ASSERT_EQ(parse_edited(e_hdr_past), XFAB_LRO_BAD_HDR);
	ASSERT_EQ(parse_edited(e_syn), XFAB_LRO_FLAGS);
	ASSERT_EQ(parse_edited(e_fin), XFAB_LRO_FLAGS);
	ASSERT_EQ(parse_edited(e_rst), XFAB_LRO_FLAGS);
	ASSERT_EQ(parse_edited(e_urg), XFAB_LRO_FLAGS);
	ASSERT_EQ(parse_edited(e_cwr), XFAB_LRO_FLAGS);
	ASSERT_EQ(parse_edited(e_noack), XFAB_LRO_FLAGS);
	ASSERT_EQ(parse_edited(e_ae), XFAB_LRO_FLAGS);
	ASSERT_EQ(parse_edited(e_nodata), XFAB_LRO_NO_DATA);
	ASSERT_EQ(parse_edited(e_csum), XFAB_LRO_CSUM);
}

TEST(lro_parse_refuses_ipv6_extension_headers)
{
	static u8 b[BUF];
	struct mk m = { .v6 = true, .len = 10 };
	struct xfab_lro_pkt p = pkt_of(b, mk_pkt(b, &m), true);
	struct xfab_lro_seg s;

	b[6] = 0;	/* hop-by-hop options */
	ASSERT_EQ(xfab_lro_parse(&p, &s), XFAB_LRO_NOT_TCP);
	b[6] = 6;
	p.l3_avail = 39;
	ASSERT_EQ(xfab_lro_parse(&p, &s), XFAB_LRO_BAD_HDR);
}

/*
 * A merge of segments m[0..n) laid out in one buffer each; returns how
 * many joined before the first refusal (*why: its reason, OK if all).
 */
static u8 *bufs[80];

static u32 run(const struct mk *m, u32 n, struct xfab_lro_flow *f, int *why,
	       const struct xfab_lro_limits *lim)
{
	struct xfab_lro_seg s;
	u32 i;

	*why = XFAB_LRO_OK;
	for (i = 0; i < n; i++) {
		if (!bufs[i])
			bufs[i] = malloc(BUF);
		if (parse_mk(bufs[i], &m[i], &s))
			abort();
		if (!i) {
			xfab_lro_start(f, &s);
			continue;
		}
		*why = xfab_lro_join(f, &s, lim);
		if (*why)
			break;
	}
	return i;
}

/* n full segments from seq 1000, then edit the last one */
static void full_run(struct mk *m, u32 n, bool v6)
{
	u32 i;

	for (i = 0; i < n; i++)
		m[i] = (struct mk){ .v6 = v6, .seq = 1000 + i * MSS, .len = MSS };
}

TEST(lro_join_merges_a_run_and_stops_after_a_short_one)
{
	struct mk m[8];
	struct xfab_lro_flow f;
	int why;

	full_run(m, 8, false);
	m[5].len = 100;
	m[6].seq = m[5].seq + 100;
	ASSERT_EQ(run(m, 8, &f, &why, &lim64k), 6);
	ASSERT_EQ(why, XFAB_LRO_CLOSED);
	ASSERT_EQ(f.pieces, 6);
	ASSERT_EQ(f.mss, MSS);
	ASSERT_EQ(f.l3_len, 52 + 5 * MSS + 100);
	ASSERT_EQ(f.next_seq, 1000 + 5 * MSS + 100);
	ASSERT_FALSE(f.open);
}

TEST(lro_join_psh_ends_a_merge_and_is_kept)
{
	struct mk m[4];
	struct xfab_lro_flow f;
	int why;

	full_run(m, 4, true);
	m[2].flags = ACK | PSH;
	ASSERT_EQ(run(m, 4, &f, &why, &lim64k), 3);
	ASSERT_EQ(why, XFAB_LRO_CLOSED);
	ASSERT_TRUE(f.psh);
	/* a pushed first segment takes nothing after it */
	full_run(m, 2, false);
	m[0].flags = ACK | PSH;
	ASSERT_EQ(run(m, 2, &f, &why, &lim64k), 1);
	ASSERT_EQ(why, XFAB_LRO_CLOSED);
}

TEST(lro_join_refuses_other_flows_gaps_and_changed_headers)
{
	struct mk m[3];
	struct xfab_lro_flow f;
	int why;

	full_run(m, 3, false);
	m[2].sport = 40001;
	ASSERT_EQ(run(m, 3, &f, &why, &lim64k), 2);
	ASSERT_EQ(why, XFAB_LRO_FLOW);
	full_run(m, 3, false);
	m[2].seq += 1;
	ASSERT_EQ(run(m, 3, &f, &why, &lim64k), 2);
	ASSERT_EQ(why, XFAB_LRO_SEQ);
	full_run(m, 3, false);
	m[2].seq -= MSS;	/* a retransmission: overlaps */
	ASSERT_EQ(run(m, 3, &f, &why, &lim64k), 2);
	ASSERT_EQ(why, XFAB_LRO_SEQ);
	full_run(m, 3, false);
	m[2].ack = 778;
	ASSERT_EQ(run(m, 3, &f, &why, &lim64k), 2);
	ASSERT_EQ(why, XFAB_LRO_HDR);
	full_run(m, 3, true);
	m[1].win = 501;
	ASSERT_EQ(run(m, 3, &f, &why, &lim64k), 1);
	ASSERT_EQ(why, XFAB_LRO_HDR);
	full_run(m, 3, false);
	m[1].tsval = 1001;
	ASSERT_EQ(run(m, 3, &f, &why, &lim64k), 1);
	ASSERT_EQ(why, XFAB_LRO_HDR);
	full_run(m, 3, false);
	m[1].len = MSS + 1;
	ASSERT_EQ(run(m, 3, &f, &why, &lim64k), 1);
	ASSERT_EQ(why, XFAB_LRO_MSS);
	/* v4 and v6 never mix */
	full_run(m, 3, false);
	m[1].v6 = true;
	ASSERT_EQ(run(m, 3, &f, &why, &lim64k), 1);
	ASSERT_EQ(why, XFAB_LRO_FLOW);
}

TEST(lro_join_stops_at_64k_and_the_piece_limit)
{
	static struct mk m[50];
	struct xfab_lro_limits few = { 65535, 4 };
	struct xfab_lro_flow f;
	int why;

	full_run(m, 50, false);
	/* 52 + 45 * 1448 = 65212 fits, the 46th does not */
	ASSERT_EQ(run(m, 50, &f, &why, &lim64k), 45);
	ASSERT_EQ(why, XFAB_LRO_FULL);
	ASSERT_LE(f.l3_len, 65535);
	ASSERT_EQ(run(m, 50, &f, &why, &few), 4);
	ASSERT_EQ(why, XFAB_LRO_FULL);
}

/*
 * An IPv6 segment may be 64 KiB + 40 long on its own (its length field
 * leaves out the fixed header); on a device with an MTU that large it
 * starts a merge already past max_l3, and nothing may join it.
 */
TEST(lro_join_full_after_an_ipv6_head_past_64k)
{
	static u8 b[2][BUF];
	struct mk m0 = { .v6 = true, .seq = 1, .len = 65535 - 32 };
	struct mk m1 = { .v6 = true, .seq = 1 + 65535 - 32, .len = 1 };
	struct xfab_lro_seg s0, s1;
	struct xfab_lro_flow f;

	ASSERT_EQ(parse_gso(b[0], &m0, 0, 70000, &s0), XFAB_LRO_OK);
	ASSERT_EQ(parse_gso(b[1], &m1, 0, 70000, &s1), XFAB_LRO_OK);
	xfab_lro_start(&f, &s0);
	ASSERT_EQ(f.l3_len, 65575);
	ASSERT_EQ(xfab_lro_join(&f, &s1, &lim64k), XFAB_LRO_FULL);
	ASSERT_EQ(f.pieces, 1);
}

/*
 * The shape that once panicked dom0 (a BUG in skb_segment): two
 * consecutive TCPv4 segments of one flow, 16 payload bytes each, each
 * with GSO size 8. Chained, the second would be a frag_list member of 16
 * linear bytes in a packet of gso_size 8 or 16. Neither may start a merge
 * or join one, so each goes up alone, as the guest sent it.
 */
static void attack_shape(int *_failed, bool v6)
{
	static u8 b[2][BUF];
	struct mk m0 = { .v6 = v6, .seq = 1, .len = 16, .gso = 8 };
	struct mk m1 = { .v6 = v6, .seq = 17, .len = 16, .gso = 8 };
	struct mk ok = { .v6 = v6, .seq = 1, .len = 16 };
	struct xfab_lro_seg s0, s1;
	struct xfab_lro_flow f;

	ASSERT_EQ(parse_mk(b[0], &m0, &s0), XFAB_LRO_MULTI_SEG);
	ASSERT_EQ(parse_mk(b[1], &m1, &s1), XFAB_LRO_MULTI_SEG);
	/* nor after a good 16-byte segment of the same flow */
	ASSERT_EQ(parse_mk(b[0], &ok, &s0), XFAB_LRO_OK);
	xfab_lro_start(&f, &s0);
	ASSERT_EQ(parse_mk(b[1], &m1, &s1), XFAB_LRO_MULTI_SEG);
	ASSERT_EQ(f.pieces, 1);
	ASSERT_EQ(f.mss, 16);
	ASSERT_EQ(f.l3_len, s0.hdr_len + 16u);
}

TEST(lro_attack_two_16_byte_segments_of_gso_size_8_go_up_alone)
{
	attack_shape(_failed, false);
	if (*_failed)
		return;
	attack_shape(_failed, true);
}

/* A GSO packet of two segments after a full one: it cannot join. */
TEST(lro_join_refuses_a_gso_packet_of_several_segments)
{
	static u8 b[2][BUF];
	struct xfab_lro_seg s0, s1;
	struct xfab_lro_flow f;
	bool v6;

	for (v6 = false; ; v6 = true) {
		struct mk m0 = { .v6 = v6, .seq = 1, .len = MSS };
		struct mk m1 = { .v6 = v6, .seq = 1 + MSS, .len = 2 * MSS,
				 .gso = MSS };

		ASSERT_EQ(parse_mk(b[0], &m0, &s0), XFAB_LRO_OK);
		xfab_lro_start(&f, &s0);
		ASSERT_TRUE(f.open);
		ASSERT_EQ(parse_mk(b[1], &m1, &s1), XFAB_LRO_MULTI_SEG);
		/* one of them, with the same GSO size, is a segment */
		m1.len = MSS;
		ASSERT_EQ(parse_mk(b[1], &m1, &s1), XFAB_LRO_OK);
		ASSERT_EQ(xfab_lro_join(&f, &s1, &lim64k), XFAB_LRO_OK);
		ASSERT_EQ(f.pieces, 2);
		ASSERT_EQ(f.mss, MSS);
		if (v6)
			break;
	}
}

/*
 * Every member but the last is one mss, the last at most one: the
 * segment boundaries skb_segment() cuts at are the members' own.
 */
static void members_ok(int *_failed, const struct mk *m, u32 n,
		       const struct xfab_lro_flow *f)
{
	u32 i;

	ASSERT_EQ(f->pieces, n);
	ASSERT_EQ(f->mss, m[0].len);
	for (i = 1; i < n; i++) {
		ASSERT_LE(m[i].len, f->mss);
		if (i + 1 < n)
			ASSERT_EQ(m[i].len, f->mss);
	}
}

/*
 * A run of full segments still merges, and the mss is the first one's
 * payload, whatever GSO size single segments came with: a later one
 * longer than that first payload is refused even when it carries the
 * same GSO size.
 */
static void mss_is_first_payload(int *_failed, bool v6)
{
	static struct mk m[12];
	struct xfab_lro_flow f;
	u32 i;
	int why;

	for (i = 0; i < 12; i++)
		m[i] = (struct mk){ .v6 = v6, .seq = 1000 + i * 1000,
				    .len = 1000 };
	m[11].len = 1001;
	ASSERT_EQ(run(m, 12, &f, &why, &lim64k), 11);
	ASSERT_EQ(why, XFAB_LRO_MSS);
	members_ok(_failed, m, 11, &f);
	if (*_failed)
		return;
	ASSERT_TRUE(f.open);
	for (i = 0; i < 12; i++)
		m[i].gso = MSS;
	ASSERT_EQ(run(m, 12, &f, &why, &lim64k), 11);
	ASSERT_EQ(why, XFAB_LRO_MSS);
	ASSERT_EQ(f.mss, 1000);
	/* a shorter GSO one ends the merge, as a shorter plain one does */
	m[5].len = 10;
	m[6].seq = m[5].seq + 10;
	m[6].len = 10;
	ASSERT_EQ(run(m, 7, &f, &why, &lim64k), 6);
	ASSERT_EQ(why, XFAB_LRO_CLOSED);
	members_ok(_failed, m, 6, &f);
}

TEST(lro_join_mss_is_the_first_payload)
{
	mss_is_first_payload(_failed, false);
	if (*_failed)
		return;
	mss_is_first_payload(_failed, true);
}

/* The from-scratch TCP checksum of a whole packet at l3 (check field 0). */
static u32 ref_tcp_csum(u8 *l3, bool v6, u32 l3_len)
{
	u32 ip = v6 ? 40 : 20, tcp_len = l3_len - ip, s;
	u8 ph[40] = { 0 }, *th = l3 + ip, save[2];

	if (v6) {
		memcpy(ph, l3 + 8, 32);
		put32(ph + 32, tcp_len);
		ph[39] = 6;
	} else {
		memcpy(ph, l3 + 12, 8);
		ph[9] = 6;
		put16(ph + 10, tcp_len);
	}
	memcpy(save, th + 16, 2);
	memset(th + 16, 0, 2);
	s = ref_sum(ph, v6 ? 40 : 12) + ref_sum(th, tcp_len);
	memcpy(th + 16, save, 2);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s & 0xffff;
}

/* Merge n segments, lay out the merged packet, check its checksums. */
static int merged_ok(bool v6, u32 n, bool last_psh)
{
	static struct mk m[45];
	static u8 out[BUF];
	struct xfab_lro_flow f;
	u32 i, at, s;
	int why;

	full_run(m, n, v6);
	m[n - 1].len = 77;
	if (last_psh)
		m[n - 1].flags = ACK | PSH;
	if (run(m, n, &f, &why, &lim64k) != n || why)
		return 1;
	xfab_lro_finish(&f);
	memcpy(out, bufs[0], f.head.hdr_len + m[0].len);
	at = f.head.hdr_len + m[0].len;
	for (i = 1; i < n; i++) {
		memcpy(out + at, bufs[i] + f.head.hdr_len, m[i].len);
		at += m[i].len;
	}
	if (at != f.l3_len)
		return 2;
	if (v6 ? (u32)(out[4] << 8 | out[5]) != at - 40 :
		 (u32)(out[2] << 8 | out[3]) != at || ref_sum(out, 20) != 0xffff)
		return 3;
	if (!!(out[f.head.ip_len + 13] & PSH) != last_psh)
		return 4;
	/* what a device finishing the partial checksum would write */
	s = ref_sum(out + f.head.ip_len, at - f.head.ip_len);
	if ((~s & 0xffff) != ref_tcp_csum(out, v6, at))
		return 5;
	/* and the payload is each segment's, in order */
	for (i = 0; i < at - f.head.hdr_len; i++)
		if (out[f.head.hdr_len + i] != (u8)((1000 + i) * 7 + 3))
			return 6;
	return 0;
}

TEST(lro_finish_makes_a_packet_with_right_lengths_and_checksums)
{
	ASSERT_EQ(merged_ok(false, 2, false), 0);
	ASSERT_EQ(merged_ok(false, 30, true), 0);
	ASSERT_EQ(merged_ok(true, 2, true), 0);
	ASSERT_EQ(merged_ok(true, 45, false), 0);
}
