/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA DRM accel driver: the device and per-file state shared by every part of mxa.ko.
 */
#ifndef MXA_DRV_H
#define MXA_DRV_H

#include <linux/atomic.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "mxa_regs.h"
#include "mxa_queue.h"

#define MXA_DRIVER_NAME		"mxa"
#define MXA_DRIVER_DESC		"MXA matrix accelerator"

struct mxa_vm;

/**
 * struct mxa_device - one MXA PCI function.
 * @drm: the DRM accel device; the structure is allocated with it.
 * @pdev: the PCI function.
 * @regs: BAR0.
 * @hw_version: MXA_REG_VERSION.
 * @caps: MXA_REG_CAPS_HI:LO.
 * @num_queues: hardware queues in use (<= MXA_MAX_QUEUES).
 * @num_cores: MXA_REG_NUM_CORES: what a job's grid runs on.
 * @num_engine_threads: MXA_REG_ENGINE_THREADS.
 * @ctx_table: the device's context table (coherent DMA), @ctx_count entries.
 * @ctx_table_dma: its bus address.
 * @ctx_count: entries of @ctx_table; context ids are 1 .. @ctx_count - 1.
 * @ctx_ida: allocator of context ids.
 * @queues: the hardware queues.
 * @error_irq: Linux IRQ of the error vector.
 * @error_work: recovers queues the device stopped on a ring-level error.
 * @reset_wq: ordered workqueue of the queue resets (mxa_queue.c) and @error_work.
 * @sched_wq: the workqueue of the queues' schedulers (mxa_sched.c).
 * @job_timeout_ms: job timeout of this device (module parameter job_timeout_ms at
 *                  probe, debugfs job_timeout_ms later; 0 disables it).
 * @vms_lock: protects @vms.
 * @vms: every live struct mxa_vm (context) of the device, for debugfs.
 * @bos_lock: protects @bos.
 * @bos: every BO of the device that holds a DMA mapping for it (struct mxa_bo.dev_node),
 *       so that removal can unmap them while open files keep the objects
 *       (mxa_gem_unplug()).
 * @live_bos: BOs alive (debugfs counters).
 * @live_contexts: contexts (VMs) alive.
 * @live_jobs: jobs allocated and not yet freed.
 * @live_page_tables: device page tables allocated (all VMs).
 * @live_groups: pending commit groups listed (all user queues; mxa_group.c).
 * @lost: a reset did not complete: bus mastering is off and no job runs any more
 *        (mxa_hw_lost()).
 * @lost_work: ends the jobs of a lost device (on @reset_wq).
 * @jobs_total: jobs ever created.
 * @jobs_direct: jobs that went straight to a ring, past the scheduler
 *               (mxa_queue_run_direct()).
 * @doorbells: writes of the queues' doorbells (MXA_QREG_TAIL).
 * @inject_submit_nomem: debugfs fault injection: this many coming submissions fail
 *                       with -ENOMEM, as if the job's allocation had failed.
 * @inject_reset_timeout: debugfs fault injection: this many coming queue resets are
 *                        taken as not completed (the device is then lost).
 * @inject_run_abort: debugfs fault injection: this many coming jobs are not handed to
 *                    the device when the scheduler runs them, and end with -ECANCELED
 *                    as after a device loss.
 */
struct mxa_device {
	struct drm_device drm;
	struct pci_dev *pdev;
	void __iomem *regs;

	u32 hw_version;
	u64 caps;
	u32 num_queues;
	u32 num_cores;
	u32 num_engine_threads;

	struct mxa_ctx_desc *ctx_table;
	dma_addr_t ctx_table_dma;
	u32 ctx_count;
	struct ida ctx_ida;

	struct mxa_queue queues[MXA_MAX_QUEUES];
	int error_irq;
	struct work_struct error_work;
	struct workqueue_struct *reset_wq;
	struct workqueue_struct *sched_wq;
	u32 job_timeout_ms;

	struct mutex vms_lock;	/* protects vms */
	struct list_head vms;
	struct mutex bos_lock;	/* protects bos */
	struct list_head bos;
	atomic_t live_bos;
	atomic_t live_contexts;
	atomic_t live_jobs;
	atomic_t live_page_tables;
	atomic_t live_groups;
	bool lost;
	struct work_struct lost_work;
	atomic64_t jobs_total;
	atomic64_t jobs_direct;
	atomic64_t doorbells;
	atomic_t inject_submit_nomem;
	atomic_t inject_run_abort;
	atomic_t inject_reset_timeout;
};

/**
 * struct mxa_file - per open file of /dev/accel/accelN.
 * @mdev: the device.
 * @vm: the file's device VM (its context and page tables).
 * @jobs: job id -> struct mxa_job submitted by ioctl and not yet waited for; each entry
 *        holds a reference to its job.
 * @next_job_id: last job id handed out (ids start at 1).
 * @uq_lock: serialises creating and destroying user queues.
 * @uqueues: user queue id -> struct mxa_uqueue (mxa_uqueue.c), holding a reference.
 * @uq_next_id: id of the next created user queue (under @uq_lock).
 * @uq_created: created user queues alive (under @uq_lock).
 */
struct mxa_file {
	struct mxa_device *mdev;
	struct mxa_vm *vm;
	struct xarray jobs;
	atomic64_t next_job_id;
	struct mutex uq_lock;	/* create/destroy of user queues */
	struct xarray uqueues;
	u32 uq_next_id;
	u32 uq_created;
};

static inline struct mxa_device *to_mxa_device(struct drm_device *drm)
{
	return container_of(drm, struct mxa_device, drm);
}

static inline struct mxa_file *to_mxa_file(struct drm_file *file)
{
	return file->driver_priv;
}

/* Debugfs fault injection: whether to fail this time (takes one from @count). */
static inline bool mxa_inject(atomic_t *count)
{
	return atomic_read(count) > 0 && atomic_dec_if_positive(count) >= 0;
}

#define mxa_err(mdev, fmt, ...)  drm_err(&(mdev)->drm, fmt, ##__VA_ARGS__)
#define mxa_warn(mdev, fmt, ...) drm_warn(&(mdev)->drm, fmt, ##__VA_ARGS__)
#define mxa_info(mdev, fmt, ...) drm_info(&(mdev)->drm, fmt, ##__VA_ARGS__)
#define mxa_dbg(mdev, fmt, ...)  drm_dbg_driver(&(mdev)->drm, fmt, ##__VA_ARGS__)

#endif /* MXA_DRV_H */
