// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: arbitrary bytes as a blkif request slot and its
 * indirect page, against a disk whose size, sector size and offers come
 * from the input too. An accepted request must be safe to execute as
 * decoded; ASan catches any read past the copies.
 */
#include <stdint.h>
#include <stdlib.h>
#include "../../common/xfab_blkif.h"

/* Every accepted read/write stays inside the disk, in whole sectors. */
static void check_segs(const struct xfab_blk_req *r,
		       const struct xfab_blk_seg *segs, u32 n,
		       const struct xfab_blk_limits *lim)
{
	u32 ls = lim->sector_size / 512, k;
	u64 sum = 0;

	for (k = 0; k < n; k++) {
		if (segs[k].first > segs[k].last || segs[k].last > 7 ||
		    segs[k].first % ls || (segs[k].last + 1) % ls)
			abort();
		sum += segs[k].last - segs[k].first + 1;
	}
	if (sum != r->nr_sectors || r->sector + sum > lim->capacity ||
	    r->sector % ls)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xfab_blk_seg segs[XFAB_BLK_MAX_INDIRECT_SEGS];
	struct xfab_blk_limits lim = { 0 };
	struct xfab_blk_req r;
	const u8 *pages[1];
	u8 *slot, *page;
	int err;

	if (size < 4 + XFAB_BLK_SLOT_BYTES)
		return 0;
	lim.capacity = (u64)data[0] << (data[1] % 40);
	lim.sector_size = data[2] & 1 ? 4096 : 512;
	lim.read_only = data[2] & 2;
	lim.flush = data[2] & 4;
	lim.barrier = data[2] & 8;
	lim.discard = data[2] & 16;
	lim.discard_secure = data[2] & 32;
	lim.max_indirect = data[3] * 2;
	data += 4, size -= 4;
	/* exact-size copies: an overread lands in ASan's redzone */
	slot = malloc(XFAB_BLK_SLOT_BYTES);
	memcpy(slot, data, XFAB_BLK_SLOT_BYTES);
	data += XFAB_BLK_SLOT_BYTES, size -= XFAB_BLK_SLOT_BYTES;
	page = calloc(1, XFAB_PAGE_SIZE);
	memcpy(page, data, size < XFAB_PAGE_SIZE ? size : XFAB_PAGE_SIZE);
	pages[0] = page;

	err = xfab_blk_check(slot, &lim, &r);
	if (err < 0 || err >= XFAB_BLK_NR_ERRS)
		abort();
	if (err == XFAB_BLK_OK && r.op != XFAB_BLKOP_READ && lim.read_only)
		abort();
	if (err == XFAB_BLK_OK && r.indirect) {
		if (r.nr_segs == 0 || r.nr_segs > XFAB_BLK_MAX_INDIRECT_SEGS ||
		    r.nr_ind_pages != 1)
			abort();
		if (xfab_blk_ind_segs(pages, &r, 0, r.nr_segs, &lim, segs) ==
		    XFAB_BLK_OK)
			check_segs(&r, segs, r.nr_segs, &lim);
	} else if (err == XFAB_BLK_OK && r.op != XFAB_BLKOP_DISCARD) {
		if (r.nr_segs > XFAB_BLK_DIRECT_SEGS)
			abort();
		check_segs(&r, r.seg, r.nr_segs, &lim);
	} else if (err == XFAB_BLK_OK &&
		   (r.sector + r.nr_sectors > lim.capacity || !r.nr_sectors)) {
		abort();
	}
	free(page);
	free(slot);
	return 0;
}
