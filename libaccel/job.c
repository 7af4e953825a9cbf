// SPDX-License-Identifier: MIT
/*
 * libaccel: jobs, independent of the submission path: submit, wait, poll, results.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "accel_internal.h"

void accel_job_pending_add(struct accel_device *dev, struct accel_job *job)
{
	job->prev = dev->pending_tail;
	job->next = NULL;
	if (dev->pending_tail)
		dev->pending_tail->next = job;
	else
		dev->pending_head = job;
	dev->pending_tail = job;
}

static void accel_job_pending_del(struct accel_job *job)
{
	struct accel_device *dev = job->dev;

	if (job->prev)
		job->prev->next = job->next;
	else
		dev->pending_head = job->next;
	if (job->next)
		job->next->prev = job->prev;
	else
		dev->pending_tail = job->prev;
	job->prev = job->next = NULL;
}

/* The job has ended (result filled in): off the pending list; free it if orphaned. */
void accel_job_finish(struct accel_job *job)
{
	accel_job_pending_del(job);
	job->done = true;
	if (job->orphan)
		free(job);
}

struct accel_job *accel_job_alloc(struct accel_device *dev, unsigned int queue)
{
	struct accel_job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->dev = dev;
	job->queue = queue;
	job->group = queue < ACCEL_GROUP_QUEUES ? dev->commits[queue] : 0;
	return job;
}

static uint32_t accel_grid_dim(uint32_t v)
{
	return v ? v : 1;
}

int accel_grid_check(const struct accel_device *dev, const struct accel_grid *grid, char *why,
		     size_t len)
{
	uint64_t gx = accel_grid_dim(grid->x), gy = accel_grid_dim(grid->y);
	uint64_t cx = accel_grid_dim(grid->cluster_x), cy = accel_grid_dim(grid->cluster_y);
	char dummy[1];

	if (!why) {
		why = dummy;
		len = sizeof(dummy);
	}
	if (gx * gy == 1 && cx * cy == 1)
		return 0;
	if (!(dev->info.driver_caps & DRM_MXA_DRIVER_CAP_GRID) || !(dev->info.caps & MXA_CAP_GRID)) {
		snprintf(why, len, "the %s runs no grids (uAPI %u.%u)",
			 dev->info.caps & MXA_CAP_GRID ? "driver" : "device", dev->info.uapi_major,
			 dev->info.uapi_minor);
		return -EOPNOTSUPP;
	}
	if (gx > UINT16_MAX || gy > UINT16_MAX || gx * gy > MXA_GRID_MAX_INSTANCES) {
		snprintf(why, len, "grid %" PRIu64 "x%" PRIu64 ": more than %u instances or %u in "
			 "a dimension", gx, gy, MXA_GRID_MAX_INSTANCES, UINT16_MAX);
		return -EINVAL;
	}
	if (cx * cy > MXA_CLUSTER_MAX || cx * cy > dev->info.num_cores) {
		snprintf(why, len, "cluster %" PRIu64 "x%" PRIu64 ": more than %u instances (the "
			 "device has %u cores, a cluster at most %u)", cx, cy,
			 dev->info.num_cores < MXA_CLUSTER_MAX ? dev->info.num_cores : MXA_CLUSTER_MAX,
			 dev->info.num_cores, MXA_CLUSTER_MAX);
		return -EINVAL;
	}
	if (gx % cx || gy % cy) {
		snprintf(why, len, "cluster %" PRIu64 "x%" PRIu64 " does not divide grid %" PRIu64
			 "x%" PRIu64, cx, cy, gx, gy);
		return -EINVAL;
	}
	return 0;
}

int accel_submit(struct accel_device *dev, unsigned int queue, struct accel_bo *prog_bo,
		 size_t offset, size_t size, struct accel_job **jobp)
{
	return accel_submit_grid(dev, queue, prog_bo, offset, size, NULL, jobp);
}

int accel_submit_grid(struct accel_device *dev, unsigned int queue, struct accel_bo *prog_bo,
		      size_t offset, size_t size, const struct accel_grid *grid,
		      struct accel_job **jobp)
{
	struct drm_mxa_submit args = { 0 };
	struct accel_job *job;
	int ret;

	*jobp = NULL;
	if (!prog_bo || prog_bo->dev != dev || offset > UINT32_MAX || size > UINT32_MAX)
		return -EINVAL;
	if (grid) {
		ret = accel_grid_check(dev, grid, NULL, 0);
		if (ret)
			return ret;
		args.grid_x = (uint16_t)grid->x;
		args.grid_y = (uint16_t)grid->y;
		args.cluster_x = (uint8_t)grid->cluster_x;
		args.cluster_y = (uint8_t)grid->cluster_y;
	}
	job = accel_job_alloc(dev, queue);
	if (!job)
		return -ENOMEM;

	args.prog_handle = prog_bo->handle;
	args.queue = queue;
	args.prog_offset = (uint32_t)offset;
	args.prog_size = (uint32_t)size;
	if (dev->mode == ACCEL_SUBMIT_URING)
		ret = accel_uring_submit(dev, &args, job);
	else
		ret = accel_ioctl_submit(dev, &args, job);
	if (ret) {
		free(job);
		return ret;
	}
	*jobp = job;
	return 0;
}

int accel_flush(struct accel_device *dev)
{
	return dev->mode == ACCEL_SUBMIT_URING ? accel_uring_flush(dev) : 0;
}

static int64_t accel_deadline(int64_t timeout_ns)
{
	return timeout_ns < 0 ? -1 : accel_now_ns() + timeout_ns;
}

static int64_t accel_time_left(int64_t deadline_ns)
{
	int64_t left;

	if (deadline_ns < 0)
		return -1;
	left = deadline_ns - accel_now_ns();
	return left > 0 ? left : 0;
}

int accel_wait(struct accel_job *job, int64_t timeout_ns)
{
	struct accel_device *dev = job->dev;
	int64_t deadline = accel_deadline(timeout_ns);
	int ret;

	if (job->done)
		return 0;
	if (dev->mode != ACCEL_SUBMIT_URING)
		return accel_ioctl_wait(job, timeout_ns);

	ret = accel_uring_flush(dev);
	if (ret < 0)
		return ret;
	while (!job->done) {
		ret = accel_uring_reap(dev, true, deadline, 1);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int accel_wait_all(struct accel_device *dev, int64_t timeout_ns)
{
	int64_t deadline = accel_deadline(timeout_ns);
	int ret;

	if (dev->mode == ACCEL_SUBMIT_URING) {
		/* (the queued jobs are submitted by the call that waits: one system call) */
		while (dev->in_flight) {
			ret = accel_uring_reap(dev, true, deadline, dev->in_flight);
			if (ret < 0)
				return ret;
		}
		return 0;
	}
	while (dev->pending_head) {
		ret = accel_ioctl_wait(dev->pending_head, accel_time_left(deadline));
		if (ret)
			return ret;
	}
	return 0;
}

int accel_poll(struct accel_device *dev)
{
	struct accel_job *job, *next;
	int ret, n = 0;

	if (dev->mode == ACCEL_SUBMIT_URING) {
		ret = accel_uring_flush(dev);
		if (ret < 0)
			return ret;
		return accel_uring_reap(dev, false, 0, 0);
	}
	for (job = dev->pending_head; job; job = next) {
		next = job->next;	/* @job may be freed (orphan) when it ends */
		ret = accel_ioctl_wait(job, 0);
		if (ret == 0)
			n++;
		else if (ret != -ETIME)
			return ret;
	}
	return n;
}

int accel_job_done(const struct accel_job *job)
{
	return job->done;
}

const struct accel_job_result *accel_job_result(const struct accel_job *job)
{
	return &job->result;
}

void accel_job_free(struct accel_job *job)
{
	if (!job)
		return;
	if (!job->done) {
		/* The kernel still writes to it: free it when it ends. */
		job->orphan = true;
		return;
	}
	free(job);
}
