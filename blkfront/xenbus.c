// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Negotiation with the backend. The frontend's path:
 *
 *   Initialising --backend InitWait: rings, channels, keys--> Initialised
 *   --backend Connected: disk added (or queues restarted)--> Connected
 *   --backend Closing/Closed: I/O failed, disk removed--> Closed
 *
 * Resume (xl restore): requests in flight go back to blk-mq's requeue
 * list, the rings are rebuilt for the new backend at once, and the
 * requests run again when it is Connected.
 *
 * Runs in the xenwatch thread, or in probe/remove/resume, never
 * concurrently for one device; info->lock only keeps sysfs readers off
 * the rings while they change.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <xen/interface/io/protocols.h>
#include "common.h"
#include "xfab_xs.h"
#include "xfab_kring.h"

/* xvd naming: 0 -> xvda, 25 -> xvdz, 26 -> xvdaa, ... */
static void bf_disk_name(unsigned int index, char *buf, size_t len)
{
	char tail[8];
	int n = 0;

	do {
		tail[n++] = 'a' + index % 26;
		index = index / 26;
	} while (index-- && n < (int)sizeof(tail));
	snprintf(buf, len, "xvd");
	while (n)
		strncat(buf, &tail[--n], 1);
}

/* The toolstack's virtual-device: xvd (major 202) or the extended form. */
static int bf_vdevice(struct xfab_bf_info *info)
{
	struct xenbus_device *xdev = info->xdev;
	unsigned int v, index;

	if (xenbus_scanf(XBT_NIL, xdev->nodename, "virtual-device", "%u",
			 &v) != 1 &&
	    xenbus_scanf(XBT_NIL, xdev->nodename, "virtual-device-ext", "%u",
			 &v) != 1) {
		xenbus_dev_fatal(xdev, -ENOENT, "reading virtual-device");
		return -ENOENT;
	}
	if (v & (1U << 28)) {
		index = (v & ~(1U << 28)) >> 8;
	} else if (v >> 8 == 202 && !(v & 15)) {
		index = (v & 0xff) >> 4;
	} else {
		xenbus_dev_fatal(xdev, -ENODEV,
				 "virtual-device %u: only whole xvd disks (major 202) are handled",
				 v);
		return -ENODEV;
	}
	info->vdevice = v;
	bf_disk_name(index, info->disk_name, sizeof(info->disk_name));
	return 0;
}

/* ---- rings ---- */

static void bf_free_rings(struct xfab_bf_info *info, struct list_head *left)
{
	unsigned int i;

	if (!info->rings)
		return;
	for (i = 0; i < info->nr_rings; i++) {
		struct xfab_bf_ring *ring = &info->rings[i];

		if (ring->irq > 0)
			unbind_from_irqhandler(ring->irq, ring);
		ring->irq = 0;
		if (ring->shadow)
			xfab_bf_ring_drain(ring, left);
		xfab_bf_ring_free(ring);
		/* a page the backend still maps is freed once it lets go */
		xfab_ring_pages_free((void **)&ring->sring,
				     1U << info->ring_order, ring->refs);
	}
	mutex_lock(&info->lock);
	for (i = 0; i < info->nr_rings; i++)
		xfab_stats_fold(&xfab_bf_stat_table, &info->gone,
				&info->rings[i].st);
	kfree(info->rings);
	info->rings = NULL;
	info->nr_rings = 0;
	mutex_unlock(&info->lock);
}

static int bf_ring_up(struct xfab_bf_info *info, struct xfab_bf_ring *ring)
{
	struct xenbus_device *xdev = info->xdev;
	unsigned int pages = 1U << info->ring_order;
	int err, irq;

	err = xenbus_setup_ring(xdev, GFP_NOIO, (void **)&ring->sring, pages,
				ring->refs);
	if (err)
		return err;
	SHARED_RING_INIT(ring->sring);
	FRONT_RING_INIT(&ring->front, ring->sring, XEN_PAGE_SIZE * pages);
	ring->pushed = ring->front.req_prod_pvt;
	err = xfab_bf_ring_setup(ring);
	if (err)
		return err;
	err = xenbus_alloc_evtchn(xdev, &ring->evtchn);
	if (err)
		return err;
	snprintf(ring->name, sizeof(ring->name), "%s-q%u", info->disk_name,
		 ring->id);
	irq = bind_evtchn_to_irqhandler_lateeoi(ring->evtchn,
						xfab_bf_interrupt, 0,
						ring->name, ring);
	if (irq < 0) {
		xenbus_free_evtchn(xdev, ring->evtchn);
		return irq;
	}
	ring->irq = irq;
	return 0;
}

/* One ring's keys, in dir (the device's own, or queue-<n>). */
static int bf_ring_keys(struct xenbus_transaction t, struct xfab_bf_info *info,
			struct xfab_bf_ring *ring, const char *dir)
{
	unsigned int i;
	char key[16];
	int err;

	if (!info->ring_order) {
		err = xenbus_printf(t, dir, "ring-ref", "%u", ring->refs[0]);
	} else {
		for (err = 0, i = 0; !err && i < (1U << info->ring_order); i++) {
			snprintf(key, sizeof(key), "ring-ref%u", i);
			err = xenbus_printf(t, dir, key, "%u", ring->refs[i]);
		}
	}
	return err ?: xenbus_printf(t, dir, "event-channel", "%u",
				    ring->evtchn);
}

static int bf_keys(struct xenbus_transaction t, void *arg)
{
	struct xfab_bf_info *info = arg;
	const char *node = info->xdev->nodename;
	unsigned int i;
	char *dir;
	int err;

	err = xenbus_printf(t, node, "protocol", "%s",
			    XEN_IO_PROTO_ABI_NATIVE) ?:
	      xenbus_printf(t, node, "feature-persistent", "1") ?:
	      xenbus_printf(t, node, "feature-xfab-blk", "1") ?:
	      xenbus_printf(t, node, "xfab-ro-grants", "%u", info->ro_grants) ?:
	      xfab_xs_driver(t, node);
	if (!err && info->ring_order)
		err = xenbus_printf(t, node, "ring-page-order", "%u",
				    info->ring_order);
	if (!err && info->feat.max_queues > 1)
		err = xenbus_printf(t, node, "multi-queue-num-queues", "%u",
				    info->nr_rings);
	if (err || info->nr_rings == 1)
		return err ?: bf_ring_keys(t, info, &info->rings[0], node);
	for (i = 0; !err && i < info->nr_rings; i++) {
		dir = kasprintf(GFP_NOIO, "%s/queue-%u", node, i);
		err = dir ? bf_ring_keys(t, info, &info->rings[i], dir) :
			    -ENOMEM;
		kfree(dir);
	}
	return err;
}

/* What the backend offers before we build rings (its probe-time keys). */
static void be_offer(struct xfab_bf_info *info)
{
	const char *be = info->xdev->otherend;
	struct xfab_bf_features *f = &info->feat;

	f->max_queues = xenbus_read_unsigned(be, "multi-queue-max-queues", 1);
	f->max_ring_order = xenbus_read_unsigned(be, "max-ring-page-order", 0);
	f->max_indirect = xenbus_read_unsigned(be,
					       "feature-max-indirect-segments",
					       0);
	f->persistent = xenbus_read_unsigned(be, "feature-persistent", 0);
	/* docs/protocol.md: xfab_blkback, and the toolstack's trust choice */
	f->xfab = xenbus_read_unsigned(be, "feature-xfab-blk", 0) == 1;
	f->ro_max = xenbus_read_unsigned(be, "xfab-ro-grants-max", 0);
	f->relaxed = xfab_xs_relaxed(info->xdev);
}

/*
 * Segments per request: the parameter, or by backend (0); what the
 * backend offers caps it. A resumed disk asks for the size its queue
 * limits were set to (bf_talk refuses a backend that offers less).
 */
static unsigned int bf_segs(const struct xfab_bf_info *info)
{
	const struct xfab_bf_features *f = &info->feat;
	unsigned int want = xfab_bf_max_indirect;

	if (f->max_indirect < BLKIF_MAX_SEGMENTS_PER_REQUEST)
		return BLKIF_MAX_SEGMENTS_PER_REQUEST;
	if (info->gd)
		want = info->segs;
	else if (!want)
		want = f->xfab ? XFAB_BF_MAX_SEGS : XFAB_BF_STOCK_SEGS;
	return min3(want, f->max_indirect, (unsigned int)XFAB_BF_MAX_SEGS);
}

/* Rings and channels up, keys written: Initialised. */
static int bf_talk(struct xfab_bf_info *info)
{
	struct xfab_bf_features *f = &info->feat;
	unsigned int nr, segs, i;
	int err;

	be_offer(info);
	nr = min3(xfab_bf_max_queues, num_online_cpus(), max(f->max_queues, 1U));
	segs = bf_segs(info);
	if (info->gd) {
		/* resumed: the disk's queue limits and hw queues stay */
		if (segs < info->segs || nr < info->nr_hw_queues) {
			xenbus_dev_fatal(info->xdev, -EINVAL,
					 "backend after resume offers %u segments and %u queues, the disk has %u and %u",
					 segs, nr, info->segs,
					 info->nr_hw_queues);
			return -EINVAL;
		}
		nr = info->nr_hw_queues;
	}
	info->segs = min(segs, (unsigned int)XFAB_BF_MAX_SEGS);
	info->ring_order = min(xfab_bf_max_ring_order, f->max_ring_order);
	if (info->ring_order > XFAB_RING_MAX_ORDER)
		info->ring_order = XFAB_RING_MAX_ORDER;
	info->ro_grants = 0;
	if (f->xfab && f->relaxed && xfab_bf_allow_relaxed)
		info->ro_grants = min3(xfab_bf_ro_grants, f->ro_max,
				       XFAB_BF_RO_LIMIT);
	info->rings = kcalloc(nr, sizeof(*info->rings), GFP_KERNEL);
	if (!info->rings)
		return -ENOMEM;
	info->nr_rings = nr;
	for (i = 0; i < nr; i++) {
		info->rings[i].info = info;
		info->rings[i].id = i;
		u64_stats_init(&info->rings[i].st.sync);
		spin_lock_init(&info->rings[i].lock);
		INIT_LIST_HEAD(&info->rings[i].pool);
	}
	for (err = 0, i = 0; !err && i < nr; i++)
		err = bf_ring_up(info, &info->rings[i]);
	if (!err)
		err = xfab_xs_write(bf_keys, info);
	if (err) {
		xenbus_dev_fatal(info->xdev, err, "setting up %u ring(s)", nr);
		return err;
	}
	return xenbus_switch_state(info->xdev, XenbusStateInitialised);
}

/* The disk as the backend describes it once Connected. */
static int be_disk(struct xfab_bf_info *info)
{
	struct xenbus_device *xdev = info->xdev;
	const char *be = xdev->otherend;
	struct xfab_bf_features *f = &info->feat;
	unsigned long long sectors;
	unsigned int ss;

	if (xenbus_scanf(XBT_NIL, be, "sectors", "%llu", &sectors) != 1 ||
	    xenbus_scanf(XBT_NIL, be, "info", "%u", &f->info) != 1) {
		xenbus_dev_fatal(xdev, -EINVAL, "reading %s/{sectors,info}", be);
		return -EINVAL;
	}
	ss = xenbus_read_unsigned(be, "sector-size", 512);
	if (ss < 512 || ss > 4096 || (ss & (ss - 1))) {
		xenbus_dev_fatal(xdev, -EINVAL,
				 "backend sector-size %u: want 512..4096, a power of 2",
				 ss);
		return -EINVAL;
	}
	f->sectors = sectors;
	f->sector_size = ss;
	f->phys_sector_size = xenbus_read_unsigned(be, "physical-sector-size",
						   ss);
	if (f->phys_sector_size < ss || f->phys_sector_size > 65536 ||
	    (f->phys_sector_size & (f->phys_sector_size - 1)))
		f->phys_sector_size = ss;	/* a hint only: ignore nonsense */
	f->flush = xenbus_read_unsigned(be, "feature-flush-cache", 0);
	f->barrier = xenbus_read_unsigned(be, "feature-barrier", 0);
	info->flush_op = f->flush ? BLKIF_OP_FLUSH_DISKCACHE :
			 f->barrier ? BLKIF_OP_WRITE_BARRIER : 0;
	f->discard = xenbus_read_unsigned(be, "feature-discard", 0);
	f->discard_secure = f->discard &&
			    xenbus_read_unsigned(be, "discard-secure", 0);
	f->discard_granularity = xenbus_read_unsigned(be,
						      "discard-granularity", ss);
	f->discard_alignment = xenbus_read_unsigned(be, "discard-alignment",
						    0);
	if (f->discard_granularity & (f->discard_granularity - 1))
		f->discard_granularity = ss;	/* must be a power of 2 */
	return 0;
}

static void bf_restart(struct xfab_bf_info *info)
{
	struct request_queue *q = info->gd->queue;

	if (info->quiesced)
		blk_mq_unquiesce_queue(q);
	info->quiesced = false;
	blk_mq_start_stopped_hw_queues(q, true);
	blk_mq_kick_requeue_list(q);
}

/*
 * The backend wrote Connected again while we are connected: the way a
 * blkif backend announces that its disk changed size ("sectors").
 */
static void bf_resize(struct xfab_bf_info *info)
{
	struct xenbus_device *xdev = info->xdev;
	unsigned long long sectors;

	if (!info->connected || !info->gd)
		return;
	if (xenbus_scanf(XBT_NIL, xdev->otherend, "sectors", "%llu",
			 &sectors) != 1 || sectors == info->feat.sectors)
		return;
	dev_info(&xdev->dev, "%s: backend resized the disk: %llu -> %llu sectors\n",
		 info->disk_name, (unsigned long long)info->feat.sectors,
		 sectors);
	info->feat.sectors = sectors;
	xfab_stat_inc(&info->gone.sync, &info->gone.resizes);
	set_capacity_and_notify(info->gd, sectors);
}

/*
 * The backend took our keys (we are Initialised): read the disk, go
 * Connected, then add the disk (its partition scan does I/O) or restart
 * the one we held.
 */
static int bf_connect(struct xfab_bf_info *info)
{
	struct xenbus_device *xdev = info->xdev;
	int err;

	if (info->connected)
		return -EALREADY;
	err = be_disk(info);
	if (err)
		return err;
	WRITE_ONCE(info->connected, true);
	if (info->gd) {
		/* after resume or a backend reload */
		xfab_stat_inc(&info->gone.sync, &info->gone.reconnects);
		set_capacity_and_notify(info->gd, info->feat.sectors);
		xenbus_switch_state(xdev, XenbusStateConnected);
		bf_restart(info);
		return 0;
	}
	xenbus_switch_state(xdev, XenbusStateConnected);
	err = xfab_bf_disk_add(info);
	if (err) {
		WRITE_ONCE(info->connected, false);
		xenbus_dev_fatal(xdev, err, "adding disk %s", info->disk_name);
		return err;
	}
	info->nr_hw_queues = info->nr_rings;
	dev_info(&xdev->dev, "%s: %llu sectors of %u bytes, %u ring(s) of %u, %u segments, flush %s, discard %s, persistent grants %s, writes %s\n",
		 info->disk_name, (unsigned long long)info->feat.sectors,
		 info->feat.sector_size, info->nr_rings,
		 RING_SIZE(&info->rings[0].front), info->segs,
		 info->flush_op ? "on" : "off",
		 info->feat.discard ? "on" : "off",
		 info->feat.persistent ? "on" : "off",
		 info->ro_grants ? "read in place (relaxed trust)" :
				   "copied through the pool");
	return 0;
}

/*
 * Stop I/O and free the rings: no queue_rq is on them once the queue is
 * quiesced. What was in flight is requeued (resume) or failed (going
 * away). The queue stays quiesced; idempotent.
 */
static void bf_stop(struct xfab_bf_info *info, bool requeue)
{
	struct request *rq, *tmp;
	LIST_HEAD(left);

	WRITE_ONCE(info->connected, false);
	if (info->gd && !info->quiesced) {
		blk_mq_quiesce_queue(info->gd->queue);
		info->quiesced = true;
	}
	bf_free_rings(info, &left);
	list_for_each_entry_safe(rq, tmp, &left, queuelist) {
		list_del_init(&rq->queuelist);
		if (requeue)
			blk_mq_requeue_request(rq, false);
		else
			blk_mq_end_request(rq, BLK_STS_IOERR);
	}
}

/* Everything down: failing what is in flight; idempotent. */
static void bf_teardown(struct xfab_bf_info *info)
{
	bf_stop(info, false);
	/* later calls find connected clear and fail at once */
	if (info->gd && info->quiesced)
		blk_mq_unquiesce_queue(info->gd->queue);
	info->quiesced = false;
	xfab_bf_disk_del(info);
}

/*
 * The state function: it carries out what xfab_fe_step() (common/,
 * shared with xfab_netfront) decides. A backend going while the
 * toolstack still has the disk "online" is only the backend's driver
 * going (reloaded, or its domain restarting): keep the disk, hold its
 * I/O (in flight requests go back on the queue) and wait in
 * Initialising for the next backend, whose InitWait reconnects us.
 * Otherwise the disk is being detached.
 */
static void bf_backend_changed(struct xenbus_device *xdev,
			       enum xenbus_state be)
{
	struct xfab_bf_info *info = dev_get_drvdata(&xdev->dev);
	enum xfab_fe_work work;
	bool close;
	int next;

	next = xfab_fe_step(be, xdev->state, XenbusStateInitialised,
			    xfab_xs_online(xdev), &work, &close);
	switch (work) {
	case XFAB_FE_CONNECT:
		if (bf_talk(info)) {
			bf_free_rings(info, NULL);
			return;
		}
		break;
	case XFAB_FE_GO_LIVE:
		if (bf_connect(info))
			return;
		break;
	case XFAB_FE_REFRESH:
		bf_resize(info);
		break;
	case XFAB_FE_HOLD:
		bf_stop(info, true);
		if (info->gd && next == XenbusStateInitialising)
			dev_info(&xdev->dev, "%s: backend gone, disk held until it is back\n",
				 info->disk_name);
		break;
	case XFAB_FE_DETACH:
		bf_teardown(info);
		break;
	default:
		break;
	}
	xfab_fe_publish(xdev, next, close);
}

static int bf_resume(struct xenbus_device *xdev)
{
	struct xfab_bf_info *info = dev_get_drvdata(&xdev->dev);
	int err;

	bf_stop(info, true);	/* bf_connect unquiesces and kicks */
	err = bf_talk(info);
	if (err)
		bf_free_rings(info, NULL);
	return err;
}

static void bf_remove(struct xenbus_device *xdev)
{
	struct xfab_bf_info *info = dev_get_drvdata(&xdev->dev);

	if (!info)
		return;
	bf_teardown(info);
	sysfs_remove_groups(&xdev->dev.kobj, xfab_bf_groups);
	dev_set_drvdata(&xdev->dev, NULL);
	kfree(info);
	xfab_xs_driver_gone(xdev);
}

static int bf_probe(struct xenbus_device *xdev,
		    const struct xenbus_device_id *id)
{
	struct xfab_bf_info *info;
	int err;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	info->xdev = xdev;
	mutex_init(&info->lock);
	u64_stats_init(&info->gone.sync);
	err = bf_vdevice(info);
	if (!err)
		err = sysfs_create_groups(&xdev->dev.kobj, xfab_bf_groups);
	if (err) {
		kfree(info);
		return err;
	}
	dev_set_drvdata(&xdev->dev, info);
	return 0;
}

static const struct xenbus_device_id bf_ids[] = {
	{ "vbd" },
	{ "" }
};

static struct xenbus_driver bf_driver = {
	.name = XFAB_BF_NAME,
	.ids = bf_ids,
	.probe = bf_probe,
	.remove = bf_remove,
	.resume = bf_resume,
	.otherend_changed = bf_backend_changed,
};

int xfab_bf_xenbus_register(void)
{
	return xenbus_register_frontend(&bf_driver);
}

void xfab_bf_xenbus_unregister(void)
{
	xenbus_unregister_driver(&bf_driver);
}
