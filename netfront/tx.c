// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_netfront TX: skbs to ring requests, completions back.
 *
 * Default trust: each packet is copied into the queue's bounce pool, in
 * slots of up to 4 KiB at offset 0 of the pool page of the slot's id. The
 * pool pages were zeroed and granted read-only once, at connect, so a
 * slot costs no grant operation and what the backend can read of a page
 * is what we sent it there. The skb is kept (by its last slot) until the
 * backend answered: while it is in flight the socket's TSQ and autocork
 * see it and let the next writes gather into bigger packets. Freed at
 * once, netperf's 16 KiB writes left as packets of 13 KiB on average
 * (stock netfront's: 47 KiB); held, 26 KiB (make bench, TCP_STREAM).
 *
 * Relaxed trust: every piece of a packet (the linear part and each
 * fragment, cut at 4 KiB Xen page boundaries) is granted read-only to the
 * backend in place, in a slot of its own. Each slot holds its own skb
 * reference, so the skb goes away with the last slot the backend
 * answers, whatever order it answers them in.
 *
 * Pointer mode (relaxed trust toward a backend that reads our memory
 * through its window, docs/pointer-mode.md): the same slots, but each
 * names its machine frame instead of a grant (XFAB_NETTXF_PTR), so a
 * packet costs no grant operation on either side. A frame above 32 bits
 * does not fit the slot: that piece is granted as before.
 *
 * Ids come from the queue's xfab_ids in both modes.
 */
#include <linux/skbuff.h>
#include <linux/mm.h>
#include <xen/events.h>
#include <xen/page.h>
#include "common.h"

/* Building one packet's requests. */
struct xfab_nf_tx_ctx {
	struct xfab_nf_queue *q;
	struct sk_buff *skb;
	struct xen_netif_tx_request *first;
	struct xen_netif_tx_request *prev;
	struct xen_netif_extra_info gso;	/* type 0: no GSO slot */
};

/*
 * Can the queue take a packet of 'slots' data slots plus 'extras'? Ids
 * (and the grants that go with them) are checked apart from ring room:
 * a backend that answers a data slot with RSP_NULL keeps its id busy
 * forever, and that must cost it throughput, not our memory safety.
 */
static bool nf_tx_room(const struct xfab_nf_queue *q, unsigned int slots,
		       unsigned int extras)
{
	return xfab_ring_free_reqs(XFAB_NF_TX_RING_SIZE, q->tx.req_prod_pvt,
				   q->tx.rsp_cons) >= slots + extras &&
	       q->tx_ids.nr - q->tx_ids.in_flight >= slots;
}

/* Room for the biggest packet: the queue may run. */
static bool nf_tx_room_max(const struct xfab_nf_queue *q)
{
	return nf_tx_room(q, XFAB_NF_TX_MAX_SLOTS, 1);
}

/* Xen pages the byte range [off, off + len) of a page touches. */
static unsigned int nf_range_slots(unsigned int off, unsigned int len)
{
	if (!len)
		return 0;
	return DIV_ROUND_UP((off & (XEN_PAGE_SIZE - 1)) + len, XEN_PAGE_SIZE);
}

static unsigned int nf_skb_slots(struct sk_buff *skb)
{
	unsigned int i, n;

	n = nf_range_slots(offset_in_page(skb->data), skb_headlen(skb));
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];

		n += nf_range_slots(skb_frag_off(f), skb_frag_size(f));
	}
	return n;
}

/* Post one data slot under id (the extra-info record after the first). */
static void nf_tx_req(struct xfab_nf_tx_ctx *c, u16 id, grant_ref_t ref,
		      unsigned int off, unsigned int len)
{
	struct xfab_nf_queue *q = c->q;
	struct xen_netif_tx_request *req;

	req = RING_GET_REQUEST(&q->tx, q->tx.req_prod_pvt++);
	req->id = id;
	req->gref = ref;
	req->offset = off;
	req->size = len;
	req->flags = 0;
	if (c->prev)
		c->prev->flags |= XEN_NETTXF_more_data;
	c->prev = req;
	if (c->first)
		return;
	c->first = req;
	if (c->gso.type) {
		*(struct xen_netif_extra_info *)
			RING_GET_REQUEST(&q->tx, q->tx.req_prod_pvt++) = c->gso;
		req->flags |= XEN_NETTXF_extra_info;
		q->tx_extras++;		/* answered by an RSP_NULL */
	}
}

/*
 * Pointer mode: name the bytes by machine frame (a PV guest's gfn is its
 * mfn). False if the frame does not fit the slot's 32 bits.
 */
static bool nf_tx_ptr(struct xfab_nf_tx_ctx *c, struct page *page,
		      unsigned long gfn, unsigned int off, unsigned int len)
{
	struct xfab_nf_queue *q = c->q;
	struct xfab_nf_tx_buf *buf;
	int id;

	if (gfn > U32_MAX)
		return false;
	id = xfab_ids_get(&q->tx_ids);
	buf = &q->tx_buf[id];
	buf->skb = skb_get(c->skb);
	buf->page = page;
	buf->ptr = true;
	nf_tx_req(c, id, gfn, off, len);
	c->prev->flags |= XFAB_NETTXF_PTR;
	xfab_nf_tx_add(q, XFAB_NF_TX_PTR_SLOTS, 1);
	xfab_nf_tx_add(q, XFAB_NF_TX_PTR_BYTES, len);
	return true;
}

/* Relaxed trust: grant bytes that lie within one Xen page where they are. */
static void nf_tx_slot(struct xfab_nf_tx_ctx *c, struct page *page,
		       unsigned int off, unsigned int len)
{
	struct xfab_nf_queue *q = c->q;
	struct xfab_nf_tx_buf *buf;
	unsigned long gfn;
	int id, ref;

	page = nth_page(page, off >> PAGE_SHIFT);
	off &= ~PAGE_MASK;
	gfn = pfn_to_gfn(page_to_xen_pfn(page) + (off >> XEN_PAGE_SHIFT));
	if (q->tx_ptr &&
	    nf_tx_ptr(c, page, gfn, off & (XEN_PAGE_SIZE - 1), len))
		return;
	/* room was checked: ids and private grefs are one per ring slot */
	id = xfab_ids_get(&q->tx_ids);
	ref = gnttab_claim_grant_reference(&q->tx_gref_head);
	gnttab_grant_foreign_access_ref(ref, q->info->xbdev->otherend_id, gfn, 1);
	xfab_nf_tx_add(q, XFAB_NF_TX_GRANTS, 1);

	buf = &q->tx_buf[id];
	buf->skb = skb_get(c->skb);
	buf->page = page;
	buf->gref = ref;
	nf_tx_req(c, id, ref, off & (XEN_PAGE_SIZE - 1), len);
}

/*
 * Default trust: copy the packet into pool pages, up to 4 KiB a slot.
 * Room was checked, so every id has its pool page.
 */
static void nf_tx_bounce(struct xfab_nf_tx_ctx *c)
{
	struct xfab_nf_queue *q = c->q;
	struct sk_buff *skb = c->skb;
	unsigned int done, len;

	for (done = 0; done < skb->len; done += len) {
		int id = xfab_ids_get(&q->tx_ids);
		struct xfab_nf_tx_buf *buf = &q->tx_buf[id];

		len = min_t(unsigned int, skb->len - done, XEN_PAGE_SIZE);
		/* within skb->len, so it cannot fail */
		(void)skb_copy_bits(skb, done, page_address(buf->page), len);
		nf_tx_req(c, id, buf->gref, 0, len);
		if (done + len == skb->len)
			buf->skb = skb_get(skb);	/* answered last: freed then */
	}
	xfab_nf_tx_add(q, XFAB_NF_TX_BOUNCED, 1);
	xfab_nf_tx_add(q, XFAB_NF_TX_BOUNCE_BYTES, skb->len);
}

static void nf_tx_range(struct xfab_nf_tx_ctx *c, struct page *page,
			unsigned int off, unsigned int len)
{
	while (len) {
		unsigned int chunk = min_t(unsigned int, len,
					   XEN_PAGE_SIZE - (off & (XEN_PAGE_SIZE - 1)));

		nf_tx_slot(c, page, off, chunk);
		off += chunk;
		len -= chunk;
	}
}

static void nf_tx_queue_skb(struct xfab_nf_tx_ctx *c)
{
	struct sk_buff *skb = c->skb;
	unsigned int i;

	if (c->q->tx_bounce) {
		nf_tx_bounce(c);
		goto first;
	}
	nf_tx_range(c, virt_to_page(skb->data), offset_in_page(skb->data),
		    skb_headlen(skb));
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];

		nf_tx_range(c, skb_frag_page(f), skb_frag_off(f),
			    skb_frag_size(f));
	}
first:
	/* the first slot's size is the whole packet's */
	c->first->size = skb->len;
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		c->first->flags |= XEN_NETTXF_csum_blank | XEN_NETTXF_data_validated;
	else if (skb->ip_summed == CHECKSUM_UNNECESSARY)
		c->first->flags |= XEN_NETTXF_data_validated;
}

/* Publish new requests; kick only a backend that asked for it. */
static void nf_tx_push(struct xfab_nf_queue *q)
{
	if (xfab_ring_publish(&q->tx_pushed, q->tx.req_prod_pvt,
			      &q->tx.sring->req_prod, &q->tx.sring->req_event)) {
		notify_remote_via_irq(q->tx_irq);
		xfab_nf_tx_add(q, XFAB_NF_TX_KICKS, 1);
	}
}

/* The GSO record for the extra slot, or 0 (and *gso.type 0) for none. */
static int nf_tx_gso(struct sk_buff *skb, struct xen_netif_extra_info *gso)
{
	memset(gso, 0, sizeof(*gso));
	if (!skb_is_gso(skb))
		return 0;
	if (skb_shinfo(skb)->gso_type & SKB_GSO_TCPV4)
		gso->u.gso.type = XEN_NETIF_GSO_TYPE_TCPV4;
	else if (skb_shinfo(skb)->gso_type & SKB_GSO_TCPV6)
		gso->u.gso.type = XEN_NETIF_GSO_TYPE_TCPV6;
	else
		return -EPROTONOSUPPORT;	/* we offered no other offload */
	gso->type = XEN_NETIF_EXTRA_TYPE_GSO;
	gso->u.gso.size = skb_shinfo(skb)->gso_size;
	return 0;
}

/*
 * Make the skb fit the protocol: at least an Ethernet header in the first
 * slot, at most XFAB_NF_TX_MAX_SLOTS data slots. Returns the slot count or
 * a negative drop reason (a tx stat index).
 */
static int nf_tx_prepare(struct xfab_nf_queue *q, struct sk_buff *skb)
{
	unsigned int slots;

	if (skb->len < ETH_HLEN || skb->len > XEN_NETIF_MAX_TX_SIZE)
		return -XFAB_NF_TX_DROP_BAD_SKB;
	/*
	 * Copied: 64 KiB in 4 KiB slots is 16, within the protocol's floor,
	 * and the first slot holds min(len, 4 KiB) >= ETH_HLEN bytes.
	 */
	if (q->tx_bounce)
		return DIV_ROUND_UP(skb->len, XEN_PAGE_SIZE);
	/* in place, an empty head is a zero-length first slot to the backend */
	if (!pskb_may_pull(skb, ETH_HLEN))
		return -XFAB_NF_TX_DROP_BAD_SKB;
	slots = nf_skb_slots(skb);
	if (slots <= XFAB_NF_TX_MAX_SLOTS)
		return slots;
	if (skb_linearize(skb))
		return -XFAB_NF_TX_DROP_TOO_MANY_SLOTS;
	xfab_nf_tx_add(q, XFAB_NF_TX_LINEARISED, 1);
	slots = nf_skb_slots(skb);
	if (slots > XFAB_NF_TX_MAX_SLOTS)
		return -XFAB_NF_TX_DROP_TOO_MANY_SLOTS;
	return slots;
}

/* Under tx_lock. Returns 0 or the tx stat index of the drop reason. */
static int nf_xmit_locked(struct xfab_nf_queue *q, struct sk_buff *skb,
			  struct netdev_queue *txq)
{
	struct xfab_nf_tx_ctx c = { .q = q, .skb = skb };
	unsigned int need;
	int slots;

	if (xfab_nf_broken(q->info) || !q->tx.sring)
		return XFAB_NF_TX_DROP_DOWN;
	slots = nf_tx_prepare(q, skb);
	if (slots < 0)
		return -slots;
	if (nf_tx_gso(skb, &c.gso))
		return XFAB_NF_TX_DROP_BAD_SKB;
	need = slots + (c.gso.type ? 1 : 0);
	if (!nf_tx_room(q, slots, need - slots)) {
		/* we stop while a maximal packet still fits: not reached */
		netif_tx_stop_queue(txq);
		return XFAB_NF_TX_DROP_RING_FULL;
	}
	nf_tx_queue_skb(&c);
	xfab_nf_tx_add(q, XFAB_NF_TX_PACKETS, 1);
	xfab_nf_tx_add(q, XFAB_NF_TX_BYTES, skb->len);
	xfab_nf_tx_add(q, XFAB_NF_TX_SLOTS, need);
	nf_tx_push(q);
	if (!nf_tx_room_max(q)) {
		/* completions run under tx_lock too: they will see this */
		netif_tx_stop_queue(txq);
		xfab_nf_tx_add(q, XFAB_NF_TX_STOPPED, 1);
	}
	return 0;
}

netdev_tx_t xfab_nf_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct xfab_nf_info *info = netdev_priv(dev);
	u16 qid = skb_get_queue_mapping(skb);
	struct xfab_nf_queue *q;
	int drop;

	/* queues change only under rtnl with the TX queues stopped */
	if (unlikely(qid >= info->num_queues)) {
		dev_core_stats_tx_dropped_inc(dev);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	q = &info->queues[qid];
	spin_lock(&q->tx_lock);
	drop = nf_xmit_locked(q, skb, netdev_get_tx_queue(dev, qid));
	if (drop)
		xfab_nf_tx_add(q, drop, 1);
	spin_unlock(&q->tx_lock);
	/* queued slots hold their own references; ours goes either way */
	if (drop)
		dev_kfree_skb_any(skb);
	else
		dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
}

/*
 * RSP_NULL answers an extra-info slot, which has no id. A backend that
 * answered a data slot with it would keep that slot's id (in place, its
 * grant and skb too) forever: more NULLs than extras posted is hostile.
 */
static int nf_tx_null(struct xfab_nf_queue *q)
{
	if (q->tx_extras) {
		q->tx_extras--;
		return 0;
	}
	xfab_nf_tx_add(q, XFAB_NF_TX_FATAL_NULL, 1);
	xfab_nf_disable(q->info, "tx data slot answered RSP_NULL");
	return -EIO;
}

/*
 * One response, already copied. Returns 0, or -EIO when the backend
 * proved hostile (the vif is disabled by then).
 */
static int nf_tx_done(struct xfab_nf_queue *q,
		      const struct xen_netif_tx_response *rsp)
{
	struct xfab_nf_tx_buf *buf;
	u16 id = rsp->id;

	if (rsp->status == XEN_NETIF_RSP_NULL)
		return nf_tx_null(q);
	if (!xfab_ids_busy(&q->tx_ids, id)) {
		/* put() on an id that is not busy only classifies it */
		int err = xfab_ids_put(&q->tx_ids, id);

		xfab_nf_tx_add(q, err == -ERANGE ? XFAB_NF_TX_FATAL_BAD_ID :
			       XFAB_NF_TX_FATAL_DUP_ID, 1);
		xfab_nf_disable(q->info, "tx response id");
		return -EIO;
	}
	if (rsp->status != XEN_NETIF_RSP_OKAY)
		xfab_nf_tx_add(q, XFAB_NF_TX_RSP_ERRORS, 1);
	buf = &q->tx_buf[id];
	if (q->tx_bounce || buf->ptr) {
		/* a pool page stays granted; a frame was never granted */
		xfab_ids_put(&q->tx_ids, id);
		if (buf->skb)
			dev_consume_skb_any(buf->skb);
		buf->skb = NULL;
		if (buf->ptr)
			buf->page = NULL;
		buf->ptr = false;
		return 0;
	}
	if (!gnttab_end_foreign_access_ref(buf->gref)) {
		/*
		 * It answered but still maps the page (XSA-396): the page
		 * must not be reused. Keep the slot busy; teardown hands the
		 * page to the grant code, which frees it once released.
		 */
		xfab_nf_tx_add(q, XFAB_NF_TX_FATAL_GRANT_BUSY, 1);
		xfab_nf_disable(q->info, "tx grant still in use");
		return -EIO;
	}
	gnttab_release_grant_reference(&q->tx_gref_head, buf->gref);
	xfab_nf_tx_add(q, XFAB_NF_TX_GRANTS_ENDED, 1);
	xfab_ids_put(&q->tx_ids, id);
	dev_consume_skb_any(buf->skb);
	buf->skb = NULL;
	buf->page = NULL;
	return 0;
}

/* Consume what the backend answered. Returns false once it is hostile. */
static bool nf_tx_reap(struct xfab_nf_queue *q)
{
	struct xen_netif_tx_response rsp;
	xfab_idx_t cons = q->tx.rsp_cons;
	u32 n, i;

	if (xfab_ring_rsps_pending(XFAB_NF_TX_RING_SIZE,
				   READ_ONCE(q->tx.sring->rsp_prod), cons,
				   q->tx.req_prod_pvt, &n)) {
		xfab_nf_tx_add(q, XFAB_NF_TX_FATAL_RING, 1);
		xfab_nf_disable(q->info, "tx rsp_prod out of range");
		return false;
	}
	virt_rmb();		/* responses after the index that shows them */
	for (i = 0; i < n; i++) {
		RING_COPY_RESPONSE(&q->tx, cons, &rsp);
		q->tx.rsp_cons = ++cons;
		if (nf_tx_done(q, &rsp))
			return false;
	}
	return true;
}

/* Ask for an event at the next response, then look once more. */
static bool nf_tx_rearm(struct xfab_nf_queue *q)
{
	WRITE_ONCE(q->tx.sring->rsp_event, q->tx.rsp_cons + 1);
	virt_mb();	/* event armed before the last look: no lost kick */
	return READ_ONCE(q->tx.sring->rsp_prod) != q->tx.rsp_cons;
}

/* From NAPI. */
void xfab_nf_tx_complete(struct xfab_nf_queue *q)
{
	struct netdev_queue *txq = netdev_get_tx_queue(q->info->netdev, q->id);

	spin_lock(&q->tx_lock);
	do {
		if (xfab_nf_broken(q->info) || !nf_tx_reap(q))
			goto out;
	} while (nf_tx_rearm(q));
	if (netif_tx_queue_stopped(txq) && netif_carrier_ok(q->info->netdev) &&
	    nf_tx_room_max(q))
		netif_tx_wake_queue(txq);
out:
	spin_unlock(&q->tx_lock);
}

/* A hint for the interrupt handler: are there unconsumed responses? */
bool xfab_nf_tx_pending(struct xfab_nf_queue *q)
{
	return READ_ONCE(q->tx.sring->rsp_prod) != READ_ONCE(q->tx.rsp_cons);
}

/*
 * Default trust, at connect: a zeroed page per id, granted read-only for
 * as long as the rings live (a backend may read the whole page, never
 * more than what we sent it). Teardown undoes any prefix.
 */
int xfab_nf_tx_pool_create(struct xfab_nf_queue *q)
{
	unsigned int id;

	for (id = 0; id < XFAB_NF_TX_RING_SIZE; id++) {
		struct xfab_nf_tx_buf *buf = &q->tx_buf[id];

		buf->page = xfab_nf_pool_page(q, &q->tx_gref_head, true,
					      &buf->gref);
		if (!buf->page)
			return -ENOMEM;
	}
	xfab_nf_tx_add(q, XFAB_NF_TX_GRANTS, XFAB_NF_TX_RING_SIZE);
	q->tx_bounce = true;
	return 0;
}

/*
 * An xfab backend that maps pools (info->pools) gets the bounce pool's
 * list: it then copies our TX slots with memcpy.
 */
void xfab_nf_tx_pool_publish(struct xfab_nf_queue *q)
{
	unsigned int id;
	u32 *refs;

	refs = xfab_nf_pool_dir_start(&q->tx_dir);
	for (id = 0; refs && id < XFAB_NF_TX_RING_SIZE; id++)
		refs[id] = q->tx_buf[id].gref;
	xfab_nf_pool_dir_finish(q, &q->tx_dir, XFAB_NF_TX_RING_SIZE, "TX");
}

/*
 * Teardown, with NAPI and xmit stopped: give back every slot still in
 * flight and the bounce pool. A grant the backend still holds keeps its
 * page: the grant code frees the page only once the backend let go (for
 * an skb's page it takes a reference of its own first).
 */
void xfab_nf_tx_release(struct xfab_nf_queue *q)
{
	unsigned int id;

	for (id = 0; id < XFAB_NF_TX_RING_SIZE; id++) {
		struct xfab_nf_tx_buf *buf = &q->tx_buf[id];

		if (xfab_ids_busy(&q->tx_ids, id))
			xfab_ids_put(&q->tx_ids, id);
		if (buf->ptr) {
			/* the backend may still read it: only our stream's loss */
			dev_kfree_skb_any(buf->skb);
			buf->skb = NULL;
			buf->page = NULL;
			buf->ptr = false;
			continue;
		}
		if (!buf->page)
			continue;
		/* in place, the skb's page: the grant code frees our own ref */
		if (buf->skb && !q->tx_bounce)
			get_page(buf->page);
		gnttab_end_foreign_access(buf->gref, buf->page);
		if (buf->skb)
			dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
		buf->page = NULL;
	}
	xfab_nf_pool_dir_release(&q->tx_dir);
}
