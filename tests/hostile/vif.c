// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A netif frontend that sends what its case says, to see what the backend
 * (xen-netback or xfab_netback in dom0) does with it. It negotiates one
 * queue, one event channel, rx-copy and rx-notify (what every backend
 * takes), then one thread runs the case:
 *
 *   valid          64 RX buffers posted, 256 one-slot broadcast frames
 *                  sent: all must be answered OKAY (the control)
 *   no_rx          for secs, no RX buffer posted while dom0 floods the
 *                  bridge (a backlog that stayed below the queue's stop
 *                  threshold once kept dom0's senders blocked for good);
 *                  then 64 buffers: traffic must reach us again (rx_after
 *                  counts it)
 *   tx_bad_gref    256 frames naming grant refs nobody granted
 *   tx_zero_frag   128 two-slot frames whose second slot is empty
 *                  (XSA-448 class)
 *   tx_cross_page  one frame whose offset + size runs past its page
 *   tx_slot_flood  one frame chained over 20 slots (more than 18)
 *   tx_prod_jump   the TX producer index 4 rings ahead (XSA-39 class)
 *   kick_storm     for secs, notify the backend with nothing posted
 *   rx_trickle     for secs, 8 RX buffers at a time, 0.7 to 1.3 s apart,
 *                  while dom0 floods the bridge: a backend whose stall
 *                  timer is about 1 s purges its backlog just as the
 *                  buffers come and it takes packets again (xfab_netback's
 *                  rx_gather once peeked at the backlog without its lock
 *                  while the purge emptied it); bursts counts the rounds
 *   rx_drip        for secs, 8 RX buffers every 2.5 s while dom0 floods
 *                  the bridge: often enough that the backend never sees
 *                  a stall (the scenario sets its stall timer to 6 s),
 *                  too seldom to take what comes, so only the age of
 *                  each packet (1 s for xfab_netback in the scenario,
 *                  rx_drain_ms) bounds what dom0 holds for us; then all
 *                  our buffers at once: traffic must still come
 *                  (rx_after)
 *   state_flip     RX buffers posted, then for secs our state key flips
 *                  through every state every 20 ms, in no protocol order,
 *                  the ring keys changing under it (hs_flip_states,
 *                  hv_flip_keys)
 *   lro_gso        two consecutive TCP segments of one flow, 16 payload
 *                  bytes each, each with a GSO extra of size 8 (so each
 *                  is two wire segments), csum_blank and data_validated,
 *                  to a MAC nobody has: over IPv4, then over IPv6 (once
 *                  merged onto a frag_list, they made dom0's software GSO
 *                  hit a BUG in skb_segment)
 *   lro_mtu        two consecutive 3000-byte TCP segments of one IPv4
 *                  flow, no GSO extra, the same flags: longer than the
 *                  vif's MTU, they must not leave dom0's bridge as one
 *                  forwardable GSO packet
 *   pool_hog       as many queues as the backend offers (up to 16), each
 *                  with a TX and an RX pool of as many pages as it maps
 *                  (xfab-pool-max-pages), every reference a grant of one
 *                  page (a pool costs the backend a mapping per page, and
 *                  us nothing but grant entries); then 32 broadcast
 *                  frames per queue from its TX pool's references: all
 *                  must be answered OKAY, by memcpy where the backend took
 *                  the pool, by grant copy where it refused it (before
 *                  the pool budget, such maps exhausted dom0's maptrack)
 *   ptr_valid      pointer mode (docs/pointer-mode.md): xfab-ptr=1, 256
 *                  one-slot frames naming our own frame's machine frame:
 *                  all must be answered OKAY (the control: the backend's
 *                  window over us resolves our frames)
 *   ptr_unasked    the same frames without writing xfab-ptr: a pointer
 *                  slot the connect did not negotiate
 *   ptr_bad_frame  xfab-ptr=1, frames naming a machine frame that is not
 *                  ours (HV_NOBODYS_FRAME)
 *   ptr_other      xfab-ptr=1, frames naming ptr_frame, a frame the
 *                  scenario found in another group member's memory: the
 *                  backend must resolve a slot only in its window over
 *                  us, or we would make dom0 send that member's memory
 *
 * The lro_* cases send once dom0's bridge has reached us (a frame from it
 * says our port forwards; the scenario sends broadcasts), and report
 * linked=1 then; dom0 watches the flows on a bridge port (hostile.sh).
 *
 * Responses are only counted, never trusted for more.
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/etherdevice.h>
#include <linux/sort.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/events.h>
#include <xen/page.h>
#include <xen/interface/io/netif.h>
#include "xfab_kring.h"
#include "hostile.h"

enum hs_vcase {
	HV_VALID, HV_NO_RX, HV_TX_BAD_GREF, HV_TX_ZERO_FRAG, HV_TX_CROSS_PAGE,
	HV_TX_SLOT_FLOOD, HV_TX_PROD_JUMP, HV_KICK_STORM, HV_STATE_FLIP,
	HV_RX_TRICKLE, HV_LRO_GSO, HV_LRO_MTU, HV_POOL_HOG, HV_RX_DRIP,
	HV_PTR_VALID, HV_PTR_UNASKED, HV_PTR_BAD_FRAME, HV_PTR_OTHER,
	HV_NR_CASES
};

static const char *const hv_names[HV_NR_CASES] = {
	"valid", "no_rx", "tx_bad_gref", "tx_zero_frag", "tx_cross_page",
	"tx_slot_flood", "tx_prod_jump", "kick_storm", "state_flip",
	"rx_trickle", "lro_gso", "lro_mtu", "pool_hog", "rx_drip",
	"ptr_valid", "ptr_unasked", "ptr_bad_frame", "ptr_other",
};

/* a machine frame far above any this testbed has (4 GiB of RAM) */
#define HV_NOBODYS_FRAME 0x7ffffff0u
/* xfab_netif.h's pointer slot flag: bit 15 of a TX slot's flags */
#define HV_PTR_FLAG (1u << 15)

#define HV_FRAMES 256u
#define HV_RX_BUFS 64u
#define HV_FRAME_LEN 60u
#define HV_NOBODYS_GREF 0x7ffffff0u
#define HV_FLOOD_SLOTS 20u
#define HV_TRICKLE 8u
/*
 * rx_drip's round: longer than twice the aging limit the scenario sets
 * (1 s), so that a backend that ages only when it is handed buffers
 * shows packets older than the judge allows; well within its stall
 * timer (6 s).
 */
#define HV_DRIP_MS 2500
/* and how long the last look, with all our buffers out, may take */
#define HV_DRIP_AFTER_SECS 3

/*
 * The lro_* flows. hostile.sh's capture knows the same values: the
 * addresses, the ports, the first sequence number and hv_lro_byte().
 * Each segment is a frame of its own page, at an offset that puts the
 * IP header on a 4-byte boundary.
 */
#define HV_LRO_SEGS 2u
#define HV_LRO_OFF 2u
#define HV_LRO_SPORT 0xfab0
#define HV_LRO_ISN 0x1000u
#define HV_LRO_LINK_SECS 40
#define HV_LRO_SEND_SECS 20

struct hv_flow {
	bool v6;
	u16 dport;		/* tells the flows apart in the capture */
	u16 payload;		/* bytes per segment */
	u16 gso;		/* the GSO extra's size; 0: no extra */
};

static const struct hv_flow hv_gso_flows[] = {
	{ .v6 = false, .dport = 7001, .payload = 16, .gso = 8 },
	{ .v6 = true, .dport = 7002, .payload = 16, .gso = 8 },
};

static const struct hv_flow hv_mtu_flows[] = {
	{ .v6 = false, .dport = 7003, .payload = 3000 },
};

/*
 * pool_hog: netif's most queues; the most references one list page
 * holds (docs/protocol.md); frames sent per queue, within one ring.
 */
#define HV_HOG_QUEUES 16u
#define HV_HOG_MAX_PAGES (XEN_PAGE_SIZE / sizeof(u32))
#define HV_HOG_FRAMES 32u
#define HV_HOG_SECS 30

/* One pool: its list page (ascending references) and how many it holds. */
struct hv_hog_pool {
	struct page *dir;
	grant_ref_t dir_ref;
	u32 n;
};

/* A vif queue's two rings and its channel (ours, or a pool_hog one). */
struct hv_rings {
	struct xen_netif_tx_front_ring tx;
	struct xen_netif_rx_front_ring rx;
	struct xen_netif_tx_sring *txs;
	struct xen_netif_rx_sring *rxs;
	grant_ref_t tx_ref, rx_ref;
	unsigned int evtchn;
	int irq;
};

/* One queue of pool_hog: rings, a channel, a TX and an RX pool. */
struct hv_hogq {
	struct hv_rings r;
	struct hv_hog_pool pool[2];	/* TX (read-only), RX (writable) */
};

/* our MAC, and one nobody on the bridge has: it floods what goes there */
static const u8 hv_self[ETH_ALEN] = { 0x02, 0x00, 0x00, 0xfa, 0xb0, 0x01 };
static const u8 hv_nobody[ETH_ALEN] = { 0x02, 0x00, 0x00, 0xfa, 0xb0, 0x0d };

struct hs_vif {
	struct hs_front f;		/* first: the shared lifecycle */
	struct hv_rings r;
	struct page *frame;		/* what every TX slot points into */
	grant_ref_t frame_ref;
	struct page *seg_page[HV_LRO_SEGS];	/* but the lro_* segments */
	grant_ref_t seg_ref[HV_LRO_SEGS];
	struct page *rx_page[HV_RX_BUFS];
	grant_ref_t rx_gref[HV_RX_BUFS];
	/* results */
	u64 posted, answered, okay, error, null, kicks, lies;
	u64 rx_posted, rx_got, rx_err, rx_after, bursts;
	u64 segs;			/* lro_*: TCP segments sent */
	bool linked;			/* lro_*: the bridge reached us first */
	atomic64_t irqs;
	/* pool_hog */
	struct hv_hogq *hog;
	u32 hog_nq;			/* queues set up */
	u32 hog_pool;			/* pages of the smallest pool published */
	struct page *hog_page[2];	/* what TX and RX references grant */
};

static irqreturn_t hv_interrupt(int irq, void *arg)
{
	struct hs_vif *v = arg;

	atomic64_inc(&v->irqs);
	return IRQ_HANDLED;
}

/* The TX responses of ring tx (ours, or a pool_hog queue's), counted. */
static void hv_reap_tx(struct hs_vif *v, struct xen_netif_tx_front_ring *tx)
{
	RING_IDX rp = READ_ONCE(tx->sring->rsp_prod), i;
	struct xen_netif_tx_response t;

	virt_rmb();	/* the index before the responses it covers */
	if (rp - tx->rsp_cons > tx->req_prod_pvt - tx->rsp_cons) {
		v->lies = 1;
		return;
	}
	for (i = tx->rsp_cons; i != rp; i++) {
		memcpy(&t, RING_GET_RESPONSE(tx, i), sizeof(t));
		v->answered++;
		v->okay += t.status == XEN_NETIF_RSP_OKAY;
		v->error += t.status == XEN_NETIF_RSP_ERROR;
		v->null += t.status == XEN_NETIF_RSP_NULL;
	}
	tx->rsp_cons = rp;
}

static void hv_reap(struct hs_vif *v)
{
	struct xen_netif_rx_response r;
	RING_IDX rp, i;

	hv_reap_tx(v, &v->r.tx);
	rp = READ_ONCE(v->r.rxs->rsp_prod);
	virt_rmb();	/* the index before the responses it covers */
	if (rp - v->r.rx.rsp_cons > v->r.rx.req_prod_pvt - v->r.rx.rsp_cons) {
		v->lies = 1;
		return;
	}
	for (i = v->r.rx.rsp_cons; i != rp; i++) {
		memcpy(&r, RING_GET_RESPONSE(&v->r.rx, i), sizeof(r));
		v->rx_got++;
		v->rx_err += r.status < 0;
	}
	v->r.rx.rsp_cons = rp;
}

static void hv_kick(struct hs_vif *v)
{
	notify_remote_via_irq(v->r.irq);
	v->kicks++;
}

/*
 * Up to n more RX buffers, never more than we hold out at once (all of
 * them on a fresh ring: hv_post_rx). Ids (and pages) go round in
 * posting order; the backend answers in ring order, so the buffer
 * posted HV_RX_BUFS ago is back by now.
 */
static void hv_post_some(struct hs_vif *v, u32 n)
{
	struct xen_netif_rx_request *r;
	int notify;

	while (n-- && v->r.rx.req_prod_pvt - v->r.rx.rsp_cons < HV_RX_BUFS) {
		r = RING_GET_REQUEST(&v->r.rx, v->r.rx.req_prod_pvt);
		r->id = v->r.rx.req_prod_pvt % HV_RX_BUFS;
		r->gref = v->rx_gref[r->id];
		v->r.rx.req_prod_pvt++;
		v->rx_posted++;
	}
	RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&v->r.rx, notify);
	if (notify)
		hv_kick(v);
}

/* One RX request per buffer we hold. */
static void hv_post_rx(struct hs_vif *v)
{
	hv_post_some(v, HV_RX_BUFS);
}

/* rx_trickle's rounds, spread over 0.7..1.3 s around a 1 s stall timer */
static void hv_trickle(struct hs_vif *v, unsigned long end)
{
	while (!kthread_should_stop() && time_before(jiffies, end) &&
	       !v->lies) {
		hv_reap(v);
		hv_post_some(v, HV_TRICKLE);
		v->bursts++;
		msleep(700 + (v->bursts * 137) % 600);
	}
	hv_reap(v);
}

/*
 * rx_drip: a few buffers a round, then all of them; rx_after counts the
 * frames that came once all were out (the first HV_TRICKLE are enough).
 */
static void hv_drip(struct hs_vif *v, unsigned long end)
{
	u64 got;

	while (!kthread_should_stop() && time_before(jiffies, end) &&
	       !v->lies) {
		hv_reap(v);
		hv_post_some(v, HV_TRICKLE);
		v->bursts++;
		msleep(HV_DRIP_MS);
	}
	hv_reap(v);
	got = v->rx_got;
	hv_post_rx(v);
	end = jiffies + HV_DRIP_AFTER_SECS * HZ;
	while (v->rx_got - got < HV_TRICKLE && !v->lies &&
	       !kthread_should_stop() && time_before(jiffies, end)) {
		msleep(50);
		hv_reap(v);
	}
	v->rx_after = v->rx_got - got;
}

static void hv_slot(struct hs_vif *v, grant_ref_t gref, u16 off, u16 size,
		    u16 flags)
{
	struct xen_netif_tx_request *t = RING_GET_REQUEST(&v->r.tx,
							  v->r.tx.req_prod_pvt);

	t->gref = gref;
	t->offset = off;
	t->size = size;
	t->flags = flags;
	t->id = v->r.tx.req_prod_pvt & 0xff;
	v->r.tx.req_prod_pvt++;
}

/* Lay out frame n of the case; returns the slots it took. */
static u32 hv_frame(struct hs_vif *v, u64 n)
{
	u32 i;

	switch (v->f.kase) {
	case HV_TX_BAD_GREF:
		hv_slot(v, HV_NOBODYS_GREF + (n % 8), 0, HV_FRAME_LEN, 0);
		return 1;
	case HV_TX_ZERO_FRAG:
		hv_slot(v, v->frame_ref, 0, HV_FRAME_LEN, XEN_NETTXF_more_data);
		hv_slot(v, v->frame_ref, 100, 0, 0);
		return 2;
	case HV_TX_CROSS_PAGE:
		hv_slot(v, v->frame_ref, XEN_PAGE_SIZE - 20, HV_FRAME_LEN, 0);
		return 1;
	case HV_TX_SLOT_FLOOD:
		hv_slot(v, v->frame_ref, 0, HV_FRAME_LEN * HV_FLOOD_SLOTS,
			XEN_NETTXF_more_data);
		for (i = 1; i < HV_FLOOD_SLOTS; i++)
			hv_slot(v, v->frame_ref, 0, HV_FRAME_LEN,
				i + 1 < HV_FLOOD_SLOTS ? XEN_NETTXF_more_data : 0);
		return HV_FLOOD_SLOTS;
	case HV_PTR_VALID:
	case HV_PTR_UNASKED:
		hv_slot(v, pfn_to_gfn(page_to_xen_pfn(v->frame)), 0,
			HV_FRAME_LEN, HV_PTR_FLAG);
		return 1;
	case HV_PTR_BAD_FRAME:
		hv_slot(v, HV_NOBODYS_FRAME, 0, HV_FRAME_LEN, HV_PTR_FLAG);
		return 1;
	case HV_PTR_OTHER:
		hv_slot(v, (u32)hs_ptr_frame, 0, HV_FRAME_LEN, HV_PTR_FLAG);
		return 1;
	default:
		hv_slot(v, v->frame_ref, 0, HV_FRAME_LEN, 0);
		return 1;
	}
}

/* Send up to "frames"; wait until all are answered or the time is up. */
static void hv_send(struct hs_vif *v, u64 frames, unsigned long end)
{
	int notify;

	while (!kthread_should_stop() && time_before(jiffies, end) &&
	       !v->lies) {
		bool any = false;

		hv_reap(v);
		while (v->posted < frames &&
		       RING_FREE_REQUESTS(&v->r.tx) >= HV_FLOOD_SLOTS) {
			v->posted += hv_frame(v, v->posted);
			any = true;
		}
		if (any) {
			RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&v->r.tx, notify);
			if (notify)
				hv_kick(v);
		} else {
			if (v->posted >= frames &&
			    v->r.tx.rsp_cons == v->r.tx.req_prod_pvt)
				return;
			usleep_range(500, 1000);
		}
	}
}

static void hv_wait(struct hs_vif *v, unsigned long end)
{
	while (!kthread_should_stop() && time_before(jiffies, end)) {
		hv_reap(v);
		msleep(100);
	}
}

/* A GSO extra in the next slot, after the request that announced it. */
static void hv_gso_extra(struct hs_vif *v, u8 type, u16 size)
{
	struct xen_netif_extra_info *e;

	e = (struct xen_netif_extra_info *)RING_GET_REQUEST(&v->r.tx,
							    v->r.tx.req_prod_pvt);
	memset(e, 0, sizeof(*e));
	e->type = XEN_NETIF_EXTRA_TYPE_GSO;
	e->u.gso.size = size;
	e->u.gso.type = type;
	v->r.tx.req_prod_pvt++;
}

/* Byte i of a flow's TCP stream (the capture in hostile.sh checks it). */
static u8 hv_lro_byte(const struct hv_flow *fl, u32 i)
{
	return i * 13 + (i >> 8) + fl->dport;
}

/* fd00:fab::<last> */
static void hv_lro_addr6(struct in6_addr *a, u8 last)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[0] = 0xfd;
	a->s6_addr[2] = 0x0f;
	a->s6_addr[3] = 0xab;
	a->s6_addr[15] = last;
}

/*
 * Segment i of flow fl as a frame at p: to hv_nobody, IPv4 10.0.0.77 ->
 * 10.0.0.88 (DF, no options, a right header checksum) or IPv6
 * fd00:fab::77 -> ::88 (no extension header), TCP with ACK alone and the
 * next sequence number; its checksum field holds the pseudo-header sum,
 * as csum_blank says. Returns the frame's length.
 */
static u32 hv_lro_build(u8 *p, const struct hv_flow *fl, u32 i)
{
	u32 at = i * fl->payload, l4 = sizeof(struct tcphdr) + fl->payload;
	struct ethhdr *eth = (struct ethhdr *)p;
	struct ipv6hdr *ip6 = (struct ipv6hdr *)(eth + 1);
	struct iphdr *ip = (struct iphdr *)(eth + 1);
	struct tcphdr *th;
	u8 *data;
	u32 n;

	memcpy(eth->h_dest, hv_nobody, ETH_ALEN);
	memcpy(eth->h_source, hv_self, ETH_ALEN);
	if (fl->v6) {
		eth->h_proto = htons(ETH_P_IPV6);
		memset(ip6, 0, sizeof(*ip6));
		ip6->version = 6;
		ip6->payload_len = htons(l4);
		ip6->nexthdr = IPPROTO_TCP;
		ip6->hop_limit = 64;
		hv_lro_addr6(&ip6->saddr, 0x77);
		hv_lro_addr6(&ip6->daddr, 0x88);
		th = (struct tcphdr *)(ip6 + 1);
	} else {
		eth->h_proto = htons(ETH_P_IP);
		memset(ip, 0, sizeof(*ip));
		ip->version = 4;
		ip->ihl = 5;
		ip->tot_len = htons(sizeof(*ip) + l4);
		ip->id = htons(i + 1);
		ip->frag_off = htons(IP_DF);
		ip->ttl = 64;
		ip->protocol = IPPROTO_TCP;
		ip->saddr = htonl(0x0a00004d);
		ip->daddr = htonl(0x0a000058);
		ip->check = ip_fast_csum(ip, ip->ihl);
		th = (struct tcphdr *)(ip + 1);
	}
	memset(th, 0, sizeof(*th));
	th->source = htons(HV_LRO_SPORT);
	th->dest = htons(fl->dport);
	th->seq = htonl(HV_LRO_ISN + at);
	th->ack_seq = htonl(1);
	th->doff = sizeof(*th) / 4;
	th->ack = 1;
	th->window = htons(0x4000);
	data = (u8 *)(th + 1);
	for (n = 0; n < fl->payload; n++)
		data[n] = hv_lro_byte(fl, at + n);
	if (fl->v6)
		th->check = ~csum_ipv6_magic(&ip6->saddr, &ip6->daddr, l4,
					     IPPROTO_TCP, 0);
	else
		th->check = ~csum_tcpudp_magic(ip->saddr, ip->daddr, l4,
					       IPPROTO_TCP, 0);
	return (data + fl->payload) - p;
}

/*
 * One flow's segments in one push (the backend takes them in one poll),
 * each a one-slot frame, with its GSO extra if the flow has one. True
 * once every slot is answered: then the pages may be written again.
 */
static bool hv_lro_flow(struct hs_vif *v, const struct hv_flow *fl,
			unsigned long end)
{
	u16 flags = XEN_NETTXF_csum_blank | XEN_NETTXF_data_validated;
	u8 type = fl->v6 ? XEN_NETIF_GSO_TYPE_TCPV6 : XEN_NETIF_GSO_TYPE_TCPV4;
	int notify;
	u32 i, len;

	if (fl->gso)
		flags |= XEN_NETTXF_extra_info;
	for (i = 0; i < HV_LRO_SEGS; i++) {
		len = hv_lro_build((u8 *)page_address(v->seg_page[i]) +
				   HV_LRO_OFF, fl, i);
		hv_slot(v, v->seg_ref[i], HV_LRO_OFF, len, flags);
		v->posted++;
		if (fl->gso) {
			hv_gso_extra(v, type, fl->gso);
			v->posted++;
		}
		v->segs++;
	}
	RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&v->r.tx, notify);
	if (notify)
		hv_kick(v);
	while (v->r.tx.rsp_cons != v->r.tx.req_prod_pvt) {
		if (v->lies || kthread_should_stop() ||
		    !time_before(jiffies, end))
			return false;
		usleep_range(500, 1000);
		hv_reap(v);
		hv_post_some(v, HV_RX_BUFS);
	}
	return true;
}

/*
 * lro_*: RX buffers out, then wait until a frame from dom0's bridge comes
 * (the scenario sends broadcasts once our vif is in it): until then the
 * bridge may not forward what we send. Then each flow in turn.
 */
static void hv_lro(struct hs_vif *v, const struct hv_flow *fl, u32 nr,
		   unsigned long t0)
{
	unsigned long end = t0 + HV_LRO_LINK_SECS * HZ;
	u32 i;

	hv_post_rx(v);
	while (!v->rx_got && !v->lies && !kthread_should_stop() &&
	       time_before(jiffies, end)) {
		msleep(20);
		hv_reap(v);
	}
	v->linked = v->rx_got > 0;
	if (!v->linked)
		return;
	end = jiffies + HV_LRO_SEND_SECS * HZ;
	for (i = 0; i < nr; i++)
		if (!hv_lro_flow(v, &fl[i], end))
			return;
}

/*
 * pool_hog: HV_HOG_FRAMES one-slot frames on hog queue q, each from a
 * reference of its TX pool (all grant the frame), spread over the pool;
 * then wait until all are answered.
 */
static void hv_hog_send(struct hs_vif *v, struct hv_hogq *q,
			unsigned long end)
{
	const struct hv_hog_pool *p = &q->pool[0];
	struct xen_netif_tx_request *t;
	const u32 *refs;
	int notify;
	u32 i;

	if (!p->n)
		return;
	refs = page_address(p->dir);
	for (i = 0; i < HV_HOG_FRAMES; i++) {
		t = RING_GET_REQUEST(&q->r.tx, q->r.tx.req_prod_pvt);
		t->gref = refs[(u64)i * p->n / HV_HOG_FRAMES];
		t->offset = 0;
		t->size = HV_FRAME_LEN;
		t->flags = 0;
		t->id = i;
		q->r.tx.req_prod_pvt++;
		v->posted++;
	}
	RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&q->r.tx, notify);
	if (notify) {
		notify_remote_via_irq(q->r.irq);
		v->kicks++;
	}
	while (q->r.tx.rsp_cons != q->r.tx.req_prod_pvt && !v->lies &&
	       !kthread_should_stop() && time_before(jiffies, end)) {
		usleep_range(500, 1000);
		hv_reap_tx(v, &q->r.tx);
	}
}

static int hv_run(void *arg)
{
	struct hs_vif *v = container_of((struct hs_front *)arg,
					struct hs_vif, f);
	unsigned long t0 = jiffies, flood = t0 + hs_secs * HZ;
	u64 got;
	u32 i;

	switch (v->f.kase) {
	case HV_NO_RX:
		hv_wait(v, flood);
		got = v->rx_got;
		hv_post_rx(v);
		hv_wait(v, jiffies + 5 * HZ);
		v->rx_after = v->rx_got - got;
		break;
	case HV_TX_PROD_JUMP:
		virt_wmb();	/* what we wrote before, then the lying index */
		WRITE_ONCE(v->r.txs->req_prod,
			   v->r.tx.req_prod_pvt + 4 * RING_SIZE(&v->r.tx));
		hv_kick(v);
		hv_wait(v, t0 + 3 * HZ);
		break;
	case HV_KICK_STORM:
		v->kicks += hs_kick_storm(v->r.irq, flood);
		hv_reap(v);
		break;
	case HV_STATE_FLIP:
		hv_post_rx(v);
		hs_flip_states(&v->f, flood);
		break;
	case HV_RX_TRICKLE:
		hv_trickle(v, flood);
		break;
	case HV_RX_DRIP:
		hv_drip(v, flood);
		break;
	case HV_LRO_GSO:
		hv_lro(v, hv_gso_flows, ARRAY_SIZE(hv_gso_flows), t0);
		break;
	case HV_LRO_MTU:
		hv_lro(v, hv_mtu_flows, ARRAY_SIZE(hv_mtu_flows), t0);
		break;
	case HV_POOL_HOG:
		for (i = 0; i < v->hog_nq; i++)
			hv_hog_send(v, &v->hog[i], t0 + HV_HOG_SECS * HZ);
		break;
	case HV_TX_CROSS_PAGE:
	case HV_TX_SLOT_FLOOD:
		/* one frame; a backend that takes it as fatal never answers */
		hv_send(v, 1, t0 + 3 * HZ);
		break;
	default:
		hv_post_rx(v);
		hv_send(v, HV_FRAMES, t0 + 60 * HZ);
		hv_wait(v, jiffies + HZ / 2);
		break;
	}
	hs_report("run=%u case=%s ms=%u posted=%llu answered=%llu okay=%llu error=%llu null=%llu rx_posted=%llu rx_got=%llu rx_err=%llu rx_after=%llu bursts=%llu kicks=%llu irqs=%lld lies=%llu flips=%u segs=%llu linked=%u queues=%u pool=%u",
		  v->f.run, hv_names[v->f.kase], jiffies_to_msecs(jiffies - t0),
		  v->posted, v->answered, v->okay, v->error, v->null,
		  v->rx_posted, v->rx_got, v->rx_err, v->rx_after, v->bursts,
		  v->kicks,
		  (long long)atomic64_read(&v->irqs), v->lies, v->f.flips,
		  v->segs, v->linked, v->hog_nq, v->hog_pool);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

/* End a grant and let its page go once the backend has let go of it. */
static void hv_page_free(struct page **pg, grant_ref_t *ref)
{
	if (*ref != INVALID_GRANT_REF)
		gnttab_end_foreign_access(*ref, *pg);
	else if (*pg)
		__free_page(*pg);
	*ref = INVALID_GRANT_REF;
	*pg = NULL;
}

/*
 * A pool_hog pool's grants end (their page is freed once the backend let
 * go of each: a grant still in use holds its own reference), then its
 * list page's. May run twice.
 */
static void hv_hog_pool_free(struct hv_hog_pool *p)
{
	const u32 *refs;
	u32 i;

	if (!p->dir)
		return;
	refs = page_address(p->dir);
	for (i = 0; i < p->n; i++)
		gnttab_end_foreign_access(refs[i], NULL);
	p->n = 0;
	if (p->dir_ref != INVALID_GRANT_REF)
		gnttab_end_foreign_access(p->dir_ref, p->dir);
	else
		__free_page(p->dir);
	p->dir_ref = INVALID_GRANT_REF;
	p->dir = NULL;
}

/* Undo any prefix of hv_hog_setup(); may run twice. */
static void hv_hog_teardown(struct hs_vif *v)
{
	struct hv_hogq *q;
	u32 i, k;

	for (i = 0; v->hog && i < v->hog_nq; i++) {
		q = &v->hog[i];
		if (q->r.irq > 0)
			unbind_from_irqhandler(q->r.irq, v);
		q->r.irq = 0;
		xfab_ring_pages_free((void **)&q->r.txs, 1, &q->r.tx_ref);
		xfab_ring_pages_free((void **)&q->r.rxs, 1, &q->r.rx_ref);
		for (k = 0; k < 2; k++)
			hv_hog_pool_free(&q->pool[k]);
	}
	kfree(v->hog);
	v->hog = NULL;
	v->hog_nq = 0;
	for (k = 0; k < 2; k++) {
		if (v->hog_page[k])
			__free_page(v->hog_page[k]);
		v->hog_page[k] = NULL;
	}
}

/* Undo any prefix of hv_setup(); may run twice. */
static void hv_teardown(struct hs_front *f)
{
	struct hs_vif *v = container_of(f, struct hs_vif, f);
	u32 i;

	hv_hog_teardown(v);
	if (v->r.irq > 0)
		unbind_from_irqhandler(v->r.irq, v);
	v->r.irq = 0;
	xfab_ring_pages_free((void **)&v->r.txs, 1, &v->r.tx_ref);
	xfab_ring_pages_free((void **)&v->r.rxs, 1, &v->r.rx_ref);
	hv_page_free(&v->frame, &v->frame_ref);
	for (i = 0; i < HV_LRO_SEGS; i++)
		hv_page_free(&v->seg_page[i], &v->seg_ref[i]);
	for (i = 0; i < HV_RX_BUFS; i++)
		hv_page_free(&v->rx_page[i], &v->rx_gref[i]);
}

/* A zeroed page granted to the backend. */
static int hv_page_grant(struct hs_vif *v, struct page **pg, grant_ref_t *ref,
			 bool ro)
{
	int r;

	*pg = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!*pg)
		return -ENOMEM;
	r = gnttab_grant_foreign_access(v->f.xdev->otherend_id,
					xen_page_to_gfn(*pg), ro);
	if (r < 0)
		return r;
	*ref = r;
	return 0;
}

/* A broadcast frame from a locally administered address, local ethertype. */
static void hv_frame_fill(u8 *eth)
{
	eth_broadcast_addr(eth);
	memcpy(eth + ETH_ALEN, hv_self, ETH_ALEN);
	eth[12] = 0x88;
	eth[13] = 0xb5;
}

static int hv_ref_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * A pool_hog pool: up to n grants of page (read-only ones for TX), their
 * references ascending in a list page granted read-only. Fewer if our
 * grant table runs out: the report's pool names the smallest.
 */
static int hv_hog_pool_grant(struct hs_vif *v, struct hv_hog_pool *p,
			     struct page *page, u32 n, bool ro)
{
	domid_t be = v->f.xdev->otherend_id;
	u32 *refs;
	int r;

	p->dir = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!p->dir)
		return -ENOMEM;
	refs = page_address(p->dir);
	for (p->n = 0; p->n < n; p->n++) {
		r = gnttab_grant_foreign_access(be, xen_page_to_gfn(page), ro);
		if (r < 0)
			break;
		refs[p->n] = r;
	}
	if (!p->n)
		return -ENOSPC;
	sort(refs, p->n, sizeof(*refs), hv_ref_cmp, NULL);
	r = gnttab_grant_foreign_access(be, xen_page_to_gfn(p->dir), 1);
	if (r < 0)
		return r;
	p->dir_ref = r;
	return 0;
}

/* A queue's rings and channel (ours, or a pool_hog queue's): r. */
static int hv_rings_make(struct hs_vif *v, struct hv_rings *r,
			 const char *name)
{
	struct xenbus_device *xdev = v->f.xdev;
	int err;

	err = xenbus_setup_ring(xdev, GFP_KERNEL, (void **)&r->txs, 1,
				&r->tx_ref);
	if (err)
		return err;
	SHARED_RING_INIT(r->txs);
	FRONT_RING_INIT(&r->tx, r->txs, XEN_PAGE_SIZE);
	err = xenbus_setup_ring(xdev, GFP_KERNEL, (void **)&r->rxs, 1,
				&r->rx_ref);
	if (err)
		return err;
	SHARED_RING_INIT(r->rxs);
	FRONT_RING_INIT(&r->rx, r->rxs, XEN_PAGE_SIZE);
	err = xenbus_alloc_evtchn(xdev, &r->evtchn);
	if (err)
		return err;
	err = bind_evtchn_to_irqhandler(r->evtchn, hv_interrupt, 0, name, v);
	if (err < 0) {
		xenbus_free_evtchn(xdev, r->evtchn);
		return err;
	}
	r->irq = err;
	return 0;
}

static int hv_hog_pool_keys(const char *dir, const char *kind,
			    const struct hv_hog_pool *p)
{
	char ref[24], pages[24];

	if (!p->n)
		return 0;
	snprintf(ref, sizeof(ref), "xfab-%s-pool-ref", kind);
	snprintf(pages, sizeof(pages), "xfab-%s-pool-pages", kind);
	return xenbus_printf(XBT_NIL, dir, ref, "%u", p->dir_ref) ?:
	       xenbus_printf(XBT_NIL, dir, pages, "%u", p->n);
}

/* Queue i's keys: in queue-<i>/, or at the top with a single queue. */
static int hv_hog_keys(struct hs_vif *v, u32 i)
{
	const char *node = v->f.xdev->nodename;
	struct hv_hogq *q = &v->hog[i];
	char *dir;
	int err;

	if (v->hog_nq > 1)
		dir = kasprintf(GFP_KERNEL, "%s/queue-%u", node, i);
	else
		dir = kstrdup(node, GFP_KERNEL);
	if (!dir)
		return -ENOMEM;
	err = xenbus_printf(XBT_NIL, dir, "tx-ring-ref", "%u", q->r.tx_ref) ?:
	      xenbus_printf(XBT_NIL, dir, "rx-ring-ref", "%u", q->r.rx_ref) ?:
	      xenbus_printf(XBT_NIL, dir, "event-channel", "%u", q->r.evtchn) ?:
	      hv_hog_pool_keys(dir, "tx", &q->pool[0]) ?:
	      hv_hog_pool_keys(dir, "rx", &q->pool[1]);
	kfree(dir);
	return err;
}

/*
 * pool_hog in place of our own rings: every queue the backend offers,
 * each with the largest pools it says it maps (none from a backend that
 * maps none), and the keys. TX references grant a page holding the frame,
 * RX ones another page (the backend may write it).
 */
static int hv_hog_setup(struct hs_vif *v)
{
	const char *be = v->f.xdev->otherend, *node = v->f.xdev->nodename;
	u32 nq, pages = 0, i, k;
	int err = 0;

	nq = clamp(xenbus_read_unsigned(be, "multi-queue-max-queues", 1), 1u,
		   HV_HOG_QUEUES);
	if (xenbus_read_unsigned(be, "feature-xfab-pool", 0))
		pages = min_t(u32, HV_HOG_MAX_PAGES,
			      xenbus_read_unsigned(be, "xfab-pool-max-pages", 0));
	v->hog = kcalloc(nq, sizeof(*v->hog), GFP_KERNEL);
	if (!v->hog)
		return -ENOMEM;
	v->hog_nq = nq;
	for (i = 0; i < nq; i++) {
		v->hog[i].r.tx_ref = v->hog[i].r.rx_ref = INVALID_GRANT_REF;
		for (k = 0; k < 2; k++)
			v->hog[i].pool[k].dir_ref = INVALID_GRANT_REF;
	}
	for (k = 0; k < 2; k++) {
		v->hog_page[k] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!v->hog_page[k])
			return -ENOMEM;
	}
	hv_frame_fill(page_address(v->hog_page[0]));
	v->hog_pool = pages;
	for (i = 0; !err && i < nq; i++) {
		err = hv_rings_make(v, &v->hog[i].r, "xfab-hostile-hog");
		for (k = 0; !err && pages && k < 2; k++) {
			err = hv_hog_pool_grant(v, &v->hog[i].pool[k],
						v->hog_page[k], pages, k == 0);
			v->hog_pool = min(v->hog_pool, v->hog[i].pool[k].n);
		}
	}
	if (!err)
		err = xenbus_printf(XBT_NIL, node, "request-rx-copy", "%u", 1) ?:
		      xenbus_printf(XBT_NIL, node, "feature-rx-notify", "%u", 1);
	if (!err && nq > 1)
		err = xenbus_printf(XBT_NIL, node, "multi-queue-num-queues",
				    "%u", nq);
	for (i = 0; !err && i < nq; i++)
		err = hv_hog_keys(v, i);
	return err;
}

static int hv_keys(struct hs_vif *v);

static int hv_setup(struct hs_front *f)
{
	struct hs_vif *v = container_of(f, struct hs_vif, f);
	int err;
	u32 i;

	if (f->kase == HV_POOL_HOG)
		return hv_hog_setup(v);
	err = hv_page_grant(v, &v->frame, &v->frame_ref, true);
	for (i = 0; !err && i < HV_LRO_SEGS; i++)
		err = hv_page_grant(v, &v->seg_page[i], &v->seg_ref[i], true);
	for (i = 0; !err && i < HV_RX_BUFS; i++)
		err = hv_page_grant(v, &v->rx_page[i], &v->rx_gref[i], false);
	if (err)
		return err;
	hv_frame_fill(page_address(v->frame));
	err = hv_rings_make(v, &v->r, "xfab-hostile-vif");
	return err ?: hv_keys(v);
}

static int hv_keys(struct hs_vif *v)
{
	const char *dir = v->f.xdev->nodename;
	unsigned int k = v->f.kase;
	bool ptr = k == HV_PTR_VALID || k == HV_PTR_BAD_FRAME ||
		   k == HV_PTR_OTHER;

	return xenbus_printf(XBT_NIL, dir, "xfab-ptr", "%u", ptr) ?:
	       xenbus_printf(XBT_NIL, dir, "tx-ring-ref", "%u", v->r.tx_ref) ?:
	       xenbus_printf(XBT_NIL, dir, "rx-ring-ref", "%u", v->r.rx_ref) ?:
	       xenbus_printf(XBT_NIL, dir, "event-channel", "%u", v->r.evtchn) ?:
	       xenbus_printf(XBT_NIL, dir, "request-rx-copy", "%u", 1) ?:
	       xenbus_printf(XBT_NIL, dir, "feature-rx-notify", "%u", 1);
}

/*
 * state_flip's keys: ring refs real or nobody's, the queue count absent,
 * 0, 2 (with no queue directories) or 1000, the channel real or not.
 */
static void hv_flip_keys(struct hs_front *f, unsigned int n)
{
	static const int queues[] = { -1, 0, 2, 1000 };
	struct hs_vif *v = container_of(f, struct hs_vif, f);
	struct xenbus_device *xdev = f->xdev;

	hs_key(xdev, "multi-queue-num-queues", queues[n % ARRAY_SIZE(queues)]);
	hs_key(xdev, "tx-ring-ref", n % 3 ? v->r.tx_ref : HV_NOBODYS_GREF);
	hs_key(xdev, "rx-ring-ref", n % 5 ? v->r.rx_ref : -1);
	hs_key(xdev, "event-channel", n % 2 ? v->r.evtchn : 99999);
}

static void hv_init(struct hs_front *f)
{
	struct hs_vif *v = container_of(f, struct hs_vif, f);
	u32 i;

	v->r.tx_ref = v->r.rx_ref = v->frame_ref = INVALID_GRANT_REF;
	for (i = 0; i < HV_LRO_SEGS; i++)
		v->seg_ref[i] = INVALID_GRANT_REF;
	for (i = 0; i < HV_RX_BUFS; i++)
		v->rx_gref[i] = INVALID_GRANT_REF;
	atomic64_set(&v->irqs, 0);
}

/* netif: the frontend is Connected once its keys are out. */
static const struct hs_front_ops hv_ops = {
	.kind = "vif",
	.cases = hv_names,
	.nr_cases = HV_NR_CASES,
	.case_param = hs_vif_case,
	.size = sizeof(struct hs_vif),
	.init = hv_init,
	.setup = hv_setup,
	.teardown = hv_teardown,
	.run = hv_run,
	.flip_keys = hv_flip_keys,
	.ready = XenbusStateConnected,
	.connect = false,
};

static int hv_probe(struct xenbus_device *xdev,
		    const struct xenbus_device_id *id)
{
	return hs_front_probe(xdev, &hv_ops);
}

static const struct xenbus_device_id hv_ids[] = {
	{ "vif" },
	{ "" }
};

static struct xenbus_driver hv_driver = {
	.name = "xfab-hostile-vif",
	.ids = hv_ids,
	.probe = hv_probe,
	.remove = hs_front_remove,
	.otherend_changed = hs_front_changed,
};

int hs_vif_register(void)
{
	return xenbus_register_frontend(&hv_driver);
}

void hs_vif_unregister(void)
{
	xenbus_unregister_driver(&hv_driver);
}
