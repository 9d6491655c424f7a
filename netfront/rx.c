// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_netfront RX and the NAPI poll (which also reaps TX completions).
 *
 * The ring is kept full of whole pages, each granted writable to the
 * backend, posted with request id == ring slot. Responses are copied out
 * of the ring once each (rx_copy keeps a chain that is still incomplete),
 * validated by common/'s xfab_rx_check, and only then used. A page whose
 * grant the backend will not give back is never freed or read by us.
 *
 * Two ways to use the pages. Without a pool, each packet's pages are
 * handed up the stack once their grants ended, and fresh pages granted
 * in their place. With the RX pool (an xfab backend, info->pools), each
 * slot's page stays granted: the packet is copied out of it into pages
 * of our own and the page posted again, so no grant is made or ended per
 * packet and a backend that maps the pool copies without a hypercall.
 * The copy is what keeps the stack off pages the backend can still
 * write (no double fetch, and nothing the stack later decrypts or
 * rewrites in place lands where the backend can read it).
 */
#include <linux/skbuff.h>
#include <linux/etherdevice.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <xen/events.h>
#include <xen/page.h>
#include "common.h"

#define NF_RX_MASK (XFAB_NF_RX_RING_SIZE - 1)

/* Post a granted page at the next request slot. */
static void nf_rx_post(struct xfab_nf_queue *q, struct page *page,
		       grant_ref_t ref)
{
	xfab_idx_t idx = q->rx.req_prod_pvt++;
	struct xen_netif_rx_request *req = RING_GET_REQUEST(&q->rx, idx);
	unsigned int slot = idx & NF_RX_MASK;

	q->rx_page[slot] = page;
	q->rx_gref[slot] = ref;
	req->id = slot;
	req->gref = ref;
}

/*
 * Zeroed: a writable grant is readable too, and a fresh page's old
 * contents are none of the backend's business (XSA-403 class).
 */
static bool nf_rx_alloc_one(struct xfab_nf_queue *q)
{
	struct page *page = alloc_page(GFP_ATOMIC | __GFP_NOWARN | __GFP_ZERO);
	int ref;

	if (!page)
		return false;
	ref = gnttab_claim_grant_reference(&q->rx_gref_head);
	if (ref < 0) {
		__free_page(page);
		return false;
	}
	gnttab_grant_foreign_access_ref(ref, q->info->xbdev->otherend_id,
					xen_page_to_gfn(page), 0);
	xfab_nf_rx_add(q, XFAB_NF_RX_GRANTS, 1);
	nf_rx_post(q, page, ref);
	return true;
}

static void nf_rx_push(struct xfab_nf_queue *q)
{
	if (xfab_ring_publish(&q->rx_pushed, q->rx.req_prod_pvt,
			      &q->rx.sring->req_prod, &q->rx.sring->req_event)) {
		notify_remote_via_irq(q->rx_irq);
		xfab_nf_rx_add(q, XFAB_NF_RX_KICKS, 1);
	}
}

/* Fill every free request slot; retry later if memory is short. */
void xfab_nf_rx_refill(struct xfab_nf_queue *q)
{
	unsigned int room = xfab_ring_free_reqs(XFAB_NF_RX_RING_SIZE,
						q->rx.req_prod_pvt,
						q->rx.rsp_cons);

	while (room--) {
		if (!nf_rx_alloc_one(q)) {
			xfab_nf_rx_add(q, XFAB_NF_RX_REFILL_FAIL, 1);
			mod_timer(&q->refill_timer, jiffies + HZ / 10);
			break;
		}
	}
	nf_rx_push(q);
}

/*
 * The pool's spare pages, granted like the posted ones: lend of them
 * (connect, before NAPI). On failure the ones made are released with
 * the queue.
 */
static int nf_rx_spares_create(struct xfab_nf_queue *q, unsigned int lend)
{
	struct xfab_lend *l = &q->rx_off;

	l->p = kcalloc(lend, sizeof(*l->p), GFP_KERNEL);
	if (!l->p)
		return -ENOMEM;
	while (l->n < lend) {
		grant_ref_t ref;
		struct page *pg = xfab_nf_pool_page(q, &q->rx_gref_head, false,
						    &ref);

		if (!pg)
			return -ENOMEM;
		l->p[l->n++] = (struct xfab_lend_page){ pg, ref };
		l->nspare++;
		xfab_nf_rx_add(q, XFAB_NF_RX_GRANTS, 1);
	}
	return 0;
}

/*
 * At connect, before NAPI: a zeroed page granted writable for every
 * slot, posted once and for good, and its list for the backend.
 * Teardown (xfab_nf_rx_release) gives the pages back, as any posted ones.
 */
int xfab_nf_rx_pool_create(struct xfab_nf_queue *q)
{
	unsigned int slot, lend = q->info->rx_lend;
	u32 *refs;

	for (slot = 0; slot < XFAB_NF_RX_RING_SIZE; slot++) {
		grant_ref_t ref;
		struct page *pg = xfab_nf_pool_page(q, &q->rx_gref_head, false,
						    &ref);

		if (!pg)
			return -ENOMEM;
		nf_rx_post(q, pg, ref);
	}
	xfab_nf_rx_add(q, XFAB_NF_RX_GRANTS, XFAB_NF_RX_RING_SIZE);
	q->rx_pool = true;
	if (lend && nf_rx_spares_create(q, lend))
		return -ENOMEM;
	refs = xfab_nf_pool_dir_start(&q->rx_dir);
	for (slot = 0; refs && slot < XFAB_NF_RX_RING_SIZE; slot++)
		refs[slot] = q->rx_gref[slot];
	for (slot = 0; refs && slot < q->rx_off.n; slot++)
		refs[XFAB_NF_RX_RING_SIZE + slot] = q->rx_off.p[slot].ref;
	xfab_nf_pool_dir_finish(q, &q->rx_dir,
				XFAB_NF_RX_RING_SIZE + q->rx_off.n, "RX");
	return 0;
}

void xfab_nf_refill_timer(struct timer_list *t)
{
	struct xfab_nf_queue *q = from_timer(q, t, refill_timer);

	napi_schedule(&q->napi);
}

/* Ring index past the last response we have copied. */
static xfab_idx_t nf_rx_seen(const struct xfab_nf_queue *q)
{
	return q->rx.rsp_cons + q->rx_copied;
}

/*
 * Copy newly produced responses (up to one maximal chain) out of the
 * ring. Returns the number of copied slots or -EIO for a bad rsp_prod.
 */
static int nf_rx_fetch(struct xfab_nf_queue *q)
{
	u32 n, want;

	/* rx_copy[] holds either view of a slot: both must be the slot */
	BUILD_BUG_ON(sizeof(union xfab_rx_slot) !=
		     sizeof(struct xen_netif_rx_response));
	BUILD_BUG_ON(sizeof(struct xen_netif_extra_info) !=
		     sizeof(struct xen_netif_rx_response));
	if (xfab_ring_rsps_pending(XFAB_NF_RX_RING_SIZE,
				   READ_ONCE(q->rx.sring->rsp_prod),
				   q->rx.rsp_cons, q->rx.req_prod_pvt, &n) ||
	    n < q->rx_copied) {
		/* past our requests, or behind what it already showed us */
		xfab_nf_rx_add(q, XFAB_NF_RX_FATAL_RING, 1);
		xfab_nf_disable(q->info, "rx rsp_prod out of range");
		return -EIO;
	}
	virt_rmb();		/* responses after the index that shows them */
	want = min_t(u32, n, XFAB_RX_MAX_CHAIN);
	while (q->rx_copied < want) {
		RING_COPY_RESPONSE(&q->rx, nf_rx_seen(q),
				   &q->rx_copy[q->rx_copied].rsp);
		q->rx_copied++;
	}
	return q->rx_copied;
}

/* GSO and checksum state from the validated flags and extras. */
static int nf_rx_offloads(struct xfab_nf_queue *q, struct sk_buff *skb)
{
	const struct xfab_rx_pkt *pkt = &q->rx_pkt;
	const struct xen_netif_extra_info *g = xfab_netif_gso(&pkt->ex);
	bool recalc = false;

	if (g) {
		skb_shinfo(skb)->gso_size = g->u.gso.size;
		skb_shinfo(skb)->gso_type = SKB_GSO_DODGY |
			(g->u.gso.type == XEN_NETIF_GSO_TYPE_TCPV4 ?
			 SKB_GSO_TCPV4 : SKB_GSO_TCPV6);
		skb_shinfo(skb)->gso_segs = 0;	/* the stack counts them */
	}
	if (pkt->flags & XEN_NETRXF_csum_blank) {
		skb->ip_summed = CHECKSUM_PARTIAL;
	} else if (skb_is_gso(skb)) {
		/* segmenting needs a partial checksum: derive one */
		skb->ip_summed = CHECKSUM_PARTIAL;
		recalc = true;
		xfab_nf_rx_add(q, XFAB_NF_RX_CSUM_FIXUP, 1);
	} else if ((pkt->flags & XEN_NETRXF_data_validated) &&
		   (q->info->netdev->features & NETIF_F_RXCSUM)) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	}
	if (skb->ip_summed != CHECKSUM_PARTIAL)
		return 0;
	/* blank checksum: point csum_start/offset at the L4 header */
	return skb_checksum_setup(skb, recalc);
}

/*
 * An skb from the chain's data pages (their grants ended). More data
 * slots than an skb has frags: copy the first one into the linear area.
 * NULL when memory is short; pages it took are freed, the rest left.
 */
static struct sk_buff *nf_rx_build(struct xfab_nf_queue *q,
				   struct page **pages)
{
	const struct xfab_rx_pkt *pkt = &q->rx_pkt;
	const struct xen_netif_rx_response *r;
	unsigned int k = 0, nfrags = 0, pull;
	struct sk_buff *skb;

	r = &q->rx_copy[0].rsp;
	pull = pkt->nr_data > MAX_SKB_FRAGS ? r->status : 0;
	skb = napi_alloc_skb(&q->napi, max_t(unsigned int, pull, XFAB_NF_RX_PULL));
	if (!skb)
		return NULL;
	if (pull) {
		skb_put_data(skb, page_address(pages[0]) + r->offset, r->status);
		put_page(pages[0]);
		pages[0] = NULL;
		k = 1;
	}
	for (; k < pkt->nr_data; k++) {
		unsigned int i = pkt->data_slot[k];

		r = &q->rx_copy[i].rsp;
		if (!r->status) {
			put_page(pages[i]);
		} else {
			skb_add_rx_frag(skb, nfrags++, pages[i], r->offset,
					r->status, PAGE_SIZE);
		}
		pages[i] = NULL;
	}
	/* the stack reads headers from the linear area: no room, no packet */
	pull = min_t(unsigned int, skb->len, XFAB_NF_RX_PULL);
	if (skb_headlen(skb) < pull &&
	    !__pskb_pull_tail(skb, pull - skb_headlen(skb))) {
		kfree_skb(skb);	/* with the pages it holds as frags */
		return NULL;
	}
	return skb;
}

/*
 * End the data slots' grants. A slot the backend still maps goes to the
 * grant code, which frees the page once released; returns false then.
 */
static bool nf_rx_end_grants(struct xfab_nf_queue *q, struct page **pages,
			     grant_ref_t *refs)
{
	const struct xfab_rx_pkt *pkt = &q->rx_pkt;
	bool ok = true;
	unsigned int k;

	for (k = 0; k < pkt->nr_data; k++) {
		unsigned int i = pkt->data_slot[k];

		if (gnttab_end_foreign_access_ref(refs[i])) {
			gnttab_release_grant_reference(&q->rx_gref_head, refs[i]);
			xfab_nf_rx_add(q, XFAB_NF_RX_GRANTS_ENDED, 1);
			continue;
		}
		gnttab_end_foreign_access(refs[i], pages[i]);
		pages[i] = NULL;
		ok = false;
	}
	return ok;
}

/* Put back the data pages we still own (their grants have ended). */
static void nf_rx_put_data(struct xfab_nf_queue *q, struct page **pages)
{
	unsigned int k;

	for (k = 0; k < q->rx_pkt.nr_data; k++) {
		unsigned int i = q->rx_pkt.data_slot[k];

		if (pages[i])
			put_page(pages[i]);
		pages[i] = NULL;
	}
}

/* A whole packet's skb, on its way up the stack. */
static void nf_rx_up(struct xfab_nf_queue *q, struct sk_buff *skb)
{
	const struct xfab_rx_pkt *pkt = &q->rx_pkt;

	skb->protocol = eth_type_trans(skb, q->info->netdev);
	skb_reset_network_header(skb);
	if (nf_rx_offloads(q, skb)) {
		xfab_nf_rx_add(q, XFAB_NF_RX_DROP_CSUM, 1);
		kfree_skb(skb);
		return;
	}
	xfab_nf_rx_add(q, XFAB_NF_RX_PACKETS, 1);
	xfab_nf_rx_add(q, XFAB_NF_RX_BYTES, pkt->len);
	skb_record_rx_queue(skb, q->id);
	napi_gro_receive(&q->napi, skb);
}

/* A valid chain's data pages (its extras were reposted) become an skb. */
static void nf_rx_deliver(struct xfab_nf_queue *q, struct page **pages,
			  grant_ref_t *refs)
{
	struct sk_buff *skb;

	if (!nf_rx_end_grants(q, pages, refs)) {
		nf_rx_put_data(q, pages);
		xfab_nf_rx_add(q, XFAB_NF_RX_FATAL_GRANT_BUSY, 1);
		xfab_nf_disable(q->info, "rx grant still in use");
		return;
	}
	skb = nf_rx_build(q, pages);
	if (!skb) {
		nf_rx_put_data(q, pages);
		xfab_nf_rx_add(q, XFAB_NF_RX_DROP_NOMEM, 1);
		return;
	}
	nf_rx_up(q, skb);
}

/*
 * A page for the next left bytes of a packet: up to 32 KiB in one, so a
 * 64 KiB packet costs a few allocations and frags rather than 16; single
 * pages when memory is fragmented.
 */
static struct page *nf_rx_frag_page(unsigned int left)
{
	unsigned int order = min_t(unsigned int, get_order(left),
				   XFAB_NF_RX_COPY_ORDER);
	struct page *pg = NULL;

	if (order)
		pg = dev_alloc_pages(order);
	return pg ?: dev_alloc_page();
}

/*
 * Append len bytes to the skb's page frags, filling the last one before
 * taking a new page; left: bytes of the packet from src on, len or more.
 * An error leaves the skb holding what it has.
 */
static int nf_rx_append(struct sk_buff *skb, const u8 *src, unsigned int len,
			unsigned int left)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int room = 0;

	while (len) {
		unsigned int nr = sh->nr_frags, used = 0, c;
		skb_frag_t *f = nr ? &sh->frags[nr - 1] : NULL;
		struct page *pg;

		if (f) {
			used = skb_frag_off(f) + skb_frag_size(f);
			room = page_size(skb_frag_page(f)) - used;
		}
		if (!room) {
			/* XFAB_RX_MAX_LEN keeps a valid packet within bounds */
			if (nr == MAX_SKB_FRAGS)
				return -E2BIG;
			pg = nf_rx_frag_page(left);
			if (!pg)
				return -ENOMEM;
			skb_add_rx_frag(skb, nr, pg, 0, 0, page_size(pg));
			continue;
		}
		c = min(len, room);
		memcpy(page_address(skb_frag_page(f)) + used, src, c);
		skb_frag_size_add(f, c);
		skb->len += c;
		skb->data_len += c;
		src += c;
		len -= c;
		left -= c;
	}
	return 0;
}

/* The window a packet's references are read through, one peer at a time. */
struct nf_rx_win {
	struct xfab_wn *wn;
	u16 peer;
};

/*
 * Where data slot k's bytes are: in its pool page, or for a reference in
 * our window's page over the peer's frame. NULL: no window over that
 * peer, or a frame it does not map (a member that left, or a backend
 * that lies); the packet is dropped.
 */
static const u8 *nf_rx_src(struct xfab_nf_queue *q, struct page **pages,
			   unsigned int k, struct nf_rx_win *w)
{
	const struct xfab_rx_pkt *pkt = &q->rx_pkt;
	const struct xen_netif_rx_response *r =
		&q->rx_copy[pkt->data_slot[k]].rsp;
	const struct xfab_wnops *o = &q->info->wn;
	struct page *pg;

	if (!(pkt->ref_mask & (1u << k)))
		return page_address(pages[pkt->data_slot[k]]) + r->offset;
	if (w->wn && w->peer != pkt->ref_peer[k]) {
		o->put(w->wn);
		w->wn = NULL;
	}
	if (!w->wn) {
		w->peer = pkt->ref_peer[k];
		w->wn = o->get(w->peer);
		if (!w->wn)
			return NULL;
	}
	pg = o->page(w->wn, pkt->ref_frame[k], r->offset, r->status);
	return pg ? page_address(pg) + r->offset : NULL;
}

/*
 * Pool mode: copy the validated chain out of its pool pages, read once
 * each, and its references out of our window. A small packet goes whole
 * into the linear area; a larger one puts its first XFAB_NF_RX_PULL
 * bytes there and the rest in pages of up to 32 KiB, filled one after
 * the other.
 */
static void nf_rx_deliver_copy(struct xfab_nf_queue *q, struct page **pages)
{
	const struct xfab_rx_pkt *pkt = &q->rx_pkt;
	unsigned int lin = pkt->len <= XFAB_NF_RX_COPYBREAK ? pkt->len :
			   XFAB_NF_RX_PULL;
	unsigned int k, left = pkt->len;
	struct nf_rx_win w = { NULL, 0 };
	struct sk_buff *skb;
	u64 by_ref = 0;

	BUILD_BUG_ON(DIV_ROUND_UP(XFAB_RX_MAX_LEN - XFAB_NF_RX_PULL,
				  PAGE_SIZE) > MAX_SKB_FRAGS);
	skb = napi_alloc_skb(&q->napi, lin);
	if (!skb)
		goto nomem;
	for (k = 0; k < pkt->nr_data; k++) {
		const struct xen_netif_rx_response *r =
			&q->rx_copy[pkt->data_slot[k]].rsp;
		const u8 *src = nf_rx_src(q, pages, k, &w);
		unsigned int n = r->status, c = min(n, lin - skb_headlen(skb));

		if (!src) {
			kfree_skb(skb);
			xfab_nf_rx_add(q, XFAB_NF_RX_DROP_REF, 1);
			goto out;
		}
		if (pkt->ref_mask & (1u << k))
			by_ref += n;
		/* skb_put() is for a linear skb only: not once frags began */
		if (c)
			skb_put_data(skb, src, c);
		if (nf_rx_append(skb, src + c, n - c, left - c)) {
			kfree_skb(skb);
			goto nomem;
		}
		left -= n;
	}
	xfab_nf_rx_add(q, XFAB_NF_RX_POOL_BYTES, pkt->len - by_ref);
	if (pkt->ref_mask) {
		xfab_nf_rx_add(q, XFAB_NF_RX_REF_PACKETS, 1);
		xfab_nf_rx_add(q, XFAB_NF_RX_REF_BYTES, by_ref);
	}
	nf_rx_up(q, skb);
	goto out;
nomem:
	xfab_nf_rx_add(q, XFAB_NF_RX_DROP_NOMEM, 1);
out:
	if (w.wn)
		q->info->wn.put(w.wn);
}

/* A lent page is back when only our reference is left. */
static bool nf_rx_page_free(void *page)
{
	return page_ref_count(page) == 1;
}

/*
 * Slot i's page goes up as a frag and off the ring, lent; a spare takes
 * its place in pages[] and refs[], to be posted in its stead. The
 * caller made sure there is a spare.
 */
static void nf_rx_lend_page(struct xfab_nf_queue *q, struct page **pages,
			    grant_ref_t *refs, unsigned int i)
{
	struct xfab_lend_page slot = { pages[i], refs[i] };

	xfab_lend_swap(&q->rx_off, &slot);
	pages[i] = slot.page;
	refs[i] = slot.ref;
}

/*
 * Pool mode without the copy: the first XFAB_NF_RX_PULL bytes are copied
 * into the linear area (the headers the stack parses, read once), the
 * rest goes up in the pool pages themselves. The backend can still
 * write those pages, so the frags are marked shared: nothing decrypts
 * or rewrites them in place. False, nothing done: copy it instead (too
 * small to be worth a page, too many slots, or no spares).
 */
static bool nf_rx_deliver_lent(struct xfab_nf_queue *q, struct page **pages,
			       grant_ref_t *refs)
{
	const struct xfab_rx_pkt *pkt = &q->rx_pkt;
	unsigned int k, nfrags = 0, lent = 0;
	struct sk_buff *skb;

	if (!q->rx_off.n || pkt->len <= XFAB_NF_RX_COPYBREAK ||
	    pkt->nr_data > MAX_SKB_FRAGS)
		return false;
	/* lent pages are looked at only when spares run short */
	if (q->rx_off.nspare < pkt->nr_data)
		xfab_nf_rx_add(q, XFAB_NF_RX_LEND_BACK,
			       xfab_lend_reclaim(&q->rx_off, nf_rx_page_free));
	if (q->rx_off.nspare < pkt->nr_data) {
		xfab_nf_rx_add(q, XFAB_NF_RX_LEND_SHORT, 1);
		return false;
	}
	skb = napi_alloc_skb(&q->napi, XFAB_NF_RX_PULL);
	if (!skb)
		return false;
	for (k = 0; k < pkt->nr_data; k++) {
		unsigned int i = pkt->data_slot[k];
		const struct xen_netif_rx_response *r = &q->rx_copy[i].rsp;
		const u8 *src = page_address(pages[i]) + r->offset;
		unsigned int n = r->status;
		unsigned int c = min(n, XFAB_NF_RX_PULL - skb_headlen(skb));

		if (c)
			skb_put_data(skb, src, c);
		if (n == c)
			continue;
		get_page(pages[i]);
		skb_add_rx_frag(skb, nfrags++, pages[i], r->offset + c, n - c,
				PAGE_SIZE);
		lent += n - c;
		nf_rx_lend_page(q, pages, refs, i);
	}
	skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
	xfab_nf_rx_add(q, XFAB_NF_RX_LENT_PAGES, nfrags);
	xfab_nf_rx_add(q, XFAB_NF_RX_LENT_BYTES, lent);
	xfab_nf_rx_add(q, XFAB_NF_RX_POOL_BYTES, pkt->len - lent);
	nf_rx_up(q, skb);
	return true;
}

/*
 * Consume the chain xfab_rx_check just judged (OK or a drop). All its
 * buffers leave their slots before any is reposted: with a full ring, a
 * repost lands in the chain's first slot. Pages that are not handed up
 * (extras, dropped packets) go straight back, still granted.
 */
static void nf_rx_consume(struct xfab_nf_queue *q, int verdict)
{
	const struct xfab_rx_pkt *pkt = &q->rx_pkt;
	struct page *pages[XFAB_RX_MAX_CHAIN];
	grant_ref_t refs[XFAB_RX_MAX_CHAIN];
	bool data[XFAB_RX_MAX_CHAIN] = { };
	unsigned int i, c = pkt->consumed;

	for (i = 0; i < c; i++) {
		unsigned int slot = (q->rx.rsp_cons + i) & NF_RX_MASK;

		pages[i] = q->rx_page[slot];
		refs[i] = q->rx_gref[slot];
		q->rx_page[slot] = NULL;
	}
	q->rx.rsp_cons += c;
	xfab_nf_rx_add(q, XFAB_NF_RX_SLOTS, c);
	if (verdict != XFAB_RX_OK) {
		xfab_nf_rx_err(q, verdict);
	} else if (q->rx_pool) {
		/*
		 * Lent, or copied out before the pages go back to the backend
		 * (references too: the backend holds the sender's pages until
		 * we post these slots again).
		 */
		if (q->rx_pkt.ref_mask || !nf_rx_deliver_lent(q, pages, refs))
			nf_rx_deliver_copy(q, pages);
	} else {
		for (i = 0; i < pkt->nr_data; i++)
			data[pkt->data_slot[i]] = true;
	}
	for (i = 0; i < c; i++) {
		if (!data[i] && pages[i]) {
			nf_rx_post(q, pages[i], refs[i]);
			pages[i] = NULL;
		}
	}
	if (verdict == XFAB_RX_OK && !q->rx_pool)
		nf_rx_deliver(q, pages, refs);
	/* keep the copies of the slots after the chain, drop the chain's */
	q->rx_copied -= c;
	memmove(q->rx_copy, q->rx_copy + c, q->rx_copied * sizeof(q->rx_copy[0]));
}

/* Up to budget chains. Returns how many were consumed. */
static int nf_rx_work(struct xfab_nf_queue *q, int budget)
{
	int done = 0, verdict;

	while (done < budget && !xfab_nf_broken(q->info)) {
		if (nf_rx_fetch(q) <= 0)
			break;
		verdict = xfab_rx_check(q->rx_copy, q->rx_copied, q->rx.rsp_cons,
					XFAB_NF_RX_RING_SIZE, q->info->ptr_rx,
					&q->rx_pkt);
		if (verdict == XFAB_RX_INCOMPLETE)
			break;	/* the rest is on its way */
		if (xfab_rx_err_fatal(verdict)) {
			xfab_nf_rx_err(q, verdict);
			xfab_nf_disable(q->info, xfab_rx_err_name(verdict));
			break;
		}
		nf_rx_consume(q, verdict);
		done++;
	}
	return done;
}

/* Ask for an event past what we have seen, then look once more. */
static bool nf_rx_rearm(struct xfab_nf_queue *q)
{
	WRITE_ONCE(q->rx.sring->rsp_event, nf_rx_seen(q) + 1);
	virt_mb();	/* event armed before the last look: no lost kick */
	return READ_ONCE(q->rx.sring->rsp_prod) != nf_rx_seen(q);
}

int xfab_nf_poll(struct napi_struct *napi, int budget)
{
	struct xfab_nf_queue *q = container_of(napi, struct xfab_nf_queue, napi);
	int done;

	if (xfab_nf_broken(q->info))
		goto idle;
	xfab_nf_tx_complete(q);
	done = nf_rx_work(q, budget);
	/* a disabled vif posts nothing more to its backend */
	if (xfab_nf_broken(q->info))
		goto idle;
	xfab_nf_rx_refill(q);
	if (done >= budget)
		return budget;
	if (napi_complete_done(napi, done) &&
	    (nf_rx_rearm(q) || xfab_nf_tx_pending(q)))
		napi_schedule(napi);
	return done;
idle:
	napi_complete_done(napi, 0);
	return 0;
}

/* A hint for the interrupt handler: anything we have not looked at? */
bool xfab_nf_rx_pending(struct xfab_nf_queue *q)
{
	return READ_ONCE(q->rx.sring->rsp_prod) !=
	       READ_ONCE(q->rx.rsp_cons) + READ_ONCE(q->rx_copied);
}

/*
 * Teardown, with NAPI stopped: every posted page goes to the grant code,
 * which frees it now, or once the backend let go of it.
 */
void xfab_nf_rx_release(struct xfab_nf_queue *q)
{
	unsigned int slot;

	for (slot = 0; slot < XFAB_NF_RX_RING_SIZE; slot++) {
		if (!q->rx_page[slot])
			continue;
		gnttab_end_foreign_access(q->rx_gref[slot], q->rx_page[slot]);
		q->rx_page[slot] = NULL;
	}
	/* a lent page lives on in the stack: only our reference goes */
	for (slot = 0; slot < q->rx_off.n; slot++)
		gnttab_end_foreign_access(q->rx_off.p[slot].ref,
					  q->rx_off.p[slot].page);
	kfree(q->rx_off.p);
	q->rx_off = (struct xfab_lend){ NULL, 0, 0 };
	q->rx_copied = 0;
	q->rx_pool = false;
	xfab_nf_pool_dir_release(&q->rx_dir);
}
