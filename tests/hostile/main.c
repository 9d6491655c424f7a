// SPDX-License-Identifier: GPL-2.0 OR MIT
/* xfab_hostile: parameters and the report (see hostile.h). */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <xen/xen.h>
#include <xen/events.h>
#include "hostile.h"

/* Which case the next vbd runs; the scenario writes it before attaching. */
char hs_vbd_case[32] = "valid";
module_param_string(vbd_case, hs_vbd_case, sizeof(hs_vbd_case), 0644);
MODULE_PARM_DESC(vbd_case, "Case the next attached vbd runs: valid, refuse_flood, bad_gref, sector_wrap, too_many_segs, prod_jump, kick_storm, ro_writes, close_inflight, state_flip, reconnect_flood");

char hs_vif_case[32] = "valid";
module_param_string(vif_case, hs_vif_case, sizeof(hs_vif_case), 0644);
MODULE_PARM_DESC(vif_case, "Case the next attached vif runs: valid, no_rx, tx_bad_gref, tx_zero_frag, tx_cross_page, tx_slot_flood, tx_prod_jump, kick_storm, state_flip, rx_trickle, lro_gso, lro_mtu, pool_hog, rx_drip, ptr_valid, ptr_unasked, ptr_bad_frame, ptr_other");

/* ptr_other's frame: one of another member's, which the scenario found */
unsigned long hs_ptr_frame;
module_param_named(ptr_frame, hs_ptr_frame, ulong, 0644);
MODULE_PARM_DESC(ptr_frame, "Machine frame ptr_other names (another group member's)");

/* How long a flood lasts: long enough for a rate, short for a check. */
unsigned int hs_secs = 10;
module_param_named(secs, hs_secs, uint, 0644);
MODULE_PARM_DESC(secs, "Seconds a flood case runs (default 10, 1..600)");

/* dom0: also play a blkif backend (in place of blkback, which must go). */
static bool hs_backend;
module_param_named(backend, hs_backend, bool, 0444);
MODULE_PARM_DESC(backend, "Register the hostile vbd backend too (dom0 only; default off)");

char hs_vbdback_case[32] = "stale_read";
module_param_string(vbdback_case, hs_vbdback_case, sizeof(hs_vbdback_case), 0644);
MODULE_PARM_DESC(vbdback_case, "Case the backend runs for the next vbd: stale_read, ring_keep, ro_keep");

/* dom0: also play a netif backend (in place of netback, which must go). */
static bool hs_netback;
module_param_named(netback, hs_netback, bool, 0444);
MODULE_PARM_DESC(netback, "Register the hostile vif backend too (dom0 only; default off)");

char hs_vifback_case[32] = "tx_peek";
module_param_string(vifback_case, hs_vifback_case, sizeof(hs_vifback_case), 0644);
MODULE_PARM_DESC(vifback_case, "Case the backend runs for the next vif: tx_peek, tx_null");

static char hs_last[256];
static DEFINE_SPINLOCK(hs_lock);
module_param_string(report, hs_last, sizeof(hs_last), 0444);
MODULE_PARM_DESC(report, "The last case's result line (read-only)");

unsigned int hs_next_run(void)
{
	static atomic_t runs = ATOMIC_INIT(0);

	return atomic_inc_return(&runs);
}

void hs_report(const char *fmt, ...)
{
	char line[sizeof(hs_last)];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	spin_lock(&hs_lock);
	strscpy(hs_last, line, sizeof(hs_last));
	spin_unlock(&hs_lock);
	pr_info("xfab_hostile: %s\n", line);
}

int hs_case(struct xenbus_device *xdev, const char *kind, const char *param,
	    const char *const *cases, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (sysfs_streq(param, cases[i]))
			return i;
	dev_err(&xdev->dev, "%s_case \"%s\": no such case\n", kind, param);
	return -EINVAL;
}

int hs_front_probe(struct xenbus_device *xdev, const struct hs_front_ops *ops)
{
	struct hs_front *f;
	int i;

	i = hs_case(xdev, ops->kind, ops->case_param, ops->cases, ops->nr_cases);
	if (i < 0)
		return i;
	f = kzalloc(ops->size, GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->xdev = xdev;
	f->ops = ops;
	f->kase = i;
	f->run = hs_next_run();
	ops->init(f);
	dev_set_drvdata(&xdev->dev, f);
	dev_info(&xdev->dev, "hostile %s: run %u, case %s\n", ops->kind, f->run,
		 ops->cases[i]);
	return 0;
}

/* A backend that comes back after this gets a fresh setup, not the rest. */
static void hs_front_down(struct hs_front *f)
{
	if (f->thread) {
		kthread_stop(f->thread);
		f->thread = NULL;
	}
	f->ops->teardown(f);
	f->set_up = false;
}

void hs_front_changed(struct xenbus_device *xdev, enum xenbus_state state)
{
	struct hs_front *f = dev_get_drvdata(&xdev->dev);
	int err;

	/* a Closing would stop the flipping thread: the case ignores it */
	if (READ_ONCE(f->flipping))
		return;
	switch (state) {
	case XenbusStateInitWait:
		if (f->set_up)
			break;
		err = f->ops->setup(f);
		if (err) {
			hs_front_down(f);
			xenbus_dev_fatal(xdev, err, "hostile %s setup", f->ops->kind);
			break;
		}
		f->set_up = true;
		xenbus_switch_state(xdev, f->ops->ready);
		break;
	case XenbusStateConnected:
		if (f->thread || !f->set_up)
			break;
		f->thread = kthread_run(f->ops->run, f, "xfab-hostile-%s",
					f->ops->kind);
		if (IS_ERR(f->thread)) {
			f->thread = NULL;
			break;
		}
		if (f->ops->connect)
			xenbus_switch_state(xdev, XenbusStateConnected);
		break;
	case XenbusStateClosing:
	case XenbusStateClosed:
		hs_front_down(f);
		if (xdev->state != XenbusStateClosed)
			xenbus_frontend_closed(xdev);
		break;
	default:
		break;
	}
}

/* Every state, some twice, one that does not exist, none in protocol order. */
static const int hs_flips[] = {
	XenbusStateInitialised, XenbusStateConnected, XenbusStateInitialising,
	XenbusStateConnected, XenbusStateClosing, XenbusStateConnected,
	XenbusStateClosed, XenbusStateInitialised, XenbusStateReconfiguring,
	XenbusStateConnected, 42, XenbusStateInitWait, XenbusStateConnected,
};

void hs_flip_states(struct hs_front *f, unsigned long end)
{
	const char *node = f->xdev->nodename;

	WRITE_ONCE(f->flipping, true);
	while (!kthread_should_stop() && time_before(jiffies, end)) {
		if (f->ops->flip_keys)
			f->ops->flip_keys(f, f->flips);
		xenbus_printf(XBT_NIL, node, "state", "%d",
			      hs_flips[f->flips % ARRAY_SIZE(hs_flips)]);
		f->flips++;
		msleep(20);
	}
	xenbus_printf(XBT_NIL, node, "state", "%d", XenbusStateConnected);
	WRITE_ONCE(f->flipping, false);
}

void hs_key(struct xenbus_device *xdev, const char *key, long long val)
{
	if (val < 0)
		xenbus_rm(XBT_NIL, xdev->nodename, key);
	else
		xenbus_printf(XBT_NIL, xdev->nodename, key, "%lld", val);
}

u64 hs_kick_storm(int irq, unsigned long end)
{
	u64 kicks = 0;
	unsigned int i;

	while (!kthread_should_stop() && time_before(jiffies, end)) {
		for (i = 0; i < 1000; i++)
			notify_remote_via_irq(irq);
		kicks += i;
		cond_resched();
	}
	return kicks;
}

void hs_front_remove(struct xenbus_device *xdev)
{
	struct hs_front *f = dev_get_drvdata(&xdev->dev);

	hs_front_down(f);
	kfree(f);
	dev_set_drvdata(&xdev->dev, NULL);
}

static irqreturn_t hs_bring_irq(int irq, void *arg)
{
	struct hs_bring *r = arg;

	atomic_set(&r->events, 1);
	wake_up(&r->wq);
	return IRQ_HANDLED;
}

static int hs_bring_thread(void *arg)
{
	struct hs_bring *r = arg;

	while (!kthread_should_stop()) {
		wait_event_interruptible_timeout(r->wq,
			atomic_read(&r->events) || kthread_should_stop(), HZ);
		if (atomic_xchg(&r->events, 0)) {
			r->take(r);
			xen_irq_lateeoi(r->irq, 0);
		}
		cond_resched();
	}
	return 0;
}

int hs_bring_map(struct hs_bring *r, unsigned int ref)
{
	grant_ref_t gref = ref;

	init_waitqueue_head(&r->wq);
	return xenbus_map_ring_valloc(r->xdev, &gref, 1, &r->addr);
}

int hs_bring_start(struct hs_bring *r, unsigned int port, const char *name)
{
	int err;

	err = bind_interdomain_evtchn_to_irqhandler_lateeoi(r->xdev, port,
		hs_bring_irq, 0, name, r);
	if (err < 0)
		return err;
	r->irq = err;
	atomic_set(&r->events, 1);
	r->thread = kthread_run(hs_bring_thread, r, "%s", name);
	if (IS_ERR(r->thread)) {
		err = PTR_ERR(r->thread);
		r->thread = NULL;
		return err;
	}
	return 0;
}

void hs_bring_quiesce(struct hs_bring *r)
{
	if (r->thread)
		kthread_stop(r->thread);
	r->thread = NULL;
	if (r->irq > 0)
		unbind_from_irqhandler(r->irq, r);
	r->irq = 0;
}

void hs_bring_stop(struct hs_bring *r)
{
	hs_bring_quiesce(r);
	if (r->addr)
		xenbus_unmap_ring_vfree(r->xdev, r->addr);
	r->addr = NULL;
}

static int __init hs_init(void)
{
	int err;

	if (!xen_domain())
		return -ENODEV;
	if (!hs_secs || hs_secs > 600) {
		pr_err("xfab_hostile: secs=%u: 1..600\n", hs_secs);
		return -EINVAL;
	}
	err = hs_vbd_register();
	if (err)
		return err;
	err = hs_vif_register();
	if (err)
		goto vbd;
	if (hs_backend) {
		err = hs_vbdback_register();
		if (err)
			goto vif;
	}
	if (hs_netback) {
		err = hs_vifback_register();
		if (err)
			goto vbdback;
	}
	return 0;
vbdback:
	if (hs_backend)
		hs_vbdback_unregister();
vif:
	hs_vif_unregister();
vbd:
	hs_vbd_unregister();
	return err;
}

static void __exit hs_exit(void)
{
	if (hs_netback)
		hs_vifback_unregister();
	if (hs_backend)
		hs_vbdback_unregister();
	hs_vif_unregister();
	hs_vbd_unregister();
}

module_init(hs_init);
module_exit(hs_exit);
MODULE_DESCRIPTION("xfab test peer that breaks the Xen PV protocols on purpose");
MODULE_LICENSE("Dual MIT/GPL");
