// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Guest TX chain validation with hostile slots: every drop and fatal
 * reason, fatal winning over drop, and random chains checked against the
 * invariants the datapath relies on.
 */
#include "xfab_test.h"
#include "../../common/xfab_netif.h"

#define MAXF 16			/* data slots after the first we accept */

static union xfab_tx_slot s[64];
static struct xfab_tx_pkt pkt;

static void req(int i, u32 gref, u16 off, u16 flags, u16 size)
{
	memset(&s[i], 0, sizeof(s[i]));
	s[i].req.gref = gref;
	s[i].req.offset = off;
	s[i].req.flags = flags;
	s[i].req.id = i;
	s[i].req.size = size;
}

/* An extra-info record of any type (the gso fields 0 unless GSO). */
static void extra_rec(union xfab_tx_slot *t, u8 type, u8 gso_type,
		      u16 size, bool more)
{
	memset(t, 0, sizeof(*t));
	t->extra.type = type;
	t->extra.flags = more ? XEN_NETIF_EXTRA_FLAG_MORE : 0;
	t->extra.u.gso.type = gso_type;
	t->extra.u.gso.size = size;
}

static void gso(int i, u8 type, u16 size, bool more)
{
	extra_rec(&s[i], XEN_NETIF_EXTRA_TYPE_GSO, type, size, more);
}

/* A packet of 1 + nfrags data slots of 'each' bytes, frags 100 bytes. */
static int chain(int nfrags, u16 first_bytes)
{
	int i;

	req(0, 100, 0, nfrags ? XEN_NETTXF_more_data : 0, first_bytes + 100 * nfrags);
	for (i = 1; i <= nfrags; i++)
		req(i, 100 + i, 0, i < nfrags ? XEN_NETTXF_more_data : 0, 100);
	return 1 + nfrags;
}

TEST(tx_single_slot_ok)
{
	req(0, 200, 64, XEN_NETTXF_csum_blank, 1514);
	ASSERT_EQ(xfab_tx_check(s, 1, MAXF, false, &pkt), XFAB_TX_OK);
	ASSERT_EQ(pkt.consumed, 1);
	ASSERT_EQ(pkt.len, 1514);
	ASSERT_EQ(pkt.first_len, 1514);
	ASSERT_EQ(pkt.nr_frags, 0);
	ASSERT_EQ(pkt.flags, XEN_NETTXF_csum_blank);
}

TEST(tx_frags_and_gso_extra_ok)
{
	req(0, 100, 0, XEN_NETTXF_more_data | XEN_NETTXF_extra_info, 3000);
	gso(1, XEN_NETIF_GSO_TYPE_TCPV4, 1448, false);
	req(2, 101, 0, XEN_NETTXF_more_data, 1000);
	req(3, 102, 96, 0, 500);
	/* slots past the packet must not matter */
	req(4, 0, 4095, XEN_NETTXF_more_data, 0xffff);
	ASSERT_EQ(xfab_tx_check(s, 5, MAXF, false, &pkt), XFAB_TX_OK);
	ASSERT_EQ(pkt.consumed, 4);
	ASSERT_EQ(pkt.ex.nr, 1);
	ASSERT_EQ(pkt.nr_frags, 2);
	ASSERT_EQ(pkt.first_len, 1500);
	ASSERT_EQ(pkt.frag_slot[0], 2);
	ASSERT_EQ(pkt.frag_slot[1], 3);
	ASSERT_TRUE(pkt.ex.mask & (1u << XEN_NETIF_EXTRA_TYPE_GSO));
	ASSERT_EQ(pkt.ex.e[XEN_NETIF_EXTRA_TYPE_GSO].u.gso.size, 1448);
}

TEST(tx_drops_keep_the_chain_consumable)
{
	req(0, 100, 0, 0, XFAB_ETH_HLEN - 1);
	ASSERT_EQ(xfab_tx_check(s, 1, MAXF, false, &pkt), XFAB_TX_RUNT);
	ASSERT_EQ(pkt.consumed, 1);

	chain(2, 200);
	s[2].req.size = 0;
	s[0].req.size -= 100;
	ASSERT_EQ(xfab_tx_check(s, 3, MAXF, false, &pkt), XFAB_TX_ZERO_FRAG);
	ASSERT_EQ(pkt.consumed, 3);

	chain(1, 200);
	s[1].req.gref = GNTTAB_NR_RESERVED_ENTRIES - 1;
	ASSERT_EQ(xfab_tx_check(s, 2, MAXF, false, &pkt), XFAB_TX_BAD_GREF);
	ASSERT_EQ(pkt.consumed, 2);

	chain(MAXF + 1, 200);
	ASSERT_EQ(xfab_tx_check(s, 64, MAXF, false, &pkt), XFAB_TX_TOO_MANY_FRAGS);
	ASSERT_EQ(pkt.consumed, MAXF + 2);
	ASSERT_EQ(xfab_tx_check(s, 64, MAXF + 1, false, &pkt), XFAB_TX_OK);
}

TEST(tx_zero_length_first_slot_dropped)
{
	chain(1, 0);
	ASSERT_EQ(xfab_tx_check(s, 2, MAXF, false, &pkt), XFAB_TX_ZERO_FRAG);
}

TEST(tx_fatal_chain_past_producer)
{
	int n = chain(3, 200);

	ASSERT_EQ(xfab_tx_check(s, n - 1, MAXF, false, &pkt), XFAB_TX_INCOMPLETE);
	ASSERT_EQ(pkt.consumed, 0);
	ASSERT_EQ(xfab_tx_check(s, 0, MAXF, false, &pkt), XFAB_TX_INCOMPLETE);
	req(0, 100, 0, XEN_NETTXF_extra_info, 100);
	ASSERT_EQ(xfab_tx_check(s, 1, MAXF, false, &pkt), XFAB_TX_INCOMPLETE);
	gso(1, XEN_NETIF_GSO_TYPE_TCPV4, 1448, true);
	ASSERT_EQ(xfab_tx_check(s, 2, MAXF, false, &pkt), XFAB_TX_INCOMPLETE);
}

TEST(tx_fatal_slot_flood)
{
	chain(XFAB_TX_FATAL_SLOTS - 1, 200);
	ASSERT_EQ(xfab_tx_check(s, 64, XFAB_TX_FATAL_SLOTS - 1, false, &pkt), XFAB_TX_OK);
	chain(XFAB_TX_FATAL_SLOTS, 200);
	ASSERT_EQ(xfab_tx_check(s, 64, XFAB_TX_FATAL_SLOTS - 1, false, &pkt),
		  XFAB_TX_SLOT_FLOOD);
	ASSERT_EQ(pkt.consumed, 0);
}

TEST(tx_fatal_cross_page_and_sizes)
{
	chain(1, 200);
	s[1].req.offset = XFAB_PAGE_SIZE - 99;
	ASSERT_EQ(xfab_tx_check(s, 2, MAXF, false, &pkt), XFAB_TX_CROSS_PAGE);
	chain(1, 200);
	s[0].req.offset = XFAB_PAGE_SIZE - 199;
	ASSERT_EQ(xfab_tx_check(s, 2, MAXF, false, &pkt), XFAB_TX_CROSS_PAGE);
	/* offset alone past the page, with a 0-byte slot */
	req(0, 100, 0xffff, 0, 0);
	ASSERT_EQ(xfab_tx_check(s, 1, MAXF, false, &pkt), XFAB_TX_CROSS_PAGE);
	/* fragments claim more bytes than the whole packet */
	chain(2, 200);
	s[0].req.size = 150;
	ASSERT_EQ(xfab_tx_check(s, 3, MAXF, false, &pkt), XFAB_TX_SIZE_MISMATCH);
}

TEST(tx_extras_bad_and_dup)
{
	req(0, 100, 0, XEN_NETTXF_extra_info, 100);
	gso(1, XEN_NETIF_GSO_TYPE_TCPV4, 0, false);
	ASSERT_EQ(xfab_tx_check(s, 2, MAXF, false, &pkt), XFAB_TX_GSO_ZERO);
	gso(1, 77, 1448, false);
	ASSERT_EQ(xfab_tx_check(s, 2, MAXF, false, &pkt), XFAB_TX_BAD_GSO_TYPE);
	ASSERT_EQ(pkt.consumed, 2);
	gso(1, XEN_NETIF_GSO_TYPE_TCPV6, 1448, true);
	gso(2, XEN_NETIF_GSO_TYPE_TCPV6, 1448, false);
	ASSERT_EQ(xfab_tx_check(s, 3, MAXF, false, &pkt), XFAB_TX_DUP_EXTRA);
	ASSERT_EQ(pkt.consumed, 3);
	s[1].extra.type = XEN_NETIF_EXTRA_TYPE_NONE;
	ASSERT_EQ(xfab_tx_check(s, 3, MAXF, false, &pkt), XFAB_TX_BAD_EXTRA);
	s[1].extra.type = XFAB_NETIF_EXTRA_TYPES;
	ASSERT_EQ(xfab_tx_check(s, 3, MAXF, false, &pkt), XFAB_TX_BAD_EXTRA);
}

TEST(tx_fatal_too_many_extras)
{
	int i;

	req(0, 100, 0, XEN_NETTXF_extra_info, 100);
	for (i = 1; i <= XFAB_NETIF_MAX_EXTRAS + 1; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].extra.type = XEN_NETIF_EXTRA_TYPE_MCAST_ADD;
		s[i].extra.flags = XEN_NETIF_EXTRA_FLAG_MORE;
	}
	ASSERT_EQ(xfab_tx_check(s, 64, MAXF, false, &pkt), XFAB_TX_BAD_EXTRA);
}

TEST(tx_fatal_wins_over_earlier_drop)
{
	chain(3, 200);
	s[1].req.size = 0;		/* drop ... */
	s[3].req.offset = 4095;		/* ... then fatal */
	ASSERT_EQ(xfab_tx_check(s, 4, MAXF, false, &pkt), XFAB_TX_CROSS_PAGE);
	ASSERT_EQ(pkt.consumed, 0);
}

TEST(tx_pointer_slots_refused_unless_negotiated)
{
	int n = chain(2, 200);

	s[1].req.flags |= XFAB_NETTXF_PTR;
	ASSERT_EQ(xfab_tx_check(s, n, MAXF, false, &pkt), XFAB_TX_PTR_REFUSED);
	ASSERT_EQ(pkt.consumed, n);	/* dropped whole, answered */
	ASSERT_EQ(xfab_tx_check(s, n, MAXF, true, &pkt), XFAB_TX_OK);
	ASSERT_EQ(pkt.ptr_mask, 2u);	/* the first frag */
	s[0].req.flags |= XFAB_NETTXF_PTR;
	s[2].req.flags |= XFAB_NETTXF_PTR;
	ASSERT_EQ(xfab_tx_check(s, n, MAXF, true, &pkt), XFAB_TX_OK);
	ASSERT_EQ(pkt.ptr_mask, 7u);
	ASSERT_EQ(pkt.nr_frags, 2);
}

TEST(tx_pointer_slot_names_a_frame_not_a_grant)
{
	int n = chain(1, 200);

	/* frame 3 is a frame; grant 3 is reserved */
	s[1].req.gref = 3;
	ASSERT_EQ(xfab_tx_check(s, n, MAXF, true, &pkt), XFAB_TX_BAD_GREF);
	s[1].req.flags |= XFAB_NETTXF_PTR;
	ASSERT_EQ(xfab_tx_check(s, n, MAXF, true, &pkt), XFAB_TX_OK);
	/* the page bound holds for pointer slots too: fatal */
	s[1].req.offset = 4000;
	ASSERT_EQ(xfab_tx_check(s, n, MAXF, true, &pkt), XFAB_TX_CROSS_PAGE);
}

TEST(tx_err_names_unique)
{
	int a, b;

	ASSERT_TRUE(xfab_tx_err_name(XFAB_TX_OK) == NULL);
	ASSERT_TRUE(xfab_tx_err_name(XFAB_TX_NR_ERRS) == NULL);
	ASSERT_TRUE(xfab_tx_err_name(-1) == NULL);
	for (a = 1; a < XFAB_TX_NR_ERRS; a++) {
		ASSERT_TRUE(xfab_tx_err_name(a) != NULL);
		ASSERT_EQ(!strncmp(xfab_tx_err_name(a), "tx_fatal_", 9),
			  xfab_tx_err_fatal(a));
		for (b = 1; b < a; b++)
			ASSERT_NE(strcmp(xfab_tx_err_name(a), xfab_tx_err_name(b)), 0);
	}
}

/* Random slots: whatever the verdict, the datapath's invariants hold. */
TEST(tx_random_chains_keep_invariants)
{
	uint64_t x = 0x243f6a8885a308d3ull;
	int iter, i;

	for (iter = 0; iter < 200000; iter++) {
		u32 avail, sum, k;
		int err;

		/* up to the longest legal chain, and one slot past it */
		for (i = 0; i < XFAB_TX_MAX_CHAIN + 1; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(&s[i], &x, sizeof(s[i]) < 8 ? sizeof(s[i]) : 8);
			s[i].req.size = (u16)(x >> 40) % 2048;
			s[i].req.offset = (u16)(x >> 24) % 4200;
			s[i].req.flags = (u16)(x >> 56) & 0xf;
			if ((x >> 20) % 4 == 0)
				s[i].extra.type = (u8)((x >> 30) % 7);
		}
		avail = (u32)(x >> 8) % (XFAB_TX_MAX_CHAIN + 2);
		err = xfab_tx_check(s, avail, MAXF, false, &pkt);
		ASSERT_TRUE(err >= 0 && err < XFAB_TX_NR_ERRS);
		if (xfab_tx_err_fatal(err)) {
			ASSERT_EQ(pkt.consumed, 0);
			continue;
		}
		ASSERT_LE(1, pkt.consumed);
		ASSERT_LE(pkt.consumed, avail);
		ASSERT_LE(pkt.nr_frags, XFAB_TX_FATAL_SLOTS - 1);
		ASSERT_EQ(pkt.consumed, 1 + pkt.ex.nr + pkt.nr_frags);
		ASSERT_LE(s[0].req.offset + pkt.first_len, XFAB_PAGE_SIZE);
		sum = pkt.first_len;
		for (k = 0; k < pkt.nr_frags; k++) {
			const struct xen_netif_tx_request *r = &s[pkt.frag_slot[k]].req;

			ASSERT_LT(pkt.frag_slot[k], pkt.consumed);
			ASSERT_LE(r->offset + r->size, XFAB_PAGE_SIZE);
			sum += r->size;
		}
		ASSERT_EQ(sum, pkt.len);
		if (err == XFAB_TX_OK) {
			ASSERT_LE(XFAB_ETH_HLEN, pkt.len);
			ASSERT_LE(pkt.nr_frags, MAXF);
		}
	}
}

/*
 * The extras walker both directions share: TX and RX slots differ in
 * size, and a zero GSO size ends a TX walk but only drops on RX.
 */

TEST(netif_extras_zero_gso_ends_or_drops)
{
	struct xfab_netif_extras x;
	int drop;

	gso(1, XEN_NETIF_GSO_TYPE_TCPV4, 0, true);
	extra_rec(&s[2], XEN_NETIF_EXTRA_TYPE_MCAST_ADD, 0, 0, false);
	memset(&x, 0, sizeof(x));
	drop = 0;
	ASSERT_EQ(xfab_netif_extras(s, sizeof(s[0]), 1, 3, true, &x, &drop),
		  -XFAB_EXTRA_GSO_ZERO);
	memset(&x, 0, sizeof(x));
	ASSERT_EQ(xfab_netif_extras(s, sizeof(s[0]), 1, 3, false, &x, &drop),
		  3);
	ASSERT_EQ(drop, XFAB_EXTRA_GSO_ZERO);
	ASSERT_EQ(x.nr, 2);
	ASSERT_TRUE(x.mask & (1u << XEN_NETIF_EXTRA_TYPE_MCAST_ADD));
}

TEST(netif_extras_read_at_the_callers_stride)
{
	/* records 8 bytes apart, as in an RX ring copy */
	struct xen_netif_extra_info r[3];
	struct xfab_netif_extras x;
	int drop = 0;

	ASSERT_NE(sizeof(r[0]), sizeof(s[0]));
	memset(r, 0, sizeof(r));
	memset(&x, 0, sizeof(x));
	r[1].type = XEN_NETIF_EXTRA_TYPE_GSO;
	r[1].flags = XEN_NETIF_EXTRA_FLAG_MORE;
	r[1].u.gso.type = XEN_NETIF_GSO_TYPE_TCPV6;
	r[1].u.gso.size = 1428;
	r[2].type = XEN_NETIF_EXTRA_TYPE_MCAST_DEL;
	ASSERT_EQ(xfab_netif_extras(r, sizeof(r[0]), 1, 3, true, &x, &drop), 3);
	ASSERT_EQ(drop, 0);
	ASSERT_EQ(xfab_netif_gso(&x)->u.gso.size, 1428);
	/* and past the copy: the walk waits, nothing read beyond */
	memset(&x, 0, sizeof(x));
	ASSERT_EQ(xfab_netif_extras(r, sizeof(r[0]), 1, 2, true, &x, &drop),
		  -XFAB_EXTRA_INCOMPLETE);
}

TEST(netif_extras_first_drop_wins)
{
	struct xfab_netif_extras x;
	int drop = 0;

	memset(&x, 0, sizeof(x));
	gso(1, 9, 1448, true);
	gso(2, XEN_NETIF_GSO_TYPE_TCPV4, 1448, false);
	ASSERT_EQ(xfab_netif_extras(s, sizeof(s[0]), 1, 3, true, &x, &drop), 3);
	ASSERT_EQ(drop, XFAB_EXTRA_BAD_GSO_TYPE);
	/* the first record of a type is the one kept */
	ASSERT_EQ(xfab_netif_gso(&x)->u.gso.type, 9);
	ASSERT_EQ(x.nr, 2);
}
