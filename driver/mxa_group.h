/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA commit and wait groups: PTX commit_group/wait_group lifted to jobs of a queue.
 */
#ifndef MXA_GROUP_H
#define MXA_GROUP_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct dma_fence;
struct drm_device;
struct drm_file;

/**
 * struct mxa_group_queue - the groups of one user queue.
 * @lock: protects @last, @committed and @pending; never held while sleeping (the
 *        io_uring issue path takes it).
 * @last: finished fence of the newest job pushed to the queue (reference), or NULL.
 * @committed: id of the newest group (0: none yet).
 * @pending: struct mxa_group entries that may still be pending, oldest first. Groups
 *           whose fence had signalled at commit time are not listed, nor groups whose
 *           fence is the newest listed group's (they complete with it): so the list
 *           holds at most one entry per pending job, however often userspace commits.
 * @live: the device's count of listed entries (debugfs counters "groups").
 */
struct mxa_group_queue {
	spinlock_t lock;	/* protects last, committed, pending */
	struct dma_fence *last;
	u64 committed;
	struct list_head pending;
	atomic_t *live;
};

void mxa_group_init(struct mxa_group_queue *gq, atomic_t *live);
void mxa_group_fini(struct mxa_group_queue *gq);
void mxa_group_job_pushed(struct mxa_group_queue *gq, struct dma_fence *fence);
int mxa_group_commit(struct mxa_group_queue *gq, gfp_t gfp, u64 *group_id);
struct dma_fence *mxa_group_wait_target(struct mxa_group_queue *gq, u32 n, u64 *group_id);

int mxa_ioctl_commit_group(struct drm_device *dev, void *data, struct drm_file *file);
int mxa_ioctl_wait_group(struct drm_device *dev, void *data, struct drm_file *file);

#endif /* MXA_GROUP_H */
