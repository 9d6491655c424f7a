// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The read-only window's index: the peer's frame list is refused unless
 * strictly ascending and in range; once indexed, every entry is found
 * from its peer frame, nothing else is, and a span is allowed only
 * inside one mapped page. A page's tag gives back its peer and entry,
 * and a word without the tag's mark gives nothing. The peer-frame table
 * stays at most half full, and its lookups short, for the frame layouts
 * a PV peer has (long consecutive runs, superpage-aligned strides).
 */
#include <stdlib.h>
#include "xfab_test.h"
#include "../../common/xfab_window.h"
#include "../../common/xfab_plant.h"

#define N 4000u

static u64 peer[N];
static u32 slot[8192];	/* xfab_win_slots(N) */

/* N ascending peer frames with random gaps. */
static struct xfab_win make_win(u32 n, unsigned int seed)
{
	struct xfab_win w = { .n = n, .peer = peer, .slot = slot,
			      .slots = xfab_win_slots(n) };
	u64 f = 0x100;
	u32 i;

	srand(seed);
	for (i = 0; i < n; i++) {
		f += 1 + (u64)(rand() % 7);
		peer[i] = f;
	}
	return w;
}

TEST(window_frame_list_must_ascend_within_range)
{
	u64 ok[] = { 1, 2, 9, XFAB_WIN_MAX_FRAME };
	u64 dup[] = { 1, 5, 5, 7 };
	u64 down[] = { 4, 3 };
	u64 huge[] = { 1, XFAB_WIN_MAX_FRAME + 1 };
	u32 bad = 99;

	ASSERT_EQ(xfab_win_check_frames(ok, 4, &bad), 0);
	ASSERT_EQ(bad, 99u);
	ASSERT_EQ(xfab_win_check_frames(dup, 4, &bad), -EINVAL);
	ASSERT_EQ(bad, 2u);
	ASSERT_EQ(xfab_win_check_frames(down, 2, &bad), -EINVAL);
	ASSERT_EQ(bad, 1u);
	ASSERT_EQ(xfab_win_check_frames(huge, 2, &bad), -EINVAL);
	ASSERT_EQ(bad, 1u);
	ASSERT_EQ(xfab_win_check_frames(ok, 0, &bad), 0);
}

TEST(window_finds_every_entry_and_nothing_else)
{
	u32 sizes[] = { 0, 1, 2, 3, 17, N };
	u32 s, i, e, bad;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct xfab_win w = make_win(sizes[s], 7 + s);

		ASSERT_EQ(xfab_win_check_frames(w.peer, w.n, &bad), 0);
		ASSERT_EQ(xfab_win_index(&w), 0);
		for (i = 0; i < w.n; i++) {
			e = ~0u;
			ASSERT_EQ(xfab_win_find_peer(&w, peer[i], &e), 0);
			ASSERT_EQ(e, i);
			/* between two peer frames */
			if (i + 1 < w.n && peer[i] + 1 < peer[i + 1])
				ASSERT_EQ(xfab_win_find_peer(&w, peer[i] + 1, &e), -ENOENT);
		}
		ASSERT_EQ(xfab_win_find_peer(&w, 0, &e), -ENOENT);
		ASSERT_EQ(xfab_win_find_peer(&w, ~0ull, &e), -ENOENT);
	}
}

TEST(window_tag_gives_back_its_peer_and_entry)
{
	u16 peers[] = { 0, 1, 7, 0x7fef, 0xffff };
	u32 entries[] = { 0, 1, 4095, 0x7fffffffu, 0xffffffffu };
	u32 i, j, e;
	u16 p;

	for (i = 0; i < 5; i++)
		for (j = 0; j < 5; j++) {
			p = 1;
			e = 1;
			ASSERT_EQ(xfab_win_untag(xfab_win_tag(peers[i], entries[j]),
						 &p, &e), 0);
			ASSERT_EQ(p, peers[i]);
			ASSERT_EQ(e, entries[j]);
		}
}

TEST(window_untag_refuses_a_word_without_the_mark)
{
	u64 tag = xfab_win_tag(5, 9);
	u32 e = 77;
	u16 p = 3;

	/* a free page's order, a list pointer, a flipped mark bit */
	ASSERT_EQ(xfab_win_untag(0, &p, &e), -ENOENT);
	ASSERT_EQ(xfab_win_untag(3, &p, &e), -ENOENT);
	ASSERT_EQ(xfab_win_untag(0xffff888012345678ull, &p, &e), -ENOENT);
	ASSERT_EQ(xfab_win_untag(tag ^ (1ull << 63), &p, &e), -ENOENT);
	ASSERT_EQ(xfab_win_untag(tag ^ (1ull << 48), &p, &e), -ENOENT);
	ASSERT_EQ(p, 3);
	ASSERT_EQ(e, 77u);
	ASSERT_EQ(xfab_win_untag(tag, &p, &e), 0);
}

TEST(window_span_stays_inside_one_mapped_page)
{
	struct xfab_win w = make_win(10, 5);
	u32 e;

	ASSERT_EQ(xfab_win_index(&w), 0);
	ASSERT_EQ(xfab_win_span(&w, peer[4], 0, XFAB_PAGE_SIZE, &e), 0);
	ASSERT_EQ(e, 4u);
	ASSERT_EQ(xfab_win_span(&w, peer[4], 4095, 1, &e), 0);
	ASSERT_EQ(xfab_win_span(&w, peer[4], 100, 0, &e), 0);
	ASSERT_EQ(xfab_win_span(&w, peer[4], 4095, 2, &e), -EINVAL);
	ASSERT_EQ(xfab_win_span(&w, peer[4], XFAB_PAGE_SIZE, 0, &e), -EINVAL);
	ASSERT_EQ(xfab_win_span(&w, peer[4], 8, 0xffffffffu, &e), -EINVAL);
	ASSERT_EQ(xfab_win_span(&w, peer[4], 0xffffff00u, 0x200, &e), -EINVAL);
	ASSERT_EQ(xfab_win_span(&w, peer[9] + 1, 0, 16, &e), -ENOENT);
}

TEST(window_planted_page_reads_whole_only_if_every_byte_is)
{
	static u8 page[XFAB_PAGE_SIZE];

	xfab_plant_fill(page, 77);
	ASSERT_TRUE(xfab_plant_intact(page, 77));
	ASSERT_FALSE(xfab_plant_intact(page, 78));	/* another page's */
	page[XFAB_PAGE_SIZE - 1] ^= 1;
	ASSERT_FALSE(xfab_plant_intact(page, 77));
	page[XFAB_PAGE_SIZE - 1] ^= 1;
	page[0] ^= 0xff;	/* the header is the token's, not checked */
	ASSERT_TRUE(xfab_plant_intact(page, 77));
}

TEST(window_table_is_a_power_of_two_at_least_twice_the_entries)
{
	ASSERT_EQ(xfab_win_slots(0), 2u);
	ASSERT_EQ(xfab_win_slots(1), 2u);
	ASSERT_EQ(xfab_win_slots(2), 4u);
	ASSERT_EQ(xfab_win_slots(3), 8u);
	ASSERT_EQ(xfab_win_slots(N), 8192u);
	ASSERT_EQ(xfab_win_slots(0x40000000u), 0x80000000u);
	ASSERT_EQ(xfab_win_slots(0x40000001u), 0u);	/* past a u32 */
	ASSERT_EQ(xfab_win_slots(0xffffffffu), 0u);
}

TEST(window_refuses_a_table_too_small_or_not_a_power_of_two)
{
	struct xfab_win w = make_win(100, 4);
	u32 e;

	w.slots = 128;		/* needs 256 */
	ASSERT_EQ(xfab_win_index(&w), -EINVAL);
	w.slots = 300;
	ASSERT_EQ(xfab_win_index(&w), -EINVAL);
	w.slots = 0;
	ASSERT_EQ(xfab_win_index(&w), -EINVAL);
	ASSERT_EQ(xfab_win_find_peer(&w, peer[0], &e), -ENOENT);
	w.slots = 512;		/* larger will do */
	ASSERT_EQ(xfab_win_index(&w), 0);
	ASSERT_EQ(xfab_win_find_peer(&w, peer[99], &e), 0);
	ASSERT_EQ(e, 99u);
}

/* Every entry found, its neighbours not, with short probes. */
static void check_layout(int *_failed, u64 base, u64 stride, u32 n)
{
	struct xfab_win w = make_win(n, 11);
	u32 i, e, bad;

	for (i = 0; i < n; i++)
		peer[i] = base + stride * i;
	ASSERT_EQ(xfab_win_check_frames(peer, n, &bad), 0);
	ASSERT_EQ(xfab_win_index(&w), 0);
	ASSERT_LT(w.max_probe, 32u);
	for (i = 0; i < n; i++) {
		e = ~0u;
		ASSERT_EQ(xfab_win_find_peer(&w, peer[i], &e), 0);
		ASSERT_EQ(e, i);
		if (stride > 1)
			ASSERT_EQ(xfab_win_find_peer(&w, peer[i] + 1, &e), -ENOENT);
	}
	ASSERT_EQ(xfab_win_find_peer(&w, base - 1, &e), -ENOENT);
	ASSERT_EQ(xfab_win_find_peer(&w, base + stride * n, &e), -ENOENT);
}

TEST(window_lookups_stay_short_for_runs_and_strides)
{
	check_layout(_failed, 0x100000, 1, N);		/* one run of frames */
	check_layout(_failed, 0x3ff000, 1, N);		/* across a power of two */
	check_layout(_failed, 0x200, 512, N);		/* one frame per 2 MiB */
	check_layout(_failed, 0x40000, 1u << 18, N);	/* one per 1 GiB */
	check_layout(_failed, 1, 4096, N);
}

