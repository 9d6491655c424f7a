// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The vifD.N net_device and its queues: creation at probe, ring mapping
 * and event channels at connect, and a disconnect that undoes any prefix
 * of connect (it is the error path too) and may run twice.
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <linux/if_vlan.h>
#include <xen/events.h>
#include "common.h"

/*
 * lateeoi (XSA-332): an event channel is not re-enabled until we EOI it,
 * so a guest cannot storm dom0 with events; each context that was woken
 * (NAPI for TX, the worker for RX) gives its EOI when it has found the
 * ring empty. A shared channel is EOIed when both are done.
 */
void xfab_nb_eoi(struct xfab_nb_queue *q, int bit)
{
	int old = atomic_fetch_andnot(bit, &q->eoi_pending);

	if (!(old & bit))
		return;
	if (q->tx_irq != q->rx_irq)
		xen_irq_lateeoi(bit == XFAB_NB_EOI_TX ? q->tx_irq : q->rx_irq, 0);
	else if (!(old & ~bit))
		xen_irq_lateeoi(q->tx_irq, 0);
}

/* Which contexts have work; 0 means the event told us nothing new. */
static int nb_wake(struct xfab_nb_queue *q, int which)
{
	int bits = 0;

	if ((which & XFAB_NB_EOI_TX) && xfab_nb_tx_has_work(q))
		bits |= XFAB_NB_EOI_TX;
	if ((which & XFAB_NB_EOI_RX) && xfab_nb_rx_has_work(q))
		bits |= XFAB_NB_EOI_RX;
	if (!bits)
		return 0;
	/* All bits at once, before anyone can clear one and EOI early. */
	atomic_or(bits, &q->eoi_pending);
	if (bits & XFAB_NB_EOI_TX)
		napi_schedule(&q->napi);
	if (bits & XFAB_NB_EOI_RX)
		queue_work(xfab_nb_wq, &q->rx_work);
	return bits;
}

/*
 * One event: wake whoever has work. The guest posting RX buffers past a
 * held packet (rxhold.c) is work done here; an event that brought
 * nothing at all is spurious.
 */
static irqreturn_t nb_event(struct xfab_nb_queue *q, int irq, int which,
			    atomic64_t *spurious)
{
	bool freed = (which & XFAB_NB_EOI_RX) && xfab_nb_rx_hold_done(q);

	if (nb_wake(q, which))
		return IRQ_HANDLED;
	if (!freed)
		atomic64_inc(spurious);
	xen_irq_lateeoi(irq, freed ? 0 : XEN_EOI_FLAG_SPURIOUS);
	return IRQ_HANDLED;
}

static irqreturn_t nb_tx_interrupt(int irq, void *data)
{
	struct xfab_nb_queue *q = data;

	atomic64_inc(&q->st.txr_irqs);
	return nb_event(q, irq, XFAB_NB_EOI_TX, &q->st.txr_spurious);
}

static irqreturn_t nb_rx_interrupt(int irq, void *data)
{
	struct xfab_nb_queue *q = data;

	atomic64_inc(&q->st.rxr_irqs);
	return nb_event(q, irq, XFAB_NB_EOI_RX, &q->st.rxr_spurious);
}

static irqreturn_t nb_interrupt(int irq, void *data)
{
	struct xfab_nb_queue *q = data;

	atomic64_inc(&q->st.txr_irqs);
	return nb_event(q, irq, XFAB_NB_EOI_TX | XFAB_NB_EOI_RX,
			&q->st.txr_spurious);
}

/* A peer error we cannot answer packet by packet: stop using the vif. */
void xfab_nb_fatal(struct xfab_nb_queue *q, const char *why)
{
	struct xfab_nb_vif *vif = q->vif;

	if (!q->broken) {
		netdev_err(vif->dev, "queue %u: %s; disabling the vif\n",
			   q->id, why);
		atomic64_inc(&q->st.fatal);
	}
	q->broken = true;
	vif->disabled = true;
	netif_carrier_off(vif->dev);
}

void xfab_nb_vif_carrier(struct xfab_nb_vif *vif, bool on)
{
	if (on && !vif->disabled) {
		netif_carrier_on(vif->dev);
		netif_tx_wake_all_queues(vif->dev);
	} else {
		netif_carrier_off(vif->dev);
	}
}

static int nb_map_rings(struct xfab_nb_queue *q, grant_ref_t tx_ref,
			grant_ref_t rx_ref)
{
	struct xenbus_device *xdev = q->vif->xdev;
	int err;

	err = xenbus_map_ring_valloc(xdev, &tx_ref, 1, &q->tx_addr);
	if (err)
		return err;
	atomic_inc(&xfab_nb_totals.rings_mapped);
	BACK_RING_INIT(&q->tx, (struct xen_netif_tx_sring *)q->tx_addr,
		       XEN_PAGE_SIZE);
	err = xenbus_map_ring_valloc(xdev, &rx_ref, 1, &q->rx_addr);
	if (err)
		return err;
	atomic_inc(&xfab_nb_totals.rings_mapped);
	BACK_RING_INIT(&q->rx, (struct xen_netif_rx_sring *)q->rx_addr,
		       XEN_PAGE_SIZE);
	q->tx_pushed = 0;
	q->rx_pushed = 0;
	return 0;
}

/*
 * Bound with the irq off and switched on once q holds its number: Xen
 * raises a port as it binds it (kicks the frontend sent before were
 * lost, so it assumes one), and that first event may be taken at once on
 * another CPU, where NAPI's EOI and our kicks go through q->tx_irq and
 * q->rx_irq. Before this, an EOI given to irq 0 left a restored guest's
 * queue masked for good.
 */
static int nb_bind_one(struct xfab_nb_queue *q, unsigned int evtchn,
		       irq_handler_t fn, int *irq)
{
	int ret = bind_interdomain_evtchn_to_irqhandler_lateeoi(q->vif->xdev,
		evtchn, fn, IRQF_NO_AUTOEN, q->name, q);

	if (ret < 0)
		return ret;
	*irq = ret;
	atomic_inc(&xfab_nb_totals.irqs_bound);
	return 0;
}

static int nb_bind(struct xfab_nb_queue *q, unsigned int tx_evtchn,
		   unsigned int rx_evtchn)
{
	int err;

	if (tx_evtchn == rx_evtchn) {
		err = nb_bind_one(q, tx_evtchn, nb_interrupt, &q->tx_irq);
		q->rx_irq = q->tx_irq;
	} else {
		err = nb_bind_one(q, tx_evtchn, nb_tx_interrupt, &q->tx_irq) ?:
		      nb_bind_one(q, rx_evtchn, nb_rx_interrupt, &q->rx_irq);
	}
	if (err)
		return err;
	enable_irq(q->tx_irq);
	if (q->rx_irq != q->tx_irq)
		enable_irq(q->rx_irq);
	return 0;
}

int xfab_nb_queue_connect(struct xfab_nb_queue *q, grant_ref_t tx_ref,
			  grant_ref_t rx_ref, unsigned int tx_evtchn,
			  unsigned int rx_evtchn)
{
	int err = -ENOMEM;

	q->broken = false;
	q->tx_throttled = false;
	xfab_credit_init(&q->credit, q->vif->rate_bytes, q->vif->rate_usec,
			 ktime_get_ns());
	atomic_set(&q->eoi_pending, 0);
	q->tx_ops = kvcalloc(XFAB_NB_MAX_OPS, sizeof(*q->tx_ops), GFP_KERNEL);
	q->rx_ops = kvcalloc(XFAB_NB_MAX_OPS, sizeof(*q->rx_ops), GFP_KERNEL);
	if (!q->tx_ops || !q->rx_ops)
		goto fail;
	err = nb_map_rings(q, tx_ref, rx_ref);
	if (err)
		goto fail;
	netif_napi_add(q->vif->dev, &q->napi, xfab_nb_tx_poll);
	napi_enable(&q->napi);
	q->napi_added = true;
	q->rx_progress = jiffies;
	q->rx_stalled = false;
	/* Before the interrupts: a first event finds a working queue. */
	q->connected = true;
	err = nb_bind(q, tx_evtchn, rx_evtchn);
	if (err)
		goto fail;
	xfab_nb_debugfs_add(q);
	atomic_inc(&xfab_nb_totals.queues_connected);
	q->counted = true;
	return 0;
fail:
	xfab_nb_queue_disconnect(q);
	return err;
}

void xfab_nb_queue_disconnect(struct xfab_nb_queue *q)
{
	struct xenbus_device *xdev = q->vif->xdev;

	q->connected = false;
	/*
	 * Any xmit that saw the queue connected is over after this, later
	 * ones drop. netif_tx_disable() alone does not do it: until they
	 * are cancelled below, the worker and the stall timer (its aging
	 * and purge) take packets off the backlog and so wake the queue.
	 */
	synchronize_net();
	xfab_nb_debugfs_del(q);
	if (q->counted)
		atomic_dec(&xfab_nb_totals.queues_connected);
	q->counted = false;
	/* a held notification goes nowhere now; xmit may still arm one */
	hrtimer_cancel(&q->rx_kick_timer);
	/*
	 * No handler runs from here on, so none schedules NAPI or queues
	 * the worker again. The irqs stay bound until both have stopped:
	 * each gives its EOI to our own (masked) irq, never to a number a
	 * new binding could have taken meanwhile.
	 */
	if (q->tx_irq > 0)
		disable_irq(q->tx_irq);
	if (q->rx_irq > 0 && q->rx_irq != q->tx_irq)
		disable_irq(q->rx_irq);
	if (q->napi_added) {
		napi_disable(&q->napi);
		/* After the last poll (which may arm it), before napi goes. */
		timer_delete_sync(&q->rate_timer);
		netif_napi_del(&q->napi);
		q->napi_added = false;
	}
	/* the stall purge queues the worker: stop it first */
	cancel_delayed_work_sync(&q->rx_stall);
	cancel_work_sync(&q->rx_work);
	/*
	 * No completion reaches the queue from here (NAPI is stopped), and
	 * the worker that reads q->ptr (RX by reference) has stopped too.
	 */
	xfab_nb_ptr_detach(q);
	atomic64_add(xfab_nb_rx_purge(q), &q->st.rxr_drop_down);
	xfab_nb_rx_hold_release(q);
	hrtimer_cancel(&q->rx_kick_timer);
	q->rx_kick_armed = false;
	if (q->rx_irq > 0 && q->rx_irq != q->tx_irq) {
		unbind_from_irqhandler(q->rx_irq, q);
		atomic_dec(&xfab_nb_totals.irqs_bound);
	}
	if (q->tx_irq > 0) {
		unbind_from_irqhandler(q->tx_irq, q);
		atomic_dec(&xfab_nb_totals.irqs_bound);
	}
	q->tx_irq = q->rx_irq = 0;
	/* the datapath is stopped: nothing reads the pools any more */
	xfab_nb_pool_unmap(q, &q->tx_pool);
	xfab_nb_pool_unmap(q, &q->rx_pool);
	if (q->tx_addr) {
		xenbus_unmap_ring_vfree(xdev, q->tx_addr);
		atomic_dec(&xfab_nb_totals.rings_mapped);
	}
	if (q->rx_addr) {
		xenbus_unmap_ring_vfree(xdev, q->rx_addr);
		atomic_dec(&xfab_nb_totals.rings_mapped);
	}
	q->tx_addr = q->rx_addr = NULL;
	kvfree(q->tx_ops);
	kvfree(q->rx_ops);
	q->tx_ops = q->rx_ops = NULL;
}

static int nb_open(struct net_device *dev)
{
	struct xfab_nb_vif *vif = netdev_priv(dev);

	if (vif->num_queues && !vif->disabled)
		netif_tx_start_all_queues(dev);
	return 0;
}

static int nb_stop(struct net_device *dev)
{
	netif_tx_stop_all_queues(dev);
	return 0;
}

/* Offer the stack only what the guest said it can receive. */
static netdev_features_t nb_fix_features(struct net_device *dev,
					 netdev_features_t f)
{
	struct xfab_nb_vif *vif = netdev_priv(dev);

	if (!vif->can_sg)
		f &= ~NETIF_F_SG;
	if (!vif->gso_v4)
		f &= ~NETIF_F_TSO;
	if (!vif->gso_v6)
		f &= ~NETIF_F_TSO6;
	if (!vif->ip_csum)
		f &= ~NETIF_F_IP_CSUM;
	if (!vif->ipv6_csum)
		f &= ~NETIF_F_IPV6_CSUM;
	return f;
}

static int nb_change_mtu(struct net_device *dev, int mtu)
{
	struct xfab_nb_vif *vif = netdev_priv(dev);

	if (mtu > ETH_DATA_LEN && !vif->can_sg)
		return -EINVAL;
	WRITE_ONCE(dev->mtu, mtu);
	return 0;
}

/* The net_device's view: rx is what the guest sent us. */
static void nb_get_stats64(struct net_device *dev,
			   struct rtnl_link_stats64 *s)
{
	struct xfab_nb_vif *vif = netdev_priv(dev);
	unsigned int i, e;

	for (i = 0; i < vif->nr_alloc; i++) {
		const struct xfab_nb_stats *st = &vif->queues[i].st;
		const struct u64_stats_sync *tx = &st->tx_sync, *rx = &st->rx_sync;

		s->rx_packets += xfab_stat_get(tx, &st->txr_packets);
		s->rx_bytes += xfab_stat_get(tx, &st->txr_bytes);
		s->tx_packets += xfab_stat_get(rx, &st->rxr_packets);
		s->tx_bytes += xfab_stat_get(rx, &st->rxr_bytes);
		for (e = 1; e < XFAB_TX_NR_ERRS; e++)
			s->rx_errors += xfab_stat_get(tx, &st->txr_err[e]);
		s->rx_dropped += xfab_stat_get(tx, &st->txr_drop_copy) +
				 xfab_stat_get(tx, &st->txr_drop_csum) +
				 xfab_stat_get(tx, &st->txr_drop_nomem);
		s->tx_dropped += atomic64_read(&st->rxr_drop_backlog) +
				 atomic64_read(&st->rxr_drop_down) +
				 atomic64_read(&st->rxr_drop_big) +
				 xfab_stat_get(rx, &st->rxr_drop_copy) +
				 atomic64_read(&st->rxr_drop_nomem) +
				 atomic64_read(&st->rxr_drop_stall) +
				 atomic64_read(&st->rxr_drop_aged);
	}
}

static const struct net_device_ops nb_netdev_ops = {
	.ndo_open = nb_open,
	.ndo_stop = nb_stop,
	.ndo_start_xmit = xfab_nb_start_xmit,
	.ndo_fix_features = nb_fix_features,
	.ndo_change_mtu = nb_change_mtu,
	.ndo_get_stats64 = nb_get_stats64,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

/* One of ours? (ptr.c: an exit toward our vif needs no copy there.) */
bool xfab_nb_is_vif(const struct net_device *dev)
{
	return dev->netdev_ops == &nb_netdev_ops;
}

static void nb_queue_init(struct xfab_nb_vif *vif, unsigned int i)
{
	struct xfab_nb_queue *q = &vif->queues[i];

	q->vif = vif;
	q->id = i;
	snprintf(q->name, sizeof(q->name), "%s-q%u", vif->dev->name, i);
	skb_queue_head_init(&q->rx_queue);
	u64_stats_init(&q->st.tx_sync);
	u64_stats_init(&q->st.rx_sync);
	INIT_WORK(&q->rx_work, xfab_nb_rx_work);
	INIT_DELAYED_WORK(&q->rx_stall, xfab_nb_rx_stall_check);
	skb_queue_head_init(&q->rx_held);
	skb_queue_head_init(&q->rx_refs);
	timer_setup(&q->rx_hold_timer, xfab_nb_rx_hold_timer, 0);
	timer_setup(&q->rate_timer, xfab_nb_rate_timer, 0);
	hrtimer_init(&q->rx_kick_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	q->rx_kick_timer.function = xfab_nb_rx_kick_timer;
}

/* fe:ff:ff:ff:ff:ff, as Xen's bridges expect: never the guest's MAC. */
static const u8 nb_bridge_mac[ETH_ALEN] = { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff };

struct xfab_nb_vif *xfab_nb_vif_create(struct xenbus_device *xdev,
				       unsigned int handle)
{
	struct xfab_nb_vif *vif;
	struct net_device *dev;
	char name[IFNAMSIZ];
	unsigned int i;
	int err;

	snprintf(name, sizeof(name), "vif%u.%u", xdev->otherend_id, handle);
	dev = alloc_netdev_mq(sizeof(*vif), name, NET_NAME_UNKNOWN,
			      ether_setup, xfab_nb_max_queues);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	vif = netdev_priv(dev);
	vif->dev = dev;
	vif->xdev = xdev;
	vif->domid = xdev->otherend_id;
	vif->handle = handle;
	vif->nr_alloc = xfab_nb_max_queues;
	/* 0644: a later value (clamped) applies to vifs made from then on */
	vif->poll_ns = min_t(unsigned int, READ_ONCE(xfab_nb_poll_us),
			     XFAB_NB_POLL_MAX_US) * NSEC_PER_USEC;
	vif->poll_adaptive = true;
	vif->kick_ns = min_t(unsigned int, READ_ONCE(xfab_nb_kick_us),
			     XFAB_NB_KICK_MAX_US) * NSEC_PER_USEC;
	vif->queues = kvcalloc(vif->nr_alloc, sizeof(*vif->queues), GFP_KERNEL);
	if (!vif->queues) {
		free_netdev(dev);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < vif->nr_alloc; i++)
		nb_queue_init(vif, i);

	SET_NETDEV_DEV(dev, &xdev->dev);
	dev->netdev_ops = &nb_netdev_ops;
	dev->ethtool_ops = &xfab_nb_ethtool_ops;
	dev->hw_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
			   NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_RXCSUM |
			   NETIF_F_GRO_HW | NETIF_F_FRAGLIST;
	dev->features = dev->hw_features;
	if (!xfab_nb_lro)
		dev->features &= ~NETIF_F_GRO_HW;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = XEN_NETIF_MAX_TX_SIZE - VLAN_ETH_HLEN;
	/* A guest's packet is at most 64 KiB on the wire protocol. */
	netif_set_tso_max_size(dev, XEN_NETIF_MAX_TX_SIZE - VLAN_ETH_HLEN);
	eth_hw_addr_set(dev, nb_bridge_mac);
	netif_carrier_off(dev);
	err = register_netdev(dev);
	if (err) {
		kvfree(vif->queues);
		free_netdev(dev);
		return ERR_PTR(err);
	}
	netif_tx_stop_all_queues(dev);
	atomic_inc(&xfab_nb_totals.vifs);
	return vif;
}

/* Disconnect first (xenbus.c does); this only frees. */
void xfab_nb_vif_destroy(struct xfab_nb_vif *vif)
{
	struct net_device *dev = vif->dev;

	unregister_netdev(dev);
	kvfree(vif->queues);
	free_netdev(dev);
	atomic_dec(&xfab_nb_totals.vifs);
}
