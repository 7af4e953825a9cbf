/* SPDX-License-Identifier: MIT */
/*
 * libaccel internals: the structures behind the opaque handles of accel.h.
 */
#ifndef ACCEL_INTERNAL_H
#define ACCEL_INTERNAL_H

#include <stdbool.h>
#include <liburing.h>

#include "accel.h"
#include "drm/mxa_accel.h"

/* Submission ring entries; completions in flight are capped at the CQ size. */
#define ACCEL_URING_ENTRIES	256

/* drm_mxa_job_result.status before the kernel writes it (never a kernel value). */
#define ACCEL_RESULT_UNSET	0x7fffffff

/* Queue ids whose commit groups libaccel follows (ids are small: default and user queues). */
#define ACCEL_GROUP_QUEUES	256

struct accel_device {
	int fd;
	enum accel_submit_mode mode;
	struct accel_device_info info;

	/* io_uring path (mode == ACCEL_SUBMIT_URING) */
	struct io_uring ring;
	unsigned int queued;		/* SQEs prepared, not yet passed to the kernel */
	unsigned int in_flight;		/* uring jobs whose CQE has not arrived */
	unsigned int max_in_flight;	/* CQ entries */

	/* jobs not yet ended, oldest first (both paths) */
	struct accel_job *pending_head, *pending_tail;

	/* buffers exported or imported as dma-bufs (prime.c), linked by shared_next */
	struct accel_bo *shared_bos;

	/* commits per queue (group.c): which group a job belongs to, for accel_wait_group() */
	uint64_t commits[ACCEL_GROUP_QUEUES];

	/* the program buffer of accel_gemm() and accel_gemm_run(), and the latter's tensor
	 * maps and post-pass copies of D and C, kept for the next call (gemm.c,
	 * accel_keep_take()); NULL while one of them runs, or none yet */
	struct accel_bo *prog_bo, *maps_bo, *post_d_bo, *post_c_bo;
};

struct accel_bo {
	struct accel_device *dev;
	uint32_t handle;
	uint64_t va;
	size_t size;
	void *map;
	bool imported;			/* accel_bo_import_dmabuf(): not in this VM */
	bool shared;			/* on dev->shared_bos */
	struct accel_bo *shared_next;
};

struct accel_job {
	struct accel_device *dev;
	struct accel_job *prev, *next;	/* on dev's pending list while !done */
	bool done;
	bool orphan;			/* accel_job_free()d while pending: free when done */
	uint64_t kernel_id;		/* ioctl: from SUBMIT; uring: from the CQE */
	unsigned int queue;		/* the queue it was submitted to */
	uint64_t group;			/* commits of that queue before it: its group's index */
	struct accel_job_result result;
	struct drm_mxa_job_result kres;	/* uring: written by the kernel */
};

/*
 * Everything below is internal: hidden in libaccel.so (the version script exports
 * accel_*, and these share the prefix), still linked from libaccel.a.
 */
#pragma GCC visibility push(hidden)

/* ioctl through libdrm; returns 0 or -errno. */
int accel_ioctl(int fd, unsigned long request, void *arg);

/* prog.c */
int accel_prog_emit_command(struct accel_prog *prog, const uint32_t *dw, size_t n);

/* prime.c: take @bo off its device's list of dma-buf shared buffers. */
void accel_bo_unshare(struct accel_bo *bo);

/* job.c */
/* A job for @queue, in the group the queue's next commit closes. */
struct accel_job *accel_job_alloc(struct accel_device *dev, unsigned int queue);
void accel_job_pending_add(struct accel_device *dev, struct accel_job *job);
void accel_job_finish(struct accel_job *job);

/* submit_ioctl.c */
int accel_ioctl_submit(struct accel_device *dev, const struct drm_mxa_submit *args,
		       struct accel_job *job);
int accel_ioctl_wait(struct accel_job *job, int64_t timeout_ns);

/* submit_uring.c */
int accel_uring_init(struct accel_device *dev);
void accel_uring_fini(struct accel_device *dev);
int accel_uring_submit(struct accel_device *dev, const struct drm_mxa_submit *args,
		       struct accel_job *job);
int accel_uring_flush(struct accel_device *dev);
int accel_uring_reap(struct accel_device *dev, bool wait, int64_t deadline_ns,
		     unsigned int want);

/* time */
int64_t accel_now_ns(void);

#pragma GCC visibility pop

#endif /* ACCEL_INTERNAL_H */
