/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel only (like xfab_compat.h): xenstore helpers the drivers share.
 * xfab_xs_write() writes a set of keys as one transaction, run again
 * while it races with another writer; keys() writes into the transaction
 * it is given. xfab_xs_relaxed() reads the toolstack's trust choice;
 * xfab_xs_online() and xfab_fe_publish() carry out a frontend's
 * xfab_fe_step() decisions. xfab_xs_driver() names the driver.
 */
#ifndef XFAB_XS_H
#define XFAB_XS_H

#include <linux/device.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <xen/xenbus.h>
#include "xfab_xenbus.h"

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
 * xfab-driver in our end's directory: which module serves it, for
 * `xfabctl status` (a stock driver writes none). Informational only:
 * the other end reads it nowhere, since a hostile peer may write any
 * name there.
 */
static inline int xfab_xs_driver(struct xenbus_transaction t,
				 const char *node)
{
	return xenbus_printf(t, node, "xfab-driver", "%s", KBUILD_MODNAME);
}

/* At remove: the stock driver that may bind next would not clear it. */
static inline void xfab_xs_driver_gone(struct xenbus_device *dev)
{
	xenbus_rm(XBT_NIL, dev->nodename, "xfab-driver");
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

/*
 * The toolstack's "online" key in the backend's directory: 1 while the
 * device is to stay (see xfab_fe_step()). Written by the toolstack, but
 * in a directory the backend's domain owns: it can only choose between
 * holding and detaching a device it already controls.
 */
static inline bool xfab_xs_online(struct xenbus_device *dev)
{
	return xenbus_read_unsigned(dev->otherend, "online", 0) == 1;
}

/*
 * Publish a frontend's xfab_fe_step() decision once its work is done:
 * Closed first when asked, then the state, unless the work published it
 * already (a driver may have to, before the rest of its work).
 */
static inline void xfab_fe_publish(struct xenbus_device *dev, int next,
				   bool close)
{
	if (close)
		xenbus_frontend_closed(dev);
	if (next != XenbusStateClosed && next != dev->state)
		xenbus_switch_state(dev, next);
}

#endif /* XFAB_XS_H */
