/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The one place for differences between the kernels we build against:
 * Debian 13's 6.12 (the testbed) and Debian 12's 6.1. Every version
 * workaround lives here so the drivers read the same on both; `make check`
 * compiles every module against both header sets.
 *
 * Checked and needing nothing (yet): xenbus_driver.remove returns void in
 * both (Debian 12's 6.1.0-50 carries the 6.2 change); gnttab_end_foreign_
 * access_ref() takes one argument in both. Test a feature, not a version
 * number, where a stable update can backport it.
 */
#ifndef XFAB_COMPAT_H
#define XFAB_COMPAT_H

#include <linux/version.h>

/*
 * xenbus_driver.uevent takes a const device since 6.3 (driver core
 * constification); Debian 12's 6.1 still passes a mutable one.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define XFAB_XENBUS_UEVENT_CONST const
#else
#define XFAB_XENBUS_UEVENT_CONST
#endif

#endif /* XFAB_COMPAT_H */
