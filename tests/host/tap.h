/* SPDX-License-Identifier: MIT */
/*
 * tap.h - a tiny TAP 13 printer for the host tests: one "ok N name" or
 * "not ok N name" line per check, diagnostics as "# ..." lines, the plan
 * "1..N" at the end, and an exit status that is 1 when anything failed.
 */
#ifndef MXA_TAP_H
#define MXA_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

static void tap_begin(void)
{
	printf("TAP version 13\n");
}

/* Report one check; returns @cond. */
__attribute__((format(printf, 2, 3)))
static int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 1, 2), unused))
static void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Print the plan and return the exit status for main(). */
static int tap_end(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* MXA_TAP_H */
