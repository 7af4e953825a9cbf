// SPDX-License-Identifier: MIT
/*
 * libaccel: user queues (DRM_IOCTL_MXA_QUEUE_CREATE/DESTROY).
 *
 * A queue id goes wherever the API takes a queue: accel_submit(), the group calls,
 * accel_gemm(). Ids 0 .. num_queues - 1 are the device handle's default queues, one
 * per hardware queue.
 */
#include <errno.h>
#include <string.h>

#include "accel_internal.h"

int accel_queue_create(struct accel_device *dev, unsigned int hw_queue,
		       enum accel_queue_priority priority, unsigned int *queue_id)
{
	struct drm_mxa_queue_create c;
	int ret;

	if (!dev || !queue_id)
		return -EINVAL;
	if (!(dev->info.driver_caps & DRM_MXA_DRIVER_CAP_USER_QUEUES))
		return -EOPNOTSUPP;
	memset(&c, 0, sizeof(c));
	c.hw_queue = hw_queue;
	c.priority = priority;
	ret = accel_ioctl(dev->fd, DRM_IOCTL_MXA_QUEUE_CREATE, &c);
	if (!ret)
		*queue_id = c.queue_id;
	return ret;
}

int accel_queue_destroy(struct accel_device *dev, unsigned int queue_id)
{
	struct drm_mxa_queue_destroy d;
	int ret;

	if (!dev)
		return -EINVAL;
	/* Submissions still in the submission ring reach the queue first. */
	ret = accel_flush(dev);
	if (ret)
		return ret;
	memset(&d, 0, sizeof(d));
	d.queue_id = queue_id;
	return accel_ioctl(dev->fd, DRM_IOCTL_MXA_QUEUE_DESTROY, &d);
}
