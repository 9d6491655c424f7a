/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xfab_window: the contract between its files.
 *
 *   main.c     module parameters, the group watches (members, deaths),
 *              creating and dropping windows
 *   map.c      the group domctl, the peer's frame list, mapping and
 *              unmapping it read-only, batched
 *   debugfs.c  the view (windows, counters) and the testbed's probes
 *   bench.c    a window read against a grant copy of the same bytes
 *
 * A window holds one local page per frame of one peer (another member of
 * this domain's appliance group, xen-patches/): a page with a struct
 * page, taken from the balloon like a grant mapping's, whose kernel
 * address maps the peer's frame read-only. Its p2m entry is left
 * invalid (Linux exports no setter). No driver reads through a window
 * yet: the lookup pointer mode adds must hold what it returns (a
 * reference, or RCU) while a concurrent drop may unmap it.
 */
#ifndef XFAB_WINDOW_COMMON_H
#define XFAB_WINDOW_COMMON_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/mm_types.h>
#include <linux/debugfs.h>
#include "xfab_window.h"
#include "xfab_group.h"

struct xfab_wn {
	struct list_head list;
	u16 peer;			/* the peer's domain id */
	struct xfab_win idx;		/* frames both ways (common/) */
	struct page **pages;		/* [idx.n] local pages */
	u32 mapped;			/* pages whose mapping took */
	u32 map_errors;			/* frames Xen refused (freed meanwhile) */
	u64 map_ns;			/* time to list and map it all */
	struct dentry *dir;
	/* the testbed probes' last results (debugfs.c, bench.c) */
	char scan_token[32];
	u32 scan_found, scan_good;
	char bench_out[128];
};

/* Module-wide counters (debugfs "stats"). */
struct xfab_wn_stats {
	u64 windows_made, windows_dropped, frames_mapped, frames_unmapped;
	u64 map_calls, map_errors, drop_left, drop_dead, list_refused;
	u64 too_big;	/* peers not mapped: past max_mb or max_total_x */
};

extern struct xfab_wn_stats xfab_wn_stats;
extern struct mutex xfab_wn_lock;	/* the window list, and each window */
extern struct list_head xfab_wn_list;
extern unsigned int xfab_wn_max_mb;
extern unsigned int xfab_wn_max_total_x;

/* main.c */
u64 xfab_wn_frames_mapped(void);

/* map.c */
int xfab_wn_domctl(u16 domid, struct xfab_group_op *op);
int xfab_wn_peer_state(u16 peer);
struct xfab_wn *xfab_wn_map(u16 peer);
void xfab_wn_unmap(struct xfab_wn *wn);

/* bench.c */
ssize_t xfab_wn_offer_write(const char __user *ubuf, size_t len);
char *xfab_wn_offer_text(size_t *len);
void xfab_wn_offer_exit(void);
int xfab_wn_bench(struct xfab_wn *wn, char *text, char *out, size_t outlen);

/* debugfs.c */
void xfab_wn_debugfs_init(void);
void xfab_wn_debugfs_add(struct xfab_wn *wn);
void xfab_wn_debugfs_exit(void);

#endif /* XFAB_WINDOW_COMMON_H */
