// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Counters (ethtool -S: the vif's totals, then per queue q<N>_<counter>;
 * common/xfab_stats.h) and the debugfs ring
 * dump (/sys/kernel/debug/xfab_netback/vif<D>.<N>-q<I>). All queues exist
 * from probe to remove, so readers never meet freed memory; the dump file
 * is removed before its rings are unmapped (debugfs waits for readers).
 */
#include <linux/ethtool.h>
#include <linux/stringify.h>
#include <linux/seq_file.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <xen/events.h>
#include "common.h"

#define NB_TX(f) XFAB_STAT(struct xfab_nb_stats, tx_sync, f)
#define NB_RX(f) XFAB_STAT(struct xfab_nb_stats, rx_sync, f)
#define NB_AT(f) XFAB_STAT_A(struct xfab_nb_stats, f)

static const struct xfab_stat nb_fixed[] = {
	NB_TX(txr_packets), NB_TX(txr_bytes), NB_TX(txr_slots),
	NB_TX(txr_gso), NB_TX(txr_drop_copy), NB_TX(txr_drop_csum),
	NB_TX(txr_drop_nomem), NB_AT(txr_irqs), NB_AT(txr_spurious),
	NB_TX(txr_kicks), NB_TX(txr_copy_calls), NB_TX(txr_copy_ops),
	NB_TX(txr_rate_waits), NB_TX(txr_pool_ops), NB_TX(txr_pool_bytes),
	NB_TX(txr_lro_out), NB_TX(txr_lro_segs),
	NB_TX(txr_polls), NB_TX(txr_poll_found), NB_TX(txr_poll_empty),
	NB_TX(txr_poll_cut),
	NB_TX(txr_ptr_packets), NB_TX(txr_ptr_bytes), NB_TX(txr_ptr_late_done),
	NB_TX(txr_ptr_stack_copied), NB_TX(txr_ptr_fallback),
	NB_TX(txr_ptr_aged),
	NB_TX(txr_ptr_no_window), NB_TX(txr_ptr_bad_span),
	NB_AT(txr_ptr_exit_copies), NB_AT(txr_ptr_exit_drops),
	NB_AT(dbg_pokes),
	NB_RX(rxr_packets), NB_RX(rxr_bytes), NB_RX(rxr_slots),
	NB_RX(rxr_gso), NB_AT(rxr_drop_backlog), NB_AT(rxr_drop_down),
	NB_AT(rxr_drop_big), NB_RX(rxr_drop_copy), NB_AT(rxr_drop_nomem),
	NB_AT(rxr_drop_stall), NB_AT(rxr_drop_aged), NB_AT(rxr_irqs),
	NB_AT(rxr_spurious),
	NB_RX(rxr_kicks), NB_AT(rxr_kicks_held), NB_AT(rxr_kicks_late),
	NB_AT(rxr_stops), NB_AT(rxr_hold_taken),
	NB_AT(rxr_hold_over), NB_AT(rxr_hold_timeout), NB_RX(rxr_direct),
	NB_RX(rxr_copy_calls),
	NB_RX(rxr_copy_ops), NB_RX(rxr_pool_ops), NB_RX(rxr_pool_bytes),
	NB_RX(rxr_ref_packets), NB_RX(rxr_ref_bytes), NB_RX(rxr_ref_over),
	NB_AT(rxr_ref_taken),
	NB_AT(pool_fail), NB_AT(pool_refused_vif), NB_AT(pool_refused_total),
	NB_AT(fatal),
};

/*
 * The fixed counters, then one per TX-ring error reason (1..), then one
 * per reason a guest packet joined no LRO merge (1..).
 */
#define NB_NR_STATS (ARRAY_SIZE(nb_fixed) + XFAB_TX_NR_ERRS - 1 + \
		     XFAB_LRO_NR_WHY - 1)
static struct xfab_stat nb_slots[NB_NR_STATS];
static struct xfab_stats_table nb_table = { nb_slots, 0, NB_NR_STATS };

/* "tx_drop_runt" -> "txr_drop_runt": the TX ring's, like its neighbours */
static const char *nb_tx_err_name(int reason)
{
	return xfab_tx_err_name(reason) + 3;
}

int xfab_nb_stats_init(void)
{
	return xfab_stats_add_all(&nb_table, nb_fixed, ARRAY_SIZE(nb_fixed)) ?:
	       xfab_stats_add_reasons(&nb_table, "txr_", nb_tx_err_name, 1,
				      XFAB_TX_NR_ERRS,
				      offsetof(struct xfab_nb_stats, txr_err),
				      sizeof(u64_stats_t),
				      offsetof(struct xfab_nb_stats, tx_sync)) ?:
	       xfab_stats_add_reasons(&nb_table, "txr_lro_stop_",
				      xfab_lro_why_name, 1, XFAB_LRO_NR_WHY,
				      offsetof(struct xfab_nb_stats, txr_lro_stop),
				      sizeof(u64_stats_t),
				      offsetof(struct xfab_nb_stats, tx_sync));
}

/* Every queue the vif has: they live from probe to remove. */
static void nb_sets(struct xfab_nb_vif *vif, struct xfab_stats_sets *v)
{
	v->gone = NULL;
	v->first = &vif->queues[0].st;
	v->stride = sizeof(vif->queues[0]);
	v->nr = vif->nr_alloc;
}

static int nb_sset_count(struct net_device *dev, int sset)
{
	struct xfab_nb_vif *vif = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return xfab_stats_count(&nb_table, vif->nr_alloc);
}

static void nb_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct xfab_nb_vif *vif = netdev_priv(dev);

	if (sset == ETH_SS_STATS)
		xfab_stats_strings(&nb_table, vif->nr_alloc, (char *)data);
}

static void nb_stats_get(struct net_device *dev, struct ethtool_stats *es,
			 u64 *data)
{
	struct xfab_stats_sets v;

	nb_sets(netdev_priv(dev), &v);
	xfab_stats_fill(&nb_table, &v, data);
}

static void nb_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	strscpy(info->driver, "xfab_netback", sizeof(info->driver));
	strscpy(info->bus_info, dev_name(dev->dev.parent),
		sizeof(info->bus_info));
}

/*
 * In-ring polling of the guest's TX ring (dom0's receive side, hence
 * "rx"): rx-usecs is the longest poll, adaptive-rx whether an empty one
 * shrinks the next. NAPI picks a change up at its next poll. tx-usecs:
 * the least time between two notifications for packets the vif sends
 * the guest (its transmit side); the next packet picks a change up.
 */
static int nb_get_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			   struct kernel_ethtool_coalesce *kec,
			   struct netlink_ext_ack *extack)
{
	struct xfab_nb_vif *vif = netdev_priv(dev);

	ec->rx_coalesce_usecs = READ_ONCE(vif->poll_ns) / NSEC_PER_USEC;
	ec->use_adaptive_rx_coalesce = READ_ONCE(vif->poll_adaptive);
	ec->tx_coalesce_usecs = READ_ONCE(vif->kick_ns) / NSEC_PER_USEC;
	return 0;
}

static int nb_set_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			   struct kernel_ethtool_coalesce *kec,
			   struct netlink_ext_ack *extack)
{
	struct xfab_nb_vif *vif = netdev_priv(dev);

	if (ec->rx_coalesce_usecs > XFAB_NB_POLL_MAX_US) {
		NL_SET_ERR_MSG(extack,
			       "rx-usecs is the longest in-ring poll: at most "
			       __stringify(XFAB_NB_POLL_MAX_US));
		return -EINVAL;
	}
	if (ec->tx_coalesce_usecs > XFAB_NB_KICK_MAX_US) {
		NL_SET_ERR_MSG(extack,
			       "tx-usecs is the least time between two notifications of the guest: at most "
			       __stringify(XFAB_NB_KICK_MAX_US));
		return -EINVAL;
	}
	WRITE_ONCE(vif->kick_ns, ec->tx_coalesce_usecs * NSEC_PER_USEC);
	WRITE_ONCE(vif->poll_ns, ec->rx_coalesce_usecs * NSEC_PER_USEC);
	WRITE_ONCE(vif->poll_adaptive, !!ec->use_adaptive_rx_coalesce);
	return 0;
}

const struct ethtool_ops xfab_nb_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS |
				     ETHTOOL_COALESCE_USE_ADAPTIVE_RX |
				     ETHTOOL_COALESCE_TX_USECS,
	.get_coalesce = nb_get_coalesce,
	.set_coalesce = nb_set_coalesce,
	.get_drvinfo = nb_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = nb_sset_count,
	.get_strings = nb_strings,
	.get_ethtool_stats = nb_stats_get,
};

static void nb_dump_ring(struct seq_file *m, const char *name, u32 cons,
			 u32 pvt, u32 pushed, const u32 *shared)
{
	/*
	 * shared: req_prod, req_event, rsp_prod, rsp_event (guest-written
	 * fields may change under us: this is a snapshot)
	 */
	seq_printf(m, "%s: req_cons %u rsp_prod_pvt %u pushed %u | shared req_prod %u req_event %u rsp_prod %u rsp_event %u\n",
		   name, cons, pvt, pushed, READ_ONCE(shared[0]),
		   READ_ONCE(shared[1]), READ_ONCE(shared[2]),
		   READ_ONCE(shared[3]));
}

/*
 * The generic-irq view of one of our irqs, for a stalled queue: whether
 * Linux holds it disabled or masked, which CPU it is bound to, and how
 * many events each CPU took.
 */
static void nb_dump_irq(struct seq_file *m, const char *name, int irq)
{
	struct irq_data *d = irq > 0 ? irq_get_irq_data(irq) : NULL;
	struct irq_desc *desc;
	unsigned int cpu;

	if (!d)
		return;
	desc = irq_data_to_desc(d);
	seq_printf(m, "%s irq %d: disabled %d masked %d inprogress %d depth %u cpu %*pbl events",
		   name, irq, irqd_irq_disabled(d), irqd_irq_masked(d),
		   irqd_irq_inprogress(d), desc->depth,
		   cpumask_pr_args(irq_data_get_effective_affinity_mask(d)));
	for_each_online_cpu(cpu)
		seq_printf(m, " %u", irq_desc_kstat_cpu(desc, cpu));
	seq_putc(m, '\n');
}

static int nb_queue_show(struct seq_file *m, void *unused)
{
	struct xfab_nb_queue *q = m->private;

	seq_printf(m, "connected %d broken %d tx_irq %d rx_irq %d eoi_pending %#x\n",
		   q->connected, q->broken, q->tx_irq, q->rx_irq,
		   atomic_read(&q->eoi_pending));
	if (!q->connected)
		return 0;
	nb_dump_irq(m, "tx", q->tx_irq);
	if (q->rx_irq != q->tx_irq)
		nb_dump_irq(m, "rx", q->rx_irq);
	nb_dump_ring(m, "tx", q->tx.req_cons, q->tx.rsp_prod_pvt,
		     q->tx_pushed, (const u32 *)q->tx.sring);
	nb_dump_ring(m, "rx", q->rx.req_cons, q->rx.rsp_prod_pvt,
		     q->rx_pushed, (const u32 *)q->rx.sring);
	seq_printf(m, "rx backlog: %u packets %u bytes stopped %d stalled %d oldest_ms %u\n",
		   skb_queue_len(&q->rx_queue), q->rx_queued_bytes,
		   q->rx_stopped, q->rx_stalled, xfab_nb_rx_oldest_ms(q));
	return 0;
}

static int nb_queue_open(struct inode *inode, struct file *file)
{
	return single_open(file, nb_queue_show, inode->i_private);
}

/*
 * Writing anything EOIs both channels and looks at the rings as if an
 * event had come: a stalled queue that moves again after this lost an
 * EOI, one that does not lost something else.
 */
static ssize_t nb_queue_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos)
{
	struct xfab_nb_queue *q = ((struct seq_file *)file->private_data)->private;

	if (!q->connected)
		return -ENOTCONN;
	atomic64_inc(&q->st.dbg_pokes);
	xen_irq_lateeoi(q->tx_irq, 0);
	if (q->rx_irq != q->tx_irq)
		xen_irq_lateeoi(q->rx_irq, 0);
	local_bh_disable();
	napi_schedule(&q->napi);
	local_bh_enable();
	queue_work(xfab_nb_wq, &q->rx_work);
	return len;
}

static const struct file_operations nb_queue_fops = {
	.owner = THIS_MODULE,
	.open = nb_queue_open,
	.read = seq_read,
	.write = nb_queue_write,
	.llseek = seq_lseek,
	.release = single_release,
};

void xfab_nb_debugfs_add(struct xfab_nb_queue *q)
{
	if (IS_ERR_OR_NULL(xfab_nb_debugfs))
		return;
	q->dbg = debugfs_create_file(q->name, 0600, xfab_nb_debugfs, q,
				     &nb_queue_fops);
}

void xfab_nb_debugfs_del(struct xfab_nb_queue *q)
{
	debugfs_remove(q->dbg);
	q->dbg = NULL;
}

static int nb_summary_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "vifs %d\nqueues_connected %d\nrings_mapped %d\nirqs_bound %d\npool_pages %d\npool_grants %u\nptr_contexts %d\n",
		   atomic_read(&xfab_nb_totals.vifs),
		   atomic_read(&xfab_nb_totals.queues_connected),
		   atomic_read(&xfab_nb_totals.rings_mapped),
		   atomic_read(&xfab_nb_totals.irqs_bound),
		   atomic_read(&xfab_nb_totals.pool_pages),
		   xfab_nb_pool_budget_held(), xfab_nb_ptr_contexts());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nb_summary);

/*
 * dom0's event-channel port -> Linux irq table (ports bound to any irq),
 * to set beside Xen's `xl debug-keys e` dump when a queue stalls: it
 * shows which port each of our irqs really drives.
 */
static int nb_evtchns_show(struct seq_file *m, void *unused)
{
	unsigned int port;
	int irq;

	for (port = 1; port < 1024; port++) {
		irq = irq_from_evtchn(port);
		if (irq >= 0)
			seq_printf(m, "port %u irq %d\n", port, irq);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nb_evtchns);

void xfab_nb_debugfs_summary(void)
{
	if (IS_ERR_OR_NULL(xfab_nb_debugfs))
		return;
	debugfs_create_file("summary", 0400, xfab_nb_debugfs, NULL,
			    &nb_summary_fops);
	debugfs_create_file("evtchns", 0400, xfab_nb_debugfs, NULL,
			    &nb_evtchns_fops);
}
