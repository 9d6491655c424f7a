// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A blkif frontend that sends what its case says, to see what the backend
 * (xen-blkback or xfab_blkback in dom0) does with it. It negotiates like
 * a plain frontend of the original protocol (one ring page, "ring-ref",
 * one queue, no persistent grants), so every backend accepts it, then one
 * thread runs the case:
 *
 *   valid          256 one-page reads of the first sectors: all must be
 *                  answered OKAY (the control: this peer talks blkif)
 *   refuse_flood   for secs, keep the ring full of requests with an
 *                  operation code no backend knows (a backend that
 *                  answers each refusal at once spends its thread on
 *                  them: xfab_blkback once answered 35,000 a second)
 *   bad_gref       256 reads naming grant refs nobody granted
 *   sector_wrap    256 reads whose sector range wraps past 2^64
 *   too_many_segs  256 direct requests claiming 255 segments (11 fit)
 *   prod_jump      the producer index moved 4 rings past the consumer
 *                  (XSA-39 class): nothing may be answered
 *   kick_storm     for secs, notify the backend with nothing posted
 *   ro_writes      announced as an xfab frontend in relaxed trust, 11-page
 *                  writes from 2048 pages granted read-only (a backend
 *                  must bound the mappings it keeps of them, each holding
 *                  one of dom0's maptrack entries): all must be answered
 *                  OKAY, whatever the backend's bounds on kept mappings
 *   close_inflight a ring's worth of valid reads, reported at once
 *                  without waiting: the scenario puts them on a disk that
 *                  holds them for seconds and detaches meanwhile (the
 *                  backend must not hold xenwatch until the disk is done)
 *   state_flip     a ring's worth of valid reads, then for secs our state
 *                  key flips through every state every 20 ms, in no
 *                  protocol order, the ring keys changing under it
 *                  (hs_flip_states, hs_flip_keys)
 *   reconnect_flood a ring's worth of valid reads, then HS_RECONNECTS
 *                  times as fast as the backend follows: Closing, Closed,
 *                  Initialising, a new ring and channel, Initialised, and
 *                  a ring's worth of reads again on each ring the backend
 *                  connects. On a disk that holds the reads for seconds
 *                  each disconnect leaves a ring set draining (without a
 *                  bound they piled up, each with its grants mapped);
 *                  a backend that bounds them keeps us waiting in
 *                  InitWait, then must connect us once a drain ended
 *                  (hs_reconnect_flood)
 *
 * Responses are only counted (by status), never trusted for more: this
 * module must not fault whatever the backend does.
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/events.h>
#include <xen/page.h>
#include <xen/interface/io/blkif.h>
#include <xen/interface/io/protocols.h>
#include "xfab_kring.h"
#include "hostile.h"

enum hs_case {
	HS_VALID, HS_REFUSE_FLOOD, HS_BAD_GREF, HS_SECTOR_WRAP,
	HS_TOO_MANY_SEGS, HS_PROD_JUMP, HS_KICK_STORM, HS_RO_WRITES,
	HS_CLOSE_INFLIGHT, HS_STATE_FLIP, HS_RECONNECT_FLOOD, HS_NR_CASES
};

static const char *const hs_case_names[HS_NR_CASES] = {
	"valid", "refuse_flood", "bad_gref", "sector_wrap", "too_many_segs",
	"prod_jump", "kick_storm", "ro_writes", "close_inflight",
	"state_flip", "reconnect_flood",
};

/* ro_writes: distinct pages written from, each granted read-only. */
#define HS_RO_PAGES 2048u

/* Requests a counted case sends: a few rings' worth. */
#define HS_COUNTED_REQS 256u
/* An operation code blkif does not define. */
#define HS_BAD_OP 0xee
/* Grant refs far above any guest's table. */
#define HS_NOBODYS_GREF 0x7ffffff0u
/*
 * reconnect_flood: reconnects, well past xfab_blkback's default bound of
 * 2 ring sets draining per disk (the scenario's HS_RECONNECTS too); and
 * how long a backend that keeps us in InitWait may take to connect us
 * after the last (the scenario's slow disk holds a read 12 s).
 */
#define HS_RECONNECTS 5u
#define HS_RECONNECT_WAIT_S 40

struct hs_vbd {
	struct hs_front f;		/* first: the shared lifecycle */
	struct blkif_front_ring front;
	struct blkif_sring *sring;
	grant_ref_t ring_ref;
	unsigned int evtchn;
	int irq;
	struct page *data;		/* one page the valid reads land in */
	grant_ref_t data_ref;
	struct page **ro_page;		/* ro_writes: HS_RO_PAGES of them */
	grant_ref_t *ro_ref;
	/* results */
	u64 posted, answered, okay, error, notsupp, other, kicks, lies;
	atomic64_t irqs;
	/* reconnect_flood: connects asked for, made at once, waited for */
	unsigned int cycles, connects, waits;
	bool reconnected;		/* connected after the last, in the end */
	unsigned int reconnect_ms;	/* waited for that after the last */
	int be_state;			/* the backend's state at the end */
};

static irqreturn_t hs_interrupt(int irq, void *arg)
{
	struct hs_vbd *v = arg;

	atomic64_inc(&v->irqs);
	return IRQ_HANDLED;
}

/*
 * Count what the backend answered; a response index it cannot have made
 * ends the counting (the case then reports lies=1).
 */
static void hs_reap(struct hs_vbd *v)
{
	RING_IDX rp = READ_ONCE(v->sring->rsp_prod), i;
	struct blkif_response rsp;

	virt_rmb();	/* the index before the responses it covers */
	if (rp - v->front.rsp_cons > v->front.req_prod_pvt - v->front.rsp_cons) {
		v->lies = 1;
		return;
	}
	for (i = v->front.rsp_cons; i != rp; i++) {
		memcpy(&rsp, RING_GET_RESPONSE(&v->front, i), sizeof(rsp));
		v->answered++;
		if (rsp.status == BLKIF_RSP_OKAY)
			v->okay++;
		else if (rsp.status == BLKIF_RSP_ERROR)
			v->error++;
		else if (rsp.status == BLKIF_RSP_EOPNOTSUPP)
			v->notsupp++;
		else
			v->other++;
	}
	v->front.rsp_cons = rp;
}

/* A write of 11 whole pages, each a different read-only grant. */
static void hs_fill_ro(struct hs_vbd *v, struct blkif_request *r, u64 n)
{
	unsigned int i, nseg = BLKIF_MAX_SEGMENTS_PER_REQUEST;

	r->operation = BLKIF_OP_WRITE;
	r->u.rw.nr_segments = nseg;
	r->u.rw.sector_number = (n % 64) * nseg * 8;
	for (i = 0; i < nseg; i++) {
		r->u.rw.seg[i].gref = v->ro_ref[(n * nseg + i) % HS_RO_PAGES];
		r->u.rw.seg[i].first_sect = 0;
		r->u.rw.seg[i].last_sect = 7;
	}
}

/* Lay out request number n of the case in the next free slot. */
static void hs_fill(struct hs_vbd *v, u64 n)
{
	struct blkif_request *r = RING_GET_REQUEST(&v->front,
						   v->front.req_prod_pvt);

	memset(r, 0, sizeof(*r));
	r->u.rw.id = n;
	r->u.rw.handle = 0;
	r->operation = BLKIF_OP_READ;
	r->u.rw.nr_segments = 1;
	r->u.rw.sector_number = (n % 64) * 8;
	r->u.rw.seg[0].gref = v->data_ref;
	r->u.rw.seg[0].first_sect = 0;
	r->u.rw.seg[0].last_sect = 7;
	switch (v->f.kase) {
	case HS_REFUSE_FLOOD:
		r->operation = HS_BAD_OP;
		break;
	case HS_BAD_GREF:
		r->u.rw.seg[0].gref = HS_NOBODYS_GREF + (n % 8);
		break;
	case HS_SECTOR_WRAP:
		r->u.rw.sector_number = ~0ULL - 3;
		break;
	case HS_TOO_MANY_SEGS:
		r->u.rw.nr_segments = 255;
		break;
	case HS_RO_WRITES:
		hs_fill_ro(v, r, n);
		break;
	default:
		break;
	}
	v->front.req_prod_pvt++;
	v->posted++;
}

static void hs_push(struct hs_vbd *v)
{
	int notify;

	RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&v->front, notify);
	if (notify) {
		notify_remote_via_irq(v->irq);
		v->kicks++;
	}
}

/* Fill the ring with up to limit requests in all; wait while it is full. */
static void hs_post_until(struct hs_vbd *v, u64 limit, unsigned long end)
{
	while (!kthread_should_stop() && time_before(jiffies, end) &&
	       !v->lies) {
		unsigned int n = 0;

		hs_reap(v);
		while (!RING_FULL(&v->front) && v->posted < limit) {
			hs_fill(v, v->posted);
			n++;
		}
		if (n) {
			hs_push(v);
		} else {
			if (v->posted >= limit &&
			    v->front.rsp_cons == v->front.req_prod_pvt)
				return;		/* all answered */
			usleep_range(200, 400);
		}
		cond_resched();
	}
}

/* Fill the ring and kick once; whatever is answered is not waited for. */
static void hs_post_ring(struct hs_vbd *v)
{
	while (!RING_FULL(&v->front))
		hs_fill(v, v->posted);
	hs_push(v);
	msleep(100);		/* reaped once: the report shows the disk's delay */
	hs_reap(v);
}

static void hs_prod_jump(struct hs_vbd *v, unsigned long end)
{
	/* Say 4 rings' worth were posted; post nothing. */
	virt_wmb();
	WRITE_ONCE(v->sring->req_prod,
		   v->front.req_prod_pvt + 4 * RING_SIZE(&v->front));
	notify_remote_via_irq(v->irq);
	v->kicks++;
	while (!kthread_should_stop() && time_before(jiffies, end)) {
		hs_reap(v);
		msleep(100);
	}
}

static int hs_ring_up(struct hs_vbd *v);
static void hs_ring_down(struct hs_vbd *v);

/* Our state key, written as is: reconnect_flood drives our lifecycle. */
static void hs_state(struct hs_vbd *v, enum xenbus_state s)
{
	xenbus_printf(XBT_NIL, v->f.xdev->nodename, "state", "%d", s);
}

/* The backend's state as soon as it is want, or as it is after ms. */
static int hs_be_wait(struct hs_vbd *v, int want, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	int s;

	for (;;) {
		s = xenbus_read_unsigned(v->f.xdev->otherend, "state",
					 XenbusStateUnknown);
		if (s == want || kthread_should_stop() ||
		    time_after(jiffies, end))
			return s;
		usleep_range(10000, 20000);
	}
}

/*
 * Fill the ring with reads and wait (up to 2 s) until the backend took
 * them all: it re-arms req_event past our producer index once it found
 * the ring empty, and by then each read is at the disk (a disconnect
 * before would find nothing in flight, and drain nothing).
 */
static void hs_post_taken(struct hs_vbd *v)
{
	unsigned long end = jiffies + 2 * HZ;

	while (!RING_FULL(&v->front))
		hs_fill(v, v->posted);
	hs_push(v);
	while (!kthread_should_stop() && time_before(jiffies, end) &&
	       (s32)(READ_ONCE(v->sring->req_event) -
		     v->front.req_prod_pvt) <= 0)
		usleep_range(10000, 20000);
	hs_reap(v);
}

/*
 * reconnect_flood (the case list above). Each connect gets a new ring
 * page and channel: the backend may still map the old page, and answer
 * there, once its disk answers the reads a disconnect left with it. We
 * wait for each of the backend's steps (it is not the backend's speed we
 * test) but no longer than a few seconds, so a backend that does
 * something else cannot stop the case.
 */
static void hs_reconnect_flood(struct hs_vbd *v)
{
	bool live = true;	/* the lifecycle started us at Connected */
	bool waited;
	unsigned long t;
	int i, s;

	/* the backend's moves are the case's to follow, not the lifecycle's */
	WRITE_ONCE(v->f.flipping, true);
	/* it writes our Connected once it started us: ours come after */
	for (i = 0; i < 200 && !kthread_should_stop() &&
	     READ_ONCE(v->f.xdev->state) != XenbusStateConnected; i++)
		usleep_range(10000, 20000);
	while (v->cycles < HS_RECONNECTS && !kthread_should_stop()) {
		if (live)
			hs_post_taken(v);
		hs_state(v, XenbusStateClosing);
		hs_be_wait(v, XenbusStateClosing, 5000);
		hs_state(v, XenbusStateClosed);
		hs_be_wait(v, XenbusStateClosed, 5000);
		hs_ring_down(v);
		hs_state(v, XenbusStateInitialising);
		hs_be_wait(v, XenbusStateInitWait, 5000);
		if (hs_ring_up(v))
			break;		/* the report shows fewer cycles */
		hs_state(v, XenbusStateInitialised);
		v->cycles++;
		live = hs_be_wait(v, XenbusStateConnected, 2000) ==
		       XenbusStateConnected;
		if (live) {
			v->connects++;
			hs_state(v, XenbusStateConnected);
		} else {
			v->waits++;
		}
	}
	/*
	 * Not connected after the last: a backend that bounds its draining
	 * rings keeps us in InitWait until one of them ends, then connects.
	 * Any other state is a backend that gave up on us: no use waiting.
	 */
	t = jiffies;
	waited = !live;
	while (!live && !kthread_should_stop() &&
	       time_before(jiffies, t + HS_RECONNECT_WAIT_S * HZ)) {
		s = hs_be_wait(v, XenbusStateConnected, 250);
		live = s == XenbusStateConnected;
		if (s != XenbusStateInitWait)
			break;
	}
	if (waited) {
		v->reconnect_ms = jiffies_to_msecs(jiffies - t);
		if (live)
			hs_state(v, XenbusStateConnected);
	}
	v->reconnected = live;
	v->be_state = xenbus_read_unsigned(v->f.xdev->otherend, "state",
					   XenbusStateUnknown);
	WRITE_ONCE(v->f.flipping, false);
}

static int hs_run(void *arg)
{
	struct hs_vbd *v = container_of((struct hs_front *)arg,
					struct hs_vbd, f);
	unsigned long t0 = jiffies, flood = t0 + hs_secs * HZ;
	/* a counted case ends when all is answered, or gives up */
	unsigned long counted = t0 + 60 * HZ;
	char more[96] = "";

	switch (v->f.kase) {
	case HS_REFUSE_FLOOD:
		hs_post_until(v, U64_MAX, flood);
		break;
	case HS_PROD_JUMP:
		hs_prod_jump(v, t0 + 3 * HZ);
		break;
	case HS_KICK_STORM:
		v->kicks += hs_kick_storm(v->irq, flood);
		hs_reap(v);
		break;
	case HS_CLOSE_INFLIGHT:
		hs_post_ring(v);
		break;
	case HS_STATE_FLIP:
		hs_post_ring(v);
		hs_flip_states(&v->f, flood);
		break;
	case HS_RECONNECT_FLOOD:
		hs_reconnect_flood(v);
		break;
	case HS_RO_WRITES:
		/* every page twice: kept mappings are found again */
		hs_post_until(v, 2 * HS_RO_PAGES / BLKIF_MAX_SEGMENTS_PER_REQUEST,
			      counted);
		break;
	default:
		hs_post_until(v, HS_COUNTED_REQS, counted);
		break;
	}
	if (v->f.kase == HS_RECONNECT_FLOOD)
		snprintf(more, sizeof(more),
			 " cycles=%u connects=%u waits=%u reconnected=%d reconnect_ms=%u be_state=%d",
			 v->cycles, v->connects, v->waits, v->reconnected,
			 v->reconnect_ms, v->be_state);
	hs_report("run=%u case=%s ms=%u posted=%llu answered=%llu okay=%llu error=%llu notsupp=%llu other=%llu kicks=%llu irqs=%lld lies=%llu flips=%u%s",
		  v->f.run, hs_case_names[v->f.kase],
		  jiffies_to_msecs(jiffies - t0),
		  v->posted, v->answered, v->okay, v->error, v->notsupp,
		  v->other, v->kicks, (long long)atomic64_read(&v->irqs),
		  v->lies, v->f.flips, more);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

/* ro_writes' pages: a grant the backend still maps ends once it unmaps. */
static void hs_ro_free(struct hs_vbd *v)
{
	unsigned int i;

	/* hs_ro_alloc() may have failed with one array, or neither */
	for (i = 0; v->ro_page && v->ro_ref && i < HS_RO_PAGES; i++) {
		if (v->ro_ref[i] != INVALID_GRANT_REF)
			gnttab_end_foreign_access(v->ro_ref[i], v->ro_page[i]);
		else if (v->ro_page[i])
			__free_page(v->ro_page[i]);
	}
	kvfree(v->ro_page);
	kvfree(v->ro_ref);
	v->ro_page = NULL;
	v->ro_ref = NULL;
}

static int hs_ro_alloc(struct hs_vbd *v)
{
	unsigned int i;
	int ref;

	v->ro_page = kvcalloc(HS_RO_PAGES, sizeof(*v->ro_page), GFP_KERNEL);
	v->ro_ref = kvcalloc(HS_RO_PAGES, sizeof(*v->ro_ref), GFP_KERNEL);
	if (!v->ro_page || !v->ro_ref)
		return -ENOMEM;
	for (i = 0; i < HS_RO_PAGES; i++)
		v->ro_ref[i] = INVALID_GRANT_REF;
	for (i = 0; i < HS_RO_PAGES; i++) {
		v->ro_page[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!v->ro_page[i])
			return -ENOMEM;
		ref = gnttab_grant_foreign_access(v->f.xdev->otherend_id,
						  xen_page_to_gfn(v->ro_page[i]),
						  1);
		if (ref < 0)
			return ref;
		v->ro_ref[i] = ref;
	}
	return 0;
}

/*
 * The ring and its channel go (closing our end of the channel). A
 * backend that still maps the page, to answer reads its disk has, keeps
 * it until it lets go (xfab_ring_pages_free). May run twice.
 */
static void hs_ring_down(struct hs_vbd *v)
{
	if (v->irq > 0)
		unbind_from_irqhandler(v->irq, v);
	v->irq = 0;
	xfab_ring_pages_free((void **)&v->sring, 1, &v->ring_ref);
}

/* Undo any prefix of hs_setup(); may run twice. */
static void hs_teardown(struct hs_front *f)
{
	struct hs_vbd *v = container_of(f, struct hs_vbd, f);

	hs_ring_down(v);
	if (v->data_ref != INVALID_GRANT_REF)
		gnttab_end_foreign_access(v->data_ref, v->data);
	else if (v->data)
		__free_page(v->data);
	v->data_ref = INVALID_GRANT_REF;
	v->data = NULL;
	hs_ro_free(v);
}

static int hs_keys(struct hs_vbd *v);

/* A new ring page and channel, and their keys (at setup, and per reconnect). */
static int hs_ring_up(struct hs_vbd *v)
{
	struct xenbus_device *xdev = v->f.xdev;
	int err;

	err = xenbus_setup_ring(xdev, GFP_KERNEL, (void **)&v->sring, 1,
				&v->ring_ref);
	if (err)
		return err;
	SHARED_RING_INIT(v->sring);
	FRONT_RING_INIT(&v->front, v->sring, XEN_PAGE_SIZE);
	err = xenbus_alloc_evtchn(xdev, &v->evtchn);
	if (err)
		return err;
	err = bind_evtchn_to_irqhandler(v->evtchn, hs_interrupt, 0,
					"xfab-hostile-vbd", v);
	if (err < 0) {
		xenbus_free_evtchn(xdev, v->evtchn);
		return err;
	}
	v->irq = err;
	return hs_keys(v);
}

static int hs_setup(struct hs_front *f)
{
	struct hs_vbd *v = container_of(f, struct hs_vbd, f);
	struct xenbus_device *xdev = f->xdev;
	int err, ref;

	v->data = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!v->data)
		return -ENOMEM;
	ref = gnttab_grant_foreign_access(xdev->otherend_id,
					  xen_page_to_gfn(v->data), 0);
	if (ref < 0)
		return ref;
	v->data_ref = ref;
	if (v->f.kase == HS_RO_WRITES) {
		err = hs_ro_alloc(v);
		if (err)
			return err;
	}
	return hs_ring_up(v);
}

static int hs_keys(struct hs_vbd *v)
{
	struct xenbus_device *xdev = v->f.xdev;
	int err;

	err = xenbus_printf(XBT_NIL, xdev->nodename, "ring-ref", "%u",
			    v->ring_ref);
	if (!err)
		err = xenbus_printf(XBT_NIL, xdev->nodename, "event-channel",
				    "%u", v->evtchn);
	if (!err)
		err = xenbus_printf(XBT_NIL, xdev->nodename, "protocol", "%s",
				    XEN_IO_PROTO_ABI_NATIVE);
	/* what xfab_blkfront announces in relaxed trust (docs/protocol.md) */
	if (!err && v->f.kase == HS_RO_WRITES)
		err = xenbus_printf(XBT_NIL, xdev->nodename, "feature-xfab-blk",
				    "%u", 1) ?:
		      xenbus_printf(XBT_NIL, xdev->nodename, "xfab-ro-grants",
				    "%u", HS_RO_PAGES);
	return err;
}

/*
 * state_flip's keys: the ring's order absent, 0, 2 (with or without the
 * per-page refs) or 99, its ref and channel real or nobody's, so that a
 * backend connecting meanwhile reads a mix (xfab_blkback once read the
 * order, then decided by another read which refs to take, and mapped
 * refs it never read).
 */
static void hs_flip_keys(struct hs_front *f, unsigned int n)
{
	static const int orders[] = { -1, 0, 2, 2, 99 };
	struct hs_vbd *v = container_of(f, struct hs_vbd, f);
	struct xenbus_device *xdev = f->xdev;
	int order = orders[n % ARRAY_SIZE(orders)];

	hs_key(xdev, "ring-page-order", order);
	hs_key(xdev, "ring-ref", n % 3 ? v->ring_ref : HS_NOBODYS_GREF);
	hs_key(xdev, "ring-ref0", n % 2 ? v->ring_ref : -1);
	hs_key(xdev, "ring-ref1", n % 2 ? HS_NOBODYS_GREF : -1);
	hs_key(xdev, "event-channel", n % 4 ? v->evtchn : 99999);
}

static void hs_init(struct hs_front *f)
{
	struct hs_vbd *v = container_of(f, struct hs_vbd, f);

	v->ring_ref = INVALID_GRANT_REF;
	v->data_ref = INVALID_GRANT_REF;
	atomic64_set(&v->irqs, 0);
}

static const struct hs_front_ops hs_vbd_ops = {
	.kind = "vbd",
	.cases = hs_case_names,
	.nr_cases = HS_NR_CASES,
	.case_param = hs_vbd_case,
	.size = sizeof(struct hs_vbd),
	.init = hs_init,
	.setup = hs_setup,
	.teardown = hs_teardown,
	.run = hs_run,
	.flip_keys = hs_flip_keys,
	.ready = XenbusStateInitialised,
	.connect = true,
};

static int hs_probe(struct xenbus_device *xdev,
		    const struct xenbus_device_id *id)
{
	return hs_front_probe(xdev, &hs_vbd_ops);
}

static const struct xenbus_device_id hs_ids[] = {
	{ "vbd" },
	{ "" }
};

static struct xenbus_driver hs_vbd_driver = {
	.name = "xfab-hostile-vbd",
	.ids = hs_ids,
	.probe = hs_probe,
	.remove = hs_front_remove,
	.otherend_changed = hs_front_changed,
};

int hs_vbd_register(void)
{
	return xenbus_register_frontend(&hs_vbd_driver);
}

void hs_vbd_unregister(void)
{
	xenbus_unregister_driver(&hs_vbd_driver);
}
