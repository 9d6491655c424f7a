// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: arbitrary bytes as the pool directory a hostile
 * frontend wrote (u32 references) and a limit. An accepted list must be
 * strictly ascending and within the limit, and lookups must find exactly
 * its members, at their places; ASan catches a read past the list.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../common/xfab_pool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u32 n, max, i, *refs;
	int err;

	if (size < 2)
		return 0;
	max = data[0] | (data[1] & 0x7) << 8;
	data += 2;
	size -= 2;
	n = size / sizeof(u32);
	refs = malloc((n ? n : 1) * sizeof(*refs));
	if (!refs)
		return 0;
	memcpy(refs, data, n * sizeof(*refs));
	err = xfab_pool_check(refs, n, max);
	if (err == XFAB_POOL_OK) {
		if (!n || n > max || n > XFAB_POOL_MAX_PAGES)
			abort();
		for (i = 0; i < n; i++) {
			if (i && refs[i] <= refs[i - 1])
				abort();
			if (xfab_pool_find(refs, n, refs[i]) != (int)i)
				abort();
			/* the gap below a member is not in the list */
			if ((!i || refs[i - 1] + 1 < refs[i]) &&
			    refs[i] > 0 && xfab_pool_find(refs, n, refs[i] - 1) != -1)
				abort();
		}
	} else if (err <= XFAB_POOL_OK || err >= XFAB_POOL_NR_ERRS) {
		abort();
	}
	free(refs);
	return 0;
}
