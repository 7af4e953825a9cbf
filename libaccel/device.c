// SPDX-License-Identifier: MIT
/*
 * libaccel: opening the device, querying it, choosing the submission path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "accel_internal.h"

int accel_ioctl(int fd, unsigned long request, void *arg)
{
	/* drmIoctl() restarts on EINTR/EAGAIN. */
	return drmIoctl(fd, request, arg) ? -errno : 0;
}

int64_t accel_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int accel_query_device(struct accel_device *dev)
{
	struct drm_mxa_device_info di;
	struct drm_mxa_query q;
	drmVersionPtr ver;
	int ret;

	/*
	 * drmGetVersion() says only NULL: its ioctl's errno tells a node that is no DRM
	 * device (-ENOTTY: -ENODEV here) from a call that failed for want of memory
	 * (found under the debug kernel's fault injection, reported as "not an MXA
	 * device").
	 */
	errno = 0;
	ver = drmGetVersion(dev->fd);
	if (!ver)
		return errno == ENOMEM || errno == EFAULT || errno == EINTR ? -errno : -ENODEV;
	if (!ver->name || strcmp(ver->name, "mxa") != 0) {
		drmFreeVersion(ver);
		return -ENODEV;
	}
	snprintf(dev->info.driver_name, sizeof(dev->info.driver_name), "%s", ver->name);
	snprintf(dev->info.driver_desc, sizeof(dev->info.driver_desc), "%s",
		 ver->desc ? ver->desc : "");
	drmFreeVersion(ver);

	memset(&di, 0, sizeof(di));
	memset(&q, 0, sizeof(q));
	q.type = DRM_MXA_QUERY_DEVICE;
	q.size = sizeof(di);
	q.pointer = (uintptr_t)&di;
	ret = accel_ioctl(dev->fd, DRM_IOCTL_MXA_QUERY, &q);
	if (ret)
		return ret;
	if (di.uapi_major != MXA_UAPI_VERSION_MAJOR)
		return -EOPNOTSUPP;

	dev->info.uapi_major = di.uapi_major;
	dev->info.uapi_minor = di.uapi_minor;
	dev->info.hw_major = di.hw_version >> 16;
	dev->info.hw_minor = di.hw_version & 0xffff;
	dev->info.num_queues = di.num_queues;
	dev->info.num_cores = di.num_cores;
	dev->info.num_engine_threads = di.num_engine_threads;
	dev->info.caps = di.caps;
	dev->info.va_start = di.va_start;
	dev->info.va_end = di.va_end;
	dev->info.max_bo_size = di.max_bo_size;
	dev->info.driver_caps = di.driver_caps;
	return 0;
}

static enum accel_submit_mode accel_mode_from_env(enum accel_submit_mode mode)
{
	const char *env = getenv("ACCEL_SUBMIT");

	if (mode != ACCEL_SUBMIT_AUTO || !env)
		return mode;
	if (!strcmp(env, "uring"))
		return ACCEL_SUBMIT_URING;
	if (!strcmp(env, "ioctl"))
		return ACCEL_SUBMIT_IOCTL;
	return ACCEL_SUBMIT_AUTO;
}

int accel_open(const char *path, enum accel_submit_mode mode, struct accel_device **devp)
{
	struct accel_device *dev;
	int ret;

	*devp = NULL;
	if (mode != ACCEL_SUBMIT_AUTO && mode != ACCEL_SUBMIT_URING && mode != ACCEL_SUBMIT_IOCTL)
		return -EINVAL;
	if (!path)
		path = getenv("ACCEL_DEVICE");
	if (!path)
		path = ACCEL_DEFAULT_DEVICE;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		ret = -errno;
		free(dev);
		return ret;
	}
	ret = accel_query_device(dev);
	if (ret)
		goto err_close;

	mode = accel_mode_from_env(mode);
	if (mode == ACCEL_SUBMIT_IOCTL) {
		dev->mode = ACCEL_SUBMIT_IOCTL;
	} else {
		ret = accel_uring_init(dev);
		if (ret == 0)
			dev->mode = ACCEL_SUBMIT_URING;
		else if (mode == ACCEL_SUBMIT_AUTO)
			dev->mode = ACCEL_SUBMIT_IOCTL;	/* io_uring unavailable: fall back */
		else
			goto err_close;
	}
	*devp = dev;
	return 0;

err_close:
	close(dev->fd);
	free(dev);
	return ret;
}

void accel_close(struct accel_device *dev)
{
	if (!dev)
		return;
	/* Jobs must not write into freed memory: let every one of them end. */
	accel_wait_all(dev, -1);
	while (dev->pending_head) {
		/* Only if waiting failed: the kernel keeps running them; forget them. */
		struct accel_job *job = dev->pending_head;

		job->result.status = -ECANCELED;
		accel_job_finish(job);
	}
	accel_bo_free(dev->prog_bo);
	accel_bo_free(dev->maps_bo);
	accel_bo_free(dev->post_d_bo);
	accel_bo_free(dev->post_c_bo);
	if (dev->mode == ACCEL_SUBMIT_URING)
		accel_uring_fini(dev);
	close(dev->fd);
	free(dev);
}

const struct accel_device_info *accel_device_info(const struct accel_device *dev)
{
	return &dev->info;
}

enum accel_submit_mode accel_submit_mode(const struct accel_device *dev)
{
	return dev->mode;
}

const char *accel_submit_mode_name(enum accel_submit_mode mode)
{
	switch (mode) {
	case ACCEL_SUBMIT_URING:
		return "uring";
	case ACCEL_SUBMIT_IOCTL:
		return "ioctl";
	default:
		return "auto";
	}
}

int accel_device_fd(const struct accel_device *dev)
{
	return dev->fd;
}
