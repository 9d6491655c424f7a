// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Grant-copy planning: every operation stays inside one page on both
 * sides, the operations cover the source exactly once and in order, and
 * a destination that is too short or a segment that crosses its page is
 * refused. Random cuts are replayed byte by byte against a model.
 */
#include "xfab_test.h"
#include "../../common/xfab_copy.h"

#define MAXS 40

static struct xfab_seg src[MAXS], dst[MAXS];
static struct xfab_copy_op ops[2 * MAXS];

TEST(seg_split_cuts_at_pages)
{
	struct xfab_seg s[4];

	ASSERT_EQ(xfab_seg_split(0x1ff0, 0x20, s, 4), 2);
	ASSERT_EQ(s[0].page, 1);
	ASSERT_EQ(s[0].off, 0xff0);
	ASSERT_EQ(s[0].len, 0x10);
	ASSERT_EQ(s[1].page, 2);
	ASSERT_EQ(s[1].off, 0);
	ASSERT_EQ(s[1].len, 0x10);
	/* A whole aligned page is one segment; too small an array is told. */
	ASSERT_EQ(xfab_seg_split(0x3000, 4096, s, 4), 1);
	ASSERT_EQ(s[0].len, 4096);
	ASSERT_EQ(xfab_seg_split(0x3001, 3 * 4096, s, 2), 4);
	ASSERT_EQ(xfab_seg_split(0x3001, 0, s, 2), 0);
}

TEST(zip_cuts_where_either_side_does)
{
	src[0] = (struct xfab_seg){ .page = 7, .off = 100, .len = 3000 };
	src[1] = (struct xfab_seg){ .page = 8, .off = 0, .len = 1000 };
	dst[0] = (struct xfab_seg){ .page = 1, .off = 4000, .len = 96 };
	dst[1] = (struct xfab_seg){ .page = 2, .off = 0, .len = 4096 };
	ASSERT_EQ(xfab_copy_zip(src, 2, dst, 2, ops, 8), 3);
	ASSERT_EQ(ops[0].si, 0);
	ASSERT_EQ(ops[0].soff, 100);
	ASSERT_EQ(ops[0].doff, 4000);
	ASSERT_EQ(ops[0].len, 96);
	ASSERT_EQ(ops[1].si, 0);
	ASSERT_EQ(ops[1].di, 1);
	ASSERT_EQ(ops[1].soff, 196);
	ASSERT_EQ(ops[1].doff, 0);
	ASSERT_EQ(ops[1].len, 2904);
	ASSERT_EQ(ops[2].si, 1);
	ASSERT_EQ(ops[2].doff, 2904);
	ASSERT_EQ(ops[2].len, 1000);
}

TEST(zip_refuses_short_dst_and_bad_segments)
{
	src[0] = (struct xfab_seg){ .page = 1, .off = 0, .len = 100 };
	dst[0] = (struct xfab_seg){ .page = 2, .off = 0, .len = 99 };
	ASSERT_EQ(xfab_copy_zip(src, 1, dst, 1, ops, 8), -ENOSPC);
	dst[0].len = 100;
	ASSERT_EQ(xfab_copy_zip(src, 1, dst, 1, ops, 0), -ENOSPC);
	ASSERT_EQ(xfab_copy_zip(src, 1, dst, 1, ops, 1), 1);
	src[0].off = 4000;	/* 4000 + 100 crosses the page */
	ASSERT_EQ(xfab_copy_zip(src, 1, dst, 1, ops, 8), -EINVAL);
	src[0].off = 0;
	dst[0] = (struct xfab_seg){ .page = 2, .off = 4095, .len = 2 };
	ASSERT_EQ(xfab_copy_zip(src, 1, dst, 1, ops, 8), -EINVAL);
	/* Zero-length segments on either side are skipped, not copied. */
	src[0].len = 0;
	src[1] = (struct xfab_seg){ .page = 3, .off = 0, .len = 10 };
	dst[0] = (struct xfab_seg){ .page = 2, .off = 0, .len = 0 };
	dst[1] = (struct xfab_seg){ .page = 4, .off = 0, .len = 10 };
	ASSERT_EQ(xfab_copy_zip(src, 2, dst, 2, ops, 8), 1);
	ASSERT_EQ(ops[0].si, 1);
	ASSERT_EQ(ops[0].di, 1);
}

static u64 rnd(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Random segments of up to 'total' bytes; returns their count. */
static u32 random_segs(u64 *x, struct xfab_seg *s, u32 total, u32 *sum)
{
	u32 n = 0;

	*sum = 0;
	while (*sum < total && n < MAXS) {
		u32 off = rnd(x) % XFAB_PAGE_SIZE;
		u32 len = rnd(x) % (XFAB_PAGE_SIZE - off + 1);

		s[n] = (struct xfab_seg){ .page = n, .off = off, .len = len };
		*sum += len;
		n++;
	}
	return n;
}

TEST(zip_random_cuts_replay_exactly)
{
	static u8 srcmem[MAXS][4096], dstmem[MAXS][4096];
	u64 x = 0x9e3779b97f4a7c15ull;
	int round;

	for (round = 0; round < 2000; round++) {
		u32 ns, nd, ssum, dsum, i, pos = 0;
		int n;

		ns = random_segs(&x, src, 1 + rnd(&x) % 70000, &ssum);
		nd = random_segs(&x, dst, ssum + rnd(&x) % 5000, &dsum);
		n = xfab_copy_zip(src, ns, dst, nd, ops, 2 * MAXS);
		if (dsum < ssum) {
			ASSERT_EQ(n, -ENOSPC);
			continue;
		}
		ASSERT_TRUE(n >= 0 && (u32)n <= ns + nd);
		for (i = 0; i < ns; i++)
			memset(srcmem[i], 0, sizeof(srcmem[i]));
		for (i = 0; i < ns; i++) {
			u32 b;

			for (b = 0; b < src[i].len; b++)
				srcmem[i][src[i].off + b] = (u8)(pos++ * 7 + 1);
		}
		memset(dstmem, 0, sizeof(dstmem));
		for (i = 0; i < (u32)n; i++) {
			ASSERT_TRUE(ops[i].soff + ops[i].len <= XFAB_PAGE_SIZE);
			ASSERT_TRUE(ops[i].doff + ops[i].len <= XFAB_PAGE_SIZE);
			ASSERT_TRUE(ops[i].len > 0);
			memcpy(&dstmem[ops[i].di][ops[i].doff],
			       &srcmem[ops[i].si][ops[i].soff], ops[i].len);
		}
		/* Reading dst in segment order gives the source stream. */
		pos = 0;
		for (i = 0; i < nd && pos < ssum; i++) {
			u32 b;

			for (b = 0; b < dst[i].len && pos < ssum; b++, pos++)
				ASSERT_EQ(dstmem[i][dst[i].off + b], (u8)(pos * 7 + 1));
		}
		ASSERT_EQ(pos, ssum);
	}
}
