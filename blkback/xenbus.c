// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Negotiation with the frontend over xenstore. Every state change goes
 * through bb_set_state(), which walks the backend one legal step at a
 * time toward the state the frontend's move calls for:
 *
 *   InitWait --connect ok--> Connected --> Closing --> Closed --> InitWait
 *
 * Connecting needs two things: the disk, which xl's block hotplug script
 * names in our "physical-device" key (for a file it sets up a loop device
 * first), and the frontend's rings. Whichever comes second connects.
 *
 * All of it runs in the xenwatch thread (probe, watches, remove on device
 * removal) or under the driver core on module unload. The exception is a
 * disconnect while the disk still has requests: those rings are finished
 * by a work item (bb_drain_later), which touches the device through
 * atomics, rings_lock, bb_sets_lock and its reference, and which, when a
 * connect was refused because the device had too many ring sets
 * draining (drain_sets_per_disk, drain_sets_total), runs the state
 * function once more: sm_lock keeps that apart from xenwatch's callbacks
 * and remove. Such a refused connect leaves us in InitWait, the
 * frontend waiting as for a slow backend, until a drain of the device's
 * own ends; xenwatch never waits for it.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/kref.h>
#include <linux/workqueue.h>
#include <xen/interface/io/protocols.h>
#include "common.h"
#include "xfab_xenbus.h"
#include "xfab_xs.h"

struct bb_backend {
	struct xfab_bb_dev dev;
	/* remove's, and one per ring set still draining (the disk stays open) */
	struct kref ref;
	/* the state function: xenwatch's callbacks and remove vs a drain's retry */
	struct mutex sm_lock;
	bool removed;			/* remove ran: no drain connects us again */
	bool refused;			/* the last connect waits for a drain to end */
	struct mutex state_lock;	/* publishing vs the resize work */
	enum xenbus_state state;	/* where we are (published) */
	struct delayed_work resize_work;
	bool fe_ready;			/* frontend is Initialised/Connected */
	struct xenbus_watch pdev_watch;
	bool pdev_watching;
	bool groups_added;
	bool counted;			/* in xfab_bb_totals.devices */
};

static void bb_publish(struct bb_backend *be, enum xenbus_state s)
{
	mutex_lock(&be->state_lock);
	be->state = s;
	xenbus_switch_state(be->dev.xdev, s);
	mutex_unlock(&be->state_lock);
}

/* ---- the disk (our toolstack's keys: trusted, but checked for typos) ---- */

/* The size the frontend is told: at connect, and again on a resize. */
static int bb_sectors_key(struct xenbus_transaction t,
			  const struct xfab_bb_dev *dev)
{
	return xenbus_printf(t, dev->xdev->nodename, "sectors", "%llu",
			     (unsigned long long)dev->lim.capacity);
}

static int bb_disk_keys(struct xenbus_transaction t, void *arg)
{
	struct xfab_bb_dev *dev = arg;
	struct block_device *bdev = dev->disk.bdev;
	const char *node = dev->xdev->nodename;
	unsigned int info;
	int err;

	info = (dev->lim.read_only ? VDISK_READONLY : 0) |
	       (dev->cdrom ? VDISK_CDROM : 0) |
	       (dev->removable ? VDISK_REMOVABLE : 0);
	err = xenbus_printf(t, node, "feature-flush-cache", "%d",
			    dev->lim.flush) ?:
	      xenbus_printf(t, node, "feature-barrier", "%d",
			    dev->lim.barrier) ?:
	      xenbus_printf(t, node, "feature-discard", "%d",
			    dev->lim.discard) ?:
	      bb_sectors_key(t, dev) ?:
	      xenbus_printf(t, node, "info", "%u", info) ?:
	      xenbus_printf(t, node, "sector-size", "%u",
			    dev->lim.sector_size) ?:
	      xenbus_printf(t, node, "physical-sector-size", "%u",
			    bdev_physical_block_size(bdev));
	if (err || !dev->lim.discard)
		return err;
	return xenbus_printf(t, node, "discard-granularity", "%u",
			     max(bdev_discard_granularity(bdev),
				 dev->lim.sector_size)) ?:
	       xenbus_printf(t, node, "discard-alignment", "%u",
			     bdev_discard_alignment(bdev)) ?:
	       xenbus_printf(t, node, "discard-secure", "%d",
			     dev->lim.discard_secure);
}

static void bb_limits(struct xfab_bb_dev *dev, bool write)
{
	struct block_device *bdev = dev->disk.bdev;
	struct xfab_blk_limits *lim = &dev->lim;

	lim->capacity = bdev_nr_sectors(bdev);
	lim->sector_size = bdev_logical_block_size(bdev);
	lim->read_only = !write || bdev_read_only(bdev);
	lim->max_indirect = xfab_bb_max_indirect;
	/* A flush to a disk without a volatile cache just completes. */
	lim->flush = !lim->read_only;
	lim->barrier = !lim->read_only;
	lim->discard = xfab_bb_discard && !lim->read_only &&
		       bdev_max_discard_sectors(bdev) > 0;
	lim->discard_secure = lim->discard &&
			      bdev_max_secure_erase_sectors(bdev) > 0;
}

/* "mode" and "device-type" as xl writes them. */
static int bb_read_mode(struct xfab_bb_dev *dev, bool *write)
{
	struct xenbus_device *xdev = dev->xdev;
	char *mode, *type;

	mode = xenbus_read(XBT_NIL, xdev->nodename, "mode", NULL);
	if (IS_ERR(mode)) {
		xenbus_dev_fatal(xdev, PTR_ERR(mode), "reading %s/mode",
				 xdev->nodename);
		return PTR_ERR(mode);
	}
	if (mode[0] != 'r' && mode[0] != 'w') {
		xenbus_dev_fatal(xdev, -EINVAL,
				 "%s/mode is \"%s\": expected \"r\" or \"w\"",
				 xdev->nodename, mode);
		kfree(mode);
		return -EINVAL;
	}
	*write = mode[0] == 'w';
	kfree(mode);
	type = xenbus_read(XBT_NIL, xdev->nodename, "device-type", NULL);
	if (!IS_ERR(type)) {
		dev->cdrom = !strcmp(type, "cdrom");
		dev->removable = dev->cdrom;
		kfree(type);
	}
	return 0;
}

/* The backing device, held open for as long as we are bound to it. */
static int bb_bdev_open(struct xfab_bb_bdev *b, dev_t devt, bool write)
{
	blk_mode_t mode = BLK_OPEN_READ | (write ? BLK_OPEN_WRITE : 0);
	struct file *file;

	/*
	 * Shared (no holder), as the stock backend opens it: dom0 can
	 * still read a disk it lent.
	 */
	file = bdev_file_open_by_dev(devt, mode, NULL, NULL);
	if (IS_ERR(file))
		return PTR_ERR(file);
	b->file = file;
	b->bdev = file_bdev(file);
	return 0;
}

static void bb_bdev_close(struct xfab_bb_bdev *b)
{
	if (!b->file)
		return;
	bdev_fput(b->file);
	b->bdev = NULL;
	b->file = NULL;
}

static int bb_open_disk(struct bb_backend *be, dev_t devt)
{
	struct xfab_bb_dev *dev = &be->dev;
	struct xenbus_device *xdev = dev->xdev;
	bool write;
	int err;

	err = bb_read_mode(dev, &write);
	if (err)
		return err;
	err = bb_bdev_open(&dev->disk, devt, write);
	if (err) {
		xenbus_dev_fatal(xdev, err, "opening block device %u:%u",
				 MAJOR(devt), MINOR(devt));
		return err;
	}
	dev->devt = devt;
	dev->have_disk = true;
	bb_limits(dev, write);
	err = xfab_xs_write(bb_disk_keys, dev);
	if (err)
		xenbus_dev_fatal(xdev, err, "writing the disk's keys");
	return err;
}

/* ---- resize: the disk's size, looked at every resize_check_ms ---- */

static int bb_resize_keys(struct xenbus_transaction t, void *arg)
{
	struct bb_backend *be = arg;
	int err;

	err = bb_sectors_key(t, &be->dev);
	/* Connected once more: the frontend's watch fires, it reads sectors */
	if (!err && be->state == XenbusStateConnected)
		err = xenbus_printf(t, be->dev.xdev->nodename, "state", "%d",
				    be->state);
	return err;
}

static void bb_resize_work(struct work_struct *w)
{
	struct bb_backend *be = container_of(to_delayed_work(w),
					     struct bb_backend, resize_work);
	struct xfab_bb_dev *dev = &be->dev;
	sector_t now = bdev_nr_sectors(dev->disk.bdev);
	unsigned int ms = READ_ONCE(xfab_bb_resize_ms);

	if (now != dev->lim.capacity) {
		dev_info(&dev->xdev->dev, "disk resized: %llu -> %llu sectors\n",
			 (unsigned long long)dev->lim.capacity,
			 (unsigned long long)now);
		/* requests are checked against the new size from now on */
		WRITE_ONCE(dev->lim.capacity, now);
		mutex_lock(&be->state_lock);
		if (xfab_xs_write(bb_resize_keys, be))
			dev_warn(&dev->xdev->dev, "writing the new size failed\n");
		mutex_unlock(&be->state_lock);
		mutex_lock(&dev->rings_lock);
		xfab_stat_inc(&dev->gone.sync, &dev->gone.resizes);
		mutex_unlock(&dev->rings_lock);
	}
	if (ms)
		schedule_delayed_work(&be->resize_work, msecs_to_jiffies(ms));
}

static void bb_close_disk(struct xfab_bb_dev *dev)
{
	if (!dev->have_disk)
		return;
	bb_bdev_close(&dev->disk);
	dev->have_disk = false;
}

/* ---- the frontend's keys (hostile until checked) ---- */

static int fe_protocol(struct xfab_bb_dev *dev)
{
	char *proto;
	int err = 0;

	proto = xenbus_read(XBT_NIL, dev->xdev->otherend, "protocol", NULL);
	if (IS_ERR(proto))
		return 0;	/* no key: the native layout */
	if (strcmp(proto, XEN_IO_PROTO_ABI_NATIVE)) {
		xenbus_dev_fatal(dev->xdev, -EPROTONOSUPPORT,
				 "frontend protocol \"%s\": only \"%s\" is supported",
				 proto, XEN_IO_PROTO_ABI_NATIVE);
		err = -EPROTONOSUPPORT;
	}
	kfree(proto);
	return err;
}

/* A frontend key as common/'s readers want it (struct xfab_kv). */
static int fe_read_u32(void *dir, const char *key, u32 *val)
{
	char *v;
	int err;

	v = xenbus_read(XBT_NIL, dir, key, NULL);
	if (IS_ERR(v))
		return PTR_ERR(v) == -ENOENT ? 0 : PTR_ERR(v);
	err = kstrtou32(v, 10, val);
	kfree(v);
	return err ? -EINVAL : 1;
}

/* ring-page-order (read once, from the frontend's root), refs in dir. */
static int fe_ring_refs(struct xfab_bb_dev *dev, const char *dir,
			grant_ref_t *refs, unsigned int *nr)
{
	struct xfab_kv root = { fe_read_u32, (void *)dev->xdev->otherend };
	struct xfab_kv d = { fe_read_u32, (void *)dir };
	const char *why;
	int err;

	err = xfab_ring_refs_read(&root, &d, xfab_bb_max_ring_order, refs, nr,
				  &why);
	if (err)
		xenbus_dev_fatal(dev->xdev, err, "ring keys of %s: %s (we offer order %u at most)",
				 dir, why, xfab_bb_max_ring_order);
	return err;
}

static int fe_ring_connect(struct xfab_bb_dev *dev, struct xfab_bb_ring *ring,
			   const char *dir)
{
	grant_ref_t refs[1U << XFAB_RING_MAX_ORDER];
	unsigned int nr, evtchn;

	BUILD_BUG_ON(sizeof(refs[0]) != sizeof(u32));
	int err;

	err = fe_ring_refs(dev, dir, refs, &nr);
	if (err)
		return err;
	if (xenbus_scanf(XBT_NIL, dir, "event-channel", "%u", &evtchn) != 1) {
		xenbus_dev_fatal(dev->xdev, -EINVAL, "reading %s/event-channel",
				 dir);
		return -EINVAL;
	}
	err = xfab_bb_ring_connect(ring, refs, nr, evtchn);
	if (err)
		xenbus_dev_fatal(dev->xdev, err,
				 "mapping %u ring page(s) from ref %u, binding channel %u of %s",
				 nr, refs[0], evtchn, dir);
	else
		dev_info(&dev->xdev->dev, "ring %u: %u page(s), channel %u%s%s%s\n",
			 ring->id, nr, evtchn,
			 ring->persistent ? ", persistent grants" : "",
			 ring->polling ? ", xfab frontend (polling)" : "",
			 ring->ro_on ? ", writes read in place" : "");
	return err;
}

static void bb_release(struct kref *ref);

/*
 * Every device's ring sets, connected and draining, and the sets held
 * past each device's first over the backend (common/xfab_drain.h). Taken
 * from xenwatch (connect, disconnect) and from the drain work (a drain
 * done); debugfs shows the backend's count.
 */
static DEFINE_SPINLOCK(bb_sets_lock);
static u32 bb_sets_extra;

/* XFAB_DRAIN_OK: dev has a ring set to connect; else which bound refused. */
static int bb_sets_connect(struct xfab_bb_dev *dev)
{
	/* both may change at run time; 0 is taken as 1 by the decision */
	u32 dev_max = min(READ_ONCE(xfab_bb_drain_dev_max), XFAB_BB_DRAIN_LIMIT);
	u32 all_max = READ_ONCE(xfab_bb_drain_total_max);
	int why;

	spin_lock(&bb_sets_lock);
	why = xfab_drain_connect(&dev->sets, &bb_sets_extra, dev_max, all_max);
	atomic_set(&xfab_bb_totals.drain_extra, bb_sets_extra);
	spin_unlock(&bb_sets_lock);
	return why;
}

/* The connected set is let go: to a drain, or freed already. */
static void bb_sets_release(struct xfab_bb_dev *dev, bool drain)
{
	bool ok;

	spin_lock(&bb_sets_lock);
	ok = xfab_drain_release(&dev->sets, &bb_sets_extra, drain);
	atomic_set(&xfab_bb_totals.drain_extra, bb_sets_extra);
	spin_unlock(&bb_sets_lock);
	if (!ok)
		dev_err(&dev->xdev->dev, "ring sets: let go of a set not counted\n");
}

/* A draining set was freed. */
static void bb_sets_done(struct xfab_bb_dev *dev)
{
	bool ok;

	spin_lock(&bb_sets_lock);
	ok = xfab_drain_done(&dev->sets, &bb_sets_extra);
	atomic_set(&xfab_bb_totals.drain_extra, bb_sets_extra);
	spin_unlock(&bb_sets_lock);
	if (!ok)
		dev_err(&dev->xdev->dev, "ring sets: a drain ended that was not counted\n");
}

/* The device's ring sets draining now (sysfs). */
unsigned int xfab_bb_draining(struct xfab_bb_dev *dev)
{
	unsigned int n;

	spin_lock(&bb_sets_lock);
	n = dev->sets.draining;
	spin_unlock(&bb_sets_lock);
	return n;
}

static void bb_set_state(struct bb_backend *be, enum xenbus_state target);

/*
 * A drain of be's ended. A connect refused for its drains goes ahead
 * now if the frontend still waits for it: no watch fires for a drain,
 * and the frontend, in Initialised, has nothing more to write. Not once
 * remove has run: the device is going.
 */
static void bb_retry_connect(struct bb_backend *be)
{
	mutex_lock(&be->sm_lock);
	if (!be->removed && be->refused && be->fe_ready)
		bb_set_state(be, XenbusStateConnected);
	mutex_unlock(&be->sm_lock);
}

/* Tear the rings down, waiting for what the disk still has, and count them. */
static void bb_rings_free(struct xfab_bb_dev *dev, struct xfab_bb_ring *rings,
			  unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		xfab_bb_ring_disconnect(&rings[i]);
	mutex_lock(&dev->rings_lock);	/* sysfs readers sum the counters */
	for (i = 0; i < nr; i++)
		xfab_stats_fold(&xfab_bb_stat_table, &dev->gone, &rings[i].st);
	mutex_unlock(&dev->rings_lock);
	kfree(rings);
}

/* Rings let go while the disk still has some of their requests. */
struct bb_drain {
	struct work_struct work;
	struct bb_backend *be;
	struct xfab_bb_ring *rings;
	unsigned int nr;
};

static void bb_drain_work(struct work_struct *w)
{
	struct bb_drain *d = container_of(w, struct bb_drain, work);
	struct bb_backend *be = d->be;
	struct xenbus_device *xdev = be->dev.xdev;

	bb_rings_free(&be->dev, d->rings, d->nr);
	bb_sets_done(&be->dev);
	atomic_dec(&xfab_bb_totals.draining);
	dev_info(&xdev->dev, "disconnected: the disk finished the last requests\n");
	/* our references keep be and xdev while it runs the state function */
	bb_retry_connect(be);
	kref_put(&be->ref, bb_release);
	put_device(&xdev->dev);
	kfree(d);
}

/*
 * A slow or stuck disk must not hold xenwatch, where every PV device of
 * dom0 is handled: the rings (their threads already stopped) go to a
 * work item that answers and unmaps once the disk is done. The frontend
 * may see Closed while we still map its pages; ending access to a mapped
 * grant leaves the page to the grant table's deferred free, which is
 * what xfab_blkfront and stock blkfront (since XSA-396) do.
 */
static bool bb_drain_later(struct xfab_bb_dev *dev, struct xfab_bb_ring *rings,
			   unsigned int nr)
{
	struct bb_backend *be = container_of(dev, struct bb_backend, dev);
	struct bb_drain *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return false;	/* the caller waits in place */
	d->be = be;
	d->rings = rings;
	d->nr = nr;
	INIT_WORK(&d->work, bb_drain_work);
	kref_get(&be->ref);
	get_device(&dev->xdev->dev);
	/* counted before the work can run, and end, and count it done */
	bb_sets_release(dev, true);
	atomic_inc(&xfab_bb_totals.draining);
	dev_info(&dev->xdev->dev,
		 "disconnecting with requests still at the disk: finishing them in the background\n");
	queue_work(xfab_bb_drain_wq, &d->work);
	return true;
}

static void bb_disconnect(struct xfab_bb_dev *dev)
{
	struct xfab_bb_ring *rings = dev->rings;
	unsigned int i, nr = dev->nr_alloc;
	bool busy = false;

	if (!rings)
		return;
	dev->nr_rings = 0;
	for (i = 0; i < nr; i++) {
		xfab_bb_ring_stop(&rings[i]);
		busy |= atomic_read(&rings[i].inflight) != 0;
	}
	mutex_lock(&dev->rings_lock);
	dev->rings = NULL;
	dev->nr_alloc = 0;
	mutex_unlock(&dev->rings_lock);
	if (busy && bb_drain_later(dev, rings, nr))
		return;
	bb_rings_free(dev, rings, nr);
	/* unmapped: the set no longer counts against the bounds */
	bb_sets_release(dev, false);
}

/*
 * A connect refused for the ring sets the device still has draining.
 * We stay in InitWait, which any frontend takes as a backend not ready
 * yet, and the end of one of those drains connects (bb_retry_connect).
 * No error node and no xenbus_dev_fatal: nothing is wrong with the
 * frontend's keys, and Closing would end the device for good.
 */
static void bb_connect_refused(struct bb_backend *be, int why)
{
	struct xfab_bb_dev *dev = &be->dev;
	bool disk = why == XFAB_DRAIN_DEV;

	be->refused = true;
	mutex_lock(&dev->rings_lock);	/* the writer of gone's counters */
	xfab_stat_inc(&dev->gone.sync, disk ? &dev->gone.drain_refused_disk :
		      &dev->gone.drain_refused_total);
	mutex_unlock(&dev->rings_lock);
	/* the frontend decides how often: one line in a while is enough */
	dev_info_ratelimited(&dev->xdev->dev,
			     "connect waits: %u ring set(s) still draining, %s met; it goes ahead when one ends\n",
			     xfab_bb_draining(dev),
			     disk ? "drain_sets_per_disk" : "drain_sets_total");
}

static int bb_connect(struct xfab_bb_dev *dev)
{
	struct bb_backend *be = container_of(dev, struct bb_backend, dev);
	struct xenbus_device *xdev = dev->xdev;
	struct xfab_bb_ring *rings;
	unsigned int nq, i;
	bool persistent, xfab, ro;
	char *dir;
	int err, why;

	be->refused = false;
	err = fe_protocol(dev);
	if (err)
		return err;
	nq = xenbus_read_unsigned(xdev->otherend, "multi-queue-num-queues", 1);
	if (nq == 0 || nq > xfab_bb_max_queues) {
		xenbus_dev_fatal(xdev, -EINVAL,
				 "frontend asks for %u queues, we offer 1..%u",
				 nq, xfab_bb_max_queues);
		return -EINVAL;
	}
	persistent = xfab_bb_persistent &&
		     xenbus_read_unsigned(xdev->otherend, "feature-persistent", 0);
	/* docs/protocol.md: an xfab frontend, and whether it writes in place */
	xfab = xenbus_read_unsigned(xdev->otherend, "feature-xfab-blk", 0) == 1;
	ro = xfab && xfab_bb_ro_max &&
	     xenbus_read_unsigned(xdev->otherend, "xfab-ro-grants", 0) > 0;
	/* from here on, every way out gives the set back (bb_disconnect) */
	why = bb_sets_connect(dev);
	if (why != XFAB_DRAIN_OK) {
		bb_connect_refused(be, why);
		return -EBUSY;
	}
	rings = kcalloc(nq, sizeof(*rings), GFP_KERNEL);
	if (!rings) {
		bb_sets_release(dev, false);
		return -ENOMEM;
	}
	mutex_lock(&dev->rings_lock);
	dev->rings = rings;
	dev->nr_alloc = nq;
	mutex_unlock(&dev->rings_lock);
	/* All set up first: the error path disconnects every one. */
	for (i = 0; i < nq; i++) {
		struct xfab_bb_ring *ring = &dev->rings[i];

		ring->dev = dev;
		ring->id = i;
		u64_stats_init(&ring->st.sync);
		ring->persistent = persistent;
		ring->polling = xfab;
		ring->ro_on = ro;
		init_waitqueue_head(&ring->wq);
		spin_lock_init(&ring->done_lock);
		INIT_LIST_HEAD(&ring->done);
		INIT_LIST_HEAD(&ring->free);
	}
	for (i = 0; i < nq; i++) {
		struct xfab_bb_ring *ring = &dev->rings[i];

		if (nq == 1)
			dir = kstrdup(xdev->otherend, GFP_KERNEL);
		else
			dir = kasprintf(GFP_KERNEL, "%s/queue-%u",
					xdev->otherend, i);
		err = dir ? fe_ring_connect(dev, ring, dir) : -ENOMEM;
		kfree(dir);
		if (err) {
			bb_disconnect(dev);
			return err;
		}
	}
	dev->nr_rings = nq;
	return 0;
}

/* ---- the state function ---- */

/* Step by legal step toward target (common/xfab_xenbus.c decides). */
static void bb_set_state(struct bb_backend *be, enum xenbus_state target)
{
	enum xfab_be_work work;
	int next;

	while ((next = xfab_be_step(be->state, target, &work)) != be->state) {
		/* Connecting waits for both the disk and the rings. */
		if (work == XFAB_BE_CONNECT &&
		    (!be->dev.have_disk || !be->fe_ready || bb_connect(&be->dev)))
			return;
		if (work == XFAB_BE_DISCONNECT)
			bb_disconnect(&be->dev);
		bb_publish(be, next);
	}
}

static void bb_frontend_changed(struct xenbus_device *xdev,
				enum xenbus_state fe)
{
	struct bb_backend *be = dev_get_drvdata(&xdev->dev);
	bool gone;
	int target;

	mutex_lock(&be->sm_lock);
	/* blkfront publishes its rings when it goes Initialised */
	be->fe_ready = fe == XenbusStateInitialised ||
		       fe == XenbusStateConnected;
	target = xfab_be_target(fe, XenbusStateInitialised,
				xenbus_dev_is_online(xdev), &gone);
	if (target < 0) {
		mutex_unlock(&be->sm_lock);
		xenbus_dev_fatal(xdev, -EINVAL, "frontend in state %d", fe);
		return;
	}
	bb_set_state(be, target);
	mutex_unlock(&be->sm_lock);
	/* remove takes sm_lock */
	if (gone)
		device_unregister(&xdev->dev);
}

/* The disk named, under sm_lock: open it, and connect if the rings are there. */
static void bb_pdev_open(struct bb_backend *be, unsigned int major,
			 unsigned int minor)
{
	struct xenbus_device *xdev = be->dev.xdev;
	dev_t devt;

	devt = MKDEV(major, minor);
	if (be->dev.have_disk) {
		if (devt != be->dev.devt)
			dev_warn(&xdev->dev,
				 "physical-device changed to %x:%x; keeping %x:%x until the device is re-created\n",
				 major, minor, MAJOR(be->dev.devt),
				 MINOR(be->dev.devt));
		return;
	}
	if (MAJOR(devt) != major || MINOR(devt) != minor) {
		xenbus_dev_fatal(xdev, -EINVAL,
				 "physical-device %x:%x is not a device number",
				 major, minor);
		return;
	}
	if (bb_open_disk(be, devt))
		return;
	if (xfab_bb_resize_ms)
		schedule_delayed_work(&be->resize_work,
				      msecs_to_jiffies(xfab_bb_resize_ms));
	bb_set_state(be, XenbusStateConnected);
}

/* The block script wrote (or rewrote) "physical-device": "major:minor" in hex. */
static void bb_pdev_changed(struct xenbus_watch *w, const char *path,
			    const char *token)
{
	struct bb_backend *be = container_of(w, struct bb_backend,
					     pdev_watch);
	struct xenbus_device *xdev = be->dev.xdev;
	unsigned int major, minor;

	if (xenbus_scanf(XBT_NIL, xdev->nodename, "physical-device", "%x:%x",
			 &major, &minor) != 2)
		return;		/* not written yet (the watch fires at once) */
	mutex_lock(&be->sm_lock);
	bb_pdev_open(be, major, minor);
	mutex_unlock(&be->sm_lock);
}

/* ---- probe / remove ---- */

static int bb_feature_keys(struct xenbus_transaction t, void *arg)
{
	const char *node = ((struct xenbus_device *)arg)->nodename;

	return xenbus_printf(t, node, "feature-max-indirect-segments", "%u",
			     xfab_bb_max_indirect) ?:
	       xenbus_printf(t, node, "multi-queue-max-queues", "%u",
			     xfab_bb_max_queues) ?:
	       xenbus_printf(t, node, "max-ring-page-order", "%u",
			     xfab_bb_max_ring_order) ?:
	       xenbus_printf(t, node, "feature-persistent", "%d",
			     xfab_bb_persistent) ?:
	       xenbus_printf(t, node, "feature-xfab-blk", "%d", 1) ?:
	       xenbus_printf(t, node, "xfab-ro-grants-max", "%u",
			     xfab_bb_ro_max) ?:
	       xfab_xs_driver(t, node);
}

static void bb_remove(struct xenbus_device *xdev)
{
	struct bb_backend *be = dev_get_drvdata(&xdev->dev);

	if (!be)
		return;
	/*
	 * First the watch (it opens the disk and starts the resize work),
	 * then that work: neither may write keys into a directory being
	 * removed or look at a disk being closed.
	 */
	if (be->pdev_watching) {
		unregister_xenbus_watch(&be->pdev_watch);
		kfree(be->pdev_watch.node);
		be->pdev_watching = false;
	}
	cancel_delayed_work_sync(&be->resize_work);
	mutex_lock(&be->sm_lock);
	bb_set_state(be, XenbusStateClosed);
	bb_disconnect(&be->dev);	/* if Closed was reached another way */
	be->removed = true;
	mutex_unlock(&be->sm_lock);
	if (be->groups_added)
		sysfs_remove_groups(&xdev->dev.kobj, xfab_bb_groups);
	be->groups_added = false;
	dev_set_drvdata(&xdev->dev, NULL);
	kref_put(&be->ref, bb_release);
	xfab_xs_driver_gone(xdev);
}

/* The last of remove and the drains: the disk may close now. */
static void bb_release(struct kref *ref)
{
	struct bb_backend *be = container_of(ref, struct bb_backend, ref);

	bb_close_disk(&be->dev);
	if (be->counted)
		atomic_dec(&xfab_bb_totals.devices);
	kfree(be);
}

static int bb_probe(struct xenbus_device *xdev,
		    const struct xenbus_device_id *id)
{
	struct bb_backend *be;
	const char *name;
	unsigned int handle;
	int err;

	be = kzalloc(sizeof(*be), GFP_KERNEL);
	if (!be)
		return -ENOMEM;
	be->dev.xdev = xdev;
	kref_init(&be->ref);
	mutex_init(&be->sm_lock);
	mutex_init(&be->dev.rings_lock);
	u64_stats_init(&be->dev.gone.sync);
	mutex_init(&be->state_lock);
	INIT_DELAYED_WORK(&be->resize_work, bb_resize_work);
	be->state = XenbusStateInitialising;
	dev_set_drvdata(&xdev->dev, be);

	/* .../backend/vbd/<domid>/<handle>: the handle is the last part */
	name = strrchr(xdev->nodename, '/');
	err = name ? kstrtouint(name + 1, 10, &handle) : -EINVAL;
	if (err || handle > U16_MAX) {
		err = -EINVAL;
		xenbus_dev_fatal(xdev, err, "no device handle in %s",
				 xdev->nodename);
		goto fail;
	}
	be->dev.handle = handle;
	atomic_inc(&xfab_bb_totals.devices);
	be->counted = true;
	err = xfab_xs_write(bb_feature_keys, xdev);
	if (err) {
		xenbus_dev_fatal(xdev, err, "writing features");
		goto fail;
	}
	err = sysfs_create_groups(&xdev->dev.kobj, xfab_bb_groups);
	if (err)
		goto fail;
	be->groups_added = true;
	bb_publish(be, XenbusStateInitWait);
	/* Fires at once: the script may have run (our module reloaded). */
	err = xenbus_watch_pathfmt(xdev, &be->pdev_watch, NULL,
				   bb_pdev_changed, "%s/physical-device",
				   xdev->nodename);
	if (err)
		goto fail;
	be->pdev_watching = true;
	return 0;
fail:
	bb_remove(xdev);
	return err;
}

static const struct xenbus_device_id bb_ids[] = {
	{ "vbd" },
	{ "" }
};

/*
 * Named, so that it can sit beside xen-blkback on the bus and be told
 * apart in /sys/bus/xen-backend/drivers.
 */
static struct xenbus_driver bb_driver = {
	.name = "xfab_blkback",
	.ids = bb_ids,
	.probe = bb_probe,
	.remove = bb_remove,
	.otherend_changed = bb_frontend_changed,
};

int xfab_bb_xenbus_register(void)
{
	return xenbus_register_backend(&bb_driver);
}

void xfab_bb_xenbus_unregister(void)
{
	xenbus_unregister_driver(&bb_driver);
}
