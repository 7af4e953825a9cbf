/* SPDX-License-Identifier: MIT */
/*
 * kfault.h - the kernel's fault injection (failslab, fail_page_alloc, fail_usercopy;
 * Documentation/fault-injection/fault-injection.rst in the kernel) aimed at mxa.ko:
 * only tasks that ask for it (make-it-fail) fail, and only in allocations and user
 * copies made with mxa.ko's code on the stack, so that the failures land in the
 * driver's own error paths and not in the test program's page faults or in drm_ioctl.
 *
 * Each attribute counts down "times" once per injected failure: armed with
 * KFAULT_TIMES, what is left at the end gives the number of failures injected.
 * Needs the debug guest kernel (CONFIG_FAULT_INJECTION_DEBUG_FS and the stack-trace
 * filter); kfault_arm() says why it cannot arm on another kernel.
 */
#ifndef MXA_KFAULT_H
#define MXA_KFAULT_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KFAULT_DIR	"/sys/kernel/debug"
#define KFAULT_N	3
#define KFAULT_TIMES	1000000000L

static const char *const kfault_names[KFAULT_N] = {
	"failslab", "fail_page_alloc", "fail_usercopy",
};

static int kfault_write(const char *attr, const char *file, const char *val)
{
	char path[256];
	int fd, ok;

	snprintf(path, sizeof(path), KFAULT_DIR "/%s/%s", attr, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -EIO;
}

static long kfault_read(const char *attr, const char *file)
{
	char path[256], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), KFAULT_DIR "/%s/%s", attr, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 0);
}

/* The address range of module @name's memory, from /proc/modules (root sees addresses). */
static int kfault_module_range(const char *name, unsigned long *start, unsigned long *end)
{
	char line[512], mod[64];
	unsigned long size, base;
	FILE *f = fopen("/proc/modules", "r");
	int found = 0;

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lu %*s %*s %*s %lx", mod, &size, &base) == 3 &&
		    !strcmp(mod, name) && base) {
			*start = base;
			*end = base + size;
			found = 1;
		}
	fclose(f);
	return found ? 0 : -ENOENT;
}

/*
 * The text of the kernel's DMA API debugging (kernel/dma/debug.c: from @first to the end
 * of @last), from /proc/kallsyms; 0..0 when the kernel has none.
 */
static void kfault_text_range(const char *first, const char *last, unsigned long *start,
			      unsigned long *end)
{
	unsigned long addr, last_addr = 0;
	char line[512], type, name[256];
	FILE *f = fopen("/proc/kallsyms", "r");

	*start = *end = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &addr, &type, name) == 3) {
			if (!strcmp(name, first))
				*start = addr;
			else if (!strcmp(name, last))
				last_addr = addr;
		}
	rewind(f);
	/* the end of @last: the next symbol's address */
	while (last_addr && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &addr, &type, name) == 3 && addr > last_addr &&
		    (!*end || addr < *end))
			*end = addr;
	fclose(f);
	if (!*start || *end <= *start)
		*start = *end = 0;
}

/*
 * A line in the kernel log, so that the guest harness (tests/vm/run-guest.py) knows
 * which allocation-failure reports were injected: those between "mxa-kfault: armed"
 * and "mxa-kfault: disarmed".
 */
static void kfault_mark(const char *what)
{
	char line[64];
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	snprintf(line, sizeof(line), "mxa-kfault: %s\n", what);
	if (write(fd, line, strlen(line)) < 0)
		perror("/dev/kmsg");
	close(fd);
}

/*
 * Arm the three attributes: each allocation or user copy of a task with make-it-fail
 * and module @mod on its stack fails with probability @percent. 0, or -errno with
 * @why filled.
 */
static int kfault_arm(const char *mod, int percent, char *why, size_t len)
{
	unsigned long start = 0, end = 0, dbg_start, dbg_end;
	int i, ret;

	kfault_mark("armed");
	ret = kfault_module_range(mod, &start, &end);
	if (ret) {
		snprintf(why, len, "no address range for module %s in /proc/modules", mod);
		return ret;
	}
	/*
	 * Not in the DMA API's debugging, which checks the driver: an allocation failure
	 * there turns it off for good ("cacheline tracking ENOMEM, dma-debug disabled"),
	 * and its list of mappings goes stale for the tests that follow.
	 */
	kfault_text_range("dma_debug_create_entries", "debug_dma_free_pages", &dbg_start,
			  &dbg_end);
	/* Sleeping allocations too (the driver's are GFP_KERNEL), of any order. */
	ret = kfault_write("failslab", "ignore-gfp-wait", "N");
	ret = ret ?: kfault_write("fail_page_alloc", "ignore-gfp-wait", "N");
	ret = ret ?: kfault_write("fail_page_alloc", "ignore-gfp-highmem", "N");
	ret = ret ?: kfault_write("fail_page_alloc", "min-order", "0");
	if (ret) {
		snprintf(why, len, "setting the gfp filters: %s (a kernel without fault injection?)",
			 strerror(-ret));
		return ret;
	}
	for (i = 0; i < KFAULT_N; i++) {
		const char *a = kfault_names[i];
		/*
		 * The filters first, the probability last: an attribute with a probability
		 * and no filter yet fails any task's calls (this program's own open() of
		 * the next control file, found in the first run).
		 */
		struct { const char *file; char val[32]; } set[] = {
			{ "probability", "0" }, { "task-filter", "Y" }, { "verbose", "0" },
			{ "interval", "1" }, { "times", "" }, { "space", "0" },
			{ "require-start", "" }, { "require-end", "" },
			{ "reject-start", "" }, { "reject-end", "" },
			{ "stacktrace-depth", "32" }, { "probability", "" },
		};
		unsigned int j;

		snprintf(set[4].val, sizeof(set[4].val), "%ld", KFAULT_TIMES);
		snprintf(set[6].val, sizeof(set[6].val), "%lu", start);
		snprintf(set[7].val, sizeof(set[7].val), "%lu", end);
		snprintf(set[8].val, sizeof(set[8].val), "%lu", dbg_start);
		snprintf(set[9].val, sizeof(set[9].val), "%lu", dbg_end);
		snprintf(set[11].val, sizeof(set[11].val), "%d", percent);
		for (j = 0; j < sizeof(set) / sizeof(set[0]); j++) {
			ret = kfault_write(a, set[j].file, set[j].val);
			if (ret) {
				snprintf(why, len, "%s/%s/%s: %s (a kernel without fault injection?)",
					 KFAULT_DIR, a, set[j].file, strerror(-ret));
				return ret;
			}
		}
	}
	return 0;
}

/* Disarm; @injected[i] = the failures attribute i injected since kfault_arm(). */
static void kfault_disarm(long injected[KFAULT_N])
{
	int i;

	for (i = 0; i < KFAULT_N; i++) {
		long left;

		kfault_write(kfault_names[i], "probability", "0");
		left = kfault_read(kfault_names[i], "times");
		injected[i] = left < 0 ? -1 : KFAULT_TIMES - left;
	}
	kfault_mark("disarmed");
}

/* This thread's make-it-fail: 1 while it calls into the driver, 0 around its own work. */
static void kfault_self(int on)
{
	int fd = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, on ? "1" : "0", 1) != 1)
			perror("make-it-fail");
		close(fd);
	}
}

#endif /* MXA_KFAULT_H */
