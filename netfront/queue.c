// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_netfront queues: shared rings, grant pools, event channels, NAPI,
 * and the one teardown that undoes any prefix of them.
 *
 * Teardown order is what keeps a racing datapath or a hostile backend
 * from touching freed memory (XSA-350 class): stop TX and NAPI, then
 * unbind the interrupts, then end grants, and free only pages whose
 * grants ended (the rest go to the grant code's deferred free, XSA-396).
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/rtnetlink.h>
#include <xen/events.h>
#include <xen/page.h>
#include "common.h"

/*
 * Event storms (XSA-391): an event that finds no work is reported as
 * spurious, so that the event core throttles a backend that keeps
 * signalling for nothing.
 */
static irqreturn_t nf_irq_done(struct xfab_nf_queue *q, int irq, bool work)
{
	if (work && !xfab_nf_broken(q->info)) {
		napi_schedule(&q->napi);
		xen_irq_lateeoi(irq, 0);
	} else {
		atomic64_inc(&q->stats->spurious_irqs);
		xen_irq_lateeoi(irq, XEN_EOI_FLAG_SPURIOUS);
	}
	return IRQ_HANDLED;
}

static irqreturn_t nf_irq_tx(int irq, void *dev_id)
{
	struct xfab_nf_queue *q = dev_id;

	atomic64_inc(&q->stats->tx_irqs);
	return nf_irq_done(q, irq, xfab_nf_tx_pending(q));
}

static irqreturn_t nf_irq_rx(int irq, void *dev_id)
{
	struct xfab_nf_queue *q = dev_id;

	atomic64_inc(&q->stats->rx_irqs);
	return nf_irq_done(q, irq, xfab_nf_rx_pending(q));
}

/* One channel for both rings. */
static irqreturn_t nf_irq_both(int irq, void *dev_id)
{
	struct xfab_nf_queue *q = dev_id;

	atomic64_inc(&q->stats->rx_irqs);
	return nf_irq_done(q, irq,
			   xfab_nf_tx_pending(q) || xfab_nf_rx_pending(q));
}

/* Everything that cannot fail, so that teardown can run on any queue. */
static void nf_queue_basic(struct xfab_nf_info *info, unsigned int i)
{
	struct xfab_nf_queue *q = &info->queues[i];

	q->info = info;
	q->id = i;
	q->stats = &info->stats[i];
	spin_lock_init(&q->tx_lock);
	q->tx_ring_ref = INVALID_GRANT_REF;
	q->rx_ring_ref = INVALID_GRANT_REF;
	timer_setup(&q->refill_timer, xfab_nf_refill_timer, 0);
	xfab_ids_init(&q->tx_ids, XFAB_NF_TX_RING_SIZE, q->tx_id_link,
		      q->tx_id_busy);
	netif_napi_add(info->netdev, &q->napi, xfab_nf_poll);
	q->napi_added = true;
}

static int nf_rings(struct xfab_nf_queue *q)
{
	struct xenbus_device *dev = q->info->xbdev;
	struct xen_netif_tx_sring *txs;
	struct xen_netif_rx_sring *rxs;
	int err;

	err = xenbus_setup_ring(dev, GFP_NOIO | __GFP_HIGH, (void **)&txs, 1,
				&q->tx_ring_ref);
	if (err)
		return err;
	XEN_FRONT_RING_INIT(&q->tx, txs, XEN_PAGE_SIZE);
	err = xenbus_setup_ring(dev, GFP_NOIO | __GFP_HIGH, (void **)&rxs, 1,
				&q->rx_ring_ref);
	if (err)
		return err;
	XEN_FRONT_RING_INIT(&q->rx, rxs, XEN_PAGE_SIZE);

	/* one grant per ring slot: claiming can then never fail */
	err = gnttab_alloc_grant_references(XFAB_NF_TX_RING_SIZE,
					    &q->tx_gref_head);
	if (err)
		return err;
	q->tx_gref_pool = true;
	q->tx_ptr = q->info->ptr;
	if (q->info->bounce) {
		err = xfab_nf_tx_pool_create(q);
		if (err)
			return err;
		if (q->info->pools)
			xfab_nf_tx_pool_publish(q);
	}
	/* ... and one per RX pool page lent */
	err = gnttab_alloc_grant_references(XFAB_NF_RX_RING_SIZE +
					    q->info->rx_lend, &q->rx_gref_head);
	if (err)
		return err;
	q->rx_gref_pool = true;
	return q->info->pools ? xfab_nf_rx_pool_create(q) : 0;
}

static int nf_bind(struct xfab_nf_queue *q, evtchn_port_t *port,
		   irq_handler_t fn, const char *what)
{
	struct xenbus_device *dev = q->info->xbdev;
	char *name = what[0] == 't' ? q->irq_name : q->irq_name_rx;
	int err, irq;

	err = xenbus_alloc_evtchn(dev, port);
	if (err)
		return err;
	snprintf(name, sizeof(q->irq_name), "%s-q%u%s",
		 q->info->netdev->name, q->id, what);
	irq = bind_evtchn_to_irqhandler_lateeoi(*port, fn, 0, name, q);
	if (irq < 0) {
		xenbus_free_evtchn(dev, *port);
		*port = 0;
		return irq;
	}
	return irq;
}

static int nf_evtchns(struct xfab_nf_queue *q, bool split)
{
	int irq;

	if (!split) {
		irq = nf_bind(q, &q->tx_evtchn, nf_irq_both, "tx");
		if (irq < 0)
			return irq;
		q->tx_irq = q->rx_irq = irq;
		q->rx_evtchn = q->tx_evtchn;
		return 0;
	}
	irq = nf_bind(q, &q->tx_evtchn, nf_irq_tx, "tx");
	if (irq < 0)
		return irq;
	q->tx_irq = irq;
	irq = nf_bind(q, &q->rx_evtchn, nf_irq_rx, "rx");
	if (irq < 0)
		return irq;
	q->rx_irq = irq;
	return 0;
}

/*
 * Rings, grant pools and event channels for nr queues, plus a full RX
 * ring each. Under rtnl. On error the caller runs xfab_nf_teardown.
 */
int xfab_nf_queues_create(struct xfab_nf_info *info, unsigned int nr)
{
	unsigned int i;
	int err;

	/*
	 * xmit does not take rtnl and trusts num_queues: no xmit may run
	 * until the queues are whole (a new device's TX queues start
	 * running; connect or open starts them again).
	 */
	netif_tx_disable(info->netdev);
	info->queues = kvcalloc(nr, sizeof(*info->queues), GFP_KERNEL);
	if (!info->queues)
		return -ENOMEM;
	info->num_queues = nr;
	for (i = 0; i < nr; i++)
		nf_queue_basic(info, i);
	for (i = 0; i < nr; i++) {
		struct xfab_nf_queue *q = &info->queues[i];

		err = nf_rings(q);
		if (!err)
			err = nf_evtchns(q, info->be.split_evtchn);
		if (err)
			return err;
		/* before NAPI runs: the RX ring is ours alone here */
		xfab_nf_rx_refill(q);
		xfab_nf_debugfs_queue_add(q);
	}
	err = netif_set_real_num_tx_queues(info->netdev, nr);
	if (!err)
		err = netif_set_real_num_rx_queues(info->netdev, nr);
	return err;
}

/* Nothing runs on q after this: no xmit, poll, timer or handler. */
static void nf_queue_quiesce(struct xfab_nf_queue *q)
{
	if (q->napi_on)
		napi_disable(&q->napi);
	q->napi_on = false;
	/* split channels can fail half bound: tx set, rx still 0 */
	if (q->rx_irq && q->rx_irq != q->tx_irq)
		unbind_from_irqhandler(q->rx_irq, q);
	if (q->tx_irq)
		unbind_from_irqhandler(q->tx_irq, q);
	q->tx_irq = q->rx_irq = 0;
	q->tx_evtchn = q->rx_evtchn = 0;
	/* NAPI is off: nothing re-arms the timer any more */
	timer_delete_sync(&q->refill_timer);
	xfab_nf_debugfs_queue_del(q);
}

static void nf_queue_free(struct xfab_nf_queue *q)
{
	if (q->tx.sring)
		xfab_nf_tx_release(q);
	if (q->rx.sring)
		xfab_nf_rx_release(q);
	if (q->tx_gref_pool)
		gnttab_free_grant_references(q->tx_gref_head);
	if (q->rx_gref_pool)
		gnttab_free_grant_references(q->rx_gref_head);
	q->tx_gref_pool = q->rx_gref_pool = false;
	xfab_ring_pages_free((void **)&q->tx.sring, 1, &q->tx_ring_ref);
	xfab_ring_pages_free((void **)&q->rx.sring, 1, &q->rx_ring_ref);
	if (q->napi_added)
		netif_napi_del(&q->napi);
	q->napi_added = false;
}

/*
 * Drop everything that points at the backend. Idempotent; the error path
 * of connect; under rtnl. The net_device and its counters stay.
 */
void xfab_nf_teardown(struct xfab_nf_info *info)
{
	unsigned int i;

	ASSERT_RTNL();
	netif_carrier_off(info->netdev);
	if (info->queues) {
		/* returns once no xmit runs; the stopped queues keep it so */
		netif_tx_disable(info->netdev);
		for (i = 0; i < info->num_queues; i++)
			nf_queue_quiesce(&info->queues[i]);
		for (i = 0; i < info->num_queues; i++)
			nf_queue_free(&info->queues[i]);
		kvfree(info->queues);
		info->queues = NULL;
		info->num_queues = 0;
	}
	/* NAPI, the only reader of the window, is stopped */
	if (info->ptr_rx)
		xfab_wnops_put(&info->wn);
	info->ptr_rx = false;
}
