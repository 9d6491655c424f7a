/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xfab_blkback: the contract between its files.
 *
 *   main.c     module parameters, the drain workqueue, registration
 *   xenbus.c   negotiation with the frontend (one state function), the
 *              backing device named by the hotplug script, ring connect,
 *              ring sets left draining at a disconnect
 *   ring.c     one thread per ring: take requests off the ring, validate
 *              them (common/xfab_blkif.c), submit bios, answer
 *   grants.c   mapping the frontend's pages: persistent grants kept per
 *              ring, the rest mapped for one request
 *   stats.c    sysfs counters (/sys/bus/xen-backend/devices/vbd-D-N/
 *              statistics/) and the debugfs summary
 *   core.c     this module's copy of the OS-neutral core (common/)
 *
 * Everything the frontend wrote is copied before it is looked at: a
 * request slot is copied whole, an indirect page is copied out of its
 * mapping, and only xfab_blk_check() / xfab_blk_ind_segs() decide what a
 * copy means. The datapath functions take the decoded struct
 * xfab_blk_req, never the ring.
 */
#ifndef XFAB_BLKBACK_COMMON_H
#define XFAB_BLKBACK_COMMON_H

#include <linux/blkdev.h>
#include <linux/bio.h>
#include <linux/kthread.h>
#include <linux/wait.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include <xen/events.h>
#include <xen/interface/io/blkif.h>
#include "xfab_ring.h"
#include "xfab_kring.h"
#include "xfab_blkif.h"
#include "xfab_gcache.h"
#include "xfab_poll.h"
#include "xfab_kpoll.h"
#include "xfab_credit.h"
#include "xfab_kstats.h"
#include "xfab_drain.h"

/* Pages one request maps: its segments (indirect pages map apart). */
#define XFAB_BB_MAX_PAGES XFAB_BLK_MAX_INDIRECT_SEGS
/* Indirect pages those segments fill. */
#define XFAB_BB_MAX_IND_PAGES \
	DIV_ROUND_UP(XFAB_BB_MAX_PAGES, XFAB_BLK_SEGS_PER_IND_PAGE)

extern unsigned int xfab_bb_max_queues;
extern unsigned int xfab_bb_max_ring_order;
extern unsigned int xfab_bb_max_indirect;
extern unsigned int xfab_bb_max_pgrants;
extern bool xfab_bb_persistent;
extern bool xfab_bb_discard;
extern unsigned int xfab_bb_ro_max;
extern unsigned int xfab_bb_ro_idle_ms;
extern unsigned int xfab_bb_ro_dev_max;
extern unsigned int xfab_bb_ro_total_max;
extern unsigned int xfab_bb_poll_us;
extern unsigned int xfab_bb_resize_ms;
extern unsigned int xfab_bb_refuse_rate;
extern unsigned int xfab_bb_drain_dev_max;
extern unsigned int xfab_bb_drain_total_max;

#define XFAB_BB_RO_LIMIT 65536u
/* drain_sets_per_disk at most; more is a pile, not a bound */
#define XFAB_BB_DRAIN_LIMIT 64u
/*
 * A request of this many segments (64 KiB) or more is answered as soon as
 * it is done, before the next one is started, rather than with its batch.
 */
#define XFAB_BB_EARLY_SEGS 16u
/*
 * Refusals are charged to an xfab_credit bucket (common/), built for
 * bytes: one refusal costs this much, so its smallest cap is a burst of
 * 64 refusals and refuse_rate refusals a second refill it.
 */
#define XFAB_BB_REFUSE_COST (XFAB_CREDIT_MIN_CAP / 64)
/* Requests taken in one pass before the thread offers the CPU. */
#define XFAB_BB_PASS_REQS 64u

/*
 * What the module holds right now, over all devices: after the last
 * guest is gone every one must be back to 0 (the lifecycle scenarios read
 * /sys/kernel/debug/xfab_blkback/summary).
 */
struct xfab_bb_totals {
	atomic_t devices;
	atomic_t rings;
	atomic_long_t grants_mapped;
	atomic_t ro_kept;		/* kept read-only mappings, all disks */
	atomic_t draining;		/* ring sets let go with requests at the disk */
	atomic_t drain_extra;		/* ring sets held past each disk's first */
};
extern struct xfab_bb_totals xfab_bb_totals;
/* Where rings let go with requests still at the disk are finished. */
extern struct workqueue_struct *xfab_bb_drain_wq;

/* Counters of one ring; summed over rings for sysfs. */
/*
 * A ring's counters (xfab_stats.h): the ring's thread writes them all
 * under sync, except irqs, which the interrupt handler counts.
 */
struct xfab_bb_stats {
	struct u64_stats_sync sync;
	u64_stats_t rd_req, wr_req, flush_req, barrier_req, discard_req;
	u64_stats_t rd_sect, wr_sect, discard_sect;
	u64_stats_t indirect_req;
	u64_stats_t io_errors;		/* the disk failed a request */
	u64_stats_t map_errors;	/* a grant the frontend named would not map */
	atomic64_t irqs;
	u64_stats_t spurious, kicks;
	u64_stats_t grant_maps, grant_unmaps;	/* grants, not hypercalls */
	u64_stats_t map_calls, unmap_calls;	/* hypercalls */
	u64_stats_t pgrant_hits;	/* a segment found its page mapped */
	u64_stats_t pool_waits;	/* ring had requests, all slots were busy */
	/* xfab frontends: read-only mappings of write data, polling */
	u64_stats_t ro_hits;		/* a write segment found its page mapped */
	u64_stats_t ro_maps;		/* read-only mappings made to keep */
	u64_stats_t ro_evictions;	/* kept mappings dropped for a newer one */
	u64_stats_t ro_purged;		/* kept mappings dropped when idle */
	u64_stats_t ro_full;		/* every kept mapping busy: mapped once */
	u64_stats_t ro_budget;		/* disk or backend at its bound: mapped once */
	u64_stats_t polls, poll_found, poll_empty;
	u64_stats_t resizes;		/* new sizes announced (the device's, not a ring's) */
	u64_stats_t refuse_waits;	/* refusals past refuse_rate: the thread slept */
	u64_stats_t bad_index;		/* impossible producer index: ring stopped */
	u64_stats_t passes_yielded;	/* a pass of XFAB_BB_PASS_REQS offered the CPU */
	/* connects refused for ring sets draining (the device's, not a ring's) */
	u64_stats_t drain_refused_disk;	/* drain_sets_per_disk met */
	u64_stats_t drain_refused_total;	/* drain_sets_total met */
	u64_stats_t err[XFAB_BLK_NR_ERRS];	/* refused requests by reason */
};

/* One count by the ring's thread. */
#define xfab_bb_add(ring, f, n) \
	xfab_stat_add(&(ring)->st.sync, &(ring)->st.f, n)
#define xfab_bb_inc(ring, f) xfab_bb_add(ring, f, 1)


/* A grant mapped for as long as the ring lives (feature-persistent). */
struct xfab_bb_pgrant {
	struct rb_node node;
	grant_ref_t gref;
	grant_handle_t handle;
	struct page *page;
};

/* One frontend page of a request, however it was mapped. */
struct xfab_bb_page {
	struct page *page;
	grant_ref_t gref;
	grant_handle_t handle;	/* valid while mapped for this request only */
	bool persistent;
	u32 ro_slot;		/* kept read-only mapping it pins, or NONE */
};

/* A kept read-only mapping: one slot of ring->ro. */
struct xfab_bb_romap {
	struct page *page;	/* NULL until (unless) the map succeeded */
	grant_handle_t handle;
};

/* A request in flight: a pool entry per ring slot. */
struct xfab_bb_req {
	struct list_head list;		/* free list or done list */
	struct xfab_bb_ring *ring;
	struct xfab_blk_req hdr;	/* decoded and checked */
	struct xfab_blk_seg *segs;	/* nr_segs checked segments */
	struct xfab_bb_page *pages;	/* one per segment */
	unsigned int nr_mapped;		/* pages[] entries to release */
	atomic_t bios;			/* in flight, +1 while submitting */
	blk_status_t status;
	struct work_struct discard_work;
};

struct xfab_bb_dev;

/* One ring (queue) with its channel, thread and grants. */
struct xfab_bb_ring {
	struct xfab_bb_dev *dev;
	unsigned int id;
	struct blkif_back_ring back;	/* native (x86_64) layout only */
	xfab_idx_t pushed;		/* responses published so far */
	void *sring_addr;		/* xenbus_map_ring_valloc()ed */
	int irq;
	char name[32];			/* irq and thread: xfab-blkD.H-R */
	struct task_struct *thread;
	wait_queue_head_t wq;
	atomic_t events;		/* set by the irq, taken by the thread */
	atomic_t eoi_pending;		/* an event waits for its EOI */
	bool counted;			/* in xfab_bb_totals.rings */
	bool broken;			/* the ring indices lied: stopped */
	bool pool_blocked;		/* requests wait for a free entry */

	struct xfab_bb_req *pool;
	unsigned int pool_size;
	struct list_head free;		/* thread only */
	spinlock_t done_lock;
	struct list_head done;		/* completed, to answer */
	atomic_t inflight;		/* started, not yet answered */

	struct rb_root pgrants;		/* thread only */
	unsigned int nr_pgrants;
	bool persistent;		/* negotiated */
	/*
	 * An xfab frontend in relaxed trust grants the pages it writes from
	 * read-only and keeps the grants: we keep their mappings in ro
	 * (keyed by gref, thread only), so its writes are read in place.
	 */
	bool ro_on;
	struct xfab_gcache ro;
	struct xfab_bb_romap *ro_map;
	struct xfab_bb_romap *ro_evict;	/* one request's evictions */
	unsigned long ro_purge_at;	/* jiffies of the next idle purge */
	bool polling;			/* an xfab frontend: poll the ring */
	struct xfab_poll poll;		/* budget in ns */
	struct xfab_credit refuse;	/* what refused requests may cost */
	struct gnttab_page_cache page_cache;
	bool cache_ready;
	/* Scratch for one request's map/unmap batch (thread only). */
	struct gnttab_map_grant_ref *map_ops;
	struct gnttab_unmap_grant_ref *unmap_ops;
	struct page **batch_pages;
	u16 *batch_idx;			/* map op -> pages[] index */
	bool *batch_keep;		/* map op -> keep it persistent */
	grant_ref_t *seg_grefs;		/* the grefs of the request being mapped */
	u8 *ind_copy;			/* copied indirect page(s) */

	struct xfab_bb_stats st;
};

/* The backing block device, opened for the lifetime of the binding. */
struct xfab_bb_bdev {
	struct file *file;		/* what holds it open */
	struct block_device *bdev;	/* file_bdev(file) */
};

/* One vbd: its disk, its rings, what was negotiated. */
struct xfab_bb_dev {
	struct xenbus_device *xdev;
	dev_t devt;
	bool have_disk;
	struct xfab_bb_bdev disk;
	struct xfab_blk_limits lim;	/* what requests are checked against */
	bool cdrom, removable;
	struct mutex rings_lock;	/* rings[] vs sysfs readers */
	struct xfab_bb_ring *rings;
	unsigned int nr_rings;		/* connected */
	unsigned int nr_alloc;		/* rings[] entries to tear down */
	u16 handle;
	atomic_t ro_kept;		/* kept read-only mappings, all rings */
	/* its ring sets, connected and draining (xenbus.c's bb_sets_lock) */
	struct xfab_drain_dev sets;
	struct xfab_bb_stats gone;	/* counters of rings torn down */
};

/* ring.c */
int xfab_bb_ring_connect(struct xfab_bb_ring *ring, const grant_ref_t *refs,
			 unsigned int nr_refs, unsigned int evtchn);
void xfab_bb_ring_stop(struct xfab_bb_ring *ring);
void xfab_bb_ring_disconnect(struct xfab_bb_ring *ring);

/* grants.c */
int xfab_bb_map(struct xfab_bb_ring *ring, struct xfab_bb_page *pages,
		const grant_ref_t *grefs, unsigned int n, bool ro);
void xfab_bb_unmap(struct xfab_bb_ring *ring, struct xfab_bb_page *pages,
		   unsigned int n);
void xfab_bb_pgrants_free(struct xfab_bb_ring *ring);
int xfab_bb_ro_init(struct xfab_bb_ring *ring, unsigned int cap);
void xfab_bb_ro_purge(struct xfab_bb_ring *ring);
void xfab_bb_ro_free(struct xfab_bb_ring *ring);

/* stats.c */
extern const struct attribute_group *xfab_bb_groups[];
int xfab_bb_stats_init(void);
void xfab_bb_debugfs_init(void);
void xfab_bb_debugfs_exit(void);
extern struct xfab_stats_table xfab_bb_stat_table;

/* xenbus.c */
unsigned int xfab_bb_draining(struct xfab_bb_dev *dev);
int xfab_bb_xenbus_register(void);
void xfab_bb_xenbus_unregister(void);

#endif /* XFAB_BLKBACK_COMMON_H */
