// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_testpeer: the testbed's helper module.
 *
 * Today it proves the module pipeline end to end: it is built in the image
 * chroot against that image's headers (and against Debian 12's), loaded in
 * dom0 and in a domU by scenario 002, and at load time it
 *   - runs common/'s ring accounting, TX validation and blkif request
 *     decoding (on a request laid out with the kernel's blkif.h) inside
 *     the kernel,
 *   - grants a page to dom0 read-only and revokes the grant,
 *   - registers a xenbus frontend driver (for a device type no toolstack
 *     creates, so it never binds),
 *   - checks that the per-CPU 128-bit cmpxchg SLUB relies on is atomic
 *     against interrupts here (cx.c): a testbed where it is not corrupts
 *     its kernels' slab caches.
 * The outcome is in /sys/module/xfab_testpeer/parameters/report. It will
 * grow into the hostile peer that feeds bad rings to the drivers.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <xen/xen.h>
#include <xen/page.h>
#include <xen/grant_table.h>
#include <xen/xenbus.h>
#include <xen/interface/io/blkif.h>
#include "xfab_ring.h"
#include "xfab_netif.h"
#include "xfab_blkif.h"
#include "testpeer.h"

static char report[160];
module_param_string(report, report, sizeof(report), 0444);
MODULE_PARM_DESC(report, "Outcome of the load-time checks (read-only)");

/* A good TX packet and a runt, validated with the kernel's netif.h. */
static int netif_checks(void)
{
	static union xfab_tx_slot slots[2];
	static struct xfab_tx_pkt pkt;
	int bad = 0;

	slots[0].req.gref = 100;
	slots[0].req.size = 60;
	bad += xfab_tx_check(slots, 1, 16, false, &pkt) != XFAB_TX_OK || pkt.consumed != 1;
	slots[0].req.size = 10;
	bad += xfab_tx_check(slots, 1, 16, false, &pkt) != XFAB_TX_RUNT;
	return bad;
}

/*
 * A write request laid out with the kernel's struct blkif_request,
 * decoded by common/ from its raw bytes: the decoder's offsets are the
 * kernel's (its static asserts say so at build time, this at run time).
 */
static int blkif_checks(void)
{
	static struct blkif_request req;
	static struct xfab_blk_req r;
	struct xfab_blk_limits lim = { .capacity = 1024, .sector_size = 512 };
	int bad = 0;

	req.operation = BLKIF_OP_WRITE;
	req.u.rw.nr_segments = 2;
	req.u.rw.handle = 51712;
	req.u.rw.id = 0xabcdef12345ull;
	req.u.rw.sector_number = 16;
	req.u.rw.seg[0] = (struct blkif_request_segment){ 7, 0, 7 };
	req.u.rw.seg[1] = (struct blkif_request_segment){ 8, 2, 3 };
	bad += xfab_blk_check((const u8 *)&req, &lim, &r) != XFAB_BLK_OK;
	bad += r.id != 0xabcdef12345ull || r.sector != 16 ||
	       r.nr_sectors != 10 || r.seg[1].gref != 8 || r.handle != 51712;
	lim.read_only = true;
	bad += xfab_blk_check((const u8 *)&req, &lim, &r) != XFAB_BLK_READ_ONLY;
	return bad;
}

/* A few hostile and normal cases; the full set runs in userspace. */
static int ring_checks(void)
{
	u32 n = 0;
	int bad = 0;

	bad += xfab_ring_reqs_pending(256, 10, 0, 0, &n) != 0 || n != 10;
	bad += xfab_ring_reqs_pending(256, 257, 0, 0, &n) != -EOVERFLOW;
	bad += xfab_ring_reqs_pending(256, 5, 0xfffffff0u, 0xffffffe0u, &n) != 0 ||
	       n != 21;
	bad += xfab_ring_rsps_pending(32, 4, 0, 3, &n) != -EOVERFLOW;
	bad += !xfab_ring_need_kick(0xfffffffeu, 2, 0);
	return bad;
}

/* Grant one page to dom0 and take the grant back. */
static int grant_check(void)
{
	struct page *pg = alloc_page(GFP_KERNEL | __GFP_ZERO);
	int ref, ret = 0;

	if (!pg)
		return -ENOMEM;
	ref = gnttab_grant_foreign_access(0, xen_page_to_gfn(pg), 1);
	if (ref >= 0 && !gnttab_end_foreign_access_ref(ref)) {
		/* dom0 cannot have mapped it; if it did, leak the page. */
		return -EBUSY;
	}
	if (ref < 0)
		ret = ref;
	else
		gnttab_free_grant_reference(ref);
	__free_page(pg);
	return ret;
}

static const struct xenbus_device_id testpeer_ids[] = {
	{ "xfab-testpeer" },
	{ "" }
};

static int testpeer_probe(struct xenbus_device *dev,
			  const struct xenbus_device_id *id)
{
	return -ENODEV;
}

static void testpeer_remove(struct xenbus_device *dev)
{
}

static void testpeer_otherend_changed(struct xenbus_device *dev,
				      enum xenbus_state state)
{
}

static struct xenbus_driver testpeer_driver = {
	.ids = testpeer_ids,
	.probe = testpeer_probe,
	.remove = testpeer_remove,
	.otherend_changed = testpeer_otherend_changed,
};

static bool registered;

static int __init testpeer_init(void)
{
	int ring_bad, grant, reg = -ENODEV;
	char cx[32];

	if (!xen_domain())
		return -ENODEV;
	/* "ring=" in the report covers all of common/'s in-kernel checks */
	ring_bad = ring_checks() + netif_checks() + blkif_checks();
	grant = grant_check();
	reg = xenbus_register_frontend(&testpeer_driver);
	registered = reg == 0;
	/* the testbed's own soundness: its slab allocators need this */
	xfab_tp_cx_check(cx, sizeof(cx));
	snprintf(report, sizeof(report), "xen=%s dom0=%d ring=%s grant=%d xenbus=%d cx=%s",
		 xen_pv_domain() ? "pv" : "hvm", xen_initial_domain() ? 1 : 0,
		 ring_bad ? "bad" : "ok", grant, reg, cx);
	pr_info("xfab_testpeer: %s\n", report);
	return 0;
}

static void __exit testpeer_exit(void)
{
	if (registered)
		xenbus_unregister_driver(&testpeer_driver);
}

module_init(testpeer_init);
module_exit(testpeer_exit);
MODULE_DESCRIPTION("xfab testbed helper: module pipeline probe, future hostile peer");
MODULE_LICENSE("Dual MIT/GPL");
