/* SPDX-License-Identifier: MIT */
/*
 * host_check.h - point-by-point checks for the engine's host tests, on the project's
 * one test harness, the kernel's kselftest.h (the guest tests and libaccel's host
 * tests use its kselftest_harness.h): one TAP point per host_check(), the plan at the
 * end, the exit status of ksft_finished().
 */
#ifndef HOST_CHECK_H
#define HOST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#include "kselftest.h"

/* One TAP point named by @fmt; returns @cond. */
__attribute__((format(printf, 2, 3)))
static int host_check(int cond, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cond)
		ksft_test_result_pass("%s\n", msg);
	else
		ksft_test_result_fail("%s\n", msg);
	return cond;
}

/* A "# ..." diagnostic line. */
__attribute__((format(printf, 1, 2), unused))
static void host_diag(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ksft_print_msg("%s\n", msg);
}

/* The plan (after the points, as TAP allows), then exit: 0 when every point passed. */
static int host_check_end(void)
{
	ksft_set_plan(ksft_test_num());
	ksft_finished();
	return 1;	/* not reached */
}

#endif /* HOST_CHECK_H */
