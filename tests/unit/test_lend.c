// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Lending pool pages: a ring of slots and the pages off it, driven by a
 * stack that keeps pages for a while and lets them go in any order.
 * After every step each pool page is in exactly one place, with its own
 * grant reference; spares are pages nobody else holds; a ring slot never
 * names a page the stack still has; and a reclaim takes back every free
 * lent page and nothing else.
 */
#include <stdlib.h>
#include "xfab_test.h"
#include "../../common/xfab_lend.h"

#define RING 8u
#define OFF 5u
#define PAGES (RING + OFF)

static int page_id[PAGES];	/* the pages: their addresses are used */
static bool held[PAGES];	/* the stack holds page i */

static u32 idx(void *page)
{
	return (u32)((int *)page - page_id);
}

static bool is_free(void *page)
{
	return !held[idx(page)];
}

struct sim {
	struct xfab_lend_page ring[RING];
	struct xfab_lend_page off[OFF];
	struct xfab_lend l;
};

static void sim_init(struct sim *s)
{
	u32 i;

	for (i = 0; i < PAGES; i++) {
		held[i] = false;
		if (i < RING)
			s->ring[i] = (struct xfab_lend_page){ &page_id[i], 100 + i };
		else
			s->off[i - RING] = (struct xfab_lend_page){ &page_id[i], 100 + i };
	}
	s->l = (struct xfab_lend){ s->off, OFF, OFF };
}

/* Every page once, with its own reference; spares free; ring pages free. */
static int sim_ok(const struct sim *s)
{
	u32 seen[PAGES] = { 0 }, i, k;

	for (i = 0; i < RING; i++) {
		k = idx(s->ring[i].page);
		if (k >= PAGES || s->ring[i].ref != 100 + k || held[k])
			return 0;
		seen[k]++;
	}
	for (i = 0; i < OFF; i++) {
		k = idx(s->off[i].page);
		if (k >= PAGES || s->off[i].ref != 100 + k)
			return 0;
		if (i < s->l.nspare && held[k])
			return 0;
		seen[k]++;
	}
	for (i = 0; i < PAGES; i++)
		if (seen[i] != 1)
			return 0;
	return s->l.nspare <= s->l.n;
}

TEST(lend_swap_needs_a_spare)
{
	struct sim s;
	struct xfab_lend_page before;
	u32 i;

	sim_init(&s);
	for (i = 0; i < OFF; i++) {
		/* the slot's page is lent: the stack has it now */
		held[idx(s.ring[i].page)] = true;
		ASSERT_TRUE(xfab_lend_swap(&s.l, &s.ring[i]));
		ASSERT_TRUE(sim_ok(&s));
	}
	ASSERT_EQ(s.l.nspare, 0u);
	before = s.ring[OFF];
	ASSERT_FALSE(xfab_lend_swap(&s.l, &s.ring[OFF]));
	ASSERT_TRUE(s.ring[OFF].page == before.page);
	ASSERT_EQ(s.ring[OFF].ref, before.ref);
	/* nothing is free yet: nothing comes back */
	ASSERT_EQ(xfab_lend_reclaim(&s.l, is_free), 0u);
	ASSERT_EQ(s.l.nspare, 0u);
}

TEST(lend_reclaim_takes_exactly_the_free_pages)
{
	struct sim s;
	u32 i, want = 0;

	sim_init(&s);
	for (i = 0; i < OFF; i++) {
		held[idx(s.ring[i].page)] = true;
		xfab_lend_swap(&s.l, &s.ring[i]);
	}
	/* the stack lets go of every other lent page */
	for (i = 0; i < OFF; i += 2) {
		held[idx(s.off[i].page)] = false;
		want++;
	}
	ASSERT_EQ(xfab_lend_reclaim(&s.l, is_free), want);
	ASSERT_EQ(s.l.nspare, want);
	ASSERT_TRUE(sim_ok(&s));
	for (i = s.l.nspare; i < OFF; i++)
		ASSERT_TRUE(held[idx(s.off[i].page)]);
	/* a second look finds nothing more */
	ASSERT_EQ(xfab_lend_reclaim(&s.l, is_free), 0u);
}

TEST(lend_random_traffic_keeps_every_page_once)
{
	struct sim s;
	u32 step, lent = 0, back = 0;

	srand(22);
	sim_init(&s);
	for (step = 0; step < 100000; step++) {
		u32 r = (u32)rand() % 3, k = (u32)rand() % PAGES;

		if (r == 0) {
			/* a packet in slot k % RING: lend its page if we can */
			struct xfab_lend_page *slot = &s.ring[k % RING];
			u32 page = idx(slot->page);

			if (s.l.nspare) {
				held[page] = true;
				ASSERT_TRUE(xfab_lend_swap(&s.l, slot));
				lent++;
			}
		} else if (r == 1) {
			/* the stack frees page k (if it had it) */
			held[k] = false;
		} else {
			back += xfab_lend_reclaim(&s.l, is_free);
		}
		ASSERT_TRUE(sim_ok(&s));
	}
	ASSERT_LT(1000u, lent);
	ASSERT_LT(1000u, back);
}
