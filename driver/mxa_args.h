/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * mxa_args.h - the checks of ioctl and io_uring command arguments that need no kernel
 * object: functions of the argument structs of uapi/drm/mxa_accel.h alone, in the order
 * the driver makes them, each returning 0 or the errno the uAPI documents. The driver
 * calls them before it looks anything up; tests/fuzz/fuzz-args.c compiles this header
 * in userspace (tests/fuzz/mxa_kcompat.h gives the few kernel names it uses) and fuzzes
 * it against the rules as uapi/drm/mxa_accel.h words them (Documentation/hardening.rst).
 */
#ifndef MXA_ARGS_H
#define MXA_ARGS_H

#ifdef __KERNEL__
#include <linux/align.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/overflow.h>
#include <linux/types.h>
#else
#include "mxa_kcompat.h"	/* tests/fuzz: the same names in userspace */
#endif

#include "drm/mxa_accel.h"
#include "mxa_regs.h"

/* Device VAs handed out: the first MiB stays unmapped so that small bad addresses fault. */
#define MXA_VM_VA_START		0x100000ull
#define MXA_VM_VA_END		BIT_ULL(MXA_VA_BITS)
/* Largest BO DRM_IOCTL_MXA_BO_CREATE accepts. */
#define MXA_BO_MAX_SIZE		BIT_ULL(30)

/*
 * Of a submission (the ioctl's when @ioctl, else MXA_URING_CMD_SUBMIT's): flags, padding,
 * the result, the program's range, the sync array's shape and the grid.
 */
static inline int mxa_args_submit(const struct drm_mxa_submit *a, bool ioctl, bool has_grid,
				  u32 num_cores)
{
	u32 gx = a->grid_x ? a->grid_x : 1, gy = a->grid_y ? a->grid_y : 1;
	u32 cx = a->cluster_x ? a->cluster_x : 1, cy = a->cluster_y ? a->cluster_y : 1;

	if (a->flags || a->pad)
		return -EINVAL;
	/* The result of an ioctl job comes from DRM_IOCTL_MXA_WAIT. */
	if (ioctl && (a->result_ptr || a->result_size))
		return -EINVAL;
	if (a->result_size && (a->result_size < DRM_MXA_JOB_RESULT_SIZE_V1 || !a->result_ptr))
		return -EINVAL;
	if (!a->prog_size || a->prog_size > MXA_PROG_MAX_SIZE ||
	    !IS_ALIGNED(a->prog_size, 4) || !IS_ALIGNED(a->prog_offset, 4))
		return -EINVAL;
	if (a->syncs.count && (a->syncs.count > DRM_MXA_MAX_SYNCS ||
			       a->syncs.stride < sizeof(struct drm_mxa_sync_op)))
		return -EINVAL;
	/*
	 * The grid and cluster shape (uapi/mxa_regs.h, struct mxa_job_desc); the device
	 * checks them again. 16- and 8-bit fields: the products fit u32.
	 */
	if (gx * gy == 1 && cx * cy == 1)
		return 0;
	if (!has_grid)
		return -EOPNOTSUPP;
	if (gx * gy > MXA_GRID_MAX_INSTANCES || cx * cy > MXA_CLUSTER_MAX ||
	    cx * cy > num_cores || gx % cx || gy % cy)
		return -EINVAL;
	return 0;
}

/* One element of drm_mxa_submit.syncs, as copied in. */
static inline int mxa_args_sync_op(const struct drm_mxa_sync_op *op)
{
	bool timeline = op->flags & DRM_MXA_SYNC_OP_TIMELINE;

	if (op->flags & ~(DRM_MXA_SYNC_OP_SIGNAL | DRM_MXA_SYNC_OP_TIMELINE))
		return -EINVAL;
	if (timeline != !!op->timeline_value)
		return -EINVAL;
	return 0;
}

/* DRM_IOCTL_MXA_VM_BIND: alignment, the op, and per op its fields and the VA range. */
static inline int mxa_args_vm_bind(const struct drm_mxa_vm_bind *a)
{
	u64 end;

	if (a->pad || !a->size || !IS_ALIGNED(a->size, MXA_PAGE_SIZE) ||
	    !IS_ALIGNED(a->va, MXA_PAGE_SIZE) || !IS_ALIGNED(a->bo_offset, MXA_PAGE_SIZE))
		return -EINVAL;
	switch (a->op) {
	case DRM_MXA_VM_BIND_OP_MAP:
		if (a->flags & ~DRM_MXA_VM_BIND_READ_ONLY)
			return -EINVAL;
		if (check_add_overflow(a->va, a->size, &end) || a->va < MXA_VM_VA_START ||
		    end > MXA_VM_VA_END)
			return -EINVAL;
		return 0;
	case DRM_MXA_VM_BIND_OP_UNMAP:
		return a->flags || a->handle || a->bo_offset ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

static inline int mxa_args_bo_create(const struct drm_mxa_bo_create *a)
{
	return a->flags || !a->size || a->size > MXA_BO_MAX_SIZE ? -EINVAL : 0;
}

static inline int mxa_args_queue_create(const struct drm_mxa_queue_create *a, u32 num_queues)
{
	return a->flags || a->hw_queue >= num_queues ||
	       a->priority > DRM_MXA_QUEUE_PRIORITY_HIGH ? -EINVAL : 0;
}

static inline int mxa_args_queue_destroy(const struct drm_mxa_queue_destroy *a)
{
	return a->flags || a->queue_id < DRM_MXA_USER_QUEUE_ID_BASE ? -EINVAL : 0;
}

static inline int mxa_args_wait(const struct drm_mxa_wait *a)
{
	return a->flags || a->pad || a->timeout_ns < 0 ? -EINVAL : 0;
}

static inline int mxa_args_commit_group(const struct drm_mxa_commit_group *a)
{
	return a->flags ? -EINVAL : 0;
}

static inline int mxa_args_wait_group(const struct drm_mxa_wait_group *a)
{
	return a->flags || a->pad || a->timeout_ns < 0 ? -EINVAL : 0;
}

#endif /* MXA_ARGS_H */
