// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xfab_netfront counters: ethtool -S (device totals, then per queue as
 * q<N>_<name>; common/xfab_stats.h) and the net_device's totals.
 * Everything here reads info->stats only, which lives as long as the
 * net_device: never a queue, so a reader cannot race a teardown.
 */
#include <linux/ethtool.h>
#include "common.h"

/* A per-queue TX or RX counter by its index (common.h), and its name. */
#define NF_TX(i, name) { name, offsetof(struct xfab_nf_stats, tx[i]), \
			 offsetof(struct xfab_nf_stats, tx_sync) }
#define NF_RX(i, name) { name, offsetof(struct xfab_nf_stats, rx[i]), \
			 offsetof(struct xfab_nf_stats, rx_sync) }

/* In ethtool -S order, which the testbed's greps and users' scripts read. */
static const struct xfab_stat nf_fixed[] = {
	NF_TX(XFAB_NF_TX_PACKETS, "tx_packets"),
	NF_TX(XFAB_NF_TX_BYTES, "tx_bytes"),
	NF_TX(XFAB_NF_TX_SLOTS, "tx_slots"),
	NF_TX(XFAB_NF_TX_KICKS, "tx_kicks"),
	NF_TX(XFAB_NF_TX_GRANTS, "tx_grants"),
	NF_TX(XFAB_NF_TX_GRANTS_ENDED, "tx_grants_ended"),
	NF_TX(XFAB_NF_TX_LINEARISED, "tx_linearised"),
	NF_TX(XFAB_NF_TX_STOPPED, "tx_queue_stopped"),
	NF_TX(XFAB_NF_TX_RSP_ERRORS, "tx_rsp_errors"),
	NF_TX(XFAB_NF_TX_DROP_DOWN, "tx_drop_down"),
	NF_TX(XFAB_NF_TX_DROP_TOO_MANY_SLOTS, "tx_drop_too_many_slots"),
	NF_TX(XFAB_NF_TX_DROP_BAD_SKB, "tx_drop_bad_skb"),
	NF_TX(XFAB_NF_TX_DROP_RING_FULL, "tx_drop_ring_full"),
	NF_TX(XFAB_NF_TX_FATAL_RING, "tx_fatal_ring_index"),
	NF_TX(XFAB_NF_TX_FATAL_BAD_ID, "tx_fatal_bad_id"),
	NF_TX(XFAB_NF_TX_FATAL_DUP_ID, "tx_fatal_dup_id"),
	NF_TX(XFAB_NF_TX_FATAL_GRANT_BUSY, "tx_fatal_grant_busy"),
	NF_TX(XFAB_NF_TX_BOUNCED, "tx_bounced"),
	NF_TX(XFAB_NF_TX_BOUNCE_BYTES, "tx_bounce_bytes"),
	NF_TX(XFAB_NF_TX_FATAL_NULL, "tx_fatal_null"),
	NF_TX(XFAB_NF_TX_PTR_SLOTS, "tx_ptr_slots"),
	NF_TX(XFAB_NF_TX_PTR_BYTES, "tx_ptr_bytes"),
	NF_RX(XFAB_NF_RX_PACKETS, "rx_packets"),
	NF_RX(XFAB_NF_RX_BYTES, "rx_bytes"),
	NF_RX(XFAB_NF_RX_SLOTS, "rx_slots"),
	NF_RX(XFAB_NF_RX_KICKS, "rx_kicks"),
	NF_RX(XFAB_NF_RX_GRANTS, "rx_grants"),
	NF_RX(XFAB_NF_RX_GRANTS_ENDED, "rx_grants_ended"),
	NF_RX(XFAB_NF_RX_REFILL_FAIL, "rx_refill_fail"),
	NF_RX(XFAB_NF_RX_CSUM_FIXUP, "rx_csum_fixup"),
	NF_RX(XFAB_NF_RX_DROP_CSUM, "rx_drop_csum"),
	NF_RX(XFAB_NF_RX_DROP_NOMEM, "rx_drop_nomem"),
	NF_RX(XFAB_NF_RX_FATAL_RING, "rx_fatal_ring_index"),
	NF_RX(XFAB_NF_RX_FATAL_GRANT_BUSY, "rx_fatal_grant_busy"),
	NF_RX(XFAB_NF_RX_POOL_BYTES, "rx_pool_copy_bytes"),
	NF_RX(XFAB_NF_RX_LENT_PAGES, "rx_lent_pages"),
	NF_RX(XFAB_NF_RX_LENT_BYTES, "rx_lent_bytes"),
	NF_RX(XFAB_NF_RX_LEND_BACK, "rx_lend_back"),
	NF_RX(XFAB_NF_RX_LEND_SHORT, "rx_lend_short"),
	NF_RX(XFAB_NF_RX_REF_PACKETS, "rx_ref_packets"),
	NF_RX(XFAB_NF_RX_REF_BYTES, "rx_ref_bytes"),
	NF_RX(XFAB_NF_RX_DROP_REF, "rx_drop_ref"),
};

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
	/* every index of common.h's enums has its line above */
	BUILD_BUG_ON(ARRAY_SIZE(nf_fixed) != XFAB_NF_TX_NR + XFAB_NF_RX_NR);
	return xfab_stats_add_all(&nf_table, nf_fixed, ARRAY_SIZE(nf_fixed)) ?:
	       xfab_stats_add_reasons(&nf_table, "", xfab_rx_err_name, 1,
				      XFAB_RX_NR_ERRS,
				      offsetof(struct xfab_nf_stats, rx_err),
				      sizeof(u64_stats_t),
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
