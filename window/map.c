// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mapping a peer's memory read-only (common.h): its frame list from the
 * group domctl, local pages from the balloon, one mmu_update per batch
 * naming the peer as the pages' owner. Xen maps a frame only while both
 * domains are in one group and the entry is read-only
 * (xen-patches/0002); anything else it refuses, frame by frame.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <asm/pgtable.h>
#include <asm/xen/hypercall.h>
#include <asm/xen/page.h>
#include <xen/xen.h>
#include <xen/interface/xen.h>
#include "common.h"

/* mmu_update requests per hypercall: 8 KiB of them. */
#define MAP_BATCH 512

/* Domctl @cmd on @domid: @len bytes of payload @u go in and come back. */
static int domctl(u32 cmd, u16 domid, void *u, size_t len)
{
	struct xfab_domctl *dc = kmalloc(sizeof(*dc), GFP_KERNEL);
	int rc;

	if (!dc)
		return -ENOMEM;
	xfab_domctl_init(dc, cmd, domid);
	memcpy(&dc->u, u, len);
	rc = _hypercall1(int, domctl, dc);
	if (!rc)
		memcpy(u, &dc->u, len);
	kfree(dc);
	return rc;
}

int xfab_wn_domctl(u16 domid, struct xfab_group_op *op)
{
	return domctl(XFAB_DOMCTL_APPLIANCE_GROUP, domid, op, sizeof(*op));
}

/*
 * -EOPNOTSUPP if @peer is HVM or PVH: it has no machine frames to map;
 * -ESRCH while it dies (and once it is gone).
 */
static int peer_is_pv(u16 peer)
{
	struct xfab_dominfo info = { 0 };
	int rc = domctl(XFAB_DOMCTL_GETDOMAININFO, peer, &info, sizeof(info));

	if (!rc && (info.flags & XFAB_DOMINF_DYING))
		rc = -ESRCH;
	else if (!rc && (info.flags & XFAB_DOMINF_HVM))
		rc = -EOPNOTSUPP;
	return rc;
}

/*
 * dom0 is in no group, and Xen lets it list and map any domain (the
 * group patch leaves the control domain's rights as they were), so the
 * rule is ours: dom0 maps a domain only while it is in a group, and
 * only a PV one (Xen would read an HVM domain's frames as guest frames).
 */
static int dom0_peer_state(u16 peer, u32 *group)
{
	struct xfab_group_op op = { .op = XFAB_GROUP_QUERY };
	int rc = xfab_wn_domctl(peer, &op);

	if (rc)
		return rc;
	rc = peer_is_pv(peer);
	/*
	 * A dying domain is out of its group before it is gone: it is dying,
	 * not leaving (xfab_window keeps a leaving domain's window a while).
	 */
	if (rc == -ESRCH || op.group) {
		*group = rc ? 0 : op.group;
		return rc;
	}
	return -EPERM;
}

/*
 * May we (still) map @peer? 0 if so; -ESRCH once it is dying or gone,
 * -EPERM once it is out of our group (dom0: out of every group). In a
 * member, a frames call that scans nothing asks exactly that: Xen
 * answers it only between two live members of one group, with the
 * peer's page count. @group (may be NULL) gets the peer's group in
 * dom0, and 0 in a member or when the answer is not 0; @tot_pages (may
 * be NULL) the page count when the answer is 0.
 */
int xfab_wn_peer_state(u16 peer, u32 *group, u64 *tot_pages)
{
	struct xfab_group_op op = { .op = XFAB_GROUP_FRAMES,
				    .start = XFAB_GROUP_END };
	u32 g = 0;
	int rc = xfab_wn_domctl(peer, &op);

	if (!rc && xfab_wn_in_dom0)
		rc = dom0_peer_state(peer, &g);
	if (group)
		*group = g;
	if (tot_pages)
		*tot_pages = op.tot_pages;
	return rc;
}

/*
 * Would @frames more pass what all windows may map together? Says so.
 * @frames counts what the peer may gain while we scan: the bound holds
 * for what the window can end up with, not for what we saw.
 */
static bool over_total(u16 peer, u64 frames)
{
	u64 ram = totalram_pages(), now = xfab_wn_frames_mapped();
	u64 limit = ram * READ_ONCE(xfab_wn_max_total_x);

	if (now + frames <= limit)
		return false;
	pr_warn_ratelimited("xfab_window: d%u (%llu MiB) not mapped: windows would map %llu MiB, over max_total_x=%u times our %llu MiB\n",
		peer, frames >> (20 - PAGE_SHIFT),
		(now + frames) >> (20 - PAGE_SHIFT), xfab_wn_max_total_x,
		ram >> (20 - PAGE_SHIFT));
	return true;
}

/* The peer's frames, ascending, into wn->idx.peer (allocated here). */
static int list_frames(struct xfab_wn *wn)
{
	struct xfab_group_op op = { .op = XFAB_GROUP_QUERY };
	u64 cap, max = (u64)xfab_wn_max_mb << (20 - PAGE_SHIFT);
	u64 *buf;
	u32 n = 0, bad;
	int rc;

	rc = xfab_wn_domctl(wn->peer, &op);
	if (rc)
		return rc;
	wn->tot_pages = op.tot_pages;
	/* room for what it may gain while we scan */
	cap = op.tot_pages + XFAB_GROUP_MAX_FRAMES;
	if (op.tot_pages > max) {
		pr_warn_ratelimited("xfab_window: d%u has %llu MiB, over max_mb=%u: not mapped\n",
			wn->peer, op.tot_pages >> (20 - PAGE_SHIFT), xfab_wn_max_mb);
		return -EFBIG;
	}
	if (over_total(wn->peer, cap))
		return -EFBIG;
	buf = kmalloc_array(XFAB_GROUP_MAX_FRAMES, sizeof(*buf), GFP_KERNEL);
	wn->idx.peer = kvmalloc_array(cap, sizeof(u64), GFP_KERNEL);
	if (!buf || !wn->idx.peer) {
		rc = -ENOMEM;
		goto out;
	}
	op = (struct xfab_group_op){ .op = XFAB_GROUP_FRAMES };
	while (op.start != XFAB_GROUP_END) {
		op.nr = XFAB_GROUP_MAX_FRAMES;
		op.frames = (u64)(uintptr_t)buf;
		rc = xfab_wn_domctl(wn->peer, &op);
		if (rc)
			goto out;
		if (op.nr > XFAB_GROUP_MAX_FRAMES || n + op.nr > cap) {
			rc = -E2BIG;
			goto out;
		}
		memcpy(wn->idx.peer + n, buf, op.nr * sizeof(*buf));
		n += op.nr;
		cond_resched();
	}
	rc = xfab_win_check_frames(wn->idx.peer, n, &bad);
	if (rc)
		pr_warn("xfab_window: d%u's frame list is not ascending at %u\n",
			wn->peer, bad);
	wn->idx.n = n;
out:
	kfree(buf);
	return rc;
}

/* The machine address of the kernel PTE mapping @page. */
static int pte_maddr(struct page *page, u64 *maddr)
{
	unsigned int level;
	pte_t *ptep = lookup_address((unsigned long)page_address(page), &level);

	if (!ptep || level != PG_LEVEL_4K)
		return -EFAULT;
	*maddr = arbitrary_virt_to_machine(ptep).maddr;
	return 0;
}

/*
 * Map entries [first, first + n) read-only. Xen stops at the first frame
 * it refuses (the peer freed it since the scan): that entry is marked
 * with a NULL page (its local page goes back at once) and the batch goes
 * on after it.
 */
static int map_batch(struct xfab_wn *wn, u32 first, u32 n,
		     struct mmu_update *req)
{
	u32 i, at = 0;
	int rc, done;

	for (i = 0; i < n; i++) {
		rc = pte_maddr(wn->pages[first + i], &req[i].ptr);
		if (rc)
			return rc;
		req[i].ptr |= MMU_NORMAL_PT_UPDATE;
		req[i].val = pte_val_ma(mfn_pte(wn->idx.peer[first + i],
						PAGE_KERNEL_RO));
	}
	while (at < n) {
		done = 0;
		rc = HYPERVISOR_mmu_update(req + at, n - at, &done, wn->peer);
		xfab_wn_stats.map_calls++;
		wn->mapped += done;
		at += done;
		if (!rc)
			break;
		if (rc == -ESRCH || rc == -EPERM)
			return rc;	/* the peer died or left: stop */
		xen_free_unpopulated_pages(1, &wn->pages[first + at]);
		wn->pages[first + at] = NULL;
		wn->map_errors++;
		at++;
	}
	return 0;
}

/*
 * Entries whose frame was refused leave the window: it maps only pages.
 * Each page left is tagged with its entry (xfab_wn_frame_of()).
 */
static void compact(struct xfab_wn *wn)
{
	u32 i, k = 0;

	for (i = 0; i < wn->idx.n; i++) {
		if (!wn->pages[i])
			continue;
		wn->pages[k] = wn->pages[i];
		wn->idx.peer[k] = wn->idx.peer[i];
		set_page_private(wn->pages[k], xfab_win_tag(wn->peer, k));
		k++;
	}
	wn->idx.n = k;
}

static int map_all(struct xfab_wn *wn)
{
	struct mmu_update *req;
	u32 i, n;
	int rc = 0;

	req = kmalloc_array(MAP_BATCH, sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	for (i = 0; i < wn->idx.n && !rc; i += n) {
		n = min_t(u32, MAP_BATCH, wn->idx.n - i);
		rc = map_batch(wn, i, n, req);
		cond_resched();
	}
	kfree(req);
	return rc;
}

static void free_arrays(struct xfab_wn *wn)
{
	kvfree(wn->idx.peer);
	kvfree(wn->idx.slot);
	kvfree(wn->pages);
	kfree(wn);
}

/*
 * Clear a batch of PTEs (entries @idx of the window). Xen stops a batch
 * at the first update it refuses: that entry is skipped and the rest go
 * on. A page whose PTE could not be cleared still maps the peer's frame
 * (and holds a reference on it): it must never go back to the pool,
 * where its next user would read the peer, so it is dropped from the
 * window here and kept out of use for good (counted, logged).
 */
static void unmap_submit(struct xfab_wn *wn, struct mmu_update *req,
			 const u32 *idx, u32 n)
{
	u32 at = 0;
	int done;

	while (at < n) {
		done = 0;
		if (!HYPERVISOR_mmu_update(req + at, n - at, &done,
					   DOMID_SELF)) {
			xfab_wn_stats.frames_unmapped += n - at;
			return;
		}
		xfab_wn_stats.frames_unmapped += done;
		at += done;
		if (at >= n)
			return;
		pr_err("xfab_window: d%u: the PTE of entry %u stays: its page is kept out of use\n",
		       wn->peer, idx[at]);
		wn->pages[idx[at]] = NULL;
		xfab_wn_stats.unmap_failed++;
		at++;
	}
}

/* Point every entry's PTE at nothing again, then flush the TLBs. */
static void unmap_ptes(struct xfab_wn *wn)
{
	struct mmuext_op flush = { .cmd = MMUEXT_TLB_FLUSH_ALL };
	struct mmu_update *req = kmalloc_array(MAP_BATCH, sizeof(*req),
					       GFP_KERNEL | __GFP_NOFAIL);
	u32 *idx = kmalloc_array(MAP_BATCH, sizeof(*idx),
				 GFP_KERNEL | __GFP_NOFAIL);
	u32 i, n = 0;

	for (i = 0; i < wn->idx.n; i++) {
		if (!wn->pages[i] || pte_maddr(wn->pages[i], &req[n].ptr))
			continue;
		req[n].ptr |= MMU_NORMAL_PT_UPDATE;
		req[n].val = 0;
		idx[n++] = i;
		if (n == MAP_BATCH) {
			unmap_submit(wn, req, idx, n);
			n = 0;
		}
	}
	if (n)
		unmap_submit(wn, req, idx, n);
	HYPERVISOR_mmuext_op(&flush, 1, NULL, DOMID_SELF);
	kfree(idx);
	kfree(req);
}

/*
 * Drop a window: PTEs cleared, then the pages go back to the balloon.
 * Also the error path of xfab_wn_map(): entries not mapped yet have
 * clear PTEs already, which the unmap leaves as they are.
 */
void xfab_wn_unmap(struct xfab_wn *wn)
{
	u32 i;

	if (wn->pages) {
		unmap_ptes(wn);
		for (i = 0; i < wn->idx.n; i++) {
			if (!wn->pages[i])
				continue;
			set_page_private(wn->pages[i], 0);
			xen_free_unpopulated_pages(1, &wn->pages[i]);
		}
	}
	free_arrays(wn);
}

/*
 * A page's reference count while no user holds it: the drain (api.c)
 * waits until every page is back there before the unmap. The most any
 * page has right after the map, so that a pool handing out pages with
 * another count can only shorten that wait, never make it endless.
 */
static int ref_base(const struct xfab_wn *wn)
{
	int base = 1;
	u32 i;

	for (i = 0; i < wn->idx.n; i++)
		base = max(base, page_ref_count(wn->pages[i]));
	return base;
}

/* A window over all of @peer's memory, or an ERR_PTR. */
struct xfab_wn *xfab_wn_map(u16 peer)
{
	struct xfab_wn *wn = kzalloc(sizeof(*wn), GFP_KERNEL);
	u64 t0 = ktime_get_ns();
	int rc;

	if (!wn)
		return ERR_PTR(-ENOMEM);
	wn->peer = peer;
	rc = list_frames(wn);
	if (rc == -EFBIG) {
		xfab_wn_stats.too_big++;
		goto fail;
	}
	if (rc) {
		xfab_wn_stats.list_refused++;
		goto fail;
	}
	wn->pages = kvcalloc(wn->idx.n, sizeof(*wn->pages), GFP_KERNEL);
	/* sized for the frames listed; refused ones only leave it emptier */
	wn->idx.slots = xfab_win_slots(wn->idx.n);
	if (wn->idx.slots)
		wn->idx.slot = kvmalloc_array(wn->idx.slots, sizeof(u32),
					      GFP_KERNEL);
	rc = -ENOMEM;
	if (!wn->pages || !wn->idx.slot)
		goto fail;
	rc = xen_alloc_unpopulated_pages(wn->idx.n, wn->pages);
	if (rc) {
		kvfree(wn->pages);
		wn->pages = NULL;	/* nothing of ours to give back */
		goto fail;
	}
	rc = map_all(wn);
	compact(wn);
	wn->ref_base = ref_base(wn);
	if (!rc)
		rc = xfab_win_index(&wn->idx);
	if (rc)
		goto fail;
	wn->map_ns = ktime_get_ns() - t0;
	wn->tried_at = jiffies;
	xfab_wn_stats.frames_mapped += wn->mapped;
	xfab_wn_stats.map_errors += wn->map_errors;
	return wn;
fail:
	pr_info("xfab_window: no window over d%u: %d\n", peer, rc);
	xfab_wn_unmap(wn);
	return ERR_PTR(rc);
}
