// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA job timeouts, the reset workqueue and context banning.
 *
 * DOC: Banning
 *
 * The queue reset itself is mxa_queue.c's (the one state machine, whoever asks for
 * it). This file holds the policy around it: the job timeout of new devices
 * (job_timeout_ms), the device's ordered reset workqueue, on which queue resets and
 * the error interrupt's work run one at a time, and banning: at mxa_ban_hangs job
 * timeouts, or after mxa_ban_faults consecutive MMU-faulting jobs, a context is
 * banned: later submissions of its file fail with -ECANCELED, its queued jobs still
 * run (and end quickly if they hang again).
 */
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>

#include "mxa_isa.h"
#include "mxa_drv.h"
#include "mxa_job.h"
#include "mxa_reset.h"
#include "mxa_vm.h"

/* Generous: the device is emulated, and a TCG guest runs much slower than its device. */
unsigned int mxa_job_timeout_ms = 60000;
module_param_named(job_timeout_ms, mxa_job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_ms,
		 "Job timeout in ms for devices probed later (0: none; debugfs job_timeout_ms per device) [60000]");

static unsigned int mxa_ban_hangs = 3;
module_param_named(ban_hangs, mxa_ban_hangs, uint, 0644);
MODULE_PARM_DESC(ban_hangs, "Ban a context after this many job timeouts (0: never) [3]");

static unsigned int mxa_ban_faults = 8;
module_param_named(ban_faults, mxa_ban_faults, uint, 0644);
MODULE_PARM_DESC(ban_faults,
		 "Ban a context after this many consecutive MMU-faulting jobs (0: never) [8]");

static void mxa_reset_ban(struct mxa_vm *vm, const char *why)
{
	if (xchg(&vm->banned, true))
		return;
	drm_warn(&vm->mdev->drm, "context %u banned: %s\n", vm->ctx, why);
}

/**
 * mxa_reset_note_result() - count a job's outcome against its context (any context).
 * @vm: the job's context.
 * @status: drm_mxa_job_result.status.
 */
void mxa_reset_note_result(struct mxa_vm *vm, int status)
{
	unsigned int limit = READ_ONCE(mxa_ban_faults);

	if (status == -EFAULT) {
		if (atomic_inc_return(&vm->faults) >= limit && limit)
			mxa_reset_ban(vm, "repeated MMU faults");
	} else if (!status) {
		atomic_set(&vm->faults, 0);
	}
}

/**
 * mxa_reset_note_hang() - count a job timeout against its context.
 * @vm: the guilty job's context.
 */
void mxa_reset_note_hang(struct mxa_vm *vm)
{
	unsigned int limit = READ_ONCE(mxa_ban_hangs);

	if (atomic_inc_return(&vm->hangs) >= limit && limit)
		mxa_reset_ban(vm, "repeated job timeouts");
}

/**
 * mxa_reset_schedule_error() - run the device-error recovery on the reset workqueue.
 * @mdev: the device.
 */
void mxa_reset_schedule_error(struct mxa_device *mdev)
{
	queue_work(mdev->reset_wq, &mdev->error_work);
}

static void mxa_reset_wq_destroy(void *wq)
{
	destroy_workqueue(wq);
}

/**
 * mxa_reset_init() - the device's reset workqueue (freed with the device).
 * @mdev: the device.
 *
 * Return: 0 or -ENOMEM.
 */
int mxa_reset_init(struct mxa_device *mdev)
{
	mdev->job_timeout_ms = READ_ONCE(mxa_job_timeout_ms);
	mdev->reset_wq = alloc_ordered_workqueue("mxa-reset-%s", 0,
						 dev_name(&mdev->pdev->dev));
	if (!mdev->reset_wq)
		return -ENOMEM;
	return devm_add_action_or_reset(&mdev->pdev->dev, mxa_reset_wq_destroy,
					mdev->reset_wq);
}

/**
 * mxa_reset_fini() - stop watchdogs and wait for resets in progress.
 * @mdev: the device, unplugged, its queues halted for good (no watchdog re-arms).
 */
void mxa_reset_fini(struct mxa_device *mdev)
{
	u32 i;

	for (i = 0; i < mdev->num_queues; i++)
		cancel_delayed_work_sync(&mdev->queues[i].watchdog);
	drain_workqueue(mdev->reset_wq);
}
