// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * LRO on guest TX: consecutive TCP segments of one flow that NAPI takes
 * off the ring in one poll are merged into one packet before dom0's
 * stack sees them (common/xfab_lro.c decides, on the skb heads we copied
 * the guest's bytes into: never on guest memory). A merged packet keeps
 * the first skb's headers, gets the others' payloads chained on its
 * frag_list (packets sent by reference: their pages in its frags), and
 * is finished the way GRO finishes one (gso_size, gso_segs, partial
 * checksum), so it can be forwarded and segmented again.
 *
 * It must have GRO's shape, or forwarding it to a port without frag_list
 * support BUGs dom0 in skb_segment(), which cuts gso_size bytes at a time
 * and expects each frag_list member to start a segment and to have at
 * most gso_size bytes in its linear part: the common code lets only
 * single wire segments within the vif's MTU in, makes the first one's
 * payload the gso_size, and lets no member but the last be shorter, so
 * every member (and the head's payload) is exactly one segment. The
 * sizes are still the guest's choice, so every merge is SKB_GSO_DODGY:
 * the stack recounts gso_segs and GRO does not merge it again.
 *
 * The switch is NETIF_F_GRO_HW (ethtool -K vifD.N rx-gro-hw), not
 * NETIF_F_LRO: a bridge turns LRO off on every port, because packets an
 * LRO merged may not be forwarded; ours may, which is what GRO_HW says.
 */
#include <net/tcp.h>
#include "common.h"

static const struct xfab_lro_limits nb_lro_limits = {
	/* IP's 16-bit length; the guest's own packets are at most 64 KiB */
	.max_l3 = 0xffff,
	/* a 64 KiB packet of 1 KiB segments; bounds the frag_list walk */
	.max_pieces = 64,
};

void xfab_nb_lro_begin(struct xfab_nb_queue *q)
{
	q->lro.on = q->vif->dev->features & NETIF_F_GRO_HW;
}

/*
 * Parse an skb whose data starts at its IP header (after eth_type_trans).
 * The MTU is read per packet: it may change under us, and each segment
 * only has to fit the MTU it was checked against.
 */
static int nb_lro_parse(struct xfab_nb_queue *q, struct sk_buff *skb,
			struct xfab_lro_seg *s)
{
	struct xfab_lro_pkt p = {
		.l3 = skb->data,
		.l3_avail = skb_headlen(skb),
		.l3_len = skb->len,
		.ethertype = ntohs(skb->protocol),
		.gso_size = skb_is_gso(skb) ? skb_shinfo(skb)->gso_size : 0,
		.mtu = READ_ONCE(q->vif->dev->mtu),
		.csum_ok = skb->ip_summed == CHECKSUM_PARTIAL ||
			   skb->ip_summed == CHECKSUM_UNNECESSARY,
	};

	if (skb_has_frag_list(skb) || skb_cloned(skb))
		return XFAB_LRO_NOT_TCP;
	return xfab_lro_parse(&p, s);
}

/*
 * Can skb join the merge in progress as far as its kind goes? Packets
 * sent by reference join only a merge of such packets, and only if
 * their pages can move into the head's frags (ptr.c): a frag_list is
 * never built of them, because the stack copies window pages it must
 * not keep (at local delivery, clones, software GSO) on the head skb's
 * frags only.
 */
static int nb_lro_kind(struct xfab_nb_lro *l, struct sk_buff *skb,
		       const struct xfab_lro_seg *s)
{
	bool by_ref = xfab_nb_ptr_skb(skb);

	if (by_ref != l->by_ref)
		return XFAB_LRO_BY_REF;
	if (by_ref && !xfab_nb_ptr_can_merge(l->head, skb, s->hdr_len))
		return XFAB_LRO_BY_REF;
	return XFAB_LRO_OK;
}

/*
 * Chain skb's payload (its headers pulled off) onto the merge's head
 * (a merge by reference moves the pages into the head's frags instead).
 * Its linear part is then at most its payload, which is at most the
 * flow's mss, as skb_segment() needs of every member (and the head's is
 * at most its headers plus one mss): nothing on this path may pull a
 * member's frags into its linear part. A member is a plain segment, as
 * in GRO: skb_segment() may send it out as one of the segments, and a
 * GSO size the guest gave it would go along.
 */
static void nb_lro_append(struct xfab_nb_lro *l, struct sk_buff *skb,
			  unsigned int hdr_len)
{
	struct sk_buff *head = l->head;

	if (l->by_ref) {
		xfab_nb_ptr_merge(head, skb, hdr_len);
		return;
	}
	__skb_pull(skb, hdr_len);
	skb_gso_reset(skb);
	if (l->last == head)
		skb_shinfo(head)->frag_list = skb;
	else
		l->last->next = skb;
	l->last = skb;
	head->len += skb->len;
	head->data_len += skb->len;
	head->truesize += skb->truesize;
}

/* The merge's head to the stack: finished as GRO would if it merged. */
static void nb_lro_flush(struct xfab_nb_queue *q)
{
	struct xfab_nb_lro *l = &q->lro;
	const struct xfab_lro_flow *f = &l->flow;
	struct sk_buff *skb = l->head;
	struct skb_shared_info *sh;

	if (!skb)
		return;
	l->head = NULL;
	if (f->pieces > 1) {
		xfab_lro_finish(f);
		sh = skb_shinfo(skb);
		sh->gso_size = f->mss;
		/* sizes the guest chose: the stack checks them again */
		sh->gso_type = (f->head.v6 ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4) |
			       SKB_GSO_DODGY;
		sh->gso_segs = f->pieces;
		skb_partial_csum_set(skb, f->head.ip_len,
				     offsetof(struct tcphdr, check));
		l->out++;
		l->segs += f->pieces;
	}
	netif_receive_skb(skb);
}

/*
 * A checked, set-up guest packet on its way up: merged into the packet
 * being built, or that one is handed up first and this one starts the
 * next merge (or, if it can take part in none, goes up at once). Order
 * is kept: nothing overtakes a packet we hold. Each packet that joins
 * no merge counts its reason once; one that starts a merge counts none.
 */
void xfab_nb_lro_receive(struct xfab_nb_queue *q, struct sk_buff *skb)
{
	struct xfab_nb_lro *l = &q->lro;
	struct xfab_lro_seg s;
	int why;

	if (!l->on) {
		netif_receive_skb(skb);
		return;
	}
	why = nb_lro_parse(q, skb, &s);
	if (!why && l->head) {
		why = nb_lro_kind(l, skb, &s) ?:
		      xfab_lro_join(&l->flow, &s, &nb_lro_limits);
		if (!why) {
			nb_lro_append(l, skb, s.hdr_len);
			return;
		}
	}
	if (why)
		l->why[why]++;
	nb_lro_flush(q);
	if (why && why < XFAB_LRO_FLOW) {
		netif_receive_skb(skb);
		return;
	}
	l->head = skb;
	l->last = skb;
	l->by_ref = xfab_nb_ptr_skb(skb);
	xfab_lro_start(&l->flow, &s);
}

/* The ring is empty for now: hand up the packet being merged. */
void xfab_nb_lro_flush(struct xfab_nb_queue *q)
{
	struct xfab_nb_lro *l = &q->lro;

	if (l->head)
		l->why[XFAB_LRO_END]++;
	nb_lro_flush(q);
}

/* End of a NAPI poll: hand up what is held, count the poll's merges. */
void xfab_nb_lro_end(struct xfab_nb_queue *q)
{
	struct xfab_nb_lro *l = &q->lro;
	struct xfab_nb_stats *st = &q->st;
	unsigned int i;

	xfab_nb_lro_flush(q);
	if (!l->on)
		return;
	u64_stats_update_begin(&st->tx_sync);
	u64_stats_add(&st->txr_lro_out, l->out);
	u64_stats_add(&st->txr_lro_segs, l->segs);
	for (i = 1; i < XFAB_LRO_NR_WHY; i++)
		u64_stats_add(&st->txr_lro_stop[i], l->why[i]);
	u64_stats_update_end(&st->tx_sync);
	memset(l->why, 0, sizeof(l->why));
	l->out = 0;
	l->segs = 0;
}
