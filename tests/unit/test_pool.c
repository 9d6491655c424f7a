// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The frontend's pool list as the backend checks it: empty, too long and
 * unordered lists (a repeat included) are refused, and every reference of
 * an accepted list is found at its place while no other one is.
 */
#include <stdlib.h>
#include "xfab_test.h"
#include "../../common/xfab_pool.h"

TEST(pool_check_refuses_bad_lists)
{
	u32 ok[] = { 8, 9, 100, 4000 };
	u32 dup[] = { 8, 9, 9, 10 };
	u32 down[] = { 8, 20, 10, 30 };

	ASSERT_EQ(xfab_pool_check(ok, 4, 4), XFAB_POOL_OK);
	ASSERT_EQ(xfab_pool_check(ok, 0, 4), XFAB_POOL_E_EMPTY);
	ASSERT_EQ(xfab_pool_check(ok, 4, 3), XFAB_POOL_E_TOO_MANY);
	ASSERT_EQ(xfab_pool_check(dup, 4, 16), XFAB_POOL_E_ORDER);
	ASSERT_EQ(xfab_pool_check(down, 4, 16), XFAB_POOL_E_ORDER);
	ASSERT_TRUE(strcmp(xfab_pool_err_name(XFAB_POOL_E_ORDER), "unknown"));
	ASSERT_EQ(strcmp(xfab_pool_err_name(-1), "unknown"), 0);
	ASSERT_EQ(strcmp(xfab_pool_err_name(XFAB_POOL_NR_ERRS), "unknown"), 0);
}

TEST(pool_check_caps_at_one_directory_page)
{
	u32 n = XFAB_POOL_MAX_PAGES + 1, i;
	u32 *refs = malloc(n * sizeof(*refs));

	ASSERT_TRUE(refs != NULL);
	for (i = 0; i < n; i++)
		refs[i] = 2 * i + 1;
	ASSERT_EQ(xfab_pool_check(refs, n - 1, ~0u), XFAB_POOL_OK);
	ASSERT_EQ(xfab_pool_check(refs, n, ~0u), XFAB_POOL_E_TOO_MANY);
	free(refs);
}

TEST(pool_find_every_member_and_nothing_else)
{
	u32 refs[XFAB_POOL_MAX_PAGES], n, i, r;

	for (n = 1; n <= XFAB_POOL_MAX_PAGES; n = n * 3 + 1) {
		/* odd references, with the extremes of the u32 range */
		for (i = 0; i < n; i++)
			refs[i] = 2 * i + 1;
		refs[n - 1] = 0xffffffffu;
		ASSERT_EQ(xfab_pool_check(refs, n, n), XFAB_POOL_OK);
		for (i = 0; i < n; i++)
			ASSERT_EQ(xfab_pool_find(refs, n, refs[i]), (int)i);
		for (r = 0; r < 2 * n + 2; r += 2)
			ASSERT_EQ(xfab_pool_find(refs, n, r), -1);
		ASSERT_EQ(xfab_pool_find(refs, n, 0xfffffffeu), -1);
	}
	ASSERT_EQ(xfab_pool_find(refs, 0, 1), -1);
}
