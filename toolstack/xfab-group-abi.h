/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The appliance-group domctl that xen-patches/ adds to Xen 4.20. Debian's
 * libxenctrl and public headers do not know it, so the toolstack and the
 * test helpers issue it through libxencall with this layout, which must
 * stay byte for byte the patch's struct xen_domctl_appliance_group.
 */
#ifndef XFAB_GROUP_ABI_H
#define XFAB_GROUP_ABI_H

/* Xen's public headers show the domctl only to tools: before any of them. */
#ifndef __XEN_TOOLS__
#error "build with -D__XEN_TOOLS__ (Xen's domctl header is for tools only)"
#endif

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <xencall.h>
#include <xen/xen.h>
#include <xen/domctl.h>

#define XFAB_DOMCTL_APPLIANCE_GROUP	2000
#define XFAB_GROUP_JOIN		0
#define XFAB_GROUP_LEAVE	1
#define XFAB_GROUP_QUERY	2
#define XFAB_GROUP_FRAMES	3
#define XFAB_GROUP_MAX_FRAMES	1024
#define XFAB_GROUP_END		(~(uint64_t)0)

struct xfab_group_op {
	uint32_t op;
	uint32_t group;
	uint32_t nr;
	uint32_t pad;
	uint64_t start;
	uint64_t tot_pages;
	uint64_t frames;	/* guest handle: a buffer's address */
};

_Static_assert(sizeof(struct xfab_group_op) == 40, "appliance group ABI");
_Static_assert(sizeof(struct xfab_group_op) <= sizeof(((struct xen_domctl *)0)->u),
	       "fits the domctl union");

/*
 * One group domctl on DOMID. @dc must be a libxencall buffer; @op is
 * copied in and back. Returns 0 or a negative errno (Xen's).
 */
static inline int xfab_group_call(xencall_handle *xc, struct xen_domctl *dc,
				  uint32_t domid, struct xfab_group_op *op)
{
	int rc;

	memset(dc, 0, sizeof(*dc));
	dc->cmd = XFAB_DOMCTL_APPLIANCE_GROUP;
	dc->interface_version = XEN_DOMCTL_INTERFACE_VERSION;
	dc->domain = (domid_t)domid;
	memcpy(&dc->u, op, sizeof(*op));
	rc = xencall1(xc, __HYPERVISOR_domctl, (uint64_t)(uintptr_t)dc);
	if (rc < 0)
		return -errno;
	memcpy(op, &dc->u, sizeof(*op));
	return 0;
}

#endif
