// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_netback: Xen PV network backend (dom0 side of the vif device),
 * wire compatible with any netif frontend. Module parameters, the
 * workqueue and debugfs root, registration.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <xen/xen.h>
#include "common.h"

/*
 * Queues offered per vif (multi-queue-max-queues). The frontend picks up
 * to this many, normally one per vCPU; more queues than dom0 vCPUs only
 * add contention, hence the default.
 */
unsigned int xfab_nb_max_queues;
module_param_named(max_queues, xfab_nb_max_queues, uint, 0444);
MODULE_PARM_DESC(max_queues, "Queues offered per vif (default: online CPUs, 1..16)");

/*
 * Bytes a queue holds for a guest that has not posted RX buffers yet.
 * Bounds dom0 memory per guest; past it the vif's queue stops and the
 * stack queues (and drops) upstream, as for a slow NIC.
 */
unsigned int xfab_nb_rx_backlog = 512 * 1024;
module_param_named(rx_backlog, xfab_nb_rx_backlog, uint, 0644);
MODULE_PARM_DESC(rx_backlog, "Bytes queued per queue for a guest before the queue stops (default 512 KiB)");

/*
 * Copied packets kept per queue until the guest took them (rxhold.c):
 * what lets the sender's TCP see packets in flight and gather writes
 * into bigger packets. 0 frees each packet as soon as it is copied.
 */
unsigned int xfab_nb_rx_hold_max = 32;
module_param_named(rx_hold, xfab_nb_rx_hold_max, uint, 0644);
MODULE_PARM_DESC(rx_hold, "Copied packets per queue kept until the guest took them (default 32; 0: free at once)");

/*
 * A guest that posts no RX buffers for this long while its queue is
 * stopped loses its backlog, so that it cannot pin dom0 memory forever.
 */
unsigned int xfab_nb_rx_stall_secs = 10;
module_param_named(rx_stall_secs, xfab_nb_rx_stall_secs, uint, 0644);
MODULE_PARM_DESC(rx_stall_secs, "Seconds without guest RX buffers before its backlog is dropped (default 10)");

/*
 * The longest a packet waits in a queue's backlog for the guest to post
 * buffers for it; older ones are dropped from the head and counted
 * (rxr_drop_aged), as the stock backend does with rx_drain_timeout_msecs
 * (10 s there too). The stall timer only catches a guest that posts
 * nothing at all: one that posts a few buffers every few seconds keeps
 * its queue moving, so without an age limit it would keep up to
 * 2 x rx_backlog per queue of dom0's memory (and the senders' socket
 * buffers) for good, and be handed packets minutes old.
 *
 * Aging cannot be turned off. Below 100 ms it would drop packets of a
 * guest that is only busy (a vCPU waiting a few of Xen's 30 ms time
 * slices); past a minute a packet is of no use to anyone (TCP has sent
 * it again long before), so a longer limit only lets a trickling guest
 * pin memory longer. A write applies from the next look at the backlog.
 */
unsigned int xfab_nb_rx_drain_ms = 10000;

static int nb_drain_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;

	if (kstrtouint(val, 0, &ms) || ms < XFAB_NB_DRAIN_MIN_MS ||
	    ms > XFAB_NB_DRAIN_MAX_MS) {
		pr_err("xfab_netback: rx_drain_ms=%.*s: must be %u..%u (ms a packet may wait for the guest's buffers; aging cannot be turned off)\n",
		       (int)strcspn(val, "\n"), val, XFAB_NB_DRAIN_MIN_MS,
		       XFAB_NB_DRAIN_MAX_MS);
		return -EINVAL;
	}
	/* the datapath reads it without the parameter lock */
	WRITE_ONCE(*(unsigned int *)kp->arg, ms);
	return 0;
}

static const struct kernel_param_ops nb_drain_ops = {
	.set = nb_drain_set,
	.get = param_get_uint,
};
module_param_cb(rx_drain_ms, &nb_drain_ops, &xfab_nb_rx_drain_ms, 0644);
MODULE_PARM_DESC(rx_drain_ms, "Most ms a packet waits in a queue's backlog for the guest's buffers before it is dropped (rxr_drop_aged; default 10000, 100..60000)");

/*
 * Pages of an xfab frontend's pool we map per ring (each queue has a TX
 * and an RX pool): dom0 address space and the guest's grant entries the
 * fast path may pin, announced as xfab-pool-max-pages. 0 turns the pools
 * off: every slot is then grant-copied, as for a stock frontend.
 */
unsigned int xfab_nb_pool_pages = XFAB_POOL_MAX_PAGES;
module_param_named(pool_pages, xfab_nb_pool_pages, uint, 0444);
MODULE_PARM_DESC(pool_pages, "Most pages of a frontend's TX or RX pool mapped per queue (default and maximum 1024; 0: no pools)");

/*
 * How many pool pages the frontend maps is the frontend's choice: up to
 * 2 x pool_pages per queue, 32768 for a vif of 16 queues. Each is an
 * entry in dom0's maptrack table, which every backend, qemu and tool of
 * dom0 shares (Xen's gnttab_max_maptrack_frames: 1024 frames of 256 by
 * default, 262144), and a page of dom0's address space. So the pages
 * held are bounded per vif and over the backend (pool.c); a pool past
 * either bound is refused whole, and its queue grant-copies as for a
 * stock frontend.
 *
 * Per vif: xfab_netfront asks 512 per queue (256 TX, 256 RX, plus its
 * rx_lend spares), so 4096 keeps a guest of up to 8 queues fully
 * pooled, and a guest of 2 queues even with rx_lend at its maximum
 * (2 x 1280); 16 MiB of dom0 address space.
 *
 * Backend: 32768 is an eighth of the default maptrack, as xfab_blkback's
 * ro_grants_total; the two bounds together leave three quarters of it
 * to every other mapping. That is 32 guests of 2 queues at default pool
 * sizes, or 8 vifs at their bound (128 MiB of dom0 address space).
 * Lowering either at runtime refuses new pools only; those mapped stay
 * until their queue disconnects.
 */
unsigned int xfab_nb_pool_vif_max = 4096;
module_param_named(pool_grants_per_vif, xfab_nb_pool_vif_max, uint, 0644);
MODULE_PARM_DESC(pool_grants_per_vif, "Pool pages mapped at once per vif over its queues; past it a pool is refused, the queue grant-copies (default 4096)");

unsigned int xfab_nb_pool_total_max = 32768;
module_param_named(pool_grants_total, xfab_nb_pool_total_max, uint, 0644);
MODULE_PARM_DESC(pool_grants_total, "Pool pages mapped at once over all vifs of this backend; past it a pool is refused, the queue grant-copies (default 32768)");

/*
 * LRO on guest TX (lro.c) for vifs made from now on; each vif's own
 * switch is ethtool -K vifD.N rx-gro-hw on|off. Off hands every guest
 * packet to the stack as it came, as the stock backend does.
 */
bool xfab_nb_lro = true;
module_param_named(lro, xfab_nb_lro, bool, 0644);
MODULE_PARM_DESC(lro, "Merge a guest's TCP segments before dom0's stack on new vifs (default on; per vif: ethtool -K vifD.N rx-gro-hw)");

/*
 * In-ring polling of an xfab frontend's TX ring: once NAPI has emptied
 * it, it keeps looking for up to this long before it arms req_event and
 * sleeps; meanwhile the guest sees no armed index and sends no event.
 * The budget adapts (common/xfab_poll); per vif: ethtool -C vifD.N
 * rx-usecs N adaptive-rx on|off. Off by default: where dom0 and the
 * guests share CPUs (the testbed, many appliances) the spin takes the
 * CPU the guest needs to produce, and make bench measured the pair
 * slower with it (docs/net.md). For a dom0 with CPUs of its own.
 */
unsigned int xfab_nb_poll_us;
module_param_named(poll_us, xfab_nb_poll_us, uint, 0644);
MODULE_PARM_DESC(poll_us, "Longest in-ring poll of an xfab frontend's TX ring for new vifs, us (default 0: off; at most 10000)");

/*
 * Least time between two notifications of a guest about packets for it,
 * for new vifs (ethtool -C vifD.N tx-usecs changes one vif). A guest that
 * is notified per packet spends its time taking interrupts; held back
 * within the gap, one notification covers a burst. 0 notifies at once.
 */
unsigned int xfab_nb_kick_us;
module_param_named(kick_us, xfab_nb_kick_us, uint, 0644);
MODULE_PARM_DESC(kick_us, "Least time between RX notifications of a guest for new vifs, us (default 0: at once; at most 10000)");

/*
 * Pointer mode (ptr.c, docs/pointer-mode.md): an appliance-group member
 * sends TX slots by machine frame, read through xfab_window with no copy.
 * Offered to new vifs whose peer the window may map; off to compare with
 * pool mode, or to keep dom0 from mapping members' memory at all.
 */
bool xfab_nb_ptr = true;
module_param_named(ptr, xfab_nb_ptr, bool, 0644);
MODULE_PARM_DESC(ptr, "Offer pointer mode (TX read through xfab_window, no copy) to appliance-group members, for new vifs (default Y; needs xfab_window loaded)");

/*
 * A slot sent by reference stays unanswered until dom0's stack lets go of
 * its pages, and the guest cannot reuse its ring slot meanwhile. Past this
 * many waiting slots per queue, packets are copied and answered at once,
 * so a packet stuck in some queue of dom0 cannot stall the guest's ring
 * (256 slots).
 */
unsigned int xfab_nb_ptr_slots = 128;
module_param_named(ptr_slots, xfab_nb_ptr_slots, uint, 0644);
MODULE_PARM_DESC(ptr_slots, "TX slots per queue that may wait for the stack in pointer mode before packets are copied (default 128; 0 copies all)");

/*
 * The same for time: while the oldest packet of a queue sent by reference
 * has waited this long, the next ones are copied. A consumer that holds
 * one packet for long (a stalled guest behind the bridge, a full socket)
 * is likely to hold the next too; copying keeps the sender's pages and
 * slots free. The stuck packet itself cannot be answered early: the guest
 * would reuse its page while dom0 still reads it.
 */
unsigned int xfab_nb_ptr_age_ms = 1000;
module_param_named(ptr_age_ms, xfab_nb_ptr_age_ms, uint, 0644);
MODULE_PARM_DESC(ptr_age_ms, "Pointer mode: copy new packets while the oldest one sent by reference has waited this long, in ms (default 1000; 0: no limit)");

/*
 * Pointer mode on RX: bytes of other members' memory one queue may have
 * handed its guest by reference and not seen taken back. The sender's
 * slots wait for the receiver meanwhile, so this bounds what a slow or
 * stuck receiver holds of a sender (its TX ring has ptr_slots slots that
 * may wait); past it packets are copied into the pool as before.
 */
unsigned int xfab_nb_ptr_rx_kb = 256;
module_param_named(ptr_rx_kb, xfab_nb_ptr_rx_kb, uint, 0644);
MODULE_PARM_DESC(ptr_rx_kb, "Pointer mode: KiB per RX queue a guest may hold by reference before packets are copied (default 256; 0 copies all)");

struct workqueue_struct *xfab_nb_wq;
struct dentry *xfab_nb_debugfs;
struct xfab_nb_totals xfab_nb_totals;

static int __init xfab_nb_init(void)
{
	int err;

	if (!xen_domain())
		return -ENODEV;
	if (!xfab_nb_max_queues)
		xfab_nb_max_queues = min_t(unsigned int, num_online_cpus(), 16);
	if (xfab_nb_max_queues > 16) {
		pr_err("xfab_netback: max_queues=%u: at most 16\n",
		       xfab_nb_max_queues);
		return -EINVAL;
	}
	if (xfab_nb_rx_backlog < 65536 || !xfab_nb_rx_stall_secs) {
		pr_err("xfab_netback: rx_backlog must be >= 65536 and rx_stall_secs > 0\n");
		return -EINVAL;
	}
	if (xfab_nb_pool_pages > XFAB_POOL_MAX_PAGES) {
		pr_err("xfab_netback: pool_pages=%u: at most %zu (one directory page of references)\n",
		       xfab_nb_pool_pages, XFAB_POOL_MAX_PAGES);
		return -EINVAL;
	}
	if (xfab_nb_kick_us > XFAB_NB_KICK_MAX_US) {
		pr_err("xfab_netback: kick_us=%u: at most %u\n",
		       xfab_nb_kick_us, XFAB_NB_KICK_MAX_US);
		return -EINVAL;
	}
	if (xfab_nb_poll_us > XFAB_NB_POLL_MAX_US) {
		pr_err("xfab_netback: poll_us=%u: at most %u\n",
		       xfab_nb_poll_us, XFAB_NB_POLL_MAX_US);
		return -EINVAL;
	}
	err = xfab_nb_stats_init();
	if (err) {
		pr_err("xfab_netback: counter table too small (%d)\n", err);
		return err;
	}
	/* Per-CPU, high priority: the RX copy is on the packet's path. */
	xfab_nb_wq = alloc_workqueue("xfab_netback", WQ_HIGHPRI | WQ_MEM_RECLAIM,
				     0);
	if (!xfab_nb_wq)
		return -ENOMEM;
	xfab_nb_debugfs = debugfs_create_dir("xfab_netback", NULL);
	xfab_nb_debugfs_summary();
	/* the exits that copy are there before any packet by reference */
	err = xfab_nb_ptr_init();
	if (!err) {
		err = xfab_nb_xenbus_register();
		if (err)
			xfab_nb_ptr_exit();
	}
	if (err) {
		debugfs_remove_recursive(xfab_nb_debugfs);
		destroy_workqueue(xfab_nb_wq);
	}
	return err;
}

static void __exit xfab_nb_exit(void)
{
	xfab_nb_xenbus_unregister();
	xfab_nb_ptr_exit();
	debugfs_remove_recursive(xfab_nb_debugfs);
	destroy_workqueue(xfab_nb_wq);
}

module_init(xfab_nb_init);
module_exit(xfab_nb_exit);
MODULE_DESCRIPTION("xfab Xen PV network backend (netif compatible)");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_ALIAS("xen-backend:vif");
