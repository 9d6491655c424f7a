// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dom0 stack -> guest RX ring. When nothing is queued for the guest and
 * it has posted buffers for the whole packet, start_xmit copies the
 * packet into them itself, in the sender's context: no hop to another
 * thread per packet. Otherwise it queues the skb and wakes the queue's
 * worker, which drains the backlog in batches as buffers come. Either
 * way the packet is copied densely (every buffer filled to 4 KiB before
 * the next) and answered in ring order, the GSO extra in the second
 * slot, as the protocol lays it out. Both work on the ring under the
 * net_device queue's xmit lock, so they never meet there.
 *
 * Queueing is bounded (rx_backlog bytes per queue): past it the net_device
 * queue stops. A backlog that has not moved for rx_stall_secs, stopped or
 * not, is purged and counted, and from then on packets for the queue are
 * dropped at once until the guest posts buffers again, so a guest that
 * posts none cannot pin dom0 memory, the bridge, or a sender's socket
 * buffer (XSA-392/424 class). A trickle of traffic below rx_backlog
 * never stops the queue, which is why the stall clock starts when the
 * backlog does, not when the queue stops.
 *
 * A guest that posts a few buffers every few seconds never stalls, yet
 * it would keep its backlog (up to 2 x rx_backlog) for good and be
 * handed packets minutes old. So each packet is stamped when it joins
 * the backlog, and whatever waited longer than rx_drain_ms is dropped
 * from the head and counted (rxr_drop_aged): whenever the worker takes
 * packets, and from the stall timer, so that a queue nobody services
 * (stopped, its guest silent) ages too.
 */
#include <linux/if_ether.h>
#include <xen/page.h>
#include "common.h"
#include "xfab_netif_rx.h"

/* Guest buffers a packet needs: data slots, plus one for the GSO extra. */
static u32 rx_slots_needed(const struct sk_buff *skb, u32 *data)
{
	*data = max_t(u32, 1, DIV_ROUND_UP(skb->len, XEN_PAGE_SIZE));
	return *data + (skb_is_gso(skb) ? 1 : 0);
}

static bool rx_skb_ok(const struct sk_buff *skb)
{
	u32 data;

	if (skb_is_gso(skb) &&
	    !(skb_shinfo(skb)->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)))
		return false;
	rx_slots_needed(skb, &data);
	return data <= XFAB_NB_RX_MAX_DATA;
}

/*
 * Pointer mode on RX (docs/pointer-mode.md, "Guest -> guest"): may this
 * packet reach our guest by reference, and to which frames? Only a
 * packet another member sent by reference (its frags all window pages
 * over that one peer, each within its page) to a guest that asked for
 * references and has an RX pool (its headers are copied there), while
 * dom0's windows see both in one group, so that the guest's own window
 * covers the peer. And only while the guest holds less than ptr_rx_kb:
 * the sender's slots wait for it (r->over: refused for that). Fills r;
 * r->on says yes.
 */
static void rx_ref_plan(struct xfab_nb_queue *q, struct sk_buff *skb,
			struct xfab_nb_rxref *r)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	const struct xfab_wnops *o;
	struct xfab_wn *a, *b;
	u32 i, ga = 0, gb = 0;
	u64 frame;
	u16 peer;

	r->on = false;
	r->over = false;
	if (!q->vif->ptr_rx || !q->ptr || !q->rx_pool.n ||
	    !xfab_nb_ptr_skb(skb) || skb_has_frag_list(skb) || !sh->nr_frags ||
	    sh->nr_frags >= XFAB_NB_RX_REF_DATA ||
	    skb_headlen(skb) > XEN_PAGE_SIZE)
		return;
	if (READ_ONCE(q->rx_ref_bytes) + skb->len >
	    READ_ONCE(xfab_nb_ptr_rx_kb) * 1024ULL) {
		r->over = true;
		return;
	}
	o = xfab_nb_ptr_wnops(q);
	for (i = 0; i < sh->nr_frags; i++) {
		const skb_frag_t *f = &sh->frags[i];

		if (o->frame_of(skb_frag_page(f), &peer, &frame) ||
		    frame > U32_MAX || (i && peer != r->peer) ||
		    skb_frag_off(f) + skb_frag_size(f) > XEN_PAGE_SIZE)
			return;
		r->peer = peer;
		r->frame[i] = frame;
	}
	if (r->peer == q->vif->domid)
		return;
	a = o->get(r->peer);
	b = o->get(q->vif->domid);
	if (a)
		ga = o->group(a);
	if (b)
		gb = o->group(b);
	r->on = ga && ga == gb;
	if (a)
		o->put(a);
	if (b)
		o->put(b);
}

/*
 * Ring slots for the packet, and its data slots in *data; whether it
 * goes by reference lands in p->ref. By reference: the headers' slot,
 * then a slot and its frame slot per frag.
 */
static u32 rx_need(struct xfab_nb_queue *q, struct xfab_nb_rxp *p,
		   struct sk_buff *skb, u32 *data)
{
	u32 need = rx_slots_needed(skb, data);

	rx_ref_plan(q, skb, &p->ref);
	if (!p->ref.on)
		return need;
	*data = 1 + skb_shinfo(skb)->nr_frags;
	return 2 * *data - 1 + (skb_is_gso(skb) ? 1 : 0);
}

/*
 * What a packet keeps in skb->cb while it waits in the backlog: when it
 * joined, in jiffies cut to 32 bits (xfab_age.h). Ours from start_xmit
 * on; rxhold.c writes its own record there once the packet has left
 * the backlog and been copied.
 */
struct nb_rx_cb {
	u32 queued;
};

static struct nb_rx_cb *nb_rx_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct nb_rx_cb) > sizeof(skb->cb));
	return (struct nb_rx_cb *)skb->cb;
}

/* rx_drain_ms in ticks; a write to the parameter may come at any time */
static u32 rx_drain_ticks(void)
{
	return msecs_to_jiffies(READ_ONCE(xfab_nb_rx_drain_ms));
}

static bool rx_direct(struct xfab_nb_queue *q, struct sk_buff *skb);

static u32 rx_pieces(struct xfab_seg *src, u32 max, const struct sk_buff *skb);

static void rx_queue_stop(struct xfab_nb_queue *q)
{
	netif_tx_stop_queue(netdev_get_tx_queue(q->vif->dev, q->id));
	q->rx_stopped = true;
	atomic64_inc(&q->st.rxr_stops);
}

netdev_tx_t xfab_nb_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct xfab_nb_vif *vif = netdev_priv(dev);
	u16 qi = skb_get_queue_mapping(skb);
	struct xfab_nb_queue *q;
	unsigned long now;

	/*
	 * The stack holds the xmit lock of queue qi, and only that lock
	 * keeps out the worker and other xmits: a packet for a queue not
	 * (yet) connected goes nowhere, never to another queue. Only
	 * during connect, when real_num_tx_queues is set and num_queues
	 * not yet, can qi be out of range. Counted as down on queue 0,
	 * which every vif has (atomic: its lock is not ours).
	 */
	if (qi >= READ_ONCE(vif->num_queues)) {
		atomic64_inc(&vif->queues[0].st.rxr_drop_down);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	q = &vif->queues[qi];
	if (!q->connected || q->broken) {
		atomic64_inc(&q->st.rxr_drop_down);
		goto drop;
	}
	/*
	 * More pieces than one plan takes: one per 4 KiB instead. Only a
	 * frag_list can get there (an skb of its own bytes needs at most
	 * a piece per 4 KiB plus two per buffer: 17 + 2 * 18), so only
	 * then are the pieces counted.
	 */
	BUILD_BUG_ON(XFAB_NB_RX_MAX_DATA + 2 * (MAX_SKB_FRAGS + 1) > XFAB_NB_RX_SRC);
	if (skb_has_frag_list(skb) &&
	    rx_pieces(NULL, 0, skb) > XFAB_NB_RX_SRC && skb_linearize(skb)) {
		atomic64_inc(&q->st.rxr_drop_nomem);
		goto drop;
	}
	/*
	 * Pages another guest sent by reference (pointer mode) have no
	 * frame of their own to grant-copy from. rx_plan_packet copies them
	 * before any grant copy; a queue without an RX pool (a stock
	 * frontend) would always need that copy, so it is made here, and
	 * the sender's slots are answered before the packet waits in the
	 * backlog. Into a pool, memcpy reads them.
	 */
	if (!q->rx_pool.n && xfab_nb_ptr_skb(skb) &&
	    skb_copy_ubufs(skb, GFP_ATOMIC)) {
		atomic64_inc(&q->st.rxr_drop_nomem);
		goto drop;
	}
	if (!rx_skb_ok(skb)) {
		atomic64_inc(&q->st.rxr_drop_big);
		goto drop;
	}
	if (READ_ONCE(q->rx_stalled)) {
		atomic64_inc(&q->st.rxr_drop_stall);
		goto drop;
	}
	if (skb_queue_empty_lockless(&q->rx_queue) && rx_direct(q, skb))
		return NETDEV_TX_OK;
	spin_lock_bh(&q->rx_queue.lock);
	if (q->rx_queued_bytes > 2 * xfab_nb_rx_backlog) {
		spin_unlock_bh(&q->rx_queue.lock);
		atomic64_inc(&q->st.rxr_drop_backlog);
		goto drop;
	}
	/* read under the lock: stamps grow from the head to the tail */
	now = jiffies;
	if (skb_queue_empty(&q->rx_queue)) {
		/*
		 * The stall clock starts with the backlog; the timer looks
		 * first when this packet stalls or ages, whichever is first.
		 */
		WRITE_ONCE(q->rx_progress, now);
		queue_delayed_work(xfab_nb_wq, &q->rx_stall,
				   min_t(unsigned long, xfab_nb_rx_stall_secs * HZ,
					 rx_drain_ticks() + 1));
	}
	nb_rx_cb(skb)->queued = now;
	__skb_queue_tail(&q->rx_queue, skb);
	q->rx_queued_bytes += skb->len;
	if (q->rx_queued_bytes >= xfab_nb_rx_backlog && !q->rx_stopped)
		rx_queue_stop(q);
	spin_unlock_bh(&q->rx_queue.lock);
	queue_work(xfab_nb_wq, &q->rx_work);
	return NETDEV_TX_OK;
drop:
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

/* Off the backlog (lock held); wake the net_device queue below half. */
static void rx_unlink(struct xfab_nb_queue *q, struct sk_buff *skb)
{
	__skb_unlink(skb, &q->rx_queue);
	q->rx_queued_bytes -= skb->len;
	if (q->rx_stopped && q->rx_queued_bytes < xfab_nb_rx_backlog / 2) {
		q->rx_stopped = false;
		netif_tx_wake_queue(netdev_get_tx_queue(q->vif->dev, q->id));
	}
}

static struct sk_buff *rx_dequeue(struct xfab_nb_queue *q)
{
	struct sk_buff *skb;

	spin_lock_bh(&q->rx_queue.lock);
	skb = skb_peek(&q->rx_queue);
	if (skb)
		rx_unlink(q, skb);
	spin_unlock_bh(&q->rx_queue.lock);
	return skb;
}

/*
 * Move every packet at the head of the backlog that waited longer than
 * limit ticks to aged (lock held). The head is the oldest: stamps are
 * taken under the lock as packets join the tail. rx_unlink wakes a
 * stopped queue, as for any packet that leaves.
 */
static void rx_age_locked(struct xfab_nb_queue *q, u32 now, u32 limit,
			  struct sk_buff_head *aged)
{
	struct sk_buff *skb;

	while ((skb = skb_peek(&q->rx_queue)) &&
	       xfab_age_over(now, nb_rx_cb(skb)->queued, limit)) {
		rx_unlink(q, skb);
		__skb_queue_tail(aged, skb);
	}
}

/* Free and count what rx_age_locked() took, with no lock held. */
static void rx_aged_free(struct xfab_nb_queue *q, struct sk_buff_head *aged)
{
	struct sk_buff *skb;
	u64 n = 0;

	while ((skb = __skb_dequeue(aged))) {
		dev_kfree_skb_any(skb);
		n++;
	}
	if (n)
		atomic64_add(n, &q->st.rxr_drop_aged);
}

/* How long the backlog's oldest packet has waited, in ms (debugfs). */
unsigned int xfab_nb_rx_oldest_ms(struct xfab_nb_queue *q)
{
	struct sk_buff *skb;
	u32 age = 0;

	spin_lock_bh(&q->rx_queue.lock);
	skb = skb_peek(&q->rx_queue);
	if (skb)
		age = xfab_age(jiffies, nb_rx_cb(skb)->queued);
	spin_unlock_bh(&q->rx_queue.lock);
	return jiffies_to_msecs(age);
}

/* Drop the whole backlog; returns how many packets went. */
u64 xfab_nb_rx_purge(struct xfab_nb_queue *q)
{
	struct sk_buff *skb;
	u64 n = 0;

	while ((skb = rx_dequeue(q))) {
		dev_kfree_skb_any(skb);
		n++;
	}
	return n;
}

/* Posted buffers not yet used; -EIO when the guest's index is corrupt. */
static int rx_avail(struct xfab_nb_queue *q, u32 *avail)
{
	xfab_idx_t prod = READ_ONCE(q->rx.sring->req_prod);

	virt_rmb();	/* the index before the requests it covers */
	if (xfab_ring_reqs_pending(XFAB_NB_RX_RING_SIZE, prod, q->rx.req_cons,
				   q->rx.rsp_prod_pvt, avail)) {
		xfab_nb_fatal(q, "RX request producer index past the ring");
		return -EIO;
	}
	return 0;
}

/* Packets and buffers for them, or buffers that end a stall. */
bool xfab_nb_rx_has_work(struct xfab_nb_queue *q)
{
	u32 avail;

	if (!q->connected || q->broken)
		return false;
	if (skb_queue_empty_lockless(&q->rx_queue) && !READ_ONCE(q->rx_stalled))
		return false;
	return !rx_avail(q, &avail) && avail;
}

/* A stalled queue takes packets again once the guest posts buffers. */
static void rx_unstall(struct xfab_nb_queue *q)
{
	u32 avail;

	if (!READ_ONCE(q->rx_stalled) || rx_avail(q, &avail) || !avail)
		return;
	WRITE_ONCE(q->rx_progress, jiffies);
	WRITE_ONCE(q->rx_stalled, false);
	netdev_info(q->vif->dev, "queue %u: guest posts RX buffers again\n",
		    q->id);
}

/* Enough buffers for the next packet? If not, ask to be told. */
static bool rx_room(struct xfab_nb_queue *q, u32 need)
{
	u32 avail;

	if (rx_avail(q, &avail))
		return false;
	if (avail >= need)
		return true;
	WRITE_ONCE(q->rx.sring->req_event, q->rx.req_cons + need);
	virt_mb();	/* event armed before the last look: no lost kick */
	return !rx_avail(q, &avail) && avail >= need;
}

/*
 * Append one skb's linear part and page frags, cut at 4 KiB, to the
 * pieces at n; writes at most max in all. Returns the new count.
 */
static u32 rx_src_add(struct xfab_seg *src, u32 max, const struct sk_buff *skb,
		      u32 n)
{
	u32 i;

	n += xfab_seg_split((unsigned long)skb->data, skb_headlen(skb),
			    n < max ? src + n : NULL, n < max ? max - n : 0);
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];
		unsigned long a = (unsigned long)page_address(skb_frag_page(f)) +
				  skb_frag_off(f);

		n += xfab_seg_split(a, skb_frag_size(f),
				    n < max ? src + n : NULL,
				    n < max ? max - n : 0);
	}
	return n;
}

/*
 * The packet's pieces in order, its own and then those of each skb on
 * its frag_list, at most max written (none with max 0: a count). A
 * deeper frag_list we do not walk: it counts as too many, so that
 * start_xmit linearises such a packet.
 */
static u32 rx_pieces(struct xfab_seg *src, u32 max, const struct sk_buff *skb)
{
	const struct sk_buff *f;
	u32 n = rx_src_add(src, max, skb, 0);

	skb_walk_frags(skb, f) {
		if (skb_has_frag_list(f))
			return U32_MAX;
		n = rx_src_add(src, max, f, n);
	}
	return n;
}

/*
 * A piece into a page of the guest's RX pool (dst: our mapping of it),
 * copied now; the planner kept it within the page.
 */
static void rx_pool_copy(struct xfab_nb_queue *q, const struct xfab_copy_op *c,
			 void *dst)
{
	memcpy(dst + c->doff, (void *)(q->rx_src[c->si].page << 12) + c->soff,
	       c->len);
	q->rx_pool_ops++;
	q->rx_pool_bytes += c->len;
}

/*
 * Which data slot request i of a packet is, or -1: buffers are used in
 * ring order, the GSO extra takes slot 1, and by reference every data
 * slot after the first is followed by its frame slot.
 */
static int rx_data_index(const struct xfab_nb_rxp *p, u32 i)
{
	u32 base = 1 + p->gso;

	if (i == 0)
		return 0;
	if (i < base)
		return -1;
	if (!p->ref.on)
		return i - p->gso;
	return (i - base) & 1 ? -1 : 1 + (i - base) / 2;
}

/* The pieces to copy: the whole packet, or by reference its headers. */
static u32 rx_copy_pieces(struct xfab_nb_queue *q, const struct xfab_nb_rxp *p)
{
	const struct sk_buff *skb = p->skb;

	if (!p->ref.on)
		return rx_pieces(q->rx_src, XFAB_NB_RX_SRC, skb);
	return xfab_seg_split((unsigned long)skb->data, skb_headlen(skb),
			      q->rx_src, XFAB_NB_RX_SRC);
}

/* Take the buffers, plan the copies. Returns -E2BIG if it cannot be cut. */
static int rx_plan_packet(struct xfab_nb_queue *q, struct xfab_nb_rxp *p,
			  u32 need, u32 *nops)
{
	void *pool_va[XFAB_NB_RX_MAX_DATA];	/* per buffer: NULL, a grant */
	const struct skb_shared_info *sh = skb_shinfo(p->skb);
	bool granted = false;
	u32 i, ns, k = 0;
	int n, idx;

	for (i = 0; i < need; i++) {
		struct xen_netif_rx_request r;

		memcpy(&r, RING_GET_REQUEST(&q->rx, q->rx.req_cons + i),
		       sizeof(r));
		idx = rx_data_index(p, i);
		if (idx < 0)
			continue;
		p->ids[idx] = r.id;
		if (p->ref.on && idx) {
			/* a reference: the frag's length, its buffer empty */
			p->used[idx] = skb_frag_size(&sh->frags[idx - 1]);
			continue;
		}
		q->rx_dst[idx] = (struct xfab_seg){ r.gref, 0, XEN_PAGE_SIZE };
		/* once per buffer; a buffer may take several pieces */
		pool_va[idx] = xfab_nb_pool_va(&q->rx_pool, r.gref);
		granted |= !pool_va[idx];
		p->used[idx] = 0;
	}
	q->rx.req_cons += need;
	/*
	 * Window pages (another guest's, by reference) have no frame to
	 * grant-copy from: when a buffer lies outside the guest's pool, the
	 * packet's frags are copied first. By reference only the head is
	 * copied, and it is ours.
	 */
	if (granted && !p->ref.on && xfab_nb_ptr_skb(p->skb) &&
	    skb_copy_ubufs(p->skb, GFP_ATOMIC))
		return -ENOMEM;
	ns = rx_copy_pieces(q, p);
	if (ns > XFAB_NB_RX_SRC)
		return -E2BIG;
	n = xfab_copy_zip(q->rx_src, ns, q->rx_dst, p->ref.on ? 1 : p->nslots,
			  q->rx_plan, XFAB_NB_MAX_OPS - *nops);
	if (n < 0)
		return n;
	p->op_first = *nops;
	for (i = 0; i < n; i++) {
		const struct xfab_copy_op *c = &q->rx_plan[i];
		struct gnttab_copy *op;

		p->used[c->di] = max_t(u16, p->used[c->di], c->doff + c->len);
		if (pool_va[c->di]) {
			rx_pool_copy(q, c, pool_va[c->di]);
			continue;
		}
		op = &q->rx_ops[*nops + k++];
		op->source.u.gmfn = virt_to_gfn((void *)(q->rx_src[c->si].page << 12));
		op->source.domid = DOMID_SELF;
		op->source.offset = c->soff;
		op->dest.u.ref = q->rx_dst[c->di].page;
		op->dest.domid = q->vif->domid;
		op->dest.offset = c->doff;
		op->len = c->len;
		op->flags = GNTCOPY_dest_gref;
	}
	p->op_count = k;
	*nops += k;
	return 0;
}

/*
 * The next packet if the guest has posted buffers for all of it, taken
 * off the backlog under its lock: the stall purge (another work item)
 * may empty the backlog at any time, so the packet looked at and the
 * packet taken must be one and the same. Packets older than limit go
 * to aged first: the guest is never handed one.
 */
static struct sk_buff *rx_take(struct xfab_nb_queue *q, struct xfab_nb_rxp *p,
			       u32 *need, u32 *data, u32 now, u32 limit,
			       struct sk_buff_head *aged)
{
	struct sk_buff *skb;

	spin_lock_bh(&q->rx_queue.lock);
	rx_age_locked(q, now, limit, aged);
	skb = skb_peek(&q->rx_queue);
	if (skb) {
		*need = rx_need(q, p, skb, data);
		if (rx_room(q, *need))
			rx_unlink(q, skb);
		else
			skb = NULL;
	}
	spin_unlock_bh(&q->rx_queue.lock);
	return skb;
}

/*
 * A packet whose need buffers are there: take them and plan its copies
 * into p (by reference if rx_need said so in p->ref). One that cannot be
 * cut is answered with errors.
 */
static void rx_prepare(struct xfab_nb_queue *q, struct xfab_nb_rxp *p,
		       struct sk_buff *skb, u32 need, u32 data, u32 *nops)
{
	p->skb = skb;
	p->nslots = data;
	p->gso = skb_is_gso(skb);
	p->failed = rx_plan_packet(q, p, need, nops) != 0;
	if (p->failed)
		p->op_count = 0;
}

/*
 * Fill q->rxp[] with packets that have buffers; returns how many. Those
 * that waited too long go to aged, for the caller to free.
 */
static int rx_gather(struct xfab_nb_queue *q, u32 *nops,
		     struct sk_buff_head *aged)
{
	/* one clock read per round: a round lasts far less than a tick */
	u32 now = jiffies, limit = rx_drain_ticks();
	struct sk_buff *skb;
	int n = 0;

	*nops = 0;
	while (n < XFAB_NB_BATCH &&
	       XFAB_NB_MAX_OPS - *nops >= XFAB_NB_RX_SRC + XFAB_NB_RX_MAX_DATA) {
		u32 need, data;

		skb = rx_take(q, &q->rxp[n], &need, &data, now, limit, aged);
		if (!skb)
			break;
		rx_prepare(q, &q->rxp[n++], skb, need, data, nops);
	}
	return n;
}

static void rx_respond(struct xfab_nb_queue *q, u16 id, u16 off, u16 flags,
		       s16 status)
{
	struct xen_netif_rx_response *rsp;

	rsp = RING_GET_RESPONSE(&q->rx, q->rx.rsp_prod_pvt);
	rsp->id = id;
	rsp->offset = off;
	rsp->flags = flags;
	rsp->status = status;
	q->rx.rsp_prod_pvt++;
}

static void rx_extra(struct xfab_nb_queue *q, const struct sk_buff *skb)
{
	struct xen_netif_extra_info *e;

	e = (struct xen_netif_extra_info *)
		RING_GET_RESPONSE(&q->rx, q->rx.rsp_prod_pvt);
	memset(e, 0, sizeof(struct xen_netif_rx_response));
	e->type = XEN_NETIF_EXTRA_TYPE_GSO;
	e->u.gso.size = skb_shinfo(skb)->gso_size;
	e->u.gso.type = skb_shinfo(skb)->gso_type & SKB_GSO_TCPV6 ?
			XEN_NETIF_GSO_TYPE_TCPV6 : XEN_NETIF_GSO_TYPE_TCPV4;
	q->rx.rsp_prod_pvt++;
}

/* The frame slot after a reference; it keeps its request's id in place. */
static void rx_ref_slot(struct xfab_nb_queue *q, u16 peer, u32 frame)
{
	xfab_rx_ref_pack((struct xen_netif_extra_info *)
			 RING_GET_RESPONSE(&q->rx, q->rx.rsp_prod_pvt),
			 peer, frame);
	q->rx.rsp_prod_pvt++;
}

static u16 rx_csum_flags(const struct sk_buff *skb)
{
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		return XEN_NETRXF_csum_blank | XEN_NETRXF_data_validated;
	if (skb->ip_summed == CHECKSUM_UNNECESSARY)
		return XEN_NETRXF_data_validated;
	return 0;
}

static bool rx_copies_ok(struct xfab_nb_queue *q, struct xfab_nb_rxp *p)
{
	unsigned int i;

	if (p->failed)
		return false;
	for (i = 0; i < p->op_count; i++)
		if (q->rx_ops[p->op_first + i].status != GNTST_okay)
			return false;
	return true;
}

/* What one round answered, counted once per round, not per packet. */
struct nb_rx_tally {
	u64 packets, bytes, slots, gso, drop_copy, direct;
	u64 ref_packets, ref_bytes, ref_over;
	struct sk_buff_head held;	/* copied: kept till the guest took them */
	struct sk_buff_head refs;	/* by reference: the same, with no limit */
};

/* Answer one packet's buffers in ring order. */
static void rx_answer(struct xfab_nb_queue *q, struct xfab_nb_rxp *p,
		      struct nb_rx_tally *t)
{
	bool ok = rx_copies_ok(q, p);
	u16 flags, off;
	u32 i;

	for (i = 0; i < p->nslots; i++) {
		flags = i + 1 < p->nslots ? XEN_NETRXF_more_data : 0;
		off = 0;
		if (i == 0) {
			flags |= rx_csum_flags(p->skb);
			if (p->gso)
				flags |= XEN_NETRXF_extra_info;
		} else if (p->ref.on) {
			flags |= XFAB_NETRXF_REF;
			off = skb_frag_off(&skb_shinfo(p->skb)->frags[i - 1]);
		}
		rx_respond(q, p->ids[i], off, flags,
			   ok ? p->used[i] : XEN_NETIF_RSP_ERROR);
		if (i == 0 && p->gso) {
			/* the extra's slot keeps its request's id in place */
			rx_extra(q, p->skb);
		}
		if (i && p->ref.on)
			rx_ref_slot(q, p->ref.peer, p->ref.frame[i - 1]);
	}
	t->ref_over += p->ref.over;
	if (ok) {
		t->packets++;
		t->bytes += p->skb->len;
		t->slots += p->nslots + p->gso;
		t->gso += p->gso;
		if (p->ref.on) {
			t->slots += p->nslots - 1;
			t->ref_packets++;
			t->ref_bytes += p->skb->data_len;
		}
		xfab_nb_rx_hold_add(q, p->ref.on ? &t->refs : &t->held,
				    p->skb);
	} else {
		t->drop_copy++;
		dev_kfree_skb_any(p->skb);
	}
	p->skb = NULL;
}

/* A round's counters, copy calls included, in one update section. */
static void rx_count(struct xfab_nb_queue *q, const struct nb_rx_tally *t,
		     u32 nops)
{
	struct xfab_nb_stats *st = &q->st;

	u64_stats_update_begin(&st->rx_sync);
	u64_stats_add(&st->rxr_packets, t->packets);
	u64_stats_add(&st->rxr_bytes, t->bytes);
	u64_stats_add(&st->rxr_slots, t->slots);
	u64_stats_add(&st->rxr_gso, t->gso);
	u64_stats_add(&st->rxr_drop_copy, t->drop_copy);
	u64_stats_add(&st->rxr_direct, t->direct);
	u64_stats_add(&st->rxr_ref_packets, t->ref_packets);
	u64_stats_add(&st->rxr_ref_bytes, t->ref_bytes);
	u64_stats_add(&st->rxr_ref_over, t->ref_over);
	if (nops) {
		u64_stats_inc(&st->rxr_copy_calls);
		u64_stats_add(&st->rxr_copy_ops, nops);
	}
	u64_stats_add(&st->rxr_pool_ops, q->rx_pool_ops);
	u64_stats_add(&st->rxr_pool_bytes, q->rx_pool_bytes);
	u64_stats_update_end(&st->rx_sync);
	/* the memcpy tally starts again for the next round */
	q->rx_pool_ops = 0;
	q->rx_pool_bytes = 0;
}

/*
 * Tell the guest about new responses if it asked. With kick_ns set, a
 * guest notified less than kick_ns ago is told by the timer instead,
 * at the end of that gap: while packets stream in, one notification
 * covers all that came meanwhile (the guest's NAPI takes them in one
 * poll); a packet after a quiet spell is told at once, so a
 * request/response exchange waits for nothing.
 */
static void rx_publish(struct xfab_nb_queue *q)
{
	u32 gap = READ_ONCE(q->vif->kick_ns);
	u64 now, last;

	/*
	 * No spacing and none held: as the TX ring. Only this function arms
	 * the timer, under the queue's xmit lock, so none gets armed meanwhile.
	 */
	if (!gap && !READ_ONCE(q->rx_kick_armed)) {
		xfab_nb_publish(&q->rx_pushed, q->rx.rsp_prod_pvt,
				&q->rx.sring->rsp_prod, &q->rx.sring->rsp_event,
				q->rx_irq, &q->st.rx_sync, &q->st.rxr_kicks);
		return;
	}
	if (!xfab_ring_publish(&q->rx_pushed, q->rx.rsp_prod_pvt,
			       &q->rx.sring->rsp_prod,
			       &q->rx.sring->rsp_event))
		return;
	now = ktime_get_ns();
	last = READ_ONCE(q->rx_kick_ns);
	if (!gap || now - last >= gap) {
		if (READ_ONCE(q->rx_kick_armed))
			return;	/* the timer is about to tell it */
		WRITE_ONCE(q->rx_kick_ns, now);
		notify_remote_via_irq(q->rx_irq);
		xfab_nb_rx_inc(q, rxr_kicks);
		return;
	}
	atomic64_inc(&q->st.rxr_kicks_held);
	if (READ_ONCE(q->rx_kick_armed))
		return;
	WRITE_ONCE(q->rx_kick_armed, true);
	hrtimer_start(&q->rx_kick_timer, ns_to_ktime(last + gap),
		      HRTIMER_MODE_ABS);
}

/* The gap since the last notification is over: send the one held back. */
enum hrtimer_restart xfab_nb_rx_kick_timer(struct hrtimer *t)
{
	struct xfab_nb_queue *q = container_of(t, struct xfab_nb_queue,
					       rx_kick_timer);

	WRITE_ONCE(q->rx_kick_ns, ktime_get_ns());
	WRITE_ONCE(q->rx_kick_armed, false);
	if (READ_ONCE(q->connected) && q->rx_irq > 0) {
		notify_remote_via_irq(q->rx_irq);
		atomic64_inc(&q->st.rxr_kicks_late);
	}
	return HRTIMER_NORESTART;
}

/*
 * Copy, answer, count and publish the n packets planned in q->rxp[]
 * (direct: by start_xmit).
 */
static void rx_finish(struct xfab_nb_queue *q, int n, u32 nops, bool direct)
{
	struct nb_rx_tally t = { .direct = direct ? n : 0 };
	int i;

	__skb_queue_head_init(&t.held);
	__skb_queue_head_init(&t.refs);
	if (nops)
		gnttab_batch_copy(q->rx_ops, nops);
	for (i = 0; i < n; i++)
		rx_answer(q, &q->rxp[i], &t);
	rx_count(q, &t, nops);
	rx_publish(q);
	WRITE_ONCE(q->rx_progress, jiffies);
	xfab_nb_rx_hold(q, &t.held);
	xfab_nb_rx_refs_hold(q, &t.refs);
}

/*
 * start_xmit, under the queue's xmit lock, with an empty backlog: copy
 * the packet now if the guest has buffers for all of it. False: queue it
 * (the ring is short, and rx_room asked the guest to tell us).
 */
static bool rx_direct(struct xfab_nb_queue *q, struct sk_buff *skb)
{
	u32 need, data, nops = 0;

	need = rx_need(q, &q->rxp[0], skb, &data);
	if (!rx_room(q, need))
		return false;
	rx_prepare(q, &q->rxp[0], skb, need, data, &nops);
	rx_finish(q, 1, nops, true);
	return true;
}

void xfab_nb_rx_work(struct work_struct *work)
{
	struct xfab_nb_queue *q = container_of(work, struct xfab_nb_queue,
					       rx_work);
	struct netdev_queue *txq = netdev_get_tx_queue(q->vif->dev, q->id);
	struct sk_buff_head aged;
	int rounds = 0, n;
	u32 nops;

	__skb_queue_head_init(&aged);
	rx_unstall(q);
	while (q->connected && !q->broken && rounds++ < 64) {
		/* start_xmit's direct copies use the ring under this lock */
		__netif_tx_lock_bh(txq);
		n = rx_gather(q, &nops, &aged);
		if (n)
			rx_finish(q, n, nops, false);
		__netif_tx_unlock_bh(txq);
		rx_aged_free(q, &aged);
		if (!n)
			break;
	}
	xfab_nb_eoi(q, XFAB_NB_EOI_RX);
	/* Out of rounds with work left: yield the CPU, then go on. */
	if (rounds > 64)
		queue_work(xfab_nb_wq, &q->rx_work);
}

/*
 * The stall timer's other job: drop what waited past rx_drain_ms, then
 * say when to look again, in jiffies from now: when the new head ages,
 * or at the stall (stall_in) if that comes first; 0 when the backlog is
 * empty (its next packet arms the timer). Not sooner than a sixteenth
 * of the limit: under a flood every tick has its packets, and the timer
 * would run at each; this way it runs at most 16 times per limit, and a
 * packet goes at most limit / 16 after it aged (plus the worker's delay).
 */
static unsigned long rx_age_timer(struct xfab_nb_queue *q, u32 now,
				  unsigned long stall_in)
{
	u32 limit = rx_drain_ticks(), slack = max_t(u32, limit / 16, 1);
	struct sk_buff_head aged;
	struct sk_buff *skb;
	unsigned long next = 0;

	__skb_queue_head_init(&aged);
	spin_lock_bh(&q->rx_queue.lock);
	rx_age_locked(q, now, limit, &aged);
	skb = skb_peek(&q->rx_queue);
	if (skb)
		next = min_t(unsigned long, stall_in,
			     max(xfab_age_left(now, nb_rx_cb(skb)->queued,
					       limit), slack));
	spin_unlock_bh(&q->rx_queue.lock);
	rx_aged_free(q, &aged);
	return next;
}

/*
 * Armed when the backlog starts: has it moved in rx_stall_secs? If not,
 * drop it and stall the queue (xmit drops until the guest posts buffers).
 * If it has, age it (rx_age_timer) and come back.
 */
void xfab_nb_rx_stall_check(struct work_struct *work)
{
	struct xfab_nb_queue *q = container_of(to_delayed_work(work),
					       struct xfab_nb_queue, rx_stall);
	unsigned long limit = xfab_nb_rx_stall_secs * HZ;
	unsigned long due = READ_ONCE(q->rx_progress) + limit;
	/* one clock read: a tick between two would make due - now wrap */
	unsigned long now = jiffies, next;

	if (skb_queue_empty_lockless(&q->rx_queue))
		return;		/* the next packet arms it again */
	if (time_before(now, due)) {
		next = rx_age_timer(q, now, due - now);
		if (next)
			mod_delayed_work(xfab_nb_wq, &q->rx_stall, next);
		return;
	}
	netdev_warn_once(q->vif->dev,
			 "queue %u: guest posted no RX buffers for %us, dropping its packets until it does\n",
			 q->id, xfab_nb_rx_stall_secs);
	WRITE_ONCE(q->rx_stalled, true);
	atomic64_add(xfab_nb_rx_purge(q), &q->st.rxr_drop_stall);
	/*
	 * Buffers the guest posted while the purge ran end the stall; it
	 * will not kick again for them, and a stalled queue queues no work.
	 */
	queue_work(xfab_nb_wq, &q->rx_work);
}
