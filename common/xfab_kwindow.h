/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What xfab_window.ko offers the drivers (kernel only; docs/window.md):
 * the local page through which a group member's frame is read, and the
 * reverse. Both may sleep.
 */
#ifndef XFAB_KWINDOW_H
#define XFAB_KWINDOW_H

#include <linux/types.h>

struct page;

/* The local page mapping @frame of @peer read-only, or NULL. */
struct page *xfab_window_page(u16 peer, u64 frame);

/* Which peer's frame a window page maps; -ENOENT if it is none's. */
int xfab_window_frame_of(struct page *pg, u16 *peer, u64 *frame);

#endif /* XFAB_KWINDOW_H */
