// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA io_uring commands.
 *
 * DOC: Submission through io_uring
 *
 * IORING_OP_URING_CMD on the accel fd with cmd_op MXA_URING_CMD_SUBMIT carries a
 * struct drm_mxa_submit in the SQE128 command area. The payload is copied when the
 * command is issued; the job is queued like an ioctl job, and the command stays in
 * flight until the job's finished fence signals. The fence callback (IRQ context)
 * defers to task context with io_uring_cmd_complete_in_task(), which posts the CQE:
 * res = the job status, big_cqe[0] = the job id (hence IORING_SETUP_CQE32 is
 * required).
 *
 * Issue never waits for the device and never returns -EAGAIN: the job joins its user
 * queue's drm_sched entity, whose scheduler feeds the ring, or goes straight to the
 * ring when the scheduler would run it at once (mxa_queue_run_direct()), whose
 * doorbell the batch shares (rung at its first job on an empty ring, every
 * MXA_DOORBELL_EVERY jobs and when io_uring ends its submission plug). Issue may sleep
 * briefly as any process-context path does (GFP_KERNEL allocations in
 * drm_sched_job_init() and ours, the user queue's submit mutex, user copies of the
 * sync array), never on the device. -EAGAIN would make io_uring re-issue the command
 * from io-wq, and 6.12 re-reads the SQE there from the shared ring, where userspace may
 * already have put another command (observed: jobs ran another SQE's program). A user
 * queue with MXA_UQUEUE_MAX_PENDING jobs not yet ended completes the command with
 * -EAGAIN instead.
 *
 * MXA_URING_CMD_COMMIT_GROUP completes at once.
 * MXA_URING_CMD_WAIT_GROUP looks up the fence of the group that must complete; if there
 * is one, a struct mxa_uring_wait (allocated without sleeping) carries a fence callback
 * and an hrtimer for the command's own timeout. The first of fence callback, timer and
 * cancel to set wait->claimed owns the completion; the fence callback and the timer
 * defer it to task context, where the timer is cancelled synchronously and the fence
 * callback removed before the CQE is posted and the wait freed.
 *
 * Commands are cancelable: when the ring or the task goes away io_uring calls us with
 * IO_URING_F_CANCEL, and the CQE is posted at once with -ECANCELED. The job itself
 * keeps running (its ring slot holds it) and is freed when it completes. Whoever
 * clears job->ucmd under job->ucmd_lock (the fence callback or the cancel) owns the
 * command's completion and the command's job reference; the other does nothing.
 */
#include <linux/hrtimer.h>
#include <linux/io_uring/cmd.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>

#include "drm/mxa_accel.h"
#include "mxa_args.h"
#include "mxa_drv.h"
#include "mxa_group.h"
#include "mxa_job.h"
#include "mxa_uqueue.h"
#include "mxa_uring.h"

/**
 * struct mxa_uring_wait - a pending MXA_URING_CMD_WAIT_GROUP.
 * @cmd: the command.
 * @fence: the fence of the group that must complete (reference).
 * @cb: callback on @fence.
 * @timer: the command's timeout.
 * @lock: protects @state and @res (fence callback, timer, cancel and the issue path).
 * @state: MXA_WAIT_ARMING while the issue path sets up the timer and the callback
 *         (nobody else may complete or free anything then: a claim only records its
 *         result, and the issue path completes the command when it is done);
 *         MXA_WAIT_ARMED afterwards, when the first claimer owns the completion;
 *         MXA_WAIT_RECORDED, MXA_WAIT_CLAIMED once that happened.
 * @res: the CQE's res, set by the claimer.
 * @group_id: the CQE's second word.
 */
struct mxa_uring_wait {
	struct io_uring_cmd *cmd;
	struct dma_fence *fence;
	struct dma_fence_cb cb;
	struct hrtimer timer;
	spinlock_t lock;	/* protects state, res */
	int state;
	int res;
	u64 group_id;
};

enum { MXA_WAIT_ARMING, MXA_WAIT_ARMED, MXA_WAIT_RECORDED, MXA_WAIT_CLAIMED };

/**
 * struct mxa_uring_pdu - our state inside struct io_uring_cmd.
 * @job: SUBMIT: the job the command waits for; the command holds a reference to it.
 * @wait: WAIT_GROUP: the pending wait, owned by the command.
 * @result_ptr: drm_mxa_submit.result_ptr: where the result goes, or 0.
 * @result_size: bytes of the result to write there.
 */
struct mxa_uring_pdu {
	struct mxa_job *job;
	struct mxa_uring_wait *wait;
	u64 result_ptr;
	u32 result_size;
};

static struct mxa_uring_pdu *mxa_uring_pdu(struct io_uring_cmd *cmd)
{
	return io_uring_cmd_to_pdu(cmd, struct mxa_uring_pdu);
}

/* Claim the command's completion: only one of the fence callback and cancel wins. */
static struct io_uring_cmd *mxa_uring_claim(struct mxa_job *job)
{
	struct io_uring_cmd *cmd;
	unsigned long flags;

	spin_lock_irqsave(&job->ucmd_lock, flags);
	cmd = job->ucmd;
	job->ucmd = NULL;
	spin_unlock_irqrestore(&job->ucmd_lock, flags);
	return cmd;
}

/* Task work of the submitting task: deliver the result and post the CQE. */
static void mxa_uring_task_done(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct mxa_uring_pdu *pdu = mxa_uring_pdu(cmd);
	struct mxa_job *job = pdu->job;
	const struct drm_mxa_job_result *result = mxa_job_result(job);
	int res = result->status;

	if (pdu->result_ptr) {
		/* Without the submitter's address space (exit, fallback worker) it's lost. */
		if ((issue_flags & IO_URING_F_TASK_DEAD) ||
		    (current->flags & (PF_EXITING | PF_KTHREAD)) || !current->mm ||
		    copy_to_user(u64_to_user_ptr(pdu->result_ptr), result,
				 min_t(u32, pdu->result_size, sizeof(*result))) ||
		    (pdu->result_size > sizeof(*result) &&
		     clear_user(u64_to_user_ptr(pdu->result_ptr) + sizeof(*result),
				pdu->result_size - sizeof(*result))))
			res = -EFAULT;
	}
	io_uring_cmd_done(cmd, res, job->id, issue_flags);
	mxa_job_put(job);
}

static void mxa_uring_fence_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct mxa_job *job = container_of(cb, struct mxa_job, ucb);
	struct io_uring_cmd *cmd = mxa_uring_claim(job);

	if (cmd)
		io_uring_cmd_complete_in_task(cmd, mxa_uring_task_done);
}

static void mxa_uring_wait_free(struct mxa_uring_wait *w)
{
	/* Neither the timer nor the fence callback may still run. */
	hrtimer_cancel(&w->timer);
	dma_fence_remove_callback(w->fence, &w->cb);
	dma_fence_put(w->fence);
	kfree(w);
}

static void mxa_uring_wait_task_done(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct mxa_uring_wait *w = mxa_uring_pdu(cmd)->wait;
	int res = w->res;
	u64 group_id = w->group_id;

	/* Off io_uring's cancel list first, then free: see mxa_uring_wait_group(). */
	io_uring_cmd_done(cmd, res, group_id, issue_flags);
	mxa_uring_wait_free(w);
}

/*
 * Claim the wait's completion with @res: true when the caller now owns it (it was
 * armed and nobody had claimed it). While the issue path is arming, the first claim
 * is recorded for it to complete.
 */
static bool mxa_uring_wait_claim_res(struct mxa_uring_wait *w, int res)
{
	unsigned long flags;
	bool mine = false;

	spin_lock_irqsave(&w->lock, flags);
	if (w->state == MXA_WAIT_ARMING || w->state == MXA_WAIT_ARMED) {
		mine = w->state == MXA_WAIT_ARMED;
		w->state = mine ? MXA_WAIT_CLAIMED : MXA_WAIT_RECORDED;
		w->res = res;
	}
	spin_unlock_irqrestore(&w->lock, flags);
	return mine;
}

static void mxa_uring_wait_claim(struct mxa_uring_wait *w, int res)
{
	if (mxa_uring_wait_claim_res(w, res))
		io_uring_cmd_complete_in_task(w->cmd, mxa_uring_wait_task_done);
}

static void mxa_uring_wait_fence_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	mxa_uring_wait_claim(container_of(cb, struct mxa_uring_wait, cb), 0);
}

static enum hrtimer_restart mxa_uring_wait_timer(struct hrtimer *timer)
{
	mxa_uring_wait_claim(container_of(timer, struct mxa_uring_wait, timer), -ETIME);
	return HRTIMER_NORESTART;
}

static void mxa_uring_cancel(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct mxa_uring_wait *w = mxa_uring_pdu(cmd)->wait;
	struct mxa_job *job = mxa_uring_pdu(cmd)->job;

	if (w) {
		/*
		 * Not ours: claimed already (the completion is queued as task work), or the
		 * issue path is still arming (it completes the command with our -ECANCELED).
		 */
		if (!mxa_uring_wait_claim_res(w, -ECANCELED))
			return;
		mxa_uring_wait_free(w);
		io_uring_cmd_done(cmd, -ECANCELED, 0, issue_flags);
		return;
	}

	/*
	 * Not claimed: the fence callback has queued the completion, or the issue path
	 * has not armed the callback yet; either way io_uring retries or completes it.
	 */
	if (!job)
		return;
	spin_lock_irq(&job->ucmd_lock);
	if (!job->uarmed || job->ucmd != cmd) {
		spin_unlock_irq(&job->ucmd_lock);
		return;
	}
	job->ucmd = NULL;
	spin_unlock_irq(&job->ucmd_lock);
	dma_fence_remove_callback(job->done, &job->ucb);
	io_uring_cmd_done(cmd, -ECANCELED, job->id, issue_flags);
	mxa_job_put(job);
}

static int mxa_uring_submit(struct io_uring_cmd *cmd, struct drm_file *file,
			    unsigned int issue_flags)
{
	struct mxa_uring_pdu *pdu = mxa_uring_pdu(cmd);
	struct drm_mxa_submit args;
	struct mxa_job *job;
	int ret;

	/* The SQE is shared with userspace: copy it once, never read it again. */
	BUILD_BUG_ON(sizeof(args) > 2 * sizeof(struct io_uring_sqe) -
		     offsetof(struct io_uring_sqe, cmd));
	memcpy(&args, io_uring_sqe_cmd(cmd->sqe), sizeof(args));

	ret = mxa_job_create(file, &args, false, &job);
	if (ret)
		goto err_done;

	ret = mxa_job_queue(job, false, true);
	if (ret) {
		mxa_job_destroy(job);
		goto err_done;
	}

	/*
	 * The job runs; our creation reference becomes the command's. Make the command
	 * cancelable before arming the callback, so that it is never completed (and
	 * freed) before io_uring has it on its cancel list. A cancel (ring exit, from
	 * another thread while this runs in io-wq) leaves the command alone until the
	 * callback is armed (@uarmed); the fence callback may complete it at once, so
	 * this path holds a reference of its own to the job until it is done with it.
	 */
	pdu->job = job;
	pdu->result_ptr = args.result_ptr;
	pdu->result_size = args.result_size ?: DRM_MXA_JOB_RESULT_SIZE_V1;
	INIT_LIST_HEAD(&job->ucb.node);
	mxa_job_get(job);
	io_uring_cmd_mark_cancelable(cmd, issue_flags);
	spin_lock_irq(&job->ucmd_lock);
	job->ucmd = cmd;
	spin_unlock_irq(&job->ucmd_lock);
	if (dma_fence_add_callback(job->done, &job->ucb, mxa_uring_fence_cb))
		mxa_uring_fence_cb(job->done, &job->ucb);	/* already signalled */
	spin_lock_irq(&job->ucmd_lock);
	job->uarmed = true;
	spin_unlock_irq(&job->ucmd_lock);
	mxa_job_put(job);
	return -EIOCBQUEUED;

err_done:
	/* Complete here so that the CQE's second word is defined (0). */
	io_uring_cmd_done(cmd, ret, 0, issue_flags);
	return -EIOCBQUEUED;
}

static int mxa_uring_commit_group(struct io_uring_cmd *cmd, struct drm_file *file,
				  unsigned int issue_flags)
{
	struct drm_mxa_commit_group args;
	struct mxa_uqueue *uq;
	u64 group_id = 0;
	int ret;

	BUILD_BUG_ON(sizeof(args) > 2 * sizeof(struct io_uring_sqe) -
		     offsetof(struct io_uring_sqe, cmd));
	memcpy(&args, io_uring_sqe_cmd(cmd->sqe), sizeof(args));
	ret = mxa_args_commit_group(&args);
	uq = ret ? ERR_PTR(ret) : mxa_uqueue_get(to_mxa_file(file), args.queue);
	if (IS_ERR(uq)) {
		ret = PTR_ERR(uq);
	} else {
		ret = mxa_group_commit(&uq->groups, GFP_KERNEL, &group_id);
		mxa_uqueue_put(uq);
	}
	io_uring_cmd_done(cmd, ret, group_id, issue_flags);
	return -EIOCBQUEUED;
}

static int mxa_uring_wait_group(struct io_uring_cmd *cmd, struct drm_file *file,
				unsigned int issue_flags)
{
	struct mxa_uring_pdu *pdu = mxa_uring_pdu(cmd);
	struct drm_mxa_wait_group args;
	struct mxa_uring_wait *w;
	struct dma_fence *fence;
	struct mxa_uqueue *uq;
	u64 group_id = 0;
	int ret = 0;

	BUILD_BUG_ON(sizeof(args) > 2 * sizeof(struct io_uring_sqe) -
		     offsetof(struct io_uring_sqe, cmd));
	memcpy(&args, io_uring_sqe_cmd(cmd->sqe), sizeof(args));
	ret = mxa_args_wait_group(&args);
	if (ret)
		goto done;
	uq = mxa_uqueue_get(to_mxa_file(file), args.queue);
	if (IS_ERR(uq)) {
		ret = PTR_ERR(uq);
		goto done;
	}
	fence = mxa_group_wait_target(&uq->groups, args.n, &group_id);
	mxa_uqueue_put(uq);
	if (!fence)
		goto done;
	if (dma_fence_is_signaled(fence) || !args.timeout_ns) {
		ret = dma_fence_is_signaled(fence) ? 0 : -ETIME;
		dma_fence_put(fence);
		goto done;
	}
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w) {
		dma_fence_put(fence);
		ret = -ENOMEM;
		goto done;
	}
	INIT_LIST_HEAD(&w->cb.node);
	spin_lock_init(&w->lock);
	w->state = MXA_WAIT_ARMING;
	w->cmd = cmd;
	w->fence = fence;
	w->group_id = group_id;
	hrtimer_init(&w->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	w->timer.function = mxa_uring_wait_timer;
	/*
	 * Cancelable before anything can complete (and free) the command; until the
	 * state leaves ARMING, the timer, the fence callback and a cancel (which may
	 * run on other CPUs as soon as the command is cancelable, this being io-wq)
	 * only record their result, and this path completes the command.
	 */
	pdu->wait = w;
	io_uring_cmd_mark_cancelable(cmd, issue_flags);
	hrtimer_start(&w->timer, ns_to_ktime(args.timeout_ns), HRTIMER_MODE_REL);
	if (dma_fence_add_callback(fence, &w->cb, mxa_uring_wait_fence_cb))
		mxa_uring_wait_claim(w, 0);	/* signalled meanwhile: recorded */
	spin_lock_irq(&w->lock);
	if (w->state == MXA_WAIT_ARMING) {
		w->state = MXA_WAIT_ARMED;
		spin_unlock_irq(&w->lock);
		return -EIOCBQUEUED;
	}
	w->state = MXA_WAIT_CLAIMED;
	ret = w->res;
	spin_unlock_irq(&w->lock);
	/*
	 * The command is cancelable: until io_uring_cmd_done() takes it off the cancel
	 * list (under the ring's lock), a cancel may run and read pdu->wait, so @w is
	 * freed only after it (KASAN on the debug guest kernel: a use after free in
	 * mxa_uring_cancel() from io_ring_exit_work when @w was freed first).
	 */
	io_uring_cmd_done(cmd, ret, group_id, issue_flags);
	mxa_uring_wait_free(w);
	return -EIOCBQUEUED;

done:
	io_uring_cmd_done(cmd, ret, group_id, issue_flags);
	return -EIOCBQUEUED;
}

/**
 * mxa_uring_cmd() - file_operations.uring_cmd of /dev/accel/accelN.
 * @cmd: the command.
 * @issue_flags: IO_URING_F_*.
 *
 * Errors are posted as the CQE's res: -EINVAL without IORING_SETUP_SQE128 and
 * IORING_SETUP_CQE32, -EOPNOTSUPP for an unknown cmd_op, -ENODEV once the device is
 * gone, -EAGAIN when the user queue has MXA_UQUEUE_MAX_PENDING jobs not yet ended,
 * and those of mxa_job_create().
 *
 * Return: -EIOCBQUEUED (the CQE comes later, or was posted already); 0 for a cancel.
 */
int mxa_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct drm_file *file = cmd->file->private_data;
	int ret;

	if (issue_flags & IO_URING_F_CANCEL) {
		mxa_uring_cancel(cmd, issue_flags);
		return 0;
	}
	/* Reset the state a cancel looks at, also on a re-issue after -EAGAIN. */
	mxa_uring_pdu(cmd)->job = NULL;
	mxa_uring_pdu(cmd)->wait = NULL;

	if (!(issue_flags & IO_URING_F_SQE128) || !(issue_flags & IO_URING_F_CQE32))
		ret = -EINVAL;
	else if (drm_dev_is_unplugged(file->minor->dev))
		ret = -ENODEV;
	else
		switch (cmd->cmd_op) {
		case MXA_URING_CMD_SUBMIT:
			return mxa_uring_submit(cmd, file, issue_flags);
		case MXA_URING_CMD_COMMIT_GROUP:
			return mxa_uring_commit_group(cmd, file, issue_flags);
		case MXA_URING_CMD_WAIT_GROUP:
			return mxa_uring_wait_group(cmd, file, issue_flags);
		default:
			ret = -EOPNOTSUPP;
			break;
		}

	io_uring_cmd_done(cmd, ret, 0, issue_flags);
	return -EIOCBQUEUED;
}
