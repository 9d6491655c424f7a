// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Counter tables: names built as the drivers build them, totals over
 * live sets plus torn-down ones, ethtool's layout (totals, then q<N>_
 * per set, names and values in the same order), and folding a set into
 * the torn-down one.
 */
#include <stdio.h>
#include "xfab_test.h"
#include "../../common/xfab_stats.h"

struct fake_set {
	u64 packets, bytes;
	u64 err[3];
	u64 sync;	/* stands for the kernel's u64_stats_sync */
};

/* A driver-like ring: the set sits inside something bigger. */
struct fake_ring {
	char before[24];
	struct fake_set st;
	int after;
};

static const char *const err_names[] = { "none", "runt", "too_big" };

static struct xfab_stat slots[8];
static struct xfab_stats_table table = { slots, 0, 6 };

static const char *err_name(int r)
{
	return err_names[r];
}

static const struct xfab_stat fixed[] = {
	{ "packets", offsetof(struct fake_set, packets),
	  offsetof(struct fake_set, sync) },
	{ "bytes", offsetof(struct fake_set, bytes), XFAB_STAT_ATOMIC },
};

/* As a driver does at init: fixed counters, then reasons 1.. */
static int table_build(void)
{
	table.n = 0;
	return xfab_stats_add_all(&table, fixed, 2) ?:
	       xfab_stats_add_reasons(&table, "tx_err_", err_name, 1, 3,
				      offsetof(struct fake_set, err),
				      sizeof(u64),
				      offsetof(struct fake_set, sync));
}

TEST(stats_table_names_and_bounds)
{
	char big[64];

	ASSERT_EQ(table_build(), 0);
	ASSERT_EQ(table.n, 4);
	ASSERT_EQ(strcmp(slots[2].name, "tx_err_runt"), 0);
	ASSERT_EQ(strcmp(slots[3].name, "tx_err_too_big"), 0);
	ASSERT_EQ(slots[3].off, offsetof(struct fake_set, err) + 2 * sizeof(u64));
	ASSERT_EQ(slots[1].sync, XFAB_STAT_ATOMIC);
	/* a name too long for ethtool is cut, never overrun */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ASSERT_EQ(xfab_stats_add(&table, "p_", big, 0, 0), 0);
	ASSERT_EQ(strlen(slots[4].name), XFAB_STAT_NAME_LEN - 1);
	ASSERT_EQ(xfab_stats_add(&table, "", "six", 0, 0), 0);
	/* full at max; offsets past u16 are refused, not truncated */
	ASSERT_EQ(xfab_stats_add(&table, "", "seven", 0, 0), -ENOSPC);
	table.n = 4;
	ASSERT_EQ(xfab_stats_add(&table, "", "far", 0x10000, 0), -ENOSPC);
	ASSERT_EQ(xfab_stats_add(&table, "", "far", 0, 0x12345), -ENOSPC);
	ASSERT_EQ(table.n, 4);
	/* reasons past the table's room: refused */
	ASSERT_EQ(xfab_stats_add_reasons(&table, "", err_name, 0, 3, 0, 8, 0),
		  -ENOSPC);
}

TEST(stats_sum_live_and_gone)
{
	struct fake_ring rings[3];
	struct fake_set gone = { 100, 1000, { 0, 7, 0 }, 0 };
	struct xfab_stats_sets v = { &gone, &rings[0].st, sizeof(rings[0]), 3 };
	unsigned int i;

	table_build();
	memset(rings, 0xee, sizeof(rings));	/* only the sets may count */
	for (i = 0; i < 3; i++) {
		rings[i].st = (struct fake_set){ i + 1, 10 * (i + 1),
						 { 0, i, 2 * i }, 0 };
	}
	ASSERT_EQ(xfab_stats_one(&table, &v, 0), 100 + 1 + 2 + 3);
	ASSERT_EQ(xfab_stats_one(&table, &v, 1), 1000 + 10 + 20 + 30);
	ASSERT_EQ(xfab_stats_one(&table, &v, 2), 7 + 0 + 1 + 2);
	ASSERT_EQ(xfab_stats_one(&table, &v, 3), 0 + 0 + 2 + 4);
	/* no torn-down set, no live sets */
	v.gone = NULL;
	ASSERT_EQ(xfab_stats_one(&table, &v, 0), 6);
	v.nr = 0;
	ASSERT_EQ(xfab_stats_one(&table, &v, 0), 0);
}

TEST(stats_ethtool_layout)
{
	struct fake_ring rings[2];
	struct fake_set gone = { 5, 50, { 0, 1, 1 }, 0 };
	struct xfab_stats_sets v = { &gone, &rings[0].st, sizeof(rings[0]), 2 };
	char names[12][XFAB_STAT_NAME_LEN];
	u64 data[12];

	table_build();
	rings[0].st = (struct fake_set){ 1, 2, { 0, 3, 4 }, 0 };
	rings[1].st = (struct fake_set){ 10, 20, { 0, 30, 40 }, 0 };
	ASSERT_EQ(xfab_stats_count(&table, 2), 12);
	xfab_stats_strings(&table, 2, names[0]);
	ASSERT_EQ(strcmp(names[0], "packets"), 0);
	ASSERT_EQ(strcmp(names[3], "tx_err_too_big"), 0);
	ASSERT_EQ(strcmp(names[4], "q0_packets"), 0);
	ASSERT_EQ(strcmp(names[11], "q1_tx_err_too_big"), 0);
	xfab_stats_fill(&table, &v, data);
	ASSERT_EQ(data[0], 16);		/* totals include the torn down */
	ASSERT_EQ(data[1], 72);
	ASSERT_EQ(data[2], 34);
	ASSERT_EQ(data[3], 45);
	ASSERT_EQ(data[4], 1);		/* per queue: the queue's own */
	ASSERT_EQ(data[7], 4);
	ASSERT_EQ(data[8], 10);
	ASSERT_EQ(data[11], 40);
}

TEST(stats_fold_keeps_totals)
{
	struct fake_ring ring;
	struct fake_set gone = { 1, 2, { 0, 3, 4 }, 0 };
	struct xfab_stats_sets v = { &gone, &ring.st, sizeof(ring), 1 };
	u64 before[4], after[4];
	unsigned int i;

	table_build();
	ring.st = (struct fake_set){ 10, 20, { 99, 30, 40 }, 0 };
	for (i = 0; i < 4; i++)
		before[i] = xfab_stats_one(&table, &v, i);
	xfab_stats_fold(&table, &gone, &ring.st);
	v.nr = 0;		/* the ring is gone */
	for (i = 0; i < 4; i++)
		after[i] = xfab_stats_one(&table, &v, i);
	ASSERT_EQ(memcmp(before, after, sizeof(before)), 0);
	ASSERT_EQ(gone.err[0], 0);	/* not in the table: not folded */
	ASSERT_EQ(gone.sync, 0);
}
