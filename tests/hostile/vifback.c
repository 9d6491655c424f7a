// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A netif backend in dom0 that breaks the protocol toward a frontend, to
 * see what xen-netfront or xfab_netfront in the guest show or keep.
 * Registered only with netback=1 (dom0), in place of xen-netback and
 * xfab_netback. It offers one queue, one event channel, feature-sg and
 * nothing else, maps only the TX ring and never answers on RX:
 *
 *   tx_peek   every TX data slot is answered OKAY; first the whole 4 KiB
 *             frame its grant names is copied out (grant copy, offset 0)
 *             and searched for HV_MARK outside the slot's bytes: guest
 *             data the frontend never sent us, exposed because it shares
 *             a page with what it did send (the class of CVE-2022-33741).
 *             The scenario has the guest send the marker over loopback
 *             meanwhile.
 *   tx_null   every TX slot is answered XEN_NETIF_RSP_NULL, the answer
 *             for an extra-info slot: a data slot answered so leaves its
 *             id (and an in-place grant and skb) with the frontend for
 *             as long as it believes it.
 *   rx_ref    TX as tx_peek, and at connect one RX packet whose second
 *             slot is a pointer-mode reference (XFAB_NETRXF_REF and its
 *             frame slot, naming frame 1 of dom0) to a frontend that
 *             never asked for references: a frontend that read it would
 *             copy a frame through a window it does not have, or treat
 *             an unknown flag as data. For this case alone the RX ring
 *             is mapped.
 *
 * The report comes when the frontend closes: run, case, slots, nulls
 * (RSP_NULL answers), peeked (frames read), mark_slots (frames with
 * the marker outside the slot), mark_hits, copy_errors, rx_sent (RX
 * packets written).
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/events.h>
#include <xen/page.h>
#include <xen/interface/io/netif.h>
#include "xfab_netif_rx.h"
#include "hostile.h"

/* What tests/vm/helpers/xfab-spray puts in its loopback datagrams. */
#define HV_MARK "XFAB-HOSTILE-SECRET"
#define HV_MARK_LEN (sizeof(HV_MARK) - 1)

enum { HV_TX_PEEK, HV_TX_NULL, HV_RX_REF };
static const char *const hv_cases[] = { "tx_peek", "tx_null", "rx_ref" };

struct hs_vback {
	struct xenbus_device *xdev;
	unsigned int run;
	unsigned int kase;
	struct xen_netif_tx_back_ring tx;
	struct hs_bring br;		/* the TX ring, its channel, our thread */
	struct hs_bring rx_br;		/* rx_ref: the RX ring, mapped only */
	struct xen_netif_rx_back_ring rx;
	struct page *scratch;		/* where a granted frame is copied */
	bool connected;
	bool extra_next;		/* the next TX slot is an extra-info one */
	/* results */
	u64 slots, nulls, peeked, mark_slots, mark_hits, copy_errors, rx_sent;
};

/* Marker copies in frame p that lie outside [from, to). */
static unsigned int hv_marks_outside(const u8 *p, unsigned int from,
				     unsigned int to)
{
	unsigned int i, hits = 0;

	for (i = 0; i + HV_MARK_LEN <= XEN_PAGE_SIZE; i++) {
		if (p[i] != HV_MARK[0] || memcmp(p + i, HV_MARK, HV_MARK_LEN))
			continue;
		if (i + HV_MARK_LEN <= from || i >= to)
			hits++;
	}
	return hits;
}

/* tx_peek: read the whole frame a data slot's grant names. */
static void hv_peek(struct hs_vback *b, const struct xen_netif_tx_request *r)
{
	struct gnttab_copy op = {
		.source.u.ref = r->gref,
		.source.domid = b->xdev->otherend_id,
		.source.offset = 0,
		.dest.u.gmfn = xen_page_to_gfn(b->scratch),
		.dest.domid = DOMID_SELF,
		.dest.offset = 0,
		.len = XEN_PAGE_SIZE,
		.flags = GNTCOPY_source_gref,
	};
	unsigned int from = min_t(unsigned int, r->offset, XEN_PAGE_SIZE);
	unsigned int to = min_t(unsigned int, from + r->size, XEN_PAGE_SIZE);
	unsigned int hits;

	gnttab_batch_copy(&op, 1);
	if (op.status != GNTST_okay) {
		b->copy_errors++;
		return;
	}
	b->peeked++;
	hits = hv_marks_outside(page_address(b->scratch), from, to);
	b->mark_slots += hits != 0;
	b->mark_hits += hits;
}

/* The answer to one TX slot, already copied out of the ring. */
static s16 hv_answer(struct hs_vback *b, const struct xen_netif_tx_request *r)
{
	if (b->extra_next) {
		const struct xen_netif_extra_info *x = (const void *)r;

		b->extra_next = x->flags & XEN_NETIF_EXTRA_FLAG_MORE;
		return XEN_NETIF_RSP_NULL;
	}
	b->extra_next = r->flags & XEN_NETTXF_extra_info;
	b->slots++;
	if (b->kase == HV_TX_NULL)
		return XEN_NETIF_RSP_NULL;
	hv_peek(b, r);
	return XEN_NETIF_RSP_OKAY;
}

static void hv_take(struct hs_bring *br)
{
	struct hs_vback *b = container_of(br, struct hs_vback, br);
	struct xen_netif_tx_request r;
	struct xen_netif_tx_response *rsp;
	RING_IDX rp, rc;
	int notify, more;

	do {
		rp = READ_ONCE(b->tx.sring->req_prod);
		virt_rmb();	/* the index before the requests it covers */
		if (rp - b->tx.req_cons > RING_SIZE(&b->tx))
			return;		/* not our subject here */
		for (rc = b->tx.req_cons; rc != rp; rc++) {
			memcpy(&r, RING_GET_REQUEST(&b->tx, rc), sizeof(r));
			rsp = RING_GET_RESPONSE(&b->tx, b->tx.rsp_prod_pvt);
			rsp->id = r.id;
			rsp->status = hv_answer(b, &r);
			b->nulls += rsp->status == XEN_NETIF_RSP_NULL;
			b->tx.rsp_prod_pvt++;
		}
		b->tx.req_cons = rc;
		RING_PUSH_RESPONSES_AND_CHECK_NOTIFY(&b->tx, notify);
		if (notify)
			notify_remote_via_irq(br->irq);
		RING_FINAL_CHECK_FOR_REQUESTS(&b->tx, more);
	} while (more && !kthread_should_stop());
}

/*
 * rx_ref: one packet on the RX ring, in the first three posted buffers:
 * 60 bytes of headers (the buffer as it is), then 100 bytes said to be
 * in frame 1 of domain 0, flagged as a reference, and its frame slot.
 */
static void hv_rx_ref(struct hs_vback *b)
{
	struct xen_netif_rx_response *rsp;
	struct xen_netif_rx_request req;
	RING_IDX i;
	int notify;

	if (READ_ONCE(b->rx.sring->req_prod) - b->rx.req_cons < 3)
		return;		/* rx_sent=0: the scenario says so */
	virt_rmb();	/* the index before the requests it covers */
	for (i = 0; i < 2; i++) {
		memcpy(&req, RING_GET_REQUEST(&b->rx, b->rx.req_cons + i),
		       sizeof(req));
		rsp = RING_GET_RESPONSE(&b->rx, b->rx.rsp_prod_pvt + i);
		rsp->id = req.id;
		rsp->offset = 0;
		rsp->flags = i ? XFAB_NETRXF_REF : XEN_NETRXF_more_data;
		rsp->status = i ? 100 : 60;
	}
	xfab_rx_ref_pack((struct xen_netif_extra_info *)
			 RING_GET_RESPONSE(&b->rx, b->rx.rsp_prod_pvt + 2), 0, 1);
	b->rx.req_cons += 3;
	b->rx.rsp_prod_pvt += 3;
	RING_PUSH_RESPONSES_AND_CHECK_NOTIFY(&b->rx, notify);
	if (notify)
		notify_remote_via_irq(b->br.irq);
	b->rx_sent++;
}

/* Undo any prefix of hv_connect(); may run twice. */
static void hv_disconnect(struct hs_vback *b)
{
	hs_bring_stop(&b->br);
	hs_bring_stop(&b->rx_br);
	if (b->connected)
		hs_report("run=%u case=%s slots=%llu nulls=%llu peeked=%llu mark_slots=%llu mark_hits=%llu copy_errors=%llu rx_sent=%llu",
			  b->run, hv_cases[b->kase], b->slots, b->nulls,
			  b->peeked, b->mark_slots, b->mark_hits,
			  b->copy_errors, b->rx_sent);
	b->connected = false;
}

/* rx_ref: the RX ring too (the others never touch it). */
static int hv_map_rx(struct hs_vback *b)
{
	unsigned int ref;
	int err;

	if (b->kase != HV_RX_REF)
		return 0;
	if (xenbus_scanf(XBT_NIL, b->xdev->otherend, "rx-ring-ref", "%u",
			 &ref) != 1)
		return -EINVAL;
	b->rx_br.xdev = b->xdev;
	err = hs_bring_map(&b->rx_br, ref);
	if (err)
		return err;
	BACK_RING_INIT(&b->rx, (struct xen_netif_rx_sring *)b->rx_br.addr,
		       XEN_PAGE_SIZE);
	return 0;
}

/* One queue, flat keys: all we offered. */
static int hv_connect(struct hs_vback *b)
{
	struct xenbus_device *xdev = b->xdev;
	unsigned int ref, evtchn;
	int err;

	if (xenbus_scanf(XBT_NIL, xdev->otherend, "tx-ring-ref", "%u", &ref) != 1 ||
	    xenbus_scanf(XBT_NIL, xdev->otherend, "event-channel", "%u",
			 &evtchn) != 1)
		return -EINVAL;
	b->br.xdev = xdev;
	b->br.take = hv_take;
	err = hs_bring_map(&b->br, ref) ?: hv_map_rx(b);
	if (err)
		return err;
	BACK_RING_INIT(&b->tx, (struct xen_netif_tx_sring *)b->br.addr,
		       XEN_PAGE_SIZE);
	err = hs_bring_start(&b->br, evtchn, "xfab-hostile-vifb");
	if (err)
		return err;
	b->connected = true;
	b->run = hs_next_run();
	if (b->kase == HV_RX_REF)
		hv_rx_ref(b);
	return 0;
}

static void hv_frontend_changed(struct xenbus_device *xdev,
				enum xenbus_state state)
{
	struct hs_vback *b = dev_get_drvdata(&xdev->dev);
	int err;

	switch (state) {
	case XenbusStateConnected:
		if (b->connected || xdev->state == XenbusStateConnected)
			break;
		err = hv_connect(b);
		if (err) {
			hv_disconnect(b);
			xenbus_dev_fatal(xdev, err, "hostile vif backend connect");
			break;
		}
		xenbus_switch_state(xdev, XenbusStateConnected);
		break;
	case XenbusStateClosing:
		hv_disconnect(b);
		xenbus_switch_state(xdev, XenbusStateClosing);
		break;
	case XenbusStateClosed:
		hv_disconnect(b);
		xenbus_switch_state(xdev, XenbusStateClosed);
		if (!xenbus_dev_is_online(xdev))
			device_unregister(&xdev->dev);
		break;
	case XenbusStateUnknown:
		hv_disconnect(b);
		device_unregister(&xdev->dev);
		break;
	default:
		break;
	}
}

/* The keys a frontend reads before it builds its rings. */
static int hv_offer(struct xenbus_device *xdev)
{
	static const char *const keys[] = { "feature-sg", "feature-rx-copy" };
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		err = xenbus_printf(XBT_NIL, xdev->nodename, keys[i], "%u", 1);
		if (err)
			return err;
	}
	return 0;
}

static int hv_probe(struct xenbus_device *xdev,
		    const struct xenbus_device_id *id)
{
	int kase = hs_case(xdev, "vifback", hs_vifback_case, hv_cases,
			   ARRAY_SIZE(hv_cases));
	struct hs_vback *b;
	int err;

	if (kase < 0)
		return kase;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->xdev = xdev;
	b->kase = kase;
	b->scratch = alloc_page(GFP_KERNEL);
	err = b->scratch ? hv_offer(xdev) : -ENOMEM;
	if (err) {
		if (b->scratch)
			__free_page(b->scratch);
		kfree(b);
		return err;
	}
	dev_set_drvdata(&xdev->dev, b);
	xenbus_switch_state(xdev, XenbusStateInitWait);
	return 0;
}

static void hv_remove(struct xenbus_device *xdev)
{
	struct hs_vback *b = dev_get_drvdata(&xdev->dev);

	hv_disconnect(b);
	__free_page(b->scratch);
	kfree(b);
	dev_set_drvdata(&xdev->dev, NULL);
}

static const struct xenbus_device_id hv_ids[] = {
	{ "vif" },
	{ "" }
};

static struct xenbus_driver hv_driver = {
	.name = "xfab-hostile-vifback",
	.ids = hv_ids,
	.probe = hv_probe,
	.remove = hv_remove,
	.otherend_changed = hv_frontend_changed,
};

int hs_vifback_register(void)
{
	return xenbus_register_backend(&hv_driver);
}

void hs_vifback_unregister(void)
{
	xenbus_unregister_driver(&hv_driver);
}
