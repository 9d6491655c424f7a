// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Counter tables; see xfab_stats.h. */
#include "xfab_stats.h"

#ifdef __KERNEL__
#include <linux/atomic.h>
#include <linux/kernel.h>
#include "xfab_kstats.h"

static u64 stat_read(const void *set, const struct xfab_stat *s)
{
	const char *base = set;

	if (s->sync == XFAB_STAT_ATOMIC)
		return atomic64_read((const atomic64_t *)(base + s->off));
	return xfab_stat_get((const struct u64_stats_sync *)(base + s->sync),
			     (const u64_stats_t *)(base + s->off));
}

static void stat_add(void *set, const struct xfab_stat *s, u64 v)
{
	char *base = set;
	struct u64_stats_sync *sync;

	if (s->sync == XFAB_STAT_ATOMIC) {
		atomic64_add(v, (atomic64_t *)(base + s->off));
		return;
	}
	sync = (struct u64_stats_sync *)(base + s->sync);
	xfab_stat_add(sync, (u64_stats_t *)(base + s->off), v);
}
#else
#include <stdio.h>

/* The unit tests' sets: plain u64, whatever the entry's sync says. */
static u64 stat_read(const void *set, const struct xfab_stat *s)
{
	u64 v;

	memcpy(&v, (const char *)set + s->off, sizeof(v));
	return v;
}

static void stat_add(void *set, const struct xfab_stat *s, u64 v)
{
	u64 *p = (u64 *)((char *)set + s->off);

	*p += v;
}
#endif

/* a then b into a name, cut to fit: ethtool shows no more anyway. */
static void name_put(char *dst, const char *a, const char *b)
{
	size_t la = strnlen(a, XFAB_STAT_NAME_LEN - 1), lb;

	memcpy(dst, a, la);
	lb = strnlen(b, XFAB_STAT_NAME_LEN - 1 - la);
	memcpy(dst + la, b, lb);
	dst[la + lb] = '\0';
}

int xfab_stats_add(struct xfab_stats_table *t, const char *prefix,
		   const char *name, size_t off, size_t sync)
{
	struct xfab_stat *s;

	if (t->n >= t->max || off > 0xfffe ||
	    (sync > 0xfffe && sync != XFAB_STAT_ATOMIC))
		return -ENOSPC;
	s = &t->s[t->n++];
	name_put(s->name, prefix, name);
	s->off = (u16)off;
	s->sync = (u16)sync;
	return 0;
}

int xfab_stats_add_all(struct xfab_stats_table *t, const struct xfab_stat *from,
		       unsigned int n)
{
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < n; i++)
		err = xfab_stats_add(t, "", from[i].name, from[i].off,
				     from[i].sync);
	return err;
}

int xfab_stats_add_reasons(struct xfab_stats_table *t, const char *prefix,
			   const char *(*name)(int reason), int first, int nr,
			   size_t off, size_t size, size_t sync)
{
	int r, err = 0;

	for (r = first; !err && r < nr; r++)
		err = xfab_stats_add(t, prefix, name(r), off + r * size, sync);
	return err;
}

static const void *set_at(const struct xfab_stats_sets *v, unsigned int i)
{
	return (const char *)v->first + i * v->stride;
}

u64 xfab_stats_one(const struct xfab_stats_table *t,
		   const struct xfab_stats_sets *v, unsigned int i)
{
	const struct xfab_stat *s = &t->s[i];
	u64 sum = v->gone ? stat_read(v->gone, s) : 0;
	unsigned int k;

	for (k = 0; k < v->nr; k++)
		sum += stat_read(set_at(v, k), s);
	return sum;
}

unsigned int xfab_stats_count(const struct xfab_stats_table *t,
			      unsigned int nr)
{
	return t->n * (1 + nr);
}

void xfab_stats_strings(const struct xfab_stats_table *t, unsigned int nr,
			char *names)
{
	unsigned int q, i;
	char qn[16];

	for (i = 0; i < t->n; i++, names += XFAB_STAT_NAME_LEN)
		name_put(names, "", t->s[i].name);
	for (q = 0; q < nr; q++) {
		snprintf(qn, sizeof(qn), "q%u_", q);
		for (i = 0; i < t->n; i++, names += XFAB_STAT_NAME_LEN)
			name_put(names, qn, t->s[i].name);
	}
}

void xfab_stats_fill(const struct xfab_stats_table *t,
		     const struct xfab_stats_sets *v, u64 *data)
{
	u64 *per = data + t->n;
	unsigned int q, i;

	for (i = 0; i < t->n; i++)
		data[i] = v->gone ? stat_read(v->gone, &t->s[i]) : 0;
	for (q = 0; q < v->nr; q++) {
		for (i = 0; i < t->n; i++, per++) {
			*per = stat_read(set_at(v, q), &t->s[i]);
			data[i] += *per;
		}
	}
}

void xfab_stats_fold(const struct xfab_stats_table *t, void *gone,
		     const void *set)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		stat_add(gone, &t->s[i], stat_read(set, &t->s[i]));
}
