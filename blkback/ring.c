// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * One thread per ring. It takes requests off the ring (copying each slot
 * before decoding it), maps the pages they name, submits bios, and when
 * the bios have completed (bb_end_io() queues the request on ring->done)
 * unmaps and answers. Only the thread writes responses, so the ring needs
 * no lock; the done list is all it shares with completion context.
 *
 * Events: the interrupt only notes that the frontend kicked and wakes the
 * thread. The channel is lateeoi (XSA-332): its EOI comes once the thread
 * has re-armed req_event and found the ring empty, so a frontend that
 * kicks without posting is throttled by Xen, and it costs us one look.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include "common.h"

static irqreturn_t bb_interrupt(int irq, void *data)
{
	struct xfab_bb_ring *ring = data;

	atomic64_inc(&ring->st.irqs);
	atomic_set(&ring->eoi_pending, 1);
	atomic_set(&ring->events, 1);
	wake_up(&ring->wq);
	return IRQ_HANDLED;
}

static void bb_respond(struct xfab_bb_ring *ring, const struct xfab_blk_req *h,
		       s16 status)
{
	struct blkif_response *rsp;

	rsp = RING_GET_RESPONSE(&ring->back, ring->back.rsp_prod_pvt);
	rsp->id = h->id;
	/* An indirect request is answered with its inner operation. */
	rsp->operation = h->op;
	rsp->status = status;
	ring->back.rsp_prod_pvt++;
}

static void bb_push(struct xfab_bb_ring *ring)
{
	if (xfab_ring_publish(&ring->pushed, ring->back.rsp_prod_pvt,
			      &ring->back.sring->rsp_prod,
			      &ring->back.sring->rsp_event) && ring->irq > 0) {
		notify_remote_via_irq(ring->irq);
		xfab_bb_inc(ring, kicks);
	}
}

static s16 bb_status(blk_status_t st)
{
	if (st == BLK_STS_OK)
		return BLKIF_RSP_OKAY;
	if (st == BLK_STS_NOTSUPP)
		return BLKIF_RSP_EOPNOTSUPP;
	return BLKIF_RSP_ERROR;
}

/* Unmap, answer and free one request (thread context). */
static void bb_finish(struct xfab_bb_ring *ring, struct xfab_bb_req *req,
		      s16 status)
{
	xfab_bb_unmap(ring, req->pages, req->nr_mapped);
	req->nr_mapped = 0;
	if (status == BLKIF_RSP_ERROR && req->status != BLK_STS_OK)
		xfab_bb_inc(ring, io_errors);
	bb_respond(ring, &req->hdr, status);
	list_add(&req->list, &ring->free);
}

/* Completion context: hand the request back to the thread. */
static void bb_req_done(struct xfab_bb_req *req)
{
	struct xfab_bb_ring *ring = req->ring;
	unsigned long flags;

	spin_lock_irqsave(&ring->done_lock, flags);
	list_add_tail(&req->list, &ring->done);
	spin_unlock_irqrestore(&ring->done_lock, flags);
	wake_up(&ring->wq);
}

static void bb_end_io(struct bio *bio)
{
	struct xfab_bb_req *req = bio->bi_private;

	if (bio->bi_status)
		req->status = bio->bi_status;
	bio_put(bio);
	if (atomic_dec_and_test(&req->bios))
		bb_req_done(req);
}

/* Answer everything that completed; true if anything did. */
static bool bb_complete(struct xfab_bb_ring *ring)
{
	struct xfab_bb_req *req, *tmp;
	LIST_HEAD(done);

	spin_lock_irq(&ring->done_lock);
	list_splice_init(&ring->done, &done);
	spin_unlock_irq(&ring->done_lock);
	if (list_empty(&done))
		return false;
	list_for_each_entry_safe(req, tmp, &done, list) {
		list_del(&req->list);
		bb_finish(ring, req, bb_status(req->status));
		atomic_dec(&ring->inflight);
	}
	bb_push(ring);
	return true;
}

static void bb_discard_work(struct work_struct *w)
{
	struct xfab_bb_req *req = container_of(w, struct xfab_bb_req,
					       discard_work);
	struct block_device *bdev = req->ring->dev->disk.bdev;
	int err;

	if (req->hdr.secure)
		err = blkdev_issue_secure_erase(bdev, req->hdr.sector,
						req->hdr.nr_sectors, GFP_NOIO);
	else
		err = blkdev_issue_discard(bdev, req->hdr.sector,
					   req->hdr.nr_sectors, GFP_NOIO);
	req->status = errno_to_blk_status(err);
	bb_req_done(req);
}

static blk_opf_t bb_opf(const struct xfab_blk_req *h)
{
	switch (h->op) {
	case XFAB_BLKOP_READ:
		return REQ_OP_READ;
	case XFAB_BLKOP_WRITE:
		return REQ_OP_WRITE;
	case XFAB_BLKOP_FLUSH_DISKCACHE:
		return REQ_OP_WRITE | REQ_PREFLUSH;
	default:	/* barrier: earlier writes are stable, and this one */
		return REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA;
	}
}

/* Build and submit the bios of a mapped request (or its bare flush). */
static void bb_submit(struct xfab_bb_ring *ring, struct xfab_bb_req *req)
{
	struct block_device *bdev = ring->dev->disk.bdev;
	blk_opf_t opf = bb_opf(&req->hdr) | REQ_SYNC;
	unsigned int i, left = req->hdr.nr_segs;
	sector_t sector = req->hdr.sector;
	struct bio *bio = NULL;

	atomic_set(&req->bios, 1);	/* ours until all are submitted */
	if (!left) {
		bio = bio_alloc(bdev, 0, opf, GFP_NOIO);
		bio->bi_private = req;
		bio->bi_end_io = bb_end_io;
		atomic_inc(&req->bios);
		submit_bio(bio);
	}
	for (i = 0; i < req->hdr.nr_segs; i++, left--) {
		const struct xfab_blk_seg *s = &req->segs[i];
		unsigned int off = s->first << XFAB_BLK_SECTOR_SHIFT;
		unsigned int len = (s->last - s->first + 1) <<
				   XFAB_BLK_SECTOR_SHIFT;

		if (!bio || !bio_add_page(bio, req->pages[i].page, len, off)) {
			if (bio)
				submit_bio(bio);
			bio = bio_alloc(bdev, min_t(unsigned int, left,
						    BIO_MAX_VECS), opf,
					GFP_NOIO);
			bio->bi_iter.bi_sector = sector;
			bio->bi_private = req;
			bio->bi_end_io = bb_end_io;
			atomic_inc(&req->bios);
			/* An empty bio takes any one page: __bio_add_page. */
			__bio_add_page(bio, req->pages[i].page, len, off);
		}
		sector += len >> XFAB_BLK_SECTOR_SHIFT;
	}
	if (req->hdr.nr_segs)
		submit_bio(bio);
	if (atomic_dec_and_test(&req->bios))
		bb_req_done(req);
}

/* Copy an indirect request's segment pages out of the guest, decode them. */
static int bb_indirect_segs(struct xfab_bb_ring *ring, struct xfab_bb_req *req)
{
	struct xfab_bb_page ind[XFAB_BB_MAX_IND_PAGES];
	const u8 *pages[XFAB_BB_MAX_IND_PAGES];
	unsigned int i, n = req->hdr.nr_ind_pages;
	int err;

	if (n > XFAB_BB_MAX_IND_PAGES)	/* our offer keeps it at one */
		return XFAB_BLK_TOO_MANY_SEGS;
	err = xfab_bb_map(ring, ind, req->hdr.ind_gref, n, true);
	for (i = 0; !err && i < n; i++) {
		pages[i] = ring->ind_copy + i * XEN_PAGE_SIZE;
		memcpy(ring->ind_copy + i * XEN_PAGE_SIZE,
		       page_address(ind[i].page), XEN_PAGE_SIZE);
	}
	xfab_bb_unmap(ring, ind, n);
	if (err)
		return -EIO;
	return xfab_blk_ind_segs(pages, &req->hdr, 0, req->hdr.nr_segs,
				 &ring->dev->lim, req->segs);
}

/* A request's counters, in one update section. */
static void bb_count(struct xfab_bb_ring *ring, const struct xfab_blk_req *h)
{
	struct xfab_bb_stats *st = &ring->st;
	u64_stats_t *req = NULL, *sect = &st->wr_sect;

	switch (h->op) {
	case XFAB_BLKOP_READ:
		req = &st->rd_req;
		sect = &st->rd_sect;
		break;
	case XFAB_BLKOP_WRITE:
		req = &st->wr_req;
		break;
	case XFAB_BLKOP_WRITE_BARRIER:
		req = &st->barrier_req;
		break;
	case XFAB_BLKOP_FLUSH_DISKCACHE:
		req = &st->flush_req;
		break;
	case XFAB_BLKOP_DISCARD:
		req = &st->discard_req;
		sect = &st->discard_sect;
		break;
	}
	u64_stats_update_begin(&st->sync);
	u64_stats_add(&st->indirect_req, h->indirect);
	if (req) {
		u64_stats_inc(req);
		u64_stats_add(sect, h->nr_sectors);
	}
	u64_stats_update_end(&st->sync);
}

/* Start one request copied out of the ring; false if it was refused. */
static bool bb_start(struct xfab_bb_ring *ring, struct xfab_bb_req *req,
		     const u8 *slot)
{
	struct xfab_blk_req *h = &req->hdr;
	unsigned int i;
	int err;

	req->status = BLK_STS_OK;
	req->nr_mapped = 0;
	err = xfab_blk_check(slot, &ring->dev->lim, h);
	if (!err && h->indirect)
		err = bb_indirect_segs(ring, req);
	else if (!err)
		memcpy(req->segs, h->seg, h->nr_segs * sizeof(h->seg[0]));
	if (err) {
		if (err > 0)
			xfab_bb_inc(ring, err[err]);
		bb_finish(ring, req, err > 0 ? xfab_blk_err_status(err) :
			  BLKIF_RSP_ERROR);
		return false;
	}
	bb_count(ring, h);
	if (h->op == XFAB_BLKOP_DISCARD) {
		atomic_inc(&ring->inflight);
		queue_work(system_long_wq, &req->discard_work);
		return true;
	}
	for (i = 0; i < h->nr_segs; i++)
		ring->seg_grefs[i] = req->segs[i].gref;
	req->nr_mapped = h->nr_segs;
	err = xfab_bb_map(ring, req->pages, ring->seg_grefs, h->nr_segs,
			  h->op != XFAB_BLKOP_READ);
	if (err) {	/* counted in map_errors; no I/O was started */
		bb_finish(ring, req, BLKIF_RSP_ERROR);
		return false;
	}
	atomic_inc(&ring->inflight);
	bb_submit(ring, req);
	return true;
}

/*
 * A refused request was answered: charge it. Past the burst the thread
 * sleeps until refusals may go on (answers so far pushed first), so a
 * frontend that sends only junk gets refuse_rate answers a second and
 * costs dom0 that much work. kthread_stop() cuts the sleep short.
 */
static void bb_refused(struct xfab_bb_ring *ring)
{
	u64 now = local_clock(), wait;

	if (ring->refuse.bytes != (u64)READ_ONCE(xfab_bb_refuse_rate) *
				  XFAB_BB_REFUSE_COST)
		xfab_credit_init(&ring->refuse,
				 (u64)READ_ONCE(xfab_bb_refuse_rate) *
				 XFAB_BB_REFUSE_COST, USEC_PER_SEC, now);
	wait = xfab_credit_take(&ring->refuse, XFAB_BB_REFUSE_COST, now);
	/* once stopped, the rest of the pass must not sleep again */
	if (!wait || kthread_should_stop())
		return;
	xfab_bb_inc(ring, refuse_waits);
	bb_push(ring);
	schedule_timeout_interruptible(nsecs_to_jiffies(wait) + 1);
}

/* One look at the ring while polling: answer what is done meanwhile. */
static enum xfab_look bb_look(void *arg)
{
	struct xfab_bb_ring *ring = arg;

	if (!list_empty_careful(&ring->done))
		bb_complete(ring);
	if (READ_ONCE(ring->back.sring->req_prod) != ring->back.req_cons)
		return XFAB_LOOK_WORK;
	return kthread_should_stop() ? XFAB_LOOK_STOP : XFAB_LOOK_NONE;
}

/*
 * An xfab frontend: keep looking for requests, answering completions
 * meanwhile, for up to the poll budget before the caller re-arms
 * req_event. While we look the frontend sees no armed index and does not
 * kick. True if requests came.
 */
static bool bb_poll(struct xfab_bb_ring *ring)
{
	bool found;

	if (!ring->polling || !xfab_poll_budget(&ring->poll))
		return false;
	found = xfab_poll_spin(&ring->poll, bb_look, ring);
	xfab_bb_inc(ring, polls);
	if (found)
		xfab_bb_inc(ring, poll_found);
	else
		xfab_bb_inc(ring, poll_empty);
	return found;
}

/*
 * Take what the frontend posted, as long as pool entries last, in passes
 * of at most XFAB_BB_PASS_REQS requests with a chance to reschedule in
 * between, so a frontend that keeps posting cannot hold the CPU, and a
 * stop (disconnect) is seen within one pass. Returns true if it consumed
 * anything; ring->pool_blocked says it stopped early for want of entries.
 */
static bool bb_fetch(struct xfab_bb_ring *ring)
{
	u8 slot[XFAB_BLK_SLOT_BYTES];
	struct xfab_bb_req *req;
	bool any = false;
	u32 n;
	int more;

	while (!kthread_should_stop()) {
		RING_IDX prod = READ_ONCE(ring->back.sring->req_prod);

		virt_rmb();	/* the slots are read after the index */
		if (xfab_ring_reqs_pending(RING_SIZE(&ring->back), prod,
					   ring->back.req_cons,
					   ring->back.rsp_prod_pvt, &n)) {
			dev_err(&ring->dev->xdev->dev,
				"ring %u: producer index %u impossible (consumer %u, size %u); stopping it\n",
				ring->id, prod, ring->back.req_cons,
				RING_SIZE(&ring->back));
			ring->broken = true;
			xfab_bb_inc(ring, bad_index);
			return any;
		}
		if (n > XFAB_BB_PASS_REQS)
			n = XFAB_BB_PASS_REQS;
		for (; n; n--) {
			if (list_empty(&ring->free)) {
				ring->pool_blocked = true;
				xfab_bb_inc(ring, pool_waits);
				return any;
			}
			memcpy(slot, RING_GET_REQUEST(&ring->back,
						      ring->back.req_cons),
			       sizeof(slot));
			ring->back.req_cons++;
			req = list_first_entry(&ring->free, struct xfab_bb_req,
					       list);
			list_del(&req->list);
			any = true;
			if (!bb_start(ring, req, slot)) {
				bb_refused(ring);
				continue;
			}
			/*
			 * After a large request, answer what is done before
			 * the next one: the frontend copies that data while
			 * we work (a read it split in parts). Small ones are
			 * answered together, for fewer notifications.
			 */
			if (n > 1 && req->hdr.nr_segs >= XFAB_BB_EARLY_SEGS)
				bb_complete(ring);
		}
		bb_push(ring);	/* answers to refused requests */
		if (need_resched()) {
			xfab_bb_inc(ring, passes_yielded);
			cond_resched();
		}
		if (bb_poll(ring))
			continue;
		RING_FINAL_CHECK_FOR_REQUESTS(&ring->back, more);
		if (!more)
			return any;
	}
	return any;
}

/* Wake at least this often while read-only mappings are kept (purge). */
static long bb_timeout(struct xfab_bb_ring *ring)
{
	if (!ring->ro_on || !ring->ro.nr)
		return MAX_SCHEDULE_TIMEOUT;
	return msecs_to_jiffies(xfab_bb_ro_idle_ms) + 1;
}

static void bb_ro_idle(struct xfab_bb_ring *ring)
{
	if (!ring->ro_on || time_before(jiffies, ring->ro_purge_at))
		return;
	xfab_bb_ro_purge(ring);
	ring->ro_purge_at = jiffies + msecs_to_jiffies(xfab_bb_ro_idle_ms) / 2 + 1;
}

static int bb_thread(void *data)
{
	struct xfab_bb_ring *ring = data;
	bool any;

	while (!kthread_should_stop()) {
		wait_event_interruptible_timeout(ring->wq,
			atomic_read(&ring->events) ||
			!list_empty_careful(&ring->done) ||
			kthread_should_stop(), bb_timeout(ring));
		bb_ro_idle(ring);
		if (bb_complete(ring) && ring->pool_blocked) {
			ring->pool_blocked = false;
			atomic_set(&ring->events, 1);
		}
		/*
		 * A broken ring is left masked (no EOI): its events are
		 * taken and ignored, or the wait above would not sleep.
		 */
		if (!atomic_xchg(&ring->events, 0) || ring->broken)
			continue;
		any = bb_fetch(ring);
		if (ring->pool_blocked || ring->broken)
			continue;	/* EOI once we have seen it all */
		if (atomic_xchg(&ring->eoi_pending, 0)) {
			if (!any)
				xfab_bb_inc(ring, spurious);
			xen_irq_lateeoi(ring->irq,
					any ? 0 : XEN_EOI_FLAG_SPURIOUS);
		}
		cond_resched();
	}
	return 0;
}

static void bb_pool_free(struct xfab_bb_ring *ring)
{
	unsigned int i;

	for (i = 0; ring->pool && i < ring->pool_size; i++) {
		kvfree(ring->pool[i].segs);
		kvfree(ring->pool[i].pages);
	}
	kvfree(ring->pool);
	ring->pool = NULL;
	kvfree(ring->map_ops);
	kvfree(ring->unmap_ops);
	kvfree(ring->batch_pages);
	kvfree(ring->batch_idx);
	kvfree(ring->batch_keep);
	kvfree(ring->seg_grefs);
	kfree(ring->ind_copy);
	ring->map_ops = NULL;
	ring->unmap_ops = NULL;
	ring->batch_pages = NULL;
	ring->batch_idx = NULL;
	ring->batch_keep = NULL;
	ring->seg_grefs = NULL;
	ring->ind_copy = NULL;
}

static int bb_pool_alloc(struct xfab_bb_ring *ring)
{
	unsigned int i, m = XFAB_BB_MAX_PAGES;

	ring->pool_size = RING_SIZE(&ring->back);
	ring->pool = kvcalloc(ring->pool_size, sizeof(*ring->pool), GFP_KERNEL);
	ring->map_ops = kvcalloc(m, sizeof(*ring->map_ops), GFP_KERNEL);
	ring->unmap_ops = kvcalloc(m, sizeof(*ring->unmap_ops), GFP_KERNEL);
	ring->batch_pages = kvcalloc(m, sizeof(*ring->batch_pages), GFP_KERNEL);
	ring->batch_idx = kvcalloc(m, sizeof(*ring->batch_idx), GFP_KERNEL);
	ring->batch_keep = kvcalloc(m, sizeof(*ring->batch_keep), GFP_KERNEL);
	ring->seg_grefs = kvcalloc(m, sizeof(*ring->seg_grefs), GFP_KERNEL);
	ring->ind_copy = kmalloc(XFAB_BB_MAX_IND_PAGES * XEN_PAGE_SIZE,
				 GFP_KERNEL);
	if (!ring->pool || !ring->map_ops || !ring->unmap_ops ||
	    !ring->batch_pages || !ring->batch_idx || !ring->batch_keep ||
	    !ring->seg_grefs || !ring->ind_copy)
		return -ENOMEM;
	INIT_LIST_HEAD(&ring->free);
	for (i = 0; i < ring->pool_size; i++) {
		struct xfab_bb_req *req = &ring->pool[i];

		req->ring = ring;
		INIT_WORK(&req->discard_work, bb_discard_work);
		req->segs = kvcalloc(m, sizeof(*req->segs), GFP_KERNEL);
		req->pages = kvcalloc(m, sizeof(*req->pages), GFP_KERNEL);
		if (!req->segs || !req->pages)
			return -ENOMEM;
		list_add_tail(&req->list, &ring->free);
	}
	return 0;
}

int xfab_bb_ring_connect(struct xfab_bb_ring *ring, const grant_ref_t *refs,
			 unsigned int nr_refs, unsigned int evtchn)
{
	struct xenbus_device *xdev = ring->dev->xdev;
	int err, irq;

	ring->broken = false;
	ring->pool_blocked = false;
	atomic_set(&ring->events, 1);	/* look once: kicks before bind are lost */
	atomic_set(&ring->eoi_pending, 0);
	atomic_set(&ring->inflight, 0);
	ring->pgrants = RB_ROOT;
	ring->nr_pgrants = 0;
	gnttab_page_cache_init(&ring->page_cache);
	ring->cache_ready = true;
	err = xenbus_map_ring_valloc(xdev, (grant_ref_t *)refs, nr_refs,
				     &ring->sring_addr);
	if (err)
		goto fail;
	BACK_RING_INIT(&ring->back, (struct blkif_sring *)ring->sring_addr,
		       XEN_PAGE_SIZE * nr_refs);
	ring->pushed = ring->back.rsp_prod_pvt;
	err = bb_pool_alloc(ring);
	if (!err && ring->ro_on)
		err = xfab_bb_ro_init(ring, xfab_bb_ro_max);
	if (err)
		goto fail;
	xfab_poll_init(&ring->poll, 1000,
		       min(xfab_bb_poll_us, 10000U) * NSEC_PER_USEC);
	snprintf(ring->name, sizeof(ring->name), "xfab-blk%u.%u-%u",
		 xdev->otherend_id, ring->dev->handle, ring->id);
	irq = bind_interdomain_evtchn_to_irqhandler_lateeoi(xdev, evtchn,
		bb_interrupt, 0, ring->name, ring);
	if (irq < 0) {
		err = irq;
		goto fail;
	}
	ring->irq = irq;
	ring->thread = kthread_run(bb_thread, ring, "%s", ring->name);
	if (IS_ERR(ring->thread)) {
		err = PTR_ERR(ring->thread);
		ring->thread = NULL;
		goto fail;
	}
	atomic_inc(&xfab_bb_totals.rings);
	ring->counted = true;
	return 0;
fail:
	xfab_bb_ring_disconnect(ring);
	return err;
}

/* No more requests are taken from the ring; those with the disk go on. */
void xfab_bb_ring_stop(struct xfab_bb_ring *ring)
{
	if (ring->thread) {
		kthread_stop(ring->thread);
		ring->thread = NULL;
	}
}

/* Undo any prefix of connect; safe to call twice. */
void xfab_bb_ring_disconnect(struct xfab_bb_ring *ring)
{
	struct xfab_bb_dev *dev = ring->dev;

	xfab_bb_ring_stop(ring);
	/*
	 * Bios and discards still running own their pages: wait for them,
	 * and answer them while the channel is still ours to kick.
	 */
	while (atomic_read(&ring->inflight)) {
		wait_event_timeout(ring->wq, !list_empty_careful(&ring->done),
				   HZ);
		bb_complete(ring);
	}
	if (ring->irq > 0) {
		unbind_from_irqhandler(ring->irq, ring);
		ring->irq = 0;
	}
	if (ring->pool) {
		xfab_bb_pgrants_free(ring);
		xfab_bb_ro_free(ring);
	}
	bb_pool_free(ring);
	if (ring->cache_ready) {
		gnttab_page_cache_shrink(&ring->page_cache, 0);
		ring->cache_ready = false;
	}
	if (ring->sring_addr) {
		xenbus_unmap_ring_vfree(dev->xdev, ring->sring_addr);
		ring->sring_addr = NULL;
	}
	/* last: "nothing left" in debugfs means all of the above is done */
	if (ring->counted)
		atomic_dec(&xfab_bb_totals.rings);
	ring->counted = false;
}
