// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_netfront negotiation: the xenbus driver for "vif" devices.
 *
 * One state function, nf_backend_changed(), carries out what
 * xfab_fe_step() (common/, shared with xfab_blkfront) decides:
 *   backend InitWait, we Initialising or Closed: connect (rings, keys in
 *     one transaction), then we go Connected;
 *   backend Connected, we Connected: carrier on, gratuitous ARP;
 *   backend Closing/Closed: tear down, go Closed; once the backend is
 *     Closed and the toolstack still has the vif "online", go back to
 *     Initialising, so that a backend that comes back (driver reloaded in
 *     the backend domain, or the same one reopening) finds us waiting for
 *     its InitWait and traffic resumes by itself. Offline is a detach:
 *     we stay Closed until the device is removed.
 * Backend InitWait while we are Connected is a backend that rebinds to
 * our existing rings (Linux netback reattaches at the rsp_prod it finds):
 * left alone.
 * Resume (save/restore, migration): the backend is new; the xenbus core
 * puts us in Initialising and we tear down, and its InitWait reconnects.
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <xen/events.h>
#include <xen/xen.h>
#include "common.h"
#include "xfab_xs.h"

/* Keys we write once per connect, all "1". */
static const char *const nf_front_features[] = {
	"request-rx-copy",		/* the only RX mode we implement */
	"feature-rx-notify",		/* we kick on new RX requests */
	"feature-sg",			/* we take multi-slot RX packets */
	"feature-gso-tcpv4",		/* ... and GSO extras for them */
	"feature-gso-tcpv6",
	"feature-ipv6-csum-offload",	/* ... and blank IPv6 checksums */
};

/* The MAC from our own xenstore directory: a unicast address or nothing. */
static int nf_read_mac(struct xenbus_device *dev, u8 *mac)
{
	char *s = xenbus_read(XBT_NIL, dev->nodename, "mac", NULL);
	int err = 0;

	if (IS_ERR(s))
		return PTR_ERR(s);
	/* mac_pton ignores what follows 17 characters: we do not */
	if (strlen(s) != 3 * ETH_ALEN - 1 || !mac_pton(s, mac) ||
	    !is_valid_ether_addr(mac)) {
		dev_err(&dev->dev, "%s/mac \"%*pE\" is not a unicast MAC address\n",
			dev->nodename, (int)min_t(size_t, strlen(s), 32), s);
		err = -EINVAL;
	}
	kfree(s);
	return err;
}

static void nf_read_backend(struct xenbus_device *dev, struct xfab_nf_backend *be)
{
	const char *o = dev->otherend;

	be->max_queues = xenbus_read_unsigned(o, "multi-queue-max-queues", 1);
	be->split_evtchn = xenbus_read_unsigned(o, "feature-split-event-channels", 0);
	be->sg = xenbus_read_unsigned(o, "feature-sg", 0);
	be->gso_tcpv4 = xenbus_read_unsigned(o, "feature-gso-tcpv4", 0);
	be->gso_tcpv6 = xenbus_read_unsigned(o, "feature-gso-tcpv6", 0);
	be->ipv6_csum = xenbus_read_unsigned(o, "feature-ipv6-csum-offload", 0);
	be->no_csum = xenbus_read_unsigned(o, "feature-no-csum-offload", 0);
	be->ptr = xenbus_read_unsigned(o, "feature-xfab-ptr", 0);
	be->pool_max = 0;
	if (xenbus_read_unsigned(o, "feature-xfab-pool", 0))
		be->pool_max = xenbus_read_unsigned(o, "xfab-pool-max-pages", 0);
}

static unsigned int nf_num_queues(struct xfab_nf_info *info)
{
	unsigned int nq = xfab_nf_max_queues ?: num_online_cpus();

	nq = min3(nq, num_online_cpus(), info->be.max_queues);
	/* the net_device was sized at probe; 0 from the backend means 1 */
	return clamp(nq, 1u, info->netdev->num_tx_queues);
}

/* The "mtu" node, if any, within what this backend can carry. Under rtnl. */
static void nf_apply_mtu(struct xfab_nf_info *info)
{
	struct net_device *nd = info->netdev;
	unsigned int limit = info->be.sg ? XFAB_NF_MAX_MTU : ETH_DATA_LEN;
	unsigned int mtu = xenbus_read_unsigned(info->xbdev->nodename, "mtu",
						nd->mtu);

	if (mtu < ETH_MIN_MTU) {
		netdev_warn(nd, "xenstore mtu %u too small: keeping %u\n", mtu,
			    nd->mtu);
		mtu = nd->mtu;
	}
	if (mtu > limit) {
		netdev_warn(nd, "mtu %u needs %s: using %u\n", mtu,
			    info->be.sg ? "less than jumbo max" :
			    "a backend with feature-sg", limit);
		mtu = limit;
	}
	if (mtu != nd->mtu && dev_set_mtu(nd, mtu))
		netdev_warn(nd, "could not set mtu %u\n", mtu);
}

/* xenbus_rm inside a transaction; a node that is not there is fine. */
static void nf_rm(struct xenbus_transaction xbt, const char *dir,
		  const char *node)
{
	xenbus_rm(xbt, dir, node);
}

static int nf_write_queue(struct xenbus_transaction xbt, const char *dir,
			  struct xfab_nf_queue *q, bool split)
{
	int err;

	err = xenbus_printf(xbt, dir, "tx-ring-ref", "%u", q->tx_ring_ref);
	if (!err)
		err = xenbus_printf(xbt, dir, "rx-ring-ref", "%u", q->rx_ring_ref);
	if (err)
		return err;
	/* a stale key of the other layout would mislead the backend */
	if (split) {
		nf_rm(xbt, dir, "event-channel");
		err = xenbus_printf(xbt, dir, "event-channel-tx", "%u", q->tx_evtchn);
		if (!err)
			err = xenbus_printf(xbt, dir, "event-channel-rx", "%u",
					    q->rx_evtchn);
		return err;
	}
	nf_rm(xbt, dir, "event-channel-tx");
	nf_rm(xbt, dir, "event-channel-rx");
	return xenbus_printf(xbt, dir, "event-channel", "%u", q->tx_evtchn);
}

/* A pool's list (kind "tx" or "rx"); none: remove stale keys. */
static int nf_write_pool(struct xenbus_transaction xbt, const char *dir,
			 const char *kind, const struct xfab_nf_pool_dir *d)
{
	char ref[24], pages[24];

	snprintf(ref, sizeof(ref), "xfab-%s-pool-ref", kind);
	snprintf(pages, sizeof(pages), "xfab-%s-pool-pages", kind);
	if (!d->page) {
		nf_rm(xbt, dir, ref);
		nf_rm(xbt, dir, pages);
		return 0;
	}
	return xenbus_printf(xbt, dir, ref, "%u", d->ref) ?:
	       xenbus_printf(xbt, dir, pages, "%u", d->n);
}

static int nf_write_pools(struct xenbus_transaction xbt, const char *dir,
			  struct xfab_nf_queue *q)
{
	return nf_write_pool(xbt, dir, "tx", &q->tx_dir) ?:
	       nf_write_pool(xbt, dir, "rx", &q->rx_dir);
}

/* Queue keys: flat for one queue, under queue-N/ for more. */
static int nf_write_queues(struct xenbus_transaction xbt,
			   struct xfab_nf_info *info)
{
	const char *node = info->xbdev->nodename;
	bool split = info->be.split_evtchn;
	unsigned int i;
	char *dir;
	int err;

	if (info->num_queues == 1) {
		nf_rm(xbt, node, "multi-queue-num-queues");
		return nf_write_queue(xbt, node, &info->queues[0], split) ?:
		       nf_write_pools(xbt, node, &info->queues[0]);
	}
	err = xenbus_printf(xbt, node, "multi-queue-num-queues", "%u",
			    info->num_queues);
	for (i = 0; !err && i < info->num_queues; i++) {
		dir = kasprintf(GFP_KERNEL, "%s/queue-%u", node, i);
		if (!dir)
			return -ENOMEM;
		err = nf_write_queue(xbt, dir, &info->queues[i], split) ?:
		      nf_write_pools(xbt, dir, &info->queues[i]);
		kfree(dir);
	}
	return err;
}

/* All our keys, for xfab_xs_write(): one transaction. */
static int nf_keys(struct xenbus_transaction xbt, void *arg)
{
	struct xfab_nf_info *info = arg;
	unsigned int i;
	int err;

	err = nf_write_queues(xbt, info) ?:
	      xenbus_printf(xbt, info->xbdev->nodename, "xfab-ptr", "%u",
			    info->ptr ? 1 : 0) ?:
	      xenbus_printf(xbt, info->xbdev->nodename, "xfab-ptr-rx", "%u",
			    info->ptr_rx ? 1 : 0) ?:
	      xfab_xs_driver(xbt, info->xbdev->nodename);
	for (i = 0; !err && i < ARRAY_SIZE(nf_front_features); i++)
		err = xenbus_write(xbt, info->xbdev->nodename,
				   nf_front_features[i], "1");
	return err;
}

static int nf_talk_to_backend(struct xfab_nf_info *info)
{
	int err = xfab_xs_write(nf_keys, info);

	if (err)
		xenbus_dev_fatal(info->xbdev, err, "writing frontend keys");
	return err;
}

/*
 * Copy TX into the bounce pool unless the toolstack relaxed trust for
 * this vif (xfab-trust=relaxed) and did not mark it untrusted (xl's
 * "untrusted" writes trusted=0). xl writes trusted=1 for every vif it is
 * not told otherwise about, so trusted=1 alone decides nothing.
 */
static bool nf_want_bounce(struct xenbus_device *dev)
{
	if (!xfab_nf_allow_relaxed ||
	    !xenbus_read_unsigned(dev->nodename, "trusted", 1))
		return true;
	return !xfab_xs_relaxed(dev);
}

/*
 * May this backend read our memory by frame? Only while we are in an
 * appliance group (our group record, written by the toolstack and not
 * by any guest, lists members), and the backend is dom0 (which maps
 * group members only) or a member itself, which the group patch lets
 * map us. The backend's offer alone is no claim: it says it has a
 * window module, not that it may map us.
 */
static bool nf_backend_reads_us(struct xenbus_device *dev)
{
	bool member = false, listed = false;
	unsigned int v;
	char *s, *p, *tok;

	s = xenbus_read(XBT_NIL, "xfab", "members", NULL);
	if (IS_ERR(s))
		return false;
	for (p = s; (tok = strsep(&p, " "));) {
		if (kstrtouint(tok, 10, &v))
			continue;
		member = true;
		listed |= v == dev->otherend_id;
	}
	kfree(s);
	return member && (!dev->otherend_id || listed);
}

/*
 * Pointer mode: TX named by machine frame. Only where granting in place
 * is allowed already (relaxed trust: the backend may read what we send),
 * toward a backend that offers it and may read us, in a PV guest (whose
 * frames are machine frames).
 */
static bool nf_want_ptr(struct xfab_nf_info *info,
			const struct xfab_nf_backend *be, bool bounce)
{
	/* without the watch we would not see ourselves leave the group */
	return READ_ONCE(xfab_nf_ptr) && be->ptr && !bounce &&
	       xen_pv_domain() && info->group_watching &&
	       nf_backend_reads_us(info->xbdev);
}

/*
 * Our group record changed (xenwatch thread, as connect and teardown).
 * A guest that left its group must stop naming frames at once: dom0
 * keeps its window over us only for xfab_window's leave_ms, long enough
 * for the slots already on the ring, and then pointer slots are dropped.
 * From here TX is granted in place, which the backend takes in the same
 * connect; pointer mode comes back only at the next connect, when the
 * backend makes sure of the window first.
 */
static void nf_group_changed(struct xenbus_watch *w, const char *path,
			     const char *token)
{
	struct xfab_nf_info *info = container_of(w, struct xfab_nf_info,
						 group_watch);
	unsigned int i;

	if (!info->ptr || nf_backend_reads_us(info->xbdev))
		return;
	rtnl_lock();
	info->ptr = false;
	for (i = 0; info->queues && i < info->num_queues; i++) {
		struct xfab_nf_queue *q = &info->queues[i];

		spin_lock_bh(&q->tx_lock);
		q->tx_ptr = false;
		spin_unlock_bh(&q->tx_lock);
	}
	rtnl_unlock();
	netdev_info(info->netdev, "left the appliance group: TX granted in place until the next connect\n");
}

/* How TX moves data, for the connect message. */
static const char *nf_tx_mode(const struct xfab_nf_info *info)
{
	if (info->bounce)
		return "copied into a bounce pool (default trust)";
	return info->ptr ? "named by machine frame (pointer mode)" :
			   "granted in place (relaxed trust)";
}

/* How RX moves data, for the connect message. */
static const char *nf_rx_mode(const struct xfab_nf_info *info)
{
	if (!info->pools)
		return "a fresh page per packet";
	if (info->ptr_rx)
		return "copied out of a pool, or from members through our window";
	return info->rx_lend ? "a pool, its pages lent to the stack" :
			       "copied out of a pool";
}

/* Rings up, keys written, NAPI on. Any failure leaves nothing behind. */
static int nf_connect(struct xfab_nf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	struct net_device *nd = info->netdev;
	struct xfab_nf_backend be;
	unsigned int i;
	bool bounce;
	int err;

	if (!xenbus_read_unsigned(dev->otherend, "feature-rx-copy", 0)) {
		xenbus_dev_fatal(dev, -EOPNOTSUPP,
				 "backend lacks feature-rx-copy (our only RX mode)");
		return -EOPNOTSUPP;
	}
	nf_read_backend(dev, &be);
	bounce = nf_want_bounce(dev);

	rtnl_lock();
	xfab_nf_teardown(info);
	info->be = be;
	info->bounce = bounce;
	info->ptr = nf_want_ptr(info, &be, bounce);
	/* one pool page per ring slot: the backend must take that many */
	info->pools = xfab_nf_pools && be.pool_max >= XFAB_NF_TX_RING_SIZE &&
		      be.pool_max >= XFAB_NF_RX_RING_SIZE;
	/*
	 * References on RX: the headers still come in the pool, and the
	 * rest is read through xfab_window, held from here to teardown.
	 */
	info->ptr_rx = info->ptr && info->pools && READ_ONCE(xfab_nf_ptr_rx) &&
		       xfab_wnops_get(&info->wn);
	/*
	 * Lent pages stay writable to the backend while our stack reads
	 * them (ESP may even decrypt in place): only when the toolstack
	 * relaxed trust, the same test as TX in place. xl writes trusted=1
	 * for every vif, so trusted alone decides nothing.
	 */
	info->rx_lend = 0;
	if (info->pools && !bounce)
		info->rx_lend = min_t(unsigned int, READ_ONCE(xfab_nf_rx_lend),
				      be.pool_max - XFAB_NF_RX_RING_SIZE);
	clear_bit(XFAB_NF_BROKEN, &info->flags);
	err = xfab_nf_queues_create(info, nf_num_queues(info));
	if (err)
		xenbus_dev_fatal(dev, err, "creating %u queues", nf_num_queues(info));
	else
		nf_apply_mtu(info);
	netdev_update_features(nd);
	rtnl_unlock();
	if (!err)
		netdev_info(nd, "backend %s: %u queues, TX %s, RX %s\n",
			    dev->otherend, info->num_queues, nf_tx_mode(info),
			    nf_rx_mode(info));

	/*
	 * xenstore may be slow: not under rtnl. The queues stay: connect
	 * and teardown both run from this device's xenbus callbacks only.
	 */
	if (!err)
		err = nf_talk_to_backend(info);

	rtnl_lock();
	if (err) {
		xfab_nf_teardown(info);
	} else {
		for (i = 0; i < info->num_queues; i++) {
			struct xfab_nf_queue *q = &info->queues[i];

			if (netif_running(nd) && !q->napi_on) {
				napi_enable(&q->napi);
				q->napi_on = true;
			}
		}
	}
	rtnl_unlock();
	return err;
}

/* The backend took our rings: carrier on, tell the network we moved. */
static void nf_backend_connected(struct xfab_nf_info *info)
{
	struct net_device *nd = info->netdev;
	unsigned int i;

	rtnl_lock();
	if (info->queues && !xfab_nf_broken(info)) {
		netif_carrier_on(nd);
		if (netif_running(nd))
			netif_tx_wake_all_queues(nd);
		/* requests posted before it was listening */
		for (i = 0; i < info->num_queues; i++) {
			notify_remote_via_irq(info->queues[i].tx_irq);
			if (info->queues[i].rx_irq != info->queues[i].tx_irq)
				notify_remote_via_irq(info->queues[i].rx_irq);
		}
	}
	rtnl_unlock();
	netdev_notify_peers(nd);
}

/* The state function: every backend transition comes through here. */
static void nf_backend_changed(struct xenbus_device *dev, enum xenbus_state be)
{
	struct xfab_nf_info *info = dev_get_drvdata(&dev->dev);
	enum xfab_fe_work work;
	bool close;
	int next;

	next = xfab_fe_step(be, dev->state, XenbusStateConnected,
			    xfab_xs_online(dev), &work, &close);
	dev_dbg(&dev->dev, "backend %s, we are %s: work %d, then %s\n",
		xenbus_strstate(be), xenbus_strstate(dev->state), work,
		xenbus_strstate(next));
	switch (work) {
	case XFAB_FE_CONNECT:
		if (nf_connect(info))
			return;
		break;
	case XFAB_FE_REFRESH:
		nf_backend_connected(info);
		break;
	case XFAB_FE_HOLD:
	case XFAB_FE_DETACH:
		/* the net_device stays either way, until remove */
		rtnl_lock();
		xfab_nf_teardown(info);
		rtnl_unlock();
		break;
	default:
		break;
	}
	xfab_fe_publish(dev, next, close);
}

static int nf_probe(struct xenbus_device *dev,
		    const struct xenbus_device_id *id)
{
	struct xfab_nf_info *info;
	u8 mac[ETH_ALEN];
	int err;

	err = nf_read_mac(dev, mac);
	if (err) {
		xenbus_dev_fatal(dev, err, "reading %s/mac", dev->nodename);
		return err;
	}
	err = xfab_nf_netdev_create(dev, mac, &info);
	if (err) {
		xenbus_dev_fatal(dev, err, "creating net device");
		return err;
	}
	dev_set_drvdata(&dev->dev, info);
	/* relative: our own domain's record, which only the toolstack writes */
	err = xenbus_watch_pathfmt(dev, &info->group_watch, NULL,
				   nf_group_changed, "xfab/members");
	if (err)
		dev_warn(&dev->dev, "no watch on our group record (%d): pointer mode stays off\n",
			 err);
	info->group_watching = !err;
	return 0;
}

/* Before teardown: no group change runs on a vif that is going. */
static void nf_group_unwatch(struct xfab_nf_info *info)
{
	if (!info->group_watching)
		return;
	unregister_xenbus_watch(&info->group_watch);
	kfree(info->group_watch.node);
	info->group_watching = false;
}

/* Polled: xenbus dropped our watch on the backend before remove. */
static void nf_wait_backend(struct xenbus_device *dev, enum xenbus_state a,
			    enum xenbus_state b)
{
	enum xenbus_state st;
	int i;

	for (i = 0; i < 50; i++) {
		st = xenbus_read_driver_state(dev->otherend);
		if (st == a || st == b || st == XenbusStateUnknown)
			return;
		msleep(100);
	}
	dev_warn(&dev->dev, "backend did not close; tearing down anyway\n");
}

/*
 * Tell the backend we are going and give it a bounded time to unmap:
 * teardown copes with one that does not (its pages are freed late).
 */
static void nf_bus_close(struct xenbus_device *dev)
{
	enum xenbus_state st = xenbus_read_driver_state(dev->otherend);

	if (st == XenbusStateClosed || st == XenbusStateUnknown)
		return;
	xenbus_switch_state(dev, XenbusStateClosing);
	nf_wait_backend(dev, XenbusStateClosing, XenbusStateClosed);
	xenbus_switch_state(dev, XenbusStateClosed);
	nf_wait_backend(dev, XenbusStateClosed, XenbusStateClosed);
}

static void nf_remove(struct xenbus_device *dev)
{
	struct xfab_nf_info *info = dev_get_drvdata(&dev->dev);

	nf_group_unwatch(info);
	nf_bus_close(dev);
	rtnl_lock();
	xfab_nf_teardown(info);
	rtnl_unlock();
	xfab_nf_netdev_destroy(info);
	dev_set_drvdata(&dev->dev, NULL);
	xfab_xs_driver_gone(dev);
}

/* After save/restore the backend is a new one: our rings mean nothing. */
static int nf_resume(struct xenbus_device *dev)
{
	struct xfab_nf_info *info = dev_get_drvdata(&dev->dev);

	rtnl_lock();
	xfab_nf_teardown(info);
	rtnl_unlock();
	return 0;
}

static const struct xenbus_device_id xfab_nf_ids[] = {
	{ "vif" },
	{ "" }
};

static struct xenbus_driver xfab_nf_driver = {
	.name = XFAB_NF_NAME,
	.ids = xfab_nf_ids,
	.probe = nf_probe,
	.remove = nf_remove,
	.resume = nf_resume,
	.otherend_changed = nf_backend_changed,
};

int xfab_nf_xenbus_register(void)
{
	return xenbus_register_frontend(&xfab_nf_driver);
}

void xfab_nf_xenbus_unregister(void)
{
	xenbus_unregister_driver(&xfab_nf_driver);
}
