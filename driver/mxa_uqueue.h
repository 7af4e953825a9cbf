/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA user queues: per-file queues with a priority, drm_sched entities of a hardware
 * queue's scheduler.
 */
#ifndef MXA_UQUEUE_H
#define MXA_UQUEUE_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/wait.h>

#include <drm/gpu_scheduler.h>

#include "mxa_group.h"

struct drm_device;
struct drm_file;
struct mxa_file;
struct mxa_queue;

/* Jobs of one user queue that may be submitted and not yet ended. */
#define MXA_UQUEUE_MAX_PENDING	4096

/**
 * struct mxa_uqueue - a user queue.
 * @entity: its drm_sched entity on @hw's scheduler; destroyed with the queue (destroy
 *          ioctl or file close) while jobs may still hold the structure.
 * @refcount: the file's queue table holds one; every job of the queue holds one.
 * @hw: the hardware queue its jobs run on.
 * @id: the queue id userspace uses.
 * @priority: enum drm_mxa_queue_priority.
 * @submit_lock: makes arming and pushing a job one step (drm_sched's order rule) and
 *               orders it against destruction.
 * @dead: the queue is being destroyed: submissions fail with -EINVAL (under
 *        @submit_lock).
 * @pending: jobs submitted and not yet released by the scheduler.
 * @space_wq: woken when @pending drops or the queue dies.
 * @groups: the queue's commit/wait groups.
 */
struct mxa_uqueue {
	struct drm_sched_entity entity;
	struct kref refcount;
	struct mxa_queue *hw;
	u32 id;
	u32 priority;
	struct mutex submit_lock;	/* arm + push; @dead */
	bool dead;
	atomic_t pending;
	wait_queue_head_t space_wq;
	struct mxa_group_queue groups;
};

void mxa_uqueue_file_init(struct mxa_file *mf);
void mxa_uqueue_file_fini(struct mxa_file *mf);
struct mxa_uqueue *mxa_uqueue_get(struct mxa_file *mf, u32 id);
void mxa_uqueue_put(struct mxa_uqueue *uq);

int mxa_ioctl_queue_create(struct drm_device *dev, void *data, struct drm_file *file);
int mxa_ioctl_queue_destroy(struct drm_device *dev, void *data, struct drm_file *file);

#endif /* MXA_UQUEUE_H */
