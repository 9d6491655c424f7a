// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The transmit rate limit: the "rate" key is parsed strictly, a sender
 * never gets more than the configured bytes per period over a long run,
 * idle periods carry over only up to the cap, and a packet bigger than
 * one period's credit still goes once enough has gathered.
 */
#include "xfab_test.h"
#include "../../common/xfab_credit.h"

#define MS 1000000ull

TEST(credit_parse_accepts_libxl_form)
{
	const char *why = NULL;
	u64 b, u;

	ASSERT_EQ(xfab_credit_parse("1250000,50000", &b, &u, &why), 0);
	ASSERT_EQ(b, 1250000);
	ASSERT_EQ(u, 50000);
	ASSERT_EQ(xfab_credit_parse("1,4294967295", &b, &u, &why), 0);
	ASSERT_EQ(u, 4294967295ull);
}

TEST(credit_parse_refuses_junk)
{
	static const char *const bad[] = {
		"", ",", "100", "100,", ",100", "100,50x", "x100,50",
		"-1,50", "100,-5", "100 ,50", "100, 50", "0,50", "100,0",
		"100,4294967296", "18446744073709551616,10", "1,2,3",
	};
	const char *why;
	unsigned int i;
	u64 b, u;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		ASSERT_EQ(xfab_credit_parse(bad[i], &b, &u, &why), -EINVAL);
		ASSERT_TRUE(why != NULL);
	}
}

TEST(credit_unlimited_never_waits)
{
	struct xfab_credit c;

	xfab_credit_init(&c, 0, 0, 5);
	ASSERT_EQ(xfab_credit_take(&c, 65535, 5), 0);
	ASSERT_EQ(xfab_credit_take(&c, 65535, 5), 0);
}

TEST(credit_waits_for_the_next_period)
{
	struct xfab_credit c;

	/* 100000 bytes every 10 ms, starting at t = 1000 ms */
	xfab_credit_init(&c, 100000, 10000, 1000 * MS);
	ASSERT_EQ(xfab_credit_take(&c, 60000, 1000 * MS), 0);
	ASSERT_EQ(xfab_credit_take(&c, 40000, 1001 * MS), 0);
	ASSERT_EQ(xfab_credit_take(&c, 1, 1002 * MS), 8 * MS);
	/* Refused asks charge nothing; the boundary brings a period's worth. */
	ASSERT_EQ(xfab_credit_take(&c, 1, 1009 * MS), 1 * MS);
	ASSERT_EQ(xfab_credit_take(&c, 100000, 1010 * MS), 0);
	ASSERT_EQ(xfab_credit_take(&c, 1, 1015 * MS), 5 * MS);
}

TEST(credit_idle_carries_over_up_to_the_cap)
{
	struct xfab_credit c;

	/* 1000 bytes per ms: the cap is the 64 KiB floor, not 1000. */
	xfab_credit_init(&c, 1000, 1000, 0);
	ASSERT_EQ(c.cap, XFAB_CREDIT_MIN_CAP);
	ASSERT_EQ(xfab_credit_take(&c, 1000, 0), 0);
	/* A long idle fills the bucket to the cap and no further. */
	ASSERT_EQ(xfab_credit_take(&c, 65536, 3600000 * MS), 0);
	ASSERT_NE(xfab_credit_take(&c, 1, 3600000 * MS), 0);
	/* A 64 KiB packet after that waits about 66 periods, not forever. */
	ASSERT_EQ(xfab_credit_take(&c, 65535, 3600000 * MS + 64 * MS), 1 * MS);
	ASSERT_EQ(xfab_credit_take(&c, 65535, 3600000 * MS + 66 * MS), 0);
	/* Larger than the cap: charged as the cap. */
	ASSERT_EQ(xfab_credit_take(&c, 1u << 20, 3600000 * MS + 200 * MS), 0);
	ASSERT_EQ(c.left, 0);
}

TEST(credit_long_run_stays_under_the_rate)
{
	struct xfab_credit c;
	u64 now = 0, sent = 0, len = 1514;
	unsigned int i;

	/* 3000 bytes per ms; a greedy sender for 10 s of simulated time. */
	xfab_credit_init(&c, 3000, 1000, 0);
	for (i = 0; i < 1000000 && now < 10000 * MS; i++) {
		u64 wait = xfab_credit_take(&c, len, now);

		if (wait)
			now += wait;
		else
			sent += len;
	}
	ASSERT_LE(sent, 3000ull * 10000 + XFAB_CREDIT_MIN_CAP);
	ASSERT_GE(sent, 3000ull * 10000 * 95 / 100);
}

TEST(credit_huge_values_do_not_overflow)
{
	struct xfab_credit c;

	xfab_credit_init(&c, ~0ull, 1, 0);
	ASSERT_EQ(xfab_credit_take(&c, ~0ull, 0), 0);
	ASSERT_EQ(xfab_credit_take(&c, 1, 0), 1000);
	ASSERT_EQ(xfab_credit_take(&c, 1, ~0ull >> 2), 0);
	ASSERT_EQ(c.left, ~0ull - 1);
}
