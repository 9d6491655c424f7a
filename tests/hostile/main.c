// SPDX-License-Identifier: GPL-2.0 OR MIT
/* xfab_hostile: parameters and the report (see hostile.h). */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <xen/xen.h>
#include "hostile.h"

/* Which case the next vbd runs; the scenario writes it before attaching. */
char hs_vbd_case[32] = "valid";
module_param_string(vbd_case, hs_vbd_case, sizeof(hs_vbd_case), 0644);
MODULE_PARM_DESC(vbd_case, "Case the next attached vbd runs: valid, refuse_flood, bad_gref, sector_wrap, too_many_segs, prod_jump, kick_storm");

char hs_vif_case[32] = "valid";
module_param_string(vif_case, hs_vif_case, sizeof(hs_vif_case), 0644);
MODULE_PARM_DESC(vif_case, "Case the next attached vif runs: valid, no_rx, tx_bad_gref, tx_zero_frag, tx_cross_page, tx_slot_flood, tx_prod_jump, kick_storm");

/* How long a flood lasts: long enough for a rate, short for a check. */
unsigned int hs_secs = 10;
module_param_named(secs, hs_secs, uint, 0644);
MODULE_PARM_DESC(secs, "Seconds a flood case runs (default 10, 1..600)");

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
		hs_vbd_unregister();
	return err;
}

static void __exit hs_exit(void)
{
	hs_vif_unregister();
	hs_vbd_unregister();
}

module_init(hs_init);
module_exit(hs_exit);
MODULE_DESCRIPTION("xfab test peer that breaks the Xen PV protocols on purpose");
MODULE_LICENSE("Dual MIT/GPL");
