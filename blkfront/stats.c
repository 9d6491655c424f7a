// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Counters in sysfs, one value per file, under the frontend's xenbus
 * device: /sys/bus/xen/devices/vbd-<vdevice>/statistics/<name>, summed
 * over the rings plus what rings torn down before had counted.
 */
#include <linux/device.h>
#include "common.h"

#define BF_STAT(f) { #f, offsetof(struct xfab_bf_stats, f) }

static const struct {
	const char *name;
	size_t off;
} bf_stats[] = {
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

void xfab_bf_stats_add(struct xfab_bf_stats *to,
		       const struct xfab_bf_stats *from)
{
	const u64 *f = (const u64 *)from;
	u64 *t = (u64 *)to;
	unsigned int i;

	for (i = 0; i < sizeof(*from) / sizeof(u64); i++)
		t[i] += READ_ONCE(f[i]);
}

static ssize_t bf_stat_show(struct device *d, struct device_attribute *attr,
			    char *buf)
{
	struct dev_ext_attribute *ea = container_of(attr,
						    struct dev_ext_attribute,
						    attr);
	struct xfab_bf_info *info = dev_get_drvdata(d);
	struct xfab_bf_stats sum;
	unsigned int i;

	if (!info)
		return -ENODEV;
	mutex_lock(&info->lock);
	sum = info->gone;
	for (i = 0; info->rings && i < info->nr_rings; i++)
		xfab_bf_stats_add(&sum, &info->rings[i].st);
	mutex_unlock(&info->lock);
	return sysfs_emit(buf, "%llu\n",
			  *(u64 *)((char *)&sum + (size_t)ea->var));
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

static struct dev_ext_attribute bf_ext[ARRAY_SIZE(bf_stats)];
static struct attribute *bf_attrs[ARRAY_SIZE(bf_stats) + 2];

static const struct attribute_group bf_group = {
	.name = "statistics",
	.attrs = bf_attrs,
};

const struct attribute_group *xfab_bf_groups[] = { &bf_group, NULL };

void xfab_bf_stats_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bf_stats); i++) {
		struct dev_ext_attribute *ea = &bf_ext[i];

		sysfs_attr_init(&ea->attr.attr);
		ea->attr.attr.name = bf_stats[i].name;
		ea->attr.attr.mode = 0444;
		ea->attr.show = bf_stat_show;
		ea->var = (void *)bf_stats[i].off;
		bf_attrs[i] = &ea->attr.attr;
	}
	bf_attrs[i++] = &dev_attr_write_mode.attr;
	bf_attrs[i] = NULL;
}
