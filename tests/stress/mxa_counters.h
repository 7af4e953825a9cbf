/* SPDX-License-Identifier: MIT */
/*
 * The driver's debugfs seen from guest programs (fuzz-driver, mxa-stress, the guest
 * kselftests): live-object counters (bos, contexts, jobs, ...) and the job timeout.
 * /sys/kernel/debug/accel/<PCI address of accelN>/{counters,job_timeout_ms}.
 */
#ifndef MXA_COUNTERS_H
#define MXA_COUNTERS_H

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mxa_counters {
	long bos, contexts, jobs;
};

/* The debugfs directory of the device node @node ("/dev/accel/accel0"); 0 or -errno. */
static inline int mxa_debugfs_dir(const char *node, char *dir, size_t len)
{
	char link[256], target[256];
	const char *name = strrchr(node, '/') ? strrchr(node, '/') + 1 : node;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/class/accel/%s/device", name);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = 0;
	snprintf(dir, len, "/sys/kernel/debug/accel/%s", basename(target));
	return 0;
}

/*
 * The path of debugfs file @file of the device under test ($ACCEL_DEVICE, default
 * /dev/accel/accel0), in a static buffer; "/nonexistent/..." when there is none.
 */
static inline const char *mxa_debugfs_file(const char *file)
{
	static char path[600];
	const char *node = getenv("ACCEL_DEVICE");
	char dir[512];

	if (mxa_debugfs_dir(node ? node : "/dev/accel/accel0", dir, sizeof(dir)))
		snprintf(dir, sizeof(dir), "/nonexistent");
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return path;
}

/* The value of line "@name N" of the device's debugfs counters; -1 if missing. */
static inline long mxa_counter(const char *name)
{
	char line[128];
	size_t l = strlen(name);
	long v = -1;
	FILE *f = fopen(mxa_debugfs_file("counters"), "r");

	if (!f)
		return -1;
	while (v < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, l) && line[l] == ' ')
			v = strtol(line + l + 1, NULL, 10);
	fclose(f);
	return v;
}

static inline int mxa_read_counters(const char *dir, struct mxa_counters *c)
{
	char path[600], line[128];
	FILE *f;

	c->bos = c->contexts = c->jobs = -1;
	snprintf(path, sizeof(path), "%s/counters", dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		long v;

		if (sscanf(line, "bos %ld", &v) == 1)
			c->bos = v;
		else if (sscanf(line, "contexts %ld", &v) == 1)
			c->contexts = v;
		else if (sscanf(line, "jobs %ld", &v) == 1)
			c->jobs = v;
	}
	fclose(f);
	return c->bos < 0 || c->contexts < 0 || c->jobs < 0 ? -ENODATA : 0;
}

static inline int mxa_counters_equal(const struct mxa_counters *a, const struct mxa_counters *b)
{
	return a->bos == b->bos && a->contexts == b->contexts && a->jobs == b->jobs;
}

/*
 * Wait up to @seconds for the counters to return to @base (jobs of closed files run to
 * their end first); @now gets the last reading. 1 when they did, else 0.
 */
static inline int mxa_counters_settle(const char *dir, const struct mxa_counters *base,
				      struct mxa_counters *now, int seconds)
{
	int i;

	for (i = 0; i <= seconds * 10; i++) {
		if (!mxa_read_counters(dir, now) && mxa_counters_equal(base, now))
			return 1;
		usleep(100000);
	}
	return 0;
}

/* debugfs job_timeout_ms: the value (>= 0) or -errno. */
static inline int mxa_get_job_timeout(const char *dir)
{
	char path[600], buf[32];
	int fd, n;

	snprintf(path, sizeof(path), "%s/job_timeout_ms", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	return (int)strtoul(buf, NULL, 10);
}

static inline int mxa_set_job_timeout(const char *dir, unsigned int ms)
{
	char path[600], buf[32];
	int fd, n, ret = 0;

	snprintf(path, sizeof(path), "%s/job_timeout_ms", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%u\n", ms);
	if (write(fd, buf, n) != n)
		ret = -EIO;
	close(fd);
	return ret;
}

#endif /* MXA_COUNTERS_H */
