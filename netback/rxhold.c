// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Packets for the guest, kept after their copy until the guest took them.
 *
 * A NIC frees a sent skb when the hardware is done with it, and the
 * sender's TCP relies on that: while a packet of its own is still below
 * it, it corks further writes into one bigger packet (autocork) and keeps
 * no more than about a millisecond of data queued (TSQ). Freed at the
 * copy, in the sender's own context, every packet looked gone at once,
 * and each 16 KiB write left as one 16 KiB packet paying the whole
 * per-packet cost. So a copied skb waits here until the guest has
 * consumed its responses, which shows when the guest posts the buffer of
 * its last slot again: its req_prod passes the packet's end by a ring.
 *
 * We look whenever the guest's own activity brings us by: its next TX
 * packets (a TCP receiver's ACKs, which follow what it took), an RX event
 * it sent anyway, the next packets copied for it. No event is asked
 * for: tried, that cost the guest a notification per NAPI round (578
 * rather than 221 per 1000 packets in TCP_MAERTS) for no more speed.
 *
 * Bounds: at most rx_hold skbs and NB_HOLD_BYTES per queue (the oldest
 * goes first) and at most NB_HOLD_JIFFIES each (a timer). A guest that
 * never posts, or claims it did, can delay a free by a few milliseconds
 * or hasten it, nothing more.
 *
 * The list has its own lock, taken with interrupts off: the guest's
 * event frees from its handler, NAPI frees, each copy round (start_xmit's
 * or the worker's) adds its packets and frees, and the timer frees what
 * waited too long.
 *
 * Packets sent by reference (pointer mode, rx.c) wait on a list of their
 * own, rx_refs, by the same rule but with no time limit and no count:
 * their frags are another member's pages, which the guest reads until it
 * posts the slots again, and freeing the skb answers that member's TX
 * slots, after which it may write those pages. rx.c bounds them in
 * bytes (ptr_rx_kb) instead; the timer only looks for them, and a
 * disconnect frees them.
 */
#include <linux/skbuff.h>
#include "common.h"

/* The longest a copied packet waits for its guest: 2 ticks, 8 ms at 250 Hz. */
#define NB_HOLD_JIFFIES 2
/*
 * Memory kept per queue (skb truesize): half of a UDP socket's default
 * send buffer, so a sender of big datagrams never waits on us for room.
 */
#define NB_HOLD_BYTES (128 * 1024)

struct nb_hold_cb {
	xfab_idx_t end;		/* rsp_prod_pvt after the packet's responses */
	unsigned long at;	/* jiffies when held */
};

static struct nb_hold_cb *nb_hold_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct nb_hold_cb) > sizeof(skb->cb));
	return (struct nb_hold_cb *)skb->cb;
}

/* Has the guest posted the last buffer of this packet again? */
static bool nb_taken(struct xfab_nb_queue *q, struct sk_buff *skb)
{
	xfab_idx_t prod = READ_ONCE(q->rx.sring->req_prod);

	return (s32)(prod - nb_hold_cb(skb)->end - XFAB_NB_RX_RING_SIZE) >= 0;
}

/* The oldest held packet goes to done (lock held). */
static void nb_unhold(struct xfab_nb_queue *q, struct sk_buff_head *done)
{
	struct sk_buff *skb = __skb_dequeue(&q->rx_held);

	q->rx_held_bytes -= skb->truesize;
	__skb_queue_tail(done, skb);
}

/* Move the held packets the guest took to done (lock held). */
static void nb_take_done(struct xfab_nb_queue *q, struct sk_buff_head *done)
{
	struct sk_buff *skb;
	u32 n = 0;

	while ((skb = skb_peek(&q->rx_held)) && nb_taken(q, skb)) {
		nb_unhold(q, done);
		n++;
	}
	if (n)
		atomic64_add(n, &q->st.rxr_hold_taken);
}

static void nb_free_list(struct sk_buff_head *list)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(list)))
		dev_kfree_skb_any(skb);
}

/* Move the packets sent by reference that the guest took to done. */
static void nb_refs_taken(struct xfab_nb_queue *q, struct sk_buff_head *done)
{
	struct sk_buff *skb;
	unsigned long flags;
	u32 n = 0;

	if (skb_queue_empty_lockless(&q->rx_refs))
		return;
	spin_lock_irqsave(&q->rx_refs.lock, flags);
	while ((skb = skb_peek(&q->rx_refs)) && nb_taken(q, skb)) {
		__skb_unlink(skb, &q->rx_refs);
		WRITE_ONCE(q->rx_ref_bytes, q->rx_ref_bytes - skb->len);
		__skb_queue_tail(done, skb);
		n++;
	}
	spin_unlock_irqrestore(&q->rx_refs.lock, flags);
	if (n)
		atomic64_add(n, &q->st.rxr_ref_taken);
}

/* Free what the guest took; true if anything was. Any context. */
bool xfab_nb_rx_hold_done(struct xfab_nb_queue *q)
{
	struct sk_buff_head done;
	unsigned long flags;

	__skb_queue_head_init(&done);
	nb_refs_taken(q, &done);
	if (!skb_queue_empty_lockless(&q->rx_held)) {
		spin_lock_irqsave(&q->rx_held.lock, flags);
		nb_take_done(q, &done);
		spin_unlock_irqrestore(&q->rx_held.lock, flags);
	}
	if (skb_queue_empty(&done))
		return false;
	nb_free_list(&done);
	return true;
}

/*
 * A round's packets sent by reference, their responses written: kept
 * until the guest took them. Empties round.
 */
void xfab_nb_rx_refs_hold(struct xfab_nb_queue *q, struct sk_buff_head *round)
{
	unsigned int bytes = 0;
	unsigned long flags;
	struct sk_buff *skb;

	if (skb_queue_empty(round))
		return;
	skb_queue_walk(round, skb)
		bytes += skb->len;
	spin_lock_irqsave(&q->rx_refs.lock, flags);
	skb_queue_splice_tail_init(round, &q->rx_refs);
	WRITE_ONCE(q->rx_ref_bytes, q->rx_ref_bytes + bytes);
	spin_unlock_irqrestore(&q->rx_refs.lock, flags);
	if (!timer_pending(&q->rx_hold_timer))
		mod_timer(&q->rx_hold_timer, jiffies + NB_HOLD_JIFFIES);
}

/* A copied packet whose responses are written joins its round's list. */
void xfab_nb_rx_hold_add(struct xfab_nb_queue *q, struct sk_buff_head *round,
			 struct sk_buff *skb)
{
	nb_hold_cb(skb)->end = q->rx.rsp_prod_pvt;
	__skb_queue_tail(round, skb);
}

/*
 * Keep a round's copied packets until the guest took them: one lock and
 * one look at the ring per round, not per packet. Empties round.
 */
void xfab_nb_rx_hold(struct xfab_nb_queue *q, struct sk_buff_head *round)
{
	unsigned long flags, now = jiffies;
	struct sk_buff_head done;
	unsigned int bytes = 0;
	struct sk_buff *skb;
	bool first;

	if (!xfab_nb_rx_hold_max) {
		nb_free_list(round);
		return;
	}
	if (skb_queue_empty(round))
		return;
	skb_queue_walk(round, skb) {
		nb_hold_cb(skb)->at = now;
		bytes += skb->truesize;
	}
	__skb_queue_head_init(&done);
	spin_lock_irqsave(&q->rx_held.lock, flags);
	first = skb_queue_empty(&q->rx_held);
	skb_queue_splice_tail_init(round, &q->rx_held);
	q->rx_held_bytes += bytes;
	while (skb_queue_len(&q->rx_held) > xfab_nb_rx_hold_max ||
	       (q->rx_held_bytes > NB_HOLD_BYTES &&
		skb_queue_len(&q->rx_held) > 1)) {
		nb_unhold(q, &done);
		atomic64_inc(&q->st.rxr_hold_over);
	}
	/* and whatever the guest took meanwhile */
	nb_take_done(q, &done);
	spin_unlock_irqrestore(&q->rx_held.lock, flags);
	nb_free_list(&done);
	if (first)
		mod_timer(&q->rx_hold_timer, jiffies + NB_HOLD_JIFFIES);
}

/* Free what waited too long; come back for the rest. */
void xfab_nb_rx_hold_timer(struct timer_list *t)
{
	struct xfab_nb_queue *q = from_timer(q, t, rx_hold_timer);
	struct sk_buff_head done;
	struct sk_buff *skb;
	unsigned long flags, next = 0;
	bool again;

	__skb_queue_head_init(&done);
	spin_lock_irqsave(&q->rx_held.lock, flags);
	nb_take_done(q, &done);
	while ((skb = skb_peek(&q->rx_held)) &&
	       time_after_eq(jiffies, nb_hold_cb(skb)->at + NB_HOLD_JIFFIES)) {
		nb_unhold(q, &done);
		atomic64_inc(&q->st.rxr_hold_timeout);
	}
	again = skb;
	if (again)
		next = nb_hold_cb(skb)->at + NB_HOLD_JIFFIES;
	spin_unlock_irqrestore(&q->rx_held.lock, flags);
	nb_refs_taken(q, &done);
	nb_free_list(&done);
	/* references wait as long as they must: look again (held: sooner) */
	if (!again && !skb_queue_empty_lockless(&q->rx_refs)) {
		next = jiffies + NB_HOLD_JIFFIES;
		again = true;
	}
	if (again)
		mod_timer(&q->rx_hold_timer, next);
}

/* Teardown, with xmit, the worker and the interrupts stopped. */
void xfab_nb_rx_hold_release(struct xfab_nb_queue *q)
{
	timer_delete_sync(&q->rx_hold_timer);
	skb_queue_purge(&q->rx_held);
	q->rx_held_bytes = 0;
	/* the guest's rings are gone: it reads none of them any more */
	skb_queue_purge(&q->rx_refs);
	WRITE_ONCE(q->rx_ref_bytes, 0);
}
