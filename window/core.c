// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The OS-neutral window index, compiled into this module. */
#include "../common/xfab_window.c"
