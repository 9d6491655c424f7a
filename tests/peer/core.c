// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The OS-neutral core, compiled into this module. Each module carries its
 * own copy so that every driver loads on its own, with no shared module.
 * The helper module takes all of it, so that the kernel compile checks
 * (6.12 and 6.1) cover every OS-neutral file of common/ (the kernel-only
 * xfab_kstats.c is built into the block drivers).
 */
#include "../../common/xfab_ring.c"
#include "../../common/xfab_netif.c"
#include "../../common/xfab_ids.c"
#include "../../common/xfab_netif_rx.c"
#include "../../common/xfab_copy.c"
#include "../../common/xfab_credit.c"
#include "../../common/xfab_blkif.c"
#include "../../common/xfab_gcache.c"
#include "../../common/xfab_poll.c"
#include "../../common/xfab_xenbus.c"
#include "../../common/xfab_stats.c"
#include "../../common/xfab_window.c"
