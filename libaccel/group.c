// SPDX-License-Identifier: MIT
/*
 * libaccel: commit and wait groups of jobs (DRM_IOCTL_MXA_COMMIT_GROUP/WAIT_GROUP).
 *
 * Both go through the ioctl whatever the submission mode: io_uring submissions still
 * in the submission ring are flushed first, so a commit closes every job accel_submit()
 * accepted before it. libaccel counts the commits of each queue, so each job knows its
 * group; when WAIT_GROUP returns, the jobs of the groups it waited for are completed
 * here too (their results read, accel_job_done() 1), with no accel_poll().
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
	if (!ret && queue < ACCEL_GROUP_QUEUES)
		dev->commits[queue]++;
	if (!ret && group_id)
		*group_id = c.group_id;
	return ret;
}

int accel_wait_group(struct accel_device *dev, unsigned int queue, unsigned int n,
		     int64_t timeout_ns)
{
	struct drm_mxa_wait_group w;
	struct accel_job *job;
	uint64_t done_below;
	int ret;

	if (!dev)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.queue = queue;
	w.n = n;
	w.timeout_ns = timeout_ns < 0 ? INT64_MAX : timeout_ns;
	ret = accel_ioctl(dev->fd, DRM_IOCTL_MXA_WAIT_GROUP, &w);
	if (ret || queue >= ACCEL_GROUP_QUEUES || dev->commits[queue] <= n)
		return ret;
	/* every group but the newest @n has ended: so have their jobs */
	done_below = dev->commits[queue] - n;
	for (;;) {
		/*
		 * Rescan after each wait: reaping may end (and free) other jobs. Orphans
		 * (freed by their owner) nobody can ask about; they end on their own.
		 */
		for (job = dev->pending_head; job; job = job->next)
			if (job->queue == queue && job->group < done_below && !job->orphan)
				break;
		if (!job)
			return 0;
		ret = accel_wait(job, -1);
		if (ret < 0 && !job->done)
			return ret;
	}
}
