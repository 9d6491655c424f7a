// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Runner for the unit tests: runs every registered test (or those whose
 * name contains argv[1]) and exits non-zero if any failed.
 */
#include <string.h>
#include "xfab_test.h"

static struct xfab_test *head, **tail = &head;

void xfab_test_register(struct xfab_test *t)
{
	*tail = t;
	tail = &t->next;
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int passed = 0, failed = 0;
	struct xfab_test *t;

	for (t = head; t; t = t->next) {
		int bad = 0;

		if (filter && !strstr(t->name, filter))
			continue;
		t->fn(&bad);
		printf("%s %s\n", bad ? "FAIL" : "ok  ", t->name);
		if (bad)
			failed++;
		else
			passed++;
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
