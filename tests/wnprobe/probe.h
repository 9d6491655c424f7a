/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xfab_wnprobe: the testbed's probes of xfab_window, through the same
 * datapath API (common/xfab_wn.h) the drivers use. Never installed.
 *
 *   probe.c  debugfs: scan, poke, hold, and the files of bench.c
 *   bench.c  a window read against a grant copy of the same bytes
 */
#ifndef XFAB_WNPROBE_H
#define XFAB_WNPROBE_H

#include <linux/types.h>
#include "xfab_types.h"
#include "xfab_wn.h"

/* bench.c */
ssize_t wnprobe_offer_write(const char __user *ubuf, size_t len);
char *wnprobe_offer_text(size_t *len);
void wnprobe_offer_exit(void);
int wnprobe_bench(struct xfab_wn *wn, char *text, char *out, size_t outlen);

#endif /* XFAB_WNPROBE_H */
