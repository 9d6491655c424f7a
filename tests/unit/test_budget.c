// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The two-level budget (common/xfab_budget): a take is all or nothing,
 * the device's bound is met before the backend's, a huge count does not
 * wrap into fitting, a lowered bound keeps what is held, and puts bring
 * every count back to 0 without wrapping below it.
 */
#include <string.h>
#include "xfab_test.h"
#include "../../common/xfab_budget.h"

TEST(budget_take_up_to_each_bound_exactly)
{
	u32 dev = 0, all = 0;

	ASSERT_EQ(xfab_budget_take(&dev, &all, 1000, 3000, 10000), XFAB_BUDGET_OK);
	ASSERT_EQ(xfab_budget_take(&dev, &all, 2000, 3000, 10000), XFAB_BUDGET_OK);
	ASSERT_EQ(dev, 3000);
	ASSERT_EQ(all, 3000);
	/* one more is over the device's bound: nothing changes */
	ASSERT_EQ(xfab_budget_take(&dev, &all, 1, 3000, 10000), XFAB_BUDGET_DEV);
	ASSERT_EQ(dev, 3000);
	ASSERT_EQ(all, 3000);
	/* nothing is always within */
	ASSERT_EQ(xfab_budget_take(&dev, &all, 0, 3000, 10000), XFAB_BUDGET_OK);
	ASSERT_EQ(dev, 3000);
}

TEST(budget_device_bound_is_met_first)
{
	u32 dev = 900, all = 900;

	/* over both: the device's is the one named */
	ASSERT_EQ(xfab_budget_take(&dev, &all, 200, 1000, 1000), XFAB_BUDGET_DEV);
	ASSERT_EQ(xfab_budget_take(&dev, &all, 200, 2000, 1000), XFAB_BUDGET_ALL);
	ASSERT_EQ(dev, 900);
	ASSERT_EQ(all, 900);
}

/*
 * netback's shape: vifs of two queues, each publishing a TX and an RX
 * pool of 1024 pages. With 3072 per vif and 4096 in all, the first vif
 * gets three pools (its fourth meets its own bound), the second one pool
 * (the rest meet the backend's), a third none; all given back, nothing
 * is held.
 */
TEST(budget_shared_by_devices)
{
	u32 vif[3] = { 0 }, all = 0, got[3] = { 0 }, dev_no[3] = { 0 };
	u32 all_no[3] = { 0 }, i, p;
	int why;

	for (i = 0; i < 3; i++) {
		for (p = 0; p < 4; p++) {
			why = xfab_budget_take(&vif[i], &all, 1024, 3072, 4096);
			got[i] += why == XFAB_BUDGET_OK;
			dev_no[i] += why == XFAB_BUDGET_DEV;
			all_no[i] += why == XFAB_BUDGET_ALL;
		}
	}
	ASSERT_EQ(got[0], 3);
	ASSERT_EQ(dev_no[0], 1);
	ASSERT_EQ(got[1], 1);
	ASSERT_EQ(all_no[1], 3);
	ASSERT_EQ(got[2], 0);
	ASSERT_EQ(all_no[2], 4);
	ASSERT_EQ(all, 4096);
	for (i = 0; i < 3; i++)
		for (p = 0; p < got[i]; p++)
			ASSERT_TRUE(xfab_budget_put(&vif[i], &all, 1024));
	ASSERT_EQ(all, 0);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(vif[i], 0);
}

TEST(budget_huge_counts_do_not_wrap)
{
	u32 dev = 16, all = 16;

	ASSERT_EQ(xfab_budget_take(&dev, &all, 0xfffffff0u, 0xffffffffu,
				   0xffffffffu), XFAB_BUDGET_DEV);
	ASSERT_EQ(xfab_budget_take(&dev, &all, 0xffffffffu, 0xffffffffu,
				   0xffffffffu), XFAB_BUDGET_DEV);
	dev = 0;
	ASSERT_EQ(xfab_budget_take(&dev, &all, 0xfffffff0u, 0xffffffffu,
				   0xffffffffu), XFAB_BUDGET_ALL);
	ASSERT_EQ(dev, 0);
	ASSERT_EQ(all, 16);
	/* exactly at the top of the range still fits */
	ASSERT_EQ(xfab_budget_take(&dev, &all, 0xffffffefu, 0xffffffffu,
				   0xffffffffu), XFAB_BUDGET_OK);
	ASSERT_EQ(all, 0xffffffffu);
}

TEST(budget_lowered_bound_keeps_what_is_held)
{
	u32 dev = 0, all = 0;

	ASSERT_EQ(xfab_budget_take(&dev, &all, 2048, 4096, 32768), XFAB_BUDGET_OK);
	/* the bounds drop below what is held (a runtime write) */
	ASSERT_EQ(xfab_budget_take(&dev, &all, 1, 1024, 32768), XFAB_BUDGET_DEV);
	ASSERT_EQ(xfab_budget_take(&dev, &all, 1, 4096, 1024), XFAB_BUDGET_ALL);
	ASSERT_EQ(dev, 2048);
	ASSERT_TRUE(xfab_budget_put(&dev, &all, 2048));
	ASSERT_EQ(xfab_budget_take(&dev, &all, 1024, 1024, 1024), XFAB_BUDGET_OK);
	ASSERT_EQ(xfab_budget_take(&dev, &all, 0, 0, 0), XFAB_BUDGET_OK);
	ASSERT_EQ(xfab_budget_take(&dev, &all, 1, 0, 0), XFAB_BUDGET_DEV);
}

TEST(budget_put_never_wraps)
{
	u32 dev = 10, all = 100;

	/* more than the device holds: reported, and left at 0 */
	ASSERT_FALSE(xfab_budget_put(&dev, &all, 11));
	ASSERT_EQ(dev, 0);
	ASSERT_EQ(all, 89);
	dev = 500;
	ASSERT_FALSE(xfab_budget_put(&dev, &all, 100));
	ASSERT_EQ(dev, 400);
	ASSERT_EQ(all, 0);
	ASSERT_TRUE(xfab_budget_put(&dev, &all, 0));
}

TEST(budget_why_names)
{
	ASSERT_EQ(strcmp(xfab_budget_why_name(XFAB_BUDGET_DEV), "device"), 0);
	ASSERT_EQ(strcmp(xfab_budget_why_name(XFAB_BUDGET_ALL), "backend"), 0);
	ASSERT_EQ(strcmp(xfab_budget_why_name(-1), "unknown"), 0);
	ASSERT_EQ(strcmp(xfab_budget_why_name(XFAB_BUDGET_NR), "unknown"), 0);
}
