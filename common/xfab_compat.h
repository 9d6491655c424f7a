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
 * constification); Debian 12's 6.1 still passes a mutable one. A
 * prototype has no macro to test: the version it is.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define XFAB_XENBUS_UEVENT_CONST const
#else
#define XFAB_XENBUS_UEVENT_CONST
#endif

/*
 * Timers: timer_delete_sync() in both (6.1.y has it from stable), never
 * the del_timer_sync() that 6.15 removes. The owner of a timer is
 * timer_container_of() from 6.16 on, from_timer() before.
 */
#include <linux/timer.h>
#ifdef timer_container_of
#define xfab_timer_of(var, t, field) timer_container_of(var, t, field)
#else
#define xfab_timer_of(var, t, field) from_timer(var, t, field)
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
#ifndef BLK_OPEN_READ	/* no blk_mode_t yet: before 6.5 */
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
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
/* a version test: bdev_file_open_by_dev() has no macro to test for */
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
#else
#error "xfab_blkback: no block device open API for kernels 6.5 to 6.8"
#endif
#endif /* XFAB_COMPAT_BLOCK */

/*
 * A blk-mq disk with its queue limits (blkfront, which defines
 * XFAB_COMPAT_BLKFRONT): since 6.11 the limits, write cache included,
 * are handed to blk_mq_alloc_disk(); before 6.9 they are set one by one
 * on the new disk's queue. 6.9 and 6.10 mixed the two; no target kernel
 * uses them.
 */
#ifdef XFAB_COMPAT_BLKFRONT
#include <linux/blk-mq.h>

struct xfab_disk_limits {
	unsigned int lbs, pbs;			/* logical, physical block */
	unsigned int max_hw_sectors, max_segments, max_segment_size;
	unsigned long seg_boundary;
	unsigned int dma_alignment;
	unsigned int max_discard_sectors;	/* 0: no discard */
	unsigned int discard_granularity, discard_alignment;
	unsigned int max_secure_erase_sectors;
	bool write_cache;
};

#ifdef BLK_FEAT_WRITE_CACHE	/* queue features, and limits at allocation: 6.11 */
static inline struct gendisk *
xfab_alloc_disk(struct blk_mq_tag_set *set, const struct xfab_disk_limits *l,
		void *data)
{
	struct queue_limits lim = {
		.logical_block_size = l->lbs,
		.physical_block_size = l->pbs,
		.max_hw_sectors = l->max_hw_sectors,
		.max_segments = l->max_segments,
		.max_segment_size = l->max_segment_size,
		.seg_boundary_mask = l->seg_boundary,
		.dma_alignment = l->dma_alignment,
		.max_hw_discard_sectors = l->max_discard_sectors,
		.discard_granularity = l->discard_granularity,
		.discard_alignment = l->discard_alignment,
		.max_secure_erase_sectors = l->max_secure_erase_sectors,
		.features = l->write_cache ? BLK_FEAT_WRITE_CACHE : 0,
	};

	return blk_mq_alloc_disk(set, &lim, data);
}
#elif LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
static inline struct gendisk *
xfab_alloc_disk(struct blk_mq_tag_set *set, const struct xfab_disk_limits *l,
		void *data)
{
	struct gendisk *gd = blk_mq_alloc_disk(set, data);
	struct request_queue *q;

	if (IS_ERR(gd))
		return gd;
	q = gd->queue;
	blk_queue_logical_block_size(q, l->lbs);
	blk_queue_physical_block_size(q, l->pbs);
	blk_queue_max_hw_sectors(q, l->max_hw_sectors);
	blk_queue_max_segments(q, l->max_segments);
	blk_queue_max_segment_size(q, l->max_segment_size);
	blk_queue_segment_boundary(q, l->seg_boundary);
	blk_queue_dma_alignment(q, l->dma_alignment);
	if (l->max_discard_sectors) {
		blk_queue_max_discard_sectors(q, l->max_discard_sectors);
		q->limits.discard_granularity = l->discard_granularity;
		q->limits.discard_alignment = l->discard_alignment;
	}
	if (l->max_secure_erase_sectors)
		blk_queue_max_secure_erase_sectors(q,
						   l->max_secure_erase_sectors);
	blk_queue_write_cache(q, l->write_cache, false);
	return gd;
}
#else
#error "xfab_blkfront: no queue limits API for kernels 6.9 and 6.10"
#endif
#endif /* XFAB_COMPAT_BLKFRONT */

/*
 * An skb's zerocopy completion (xfab_netback's pointer mode, which
 * defines XFAB_COMPAT_ZCOPY): a callback in struct ubuf_info before
 * 6.10, a table of operations from 6.10 on, with the same prototype.
 * No macro names the change, so the version decides. XFAB_ZCOPY_DEFINE
 * makes name_set() (point an ubuf_info at fn) and name_is() (is this
 * ubuf_info ours?).
 */
#ifdef XFAB_COMPAT_ZCOPY
#include <linux/skbuff.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define XFAB_ZCOPY_DEFINE(name, fn)					\
	static const struct ubuf_info_ops name = { .complete = fn };	\
	static inline void name##_set(struct ubuf_info *u)		\
	{								\
		u->ops = &name;						\
	}								\
	static inline bool name##_is(const struct ubuf_info *u)	\
	{								\
		return u->ops == &name;					\
	}
#else
#define XFAB_ZCOPY_DEFINE(name, fn)					\
	static inline void name##_set(struct ubuf_info *u)		\
	{								\
		u->callback = fn;					\
	}								\
	static inline bool name##_is(const struct ubuf_info *u)	\
	{								\
		return u->callback == fn;				\
	}
#endif
#endif /* XFAB_COMPAT_ZCOPY */

#endif /* XFAB_COMPAT_H */
