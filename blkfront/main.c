// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_blkfront: Xen PV block frontend (domU side of the vbd device),
 * wire compatible with any blkif backend. Parameters and registration.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <xen/xen.h>
#include <xen/platform_pci.h>
#include "common.h"

/*
 * Rings per disk, each a blk-mq hardware queue with its own channel: the
 * guest's vCPUs, capped here and by the backend's multi-queue-max-queues.
 */
unsigned int xfab_bf_max_queues = 4;
module_param_named(max_queues, xfab_bf_max_queues, uint, 0444);
MODULE_PARM_DESC(max_queues, "Rings per disk at most (default 4, 1..16; also capped by vCPUs and the backend)");

/*
 * Ring pages, log2 (capped by the backend's max-ring-page-order). One
 * page holds 32 requests; more lets deep queues of small requests stay
 * on the ring, at the price of a bigger pool of granted pages.
 */
unsigned int xfab_bf_max_ring_order;
module_param_named(max_ring_page_order, xfab_bf_max_ring_order, uint, 0444);
MODULE_PARM_DESC(max_ring_page_order, "Ring pages at most, log2 (default 0, 0..4)");

/*
 * Segments per request when the backend takes indirect requests. 0 picks
 * by backend: 256 (1 MiB requests) with xfab_blkback, whose frontend
 * pool stays mapped whatever the request size; 32 (128 KiB, as Linux's
 * blkfront) with any other backend, which may keep only so many grants
 * mapped. Set it to force a size.
 */
unsigned int xfab_bf_max_indirect;
module_param_named(max_indirect_segments, xfab_bf_max_indirect, uint, 0444);
MODULE_PARM_DESC(max_indirect_segments, "Segments per indirect request at most (default 0: 256 with xfab_blkback, 32 otherwise; or 11..256)");

/*
 * Pages a ring's pool may grant (data and indirect pages, granted once
 * and reused). The default is blkback's default max_persistent_grants
 * (Linux's and ours): the backend keeps the whole pool mapped, so no
 * request costs it a grant hypercall. That is a full ring of 128 KiB
 * requests, or four 1 MiB ones in flight; when the pool is out, requests
 * wait for answers (the busy counter).
 */
unsigned int xfab_bf_pool_pages = 1056;
module_param_named(pool_pages, xfab_bf_pool_pages, uint, 0444);
MODULE_PARM_DESC(pool_pages, "Granted pool pages per ring at most (default 1056, 257..65536)");

/*
 * Pages written from, granted read-only and kept per ring when the
 * toolstack put the disk in relaxed trust (xfab-trust in our directory)
 * and the backend is xfab_blkback: write data is then read in place, with
 * no copy and, once granted and mapped, no grant hypercall. Each kept
 * grant holds its page (a reference) and a grant table entry, so this
 * bounds both; the backend's xfab-ro-grants-max caps it too.
 */
unsigned int xfab_bf_ro_grants = 2048;
module_param_named(ro_grants, xfab_bf_ro_grants, uint, 0444);
MODULE_PARM_DESC(ro_grants, "Read-only grants kept per ring in relaxed trust (default 2048, 0: always copy, at most 65536)");

/*
 * A kept grant unused this long may be replaced by a new page when all
 * are taken (until then new pages are copied through the pool): longer
 * than the backend's ro_idle_ms, so the backend has normally unmapped it
 * and the grant ends at once.
 */
unsigned int xfab_bf_ro_idle_ms = 5000;
module_param_named(ro_idle_ms, xfab_bf_ro_idle_ms, uint, 0644);
MODULE_PARM_DESC(ro_idle_ms, "Replace kept read-only grants idle this long, ms (default 5000)");

/*
 * A read (or a copied write) bigger than this that finds its ring idle
 * goes out as up to 8 ring requests of about this size, so copying
 * one part between our pages and the pool overlaps the backend's work on
 * the next: one request at a time (O_DIRECT, a database's log) then
 * waits for one part's copy instead of the whole request's. With other
 * requests in flight there is overlap already and requests stay whole.
 * Off (0) by default: on the nested testbed, where both domains share
 * two busy host cores, the overlap gained nothing and the extra parts
 * cost interrupts (IOZone write 145 vs 168 MiB/s, docs/blk.md); with
 * idle cores on either side it may pay.
 */
unsigned int xfab_bf_split_kb;
module_param_named(split_kb, xfab_bf_split_kb, uint, 0444);
MODULE_PARM_DESC(split_kb, "Send a lone read or copied write above this many KiB in parts of about this size (default 0: never; or 16..1024)");

/* Honour the toolstack's xfab-trust=relaxed (off: this guest always copies). */
bool xfab_bf_allow_relaxed = true;
module_param_named(allow_relaxed, xfab_bf_allow_relaxed, bool, 0444);
MODULE_PARM_DESC(allow_relaxed, "Let the toolstack's xfab-trust=relaxed expose written pages to the backend (default on)");

static int __init xfab_bf_init(void)
{
	int err;

	/* HVM guests whose emulated disks were not unplugged keep those */
	if (!xen_domain() || !xen_has_pv_disk_devices())
		return -ENODEV;
	if (!xfab_bf_max_queues || xfab_bf_max_queues > 16 ||
	    xfab_bf_max_ring_order > XFAB_RING_MAX_ORDER ||
	    (xfab_bf_max_indirect &&
	     xfab_bf_max_indirect < BLKIF_MAX_SEGMENTS_PER_REQUEST) ||
	    xfab_bf_max_indirect > XFAB_BF_MAX_SEGS) {
		pr_err("xfab_blkfront: max_queues 1..16, max_ring_page_order 0..%u, max_indirect_segments 0 or %u..%u\n",
		       XFAB_RING_MAX_ORDER, BLKIF_MAX_SEGMENTS_PER_REQUEST,
		       XFAB_BF_MAX_SEGS);
		return -EINVAL;
	}
	if (xfab_bf_pool_pages < XFAB_BF_MAX_SEGS + XFAB_BF_MAX_IND_PAGES ||
	    xfab_bf_pool_pages > XFAB_BF_POOL_LIMIT) {
		pr_err("xfab_blkfront: pool_pages=%u: %u (one largest request)..%u\n",
		       xfab_bf_pool_pages,
		       XFAB_BF_MAX_SEGS + XFAB_BF_MAX_IND_PAGES,
		       XFAB_BF_POOL_LIMIT);
		return -EINVAL;
	}
	if (xfab_bf_ro_grants > XFAB_BF_RO_LIMIT) {
		pr_err("xfab_blkfront: ro_grants=%u: at most %u\n",
		       xfab_bf_ro_grants, XFAB_BF_RO_LIMIT);
		return -EINVAL;
	}
	if (xfab_bf_split_kb && (xfab_bf_split_kb < 16 ||
				 xfab_bf_split_kb > 1024)) {
		pr_err("xfab_blkfront: split_kb=%u: 0 (never) or 16..1024\n",
		       xfab_bf_split_kb);
		return -EINVAL;
	}
	err = xfab_bf_stats_init();
	if (err) {
		pr_err("xfab_blkfront: counter table too small (%d)\n", err);
		return err;
	}
	return xfab_bf_xenbus_register();
}

static void __exit xfab_bf_exit(void)
{
	xfab_bf_xenbus_unregister();
}

module_init(xfab_bf_init);
module_exit(xfab_bf_exit);
MODULE_DESCRIPTION("xfab Xen PV block frontend (blkif compatible)");
MODULE_LICENSE("Dual MIT/GPL");
/*
 * No "xen:vbd" alias: loaded explicitly, never raced against xen-blkfront
 * by udev (docs/blk.md).
 */
