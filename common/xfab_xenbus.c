// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Both ends' xenbus decisions; see xfab_xenbus.h. */
#include "xfab_xenbus.h"
#include "xfab_ring.h"

#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <xen/interface/io/xenbus.h>
#else
#include <xen/io/xenbus.h>
#define static_assert _Static_assert
#endif

/* Our numbers are the wire's. */
static_assert((int)XenbusStateUnknown == XFAB_XS_UNKNOWN, "unknown");
static_assert((int)XenbusStateInitialising == XFAB_XS_INITIALISING, "initialising");
static_assert((int)XenbusStateInitWait == XFAB_XS_INITWAIT, "initwait");
static_assert((int)XenbusStateInitialised == XFAB_XS_INITIALISED, "initialised");
static_assert((int)XenbusStateConnected == XFAB_XS_CONNECTED, "connected");
static_assert((int)XenbusStateClosing == XFAB_XS_CLOSING, "closing");
static_assert((int)XenbusStateClosed == XFAB_XS_CLOSED, "closed");

int xfab_be_target(int fe, int ready, bool online, bool *gone)
{
	*gone = false;
	switch (fe) {
	case XFAB_XS_INITIALISING:
	case XFAB_XS_INITIALISED:
	case XFAB_XS_CONNECTED:
		/* starting (again): be ready for its keys, then use them */
		return fe >= ready ? XFAB_XS_CONNECTED : XFAB_XS_INITWAIT;
	case XFAB_XS_CLOSING:
		return XFAB_XS_CLOSING;
	case XFAB_XS_CLOSED:
		*gone = !online;
		return XFAB_XS_CLOSED;
	case XFAB_XS_UNKNOWN:
		/* the frontend's directory is gone: so is the device */
		*gone = true;
		return XFAB_XS_CLOSED;
	default:
		return -1;
	}
}

int xfab_be_step(int cur, int target, enum xfab_be_work *work)
{
	*work = XFAB_BE_PUBLISH;
	if (cur == target)
		return cur;
	switch (cur) {
	case XFAB_XS_INITWAIT:
		if (target == XFAB_XS_CONNECTED) {
			*work = XFAB_BE_CONNECT;
			return XFAB_XS_CONNECTED;
		}
		if (target == XFAB_XS_CLOSING || target == XFAB_XS_CLOSED)
			return XFAB_XS_CLOSING;
		return cur;
	case XFAB_XS_CONNECTED:
		/* any other target goes through Closing */
		*work = XFAB_BE_DISCONNECT;
		return XFAB_XS_CLOSING;
	case XFAB_XS_CLOSING:
		return target == XFAB_XS_CLOSING ? cur : XFAB_XS_CLOSED;
	case XFAB_XS_CLOSED:
		if (target == XFAB_XS_INITWAIT || target == XFAB_XS_CONNECTED)
			return XFAB_XS_INITWAIT;
		return cur;
	default:
		return cur;
	}
}

int xfab_fe_step(int be, int cur, int ready, bool online,
		 enum xfab_fe_work *work, bool *close)
{
	*work = XFAB_FE_NOTHING;
	*close = false;
	switch (be) {
	case XFAB_XS_INITWAIT:
		/* Closed too: a watch may coalesce a backend's Closed away */
		if (cur != XFAB_XS_INITIALISING && cur != XFAB_XS_CLOSED)
			return cur;	/* Connected: a backend rebinding */
		*work = XFAB_FE_CONNECT;
		return ready;
	case XFAB_XS_CONNECTED:
		if (cur == XFAB_XS_CONNECTED) {
			*work = XFAB_FE_REFRESH;
			return cur;
		}
		if (cur != ready)
			return cur;
		*work = XFAB_FE_GO_LIVE;
		return XFAB_XS_CONNECTED;
	case XFAB_XS_CLOSING:
	case XFAB_XS_CLOSED:
		if (online && cur == XFAB_XS_INITIALISING)
			return cur;	/* waiting for the next backend */
		*work = online ? XFAB_FE_HOLD : XFAB_FE_DETACH;
		*close = cur != XFAB_XS_CLOSED;
		/* a backend still Closing waits to see us Closed first */
		if (online && be == XFAB_XS_CLOSED)
			return XFAB_XS_INITIALISING;
		return XFAB_XS_CLOSED;
	default:
		return cur;
	}
}

/* "ring-ref" followed by i in decimal (i < 100). */
static void ring_ref_key(char *key, u32 i)
{
	static const char base[] = "ring-ref";
	char *p = key + sizeof(base) - 1;

	memcpy(key, base, sizeof(base));
	if (i >= 10)
		*p++ = (char)('0' + i / 10);
	*p++ = (char)('0' + i % 10);
	*p = '\0';
}

int xfab_ring_refs_read(const struct xfab_kv *root, const struct xfab_kv *dir,
			u32 max_order, u32 *refs, u32 *nr, const char **why)
{
	u32 order = 0, i;
	char key[16];
	int rc;

	memset(refs, 0, sizeof(*refs) << XFAB_RING_MAX_ORDER);
	*nr = 0;
	if (max_order > XFAB_RING_MAX_ORDER)
		max_order = XFAB_RING_MAX_ORDER;
	rc = root->read_u32(root->ctx, "ring-page-order", &order);
	if (rc < 0) {
		*why = "ring-page-order is not a number";
		return -EINVAL;
	}
	if (rc == 0) {		/* one page, the key of the original protocol */
		if (dir->read_u32(dir->ctx, "ring-ref", &refs[0]) != 1) {
			*why = "ring-ref missing or not a number";
			return -EINVAL;
		}
		*nr = 1;
		return 0;
	}
	if (order > max_order) {
		*why = "ring-page-order larger than we offer";
		return -EINVAL;
	}
	for (i = 0; i < (1u << order); i++) {
		ring_ref_key(key, i);
		if (dir->read_u32(dir->ctx, key, &refs[i]) != 1) {
			memset(refs, 0, sizeof(*refs) << XFAB_RING_MAX_ORDER);
			*why = "a ring-ref<N> key is missing or not a number";
			return -EINVAL;
		}
	}
	*nr = 1u << order;
	return 0;
}
