/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef XFAB_TESTPEER_H
#define XFAB_TESTPEER_H

#include <linux/types.h>

/* cx.c: is the per-CPU cmpxchg128 atomic against interrupts? "ok" if so */
int xfab_tp_cx_check(char *out, size_t len);

#endif
