// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The gendisk: one blk-mq hardware queue per ring, queue limits that make
 * every segment one 512-byte-aligned piece of one page (so it fits one
 * pool page at the same offset), the backend's size and flags.
 */
#include <linux/module.h>
#include "common.h"

static const struct block_device_operations bf_fops = {
	.owner = THIS_MODULE,
};

static void bf_limits(const struct xfab_bf_info *info,
		      struct queue_limits *l)
{
	const struct xfab_bf_features *f = &info->feat;

	memset(l, 0, sizeof(*l));
	l->logical_block_size = f->sector_size;
	l->physical_block_size = max(f->phys_sector_size, f->sector_size);
	l->max_segments = info->segs;
	l->max_hw_sectors = info->segs * XFAB_BLK_SECTORS_PER_PAGE;
	l->max_segment_size = PAGE_SIZE;
	l->seg_boundary_mask = PAGE_SIZE - 1;
	l->dma_alignment = 511;
	if (info->flush_op)
		l->features |= BLK_FEAT_WRITE_CACHE;
	if (f->discard) {
		/* one request: the most a u64 sector count we send can say */
		l->max_hw_discard_sectors = UINT_MAX >> 9;
		l->discard_granularity = max(f->discard_granularity,
					     f->sector_size);
		l->discard_alignment = f->discard_alignment;
		if (f->discard_secure)
			l->max_secure_erase_sectors = UINT_MAX >> 9;
	}
}

int xfab_bf_disk_add(struct xfab_bf_info *info)
{
	struct blk_mq_tag_set *set = &info->tag_set;
	struct queue_limits lim;
	struct gendisk *gd;
	int err;

	memset(set, 0, sizeof(*set));
	set->ops = &xfab_bf_mq_ops;
	set->nr_hw_queues = info->nr_rings;
	set->queue_depth = RING_SIZE(&info->rings[0].front);
	set->numa_node = NUMA_NO_NODE;
	set->flags = BLK_MQ_F_SHOULD_MERGE;
	set->cmd_size = sizeof(struct xfab_bf_pdu);
	set->driver_data = info;
	err = blk_mq_alloc_tag_set(set);
	if (err)
		return err;
	info->tag_set_ready = true;
	bf_limits(info, &lim);
	gd = blk_mq_alloc_disk(set, &lim, info);
	if (IS_ERR(gd))
		return PTR_ERR(gd);
	info->gd = gd;
	/* major 0: a dynamic number, so this can sit beside xen-blkfront */
	strscpy(gd->disk_name, info->disk_name, DISK_NAME_LEN);
	gd->fops = &bf_fops;
	gd->private_data = info;
	set_capacity(gd, info->feat.sectors);
	set_disk_ro(gd, info->feat.info & VDISK_READONLY);
	if (info->feat.info & VDISK_REMOVABLE)
		gd->flags |= GENHD_FL_REMOVABLE;
	err = device_add_disk(&info->xdev->dev, gd, NULL);
	if (err) {
		put_disk(gd);
		info->gd = NULL;
	}
	return err;
}

/* Undo any prefix of disk_add; safe to call twice. */
void xfab_bf_disk_del(struct xfab_bf_info *info)
{
	if (info->gd) {
		del_gendisk(info->gd);
		put_disk(info->gd);
		info->gd = NULL;
	}
	if (info->tag_set_ready) {
		blk_mq_free_tag_set(&info->tag_set);
		info->tag_set_ready = false;
	}
}
