// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The backend's xenbus decisions: what each frontend state asks for
 * (netif publishes its rings with Connected, blkif with Initialised), and
 * that walking step by step from any backend state reaches any reachable
 * target in a few steps, connecting only on InitWait -> Connected and
 * tearing down whenever it leaves Connected.
 */
#include "xfab_test.h"
#include "../../common/xfab_xenbus.h"

TEST(xenbus_target_netif_and_blkif)
{
	static const struct {
		int fe, ready, want;
	} t[] = {
		{ XFAB_XS_INITIALISING, XFAB_XS_CONNECTED, XFAB_XS_INITWAIT },
		{ XFAB_XS_INITIALISED, XFAB_XS_CONNECTED, XFAB_XS_INITWAIT },
		{ XFAB_XS_CONNECTED, XFAB_XS_CONNECTED, XFAB_XS_CONNECTED },
		{ XFAB_XS_INITIALISING, XFAB_XS_INITIALISED, XFAB_XS_INITWAIT },
		{ XFAB_XS_INITIALISED, XFAB_XS_INITIALISED, XFAB_XS_CONNECTED },
		{ XFAB_XS_CONNECTED, XFAB_XS_INITIALISED, XFAB_XS_CONNECTED },
		{ XFAB_XS_CLOSING, XFAB_XS_CONNECTED, XFAB_XS_CLOSING },
		{ XFAB_XS_CLOSED, XFAB_XS_INITIALISED, XFAB_XS_CLOSED },
	};
	unsigned int i;
	bool gone;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ASSERT_EQ(xfab_be_target(t[i].fe, t[i].ready, true, &gone),
			  t[i].want);
		ASSERT_FALSE(gone);
	}
}

TEST(xenbus_target_gone_and_bad)
{
	bool gone;

	ASSERT_EQ(xfab_be_target(XFAB_XS_CLOSED, XFAB_XS_CONNECTED, false,
				 &gone), XFAB_XS_CLOSED);
	ASSERT_TRUE(gone);
	ASSERT_EQ(xfab_be_target(XFAB_XS_UNKNOWN, XFAB_XS_CONNECTED, true,
				 &gone), XFAB_XS_CLOSED);
	ASSERT_TRUE(gone);
	ASSERT_EQ(xfab_be_target(XFAB_XS_INITWAIT, XFAB_XS_CONNECTED, true,
				 &gone), -1);
	ASSERT_EQ(xfab_be_target(7, XFAB_XS_CONNECTED, true, &gone), -1);
	ASSERT_EQ(xfab_be_target(-3, XFAB_XS_CONNECTED, true, &gone), -1);
}

/* Walk like the drivers do; count connects and disconnects on the way. */
static int walk(int cur, int target, int *connects, int *disconnects,
		int *steps)
{
	enum xfab_be_work w;
	int next;

	*connects = *disconnects = *steps = 0;
	while ((next = xfab_be_step(cur, target, &w)) != cur) {
		if (w == XFAB_BE_CONNECT) {
			(*connects)++;
			if (cur != XFAB_XS_INITWAIT || next != XFAB_XS_CONNECTED)
				return -1;
		}
		if (w == XFAB_BE_DISCONNECT) {
			(*disconnects)++;
			if (cur != XFAB_XS_CONNECTED)
				return -1;
		}
		cur = next;
		if (++*steps > 4)
			return -1;
	}
	return cur;
}

TEST(xenbus_step_reaches_targets)
{
	static const int be[] = { XFAB_XS_INITWAIT, XFAB_XS_CONNECTED,
				  XFAB_XS_CLOSING, XFAB_XS_CLOSED };
	int c, d, n;
	unsigned int i, j;

	for (i = 0; i < 4; i++) {
		for (j = 0; j < 4; j++) {
			int end = walk(be[i], be[j], &c, &d, &n);

			/* Closed does not go back to Closing: it stays. */
			if (be[i] == XFAB_XS_CLOSED && be[j] == XFAB_XS_CLOSING)
				ASSERT_EQ(end, XFAB_XS_CLOSED);
			else
				ASSERT_EQ(end, be[j]);
			ASSERT_EQ(c, be[j] == XFAB_XS_CONNECTED &&
				     be[i] != XFAB_XS_CONNECTED);
			ASSERT_EQ(d, be[i] == XFAB_XS_CONNECTED &&
				     be[j] != XFAB_XS_CONNECTED);
		}
	}
	/* Connected -> InitWait is the long way round. */
	ASSERT_EQ(walk(XFAB_XS_CONNECTED, XFAB_XS_INITWAIT, &c, &d, &n),
		  XFAB_XS_INITWAIT);
	ASSERT_EQ(n, 3);
	/* Closing is not left for Connected without passing Closed/InitWait. */
	ASSERT_EQ(walk(XFAB_XS_CLOSING, XFAB_XS_CONNECTED, &c, &d, &n),
		  XFAB_XS_CONNECTED);
	ASSERT_EQ(n, 3);
}

TEST(xenbus_step_stays_put_where_it_must)
{
	enum xfab_be_work w;

	ASSERT_EQ(xfab_be_step(XFAB_XS_INITWAIT, XFAB_XS_INITIALISING, &w),
		  XFAB_XS_INITWAIT);
	ASSERT_EQ(xfab_be_step(XFAB_XS_CLOSED, XFAB_XS_CLOSING, &w),
		  XFAB_XS_CLOSED);
	ASSERT_EQ(xfab_be_step(XFAB_XS_INITIALISING, XFAB_XS_CONNECTED, &w),
		  XFAB_XS_INITIALISING);
	ASSERT_EQ(w, XFAB_BE_PUBLISH);
}
