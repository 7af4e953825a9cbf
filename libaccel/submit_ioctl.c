// SPDX-License-Identifier: MIT
/*
 * libaccel: the ioctl submission path (DRM_IOCTL_MXA_SUBMIT / DRM_IOCTL_MXA_WAIT).
 */
#include <errno.h>

#include "accel_internal.h"

int accel_ioctl_submit(struct accel_device *dev, const struct drm_mxa_submit *args,
		       struct accel_job *job)
{
	struct drm_mxa_submit a = *args;
	int ret;

	ret = accel_ioctl(dev->fd, DRM_IOCTL_MXA_SUBMIT, &a);
	if (ret)
		return ret;
	job->kernel_id = a.job_id;
	job->result.job_id = a.job_id;
	accel_job_pending_add(dev, job);
	return 0;
}

/* WAIT for one job; on 0 its result is filled in and it is finished. */
int accel_ioctl_wait(struct accel_job *job, int64_t timeout_ns)
{
	struct drm_mxa_wait w = { 0 };
	struct accel_job_result *r = &job->result;
	int ret;

	w.job_id = job->kernel_id;
	w.timeout_ns = timeout_ns < 0 ? INT64_MAX : timeout_ns;
	ret = accel_ioctl(job->dev->fd, DRM_IOCTL_MXA_WAIT, &w);
	if (ret)
		return ret;

	r->status = w.result.status;
	r->error = w.result.error;
	r->err_offset = w.result.err_offset;
	r->err_opcode = w.result.err_opcode;
	r->err_addr = w.result.err_addr;
	r->err_info = w.result.err_info;
	r->start_ns = w.result.start_ns;
	r->end_ns = w.result.end_ns;
	r->cycles = w.result.cycles;
	r->commands = w.result.commands;
	r->err_instance = w.result.err_instance;
	r->instances = w.result.instances;
	r->tma_load_bytes = w.result.tma_load_bytes;
	r->job_id = job->kernel_id;
	r->has_detail = 1;
	accel_job_finish(job);
	return 0;
}
