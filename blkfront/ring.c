// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Requests onto the ring (queue_rq) and responses off it (the interrupt).
 *
 * Every segment goes through a page of the ring's pool: write data is
 * copied in before the request is posted, read data copied out when the
 * response comes. Pool pages are granted once and kept, so a backend
 * with persistent grants maps each page once; the pool grows on demand
 * (without sleeping: queue_rq holds the ring lock) up to what the ring
 * can have in flight, and a request that finds no page is retried.
 *
 * In relaxed trust a write segment is instead granted read-only in place
 * (bf_ro_gref): the grant is kept in ring->ro, keyed by the page, with a
 * reference on the page, so the next write from the same page (fio's and
 * databases' buffers, a hot page cache page) costs nothing. A full cache
 * replaces only grants idle for ro_idle_ms; otherwise the page is copied
 * through the pool as in the default mode, so a stream of new pages
 * never churns grants (or the backend's mappings).
 *
 * A large request that finds the ring idle and has data to copy goes out
 * in parts (split_kb), each an ordinary ring request; the block request
 * ends when its last part is answered (its payload counts them).
 *
 * A response is copied out of the ring, decoded by common/, and used only
 * if its id is one we have in flight and its operation is the one we
 * sent. Anything else means the backend is broken or hostile: the ring
 * stops, and every request still on it fails.
 */
#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "common.h"

static struct xfab_bf_pdu *rq_pdu(struct request *rq)
{
	return blk_mq_rq_to_pdu(rq);
}

/* The status a request ends with, kept in its blk-mq payload. */
static blk_status_t *rq_status(struct request *rq)
{
	return &rq_pdu(rq)->status;
}

/*
 * Pool pages one ring may grant: what every slot with its largest request
 * would need, within pool_pages (checked at load to hold one such request,
 * so a request alone on the ring always finds its pages).
 */
static unsigned int pool_cap(const struct xfab_bf_ring *ring)
{
	return min(RING_SIZE(&ring->front) *
		   (ring->info->segs + XFAB_BF_MAX_IND_PAGES),
		   xfab_bf_pool_pages);
}

/* A free pool page, or a new one granted now; NULL if none can be had. */
static struct xfab_bf_gnt *gnt_get(struct xfab_bf_ring *ring)
{
	struct xfab_bf_gnt *g;
	int ref;

	g = list_first_entry_or_null(&ring->pool, struct xfab_bf_gnt, node);
	if (g) {
		list_del(&g->node);
		return g;
	}
	if (ring->pool_total >= pool_cap(ring))
		return NULL;
	g = kzalloc(sizeof(*g), GFP_NOWAIT | __GFP_NOWARN);
	if (!g)
		return NULL;
	/*
	 * Zeroed: the backend may read all of it (a short write, a read it
	 * answers without data), and it must find no old guest memory.
	 */
	g->page = alloc_page(GFP_NOWAIT | __GFP_NOWARN | __GFP_ZERO);
	if (!g->page)
		goto free;
	ref = gnttab_grant_foreign_access(ring->info->xdev->otherend_id,
					  xen_page_to_gfn(g->page), 0);
	if (ref < 0)
		goto free;
	g->gref = ref;
	ring->pool_total++;
	xfab_bf_inc(ring, grants);
	return g;
free:
	if (g->page)
		__free_page(g->page);
	kfree(g);
	return NULL;
}

/*
 * Teardown: end a kept grant; Xen drops it (and our page reference) once
 * the backend has unmapped it.
 */
static void ro_release(struct xfab_bf_ring *ring, u32 s)
{
	gnttab_end_foreign_access(ring->ro_ref[s], ring->ro_page[s]);
	ring->ro_page[s] = NULL;
}

/*
 * Replace an idle kept grant, but only one the backend no longer maps:
 * ending a mapped grant would leave it, with its page, on Xen's deferred
 * list for as long as the backend likes (a guest's grant table runs dry
 * that way). A busy one is marked used now, so the next look tries the
 * next idle one, and the write is copied.
 */
static bool ro_replace(struct xfab_bf_ring *ring, u32 s, u64 now)
{
	if (!gnttab_try_end_foreign_access(ring->ro_ref[s])) {
		xfab_gc_find(&ring->ro, ring->ro.ent[s].key, now);
		xfab_bf_inc(ring, ro_busy);
		return false;
	}
	put_page(ring->ro_page[s]);
	ring->ro_page[s] = NULL;
	xfab_gc_remove(&ring->ro, s);
	xfab_bf_inc(ring, ro_replaced);
	return true;
}

/* A slot for pfn: a free one, or one idle long enough to replace. */
static u32 ro_slot_new(struct xfab_bf_ring *ring, u64 pfn, u64 now)
{
	u64 idle = msecs_to_jiffies(READ_ONCE(xfab_bf_ro_idle_ms)), old;
	bool evicted;
	u32 s;

	if (ring->ro.nr == ring->ro.cap) {
		s = xfab_gc_idle(&ring->ro, now - idle);
		if (s == XFAB_GC_NONE || !ro_replace(ring, s, now))
			return XFAB_GC_NONE;
	}
	return xfab_gc_insert(&ring->ro, pfn, now, &evicted, &old);
}

/*
 * The kept read-only grant of a page written from, made now if there is
 * room; pinned until the request is answered. NONE: copy it instead.
 */
static u32 bf_ro_gref(struct xfab_bf_ring *ring, struct page *page, u64 now)
{
	u64 pfn = page_to_pfn(page);
	int ref;
	u32 s;

	s = xfab_gc_find(&ring->ro, pfn, now);
	if (s != XFAB_GC_NONE) {
		xfab_bf_inc(ring, ro_hits);
		goto pin;
	}
	/*
	 * Our reference keeps the page from being freed under the grant.
	 * A page nobody counts (a tail of a non-compound multi-page
	 * allocation: its own count is 0, its folio is itself) cannot be
	 * held that way: copy it.
	 */
	if (!folio_try_get(page_folio(page)))
		return XFAB_GC_NONE;
	s = ro_slot_new(ring, pfn, now);
	if (s == XFAB_GC_NONE)
		goto put;
	ref = gnttab_grant_foreign_access(ring->info->xdev->otherend_id,
					  xen_page_to_gfn(page), 1);
	if (ref < 0) {
		xfab_gc_remove(&ring->ro, s);
		goto put;
	}
	ring->ro_ref[s] = ref;
	ring->ro_page[s] = page;
	xfab_bf_inc(ring, ro_grants);
pin:
	xfab_gc_pin(&ring->ro, s);
	return s;
put:
	put_page(page);
	xfab_bf_inc(ring, ro_full);
	return XFAB_GC_NONE;
}

/* Give back what a request holds: pool pages, and pins on kept grants. */
static void bf_release(struct xfab_bf_ring *ring, struct xfab_bf_shadow *sh)
{
	unsigned int i;

	for (i = 0; i < sh->nr_gnts; i++) {
		if (sh->ro_slot[i] != XFAB_GC_NONE)
			xfab_gc_unpin(&ring->ro, sh->ro_slot[i]);
		else
			list_add(&sh->gnts[i]->node, &ring->pool);
	}
	sh->nr_gnts = 0;
}

/* Each segment's page (kept grant or pool page), and the indirect page. */
static bool bf_pages(struct xfab_bf_ring *ring, struct xfab_bf_shadow *sh,
		     unsigned int n, bool indirect, bool write)
{
	struct scatterlist *sg = sh->sg;
	u64 now = write && ring->ro_on ? get_jiffies_64() : 0;
	unsigned int i;

	for (i = 0; i < n + indirect; i++) {
		sh->ro_slot[i] = XFAB_GC_NONE;
		sh->gnts[i] = NULL;
		/* slab memory (some metadata writes) is copied: no page refs */
		if (i < n && write && ring->ro_on && !PageSlab(sg_page(sg)))
			sh->ro_slot[i] = bf_ro_gref(ring, sg_page(sg), now);
		if (i < n)
			sg = sg_next(sg);
		if (sh->ro_slot[i] == XFAB_GC_NONE) {
			sh->gnts[i] = gnt_get(ring);
			if (!sh->gnts[i])
				return false;
		}
		sh->nr_gnts = i + 1;
	}
	return true;
}

/* Fill the segment descriptors (ring slot or indirect page) and copy. */
static void bf_segments(struct xfab_bf_ring *ring, struct xfab_bf_shadow *sh,
			struct blkif_request_segment *seg, bool write)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sg(sh->sg, sg, sh->nr_segs, i) {
		unsigned int off = sg->offset, len = sg->length;

		if (sh->ro_slot[i] != XFAB_GC_NONE) {
			seg[i].gref = ring->ro_ref[sh->ro_slot[i]];
		} else {
			if (write) {
				void *src = kmap_local_page(sg_page(sg));

				memcpy(page_address(sh->gnts[i]->page) + off,
				       src + off, len);
				kunmap_local(src);
				xfab_bf_add(ring, bytes_copied, len);
			}
			seg[i].gref = sh->gnts[i]->gref;
		}
		seg[i].first_sect = off >> XFAB_BLK_SECTOR_SHIFT;
		seg[i].last_sect = (off + len - 1) >> XFAB_BLK_SECTOR_SHIFT;
	}
}

/* Make the requests built so far visible; kick if the backend asked. */
static void bf_push(struct xfab_bf_ring *ring)
{
	if (ring->pushed == ring->front.req_prod_pvt)
		return;		/* nothing new to show */
	if (xfab_ring_publish(&ring->pushed, ring->front.req_prod_pvt,
			      &ring->front.sring->req_prod,
			      &ring->front.sring->req_event)) {
		notify_remote_via_irq(ring->irq);
		xfab_bf_inc(ring, kicks);
	} else {
		xfab_bf_inc(ring, quiet_pushes);
	}
}

/* Describe one ring request of rq (its pages taken) in slot; copy writes. */
static void bf_fill(struct xfab_bf_ring *ring, struct xfab_bf_shadow *sh,
		    struct blkif_request *slot, u16 id, sector_t sector,
		    bool write)
{
	struct xfab_bf_info *info = ring->info;
	unsigned int n = sh->nr_segs;

	sh->op = write ? BLKIF_OP_WRITE : BLKIF_OP_READ;
	if (n > BLKIF_MAX_SEGMENTS_PER_REQUEST) {
		struct xfab_bf_gnt *ind = sh->gnts[n];

		slot->operation = BLKIF_OP_INDIRECT;
		slot->u.indirect.indirect_op = sh->op;
		slot->u.indirect.nr_segments = n;
		slot->u.indirect.id = id;
		slot->u.indirect.sector_number = sector;
		slot->u.indirect.handle = info->vdevice;
		slot->u.indirect.indirect_grefs[0] = ind->gref;
		bf_segments(ring, sh, page_address(ind->page), write);
		xfab_bf_inc(ring, indirect_req);
	} else {
		slot->operation = sh->op;
		slot->u.rw.nr_segments = n;
		slot->u.rw.handle = info->vdevice;
		slot->u.rw.id = id;
		slot->u.rw.sector_number = sector;
		bf_segments(ring, sh, slot->u.rw.seg, write);
	}
	u64_stats_update_begin(&ring->st.sync);
	u64_stats_inc(write ? &ring->st.wr_req : &ring->st.rd_req);
	u64_stats_add(write ? &ring->st.wr_sect : &ring->st.rd_sect,
		      sh->bytes >> XFAB_BLK_SECTOR_SHIFT);
	u64_stats_update_end(&ring->st.sync);
}

/*
 * Ring requests for n segments: more than one only for a request that
 * would otherwise be copied whole while the backend has nothing else to
 * do (see split_kb), and only if the ring and the pool hold every part.
 */
static unsigned int bf_nr_parts(struct xfab_bf_ring *ring, unsigned int n,
				bool write, bool idle)
{
	unsigned int per = xfab_bf_split_kb >> (PAGE_SHIFT - 10), parts;

	if (!per || n <= per || !idle || (write && ring->ro_on))
		return 1;
	parts = min(DIV_ROUND_UP(n, per), XFAB_BF_MAX_PARTS);
	if (parts > RING_FREE_REQUESTS(&ring->front) ||
	    n + parts > pool_cap(ring))
		return 1;
	return parts;
}

/* Give back the ids and pages of parts taken but never posted. */
static void bf_unwind(struct xfab_bf_ring *ring, const u16 *ids,
		      unsigned int nr)
{
	while (nr--) {
		bf_release(ring, &ring->shadow[ids[nr]]);
		xfab_ids_put(&ring->ids, ids[nr]);
	}
}

/*
 * Part p (1 and up) of the n segments mapped in first->sg goes to sh:
 * its share of the scatterlist, its size in bytes taken off part 0's.
 */
static void bf_part_sg(struct xfab_bf_shadow *first, struct xfab_bf_shadow *sh,
		       unsigned int n, unsigned int per, unsigned int p)
{
	unsigned int from = p * per, i;
	struct scatterlist *sg;

	sh->nr_segs = min(n - from, per);
	sg_init_table(sh->sg, sh->nr_segs);
	sh->bytes = 0;
	for (i = 0; i < sh->nr_segs; i++) {
		sg = &first->sg[from + i];
		sg_set_page(&sh->sg[i], sg_page(sg), sg->length, sg->offset);
		sh->bytes += sg->length;
	}
	first->bytes -= sh->bytes;
}

/*
 * A read or write: its segments in one ring request or, split, in
 * several (ids[0] holds the mapped scatterlist). Every part's id and
 * pages are taken before any is posted, so a shortage posts nothing.
 * A split write is posted part by part: the backend starts on one while
 * we copy the next.
 */
static blk_status_t bf_rw(struct xfab_bf_ring *ring, struct request *rq,
			  bool idle)
{
	bool write = rq_data_dir(rq) == WRITE;
	struct xfab_bf_shadow *first, *sh;
	unsigned int n, parts, per, p;
	u16 ids[XFAB_BF_MAX_PARTS];
	sector_t sector = blk_rq_pos(rq);
	int id;

	id = xfab_ids_get(&ring->ids);
	if (id < 0)
		return BLK_STS_RESOURCE;
	ids[0] = id;
	first = &ring->shadow[id];
	first->nr_gnts = 0;
	sg_init_table(first->sg, ring->info->segs);
	n = blk_rq_map_sg(rq->q, rq, first->sg);
	if (!n || n > ring->info->segs) {	/* our queue limits forbid it */
		xfab_ids_put(&ring->ids, id);
		return BLK_STS_IOERR;
	}
	parts = bf_nr_parts(ring, n, write, idle);
	per = DIV_ROUND_UP(n, parts);
	first->nr_segs = min(n, per);
	first->bytes = blk_rq_bytes(rq);
	for (p = 0; p < parts; p++) {
		if (p) {
			id = xfab_ids_get(&ring->ids);
			if (id < 0)
				goto short_of;
			ids[p] = id;
			ring->shadow[id].nr_gnts = 0;
		}
		sh = &ring->shadow[ids[p]];
		if (p)
			bf_part_sg(first, sh, n, per, p);
		if (!bf_pages(ring, sh, sh->nr_segs,
			      sh->nr_segs > BLKIF_MAX_SEGMENTS_PER_REQUEST,
			      write)) {
			p++;
			goto short_of;
		}
	}
	if (parts > 1)
		sg_mark_end(&first->sg[first->nr_segs - 1]);
	for (p = 0; p < parts; p++) {
		sh = &ring->shadow[ids[p]];
		bf_fill(ring, sh, RING_GET_REQUEST(&ring->front,
						   ring->front.req_prod_pvt),
			ids[p], sector, write);
		sh->rq = rq;
		ring->front.req_prod_pvt++;
		sector += sh->bytes >> XFAB_BLK_SECTOR_SHIFT;
		if (write && p + 1 < parts)	/* the last goes with the batch */
			bf_push(ring);
	}
	rq_pdu(rq)->parts = parts;
	xfab_bf_add(ring, splits, parts > 1);
	return BLK_STS_OK;
short_of:
	bf_unwind(ring, ids, p);
	return BLK_STS_RESOURCE;
}

static blk_status_t bf_flush(struct xfab_bf_ring *ring,
			     struct xfab_bf_shadow *sh,
			     struct blkif_request *slot, u16 id)
{
	if (!ring->info->flush_op)
		return BLK_STS_NOTSUPP;
	sh->op = ring->info->flush_op;
	slot->operation = sh->op;
	slot->u.rw.nr_segments = 0;
	slot->u.rw.handle = ring->info->vdevice;
	slot->u.rw.id = id;
	slot->u.rw.sector_number = 0;
	xfab_bf_inc(ring, flush_req);
	return BLK_STS_OK;
}

static blk_status_t bf_discard(struct xfab_bf_ring *ring, struct request *rq,
			       struct xfab_bf_shadow *sh,
			       struct blkif_request *slot, u16 id)
{
	struct xfab_bf_info *info = ring->info;
	bool secure = req_op(rq) == REQ_OP_SECURE_ERASE;

	if (!info->feat.discard || (secure && !info->feat.discard_secure))
		return BLK_STS_NOTSUPP;
	sh->op = BLKIF_OP_DISCARD;
	slot->operation = BLKIF_OP_DISCARD;
	slot->u.discard.flag = secure ? BLKIF_DISCARD_SECURE : 0;
	slot->u.discard.id = id;
	slot->u.discard.sector_number = blk_rq_pos(rq);
	slot->u.discard.nr_sectors = blk_rq_sectors(rq);
	xfab_bf_inc(ring, discard_req);
	return BLK_STS_OK;
}

/* One ring request for a flush or discard. */
static blk_status_t bf_single(struct xfab_bf_ring *ring, struct request *rq)
{
	struct blkif_request *slot;
	struct xfab_bf_shadow *sh;
	blk_status_t st;
	int id;

	id = xfab_ids_get(&ring->ids);
	if (id < 0)
		return BLK_STS_RESOURCE;
	sh = &ring->shadow[id];
	sh->nr_gnts = 0;
	sh->nr_segs = 0;
	slot = RING_GET_REQUEST(&ring->front, ring->front.req_prod_pvt);
	if (req_op(rq) == REQ_OP_FLUSH)
		st = bf_flush(ring, sh, slot, id);
	else
		st = bf_discard(ring, rq, sh, slot, id);
	if (st) {
		xfab_ids_put(&ring->ids, id);	/* never posted */
		return st;
	}
	sh->rq = rq;
	ring->front.req_prod_pvt++;
	return BLK_STS_OK;
}

/* Build rq into the next free slots; the caller pushes them. */
static blk_status_t bf_build(struct xfab_bf_ring *ring, struct request *rq)
{
	bool idle = !ring->ids.in_flight;

	*rq_status(rq) = BLK_STS_OK;
	rq_pdu(rq)->parts = 1;
	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		return bf_rw(ring, rq, idle);
	case REQ_OP_FLUSH:
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE:
		return bf_single(ring, rq);
	default:
		return BLK_STS_NOTSUPP;
	}
}

/*
 * The rings are looked up through info at every call: resume replaces
 * them. Teardown clears info->connected and then quiesces the queue, so
 * a call that saw it set finishes before the rings go.
 */
static blk_status_t bf_queue_rq(struct blk_mq_hw_ctx *hctx,
				const struct blk_mq_queue_data *bd)
{
	struct xfab_bf_info *info = hctx->queue->queuedata;
	struct xfab_bf_ring *ring;
	unsigned long flags;
	blk_status_t st;

	blk_mq_start_request(bd->rq);
	if (!READ_ONCE(info->connected) || hctx->queue_num >= info->nr_rings)
		return BLK_STS_IOERR;
	ring = &info->rings[hctx->queue_num];
	spin_lock_irqsave(&ring->lock, flags);
	if (ring->broken) {
		spin_unlock_irqrestore(&ring->lock, flags);
		return BLK_STS_IOERR;
	}
	st = RING_FULL(&ring->front) ? BLK_STS_RESOURCE : bf_build(ring, bd->rq);
	/*
	 * Publish and kick once per blk-mq batch (its last request), or now
	 * if this one is refused: requests built so far must reach the
	 * backend before we wait for its answers.
	 */
	if (bd->last || st)
		bf_push(ring);
	if (st == BLK_STS_RESOURCE) {
		xfab_bf_inc(ring, busy);
		if (!ring->ids.in_flight) {
			/* no answer will come to restart us: blk-mq retries */
			spin_unlock_irqrestore(&ring->lock, flags);
			return BLK_STS_RESOURCE;
		}
		/* restarted by the interrupt once answers free room */
		blk_mq_stop_hw_queue(hctx);
		spin_unlock_irqrestore(&ring->lock, flags);
		return BLK_STS_DEV_RESOURCE;
	}
	spin_unlock_irqrestore(&ring->lock, flags);
	return st;
}

/* blk-mq's batch ended early (a request was refused): publish the rest. */
static void bf_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	struct xfab_bf_info *info = hctx->queue->queuedata;
	struct xfab_bf_ring *ring;
	unsigned long flags;

	if (!READ_ONCE(info->connected) || hctx->queue_num >= info->nr_rings)
		return;
	ring = &info->rings[hctx->queue_num];
	spin_lock_irqsave(&ring->lock, flags);
	if (!ring->broken)
		bf_push(ring);
	spin_unlock_irqrestore(&ring->lock, flags);
}

/*
 * A ring request answered: copy read data out, give its pages back. True
 * if it was the block request's last part (the request has ended).
 */
static bool bf_complete(struct xfab_bf_ring *ring, struct xfab_bf_shadow *sh,
			s16 status)
{
	struct request *rq = sh->rq;
	struct scatterlist *sg;
	unsigned int i;

	if (status == BLKIF_RSP_OKAY && sh->op == BLKIF_OP_READ) {
		for_each_sg(sh->sg, sg, sh->nr_segs, i) {
			void *dst = kmap_local_page(sg_page(sg));

			memcpy(dst + sg->offset,
			       page_address(sh->gnts[i]->page) + sg->offset,
			       sg->length);
			kunmap_local(dst);
			xfab_bf_add(ring, bytes_copied, sg->length);
		}
	}
	bf_release(ring, sh);
	sh->rq = NULL;
	if (status == BLKIF_RSP_EOPNOTSUPP) {
		xfab_bf_inc(ring, notsupp);
		*rq_status(rq) = BLK_STS_NOTSUPP;
	} else if (status != BLKIF_RSP_OKAY) {
		xfab_bf_inc(ring, io_errors);
		*rq_status(rq) = BLK_STS_IOERR;
	}
	return --rq_pdu(rq)->parts == 0;
}

/* rq leaves the ring whole (failed or handed back), once for all parts. */
static void bf_take(struct xfab_bf_shadow *sh, struct list_head *list)
{
	struct xfab_bf_pdu *pdu = rq_pdu(sh->rq);

	if (pdu->parts) {
		pdu->parts = 0;
		list_add_tail(&sh->rq->queuelist, list);
	}
	sh->rq = NULL;
}

/*
 * The backend broke the protocol: no more I/O on this ring. Requests
 * still on it fail; their pool pages are never reused (the backend may
 * still write to them) and go back to Xen only at teardown.
 */
static void bf_break(struct xfab_bf_ring *ring, u64_stats_t *counter,
		     const char *why, struct list_head *done)
{
	unsigned int id;

	xfab_stat_inc(&ring->st.sync, counter);
	if (!ring->broken)
		dev_err(&ring->info->xdev->dev, "ring %u: %s; failing its I/O\n",
			ring->id, why);
	ring->broken = true;
	for (id = 0; id < ring->ids.nr; id++) {
		struct xfab_bf_shadow *sh = &ring->shadow[id];

		if (!sh->rq)
			continue;
		*rq_status(sh->rq) = BLK_STS_IOERR;
		bf_take(sh, done);
	}
}

/* Take every response the backend has written; ended ones go on done. */
static bool bf_responses(struct xfab_bf_ring *ring, struct list_head *done)
{
	u8 raw[XFAB_BLK_RSP_BYTES];
	struct xfab_blk_rsp rsp;
	struct xfab_bf_shadow *sh;
	struct request *rq;
	bool any = false;
	int more;
	u32 n;

	do {
		RING_IDX prod = READ_ONCE(ring->front.sring->rsp_prod);

		if (xfab_ring_rsps_pending(RING_SIZE(&ring->front), prod,
					   ring->front.rsp_cons,
					   ring->front.req_prod_pvt, &n)) {
			bf_break(ring, &ring->st.fatal_ring,
				 "response index past our requests", done);
			return true;
		}
		virt_rmb();	/* the responses are read after the index */
		for (; n; n--) {
			memcpy(raw, RING_GET_RESPONSE(&ring->front,
						      ring->front.rsp_cons),
			       sizeof(raw));
			ring->front.rsp_cons++;
			any = true;
			xfab_blk_rsp_decode(raw, &rsp);
			if (rsp.id >= ring->ids.nr ||
			    xfab_ids_put(&ring->ids, rsp.id)) {
				bf_break(ring, &ring->st.fatal_id,
					 "response for an id not in flight",
					 done);
				return true;
			}
			sh = &ring->shadow[rsp.id];
			if (rsp.op != sh->op) {
				bf_break(ring, &ring->st.fatal_op,
					 "response with another operation",
					 done);
				return true;
			}
			rq = sh->rq;
			if (bf_complete(ring, sh, rsp.status))
				list_add_tail(&rq->queuelist, done);
		}
		RING_FINAL_CHECK_FOR_RESPONSES(&ring->front, more);
	} while (more);
	return any;
}

irqreturn_t xfab_bf_interrupt(int irq, void *data)
{
	struct xfab_bf_ring *ring = data;
	struct request *rq, *tmp;
	unsigned long flags;
	LIST_HEAD(done);
	bool any = false;

	spin_lock_irqsave(&ring->lock, flags);
	xfab_bf_inc(ring, irqs);
	if (!ring->broken && ring->info->connected)
		any = bf_responses(ring, &done);
	if (!any)
		xfab_bf_inc(ring, spurious);
	spin_unlock_irqrestore(&ring->lock, flags);
	list_for_each_entry_safe(rq, tmp, &done, queuelist) {
		list_del_init(&rq->queuelist);
		blk_mq_end_request(rq, *rq_status(rq));
	}
	if (any && ring->info->gd)
		blk_mq_start_stopped_hw_queues(ring->info->gd->queue, true);
	xen_irq_lateeoi(irq, any ? 0 : XEN_EOI_FLAG_SPURIOUS);
	return IRQ_HANDLED;
}

const struct blk_mq_ops xfab_bf_mq_ops = {
	.queue_rq = bf_queue_rq,
	.commit_rqs = bf_commit_rqs,
};

/* The kept read-only grants of a ring in relaxed trust. */
static int bf_ro_setup(struct xfab_bf_ring *ring, unsigned int cap)
{
	ring->ro_ref = kvcalloc(cap, sizeof(*ring->ro_ref), GFP_KERNEL);
	ring->ro_page = kvcalloc(cap, sizeof(*ring->ro_page), GFP_KERNEL);
	if (!ring->ro_ref || !ring->ro_page || xfab_gc_kalloc(&ring->ro, cap))
		return -ENOMEM;
	ring->ro_on = true;
	return 0;
}

/* After the channel is unbound: every kept grant ends (xfab_bf_ring_free). */
static void bf_ro_free(struct xfab_bf_ring *ring)
{
	u32 s;

	for (s = 0; ring->ro_page && s < ring->ro.cap; s++)
		if (ring->ro_page[s])
			ro_release(ring, s);
	xfab_gc_kfree(&ring->ro);
	kvfree(ring->ro_ref);
	kvfree(ring->ro_page);
	ring->ro_ref = NULL;
	ring->ro_page = NULL;
	ring->ro_on = false;
}

/* Per-slot state, sized by the ring and the negotiated segments. */
int xfab_bf_ring_setup(struct xfab_bf_ring *ring)
{
	unsigned int size = RING_SIZE(&ring->front), i;

	ring->id_link = kvcalloc(size, sizeof(*ring->id_link), GFP_KERNEL);
	ring->id_busy = kvcalloc(size, sizeof(*ring->id_busy), GFP_KERNEL);
	ring->shadow = kvcalloc(size, sizeof(*ring->shadow), GFP_KERNEL);
	if (!ring->id_link || !ring->id_busy || !ring->shadow)
		return -ENOMEM;
	for (i = 0; i < size; i++) {
		struct xfab_bf_shadow *sh = &ring->shadow[i];

		sh->gnts = kvcalloc(XFAB_BF_MAX_SEGS + XFAB_BF_MAX_IND_PAGES,
				    sizeof(*sh->gnts), GFP_KERNEL);
		sh->sg = kvcalloc(XFAB_BF_MAX_SEGS, sizeof(*sh->sg),
				  GFP_KERNEL);
		sh->ro_slot = kvcalloc(XFAB_BF_MAX_SEGS + XFAB_BF_MAX_IND_PAGES,
				       sizeof(*sh->ro_slot), GFP_KERNEL);
		if (!sh->gnts || !sh->sg || !sh->ro_slot)
			return -ENOMEM;
	}
	if (ring->info->ro_grants && bf_ro_setup(ring, ring->info->ro_grants))
		return -ENOMEM;
	return xfab_ids_init(&ring->ids, size, ring->id_link, ring->id_busy);
}

/*
 * Take every request off a ring whose channel is unbound, onto list (NULL:
 * there can be none). Their pages go back to the pool, except on a
 * broken ring, where the backend may still write them.
 */
void xfab_bf_ring_drain(struct xfab_bf_ring *ring, struct list_head *list)
{
	unsigned int id;

	spin_lock_irq(&ring->lock);
	for (id = 0; list && id < RING_SIZE(&ring->front); id++) {
		struct xfab_bf_shadow *sh = &ring->shadow[id];

		if (!sh->rq)
			continue;
		bf_take(sh, list);
		if (!ring->broken)
			bf_release(ring, sh);
	}
	spin_unlock_irq(&ring->lock);
}

/*
 * After the channel is unbound: pool pages go back to Xen, which frees
 * each once the backend has unmapped it (at once if it never mapped).
 */
void xfab_bf_ring_free(struct xfab_bf_ring *ring)
{
	struct xfab_bf_gnt *g, *tmp;
	unsigned int i;

	list_for_each_entry_safe(g, tmp, &ring->pool, node) {
		list_del(&g->node);
		gnttab_end_foreign_access(g->gref, g->page);
		kfree(g);
	}
	for (i = 0; ring->shadow && i < RING_SIZE(&ring->front); i++) {
		struct xfab_bf_shadow *sh = &ring->shadow[i];

		/* a broken ring's in-flight pages: still the backend's */
		while (sh->gnts && sh->nr_gnts) {
			g = sh->gnts[--sh->nr_gnts];
			if (!g)
				continue;	/* a kept grant: bf_ro_free */
			gnttab_end_foreign_access(g->gref, g->page);
			kfree(g);
		}
		kvfree(sh->gnts);
		kvfree(sh->sg);
		kvfree(sh->ro_slot);
	}
	bf_ro_free(ring);
	kvfree(ring->shadow);
	kvfree(ring->id_link);
	kvfree(ring->id_busy);
	ring->shadow = NULL;
	ring->id_link = NULL;
	ring->id_busy = NULL;
	ring->pool_total = 0;
}
