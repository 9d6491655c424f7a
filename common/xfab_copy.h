/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Planning grant copies. A grant-copy operation moves bytes between two
 * 4 KiB pages; neither side of one operation may cross a page boundary.
 * A packet is a list of page segments on each side (the peer's granted
 * slots, our skb head and fragments), cut at different places, so the
 * operations are the "zip" of the two lists: a new operation starts
 * wherever either side crosses into its next segment.
 *
 * Pure arithmetic: the kernel fills in what a segment's page means (a
 * grant reference, a frame of ours), the tests check the cuts.
 */
#ifndef XFAB_COPY_H
#define XFAB_COPY_H

#include "xfab_types.h"

/* Bytes inside one 4 KiB page: off + len <= XFAB_PAGE_SIZE. */
struct xfab_seg {
	u64 page;	/* the caller's name for the page */
	u16 off;
	u16 len;
};

/* len bytes from src[si] at soff to dst[di] at doff (page offsets). */
struct xfab_copy_op {
	u16 si, di;
	u16 soff, doff;
	u16 len;
};

/*
 * Cut the virtually contiguous range [addr, addr + len) into segments
 * that do not cross 4 KiB pages; seg.page is the page number (address
 * >> 12). Returns how many segments the range needs; writes at most max.
 */
u32 xfab_seg_split(u64 addr, u32 len, struct xfab_seg *segs, u32 max);

/*
 * Plan copying all of src (ns segments) into dst (nd segments, in order,
 * each filled before the next is used). Returns the number of operations
 * written to ops, -ENOSPC if dst is shorter than src or more than max_ops
 * operations are needed, -EINVAL if a segment crosses its page. At most
 * ns + nd - 1 operations are ever needed.
 */
int xfab_copy_zip(const struct xfab_seg *src, u32 ns,
		  const struct xfab_seg *dst, u32 nd,
		  struct xfab_copy_op *ops, u32 max_ops);

#endif /* XFAB_COPY_H */
