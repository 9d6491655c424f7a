/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The testbed's planted pages, as one member writes them (xfab-peek
 * plant) and another checks them through a mapping (xfab-peek scan, the
 * xfab_window scan probe): "TOKEN n" in the first XFAB_PLANT_HEAD bytes,
 * then a pattern that depends on n and on each byte's offset, so a
 * page read back whole proves every byte of it, and its place.
 */
#ifndef XFAB_PLANT_H
#define XFAB_PLANT_H

#include "xfab_types.h"

#define XFAB_PLANT_HEAD 64

static inline u8 xfab_plant_byte(u64 n, u32 off)
{
	return (u8)(n * 131 + off * 7);
}

static inline void xfab_plant_fill(u8 *page, u64 n)
{
	u32 j;

	for (j = XFAB_PLANT_HEAD; j < XFAB_PAGE_SIZE; j++)
		page[j] = xfab_plant_byte(n, j);
}

/* Is @page planted page @n past its header, every byte? */
static inline bool xfab_plant_intact(const u8 *page, u64 n)
{
	u32 j;

	for (j = XFAB_PLANT_HEAD; j < XFAB_PAGE_SIZE; j++)
		if (page[j] != xfab_plant_byte(n, j))
			return false;
	return true;
}

#endif /* XFAB_PLANT_H */
