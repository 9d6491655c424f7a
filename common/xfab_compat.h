/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Backports, the way WireGuard's out-of-tree module kept them: the drivers
 * are written for the newest kernel we target (Debian 13's 6.12) and call
 * its API by its own names; this header gives older kernels (Debian 12's
 * 6.1) those names. Kbuild force-includes it (-include) in every module,
 * so no driver includes it or names anything in it, with one exception
 * (the zerocopy callback, at the end). On 6.12 everything but that
 * exception is compiled out. `make check` builds every module against
 * both header sets.
 *
 * Test a feature where a macro names it (a stable update can backport
 * it), the version where nothing does. No target kernel lies between 6.5
 * and 6.10, which changed the block APIs twice more: they stop here.
 *
 * Checked and needing nothing: xenbus_driver.remove returns void in both
 * (Debian 12's 6.1.0-50 carries the 6.2 change); gnttab_end_foreign_
 * access_ref() takes one argument in both; timer_delete_sync() is in both
 * (6.1.y has it from stable), never the del_timer_sync() 6.15 removes.
 */
#ifndef XFAB_COMPAT_H
#define XFAB_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
#error "xfab: no backports for Linux 6.5 to 6.10: build against 6.1-6.4 or 6.11+"
#endif

/*
 * xenbus_driver.uevent takes a const device since 6.3; the drivers define
 * theirs that way. Before, the initialiser's pointer type differs only in
 * that const (same ABI), which is not worth a wrapper: accept it there.
 * The 6.12 build keeps the check for every other pointer.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
#pragma GCC diagnostic ignored "-Wincompatible-pointer-types"
#endif

/* A timer's owner: from_timer() up to 6.15, timer_container_of() after. */
#include <linux/timer.h>
#if !defined(from_timer) && defined(timer_container_of)
#define from_timer(var, t, field) timer_container_of(var, t, field)
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>

/*
 * Opening a block device by number: 6.9 hands out a struct file that
 * holds it open; 6.1 hands out the block device and wants the same mode
 * back when it is put. Here the "file" is a small record of both, never a
 * real struct file: only file_bdev() and bdev_fput(), below, look inside.
 * Opened shared (no holder), as the stock backend does.
 */
typedef fmode_t blk_mode_t;
#define BLK_OPEN_READ	FMODE_READ
#define BLK_OPEN_WRITE	FMODE_WRITE
struct blk_holder_ops;

struct xfab_bdev_file {
	struct block_device *bdev;
	blk_mode_t mode;
};

static inline struct file *
xfab_bdev_file_open_by_dev(dev_t dev, blk_mode_t mode, void *holder,
			   const struct blk_holder_ops *hops)
{
	struct xfab_bdev_file *bf = kmalloc(sizeof(*bf), GFP_KERNEL);
	struct block_device *bdev;

	if (!bf)
		return ERR_PTR(-ENOMEM);
	bdev = blkdev_get_by_dev(dev, mode, holder);
	if (IS_ERR(bdev)) {
		kfree(bf);
		return ERR_CAST(bdev);
	}
	bf->bdev = bdev;
	bf->mode = mode;
	return (struct file *)bf;
}
#define bdev_file_open_by_dev xfab_bdev_file_open_by_dev

static inline struct block_device *xfab_file_bdev(struct file *f)
{
	return ((struct xfab_bdev_file *)f)->bdev;
}
#define file_bdev xfab_file_bdev

static inline void xfab_bdev_fput(struct file *f)
{
	struct xfab_bdev_file *bf = (struct xfab_bdev_file *)f;

	blkdev_put(bf->bdev, bf->mode);
	kfree(bf);
}
#define bdev_fput xfab_bdev_fput

/*
 * A blk-mq disk and its limits: 6.11 takes them, write cache included (a
 * queue feature), in blk_mq_alloc_disk(); 6.1 sets them one by one on the
 * new disk's queue, and its queue_limits has no features. The drivers'
 * queue_limits is this record of what they set; the rename comes after
 * the kernel's headers that use the real one, included just above.
 */
#define BLK_FEAT_WRITE_CACHE	(1u << 0)

struct xfab_queue_limits {
	unsigned int features;
	unsigned int logical_block_size, physical_block_size;
	unsigned int max_hw_sectors, max_segment_size;
	unsigned short max_segments;
	unsigned long seg_boundary_mask;
	unsigned int dma_alignment;
	unsigned int max_hw_discard_sectors;	/* 0: no discard */
	unsigned int discard_granularity, discard_alignment;
	unsigned int max_secure_erase_sectors;
};
#define queue_limits xfab_queue_limits

static inline struct gendisk *
xfab_blk_mq_alloc_disk(struct blk_mq_tag_set *set,
		       const struct xfab_queue_limits *l, void *data)
{
	static struct lock_class_key key;
	struct gendisk *gd = __blk_mq_alloc_disk(set, data, &key);
	struct request_queue *q;

	if (IS_ERR(gd))
		return gd;
	q = gd->queue;
	blk_queue_logical_block_size(q, l->logical_block_size);
	blk_queue_physical_block_size(q, l->physical_block_size);
	blk_queue_max_hw_sectors(q, l->max_hw_sectors);
	blk_queue_max_segments(q, l->max_segments);
	blk_queue_max_segment_size(q, l->max_segment_size);
	blk_queue_segment_boundary(q, l->seg_boundary_mask);
	blk_queue_dma_alignment(q, l->dma_alignment);
	if (l->max_hw_discard_sectors) {
		blk_queue_max_discard_sectors(q, l->max_hw_discard_sectors);
		q->limits.discard_granularity = l->discard_granularity;
		q->limits.discard_alignment = l->discard_alignment;
	}
	if (l->max_secure_erase_sectors)
		blk_queue_max_secure_erase_sectors(q,
						   l->max_secure_erase_sectors);
	blk_queue_write_cache(q, l->features & BLK_FEAT_WRITE_CACHE, false);
	return gd;
}
#undef blk_mq_alloc_disk
#define blk_mq_alloc_disk(set, lim, data) xfab_blk_mq_alloc_disk(set, lim, data)
#endif /* before 6.5 */

/*
 * The exception: an skb's zerocopy completion is a callback in struct
 * ubuf_info before 6.10 and a table of operations after, with the same
 * prototype. A driver must set it, and no name exists in both kernels
 * that a backport could fill in (6.1 has no ops field), so xfab_netback's
 * pointer mode calls these two. XFAB_ZCOPY_DEFINE(name, fn) makes
 * name_set() (point an ubuf_info at fn) and name_is() (is it ours?).
 */
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

#endif /* XFAB_COMPAT_H */
