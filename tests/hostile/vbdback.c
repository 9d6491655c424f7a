// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A blkif backend in dom0 that looks at what a frontend shows it, to see
 * what xen-blkfront or xfab_blkfront in the guest leak to a backend that
 * reads everything it is granted. Registered only with backend=1 (dom0),
 * in place of xen-blkback/xfab_blkback. It offers a plain disk (one ring
 * page, one queue, no persistent grants, no indirect segments), so both
 * frontends grant their pages per request, and serves requests without a
 * disk behind it:
 *
 *   stale_read     every read is answered OKAY without data; before
 *                  answering, each segment's granted bytes are copied out
 *                  (grant copy) and counted if not zero: what the
 *                  frontend showed us that it never wrote to the disk
 *                  (XSA-403 class). Writes are answered OKAY and
 *                  forgotten.
 *   ring_keep      served like stale_read, but when the frontend closes,
 *                  the ring page stays mapped for HB_KEEP_ROUNDS half
 *                  seconds (we stay Closing meanwhile) and is compared
 *                  with what it held then, and its indexes with ours: a
 *                  change means the frontend freed and reused a page we
 *                  still map (XSA-396 class). Then it is unmapped and we
 *                  close.
 *   ro_keep        we claim to be xfab_blkback (feature-xfab-blk,
 *                  xfab-ro-grants-max) with persistent grants, go
 *                  InitWait only once the toolstack has put the disk in
 *                  relaxed trust, and map every write segment's grant
 *                  read-only and keep it mapped until the frontend
 *                  closes. A frontend that replaces kept grants it has
 *                  ended while we still map them hands us new ones
 *                  without bound: their pages and grant entries stay on
 *                  Xen's deferred list.
 *
 * The report comes when the frontend closes (ring_keep: once the watch
 * is over): run, case, reads, segments, stale_segs, stale_bytes, for
 * ring_keep the rounds the page differed (changed) and by how many
 * bytes at most, for ro_keep the grants we held mapped (held) and
 * those we could not (held_full, map_errors).
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/events.h>
#include <xen/page.h>
#include <xen/interface/io/blkif.h>
#include "hostile.h"

/* What the disk claims to be: 64 MiB. */
#define HB_SECTORS (64u * 2048u)
/* ring_keep: half seconds of watching, within libxl's 10 s to close. */
#define HB_KEEP_ROUNDS 14u
/* ro_keep: the grants we hold mapped at most, and what we offer. */
#define HB_HOLD_MAX 2048u
#define HB_RO_OFFER 256u

enum { HB_STALE_READ, HB_RING_KEEP, HB_RO_KEEP };
static const char *const hb_cases[] = { "stale_read", "ring_keep", "ro_keep" };

/* ro_keep: one grant we map and do not let go. */
struct hb_held {
	grant_ref_t gref;
	grant_handle_t handle;
	struct page *page;
};

struct hs_back {
	struct xenbus_device *xdev;
	unsigned int run;
	struct blkif_back_ring back;
	struct hs_bring br;		/* the ring, its channel, our thread */
	struct page *scratch;		/* where granted bytes are copied */
	bool connected;
	unsigned int kase;		/* index in hb_cases */
	bool keeping;			/* watching a ring the frontend let go */
	u8 *snap;			/* the ring page as it was then */
	unsigned int rounds;
	struct delayed_work watch;
	struct delayed_work initwait;	/* ro_keep: waiting for the trust key */
	unsigned int initwait_looks;
	struct hb_held *held;
	unsigned int nr_held;
	/* results */
	u64 reads, writes, segs, stale_segs, stale_bytes, copy_errors;
	u64 changed, changed_bytes;
	u32 last_req_prod;		/* ring_keep: as the last look saw it */
	u64 held_full, map_errors;
};

/* Bytes of one segment that are not zero, read through a grant copy. */
static int hb_look(struct hs_back *b, grant_ref_t gref, unsigned int off,
		   unsigned int len, unsigned int *nonzero)
{
	struct gnttab_copy op = {
		.source.u.ref = gref,
		.source.domid = b->xdev->otherend_id,
		.source.offset = off,
		.dest.u.gmfn = xen_page_to_gfn(b->scratch),
		.dest.domid = DOMID_SELF,
		.dest.offset = 0,
		.len = len,
		.flags = GNTCOPY_source_gref,
	};
	const u8 *p = page_address(b->scratch);
	unsigned int i;

	gnttab_batch_copy(&op, 1);
	if (op.status != GNTST_okay)
		return -EIO;
	*nonzero = 0;
	for (i = 0; i < len; i++)
		*nonzero += p[i] != 0;
	return 0;
}

static unsigned long hb_vaddr(struct page *page)
{
	return (unsigned long)pfn_to_kaddr(page_to_pfn(page));
}

/* ro_keep: map gref read-only, once, and keep it. */
static void hb_hold(struct hs_back *b, grant_ref_t gref)
{
	struct gnttab_map_grant_ref op;
	struct hb_held *h;
	unsigned int i;

	for (i = 0; i < b->nr_held; i++)
		if (b->held[i].gref == gref)
			return;
	if (b->nr_held == HB_HOLD_MAX) {
		b->held_full++;
		return;
	}
	h = &b->held[b->nr_held];
	if (gnttab_alloc_pages(1, &h->page)) {
		b->map_errors++;
		return;
	}
	gnttab_set_map_op(&op, hb_vaddr(h->page),
			  GNTMAP_host_map | GNTMAP_readonly, gref,
			  b->xdev->otherend_id);
	if (gnttab_map_refs(&op, NULL, &h->page, 1) || op.status != GNTST_okay) {
		gnttab_free_pages(1, &h->page);
		b->map_errors++;
		return;
	}
	h->gref = gref;
	h->handle = op.handle;
	b->nr_held++;
}

static void hb_unhold(struct hs_back *b)
{
	struct gnttab_unmap_grant_ref op;
	unsigned int i;

	for (i = 0; i < b->nr_held; i++) {
		struct hb_held *h = &b->held[i];

		gnttab_set_unmap_op(&op, hb_vaddr(h->page),
				    GNTMAP_host_map | GNTMAP_readonly,
				    h->handle);
		gnttab_unmap_refs(&op, NULL, &h->page, 1);
		gnttab_free_pages(1, &h->page);
	}
	b->nr_held = 0;
}

static s16 hb_write(struct hs_back *b, const struct blkif_request *r)
{
	unsigned int i, n = r->u.rw.nr_segments;

	b->writes++;
	if (b->kase != HB_RO_KEEP)
		return BLKIF_RSP_OKAY;
	if (n > BLKIF_MAX_SEGMENTS_PER_REQUEST)
		return BLKIF_RSP_ERROR;
	for (i = 0; i < n; i++) {
		b->segs++;
		hb_hold(b, r->u.rw.seg[i].gref);
	}
	return BLKIF_RSP_OKAY;
}

static s16 hb_serve(struct hs_back *b, const struct blkif_request *r)
{
	unsigned int i, n = r->u.rw.nr_segments, nz;

	if (r->operation == BLKIF_OP_WRITE)
		return hb_write(b, r);
	if (r->operation != BLKIF_OP_READ)
		return BLKIF_RSP_OKAY;	/* flush and the like: nothing to do */
	b->reads++;
	if (n > BLKIF_MAX_SEGMENTS_PER_REQUEST)
		return BLKIF_RSP_ERROR;
	for (i = 0; i < n; i++) {
		const struct blkif_request_segment *s = &r->u.rw.seg[i];

		if (s->last_sect > 7 || s->first_sect > s->last_sect)
			return BLKIF_RSP_ERROR;
		b->segs++;
		if (hb_look(b, s->gref, s->first_sect * 512,
			    (s->last_sect - s->first_sect + 1) * 512, &nz)) {
			b->copy_errors++;
			continue;
		}
		b->stale_segs += nz != 0;
		b->stale_bytes += nz;
	}
	return BLKIF_RSP_OKAY;	/* and no data: the guest reads what was there */
}

static void hb_take(struct hs_bring *br)
{
	struct hs_back *b = container_of(br, struct hs_back, br);
	RING_IDX rp, rc;
	struct blkif_request r;
	struct blkif_response *rsp;
	int notify, more;

	do {
		rp = READ_ONCE(b->back.sring->req_prod);
		virt_rmb();	/* the index before the requests it covers */
		if (rp - b->back.req_cons > RING_SIZE(&b->back))
			return;		/* not our subject here */
		for (rc = b->back.req_cons; rc != rp; rc++) {
			memcpy(&r, RING_GET_REQUEST(&b->back, rc), sizeof(r));
			rsp = RING_GET_RESPONSE(&b->back, b->back.rsp_prod_pvt);
			rsp->id = r.u.rw.id;
			rsp->operation = r.operation;
			rsp->status = hb_serve(b, &r);
			b->back.rsp_prod_pvt++;
		}
		b->back.req_cons = rc;
		RING_PUSH_RESPONSES_AND_CHECK_NOTIFY(&b->back, notify);
		if (notify)
			notify_remote_via_irq(br->irq);
		RING_FINAL_CHECK_FOR_REQUESTS(&b->back, more);
	} while (more && !kthread_should_stop());
}

/* Undo any prefix of hb_connect(); may run twice. */
static void hb_disconnect(struct hs_back *b)
{
	hs_bring_stop(&b->br);
	if (b->connected)
		hs_report("run=%u case=%s reads=%llu writes=%llu segs=%llu stale_segs=%llu stale_bytes=%llu copy_errors=%llu changed=%llu changed_bytes=%llu looks=%u req_prod=%#x held=%u held_full=%llu map_errors=%llu",
			  b->run, hb_cases[b->kase], b->reads, b->writes,
			  b->segs, b->stale_segs, b->stale_bytes,
			  b->copy_errors, b->changed, b->changed_bytes,
			  b->rounds, b->last_req_prod, b->nr_held, b->held_full, b->map_errors);
	b->connected = false;
	hb_unhold(b);
	kfree(b->snap);
	b->snap = NULL;
}

/*
 * Is the page still the ring we served? Its indexes must be where we left
 * them (the frontend may have freed and reused it before we looked).
 */
static bool hb_ring_intact(struct hs_back *b)
{
	const struct blkif_sring *sr = b->back.sring;

	return READ_ONCE(sr->req_prod) == b->back.req_cons &&
	       READ_ONCE(sr->rsp_prod) == b->back.rsp_prod_pvt;
}

/* ring_keep: has the page we still map been given new contents? */
static void hb_watch(struct work_struct *w)
{
	struct hs_back *b = container_of(to_delayed_work(w), struct hs_back,
					 watch);
	const u8 *now = b->br.addr;
	unsigned int i, diff = 0;

	for (i = 0; i < XEN_PAGE_SIZE; i++)
		diff += now[i] != b->snap[i];
	b->changed += diff || !hb_ring_intact(b);
	b->changed_bytes = max_t(u64, b->changed_bytes, diff);
	b->last_req_prod = READ_ONCE(b->back.sring->req_prod);
	if (++b->rounds < HB_KEEP_ROUNDS) {
		schedule_delayed_work(&b->watch, HZ / 2);
		return;
	}
	hb_disconnect(b);
	xenbus_switch_state(b->xdev, XenbusStateClosed);
}

/* ring_keep: the frontend closed; hold on to its ring page and watch. */
static bool hb_keep(struct hs_back *b)
{
	if (b->kase != HB_RING_KEEP || !b->connected || b->keeping)
		return b->keeping;
	hs_bring_quiesce(&b->br);
	b->snap = kmemdup(b->br.addr, XEN_PAGE_SIZE, GFP_KERNEL);
	if (!b->snap)
		return false;
	b->keeping = true;
	schedule_delayed_work(&b->watch, HZ / 2);
	return true;
}

static int hb_connect(struct hs_back *b)
{
	struct xenbus_device *xdev = b->xdev;
	unsigned int ref, evtchn;
	int err;

	if (xenbus_scanf(XBT_NIL, xdev->otherend, "ring-ref", "%u", &ref) != 1 ||
	    xenbus_scanf(XBT_NIL, xdev->otherend, "event-channel", "%u",
			 &evtchn) != 1)
		return -EINVAL;
	b->br.xdev = xdev;
	b->br.take = hb_take;
	err = hs_bring_map(&b->br, ref);
	if (err)
		return err;
	BACK_RING_INIT(&b->back, (struct blkif_sring *)b->br.addr,
		       XEN_PAGE_SIZE);
	err = hs_bring_start(&b->br, evtchn, "xfab-hostile-back");
	if (err)
		return err;
	b->connected = true;
	b->run = hs_next_run();
	return xenbus_printf(XBT_NIL, xdev->nodename, "sectors", "%u",
			     HB_SECTORS) ?:
	       xenbus_printf(XBT_NIL, xdev->nodename, "info", "%u", 0) ?:
	       xenbus_printf(XBT_NIL, xdev->nodename, "sector-size", "%u", 512);
}

static void hb_frontend_changed(struct xenbus_device *xdev,
				enum xenbus_state state)
{
	struct hs_back *b = dev_get_drvdata(&xdev->dev);
	int err;

	switch (state) {
	case XenbusStateInitialised:
	case XenbusStateConnected:
		if (b->connected || xdev->state == XenbusStateConnected)
			break;
		err = hb_connect(b);
		if (err) {
			hb_disconnect(b);
			xenbus_dev_fatal(xdev, err, "hostile vbd backend connect");
			break;
		}
		xenbus_switch_state(xdev, XenbusStateConnected);
		break;
	case XenbusStateClosing:
		if (hb_keep(b))
			break;		/* hb_watch() closes */
		hb_disconnect(b);
		xenbus_switch_state(xdev, XenbusStateClosing);
		break;
	case XenbusStateClosed:
		if (hb_keep(b))
			break;
		hb_disconnect(b);
		xenbus_switch_state(xdev, XenbusStateClosed);
		if (!xenbus_dev_is_online(xdev))
			device_unregister(&xdev->dev);
		break;
	case XenbusStateUnknown:
		cancel_delayed_work_sync(&b->watch);
		cancel_delayed_work_sync(&b->initwait);
		hb_disconnect(b);
		device_unregister(&xdev->dev);
		break;
	default:
		break;
	}
}

/*
 * ro_keep: the frontend reads its trust key when we reach InitWait, and
 * the toolstack writes it only once xl has made the frontend directory:
 * wait for it (10 s at most, then go on without).
 */
static void hb_initwait(struct work_struct *w)
{
	struct hs_back *b = container_of(to_delayed_work(w), struct hs_back,
					 initwait);

	if (!xenbus_exists(XBT_NIL, b->xdev->otherend, "xfab-trust") &&
	    ++b->initwait_looks < 100) {
		schedule_delayed_work(&b->initwait, HZ / 10);
		return;
	}
	xenbus_switch_state(b->xdev, XenbusStateInitWait);
}

/* ro_keep: what xfab_blkback offers for kept read-only grants. */
static int hb_offer_xfab(struct hs_back *b)
{
	const char *dir = b->xdev->nodename;

	b->held = kvcalloc(HB_HOLD_MAX, sizeof(*b->held), GFP_KERNEL);
	if (!b->held)
		return -ENOMEM;
	return xenbus_printf(XBT_NIL, dir, "feature-xfab-blk", "%u", 1) ?:
	       xenbus_printf(XBT_NIL, dir, "xfab-ro-grants-max", "%u",
			     HB_RO_OFFER) ?:
	       xenbus_printf(XBT_NIL, dir, "feature-persistent", "%u", 1);
}

static void hb_free(struct hs_back *b)
{
	kvfree(b->held);
	if (b->scratch)
		__free_page(b->scratch);
	kfree(b);
}

static int hb_probe(struct xenbus_device *xdev,
		    const struct xenbus_device_id *id)
{
	int kase = hs_case(xdev, "vbdback", hs_vbdback_case, hb_cases,
			   ARRAY_SIZE(hb_cases));
	struct hs_back *b;
	int err = 0;

	if (kase < 0)
		return kase;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->xdev = xdev;
	b->kase = kase;
	INIT_DELAYED_WORK(&b->watch, hb_watch);
	INIT_DELAYED_WORK(&b->initwait, hb_initwait);
	b->scratch = alloc_page(GFP_KERNEL);
	if (!b->scratch)
		err = -ENOMEM;
	else if (b->kase == HB_RO_KEEP)
		err = hb_offer_xfab(b);
	if (err) {
		hb_free(b);
		return err;
	}
	dev_set_drvdata(&xdev->dev, b);
	if (b->kase == HB_RO_KEEP)
		schedule_delayed_work(&b->initwait, 0);
	else
		xenbus_switch_state(xdev, XenbusStateInitWait);
	return 0;
}

static void hb_remove(struct xenbus_device *xdev)
{
	struct hs_back *b = dev_get_drvdata(&xdev->dev);

	cancel_delayed_work_sync(&b->watch);
	cancel_delayed_work_sync(&b->initwait);
	hb_disconnect(b);
	hb_free(b);
	dev_set_drvdata(&xdev->dev, NULL);
}

static const struct xenbus_device_id hb_ids[] = {
	{ "vbd" },
	{ "" }
};

static struct xenbus_driver hb_driver = {
	.name = "xfab-hostile-vbdback",
	.ids = hb_ids,
	.probe = hb_probe,
	.remove = hb_remove,
	.otherend_changed = hb_frontend_changed,
};

int hs_vbdback_register(void)
{
	return xenbus_register_backend(&hb_driver);
}

void hs_vbdback_unregister(void)
{
	xenbus_unregister_driver(&hb_driver);
}
