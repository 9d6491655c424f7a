// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_netfront ring dump: /sys/kernel/debug/xfab_netfront/<netdev>/q<N>.
 * A file exists only while its queue does; removing it waits for readers
 * in flight (debugfs's own protection), and teardown removes it before
 * the queue is freed.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "common.h"

static struct dentry *nf_dbg_root;

static void nf_dump_ring(struct seq_file *m, const char *name,
			 xfab_idx_t req_prod_pvt, xfab_idx_t rsp_cons,
			 xfab_idx_t req_prod, xfab_idx_t rsp_prod,
			 xfab_idx_t req_event, xfab_idx_t rsp_event)
{
	seq_printf(m, "%s: req_prod_pvt %u rsp_cons %u (posted %u)\n", name,
		   req_prod_pvt, rsp_cons, req_prod_pvt - rsp_cons);
	seq_printf(m, "%s: shared req_prod %u rsp_prod %u req_event %u rsp_event %u\n",
		   name, req_prod, rsp_prod, req_event, rsp_event);
}

static int nf_queue_show(struct seq_file *m, void *v)
{
	struct xfab_nf_queue *q = m->private;
	struct xen_netif_tx_sring *txs = q->tx.sring;
	struct xen_netif_rx_sring *rxs = q->rx.sring;

	if (txs) {
		spin_lock_bh(&q->tx_lock);
		nf_dump_ring(m, "tx", q->tx.req_prod_pvt, q->tx.rsp_cons,
			     READ_ONCE(txs->req_prod), READ_ONCE(txs->rsp_prod),
			     READ_ONCE(txs->req_event), READ_ONCE(txs->rsp_event));
		seq_printf(m, "tx: ids in flight %u, %s, extras unanswered %u, list %u pages\n",
			   q->tx_ids.in_flight,
			   q->tx_bounce ? "bounce pool" : q->tx_ptr ?
			   "by frame (pointer mode)" : "granted in place",
			   q->tx_extras, q->tx_dir.n);
		spin_unlock_bh(&q->tx_lock);
	}
	/* RX indices belong to NAPI: a racy but harmless snapshot */
	if (rxs) {
		nf_dump_ring(m, "rx", READ_ONCE(q->rx.req_prod_pvt),
			     READ_ONCE(q->rx.rsp_cons), READ_ONCE(rxs->req_prod),
			     READ_ONCE(rxs->rsp_prod), READ_ONCE(rxs->req_event),
			     READ_ONCE(rxs->rsp_event));
		seq_printf(m, "rx: copied, not consumed %u, %s, list %u pages\n",
			   READ_ONCE(q->rx_copied),
			   q->rx_pool ? "pool" : "page per packet", q->rx_dir.n);
		seq_printf(m, "rx: pool pages off the ring %u, spare %u, lent %u\n",
			   q->rx_off.n, READ_ONCE(q->rx_off.nspare),
			   q->rx_off.n - READ_ONCE(q->rx_off.nspare));
	}
	seq_printf(m, "evtchn tx %u rx %u irq tx %d rx %d napi %s broken %d\n",
		   q->tx_evtchn, q->rx_evtchn, q->tx_irq, q->rx_irq,
		   q->napi_on ? "on" : "off", xfab_nf_broken(q->info));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nf_queue);

void xfab_nf_debugfs_init(void)
{
	nf_dbg_root = debugfs_create_dir(XFAB_NF_NAME, NULL);
}

void xfab_nf_debugfs_exit(void)
{
	debugfs_remove(nf_dbg_root);
}

void xfab_nf_debugfs_dev_add(struct xfab_nf_info *info)
{
	info->dbg_dir = debugfs_create_dir(netdev_name(info->netdev), nf_dbg_root);
}

void xfab_nf_debugfs_dev_del(struct xfab_nf_info *info)
{
	debugfs_remove(info->dbg_dir);
	info->dbg_dir = NULL;
}

void xfab_nf_debugfs_queue_add(struct xfab_nf_queue *q)
{
	char name[16];

	snprintf(name, sizeof(name), "q%u", q->id);
	q->dbg = debugfs_create_file(name, 0444, q->info->dbg_dir, q,
				     &nf_queue_fops);
}

void xfab_nf_debugfs_queue_del(struct xfab_nf_queue *q)
{
	debugfs_remove(q->dbg);
	q->dbg = NULL;
}
