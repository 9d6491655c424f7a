// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * /sys/kernel/debug/xfab_wnprobe/: the testbed's probes of xfab_window
 * (scenario 402). Each takes the window as a driver would, with
 * xfab_wn_get(), so a probe of a dropped window finds none. Write a
 * command, read the result of the last one:
 *
 *   scan   "PEER TOKEN": count the window's pages that start "TOKEN <n>"
 *          and check each against pattern n (the one xfab-peek plants);
 *          check every page's tag leads back to its frame; name the
 *          first planted page's frame (FIRST).
 *          "token T first FIRST found N good M tagged K of F"
 *   poke   "PEER": try to write one byte through the window, which must
 *          fault (read-only). "poke <rc> before B after A"
 *   hold   "PEER": keep a reference on the window until "-" (or unload),
 *          as an skb or a bio in flight would. Reading it reads the held
 *          window's first page, which must still be mapped after the
 *          window was dropped. "held D frames F first B", or "held -"
 *   pin    "PEER": keep a reference on the first page of the window
 *          over PEER, and none on the window, until "-" (or unload), as
 *          an skb's frag holds its page for a moment after its packet's
 *          completion let go of the window. Reading it reads that page,
 *          which must still be mapped. "pinned D first B", or "pinned -"
 *   want   "PEER": xfab_wn_want(), as a backend asking for pointer mode
 *          would (dom0 maps only what is wanted); the write fails with
 *          its error. "unwant" ends one; unload ends them all.
 *   bench, offer: bench.c
 *
 * One prober at a time (the testbed): a mutex serialises them.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <xen/interface/xen.h>
#include "probe.h"
#include "xfab_plant.h"

#define OUT_LEN 160

static DEFINE_MUTEX(lock);
static struct dentry *root;
static struct xfab_wn *held;
static struct page *pinned;
static u16 pinned_peer;
static u16 wanted[16];		/* wants to undo at unload */
static unsigned int n_wanted;

struct probe {
	const char *name;
	int (*run)(char *arg, char *out);
	void (*show)(char *out);	/* refresh out at each read, if set */
	char out[OUT_LEN];
};

/* The leading domain id of @*s; *s moves past it. */
static int take_peer(char **s, u16 *peer)
{
	char *tok = strsep(s, " ");
	unsigned int v;

	if (!tok || kstrtouint(tok, 10, &v) || v >= DOMID_FIRST_RESERVED)
		return -EINVAL;
	*peer = (u16)v;
	return 0;
}

/* Is @p planted page "@token <n>" (header and every byte after it)? */
static bool planted(const u8 *p, const char *token, bool *whole)
{
	size_t tl = strlen(token);
	char head[XFAB_PLANT_HEAD];
	unsigned long long n;

	if (memcmp(p, token, tl) || p[tl] != ' ')
		return false;
	memcpy(head, p + tl + 1, sizeof(head) - tl - 1);
	head[sizeof(head) - tl - 1] = '\0';
	*whole = !kstrtoull(strim(head), 10, &n) && xfab_plant_intact(p, n);
	return true;
}

static int scan(char *arg, char *out)
{
	u32 e, found = 0, good = 0, tagged = 0, n;
	u64 frame, f2, first = 0;
	struct xfab_wn *wn;
	struct page *pg;
	bool whole;
	u16 peer, p2;

	if (take_peer(&arg, &peer) || !arg || !*arg ||
	    strlen(arg) > XFAB_PLANT_HEAD / 2)
		return -EINVAL;
	wn = xfab_wn_get(peer);
	if (!wn)
		return -ENOENT;
	n = wn->idx.n;
	for (e = 0; e < n; e++) {
		pg = wnprobe_entry(wn, e, &frame);
		if (!xfab_wn_frame_of(pg, &p2, &f2) && p2 == peer && f2 == frame)
			tagged++;
		if (planted(page_address(pg), arg, &whole)) {
			if (!found++)
				first = frame;
			good += whole;
		}
		if (!(e % 4096))
			cond_resched();
	}
	xfab_wn_put(wn);
	/* first: a planted page's frame, for a test that needs a real one */
	scnprintf(out, OUT_LEN, "token %s first %llu found %u good %u tagged %u of %u\n",
		  arg, first, found, good, tagged, n);
	return 0;
}

/*
 * One byte written at @p, or -EFAULT if the write faulted (the exception
 * table catches it; copy_to_kernel_nofault() itself is not exported).
 */
static long try_write(u8 *p, u8 x)
{
	long rc = 0;

	pagefault_disable();
	__put_kernel_nofault(p, &x, u8, fault);
	goto out;
fault:
	rc = -EFAULT;
out:
	pagefault_enable();
	return rc;
}

static int write_through(char *arg, char *out)
{
	struct xfab_wn *wn;
	u8 before, after, *p;
	struct page *pg;
	u64 frame;
	long rc;
	u16 peer;

	if (take_peer(&arg, &peer))
		return -EINVAL;
	wn = xfab_wn_get(peer);
	if (!wn)
		return -ENOENT;
	pg = wn->idx.n ? wnprobe_entry(wn, 0, &frame) : NULL;
	if (pg) {
		p = page_address(pg);
		before = READ_ONCE(*p);
		rc = try_write(p, (u8)~before);
		after = READ_ONCE(*p);
		scnprintf(out, OUT_LEN, "poke %ld before %02x after %02x\n",
			  rc, before, after);
	}
	xfab_wn_put(wn);
	return pg ? 0 : -ENOENT;
}

static void let_go(void)
{
	if (held)
		xfab_wn_put(held);
	held = NULL;
}

/* hold's and pin's argument: 0 and *peer, 1 for "-" (let go only) */
static int take_keep_arg(char *arg, u16 *peer)
{
	if (!strcmp(arg, "-"))
		return 1;
	return take_peer(&arg, peer) ? -EINVAL : 0;
}

static struct page *first_page(const struct xfab_wn *wn)
{
	u64 frame;

	return wn && wn->idx.n ? wnprobe_entry(wn, 0, &frame) : NULL;
}

static int hold(char *arg, char *out)
{
	u16 peer;
	int rc;

	let_go();
	rc = take_keep_arg(arg, &peer);
	if (rc)
		return rc < 0 ? rc : 0;
	held = xfab_wn_get(peer);
	return held ? 0 : -ENOENT;
}

/* "hold" reads its window now, not at the write: see the header. */
static void hold_show(char *out)
{
	struct page *pg = first_page(held);

	if (!pg) {
		scnprintf(out, OUT_LEN, "held -\n");
		return;
	}
	scnprintf(out, OUT_LEN, "held %u frames %u first %02x\n",
		  held->peer, held->idx.n,
		  READ_ONCE(*(u8 *)page_address(pg)));
}

static void unpin(void)
{
	if (pinned)
		put_page(pinned);
	pinned = NULL;
}

static int pin(char *arg, char *out)
{
	struct xfab_wn *wn;
	struct page *pg;
	u16 peer;
	int rc;

	unpin();
	rc = take_keep_arg(arg, &peer);
	if (rc)
		return rc < 0 ? rc : 0;
	wn = xfab_wn_get(peer);
	if (!wn)
		return -ENOENT;
	pg = first_page(wn);
	if (pg) {
		get_page(pg);
		pinned = pg;
		pinned_peer = peer;
	}
	xfab_wn_put(wn);
	return pg ? 0 : -ENOENT;
}

static void pin_show(char *out)
{
	if (!pinned) {
		scnprintf(out, OUT_LEN, "pinned -\n");
		return;
	}
	scnprintf(out, OUT_LEN, "pinned %u first %02x\n", pinned_peer,
		  READ_ONCE(*(u8 *)page_address(pinned)));
}

static int probe_want(char *arg, char *out)
{
	u16 peer;
	int rc;

	if (take_peer(&arg, &peer))
		return -EINVAL;
	if (n_wanted == ARRAY_SIZE(wanted))
		return -ENOSPC;
	rc = xfab_wn_want(peer);
	scnprintf(out, OUT_LEN, "want %u %d\n", peer, rc);
	if (!rc)
		wanted[n_wanted++] = peer;
	return rc;
}

static int probe_unwant(char *arg, char *out)
{
	unsigned int i;
	u16 peer;

	if (take_peer(&arg, &peer))
		return -EINVAL;
	for (i = 0; i < n_wanted; i++) {
		if (wanted[i] == peer) {
			wanted[i] = wanted[--n_wanted];
			xfab_wn_unwant(peer);
			return 0;
		}
	}
	return -ENOENT;
}

static int bench(char *arg, char *out)
{
	struct xfab_wn *wn;
	u16 peer;
	int rc;

	if (take_peer(&arg, &peer) || !arg)
		return -EINVAL;
	wn = xfab_wn_get(peer);
	if (!wn)
		return -ENOENT;
	rc = wnprobe_bench(wn, arg, out, OUT_LEN);
	xfab_wn_put(wn);
	return rc;
}

static struct probe probes[] = {
	{ .name = "scan", .run = scan },
	{ .name = "poke", .run = write_through },
	{ .name = "hold", .run = hold, .show = hold_show },
	{ .name = "pin", .run = pin, .show = pin_show },
	{ .name = "want", .run = probe_want },
	{ .name = "unwant", .run = probe_unwant },
	{ .name = "bench", .run = bench },
};

static ssize_t probe_write(struct file *f, const char __user *ubuf,
			   size_t len, loff_t *pos)
{
	struct probe *pr = file_inode(f)->i_private;
	char *text;
	int rc;

	if (!len || len >= PAGE_SIZE)
		return -EINVAL;
	text = memdup_user_nul(ubuf, len);
	if (IS_ERR(text))
		return PTR_ERR(text);
	mutex_lock(&lock);
	pr->out[0] = '\0';
	rc = pr->run(strim(text), pr->out);
	mutex_unlock(&lock);
	kfree(text);
	return rc ? rc : len;
}

static ssize_t probe_read(struct file *f, char __user *ubuf, size_t len,
			  loff_t *pos)
{
	struct probe *pr = file_inode(f)->i_private;
	ssize_t rc;

	mutex_lock(&lock);
	if (pr->show && !*pos)
		pr->show(pr->out);
	rc = simple_read_from_buffer(ubuf, len, pos, pr->out, strlen(pr->out));
	mutex_unlock(&lock);
	return rc;
}

static const struct file_operations probe_fops = {
	.owner = THIS_MODULE,
	.read = probe_read,
	.write = probe_write,
};

static ssize_t offer_write(struct file *f, const char __user *ubuf,
			   size_t len, loff_t *pos)
{
	return wnprobe_offer_write(ubuf, len);
}

static ssize_t offer_read(struct file *f, char __user *ubuf, size_t len,
			  loff_t *pos)
{
	size_t n;
	char *s = wnprobe_offer_text(&n);
	ssize_t rc;

	if (!s)
		return -ENOMEM;
	rc = simple_read_from_buffer(ubuf, len, pos, s, n);
	kfree(s);
	return rc;
}

static const struct file_operations offer_fops = {
	.owner = THIS_MODULE,
	.read = offer_read,
	.write = offer_write,
};

static int __init wnprobe_init(void)
{
	unsigned int i;

	root = debugfs_create_dir("xfab_wnprobe", NULL);
	for (i = 0; i < ARRAY_SIZE(probes); i++)
		debugfs_create_file(probes[i].name, 0600, root, &probes[i],
				    &probe_fops);
	debugfs_create_file("offer", 0600, root, NULL, &offer_fops);
	return 0;
}

static void __exit wnprobe_exit(void)
{
	debugfs_remove_recursive(root);
	mutex_lock(&lock);
	let_go();
	unpin();
	while (n_wanted)
		xfab_wn_unwant(wanted[--n_wanted]);
	mutex_unlock(&lock);
	wnprobe_offer_exit();
}

module_init(wnprobe_init);
module_exit(wnprobe_exit);
MODULE_DESCRIPTION("xfab: the testbed's probes of xfab_window (not for production)");
MODULE_LICENSE("Dual MIT/GPL");
