// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_netfront counters: ethtool -S (device totals, then per queue as
 * q<N>_<name>; common/xfab_stats.h) and the net_device's totals.
 * Everything here reads info->stats only, which lives as long as the
 * net_device: never a queue, so a reader cannot race a teardown.
 */
#include <linux/ethtool.h>
#include "common.h"

static const char *const nf_tx_names[XFAB_NF_TX_NR] = {
	[XFAB_NF_TX_PACKETS] = "tx_packets",
	[XFAB_NF_TX_BYTES] = "tx_bytes",
	[XFAB_NF_TX_SLOTS] = "tx_slots",
	[XFAB_NF_TX_KICKS] = "tx_kicks",
	[XFAB_NF_TX_GRANTS] = "tx_grants",
	[XFAB_NF_TX_GRANTS_ENDED] = "tx_grants_ended",
	[XFAB_NF_TX_LINEARISED] = "tx_linearised",
	[XFAB_NF_TX_STOPPED] = "tx_queue_stopped",
	[XFAB_NF_TX_RSP_ERRORS] = "tx_rsp_errors",
	[XFAB_NF_TX_DROP_DOWN] = "tx_drop_down",
	[XFAB_NF_TX_DROP_TOO_MANY_SLOTS] = "tx_drop_too_many_slots",
	[XFAB_NF_TX_DROP_BAD_SKB] = "tx_drop_bad_skb",
	[XFAB_NF_TX_DROP_RING_FULL] = "tx_drop_ring_full",
	[XFAB_NF_TX_FATAL_RING] = "tx_fatal_ring_index",
	[XFAB_NF_TX_FATAL_BAD_ID] = "tx_fatal_bad_id",
	[XFAB_NF_TX_FATAL_DUP_ID] = "tx_fatal_dup_id",
	[XFAB_NF_TX_FATAL_GRANT_BUSY] = "tx_fatal_grant_busy",
	[XFAB_NF_TX_BOUNCED] = "tx_bounced",
	[XFAB_NF_TX_BOUNCE_BYTES] = "tx_bounce_bytes",
	[XFAB_NF_TX_FATAL_NULL] = "tx_fatal_null",
	[XFAB_NF_TX_PTR_SLOTS] = "tx_ptr_slots",
	[XFAB_NF_TX_PTR_BYTES] = "tx_ptr_bytes",
};

static const char *const nf_rx_names[XFAB_NF_RX_NR] = {
	[XFAB_NF_RX_PACKETS] = "rx_packets",
	[XFAB_NF_RX_BYTES] = "rx_bytes",
	[XFAB_NF_RX_SLOTS] = "rx_slots",
	[XFAB_NF_RX_KICKS] = "rx_kicks",
	[XFAB_NF_RX_GRANTS] = "rx_grants",
	[XFAB_NF_RX_GRANTS_ENDED] = "rx_grants_ended",
	[XFAB_NF_RX_REFILL_FAIL] = "rx_refill_fail",
	[XFAB_NF_RX_CSUM_FIXUP] = "rx_csum_fixup",
	[XFAB_NF_RX_DROP_CSUM] = "rx_drop_csum",
	[XFAB_NF_RX_DROP_NOMEM] = "rx_drop_nomem",
	[XFAB_NF_RX_FATAL_RING] = "rx_fatal_ring_index",
	[XFAB_NF_RX_FATAL_GRANT_BUSY] = "rx_fatal_grant_busy",
	[XFAB_NF_RX_POOL_BYTES] = "rx_pool_copy_bytes",
	[XFAB_NF_RX_LENT_PAGES] = "rx_lent_pages",
	[XFAB_NF_RX_LENT_BYTES] = "rx_lent_bytes",
	[XFAB_NF_RX_LEND_BACK] = "rx_lend_back",
	[XFAB_NF_RX_LEND_SHORT] = "rx_lend_short",
	[XFAB_NF_RX_REF_PACKETS] = "rx_ref_packets",
	[XFAB_NF_RX_REF_BYTES] = "rx_ref_bytes",
	[XFAB_NF_RX_DROP_REF] = "rx_drop_ref",
};

/* The names above, for xfab_stats_add_reasons() (from 0). */
static const char *nf_tx_name(int i)
{
	return nf_tx_names[i];
}

static const char *nf_rx_name(int i)
{
	return nf_rx_names[i];
}

static const struct xfab_stat nf_irqs[] = {
	XFAB_STAT_A(struct xfab_nf_stats, tx_irqs),
	XFAB_STAT_A(struct xfab_nf_stats, rx_irqs),
	{ "spurious_irqs", offsetof(struct xfab_nf_stats, spurious_irqs),
	  XFAB_STAT_ATOMIC },
};

/* TX, RX, the RX validator's reasons 1.., interrupts: as ethtool shows. */
#define NF_PER_QUEUE (XFAB_NF_TX_NR + XFAB_NF_RX_NR + XFAB_RX_NR_ERRS - 1 + \
		      ARRAY_SIZE(nf_irqs))
static struct xfab_stat nf_slots[NF_PER_QUEUE];
static struct xfab_stats_table nf_table = { nf_slots, 0, NF_PER_QUEUE };

int xfab_nf_stats_init(void)
{
	const size_t ctr = sizeof(u64_stats_t);

	return xfab_stats_add_reasons(&nf_table, "", nf_tx_name, 0,
				      XFAB_NF_TX_NR,
				      offsetof(struct xfab_nf_stats, tx), ctr,
				      offsetof(struct xfab_nf_stats, tx_sync)) ?:
	       xfab_stats_add_reasons(&nf_table, "", nf_rx_name, 0,
				      XFAB_NF_RX_NR,
				      offsetof(struct xfab_nf_stats, rx), ctr,
				      offsetof(struct xfab_nf_stats, rx_sync)) ?:
	       xfab_stats_add_reasons(&nf_table, "", xfab_rx_err_name, 1,
				      XFAB_RX_NR_ERRS,
				      offsetof(struct xfab_nf_stats, rx_err), ctr,
				      offsetof(struct xfab_nf_stats, rx_sync)) ?:
	       xfab_stats_add_all(&nf_table, nf_irqs, ARRAY_SIZE(nf_irqs));
}

/* Under rtnl, like the queue count it depends on. */
static void nf_sets(struct net_device *dev, struct xfab_stats_sets *v)
{
	struct xfab_nf_info *info = netdev_priv(dev);

	v->gone = NULL;		/* a queue index keeps its counters */
	v->first = &info->stats[0];
	v->stride = sizeof(info->stats[0]);
	v->nr = dev->real_num_tx_queues;
}

static int nf_get_sset_count(struct net_device *dev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return xfab_stats_count(&nf_table, dev->real_num_tx_queues);
}

static void nf_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	if (sset == ETH_SS_STATS)
		xfab_stats_strings(&nf_table, dev->real_num_tx_queues,
				   (char *)data);
}

static void nf_get_ethtool_stats(struct net_device *dev,
				 struct ethtool_stats *stats, u64 *data)
{
	struct xfab_stats_sets v;

	nf_sets(dev, &v);
	xfab_stats_fill(&nf_table, &v, data);
}

const struct ethtool_ops xfab_nf_ethtool_ops = {
	.get_link = ethtool_op_get_link,
	.get_sset_count = nf_get_sset_count,
	.get_strings = nf_get_strings,
	.get_ethtool_stats = nf_get_ethtool_stats,
};

static u64 nf_tx(const struct xfab_nf_stats *s, enum xfab_nf_tx_stat i)
{
	return xfab_stat_get(&s->tx_sync, &s->tx[i]);
}

static u64 nf_rx(const struct xfab_nf_stats *s, enum xfab_nf_rx_stat i)
{
	return xfab_stat_get(&s->rx_sync, &s->rx[i]);
}

/* Totals over every queue index the device ever had. Any context. */
void xfab_nf_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *tot)
{
	struct xfab_nf_info *info = netdev_priv(dev);
	unsigned int q, i;

	for (q = 0; q < dev->num_tx_queues; q++) {
		const struct xfab_nf_stats *s = &info->stats[q];

		tot->tx_packets += nf_tx(s, XFAB_NF_TX_PACKETS);
		tot->tx_bytes += nf_tx(s, XFAB_NF_TX_BYTES);
		tot->tx_errors += nf_tx(s, XFAB_NF_TX_RSP_ERRORS);
		for (i = XFAB_NF_TX_DROP_DOWN; i <= XFAB_NF_TX_DROP_RING_FULL; i++)
			tot->tx_dropped += nf_tx(s, i);
		tot->rx_packets += nf_rx(s, XFAB_NF_RX_PACKETS);
		tot->rx_bytes += nf_rx(s, XFAB_NF_RX_BYTES);
		tot->rx_dropped += nf_rx(s, XFAB_NF_RX_DROP_CSUM) +
				   nf_rx(s, XFAB_NF_RX_DROP_NOMEM);
		for (i = 1; i < XFAB_RX_NR_ERRS; i++)
			tot->rx_errors += xfab_stat_get(&s->rx_sync,
							&s->rx_err[i]);
	}
}
