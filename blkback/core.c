// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The OS-neutral core this module uses (each module carries its copy). */
#include "../common/xfab_ring.c"
#include "../common/xfab_blkif.c"
#include "../common/xfab_xenbus.c"
#include "../common/xfab_gcache.c"
#include "../common/xfab_poll.c"
#include "../common/xfab_credit.c"
#include "../common/xfab_drain.c"
#include "../common/xfab_stats.c"
#include "../common/xfab_kstats.c"
