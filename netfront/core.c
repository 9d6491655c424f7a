// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The OS-neutral core, compiled into this module: each module carries its
 * own copy so that it loads on its own, with no shared module.
 */
#include "../common/xfab_ring.c"
#include "../common/xfab_netif.c"
#include "../common/xfab_ids.c"
#include "../common/xfab_netif_rx.c"
#include "../common/xfab_xenbus.c"
#include "../common/xfab_stats.c"
#include "../common/xfab_lend.c"
