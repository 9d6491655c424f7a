/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xfab_hostile: a test module that plays a misbehaving peer on real Xen,
 * to show what a backend does with a frontend that breaks the protocol
 * (and, in time, the other way round). Not a driver: it is loaded only in
 * testbed domUs, by scenario 050, in place of the frontend under test.
 *
 *   main.c  the module, its parameters and the report a case leaves
 *   vbd.c   a blkif frontend whose requests follow one named case
 *   vif.c   a netif frontend, likewise
 *
 * One case per attached device: the case named in the vbd_case (vif_case)
 * parameter when the device appears is the one it runs, for secs seconds
 * (a flood) or until its requests are answered; then it writes one line
 * "run=N case=NAME key=value ..." to the report parameter and the kernel
 * log, and waits for the toolstack to detach it.
 */
#ifndef XFAB_HOSTILE_H
#define XFAB_HOSTILE_H

#include <linux/types.h>

extern char hs_vbd_case[32];
extern char hs_vif_case[32];
extern unsigned int hs_secs;

/* The number of a new attach, from 1, over both device kinds. */
unsigned int hs_next_run(void);
void hs_report(const char *fmt, ...) __printf(1, 2);
int hs_vbd_register(void);
void hs_vbd_unregister(void);
int hs_vif_register(void);
void hs_vif_unregister(void);

#endif /* XFAB_HOSTILE_H */
