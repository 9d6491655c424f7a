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

/*
 * Opening a block device by number (blkback, which defines
 * XFAB_COMPAT_BLOCK): a struct file since 6.9 (bdev_file_open_by_dev),
 * a bare block_device held with its fmode before 6.5 (blkdev_get_by_dev).
 * 6.5 to 6.8 had a third API (bdev handles) that no target kernel uses.
 * Opened shared, as the stock backend does, so dom0 can still read a
 * disk it lent (the durability scenario checks it while the guest runs).
 */
#ifdef XFAB_COMPAT_BLOCK
#include <linux/blkdev.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#include <linux/file.h>
#define XFAB_BDEV_FILE 1
typedef blk_mode_t blk_mode_t_compat;

static inline struct block_device *xfab_bdev_get(dev_t devt, bool write,
						 struct file **file,
						 blk_mode_t_compat *mode)
{
	*mode = BLK_OPEN_READ | (write ? BLK_OPEN_WRITE : 0);
	*file = bdev_file_open_by_dev(devt, *mode, NULL, NULL);
	if (IS_ERR(*file))
		return ERR_CAST(*file);
	return file_bdev(*file);
}

static inline void xfab_bdev_put(struct block_device *bdev, struct file *file,
				 blk_mode_t_compat mode)
{
	fput(file);
}
#elif LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define XFAB_BDEV_FILE 0
typedef fmode_t blk_mode_t_compat;

static inline struct block_device *xfab_bdev_get(dev_t devt, bool write,
						 struct file **file,
						 blk_mode_t_compat *mode)
{
	*file = NULL;
	*mode = FMODE_READ | (write ? FMODE_WRITE : 0);
	return blkdev_get_by_dev(devt, *mode, NULL);
}

static inline void xfab_bdev_put(struct block_device *bdev, struct file *file,
				 blk_mode_t_compat mode)
{
	blkdev_put(bdev, mode);
}
#else
#error "xfab_blkback: no block device open API for kernels 6.5 to 6.8"
#endif
#endif /* XFAB_COMPAT_BLOCK */

#endif /* XFAB_COMPAT_H */
