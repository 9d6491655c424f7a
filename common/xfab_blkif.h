/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Validation of blkif requests written by the frontend. The backend copies
 * each request slot (and each indirect segment page) out of shared memory
 * once, then decodes and checks the copy here; nothing in this file
 * touches shared memory.
 *
 * Decoding works on the raw bytes of the copied slot at the offsets of the
 * x86-64 wire ABI (the "native" protocol of a 64-bit guest), so that the
 * kernel, the unit tests and the fuzzers run one decoder. xfab_blkif.c
 * checks those offsets at compile time against the kernel's
 * <xen/interface/io/blkif.h> in the modules and against Xen's public
 * <xen/io/blkif.h> in userspace.
 *
 * A bad request is never fatal to the ring: it is answered with
 * BLKIF_RSP_ERROR (or BLKIF_RSP_EOPNOTSUPP for an operation we did not
 * offer) and counted by reason, as the stock backend does. Only the ring
 * indices themselves (xfab_ring.h) can make the device unusable.
 */
#ifndef XFAB_BLKIF_H
#define XFAB_BLKIF_H

#include "xfab_types.h"

/* Bytes of one request slot on the wire (the request union's size). */
#define XFAB_BLK_SLOT_BYTES 112
/* Segments a direct request carries (BLKIF_MAX_SEGMENTS_PER_REQUEST). */
#define XFAB_BLK_DIRECT_SEGS 11
/* Indirect pages one request may name (BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST). */
#define XFAB_BLK_MAX_IND_PAGES 8
/* Segment descriptors in one indirect page (8 bytes each). */
#define XFAB_BLK_SEGS_PER_IND_PAGE (XFAB_PAGE_SIZE / 8)
/* blkif counts in 512-byte sectors whatever the disk's sector size. */
#define XFAB_BLK_SECTOR_SHIFT 9
#define XFAB_BLK_SECTORS_PER_PAGE (XFAB_PAGE_SIZE >> XFAB_BLK_SECTOR_SHIFT)
/*
 * Most indirect segments we ever offer: 8 pages' worth would be 4096,
 * but Linux's blkfront caps at 256 and 256 x 4 KiB = 1 MiB per request
 * is already past where larger requests help on this path.
 */
#define XFAB_BLK_MAX_INDIRECT_SEGS 256

/* Wire operation codes (BLKIF_OP_*): the ABI's numbers. */
enum {
	XFAB_BLKOP_READ = 0,
	XFAB_BLKOP_WRITE = 1,
	XFAB_BLKOP_WRITE_BARRIER = 2,
	XFAB_BLKOP_FLUSH_DISKCACHE = 3,
	XFAB_BLKOP_DISCARD = 5,
	XFAB_BLKOP_INDIRECT = 6,
};

/* Response status codes (BLKIF_RSP_*). */
#define XFAB_BLKRSP_OKAY 0
#define XFAB_BLKRSP_ERROR (-1)
#define XFAB_BLKRSP_EOPNOTSUPP (-2)

/* Flag of a discard request: BLKIF_DISCARD_SECURE. */
#define XFAB_BLK_DISCARD_SECURE 1

/* Reasons to refuse a request, in sysfs counter order. */
enum xfab_blk_err {
	XFAB_BLK_OK = 0,
	XFAB_BLK_BAD_OP,	/* operation code we do not know */
	XFAB_BLK_NOT_OFFERED,	/* flush/barrier/discard/indirect we did not offer */
	XFAB_BLK_READ_ONLY,	/* a write, flush or discard to a mode=r disk */
	XFAB_BLK_EMPTY,		/* a read, write or discard of nothing */
	XFAB_BLK_TOO_MANY_SEGS,	/* more segments than the format or our offer */
	XFAB_BLK_BAD_SECT,	/* first_sect > last_sect, or past the page */
	XFAB_BLK_MISALIGNED,	/* not in whole logical sectors of the disk */
	XFAB_BLK_RANGE,		/* past the end of the disk, or wraps */
	XFAB_BLK_BAD_INDIRECT,	/* inner op not read/write */
	XFAB_BLK_NR_ERRS
};

/* Short names for counters and logs; NULL for XFAB_BLK_OK. */
const char *xfab_blk_err_name(int err);

/* The status a refused request is answered with. */
static inline s16 xfab_blk_err_status(int err)
{
	if (err == XFAB_BLK_OK)
		return XFAB_BLKRSP_OKAY;
	if (err == XFAB_BLK_BAD_OP || err == XFAB_BLK_NOT_OFFERED)
		return XFAB_BLKRSP_EOPNOTSUPP;
	return XFAB_BLKRSP_ERROR;
}

/* One data segment: a granted page and the sectors [first, last] in it. */
struct xfab_blk_seg {
	u32 gref;
	u8 first, last;
};

/* A decoded request. Fields past the header are valid per op. */
struct xfab_blk_req {
	u8 wire_op;		/* as written */
	/* what to do, and the response's operation: an indirect's inner op */
	u8 op;
	bool indirect;
	bool secure;		/* discard: BLKIF_DISCARD_SECURE */
	u16 handle;		/* as written; not checked, as stock ignores it */
	u64 id;			/* echoed in the response, never interpreted */
	u64 sector;		/* 512-byte units */
	u64 nr_sectors;		/* discard: as asked; read/write: the segments' sum */
	u16 nr_segs;
	u16 nr_ind_pages;	/* indirect: pages holding the segments */
	u32 ind_gref[XFAB_BLK_MAX_IND_PAGES];
	struct xfab_blk_seg seg[XFAB_BLK_DIRECT_SEGS];	/* direct only */
};

/* What this backend offered and the disk it serves. */
struct xfab_blk_limits {
	u64 capacity;		/* in 512-byte sectors */
	u32 sector_size;	/* logical: 512 or 4096 */
	u16 max_indirect;	/* feature-max-indirect-segments; 0: none */
	bool read_only;
	bool flush, barrier, discard, discard_secure;
};

/*
 * Decode and check the request in a copied slot. For a direct read or
 * write the segments are checked too; for an indirect one only the
 * header: the caller then copies its req->nr_ind_pages pages and runs
 * xfab_blk_ind_segs() on them. On any error req->op and req->id are
 * still set, so the caller can answer.
 */
int xfab_blk_check(const u8 slot[XFAB_BLK_SLOT_BYTES],
		   const struct xfab_blk_limits *lim, struct xfab_blk_req *req);

/*
 * Segments [first, first + n) of an indirect request, decoded from
 * copies of its indirect pages (pages[i] is indirect page i, each
 * XFAB_PAGE_SIZE bytes) into segs[0..n), checked against the disk, and
 * added up into req->nr_sectors. Call with first = 0 for the first batch;
 * the range check runs on each batch with the running total.
 */
int xfab_blk_ind_segs(const u8 *const *pages, struct xfab_blk_req *req,
		      u32 first, u32 n, const struct xfab_blk_limits *lim,
		      struct xfab_blk_seg *segs);

/* Bytes of one response on the wire (struct blkif_response, x86-64). */
#define XFAB_BLK_RSP_BYTES 16

/* A response, decoded from a copy of its slot (frontend side). */
struct xfab_blk_rsp {
	u64 id;		/* as written: check it before using it */
	u8 op;		/* must be the op we sent (an indirect's inner op) */
	s16 status;	/* OKAY, ERROR or EOPNOTSUPP; anything else: ERROR */
};

void xfab_blk_rsp_decode(const u8 slot[XFAB_BLK_RSP_BYTES],
			 struct xfab_blk_rsp *rsp);

#endif /* XFAB_BLKIF_H */
