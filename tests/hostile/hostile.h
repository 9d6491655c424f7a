/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xfab_hostile: a test module that plays a misbehaving peer on real Xen,
 * to show what a backend does with a frontend that breaks the protocol,
 * and what a frontend shows or keeps for a backend that does. Not a
 * driver: it is loaded only on the testbed, by scenarios 050 and 051, in a
 * domU in place of the frontend under test or in dom0 in place of the
 * backend.
 *
 *   main.c  the module, its parameters and the report a case leaves
 *   vbd.c   a blkif frontend whose requests follow one named case
 *   vif.c   a netif frontend, likewise
 *   vbdback.c  a blkif backend (dom0, backend=1) that reads all it is
 *           granted, to see what a frontend leaks
 *   vifback.c  a netif backend (dom0, netback=1) that reads whole frames
 *           behind TX slots, or answers data slots as extra-info ones
 *
 * One case per attached device: the case named in the vbd_case (vif_case)
 * parameter when the device appears is the one it runs, for secs seconds
 * (a flood) or until its requests are answered; then it writes one line
 * "run=N case=NAME key=value ..." to the report parameter and the kernel
 * log, and waits for the toolstack to detach it.
 */
#ifndef XFAB_HOSTILE_H
#define XFAB_HOSTILE_H

#include <linux/types.h>
#include <linux/wait.h>
#include <linux/atomic.h>
#include <xen/xenbus.h>

extern char hs_vbd_case[32];
extern char hs_vif_case[32];
extern char hs_vbdback_case[32];
extern char hs_vifback_case[32];
extern unsigned int hs_secs;
extern unsigned long hs_ptr_frame;

/*
 * The lifecycle the hostile frontends share (main.c): the case is taken
 * from the driver's parameter at probe, rings and keys are set up at the
 * backend's InitWait, the case's thread starts at its Connected, and all
 * is undone at Closing (and again, harmlessly, at remove).
 */
struct hs_front;

struct hs_front_ops {
	const char *kind;		/* "vbd", "vif": names in logs */
	const char *const *cases;
	unsigned int nr_cases;
	const char *case_param;		/* the parameter naming the next case */
	size_t size;			/* the driver's struct, hs_front first */
	void (*init)(struct hs_front *f);	/* at probe: nothing to undo */
	int (*setup)(struct hs_front *f);	/* rings, channel, keys */
	void (*teardown)(struct hs_front *f);	/* any prefix of setup */
	int (*run)(void *f);			/* the case's thread */
	/* state_flip: rewrite the ring keys for flip number n */
	void (*flip_keys)(struct hs_front *f, unsigned int n);
	enum xenbus_state ready;	/* ours once set up: blkif Initialised */
	bool connect;			/* go Connected when the backend does */
};

struct hs_front {
	struct xenbus_device *xdev;
	const struct hs_front_ops *ops;
	unsigned int kase;		/* index in ops->cases */
	unsigned int run;		/* which attach this is */
	struct task_struct *thread;
	bool set_up;
	bool flipping;			/* state_flip: the case drives our state */
	unsigned int flips;		/* state keys it wrote */
};

int hs_front_probe(struct xenbus_device *xdev, const struct hs_front_ops *ops);
void hs_front_changed(struct xenbus_device *xdev, enum xenbus_state state);
void hs_front_remove(struct xenbus_device *xdev);
/*
 * state_flip: write our state key through every state, in legal order
 * or not, every 20 ms until end, the ring keys rewritten before each
 * (ops->flip_keys: real, absent, impossible), the backend's moves ignored
 * meanwhile; then Connected, and the lifecycle follows the backend again.
 */
void hs_flip_states(struct hs_front *f, unsigned long end);
/* A key written with a number, or removed when val is negative. */
void hs_key(struct xenbus_device *xdev, const char *key, long long val);
/* kick_storm: notify the backend until end, nothing posted; the kicks. */
u64 hs_kick_storm(int irq, unsigned long end);

/*
 * The ring plumbing the hostile backends share (main.c): one ring page
 * mapped from the frontend, one interdomain channel, and a thread that
 * calls take() after each event, and once at start (a kick the frontend
 * sent before we bound the channel is lost).
 */
struct hs_bring {
	struct xenbus_device *xdev;
	void *addr;			/* the mapped ring page */
	int irq;
	struct task_struct *thread;
	wait_queue_head_t wq;
	atomic_t events;
	void (*take)(struct hs_bring *r);
};

/* Map the ring page (the caller then initialises its ring view). */
int hs_bring_map(struct hs_bring *r, unsigned int ref);
/* Bind the channel and start the thread, which looks at the ring at once. */
int hs_bring_start(struct hs_bring *r, unsigned int port, const char *name);
/* The thread and the channel go; the page stays mapped. May run twice. */
void hs_bring_quiesce(struct hs_bring *r);
/* Quiesce, then unmap. May run twice. */
void hs_bring_stop(struct hs_bring *r);

/*
 * The index of the case named param among cases, or -EINVAL with an
 * error on xdev naming the <kind>_case parameter.
 */
int hs_case(struct xenbus_device *xdev, const char *kind, const char *param,
	    const char *const *cases, unsigned int nr);

/* The number of a new attach, from 1, over both device kinds. */
unsigned int hs_next_run(void);
void hs_report(const char *fmt, ...) __printf(1, 2);
int hs_vbd_register(void);
void hs_vbd_unregister(void);
int hs_vif_register(void);
void hs_vif_unregister(void);
int hs_vbdback_register(void);
void hs_vbdback_unregister(void);
int hs_vifback_register(void);
void hs_vifback_unregister(void);

#endif /* XFAB_HOSTILE_H */
