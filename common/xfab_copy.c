// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "xfab_copy.h"

u32 xfab_seg_split(u64 addr, u32 len, struct xfab_seg *segs, u32 max)
{
	u32 n = 0;

	while (len) {
		u32 off = addr & (XFAB_PAGE_SIZE - 1);
		u32 chunk = XFAB_PAGE_SIZE - off;

		if (chunk > len)
			chunk = len;
		if (n < max) {
			segs[n].page = addr / XFAB_PAGE_SIZE;
			segs[n].off = off;
			segs[n].len = chunk;
		}
		n++;
		addr += chunk;
		len -= chunk;
	}
	return n;
}

static bool seg_ok(const struct xfab_seg *s)
{
	return (u32)s->off + s->len <= XFAB_PAGE_SIZE;
}

int xfab_copy_zip(const struct xfab_seg *src, u32 ns,
		  const struct xfab_seg *dst, u32 nd,
		  struct xfab_copy_op *ops, u32 max_ops)
{
	u32 si = 0, di = 0, sdone = 0, ddone = 0, n = 0;

	for (; si < ns; si++)
		if (!seg_ok(&src[si]))
			return -EINVAL;
	for (; di < nd; di++)
		if (!seg_ok(&dst[di]))
			return -EINVAL;
	si = 0;
	di = 0;
	while (si < ns) {
		u32 sleft = src[si].len - sdone, dleft, len;

		if (!sleft) {
			si++;
			sdone = 0;
			continue;
		}
		if (di == nd)
			return -ENOSPC;
		dleft = dst[di].len - ddone;
		if (!dleft) {
			di++;
			ddone = 0;
			continue;
		}
		if (n == max_ops)
			return -ENOSPC;
		len = sleft < dleft ? sleft : dleft;
		ops[n].si = si;
		ops[n].di = di;
		ops[n].soff = src[si].off + sdone;
		ops[n].doff = dst[di].off + ddone;
		ops[n].len = len;
		n++;
		sdone += len;
		ddone += len;
	}
	return n;
}
