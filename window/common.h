/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xfab_window: the contract between its files.
 *
 *   main.c     module parameters, the group watches (members, deaths),
 *              creating, remaking (the peer's memory changed) and
 *              dropping windows
 *   api.c      the datapath API (xfab_wn.h), publishing a window and
 *              unmapping it only after its last holder let go
 *   map.c      the group domctl, the peer's frame list, mapping and
 *              unmapping it read-only, batched
 *   debugfs.c  the view (windows, counters)
 *
 * The testbed's probes of windows are a module apart (tests/wnprobe).
 *
 * A window holds one local page per frame of one peer (another member of
 * this domain's appliance group, xen-patches/): a page with a struct
 * page, taken from the balloon like a grant mapping's, whose kernel
 * address maps the peer's frame read-only. Its p2m entry is left
 * invalid (Linux exports no setter). Each page's private word holds its
 * tag (xfab_win_tag()), from the mapping to the unmap.
 */
#ifndef XFAB_WINDOW_COMMON_H
#define XFAB_WINDOW_COMMON_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/mm_types.h>
#include <linux/llist.h>
#include <linux/percpu-refcount.h>
#include "xfab_window.h"
#include "xfab_group.h"
#include "xfab_wn.h"

struct xfab_wn {
	struct list_head list;		/* xfab_wn_list, then xfab_wn_draining */
	struct percpu_ref ref;		/* publication + holders (api.c) */
	struct llist_node free_node;	/* drained, waiting for the unmap */
	struct list_head pin_link;	/* in api.c's pinned: pages in use */
	unsigned long drained_at;	/* jiffies: its last holder let go */
	int ref_base;			/* a page's count with no user (map) */
	u16 peer;			/* the peer's domain id */
	struct xfab_win idx;		/* peer frame -> entry (common/) */
	struct page **pages;		/* [idx.n] local pages */
	u32 mapped;			/* pages whose mapping took */
	u32 map_errors;			/* frames Xen refused (freed meanwhile) */
	u64 map_ns;			/* time to list and map it all */
	u64 tot_pages;			/* the peer's pages when listed */
	unsigned long tried_at;		/* jiffies: made, or last refresh tried */
	struct xfab_wn __rcu *older;	/* the window it replaced, draining */
	unsigned long left_at;		/* dom0: jiffies when the peer left, or 0 */
	u32 group;			/* dom0: its group at the last check, 0 none */
};

/* Module-wide counters (debugfs "stats"). */
struct xfab_wn_stats {
	u64 windows_made, windows_dropped, frames_mapped, frames_unmapped;
	u64 map_calls, map_errors, drop_left, drop_dead, list_refused;
	u64 too_big;	/* peers not mapped: past max_mb or max_total_x */
	u64 windows_draining;	/* dropped, still held: not unmapped yet */
	u64 want_refused;	/* xfab_wn_want() of a peer we may not map */
	u64 leave_graces;	/* dom0: kept leave_ms after the peer left */
	u64 refreshes;		/* remade: the peer's memory grew or shrank */
	u64 refresh_failed;	/* that remake failed: the old one kept */
	u64 unmap_failed;	/* pages kept out of use: their PTE stayed */
	u64 unmap_waited;	/* unmaps that waited for page references */
	/* the longest such wait: a release in flight, or a real holder? */
	u64 unmap_wait_max_ms;
};

extern struct xfab_wn_stats xfab_wn_stats;
extern struct mutex xfab_wn_lock;	/* both lists, stats, each window */
extern struct list_head xfab_wn_list;		/* published */
extern struct list_head xfab_wn_draining;	/* dropped, still held */
extern unsigned int xfab_wn_max_mb;
extern unsigned int xfab_wn_max_total_x;
extern bool xfab_wn_in_dom0;	/* windows follow wants, not a record */

/* main.c */
u64 xfab_wn_frames_mapped(void);
void xfab_wn_resync(void);

/* api.c */
int xfab_wn_publish(struct xfab_wn *wn, struct xfab_wn *old);
void xfab_wn_retire(struct xfab_wn *wn);
bool xfab_wn_is_draining(u16 peer);
void xfab_wn_wait_drained(void);

/* map.c */
int xfab_wn_domctl(u16 domid, struct xfab_group_op *op);
int xfab_wn_peer_state(u16 peer, u32 *group, u64 *tot_pages);
struct xfab_wn *xfab_wn_map(u16 peer);
void xfab_wn_unmap(struct xfab_wn *wn);

/* debugfs.c */
void xfab_wn_debugfs_init(void);
void xfab_wn_debugfs_exit(void);

#endif /* XFAB_WINDOW_COMMON_H */
