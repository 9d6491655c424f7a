// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: arbitrary bytes as the headers of up to four packets
 * a hostile guest sent in a row, each in a buffer of exactly the bytes
 * the caller would have copied (ASan catches a read past it), with a
 * claimed total length, GSO size and checksum state, on a device of
 * some MTU. Whatever parses must be consistent and one wire segment
 * within the MTU; whatever merges must stay within the limits, be the
 * flow's next bytes and have the shape GRO gives a merge (the mss is the
 * head's payload and fits the MTU with the headers, no member is longer
 * than it and only the last is shorter: what skb_segment() relies on);
 * a finished merge must carry its length and, for IPv4, a right header
 * checksum.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../common/xfab_lro.h"

#define NPKT 4

/* The merge as the fuzzer follows it. */
struct run {
	struct xfab_lro_flow f;
	bool started;
	u32 last;		/* payload of the last packet in the merge */
	u32 head_mtu;		/* the MTU the head was parsed against */
};

/* MTUs worth reaching, picked by the first input byte (or taken whole). */
static const u32 mtus[8] = { 0, 68, 1280, 1500, 9000, 65517, 65535, 70000 };

static u32 be16(const u8 *b)
{
	return (u32)b[0] << 8 | b[1];
}

/* Good IPv4 and IPv6 headers: TCP, ACK, a timestamp option. */
static const u8 tmpl4[52] = {
	0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1,
	0x9c, 0x40, 0x13, 0x89, 0, 0, 0, 1, 0, 0, 3, 9, 0x80, 0x10, 1, 0xf4,
	0, 0, 0, 0, 1, 1, 8, 10, 0, 0, 3, 0xe8, 0, 0, 7, 0xd0,
};
static const u8 tmpl6[72] = {
	0x60, 0, 0, 0, 0, 0, 6, 64, 0x20, 1, 0xd, 0xb8, [23] = 1,
	0x20, 1, 0xd, 0xb8, [39] = 2,
	0x9c, 0x40, 0x13, 0x89, 0, 0, 0, 1, 0, 0, 3, 9, 0x80, 0x10, 1, 0xf4,
	0, 0, 0, 0, 1, 1, 8, 10, 0, 0, 3, 0xe8, 0, 0, 7, 0xd0,
};

/*
 * Help the fuzzer past what it cannot guess, by the shaping byte: 0x08
 * makes a packet a good header XOR its bytes, 0x20 the previous
 * packet's (mostly zeros: the same flow); 0x10 makes the IP length agree
 * with l3_len; 0x04 puts the flow's next sequence number in; 0x40 gives
 * an IPv4 header a right checksum. What the merge sees stays arbitrary:
 * the XORed bytes are the fuzzer's.
 */
static void shape(const struct xfab_lro_pkt *p, u8 how, const u8 *prev,
		  u32 prev_len, const struct xfab_lro_flow *f)
{
	bool v6 = p->ethertype == XFAB_ETHERTYPE_IPV6;
	u32 i, sum = 0, at = v6 ? 4 : 2, len = p->l3_avail;
	u32 v = v6 ? p->l3_len - 40 : p->l3_len;
	u8 *b = p->l3;

	if (how & 0x08) {
		prev = v6 ? tmpl6 : tmpl4;
		prev_len = v6 ? sizeof(tmpl6) : sizeof(tmpl4);
	}
	if ((how & 0x28) && prev)
		for (i = 0; i < len && i < prev_len; i++)
			b[i] ^= prev[i];
	if ((how & 0x10) && len >= at + 2) {
		b[at] = v >> 8;
		b[at + 1] = v;
	}
	at = v6 ? 44 : 24;
	if ((how & 0x04) && f && len >= at + 4)
		for (i = 0; i < 4; i++)
			b[at + i] = f->next_seq >> (24 - 8 * i);
	if ((how & 0x40) && !v6 && len >= 20) {
		b[10] = 0;
		b[11] = 0;
		for (i = 0; i < 20; i += 2)
			sum += be16(b + i);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		b[10] = ~sum >> 8;
		b[11] = ~sum;
	}
}

/* One wire segment, all of it described, within the MTU. */
static void check_seg(const struct xfab_lro_pkt *p,
		      const struct xfab_lro_seg *s)
{
	if (s->hdr_len > p->l3_avail || s->hdr_len + s->payload != p->l3_len ||
	    !s->payload || (p->gso_size && s->payload > p->gso_size) ||
	    s->hdr_len + s->payload > p->mtu)
		abort();
}

/*
 * GRO's shape: mss = the head's payload, fits the head's MTU and a u16
 * gso_size short of GSO_BY_FRAGS; each member at most mss, and only
 * the last one short of it.
 */
static void check_shape(const struct run *r, const struct xfab_lro_seg *s)
{
	const struct xfab_lro_flow *f = &r->f;

	if (f->mss != f->head.payload || f->mss >= 0xffff ||
	    f->head.hdr_len + f->mss > r->head_mtu || s->payload > f->mss ||
	    (f->pieces > 1 && r->last != f->mss))
		abort();
}

static void check_finish(const struct xfab_lro_flow *f)
{
	const u8 *ip = f->head.l3;
	u32 sum = 0, i;

	if (f->head.v6) {
		if (be16(ip + 4) + 40 != f->l3_len)
			abort();
		return;
	}
	if (be16(ip + 2) != f->l3_len)
		abort();
	for (i = 0; i < 20; i += 2)
		sum += be16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	if (sum != 0xffff)
		abort();
}

/* A merge of two or more ends as netback ends it: finished, then checked. */
static void end_merge(struct run *r)
{
	if (r->started && r->f.pieces > 1) {
		xfab_lro_finish(&r->f);
		check_finish(&r->f);
	}
	r->started = false;
}

static void start(struct run *r, const struct xfab_lro_pkt *p,
		  const struct xfab_lro_seg *s)
{
	xfab_lro_start(&r->f, s);
	r->started = true;
	r->head_mtu = p->mtu;
	check_shape(r, s);
	r->last = s->payload;
}

/*
 * Parse packet i; join the merge, or end it and start the next one, as
 * netback does; check what came out.
 */
static void one(const struct xfab_lro_pkt *p, struct run *r)
{
	const struct xfab_lro_limits lim = { 65535, 3 };
	struct xfab_lro_flow *f = &r->f;
	struct xfab_lro_seg s;
	u32 next_seq = f->next_seq;
	int why = xfab_lro_parse(p, &s);

	if (why < XFAB_LRO_OK || why >= XFAB_LRO_FLOW)
		abort();
	if (why) {
		end_merge(r);
		return;
	}
	check_seg(p, &s);
	if (!r->started) {
		start(r, p, &s);
		return;
	}
	why = xfab_lro_join(f, &s, &lim);
	if (why != XFAB_LRO_OK) {
		if (why < XFAB_LRO_FLOW || why >= XFAB_LRO_END)
			abort();
		end_merge(r);
		start(r, p, &s);
		return;
	}
	if (s.seq != next_seq || f->l3_len > lim.max_l3 ||
	    f->pieces > lim.max_pieces || f->next_seq != s.seq + s.payload)
		abort();
	check_shape(r, &s);
	r->last = s.payload;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xfab_lro_pkt p[NPKT];
	struct run r = { 0 };
	u8 *buf[NPKT] = { 0 };
	u32 n = 0, i, chunk, mtu;

	/*
	 * first the MTU: a byte picking one of mtus[] or, with bit 3 set,
	 * the next two bytes; then per packet: control (bit 0 IPv6, bit 1
	 * GSO, bits 2-6 its size, bit 7 checksum not ok), shaping, 2 length
	 * bytes, header length, then the header bytes
	 */
	if (size < 3)
		return 0;
	mtu = data[0] & 8 ? be16(data + 1) : mtus[data[0] & 7];
	data += 3;
	size -= 3;
	while (n < NPKT && size >= 5) {
		u8 ctl = data[0];

		chunk = data[4] % 96;
		if (chunk > size - 5)
			chunk = size - 5;
		buf[n] = malloc(chunk ? chunk : 1);
		if (!buf[n])
			break;
		memcpy(buf[n], data + 5, chunk);
		p[n] = (struct xfab_lro_pkt){
			.l3 = buf[n], .l3_avail = chunk,
			.l3_len = chunk + be16(data + 2),
			.ethertype = ctl & 1 ? XFAB_ETHERTYPE_IPV6 :
					       XFAB_ETHERTYPE_IPV4,
			.gso_size = ctl & 2 ? (ctl >> 2 & 31) * 97 : 0,
			.mtu = mtu,
			.csum_ok = !(ctl & 0x80),
		};
		shape(&p[n], data[1], n ? buf[n - 1] : NULL,
		      n ? p[n - 1].l3_avail : 0, r.started ? &r.f : NULL);
		one(&p[n], &r);
		data += 5 + chunk;
		size -= 5 + chunk;
		n++;
	}
	end_merge(&r);
	for (i = 0; i < n; i++)
		free(buf[i]);
	return 0;
}
