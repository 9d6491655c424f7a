/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel only: counter updates and reads, and a table of xfab_stats.h
 * served as one read-only sysfs file per counter (the block drivers'
 * statistics/ directory, xfab_kstats.c).
 */
#ifndef XFAB_KSTATS_H
#define XFAB_KSTATS_H

#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>
#include <linux/u64_stats_sync.h>
#include "xfab_stats.h"

/* One update of a u64_stats_t counter by its sync's only writer. */
#define xfab_stat_add(sync, ctr, n)			\
	do {						\
		u64_stats_update_begin(sync);		\
		u64_stats_add(ctr, n);			\
		u64_stats_update_end(sync);		\
	} while (0)
#define xfab_stat_inc(sync, ctr) xfab_stat_add(sync, ctr, 1)

/* A table entry: a counter field of the set's struct, and its sync. */
#define XFAB_STAT(type, sync, field) \
	{ #field, offsetof(type, field), offsetof(type, sync) }
#define XFAB_STAT_A(type, field) \
	{ #field, offsetof(type, field), XFAB_STAT_ATOMIC }

/* A counter's value, read under its writer's sync. */
static inline u64 xfab_stat_get(const struct u64_stats_sync *sync,
				const u64_stats_t *ctr)
{
	unsigned int start;
	u64 v;

	do {
		start = u64_stats_fetch_begin(sync);
		v = u64_stats_read(ctr);
	} while (u64_stats_fetch_retry(sync, start));
	return v;
}

/*
 * What the sysfs files need of a driver: its table, and the sets of the
 * device behind a struct device, returned with the lock that keeps
 * them in place held (NULL, and nothing held, when the device has
 * gone). The read drops that lock itself.
 */
struct xfab_kstats_sysfs {
	const struct xfab_stats_table *t;
	struct mutex *(*get)(struct device *d, struct xfab_stats_sets *v);
	struct dev_ext_attribute *ext;	/* t->n of them */
};

/*
 * The table's files into attrs, from its first slot; returns how many
 * were put there. Once, at module init, after the table is built: the
 * module has one such table (xfab_kstats.c keeps it).
 */
unsigned int xfab_kstats_sysfs_init(const struct xfab_kstats_sysfs *ks,
				    struct attribute **attrs);

#endif /* XFAB_KSTATS_H */
