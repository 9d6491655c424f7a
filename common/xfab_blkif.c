// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * blkif request decoding and validation; see xfab_blkif.h. Every number
 * taken from the slot is checked before it is used as a count, an index
 * or a disk position, and sums are checked for wrap-around before they
 * are compared with the disk's end.
 */
#include "xfab_blkif.h"

#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <xen/interface/io/blkif.h>
#else
#include <xen/grant_table.h>
#include <xen/io/blkif.h>
#endif

/* Byte offsets in a request slot (x86-64 ABI). */
#define OFF_OP		0
#define OFF_NSEGS	1	/* rw: u8; indirect: the inner op */
#define OFF_HANDLE	2	/* rw, discard; indirect: u16 segment count */
#define OFF_ID		8
#define OFF_SECTOR	16
#define OFF_SEGS	24	/* rw: 11 x 8 bytes */
#define OFF_NR_SECT	24	/* discard: u64 */
#define OFF_IND_HANDLE	24
#define OFF_IND_GREFS	28	/* indirect: 8 x u32 */
#define SEG_BYTES	8	/* gref u32, first u8, last u8, pad */

/* The decoder's offsets are the ABI's: checked against the headers. */
#ifdef __KERNEL__
static_assert(sizeof(struct blkif_request) == XFAB_BLK_SLOT_BYTES);
static_assert(offsetof(struct blkif_request, u.rw.nr_segments) == OFF_NSEGS);
static_assert(offsetof(struct blkif_request, u.rw.handle) == OFF_HANDLE);
static_assert(offsetof(struct blkif_request, u.rw.id) == OFF_ID);
static_assert(offsetof(struct blkif_request, u.rw.sector_number) == OFF_SECTOR);
static_assert(offsetof(struct blkif_request, u.rw.seg) == OFF_SEGS);
static_assert(sizeof(struct blkif_request_segment) == SEG_BYTES);
static_assert(offsetof(struct blkif_request, u.discard.flag) == OFF_NSEGS);
static_assert(offsetof(struct blkif_request, u.discard.nr_sectors) == OFF_NR_SECT);
static_assert(offsetof(struct blkif_request, u.indirect.indirect_op) == OFF_NSEGS);
static_assert(offsetof(struct blkif_request, u.indirect.nr_segments) == OFF_HANDLE);
static_assert(offsetof(struct blkif_request, u.indirect.id) == OFF_ID);
static_assert(offsetof(struct blkif_request, u.indirect.handle) == OFF_IND_HANDLE);
static_assert(offsetof(struct blkif_request, u.indirect.indirect_grefs) == OFF_IND_GREFS);
static_assert(BLKIF_MAX_SEGMENTS_PER_REQUEST == XFAB_BLK_DIRECT_SEGS);
static_assert(BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST == XFAB_BLK_MAX_IND_PAGES);
static_assert(BLKIF_OP_INDIRECT == XFAB_BLKOP_INDIRECT);
static_assert(BLKIF_OP_DISCARD == XFAB_BLKOP_DISCARD);
static_assert(BLKIF_RSP_EOPNOTSUPP == XFAB_BLKRSP_EOPNOTSUPP);
#else
_Static_assert(sizeof(union blkif_sring_entry) == XFAB_BLK_SLOT_BYTES, "slot");
_Static_assert(offsetof(struct blkif_request, nr_segments) == OFF_NSEGS, "nsegs");
_Static_assert(offsetof(struct blkif_request, handle) == OFF_HANDLE, "handle");
_Static_assert(offsetof(struct blkif_request, id) == OFF_ID, "id");
_Static_assert(offsetof(struct blkif_request, sector_number) == OFF_SECTOR, "sector");
_Static_assert(offsetof(struct blkif_request, seg) == OFF_SEGS, "seg");
_Static_assert(sizeof(struct blkif_request_segment) == SEG_BYTES, "seg size");
_Static_assert(offsetof(struct blkif_request_discard, flag) == OFF_NSEGS, "flag");
_Static_assert(offsetof(struct blkif_request_discard, nr_sectors) == OFF_NR_SECT, "nr_sectors");
_Static_assert(offsetof(struct blkif_request_indirect, indirect_op) == OFF_NSEGS, "ind op");
_Static_assert(offsetof(struct blkif_request_indirect, nr_segments) == OFF_HANDLE, "ind nsegs");
_Static_assert(offsetof(struct blkif_request_indirect, id) == OFF_ID, "ind id");
_Static_assert(offsetof(struct blkif_request_indirect, handle) == OFF_IND_HANDLE, "ind handle");
_Static_assert(offsetof(struct blkif_request_indirect, indirect_grefs) == OFF_IND_GREFS, "ind grefs");
_Static_assert(BLKIF_MAX_SEGMENTS_PER_REQUEST == XFAB_BLK_DIRECT_SEGS, "segs");
_Static_assert(BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST == XFAB_BLK_MAX_IND_PAGES, "ind pages");
_Static_assert(BLKIF_OP_INDIRECT == XFAB_BLKOP_INDIRECT, "op");
_Static_assert(BLKIF_RSP_EOPNOTSUPP == XFAB_BLKRSP_EOPNOTSUPP, "rsp");
#endif

static const char *const blk_err_names[XFAB_BLK_NR_ERRS] = {
	[XFAB_BLK_BAD_OP] = "err_bad_op",
	[XFAB_BLK_NOT_OFFERED] = "err_not_offered",
	[XFAB_BLK_READ_ONLY] = "err_read_only",
	[XFAB_BLK_EMPTY] = "err_empty",
	[XFAB_BLK_TOO_MANY_SEGS] = "err_too_many_segs",
	[XFAB_BLK_BAD_SECT] = "err_bad_sect",
	[XFAB_BLK_MISALIGNED] = "err_misaligned",
	[XFAB_BLK_RANGE] = "err_range",
	[XFAB_BLK_BAD_INDIRECT] = "err_bad_indirect",
};

const char *xfab_blk_err_name(int err)
{
	if (err <= XFAB_BLK_OK || err >= XFAB_BLK_NR_ERRS)
		return NULL;
	return blk_err_names[err];
}

/* Little-endian fields of a copy (x86 only: native order is the wire's). */
static u16 get16(const u8 *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u32 get32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u64 get64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Logical sector size in blkif's 512-byte units (1 or 8). */
static u32 lsect(const struct xfab_blk_limits *lim)
{
	return lim->sector_size >> XFAB_BLK_SECTOR_SHIFT;
}

/* One segment, and add its sectors to *sum. */
static int seg_check(const u8 *p, const struct xfab_blk_limits *lim,
		     struct xfab_blk_seg *seg, u64 *sum)
{
	u32 ls = lsect(lim);

	seg->gref = get32(p);
	seg->first = p[4];
	seg->last = p[5];
	if (seg->first > seg->last || seg->last >= XFAB_BLK_SECTORS_PER_PAGE)
		return XFAB_BLK_BAD_SECT;
	if (seg->first % ls || (seg->last + 1) % ls)
		return XFAB_BLK_MISALIGNED;
	*sum += seg->last - seg->first + 1;
	return XFAB_BLK_OK;
}

/* [sector, sector + n) inside the disk and on logical sector bounds. */
static int range_check(u64 sector, u64 n, const struct xfab_blk_limits *lim)
{
	/* read once: a resize may change it while we look */
	u64 cap = READ_ONCE(lim->capacity);

	if (sector % lsect(lim) || n % lsect(lim))
		return XFAB_BLK_MISALIGNED;
	if (sector > cap || n > cap - sector)
		return XFAB_BLK_RANGE;
	return XFAB_BLK_OK;
}

/* May this operation go to this disk at all? */
static int op_allowed(u8 op, const struct xfab_blk_limits *lim)
{
	if ((op == XFAB_BLKOP_WRITE_BARRIER && !lim->barrier) ||
	    (op == XFAB_BLKOP_FLUSH_DISKCACHE && !lim->flush) ||
	    (op == XFAB_BLKOP_DISCARD && !lim->discard))
		return XFAB_BLK_NOT_OFFERED;
	if (op != XFAB_BLKOP_READ && lim->read_only)
		return XFAB_BLK_READ_ONLY;
	return XFAB_BLK_OK;
}

/*
 * Read, write, and the flush/barrier ops, which use the same layout and
 * may carry write data (a FUA write) or none (a pure flush).
 */
static int check_rw(const u8 *slot, const struct xfab_blk_limits *lim,
		    struct xfab_blk_req *req)
{
	u32 i;
	int err;

	req->nr_segs = slot[OFF_NSEGS];
	req->handle = get16(slot + OFF_HANDLE);
	req->sector = get64(slot + OFF_SECTOR);
	err = op_allowed(req->op, lim);
	if (err)
		return err;
	if (req->nr_segs > XFAB_BLK_DIRECT_SEGS)
		return XFAB_BLK_TOO_MANY_SEGS;
	if (!req->nr_segs && req->op <= XFAB_BLKOP_WRITE)
		return XFAB_BLK_EMPTY;
	if (!req->nr_segs) {
		req->sector = 0;	/* a pure flush: no position */
		return XFAB_BLK_OK;
	}
	for (i = 0; i < req->nr_segs; i++) {
		err = seg_check(slot + OFF_SEGS + i * SEG_BYTES, lim,
				&req->seg[i], &req->nr_sectors);
		if (err)
			return err;
	}
	return range_check(req->sector, req->nr_sectors, lim);
}

static int check_discard(const u8 *slot, const struct xfab_blk_limits *lim,
			 struct xfab_blk_req *req)
{
	int err;

	req->handle = get16(slot + OFF_HANDLE);
	req->sector = get64(slot + OFF_SECTOR);
	req->nr_sectors = get64(slot + OFF_NR_SECT);
	/* The flag means nothing unless we offered secure discard. */
	req->secure = (slot[OFF_NSEGS] & XFAB_BLK_DISCARD_SECURE) &&
		      lim->discard_secure;
	err = op_allowed(req->op, lim);
	if (err)
		return err;
	if (!req->nr_sectors)
		return XFAB_BLK_EMPTY;
	return range_check(req->sector, req->nr_sectors, lim);
}

/* The header only: the segments live in pages the caller copies next. */
static int check_indirect(const u8 *slot, const struct xfab_blk_limits *lim,
			  struct xfab_blk_req *req)
{
	u32 max = lim->max_indirect, i;
	int err;

	req->indirect = true;
	req->op = slot[OFF_NSEGS];
	req->nr_segs = get16(slot + OFF_HANDLE);
	req->handle = get16(slot + OFF_IND_HANDLE);
	req->sector = get64(slot + OFF_SECTOR);
	for (i = 0; i < XFAB_BLK_MAX_IND_PAGES; i++)
		req->ind_gref[i] = get32(slot + OFF_IND_GREFS + 4 * i);
	if (!max)
		return XFAB_BLK_NOT_OFFERED;
	if (req->op != XFAB_BLKOP_READ && req->op != XFAB_BLKOP_WRITE)
		return XFAB_BLK_BAD_INDIRECT;
	err = op_allowed(req->op, lim);
	if (err)
		return err;
	if (max > XFAB_BLK_MAX_INDIRECT_SEGS)
		max = XFAB_BLK_MAX_INDIRECT_SEGS;
	if (!req->nr_segs)
		return XFAB_BLK_EMPTY;
	if (req->nr_segs > max)
		return XFAB_BLK_TOO_MANY_SEGS;
	req->nr_ind_pages = (req->nr_segs + XFAB_BLK_SEGS_PER_IND_PAGE - 1) /
			    XFAB_BLK_SEGS_PER_IND_PAGE;
	/* Its first sector at least must be inside; the length comes later. */
	return range_check(req->sector, lsect(lim), lim);
}

int xfab_blk_check(const u8 slot[XFAB_BLK_SLOT_BYTES],
		   const struct xfab_blk_limits *lim, struct xfab_blk_req *req)
{
	memset(req, 0, sizeof(*req));
	req->wire_op = slot[OFF_OP];
	req->op = req->wire_op;
	req->id = get64(slot + OFF_ID);	/* at the same offset in every layout */
	switch (req->wire_op) {
	case XFAB_BLKOP_READ:
	case XFAB_BLKOP_WRITE:
	case XFAB_BLKOP_WRITE_BARRIER:
	case XFAB_BLKOP_FLUSH_DISKCACHE:
		return check_rw(slot, lim, req);
	case XFAB_BLKOP_DISCARD:
		return check_discard(slot, lim, req);
	case XFAB_BLKOP_INDIRECT:
		return check_indirect(slot, lim, req);
	default:
		return XFAB_BLK_BAD_OP;
	}
}

int xfab_blk_ind_segs(const u8 *const *pages, struct xfab_blk_req *req,
		      u32 first, u32 n, const struct xfab_blk_limits *lim,
		      struct xfab_blk_seg *segs)
{
	u32 k;
	int err;

	if (!req->indirect || first > req->nr_segs || n > req->nr_segs - first)
		return XFAB_BLK_TOO_MANY_SEGS;
	if (first == 0)
		req->nr_sectors = 0;
	for (k = 0; k < n; k++) {
		u32 s = first + k;
		const u8 *p = pages[s / XFAB_BLK_SEGS_PER_IND_PAGE] +
			      (s % XFAB_BLK_SEGS_PER_IND_PAGE) * SEG_BYTES;

		err = seg_check(p, lim, &segs[k], &req->nr_sectors);
		if (err)
			return err;
	}
	return range_check(req->sector, req->nr_sectors, lim);
}

/* Response offsets (x86-64): id, then operation, then status. */
#define RSP_OFF_ID	0
#define RSP_OFF_OP	8
#define RSP_OFF_STATUS	10

#ifdef __KERNEL__
static_assert(sizeof(struct blkif_response) == XFAB_BLK_RSP_BYTES);
static_assert(offsetof(struct blkif_response, id) == RSP_OFF_ID);
static_assert(offsetof(struct blkif_response, operation) == RSP_OFF_OP);
static_assert(offsetof(struct blkif_response, status) == RSP_OFF_STATUS);
#else
_Static_assert(sizeof(struct blkif_response) == XFAB_BLK_RSP_BYTES, "rsp");
_Static_assert(offsetof(struct blkif_response, id) == RSP_OFF_ID, "rsp id");
_Static_assert(offsetof(struct blkif_response, operation) == RSP_OFF_OP, "rsp op");
_Static_assert(offsetof(struct blkif_response, status) == RSP_OFF_STATUS, "rsp st");
#endif

void xfab_blk_rsp_decode(const u8 slot[XFAB_BLK_RSP_BYTES],
			 struct xfab_blk_rsp *rsp)
{
	s16 st = (s16)get16(slot + RSP_OFF_STATUS);

	rsp->id = get64(slot + RSP_OFF_ID);
	rsp->op = slot[RSP_OFF_OP];
	rsp->status = st == XFAB_BLKRSP_OKAY || st == XFAB_BLKRSP_EOPNOTSUPP ?
		      st : XFAB_BLKRSP_ERROR;
}
