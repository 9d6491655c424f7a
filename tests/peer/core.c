// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The OS-neutral core, compiled into this module. Each module carries its
 * own copy so that every driver loads on its own, with no shared module.
 */
#include "../../common/xfab_ring.c"
