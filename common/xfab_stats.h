/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One statistics scheme for the four drivers. A driver keeps its counters
 * in a struct, one per ring or queue (a "set"), plus one set holding what
 * torn-down rings had counted, and names each counter once in a table of
 * {name, offset}. The helpers here sum a counter over the live sets and
 * the torn-down one, and lay the counters out for ethtool -S (totals,
 * then q<N>_<name> per set: the net drivers) or read one by name (the
 * block drivers' sysfs files, through xfab_kstats.h).
 *
 * In the kernel a counter is a u64_stats_t read under the u64_stats_sync
 * its writer updates (the entry names which), or an atomic64_t for a
 * counter two contexts write at once (interrupt handlers of two
 * channels, I/O completions). The unit tests' sets are plain u64.
 */
#ifndef XFAB_STATS_H
#define XFAB_STATS_H

#include "xfab_types.h"

/* ETH_GSTRING_LEN: the longest name ethtool shows, with its NUL. */
#define XFAB_STAT_NAME_LEN 32

/* An entry's sync when the counter is an atomic64_t. */
#define XFAB_STAT_ATOMIC 0xffffu

struct xfab_stat {
	char name[XFAB_STAT_NAME_LEN];
	u16 off;	/* of the counter in the set */
	u16 sync;	/* of the u64_stats_sync it is written under */
};

struct xfab_stats_table {
	struct xfab_stat *s;
	unsigned int n, max;
};

/* Where a device's counters are: live sets and what gone ones counted. */
struct xfab_stats_sets {
	const void *gone;	/* may be NULL */
	const void *first;	/* live set i is at first + i * stride */
	size_t stride;
	unsigned int nr;
};

/*
 * Append counter prefix + name (truncated to fit) at offset off of a set,
 * written under the sync at offset sync (or XFAB_STAT_ATOMIC). -ENOSPC
 * when the table is full: a driver's table is sized for what it adds.
 */
int xfab_stats_add(struct xfab_stats_table *t, const char *prefix,
		   const char *name, size_t off, size_t sync);

/* Append n entries as they are (a driver's fixed counters). */
int xfab_stats_add_all(struct xfab_stats_table *t, const struct xfab_stat *from,
		       unsigned int n);

/*
 * Append one counter per reason first..nr-1 of a validator in common/,
 * named prefix + name(reason): counter r at off + r * size, all under
 * the same sync.
 */
int xfab_stats_add_reasons(struct xfab_stats_table *t, const char *prefix,
			   const char *(*name)(int reason), int first, int nr,
			   size_t off, size_t size, size_t sync);

/* Counter i summed over v's sets, torn down and live. */
u64 xfab_stats_one(const struct xfab_stats_table *t,
		   const struct xfab_stats_sets *v, unsigned int i);

/* ethtool -S: how many values for nr live sets, their names, values. */
unsigned int xfab_stats_count(const struct xfab_stats_table *t,
			      unsigned int nr);
void xfab_stats_strings(const struct xfab_stats_table *t, unsigned int nr,
			char *names);
void xfab_stats_fill(const struct xfab_stats_table *t,
		     const struct xfab_stats_sets *v, u64 *data);

/*
 * Add what set counted into gone, before set is freed: the totals of a
 * device never go back. The caller is gone's only writer.
 */
void xfab_stats_fold(const struct xfab_stats_table *t, void *gone,
		     const void *set);

#endif /* XFAB_STATS_H */
