// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Counters in sysfs, one value per file, under the vbd's xenbus device:
 * /sys/bus/xen-backend/devices/vbd-<domid>-<handle>/statistics/<name>.
 * Each is the sum over the connected rings plus what rings torn down
 * before had counted (common/xfab_stats.h), so the numbers only grow
 * while the device lives.
 */
#include <linux/slab.h>
#include <linux/device.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "common.h"

#define BB_STAT(f) XFAB_STAT(struct xfab_bb_stats, sync, f)

static const struct xfab_stat bb_fixed[] = {
	BB_STAT(rd_req), BB_STAT(wr_req), BB_STAT(flush_req),
	BB_STAT(barrier_req), BB_STAT(discard_req), BB_STAT(rd_sect),
	BB_STAT(wr_sect), BB_STAT(discard_sect), BB_STAT(indirect_req),
	BB_STAT(io_errors), BB_STAT(map_errors),
	XFAB_STAT_A(struct xfab_bb_stats, irqs),
	BB_STAT(spurious), BB_STAT(kicks), BB_STAT(grant_maps),
	BB_STAT(grant_unmaps), BB_STAT(map_calls), BB_STAT(unmap_calls),
	BB_STAT(pgrant_hits), BB_STAT(pool_waits), BB_STAT(ro_hits),
	BB_STAT(ro_maps), BB_STAT(ro_evictions), BB_STAT(ro_purged),
	BB_STAT(ro_full), BB_STAT(ro_budget), BB_STAT(polls), BB_STAT(poll_found),
	BB_STAT(poll_empty), BB_STAT(resizes), BB_STAT(refuse_waits),
	BB_STAT(bad_index), BB_STAT(passes_yielded),
	BB_STAT(drain_refused_disk), BB_STAT(drain_refused_total),
};

/* The fixed counters, then one per refusal reason (1..) of common/. */
#define BB_NR_STATS (ARRAY_SIZE(bb_fixed) + XFAB_BLK_NR_ERRS - 1)
static struct xfab_stat bb_slots[BB_NR_STATS];
struct xfab_stats_table xfab_bb_stat_table = { bb_slots, 0, BB_NR_STATS };

/* drvdata is xenbus.c's backend, whose first member is the device. */
static struct xfab_bb_dev *bb_dev(struct device *d)
{
	return dev_get_drvdata(d);
}

/* The device's rings and what rings before them counted, locked. */
static struct mutex *bb_sets_get(struct device *d, struct xfab_stats_sets *v)
{
	struct xfab_bb_dev *dev = bb_dev(d);

	if (!dev)
		return NULL;
	mutex_lock(&dev->rings_lock);
	v->gone = &dev->gone;
	v->first = dev->rings ? &dev->rings[0].st : NULL;
	v->stride = sizeof(dev->rings[0]);
	v->nr = dev->rings ? dev->nr_alloc : 0;
	return &dev->rings_lock;
}

/* A per-ring gauge summed over the rings, for sysfs. */
static ssize_t bb_gauge(struct device *d, char *buf,
			unsigned int (*get)(const struct xfab_bb_ring *))
{
	struct xfab_bb_dev *dev = bb_dev(d);
	unsigned int i, n = 0;

	if (!dev)
		return -ENODEV;
	mutex_lock(&dev->rings_lock);
	for (i = 0; i < dev->nr_alloc; i++)
		n += get(&dev->rings[i]);
	mutex_unlock(&dev->rings_lock);
	return sysfs_emit(buf, "%u\n", n);
}

static unsigned int ring_pgrants(const struct xfab_bb_ring *r)
{
	return READ_ONCE(r->nr_pgrants);
}

static unsigned int ring_ro_grants(const struct xfab_bb_ring *r)
{
	return READ_ONCE(r->ro.nr);
}

/* Grants kept mapped right now (feature-persistent), over all rings. */
static ssize_t persistent_grants_show(struct device *d,
				      struct device_attribute *attr, char *buf)
{
	return bb_gauge(d, buf, ring_pgrants);
}
static DEVICE_ATTR_RO(persistent_grants);

/* Read-only mappings kept right now (relaxed trust), over all rings. */
static ssize_t ro_grants_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	return bb_gauge(d, buf, ring_ro_grants);
}
static DEVICE_ATTR_RO(ro_grants);

/* How the connected frontend is served: stock, xfab, xfab-ro. */
static ssize_t mode_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	struct xfab_bb_dev *dev = bb_dev(d);
	const char *m = "none";

	if (!dev)
		return -ENODEV;
	mutex_lock(&dev->rings_lock);
	if (dev->nr_alloc)
		m = dev->rings[0].ro_on ? "xfab-ro" :
		    dev->rings[0].polling ? "xfab" : "stock";
	mutex_unlock(&dev->rings_lock);
	return sysfs_emit(buf, "%s\n", m);
}
static DEVICE_ATTR_RO(mode);

static ssize_t rings_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	struct xfab_bb_dev *dev = bb_dev(d);

	return dev ? sysfs_emit(buf, "%u\n", READ_ONCE(dev->nr_rings)) :
		     -ENODEV;
}
static DEVICE_ATTR_RO(rings);

/*
 * Ring sets let go at disconnects that still wait for the disk: what
 * drain_sets_per_disk bounds (a connect waits at it).
 */
static ssize_t draining_show(struct device *d, struct device_attribute *attr,
			     char *buf)
{
	struct xfab_bb_dev *dev = bb_dev(d);

	return dev ? sysfs_emit(buf, "%u\n", xfab_bb_draining(dev)) : -ENODEV;
}
static DEVICE_ATTR_RO(draining);

static struct dev_ext_attribute bb_ext[BB_NR_STATS];
/* the counters, five gauges, the NULL */
static struct attribute *bb_attrs[BB_NR_STATS + 6];

static const struct xfab_kstats_sysfs bb_sysfs = {
	.t = &xfab_bb_stat_table,
	.get = bb_sets_get,
	.ext = bb_ext,
};

static const struct attribute_group bb_group = {
	.name = "statistics",
	.attrs = bb_attrs,
};

const struct attribute_group *xfab_bb_groups[] = { &bb_group, NULL };

/* The table and its files, built once: reason names come from common/. */
int xfab_bb_stats_init(void)
{
	unsigned int n;
	int err;

	err = xfab_stats_add_all(&xfab_bb_stat_table, bb_fixed,
				 ARRAY_SIZE(bb_fixed)) ?:
	      xfab_stats_add_reasons(&xfab_bb_stat_table, "", xfab_blk_err_name, 1,
				     XFAB_BLK_NR_ERRS,
				     offsetof(struct xfab_bb_stats, err),
				     sizeof(u64_stats_t),
				     offsetof(struct xfab_bb_stats, sync));
	if (err)
		return err;
	n = xfab_kstats_sysfs_init(&bb_sysfs, bb_attrs);
	bb_attrs[n++] = &dev_attr_persistent_grants.attr;
	bb_attrs[n++] = &dev_attr_rings.attr;
	bb_attrs[n++] = &dev_attr_ro_grants.attr;
	bb_attrs[n++] = &dev_attr_mode.attr;
	bb_attrs[n++] = &dev_attr_draining.attr;
	bb_attrs[n] = NULL;
	return 0;
}

struct xfab_bb_totals xfab_bb_totals;
static struct dentry *bb_debugfs;

static int bb_summary_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "devices %d\nrings %d\ngrants_mapped %ld\nro_kept %d\ndraining %d\ndrain_extra %d\n",
		   atomic_read(&xfab_bb_totals.devices),
		   atomic_read(&xfab_bb_totals.rings),
		   atomic_long_read(&xfab_bb_totals.grants_mapped),
		   atomic_read(&xfab_bb_totals.ro_kept),
		   atomic_read(&xfab_bb_totals.draining),
		   atomic_read(&xfab_bb_totals.drain_extra));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bb_summary);

void xfab_bb_debugfs_init(void)
{
	bb_debugfs = debugfs_create_dir("xfab_blkback", NULL);
	debugfs_create_file("summary", 0400, bb_debugfs, NULL,
			    &bb_summary_fops);
}

void xfab_bb_debugfs_exit(void)
{
	debugfs_remove_recursive(bb_debugfs);
}
