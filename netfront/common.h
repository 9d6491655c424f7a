/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xfab_netfront: the contract between its files.
 *
 * One xfab_nf_info per vif (the net_device's private area), one
 * xfab_nf_queue per ring pair. Lifetimes:
 *   info, its netdev and the per-queue stats: probe .. remove;
 *   the queues array (rings, grants, event channels, NAPI): connect ..
 *   teardown, both under rtnl. Anything that may run outside rtnl (stats
 *   readers) only ever touches info->stats, never a queue.
 *
 * TX trust: by default every packet is copied into the queue's bounce
 * pool (one zeroed page per TX id, granted read-only once at connect and
 * kept), so a backend sees the bytes we send and nothing that shares a
 * page with them (CVE-2022-33741 class). Only when the toolstack wrote
 * xfab-trust=relaxed (and not trusted=0) are skb pages granted in place.
 *
 * Locking: the TX ring (producer and completion side), its ids and the
 * TX counters are under queue->tx_lock. The RX ring and RX counters
 * belong to the queue's NAPI poll alone (the connect-time fill runs
 * before NAPI and the interrupts can reach it).
 */
#ifndef XFAB_NF_COMMON_H
#define XFAB_NF_COMMON_H

#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include <linux/timer.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/interface/io/ring.h>
#include <xen/interface/io/netif.h>
#include "xfab_ring.h"
#include "xfab_kring.h"
#include "xfab_ids.h"
#include "xfab_netif.h"
#include "xfab_netif_rx.h"
#include "xfab_kstats.h"
#include "xfab_pool.h"
#include "xfab_lend.h"
#include "xfab_wn.h"

#define XFAB_NF_NAME "xfab_netfront"

#define XFAB_NF_TX_RING_SIZE __CONST_RING_SIZE(xen_netif_tx, XEN_PAGE_SIZE)
#define XFAB_NF_RX_RING_SIZE __CONST_RING_SIZE(xen_netif_rx, XEN_PAGE_SIZE)

/*
 * Data slots one TX packet may use: the protocol's floor, which every
 * backend takes (and past which ours, via xfab_tx_check, calls us
 * hostile). A GSO packet takes one extra-info slot on top.
 */
#define XFAB_NF_TX_MAX_SLOTS XEN_NETIF_NR_SLOTS_MIN

/* Jumbo frames need multi-slot TX, i.e. a backend with feature-sg. */
#define XFAB_NF_MAX_MTU 9000
/* Bytes of a received packet pulled into the skb's linear area. */
#define XFAB_NF_RX_PULL 128
/* RX pool: a packet this small is copied whole into the linear area. */
#define XFAB_NF_RX_COPYBREAK 256
/* RX pool: the largest page (as an order) a packet is copied into. */
#define XFAB_NF_RX_COPY_ORDER 3
/* RX pool pages beyond one per ring slot: at most one list page's worth. */
#define XFAB_NF_RX_LEND_MAX (XFAB_POOL_MAX_PAGES - XFAB_NF_RX_RING_SIZE)

/* Per-queue TX counters, in ethtool -S order (names in ethtool.c). */
enum xfab_nf_tx_stat {
	XFAB_NF_TX_PACKETS,
	XFAB_NF_TX_BYTES,
	XFAB_NF_TX_SLOTS,
	XFAB_NF_TX_KICKS,
	XFAB_NF_TX_GRANTS,
	XFAB_NF_TX_GRANTS_ENDED,
	XFAB_NF_TX_LINEARISED,
	XFAB_NF_TX_STOPPED,
	XFAB_NF_TX_RSP_ERRORS,
	XFAB_NF_TX_DROP_DOWN,
	XFAB_NF_TX_DROP_TOO_MANY_SLOTS,
	XFAB_NF_TX_DROP_BAD_SKB,
	XFAB_NF_TX_DROP_RING_FULL,
	XFAB_NF_TX_FATAL_RING,
	XFAB_NF_TX_FATAL_BAD_ID,
	XFAB_NF_TX_FATAL_DUP_ID,
	XFAB_NF_TX_FATAL_GRANT_BUSY,
	XFAB_NF_TX_BOUNCED,
	XFAB_NF_TX_BOUNCE_BYTES,
	XFAB_NF_TX_FATAL_NULL,
	XFAB_NF_TX_PTR_SLOTS,
	XFAB_NF_TX_PTR_BYTES,
	XFAB_NF_TX_NR
};

/* Per-queue RX counters; the validator's reasons follow them. */
enum xfab_nf_rx_stat {
	XFAB_NF_RX_PACKETS,
	XFAB_NF_RX_BYTES,
	XFAB_NF_RX_SLOTS,
	XFAB_NF_RX_KICKS,
	XFAB_NF_RX_GRANTS,
	XFAB_NF_RX_GRANTS_ENDED,
	XFAB_NF_RX_REFILL_FAIL,
	XFAB_NF_RX_CSUM_FIXUP,
	XFAB_NF_RX_DROP_CSUM,
	XFAB_NF_RX_DROP_NOMEM,
	XFAB_NF_RX_FATAL_RING,
	XFAB_NF_RX_FATAL_GRANT_BUSY,
	XFAB_NF_RX_POOL_BYTES,
	XFAB_NF_RX_LENT_PAGES,
	XFAB_NF_RX_LENT_BYTES,
	XFAB_NF_RX_LEND_BACK,
	XFAB_NF_RX_LEND_SHORT,
	XFAB_NF_RX_REF_PACKETS,		/* pointer mode: packets with references */
	XFAB_NF_RX_REF_BYTES,		/* bytes read through our window */
	XFAB_NF_RX_DROP_REF,		/* a reference our window does not map */
	XFAB_NF_RX_NR
};

/*
 * Counters of one queue index; outlive the queue (probe .. remove).
 * xfab_stats.h: TX under tx_sync (tx_lock held), RX under rx_sync (the
 * queue's NAPI); the interrupt handlers of two channels may run at once
 * and count in atomics.
 */
struct xfab_nf_stats {
	struct u64_stats_sync tx_sync;
	u64_stats_t tx[XFAB_NF_TX_NR];
	struct u64_stats_sync rx_sync;
	u64_stats_t rx[XFAB_NF_RX_NR];
	u64_stats_t rx_err[XFAB_RX_NR_ERRS];
	atomic64_t tx_irqs;
	atomic64_t rx_irqs;
	atomic64_t spurious_irqs;
};

/*
 * One TX ring slot, indexed by its request id. In place: skb, page and
 * gref are set while the id is in flight. Bounce: page and gref are the
 * id's pool page and its read-only grant, from connect to teardown; the
 * packet's last slot holds the skb (one reference) until it is answered.
 */
struct xfab_nf_tx_buf {
	struct sk_buff *skb;	/* holds one skb reference per slot */
	struct page *page;	/* the page granted in this slot */
	grant_ref_t gref;
	bool ptr;		/* sent by frame (pointer mode): no grant */
};

/*
 * A pool's list for an xfab backend (docs/protocol.md, "netif: the xfab
 * fast path"): a page granted read-only holding the pool pages' grant
 * references, ascending. page == NULL: not published.
 */
struct xfab_nf_pool_dir {
	struct page *page;
	grant_ref_t ref;
	unsigned int n;
};

struct xfab_nf_info;

struct xfab_nf_queue {
	struct xfab_nf_info *info;
	struct xfab_nf_stats *stats;
	unsigned int id;
	char irq_name[IFNAMSIZ + 16];	/* tx, or the only channel */
	char irq_name_rx[IFNAMSIZ + 16];
	struct napi_struct napi;
	bool napi_added;
	bool napi_on;
	struct dentry *dbg;

	/* TX: everything below up to RX is under tx_lock */
	spinlock_t tx_lock ____cacheline_aligned_in_smp;
	struct xen_netif_tx_front_ring tx;
	grant_ref_t tx_ring_ref;
	grant_ref_t tx_gref_head;	/* private pool: one per ring slot */
	bool tx_gref_pool;
	xfab_idx_t tx_pushed;		/* req_prod as we last published it */
	bool tx_bounce;			/* copy into the pool (info->bounce) */
	bool tx_ptr;			/* slots by frame (info->ptr) */
	u32 tx_extras;			/* extra slots not answered yet */
	evtchn_port_t tx_evtchn;
	int tx_irq;
	struct xfab_ids tx_ids;
	u16 tx_id_link[XFAB_NF_TX_RING_SIZE];
	u8 tx_id_busy[XFAB_NF_TX_RING_SIZE];
	struct xfab_nf_tx_buf tx_buf[XFAB_NF_TX_RING_SIZE];
	struct xfab_nf_pool_dir tx_dir;	/* the bounce pool's list */

	/* RX: owned by NAPI */
	struct xen_netif_rx_front_ring rx ____cacheline_aligned_in_smp;
	grant_ref_t rx_ring_ref;
	grant_ref_t rx_gref_head;
	bool rx_gref_pool;
	xfab_idx_t rx_pushed;
	evtchn_port_t rx_evtchn;
	int rx_irq;			/* == tx_irq without split channels */
	struct timer_list refill_timer;
	/*
	 * RX pool: every slot keeps one zeroed page granted writable for the
	 * life of the rings; a packet is copied out of it and the page is
	 * posted again. Otherwise each slot gets a fresh page per packet.
	 */
	bool rx_pool;
	struct xfab_nf_pool_dir rx_dir;	/* the RX pool's list */
	/* RX pool pages off the ring: spare, or lent to the stack */
	struct xfab_lend rx_off;
	/* posted buffers, indexed by ring slot (== request id) */
	struct page *rx_page[XFAB_NF_RX_RING_SIZE];
	grant_ref_t rx_gref[XFAB_NF_RX_RING_SIZE];
	/* responses from rx.rsp_cons on, each copied out exactly once */
	union xfab_rx_slot rx_copy[XFAB_RX_MAX_CHAIN];
	u32 rx_copied;
	struct xfab_rx_pkt rx_pkt;
};

/* What the backend offered, read at each connect. */
struct xfab_nf_backend {
	unsigned int max_queues;
	bool split_evtchn;
	bool sg;
	bool gso_tcpv4;
	bool gso_tcpv6;
	bool ipv6_csum;
	bool no_csum;
	unsigned int pool_max;	/* xfab-pool-max-pages (0: no pools) */
	bool ptr;		/* feature-xfab-ptr: it reads us by frame */
};

#define XFAB_NF_BROKEN 0	/* info->flags: disabled until the next connect */

struct xfab_nf_info {
	struct net_device *netdev;
	struct xenbus_device *xbdev;
	struct xfab_nf_queue *queues;	/* rtnl; NULL while disconnected */
	unsigned int num_queues;
	unsigned long flags;
	struct xfab_nf_backend be;
	bool bounce;			/* TX copies: set at each connect */
	bool ptr;			/* TX by frame (xfab-ptr): each connect */
	/* RX references (xfab-ptr-rx), read through xfab_window: wn held */
	bool ptr_rx;
	struct xfab_wnops wn;
	/* our group record: leaving the group ends TX by frame at once */
	struct xenbus_watch group_watch;
	bool group_watching;
	bool pools;			/* RX pool, lists for the backend */
	unsigned int rx_lend;		/* RX pool pages lent, per queue */
	struct xfab_nf_stats *stats;	/* netdev->num_tx_queues entries */
	struct dentry *dbg_dir;
};

/* netdev.c */
extern unsigned int xfab_nf_max_queues;
extern bool xfab_nf_allow_relaxed;
extern bool xfab_nf_pools;
extern bool xfab_nf_ptr;
extern bool xfab_nf_ptr_rx;
extern unsigned int xfab_nf_rx_lend;
int xfab_nf_netdev_create(struct xenbus_device *dev, const u8 *mac,
			  struct xfab_nf_info **out);
void xfab_nf_netdev_destroy(struct xfab_nf_info *info);
void xfab_nf_disable(struct xfab_nf_info *info, const char *why);
static inline bool xfab_nf_broken(const struct xfab_nf_info *info)
{
	return test_bit(XFAB_NF_BROKEN, &info->flags);
}

/* xenbus.c */
int xfab_nf_xenbus_register(void);
void xfab_nf_xenbus_unregister(void);

/* queue.c: ring setup and teardown (called under rtnl) */
int xfab_nf_queues_create(struct xfab_nf_info *info, unsigned int nr);
void xfab_nf_teardown(struct xfab_nf_info *info);

/* tx.c */
netdev_tx_t xfab_nf_start_xmit(struct sk_buff *skb, struct net_device *dev);
void xfab_nf_tx_complete(struct xfab_nf_queue *q);
bool xfab_nf_tx_pending(struct xfab_nf_queue *q);
void xfab_nf_tx_release(struct xfab_nf_queue *q);
int xfab_nf_tx_pool_create(struct xfab_nf_queue *q);
void xfab_nf_tx_pool_publish(struct xfab_nf_queue *q);

/* pool.c: pool pages, and the lists of them an xfab backend maps */
struct page *xfab_nf_pool_page(struct xfab_nf_queue *q, grant_ref_t *head,
			       bool readonly, grant_ref_t *ref);
u32 *xfab_nf_pool_dir_start(struct xfab_nf_pool_dir *d);
void xfab_nf_pool_dir_finish(struct xfab_nf_queue *q,
			     struct xfab_nf_pool_dir *d, unsigned int n,
			     const char *what);
void xfab_nf_pool_dir_release(struct xfab_nf_pool_dir *d);

/* rx.c */
int xfab_nf_poll(struct napi_struct *napi, int budget);
void xfab_nf_rx_refill(struct xfab_nf_queue *q);
int xfab_nf_rx_pool_create(struct xfab_nf_queue *q);
bool xfab_nf_rx_pending(struct xfab_nf_queue *q);
void xfab_nf_rx_release(struct xfab_nf_queue *q);
void xfab_nf_refill_timer(struct timer_list *t);

/* ethtool.c */
extern const struct ethtool_ops xfab_nf_ethtool_ops;
int xfab_nf_stats_init(void);
void xfab_nf_get_stats64(struct net_device *dev,
			 struct rtnl_link_stats64 *tot);

/* debugfs.c */
void xfab_nf_debugfs_init(void);
void xfab_nf_debugfs_exit(void);
void xfab_nf_debugfs_dev_add(struct xfab_nf_info *info);
void xfab_nf_debugfs_dev_del(struct xfab_nf_info *info);
void xfab_nf_debugfs_queue_add(struct xfab_nf_queue *q);
void xfab_nf_debugfs_queue_del(struct xfab_nf_queue *q);

/* Counter updates: the caller holds what the group's comment says. */
static inline void xfab_nf_tx_add(struct xfab_nf_queue *q,
				  enum xfab_nf_tx_stat s, u64 n)
{
	xfab_stat_add(&q->stats->tx_sync, &q->stats->tx[s], n);
}

static inline void xfab_nf_rx_add(struct xfab_nf_queue *q,
				  enum xfab_nf_rx_stat s, u64 n)
{
	xfab_stat_add(&q->stats->rx_sync, &q->stats->rx[s], n);
}

static inline void xfab_nf_rx_err(struct xfab_nf_queue *q, int err)
{
	xfab_stat_inc(&q->stats->rx_sync, &q->stats->rx_err[err]);
}

#endif /* XFAB_NF_COMMON_H */
