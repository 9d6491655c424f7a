// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The grant cache (common/xfab_gcache.c) and the polling budget
 * (common/xfab_poll.c): LRU order, pins that block eviction, a full
 * cache of pinned slots, idle purge, and random operations checked
 * against a plain model.
 */
#include "xfab_test.h"
#include "../../common/xfab_gcache.h"
#include "../../common/xfab_poll.h"

#define CAP 8
#define BUCKETS 4	/* fewer than slots: chains get long */

static struct xfab_gc_ent ent[CAP];
static u32 bucket[BUCKETS];
static struct xfab_gcache gc;

TEST(gc_init_rejects_bad_sizes)
{
	ASSERT_EQ(xfab_gc_init(&gc, 0, BUCKETS, ent, bucket), -EINVAL);
	ASSERT_EQ(xfab_gc_init(&gc, CAP, 3, ent, bucket), -EINVAL);
	ASSERT_EQ(xfab_gc_init(&gc, CAP, 0, ent, bucket), -EINVAL);
	ASSERT_EQ(xfab_gc_init(&gc, XFAB_GC_NONE, BUCKETS, ent, bucket), -EINVAL);
	ASSERT_EQ(xfab_gc_init(&gc, CAP, BUCKETS, ent, bucket), 0);
}

TEST(gc_evicts_least_recent)
{
	bool ev;
	u64 old, k;
	u32 s, s3;

	ASSERT_EQ(xfab_gc_init(&gc, CAP, BUCKETS, ent, bucket), 0);
	for (k = 0; k < CAP; k++) {
		s = xfab_gc_insert(&gc, 100 + k, k, &ev, &old);
		ASSERT_NE(s, XFAB_GC_NONE);
		ASSERT_FALSE(ev);
	}
	ASSERT_EQ(gc.nr, CAP);
	ASSERT_EQ(xfab_gc_find(&gc, 999, 50), XFAB_GC_NONE);
	s3 = xfab_gc_find(&gc, 100, 50);	/* the oldest becomes the newest */
	ASSERT_NE(s3, XFAB_GC_NONE);
	s = xfab_gc_insert(&gc, 200, 51, &ev, &old);
	ASSERT_TRUE(ev);
	ASSERT_EQ(old, 101);
	ASSERT_EQ(xfab_gc_find(&gc, 101, 52), XFAB_GC_NONE);
	ASSERT_EQ(xfab_gc_find(&gc, 200, 52), s);
	ASSERT_EQ(xfab_gc_find(&gc, 100, 52), s3);
	ASSERT_EQ(gc.nr, CAP);
}

TEST(gc_pins_block_eviction)
{
	bool ev;
	u64 old, k;
	u32 s[CAP], n;

	ASSERT_EQ(xfab_gc_init(&gc, CAP, BUCKETS, ent, bucket), 0);
	for (k = 0; k < CAP; k++) {
		s[k] = xfab_gc_insert(&gc, k, k, &ev, &old);
		xfab_gc_pin(&gc, s[k]);
	}
	ASSERT_EQ(xfab_gc_insert(&gc, 77, 9, &ev, &old), XFAB_GC_NONE);
	ASSERT_FALSE(ev);
	ASSERT_EQ(xfab_gc_remove(&gc, s[3]), -EBUSY);
	ASSERT_EQ(xfab_gc_idle(&gc, 1000), XFAB_GC_NONE);
	xfab_gc_unpin(&gc, s[5]);
	n = xfab_gc_insert(&gc, 77, 9, &ev, &old);
	ASSERT_EQ(n, s[5]);
	ASSERT_TRUE(ev);
	ASSERT_EQ(old, 5);
	xfab_gc_unpin(&gc, s[0]);
	xfab_gc_unpin(&gc, s[0]);	/* one too many: stays at 0 */
	ASSERT_EQ(gc.ent[s[0]].pins, 0);
	ASSERT_EQ(xfab_gc_remove(&gc, s[0]), 0);
	ASSERT_EQ(xfab_gc_remove(&gc, s[0]), -ENOENT);
	ASSERT_EQ(xfab_gc_remove(&gc, CAP), -ENOENT);
	ASSERT_EQ(gc.nr, CAP - 1);
	ASSERT_EQ(xfab_gc_insert(&gc, 78, 10, &ev, &old), s[0]);	/* free slot */
	ASSERT_FALSE(ev);
}

TEST(gc_idle_purge_oldest_first)
{
	bool ev;
	u64 old;
	u32 a, b, c2;

	ASSERT_EQ(xfab_gc_init(&gc, CAP, BUCKETS, ent, bucket), 0);
	a = xfab_gc_insert(&gc, 1, 10, &ev, &old);
	b = xfab_gc_insert(&gc, 2, 20, &ev, &old);
	c2 = xfab_gc_insert(&gc, 3, 30, &ev, &old);
	ASSERT_EQ(xfab_gc_idle(&gc, 10), XFAB_GC_NONE);	/* none older */
	ASSERT_EQ(xfab_gc_idle(&gc, 25), a);
	xfab_gc_pin(&gc, a);
	ASSERT_EQ(xfab_gc_idle(&gc, 25), b);	/* pinned one skipped */
	ASSERT_EQ(xfab_gc_remove(&gc, b), 0);
	ASSERT_EQ(xfab_gc_idle(&gc, 25), XFAB_GC_NONE);
	xfab_gc_find(&gc, 3, 40);
	ASSERT_EQ(xfab_gc_idle(&gc, 45), c2);
}

/*
 * A slot in flight is off the recency list: when it comes back it is the
 * newest, and the victim is whatever is oldest among the rest, found
 * without walking the pinned ones.
 */
TEST(gc_unpinned_slot_comes_back_newest)
{
	bool ev;
	u64 old, k;
	u32 a, s[CAP];

	ASSERT_EQ(xfab_gc_init(&gc, CAP, BUCKETS, ent, bucket), 0);
	a = xfab_gc_insert(&gc, 1000, 0, &ev, &old);
	for (k = 1; k < CAP; k++)
		s[k] = xfab_gc_insert(&gc, k, k, &ev, &old);
	xfab_gc_pin(&gc, a);
	xfab_gc_pin(&gc, a);
	ASSERT_EQ(gc.lru, s[1]);		/* the pinned oldest is off the list */
	xfab_gc_find(&gc, 1000, 100);		/* a find while pinned: no relink */
	xfab_gc_unpin(&gc, a);
	ASSERT_EQ(gc.lru, s[1]);
	xfab_gc_unpin(&gc, a);
	ASSERT_EQ(gc.mru, a);			/* back, as the newest */
	ASSERT_EQ(xfab_gc_insert(&gc, 2000, 101, &ev, &old), s[1]);
	ASSERT_TRUE(ev);
	ASSERT_EQ(old, 1);
	ASSERT_EQ(xfab_gc_remove(&gc, a), 0);
	ASSERT_EQ(gc.nr, CAP - 1);
}

/* Random finds, inserts, pins and removes against an array model. */
TEST(gc_random_against_model)
{
	u64 mkey[CAP];
	int mused[CAP] = { 0 }, mpins[CAP] = { 0 };
	uint64_t x = 0x243f6a8885a308d3ull;
	u64 now = 1, old;
	bool ev;
	int i, j;

	ASSERT_EQ(xfab_gc_init(&gc, CAP, BUCKETS, ent, bucket), 0);
	for (i = 0; i < 200000; i++) {
		u64 key;
		u32 s;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		key = (x >> 8) % 20;
		s = xfab_gc_find(&gc, key, now++);
		for (j = 0; j < CAP; j++)
			if (mused[j] && mkey[j] == key)
				break;
		if (j < CAP) {
			ASSERT_EQ(s, j);
		} else {
			ASSERT_EQ(s, XFAB_GC_NONE);
			s = xfab_gc_insert(&gc, key, now++, &ev, &old);
			if (s == XFAB_GC_NONE) {
				for (j = 0; j < CAP; j++)
					ASSERT_TRUE(mused[j] && mpins[j]);
				continue;
			}
			ASSERT_EQ(ev, mused[s]);
			if (ev) {
				ASSERT_EQ(old, mkey[s]);
				ASSERT_EQ(mpins[s], 0);
			}
			mused[s] = 1;
			mkey[s] = key;
			mpins[s] = 0;
		}
		switch (x % 5) {
		case 0:
			xfab_gc_pin(&gc, s);
			mpins[s]++;
			break;
		case 1:
			xfab_gc_unpin(&gc, s);
			if (mpins[s])
				mpins[s]--;
			break;
		case 2:
			ASSERT_EQ(xfab_gc_remove(&gc, s), mpins[s] ? -EBUSY : 0);
			if (!mpins[s])
				mused[s] = 0;
			break;
		}
		ASSERT_TRUE(gc.nr <= CAP);
	}
}

TEST(poll_budget_adapts_within_bounds)
{
	struct xfab_poll p;
	int i;

	xfab_poll_init(&p, 10, 1000);
	ASSERT_EQ(xfab_poll_budget(&p), 1000);
	for (i = 0; i < 40; i++)
		xfab_poll_end(&p, false);
	ASSERT_EQ(xfab_poll_budget(&p), 10);	/* halved down to min */
	xfab_poll_end(&p, true);
	ASSERT_EQ(xfab_poll_budget(&p), 20);
	for (i = 0; i < 40; i++)
		xfab_poll_end(&p, true);
	ASSERT_EQ(xfab_poll_budget(&p), 1000);	/* doubled up to max */
	ASSERT_EQ(p.polls, 81);
	ASSERT_EQ(p.found, 41);
	ASSERT_EQ(p.empty, 40);
}

/*
 * A producer that posts a request just before each look would end: every
 * look finds work and spins almost its whole budget. One round (64
 * looks, a NAPI budget) may spin one largest budget in all, not 64.
 */
TEST(poll_round_spins_one_budget_in_all)
{
	struct xfab_poll p;
	struct xfab_poll_round r = { 0 };
	u64 now = 5000, spun = 0, until, end;
	int looks = 0, i;

	xfab_poll_init(&p, 10, 1000);
	for (i = 0; i < 64; i++) {
		until = xfab_poll_round_look(&r, &p, now);
		if (!until)
			break;
		end = now + xfab_poll_budget(&p) - 1;	/* work just in time */
		if (end > until)
			end = until;
		spun += end - now;
		xfab_poll_end(&p, end < until);
		now = end + 3;		/* the request's processing */
		looks++;
	}
	ASSERT_TRUE(r.cut);
	ASSERT_TRUE(spun <= 1000);
	ASSERT_TRUE(looks >= 1 && looks < 64);
	/* a new round may spin again */
	r = (struct xfab_poll_round){ 0 };
	ASSERT_EQ(xfab_poll_round_look(&r, &p, now), now + 1000);
	ASSERT_TRUE(!r.cut);
	/* polling off: a look is still bounded, never open-ended */
	xfab_poll_init(&p, 0, 0);
	r = (struct xfab_poll_round){ 0 };
	ASSERT_EQ(xfab_poll_round_look(&r, &p, 7), 8);
}

TEST(poll_off_and_min_clamps)
{
	struct xfab_poll p;

	xfab_poll_init(&p, 0, 0);
	xfab_poll_end(&p, true);
	ASSERT_EQ(xfab_poll_budget(&p), 0);	/* max 0: off for good */
	xfab_poll_init(&p, 0, 64);
	while (xfab_poll_budget(&p) > 1)
		xfab_poll_end(&p, false);
	xfab_poll_end(&p, false);
	ASSERT_EQ(xfab_poll_budget(&p), 1);	/* never 0: it can grow again */
	xfab_poll_end(&p, true);
	ASSERT_EQ(xfab_poll_budget(&p), 2);
	xfab_poll_init(&p, 500, 100);	/* min above max */
	xfab_poll_end(&p, false);
	ASSERT_EQ(xfab_poll_budget(&p), 100);
}
