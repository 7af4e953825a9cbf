/* SPDX-License-Identifier: MIT */
/*
 * mxa_kcompat.h - the kernel names driver/mxa_args.h uses, for userspace builds of it
 * (tests/fuzz/fuzz-args.c). Same meanings as in the kernel; nothing else.
 */
#ifndef MXA_KCOMPAT_H
#define MXA_KCOMPAT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define BIT_ULL(n) (1ull << (n))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)

#endif /* MXA_KCOMPAT_H */
