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

/*
 * Xen 4.20's own getdomaininfo, for two flags: an HVM or PVH domain names
 * its pages by guest frame, so a PV mapper cannot map it by the machine
 * frames the group's frames call lists (xen-patches/README.md); a dying
 * domain has left its group already, and is not merely out of it.
 */
#define XFAB_DOMCTL_GETDOMAININFO	5
#define XFAB_DOMINF_DYING		(1u << 0)
#define XFAB_DOMINF_HVM			(1u << 1)	/* HVM or PVH */

/* The head of struct xen_domctl_getdomaininfo, all we read of it. */
struct xfab_dominfo {
	u16 domain;
	u16 pad;
	u32 flags;
};

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
		struct xfab_dominfo info;
		u64 align;
		u8 raw[128];
	} u;
};

_Static_assert(sizeof(struct xfab_group_op) == 40, "appliance group ABI");
_Static_assert(sizeof(struct xfab_domctl) == 144, "Xen 4.20 domctl size");
_Static_assert(sizeof(struct xfab_dominfo) == 8, "getdomaininfo's flags at 4");

/* A domctl @cmd on @domid with an empty payload. */
static inline void xfab_domctl_init(struct xfab_domctl *dc, u32 cmd,
				    u16 domid)
{
	memset(dc, 0, sizeof(*dc));
	dc->cmd = cmd;
	dc->interface_version = XFAB_DOMCTL_VERSION;
	dc->domain = domid;
}

/* A domctl for @op on @domid, ready for the hypercall. */
static inline void xfab_group_domctl(struct xfab_domctl *dc, u16 domid,
				     const struct xfab_group_op *op)
{
	xfab_domctl_init(dc, XFAB_DOMCTL_APPLIANCE_GROUP, domid);
	dc->u.group = *op;
}

#endif /* XFAB_GROUP_H */
