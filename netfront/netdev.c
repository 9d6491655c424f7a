// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_netfront: net_device side (ops, features, MTU), the "disable the
 * device" path, module parameters, module init and exit.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <net/tcp.h>
#include <xen/xen.h>
#include <xen/platform_pci.h>
#include "common.h"

/*
 * Upper bound on queues per vif. Each queue costs two ring pages, 256
 * posted receive pages and an event channel or two, so an appliance with
 * many vifs on a big guest may want fewer than one per CPU. 0 (the
 * default) means one per online CPU at load time.
 */
unsigned int xfab_nf_max_queues;
module_param_named(max_queues, xfab_nf_max_queues, uint, 0644);
MODULE_PARM_DESC(max_queues, "Maximum queues per vif (0: one per online CPU)");

/*
 * Honour the toolstack's xfab-trust=relaxed for TX: grant skb pages in
 * place instead of copying them into the bounce pool. Off keeps this
 * guest copying whatever the toolstack says, for a guest that does not
 * want to rely on its toolstack's choice of backend.
 */
bool xfab_nf_allow_relaxed = true;
module_param_named(allow_relaxed, xfab_nf_allow_relaxed, bool, 0444);
MODULE_PARM_DESC(allow_relaxed, "Let the toolstack's xfab-trust=relaxed grant skb pages to the backend in place (default on)");

/*
 * Pointer mode (docs/pointer-mode.md): in relaxed trust, toward a backend
 * that reads our memory through xfab_window (feature-xfab-ptr), name TX
 * bytes by machine frame instead of granting them. Off keeps granting in
 * place, for comparing the two; it takes effect at the next connect.
 */
bool xfab_nf_ptr = true;
module_param_named(ptr, xfab_nf_ptr, bool, 0644);
MODULE_PARM_DESC(ptr, "Send TX by machine frame to a backend that reads us through its window, in relaxed trust (default on; applies at connect)");

/*
 * In pointer mode, take packets from other members by reference and read
 * them through our own window (xfab_window) instead of having the
 * backend copy them into our pool. Off: for comparison, or to keep the
 * backend's copy while a window is suspected.
 */
bool xfab_nf_ptr_rx = true;
module_param_named(ptr_rx, xfab_nf_ptr_rx, bool, 0644);
MODULE_PARM_DESC(ptr_rx, "In pointer mode, read packets from group members through our window (xfab_window loaded) rather than from the pool (default on; applies at connect)");

/*
 * Use the pools an xfab backend maps once (feature-xfab-pool): publish
 * the TX bounce pool's list, and keep the RX pages granted, copying each
 * packet out of them. Off gives the stock per-packet grants, for
 * comparing the two on one boot; it takes effect at the next connect.
 */
bool xfab_nf_pools = true;
module_param_named(pools, xfab_nf_pools, bool, 0644);
MODULE_PARM_DESC(pools, "Use page pools mapped once by an xfab backend (default on; applies at connect)");

/*
 * RX pool pages per queue beyond one per ring slot. A packet's data
 * pages go up the stack as its frags, spare pool pages take their ring
 * slots, and they come back once the stack let go: no copy in the
 * guest. When the stack holds them all (a slow reader), packets are
 * copied out as without lending. The backend's xfab-pool-max-pages
 * bounds it too. Off (0: copy every packet) by default, from
 * measurement: on the nested testbed TCP_MAERTS ran 3-13 % slower with
 * 256 pages lent than with the copy, in 4 of 4 paired runs, although
 * 99 % of the bytes went up lent; the copy is not where the guest's
 * time goes there. Worth trying where memory bandwidth is the limit.
 */
unsigned int xfab_nf_rx_lend;

/* Checked on every write, at load and later, so a bad value is refused. */
static int nf_set_rx_lend(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int err = kstrtouint(val, 0, &n);

	if (err)
		return err;
	if (n > XFAB_NF_RX_LEND_MAX) {
		pr_err("xfab_netfront: rx_lend=%u: at most %zu\n", n,
		       XFAB_NF_RX_LEND_MAX);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops nf_rx_lend_ops = {
	.set = nf_set_rx_lend,
	.get = param_get_uint,
};
module_param_cb(rx_lend, &nf_rx_lend_ops, &xfab_nf_rx_lend, 0644);
MODULE_PARM_DESC(rx_lend, "RX pool pages per queue lent to the stack instead of copying (default 0: copy; at most 768; applies at connect)");

/*
 * The device cannot be trusted any more: stop everything that would look
 * at its rings again, until the next connect builds new ones. Safe from
 * any context (NAPI, xmit, process); pages the backend may still access
 * stay with their queue and are dealt with at teardown.
 */
void xfab_nf_disable(struct xfab_nf_info *info, const char *why)
{
	if (test_and_set_bit(XFAB_NF_BROKEN, &info->flags))
		return;
	if (net_ratelimit())
		netdev_err(info->netdev, "backend misbehaved (%s): vif disabled\n",
			   why);
	netif_carrier_off(info->netdev);
	netif_tx_stop_all_queues(info->netdev);
}

static int nf_open(struct net_device *dev)
{
	struct xfab_nf_info *info = netdev_priv(dev);
	unsigned int i;

	for (i = 0; i < info->num_queues; i++) {
		struct xfab_nf_queue *q = &info->queues[i];

		napi_enable(&q->napi);
		q->napi_on = true;
		/* responses that came while we were down raised no NAPI */
		napi_schedule(&q->napi);
	}
	if (!xfab_nf_broken(info))
		netif_tx_start_all_queues(dev);
	return 0;
}

static int nf_close(struct net_device *dev)
{
	struct xfab_nf_info *info = netdev_priv(dev);
	unsigned int i;

	netif_tx_disable(dev);
	for (i = 0; i < info->num_queues; i++) {
		struct xfab_nf_queue *q = &info->queues[i];

		if (q->napi_on)
			napi_disable(&q->napi);
		q->napi_on = false;
	}
	return 0;
}

/* Jumbo frames take several TX slots: only a backend with SG takes them. */
static unsigned int nf_mtu_limit(const struct xfab_nf_info *info)
{
	return info->be.sg ? XFAB_NF_MAX_MTU : ETH_DATA_LEN;
}

static int nf_change_mtu(struct net_device *dev, int mtu)
{
	struct xfab_nf_info *info = netdev_priv(dev);

	if (mtu > nf_mtu_limit(info))
		return -EINVAL;
	WRITE_ONCE(dev->mtu, mtu);
	return 0;
}

/* Offer only what the backend announced; before connect that is nothing. */
static netdev_features_t nf_fix_features(struct net_device *dev,
					 netdev_features_t features)
{
	struct xfab_nf_info *info = netdev_priv(dev);
	const struct xfab_nf_backend *be = &info->be;

	if (!be->sg)
		features &= ~NETIF_F_SG;
	if (be->no_csum)
		features &= ~NETIF_F_IP_CSUM;
	if (!be->ipv6_csum)
		features &= ~NETIF_F_IPV6_CSUM;
	if (!be->gso_tcpv4)
		features &= ~NETIF_F_TSO;
	if (!be->gso_tcpv6)
		features &= ~NETIF_F_TSO6;
	if (!be->gso_tcpv4 && !be->gso_tcpv6)
		features &= ~NETIF_F_GSO;
	return features;
}

/*
 * A TX queue stopped for long: the backend stopped answering (XSA-392
 * class). Say so; the ring and its pages stay until the backend answers
 * or goes away, as nothing else may reclaim them.
 */
static void nf_tx_timeout(struct net_device *dev, unsigned int txqueue)
{
	netdev_warn(dev, "tx queue %u stalled: backend is not answering\n",
		    txqueue);
}

static const struct net_device_ops xfab_nf_netdev_ops = {
	.ndo_open = nf_open,
	.ndo_stop = nf_close,
	.ndo_start_xmit = xfab_nf_start_xmit,
	.ndo_change_mtu = nf_change_mtu,
	.ndo_fix_features = nf_fix_features,
	.ndo_get_stats64 = xfab_nf_get_stats64,
	.ndo_tx_timeout = nf_tx_timeout,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

static void nf_setup_features(struct net_device *nd)
{
	nd->hw_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
			  NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_RXCSUM;
	nd->features = nd->hw_features;
	/* the first slot's size field holds the whole packet: 16 bits */
	netif_set_tso_max_size(nd, XEN_NETIF_MAX_TX_SIZE - MAX_TCP_HEADER);
	nd->min_mtu = ETH_MIN_MTU;
	nd->max_mtu = XFAB_NF_MAX_MTU;
	nd->watchdog_timeo = 5 * HZ;
}

/*
 * The net_device lives from probe to remove, across any number of
 * backends; it is registered at once with its carrier off, so that its
 * name and configuration do not depend on when a backend shows up.
 */
int xfab_nf_netdev_create(struct xenbus_device *dev, const u8 *mac,
			  struct xfab_nf_info **out)
{
	unsigned int nq = xfab_nf_max_queues ?: num_online_cpus();
	struct xfab_nf_info *info;
	struct net_device *nd;
	unsigned int i;
	int err;

	nq = clamp(nq, 1u, num_online_cpus());
	nd = alloc_etherdev_mq(sizeof(*info), nq);
	if (!nd)
		return -ENOMEM;
	info = netdev_priv(nd);
	info->netdev = nd;
	info->xbdev = dev;
	info->stats = kcalloc(nq, sizeof(*info->stats), GFP_KERNEL);
	if (!info->stats) {
		free_netdev(nd);
		return -ENOMEM;
	}
	for (i = 0; i < nq; i++) {
		u64_stats_init(&info->stats[i].tx_sync);
		u64_stats_init(&info->stats[i].rx_sync);
	}
	nd->netdev_ops = &xfab_nf_netdev_ops;
	nd->ethtool_ops = &xfab_nf_ethtool_ops;
	nf_setup_features(nd);
	eth_hw_addr_set(nd, mac);
	SET_NETDEV_DEV(nd, &dev->dev);
	netif_set_real_num_tx_queues(nd, 1);
	netif_set_real_num_rx_queues(nd, 1);
	netif_carrier_off(nd);

	err = register_netdev(nd);
	if (err) {
		kfree(info->stats);
		free_netdev(nd);
		return err;
	}
	xfab_nf_debugfs_dev_add(info);
	*out = info;
	return 0;
}

/* After teardown: nothing refers to a queue any more. */
void xfab_nf_netdev_destroy(struct xfab_nf_info *info)
{
	struct net_device *nd = info->netdev;

	xfab_nf_debugfs_dev_del(info);
	unregister_netdev(nd);
	/* stats readers are gone with the registration */
	kfree(info->stats);
	free_netdev(nd);
}

static int __init xfab_nf_init(void)
{
	int err;

	/* HVM guests whose emulated NICs were not unplugged keep those */
	if (!xen_domain() || !xen_has_pv_nic_devices())
		return -ENODEV;
	err = xfab_nf_stats_init();
	if (err) {
		pr_err("xfab_netfront: counter table too small (%d)\n", err);
		return err;
	}
	xfab_nf_debugfs_init();
	err = xfab_nf_xenbus_register();
	if (err)
		xfab_nf_debugfs_exit();
	return err;
}

static void __exit xfab_nf_exit(void)
{
	xfab_nf_xenbus_unregister();
	xfab_nf_debugfs_exit();
}

module_init(xfab_nf_init);
module_exit(xfab_nf_exit);
MODULE_DESCRIPTION("xfab Xen PV network frontend");
MODULE_LICENSE("Dual MIT/GPL");
/*
 * No "xen:vif" alias, as for xfab_blkfront: loaded explicitly, never
 * raced against xen-netfront by udev (docs/net.md).
 */
