// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Counters in sysfs, one value per file, under the frontend's xenbus
 * device: /sys/bus/xen/devices/vbd-<vdevice>/statistics/<name>, summed
 * over the rings plus what rings torn down before had counted
 * (common/xfab_stats.h).
 */
#include <linux/device.h>
#include "common.h"

#define BF_STAT(f) XFAB_STAT(struct xfab_bf_stats, sync, f)

static const struct xfab_stat bf_fixed[] = {
	BF_STAT(rd_req), BF_STAT(wr_req), BF_STAT(flush_req),
	BF_STAT(discard_req), BF_STAT(indirect_req), BF_STAT(rd_sect),
	BF_STAT(wr_sect), BF_STAT(io_errors), BF_STAT(notsupp),
	BF_STAT(irqs), BF_STAT(spurious), BF_STAT(kicks),
	BF_STAT(bytes_copied), BF_STAT(grants), BF_STAT(busy),
	BF_STAT(fatal_ring), BF_STAT(fatal_id), BF_STAT(fatal_op),
	BF_STAT(quiet_pushes), BF_STAT(ro_hits), BF_STAT(ro_grants),
	BF_STAT(ro_replaced), BF_STAT(ro_full), BF_STAT(ro_busy),
	BF_STAT(reconnects), BF_STAT(resizes), BF_STAT(splits),
};

#define BF_NR_STATS ARRAY_SIZE(bf_fixed)
static struct xfab_stat bf_slots[BF_NR_STATS];
struct xfab_stats_table xfab_bf_stat_table = { bf_slots, 0, BF_NR_STATS };

/* The disk's rings and what rings before them counted, locked. */
static struct mutex *bf_sets_get(struct device *d, struct xfab_stats_sets *v)
{
	struct xfab_bf_info *info = dev_get_drvdata(d);

	if (!info)
		return NULL;
	mutex_lock(&info->lock);
	v->gone = &info->gone;
	v->first = info->rings ? &info->rings[0].st : NULL;
	v->stride = sizeof(info->rings[0]);
	v->nr = info->rings ? info->nr_rings : 0;
	return &info->lock;
}

/* How writes reach the backend: "copy" (the pool) or "in-place". */
static ssize_t write_mode_show(struct device *d, struct device_attribute *attr,
			       char *buf)
{
	struct xfab_bf_info *info = dev_get_drvdata(d);

	return info ? sysfs_emit(buf, "%s\n", READ_ONCE(info->ro_grants) ?
				 "in-place" : "copy") : -ENODEV;
}
static DEVICE_ATTR_RO(write_mode);

static struct dev_ext_attribute bf_ext[BF_NR_STATS];
static struct attribute *bf_attrs[BF_NR_STATS + 2];

static const struct xfab_kstats_sysfs bf_sysfs = {
	.t = &xfab_bf_stat_table,
	.get = bf_sets_get,
	.ext = bf_ext,
};

static const struct attribute_group bf_group = {
	.name = "statistics",
	.attrs = bf_attrs,
};

const struct attribute_group *xfab_bf_groups[] = { &bf_group, NULL };

int xfab_bf_stats_init(void)
{
	unsigned int n;
	int err;

	err = xfab_stats_add_all(&xfab_bf_stat_table, bf_fixed, BF_NR_STATS);
	if (err)
		return err;
	n = xfab_kstats_sysfs_init(&bf_sysfs, bf_attrs);
	bf_attrs[n++] = &dev_attr_write_mode.attr;
	bf_attrs[n] = NULL;
	return 0;
}
