// SPDX-License-Identifier: MIT
/*
 * libaccel: DRM syncobjs (binary and timeline) as job inputs and outputs, through
 * libdrm's drmSyncobj*() calls and drm_mxa_submit.syncs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include "accel_internal.h"

int accel_syncobj_create(struct accel_device *dev, uint32_t *handle)
{
	if (!dev || !handle)
		return -EINVAL;
	return drmSyncobjCreate(dev->fd, 0, handle) ? -errno : 0;
}

void accel_syncobj_destroy(struct accel_device *dev, uint32_t handle)
{
	if (dev && handle)
		drmSyncobjDestroy(dev->fd, handle);
}

int accel_syncobj_wait(struct accel_device *dev, uint32_t handle, uint64_t point,
		       int64_t timeout_ns)
{
	int64_t abs = timeout_ns < 0 ? INT64_MAX : accel_now_ns() + timeout_ns;
	int ret;

	if (!dev || !handle)
		return -EINVAL;
	if (point)
		ret = drmSyncobjTimelineWait(dev->fd, &handle, &point, 1, abs,
					     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	else
		ret = drmSyncobjWait(dev->fd, &handle, 1, abs,
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	return ret ? -errno : 0;
}

int accel_submit_syncs(struct accel_device *dev, unsigned int queue, struct accel_bo *prog_bo,
		       size_t offset, size_t size, const struct accel_sync *syncs,
		       unsigned int num_syncs, struct accel_job **jobp)
{
	struct drm_mxa_sync_op ops[DRM_MXA_MAX_SYNCS];
	struct drm_mxa_submit args = { 0 };
	struct accel_job *job;
	unsigned int i;
	int ret;

	*jobp = NULL;
	if (!dev || !prog_bo || prog_bo->dev != dev || offset > UINT32_MAX ||
	    size > UINT32_MAX || num_syncs > DRM_MXA_MAX_SYNCS || (num_syncs && !syncs))
		return -EINVAL;
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < num_syncs; i++) {
		ops[i].flags = (syncs[i].signal ? DRM_MXA_SYNC_OP_SIGNAL : DRM_MXA_SYNC_OP_WAIT) |
			       (syncs[i].point ? DRM_MXA_SYNC_OP_TIMELINE : 0);
		ops[i].handle = syncs[i].handle;
		ops[i].timeline_value = syncs[i].point;
	}
	job = accel_job_alloc(dev, queue);
	if (!job)
		return -ENOMEM;
	args.prog_handle = prog_bo->handle;
	args.queue = queue;
	args.prog_offset = (uint32_t)offset;
	args.prog_size = (uint32_t)size;
	args.syncs.stride = sizeof(ops[0]);
	args.syncs.count = num_syncs;
	args.syncs.array = (uintptr_t)ops;
	if (dev->mode == ACCEL_SUBMIT_URING) {
		/* The kernel reads @ops when the command is issued: issue it now. */
		ret = accel_uring_submit(dev, &args, job);
		if (!ret)
			return *jobp = job, accel_flush(dev);
	} else {
		ret = accel_ioctl_submit(dev, &args, job);
	}
	if (ret) {
		free(job);
		return ret;
	}
	*jobp = job;
	return 0;
}
