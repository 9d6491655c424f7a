// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Ring index accounting under hostile producer indices. */
#include "xfab_test.h"
#include "../../common/xfab_ring.h"

TEST(reqs_pending_normal_and_wrapping)
{
	u32 n;

	ASSERT_EQ(xfab_ring_reqs_pending(256, 10, 0, 0, &n), 0);
	ASSERT_EQ(n, 10);
	ASSERT_EQ(xfab_ring_reqs_pending(256, 256, 0, 0, &n), 0);
	ASSERT_EQ(n, 256);
	/* indices wrapped past 2^32 */
	ASSERT_EQ(xfab_ring_reqs_pending(256, 5, 0xfffffff0u, 0xffffffe0u, &n), 0);
	ASSERT_EQ(n, 21);
	ASSERT_EQ(xfab_ring_reqs_pending(256, 7, 7, 7, &n), 0);
	ASSERT_EQ(n, 0);
}

TEST(reqs_pending_rejects_overflow)
{
	u32 n = 99;

	/* producer far past the consumer (XSA-39) */
	ASSERT_EQ(xfab_ring_reqs_pending(256, 257, 0, 0, &n), -EOVERFLOW);
	ASSERT_EQ(n, 0);
	ASSERT_EQ(xfab_ring_reqs_pending(256, 0x80000000u, 0, 0, &n), -EOVERFLOW);
	/* producer behind the consumer looks like a huge count */
	ASSERT_EQ(xfab_ring_reqs_pending(256, 9, 10, 10, &n), -EOVERFLOW);
	/* slots held by unanswered requests are not the peer's to fill */
	ASSERT_EQ(xfab_ring_reqs_pending(256, 200 + 57, 200, 0, &n), -EOVERFLOW);
	ASSERT_EQ(xfab_ring_reqs_pending(256, 200 + 56, 200, 0, &n), 0);
	ASSERT_EQ(n, 56);
	/* our own state corrupt: more in flight than the ring holds */
	ASSERT_EQ(xfab_ring_reqs_pending(256, 300, 300, 0, &n), -EOVERFLOW);
	/* a ring size that is not a power of two */
	ASSERT_EQ(xfab_ring_reqs_pending(100, 1, 0, 0, &n), -EOVERFLOW);
	ASSERT_EQ(xfab_ring_reqs_pending(0, 0, 0, 0, &n), -EOVERFLOW);
}

TEST(rsps_pending_bounded_by_outstanding)
{
	u32 n;

	ASSERT_EQ(xfab_ring_rsps_pending(256, 3, 0, 3, &n), 0);
	ASSERT_EQ(n, 3);
	/* answers to requests never made */
	ASSERT_EQ(xfab_ring_rsps_pending(256, 4, 0, 3, &n), -EOVERFLOW);
	ASSERT_EQ(xfab_ring_rsps_pending(256, 0xffffffffu, 0, 3, &n), -EOVERFLOW);
	/* rsp_prod moved backwards */
	ASSERT_EQ(xfab_ring_rsps_pending(256, 1, 2, 3, &n), -EOVERFLOW);
	/* wrapped */
	ASSERT_EQ(xfab_ring_rsps_pending(32, 2, 0xfffffffeu, 4, &n), 0);
	ASSERT_EQ(n, 4);
	/* our private index impossibly far ahead */
	ASSERT_EQ(xfab_ring_rsps_pending(32, 40, 0, 40, &n), -EOVERFLOW);
}

/* Any (prod, cons, rsp) triple: pending never exceeds the free room. */
TEST(reqs_pending_never_exceeds_room_random)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int i;

	for (i = 0; i < 200000; i++) {
		u32 prod, cons, rsp, n, size = 1u << (x % 10);

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		prod = (u32)x;
		cons = (u32)(x >> 32);
		rsp = cons - (u32)(x % (size + 2));
		if (xfab_ring_reqs_pending(size, prod, cons, rsp, &n) == 0) {
			ASSERT_LE(n + (cons - rsp), size);
			ASSERT_EQ(n, prod - cons);
		} else {
			ASSERT_EQ(n, 0);
		}
	}
}

TEST(free_reqs)
{
	ASSERT_EQ(xfab_ring_free_reqs(256, 0, 0), 256);
	ASSERT_EQ(xfab_ring_free_reqs(256, 256, 0), 0);
	ASSERT_EQ(xfab_ring_free_reqs(256, 300, 0), 0);
	ASSERT_EQ(xfab_ring_free_reqs(256, 3, 0xffffffffu), 252);
}

TEST(need_kick_matches_event_window)
{
	/* peer waits for index 5: kick when moving 3 -> 5, not 5 -> 6 */
	ASSERT_TRUE(xfab_ring_need_kick(3, 5, 5));
	ASSERT_TRUE(xfab_ring_need_kick(4, 5, 5));
	ASSERT_FALSE(xfab_ring_need_kick(5, 6, 5));
	ASSERT_FALSE(xfab_ring_need_kick(3, 4, 5));
	/* across the wrap */
	ASSERT_TRUE(xfab_ring_need_kick(0xfffffffeu, 2, 0));
	ASSERT_FALSE(xfab_ring_need_kick(0xfffffffeu, 2, 3));
	/* no movement never kicks */
	ASSERT_FALSE(xfab_ring_need_kick(7, 7, 7));
}
