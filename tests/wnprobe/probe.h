/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xfab_wnprobe: the testbed's probes of xfab_window, through the same
 * datapath API (common/xfab_wn.h) the drivers use, plus what only a test
 * needs of a window (its entries one by one), read from its insides
 * (window/common.h) rather than exported for it. Never installed.
 *
 *   probe.c  debugfs: scan, poke, hold, and the files of bench.c
 *   bench.c  a window read against a grant copy of the same bytes
 */
#ifndef XFAB_WNPROBE_H
#define XFAB_WNPROBE_H

#include <linux/types.h>
#include "xfab_types.h"
#include "xfab_wn.h"
/* window/'s own contract: a test module may read a window's insides */
#include "common.h"

/* The peer frame and local page of a window's entry @e (< wn->idx.n). */
static inline struct page *wnprobe_entry(const struct xfab_wn *wn, u32 e,
					 u64 *frame)
{
	*frame = wn->idx.peer[e];
	return wn->pages[e];
}

/* bench.c */
ssize_t wnprobe_offer_write(const char __user *ubuf, size_t len);
char *wnprobe_offer_text(size_t *len);
void wnprobe_offer_exit(void);
int wnprobe_bench(struct xfab_wn *wn, char *text, char *out, size_t outlen);

#endif /* XFAB_WNPROBE_H */
