// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * /sys/kernel/debug/xfab_window/: "windows" (one line per published
 * window) and "stats" (the counters). The testbed's probes read windows
 * through the datapath API, from their own module (tests/wnprobe).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "common.h"

static struct dentry *root;

static int windows_show(struct seq_file *m, void *v)
{
	struct xfab_wn *wn;

	mutex_lock(&xfab_wn_lock);
	list_for_each_entry(wn, &xfab_wn_list, list)
		seq_printf(m, "peer %u frames %u mapped %u refused %u map_ms %llu max_probe %u tot_pages %llu%s%s\n",
			   wn->peer, wn->idx.n, wn->mapped, wn->map_errors,
			   wn->map_ns / NSEC_PER_MSEC, wn->idx.max_probe,
			   wn->tot_pages, wn->left_at ? " leaving" : "",
			   rcu_access_pointer(wn->older) ? " older-draining" : "");
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
		   "list_refused %llu\ntoo_big %llu\nwindows_draining %llu\n"
		   "want_refused %llu\nleave_graces %llu\nrefreshes %llu\n"
		   "refresh_failed %llu\nunmap_failed %llu\nunmap_waited %llu\n"
		   "unmap_wait_max_ms %llu\n",
		   s->windows_made, s->windows_dropped, s->frames_mapped,
		   s->frames_unmapped, s->map_calls, s->map_errors,
		   s->drop_left, s->drop_dead, s->list_refused, s->too_big,
		   s->windows_draining, s->want_refused, s->leave_graces,
		   s->refreshes, s->refresh_failed, s->unmap_failed,
		   s->unmap_waited, s->unmap_wait_max_ms);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

void xfab_wn_debugfs_init(void)
{
	root = debugfs_create_dir("xfab_window", NULL);
	debugfs_create_file("windows", 0444, root, NULL, &windows_fops);
	debugfs_create_file("stats", 0444, root, NULL, &stats_fops);
}

void xfab_wn_debugfs_exit(void)
{
	debugfs_remove_recursive(root);
}
