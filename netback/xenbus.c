// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Negotiation with the frontend over xenstore. Every state change goes
 * through nb_set_state(), which walks the backend one legal step at a
 * time toward the state the frontend's move calls for:
 *
 *   InitWait --connect ok--> Connected --> Closing --> Closed --> InitWait
 *
 * (probe starts in InitWait). The switch to Connected is published only
 * once the toolstack's vif hotplug script reported "connected", because
 * only then is vifD.N in the bridge.
 *
 * All of it runs in the xenwatch thread (probe, watches, remove on device
 * removal) or under the driver core on module unload, never concurrently
 * for one device.
 */
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/etherdevice.h>
#include "common.h"
#include "xfab_xs.h"

struct nb_backend {
	struct xenbus_device *xdev;
	struct xfab_nb_vif *vif;
	enum xenbus_state state;	/* where we are (published or pending) */
	struct xenbus_watch hotplug_watch;
	bool hotplug_watching;
	bool hotplug_done;
	char *script;
	/* pointer mode: offered (xfab_window held), and this connect's window */
	bool ptr_offered;
	bool ptr_wanted;
	struct xfab_wnops wn;
};

static void nb_publish(struct nb_backend *be, enum xenbus_state s)
{
	be->state = s;
	if (s == XenbusStateConnected && !be->hotplug_done)
		return;		/* hotplug_changed() publishes it */
	xenbus_switch_state(be->xdev, s);
}

/* ---- reading what the frontend wrote (hostile until checked) ---- */

static unsigned int fe_flag(struct nb_backend *be, const char *key, int def)
{
	return xenbus_read_unsigned(be->xdev->otherend, key, def) ? 1 : 0;
}

static int fe_features(struct nb_backend *be)
{
	struct xfab_nb_vif *vif = be->vif;
	struct xenbus_device *xdev = be->xdev;

	if (!fe_flag(be, "request-rx-copy", 0)) {
		xenbus_dev_fatal(xdev, -EOPNOTSUPP,
				 "frontend must use request-rx-copy (flip mode is gone)");
		return -EOPNOTSUPP;
	}
	if (!fe_flag(be, "feature-rx-notify", 0)) {
		xenbus_dev_fatal(xdev, -EOPNOTSUPP,
				 "frontend must support feature-rx-notify");
		return -EOPNOTSUPP;
	}
	vif->can_sg = fe_flag(be, "feature-sg", 0);
	vif->gso_v4 = fe_flag(be, "feature-gso-tcpv4", 0);
	vif->gso_v6 = fe_flag(be, "feature-gso-tcpv6", 0);
	vif->ip_csum = !fe_flag(be, "feature-no-csum-offload", 0);
	vif->ipv6_csum = fe_flag(be, "feature-ipv6-csum-offload", 0);
	return 0;
}

static int fe_num_queues(struct nb_backend *be, unsigned int *n)
{
	*n = xenbus_read_unsigned(be->xdev->otherend, "multi-queue-num-queues",
				  1);
	if (*n == 0 || *n > xfab_nb_max_queues) {
		xenbus_dev_fatal(be->xdev, -EINVAL,
				 "frontend asks for %u queues, we offer 1..%u",
				 *n, xfab_nb_max_queues);
		return -EINVAL;
	}
	return 0;
}

/*
 * The toolstack's "rate" key (xl vif "rate="): "<bytes>,<usec>". It is
 * our own config, not the guest's, but hand edits happen: a malformed
 * value fails the connect with the reason rather than run unlimited.
 */
static int be_rate(struct nb_backend *be)
{
	struct xfab_nb_vif *vif = be->vif;
	const char *why;
	char *s;
	int err;

	vif->rate_bytes = vif->rate_usec = 0;
	s = xenbus_read(XBT_NIL, be->xdev->nodename, "rate", NULL);
	if (IS_ERR(s))
		return 0;	/* no key: no limit */
	err = xfab_credit_parse(s, &vif->rate_bytes, &vif->rate_usec, &why);
	if (err) {
		xenbus_dev_fatal(be->xdev, err, "%s/rate \"%s\": %s",
				 be->xdev->nodename, s, why);
		vif->rate_bytes = vif->rate_usec = 0;
	}
	kfree(s);
	return err;
}

/*
 * A pool the budget refused: one line per connect (every queue of a
 * greedy frontend would say the same), ratelimited over all vifs.
 */
static void fe_pool_refused(struct nb_backend *be, struct xfab_nb_queue *q,
			    const char *kind, unsigned int pages,
			    const char *why)
{
	if (be->vif->pool_refusal_logged)
		return;
	be->vif->pool_refusal_logged = true;
	dev_warn_ratelimited(&be->xdev->dev,
			     "queue %u: %s pool of %u pages refused: %s; that ring grant-copies (this and any further refusal: ethtool -S pool_refused_*)\n",
			     q->id, kind, pages, why);
}

/*
 * One of the frontend's pools (kind "tx" or "rx"), if it published one:
 * mapped before the queue connects. A pool that will not map, or that
 * the budget refuses, is only logged and counted; the queue works
 * without it, by grant copy, which every slot allows. The frontend is
 * not told: its slots are the same either way.
 */
static void fe_queue_pool(struct nb_backend *be, struct xfab_nb_queue *q,
			  const char *dir, const char *kind,
			  struct xfab_nb_pool *p, bool readonly)
{
	unsigned int ref, pages;
	const char *why = NULL;
	char key[2][24];
	int err;

	if (!xfab_nb_pool_pages)
		return;
	snprintf(key[0], sizeof(key[0]), "xfab-%s-pool-ref", kind);
	snprintf(key[1], sizeof(key[1]), "xfab-%s-pool-pages", kind);
	if (xenbus_gather(XBT_NIL, dir, key[0], "%u", &ref, key[1], "%u",
			  &pages, NULL))
		return;		/* no pool: plain grants */
	err = xfab_nb_pool_map(q, p, ref, pages, readonly, &why);
	if (!err) {
		dev_info(&be->xdev->dev, "queue %u: %s pool of %u pages mapped\n",
			 q->id, kind, pages);
		return;
	}
	if (err == -ENOSPC) {
		fe_pool_refused(be, q, kind, pages, why);
		return;
	}
	atomic64_inc(&q->st.pool_fail);
	dev_warn(&be->xdev->dev, "queue %u: %s pool (ref %u, %u pages) not used: %s\n",
		 q->id, kind, ref, pages, why);
}

/* One queue's rings and channels, from dir (the frontend's or queue-N). */
static int fe_queue_connect(struct nb_backend *be, struct xfab_nb_queue *q,
			    const char *dir)
{
	unsigned int tx_ref, rx_ref, tx_ev, rx_ev;
	int err;

	err = xenbus_gather(XBT_NIL, dir, "tx-ring-ref", "%u", &tx_ref,
			    "rx-ring-ref", "%u", &rx_ref, NULL);
	if (err) {
		xenbus_dev_fatal(be->xdev, err, "reading %s/{tx,rx}-ring-ref",
				 dir);
		return err;
	}
	if (xenbus_scanf(XBT_NIL, dir, "event-channel", "%u", &tx_ev) == 1) {
		rx_ev = tx_ev;
	} else {
		err = xenbus_gather(XBT_NIL, dir, "event-channel-tx", "%u",
				    &tx_ev, "event-channel-rx", "%u", &rx_ev,
				    NULL);
		if (err) {
			xenbus_dev_fatal(be->xdev, err,
					 "reading %s/event-channel[-tx,-rx]",
					 dir);
			return err;
		}
	}
	fe_queue_pool(be, q, dir, "tx", &q->tx_pool, true);
	fe_queue_pool(be, q, dir, "rx", &q->rx_pool, false);
	/* a frontend that publishes pools is xfab: its TX ring is polled */
	q->tx_polling = q->tx_pool.n || q->rx_pool.n;
	if (be->vif->ptr) {
		err = xfab_nb_ptr_attach(q);
		if (err) {
			xenbus_dev_fatal(be->xdev, err,
					 "queue %u: pointer mode (is xfab_window still loaded?)",
					 q->id);
			return err;
		}
	}
	err = xfab_nb_queue_connect(q, tx_ref, rx_ref, tx_ev, rx_ev);
	/* One line per queue: what a stalled queue is bound to, for diag. */
	if (!err)
		dev_info(&be->xdev->dev, "queue %u: ring refs %u/%u, channels %u/%u\n",
			 q->id, tx_ref, rx_ref, tx_ev, rx_ev);
	if (err)
		xenbus_dev_fatal(be->xdev, err,
				 "mapping rings %u/%u, binding channels %u/%u of %s",
				 tx_ref, rx_ref, tx_ev, rx_ev, dir);
	return err;
}

/*
 * Pointer mode if we offered it and the frontend took it (xfab-ptr): the
 * window over the frontend is asked for now, when the toolstack has made
 * it a group member. A frontend that asks though xfab_window may not map
 * it fails the connect with the reason: its pointer slots could only be
 * dropped. A window that is slow to come leaves the mode on: pointer
 * slots are dropped and counted (txr_ptr_no_window) until it is there,
 * never read from anywhere else.
 */
static int fe_ptr(struct nb_backend *be)
{
	struct xfab_nb_vif *vif = be->vif;
	int err;

	vif->ptr = be->ptr_offered && fe_flag(be, "xfab-ptr", 0);
	if (!vif->ptr)
		return 0;
	err = xfab_nb_ptr_want(&be->wn, vif->domid);
	be->ptr_wanted = !err || err == -ETIMEDOUT;	/* asked, if slow */
	if (err == -ETIMEDOUT) {
		dev_warn(&be->xdev->dev, "pointer mode: no window over domain %u yet; its pointer slots are dropped until there is one (txr_ptr_no_window)\n",
			 vif->domid);
		return 0;
	}
	if (err) {
		xenbus_dev_fatal(be->xdev, err, "frontend asks for pointer mode (xfab-ptr), but xfab_window may not map domain %u (is it a live PV member of a group?)",
				 vif->domid);
		vif->ptr = false;
		return err;
	}
	/* RX by reference needs the RX pool too: the headers go there */
	vif->ptr_rx = fe_flag(be, "xfab-ptr-rx", 0);
	dev_info(&be->xdev->dev, "pointer mode: TX read through the window over domain %u%s\n",
		 vif->domid,
		 vif->ptr_rx ? "; RX from members by reference" : "");
	return 0;
}

/* The end of this connect's pointer mode: the window may go. */
static void fe_ptr_end(struct nb_backend *be)
{
	if (be->ptr_wanted)
		be->wn.unwant(be->xdev->otherend_id);
	be->ptr_wanted = false;
}

static void nb_disconnect(struct nb_backend *be)
{
	struct xfab_nb_vif *vif = be->vif;
	unsigned int i;

	if (!vif)
		return;
	xfab_nb_vif_carrier(vif, false);
	netif_tx_disable(vif->dev);	/* no xmit runs past this */
	for (i = 0; i < vif->nr_alloc; i++)
		xfab_nb_queue_disconnect(&vif->queues[i]);
	vif->num_queues = 0;
	vif->ptr = false;
	vif->ptr_rx = false;
	fe_ptr_end(be);
}

/* Apply what the frontend can receive to the net_device. */
static void nb_apply_features(struct xfab_nb_vif *vif, unsigned int nq)
{
	rtnl_lock();
	netif_set_real_num_tx_queues(vif->dev, nq);
	netdev_update_features(vif->dev);
	if (!vif->can_sg && vif->dev->mtu > ETH_DATA_LEN)
		dev_set_mtu(vif->dev, ETH_DATA_LEN);
	rtnl_unlock();
}

static int nb_connect(struct nb_backend *be)
{
	struct xfab_nb_vif *vif = be->vif;
	unsigned int nq, i;
	char *dir;
	int err;

	err = fe_features(be);
	if (!err)
		err = fe_num_queues(be, &nq);
	if (!err)
		err = be_rate(be);
	if (err)
		return err;
	nb_apply_features(vif, nq);
	err = fe_ptr(be);
	if (err) {
		fe_ptr_end(be);
		return err;
	}
	vif->split_evtchn = false;
	vif->disabled = false;
	vif->pool_refusal_logged = false;
	for (i = 0; i < nq; i++) {
		if (nq == 1)
			dir = kstrdup(be->xdev->otherend, GFP_KERNEL);
		else
			dir = kasprintf(GFP_KERNEL, "%s/queue-%u",
					be->xdev->otherend, i);
		if (!dir) {
			err = -ENOMEM;
			break;
		}
		err = fe_queue_connect(be, &vif->queues[i], dir);
		kfree(dir);
		if (err)
			break;
		vif->split_evtchn |= vif->queues[i].tx_irq != vif->queues[i].rx_irq;
	}
	if (err) {
		nb_disconnect(be);
		return err;
	}
	vif->num_queues = nq;
	xfab_nb_vif_carrier(vif, true);
	return 0;
}

/* ---- the state function ---- */

/* Step by legal step toward target (common/xfab_xenbus.c decides). */
static void nb_set_state(struct nb_backend *be, enum xenbus_state target)
{
	enum xfab_be_work work;
	int next;

	while ((next = xfab_be_step(be->state, target, &work)) != be->state) {
		if (work == XFAB_BE_CONNECT && nb_connect(be))
			return;		/* fatal error already reported */
		if (work == XFAB_BE_DISCONNECT)
			nb_disconnect(be);
		nb_publish(be, next);
	}
}

static void nb_frontend_changed(struct xenbus_device *xdev,
				enum xenbus_state fe)
{
	struct nb_backend *be = dev_get_drvdata(&xdev->dev);
	bool gone;
	int target;

	/* netfront publishes its rings when it goes Connected */
	target = xfab_be_target(fe, XenbusStateConnected,
				xenbus_dev_is_online(xdev), &gone);
	if (target < 0) {
		xenbus_dev_fatal(xdev, -EINVAL, "frontend in state %d", fe);
		return;
	}
	nb_set_state(be, target);
	if (gone)
		device_unregister(&xdev->dev);
}

/* ---- hotplug-status (written by xl's vif script) ---- */

static void nb_hotplug_changed(struct xenbus_watch *w, const char *path,
			       const char *token)
{
	struct nb_backend *be = container_of(w, struct nb_backend,
					     hotplug_watch);
	unsigned int len;
	char *s;

	s = xenbus_read(XBT_NIL, be->xdev->nodename, "hotplug-status", &len);
	if (IS_ERR(s))
		return;
	if (!be->hotplug_done && len == 9 && !memcmp(s, "connected", 9)) {
		be->hotplug_done = true;
		/* publish a Connected we reached while waiting */
		if (be->state == XenbusStateConnected)
			xenbus_switch_state(be->xdev, be->state);
	}
	kfree(s);
}

static int nb_uevent(const struct xenbus_device *xdev,
		     struct kobj_uevent_env *env)
{
	struct nb_backend *be = dev_get_drvdata(&xdev->dev);

	if (!be)
		return 0;
	if (be->script && add_uevent_var(env, "script=%s", be->script))
		return -ENOMEM;
	if (be->vif)
		return add_uevent_var(env, "vif=%s", be->vif->dev->name);
	return 0;
}

/* ---- probe / remove ---- */

/* What we offer, for xfab_xs_write(): one transaction. */
static int nb_features(struct xenbus_transaction t, void *arg)
{
	struct nb_backend *be = arg;
	const char *node = be->xdev->nodename;

	return xenbus_printf(t, node, "feature-sg", "1") ?:
	       xenbus_printf(t, node, "feature-gso-tcpv4", "1") ?:
	       xenbus_printf(t, node, "feature-gso-tcpv6", "1") ?:
	       xenbus_printf(t, node, "feature-ipv6-csum-offload", "1") ?:
	       xenbus_printf(t, node, "feature-rx-copy", "1") ?:
	       xenbus_printf(t, node, "feature-rx-flip", "0") ?:
	       xenbus_printf(t, node, "feature-split-event-channels", "1") ?:
	       xenbus_printf(t, node, "multi-queue-max-queues", "%u",
			     xfab_nb_max_queues) ?:
	       xenbus_printf(t, node, "feature-xfab-pool", "%u",
			     xfab_nb_pool_pages ? 1 : 0) ?:
	       xenbus_printf(t, node, "xfab-pool-max-pages", "%u",
			     xfab_nb_pool_pages) ?:
	       xenbus_printf(t, node, "feature-xfab-ptr", "%u",
			     be->ptr_offered ? 1 : 0) ?:
	       xfab_xs_driver(t, node);
}

static void nb_remove(struct xenbus_device *xdev)
{
	struct nb_backend *be = dev_get_drvdata(&xdev->dev);

	if (!be)
		return;
	nb_set_state(be, XenbusStateClosed);
	if (be->hotplug_watching) {
		unregister_xenbus_watch(&be->hotplug_watch);
		kfree(be->hotplug_watch.node);
		be->hotplug_watching = false;
	}
	if (be->vif) {
		xfab_nb_vif_destroy(be->vif);
		be->vif = NULL;
	}
	if (be->ptr_offered)
		xfab_nb_ptr_unoffer(&be->wn);
	be->ptr_offered = false;
	kfree(be->script);
	dev_set_drvdata(&xdev->dev, NULL);
	kfree(be);
	xfab_xs_driver_gone(xdev);
}

static int nb_probe(struct xenbus_device *xdev,
		    const struct xenbus_device_id *id)
{
	struct nb_backend *be;
	unsigned int handle;
	int err;

	be = kzalloc(sizeof(*be), GFP_KERNEL);
	if (!be)
		return -ENOMEM;
	be->xdev = xdev;
	be->state = XenbusStateInitialising;
	dev_set_drvdata(&xdev->dev, be);

	err = -EINVAL;
	if (xenbus_scanf(XBT_NIL, xdev->nodename, "handle", "%u", &handle) != 1) {
		xenbus_dev_fatal(xdev, err, "reading handle");
		goto fail;
	}
	be->script = xenbus_read(XBT_NIL, xdev->nodename, "script", NULL);
	if (IS_ERR(be->script))
		be->script = NULL;	/* only udev-run scripts need it */
	be->ptr_offered = xfab_nb_ptr_offer(&be->wn);
	err = xfab_xs_write(nb_features, be);
	if (err) {
		xenbus_dev_fatal(xdev, err, "writing features");
		goto fail;
	}
	be->vif = xfab_nb_vif_create(xdev, handle);
	if (IS_ERR(be->vif)) {
		err = PTR_ERR(be->vif);
		be->vif = NULL;
		xenbus_dev_fatal(xdev, err, "creating vif%u.%u",
				 xdev->otherend_id, handle);
		goto fail;
	}
	/* Fires at once if a script already ran (our module reloaded). */
	err = xenbus_watch_pathfmt(xdev, &be->hotplug_watch, NULL,
				   nb_hotplug_changed, "%s/hotplug-status",
				   xdev->nodename);
	if (err)
		goto fail;
	be->hotplug_watching = true;
	nb_publish(be, XenbusStateInitWait);
	kobject_uevent(&xdev->dev.kobj, KOBJ_ONLINE);
	return 0;
fail:
	nb_remove(xdev);
	return err;
}

static const struct xenbus_device_id nb_ids[] = {
	{ "vif" },
	{ "" }
};

/*
 * Named, so that it can sit beside xen-netback on the bus and be told
 * apart in /sys/bus/xen-backend/drivers (unbinding before a reload: the
 * bus holds a module reference per bound vif).
 */
static struct xenbus_driver nb_driver = {
	.name = "xfab_netback",
	.ids = nb_ids,
	.probe = nb_probe,
	.remove = nb_remove,
	.uevent = nb_uevent,
	.otherend_changed = nb_frontend_changed,
};

int xfab_nb_xenbus_register(void)
{
	return xenbus_register_backend(&nb_driver);
}

void xfab_nb_xenbus_unregister(void)
{
	xenbus_unregister_driver(&nb_driver);
}
