// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The bounds on a device's ring sets (common/xfab_drain): a device stops
 * at dev_max sets draining, the backend at all_max sets past each
 * device's first, a device with nothing draining is never refused, and
 * every count comes back to 0 whatever order sets leave in.
 */
#include "xfab_test.h"
#include "../../common/xfab_drain.h"

/* Connect, then let go with requests at the disk: one more draining. */
static int cycle(struct xfab_drain_dev *d, u32 *extra, u32 dev_max,
		 u32 all_max)
{
	int why = xfab_drain_connect(d, extra, dev_max, all_max);

	if (why == XFAB_DRAIN_OK && !xfab_drain_release(d, extra, true))
		return -1;
	return why;
}

TEST(drain_device_bound_then_a_drain_lets_it_connect)
{
	struct xfab_drain_dev d = { 0 };
	u32 extra = 0;

	ASSERT_EQ(cycle(&d, &extra, 2, 100), XFAB_DRAIN_OK);
	ASSERT_EQ(cycle(&d, &extra, 2, 100), XFAB_DRAIN_OK);
	ASSERT_EQ(d.draining, 2);
	ASSERT_EQ(extra, 1);		/* two held, the first is its own */
	/* at the bound: refused, and nothing moved */
	ASSERT_EQ(xfab_drain_connect(&d, &extra, 2, 100), XFAB_DRAIN_DEV);
	ASSERT_EQ(d.draining, 2);
	ASSERT_FALSE(d.live);
	ASSERT_EQ(extra, 1);
	/* one finishes: the connect goes ahead, one past its first twice */
	ASSERT_TRUE(xfab_drain_done(&d, &extra));
	ASSERT_EQ(xfab_drain_connect(&d, &extra, 2, 100), XFAB_DRAIN_OK);
	ASSERT_TRUE(d.live);
	ASSERT_EQ(extra, 1);
	ASSERT_TRUE(xfab_drain_done(&d, &extra));
	ASSERT_EQ(extra, 0);
	ASSERT_TRUE(xfab_drain_release(&d, &extra, false));
	ASSERT_EQ(d.draining, 0);
	ASSERT_FALSE(d.live);
	ASSERT_EQ(extra, 0);
}

TEST(drain_nothing_draining_is_never_refused)
{
	struct xfab_drain_dev d = { 0 };
	u32 extra = 5;			/* other devices' extras, past all_max */

	/* both bounds at 0 (dev_max 0 counts as 1) */
	ASSERT_EQ(xfab_drain_connect(&d, &extra, 0, 0), XFAB_DRAIN_OK);
	ASSERT_EQ(extra, 5);		/* its first: not an extra */
	ASSERT_TRUE(xfab_drain_release(&d, &extra, true));
	ASSERT_EQ(extra, 5);		/* still its one set */
	ASSERT_EQ(xfab_drain_connect(&d, &extra, 0, 0), XFAB_DRAIN_DEV);
	ASSERT_EQ(xfab_drain_connect(&d, &extra, 3, 0), XFAB_DRAIN_ALL);
	ASSERT_TRUE(xfab_drain_done(&d, &extra));
	ASSERT_EQ(xfab_drain_connect(&d, &extra, 0, 0), XFAB_DRAIN_OK);
	ASSERT_EQ(extra, 5);
}

TEST(drain_backend_bound_counts_every_device_past_its_first)
{
	struct xfab_drain_dev a = { 0 }, b = { 0 }, c = { 0 };
	u32 extra = 0;

	/* a holds 3 (2 extra), b 2 (1 extra): the backend's 3 are spent */
	ASSERT_EQ(cycle(&a, &extra, 8, 3), XFAB_DRAIN_OK);
	ASSERT_EQ(cycle(&a, &extra, 8, 3), XFAB_DRAIN_OK);
	ASSERT_EQ(xfab_drain_connect(&a, &extra, 8, 3), XFAB_DRAIN_OK);
	ASSERT_EQ(cycle(&b, &extra, 8, 3), XFAB_DRAIN_OK);
	ASSERT_EQ(xfab_drain_connect(&b, &extra, 8, 3), XFAB_DRAIN_OK);
	ASSERT_EQ(extra, 3);
	/* b lets go again: one more it may not connect past */
	ASSERT_TRUE(xfab_drain_release(&b, &extra, true));
	ASSERT_EQ(extra, 3);
	ASSERT_EQ(xfab_drain_connect(&b, &extra, 8, 3), XFAB_DRAIN_ALL);
	/* c has nothing: its first set connects all the same */
	ASSERT_EQ(xfab_drain_connect(&c, &extra, 8, 3), XFAB_DRAIN_OK);
	ASSERT_EQ(extra, 3);
	/* the device's bound is named first when both are met */
	ASSERT_EQ(xfab_drain_connect(&b, &extra, 2, 3), XFAB_DRAIN_DEV);
	/* a's connected set goes without draining: room for b */
	ASSERT_TRUE(xfab_drain_release(&a, &extra, false));
	ASSERT_EQ(extra, 2);
	ASSERT_EQ(xfab_drain_connect(&b, &extra, 8, 3), XFAB_DRAIN_OK);
	ASSERT_EQ(extra, 3);
	/* everything goes, in any order: back to 0 */
	ASSERT_TRUE(xfab_drain_release(&b, &extra, false));
	ASSERT_TRUE(xfab_drain_done(&b, &extra));
	ASSERT_TRUE(xfab_drain_done(&a, &extra));
	ASSERT_TRUE(xfab_drain_done(&b, &extra));
	ASSERT_TRUE(xfab_drain_done(&a, &extra));
	ASSERT_TRUE(xfab_drain_release(&c, &extra, false));
	ASSERT_EQ(extra, 0);
	ASSERT_EQ(a.draining + b.draining + c.draining, 0);
}

TEST(drain_lowered_bound_keeps_what_is_held)
{
	struct xfab_drain_dev d = { 0 };
	u32 extra = 0;
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(cycle(&d, &extra, 8, 100), XFAB_DRAIN_OK);
	/* the bound lowered at run time: refused until under it again */
	ASSERT_EQ(xfab_drain_connect(&d, &extra, 2, 100), XFAB_DRAIN_DEV);
	ASSERT_TRUE(xfab_drain_done(&d, &extra));
	ASSERT_TRUE(xfab_drain_done(&d, &extra));
	ASSERT_EQ(xfab_drain_connect(&d, &extra, 2, 100), XFAB_DRAIN_DEV);
	ASSERT_TRUE(xfab_drain_done(&d, &extra));
	ASSERT_EQ(xfab_drain_connect(&d, &extra, 2, 100), XFAB_DRAIN_OK);
	ASSERT_EQ(d.draining, 1);
	ASSERT_EQ(extra, 1);
}

TEST(drain_accounting_bugs_change_nothing)
{
	struct xfab_drain_dev d = { 0 };
	u32 extra = 0;

	ASSERT_FALSE(xfab_drain_done(&d, &extra));
	ASSERT_FALSE(xfab_drain_release(&d, &extra, true));
	ASSERT_EQ(d.draining, 0);
	ASSERT_EQ(extra, 0);
	/* a second connect of a live device is the same set */
	ASSERT_EQ(xfab_drain_connect(&d, &extra, 1, 0), XFAB_DRAIN_OK);
	ASSERT_EQ(xfab_drain_connect(&d, &extra, 1, 0), XFAB_DRAIN_OK);
	ASSERT_TRUE(d.live);
	ASSERT_EQ(extra, 0);
	ASSERT_TRUE(xfab_drain_release(&d, &extra, false));
	ASSERT_FALSE(xfab_drain_release(&d, &extra, false));
	/* a backend count some other bug left short does not wrap */
	extra = 0;
	d.live = true;
	d.draining = 2;
	ASSERT_TRUE(xfab_drain_done(&d, &extra));
	ASSERT_EQ(extra, 0);
}
