/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The appliance-group domctl (common/xfab_group.h) through libxencall,
 * for xfabctl and the testbed's probes.
 */
#ifndef XFAB_GROUP_ABI_H
#define XFAB_GROUP_ABI_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <xencall.h>
#include "../common/xfab_group.h"

/* Xen's hypercall number for domctl (public/xen.h, stable since 3.x). */
#define XFAB_HYPERCALL_DOMCTL 36

/*
 * One group domctl on DOMID. @dc must be a libxencall buffer; @op is
 * copied in and back. Returns 0 or a negative errno (Xen's).
 */
static inline int xfab_group_call(xencall_handle *xc, struct xfab_domctl *dc,
				  uint32_t domid, struct xfab_group_op *op)
{
	xfab_group_domctl(dc, (u16)domid, op);
	if (xencall1(xc, XFAB_HYPERCALL_DOMCTL, (uint64_t)(uintptr_t)dc) < 0)
		return -errno;
	*op = dc->u.group;
	return 0;
}

#endif
