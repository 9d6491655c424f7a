// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Kernel only: a counter table as sysfs files; see xfab_kstats.h. Built
 * into the modules that have such files (the block drivers).
 */
#include "xfab_kstats.h"

static const struct xfab_kstats_sysfs *xfab_kstats_of_module;

static ssize_t xfab_kstat_show(struct device *d, struct device_attribute *a,
			       char *buf)
{
	const struct xfab_kstats_sysfs *ks = xfab_kstats_of_module;
	struct dev_ext_attribute *ea = container_of(a, struct dev_ext_attribute,
						    attr);
	struct xfab_stats_sets v;
	struct mutex *held;
	u64 val;

	held = ks->get(d, &v);
	if (!held)
		return -ENODEV;
	val = xfab_stats_one(ks->t, &v, (unsigned int)(unsigned long)ea->var);
	mutex_unlock(held);
	return sysfs_emit(buf, "%llu\n", (unsigned long long)val);
}

unsigned int xfab_kstats_sysfs_init(const struct xfab_kstats_sysfs *ks,
				    struct attribute **attrs)
{
	unsigned int i;

	xfab_kstats_of_module = ks;
	for (i = 0; i < ks->t->n; i++) {
		struct dev_ext_attribute *ea = &ks->ext[i];

		sysfs_attr_init(&ea->attr.attr);
		ea->attr.attr.name = ks->t->s[i].name;
		ea->attr.attr.mode = 0444;
		ea->attr.show = xfab_kstat_show;
		ea->var = (void *)(unsigned long)i;
		attrs[i] = &ea->attr.attr;
	}
	return i;
}
