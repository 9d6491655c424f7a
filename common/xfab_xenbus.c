// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The backend's xenbus decisions; see xfab_xenbus.h. */
#include "xfab_xenbus.h"

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
