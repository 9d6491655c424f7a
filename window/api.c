// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The datapath API (xfab_wn.h) and the window's life around it.
 *
 * Published windows sit in an xarray indexed by the peer's domain id,
 * which readers search under RCU without a lock. Each window carries a
 * percpu_ref: the publication holds one reference, every holder
 * another. Dropping a window (main.c) runs in this order:
 *
 *   retire  kill the ref: no new holder from here on, and the window
 *           moves to the draining list;
 *   drain   the last holder's put lands in release(), which queues
 *           the window for the free work (release may run in atomic
 *           context, the unmap sleeps);
 *   unmap   the free work takes the window out of the xarray, waits for
 *           a grace period (a page lookup may still be reading it) and
 *           for its pages' last references (below), and only then
 *           clears its PTEs and gives its pages back.
 *
 * A draining window stays in the xarray, so a page an skb or a bio
 * still holds is known as a window page until it is unmapped. That is
 * also why a peer gets no new window while its old one drains, with one
 * exception: a window remade because the peer's memory changed takes
 * the old one's place at once, and keeps it as its "older" while it
 * drains, so that the old pages are still known (xfab_wn_frame_of())
 * until they are unmapped. One older window at a time: main.c remakes
 * no window whose peer still has one draining.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/llist.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <linux/workqueue.h>
#include "common.h"

static DEFINE_XARRAY(windows);
static LLIST_HEAD(to_free);
static DECLARE_WAIT_QUEUE_HEAD(drained);
/* drained windows whose pages are still referenced (free work only) */
static LIST_HEAD(pinned);

/* How often the free work looks at a pinned window again. */
#define PINNED_RETRY_MS 20
/* A pinned window is worth a warning (once) after this long. */
#define PINNED_WARN_SECS 10

struct xfab_wn *xfab_wn_get(u16 peer)
{
	struct xfab_wn *wn;

	rcu_read_lock();
	wn = xa_load(&windows, peer);
	if (wn && !percpu_ref_tryget_live(&wn->ref))
		wn = NULL;
	rcu_read_unlock();
	return wn;
}
EXPORT_SYMBOL_GPL(xfab_wn_get);

void xfab_wn_put(struct xfab_wn *wn)
{
	percpu_ref_put(&wn->ref);
}
EXPORT_SYMBOL_GPL(xfab_wn_put);

u32 xfab_wn_group(const struct xfab_wn *wn)
{
	return READ_ONCE(wn->group);
}
EXPORT_SYMBOL_GPL(xfab_wn_group);

struct page *xfab_wn_page(struct xfab_wn *wn, u64 frame, u32 off, u32 len)
{
	u32 e;

	if (xfab_win_span(&wn->idx, frame, off, len, &e))
		return NULL;
	return wn->pages[e];
}
EXPORT_SYMBOL_GPL(xfab_wn_page);

static bool wn_holds(const struct xfab_wn *wn, u32 e, const struct page *page)
{
	return e < wn->idx.n && wn->pages[e] == page;
}

/*
 * The tag names a peer and an entry; the page is a window page only if
 * that entry of the peer's window, or of the older one it replaced,
 * holds this very page (any page's private word may carry the mark by
 * chance).
 */
int xfab_wn_frame_of(struct page *page, u16 *peer, u64 *frame)
{
	struct xfab_wn *wn;
	int rc = -ENOENT;
	u32 e;
	u16 p;

	if (xfab_win_untag(page_private(page), &p, &e))
		return -ENOENT;
	rcu_read_lock();
	wn = xa_load(&windows, p);
	if (wn && !wn_holds(wn, e, page))
		wn = rcu_dereference(wn->older);
	if (wn && wn_holds(wn, e, page)) {
		*peer = p;
		*frame = wn->idx.peer[e];
		rc = 0;
	}
	rcu_read_unlock();
	return rc;
}
EXPORT_SYMBOL_GPL(xfab_wn_frame_of);

/*
 * Pages of @wn something still references. A holder's put does not mean
 * its pages are let go: the kernel runs a zerocopy skb's completion
 * (whose packet's free puts the window) before it drops the skb's frag
 * references, maybe after a preemption. Unmapped meanwhile, a page would
 * go back to the pool and to its next user with a reference that is not
 * theirs.
 */
static u32 pages_in_use(const struct xfab_wn *wn)
{
	u32 i, n = 0;

	for (i = 0; i < wn->idx.n; i++)
		n += wn->pages[i] &&
		     page_ref_count(wn->pages[i]) > wn->ref_base;
	return n;
}

/* A drained window no page of which is referenced (xfab_wn_lock held). */
static void unmap_drained(struct xfab_wn *wn)
{
	list_del(&wn->list);
	xfab_wn_stats.windows_draining--;
	percpu_ref_exit(&wn->ref);
	xfab_wn_unmap(wn);
}

/*
 * Unmap the pinned windows no page of which is referenced any more
 * (xfab_wn_lock held).
 */
static void unmap_unpinned(void)
{
	struct xfab_wn *wn, *tmp;
	u32 busy;

	list_for_each_entry_safe(wn, tmp, &pinned, pin_link) {
		busy = pages_in_use(wn);
		if (busy) {
			if (time_after(jiffies, wn->drained_at +
				       PINNED_WARN_SECS * HZ))
				pr_warn_once("xfab_window: d%u: %u pages still referenced %u s after the window's last holder let go: not unmapped yet\n",
					     wn->peer, busy, PINNED_WARN_SECS);
			continue;
		}
		list_del(&wn->pin_link);
		xfab_wn_stats.unmap_wait_max_ms =
			max_t(u64, xfab_wn_stats.unmap_wait_max_ms,
			      jiffies_to_msecs(jiffies - wn->drained_at));
		unmap_drained(wn);
	}
}

static void free_drained(struct work_struct *work);
static DECLARE_DELAYED_WORK(free_work, free_drained);

static void free_drained(struct work_struct *work)
{
	struct llist_node *all = llist_del_all(&to_free);
	struct xfab_wn *wn, *tmp;
	bool left;

	/*
	 * Only this window: never one made over the same peer since. Its
	 * older one, if still draining, takes its place (its pages stay
	 * known until they are unmapped); one that replaced it forgets it
	 * instead. The work runs alone, and a window is freed only here, so
	 * the one found stays valid.
	 */
	llist_for_each_entry_safe(wn, tmp, all, free_node) {
		struct xfab_wn *cur = xa_cmpxchg(&windows, wn->peer, wn,
						 rcu_access_pointer(wn->older), 0);

		if (cur && cur != wn && rcu_access_pointer(cur->older) == wn)
			RCU_INIT_POINTER(cur->older, NULL);
	}
	/*
	 * Lookups that found a window before its erase are done after this;
	 * a retry for pinned windows alone erased nothing.
	 */
	if (all)
		synchronize_rcu();
	mutex_lock(&xfab_wn_lock);
	unmap_unpinned();
	/* each new one's pages looked at once: unmapped now, or pinned */
	llist_for_each_entry_safe(wn, tmp, all, free_node) {
		if (!pages_in_use(wn)) {
			unmap_drained(wn);
			continue;
		}
		wn->drained_at = jiffies;
		list_add_tail(&wn->pin_link, &pinned);
		xfab_wn_stats.unmap_waited++;
	}
	left = !list_empty(&pinned);
	mutex_unlock(&xfab_wn_lock);
	if (left)
		schedule_delayed_work(&free_work,
				      msecs_to_jiffies(PINNED_RETRY_MS));
	wake_up_all(&drained);
	xfab_wn_resync();
}

/* Any context: the last put may come from a completion in softirq. */
static void release(struct percpu_ref *ref)
{
	struct xfab_wn *wn = container_of(ref, struct xfab_wn, ref);

	llist_add(&wn->free_node, &to_free);
	mod_delayed_work(system_wq, &free_work, 0);
}

/*
 * Make @wn (just mapped) findable, in the place of @old (NULL, or the
 * published window over the same peer, which is retired: it drains as
 * @wn's older). xfab_wn_lock held.
 */
int xfab_wn_publish(struct xfab_wn *wn, struct xfab_wn *old)
{
	int rc = percpu_ref_init(&wn->ref, release, 0, GFP_KERNEL);

	if (rc)
		return rc;
	/* before the store: a lookup that finds @wn finds @old behind it */
	RCU_INIT_POINTER(wn->older, old);
	rc = xa_err(xa_store(&windows, wn->peer, wn, GFP_KERNEL));
	if (rc) {
		percpu_ref_exit(&wn->ref);
		return rc;
	}
	list_add_tail(&wn->list, &xfab_wn_list);
	if (old)
		xfab_wn_retire(old);
	return 0;
}

/* Refuse new holders; the last one's put unmaps it. xfab_wn_lock held. */
void xfab_wn_retire(struct xfab_wn *wn)
{
	list_move_tail(&wn->list, &xfab_wn_draining);
	xfab_wn_stats.windows_draining++;
	percpu_ref_kill(&wn->ref);
}

/* Is a window over @peer still draining? xfab_wn_lock held. */
bool xfab_wn_is_draining(u16 peer)
{
	struct xfab_wn *wn;

	list_for_each_entry(wn, &xfab_wn_draining, list)
		if (wn->peer == peer)
			return true;
	return false;
}

/*
 * Module exit, after every window was retired: wait for the holders.
 * A driver that still holds a window is a bug; its pages must stay
 * mapped, so this waits and says so rather than unmapping under it.
 */
void xfab_wn_wait_drained(void)
{
	while (!wait_event_timeout(drained, list_empty_careful(&xfab_wn_draining),
				   10 * HZ))
		pr_warn("xfab_window: unload waits for a window still held\n");
	flush_delayed_work(&free_work);
}
