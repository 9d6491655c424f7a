// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * /sys/kernel/debug/xfab_window/: "windows" (one line per window),
 * "stats" (the counters), and per window a directory named after the
 * peer's domain id with the testbed's probes:
 *
 *   scan  write a token: every window page that starts "TOKEN <n>" is
 *         counted, and checked whole against pattern n (the one
 *         xfab-peek plants); read: "token T found N good M"
 *   poke  read: tries to write one byte through the window, which must
 *         fault (the mapping is read-only); "poke <rc> before B after A"
 *
 *   bench (per window) and offer (root): bench.c
 *
 * The probes take no lock: a window's mappings never change once made,
 * and debugfs lets its directory go only after every open file op is
 * done (the drop runs under xfab_wn_lock, so taking it here would
 * deadlock). Their last results are kept in the window, one prober at
 * a time (the testbed's).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/mm.h>
#include "common.h"
#include "xfab_plant.h"

static struct dentry *root;

/* Count the planted pages of token wn->scan_token, and the whole ones. */
static void scan(struct xfab_wn *wn)
{
	size_t tl = strlen(wn->scan_token);
	char head[XFAB_PLANT_HEAD];
	unsigned long long n;
	u32 e;

	wn->scan_found = 0;
	wn->scan_good = 0;
	for (e = 0; e < wn->idx.n; e++) {
		const u8 *p = page_address(wn->pages[e]);

		if (memcmp(p, wn->scan_token, tl) || p[tl] != ' ')
			continue;
		wn->scan_found++;
		memcpy(head, p + tl + 1, sizeof(head) - tl - 1);
		head[sizeof(head) - tl - 1] = '\0';
		if (!kstrtoull(strim(head), 10, &n) && xfab_plant_intact(p, n))
			wn->scan_good++;
		if (!(e % 4096))
			cond_resched();
	}
}

static ssize_t scan_write(struct file *f, const char __user *ubuf,
			  size_t len, loff_t *pos)
{
	struct xfab_wn *wn = file_inode(f)->i_private;
	char tok[sizeof(wn->scan_token)];

	if (!len || len >= sizeof(tok))
		return -EINVAL;
	if (copy_from_user(tok, ubuf, len))
		return -EFAULT;
	tok[len] = '\0';
	strscpy(wn->scan_token, strim(tok), sizeof(wn->scan_token));
	if (!wn->scan_token[0])
		return -EINVAL;
	scan(wn);
	return len;
}

static ssize_t scan_read(struct file *f, char __user *ubuf, size_t len,
			 loff_t *pos)
{
	struct xfab_wn *wn = file_inode(f)->i_private;
	char out[96];
	int n = scnprintf(out, sizeof(out), "token %s found %u good %u\n",
			  wn->scan_token[0] ? wn->scan_token : "-",
			  wn->scan_found, wn->scan_good);

	return simple_read_from_buffer(ubuf, len, pos, out, n);
}

static const struct file_operations scan_fops = {
	.owner = THIS_MODULE,
	.read = scan_read,
	.write = scan_write,
};

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

static int poke_show(struct seq_file *m, void *v)
{
	struct xfab_wn *wn = m->private;
	u8 before, after, x;
	long rc = -ENOENT;

	if (wn->idx.n) {
		u8 *p = page_address(wn->pages[0]);

		before = READ_ONCE(*p);
		x = ~before;
		rc = try_write(p, x);
		after = READ_ONCE(*p);
		seq_printf(m, "poke %ld before %02x after %02x\n", rc, before, after);
	} else {
		seq_puts(m, "poke -2 (empty window)\n");
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(poke);

static ssize_t bench_write(struct file *f, const char __user *ubuf,
			   size_t len, loff_t *pos)
{
	struct xfab_wn *wn = file_inode(f)->i_private;
	char *text;
	int rc;

	if (!len || len >= PAGE_SIZE)
		return -EINVAL;
	text = memdup_user_nul(ubuf, len);
	if (IS_ERR(text))
		return PTR_ERR(text);
	rc = xfab_wn_bench(wn, text, wn->bench_out, sizeof(wn->bench_out));
	kfree(text);
	return rc ? rc : len;
}

static ssize_t bench_read(struct file *f, char __user *ubuf, size_t len,
			  loff_t *pos)
{
	struct xfab_wn *wn = file_inode(f)->i_private;

	return simple_read_from_buffer(ubuf, len, pos, wn->bench_out,
				       strlen(wn->bench_out));
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.read = bench_read,
	.write = bench_write,
};

static ssize_t offer_write(struct file *f, const char __user *ubuf,
			   size_t len, loff_t *pos)
{
	return xfab_wn_offer_write(ubuf, len);
}

static ssize_t offer_read(struct file *f, char __user *ubuf, size_t len,
			  loff_t *pos)
{
	size_t n;
	char *s = xfab_wn_offer_text(&n);
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

static int windows_show(struct seq_file *m, void *v)
{
	struct xfab_wn *wn;

	mutex_lock(&xfab_wn_lock);
	list_for_each_entry(wn, &xfab_wn_list, list)
		seq_printf(m, "peer %u frames %u mapped %u refused %u map_ms %llu max_probe %u\n",
			   wn->peer, wn->idx.n, wn->mapped, wn->map_errors,
			   wn->map_ns / NSEC_PER_MSEC, wn->idx.max_probe);
	mutex_unlock(&xfab_wn_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(windows);

static int stats_show(struct seq_file *m, void *v)
{
	const struct xfab_wn_stats *s = &xfab_wn_stats;

	seq_printf(m, "windows_made %llu\nwindows_dropped %llu\n"
		   "frames_mapped %llu\nframes_unmapped %llu\nmap_calls %llu\n"
		   "map_errors %llu\ndrop_left %llu\ndrop_dead %llu\n"
		   "list_refused %llu\ntoo_big %llu\n",
		   s->windows_made, s->windows_dropped, s->frames_mapped,
		   s->frames_unmapped, s->map_calls, s->map_errors,
		   s->drop_left, s->drop_dead, s->list_refused, s->too_big);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

void xfab_wn_debugfs_init(void)
{
	root = debugfs_create_dir("xfab_window", NULL);
	debugfs_create_file("windows", 0444, root, NULL, &windows_fops);
	debugfs_create_file("stats", 0444, root, NULL, &stats_fops);
	debugfs_create_file("offer", 0600, root, NULL, &offer_fops);
}

void xfab_wn_debugfs_add(struct xfab_wn *wn)
{
	char name[8];

	snprintf(name, sizeof(name), "%u", wn->peer);
	wn->dir = debugfs_create_dir(name, root);
	debugfs_create_file("scan", 0600, wn->dir, wn, &scan_fops);
	debugfs_create_file("poke", 0400, wn->dir, wn, &poke_fops);
	debugfs_create_file("bench", 0600, wn->dir, wn, &bench_fops);
}

void xfab_wn_debugfs_exit(void)
{
	debugfs_remove_recursive(root);
}
