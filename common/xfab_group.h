/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The appliance-group domctl that xen-patches/ adds to Xen 4.20, as its
 * callers see it: xfabctl (through libxencall) and xfab_window (from the
 * kernel). Neither Debian's Xen headers nor Linux's know it, so the
 * layout is here, byte for byte the patch's struct
 * xen_domctl_appliance_group inside Xen 4.20's struct xen_domctl.
 */
#ifndef XFAB_GROUP_H
#define XFAB_GROUP_H

#include "xfab_types.h"

#define XFAB_DOMCTL_APPLIANCE_GROUP	2000
#define XFAB_DOMCTL_VERSION		0x17	/* Xen 4.20's domctl interface */
#define XFAB_GROUP_JOIN		0
#define XFAB_GROUP_LEAVE	1
#define XFAB_GROUP_QUERY	2
#define XFAB_GROUP_FRAMES	3
#define XFAB_GROUP_MAX_FRAMES	1024	/* per frames call */
#define XFAB_GROUP_END		(~(u64)0)

struct xfab_group_op {
	u32 op;
	u32 group;
	u32 nr;
	u32 pad;
	u64 start;
	u64 tot_pages;
	u64 frames;	/* guest handle: a buffer's address */
};

/* struct xen_domctl of Xen 4.20: a 16-byte header, a 128-byte union. */
struct xfab_domctl {
	u32 cmd;
	u32 interface_version;
	u16 domain;
	u16 pad[3];
	union {
		struct xfab_group_op group;
		u64 align;
		u8 raw[128];
	} u;
};

_Static_assert(sizeof(struct xfab_group_op) == 40, "appliance group ABI");
_Static_assert(sizeof(struct xfab_domctl) == 144, "Xen 4.20 domctl size");

/* A domctl for @op on @domid, ready for the hypercall. */
static inline void xfab_group_domctl(struct xfab_domctl *dc, u16 domid,
				     const struct xfab_group_op *op)
{
	memset(dc, 0, sizeof(*dc));
	dc->cmd = XFAB_DOMCTL_APPLIANCE_GROUP;
	dc->interface_version = XFAB_DOMCTL_VERSION;
	dc->domain = domid;
	dc->u.group = *op;
}

#endif /* XFAB_GROUP_H */
