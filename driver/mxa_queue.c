// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA hardware queues: the one owner of struct mxa_queue.
 *
 * DOC: Hardware queues
 *
 * Everything about a hardware queue lives here: its set-up (ring and completion
 * records in coherent DMA memory), its registers (enable, reset), putting jobs into
 * its ring (the scheduler's run_job, mxa_queue_run_job()), completing them from its
 * interrupt, its backlog while it is halted, the watchdog of the job at its head, and
 * the one path that resets it (mxa_queue_reset_work()), whoever asks: the watchdog, the
 * error interrupt's work (a queue the device stopped) or debugfs. mxa_job.c owns the
 * jobs themselves (creation, fences, results); mxa_reset.c the timeout parameter, the
 * reset workqueue and the banning of contexts.
 *
 * Hangs. A queue runs one job at a time, in ring order, so "the job at the ring's head
 * has been there too long" is the hang test. Every time the head changes
 * (mxa_queue_watch() under the queue lock) the queue's watchdog restarts for
 * mxa_device.job_timeout_ms: the timeout is per job and is extended whenever the queue
 * makes progress. The device has no progress counter inside a job, so one job may run
 * at most the timeout. When the watchdog finds the same job still at the head it only
 * records it as guilty and queues the queue's reset work; like panthor and rocket, the
 * reset itself runs on an ordered workqueue of the device (which also runs the error
 * interrupt's work, so resets of a device never overlap).
 *
 * Three things queue a reset, and all go through the one state machine: the watchdog
 * (a hung job: -ETIMEDOUT), debugfs reset_queue (mxa_queue_reset_force(): -ECANCELED,
 * not charged to the context), and a queue the device stopped on an error
 * (mxa_queue_reset_stopped(), from the error interrupt's work: the jobs left in the
 * ring fail with -EIO). The states (enum mxa_reset_state, shown in debugfs):
 *
 *  QUEUED -> HALTED: mxa_queue_halt(): stop feeding the ring, ignore the queue's
 *     interrupt, and complete the jobs the device finished meanwhile with their real
 *     results. If the guilty job was among them, there is nothing to do: resume.
 *  HALTED -> RESETTING: MXA_QCTRL_RESET; the device aborts the job at the next command
 *     boundary (also inside SEM_WAIT/mbarrier waits) and disables the queue.
 *  RESETTING -> RESTARTING: the guilty job fails with -ETIMEDOUT; the jobs behind it,
 *     which never started, go back to the front of the backlog with their fences (so
 *     the fences of the queue still signal in seqno order, which commit/wait groups
 *     rely on). The ring is enabled again and refilled.
 *  RESTARTING -> IDLE.
 *
 * Other contexts never notice beyond the delay: their jobs run after the reset. The
 * guilty context's hang count grows (mxa_reset_note_hang(): banning, mxa_reset.c).
 */
#include <linux/blkdev.h>
#include <linux/dma-fence.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/jiffies.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>

#include "mxa_isa.h"
#include "mxa_drv.h"
#include "mxa_hw.h"
#include "mxa_job.h"
#include "mxa_queue.h"
#include "mxa_reset.h"
#include "mxa_trace.h"
#include "mxa_vm.h"

static void mxa_queue_watchdog(struct work_struct *work);
static void mxa_queue_reset_work(struct work_struct *work);

/**
 * mxa_queue_init() - set up hardware queue @idx of @mdev: its ring and completion
 * records (device-managed memory), its fence context, watchdog and reset work.
 * @mdev: the device.
 * @idx: the queue.
 *
 * Return: 0 or -ENOMEM.
 */
int mxa_queue_init(struct mxa_device *mdev, u32 idx)
{
	struct device *dev = &mdev->pdev->dev;
	struct mxa_queue *q = &mdev->queues[idx];

	q->mdev = mdev;
	q->idx = idx;
	q->size = MXA_RING_ENTRIES;
	spin_lock_init(&q->lock);
	spin_lock_init(&q->fence_lock);
	INIT_LIST_HEAD(&q->backlog);
	q->fence_context = dma_fence_context_alloc(1);
	INIT_DELAYED_WORK(&q->watchdog, mxa_queue_watchdog);
	INIT_WORK(&q->reset_work, mxa_queue_reset_work);
	q->reset_state = MXA_RESET_IDLE;
	snprintf(q->name, sizeof(q->name), "mxa-q%u", idx);

	q->ring = dmam_alloc_coherent(dev, q->size * sizeof(*q->ring), &q->ring_dma,
				      GFP_KERNEL);
	q->comps = dmam_alloc_coherent(dev, q->size * sizeof(*q->comps), &q->comps_dma,
				       GFP_KERNEL);
	q->jobs = devm_kcalloc(dev, q->size, sizeof(*q->jobs), GFP_KERNEL);
	if (!q->ring || !q->comps || !q->jobs)
		return -ENOMEM;
	return 0;
}

/**
 * mxa_queue_hw_start() - latch the ring registers and enable the queue; the ring starts
 * empty at slot 0.
 * @q: the queue.
 */
void mxa_queue_hw_start(struct mxa_queue *q)
{
	mxa_qwrite(q, MXA_QREG_RING_LO, lower_32_bits(q->ring_dma));
	mxa_qwrite(q, MXA_QREG_RING_HI, upper_32_bits(q->ring_dma));
	mxa_qwrite(q, MXA_QREG_RING_SIZE, q->size);
	mxa_qwrite(q, MXA_QREG_CONTROL, MXA_QCTRL_ENABLE);
}

/**
 * mxa_queue_hw_reset() - reset one queue (MXA_QCTRL_RESET): the device aborts its
 * running job and drops its descriptors; the queue is disabled afterwards.
 * @q: the queue, halted (mxa_queue_halt()).
 *
 * Return: 0 or -ETIMEDOUT if the device did not finish the reset.
 */
int mxa_queue_hw_reset(struct mxa_queue *q)
{
	int ret;

	mxa_qwrite(q, MXA_QREG_CONTROL, MXA_QCTRL_RESET);
	ret = mxa_hw_poll_clear(q->mdev, MXA_QUEUE_REG(q->idx, MXA_QREG_CONTROL),
				MXA_QCTRL_RESET);
	if (!ret && mxa_inject(&q->mdev->inject_reset_timeout))
		ret = -ETIMEDOUT;	/* debugfs: as if the device had not finished */
	if (ret)
		mxa_err(q->mdev, "queue %u reset timed out\n", q->idx);
	return ret;
}

/* Fill the slot at @tail with @job, which hands its reference to the slot. */
static void mxa_queue_place(struct mxa_queue *q, struct mxa_job *job)
{
	u32 slot = q->tail;
	struct mxa_job_desc *desc = &q->ring[slot];
	struct mxa_completion *comp = &q->comps[slot];

	lockdep_assert_held(&q->lock);

	q->jobs[slot] = job;
	memset(comp, 0, sizeof(*comp));		/* status = MXA_JOB_STATUS_PENDING */
	memset(desc, 0, sizeof(*desc));
	desc->flags = MXA_JOB_F_IRQ;
	desc->ctx = job->vm->ctx;
	desc->prog_va = job->prog_va;
	desc->prog_size = job->prog_size;
	desc->grid_x = job->grid_x;
	desc->grid_y = job->grid_y;
	desc->cluster_x = job->cluster_x;
	desc->cluster_y = job->cluster_y;
	desc->completion = q->comps_dma + slot * sizeof(*comp);
	desc->job_id = job->id;
	q->tail = (slot + 1) & (q->size - 1);
	trace_mxa_job_run(q->idx, slot, job->id, job->fence->seqno);
}

static void mxa_queue_doorbell(struct mxa_queue *q)
{
	/* writel() orders the descriptor and record stores before the doorbell. */
	mxa_qwrite(q, MXA_QREG_TAIL, q->tail);
	q->unrung = 0;
	atomic64_inc(&q->mdev->doorbells);
}

/* A batch's doorbell state, kept by its plug (zeroed when the batch's first job is placed). */
struct mxa_plug_cb {
	struct blk_plug_cb cb;		/* first: blk_check_plugged() returns it */
	bool rang_early;		/* the doorbell rang at a job that found the ring empty */
};

/*
 * The doorbell of the jobs one io_uring_enter() puts straight on the ring: at the first
 * of them when the ring was empty, so that the device wakes up and runs jobs while the
 * submitter places the others (once a batch: a job the doorbell ran leaves the ring
 * empty again, and a doorbell a job would cost the batch's jobs their overlap with the
 * device); every MXA_DOORBELL_EVERY jobs after it; and for the rest
 * when io_uring finishes its submission plug (it plugs batches of more than two SQEs),
 * in the submitting task before io_uring_enter() returns, or when the task sleeps
 * (@from_schedule; the issue path does not sleep once a job is placed). A few MMIO
 * writes a batch instead of one a job. Then, but in schedule(), the jobs the doorbell
 * ran are completed at once (mxa_queue_poll()).
 */
static void mxa_queue_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct mxa_queue *q = cb->data;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	if (q->accepting && !q->recovering && q->unrung)
		mxa_queue_doorbell(q);
	spin_unlock_irqrestore(&q->lock, flags);
	kfree(cb);
	if (!from_schedule)
		mxa_queue_poll(q);
}

/**
 * mxa_queue_run_direct() - put a job straight on its hardware queue's ring, where
 * the scheduler's run_job would put it at once: the queue accepts jobs, is not being
 * reset, has a free slot and no backlog, holds fewer than MXA_RING_DIRECT_MAX such
 * jobs, and no job pushed to its scheduler is waiting for run_job (so no job of any
 * user queue, of any priority, is passed).
 * @job: an unarmed job without input fences.
 * @batch: the job is one of the submitter's io_uring batch: ring the doorbell now only
 *         if the ring was empty or MXA_DOORBELL_EVERY jobs wait for it, else when the
 *         batch ends.
 *
 * Skipping the scheduler skips its two work items per job (run_job, free_job), each a
 * switch to a kworker: Documentation/performance.rst, "Submission".
 *
 * Return: true when the job is on the ring with its hardware fence, which is also
 * @job->done (a reference); false when it must go through the scheduler.
 */
bool mxa_queue_run_direct(struct mxa_job *job, bool batch)
{
	struct mxa_queue *q = job->queue;
	struct mxa_plug_cb *plug;
	unsigned long flags;
	bool placed = false, idle;

	spin_lock_irqsave(&q->lock, flags);
	if (q->accepting && !q->recovering && !mxa_queue_full(q) && list_empty(&q->backlog) &&
	    !atomic_read(&q->sched_waiting) && !atomic_read(&q->mdev->inject_run_abort) &&
	    atomic_read(&q->direct_live) < MXA_RING_DIRECT_MAX) {
		/* Before the doorbell: the job may end at once, on another CPU. */
		atomic_inc(&q->direct_live);
		job->direct = true;
		mxa_job_arm(q, job);
		job->done = dma_fence_get(job->fence);
		trace_mxa_job_submit(q->idx, job->vm->ctx, job->id, job->fence->seqno, false);
		idle = q->head == q->tail;
		mxa_queue_place(q, mxa_job_get(job));
		plug = batch ? (struct mxa_plug_cb *)blk_check_plugged(mxa_queue_unplug, q,
									sizeof(*plug)) : NULL;
		/* early only at the batch's first job: others may find the ring empty too */
		if (plug && idle && !plug->rang_early) {
			plug->rang_early = true;
			mxa_queue_doorbell(q);
		} else if (!plug || ++q->unrung >= MXA_DOORBELL_EVERY) {
			mxa_queue_doorbell(q);
		}
		mxa_queue_watch(q);
		atomic64_inc(&q->mdev->jobs_direct);
		placed = true;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return placed;
}

/**
 * mxa_queue_sched_left() - a job pushed to the scheduler left it: run_job took it,
 * or (a killed user queue) free_job without run_job.
 * @job: the job.
 */
void mxa_queue_sched_left(struct mxa_job *job)
{
	if (job->sched_waiting) {
		job->sched_waiting = false;
		atomic_dec(&job->queue->sched_waiting);
	}
}

/* Move backlogged jobs into free ring slots. */
static void mxa_queue_refill(struct mxa_queue *q)
{
	u32 moved = 0;

	lockdep_assert_held(&q->lock);
	if (!q->accepting || q->recovering)
		return;
	while (!list_empty(&q->backlog) && !mxa_queue_full(q)) {
		struct mxa_job *job = list_first_entry(&q->backlog, struct mxa_job,
						       backlog_node);

		list_del_init(&job->backlog_node);
		q->backlog_len--;
		mxa_queue_place(q, job);
		moved++;
	}
	if (moved)
		mxa_queue_doorbell(q);
	mxa_queue_watch(q);
}

/**
 * mxa_queue_run_job() - put a job on its hardware queue (the scheduler's run_job).
 * @job: the job, its input fences signalled.
 *
 * Jobs enter the ring in the order they are run; while the queue is halted for a
 * reset they wait in its backlog.
 *
 * Return: a reference to the job's hardware fence; ERR_PTR(-ECANCELED) once the
 * device is gone (its result says -ENODEV when the device was lost: mxa_hw_lost()),
 * or for a job debugfs ``inject_run_abort`` picks (the job's result says so).
 */
struct dma_fence *mxa_queue_run_job(struct mxa_job *job)
{
	struct mxa_queue *q = job->queue;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	/* Under the lock: a direct submission that sees none waiting sees this job placed. */
	mxa_queue_sched_left(job);
	if (!q->accepting || mxa_inject(&q->mdev->inject_run_abort)) {
		spin_unlock_irqrestore(&q->lock, flags);
		job->result.status = READ_ONCE(q->mdev->lost) ? -ENODEV : -ECANCELED;
		job->result.error = MXA_ERR_ABORTED;
		WRITE_ONCE(job->ended, true);
		return ERR_PTR(-ECANCELED);
	}
	mxa_job_arm(q, job);
	if (!q->recovering && !mxa_queue_full(q) && list_empty(&q->backlog)) {
		trace_mxa_job_submit(q->idx, job->vm->ctx, job->id, job->fence->seqno, false);
		mxa_queue_place(q, mxa_job_get(job));
		mxa_queue_doorbell(q);
		mxa_queue_watch(q);
	} else {
		trace_mxa_job_submit(q->idx, job->vm->ctx, job->id, job->fence->seqno, true);
		list_add_tail(&mxa_job_get(job)->backlog_node, &q->backlog);
		q->backlog_len++;
		mxa_queue_refill(q);
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return dma_fence_get(job->fence);
}

/* Take the job at the ring's head out of its slot (its reference comes with it). */
static struct mxa_job *mxa_queue_pop(struct mxa_queue *q, u32 *slotp)
{
	u32 slot = q->head;
	struct mxa_job *job = q->jobs[slot];

	lockdep_assert_held(&q->lock);
	q->jobs[slot] = NULL;
	q->head = (slot + 1) & (q->size - 1);
	*slotp = slot;
	return job;
}

/* The ring empty at slot 0, as the device has it after a queue reset. */
static void mxa_queue_ring_reset(struct mxa_queue *q)
{
	lockdep_assert_held(&q->lock);
	q->head = 0;
	q->tail = 0;
	q->unrung = 0;
	q->hw_completed = 0;
}

/* Complete the jobs the device has counted in MXA_QREG_COMPLETED; returns how many. */
static u32 mxa_queue_harvest(struct mxa_queue *q)
{
	u32 hw, n, in_flight, done;

	lockdep_assert_held(&q->lock);

	hw = mxa_qread(q, MXA_QREG_COMPLETED);
	n = hw - q->hw_completed;
	in_flight = mxa_queue_in_flight(q);
	if (n > in_flight) {
		drm_err_ratelimited(&q->mdev->drm,
				    "queue %u: device completed %u jobs, %u were in flight\n",
				    q->idx, n, in_flight);
		n = in_flight;
	}
	/* The records of the counted jobs were written before COMPLETED moved. */
	dma_rmb();
	for (done = 0; done < n; done++) {
		u32 slot;
		struct mxa_job *job = mxa_queue_pop(q, &slot);

		mxa_job_complete(q, job, &q->comps[slot]);
		mxa_job_put(job);
	}
	q->hw_completed = hw;
	if (done)
		mxa_queue_watch(q);
	return done;
}

/*
 * Harvest and refill under the queue's lock; with @only_if_done, only when the oldest
 * job in the ring has its record (mxa_queue_poll()).
 */
static void mxa_queue_finish(struct mxa_queue *q, bool only_if_done)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	if (!q->recovering &&
	    (!only_if_done || (q->head != q->tail &&
			       READ_ONCE(q->comps[q->head].status) != MXA_JOB_STATUS_PENDING))) {
		mxa_queue_harvest(q);
		mxa_queue_refill(q);
	}
	spin_unlock_irqrestore(&q->lock, flags);
}

/**
 * mxa_queue_complete() - complete every job the device has finished on a queue
 * and refill the ring from the backlog. Called from the queue's interrupt handler.
 * @q: the queue.
 */
void mxa_queue_complete(struct mxa_queue *q)
{
	mxa_queue_finish(q, false);
}

/**
 * mxa_queue_poll() - complete the queue's finished jobs now when the oldest job in
 * its ring has a record: the device may finish a short job before the doorbell write
 * returns (device.rst, "Jobs a doorbell runs"), and its interrupt may go to another
 * CPU, which may be asleep. Under the queue's lock even when there is nothing to
 * harvest: an interrupt handler on another CPU may have taken the submitter's job
 * from the ring and not yet signalled it, and it does both under the lock; so when
 * this returns, the job is complete if the device has finished it. The record is read
 * first, so a job still running costs no register read. Called by the submitter after
 * a job went straight to the ring.
 * @q: the queue.
 */
void mxa_queue_poll(struct mxa_queue *q)
{
	mxa_queue_finish(q, true);
}

/**
 * mxa_queue_irq() - the queue's MSI-X handler: complete what the device finished.
 * @irq: the vector's IRQ.
 * @arg: the queue.
 *
 * Return: IRQ_HANDLED.
 */
irqreturn_t mxa_queue_irq(int irq, void *arg)
{
	struct mxa_queue *q = arg;

	mxa_write(q->mdev, MXA_REG_INT_STATUS, MXA_INT_QUEUE(q->idx));
	mxa_queue_complete(q);
	return IRQ_HANDLED;
}

/**
 * mxa_queue_halt() - stop feeding a queue before it is reset.
 * @q: the queue.
 * @for_good: also stop taking new jobs (device removal): submitters get -ENODEV.
 *
 * Jobs the device has completed are completed with their real results; the rest
 * stay in the ring until mxa_queue_abort().
 */
void mxa_queue_halt(struct mxa_queue *q, bool for_good)
{
	spin_lock_irq(&q->lock);
	q->recovering = true;
	if (for_good)
		q->accepting = false;
	mxa_queue_harvest(q);
	spin_unlock_irq(&q->lock);
}

/**
 * mxa_queue_abort() - fail the jobs left in a halted queue's ring (and backlog);
 * the ring is left empty at slot 0, as the device has it after a queue reset.
 * @q: the queue, halted with mxa_queue_halt() and reset on the device side.
 * @status: drm_mxa_job_result.status for the jobs (negative errno).
 * @error: drm_mxa_job_result.error for the jobs (MXA_ERR_*).
 * @backlog: fail the backlog too; otherwise it is kept for mxa_queue_resume().
 */
void mxa_queue_abort(struct mxa_queue *q, int status, u32 error, bool backlog)
{
	struct mxa_job *job, *next;
	u32 slot;

	spin_lock_irq(&q->lock);
	/* Ring first, then backlog: fences signal in seqno order. */
	while (q->head != q->tail)
		mxa_job_abort(mxa_queue_pop(q, &slot), status, error);
	mxa_queue_ring_reset(q);
	if (backlog) {
		list_for_each_entry_safe(job, next, &q->backlog, backlog_node) {
			list_del_init(&job->backlog_node);
			mxa_job_abort(job, status, error);
		}
		q->backlog_len = 0;
	}
	spin_unlock_irq(&q->lock);
}

/**
 * mxa_queue_requeue() - after a queue reset, fail the job at the ring's head and
 * put the jobs behind it, which never started, back in front of the backlog.
 * @q: the queue, halted (mxa_queue_halt()) and reset on the device side.
 * @status: drm_mxa_job_result.status for the head job (negative errno).
 * @error: drm_mxa_job_result.error for it (MXA_ERR_*).
 *
 * Fences keep signalling in seqno order: the requeued jobs are older than the backlog.
 * The ring is left empty at slot 0; mxa_queue_resume() refills it.
 */
void mxa_queue_requeue(struct mxa_queue *q, int status, u32 error)
{
	LIST_HEAD(requeue);
	struct mxa_job *job;
	u32 slot;

	spin_lock_irq(&q->lock);
	if (q->head != q->tail) {
		job = mxa_queue_pop(q, &slot);
		job->result.start_ns = q->comps[slot].start_ns;
		mxa_job_abort(job, status, error);
	}
	while (q->head != q->tail) {
		/* The ring's reference becomes the backlog's. */
		list_add_tail(&mxa_queue_pop(q, &slot)->backlog_node, &requeue);
		q->backlog_len++;
	}
	list_splice(&requeue, &q->backlog);
	mxa_queue_ring_reset(q);
	spin_unlock_irq(&q->lock);
}

/**
 * mxa_queue_resume() - feed a queue again after its reset.
 * @q: the queue, enabled again on the device side with an empty ring.
 */
void mxa_queue_resume(struct mxa_queue *q)
{
	spin_lock_irq(&q->lock);
	q->recovering = false;
	mxa_queue_refill(q);
	spin_unlock_irq(&q->lock);
}

static const char *const mxa_queue_reset_state_names[] = {
	[MXA_RESET_IDLE] = "idle",
	[MXA_RESET_QUEUED] = "queued",
	[MXA_RESET_HALTED] = "halted",
	[MXA_RESET_RESETTING] = "resetting",
	[MXA_RESET_RESTARTING] = "restarting",
};

/**
 * mxa_queue_reset_state_name() - text of an enum mxa_reset_state.
 * @state: the state.
 *
 * Return: a static string.
 */
const char *mxa_queue_reset_state_name(int state)
{
	if (state < 0 || state >= ARRAY_SIZE(mxa_queue_reset_state_names))
		return "?";
	return mxa_queue_reset_state_names[state];
}

/**
 * mxa_queue_watch() - (re)start the watchdog when the job at the ring's head changed.
 * @q: the queue; its lock held.
 */
void mxa_queue_watch(struct mxa_queue *q)
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

static void mxa_queue_watchdog(struct work_struct *work)
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

static void mxa_queue_reset_work(struct work_struct *work)
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

	mxa_queue_halt(q, false);
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
		if (mxa_queue_hw_reset(q)) {
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
			mxa_queue_abort(q, -EIO, MXA_ERR_ABORTED, false);
		} else if (forced) {
			/* Not the job's fault: it is aborted, its context not charged. */
			mxa_queue_requeue(q, -ECANCELED, MXA_ERR_ABORTED);
		} else {
			q->timeouts++;
			mxa_reset_note_hang(guilty->vm);
			mxa_queue_requeue(q, -ETIMEDOUT, MXA_ERR_ABORTED);
		}
		mxa_queue_hw_start(q);
		if (guilty)
			mxa_job_put(guilty);
	}
	/* Jobs completed meanwhile, or the requeued ones: feed the ring again. */
	mxa_queue_resume(q);
out:
	WRITE_ONCE(q->reset_state, MXA_RESET_IDLE);
	drm_dev_exit(idx);
}

/**
 * mxa_queue_reset_force() - reset a queue now (debugfs ``reset_queue``).
 * @q: the queue.
 *
 * The queue goes through the same state machine as after a timeout: the job at the
 * ring's head when the queue is halted (if any) ends with -ECANCELED /
 * MXA_ERR_ABORTED, without counting against its context; the jobs behind it run
 * afterwards. Returns before the reset is done.
 *
 * Return: 0, or -ENODEV once the queue no longer takes jobs.
 */
int mxa_queue_reset_force(struct mxa_queue *q)
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
 * mxa_queue_reset_stopped() - reset a queue the device stopped on an error (the error
 * interrupt's work), through the same state machine as a timeout.
 * @q: the queue.
 *
 * The jobs left in the ring fail with -EIO / MXA_ERR_ABORTED; those the device
 * completed before it stopped keep their results, the backlog runs afterwards.
 */
void mxa_queue_reset_stopped(struct mxa_queue *q)
{
	spin_lock_irq(&q->lock);
	q->device_stopped = true;
	spin_unlock_irq(&q->lock);
	WRITE_ONCE(q->reset_state, MXA_RESET_QUEUED);
	queue_work(q->mdev->reset_wq, &q->reset_work);
}

