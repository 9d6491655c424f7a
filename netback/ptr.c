// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Pointer mode on guest TX (docs/pointer-mode.md). A member of an
 * appliance group may name a TX slot's bytes by machine frame instead of
 * by grant (XFAB_NETTXF_PTR). We read that frame through xfab_window's
 * window over the ring's own peer, never over another domain: otherwise
 * a guest could make dom0 send a third domain's memory as its own.
 *
 * A packet whose data slots are all pointers becomes an skb whose head
 * holds a copy of the headers and whose frags are the window pages
 * themselves: no copy here. Its data slots are answered when the stack
 * lets go of the skb (the zerocopy completion), so the guest keeps its
 * pages until then. Anything else with a pointer slot (a granted slot
 * beside it, more frags than an skb holds, too many slots waiting, or
 * one waiting too long) is copied out of the window at once, as from a
 * pool, and answered.
 *
 * A window page has no valid p2m entry: it must never reach grant copy
 * or a device's DMA. Every exit from dom0's stack but an xfab vif with
 * an RX pool copies it first: the stack itself on local delivery, on
 * clones and in software GSO (the skb carries SKBFL_ZEROCOPY_ENABLE), the
 * netfilter hooks below at bridge and IP POST_ROUTING, and start_xmit
 * for a vif without an RX pool.
 *
 * xfab_window is optional: it is reached through symbol_get(), so this
 * module loads without it, and a vif offers pointer mode only while the
 * window module is there. Its symbols are held while anything here may
 * call it.
 *
 * Lifetimes. One queue's pending packets, for one connect, hang off a
 * context apart from the queue, because a disconnect (or the vif's
 * removal) may come while the stack still holds their skbs. The queue
 * holds the context, and so does each pending packet. A completion after
 * the queue let go only frees its packet. Module exit waits until every
 * context is gone: a completion runs our code.
 */
#include <linux/module.h>
#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <linux/netfilter.h>
#include <linux/netfilter_bridge.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/net_namespace.h>
#include "common.h"

/*
 * How long connect waits for the window over a frontend that asked for
 * pointer mode (the xenbus thread waits with it). dom0 maps a 512 MiB
 * member in about 2 s; a member too big for this has its pointer slots
 * dropped, and counted, until its window is there.
 */
#define NB_PTR_WAIT_MS 10000

/* One queue's pending packets for one connect. */
struct xfab_nb_ptr {
	refcount_t ref;			/* the queue's, one per pending packet */
	struct xfab_nb_queue __rcu *q;	/* NULL once the queue let go */
	struct llist_head done;		/* completed, for NAPI to answer */
	u32 parked;			/* NAPI only: data slots not answered */
	/* NAPI only, while attached: packets not answered, oldest first */
	struct list_head pending;
	bool aged;			/* NAPI: its head's age, at the last reap */
	domid_t peer;
	struct xfab_wnops wn;	/* our own hold on xfab_window */
};

/* A packet sent by reference, until the stack lets go of its skb. */
struct xfab_nb_ptr_pkt {
	struct ubuf_info ubuf;
	struct xfab_nb_ptr *ctx;
	struct xfab_wn *wn;		/* held: its pages are the skb's frags */
	struct llist_node node;
	struct list_head link;		/* in ctx->pending */
	unsigned long since;		/* jiffies when it went up */
	/* packets LRO merged into this one's skb: answered with it */
	struct xfab_nb_ptr_pkt *merged;
	u16 back;			/* head bytes just before frag 0 (LRO) */
	bool copied;			/* the stack copied the frags after all */
	u8 nids;
	u16 ids[XFAB_TX_FATAL_SLOTS];
};

static void nb_ptr_done(struct sk_buff *skb, struct ubuf_info *u, bool ok);
XFAB_ZCOPY_DEFINE(nb_ptr_zc, nb_ptr_done)

/* Contexts alive; exit waits for 0. */
static atomic_t nb_ptr_live = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(nb_ptr_gone);

/* For the debugfs summary: 0 once every such packet was let go. */
int xfab_nb_ptr_contexts(void)
{
	return atomic_read(&nb_ptr_live);
}

/*
 * At probe: can we offer pointer mode at all, i.e. is xfab_window loaded?
 * Whether this peer may be read is only known at connect: a toolstack
 * creates a domain (and so its vif) before it joins a group. True: the
 * window module is held until xfab_nb_ptr_unoffer().
 */
bool xfab_nb_ptr_offer(struct xfab_wnops *wn)
{
	return READ_ONCE(xfab_nb_ptr) && xfab_wnops_get(wn);
}

void xfab_nb_ptr_unoffer(struct xfab_wnops *wn)
{
	xfab_wnops_put(wn);
}

/*
 * At connect (process context), for a frontend that asked: ask for the
 * window over peer and wait until it is there. 0 when it is; -ETIMEDOUT
 * if it did not come (it stays asked for); xfab_wn_want()'s refusal
 * otherwise (peer is no live PV member of a group). Unless refused,
 * undone by wn->unwant(peer).
 */
int xfab_nb_ptr_want(struct xfab_wnops *wn, domid_t peer)
{
	unsigned long until = jiffies + msecs_to_jiffies(NB_PTR_WAIT_MS);
	struct xfab_wn *w;
	int err;

	err = wn->want(peer);
	if (err)
		return err;
	for (;;) {
		w = wn->get(peer);
		if (w) {
			wn->put(w);
			return 0;
		}
		if (time_after(jiffies, until))
			return -ETIMEDOUT;
		msleep(50);
	}
}

/* ---- contexts and pending packets ---- */

static void nb_ptr_ctx_put(struct xfab_nb_ptr *ctx)
{
	if (!refcount_dec_and_test(&ctx->ref))
		return;
	xfab_wnops_put(&ctx->wn);
	kfree(ctx);
	if (atomic_dec_and_test(&nb_ptr_live))
		wake_up(&nb_ptr_gone);
}

/* A pending packet and those merged into it. */
static void nb_ptr_pkt_free(struct xfab_nb_ptr_pkt *pp)
{
	struct xfab_nb_ptr_pkt *next;
	struct xfab_nb_ptr *ctx;

	for (; pp; pp = next) {
		next = pp->merged;
		ctx = pp->ctx;
		ctx->wn.put(pp->wn);
		kfree(pp);
		nb_ptr_ctx_put(ctx);
	}
}

/*
 * The stack let go of a packet's skb (any context, maybe our own NAPI
 * poll). NAPI writes the answers: only it touches the ring. Everything
 * runs under RCU, which detach and module exit wait for.
 */
static void nb_ptr_done(struct sk_buff *skb, struct ubuf_info *u, bool ok)
{
	struct xfab_nb_ptr_pkt *pp = container_of(u, struct xfab_nb_ptr_pkt,
						  ubuf);
	struct xfab_nb_queue *q;

	if (!refcount_dec_and_test(&u->refcnt))
		return;
	pp->copied = !ok;
	rcu_read_lock();
	q = rcu_dereference(pp->ctx->q);
	if (q) {
		llist_add(&pp->node, &pp->ctx->done);
		napi_schedule(&q->napi);
	} else {
		nb_ptr_pkt_free(pp);	/* the ring is gone: nobody to answer */
	}
	rcu_read_unlock();
}

/* Before the queue's NAPI runs: pointer slots are allowed from here. */
int xfab_nb_ptr_attach(struct xfab_nb_queue *q)
{
	struct xfab_nb_ptr *ctx;

	if (q->ptr)
		return 0;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	if (!xfab_wnops_get(&ctx->wn)) {
		kfree(ctx);
		return -ENODEV;		/* xfab_window went since probe */
	}
	refcount_set(&ctx->ref, 1);
	init_llist_head(&ctx->done);
	INIT_LIST_HEAD(&ctx->pending);
	ctx->peer = q->vif->domid;
	RCU_INIT_POINTER(ctx->q, q);
	atomic_inc(&nb_ptr_live);
	q->ptr = ctx;
	return 0;
}

/*
 * With NAPI stopped, before the ring goes: no completion reaches the
 * queue after this. Packets the stack still holds stay pending on the
 * context; their slots are never answered (the frontend reclaims its
 * own at disconnect). Idempotent.
 */
void xfab_nb_ptr_detach(struct xfab_nb_queue *q)
{
	struct xfab_nb_ptr *ctx = q->ptr;
	struct xfab_nb_ptr_pkt *pp, *tmp;
	struct llist_node *all;

	if (!ctx)
		return;
	rcu_assign_pointer(ctx->q, NULL);
	synchronize_rcu();	/* a completion that saw the queue has queued */
	all = llist_del_all(&ctx->done);
	llist_for_each_entry_safe(pp, tmp, all, node)
		nb_ptr_pkt_free(pp);
	/*
	 * The packets still pending are freed by their completions, in any
	 * context: nothing walks this list from here on.
	 */
	INIT_LIST_HEAD(&ctx->pending);
	q->ptr = NULL;
	nb_ptr_ctx_put(ctx);
}

/* Has the oldest packet still held by the stack waited past ptr_age_ms? */
static bool nb_ptr_aged(struct xfab_nb_ptr *ctx)
{
	unsigned int ms = READ_ONCE(xfab_nb_ptr_age_ms);
	struct xfab_nb_ptr_pkt *old;

	old = list_first_entry_or_null(&ctx->pending, struct xfab_nb_ptr_pkt,
				       link);
	return ms && old &&
	       time_after(jiffies, old->since + msecs_to_jiffies(ms));
}

/* Answer the slots of packets the stack let go of. */
static void nb_ptr_answer(struct xfab_nb_queue *q, struct xfab_nb_ptr *ctx)
{
	struct xfab_nb_ptr_pkt *pp, *tmp, *m;
	struct llist_node *all;
	u32 n = 0, copied = 0, i;

	all = llist_del_all(&ctx->done);
	llist_for_each_entry_safe(pp, tmp, all, node) {
		for (m = pp; m; m = m->merged) {
			for (i = 0; i < m->nids; i++)
				xfab_nb_tx_respond(q, m->ids[i],
						   XEN_NETIF_RSP_OKAY);
			ctx->parked -= m->nids;
			list_del(&m->link);
			n++;
			copied += pp->copied;
		}
		nb_ptr_pkt_free(pp);
	}
	u64_stats_update_begin(&q->st.tx_sync);
	u64_stats_add(&q->st.txr_ptr_late_done, n);
	u64_stats_add(&q->st.txr_ptr_stack_copied, copied);
	u64_stats_update_end(&q->st.tx_sync);
}

/*
 * NAPI, before each batch of TX requests: answer what the stack let go
 * of, and look at the age of the oldest packet still held once for the
 * whole batch (within it the list only grows at its tail).
 */
void xfab_nb_ptr_reap(struct xfab_nb_queue *q)
{
	struct xfab_nb_ptr *ctx = q->ptr;

	if (!ctx)
		return;
	if (!llist_empty(&ctx->done))
		nb_ptr_answer(q, ctx);
	ctx->aged = nb_ptr_aged(ctx);
}

/* xfab_window's API as the queue's pointer mode holds it (q->ptr set). */
const struct xfab_wnops *xfab_nb_ptr_wnops(struct xfab_nb_queue *q)
{
	return &q->ptr->wn;
}

/* Is this skb's data (partly) in window pages we sent up? */
bool xfab_nb_ptr_skb(struct sk_buff *skb)
{
	struct ubuf_info *u = skb_zcopy(skb);

	return u && nb_ptr_zc_is(u);
}

static struct xfab_nb_ptr_pkt *nb_ptr_of(struct sk_buff *skb)
{
	return container_of(skb_zcopy(skb), struct xfab_nb_ptr_pkt, ubuf);
}

/* ---- LRO: merging packets sent by reference (lro.c decides) ---- */

/*
 * The payload bytes skb's head copied (those after its hdr_len header
 * bytes) must go back to being read from the window, as the start of
 * frag 0: a merged skb has its headers and then frags only, or the
 * joined packets' bytes would not be contiguous. They may, when they
 * are the tail of frag 0's own slot (pp->back).
 */
static u32 nb_ptr_head_payload(struct sk_buff *skb, u32 hdr_len)
{
	return skb_headlen(skb) - hdr_len;
}

/* Does frag f start right where the head's last frag ends? */
static bool nb_ptr_follows(struct sk_buff *head, const skb_frag_t *f)
{
	struct skb_shared_info *sh = skb_shinfo(head);
	const skb_frag_t *last;

	if (!sh->nr_frags)
		return false;
	last = &sh->frags[sh->nr_frags - 1];
	return skb_frag_page(last) == skb_frag_page(f) &&
	       skb_frag_off(last) + skb_frag_size(last) == skb_frag_off(f);
}

/*
 * Can skb (sent by reference, its headers parsed: hdr_len bytes) join
 * head's frags? Its head payload must be frag 0's slot's, and its frags
 * must fit: frag 0 takes no slot of its own when it continues the
 * head's last frag (a guest's segments are consecutive bytes of its
 * socket's pages, so they usually do).
 */
bool xfab_nb_ptr_can_merge(struct sk_buff *head, struct sk_buff *skb,
			   u32 hdr_len)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	u32 plin = nb_ptr_head_payload(skb, hdr_len), need;
	skb_frag_t f0;

	if (!sh->nr_frags || plin > nb_ptr_of(skb)->back)
		return false;
	f0 = sh->frags[0];
	skb_frag_off_add(&f0, -(int)plin);
	need = sh->nr_frags - nb_ptr_follows(head, &f0);
	return skb_shinfo(head)->nr_frags + need <= MAX_SKB_FRAGS;
}

/*
 * Move skb's payload into head's frags (xfab_nb_ptr_can_merge() said
 * yes) with the page references, chain its pending packet behind
 * head's, so that the stack letting go of head answers both, and free
 * the rest of skb.
 */
void xfab_nb_ptr_merge(struct sk_buff *head, struct sk_buff *skb,
		       u32 hdr_len)
{
	struct skb_shared_info *hs = skb_shinfo(head), *sh = skb_shinfo(skb);
	struct xfab_nb_ptr_pkt *hp = nb_ptr_of(head), *pp = nb_ptr_of(skb);
	u32 plin = nb_ptr_head_payload(skb, hdr_len);
	u32 moved = plin + skb->data_len, i = 0;
	skb_frag_t *f0 = &sh->frags[0];

	skb_frag_off_add(f0, -(int)plin);
	skb_frag_size_add(f0, plin);
	if (nb_ptr_follows(head, f0)) {
		skb_frag_size_add(&hs->frags[hs->nr_frags - 1],
				  skb_frag_size(f0));
		put_page(skb_frag_page(f0));	/* head's frag holds it */
		i = 1;
	}
	for (; i < sh->nr_frags; i++)
		hs->frags[hs->nr_frags++] = sh->frags[i];
	sh->nr_frags = 0;
	skb->len -= skb->data_len;
	skb->data_len = 0;
	head->len += moved;
	head->data_len += moved;
	head->truesize += moved;

	/* pp now waits for head: its own skb's release must not answer it */
	refcount_inc(&pp->ubuf.refcnt);
	skb_zcopy_clear(skb, true);
	pp->merged = hp->merged;
	hp->merged = pp;
	napi_consume_skb(skb, 1);
}

/* ---- building the skb ---- */

/*
 * The skb of an all-pointer packet: the first XFAB_NB_HDR bytes copied
 * into its head (the headers the stack parses must not change under it),
 * the rest of each slot a frag of its window page, with a page reference
 * of its own. NULL when it needs more frags than an skb has, or memory.
 */
static struct sk_buff *nb_ptr_skb(struct xfab_nb_queue *q, u32 len, u32 ns,
				  void **va, struct page **pg, u16 *back)
{
	u32 hdr = min_t(u32, len, XFAB_NB_HDR), taken = 0, nf = 0, i;
	struct sk_buff *skb;

	skb = napi_alloc_skb(&q->napi, hdr);
	if (!skb)
		return NULL;
	for (i = 0; i < ns; i++) {
		const struct xfab_seg *s = &q->tx_src[i];
		u32 h = min_t(u32, s->len, hdr - taken), rest = s->len - h;

		/* skb_put() is for linear skbs: none once the frags begin */
		if (h)
			skb_put_data(skb, va[i] + s->off, h);
		taken += h;
		if (!rest)
			continue;
		if (!nf)
			*back = h;	/* frag 0's slot's bytes in the head */
		if (nf == MAX_SKB_FRAGS) {
			kfree_skb(skb);
			return NULL;
		}
		get_page(pg[i]);
		skb_fill_page_desc_noacc(skb, nf++, pg[i], s->off + h, rest);
		skb->len += rest;
		skb->data_len += rest;
		skb->truesize += rest;
	}
	return skb;
}

/* Keep a by-reference packet's data slots until its skb is let go. */
static struct xfab_nb_ptr_pkt *nb_ptr_park(struct xfab_nb_ptr *ctx,
					   struct xfab_nb_txp *p, u16 back)
{
	struct xfab_nb_ptr_pkt *pp;
	u32 i;

	pp = kmalloc(sizeof(*pp), GFP_ATOMIC | __GFP_NOWARN);
	if (!pp)
		return NULL;
	pp->nids = 0;
	for (i = 0; i < p->pkt.consumed; i++)
		if (p->is_data[i])
			pp->ids[pp->nids++] = p->ids[i];
	pp->ctx = ctx;
	pp->wn = p->wn;
	pp->since = jiffies;
	pp->merged = NULL;
	pp->back = back;
	pp->copied = false;
	refcount_set(&pp->ubuf.refcnt, 1);
	/* not DONT_ORPHAN: clones and software GSO must copy these frags */
	pp->ubuf.flags = SKBFL_ZEROCOPY_ENABLE;
	nb_ptr_zc_set(&pp->ubuf);
	return pp;
}

/*
 * A validated packet with pointer slots (NAPI). Each pointer slot is
 * resolved in the window over the ring's own peer; va[] (the pieces'
 * addresses, NULL for a grant) gets their mappings. Returns 0 when the
 * packet went into p->skb by reference (p->pp answers it later), 1 when
 * the caller must copy it (out of va[], p->wn held until
 * xfab_nb_ptr_copied()), -EPROTO when it is dropped (counted).
 */
int xfab_nb_ptr_packet(struct xfab_nb_queue *q, struct xfab_nb_txp *p,
		       u32 ns, void **va)
{
	struct xfab_nb_ptr *ctx = q->ptr;
	struct page *pg[XFAB_TX_FATAL_SLOTS];
	bool all = true;
	u16 back = 0;
	u32 i;

	p->wn = ctx->wn.get(ctx->peer);
	if (!p->wn) {
		xfab_nb_tx_inc(q, txr_ptr_no_window);
		return -EPROTO;
	}
	for (i = 0; i < ns; i++) {
		const struct xfab_seg *s = &q->tx_src[i];

		if (!(p->pkt.ptr_mask & BIT(i))) {
			all = false;
			continue;
		}
		pg[i] = ctx->wn.page(p->wn, s->page, s->off, s->len);
		if (!pg[i]) {
			xfab_nb_tx_inc(q, txr_ptr_bad_span);
			xfab_nb_ptr_copied(q, p);
			return -EPROTO;
		}
		va[i] = page_address(pg[i]);
	}
	if (!all)
		goto copy;
	/* before the slot bound, which a stuck consumer reaches first */
	if (ctx->aged) {
		xfab_nb_tx_inc(q, txr_ptr_aged);
		goto copy;
	}
	if (ctx->parked + ns > READ_ONCE(xfab_nb_ptr_slots))
		goto copy;
	p->skb = nb_ptr_skb(q, p->pkt.len, ns, va, pg, &back);
	if (!p->skb)
		goto copy;
	p->pp = nb_ptr_park(ctx, p, back);
	if (!p->pp) {
		kfree_skb(p->skb);
		p->skb = NULL;
		goto copy;
	}
	refcount_inc(&ctx->ref);
	ctx->parked += p->pp->nids;
	list_add_tail(&p->pp->link, &ctx->pending);
	p->wn = NULL;			/* the pending packet holds it now */
	q->tx_ptr_packets++;		/* counted with the batch's copies */
	q->tx_ptr_bytes += p->pkt.len;
	return 0;
copy:
	xfab_nb_tx_inc(q, txr_ptr_fallback);
	return 1;
}

/* The caller's copies out of the window are done: let it go. */
void xfab_nb_ptr_copied(struct xfab_nb_queue *q, struct xfab_nb_txp *p)
{
	if (!p->wn)
		return;
	q->ptr->wn.put(p->wn);
	p->wn = NULL;
}

/*
 * Just before the skb goes up: from here its release answers the
 * packet's data slots, whether the stack delivers it or drops it.
 */
void xfab_nb_ptr_hand_up(struct xfab_nb_txp *p)
{
	skb_zcopy_init(p->skb, &p->pp->ubuf);
}

/* ---- the exits that must copy ---- */

/*
 * At POST_ROUTING of the bridge and of IP: a packet leaving with window
 * frags gets its own copy, unless it leaves through one of our vifs
 * (start_xmit copies there when the vif has no RX pool). Failing that
 * copy, it is dropped: never sent from a window page.
 */
static unsigned int nb_ptr_exit(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	struct xfab_nb_ptr_pkt *pp;
	struct xfab_nb_queue *q;
	bool copied;

	if (!xfab_nb_ptr_skb(skb) || (state->out && xfab_nb_is_vif(state->out)))
		return NF_ACCEPT;
	pp = container_of(skb_zcopy(skb), struct xfab_nb_ptr_pkt, ubuf);
	/* counted on the sender's queue, if it is still there */
	rcu_read_lock();
	q = rcu_dereference(pp->ctx->q);
	copied = !skb_copy_ubufs(skb, GFP_ATOMIC);	/* pp may go here */
	if (q)
		atomic64_inc(copied ? &q->st.txr_ptr_exit_copies :
			     &q->st.txr_ptr_exit_drops);
	rcu_read_unlock();
	return copied ? NF_ACCEPT : NF_DROP;
}

/*
 * Last in each chain: filters and NAT before us see the packet as it is,
 * and we copy only what actually leaves.
 */
static const struct nf_hook_ops nb_ptr_hooks[] = {
	{
		.hook = nb_ptr_exit,
		.pf = NFPROTO_BRIDGE,
		.hooknum = NF_BR_POST_ROUTING,
		.priority = NF_BR_PRI_LAST,
	},
	{
		.hook = nb_ptr_exit,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_POST_ROUTING,
		.priority = NF_IP_PRI_LAST,
	},
	{
		.hook = nb_ptr_exit,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_POST_ROUTING,
		.priority = NF_IP6_PRI_LAST,
	},
};

/* In every network namespace: a bridge may live in any. */
static int __net_init nb_ptr_net_init(struct net *net)
{
	return nf_register_net_hooks(net, nb_ptr_hooks,
				     ARRAY_SIZE(nb_ptr_hooks));
}

static void __net_exit nb_ptr_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, nb_ptr_hooks, ARRAY_SIZE(nb_ptr_hooks));
}

static struct pernet_operations nb_ptr_net_ops = {
	.init = nb_ptr_net_init,
	.exit = nb_ptr_net_exit,
};

int xfab_nb_ptr_init(void)
{
	return register_pernet_subsys(&nb_ptr_net_ops);
}

/*
 * After every vif is gone: wait for the skbs the stack still holds (a
 * completion runs our code), then remove the hooks, which until then
 * keep window pages from leaving.
 */
void xfab_nb_ptr_exit(void)
{
	while (!wait_event_timeout(nb_ptr_gone, !atomic_read(&nb_ptr_live),
				   10 * HZ))
		pr_warn("xfab_netback: waiting for %d queues' packets sent by reference to be let go by the stack\n",
			atomic_read(&nb_ptr_live));
	/* the last completion may still be returning from nb_ptr_ctx_put */
	synchronize_rcu();
	unregister_pernet_subsys(&nb_ptr_net_ops);
}
