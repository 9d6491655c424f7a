/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xfab_netback: the contract between its files.
 *
 *   main.c       module parameters, the workqueue and debugfs root,
 *                registration
 *   xenbus.c     negotiation with the frontend (one state function),
 *                hotplug-status, connect/disconnect of the queues
 *   interface.c  the vifD.N net_device, queue setup/teardown, interrupts
 *   pool.c       an xfab frontend's page pools, mapped once per connect
 *   tx.c         guest TX ring -> dom0 stack (NAPI; grant copy, or
 *                memcpy from a mapped pool)
 *   rx.c         dom0 stack -> guest RX ring (grant copy, or memcpy into
 *                a mapped pool)
 *   rxhold.c     copied packets kept until the guest took them
 *   lro.c        guest TX segments of one flow merged before the stack
 *   ptr.c        pointer mode: guest TX slots read through xfab_window,
 *                answered when the stack lets go; the exits that copy
 *   stats.c      ethtool -S and the debugfs ring dump
 *   core.c       this module's copy of the OS-neutral core (common/)
 *
 * Naming: "tx" and "rx" are the guest's rings, as on the wire: the TX ring
 * carries what the guest sends, the RX ring what it receives. Counters
 * use the same words (ethtool -S shows q0_txr_*, q0_rxr_*), while the
 * net_device's own statistics keep the dom0 view (rx = from the guest).
 */
#ifndef XFAB_NETBACK_COMMON_H
#define XFAB_NETBACK_COMMON_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <linux/timer.h>
#include <linux/hrtimer.h>
#include <linux/timekeeping.h>
#include <linux/debugfs.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include <xen/events.h>
#include <xen/interface/io/netif.h>
#include "xfab_ring.h"
#include "xfab_kring.h"
#include "xfab_netif.h"
#include "xfab_copy.h"
#include "xfab_credit.h"
#include "xfab_kstats.h"
#include "xfab_pool.h"
#include "xfab_budget.h"
#include "xfab_age.h"
#include "xfab_lro.h"
#include "xfab_poll.h"
#include "xfab_kpoll.h"
#include "xfab_wn.h"

/* One page per ring: netif has no multi-page rings. */
#define XFAB_NB_TX_RING_SIZE __CONST_RING_SIZE(xen_netif_tx, XEN_PAGE_SIZE)
#define XFAB_NB_RX_RING_SIZE __CONST_RING_SIZE(xen_netif_rx, XEN_PAGE_SIZE)

/* Bytes of a guest packet copied into the skb head; the rest into pages. */
#define XFAB_NB_HDR 128
/* Packets whose copies are batched into one grant-copy hypercall. */
#define XFAB_NB_BATCH 32
/* Copy operations per batch: a packet needs at most 18 + 17 + 2. */
#define XFAB_NB_MAX_OPS (XFAB_NB_BATCH * 40)
/* Guest RX slots one dom0 packet may take (data slots, GSO extra apart). */
#define XFAB_NB_RX_MAX_DATA (XEN_NETIF_NR_SLOTS_MIN - 1)
/*
 * By reference (pointer mode) a frag needs no room in a buffer, only a
 * slot of its own: the headers' slot and one per frag, up to the most a
 * frontend takes (XEN_NETIF_NR_SLOTS_MIN), each frag slot followed by a
 * frame slot.
 */
#define XFAB_NB_RX_REF_DATA XEN_NETIF_NR_SLOTS_MIN
/*
 * Page pieces of one skb we copy from (head, frags and frag_list cut at
 * 4 KiB): an LRO packet of 45 segments takes about 92 (a small head and
 * a page frag each); start_xmit linearises a packet that needs more.
 */
#define XFAB_NB_RX_SRC 160
/* Our pieces of one guest packet: the head (2) and up to 16 pages. */
#define XFAB_NB_TX_DST 20
extern unsigned int xfab_nb_rx_stall_secs;
extern unsigned int xfab_nb_rx_drain_ms;
/* rx_drain_ms's bounds (main.c says why) */
#define XFAB_NB_DRAIN_MIN_MS 100
#define XFAB_NB_DRAIN_MAX_MS 60000
extern unsigned int xfab_nb_pool_pages;
extern unsigned int xfab_nb_pool_vif_max;
extern unsigned int xfab_nb_pool_total_max;
extern bool xfab_nb_lro;
extern unsigned int xfab_nb_poll_us;
extern unsigned int xfab_nb_kick_us;
/* The in-ring poll's smallest budget: an adaptive one halves to this. */
#define XFAB_NB_POLL_MIN_NS 1000
/* The largest poll_us (module parameter or ethtool -C rx-usecs). */
#define XFAB_NB_POLL_MAX_US 10000
/* The largest kick_us (module parameter or ethtool -C tx-usecs). */
#define XFAB_NB_KICK_MAX_US 10000

extern bool xfab_nb_ptr;
extern unsigned int xfab_nb_ptr_slots;
extern unsigned int xfab_nb_ptr_age_ms;
extern unsigned int xfab_nb_ptr_rx_kb;
extern unsigned int xfab_nb_max_queues;
extern unsigned int xfab_nb_rx_backlog;
extern unsigned int xfab_nb_rx_hold_max;
extern struct workqueue_struct *xfab_nb_wq;
extern struct dentry *xfab_nb_debugfs;

/*
 * Module-wide resource counts (debugfs summary): after every guest is
 * gone they must all be back to 0, which is how the lifecycle scenarios
 * show that a destroyed guest left no mapping, channel or vif behind.
 */
struct xfab_nb_totals {
	atomic_t vifs, rings_mapped, irqs_bound, queues_connected;
	atomic_t pool_pages;	/* frontend pool pages we have mapped */
};
extern struct xfab_nb_totals xfab_nb_totals;

/* Per-queue counters; each has one writer context (see the comments). */
/*
 * A queue's counters (xfab_stats.h). NAPI writes the TX ring's under
 * tx_sync; the RX ring's go under rx_sync from whoever holds the queue's
 * xmit lock (start_xmit's direct copy or the RX worker). What interrupt
 * handlers, the transmit path's drops and the stall purge count (they
 * can run at once) is atomic.
 */
struct xfab_nb_stats {
	struct u64_stats_sync tx_sync;
	u64_stats_t txr_packets, txr_bytes, txr_slots, txr_gso;
	u64_stats_t txr_err[XFAB_TX_NR_ERRS];	/* by xfab_tx_err reason */
	u64_stats_t txr_drop_copy, txr_drop_csum, txr_drop_nomem;
	u64_stats_t txr_kicks;
	u64_stats_t txr_copy_calls, txr_copy_ops;
	u64_stats_t txr_rate_waits;	/* the rate limit held the ring back */
	u64_stats_t txr_pool_ops, txr_pool_bytes;	/* memcpy from the pool */
	u64_stats_t txr_lro_out;	/* merged packets handed up */
	u64_stats_t txr_lro_segs;	/* guest packets in them */
	u64_stats_t txr_lro_stop[XFAB_LRO_NR_WHY];	/* by xfab_lro_why */
	u64_stats_t txr_polls, txr_poll_found, txr_poll_empty;	/* in-ring */
	u64_stats_t txr_poll_cut;	/* NAPI rounds that spun their bound */
	/* pointer mode (ptr.c) */
	u64_stats_t txr_ptr_packets, txr_ptr_bytes;	/* sent by reference */
	u64_stats_t txr_ptr_late_done;	/* answered once the stack let go */
	u64_stats_t txr_ptr_stack_copied;	/* of those: the stack copied */
	u64_stats_t txr_ptr_fallback;	/* copied out of the window here */
	u64_stats_t txr_ptr_aged;	/* of those: the oldest waited too long */
	u64_stats_t txr_ptr_no_window;	/* dropped: no window over the peer */
	u64_stats_t txr_ptr_bad_span;	/* dropped: a frame it does not map */
	struct u64_stats_sync rx_sync;
	u64_stats_t rxr_packets, rxr_bytes, rxr_slots, rxr_gso;
	u64_stats_t rxr_drop_copy, rxr_kicks;
	u64_stats_t rxr_copy_calls, rxr_copy_ops;
	u64_stats_t rxr_pool_ops, rxr_pool_bytes;	/* memcpy into the pool */
	u64_stats_t rxr_direct;		/* copied in start_xmit, not queued */
	/* pointer mode: packets and bytes the guest got by reference */
	u64_stats_t rxr_ref_packets, rxr_ref_bytes;
	u64_stats_t rxr_ref_over;	/* copied: ptr_rx_kb already held */
	atomic64_t txr_irqs, txr_spurious, rxr_irqs, rxr_spurious;
	atomic64_t rxr_drop_backlog;	/* xmit: guest not taking packets */
	atomic64_t rxr_drop_down;	/* xmit: queue not connected */
	atomic64_t rxr_drop_big, rxr_drop_nomem;
	atomic64_t rxr_drop_stall;	/* purged, or xmit while stalled */
	atomic64_t rxr_drop_aged;	/* waited past rx_drain_ms */
	atomic64_t rxr_stops;
	atomic64_t rxr_kicks_held;	/* notifications held back (tx-usecs) */
	atomic64_t rxr_kicks_late;	/* sent by the timer, once held */
	atomic64_t rxr_hold_taken;	/* freed held: the guest took them */
	atomic64_t rxr_hold_over;	/* freed held: more than rx_hold */
	atomic64_t rxr_hold_timeout;	/* freed held: the guest took long */
	atomic64_t rxr_ref_taken;	/* sent by reference, taken back */
	atomic64_t txr_ptr_exit_copies;	/* by reference, copied at an exit */
	atomic64_t txr_ptr_exit_drops;	/* that copy failed: dropped */
	atomic64_t dbg_pokes;		/* debugfs writes (EOI + look) */
	atomic64_t fatal;		/* a peer error disabled the vif */
	atomic64_t pool_fail;		/* a pool that would not map: off */
	atomic64_t pool_refused_vif;	/* pool_grants_per_vif spent: off */
	atomic64_t pool_refused_total;	/* pool_grants_total spent: off */
};

/* One count by NAPI (TX ring) or the RX worker (RX ring). */
#define xfab_nb_tx_add(q, f, n) \
	xfab_stat_add(&(q)->st.tx_sync, &(q)->st.f, n)
#define xfab_nb_tx_inc(q, f) xfab_nb_tx_add(q, f, 1)
#define xfab_nb_rx_add(q, f, n) \
	xfab_stat_add(&(q)->st.rx_sync, &(q)->st.f, n)
#define xfab_nb_rx_inc(q, f) xfab_nb_rx_add(q, f, 1)


/* Bits of xfab_nb_queue.eoi_pending: who still owes the lateeoi. */
#define XFAB_NB_EOI_TX 1
#define XFAB_NB_EOI_RX 2

struct xfab_nb_ptr_pkt;

/* A guest packet between "copies planned" and "copies done". */
struct xfab_nb_txp {
	struct sk_buff *skb;
	struct xfab_tx_pkt pkt;
	/* pointer mode: the packet's window, and its late answer (or NULL) */
	struct xfab_wn *wn;
	struct xfab_nb_ptr_pkt *pp;
	u16 ids[XFAB_TX_MAX_CHAIN];	/* request id per consumed slot */
	u8 is_data[XFAB_TX_MAX_CHAIN];
	u16 op_first, op_count;
};

/*
 * Pointer mode on RX: a packet whose frags are all window pages over one
 * member, sent to another member of its group by reference (rx.c).
 */
struct xfab_nb_rxref {
	bool on;
	bool over;			/* refused: ptr_rx_kb already held */
	u16 peer;
	u32 frame[XFAB_NB_RX_REF_DATA - 1];	/* per frag */
};

/* A dom0 packet on its way into guest RX buffers. */
struct xfab_nb_rxp {
	struct sk_buff *skb;
	u16 nslots;			/* data slots */
	u16 ids[XFAB_NB_RX_REF_DATA];
	u16 used[XFAB_NB_RX_REF_DATA];	/* bytes in each slot */
	bool gso;
	bool failed;			/* could not be planned: answer errors */
	u16 op_first, op_count;
	struct xfab_nb_rxref ref;	/* .on: data slots 1.. are references */
};

/*
 * A frontend's pool as we mapped it (pool.c): refs is our checked copy of
 * its list, pages[i] maps refs[i]. Set up before the queue connects and
 * torn down after its datapath stopped; the datapath only reads it.
 */
struct xfab_nb_pool {
	bool readonly;			/* the TX pool: the guest's to write */
	u32 n;				/* pages; 0: no pool (a failed one too) */
	u32 charged;			/* pages taken from the pool budget */
	u32 *refs;
	struct page **pages;
	grant_handle_t *handles;
	unsigned long *mapped_bit;	/* which pages[] are mapped */
};

/* Our mapping of pool page ref, or NULL: then it is a plain grant. */
static inline void *xfab_nb_pool_va(const struct xfab_nb_pool *p, u32 ref)
{
	int i = xfab_pool_find(p->refs, p->n, ref);

	return i < 0 ? NULL : page_address(p->pages[i]);
}

/*
 * The LRO merge of one NAPI poll (lro.c): the packet being built, the
 * last skb on its frag_list, and the poll's tallies, counted at its end.
 * A merge of packets sent by reference (by_ref) has no frag_list: their
 * window pages join the head's frags (ptr.c).
 */
struct xfab_nb_lro {
	bool on;			/* NETIF_F_GRO_HW, read once per poll */
	bool by_ref;			/* the head was sent by reference */
	struct sk_buff *head, *last;
	struct xfab_lro_flow flow;
	u32 out, segs;
	u32 why[XFAB_LRO_NR_WHY];
};

struct xfab_nb_vif;

struct xfab_nb_queue {
	struct xfab_nb_vif *vif;
	unsigned int id;
	char name[IFNAMSIZ + 8];

	/* Set up by connect, torn down by disconnect (interface.c). */
	bool connected;
	bool broken;			/* fatal peer error: do nothing more */
	bool counted;			/* in xfab_nb_totals.queues_connected */
	struct xen_netif_tx_back_ring tx;
	struct xen_netif_rx_back_ring rx;
	void *tx_addr, *rx_addr;	/* mapped ring pages */
	int tx_irq, rx_irq;		/* equal when one channel is shared */
	atomic_t eoi_pending;
	struct napi_struct napi;
	bool napi_added;
	struct work_struct rx_work;

	/* TX ring (NAPI) scratch */
	xfab_idx_t tx_pushed;		/* rsp_prod we last published */
	union xfab_tx_slot tx_slots[XFAB_TX_MAX_CHAIN];
	struct xfab_nb_txp txp[XFAB_NB_BATCH];
	struct xfab_seg tx_src[XFAB_TX_FATAL_SLOTS], tx_dst[XFAB_NB_TX_DST];
	struct xfab_copy_op tx_plan[XFAB_TX_FATAL_SLOTS + XFAB_NB_TX_DST];
	struct xfab_credit credit;	/* the "rate" limit; NAPI only */
	struct xfab_nb_pool tx_pool;	/* the guest's TX pool, read-only */
	u32 tx_pool_ops;		/* this batch's memcpys and bytes */
	u64 tx_pool_bytes;
	u32 tx_ptr_packets;		/* and its packets sent by reference */
	u64 tx_ptr_bytes;
	struct timer_list rate_timer;	/* reschedules NAPI when credit is due */
	bool tx_throttled;		/* waiting for rate_timer */
	struct xfab_nb_lro lro;
	bool tx_polling;		/* an xfab frontend: poll its TX ring */
	struct xfab_nb_ptr *ptr;	/* pointer mode's pending packets, or NULL */
	struct xfab_poll tx_poll;	/* NAPI only */

	/* RX ring (worker) */
	struct sk_buff_head rx_queue;	/* xmit -> worker */
	unsigned int rx_queued_bytes;	/* under rx_queue.lock */
	bool rx_stopped;
	bool rx_stalled;		/* backlog dropped: drop until buffers come */
	unsigned long rx_progress;	/* jiffies: last packet out, or backlog start */
	/* the stall timer; it also ages the backlog (rx_drain_ms) */
	struct delayed_work rx_stall;
	struct sk_buff_head rx_held;	/* copied, until the guest took them */
	unsigned int rx_held_bytes;	/* their truesize, under rx_held.lock */
	struct timer_list rx_hold_timer;
	/* sent by reference: kept until taken, no matter how long */
	struct sk_buff_head rx_refs;
	unsigned int rx_ref_bytes;	/* their skb->len, under rx_refs.lock */
	/* notifications spaced kick_ns apart (ethtool -C tx-usecs) */
	struct hrtimer rx_kick_timer;	/* sends one that was held back */
	u64 rx_kick_ns;			/* when the guest was last notified */
	bool rx_kick_armed;		/* the timer has one to send */
	xfab_idx_t rx_pushed;
	struct xfab_nb_rxp rxp[XFAB_NB_BATCH];
	struct xfab_seg rx_src[XFAB_NB_RX_SRC], rx_dst[XFAB_NB_RX_MAX_DATA];
	struct xfab_copy_op rx_plan[XFAB_NB_RX_SRC + XFAB_NB_RX_MAX_DATA];
	struct xfab_nb_pool rx_pool;	/* the guest's RX pool, writable */
	u32 rx_pool_ops;		/* this round's memcpys and bytes */
	u64 rx_pool_bytes;

	/* Copy batches, one per direction (different contexts). */
	struct gnttab_copy *tx_ops, *rx_ops;

	struct dentry *dbg;
	struct xfab_nb_stats st;
};

struct xfab_nb_vif {
	struct xenbus_device *xdev;
	struct net_device *dev;
	domid_t domid;
	unsigned int handle;

	/* Negotiated at connect (xenbus.c), read by the datapath. */
	unsigned int num_queues;
	bool split_evtchn;
	bool can_sg, gso_v4, gso_v6, ip_csum, ipv6_csum;
	bool disabled;			/* a fatal error disabled the vif */
	bool ptr;			/* both sides said xfab-ptr (pointer mode) */
	bool ptr_rx;			/* and the frontend takes RX references */
	u64 rate_bytes, rate_usec;	/* the toolstack's "rate"; 0: none */
	/* in-ring polling of the TX rings (ethtool -C rx-usecs, adaptive-rx) */
	u32 poll_ns;
	bool poll_adaptive;
	u32 kick_ns;		/* least time between RX notifications */
	/* pool pages taken from the budget by its queues (pool.c's lock) */
	u32 pool_grants;
	bool pool_refusal_logged;	/* this connect: one line is enough */

	/*
	 * All xfab_nb_max_queues exist from probe to remove, so that stats
	 * readers never meet a freed queue (XSA-374 class).
	 */
	struct xfab_nb_queue *queues;
	unsigned int nr_alloc;
	struct dentry *dbg;
};

/* xenbus.c */
int xfab_nb_xenbus_register(void);
void xfab_nb_xenbus_unregister(void);

/* interface.c */
struct xfab_nb_vif *xfab_nb_vif_create(struct xenbus_device *xdev,
				       unsigned int handle);
void xfab_nb_vif_destroy(struct xfab_nb_vif *vif);
int xfab_nb_queue_connect(struct xfab_nb_queue *q, grant_ref_t tx_ref,
			  grant_ref_t rx_ref, unsigned int tx_evtchn,
			  unsigned int rx_evtchn);
void xfab_nb_queue_disconnect(struct xfab_nb_queue *q);
void xfab_nb_vif_carrier(struct xfab_nb_vif *vif, bool on);
void xfab_nb_fatal(struct xfab_nb_queue *q, const char *why);
void xfab_nb_eoi(struct xfab_nb_queue *q, int bit);
bool xfab_nb_is_vif(const struct net_device *dev);

/* ptr.c */
int xfab_nb_ptr_init(void);
void xfab_nb_ptr_exit(void);
bool xfab_nb_ptr_offer(struct xfab_wnops *wn);
void xfab_nb_ptr_unoffer(struct xfab_wnops *wn);
int xfab_nb_ptr_want(struct xfab_wnops *wn, domid_t peer);
int xfab_nb_ptr_attach(struct xfab_nb_queue *q);
void xfab_nb_ptr_detach(struct xfab_nb_queue *q);
int xfab_nb_ptr_packet(struct xfab_nb_queue *q, struct xfab_nb_txp *p,
		       u32 ns, void **va);
void xfab_nb_ptr_copied(struct xfab_nb_queue *q, struct xfab_nb_txp *p);
void xfab_nb_ptr_hand_up(struct xfab_nb_txp *p);
void xfab_nb_ptr_reap(struct xfab_nb_queue *q);
bool xfab_nb_ptr_skb(struct sk_buff *skb);
const struct xfab_wnops *xfab_nb_ptr_wnops(struct xfab_nb_queue *q);
bool xfab_nb_ptr_can_merge(struct sk_buff *head, struct sk_buff *skb,
			   u32 hdr_len);
void xfab_nb_ptr_merge(struct sk_buff *head, struct sk_buff *skb,
		       u32 hdr_len);
int xfab_nb_ptr_contexts(void);

/* pool.c */
int xfab_nb_pool_map(struct xfab_nb_queue *q, struct xfab_nb_pool *p,
		     grant_ref_t dir, u32 n, bool readonly, const char **why);
void xfab_nb_pool_unmap(struct xfab_nb_queue *q, struct xfab_nb_pool *p);
u32 xfab_nb_pool_budget_held(void);

/* tx.c */
int xfab_nb_tx_poll(struct napi_struct *napi, int budget);
void xfab_nb_tx_respond(struct xfab_nb_queue *q, u16 id, s16 status);
bool xfab_nb_tx_has_work(struct xfab_nb_queue *q);
void xfab_nb_rate_timer(struct timer_list *t);

/* rx.c */
netdev_tx_t xfab_nb_start_xmit(struct sk_buff *skb, struct net_device *dev);
void xfab_nb_rx_work(struct work_struct *work);
bool xfab_nb_rx_has_work(struct xfab_nb_queue *q);
u64 xfab_nb_rx_purge(struct xfab_nb_queue *q);
unsigned int xfab_nb_rx_oldest_ms(struct xfab_nb_queue *q);
enum hrtimer_restart xfab_nb_rx_kick_timer(struct hrtimer *t);
void xfab_nb_rx_stall_check(struct work_struct *work);

/* rxhold.c */
void xfab_nb_rx_hold_add(struct xfab_nb_queue *q, struct sk_buff_head *round,
			 struct sk_buff *skb);
void xfab_nb_rx_hold(struct xfab_nb_queue *q, struct sk_buff_head *round);
bool xfab_nb_rx_hold_done(struct xfab_nb_queue *q);
void xfab_nb_rx_refs_hold(struct xfab_nb_queue *q, struct sk_buff_head *round);
void xfab_nb_rx_hold_timer(struct timer_list *t);
void xfab_nb_rx_hold_release(struct xfab_nb_queue *q);

/* lro.c */
void xfab_nb_lro_begin(struct xfab_nb_queue *q);
void xfab_nb_lro_receive(struct xfab_nb_queue *q, struct sk_buff *skb);
void xfab_nb_lro_flush(struct xfab_nb_queue *q);
void xfab_nb_lro_end(struct xfab_nb_queue *q);

/* stats.c */
extern const struct ethtool_ops xfab_nb_ethtool_ops;
int xfab_nb_stats_init(void);
void xfab_nb_debugfs_add(struct xfab_nb_queue *q);
void xfab_nb_debugfs_del(struct xfab_nb_queue *q);
void xfab_nb_debugfs_summary(void);

/* Publish new responses; kick the guest only if it asked for it. */
static inline void xfab_nb_publish(xfab_idx_t *pushed, xfab_idx_t now,
				   xfab_idx_t *shared_prod,
				   const xfab_idx_t *shared_event, int irq,
				   struct u64_stats_sync *sync,
				   u64_stats_t *kicks)
{
	if (xfab_ring_publish(pushed, now, shared_prod, shared_event)) {
		notify_remote_via_irq(irq);
		xfab_stat_inc(sync, kicks);
	}
}

#endif /* XFAB_NETBACK_COMMON_H */
