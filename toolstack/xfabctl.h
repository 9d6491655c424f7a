/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What xfabctl's command files share: exit codes, the open handles and
 * the helpers that exit with a message (xfabctl.c).
 */
#ifndef XFABCTL_H
#define XFABCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <xenstore.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { EX_OK, EX_FAIL, EX_USAGE, EX_PERM, EX_NODOM, EX_NOPATCH };

void die(int code, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
void usage(FILE *f);
/* The xenstore handle, opened on first use; exits if xenstored is absent. */
struct xs_handle *open_xs(void);
/*
 * A xenstore value (malloc'd, NUL-terminated) or NULL if absent, read in
 * transaction T (the read then counts in its conflict check), or outside
 * any with xs_get().
 */
char *xs_tget(xs_transaction_t t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define xs_get(...) xs_tget(XBT_NULL, __VA_ARGS__)
/* 1-32 letters, digits, '-', '_' or '.': a group name, or one we print. */
bool valid_name(const char *s);
/* A domain id from "12" or a domain's name; exits if there is none. */
uint32_t parse_dom(const char *s);

int cmd_status(int argc, char **argv);

#endif /* XFABCTL_H */
