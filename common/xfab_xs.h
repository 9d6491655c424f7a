/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel only (like xfab_compat.h): writing a set of xenstore keys as one
 * transaction, run again while it races with another writer. Shared by
 * the block drivers; keys() writes into the transaction it is given.
 */
#ifndef XFAB_XS_H
#define XFAB_XS_H

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

#endif /* XFAB_XS_H */
