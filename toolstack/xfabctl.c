// SPDX-License-Identifier: GPL-2.0-only
/*
 * xfabctl: the control domain's tool for xfab appliances.
 *
 *   xfabctl group add NAME DOM...    put domains in appliance group NAME
 *   xfabctl group remove DOM...      take domains out of their group
 *   xfabctl group show [NAME] [--json]
 *   xfabctl group frames DOM [--list] the machine frames DOM owns (what a
 *                                    member may map read-only)
 *   xfabctl trust DOM DEV relaxed|strict
 *   xfabctl status [DOM] [--json]     each vif and vbd: drivers, mode,
 *                                    counters (status.c)
 *
 * Groups need a hypervisor with xen-patches/ applied; the hypervisor
 * keeps membership (a domctl), xenstore keeps the names: /xfab/groups/
 * NAME/{id,members} for the control domain, and /local/domain/D/xfab/
 * {group,group-id,members} that member D may read but not write.
 *
 * Exit codes: 0 done, 1 failed, 2 usage, 3 refused (not privileged),
 * 4 no such domain or group, 5 the hypervisor lacks the patch.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xenstore.h>
#include "xfab-group-abi.h"
#include "xfabctl.h"

#define MAX_MEMBERS 64
/* What update_records() returns beyond a member count. */
#define UPDATE_FULL (MAX_MEMBERS + 1)
#define UPDATE_LOST (MAX_MEMBERS + 2)
/* The next id a new group gets: ids are never handed out twice. */
#define NEXT_ID_PATH "/xfab/next-group-id"
/*
 * Why a domain with rights over others cannot be a member: what it reads
 * or serves of non-members sits in its memory, and the group would let
 * members read that memory (xen-patches/README.md).
 */
#define NO_RIGHTS_WHY \
	"it has rights over other domains (the control, hardware or xenstore domain, or a device model), so its memory holds theirs; members never read it (xen-patches/README.md, \"Who may be a member\")"
#define PATCH_NAME "xen-patches/0001-appliance-groups-domctl.patch"

static struct {
	xencall_handle *xc;
	struct xfab_domctl *dc;
	struct xs_handle *xs;
} ctx;

void die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("xfabctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

void usage(FILE *f)
{
	fputs("usage: xfabctl group add NAME DOM...\n"
	      "       xfabctl group remove DOM...\n"
	      "       xfabctl group show [NAME] [--json]\n"
	      "       xfabctl group frames DOM [--list]\n"
	      "       xfabctl trust DOM DEV relaxed|strict\n"
	      "       xfabctl status [DOM] [--json]\n"
	      "DOM is a domain id or name; DEV a device such as vif/0 or vbd/51712.\n"
	      "See xfabctl(8).\n", f);
}

static void open_xencall(void)
{
	if (ctx.xc)
		return;
	ctx.xc = xencall_open(NULL, 0);
	if (!ctx.xc)
		die(EX_PERM, "cannot open the hypercall interface (/dev/xen/privcmd): %s; run as root in a Xen domain",
		    strerror(errno));
	ctx.dc = xencall_alloc_buffer(ctx.xc, sizeof(*ctx.dc));
	if (!ctx.dc)
		die(EX_FAIL, "cannot allocate a hypercall buffer: %s", strerror(errno));
}

struct xs_handle *open_xs(void)
{
	if (!ctx.xs)
		ctx.xs = xs_open(0);
	if (!ctx.xs)
		die(EX_FAIL, "cannot connect to xenstore: %s", strerror(errno));
	return ctx.xs;
}

/* Exits with a message naming the cause of RC, unless it is 0. */
static void group_fail(uint32_t domid, int rc)
{
	switch (rc) {
	case 0:
		return;
	case -ENOSYS:
		die(EX_NOPATCH, "this hypervisor has no appliance groups: boot a Xen built with %s (see xen-patches/README.md)",
		    PATCH_NAME);
	case -EPERM:
	case -EACCES:
		die(EX_PERM, "the hypervisor refused (%s) for domain %u: only the control domain manages groups, and only members of a domain's group may query it (on a Xen without %s this is refused too)",
		    strerror(-rc), domid, PATCH_NAME);
	case -ESRCH:
		die(EX_NODOM, "no domain %u (or it is being destroyed)", domid);
	case -EBUSY:
		die(EX_FAIL, "domain %u is in another group; remove it first", domid);
	default:
		die(EX_FAIL, "appliance-group call on domain %u failed: %s", domid, strerror(-rc));
	}
}

/* A group domctl on DOMID; exits with a message naming the cause. */
static void group_call(uint32_t domid, struct xfab_group_op *op)
{
	int rc;

	open_xencall();
	rc = xfab_group_call(ctx.xc, ctx.dc, domid, op);
	group_fail(domid, rc);
}

char *xs_tget(xs_transaction_t t, const char *fmt, ...)
{
	char path[256];
	unsigned int len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return xs_read(open_xs(), t, path, &len);
}

/* A domain id from "12" or a name in /local/domain/D/name. */
uint32_t parse_dom(const char *s)
{
	char **ents, *end, *name;
	unsigned int i, n;
	unsigned long v = strtoul(s, &end, 10);

	if (*s && !*end) {
		if (v >= 0x7ff0)
			die(EX_USAGE, "'%s' is not a domain id (0..32751)", s);
		return (uint32_t)v;
	}
	open_xs();
	ents = xs_directory(ctx.xs, XBT_NULL, "/local/domain", &n);
	for (i = 0; ents && i < n; i++) {
		name = xs_get("/local/domain/%s/name", ents[i]);
		if (name && !strcmp(name, s)) {
			v = strtoul(ents[i], NULL, 10);
			free(name);
			free(ents);
			return (uint32_t)v;
		}
		free(name);
	}
	free(ents);
	die(EX_NODOM, "no domain named '%s'", s);
}

bool valid_name(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n > 32)
		return false;
	for (i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", s[i]))
			return false;
	return true;
}

/* Refused (a domU): exit 3, as when the hypervisor refuses. */
static void xs_put(xs_transaction_t t, const char *path, const char *val)
{
	if (xs_write(ctx.xs, t, path, val, strlen(val)))
		return;
	if (errno == EACCES)
		die(EX_PERM, "xenstore refused the write of %s: only the control domain manages groups and trust",
		    path);
	die(EX_FAIL, "cannot write xenstore %s: %s", path, strerror(errno));
}

/* Does domain DOM still exist (and is it not being destroyed)? */
static bool dom_exists(uint32_t dom)
{
	struct xfab_group_op op = { .op = XFAB_GROUP_QUERY };

	open_xencall();
	return xfab_group_call(ctx.xc, ctx.dc, dom, &op) != -ESRCH;
}

/* Drop the destroyed domains from IDS; returns how many are left. */
static unsigned int prune_gone(uint32_t *ids, unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (dom_exists(ids[i]))
			ids[k++] = ids[i];
	return k;
}

/* Parse a members list "3 5 9" into ids; returns the count. */
static unsigned int parse_members(const char *s, uint32_t *ids)
{
	unsigned int n = 0;
	char *end;

	while (s && *s && n < MAX_MEMBERS) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s)
			break;
		ids[n++] = (uint32_t)v;
		s = end;
	}
	return n;
}

/*
 * Every records update reads what it changes inside its own xenstore
 * transaction: two xfabctl runs at once (xl's hotplug scripts start one
 * per new domain) then conflict, and the later one reads again, where a
 * list read before the transaction would make one drop the other's
 * member. A new group's id is committed before anyone joins it, and no
 * id is given out twice (new_id()), so two groups never share one: the
 * hypervisor knows groups by id alone, and one id would make them one.
 */

/* End transaction T; false if it must run again (another one won). */
static bool tx_end(xs_transaction_t t)
{
	if (xs_transaction_end(ctx.xs, t, false))
		return true;
	if (errno != EAGAIN)
		die(EX_FAIL, "xenstore transaction failed: %s", strerror(errno));
	return false;
}

static xs_transaction_t tx_start(void)
{
	xs_transaction_t t = xs_transaction_start(open_xs());

	if (t == XBT_NULL)
		die(EX_FAIL, "cannot start a xenstore transaction: %s", strerror(errno));
	return t;
}

/* Does a group in /xfab/groups other than NAME have ID (read in T)? */
static bool id_taken(xs_transaction_t t, unsigned int id, const char *name)
{
	char **ents, *v;
	unsigned int i, n;
	bool used = false;

	ents = xs_directory(ctx.xs, t, "/xfab/groups", &n);
	for (i = 0; ents && i < n && !used; i++) {
		if (name && !strcmp(ents[i], name))
			continue;
		v = xs_tget(t, "/xfab/groups/%s/id", ents[i]);
		used = v && strtoul(v, NULL, 10) == id;
		free(v);
	}
	free(ents);
	return used;
}

/*
 * A new group's id (in T): the counter's, which then moves on, so an id
 * whose group went is not given to the next new one, while a run that
 * joined domains to it may still be writing its records. Ids in use are
 * skipped (records from before the counter, or a counter reset by hand).
 */
static unsigned int new_id(xs_transaction_t t)
{
	char *v = xs_tget(t, NEXT_ID_PATH), buf[16];
	unsigned long id = v ? strtoul(v, NULL, 10) : 1;

	free(v);
	for (;; id++) {
		if (!id || id > UINT32_MAX)
			id = 1;
		if (!id_taken(t, (unsigned int)id, NULL))
			break;
	}
	snprintf(buf, sizeof(buf), "%lu", id + 1 > UINT32_MAX ? 1 : id + 1);
	xs_put(t, NEXT_ID_PATH, buf);
	return (unsigned int)id;
}

/* Group NAME's id as transaction T reads it; 0 if there is no such group. */
static unsigned int read_id(xs_transaction_t t, const char *name)
{
	char *v = xs_tget(t, "/xfab/groups/%s/id", name);
	unsigned int id = v ? (unsigned int)strtoul(v, NULL, 10) : 0;

	free(v);
	return id;
}

/*
 * The id of group NAME, committed for it now if it has none (*created
 * says so), before any domain joins it.
 */
static unsigned int group_id(const char *name, bool *created)
{
	char path[128], idbuf[16];
	xs_transaction_t t;
	unsigned int id;

	do {
		t = tx_start();
		id = read_id(t, name);
		*created = !id;
		if (!id) {
			id = new_id(t);
			snprintf(path, sizeof(path), "/xfab/groups/%s/id", name);
			snprintf(idbuf, sizeof(idbuf), "%u", id);
			xs_put(t, path, idbuf);
		}
	} while (!tx_end(t));
	return id;
}

/*
 * A group add that joined nobody leaves no group behind: the id it
 * committed goes, unless a member came meanwhile.
 */
static void drop_if_empty(const char *name)
{
	char path[128], *v;
	xs_transaction_t t;

	snprintf(path, sizeof(path), "/xfab/groups/%s", name);
	do {
		t = tx_start();
		v = xs_tget(t, "%s/members", path);
		if (!v)
			xs_rm(ctx.xs, t, path);
		free(v);
	} while (!tx_end(t));
}

static bool listed(const uint32_t *ids, unsigned int n, uint32_t dom)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ids[i] == dom)
			return true;
	return false;
}

/* What a records update does to the member list. */
struct members_edit {
	const uint32_t *add;	/* joined already */
	unsigned int nadd;
	uint32_t drop;		/* leaving (0: none; dom0 is never a member) */
};

/*
 * The member list as transaction T reads it, destroyed domains left
 * out, EDIT applied. Returns the count, or UPDATE_FULL if the adds do
 * not fit.
 */
static unsigned int edit_members(xs_transaction_t t, const char *name,
				 const struct members_edit *e, uint32_t *ids)
{
	char *v = xs_tget(t, "/xfab/groups/%s/members", name);
	unsigned int n = prune_gone(ids, parse_members(v, ids)), i, j, k;

	free(v);
	for (j = 0, k = 0; j < n; j++)
		if (ids[j] != e->drop)
			ids[k++] = ids[j];
	n = k;
	for (i = 0; i < e->nadd; i++) {
		if (listed(ids, n, e->add[i]))
			continue;
		if (n == MAX_MEMBERS)
			return UPDATE_FULL;
		ids[n++] = e->add[i];
	}
	return n;
}

/*
 * Write group NAME's records in T: its members list, and in each
 * member's own directory the record it may read (owner dom0, read for
 * it only). No members: the group goes.
 */
static void put_records(xs_transaction_t t, const char *name, unsigned int id,
			const uint32_t *ids, unsigned int n)
{
	char path[128], list[MAX_MEMBERS * 8] = "", idbuf[16];
	struct xs_permissions perms[2];
	unsigned int i;

	for (i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%u", i ? " " : "", ids[i]);
	snprintf(idbuf, sizeof(idbuf), "%u", id);
	snprintf(path, sizeof(path), "/xfab/groups/%s", name);
	if (!n) {
		xs_rm(ctx.xs, t, path);
	} else {
		snprintf(path, sizeof(path), "/xfab/groups/%s/id", name);
		xs_put(t, path, idbuf);
		snprintf(path, sizeof(path), "/xfab/groups/%s/members", name);
		xs_put(t, path, list);
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/local/domain/%u/xfab", ids[i]);
		xs_put(t, path, "");
		perms[0] = (struct xs_permissions){ .id = 0, .perms = XS_PERM_NONE };
		perms[1] = (struct xs_permissions){ .id = ids[i], .perms = XS_PERM_READ };
		if (!xs_set_permissions(ctx.xs, t, path, perms, 2))
			die(EX_FAIL, "cannot set permissions of %s: %s", path, strerror(errno));
		snprintf(path, sizeof(path), "/local/domain/%u/xfab/group", ids[i]);
		xs_put(t, path, name);
		snprintf(path, sizeof(path), "/local/domain/%u/xfab/group-id", ids[i]);
		xs_put(t, path, idbuf);
		snprintf(path, sizeof(path), "/local/domain/%u/xfab/members", ids[i]);
		xs_put(t, path, list);
	}
}

/*
 * Apply EDIT to group NAME's records. Returns the member count, or
 * (nothing written) UPDATE_FULL if the adds do not fit, UPDATE_LOST if
 * the group is no longer the one with id ID that its new members joined
 * (its last member left meanwhile, and it was made again with a new id).
 * ID 0 (a remove): the group's own; if it has gone, nothing is done.
 */
static unsigned int update_records(const char *name, unsigned int id,
				   const struct members_edit *e)
{
	uint32_t ids[MAX_MEMBERS];
	unsigned int n, gid;
	xs_transaction_t t;

	do {
		t = tx_start();
		gid = read_id(t, name);
		n = 0;
		if (!id && !gid)
			goto abort;
		n = UPDATE_LOST;
		if (id && (gid ? gid != id : id_taken(t, id, name)))
			goto abort;
		gid = id ?: gid;
		n = edit_members(t, name, e, ids);
		if (n > MAX_MEMBERS)
			goto abort;
		put_records(t, name, gid, ids, n);
	} while (!tx_end(t));
	return n;
abort:
	xs_transaction_end(ctx.xs, t, true);
	return n;
}

/* `group add` is all or nothing: out go the domains it put in. */
static void undo_joins(const uint32_t *doms, unsigned int n)
{
	struct xfab_group_op op;
	unsigned int i;

	for (i = 0; i < n; i++) {
		op = (struct xfab_group_op){ .op = XFAB_GROUP_LEAVE };
		xfab_group_call(ctx.xc, ctx.dc, doms[i], &op);
	}
}

/*
 * Join DOM to group ID, or undo the joins so far (NEW, NNEW) and exit
 * saying why; CREATED names the group if this run made it, which then
 * goes too.
 */
static void join_or_undo(uint32_t dom, unsigned int id, const uint32_t *new,
			 unsigned int nnew, const char *created)
{
	struct xfab_group_op op = { .op = XFAB_GROUP_JOIN, .group = id };
	int rc;

	open_xencall();
	rc = xfab_group_call(ctx.xc, ctx.dc, dom, &op);
	if (rc) {
		undo_joins(new, nnew);
		if (created)
			drop_if_empty(created);
	}
	if (rc == -EOPNOTSUPP)
		die(EX_FAIL, "domain %u may not join a group: " NO_RIGHTS_WHY, dom);
	group_fail(dom, rc);
}

/* The domains named in ARGV, each checked free to join group NAME. */
static unsigned int add_candidates(const char *name, int argc, char **argv,
				   uint32_t *doms)
{
	unsigned int i;
	char *v;

	if (argc > MAX_MEMBERS)
		die(EX_USAGE, "at most %d domains in a group", MAX_MEMBERS);
	for (i = 0; i < (unsigned int)argc; i++) {
		doms[i] = parse_dom(argv[i]);
		/* the hypervisor refuses it too; say so before any join */
		if (!doms[i])
			die(EX_USAGE, "domain 0 may not join a group: " NO_RIGHTS_WHY);
		v = xs_get("/local/domain/%u/xfab/group", doms[i]);
		if (v && strcmp(v, name))
			die(EX_FAIL, "domain %u is in group '%s'; remove it first", doms[i], v);
		free(v);
	}
	return i;
}

static int cmd_group_add(int argc, char **argv)
{
	uint32_t ids[MAX_MEMBERS], added[MAX_MEMBERS], doms[MAX_MEMBERS];
	unsigned int id, n, i, ndoms, nadded = 0, fresh = 0;
	const char *made;
	bool created;
	char *v;

	if (argc < 2)
		return usage(stderr), EX_USAGE;
	if (!valid_name(argv[0]))
		die(EX_USAGE, "bad group name '%s': 1-32 letters, digits, '-', '_' or '.'", argv[0]);
	open_xs();
	ndoms = add_candidates(argv[0], argc - 1, argv + 1, doms);
	/* who is in already: their joins are no-ops, never undone */
	v = xs_get("/xfab/groups/%s/members", argv[0]);
	n = prune_gone(ids, parse_members(v, ids));
	free(v);
	for (i = 0; i < ndoms; i++)
		fresh += !listed(ids, n, doms[i]);
	if (n + fresh > MAX_MEMBERS)
		die(EX_FAIL, "group '%s' is full (%d members)", argv[0], MAX_MEMBERS);
	id = group_id(argv[0], &created);
	made = created ? argv[0] : NULL;
	for (i = 0; i < ndoms; i++) {
		join_or_undo(doms[i], id, added, nadded, made);
		if (!listed(ids, n, doms[i]))
			added[nadded++] = doms[i];
	}
	n = update_records(argv[0], id, &(struct members_edit){ doms, ndoms, 0 });
	if (n > MAX_MEMBERS) {
		undo_joins(added, nadded);
		if (made)
			drop_if_empty(made);
		if (n == UPDATE_FULL)	/* others joined meanwhile */
			die(EX_FAIL, "group '%s' is full (%d members)", argv[0], MAX_MEMBERS);
		die(EX_FAIL, "group '%s' lost its last member while we joined it (id %u) and was made again: run the add again",
		    argv[0], id);
	}
	printf("group %s (id %u): %u member%s\n", argv[0], id, n, n == 1 ? "" : "s");
	return EX_OK;
}

static int cmd_group_remove(int argc, char **argv)
{
	struct xfab_group_op op;
	unsigned int n, i;
	char *name, path[64];
	uint32_t dom;

	if (argc < 1)
		return usage(stderr), EX_USAGE;
	open_xs();
	for (i = 0; i < (unsigned int)argc; i++) {
		dom = parse_dom(argv[i]);
		op = (struct xfab_group_op){ .op = XFAB_GROUP_LEAVE };
		group_call(dom, &op);
		name = xs_get("/local/domain/%u/xfab/group", dom);
		snprintf(path, sizeof(path), "/local/domain/%u/xfab", dom);
		xs_rm(ctx.xs, XBT_NULL, path);
		if (!name) {
			printf("domain %u: in no group\n", dom);
			continue;
		}
		n = update_records(name, 0, &(struct members_edit){ .drop = dom });
		printf("domain %u left group %s (%u left)\n", dom, name, n);
		free(name);
	}
	return EX_OK;
}

/*
 * Is DOM destroyed but still there? Its pages stay allocated while
 * anyone maps one (a member's window or tool): a frames call on it says
 * ESRCH while a query still finds it.
 */
static bool is_zombie(uint32_t dom)
{
	struct xfab_group_op op = { .op = XFAB_GROUP_FRAMES,
				    .start = XFAB_GROUP_END };

	return xfab_group_call(ctx.xc, ctx.dc, dom, &op) == -ESRCH;
}

/* One member's line of `group show`: what the hypervisor says of it. */
static void show_member(const char *group, unsigned int id, uint32_t dom,
			bool json, bool first)
{
	struct xfab_group_op op = { .op = XFAB_GROUP_QUERY };
	const char *state = "gone";
	char *name;
	int rc;

	open_xencall();
	rc = xfab_group_call(ctx.xc, ctx.dc, dom, &op);
	if (rc != -ESRCH) {
		group_fail(dom, rc);	/* returns on success only */
		state = op.group == id ? "member" : "mismatch";
		if (is_zombie(dom))
			state = "zombie";
	}
	name = xs_get("/local/domain/%u/name", dom);
	if (json)
		printf("%s{\"group\":\"%s\",\"id\":%u,\"domid\":%u,\"name\":\"%s\",\"state\":\"%s\",\"hv_group\":%u,\"pages\":%llu}",
		       first ? "" : ",", group, id, dom, name ? name : "", state,
		       rc ? 0 : op.group, rc ? 0ULL : (unsigned long long)op.tot_pages);
	else
		printf("%-16s %5u %6u %-16s %-9s %8llu\n", group, id, dom,
		       name ? name : "-", state,
		       rc ? 0ULL : (unsigned long long)op.tot_pages);
	free(name);
}

static int cmd_group_show(int argc, char **argv)
{
	bool json = false, first = true;
	const char *only = NULL;
	uint32_t ids[MAX_MEMBERS];
	unsigned int i, j, n, m, id;
	char **ents, *v;

	for (i = 0; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!only)
			only = argv[i];
		else
			return usage(stderr), EX_USAGE;
	}
	open_xs();
	if (only && !read_id(XBT_NULL, only))
		die(EX_NODOM, "no group named '%s'", only);
	ents = xs_directory(ctx.xs, XBT_NULL, "/xfab/groups", &n);
	printf(json ? "[" : "%-16s %5s %6s %-16s %-9s %8s\n", "group", "id",
	       "domid", "name", "state", "pages");
	for (i = 0; ents && i < n; i++) {
		if (only && strcmp(only, ents[i]))
			continue;
		id = read_id(XBT_NULL, ents[i]);
		if (!id)
			continue;	/* gone since the listing */
		v = xs_get("/xfab/groups/%s/members", ents[i]);
		m = parse_members(v, ids);
		free(v);
		for (j = 0; j < m; j++, first = false)
			show_member(ents[i], id, ids[j], json, first);
	}
	if (json)
		printf("]\n");
	free(ents);
	return EX_OK;
}

/* What a member would map: DOM's frames, scanned the way members do. */
static int cmd_group_frames(int argc, char **argv)
{
	struct xfab_group_op op = { .op = XFAB_GROUP_FRAMES };
	bool list = argc > 1 && !strcmp(argv[1], "--list");
	unsigned long long total = 0;
	uint64_t *buf;
	uint32_t dom;
	unsigned int i;

	if (argc < 1 || argc > 2 || (argc == 2 && !list))
		return usage(stderr), EX_USAGE;
	dom = parse_dom(argv[0]);
	open_xencall();
	buf = xencall_alloc_buffer(ctx.xc, XFAB_GROUP_MAX_FRAMES * sizeof(*buf));
	if (!buf)
		die(EX_FAIL, "cannot allocate a hypercall buffer: %s", strerror(errno));
	while (op.start != XFAB_GROUP_END) {
		op.nr = XFAB_GROUP_MAX_FRAMES;
		op.frames = (uint64_t)(uintptr_t)buf;
		group_call(dom, &op);
		for (i = 0; list && i < op.nr; i++)
			printf("%#llx\n", (unsigned long long)buf[i]);
		total += op.nr;
	}
	printf("domain %u: %llu frames found, %llu pages owned\n", dom, total,
	       (unsigned long long)op.tot_pages);
	return EX_OK;
}

/*
 * The trust key the xfab backends read in the frontend's directory:
 * relaxed lets a frontend grant its own pages in place (its own
 * confidentiality is what it gives up; never the backend's safety).
 */
static int cmd_trust(int argc, char **argv)
{
	char path[128], *fe;
	uint32_t dom;

	if (argc != 3)
		return usage(stderr), EX_USAGE;
	if (strcmp(argv[2], "relaxed") && strcmp(argv[2], "strict"))
		die(EX_USAGE, "trust must be 'relaxed' or 'strict', not '%s'", argv[2]);
	if (strncmp(argv[1], "vif/", 4) && strncmp(argv[1], "vbd/", 4))
		die(EX_USAGE, "device '%s' is neither vif/N nor vbd/N", argv[1]);
	dom = parse_dom(argv[0]);
	open_xs();
	fe = xs_get("/local/domain/%u/device/%s/backend", dom, argv[1]);
	if (!fe)
		die(EX_NODOM, "domain %u has no device %s", dom, argv[1]);
	free(fe);
	snprintf(path, sizeof(path), "/local/domain/%u/device/%s/xfab-trust", dom, argv[1]);
	xs_put(XBT_NULL, path, argv[2]);
	printf("domain %u %s: trust %s (read when the device connects)\n", dom,
	       argv[1], argv[2]);
	return EX_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EX_USAGE : EX_OK;
	}
	if (!strcmp(argv[1], "trust"))
		return cmd_trust(argc - 2, argv + 2);
	if (!strcmp(argv[1], "status"))
		return cmd_status(argc - 2, argv + 2);
	if (strcmp(argv[1], "group") || argc < 3) {
		fprintf(stderr, "xfabctl: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return EX_USAGE;
	}
	if (!strcmp(argv[2], "add"))
		return cmd_group_add(argc - 3, argv + 3);
	if (!strcmp(argv[2], "remove"))
		return cmd_group_remove(argc - 3, argv + 3);
	if (!strcmp(argv[2], "show"))
		return cmd_group_show(argc - 3, argv + 3);
	if (!strcmp(argv[2], "frames"))
		return cmd_group_frames(argc - 3, argv + 3);
	fprintf(stderr, "xfabctl: unknown group command '%s'\n", argv[2]);
	usage(stderr);
	return EX_USAGE;
}
