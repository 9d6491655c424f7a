// SPDX-License-Identifier: GPL-2.0-only
/*
 * xfabctl status [DOM] [--json]: for each vif and vbd of DOM (or of every
 * domain), the driver at each end, what the two ends negotiated and,
 * when the backend runs here, its main counters.
 *
 * Sources, by trust: sysfs for a backend in this domain (the kernel's
 * word); xenstore keys in the backend's directory for a backend in a
 * driver domain; keys in the guest's directory for the frontend, which
 * the guest writes and may forge. So the frontend's columns report what
 * the guest claims, and nothing here feeds a decision.
 */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include "xfabctl.h"

#define NAME_LEN 33
#define MAX_MODE 5
#define MAX_CTR 16

struct dev_view {
	uint32_t dom, be_dom;
	bool local;		/* the backend runs in this domain */
	bool consistent;	/* the guest's backend key names that backend */
	char type[4];		/* "vif" or "vbd" */
	char handle[16];
	int fe_state, be_state;
	char name[NAME_LEN], fe_drv[NAME_LEN], be_drv[NAME_LEN];
	char group[NAME_LEN];	/* both ends are in it, or "" */
	const char *mode[MAX_MODE];
	unsigned int nmode;
	struct {
		const char *name;
		unsigned long long v;
	} ctr[MAX_CTR];
	unsigned int nctr;
};

static const char *const state_names[] = {
	"unknown", "initialising", "initwait", "initialised", "connected",
	"closing", "closed", "reconfiguring", "reconfigured",
};

/* A short name fit to print, or "?" when it is not one (peers write it). */
static void copy_name(char *dst, const char *src)
{
	if (src && !valid_name(src))
		src = "?";
	/* valid_name() bounds it to 32: the precision says so to gcc */
	snprintf(dst, NAME_LEN, "%.32s", src ? src : "");
}

/* DIR/KEY in xenstore as a number, or DFLT when absent or not a number. */
static long key_num(const char *dir, const char *key, long dflt)
{
	char *v = xs_get("%s/%s", dir, key), *end;
	long n;

	if (!v)
		return dflt;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end)
		n = dflt;
	free(v);
	return n;
}

static bool key_is(const char *dir, const char *key, const char *want)
{
	char *v = xs_get("%s/%s", dir, key);
	bool eq = v && !strcmp(v, want);

	free(v);
	return eq;
}

static bool sysfs_num(const char *path, unsigned long long *v)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%llu", v) == 1;
	fclose(f);
	return ok;
}

static bool sysfs_word(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static void add_ctr(struct dev_view *d, const char *name,
		    unsigned long long v)
{
	if (d->nctr < MAX_CTR) {
		d->ctr[d->nctr].name = name;
		d->ctr[d->nctr++].v = v;
	}
}

static void add_mode(struct dev_view *d, const char *word)
{
	if (d->nmode < MAX_MODE)
		d->mode[d->nmode++] = word;
}

/* The backend's sysfs device: /sys/bus/xen-backend/devices/vif-3-0. */
static void be_sysfs(const struct dev_view *d, const char *leaf, char *path,
		     size_t len)
{
	snprintf(path, len, "/sys/bus/xen-backend/devices/%s-%u-%s/%s",
		 d->type, d->dom, d->handle, leaf);
}

/* Which driver is bound to a backend here; stock ones go by type. */
static void local_be_driver(struct dev_view *d)
{
	char path[PATH_MAX], link[PATH_MAX], *base;
	ssize_t n;

	be_sysfs(d, "driver", path, sizeof(path));
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		copy_name(d->be_drv, "unbound");
		return;
	}
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (!strcmp(base, "vif"))
		base = "xen-netback";
	else if (!strcmp(base, "vbd"))
		base = "xen-blkback";
	copy_name(d->be_drv, base);
}

/* An end's xfab-driver key, else "stock" once it took part at all. */
static void xs_driver(char *dst, const char *dir, int state, int from)
{
	char *v = xs_get("%s/xfab-driver", dir);

	if (v)
		copy_name(dst, v);
	else
		copy_name(dst, state >= from ? "stock" : "-");
	free(v);
}

static const char *const vif_ctrs[] = {
	"rx_packets", "rx_bytes", "rx_dropped",
	"tx_packets", "tx_bytes", "tx_dropped",
};

/* xfab_netback's ethtool -S counters worth a glance; the rest: ethtool. */
static const char *const nb_ctrs[] = {
	"txr_kicks", "rxr_kicks", "txr_pool_bytes", "rxr_pool_bytes", "fatal",
};

/* The counters of IFNAME's ethtool -S named in nb_ctrs. */
static void eth_ctrs(struct dev_view *d, const char *ifname)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_gstrings *str = NULL;
	struct ethtool_stats *st = NULL;
	struct ifreq ifr;
	unsigned int i, j, n, room;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", ifname);
	ifr.ifr_data = (void *)&di;
	if (ioctl(fd, SIOCETHTOOL, &ifr) || !di.n_stats || di.n_stats > 4096)
		goto out;
	/* the kernel fills in its own count: room for it to have grown */
	room = 2 * di.n_stats + 16;
	str = calloc(1, sizeof(*str) + (size_t)room * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + (size_t)room * sizeof(__u64));
	if (!str || !st)
		goto out;
	*str = (struct ethtool_gstrings){ .cmd = ETHTOOL_GSTRINGS,
					  .string_set = ETH_SS_STATS,
					  .len = di.n_stats };
	*st = (struct ethtool_stats){ .cmd = ETHTOOL_GSTATS,
				      .n_stats = di.n_stats };
	ifr.ifr_data = (void *)str;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	ifr.ifr_data = (void *)st;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	n = str->len < st->n_stats ? str->len : st->n_stats;
	for (j = 0; j < ARRAY_SIZE(nb_ctrs); j++)
		for (i = 0; i < n && i < room; i++)
			if (!strncmp((char *)str->data + i * ETH_GSTRING_LEN,
				     nb_ctrs[j], ETH_GSTRING_LEN)) {
				add_ctr(d, nb_ctrs[j], st->data[i]);
				break;
			}
out:
	free(str);
	free(st);
	close(fd);
}

static void vif_counters(struct dev_view *d)
{
	char ifname[40], path[PATH_MAX];
	unsigned long long v;
	unsigned int i;

	snprintf(ifname, sizeof(ifname), "vif%u.%s", d->dom, d->handle);
	if (strlen(ifname) >= IFNAMSIZ)
		return;
	for (i = 0; i < ARRAY_SIZE(vif_ctrs); i++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s",
			 ifname, vif_ctrs[i]);
		if (sysfs_num(path, &v))
			add_ctr(d, vif_ctrs[i], v);
	}
	if (!strcmp(d->be_drv, "xfab_netback"))
		eth_ctrs(d, ifname);
}

/* Both blkbacks' names (f_req, oo_req: stock; the rest: both or ours). */
static const char *const vbd_ctrs[] = {
	"rd_req", "wr_req", "rd_sect", "wr_sect", "f_req", "flush_req",
	"oo_req", "io_errors", "kicks", "ro_hits",
};

static void vbd_counters(struct dev_view *d)
{
	char leaf[64], path[PATH_MAX];
	unsigned long long v;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vbd_ctrs); i++) {
		snprintf(leaf, sizeof(leaf), "statistics/%s", vbd_ctrs[i]);
		be_sysfs(d, leaf, path, sizeof(path));
		if (sysfs_num(path, &v))
			add_ctr(d, vbd_ctrs[i], v);
	}
}

/* Does the frontend publish a pool (a queue's TX or RX, flat or queue-0)? */
static bool fe_pool(const char *fe)
{
	static const char *const keys[] = {
		"%s/xfab-tx-pool-ref", "%s/xfab-rx-pool-ref",
		"%s/queue-0/xfab-tx-pool-ref", "%s/queue-0/xfab-rx-pool-ref",
	};
	unsigned int i;
	bool found = false;
	char *v;

	for (i = 0; i < ARRAY_SIZE(keys) && !found; i++) {
		v = xs_get(keys[i], fe);
		found = v != NULL;
		free(v);
	}
	return found;
}

/*
 * vif: the pool was offered and taken (relaxed trust may leave TX
 * without one: then the RX pool is the sign); else the stock protocol.
 */
static void vif_mode(struct dev_view *d, const char *fe, const char *be)
{
	if (key_num(be, "feature-xfab-pool", 0) == 1 && fe_pool(fe)) {
		add_mode(d, "xfab");
		add_mode(d, "pool");
	} else {
		add_mode(d, "stock");
	}
}

/* vbd: our blkback says how it serves; elsewhere, the two ends' keys. */
static void vbd_mode(struct dev_view *d, const char *fe, const char *be)
{
	char path[PATH_MAX], m[32];
	bool xfab, ro;

	be_sysfs(d, "statistics/mode", path, sizeof(path));
	if (d->local && sysfs_word(path, m, sizeof(m)) && strcmp(m, "none")) {
		xfab = strcmp(m, "stock") != 0;
		ro = !strcmp(m, "xfab-ro");
	} else {
		xfab = key_num(fe, "feature-xfab-blk", 0) == 1 &&
		       key_num(be, "feature-xfab-blk", 0) == 1;
		ro = xfab && key_num(fe, "xfab-ro-grants", 0) > 0 &&
		     key_is(fe, "xfab-trust", "relaxed");
	}
	add_mode(d, xfab ? "xfab" : "stock");
	if (ro)
		add_mode(d, "ro-grants");
}

/* Both ends in one appliance group (the records xfabctl group writes). */
static void group_of(struct dev_view *d)
{
	char *a = xs_get("/local/domain/%u/xfab/group", d->dom);
	char *b = xs_get("/local/domain/%u/xfab/group", d->be_dom);

	if (a && b && !strcmp(a, b)) {
		copy_name(d->group, a);
		add_mode(d, "group");
	}
	free(a);
	free(b);
}

static void view_dev(struct dev_view *d, uint32_t self)
{
	char fe[128], be[160], *bekey;

	snprintf(fe, sizeof(fe), "/local/domain/%u/device/%s/%s", d->dom,
		 d->type, d->handle);
	d->be_dom = (uint32_t)key_num(fe, "backend-id", 0);
	snprintf(be, sizeof(be), "/local/domain/%u/backend/%s/%u/%s",
		 d->be_dom, d->type, d->dom, d->handle);
	bekey = xs_get("%s/backend", fe);
	d->consistent = bekey && !strcmp(bekey, be);
	free(bekey);
	d->local = d->be_dom == self;
	d->fe_state = (int)key_num(fe, "state", 0);
	d->be_state = (int)key_num(be, "state", 0);
	xs_driver(d->fe_drv, fe, d->fe_state, 3);
	if (d->local)
		local_be_driver(d);
	else
		xs_driver(d->be_drv, be, d->be_state, 2);
	if (!d->consistent)
		add_mode(d, "inconsistent");
	if (!strcmp(d->type, "vif"))
		vif_mode(d, fe, be);
	else
		vbd_mode(d, fe, be);
	add_mode(d, key_is(fe, "xfab-trust", "relaxed") ? "relaxed" : "strict");
	group_of(d);
	if (d->local && !strcmp(d->type, "vif"))
		vif_counters(d);
	else if (d->local)
		vbd_counters(d);
}

static const char *state_name(int s)
{
	if (s < 0 || s >= (int)ARRAY_SIZE(state_names))
		return "invalid";
	return state_names[s];
}

static void print_json(const struct dev_view *d, bool first)
{
	unsigned int i;

	/* every string went through copy_name(): nothing to escape */
	printf("%s{\"domid\":%u,\"name\":\"%s\",\"dev\":\"%s/%s\",\"backend_domid\":%u,\"frontend_state\":\"%s\",\"backend_state\":\"%s\",\"frontend_driver\":\"%s\",\"backend_driver\":\"%s\",\"group\":\"%s\",\"mode\":[",
	       first ? "" : ",\n", d->dom, d->name, d->type, d->handle,
	       d->be_dom, state_name(d->fe_state), state_name(d->be_state),
	       d->fe_drv, d->be_drv, d->group);
	for (i = 0; i < d->nmode; i++)
		printf("%s\"%s\"", i ? "," : "", d->mode[i]);
	printf("],\"counters\":{");
	for (i = 0; i < d->nctr; i++)
		printf("%s\"%s\":%llu", i ? "," : "", d->ctr[i].name,
		       d->ctr[i].v);
	printf("}}");
}

static void print_row(const struct dev_view *d)
{
	char dev[24], mode[80] = "", st[32];
	unsigned int i;

	snprintf(dev, sizeof(dev), "%s/%s", d->type, d->handle);
	for (i = 0; i < d->nmode; i++)
		snprintf(mode + strlen(mode), sizeof(mode) - strlen(mode),
			 "%s%s", i ? "," : "", d->mode[i]);
	snprintf(st, sizeof(st), "%.12s/%.12s", state_name(d->fe_state),
		 state_name(d->be_state));
	printf("%5u %-12s %-11s %5u %-23s %-14s %-14s %s\n", d->dom, d->name,
	       dev, d->be_dom, st, d->fe_drv, d->be_drv, mode);
	if (!d->nctr)
		return;
	printf("      ");
	for (i = 0; i < d->nctr; i++)
		printf(" %s=%llu", d->ctr[i].name, d->ctr[i].v);
	printf("\n");
}

/* This domain's id (the relative key "domid"); dom0 if it has none. */
static uint32_t own_domid(void)
{
	char *v = xs_get("domid");
	uint32_t id = v ? (uint32_t)strtoul(v, NULL, 10) : 0;

	free(v);
	return id;
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 16;
}

/* Every vif and vbd of DOM; returns how many were shown. */
static unsigned int show_dom(uint32_t dom, uint32_t self, bool json,
			     unsigned int shown)
{
	static const char *const types[] = { "vif", "vbd" };
	char **ents, *name, dir[64];
	unsigned int t, i, n, count = 0;
	struct dev_view d;

	name = xs_get("/local/domain/%u/name", dom);
	for (t = 0; t < 2; t++) {
		snprintf(dir, sizeof(dir), "/local/domain/%u/device/%s", dom,
			 types[t]);
		ents = xs_directory(open_xs(), XBT_NULL, dir, &n);
		for (i = 0; ents && i < n; i++) {
			if (!all_digits(ents[i]))
				continue;
			memset(&d, 0, sizeof(d));
			d.dom = dom;
			snprintf(d.type, sizeof(d.type), "%s", types[t]);
			snprintf(d.handle, sizeof(d.handle), "%s", ents[i]);
			copy_name(d.name, name);
			view_dev(&d, self);
			if (json)
				print_json(&d, shown + count == 0);
			else
				print_row(&d);
			count++;
		}
		free(ents);
	}
	free(name);
	return count;
}

int cmd_status(int argc, char **argv)
{
	const char *only = NULL;
	unsigned int i, n, shown = 0;
	char **ents;
	uint32_t self;
	bool json = false;

	for (i = 0; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!only && argv[i][0] != '-')
			only = argv[i];
		else
			die(EX_USAGE, "status: unexpected argument '%s' (usage: xfabctl status [DOM] [--json])",
			    argv[i]);
	}
	self = own_domid();
	if (json)
		printf("[");
	else
		printf("%5s %-12s %-11s %5s %-23s %-14s %-14s %s\n", "dom",
		       "name", "dev", "be", "state (fe/be)", "frontend",
		       "backend", "mode");
	if (only) {
		shown = show_dom(parse_dom(only), self, json, 0);
	} else {
		ents = xs_directory(open_xs(), XBT_NULL, "/local/domain", &n);
		for (i = 0; ents && i < n; i++)
			if (all_digits(ents[i]))
				shown += show_dom((uint32_t)strtoul(ents[i], NULL, 10),
						  self, json, shown);
		free(ents);
	}
	if (json)
		printf("]\n");
	else if (!shown)
		printf("(no vif or vbd)\n");
	return EX_OK;
}
