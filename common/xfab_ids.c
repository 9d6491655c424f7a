// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Id tracking for frontends; see xfab_ids.h. A free list threaded through
 * link[] gives O(1) get and put; busy[] is what put() checks the peer's
 * echo against.
 */
#include "xfab_ids.h"

int xfab_ids_init(struct xfab_ids *ids, u32 nr, u16 *link, u8 *busy)
{
	u32 i;

	if (nr == 0 || nr >= XFAB_IDS_END)
		return -EINVAL;
	ids->nr = nr;
	ids->in_flight = 0;
	ids->link = link;
	ids->busy = busy;
	for (i = 0; i < nr; i++) {
		link[i] = i + 1 < nr ? i + 1 : XFAB_IDS_END;
		busy[i] = 0;
	}
	ids->free_head = 0;
	return 0;
}

int xfab_ids_get(struct xfab_ids *ids)
{
	u16 id = ids->free_head;

	if (id == XFAB_IDS_END)
		return -ENOSPC;
	ids->free_head = ids->link[id];
	ids->busy[id] = 1;
	ids->in_flight++;
	return id;
}

int xfab_ids_put(struct xfab_ids *ids, u32 id)
{
	if (id >= ids->nr)
		return -ERANGE;
	if (!ids->busy[id])
		return -EALREADY;
	ids->busy[id] = 0;
	ids->link[id] = ids->free_head;
	ids->free_head = id;
	ids->in_flight--;
	return 0;
}
