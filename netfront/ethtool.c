// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_netfront counters: ethtool -S (device totals, then per queue as
 * q<N>_<name>) and the net_device's totals. Everything here reads
 * info->stats only, which lives as long as the net_device: never a queue,
 * so a reader cannot race a teardown.
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
};

static const char *const nf_irq_names[] = {
	"tx_irqs", "rx_irqs", "spurious_irqs",
};

/* Reasons 1 .. XFAB_RX_NR_ERRS - 1 of common/'s validator. */
#define NF_RX_ERRS (XFAB_RX_NR_ERRS - 1)
#define NF_PER_QUEUE (XFAB_NF_TX_NR + XFAB_NF_RX_NR + NF_RX_ERRS + \
		      ARRAY_SIZE(nf_irq_names))

static const char *nf_stat_name(unsigned int i)
{
	if (i < XFAB_NF_TX_NR)
		return nf_tx_names[i];
	i -= XFAB_NF_TX_NR;
	if (i < XFAB_NF_RX_NR)
		return nf_rx_names[i];
	i -= XFAB_NF_RX_NR;
	if (i < NF_RX_ERRS)
		return xfab_rx_err_name(i + 1);
	return nf_irq_names[i - NF_RX_ERRS];
}

/* One queue's counters, in nf_stat_name() order. */
static void nf_snapshot(struct xfab_nf_stats *s, u64 *out)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&s->tx_sync);
		memcpy(out, s->tx, sizeof(s->tx));
	} while (u64_stats_fetch_retry(&s->tx_sync, start));
	out += XFAB_NF_TX_NR;
	do {
		start = u64_stats_fetch_begin(&s->rx_sync);
		memcpy(out, s->rx, sizeof(s->rx));
		for (i = 0; i < NF_RX_ERRS; i++)
			out[XFAB_NF_RX_NR + i] = s->rx_err[i + 1];
	} while (u64_stats_fetch_retry(&s->rx_sync, start));
	out += XFAB_NF_RX_NR + NF_RX_ERRS;
	out[0] = atomic64_read(&s->tx_irqs);
	out[1] = atomic64_read(&s->rx_irqs);
	out[2] = atomic64_read(&s->spurious_irqs);
}

/* Under rtnl, like the queue count it depends on. */
static unsigned int nf_queues(struct net_device *dev)
{
	return dev->real_num_tx_queues;
}

static int nf_get_sset_count(struct net_device *dev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return NF_PER_QUEUE * (1 + nf_queues(dev));
}

static void nf_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	unsigned int q, i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < NF_PER_QUEUE; i++)
		ethtool_sprintf(&data, "%s", nf_stat_name(i));
	for (q = 0; q < nf_queues(dev); q++)
		for (i = 0; i < NF_PER_QUEUE; i++)
			ethtool_sprintf(&data, "q%u_%s", q, nf_stat_name(i));
}

static void nf_get_ethtool_stats(struct net_device *dev,
				 struct ethtool_stats *stats, u64 *data)
{
	struct xfab_nf_info *info = netdev_priv(dev);
	u64 one[NF_PER_QUEUE];
	unsigned int q, i;

	memset(data, 0, NF_PER_QUEUE * sizeof(*data));
	for (q = 0; q < nf_queues(dev); q++) {
		u64 *mine = data + NF_PER_QUEUE * (1 + q);

		nf_snapshot(&info->stats[q], one);
		memcpy(mine, one, sizeof(one));
		for (i = 0; i < NF_PER_QUEUE; i++)
			data[i] += one[i];
	}
}

const struct ethtool_ops xfab_nf_ethtool_ops = {
	.get_link = ethtool_op_get_link,
	.get_sset_count = nf_get_sset_count,
	.get_strings = nf_get_strings,
	.get_ethtool_stats = nf_get_ethtool_stats,
};

/* Totals over every queue index the device ever had. Any context. */
void xfab_nf_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *tot)
{
	struct xfab_nf_info *info = netdev_priv(dev);
	u64 one[NF_PER_QUEUE];
	unsigned int q, i;

	for (q = 0; q < dev->num_tx_queues; q++) {
		const u64 *rx = one + XFAB_NF_TX_NR;

		nf_snapshot(&info->stats[q], one);
		tot->tx_packets += one[XFAB_NF_TX_PACKETS];
		tot->tx_bytes += one[XFAB_NF_TX_BYTES];
		tot->tx_errors += one[XFAB_NF_TX_RSP_ERRORS];
		for (i = XFAB_NF_TX_DROP_DOWN; i <= XFAB_NF_TX_DROP_RING_FULL; i++)
			tot->tx_dropped += one[i];
		tot->rx_packets += rx[XFAB_NF_RX_PACKETS];
		tot->rx_bytes += rx[XFAB_NF_RX_BYTES];
		tot->rx_dropped += rx[XFAB_NF_RX_DROP_CSUM] +
				   rx[XFAB_NF_RX_DROP_NOMEM];
		for (i = 0; i < NF_RX_ERRS; i++)
			tot->rx_errors += rx[XFAB_NF_RX_NR + i];
	}
}
