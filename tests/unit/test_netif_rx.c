// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Frontend RX chain validation with hostile responses: every drop, wait
 * and fatal reason, fatal winning over drop, ids checked against the ring
 * slot (wrap included), and random chains against the datapath's
 * invariants.
 */
#include "xfab_test.h"
#include "../../common/xfab_netif_rx.h"

#define RING 256u
#define FIRST 250u		/* chains start near the wrap on purpose */

static union xfab_rx_slot s[64];
static struct xfab_rx_pkt pkt;

static void rsp(int i, u16 off, u16 flags, s16 status)
{
	memset(&s[i], 0, sizeof(s[i]));
	s[i].rsp.id = (FIRST + i) & (RING - 1);
	s[i].rsp.offset = off;
	s[i].rsp.flags = flags;
	s[i].rsp.status = status;
}

static void gso(int i, u8 type, u16 size, bool more)
{
	memset(&s[i], 0, sizeof(s[i]));
	s[i].extra.type = XEN_NETIF_EXTRA_TYPE_GSO;
	s[i].extra.flags = more ? XEN_NETIF_EXTRA_FLAG_MORE : 0;
	s[i].extra.u.gso.type = type;
	s[i].extra.u.gso.size = size;
}

/* A packet of 1 + nfrags data slots: first_bytes, then 100 bytes each. */
static int chain(int nfrags, s16 first_bytes)
{
	int i;

	rsp(0, 0, nfrags ? XEN_NETRXF_more_data : 0, first_bytes);
	for (i = 1; i <= nfrags; i++)
		rsp(i, 0, i < nfrags ? XEN_NETRXF_more_data : 0, 100);
	return 1 + nfrags;
}

static int check(u32 avail)
{
	return xfab_rx_check(s, avail, FIRST, RING, false, &pkt);
}

TEST(rx_single_slot_ok)
{
	rsp(0, 0, XEN_NETRXF_csum_blank | XEN_NETRXF_data_validated, 1514);
	ASSERT_EQ(check(1), XFAB_RX_OK);
	ASSERT_EQ(pkt.consumed, 1);
	ASSERT_EQ(pkt.len, 1514);
	ASSERT_EQ(pkt.nr_data, 1);
	ASSERT_EQ(pkt.data_slot[0], 0);
	ASSERT_EQ(pkt.flags, XEN_NETRXF_csum_blank | XEN_NETRXF_data_validated);
}

TEST(rx_gso_chain_across_the_wrap_ok)
{
	rsp(0, 0, XEN_NETRXF_more_data | XEN_NETRXF_extra_info, 4096);
	gso(1, XEN_NETIF_GSO_TYPE_TCPV6, 1440, false);
	rsp(2, 0, XEN_NETRXF_more_data, 4096);
	rsp(3, 0, XEN_NETRXF_more_data, 4096);
	rsp(4, 0, XEN_NETRXF_more_data, 4096);
	rsp(5, 0, XEN_NETRXF_more_data, 4096);
	rsp(6, 96, 0, 1000);	/* ring index 256: id 0 */
	/* a slot past the chain must not matter */
	rsp(7, 4095, XEN_NETRXF_more_data, -1);
	ASSERT_EQ(s[6].rsp.id, 0);
	ASSERT_EQ(check(8), XFAB_RX_OK);
	ASSERT_EQ(pkt.consumed, 7);
	ASSERT_EQ(pkt.ex.nr, 1);
	ASSERT_EQ(pkt.nr_data, 6);
	ASSERT_EQ(pkt.len, 5 * 4096 + 1000);
	ASSERT_EQ(pkt.data_slot[1], 2);
	ASSERT_EQ(pkt.data_slot[5], 6);
	ASSERT_TRUE(pkt.ex.mask & (1u << XEN_NETIF_EXTRA_TYPE_GSO));
	ASSERT_EQ(pkt.ex.e[XEN_NETIF_EXTRA_TYPE_GSO].u.gso.size, 1440);
}

TEST(rx_extras_without_more_data)
{
	rsp(0, 0, XEN_NETRXF_extra_info, 200);
	gso(1, XEN_NETIF_GSO_TYPE_TCPV4, 1448, false);
	rsp(2, 0, 0, 0x7fff);	/* next packet: not ours to look at */
	ASSERT_EQ(check(3), XFAB_RX_OK);
	ASSERT_EQ(pkt.consumed, 2);
	ASSERT_EQ(pkt.nr_data, 1);
	ASSERT_EQ(pkt.len, 200);
}

TEST(rx_fatal_bad_id)
{
	chain(2, 200);
	s[0].rsp.id = FIRST + 1;
	ASSERT_EQ(check(3), XFAB_RX_BAD_ID);
	ASSERT_EQ(pkt.consumed, 0);
	chain(7, 200);
	ASSERT_EQ(check(8), XFAB_RX_OK);
	s[6].rsp.id = FIRST + 6;	/* 256: not reduced modulo the ring */
	ASSERT_EQ(check(8), XFAB_RX_BAD_ID);
	chain(2, 200);
	s[1].rsp.id = 0xffff;
	ASSERT_EQ(check(3), XFAB_RX_BAD_ID);
	/* a bad id even on an error response */
	chain(0, -1);
	s[0].rsp.id = 7;
	ASSERT_EQ(check(1), XFAB_RX_BAD_ID);
	chain(0, 200);
	ASSERT_EQ(xfab_rx_check(s, 1, FIRST, 0, false, &pkt), XFAB_RX_BAD_ID);
	ASSERT_EQ(xfab_rx_check(s, 1, FIRST, 255, false, &pkt), XFAB_RX_BAD_ID);
}

TEST(rx_drop_backend_error_consumes_chain)
{
	chain(2, 200);
	s[1].rsp.status = XEN_NETIF_RSP_ERROR;
	ASSERT_EQ(check(3), XFAB_RX_BACKEND_ERR);
	ASSERT_EQ(pkt.consumed, 3);
	chain(0, -2);
	ASSERT_EQ(check(1), XFAB_RX_BACKEND_ERR);
	ASSERT_EQ(pkt.consumed, 1);
	/* an error slot's offset is not looked at: nothing to copy */
	chain(0, -1);
	s[0].rsp.offset = 0xffff;
	ASSERT_EQ(check(1), XFAB_RX_BACKEND_ERR);
}

TEST(rx_fatal_cross_page)
{
	chain(1, 200);
	s[1].rsp.offset = XFAB_PAGE_SIZE - 99;
	ASSERT_EQ(check(2), XFAB_RX_CROSS_PAGE);
	ASSERT_EQ(pkt.consumed, 0);
	chain(0, 0x7fff);
	ASSERT_EQ(check(1), XFAB_RX_CROSS_PAGE);
	chain(0, 4096);
	ASSERT_EQ(check(1), XFAB_RX_OK);
	s[0].rsp.offset = 1;
	ASSERT_EQ(check(1), XFAB_RX_CROSS_PAGE);
	chain(0, 0);
	s[0].rsp.offset = XFAB_PAGE_SIZE + 1;
	ASSERT_EQ(check(1), XFAB_RX_CROSS_PAGE);
}

TEST(rx_drop_zero_frag_and_runt)
{
	chain(2, 200);
	s[1].rsp.status = 0;
	ASSERT_EQ(check(3), XFAB_RX_ZERO_FRAG);
	ASSERT_EQ(pkt.consumed, 3);
	chain(1, 200);
	s[1].rsp.status = 0;
	ASSERT_EQ(check(2), XFAB_RX_ZERO_FRAG);
	chain(0, XFAB_ETH_HLEN - 1);
	ASSERT_EQ(check(1), XFAB_RX_RUNT);
	ASSERT_EQ(pkt.consumed, 1);
	chain(0, XFAB_ETH_HLEN);
	ASSERT_EQ(check(1), XFAB_RX_OK);
	/* a header split over slots is fine as long as the total is there */
	chain(1, 0);
	ASSERT_EQ(check(2), XFAB_RX_OK);
	ASSERT_EQ(pkt.len, 100);
}

TEST(rx_wait_for_incomplete_chain)
{
	int n = chain(3, 200);

	ASSERT_EQ(check(n - 1), XFAB_RX_INCOMPLETE);
	ASSERT_EQ(pkt.consumed, 0);
	ASSERT_FALSE(xfab_rx_err_fatal(XFAB_RX_INCOMPLETE));
	ASSERT_FALSE(xfab_rx_err_drop(XFAB_RX_INCOMPLETE));
	ASSERT_EQ(check(0), XFAB_RX_INCOMPLETE);
	rsp(0, 0, XEN_NETRXF_extra_info, 100);
	ASSERT_EQ(check(1), XFAB_RX_INCOMPLETE);
	gso(1, XEN_NETIF_GSO_TYPE_TCPV4, 1448, true);
	ASSERT_EQ(check(2), XFAB_RX_INCOMPLETE);
	ASSERT_EQ(check(n), XFAB_RX_BAD_EXTRA);	/* s[2] is not an extra */
}

TEST(rx_fatal_slot_flood)
{
	int n = chain(XFAB_RX_MAX_SLOTS - 1, 200);

	ASSERT_EQ(check(n), XFAB_RX_OK);
	ASSERT_EQ(pkt.nr_data, XFAB_RX_MAX_SLOTS);
	n = chain(XFAB_RX_MAX_SLOTS, 200);
	ASSERT_EQ(check(n), XFAB_RX_SLOT_FLOOD);
	ASSERT_EQ(pkt.consumed, 0);
	/* known before the chain is complete: waiting would never end it */
	ASSERT_EQ(check(n - 1), XFAB_RX_SLOT_FLOOD);
	ASSERT_EQ(check(n - 2), XFAB_RX_INCOMPLETE);
}

TEST(rx_drop_too_big)
{
	int n = chain(XFAB_RX_MAX_SLOTS - 2, 4096), i;

	for (i = 1; i < n; i++)
		s[i].rsp.status = 4096;
	ASSERT_EQ(check(n), XFAB_RX_TOO_BIG);
	ASSERT_EQ(pkt.consumed, n);
	s[n - 1].rsp.status = XFAB_RX_MAX_LEN - (n - 1) * 4096;
	ASSERT_EQ(check(n), XFAB_RX_OK);
	s[n - 1].rsp.status++;
	ASSERT_EQ(check(n), XFAB_RX_TOO_BIG);
}

TEST(rx_extras_bad_gso_and_dup)
{
	rsp(0, 0, XEN_NETRXF_extra_info, 100);
	gso(1, XEN_NETIF_GSO_TYPE_TCPV4, 0, false);
	ASSERT_EQ(check(2), XFAB_RX_GSO_ZERO);
	ASSERT_EQ(pkt.consumed, 2);
	gso(1, 77, 1448, false);
	ASSERT_EQ(check(2), XFAB_RX_BAD_GSO_TYPE);
	ASSERT_EQ(pkt.consumed, 2);
	gso(1, XEN_NETIF_GSO_TYPE_NONE, 1448, false);
	ASSERT_EQ(check(2), XFAB_RX_BAD_GSO_TYPE);
	gso(1, XEN_NETIF_GSO_TYPE_TCPV6, 1448, true);
	gso(2, XEN_NETIF_GSO_TYPE_TCPV6, 1448, false);
	ASSERT_EQ(check(3), XFAB_RX_DUP_EXTRA);
	ASSERT_EQ(pkt.consumed, 3);
	s[1].extra.type = XEN_NETIF_EXTRA_TYPE_NONE;
	ASSERT_EQ(check(3), XFAB_RX_BAD_EXTRA);
	s[1].extra.type = XFAB_NETIF_EXTRA_TYPES;
	ASSERT_EQ(check(3), XFAB_RX_BAD_EXTRA);
	ASSERT_EQ(pkt.consumed, 0);
}

TEST(rx_fatal_too_many_extras)
{
	int i;

	rsp(0, 0, XEN_NETRXF_extra_info, 100);
	for (i = 1; i <= XFAB_NETIF_MAX_EXTRAS + 1; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].extra.type = XEN_NETIF_EXTRA_TYPE_MCAST_ADD;
		s[i].extra.flags = XEN_NETIF_EXTRA_FLAG_MORE;
	}
	ASSERT_EQ(check(64), XFAB_RX_BAD_EXTRA);
}

TEST(rx_fatal_wins_over_earlier_drop)
{
	chain(3, 200);
	s[1].rsp.status = 0;		/* drop ... */
	s[3].rsp.offset = 4095;		/* ... then fatal */
	ASSERT_EQ(check(4), XFAB_RX_CROSS_PAGE);
	ASSERT_EQ(pkt.consumed, 0);
	chain(3, 200);
	s[1].rsp.status = -1;
	s[3].rsp.id ^= 1;
	ASSERT_EQ(check(4), XFAB_RX_BAD_ID);
}

TEST(rx_err_names_unique)
{
	int a, b;

	ASSERT_TRUE(xfab_rx_err_name(XFAB_RX_OK) == NULL);
	ASSERT_TRUE(xfab_rx_err_name(XFAB_RX_NR_ERRS) == NULL);
	ASSERT_TRUE(xfab_rx_err_name(-1) == NULL);
	for (a = 1; a < XFAB_RX_NR_ERRS; a++) {
		ASSERT_TRUE(xfab_rx_err_name(a) != NULL);
		ASSERT_EQ(!strncmp(xfab_rx_err_name(a), "rx_fatal_", 9),
			  xfab_rx_err_fatal(a));
		ASSERT_EQ(!strncmp(xfab_rx_err_name(a), "rx_drop_", 8),
			  xfab_rx_err_drop(a));
		for (b = 1; b < a; b++)
			ASSERT_NE(strcmp(xfab_rx_err_name(a), xfab_rx_err_name(b)), 0);
	}
}

static void ref(int i, u16 peer, u32 frame)
{
	xfab_rx_ref_pack(&s[i].extra, peer, frame);
}

static int check_refs(u32 avail)
{
	return xfab_rx_check(s, avail, FIRST, RING, true, &pkt);
}

/* Headers in our page, then two pieces of a peer's frames. */
TEST(rx_refs_ok)
{
	rsp(0, 0, XEN_NETRXF_more_data | XEN_NETRXF_extra_info, 66);
	gso(1, XEN_NETIF_GSO_TYPE_TCPV4, 1448, false);
	rsp(2, 100, XEN_NETRXF_more_data | XFAB_NETRXF_REF, 3996);
	ref(3, 7, 0x12345678);
	rsp(4, 0, XFAB_NETRXF_REF, 4096);
	ref(5, 9, 0xfffff);
	ASSERT_EQ(check_refs(6), XFAB_RX_OK);
	ASSERT_EQ(pkt.consumed, 6);
	ASSERT_EQ(pkt.nr_data, 3);
	ASSERT_EQ(pkt.len, 66 + 3996 + 4096);
	ASSERT_EQ(pkt.ref_mask, 6);
	ASSERT_EQ(pkt.data_slot[1], 2);
	ASSERT_EQ(pkt.data_slot[2], 4);
	ASSERT_EQ(pkt.ref_peer[1], 7);
	ASSERT_EQ(pkt.ref_frame[1], 0x12345678);
	ASSERT_EQ(pkt.ref_peer[2], 9);
	ASSERT_EQ(pkt.ref_frame[2], 0xfffff);
	/* the frame slot is part of the chain: without it, wait */
	ASSERT_EQ(check_refs(5), XFAB_RX_INCOMPLETE);
	ASSERT_EQ(check_refs(3), XFAB_RX_INCOMPLETE);
}

/* References we did not ask for, on the first slot, or malformed. */
TEST(rx_refs_fatal)
{
	rsp(0, 0, XEN_NETRXF_more_data, 66);
	rsp(1, 0, XFAB_NETRXF_REF, 1000);
	ref(2, 7, 42);
	ASSERT_EQ(check_refs(3), XFAB_RX_OK);
	ASSERT_EQ(check(3), XFAB_RX_BAD_REF);	/* not negotiated */
	ASSERT_EQ(pkt.consumed, 0);
	s[2].extra.flags = XEN_NETIF_EXTRA_FLAG_MORE;
	ASSERT_EQ(check_refs(3), XFAB_RX_BAD_REF);
	ref(2, 7, 42);
	s[2].extra.type = XEN_NETIF_EXTRA_TYPE_GSO;
	ASSERT_EQ(check_refs(3), XFAB_RX_BAD_REF);
	ref(2, 7, 42);
	rsp(1, 3000, XFAB_NETRXF_REF, 1097);	/* past the page */
	ASSERT_EQ(check_refs(3), XFAB_RX_CROSS_PAGE);
	/* the headers are never a reference: we parse them from our page */
	rsp(0, 0, XFAB_NETRXF_REF, 66);
	ref(1, 7, 42);
	ASSERT_EQ(check_refs(2), XFAB_RX_BAD_REF);
}

/* A reference the backend failed is a drop; its frame slot still goes. */
TEST(rx_refs_backend_error_consumes_frame_slot)
{
	rsp(0, 0, XEN_NETRXF_more_data, 66);
	rsp(1, 0, XFAB_NETRXF_REF, XEN_NETIF_RSP_ERROR);
	ref(2, 7, 42);
	ASSERT_EQ(check_refs(3), XFAB_RX_BACKEND_ERR);
	ASSERT_EQ(pkt.consumed, 3);
}

/* The longest chain: every slot but the first a reference, plus GSO. */
TEST(rx_refs_longest_chain)
{
	int i, n = 2;

	rsp(0, 0, XEN_NETRXF_more_data | XEN_NETRXF_extra_info, 100);
	gso(1, XEN_NETIF_GSO_TYPE_TCPV4, 1448, false);
	for (i = 1; i < (int)XFAB_RX_MAX_SLOTS; i++, n += 2) {
		rsp(n, 0, (i + 1 < (int)XFAB_RX_MAX_SLOTS ?
			   XEN_NETRXF_more_data : 0) | XFAB_NETRXF_REF, 3000);
		ref(n + 1, 5, i);
	}
	ASSERT_LE(n, XFAB_RX_MAX_CHAIN);
	ASSERT_EQ(check_refs(n), XFAB_RX_OK);
	ASSERT_EQ(pkt.consumed, n);
	ASSERT_EQ(pkt.nr_data, XFAB_RX_MAX_SLOTS);
}

/* Random responses: whatever the verdict, the datapath's invariants hold. */
TEST(rx_random_chains_keep_invariants)
{
	uint64_t x = 0x13198a2e03707344ull;
	int iter, i;

	for (iter = 0; iter < 200000; iter++) {
		u32 avail, first, sum, k;
		bool refs;
		int err;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		first = (u32)(x >> 3);
		for (i = 0; i < XFAB_RX_MAX_CHAIN + 1; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(&s[i], &x, sizeof(s[i]));
			s[i].rsp.status = (s16)((x >> 40) % 4300) - 100;
			s[i].rsp.offset = (u16)(x >> 24) % 4200;
			s[i].rsp.flags = (u16)(x >> 56) & 0xf;
			if ((x >> 52) % 4 == 0)
				s[i].rsp.flags |= XFAB_NETRXF_REF;
			/* mostly the right id, so chains get long */
			if ((x >> 18) % 16)
				s[i].rsp.id = (first + i) & (RING - 1);
			if ((x >> 20) % 4 == 0)
				s[i].extra.type = (u8)((x >> 30) % 7);
			if ((x >> 20) % 4 == 1) {
				s[i].extra.type = XFAB_NETIF_EXTRA_TYPE_REF;
				s[i].extra.flags = (x >> 33) % 8 == 0;
			}
		}
		avail = (u32)(x >> 8) % (XFAB_RX_MAX_CHAIN + 2);
		refs = (x >> 5) & 1;
		err = xfab_rx_check(s, avail, first, RING, refs, &pkt);
		ASSERT_TRUE(err >= 0 && err < XFAB_RX_NR_ERRS);
		if (err == XFAB_RX_INCOMPLETE || xfab_rx_err_fatal(err)) {
			ASSERT_EQ(pkt.consumed, 0);
			continue;
		}
		ASSERT_LE(1, pkt.consumed);
		ASSERT_LE(pkt.consumed, avail);
		ASSERT_LE(pkt.nr_data, XFAB_RX_MAX_SLOTS);
		ASSERT_EQ(pkt.consumed, pkt.nr_data + pkt.ex.nr +
					__builtin_popcount(pkt.ref_mask));
		ASSERT_EQ(pkt.ref_mask & 1, 0);
		if (!refs)
			ASSERT_EQ(pkt.ref_mask, 0);
		ASSERT_EQ(pkt.data_slot[0], 0);
		sum = 0;
		for (k = 0; k < pkt.nr_data; k++) {
			const struct xen_netif_rx_response *r = &s[pkt.data_slot[k]].rsp;

			ASSERT_LT(pkt.data_slot[k], pkt.consumed);
			ASSERT_EQ(r->id, (first + pkt.data_slot[k]) & (RING - 1));
			if (k)
				ASSERT_LT(pkt.data_slot[k - 1], pkt.data_slot[k]);
			if (r->status < 0) {
				ASSERT_NE(err, XFAB_RX_OK);
				continue;
			}
			ASSERT_LE(r->offset + r->status, XFAB_PAGE_SIZE);
			if (err == XFAB_RX_OK && k)
				ASSERT_LT(0, r->status);
			sum += r->status;
		}
		ASSERT_EQ(sum, pkt.len);
		if (err == XFAB_RX_OK) {
			ASSERT_LE(XFAB_ETH_HLEN, pkt.len);
			ASSERT_LE(pkt.len, XFAB_RX_MAX_LEN);
		}
	}
}
