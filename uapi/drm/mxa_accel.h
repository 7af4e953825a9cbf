/* SPDX-License-Identifier: MIT */
/*
 * MXA DRM accel uAPI: ioctls and io_uring commands of /dev/accel/accelN.
 * Documented in Documentation/uapi.rst; keep both in step.
 *
 * Extensibility rules (as panthor_drm.h):
 *  - every struct is 8-byte aligned in size, with explicit padding fields that must be
 *    zero (the driver rejects non-zero padding with -EINVAL);
 *  - flags are only ever added; unknown flags are rejected with -EINVAL;
 *  - a new field appended to a struct means "old behaviour" when zero;
 *  - ioctl numbers are only appended.
 *
 * Device VAs: every BO of a file is mapped in the file's own device VM at creation; the
 * VA is returned by DRM_IOCTL_MXA_BO_CREATE and used in programs.
 */
#ifndef MXA_ACCEL_H
#define MXA_ACCEL_H

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define MXA_UAPI_VERSION_MAJOR	0
#define MXA_UAPI_VERSION_MINOR	5

#define DRM_MXA_QUERY		0x00
#define DRM_MXA_BO_CREATE	0x01
#define DRM_MXA_BO_MMAP_OFFSET	0x02
#define DRM_MXA_SUBMIT		0x03
#define DRM_MXA_WAIT		0x04
#define DRM_MXA_COMMIT_GROUP	0x05
#define DRM_MXA_WAIT_GROUP	0x06
#define DRM_MXA_VM_BIND		0x07
#define DRM_MXA_QUEUE_CREATE	0x08
#define DRM_MXA_QUEUE_DESTROY	0x09

#define DRM_IOCTL_MXA_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MXA_QUERY, struct drm_mxa_query)
#define DRM_IOCTL_MXA_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MXA_BO_CREATE, struct drm_mxa_bo_create)
#define DRM_IOCTL_MXA_BO_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MXA_BO_MMAP_OFFSET, struct drm_mxa_bo_mmap_offset)
#define DRM_IOCTL_MXA_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MXA_SUBMIT, struct drm_mxa_submit)
#define DRM_IOCTL_MXA_WAIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MXA_WAIT, struct drm_mxa_wait)
#define DRM_IOCTL_MXA_COMMIT_GROUP \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MXA_COMMIT_GROUP, struct drm_mxa_commit_group)
#define DRM_IOCTL_MXA_WAIT_GROUP \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MXA_WAIT_GROUP, struct drm_mxa_wait_group)
#define DRM_IOCTL_MXA_VM_BIND \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MXA_VM_BIND, struct drm_mxa_vm_bind)
#define DRM_IOCTL_MXA_QUEUE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MXA_QUEUE_CREATE, struct drm_mxa_queue_create)
#define DRM_IOCTL_MXA_QUEUE_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_MXA_QUEUE_DESTROY, struct drm_mxa_queue_destroy)

/**
 * enum drm_mxa_query_type - what DRM_IOCTL_MXA_QUERY returns.
 * @DRM_MXA_QUERY_DEVICE: struct drm_mxa_device_info.
 */
enum drm_mxa_query_type {
	DRM_MXA_QUERY_DEVICE = 0,
};

/**
 * struct drm_mxa_query - DRM_IOCTL_MXA_QUERY argument.
 * @type: enum drm_mxa_query_type.
 * @size: in: size of the buffer at @pointer; out: size of the full answer. With
 *        @pointer 0 only the size is returned. A smaller buffer receives a truncated
 *        answer (older userspace); a larger one is zero-filled past the answer.
 * @pointer: user pointer to the answer buffer, or 0.
 */
struct drm_mxa_query {
	__u32 type;
	__u32 size;
	__u64 pointer;
};

/**
 * struct drm_mxa_device_info - answer to DRM_MXA_QUERY_DEVICE.
 * @uapi_major: MXA_UAPI_VERSION_MAJOR of the driver.
 * @uapi_minor: MXA_UAPI_VERSION_MINOR of the driver.
 * @hw_version: the device's MXA_REG_VERSION (major << 16 | minor).
 * @num_queues: hardware queues.
 * @caps: MXA_CAP_* bits the device reports (uapi/mxa_regs.h).
 * @num_cores: the device's cores (MXA_REG_NUM_CORES): what a job's grid runs on; a
 *             cluster has at most this many instances.
 * @num_engine_threads: host threads of the device's matrix engine (uAPI 0.5; before:
 *             zero, and @num_cores held this).
 * @va_start: first device VA the driver hands out.
 * @va_end: one past the last device VA.
 * @max_bo_size: largest BO DRM_IOCTL_MXA_BO_CREATE accepts.
 * @driver_caps: DRM_MXA_DRIVER_CAP_* bits: what this driver's uAPI offers (0 from
 *               drivers older than uAPI 0.2).
 * @job_timeout_ms: current job timeout (module parameter job_timeout_ms; 0: none).
 * @pad2: zero.
 */
struct drm_mxa_device_info {
	__u32 uapi_major;
	__u32 uapi_minor;
	__u32 hw_version;
	__u32 num_queues;
	__u64 caps;
	__u32 num_cores;
	__u32 num_engine_threads;
	__u64 va_start;
	__u64 va_end;
	__u64 max_bo_size;
	__u64 driver_caps;
	__u32 job_timeout_ms;
	__u32 pad2;
};

/**
 * DOC: driver capability bits (struct drm_mxa_device_info.driver_caps)
 *
 * DRM_MXA_DRIVER_CAP_GROUPS: DRM_IOCTL_MXA_COMMIT_GROUP, DRM_IOCTL_MXA_WAIT_GROUP and
 * their io_uring commands.
 * DRM_MXA_DRIVER_CAP_RESULT_SIZE: drm_mxa_submit.result_size and
 * drm_mxa_job_result.cycles/commands.
 * DRM_MXA_DRIVER_CAP_JOB_TIMEOUT: hung jobs fail with -ETIMEDOUT after a queue reset, and
 * contexts that hang or fault repeatedly are banned (-ECANCELED).
 * DRM_MXA_DRIVER_CAP_VM_BIND: DRM_IOCTL_MXA_VM_BIND (uAPI 0.3).
 * DRM_MXA_DRIVER_CAP_SYNCOBJ: drm_mxa_submit.syncs (binary and timeline syncobjs in and
 * out, uAPI 0.3); the DRM syncobj ioctls work on the accel node.
 * DRM_MXA_DRIVER_CAP_USER_QUEUES: DRM_IOCTL_MXA_QUEUE_CREATE/DESTROY (uAPI 0.4): user
 * queues with a priority, scheduled onto the hardware queues by drm_sched.
 * DRM_MXA_DRIVER_CAP_GRID: drm_mxa_submit.grid_x/grid_y/cluster_x/cluster_y and
 * drm_mxa_job_result.err_instance/instances (uAPI 0.5): a job runs as a grid of
 * instances on the device's cores, in clusters that run at the same time.
 */
#define DRM_MXA_DRIVER_CAP_GROUPS	(1ull << 0)
#define DRM_MXA_DRIVER_CAP_RESULT_SIZE	(1ull << 1)
#define DRM_MXA_DRIVER_CAP_JOB_TIMEOUT	(1ull << 2)
#define DRM_MXA_DRIVER_CAP_VM_BIND	(1ull << 3)
#define DRM_MXA_DRIVER_CAP_SYNCOBJ	(1ull << 4)
#define DRM_MXA_DRIVER_CAP_USER_QUEUES	(1ull << 5)
#define DRM_MXA_DRIVER_CAP_GRID		(1ull << 6)

/**
 * struct drm_mxa_bo_create - DRM_IOCTL_MXA_BO_CREATE argument.
 * @size: in: requested size in bytes (rounded up to pages); out: actual size.
 * @flags: DRM_MXA_BO_* flags; zero for now.
 * @handle: out: GEM handle.
 * @device_va: out: the BO's VA in this file's device VM.
 */
struct drm_mxa_bo_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u64 device_va;
};

/**
 * struct drm_mxa_bo_mmap_offset - DRM_IOCTL_MXA_BO_MMAP_OFFSET argument.
 * @handle: GEM handle.
 * @pad: zero.
 * @offset: out: fake offset to pass to mmap() on the accel fd.
 */
struct drm_mxa_bo_mmap_offset {
	__u32 handle;
	__u32 pad;
	__u64 offset;
};

/**
 * struct drm_mxa_obj_array - an array of objects in user memory (as panthor's).
 * @stride: size of one element; at least the size the array's element struct had when
 *          the array was introduced. Bigger (newer userspace): the extra bytes must be
 *          zero (-E2BIG otherwise).
 * @count: elements.
 * @array: user pointer to the first element.
 */
struct drm_mxa_obj_array {
	__u32 stride;
	__u32 count;
	__u64 array;
};

/* struct drm_mxa_sync_op.flags */
#define DRM_MXA_SYNC_OP_WAIT		0		/* an input fence */
#define DRM_MXA_SYNC_OP_SIGNAL		(1u << 0)	/* an output fence */
#define DRM_MXA_SYNC_OP_TIMELINE	(1u << 1)	/* timeline syncobj, @timeline_value */

/* Most sync operations one submission may carry. */
#define DRM_MXA_MAX_SYNCS		64

/**
 * struct drm_mxa_sync_op - one syncobj operation of a submission.
 * @flags: DRM_MXA_SYNC_OP_WAIT or _SIGNAL, | DRM_MXA_SYNC_OP_TIMELINE for a timeline
 *         syncobj (binary otherwise).
 * @handle: the syncobj (DRM_IOCTL_SYNCOBJ_CREATE on the accel fd); -ENOENT if unknown.
 * @timeline_value: timeline: the point to wait for / to signal (> 0); binary: zero.
 *
 * WAIT: the job does not start before the syncobj's fence (at the point) signals; it
 * must have one when the job is submitted (-EINVAL otherwise: no wait-for-submit). A
 * failed input fence does not stop the job. SIGNAL: once the job is queued its fence
 * replaces the binary syncobj's fence, or is added at the point of the timeline; it
 * signals when the job ends (with the job's error, if any).
 */
struct drm_mxa_sync_op {
	__u32 flags;
	__u32 handle;
	__u64 timeline_value;
};

/**
 * struct drm_mxa_submit - DRM_IOCTL_MXA_SUBMIT argument, and the payload of
 * MXA_URING_CMD_SUBMIT (at most 80 bytes so that it fits an SQE128's command area).
 * @prog_handle: GEM handle of the BO that holds the program (-ENOENT if unknown).
 * @queue: user queue id (see struct drm_mxa_queue_create): 0 .. num_queues - 1 is the
 *         file's default queue on that hardware queue; -EINVAL for an unknown id.
 * @prog_offset: byte offset of the program in the BO (4-byte aligned).
 * @prog_size: program size in bytes (multiple of 4, > 0, <= MXA_PROG_MAX_SIZE,
 *             @prog_offset + @prog_size within the BO).
 * @flags: DRM_MXA_SUBMIT_* flags; zero for now.
 * @result_size: size of the struct drm_mxa_job_result at @result_ptr; 0 means the
 *               original 48-byte layout (uAPI 0.1). The driver writes at most this
 *               many bytes. Must be 0 for the ioctl.
 * @job_id: out (ioctl only): id to pass to DRM_IOCTL_MXA_WAIT. Through io_uring the id
 *          is in the CQE's second 64-bit word (IORING_SETUP_CQE32 rings).
 * @result_ptr: io_uring only: user pointer to a struct drm_mxa_job_result that the
 *              driver fills, in the submitting task, just before it posts the CQE
 *              (not when the command is cancelled); 0 for none. Must be 0 for the
 *              ioctl (DRM_IOCTL_MXA_WAIT returns the result there).
 * @syncs: uAPI 0.3 (DRM_MXA_DRIVER_CAP_SYNCOBJ): array of struct drm_mxa_sync_op,
 *         at most DRM_MXA_MAX_SYNCS; count 0 for none. A job with input fences does
 *         not start before they have signalled; jobs of the same user queue behind it
 *         wait too (a user queue runs in order). Other queues are not held back.
 * @grid_x, @grid_y: uAPI 0.5 (DRM_MXA_DRIVER_CAP_GRID): the program runs as
 *         grid_x * grid_y instances (0 means 1), at most MXA_GRID_MAX_INSTANCES.
 * @cluster_x, @cluster_y: the cluster shape (0 means 1): at most MXA_CLUSTER_MAX
 *         instances and at most the device's cores, dividing the grid in each
 *         dimension (-EINVAL otherwise).
 * @pad: zero.
 */
struct drm_mxa_submit {
	__u32 prog_handle;
	__u32 queue;
	__u32 prog_offset;
	__u32 prog_size;
	__u32 flags;
	__u32 result_size;
	__u64 job_id;
	__u64 result_ptr;
	/* uAPI 0.3 */
	struct drm_mxa_obj_array syncs;
	/* uAPI 0.5 */
	__u16 grid_x;
	__u16 grid_y;
	__u8 cluster_x;
	__u8 cluster_y;
	__u16 pad;
};

/**
 * struct drm_mxa_job_result - how a job ended.
 * @status: 0 on success or a negative errno: -EIO (the program failed, see @error),
 *          -EFAULT (device MMU fault), -ETIMEDOUT (the job hung and its queue was
 *          reset), -ECANCELED (aborted by a reset or the device going away).
 * @error: MXA_ERR_* from uapi/mxa_isa.h (0 on success).
 * @err_offset: byte offset of the failing command in the program.
 * @err_opcode: header dword of the failing command.
 * @err_addr: faulting device VA (MMU faults).
 * @err_info: MXA_FAULT_* for MMU faults.
 * @err_instance: the instance (CTA x + y * grid_x) whose error this is: the first of
 *                the grid to fail (uAPI 0.5; 0 before).
 * @start_ns: device time the job started (host CLOCK_MONOTONIC of the emulator).
 * @end_ns: device time the job ended.
 * @cycles: modelled device cycles of the job (completion record; 0 if it never ran).
 * @commands: commands the job executed (all its instances).
 * @instances: instances the device started (uAPI 0.5; zero before, and zero when the
 *             job did not end on the device: a timeout, a reset, a cancel).
 * @tma_load_bytes: bytes the job's TMA loads read from memory, counted by the device
 *             (uAPI 0.5; a multicast load counts once).
 */
struct drm_mxa_job_result {
	__s32 status;
	__u32 error;
	__u32 err_offset;
	__u32 err_opcode;
	__u64 err_addr;
	__u32 err_info;
	__u32 err_instance;
	__u64 start_ns;
	__u64 end_ns;
	/* uAPI 0.2 (DRM_MXA_DRIVER_CAP_RESULT_SIZE) */
	__u64 cycles;
	__u32 commands;
	__u32 instances;
	/* uAPI 0.5 */
	__u64 tma_load_bytes;
};

/* Size of struct drm_mxa_job_result in uAPI 0.1 (drm_mxa_submit.result_size 0). */
#define DRM_MXA_JOB_RESULT_SIZE_V1	48

/**
 * struct drm_mxa_wait - DRM_IOCTL_MXA_WAIT argument.
 * @job_id: id from DRM_IOCTL_MXA_SUBMIT.
 * @timeout_ns: relative timeout in nanoseconds, >= 0 (negative: -EINVAL); 0 polls.
 *              -ETIME when it expires, and the job stays waitable; once a wait
 *              returns 0 the id is released (a later wait gets -ENOENT).
 * @flags: zero.
 * @pad: zero.
 * @result: out: how the job ended.
 */
struct drm_mxa_wait {
	__u64 job_id;
	__s64 timeout_ns;
	__u32 flags;
	__u32 pad;
	struct drm_mxa_job_result result;
};

/**
 * struct drm_mxa_commit_group - DRM_IOCTL_MXA_COMMIT_GROUP argument, and the payload of
 * MXA_URING_CMD_COMMIT_GROUP.
 * @queue: user queue id (as drm_mxa_submit.queue); groups are per user queue.
 * @flags: zero.
 * @group_id: out: id of the new group, which holds every job submitted to @queue
 *            since its previous commit (possibly none). Ids are the points of a
 *            timeline per user queue: 1, 2, 3, ... Through io_uring the id is in the
 *            CQE's second word (res is 0).
 */
struct drm_mxa_commit_group {
	__u32 queue;
	__u32 flags;
	__u64 group_id;
};

/**
 * struct drm_mxa_wait_group - DRM_IOCTL_MXA_WAIT_GROUP argument, and the payload of
 * MXA_URING_CMD_WAIT_GROUP.
 * @queue: user queue id (as drm_mxa_submit.queue).
 * @n: return once at most @n committed groups of @queue are pending
 *     (PTX wait_group semantics: 0 waits for every committed group). Uncommitted jobs
 *     are not waited for.
 * @timeout_ns: relative timeout in nanoseconds, >= 0 (negative: -EINVAL); 0 polls.
 *              -ETIME when it expires.
 * @flags: zero.
 * @pad: zero.
 * @group_id: out: every group up to this id has completed (0: nothing to wait for).
 *            Through io_uring it is in the CQE's second word (res 0 or -ETIME).
 */
struct drm_mxa_wait_group {
	__u32 queue;
	__u32 n;
	__s64 timeout_ns;
	__u32 flags;
	__u32 pad;
	__u64 group_id;
};

/**
 * enum drm_mxa_vm_bind_op - what DRM_IOCTL_MXA_VM_BIND does.
 * @DRM_MXA_VM_BIND_OP_MAP: map @size bytes of the BO @handle from @bo_offset at @va.
 * @DRM_MXA_VM_BIND_OP_UNMAP: remove the mapping made at exactly @va with @size.
 */
enum drm_mxa_vm_bind_op {
	DRM_MXA_VM_BIND_OP_MAP = 0,
	DRM_MXA_VM_BIND_OP_UNMAP = 1,
};

/* Most DRM_IOCTL_MXA_VM_BIND mappings a file may hold at once (-ENOSPC beyond). */
#define DRM_MXA_VM_MAX_BINDS		4096

/* drm_mxa_vm_bind.flags: the device may read but not write the mapping. */
#define DRM_MXA_VM_BIND_READ_ONLY	(1u << 0)

/**
 * struct drm_mxa_vm_bind - DRM_IOCTL_MXA_VM_BIND argument: map a BO (or a page range of
 * it) at a device VA userspace chooses, in the file's device VM, or remove such a
 * mapping. Every BO also keeps the mapping it got at creation.
 * @op: enum drm_mxa_vm_bind_op.
 * @flags: MAP: DRM_MXA_VM_BIND_* (a device write through a READ_ONLY mapping fails the
 *         job with an MMU fault, err_info MXA_FAULT_WRITE | MXA_FAULT_READ_ONLY).
 *         A BO imported from a dma-buf opened without write access (exported
 *         without DRM_RDWR) maps only READ_ONLY: -EACCES otherwise.
 *         UNMAP: zero.
 * @handle: MAP: GEM handle of a BO of this file (-ENOENT if unknown). UNMAP: zero.
 * @pad: zero.
 * @bo_offset: MAP: byte offset in the BO, page aligned; @bo_offset + @size within the
 *             BO. UNMAP: zero.
 * @va: device VA, page aligned; [@va, @va + @size) within [va_start, va_end) of
 *      struct drm_mxa_device_info. MAP fails with -EEXIST when the range overlaps any
 *      mapping of the VM (a BO's own range with its guard page, or another bind).
 * @size: bytes, page aligned, > 0. UNMAP must name a mapping exactly (-ENOENT
 *        otherwise; a BO's creation mapping cannot be unmapped).
 *
 * The mapping holds a reference to the BO until it is unmapped or the file closes.
 * UNMAP invalidates the device TLB before it returns; jobs still using the range fault.
 * MAP fails with -ENOSPC when the file holds DRM_MXA_VM_MAX_BINDS mappings already.
 */
struct drm_mxa_vm_bind {
	__u32 op;
	__u32 flags;
	__u32 handle;
	__u32 pad;
	__u64 bo_offset;
	__u64 va;
	__u64 size;
};

/**
 * enum drm_mxa_queue_priority - priority of a user queue.
 * @DRM_MXA_QUEUE_PRIORITY_LOW: runs when no normal or high queue of the hardware queue
 *                              has a job ready.
 * @DRM_MXA_QUEUE_PRIORITY_NORMAL: the default queues' priority.
 * @DRM_MXA_QUEUE_PRIORITY_HIGH: served first; needs CAP_SYS_NICE (-EACCES otherwise).
 */
enum drm_mxa_queue_priority {
	DRM_MXA_QUEUE_PRIORITY_LOW = 0,
	DRM_MXA_QUEUE_PRIORITY_NORMAL = 1,
	DRM_MXA_QUEUE_PRIORITY_HIGH = 2,
};

/* Ids of the default queues are 0 .. num_queues - 1; created queues start here. */
#define DRM_MXA_USER_QUEUE_ID_BASE	16
/* Most queues one open file may create (default queues not counted). */
#define DRM_MXA_MAX_USER_QUEUES		64

/**
 * struct drm_mxa_queue_create - DRM_IOCTL_MXA_QUEUE_CREATE argument: a user queue.
 * @hw_queue: the hardware queue its jobs run on, < drm_mxa_device_info.num_queues.
 * @priority: enum drm_mxa_queue_priority.
 * @flags: zero.
 * @queue_id: out: the queue's id for drm_mxa_submit.queue and the group commands,
 *            >= DRM_MXA_USER_QUEUE_ID_BASE, unique within the file.
 *
 * A user queue runs its jobs in submission order. The jobs of all user queues of a
 * hardware queue (of every open file) are fed to it by a drm_sched scheduler: among
 * queues with a job ready, a higher priority goes first, equal priorities in the order
 * their oldest jobs were submitted. Every open file also has one default queue per
 * hardware queue (ids 0 .. num_queues - 1, normal priority), made on first use.
 *
 * Return: 0; -EINVAL (bad @hw_queue, @priority or @flags), -EACCES (HIGH without
 * CAP_SYS_NICE), -ENOSPC (DRM_MXA_MAX_USER_QUEUES reached), -ENOMEM.
 */
struct drm_mxa_queue_create {
	__u32 hw_queue;
	__u32 priority;
	__u32 flags;
	__u32 queue_id;
};

/**
 * struct drm_mxa_queue_destroy - DRM_IOCTL_MXA_QUEUE_DESTROY argument.
 * @queue_id: a queue from DRM_IOCTL_MXA_QUEUE_CREATE (-EINVAL for default or unknown
 *            ids).
 * @flags: zero.
 *
 * Waits until every job submitted to the queue has been handed to the hardware (a
 * job waiting for an input fence is waited for; a fatal signal cuts the wait short
 * and fails the jobs not yet handed over with -ESRCH); those jobs then run to their
 * end. Later uses of the id fail with -EINVAL, and the id is not reused by this file.
 */
struct drm_mxa_queue_destroy {
	__u32 queue_id;
	__u32 flags;
};

/*
 * io_uring commands (IORING_OP_URING_CMD on the accel fd, ring created with
 * IORING_SETUP_SQE128 | IORING_SETUP_CQE32). sqe->cmd_op selects the command; the
 * payload struct is in the SQE's command area and is copied when the command is issued.
 *
 * MXA_URING_CMD_SUBMIT: payload struct drm_mxa_submit. The CQE arrives when the job
 *   ends: res = the job's status (struct drm_mxa_job_result.status), big_cqe[0] = job id;
 *   the full result goes to @result_ptr when set (res = -EFAULT if it cannot be
 *   written there). Errors found before the job is queued complete at once with a
 *   negative res (the errnos of DRM_IOCTL_MXA_SUBMIT) and big_cqe[0] = 0. Jobs
 *   submitted this way are not waitable with DRM_IOCTL_MXA_WAIT (their CQE is their
 *   result). A command cancelled by io_uring (ring or task exit) completes with
 *   -ECANCELED; its job still runs to its end.
 *
 *   A ring without IORING_SETUP_SQE128 or IORING_SETUP_CQE32 gets -EINVAL; an unknown
 *   cmd_op -EOPNOTSUPP; a removed device -ENODEV.
 *
 *   Issue never waits for the device: the job joins its user queue, whose scheduler
 *   feeds the hardware ring; a command that finds 4096 jobs of its user queue not yet
 *   ended completes at once with -EAGAIN (resubmit it after reaping completions).
 */
#define MXA_URING_CMD_SUBMIT	0x01

/*
 * MXA_URING_CMD_COMMIT_GROUP: payload struct drm_mxa_commit_group. Completes at once:
 *   res = 0 or a negative errno (those of DRM_IOCTL_MXA_COMMIT_GROUP), big_cqe[0] =
 *   the group id. Commands of one submission call are issued in SQE order, so a commit
 *   closes the SUBMITs placed before it in the ring.
 *
 * MXA_URING_CMD_WAIT_GROUP: payload struct drm_mxa_wait_group. The CQE arrives when at
 *   most n groups are pending (res = 0, big_cqe[0] = drm_mxa_wait_group.group_id), or
 *   when timeout_ns expires (res = -ETIME). The command carries its own timeout and is
 *   cancelable (-ECANCELED when the ring or task goes away).
 */
#define MXA_URING_CMD_COMMIT_GROUP	0x02
#define MXA_URING_CMD_WAIT_GROUP	0x03

#if defined(__cplusplus)
}
#endif

#endif /* MXA_ACCEL_H */
