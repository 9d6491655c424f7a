// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Response ids from a hostile peer: out of range, duplicated, never
 * issued. Random get/put sequences are checked against a plain model.
 */
#include "xfab_test.h"
#include "../../common/xfab_ids.h"

#define N 256

static u16 link_[N];
static u8 busy[N];
static struct xfab_ids ids;

TEST(ids_init_rejects_bad_sizes)
{
	ASSERT_EQ(xfab_ids_init(&ids, 0, link_, busy), -EINVAL);
	ASSERT_EQ(xfab_ids_init(&ids, XFAB_IDS_END, link_, busy), -EINVAL);
	ASSERT_EQ(xfab_ids_init(&ids, N, link_, busy), 0);
}

TEST(ids_all_distinct_then_full)
{
	int i, id;
	u8 seen[N] = { 0 };

	ASSERT_EQ(xfab_ids_init(&ids, N, link_, busy), 0);
	for (i = 0; i < N; i++) {
		id = xfab_ids_get(&ids);
		ASSERT_TRUE(id >= 0 && id < N);
		ASSERT_EQ(seen[id], 0);
		seen[id] = 1;
	}
	ASSERT_EQ(xfab_ids_get(&ids), -ENOSPC);
	ASSERT_EQ(ids.in_flight, N);
}

TEST(ids_hostile_echoes)
{
	int id;

	ASSERT_EQ(xfab_ids_init(&ids, N, link_, busy), 0);
	id = xfab_ids_get(&ids);
	ASSERT_EQ(xfab_ids_put(&ids, N), -ERANGE);
	ASSERT_EQ(xfab_ids_put(&ids, 0xffffffffu), -ERANGE);
	ASSERT_EQ(xfab_ids_put(&ids, id + 1), -EALREADY);	/* never issued */
	ASSERT_EQ(xfab_ids_put(&ids, id), 0);
	ASSERT_EQ(xfab_ids_put(&ids, id), -EALREADY);	/* duplicate */
	ASSERT_EQ(ids.in_flight, 0);
	ASSERT_FALSE(xfab_ids_busy(&ids, id));
	ASSERT_FALSE(xfab_ids_busy(&ids, 0xffffffffu));
}

TEST(ids_random_against_model)
{
	uint64_t x = 0x13198a2e03707344ull;
	u8 model[N] = { 0 };
	u32 inflight = 0;
	int i;

	ASSERT_EQ(xfab_ids_init(&ids, N, link_, busy), 0);
	for (i = 0; i < 500000; i++) {
		u32 v;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v = (u32)(x >> 16) % (N + 8);
		if (x & 1) {
			int id = xfab_ids_get(&ids);

			if (inflight == N) {
				ASSERT_EQ(id, -ENOSPC);
				continue;
			}
			ASSERT_TRUE(id >= 0 && id < N);
			ASSERT_EQ(model[id], 0);
			model[id] = 1;
			inflight++;
		} else if (v >= N) {
			ASSERT_EQ(xfab_ids_put(&ids, v), -ERANGE);
		} else if (model[v]) {
			ASSERT_EQ(xfab_ids_put(&ids, v), 0);
			model[v] = 0;
			inflight--;
		} else {
			ASSERT_EQ(xfab_ids_put(&ids, v), -EALREADY);
		}
		ASSERT_EQ(ids.in_flight, inflight);
	}
}
