// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA job timeouts, per-queue reset and context banning.
 *
 * DOC: Hangs, queue reset and banning
 *
 * A queue runs one job at a time, in ring order, so "the job at the ring's head has
 * been there too long" is the hang test. Every time the head changes (mxa_job.c calls
 * mxa_reset_watch() under the queue lock) the queue's watchdog restarts for
 * mxa_device.job_timeout_ms: the timeout is per job and is extended whenever the queue
 * makes progress. The device has no progress counter inside a job, so one job may run
 * at most the timeout. When the watchdog finds the same job still at the head it only
 * records it as guilty and queues the queue's reset work; like panthor and rocket, the
 * reset itself runs on an ordered workqueue of the device (which also runs the error
 * interrupt's recovery, so resets of a device never overlap).
 *
 * The reset is a small state machine (enum mxa_reset_state, shown in debugfs):
 *
 *  QUEUED -> HALTED: mxa_job_queue_halt(): stop feeding the ring, ignore the queue's
 *     interrupt, and complete the jobs the device finished meanwhile with their real
 *     results. If the guilty job was among them, there is nothing to do: resume.
 *  HALTED -> RESETTING: MXA_QCTRL_RESET; the device aborts the job at the next command
 *     boundary (also inside SEM_WAIT/mbarrier waits) and disables the queue.
 *  RESETTING -> RESTARTING: the guilty job fails with -ETIMEDOUT; the jobs behind it,
 *     which never started, go back to the front of the backlog with their fences (so
 *     the fences of the queue still signal in seqno order, which commit/wait groups
 *     rely on). The ring is enabled again and refilled.
 *
 * Three things queue a reset, and all go through this one path: the watchdog (a hung
 * job, -ETIMEDOUT), debugfs reset_queue (mxa_reset_force(): -ECANCELED, not charged),
 * and a queue the device stopped on an error (mxa_reset_stopped(), from the error
 * interrupt's work: the jobs left in the ring fail with -EIO).
 *  RESTARTING -> IDLE.
 *
 * Other contexts never notice beyond the delay: their jobs run after the reset. The
 * guilty context's hang count grows; at mxa_ban_hangs hangs, or after mxa_ban_faults
 * consecutive MMU-faulting jobs, the context is banned: later submissions of its file
 * fail with -ECANCELED, its queued jobs still run (and end quickly if they hang again).
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

static const char *const mxa_reset_state_names[] = {
	[MXA_RESET_IDLE] = "idle",
	[MXA_RESET_QUEUED] = "queued",
	[MXA_RESET_HALTED] = "halted",
	[MXA_RESET_RESETTING] = "resetting",
	[MXA_RESET_RESTARTING] = "restarting",
};

/**
 * mxa_reset_state_name() - text of an enum mxa_reset_state.
 * @state: the state.
 *
 * Return: a static string.
 */
const char *mxa_reset_state_name(int state)
{
	if (state < 0 || state >= ARRAY_SIZE(mxa_reset_state_names))
		return "?";
	return mxa_reset_state_names[state];
}

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

static void mxa_reset_note_hang(struct mxa_vm *vm)
{
	unsigned int limit = READ_ONCE(mxa_ban_hangs);

	if (atomic_inc_return(&vm->hangs) >= limit && limit)
		mxa_reset_ban(vm, "repeated job timeouts");
}

/**
 * mxa_reset_watch() - (re)start the watchdog when the job at the ring's head changed.
 * @q: the queue; its lock held.
 */
void mxa_reset_watch(struct mxa_queue *q)
{
	u32 timeout = READ_ONCE(q->mdev->job_timeout_ms);
	struct mxa_job *job;

	lockdep_assert_held(&q->lock);
	if (q->head == q->tail || q->recovering || !q->accepting) {
		q->watch_seqno = 0;
		return;
	}
	job = q->jobs[q->head];
	if (job->fence->seqno == q->watch_seqno)
		return;
	q->watch_seqno = job->fence->seqno;
	q->watch_start = jiffies;
	/*
	 * Re-arming a timer for every completed job costs more than the job itself: while
	 * the watchdog is pending with the same timeout it fires at the earlier deadline
	 * and re-arms for the rest of the current head job's time.
	 */
	if (timeout && (timeout != q->watch_timeout || !delayed_work_pending(&q->watchdog))) {
		q->watch_timeout = timeout;
		mod_delayed_work(system_wq, &q->watchdog, msecs_to_jiffies(timeout));
	}
}

static void mxa_reset_watchdog(struct work_struct *work)
{
	struct mxa_queue *q = container_of(to_delayed_work(work), struct mxa_queue, watchdog);
	u32 timeout = READ_ONCE(q->mdev->job_timeout_ms);
	unsigned long deadline;
	bool hung = false;

	spin_lock_irq(&q->lock);
	if (q->head != q->tail && !q->recovering && q->accepting && timeout &&
	    q->jobs[q->head]->fence->seqno == q->watch_seqno) {
		deadline = q->watch_start + msecs_to_jiffies(timeout);
		if (time_after_eq(jiffies, deadline)) {
			q->guilty_seqno = q->watch_seqno;
			hung = true;
		} else {
			/* The timeout was raised meanwhile. */
			mod_delayed_work(system_wq, &q->watchdog, deadline - jiffies);
		}
	}
	spin_unlock_irq(&q->lock);

	if (hung) {
		drm_warn(&q->mdev->drm, "queue %u: job timed out after %u ms, resetting the queue\n",
			 q->idx, timeout);
		WRITE_ONCE(q->reset_state, MXA_RESET_QUEUED);
		queue_work(q->mdev->reset_wq, &q->reset_work);
	}
}

static void mxa_reset_queue_work(struct work_struct *work)
{
	struct mxa_queue *q = container_of(work, struct mxa_queue, reset_work);
	struct mxa_device *mdev = q->mdev;
	struct mxa_job *guilty = NULL;
	bool forced, stopped;
	int idx;

	if (!drm_dev_enter(&mdev->drm, &idx))
		return;
	if (READ_ONCE(mdev->lost))
		goto out;	/* its jobs have ended already (mxa_hw_lost()) */

	mxa_job_queue_halt(q, false);
	WRITE_ONCE(q->reset_state, MXA_RESET_HALTED);

	spin_lock_irq(&q->lock);
	forced = q->force_reset;
	q->force_reset = false;
	stopped = q->device_stopped;
	q->device_stopped = false;
	if (!stopped && q->head != q->tail &&
	    q->jobs[q->head]->fence->seqno == q->guilty_seqno)
		guilty = mxa_job_get(q->jobs[q->head]);
	q->guilty_seqno = 0;
	spin_unlock_irq(&q->lock);

	if (stopped || guilty || forced) {
		WRITE_ONCE(q->reset_state, MXA_RESET_RESETTING);
		if (mxa_hw_queue_reset(q)) {
			/* it may still use what the job's file is about to free */
			if (guilty)
				mxa_job_put(guilty);
			mxa_hw_lost(mdev, "a queue reset did not complete");
			goto out;
		}
		q->resets++;
		WRITE_ONCE(q->reset_state, MXA_RESET_RESTARTING);
		if (stopped) {
			/*
			 * The device stopped the queue: the job that failed has its record
			 * (harvested above); the ones behind it in the ring fail with -EIO,
			 * the backlog did nothing wrong and runs.
			 */
			mxa_job_queue_abort(q, -EIO, MXA_ERR_ABORTED, false);
		} else if (forced) {
			/* Not the job's fault: it is aborted, its context not charged. */
			mxa_job_queue_requeue(q, -ECANCELED, MXA_ERR_ABORTED);
		} else {
			q->timeouts++;
			mxa_reset_note_hang(guilty->vm);
			mxa_job_queue_requeue(q, -ETIMEDOUT, MXA_ERR_ABORTED);
		}
		mxa_hw_queue_start(q);
		if (guilty)
			mxa_job_put(guilty);
	}
	/* Jobs completed meanwhile, or the requeued ones: feed the ring again. */
	mxa_job_queue_resume(q);
out:
	WRITE_ONCE(q->reset_state, MXA_RESET_IDLE);
	drm_dev_exit(idx);
}

/**
 * mxa_reset_force() - reset a queue now (debugfs ``reset_queue``).
 * @q: the queue.
 *
 * The queue goes through the same state machine as after a timeout: the job at the
 * ring's head when the queue is halted (if any) ends with -ECANCELED /
 * MXA_ERR_ABORTED, without counting against its context; the jobs behind it run
 * afterwards. Returns before the reset is done.
 *
 * Return: 0, or -ENODEV once the queue no longer takes jobs.
 */
int mxa_reset_force(struct mxa_queue *q)
{
	spin_lock_irq(&q->lock);
	if (!q->accepting) {
		spin_unlock_irq(&q->lock);
		return -ENODEV;
	}
	q->force_reset = true;
	spin_unlock_irq(&q->lock);
	WRITE_ONCE(q->reset_state, MXA_RESET_QUEUED);
	queue_work(q->mdev->reset_wq, &q->reset_work);
	return 0;
}

/**
 * mxa_reset_stopped() - reset a queue the device stopped on an error (the error
 * interrupt's work), through the same state machine as a timeout.
 * @q: the queue.
 *
 * The jobs left in the ring fail with -EIO / MXA_ERR_ABORTED; those the device
 * completed before it stopped keep their results, the backlog runs afterwards.
 */
void mxa_reset_stopped(struct mxa_queue *q)
{
	spin_lock_irq(&q->lock);
	q->device_stopped = true;
	spin_unlock_irq(&q->lock);
	WRITE_ONCE(q->reset_state, MXA_RESET_QUEUED);
	queue_work(q->mdev->reset_wq, &q->reset_work);
}

/**
 * mxa_reset_queue_init() - set up a queue's watchdog and reset work.
 * @q: the queue.
 */
void mxa_reset_queue_init(struct mxa_queue *q)
{
	INIT_DELAYED_WORK(&q->watchdog, mxa_reset_watchdog);
	INIT_WORK(&q->reset_work, mxa_reset_queue_work);
	q->reset_state = MXA_RESET_IDLE;
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
