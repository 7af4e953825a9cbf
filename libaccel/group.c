// SPDX-License-Identifier: MIT
/*
 * libaccel: commit and wait groups of jobs (DRM_IOCTL_MXA_COMMIT_GROUP/WAIT_GROUP).
 *
 * Both go through the ioctl whatever the submission mode: io_uring submissions still
 * in the submission ring are flushed first, so a commit closes every job accel_submit()
 * accepted before it.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "accel_internal.h"

int accel_commit_group(struct accel_device *dev, unsigned int queue, uint64_t *group_id)
{
	struct drm_mxa_commit_group c;
	int ret;

	if (!dev)
		return -EINVAL;
	ret = accel_flush(dev);
	if (ret)
		return ret;
	memset(&c, 0, sizeof(c));
	c.queue = queue;
	ret = accel_ioctl(dev->fd, DRM_IOCTL_MXA_COMMIT_GROUP, &c);
	if (!ret && group_id)
		*group_id = c.group_id;
	return ret;
}

int accel_wait_group(struct accel_device *dev, unsigned int queue, unsigned int n,
		     int64_t timeout_ns)
{
	struct drm_mxa_wait_group w;

	if (!dev)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.queue = queue;
	w.n = n;
	w.timeout_ns = timeout_ns < 0 ? INT64_MAX : timeout_ns;
	return accel_ioctl(dev->fd, DRM_IOCTL_MXA_WAIT_GROUP, &w);
}
