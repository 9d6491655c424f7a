/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xfab_blkfront: the contract between its files.
 *
 *   main.c     module parameters and registration
 *   xenbus.c   negotiation with the backend (rings, channels, features),
 *              connect / teardown, suspend and resume
 *   disk.c     the gendisk and its blk-mq tag set, queue limits
 *   ring.c     requests onto the ring (queue_rq), responses off it
 *              (the interrupt), the pool of granted pages
 *   stats.c    sysfs counters under the disk's device
 *   core.c     this module's copy of the OS-neutral core (common/)
 *
 * By default data never lives in a granted page of the guest's own: each
 * ring keeps a pool of pages granted to the backend once (so a backend
 * with persistent grants maps each once), and requests copy write data
 * into pool pages and read data out of them. A backend therefore never
 * sees or keeps access to memory outside the pool, whatever it does.
 *
 * Relaxed trust (the toolstack's xfab-trust key in our directory, only
 * with xfab_blkback): pages
 * written from are granted read-only and the grants kept (ring->ro), so
 * the backend reads write data in place; reads still go through the pool.
 *
 * Locking: one spinlock per ring covers its shared ring, its ids, its
 * shadow entries and its pool (queue_rq and the interrupt take it).
 */
#ifndef XFAB_BLKFRONT_COMMON_H
#define XFAB_BLKFRONT_COMMON_H

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include <xen/events.h>
#include <xen/interface/io/blkif.h>
#include "xfab_ring.h"
#include "xfab_kring.h"
#include "xfab_ids.h"
#include "xfab_blkif.h"
#include "xfab_gcache.h"
#include "xfab_kstats.h"

#define XFAB_BF_NAME "xfab_blkfront"
/* Segments we ever put in one request (indirect pages hold 512 each). */
#define XFAB_BF_MAX_SEGS XFAB_BLK_MAX_INDIRECT_SEGS
#define XFAB_BF_MAX_IND_PAGES 1
/* Segments per request with a backend other than xfab_blkback (auto). */
#define XFAB_BF_STOCK_SEGS 32u
/* Ring requests one block request is split into at most (split_kb). */
#define XFAB_BF_MAX_PARTS 8u

extern unsigned int xfab_bf_max_queues;
extern unsigned int xfab_bf_max_ring_order;
extern unsigned int xfab_bf_max_indirect;
extern unsigned int xfab_bf_pool_pages;
extern unsigned int xfab_bf_ro_grants;
extern unsigned int xfab_bf_ro_idle_ms;
extern unsigned int xfab_bf_split_kb;
extern bool xfab_bf_allow_relaxed;

#define XFAB_BF_RO_LIMIT 65536u
#define XFAB_BF_POOL_LIMIT 65536u

/*
 * A block request's blk-mq payload: how it ends (the first error any of
 * its ring requests had) and how many of them are still unanswered.
 */
struct xfab_bf_pdu {
	blk_status_t status;
	unsigned int parts;
};

/* One page granted to the backend for the ring's life. */
struct xfab_bf_gnt {
	struct list_head node;
	struct page *page;
	grant_ref_t gref;
};

/* A request on the ring: what to copy back and give back when answered. */
struct xfab_bf_shadow {
	struct request *rq;
	u8 op;				/* what the response must echo */
	unsigned int nr_segs;
	unsigned int bytes;		/* of data, in its segments */
	unsigned int nr_gnts;		/* segments + indirect pages */
	struct xfab_bf_gnt **gnts;	/* XFAB_BF_MAX_SEGS + 1; NULL: ro_slot */
	u32 *ro_slot;			/* the kept grant of each, or NONE */
	struct scatterlist *sg;		/* the request's data, XFAB_BF_MAX_SEGS */
};

/* Counters of one ring, summed for sysfs. */
/* A ring's counters (xfab_stats.h), all written under the ring's lock. */
struct xfab_bf_stats {
	struct u64_stats_sync sync;
	u64_stats_t rd_req, wr_req, flush_req, discard_req, indirect_req;
	u64_stats_t rd_sect, wr_sect;
	u64_stats_t io_errors, notsupp;
	u64_stats_t irqs, spurious, kicks;
	u64_stats_t bytes_copied;
	u64_stats_t grants;		/* pool pages granted */
	u64_stats_t busy;		/* ring or pool full: request retried */
	u64_stats_t splits;		/* requests sent in parts (split_kb) */
	u64_stats_t quiet_pushes;	/* published without a kick: not needed */
	u64_stats_t ro_hits, ro_grants;	/* write pages: kept grant / new one */
	u64_stats_t ro_replaced;	/* an idle kept grant made room */
	u64_stats_t ro_full;		/* none free or idle: copied instead */
	u64_stats_t ro_busy;		/* idle, but the backend still maps it */
	u64_stats_t reconnects;	/* to a new backend, the disk kept */
	u64_stats_t resizes;		/* new sizes the backend announced */
	u64_stats_t fatal_ring, fatal_id, fatal_op;	/* backend broke the protocol */
};

/* One count, the ring's lock held. */
#define xfab_bf_add(ring, f, n) \
	xfab_stat_add(&(ring)->st.sync, &(ring)->st.f, n)
#define xfab_bf_inc(ring, f) xfab_bf_add(ring, f, 1)


struct xfab_bf_info;

struct xfab_bf_ring {
	struct xfab_bf_info *info;
	unsigned int id;
	spinlock_t lock;
	struct blkif_front_ring front;
	xfab_idx_t pushed;		/* requests published so far */
	struct blkif_sring *sring;
	grant_ref_t refs[1U << XFAB_RING_MAX_ORDER];
	unsigned int evtchn;
	int irq;
	char name[32];
	struct xfab_ids ids;
	u16 *id_link;
	u8 *id_busy;
	struct xfab_bf_shadow *shadow;	/* one per ring slot */
	struct list_head pool;		/* free granted pages */
	unsigned int pool_total;
	/* relaxed trust: key the page's pfn, slot data its grant */
	bool ro_on;
	struct xfab_gcache ro;
	grant_ref_t *ro_ref;
	struct page **ro_page;		/* each holds a reference */
	bool broken;			/* the backend lied: no more I/O */
	struct xfab_bf_stats st;
};

/* What the backend offered, read at connect. */
struct xfab_bf_features {
	u64 sectors;
	u32 sector_size, phys_sector_size;
	unsigned int info;
	bool flush, barrier, discard, discard_secure;
	u32 discard_granularity, discard_alignment;
	unsigned int max_indirect;	/* segments per request, 0: direct only */
	unsigned int max_queues, max_ring_order;
	bool persistent;
	bool xfab;			/* feature-xfab-blk: xfab_blkback */
	unsigned int ro_max;		/* its xfab-ro-grants-max */
	bool relaxed;			/* our xfab-trust is "relaxed" */
};

struct xfab_bf_info {
	struct xenbus_device *xdev;
	unsigned int vdevice;
	char disk_name[DISK_NAME_LEN];
	struct xfab_bf_features feat;
	unsigned int segs;		/* per request, as negotiated */
	unsigned int ro_grants;		/* kept per ring, 0: copy all */
	u8 flush_op;			/* FLUSH_DISKCACHE, WRITE_BARRIER or 0 */
	struct xfab_bf_ring *rings;
	unsigned int nr_rings, ring_order;
	unsigned int nr_hw_queues;	/* the disk's, fixed once it exists */
	bool quiesced;			/* by resume, until reconnected */
	struct blk_mq_tag_set tag_set;
	bool tag_set_ready;
	struct gendisk *gd;
	bool connected;
	struct mutex lock;		/* connect/teardown vs sysfs */
	struct xfab_bf_stats gone;
};

/* ring.c */
extern const struct blk_mq_ops xfab_bf_mq_ops;
int xfab_bf_ring_setup(struct xfab_bf_ring *ring);
void xfab_bf_ring_drain(struct xfab_bf_ring *ring, struct list_head *list);
void xfab_bf_ring_free(struct xfab_bf_ring *ring);
irqreturn_t xfab_bf_interrupt(int irq, void *data);

/* disk.c */
int xfab_bf_disk_add(struct xfab_bf_info *info);
void xfab_bf_disk_del(struct xfab_bf_info *info);

/* stats.c */
extern const struct attribute_group *xfab_bf_groups[];
int xfab_bf_stats_init(void);
extern struct xfab_stats_table xfab_bf_stat_table;

/* xenbus.c */
int xfab_bf_xenbus_register(void);
void xfab_bf_xenbus_unregister(void);

#endif /* XFAB_BLKFRONT_COMMON_H */
