// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Packet aging (xfab_age.h, xfab_netback's rx_drain_ms): a thing is old
 * once it waited longer than the limit, not at it; the clock's wrap
 * changes nothing; the time left says exactly when it turns old; and a
 * stamp from "the future" counts as old, never as forever young.
 */
#include "xfab_test.h"
#include "../../common/xfab_age.h"

TEST(age_over_only_past_the_limit)
{
	ASSERT_FALSE(xfab_age_over(1000, 1000, 250));
	ASSERT_FALSE(xfab_age_over(1249, 1000, 250));
	ASSERT_FALSE(xfab_age_over(1250, 1000, 250));	/* at it: not yet */
	ASSERT_TRUE(xfab_age_over(1251, 1000, 250));
	ASSERT_TRUE(xfab_age_over(900000, 1000, 250));
	/* limit 0: anything stamped before this tick is old */
	ASSERT_FALSE(xfab_age_over(7, 7, 0));
	ASSERT_TRUE(xfab_age_over(8, 7, 0));
}

/*
 * Every stamp near the wrap, every age around the limit: the verdict
 * depends on the age alone. jiffies starts 5 minutes before its 32-bit
 * wrap, so in the kernel this is the case of every freshly booted dom0.
 */
TEST(age_over_across_the_wrap)
{
	const u32 limit = 250;
	u32 stamp, age;

	for (stamp = 0xffffff00u; stamp != 0x100u; stamp++) {
		for (age = 0; age <= 2 * limit; age++) {
			u32 now = stamp + age;

			ASSERT_EQ(xfab_age(now, stamp), age);
			ASSERT_EQ(xfab_age_over(now, stamp, limit), age > limit);
		}
	}
}

TEST(age_left_is_when_it_turns_old)
{
	const u32 limit = 2500;
	u32 stamp = 0xfffffa00u, t;

	ASSERT_EQ(xfab_age_left(stamp, stamp, limit), limit + 1);
	/* for each tick: old exactly when no time is left, and then at once */
	for (t = stamp; t != stamp + 2 * limit; t++) {
		u32 left = xfab_age_left(t, stamp, limit);

		ASSERT_EQ(left == 0, xfab_age_over(t, stamp, limit));
		if (left)
			ASSERT_TRUE(xfab_age_over(t + left, stamp, limit));
		if (left > 1)
			ASSERT_FALSE(xfab_age_over(t + left - 1, stamp, limit));
	}
}

/*
 * A stamp later than now reads as an age near 2^32: old. A queue that
 * met one drops the packet instead of keeping it (and everything behind
 * it) for 2^31 ticks.
 */
TEST(age_future_stamp_is_old)
{
	ASSERT_TRUE(xfab_age_over(1000, 1001, 250));
	ASSERT_TRUE(xfab_age_over(5, 0xfffffff0u + 100, 10000));
	ASSERT_EQ(xfab_age_left(1000, 1001, 250), 0);
	/* the largest limit a caller may give still ages a future stamp */
	ASSERT_TRUE(xfab_age_over(1000, 1001, 0xfffffffdu));
}
