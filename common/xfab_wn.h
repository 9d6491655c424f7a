/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xfab_window's datapath API: what a driver (and the testbed's probe
 * module) may call. A window maps all of one peer's memory read-only;
 * a peer names its pages by machine frame, and these calls go from such
 * a frame to the local page that maps it, and back.
 *
 * A window can be dropped at any moment (the peer left the group or
 * died), so a caller holds it: xfab_wn_get() takes a reference without
 * a lock, and the window's pages stay mapped until the last reference
 * is put. A dropped window refuses new references at once; it is
 * unmapped when the last holder lets go (docs/window.md, "Lookups").
 * All calls but want and unwant take no lock and may run in any context
 * (softirq, an skb's completion).
 */
#ifndef XFAB_WN_H
#define XFAB_WN_H

#include <linux/types.h>
#include <linux/module.h>
#include <linux/string.h>

struct page;
struct xfab_wn;

/*
 * Ask for a window over @peer, and end the asking. In dom0 (in no group)
 * windows exist only for domains some driver wants, and only while they
 * are live PV members of a group; in a member, the group's record alone
 * decides. 0 if @peer may be mapped now (the window follows within
 * seconds); -EPERM (not a member, or not of our group), -ESRCH (dying),
 * -EOPNOTSUPP (not PV), -ENOSPC (too many wanted). Call unwant once for
 * each want that returned 0. Both may sleep (a mutex, hypercalls).
 */
int xfab_wn_want(u16 peer);
void xfab_wn_unwant(u16 peer);

/* The window over @peer with a reference, or NULL (none, or dropped). */
struct xfab_wn *xfab_wn_get(u16 peer);

/* Drop a reference xfab_wn_get() gave. */
void xfab_wn_put(struct xfab_wn *wn);

/*
 * dom0: the appliance group the peer was in at the window's last check
 * (within xfab_window's check_ms, sooner when a group record changes);
 * 0 while it leaves, and always in a member. Two peers whose windows
 * name the same group may read each other (pointer mode on RX).
 */
u32 xfab_wn_group(const struct xfab_wn *wn);

/*
 * The page mapping peer frame @frame, if @len bytes at @off lie inside
 * it; NULL otherwise (not mapped, or the span leaves the page). Valid
 * while the caller holds @wn.
 */
struct page *xfab_wn_page(struct xfab_wn *wn, u64 frame, u32 off, u32 len);

/*
 * Is @page a window page, and which peer frame does it map? 0 with
 * *peer and *frame set, or -ENOENT. Constant time, no lock; meaningful
 * while the caller keeps the page (and so its window) alive.
 */
int xfab_wn_frame_of(struct page *page, u16 *peer, u64 *frame);

/*
 * The API as a driver reaches it: through symbol_get(), so that the
 * driver loads without xfab_window and holds its symbols while it may
 * call them. All of them or none.
 */
struct xfab_wnops {
	typeof(&xfab_wn_want) want;
	typeof(&xfab_wn_unwant) unwant;
	typeof(&xfab_wn_get) get;
	typeof(&xfab_wn_put) put;
	typeof(&xfab_wn_page) page;
	typeof(&xfab_wn_frame_of) frame_of;
	typeof(&xfab_wn_group) group;
};

static inline void xfab_wnops_put(struct xfab_wnops *o)
{
	if (o->want)
		symbol_put(xfab_wn_want);
	if (o->unwant)
		symbol_put(xfab_wn_unwant);
	if (o->get)
		symbol_put(xfab_wn_get);
	if (o->put)
		symbol_put(xfab_wn_put);
	if (o->page)
		symbol_put(xfab_wn_page);
	if (o->frame_of)
		symbol_put(xfab_wn_frame_of);
	if (o->group)
		symbol_put(xfab_wn_group);
	memset(o, 0, sizeof(*o));
}

/* False (and nothing held) when xfab_window is not loaded. */
static inline bool xfab_wnops_get(struct xfab_wnops *o)
{
	o->want = symbol_get(xfab_wn_want);
	o->unwant = symbol_get(xfab_wn_unwant);
	o->get = symbol_get(xfab_wn_get);
	o->put = symbol_get(xfab_wn_put);
	o->page = symbol_get(xfab_wn_page);
	o->frame_of = symbol_get(xfab_wn_frame_of);
	o->group = symbol_get(xfab_wn_group);
	if (o->want && o->unwant && o->get && o->put && o->page &&
	    o->frame_of && o->group)
		return true;
	xfab_wnops_put(o);
	return false;
}

#endif /* XFAB_WN_H */
