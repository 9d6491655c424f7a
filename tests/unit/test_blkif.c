// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * blkif request validation with hostile slots: every refusal reason, the
 * disk's end and wrap-around, 4096-byte sectors, indirect pages, and a
 * random walk checked against what the datapath relies on.
 */
#include <stdlib.h>
#include "xfab_test.h"
#include "../../common/xfab_blkif.h"
#include <xen/grant_table.h>
#include <xen/io/blkif.h>

static union blkif_sring_entry e;
static struct xfab_blk_req r;
static struct xfab_blk_limits lim;

static void disk(u64 capacity, u32 sector_size)
{
	memset(&lim, 0, sizeof(lim));
	lim.capacity = capacity;
	lim.sector_size = sector_size;
	lim.max_indirect = 32;
	lim.flush = lim.barrier = lim.discard = true;
}

/* A direct request of nseg segments of sectors [first, last] each. */
static void rw(u8 op, u64 sector, int nseg, u8 first, u8 last)
{
	int i;

	memset(&e, 0xa5, sizeof(e));	/* padding is garbage on purpose */
	e.req.operation = op;
	e.req.nr_segments = nseg;
	e.req.handle = 51712;
	e.req.id = 0x1122334455667788ull;
	e.req.sector_number = sector;
	for (i = 0; i < nseg && i < BLKIF_MAX_SEGMENTS_PER_REQUEST; i++) {
		e.req.seg[i].gref = 100 + i;
		e.req.seg[i].first_sect = first;
		e.req.seg[i].last_sect = last;
	}
}

static int check(void)
{
	return xfab_blk_check((const u8 *)&e, &lim, &r);
}

TEST(blk_read_write_ok)
{
	disk(1 << 20, 512);
	rw(BLKIF_OP_WRITE, 1000, 11, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_OK);
	ASSERT_EQ(r.op, XFAB_BLKOP_WRITE);
	ASSERT_EQ(r.id, 0x1122334455667788ull);
	ASSERT_EQ(r.handle, 51712);
	ASSERT_EQ(r.nr_segs, 11);
	ASSERT_EQ(r.nr_sectors, 88);
	ASSERT_EQ(r.seg[10].gref, 110);
	rw(BLKIF_OP_READ, 5, 1, 2, 4);
	ASSERT_EQ(check(), XFAB_BLK_OK);
	ASSERT_EQ(r.nr_sectors, 3);
}

TEST(blk_bad_sectors_in_segment)
{
	disk(1 << 20, 512);
	rw(BLKIF_OP_READ, 0, 1, 5, 4);		/* first > last */
	ASSERT_EQ(check(), XFAB_BLK_BAD_SECT);
	rw(BLKIF_OP_READ, 0, 1, 0, 8);		/* past the page */
	ASSERT_EQ(check(), XFAB_BLK_BAD_SECT);
	rw(BLKIF_OP_READ, 0, 2, 0, 255);
	ASSERT_EQ(check(), XFAB_BLK_BAD_SECT);
	/* a bad last segment after good ones */
	rw(BLKIF_OP_WRITE, 0, 3, 0, 7);
	e.req.seg[2].last_sect = 9;
	ASSERT_EQ(check(), XFAB_BLK_BAD_SECT);
}

TEST(blk_segment_counts)
{
	disk(1 << 20, 512);
	rw(BLKIF_OP_READ, 0, 0, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_EMPTY);
	rw(BLKIF_OP_WRITE, 0, 12, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_TOO_MANY_SEGS);
	rw(BLKIF_OP_WRITE, 0, 255, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_TOO_MANY_SEGS);
	/* a pure flush carries no data */
	rw(BLKIF_OP_FLUSH_DISKCACHE, 0, 0, 0, 0);
	ASSERT_EQ(check(), XFAB_BLK_OK);
	ASSERT_EQ(r.nr_sectors, 0);
}

TEST(blk_disk_end_and_wrap)
{
	disk(1000, 512);
	rw(BLKIF_OP_READ, 992, 1, 0, 7);	/* ends exactly at the end */
	ASSERT_EQ(check(), XFAB_BLK_OK);
	rw(BLKIF_OP_READ, 993, 1, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_RANGE);
	rw(BLKIF_OP_READ, 1000, 1, 0, 0);
	ASSERT_EQ(check(), XFAB_BLK_RANGE);
	rw(BLKIF_OP_READ, ~0ull - 3, 1, 0, 7);	/* sector + n wraps */
	ASSERT_EQ(check(), XFAB_BLK_RANGE);
	rw(BLKIF_OP_WRITE, ~0ull, 11, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_RANGE);
}

TEST(blk_4k_sectors)
{
	disk(1 << 20, 4096);
	rw(BLKIF_OP_WRITE, 8, 2, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_OK);
	rw(BLKIF_OP_WRITE, 9, 2, 0, 7);		/* start not on 4 KiB */
	ASSERT_EQ(check(), XFAB_BLK_MISALIGNED);
	rw(BLKIF_OP_READ, 8, 1, 0, 3);		/* half a sector */
	ASSERT_EQ(check(), XFAB_BLK_MISALIGNED);
	rw(BLKIF_OP_READ, 8, 1, 1, 7);
	ASSERT_EQ(check(), XFAB_BLK_MISALIGNED);
	/* two half sectors add up to a whole one, yet each is half */
	rw(BLKIF_OP_READ, 8, 2, 0, 3);
	ASSERT_EQ(check(), XFAB_BLK_MISALIGNED);
}

TEST(blk_ops_not_offered_and_read_only)
{
	disk(1 << 20, 512);
	rw(4, 0, 1, 0, 7);			/* BLKIF_OP_RESERVED_1 */
	ASSERT_EQ(check(), XFAB_BLK_BAD_OP);
	ASSERT_EQ(xfab_blk_err_status(XFAB_BLK_BAD_OP), BLKIF_RSP_EOPNOTSUPP);
	ASSERT_EQ(r.wire_op, 4);
	ASSERT_EQ(r.id, 0x1122334455667788ull);	/* still answerable */
	rw(200, 0, 1, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_BAD_OP);
	lim.flush = false;
	rw(BLKIF_OP_FLUSH_DISKCACHE, 0, 0, 0, 0);
	ASSERT_EQ(check(), XFAB_BLK_NOT_OFFERED);
	lim.barrier = false;
	rw(BLKIF_OP_WRITE_BARRIER, 0, 1, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_NOT_OFFERED);
	disk(1 << 20, 512);
	lim.read_only = true;
	rw(BLKIF_OP_READ, 0, 1, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_OK);
	rw(BLKIF_OP_WRITE, 0, 1, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_READ_ONLY);
	ASSERT_EQ(xfab_blk_err_status(XFAB_BLK_READ_ONLY), BLKIF_RSP_ERROR);
	rw(BLKIF_OP_FLUSH_DISKCACHE, 0, 1, 0, 7);	/* FUA write */
	ASSERT_EQ(check(), XFAB_BLK_READ_ONLY);
}

static void discard(u64 sector, u64 n, u8 flag)
{
	struct blkif_request_discard *d = (struct blkif_request_discard *)&e;

	memset(&e, 0x5a, sizeof(e));
	d->operation = BLKIF_OP_DISCARD;
	d->flag = flag;
	d->id = 7;
	d->sector_number = sector;
	d->nr_sectors = n;
}

TEST(blk_discard)
{
	disk(1 << 20, 512);
	discard(100, 2048, 0);
	ASSERT_EQ(check(), XFAB_BLK_OK);
	ASSERT_EQ(r.sector, 100);
	ASSERT_EQ(r.nr_sectors, 2048);
	ASSERT_FALSE(r.secure);
	discard(100, 0, 0);
	ASSERT_EQ(check(), XFAB_BLK_EMPTY);
	discard((1 << 20) - 1, 2, 0);
	ASSERT_EQ(check(), XFAB_BLK_RANGE);
	discard(8, ~0ull, 0);
	ASSERT_EQ(check(), XFAB_BLK_RANGE);
	/* the secure flag counts only where secure discard was offered */
	discard(0, 8, BLKIF_DISCARD_SECURE);
	ASSERT_EQ(check(), XFAB_BLK_OK);
	ASSERT_FALSE(r.secure);
	lim.discard_secure = true;
	ASSERT_EQ(check(), XFAB_BLK_OK);
	ASSERT_TRUE(r.secure);
	lim.discard = false;
	ASSERT_EQ(check(), XFAB_BLK_NOT_OFFERED);
	disk(1 << 20, 4096);
	discard(4, 8, 0);
	ASSERT_EQ(check(), XFAB_BLK_MISALIGNED);
}

static u8 ind_page[2][XFAB_PAGE_SIZE];
static struct xfab_blk_seg segs[XFAB_BLK_MAX_INDIRECT_SEGS];

static void indirect(u8 op, u16 nsegs, u64 sector)
{
	struct blkif_request_indirect *in = (struct blkif_request_indirect *)&e;
	struct blkif_request_segment *sg = (struct blkif_request_segment *)ind_page[0];
	unsigned int i;

	memset(&e, 0xa5, sizeof(e));
	in->operation = BLKIF_OP_INDIRECT;
	in->indirect_op = op;
	in->nr_segments = nsegs;
	in->id = 99;
	in->sector_number = sector;
	in->handle = 3;
	for (i = 0; i < BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST; i++)
		in->indirect_grefs[i] = 500 + i;
	for (i = 0; i < XFAB_BLK_SEGS_PER_IND_PAGE; i++) {
		sg[i].gref = 1000 + i;
		sg[i].first_sect = 0;
		sg[i].last_sect = 7;
	}
}

TEST(blk_indirect_header)
{
	disk(1 << 20, 512);
	indirect(BLKIF_OP_WRITE, 32, 64);
	ASSERT_EQ(check(), XFAB_BLK_OK);
	ASSERT_TRUE(r.indirect);
	ASSERT_EQ(r.wire_op, BLKIF_OP_INDIRECT);
	ASSERT_EQ(r.op, BLKIF_OP_WRITE);
	ASSERT_EQ(r.nr_segs, 32);
	ASSERT_EQ(r.nr_ind_pages, 1);
	ASSERT_EQ(r.ind_gref[7], 507);
	ASSERT_EQ(r.handle, 3);
	indirect(BLKIF_OP_WRITE, 33, 64);	/* over what we offered */
	ASSERT_EQ(check(), XFAB_BLK_TOO_MANY_SEGS);
	/* refused, it is still answered with the op its sender expects */
	ASSERT_EQ(r.op, BLKIF_OP_WRITE);
	indirect(BLKIF_OP_WRITE, 0xffff, 64);
	ASSERT_EQ(check(), XFAB_BLK_TOO_MANY_SEGS);
	indirect(BLKIF_OP_READ, 0, 64);
	ASSERT_EQ(check(), XFAB_BLK_EMPTY);
	indirect(BLKIF_OP_DISCARD, 4, 64);
	ASSERT_EQ(check(), XFAB_BLK_BAD_INDIRECT);
	indirect(BLKIF_OP_INDIRECT, 4, 64);	/* no nesting */
	ASSERT_EQ(check(), XFAB_BLK_BAD_INDIRECT);
	indirect(BLKIF_OP_READ, 4, 1 << 20);
	ASSERT_EQ(check(), XFAB_BLK_RANGE);
	lim.max_indirect = 0;
	indirect(BLKIF_OP_READ, 4, 0);
	ASSERT_EQ(check(), XFAB_BLK_NOT_OFFERED);
	/* an offer past our own cap is held to the cap */
	lim.max_indirect = 60000;
	indirect(BLKIF_OP_READ, XFAB_BLK_MAX_INDIRECT_SEGS + 1, 0);
	ASSERT_EQ(check(), XFAB_BLK_TOO_MANY_SEGS);
}

TEST(blk_indirect_segments)
{
	const u8 *pages[1] = { ind_page[0] };
	struct blkif_request_segment *sg = (struct blkif_request_segment *)ind_page[0];

	disk(1 << 20, 512);
	indirect(BLKIF_OP_WRITE, 20, 0);
	ASSERT_EQ(check(), XFAB_BLK_OK);
	/* in two batches: the running total reaches 160 sectors */
	ASSERT_EQ(xfab_blk_ind_segs(pages, &r, 0, 12, &lim, segs), XFAB_BLK_OK);
	ASSERT_EQ(r.nr_sectors, 96);
	ASSERT_EQ(segs[11].gref, 1011);
	ASSERT_EQ(xfab_blk_ind_segs(pages, &r, 12, 8, &lim, segs), XFAB_BLK_OK);
	ASSERT_EQ(r.nr_sectors, 160);
	ASSERT_EQ(segs[0].gref, 1012);
	/* more than the request has, or a batch past its end */
	ASSERT_EQ(xfab_blk_ind_segs(pages, &r, 12, 9, &lim, segs), XFAB_BLK_TOO_MANY_SEGS);
	ASSERT_EQ(xfab_blk_ind_segs(pages, &r, 21, 0, &lim, segs), XFAB_BLK_TOO_MANY_SEGS);
	ASSERT_EQ(xfab_blk_ind_segs(pages, &r, 0xffffffffu, 2, &lim, segs), XFAB_BLK_TOO_MANY_SEGS);
	sg[5].first_sect = 6;
	sg[5].last_sect = 2;
	ASSERT_EQ(xfab_blk_ind_segs(pages, &r, 0, 20, &lim, segs), XFAB_BLK_BAD_SECT);
	sg[5].first_sect = 0;
	sg[5].last_sect = 7;
	/* the segments' sum runs past the disk's end */
	disk(100, 512);
	indirect(BLKIF_OP_READ, 20, 0);
	ASSERT_EQ(check(), XFAB_BLK_OK);
	ASSERT_EQ(xfab_blk_ind_segs(pages, &r, 0, 12, &lim, segs), XFAB_BLK_OK);
	ASSERT_EQ(xfab_blk_ind_segs(pages, &r, 12, 8, &lim, segs), XFAB_BLK_RANGE);
	/* a direct request has no indirect segments */
	rw(BLKIF_OP_READ, 0, 1, 0, 7);
	ASSERT_EQ(check(), XFAB_BLK_OK);
	ASSERT_EQ(xfab_blk_ind_segs(pages, &r, 0, 1, &lim, segs), XFAB_BLK_TOO_MANY_SEGS);
}

TEST(blk_err_names_cover_every_reason)
{
	int i;

	ASSERT_TRUE(xfab_blk_err_name(XFAB_BLK_OK) == NULL);
	ASSERT_TRUE(xfab_blk_err_name(XFAB_BLK_NR_ERRS) == NULL);
	for (i = 1; i < XFAB_BLK_NR_ERRS; i++)
		ASSERT_TRUE(xfab_blk_err_name(i) != NULL);
}

/*
 * Random slots (mostly plausible, some garbage): whatever the verdict,
 * an accepted request must be safe to execute as decoded.
 */
TEST(blk_random_requests_keep_invariants)
{
	unsigned int seed = 12345, i, k;
	u64 sum;

	for (i = 0; i < 200000; i++) {
		u8 *b = (u8 *)&e;

		disk(1 + rand_r(&seed) % 5000, rand_r(&seed) % 2 ? 4096 : 512);
		lim.read_only = rand_r(&seed) % 4 == 0;
		for (k = 0; k < sizeof(e); k++)
			b[k] = rand_r(&seed);
		b[0] %= 8;
		b[1] %= 14;
		if (rand_r(&seed) % 2) {	/* small sectors, sane segments */
			e.req.sector_number %= 6000;
			for (k = 0; k < BLKIF_MAX_SEGMENTS_PER_REQUEST; k++) {
				e.req.seg[k].first_sect %= 9;
				e.req.seg[k].last_sect %= 9;
			}
		}
		if (check() != XFAB_BLK_OK || r.indirect)
			continue;
		ASSERT_TRUE(r.op == XFAB_BLKOP_READ || !lim.read_only);
		ASSERT_LE(r.sector + r.nr_sectors, lim.capacity);
		ASSERT_EQ(r.sector % (lim.sector_size / 512), 0);
		if (r.op == XFAB_BLKOP_DISCARD)
			continue;
		ASSERT_LE(r.nr_segs, XFAB_BLK_DIRECT_SEGS);
		for (sum = 0, k = 0; k < r.nr_segs; k++) {
			ASSERT_LE(r.seg[k].first, r.seg[k].last);
			ASSERT_LT(r.seg[k].last, 8);
			sum += r.seg[k].last - r.seg[k].first + 1;
		}
		ASSERT_EQ(sum, r.nr_sectors);
	}
}

TEST(blk_response_decode)
{
	struct blkif_response in;
	struct xfab_blk_rsp out;
	u8 slot[XFAB_BLK_RSP_BYTES];

	memset(&in, 0xa5, sizeof(in));	/* padding the backend may leave */
	in.id = 0xfedcba9876543210ull;
	in.operation = BLKIF_OP_WRITE;
	in.status = BLKIF_RSP_EOPNOTSUPP;
	memcpy(slot, &in, sizeof(slot));
	xfab_blk_rsp_decode(slot, &out);
	ASSERT_EQ(out.id, 0xfedcba9876543210ull);
	ASSERT_EQ(out.op, BLKIF_OP_WRITE);
	ASSERT_EQ(out.status, BLKIF_RSP_EOPNOTSUPP);
	in.status = BLKIF_RSP_OKAY;
	memcpy(slot, &in, sizeof(slot));
	xfab_blk_rsp_decode(slot, &out);
	ASSERT_EQ(out.status, BLKIF_RSP_OKAY);
	/* a status the protocol does not have is an error, not success */
	in.status = 7;
	memcpy(slot, &in, sizeof(slot));
	xfab_blk_rsp_decode(slot, &out);
	ASSERT_EQ(out.status, BLKIF_RSP_ERROR);
	in.status = -32768;
	memcpy(slot, &in, sizeof(slot));
	xfab_blk_rsp_decode(slot, &out);
	ASSERT_EQ(out.status, BLKIF_RSP_ERROR);
}
