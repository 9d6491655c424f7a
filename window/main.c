// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_window: read-only windows over the memory of the other members of
 * this domain's appliance group (xen-patches/, docs/toolstack.md), or,
 * in dom0, over the members a driver asks for (xfab_wn_want()).
 *
 * The toolstack keeps the group's members in our xenstore record
 * (xfab/members, written by the control domain only). A watch on it,
 * and one on domain deaths, schedule a sync: each member gets a window
 * over all its memory, and a window whose peer died or left the group
 * is dropped (a PV mapping holds the peer's pages until we let go, so a
 * dead peer's memory goes back to Xen only then). A dropped window is
 * unmapped once its last holder lets go (api.c). Xenstored may keep
 * @releaseDomain from an unprivileged domain, so while windows exist a
 * sync also comes every check_ms. Mapping a peer takes seconds, so
 * syncs run in a work item, not in xenwatch.
 *
 * dom0 is never a member (xen-patches/README.md) and may map any domain
 * already. Its windows follow the drivers' wants instead of a record: a
 * wanted domain is mapped while it is a live PV member of some group
 * (the groups' records, /xfab/groups, are watched), so pointer mode
 * reaches group members only, as in a member.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <xen/xen.h>
#include <xen/xenbus.h>
#include <xen/interface/xen.h>
#include "common.h"

unsigned int xfab_wn_max_mb = 4096;
/*
 * A window costs its mapper a struct page per peer page (about 1.6 % of
 * the peer's size) and, unless the balloon may hotplug unpopulated
 * memory (/proc/sys/xen/balloon/hotplug_unpopulated), the same amount
 * of its own RAM. This bounds what one peer can cost.
 */
module_param_named(max_mb, xfab_wn_max_mb, uint, 0644);
MODULE_PARM_DESC(max_mb, "Largest peer (MiB) a window maps whole; a larger one is not mapped (default 4096)");

unsigned int xfab_wn_max_total_x = 8;
/*
 * max_mb bounds one peer; up to 64 peers could still cost a small
 * domain more than it has. All windows together map at most this many
 * times our own RAM: at 8, their struct pages and index take about 17 %
 * of it, and a peer that would pass the bound is not mapped.
 */
module_param_named(max_total_x, xfab_wn_max_total_x, uint, 0644);
MODULE_PARM_DESC(max_total_x, "All windows together map at most this many times this domain's RAM; a peer past it is not mapped (default 8)");

static unsigned int leave_ms = 2000;
/*
 * dom0: a wanted peer that leaves its group keeps its window this long.
 * The driver that wanted it still finds, on its ring, what the peer named
 * by frame before it saw itself leave (a guest switches within
 * milliseconds, its backend may take longer to get there): those slots
 * are read, not dropped. Only the ring's own peer names its frames, so
 * the grace reads nothing of anyone else. A member's windows follow the
 * group's record at once.
 */
module_param(leave_ms, uint, 0644);
MODULE_PARM_DESC(leave_ms, "dom0: keep a wanted peer's window this many ms after it left its group, for what it sent before (default 2000, 0: drop at once)");

static bool auto_map = true;
/* Off: members are listed in debugfs but nothing is mapped. */
module_param(auto_map, bool, 0644);
MODULE_PARM_DESC(auto_map, "Map every member of this domain's appliance group (default on)");

static unsigned int refresh_ms = 5000;
/*
 * A window maps the frames its peer held when it was made. When the
 * peer's memory grows (balloon), the frames it gains are in no window:
 * what it sends from them by pointer is dropped, and what it sends by
 * reference cannot be read. So a window whose peer's page count changed
 * is remade, at most once per refresh_ms (a remake costs seconds of
 * mapping, and a balloon moves in steps). A shrink does not show: Xen
 * frees a page the peer gave back only when our mapping of it goes, so
 * the count stays; the frames stay held until the next remake (which
 * lists only the peer's own) or the window's end.
 */
module_param(refresh_ms, uint, 0644);
MODULE_PARM_DESC(refresh_ms, "Remake a window whose peer's memory grew or shrank, at most once per this many ms (default 5000, 0: never)");

static unsigned int check_ms = 2000;
/*
 * How long a dead peer's memory can stay held (and a departed one stay
 * mapped) when no watch event says so: one cheap domctl per window.
 */
module_param(check_ms, uint, 0644);
MODULE_PARM_DESC(check_ms, "While windows exist, check their peers every this many ms (default 2000, min 100)");

struct xfab_wn_stats xfab_wn_stats;
DEFINE_MUTEX(xfab_wn_lock);
LIST_HEAD(xfab_wn_list);
LIST_HEAD(xfab_wn_draining);
bool xfab_wn_in_dom0;
static u16 self_id;
static bool stopping;	/* unloading: make no window */

#define MAX_MEMBERS 64

/* dom0: the domains drivers asked for, each with its count of askers. */
static struct {
	u16 peer, count;
} wants[MAX_MEMBERS];
static unsigned int n_wants;

static bool in_list(const u16 *ids, unsigned int n, u16 id)
{
	while (n--)
		if (ids[n] == id)
			return true;
	return false;
}

/* Our group's members, from our record ("3 5 9"); none if not in one. */
static unsigned int read_members(u16 *ids, unsigned int max)
{
	char *s = xenbus_read(XBT_NIL, "xfab", "members", NULL);
	unsigned int n = 0, v;
	char *p, *tok;

	if (IS_ERR(s))
		return 0;
	for (p = s; (tok = strsep(&p, " ")) && n < max;)
		if (*tok && !kstrtouint(tok, 10, &v) && v < DOMID_FIRST_RESERVED)
			ids[n++] = (u16)v;
	kfree(s);
	return n;
}

/* dom0's wanted domains, as the list of peers to map. */
static unsigned int read_wants(u16 *ids)
{
	unsigned int i;

	for (i = 0; i < n_wants; i++)
		ids[i] = wants[i].peer;
	return n_wants;
}

static const char *why_text(int why)
{
	switch (why) {
	case -ESRCH:
		return "it died";
	case -EOPNOTSUPP:
		return "not PV";
	case 0:
		return "no longer wanted";
	default:
		return xfab_wn_in_dom0 ? "in no group" : "not in our group";
	}
}

static void drop(struct xfab_wn *wn, int why)
{
	pr_info("xfab_window: window over d%u dropped (%s)\n", wn->peer,
		why_text(why));
	if (why == -ESRCH)
		xfab_wn_stats.drop_dead++;
	else
		xfab_wn_stats.drop_left++;
	xfab_wn_stats.windows_dropped++;
	xfab_wn_retire(wn);
}

/* Frames all windows map now, draining ones too (xfab_wn_lock held). */
u64 xfab_wn_frames_mapped(void)
{
	struct xfab_wn *wn;
	u64 n = 0;

	list_for_each_entry(wn, &xfab_wn_list, list)
		n += wn->idx.n;
	list_for_each_entry(wn, &xfab_wn_draining, list)
		n += wn->idx.n;
	return n;
}

static void add(u16 peer, u32 group)
{
	struct xfab_wn *wn = xfab_wn_map(peer);
	int rc;

	if (IS_ERR(wn))
		return;
	wn->group = group;
	rc = xfab_wn_publish(wn, NULL);
	if (rc) {
		pr_warn("xfab_window: window over d%u not published: %d\n", peer, rc);
		xfab_wn_unmap(wn);
		return;
	}
	xfab_wn_stats.windows_made++;
	pr_info("xfab_window: d%u mapped: %u frames (%u refused) in %llu ms\n",
		peer, wn->mapped, wn->map_errors, wn->map_ns / NSEC_PER_MSEC);
}

/*
 * @wn's peer (still a member) holds @tot pages: if that is another
 * number than when @wn was made, map it again and put the new window in
 * @wn's place; @wn drains behind it, so what was sent from its pages is
 * still read. Once per refresh_ms, failed tries included; not while an
 * older window over the peer drains. xfab_wn_lock held (as add()).
 */
static void refresh(struct xfab_wn *wn, u64 tot)
{
	unsigned long ms = READ_ONCE(refresh_ms);
	struct xfab_wn *nw;

	if (!ms || tot == wn->tot_pages ||
	    time_before(jiffies, wn->tried_at + msecs_to_jiffies(ms)) ||
	    xfab_wn_is_draining(wn->peer))
		return;
	wn->tried_at = jiffies;
	nw = xfab_wn_map(wn->peer);
	if (!IS_ERR(nw)) {
		nw->group = wn->group;
		if (!xfab_wn_publish(nw, wn)) {
			xfab_wn_stats.refreshes++;
			pr_info("xfab_window: d%u's memory changed (%llu -> %llu pages): window remade, %u frames in %llu ms\n",
				nw->peer, wn->tot_pages, nw->tot_pages,
				nw->mapped, nw->map_ns / NSEC_PER_MSEC);
			return;
		}
		xfab_wn_unmap(nw);
	}
	xfab_wn_stats.refresh_failed++;
	pr_warn_ratelimited("xfab_window: d%u's memory changed (%llu -> %llu pages), but its window could not be remade: the old one stays\n",
		wn->peer, wn->tot_pages, tot);
}

static void sync_windows(struct work_struct *work);
static DECLARE_DELAYED_WORK(sync_work, sync_windows);

/*
 * dom0, a window whose peer left every group (alive, still wanted): how
 * many jiffies it may stay (leave_ms from when a sync first saw it go),
 * 0 once it must be dropped. xfab_wn_lock held.
 */
static unsigned long leave_grace(struct xfab_wn *wn)
{
	unsigned long until;

	if (!xfab_wn_in_dom0 || !READ_ONCE(leave_ms))
		return 0;
	if (!wn->left_at) {
		wn->left_at = jiffies | 1;	/* 0 means "not leaving" */
		xfab_wn_stats.leave_graces++;
		pr_info("xfab_window: d%u left its group: window kept %u ms for what it sent before\n",
			wn->peer, leave_ms);
	}
	until = wn->left_at + msecs_to_jiffies(leave_ms);
	return time_before(jiffies, until) ? until - jiffies : 0;
}

static void sync_windows(struct work_struct *work)
{
	unsigned long next = msecs_to_jiffies(max(check_ms, 100U)), grace;
	u16 ids[MAX_MEMBERS];
	unsigned int n, i;
	struct xfab_wn *wn, *tmp;
	u32 group;
	u64 tot;
	int st;

	mutex_lock(&xfab_wn_lock);
	if (stopping) {
		mutex_unlock(&xfab_wn_lock);
		return;
	}
	n = xfab_wn_in_dom0 ? read_wants(ids) : read_members(ids, MAX_MEMBERS);
	list_for_each_entry_safe(wn, tmp, &xfab_wn_list, list) {
		/* not listed: a member's record left it out, or nobody wants it */
		if (!in_list(ids, n, wn->peer)) {
			drop(wn, xfab_wn_in_dom0 ? 0 : -EPERM);
			continue;
		}
		st = xfab_wn_peer_state(wn->peer, &group, &tot);
		WRITE_ONCE(wn->group, group);
		if (!st) {
			wn->left_at = 0;	/* back in a group in time */
			refresh(wn, tot);
			continue;
		}
		grace = st == -EPERM ? leave_grace(wn) : 0;
		if (grace) {
			next = min(next, grace);
			continue;
		}
		drop(wn, st);
	}
	for (i = 0; auto_map && i < n; i++) {
		/* one window per peer: a draining one's end brings a resync */
		bool have = ids[i] == self_id || xfab_wn_is_draining(ids[i]);

		list_for_each_entry(wn, &xfab_wn_list, list)
			have |= wn->peer == ids[i];
		/* a member the record still names after its death: skip it */
		if (!have && !xfab_wn_peer_state(ids[i], &group, NULL))
			add(ids[i], group);
	}
	if (!list_empty(&xfab_wn_list))
		schedule_delayed_work(&sync_work, next);
	mutex_unlock(&xfab_wn_lock);
}

static int want_add(u16 peer)
{
	unsigned int i;

	for (i = 0; i < n_wants; i++) {
		if (wants[i].peer == peer) {
			wants[i].count++;
			return 0;
		}
	}
	if (n_wants == MAX_MEMBERS)
		return -ENOSPC;
	wants[n_wants].peer = peer;
	wants[n_wants++].count = 1;
	return 0;
}

/*
 * A driver asks for a window over @peer (dom0: until it calls unwant).
 * 0 if @peer may be mapped now: the window follows within seconds, and
 * xfab_wn_get() returns it once made. In a member the group decides
 * alone, so this only checks.
 */
int xfab_wn_want(u16 peer)
{
	int rc;

	mutex_lock(&xfab_wn_lock);
	rc = stopping ? -ENODEV : xfab_wn_peer_state(peer, NULL, NULL);
	if (!rc && xfab_wn_in_dom0)
		rc = want_add(peer);
	if (rc)
		xfab_wn_stats.want_refused++;
	mutex_unlock(&xfab_wn_lock);
	if (!rc)
		xfab_wn_resync();
	return rc;
}
EXPORT_SYMBOL_GPL(xfab_wn_want);

/* The end of one xfab_wn_want() that returned 0. */
void xfab_wn_unwant(u16 peer)
{
	unsigned int i;

	mutex_lock(&xfab_wn_lock);
	for (i = 0; i < n_wants; i++) {
		if (wants[i].peer != peer)
			continue;
		if (!--wants[i].count)
			wants[i] = wants[--n_wants];
		break;
	}
	mutex_unlock(&xfab_wn_lock);
	xfab_wn_resync();
}
EXPORT_SYMBOL_GPL(xfab_wn_unwant);

void xfab_wn_resync(void)
{
	mod_delayed_work(system_wq, &sync_work, 0);
}

static void watch_fired(struct xenbus_watch *w, const char *path,
			const char *token)
{
	xfab_wn_resync();
}

static struct xenbus_watch members_watch = {
	.node = "xfab/members", .callback = watch_fired,
};
static struct xenbus_watch death_watch = {
	.node = "@releaseDomain", .callback = watch_fired,
};
/* dom0: every group's record (written by xfabctl) */
static struct xenbus_watch groups_watch = {
	.node = "/xfab/groups", .callback = watch_fired,
};
static bool death_watched;	/* xenstored may refuse it to a domU */
static struct xenbus_watch *record_watch = &members_watch;

static int __init read_self_id(void)
{
	char *s = xenbus_read(XBT_NIL, "domid", "", NULL);
	unsigned int v;
	int rc = -ENODEV;

	if (IS_ERR(s)) {
		pr_err("xfab_window: cannot read our domain id from xenstore\n");
		return rc;
	}
	if (!kstrtouint(s, 10, &v) && v < DOMID_FIRST_RESERVED) {
		self_id = (u16)v;
		rc = 0;
	} else {
		pr_err("xfab_window: our domain id in xenstore is not one: '%s'\n", s);
	}
	kfree(s);
	return rc;
}

static int __init xfab_window_init(void)
{
	int rc;

	if (!xen_pv_domain()) {
		pr_err("xfab_window: PV domains only (HVM and PVH members cannot map read-only, xen-patches/README.md)\n");
		return -ENODEV;
	}
	xfab_wn_in_dom0 = xen_initial_domain();
	if (xfab_wn_in_dom0)
		record_watch = &groups_watch;
	else if (read_self_id())
		return -ENODEV;
	xfab_wn_debugfs_init();
	rc = register_xenbus_watch(record_watch);
	if (rc) {
		xfab_wn_debugfs_exit();
		return rc;
	}
	death_watched = !register_xenbus_watch(&death_watch);
	if (!death_watched)
		pr_info("xfab_window: no @releaseDomain watch: a dead peer is noticed within check_ms\n");
	xfab_wn_resync();
	return 0;
}

static void __exit xfab_window_exit(void)
{
	struct xfab_wn *wn, *tmp;

	if (death_watched)
		unregister_xenbus_watch(&death_watch);
	unregister_xenbus_watch(record_watch);
	mutex_lock(&xfab_wn_lock);
	stopping = true;
	mutex_unlock(&xfab_wn_lock);
	cancel_delayed_work_sync(&sync_work);
	mutex_lock(&xfab_wn_lock);
	list_for_each_entry_safe(wn, tmp, &xfab_wn_list, list)
		xfab_wn_retire(wn);
	mutex_unlock(&xfab_wn_lock);
	xfab_wn_wait_drained();
	/* the last free work asked for a sync, which finds us stopping */
	cancel_delayed_work_sync(&sync_work);
	xfab_wn_debugfs_exit();
}

module_init(xfab_window_init);
module_exit(xfab_window_exit);
MODULE_DESCRIPTION("xfab: read-only windows over appliance-group members' memory");
MODULE_LICENSE("Dual MIT/GPL");
