/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the MXA guest kselftests: raw ioctls (so that the tests see the
 * kernel's own answers, not libaccel's), buffers, and program encoding.
 */
#ifndef MXA_TEST_H
#define MXA_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "drm.h"
#include "drm/mxa_accel.h"
#include "mxa_isa.h"
#include "mxa_regs.h"

#define MXA_TEST_DEVICE	"/dev/accel/accel0"
#define NSEC_PER_SEC	1000000000ll

static inline int mxa_open(void)
{
	const char *path = getenv("ACCEL_DEVICE");

	return open(path ? path : MXA_TEST_DEVICE, O_RDWR | O_CLOEXEC);
}

/* ioctl(); 0 or -errno. */
static inline int mxa_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

static inline int mxa_query_device(int fd, struct drm_mxa_device_info *info)
{
	struct drm_mxa_query q = {
		.type = DRM_MXA_QUERY_DEVICE,
		.size = sizeof(*info),
		.pointer = (uintptr_t)info,
	};

	memset(info, 0, sizeof(*info));
	return mxa_ioctl(fd, DRM_IOCTL_MXA_QUERY, &q);
}

struct mxa_bo {
	uint32_t handle;
	uint64_t va;
	uint64_t size;
	void *map;
};

/* Create a BO and map it in this process; 0 or -errno. */
static inline int mxa_bo_new(int fd, uint64_t size, struct mxa_bo *bo)
{
	struct drm_mxa_bo_create c = { .size = size };
	struct drm_mxa_bo_mmap_offset mo = { 0 };
	struct drm_gem_close cl = { 0 };
	int ret;

	memset(bo, 0, sizeof(*bo));
	ret = mxa_ioctl(fd, DRM_IOCTL_MXA_BO_CREATE, &c);
	if (ret)
		return ret;
	mo.handle = c.handle;
	ret = mxa_ioctl(fd, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo);
	if (!ret) {
		bo->map = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mo.offset);
		if (bo->map == MAP_FAILED)
			ret = -errno;
	}
	if (ret) {
		cl.handle = c.handle;
		mxa_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &cl);
		return ret;
	}
	bo->handle = c.handle;
	bo->va = c.device_va;
	bo->size = c.size;
	return 0;
}

static inline void mxa_bo_free(int fd, struct mxa_bo *bo)
{
	struct drm_gem_close cl = { .handle = bo->handle };

	if (!bo->handle)
		return;
	munmap(bo->map, bo->size);
	mxa_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &cl);
	memset(bo, 0, sizeof(*bo));
}

static inline int mxa_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close cl = { .handle = handle };

	return mxa_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &cl);
}

/* DRM_IOCTL_MXA_SUBMIT of a program in @bo; 0 or -errno. */
static inline int mxa_submit(int fd, uint32_t handle, uint32_t queue, uint32_t offset,
			     uint32_t size, uint64_t *job_id)
{
	struct drm_mxa_submit s = {
		.prog_handle = handle, .queue = queue, .prog_offset = offset, .prog_size = size,
	};
	int ret = mxa_ioctl(fd, DRM_IOCTL_MXA_SUBMIT, &s);

	if (!ret && job_id)
		*job_id = s.job_id;
	return ret;
}

static inline int mxa_wait(int fd, uint64_t job_id, int64_t timeout_ns,
			   struct drm_mxa_job_result *result)
{
	struct drm_mxa_wait w = { .job_id = job_id, .timeout_ns = timeout_ns };
	int ret = mxa_ioctl(fd, DRM_IOCTL_MXA_WAIT, &w);

	if (!ret && result)
		*result = w.result;
	return ret;
}

/* ---- program encoding: each returns the dword after the command ---- */

static inline uint32_t *mxa_put_nop(uint32_t *p)
{
	*p++ = MXA_CMD_HEADER(MXA_OP_NOP, MXA_NOP_DWORDS, 0);
	return p;
}

static inline uint32_t *mxa_put_fence(uint32_t *p, uint64_t va, uint64_t value)
{
	*p++ = MXA_CMD_HEADER(MXA_OP_FENCE_WRITE, MXA_FENCE_WRITE_DWORDS, 0);
	*p++ = (uint32_t)va;
	*p++ = (uint32_t)(va >> 32);
	*p++ = (uint32_t)value;
	*p++ = (uint32_t)(value >> 32);
	return p;
}

static inline uint32_t *mxa_put_timestamp(uint32_t *p, uint64_t va)
{
	*p++ = MXA_CMD_HEADER(MXA_OP_TIMESTAMP, MXA_TIMESTAMP_DWORDS, 0);
	*p++ = (uint32_t)va;
	*p++ = (uint32_t)(va >> 32);
	return p;
}

/* Bytes between two dword pointers. */
/* SEM_WAIT: wait until the 64-bit word at @va is >= @value, at most @timeout_us. */
static inline uint32_t *mxa_put_sem_wait(uint32_t *p, uint64_t va, uint64_t value,
					 uint32_t timeout_us)
{
	*p++ = MXA_CMD_HEADER(MXA_OP_SEM_WAIT, MXA_SEM_WAIT_DWORDS, 0);
	*p++ = (uint32_t)va;
	*p++ = (uint32_t)(va >> 32);
	*p++ = (uint32_t)value;
	*p++ = (uint32_t)(value >> 32);
	*p++ = timeout_us;
	return p;
}

static inline uint32_t mxa_bytes(const uint32_t *start, const uint32_t *end)
{
	return (uint32_t)((end - start) * sizeof(uint32_t));
}

static inline int64_t mxa_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * Evaluate @cond every millisecond until it holds or @timeout_ms passes: true when it
 * held. Tests wait with this for the event their next assertion depends on, never for a
 * fixed time; a timeout that passes is the test's failure, not a reason to go on.
 */
#define mxa_wait_until(cond, timeout_ms)					\
	({								\
		int64_t __end = mxa_now_ns() + (int64_t)(timeout_ms) * 1000000;	\
		int __held;						\
		while (!(__held = !!(cond)) && mxa_now_ns() < __end)	\
			usleep(1000);					\
		__held;							\
	})

/* ---- sysfs, debugfs, procfs files ---- */

/* Read @path into @buf (NUL-terminated, at most @len - 1 bytes): the length or -errno. */
static inline int mxa_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY), n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return n;
}

/* Write @text to @path in one write(): 0 or -errno (the kernel's answer to the write). */
static inline int mxa_write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ret = 0;
	ssize_t n = (ssize_t)strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Is thread @tid of this process asleep inside system call @nr? From
 * /proc/self/task/TID/stat (state S or D) and .../syscall (the number it is in).
 */
static inline int mxa_thread_blocked_in(pid_t tid, long nr)
{
	char path[64], buf[512], *s;
	long in;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	if (mxa_read_text(path, buf, sizeof(buf)) <= 0)
		return 0;
	s = strrchr(buf, ')');	/* the name may hold spaces */
	if (!s || (s[2] != 'S' && s[2] != 'D'))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	if (mxa_read_text(path, buf, sizeof(buf)) <= 0)
		return 0;
	return sscanf(buf, "%ld", &in) == 1 && in == nr;
}

#endif /* MXA_TEST_H */
