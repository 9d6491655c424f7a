/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A small kselftest-like harness for the userspace unit tests of common/.
 * TEST(name) { ... } registers a test; ASSERT_* stops the test on the first
 * failed check and reports file:line with both values. The runner (main.c)
 * prints one line per test and a closing "N passed, N failed".
 */
#ifndef XFAB_TEST_H
#define XFAB_TEST_H

#include <stdio.h>
#include <stdint.h>

struct xfab_test {
	const char *name;
	void (*fn)(int *failed);
	struct xfab_test *next;
};

void xfab_test_register(struct xfab_test *t);

#define TEST(tname)                                                      \
	static void tname##_fn(int *_failed);                            \
	static struct xfab_test tname##_test = { #tname, tname##_fn, 0 }; \
	__attribute__((constructor)) static void tname##_reg(void)       \
	{                                                                \
		xfab_test_register(&tname##_test);                       \
	}                                                                \
	static void tname##_fn(int *_failed)

#define ASSERT_OP(a, op, b)                                                  \
	do {                                                                 \
		long long _a = (long long)(a), _b = (long long)(b);          \
		if (!(_a op _b)) {                                           \
			fprintf(stderr, "  %s:%d: %s %s %s (%lld vs %lld)\n",  \
				__FILE__, __LINE__, #a, #op, #b, _a, _b);    \
			*_failed = 1;                                        \
			return;                                              \
		}                                                            \
	} while (0)

#define ASSERT_EQ(a, b) ASSERT_OP(a, ==, b)
#define ASSERT_NE(a, b) ASSERT_OP(a, !=, b)
#define ASSERT_LE(a, b) ASSERT_OP(a, <=, b)
#define ASSERT_LT(a, b) ASSERT_OP(a, <, b)
#define ASSERT_GE(a, b) ASSERT_OP(a, >=, b)
#define ASSERT_TRUE(a) ASSERT_OP(!!(a), ==, 1)
#define ASSERT_FALSE(a) ASSERT_OP(!!(a), ==, 0)

#endif /* XFAB_TEST_H */
