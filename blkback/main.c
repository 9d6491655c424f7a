// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_blkback: Xen PV block backend (dom0 side of the vbd device), wire
 * compatible with any blkif frontend. Module parameters and registration.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/workqueue.h>
#include <xen/xen.h>
#include "common.h"

struct workqueue_struct *xfab_bb_drain_wq;

/*
 * Rings offered per disk (multi-queue-max-queues). The frontend picks up
 * to this many, normally one per vCPU; each ring has its own thread, so
 * more than dom0's vCPUs only adds contention.
 */
unsigned int xfab_bb_max_queues;
module_param_named(max_queues, xfab_bb_max_queues, uint, 0444);
MODULE_PARM_DESC(max_queues, "Rings offered per disk (default: online CPUs, 1..16)");

/*
 * Pages per ring, as a power of two (max-ring-page-order). Order 4 gives
 * 512 requests in flight per ring, enough for iodepth 32 with large
 * requests split; each ring slot costs about 8 KiB of dom0 memory.
 */
unsigned int xfab_bb_max_ring_order = XFAB_RING_MAX_ORDER;
module_param_named(max_ring_page_order, xfab_bb_max_ring_order, uint, 0444);
MODULE_PARM_DESC(max_ring_page_order, "Largest ring a frontend may use, log2 pages (default 4, 0..4)");

/*
 * Segments per indirect request (feature-max-indirect-segments): 256 lets
 * one request carry 1 MiB. 0 offers no indirect requests (11 segments,
 * 44 KiB per request).
 */
unsigned int xfab_bb_max_indirect = XFAB_BLK_MAX_INDIRECT_SEGS;
module_param_named(max_indirect_segments, xfab_bb_max_indirect, uint, 0444);
MODULE_PARM_DESC(max_indirect_segments, "Segments per indirect request offered (default 256, 0 or 11..256)");

/*
 * Grants a ring keeps mapped (feature-persistent). Linux's blkfront reuses
 * a pool of about ring slots x segments grants; once this many are kept,
 * further pages are mapped per request.
 */
unsigned int xfab_bb_max_pgrants = 1056;
module_param_named(max_persistent_grants, xfab_bb_max_pgrants, uint, 0644);
MODULE_PARM_DESC(max_persistent_grants, "Grants kept mapped per ring (default 1056)");

/* Offer feature-persistent at all (off: map and unmap per request). */
bool xfab_bb_persistent = true;
module_param_named(feature_persistent, xfab_bb_persistent, bool, 0444);
MODULE_PARM_DESC(feature_persistent, "Offer persistent grants (default on)");

/*
 * How often a connected disk's size is compared with what the frontend
 * was told: nothing tells a driver that a block device grew (losetup -c,
 * lvextend), so we look. A change is written to "sectors" with the state
 * again, which a blkif frontend takes as a resize. 0: never.
 */
unsigned int xfab_bb_resize_ms = 1000;
module_param_named(resize_check_ms, xfab_bb_resize_ms, uint, 0644);
MODULE_PARM_DESC(resize_check_ms, "Look for a new disk size this often, ms (default 1000, 0: never)");

/* Offer discard where the disk supports it (off: never). */
bool xfab_bb_discard = true;
module_param_named(discard, xfab_bb_discard, bool, 0444);
MODULE_PARM_DESC(discard, "Offer discard on disks that support it (default on)");

/*
 * Read-only mappings kept per ring for an xfab frontend in relaxed trust
 * (xfab-ro-grants-max): write data is read in place from the guest's
 * own pages, each mapped once and kept, least recently used out first.
 * Bounds the dom0 address space and the grants a guest can make us hold;
 * 0 offers none (every frontend then copies through its pool).
 */
unsigned int xfab_bb_ro_max = 4096;
module_param_named(ro_grants, xfab_bb_ro_max, uint, 0444);
MODULE_PARM_DESC(ro_grants, "Read-only mappings kept per ring for xfab frontends in relaxed trust (default 4096, 0: none, at most 65536)");

/*
 * The kept read-only mappings above are the frontend's to ask for (it
 * only announces relaxed trust), and each holds a maptrack entry of
 * dom0's: bounded per disk, whatever its number of rings, and over the
 * whole backend domain. Past a bound, a write is mapped for its request
 * only, as with any other frontend.
 */
unsigned int xfab_bb_ro_dev_max = 8192;
module_param_named(ro_grants_per_disk, xfab_bb_ro_dev_max, uint, 0644);
MODULE_PARM_DESC(ro_grants_per_disk, "Read-only mappings kept per disk over its rings (default 8192)");

unsigned int xfab_bb_ro_total_max = 32768;
module_param_named(ro_grants_total, xfab_bb_ro_total_max, uint, 0644);
MODULE_PARM_DESC(ro_grants_total, "Read-only mappings kept over all disks of this backend (default 32768)");

/*
 * A read-only mapping unused this long is unmapped, so the frontend can
 * take back grants it evicted (it cannot while we map them).
 */
unsigned int xfab_bb_ro_idle_ms = 2000;
module_param_named(ro_idle_ms, xfab_bb_ro_idle_ms, uint, 0644);
MODULE_PARM_DESC(ro_idle_ms, "Unmap read-only mappings idle this long, ms (default 2000)");

/*
 * In-ring polling for xfab frontends: after a batch, a ring's thread
 * keeps looking for requests up to this long before it re-arms the
 * event index (the frontend does not kick meanwhile). The budget halves
 * after each empty look, so an idle guest costs little. 0: off.
 */
unsigned int xfab_bb_poll_us = 50;
module_param_named(poll_us, xfab_bb_poll_us, uint, 0644);
MODULE_PARM_DESC(poll_us, "Longest in-ring poll after a batch, us, xfab frontends only (default 50, 0: off, at most 10000)");

/*
 * A frontend whose requests we refuse (bad operation, sectors past the
 * disk, grants that will not map) costs the ring's thread a response
 * each and gains nothing: past a burst of 64, refusals are answered at
 * most this many per second per ring and the thread sleeps meanwhile,
 * so a guest that floods the ring with junk cannot keep a dom0 CPU busy.
 * A correct frontend is never refused and never waits. 0: no limit.
 */
unsigned int xfab_bb_refuse_rate = 100;
module_param_named(refuse_rate, xfab_bb_refuse_rate, uint, 0644);
MODULE_PARM_DESC(refuse_rate, "Refused requests answered per second per ring past a burst of 64 (default 100, 0: no limit)");

/*
 * A disconnect while the disk still has requests lets their rings finish
 * in the background (xenbus.c), their grants mapped until the disk
 * answers, so that xenwatch does not wait for a slow disk. A frontend
 * that reconnects and disconnects again and again on such a disk would
 * pile these ring sets up, each holding what a connected disk holds:
 * past drain_sets_per_disk the disk is not connected again until one of
 * its own finishes. Over the backend, each disk's first ring set is its
 * own and drain_sets_total bounds the ones past it, so that all disks
 * together hold at most (disks + drain_sets_total) ring sets. A disk
 * with nothing draining always connects.
 */
unsigned int xfab_bb_drain_dev_max = 2;
module_param_named(drain_sets_per_disk, xfab_bb_drain_dev_max, uint, 0644);
MODULE_PARM_DESC(drain_sets_per_disk, "Ring sets of one disk still draining after disconnects; at this many it is not connected again until one finishes (default 2, 1..64)");

unsigned int xfab_bb_drain_total_max = 32;
module_param_named(drain_sets_total, xfab_bb_drain_total_max, uint, 0644);
MODULE_PARM_DESC(drain_sets_total, "Ring sets held past each disk's first over all disks of this backend; a disk that would pass it waits for its own drain (default 32, 0: one set per disk)");

static int __init xfab_bb_init(void)
{
	int err;

	if (!xen_domain())
		return -ENODEV;
	if (!xfab_bb_max_queues)
		xfab_bb_max_queues = min_t(unsigned int, num_online_cpus(), 16);
	if (xfab_bb_max_queues > 16) {
		pr_err("xfab_blkback: max_queues=%u: at most 16\n",
		       xfab_bb_max_queues);
		return -EINVAL;
	}
	if (xfab_bb_max_ring_order > XFAB_RING_MAX_ORDER) {
		pr_err("xfab_blkback: max_ring_page_order=%u: at most %u\n",
		       xfab_bb_max_ring_order, XFAB_RING_MAX_ORDER);
		return -EINVAL;
	}
	if (xfab_bb_max_indirect &&
	    (xfab_bb_max_indirect < BLKIF_MAX_SEGMENTS_PER_REQUEST ||
	     xfab_bb_max_indirect > XFAB_BLK_MAX_INDIRECT_SEGS)) {
		pr_err("xfab_blkback: max_indirect_segments=%u: 0 or %u..%u\n",
		       xfab_bb_max_indirect, BLKIF_MAX_SEGMENTS_PER_REQUEST,
		       XFAB_BLK_MAX_INDIRECT_SEGS);
		return -EINVAL;
	}
	if (xfab_bb_ro_max > XFAB_BB_RO_LIMIT) {
		pr_err("xfab_blkback: ro_grants=%u: at most %u\n",
		       xfab_bb_ro_max, XFAB_BB_RO_LIMIT);
		return -EINVAL;
	}
	if (!xfab_bb_drain_dev_max || xfab_bb_drain_dev_max > XFAB_BB_DRAIN_LIMIT) {
		pr_err("xfab_blkback: drain_sets_per_disk=%u: 1..%u\n",
		       xfab_bb_drain_dev_max, XFAB_BB_DRAIN_LIMIT);
		return -EINVAL;
	}
	if (xfab_bb_poll_us > 10000) {
		pr_err("xfab_blkback: poll_us=%u: at most 10000\n",
		       xfab_bb_poll_us);
		return -EINVAL;
	}
	err = xfab_bb_stats_init();
	if (err) {
		pr_err("xfab_blkback: counter table too small (%d)\n", err);
		return err;
	}
	xfab_bb_drain_wq = alloc_workqueue("xfab_bb_drain", WQ_UNBOUND, 0);
	if (!xfab_bb_drain_wq)
		return -ENOMEM;
	xfab_bb_debugfs_init();
	err = xfab_bb_xenbus_register();
	if (err) {
		xfab_bb_debugfs_exit();
		destroy_workqueue(xfab_bb_drain_wq);
	}
	return err;
}

static void __exit xfab_bb_exit(void)
{
	xfab_bb_xenbus_unregister();
	/* rings still draining hold our code: wait for their disks */
	destroy_workqueue(xfab_bb_drain_wq);
	xfab_bb_debugfs_exit();
}

module_init(xfab_bb_init);
module_exit(xfab_bb_exit);
MODULE_DESCRIPTION("xfab Xen PV block backend (blkif compatible)");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_ALIAS("xen-backend:vbd");
