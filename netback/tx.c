// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Guest TX ring -> dom0 stack. NAPI polls the ring: each packet's slots
 * are copied out once, validated by common/ (xfab_tx_check), and the
 * packet's bytes are copied into a fresh skb: with memcpy from our
 * mapping when the slot names a page of the guest's TX pool (pool.c),
 * otherwise by grant copy, the copies of up to XFAB_NB_BATCH packets in
 * one hypercall. Every consumed slot is answered only after its copy
 * finished, since the answer lets the guest reuse the page.
 *
 * One copy per byte either way; the split into gather / copy / deliver
 * keeps the choice of how to copy inside tx_build(). A packet with
 * pointer slots (pointer mode, ptr.c) goes up with no copy at all when
 * it can, its data slots answered once the stack let go. Delivered
 * packets go through lro.c, which merges a poll's consecutive segments
 * of one TCP flow before the stack sees them.
 */
#include <linux/etherdevice.h>
#include <xen/page.h>
#include "common.h"

bool xfab_nb_tx_has_work(struct xfab_nb_queue *q)
{
	/* While throttled, only rate_timer brings NAPI back. */
	if (!q->connected || q->broken || READ_ONCE(q->tx_throttled))
		return false;
	return READ_ONCE(q->tx.sring->req_prod) != q->tx.req_cons;
}

void xfab_nb_tx_respond(struct xfab_nb_queue *q, u16 id, s16 status)
{
	struct xen_netif_tx_response *rsp;

	rsp = RING_GET_RESPONSE(&q->tx, q->tx.rsp_prod_pvt);
	rsp->id = id;
	rsp->status = status;
	q->tx.rsp_prod_pvt++;
}

/*
 * One answer per consumed slot; extras get the NULL status. A packet
 * sent by reference (p->pp) has its data slots answered later, by ptr.c.
 */
static void tx_answer(struct xfab_nb_queue *q, struct xfab_nb_txp *p,
		      s16 status)
{
	unsigned int i;

	for (i = 0; i < p->pkt.consumed; i++) {
		if (!p->is_data[i])
			xfab_nb_tx_respond(q, p->ids[i], XEN_NETIF_RSP_NULL);
		else if (!p->pp)
			xfab_nb_tx_respond(q, p->ids[i], status);
	}
}

/* Our destination pieces: the skb head, then whole pages as frags. */
static struct sk_buff *tx_alloc_skb(struct xfab_nb_queue *q, u32 len,
				    u32 *nd)
{
	u32 hdr = min_t(u32, len, XFAB_NB_HDR), rest = len - hdr, n, i = 0;
	struct sk_buff *skb;

	skb = napi_alloc_skb(&q->napi, hdr);
	if (!skb)
		return NULL;
	skb_put(skb, hdr);
	n = xfab_seg_split((unsigned long)skb->data, hdr, q->tx_dst,
			   XFAB_NB_TX_DST);
	while (rest) {
		u32 chunk = min_t(u32, rest, XEN_PAGE_SIZE);
		struct page *page = alloc_page(GFP_ATOMIC | __GFP_NOWARN);

		if (!page || i == MAX_SKB_FRAGS || n == XFAB_NB_TX_DST) {
			if (page)
				__free_page(page);
			kfree_skb(skb);
			return NULL;
		}
		skb_add_rx_frag(skb, i++, page, 0, chunk, PAGE_SIZE);
		q->tx_dst[n].page = (unsigned long)page_address(page) >> 12;
		q->tx_dst[n].off = 0;
		q->tx_dst[n].len = chunk;
		n++;
		rest -= chunk;
	}
	*nd = n;
	return skb;
}

/*
 * The guest's pieces: the first slot's bytes, then each data slot (so
 * piece i is pointer slot i when bit i of pkt->ptr_mask is set).
 */
static u32 tx_src_segs(struct xfab_nb_queue *q, const struct xfab_tx_pkt *pkt)
{
	const struct xen_netif_tx_request *r = &q->tx_slots[0].req;
	u32 i, n = 0;

	q->tx_src[n++] = (struct xfab_seg){ r->gref, r->offset,
					    pkt->first_len };
	for (i = 0; i < pkt->nr_frags; i++) {
		r = &q->tx_slots[pkt->frag_slot[i]].req;
		q->tx_src[n++] = (struct xfab_seg){ r->gref, r->offset,
						    r->size };
	}
	return n;
}

/*
 * A piece from a page of the guest's TX pool (src: our mapping of it),
 * copied now; the planner kept it within the page.
 */
static void tx_pool_copy(struct xfab_nb_queue *q, const struct xfab_copy_op *c,
			 const void *src)
{
	memcpy((void *)(q->tx_dst[c->di].page << 12) + c->doff, src + c->soff,
	       c->len);
	q->tx_pool_ops++;
	q->tx_pool_bytes += c->len;
}

/*
 * Plan the copies of a validated packet's ns pieces into the batch at
 * *nops: with memcpy from va[i] when a piece is mapped (a pool page, a
 * window page), by grant copy when va[i] is NULL.
 */
static int tx_plan_packet(struct xfab_nb_queue *q, struct xfab_nb_txp *p,
			  u32 ns, void **va, u32 *nops)
{
	u32 nd, i, k = 0;
	int n;

	p->skb = tx_alloc_skb(q, p->pkt.len, &nd);
	if (!p->skb)
		return -ENOMEM;
	n = xfab_copy_zip(q->tx_src, ns, q->tx_dst, nd, q->tx_plan,
			  XFAB_NB_MAX_OPS - *nops);
	if (n < 0) {
		kfree_skb(p->skb);
		p->skb = NULL;
		return n;
	}
	p->op_first = *nops;
	for (i = 0; i < n; i++) {
		const struct xfab_copy_op *c = &q->tx_plan[i];
		struct gnttab_copy *op;

		if (va[c->si]) {
			tx_pool_copy(q, c, va[c->si]);
			continue;
		}
		op = &q->tx_ops[*nops + k++];

		op->source.u.ref = q->tx_src[c->si].page;
		op->source.domid = q->vif->domid;
		op->source.offset = c->soff;
		op->dest.u.gmfn = virt_to_gfn((void *)(q->tx_dst[c->di].page << 12));
		op->dest.domid = DOMID_SELF;
		op->dest.offset = c->doff;
		op->len = c->len;
		op->flags = GNTCOPY_source_gref;
	}
	p->op_count = k;
	*nops += k;
	return 0;
}

/*
 * A validated packet into p->skb: by reference (ptr.c), or copied. Only
 * granted pieces are looked up in the pool: a pointer slot's "gref" is
 * a frame number, which may equal some pool reference. -EPROTO: dropped
 * and counted by ptr.c.
 */
static int tx_build(struct xfab_nb_queue *q, struct xfab_nb_txp *p, u32 *nops)
{
	void *va[XFAB_TX_FATAL_SLOTS];
	u32 ns = tx_src_segs(q, &p->pkt), i;
	int rc;

	/* once per slot; a slot's bytes may take several pieces */
	for (i = 0; i < ns; i++)
		va[i] = p->pkt.ptr_mask & BIT(i) ? NULL :
			xfab_nb_pool_va(&q->tx_pool, q->tx_src[i].page);
	if (!p->pkt.ptr_mask)
		return tx_plan_packet(q, p, ns, va, nops);
	rc = xfab_nb_ptr_packet(q, p, ns, va);
	if (rc <= 0)
		return rc;
	/* memcpy out of the window now: it may go after planning */
	rc = tx_plan_packet(q, p, ns, va, nops);
	xfab_nb_ptr_copied(q, p);
	return rc;
}

/* Copy the next packet's slots out of the shared ring, each once. */
static int tx_fetch(struct xfab_nb_queue *q, u32 *avail)
{
	xfab_idx_t prod = READ_ONCE(q->tx.sring->req_prod);
	u32 i, n;

	virt_rmb();	/* the index before the slots it covers */
	if (xfab_ring_reqs_pending(XFAB_NB_TX_RING_SIZE, prod, q->tx.req_cons,
				   q->tx.rsp_prod_pvt, avail)) {
		xfab_nb_fatal(q, "TX request producer index past the ring");
		return -EIO;
	}
	n = min_t(u32, *avail, XFAB_TX_MAX_CHAIN);
	for (i = 0; i < n; i++)
		memcpy(&q->tx_slots[i],
		       RING_GET_REQUEST(&q->tx, q->tx.req_cons + i),
		       sizeof(struct xen_netif_tx_request));
	*avail = n;
	return 0;
}

/* Mark which consumed slots are data (answered with a status). */
static void tx_note_slots(struct xfab_nb_queue *q, struct xfab_nb_txp *p)
{
	unsigned int i;

	for (i = 0; i < p->pkt.consumed; i++) {
		p->ids[i] = q->tx_slots[i].req.id;
		p->is_data[i] = i == 0;
	}
	for (i = 0; i < p->pkt.nr_frags; i++)
		p->is_data[p->pkt.frag_slot[i]] = 1;
}

/* The rate limit's credit came due: look at the ring again. */
void xfab_nb_rate_timer(struct timer_list *t)
{
	struct xfab_nb_queue *q = from_timer(q, t, rate_timer);

	WRITE_ONCE(q->tx_throttled, false);
	napi_schedule(&q->napi);
}

/*
 * May this valid packet go under the "rate" limit? If not, it stays on
 * the ring (not consumed) and the timer brings NAPI back when the credit
 * is there; the guest sees back-pressure, as with a slow link.
 */
static bool tx_rate_ok(struct xfab_nb_queue *q, u32 len)
{
	u64 wait = xfab_credit_take(&q->credit, len, ktime_get_ns());

	if (!wait)
		return true;
	xfab_nb_tx_inc(q, txr_rate_waits);
	WRITE_ONCE(q->tx_throttled, true);
	mod_timer(&q->rate_timer, jiffies + nsecs_to_jiffies(wait) + 1);
	return false;
}

/*
 * Take up to max packets off the ring into q->txp[], planning their
 * copies. Dropped packets are answered at once. Returns the number of
 * entries filled (a dropped one has no skb).
 */
static int tx_gather(struct xfab_nb_queue *q, int max, u32 *nops)
{
	int n = 0, err;
	u32 avail;

	*nops = 0;
	while (n < max && XFAB_NB_MAX_OPS - *nops >= 2 * XFAB_NB_TX_DST + 2) {
		struct xfab_nb_txp *p = &q->txp[n];

		if (tx_fetch(q, &avail) || !avail)
			break;
		/* without pointer mode, a pointer slot drops its packet */
		err = xfab_tx_check(q->tx_slots, avail, XFAB_TX_FATAL_SLOTS - 1,
				    q->ptr, &p->pkt);
		if (xfab_tx_err_fatal(err)) {
			xfab_nb_tx_inc(q, txr_err[err]);
			xfab_nb_fatal(q, xfab_tx_err_name(err));
			break;
		}
		if (!err && !tx_rate_ok(q, p->pkt.len))
			break;
		tx_note_slots(q, p);
		q->tx.req_cons += p->pkt.consumed;
		xfab_nb_tx_add(q, txr_slots, p->pkt.consumed);
		p->skb = NULL;
		p->pp = NULL;
		p->wn = NULL;
		/* one sent by reference plans no copy: none of an earlier one's */
		p->op_count = 0;
		if (err) {
			xfab_nb_tx_inc(q, txr_err[err]);
		} else {
			err = tx_build(q, p, nops);
			/* ptr.c counts its own drops */
			if (err && err != -EPROTO)
				xfab_nb_tx_inc(q, txr_drop_nomem);
		}
		n++;
	}
	return n;
}

/* Offload state the guest asked for; false drops the packet. */
static bool tx_offloads(struct xfab_nb_queue *q, struct sk_buff *skb,
			const struct xfab_tx_pkt *pkt)
{
	const struct xen_netif_extra_info *e = xfab_netif_gso(&pkt->ex);
	bool recalc = false;

	if (pkt->flags & XEN_NETTXF_csum_blank)
		skb->ip_summed = CHECKSUM_PARTIAL;
	else if (pkt->flags & XEN_NETTXF_data_validated)
		skb->ip_summed = CHECKSUM_UNNECESSARY;

	if (e) {
		skb_shinfo(skb)->gso_size = e->u.gso.size;
		skb_shinfo(skb)->gso_type =
			(e->u.gso.type == XEN_NETIF_GSO_TYPE_TCPV4 ?
			 SKB_GSO_TCPV4 : SKB_GSO_TCPV6) | SKB_GSO_DODGY;
		skb_shinfo(skb)->gso_segs = 0;	/* the stack counts them */
		xfab_nb_tx_inc(q, txr_gso);
		/* Segmenting needs a partial checksum, whatever was said. */
		if (skb->ip_summed != CHECKSUM_PARTIAL) {
			recalc = true;
			skb->ip_summed = CHECKSUM_PARTIAL;
		}
	}
	if (skb->ip_summed != CHECKSUM_PARTIAL)
		return true;
	return skb_checksum_setup(skb, recalc) == 0;
}

static bool tx_copies_ok(struct xfab_nb_queue *q, struct xfab_nb_txp *p)
{
	unsigned int i;

	for (i = 0; i < p->op_count; i++)
		if (q->tx_ops[p->op_first + i].status != GNTST_okay)
			return false;
	return true;
}

/* After the batch copy: answer every packet, hand good ones up. */
static void tx_deliver(struct xfab_nb_queue *q, int n)
{
	struct net_device *dev = q->vif->dev;
	u64 packets = 0, bytes = 0;
	int i;

	for (i = 0; i < n; i++) {
		struct xfab_nb_txp *p = &q->txp[i];
		struct sk_buff *skb = p->skb;

		if (!skb) {
			tx_answer(q, p, XEN_NETIF_RSP_ERROR);
			continue;
		}
		/* by reference: from here, freeing the skb answers the slots */
		if (p->pp)
			xfab_nb_ptr_hand_up(p);
		if (!tx_copies_ok(q, p)) {
			xfab_nb_tx_inc(q, txr_drop_copy);
			tx_answer(q, p, XEN_NETIF_RSP_ERROR);
			kfree_skb(skb);
			continue;
		}
		tx_answer(q, p, XEN_NETIF_RSP_OKAY);
		skb->protocol = eth_type_trans(skb, dev);
		/* checksum setup finds the IP header from here */
		skb_reset_network_header(skb);
		if (!tx_offloads(q, skb, &p->pkt)) {
			xfab_nb_tx_inc(q, txr_drop_csum);
			kfree_skb(skb);
			continue;
		}
		packets++;
		bytes += p->pkt.len;
		xfab_nb_lro_receive(q, skb);
	}
	/* the batch's deliveries, in one update section */
	u64_stats_update_begin(&q->st.tx_sync);
	u64_stats_add(&q->st.txr_packets, packets);
	u64_stats_add(&q->st.txr_bytes, bytes);
	u64_stats_update_end(&q->st.tx_sync);
}

/*
 * A batch's copies, by hypercall and by memcpy, and its packets sent by
 * reference, in one update section; the tallies start again for the
 * next batch.
 */
static void tx_count_copies(struct xfab_nb_queue *q, u32 nops)
{
	struct xfab_nb_stats *st = &q->st;

	u64_stats_update_begin(&st->tx_sync);
	if (nops) {
		u64_stats_inc(&st->txr_copy_calls);
		u64_stats_add(&st->txr_copy_ops, nops);
	}
	u64_stats_add(&st->txr_pool_ops, q->tx_pool_ops);
	u64_stats_add(&st->txr_pool_bytes, q->tx_pool_bytes);
	u64_stats_add(&st->txr_ptr_packets, q->tx_ptr_packets);
	u64_stats_add(&st->txr_ptr_bytes, q->tx_ptr_bytes);
	u64_stats_update_end(&st->tx_sync);
	q->tx_pool_ops = 0;
	q->tx_pool_bytes = 0;
	q->tx_ptr_packets = 0;
	q->tx_ptr_bytes = 0;
}

static void tx_publish(struct xfab_nb_queue *q)
{
	xfab_nb_publish(&q->tx_pushed, q->tx.rsp_prod_pvt,
			&q->tx.sring->rsp_prod, &q->tx.sring->rsp_event,
			q->tx_irq, &q->st.tx_sync, &q->st.txr_kicks);
}

/*
 * Ask for an event at the next request, then look once more. Throttled,
 * ask for none: rate_timer comes back, and events meanwhile are noise.
 */
static bool tx_final_check(struct xfab_nb_queue *q)
{
	if (!q->connected || q->broken || READ_ONCE(q->tx_throttled))
		return false;
	WRITE_ONCE(q->tx.sring->req_event, q->tx.req_cons + 1);
	virt_mb();	/* event armed before the last look: no lost kick */
	return xfab_nb_tx_has_work(q);
}

/* One NAPI poll's in-ring looks, counted at its end. */
struct nb_poll_tally {
	u32 polls, found;
	struct xfab_poll_round round;
};

/* The vif's poll setting (ethtool -C) into the queue's budget. */
static void tx_poll_sync(struct xfab_nb_queue *q)
{
	u32 max = READ_ONCE(q->vif->poll_ns);
	u32 min = READ_ONCE(q->vif->poll_adaptive) ?
		  min_t(u32, XFAB_NB_POLL_MIN_NS, max) : max;

	if (q->tx_poll.max != max || q->tx_poll.min != min)
		xfab_poll_init(&q->tx_poll, min, max);
}

static enum xfab_look tx_look(void *arg)
{
	return xfab_nb_tx_has_work(arg) ? XFAB_LOOK_WORK : XFAB_LOOK_NONE;
}

/*
 * An xfab frontend's ring is empty: keep looking for up to the poll
 * budget before the caller arms req_event. Until then the guest sees
 * no armed index and sends no event. True if requests came.
 *
 * One NAPI round spins for at most one largest budget in all: a guest
 * that posts one request just before each look ends would otherwise
 * keep this softirq spinning for a whole NAPI budget of looks (64 times
 * poll_us). Past the bound the round ends as if the ring were empty,
 * and the final check schedules the next round, after softirq's own
 * accounting had its say.
 */
static bool tx_spin(struct xfab_nb_queue *q, struct nb_poll_tally *t)
{
	u64 until;
	bool found;

	if (!q->tx_polling)
		return false;
	tx_poll_sync(q);
	if (!xfab_poll_budget(&q->tx_poll))
		return false;
	until = xfab_poll_round_look(&t->round, &q->tx_poll, local_clock());
	if (!until)
		return false;
	found = xfab_poll_spin_until(&q->tx_poll, tx_look, q, until);
	t->polls++;
	t->found += found;
	return found;
}

static void tx_count_polls(struct xfab_nb_queue *q,
			   const struct nb_poll_tally *t)
{
	if (!t->polls)
		return;
	u64_stats_update_begin(&q->st.tx_sync);
	u64_stats_add(&q->st.txr_polls, t->polls);
	u64_stats_add(&q->st.txr_poll_found, t->found);
	u64_stats_add(&q->st.txr_poll_empty, t->polls - t->found);
	if (t->round.cut)
		u64_stats_inc(&q->st.txr_poll_cut);
	u64_stats_update_end(&q->st.tx_sync);
}

int xfab_nb_tx_poll(struct napi_struct *napi, int budget)
{
	struct xfab_nb_queue *q = container_of(napi, struct xfab_nb_queue,
					       napi);
	struct nb_poll_tally polls = { 0 };
	int done = 0, n;
	u32 nops;

	/* the guest's packets (its ACKs) follow what it took from us */
	xfab_nb_rx_hold_done(q);
	/* and its pages come back as soon as the stack let go of them */
	xfab_nb_ptr_reap(q);
	tx_publish(q);
	xfab_nb_lro_begin(q);
	while (done < budget && q->connected && !q->broken &&
	       !READ_ONCE(q->tx_throttled)) {
		n = tx_gather(q, min(budget - done, XFAB_NB_BATCH), &nops);
		if (!n) {
			/* what is merged goes up before we wait for more */
			xfab_nb_lro_flush(q);
			if (!tx_spin(q, &polls))
				break;
			continue;
		}
		if (nops)
			gnttab_batch_copy(q->tx_ops, nops);
		tx_count_copies(q, nops);
		tx_deliver(q, n);
		xfab_nb_ptr_reap(q);
		tx_publish(q);
		done += n;
	}
	xfab_nb_lro_end(q);
	tx_count_polls(q, &polls);
	if (done < budget && napi_complete_done(napi, done)) {
		if (tx_final_check(q))
			napi_schedule(napi);
		else
			xfab_nb_eoi(q, XFAB_NB_EOI_TX);
	}
	return done;
}
