/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Types and helpers that let common/ compile both into the kernel modules
 * and into the userspace unit tests and fuzzers. Nothing here works around
 * a kernel version: that goes in xfab_compat.h.
 */
#ifndef XFAB_TYPES_H
#define XFAB_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/compiler.h>
#else
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int16_t s16;
typedef int32_t s32;

/*
 * A shared field must be read exactly once: the compiler may not re-load
 * it later (double fetch, XSA-155). Same contract as the kernel's macro.
 */
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#endif

/* Xen's page: the unit of grants and ring pages, whatever the OS's is. */
#define XFAB_PAGE_SIZE 4096u

/* Xen ring indices are free-running 32-bit counters that wrap. */
typedef u32 xfab_idx_t;

#endif /* XFAB_TYPES_H */
