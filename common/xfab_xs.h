/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel only (like xfab_compat.h): xenstore helpers the drivers share.
 * xfab_xs_write() writes a set of keys as one transaction, run again
 * while it races with another writer; keys() writes into the transaction
 * it is given. xfab_xs_relaxed() reads the toolstack's trust choice.
 */
#ifndef XFAB_XS_H
#define XFAB_XS_H

#include <linux/device.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <xen/xenbus.h>

static inline int xfab_xs_write(int (*keys)(struct xenbus_transaction t,
					    void *arg), void *arg)
{
	struct xenbus_transaction t;
	int err;

	do {
		err = xenbus_transaction_start(&t);
		if (err)
			return err;
		err = keys(t, arg);
		if (err) {
			xenbus_transaction_end(t, 1);
			return err;
		}
		err = xenbus_transaction_end(t, 0);
	} while (err == -EAGAIN);
	return err;
}

/*
 * xfab-trust in a frontend's own directory, written by the toolstack:
 * "relaxed" lets the frontend expose its own pages to the backend in
 * place; "strict" or no key keeps it copying. Only the guest and the
 * toolstack can write there, never the backend's domain (which could
 * otherwise grant itself the guest's memory). Anything else is a typo to
 * report, and means strict.
 */
static inline bool xfab_xs_relaxed(struct xenbus_device *dev)
{
	bool relaxed = false;
	char *v;

	v = xenbus_read(XBT_NIL, dev->nodename, "xfab-trust", NULL);
	if (IS_ERR(v))
		return false;
	if (!strcmp(v, "relaxed"))
		relaxed = true;
	else if (strcmp(v, "strict"))
		dev_warn(&dev->dev,
			 "%s/xfab-trust is \"%s\": expected \"relaxed\" or \"strict\"; using strict\n",
			 dev->nodename, v);
	kfree(v);
	return relaxed;
}

#endif /* XFAB_XS_H */
