/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the libaccel command-line tools (one header, static functions).
 */
#ifndef ACCEL_TOOL_H
#define ACCEL_TOOL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accel.h"

static const char *tool_name = "accel-tool";

static __attribute__((unused)) void __attribute__((noreturn, format(printf, 1, 2))) tool_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static __attribute__((unused)) void tool_check(int ret, const char *what)
{
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", tool_name, what, accel_strerror(ret));
		exit(1);
	}
}

/* A whole file (or stdin for "-"), NUL-terminated; *len gets its size. */
static __attribute__((unused)) char *tool_read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 1 << 16, n = 0;
	char *buf;

	if (!f)
		tool_die("%s: %s", path, strerror(errno));
	buf = malloc(cap + 1);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap + 1);
	}
	if (!buf)
		tool_die("out of memory");
	if (ferror(f))
		tool_die("%s: read error", path);
	if (f != stdin)
		fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

/* 4096, 0x1000, 64K, 1M */
static __attribute__((unused)) int tool_parse_size(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		*v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		*v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		*v <<= 30, end++;
	return *end ? -EINVAL : 0;
}

static __attribute__((unused)) enum accel_submit_mode tool_mode(const char *s)
{
	if (!strcmp(s, "uring"))
		return ACCEL_SUBMIT_URING;
	if (!strcmp(s, "ioctl"))
		return ACCEL_SUBMIT_IOCTL;
	if (!strcmp(s, "auto"))
		return ACCEL_SUBMIT_AUTO;
	tool_die("submission mode is uring, ioctl or auto, not '%s'", s);
}

static __attribute__((unused)) double tool_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif /* ACCEL_TOOL_H */
