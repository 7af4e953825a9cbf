/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA scheduling: one drm_gpu_scheduler per hardware queue.
 */
#ifndef MXA_SCHED_H
#define MXA_SCHED_H

struct drm_file;
struct drm_sched_entity;
struct drm_sched_job;
struct mxa_device;

int mxa_sched_init(struct mxa_device *mdev);
int mxa_sched_job_init(struct drm_sched_job *job, struct drm_sched_entity *entity,
		       struct drm_file *file);

#endif /* MXA_SCHED_H */
