// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA jobs.
 *
 * DOC: Jobs, fences and completion
 *
 * A job is a program (a range of a BO) run in the submitting file's context. It is
 * submitted to a user queue (mxa_uqueue.c): mxa_job_create() validates it and makes
 * it a drm_sched job whose dependencies are its input fences, mxa_job_queue() arms it
 * and pushes it to the queue's entity, and the scheduler of the hardware queue
 * (mxa_sched.c) calls mxa_queue_run_job() once its inputs have signalled and it is its
 * turn. Userspace sees the scheduler's finished fence (@mxa_job.done): output
 * syncobjs, DRM_IOCTL_MXA_WAIT, io_uring completions and groups use it.
 *
 * A job without input fences, submitted while no job waits in its hardware queue's
 * scheduler, goes straight to the ring instead (mxa_queue_run_direct()): the
 * scheduler would run it at once, and skipping it saves its two work items. Its
 * hardware fence is then what userspace sees. The ring's order is the same either
 * way, so a user queue's fences still signal in submission order. A job without sync
 * operations becomes a drm_sched job only when it cannot go straight to the ring: the
 * scheduler fence that drm_sched_job_init() allocates is otherwise freed unused.
 *
 * mxa_queue_run_job() gives the job its hardware fence and puts it in the next ring slot.
 * The fences of a hardware queue share one fence context; their seqnos are assigned
 * under the queue lock in ring order, which is also completion order. While the
 * queue is halted for a reset, jobs wait in its backlog instead (the scheduler has no
 * more credits than ring slots, so the ring itself is never full).
 *
 * Completion runs in the queue's hard interrupt handler: read MXA_QREG_COMPLETED, and
 * for every job up to it, in ring order, turn its completion record into a
 * struct drm_mxa_job_result and signal the hardware fence, which signals the finished
 * fence with the job's error. A job's memory is reference counted (struct mxa_job
 * @refcount); because the last reference may be dropped in the interrupt handler,
 * freeing a job (which drops BO, queue and VM references and may sleep) is deferred
 * to a work item.
 */
#include <linux/dma-fence-chain.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>

#include "mxa_args.h"
#include "mxa_isa.h"
#include "mxa_drv.h"
#include "mxa_gem.h"
#include "mxa_group.h"
#include "mxa_reset.h"
#include "mxa_sched.h"
#include "mxa_trace.h"
#include "mxa_job.h"
#include "mxa_queue.h"
#include "mxa_uqueue.h"
#include "mxa_vm.h"

static LLIST_HEAD(mxa_job_free_list);
static struct kmem_cache *mxa_job_cache;

/*
 * Jobs come from a cache of their own whose constructor makes the slab leave them
 * unzeroed: Debian's kernels zero every allocation (init_on_alloc), and under emulation
 * the kernel's memset() costs a step a byte, a fifth of the guest's time in the
 * io_uring path (Documentation/performance.rst, "Submission"). mxa_job_create() zeroes
 * the job but its scheduler part, which mxa_job_init_sched() zeroes when it is used.
 */
static void mxa_job_ctor(void *job)
{
}

/**
 * mxa_job_cache_init() - create the jobs' cache (module init).
 *
 * Return: 0 or -ENOMEM.
 */
int mxa_job_cache_init(void)
{
	/* @result is copied to userspace (io_uring): hardened usercopy's whitelist. */
	mxa_job_cache = kmem_cache_create_usercopy("mxa_job", sizeof(struct mxa_job), 0, 0,
						   offsetof(struct mxa_job, result),
						   sizeof_field(struct mxa_job, result),
						   mxa_job_ctor);
	return mxa_job_cache ? 0 : -ENOMEM;
}

/**
 * mxa_job_cache_fini() - destroy it (module exit, once every job is freed).
 */
void mxa_job_cache_fini(void)
{
	kmem_cache_destroy(mxa_job_cache);
}

static void mxa_job_free_signals(struct mxa_job *job)
{
	u32 i;

	for (i = 0; i < job->num_signals; i++) {
		kfree(job->signals[i].chain);
		drm_syncobj_put(job->signals[i].syncobj);
	}
	kfree(job->signals);
	job->signals = NULL;
	job->num_signals = 0;
}

static void mxa_job_release_refs(struct mxa_job *job)
{
	/* An unused hardware fence is plain memory; a used one lives on by refcount. */
	if (job->ran)
		dma_fence_put(job->fence);
	else
		kfree(job->fence);
	mxa_job_free_signals(job);
	dma_fence_put(job->done);
	mxa_uqueue_put(job->uq);
	/* The VM reference (dropped last) keeps the device alive up to here. */
	atomic_dec(&job->vm->mdev->live_jobs);
	if (job->bo)
		drm_gem_object_put(&job->bo->base.base);
	mxa_vm_put(job->vm);
}

static void mxa_job_free_work_fn(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&mxa_job_free_list);
	struct mxa_job *job, *next;

	llist_for_each_entry_safe(job, next, list, free_node) {
		mxa_job_release_refs(job);
		kmem_cache_free(mxa_job_cache, job);
	}
}

static DECLARE_WORK(mxa_job_free_work, mxa_job_free_work_fn);

/*
 * The last reference may go in any context (the interrupt handler, under a queue
 * lock): free at once in a task that may sleep (io_uring task work, WAIT, close), else
 * from a work item; a work item per job is a measurable part of a job's cost under
 * emulation. Never inline in a workqueue worker: freeing may drop the device's last
 * reference, whose release stops the schedulers and waits for their work items
 * (drm_sched_fini()), the scheduler's free_job among them.
 */
static void mxa_job_release(struct kref *kref)
{
	struct mxa_job *job = container_of(kref, struct mxa_job, refcount);

	if (preemptible() && !(current->flags & PF_WQ_WORKER)) {
		mxa_job_release_refs(job);
		kmem_cache_free(mxa_job_cache, job);
		return;
	}
	if (llist_add(&job->free_node, &mxa_job_free_list))
		schedule_work(&mxa_job_free_work);
}

/**
 * mxa_job_put() - drop a job reference.
 * @job: the job.
 */
void mxa_job_put(struct mxa_job *job)
{
	kref_put(&job->refcount, mxa_job_release);
}

/**
 * mxa_job_flush_free() - wait until every released job is freed (module exit).
 */
void mxa_job_flush_free(void)
{
	flush_work(&mxa_job_free_work);
}

/**
 * struct mxa_hw_fence - a job's hardware fence.
 * @base: the fence.
 * @q: its hardware queue (timeline name).
 *
 * Separate from the job: the scheduler's finished fence holds the hardware fence (as
 * its parent) and the job holds the finished fence, so a fence embedded in the job
 * would keep the job alive for ever.
 */
struct mxa_hw_fence {
	struct dma_fence base;
	struct mxa_queue *q;
};

static const char *mxa_fence_get_driver_name(struct dma_fence *fence)
{
	return MXA_DRIVER_NAME;
}

static const char *mxa_fence_get_timeline_name(struct dma_fence *fence)
{
	return container_of(fence, struct mxa_hw_fence, base)->q->name;
}

/* The default release: kfree_rcu() of the fence (it starts struct mxa_hw_fence). */
static const struct dma_fence_ops mxa_fence_ops = {
	.get_driver_name = mxa_fence_get_driver_name,
	.get_timeline_name = mxa_fence_get_timeline_name,
};

/*
 * Look up the syncobjs of drm_mxa_submit.syncs: input fences become the scheduler
 * job's dependencies, output syncobjs (with a chain node for timeline points) go to
 * job->signals.
 */
static int mxa_job_parse_syncs(struct mxa_job *job, struct drm_file *file,
			       const struct drm_mxa_obj_array *syncs)
{
	const u8 __user *ptr = u64_to_user_ptr(syncs->array);
	struct drm_mxa_sync_op op;
	u32 i;
	int ret;

	job->signals = kcalloc(syncs->count, sizeof(*job->signals), GFP_KERNEL);
	if (!job->signals)
		return -ENOMEM;

	for (i = 0; i < syncs->count; i++, ptr += syncs->stride) {
		bool timeline;

		ret = copy_struct_from_user(&op, sizeof(op), ptr, syncs->stride);
		if (ret)
			return ret;
		ret = mxa_args_sync_op(&op);
		if (ret)
			return ret;
		timeline = op.flags & DRM_MXA_SYNC_OP_TIMELINE;

		if (!(op.flags & DRM_MXA_SYNC_OP_SIGNAL)) {
			struct dma_fence *fence;

			ret = drm_syncobj_find_fence(file, op.handle, op.timeline_value, 0,
						     &fence);
			if (ret)
				return ret;
			if (!fence)	/* a timeline point not there yet */
				return -EINVAL;
			/* Takes the fence reference, also on failure. */
			ret = drm_sched_job_add_dependency(&job->base, fence);
			if (ret)
				return ret;
		} else {
			struct mxa_job_signal *s = &job->signals[job->num_signals];

			s->syncobj = drm_syncobj_find(file, op.handle);
			if (!s->syncobj)
				return -ENOENT;
			job->num_signals++;
			s->point = op.timeline_value;
			if (timeline) {
				s->chain = kmalloc(sizeof(*s->chain), GFP_KERNEL);
				if (!s->chain)
					return -ENOMEM;
			}
		}
	}
	return 0;
}

/* Give the job's output syncobjs its finished fence, and drop them. */
static void mxa_job_attach_signals(struct mxa_job *job)
{
	u32 i;

	for (i = 0; i < job->num_signals; i++) {
		struct mxa_job_signal *s = &job->signals[i];

		if (s->chain) {
			drm_syncobj_add_point(s->syncobj, s->chain, job->done, s->point);
			s->chain = NULL;
		} else {
			drm_syncobj_replace_fence(s->syncobj, job->done);
		}
	}
	mxa_job_free_signals(job);
}

/* Make @job a drm_sched job of its user queue's entity, once. */
static int mxa_job_init_sched(struct mxa_job *job)
{
	int ret;

	if (job->sched_init)
		return 0;
	/* Zeroed here, not at creation: drm_sched_job_init() may read it on failure. */
	memset(&job->base, 0, sizeof(job->base));
	ret = mxa_sched_job_init(&job->base, &job->uq->entity, job->file);
	job->sched_init = !ret;
	return ret;
}

/**
 * mxa_job_create() - validate a submission and build its job.
 * @file: the submitting file.
 * @args: the submission (already copied from userspace).
 * @ioctl: DRM_IOCTL_MXA_SUBMIT's (no result pointer), not MXA_URING_CMD_SUBMIT's.
 * @jobp: out: the job, not yet queued.
 *
 * May sleep (allocations, syncobj lookups, user copies of the sync array).
 *
 * Return: 0; -EINVAL for non-zero flags or padding, an unknown queue, a program
 * that is empty, misaligned, too large or outside its BO, bad sync operations, or a
 * grid the device cannot run (mxa_args_submit(), mxa_args_sync_op());
 * -EOPNOTSUPP for a grid on a device without MXA_CAP_GRID; -ENOENT for an unknown
 * handle or syncobj; -ECANCELED for a banned context; -EFAULT; -E2BIG; -ENOMEM.
 */
int mxa_job_create(struct drm_file *file, const struct drm_mxa_submit *args, bool ioctl,
		   struct mxa_job **jobp)
{
	struct mxa_file *mf = to_mxa_file(file);
	struct mxa_device *mdev = mf->mdev;
	struct drm_gem_object *obj;
	struct mxa_hw_fence *hwf;
	struct mxa_uqueue *uq;
	struct mxa_job *job;
	struct mxa_bo *bo;
	int ret;

	/* dma_fence_free() frees the fence's address: the fence must start the struct. */
	BUILD_BUG_ON(offsetof(struct mxa_hw_fence, base) != 0);

	ret = mxa_args_submit(args, ioctl, mdev->caps & MXA_CAP_GRID, mdev->num_cores);
	if (ret)
		return ret;

	/* A banned context runs nothing more (mxa_reset.c), nor does a lost device. */
	if (READ_ONCE(mf->vm->banned))
		return -ECANCELED;
	if (READ_ONCE(mf->mdev->lost))
		return -ENODEV;

	obj = drm_gem_object_lookup(file, args->prog_handle);
	if (!obj)
		return -ENOENT;
	bo = to_mxa_bo(obj);
	if (bo->vm != mf->vm || (u64)args->prog_offset + args->prog_size > obj->size) {
		drm_gem_object_put(obj);
		return -EINVAL;
	}
	uq = mxa_uqueue_get(mf, args->queue);
	if (IS_ERR(uq)) {
		drm_gem_object_put(obj);
		return PTR_ERR(uq);
	}

	/* The hardware fence now: run_job, in the scheduler's work, must not fail. */
	hwf = kmalloc(sizeof(*hwf), GFP_KERNEL);	/* dma_fence_init() sets it all */
	job = mxa_inject(&mdev->inject_submit_nomem) ? NULL :
	      kmem_cache_alloc(mxa_job_cache, GFP_KERNEL);
	if (!job || !hwf) {
		kfree(hwf);
		if (job)
			kmem_cache_free(mxa_job_cache, job);
		mxa_uqueue_put(uq);
		drm_gem_object_put(obj);
		return -ENOMEM;
	}
	memset(job, 0, offsetof(struct mxa_job, base));
	kref_init(&job->refcount);
	job->fence = &hwf->base;
	atomic_inc(&mdev->live_jobs);
	atomic64_inc(&mdev->jobs_total);
	job->uq = uq;
	job->queue = uq->hw;
	job->vm = mxa_vm_get(mf->vm);
	job->bo = bo;
	job->id = atomic64_inc_return(&mf->next_job_id);
	job->prog_va = mxa_bo_va(bo) + args->prog_offset;
	job->prog_size = args->prog_size;
	job->grid_x = args->grid_x;
	job->grid_y = args->grid_y;
	job->cluster_x = args->cluster_x;
	job->cluster_y = args->cluster_y;
	spin_lock_init(&job->ucmd_lock);
	INIT_LIST_HEAD(&job->backlog_node);

	job->file = file;
	if (args->syncs.count) {
		/* The input fences become the scheduler job's dependencies. */
		ret = mxa_job_init_sched(job);
		if (ret) {
			mxa_job_put(job);
			return ret;
		}
		ret = mxa_job_parse_syncs(job, file, &args->syncs);
		if (ret) {
			mxa_job_destroy(job);
			return ret;
		}
	}
	*jobp = job;
	return 0;
}

/**
 * mxa_job_destroy() - free a job that was never queued.
 * @job: the job from mxa_job_create().
 */
void mxa_job_destroy(struct mxa_job *job)
{
	if (job->sched_init)
		drm_sched_job_cleanup(&job->base);
	mxa_job_put(job);
}

/* A job of @uq has ended, or the scheduler is done with it: one less pending. */
static void mxa_job_pending_done(struct mxa_uqueue *uq)
{
	if (atomic_dec_return(&uq->pending) < MXA_UQUEUE_MAX_PENDING)
		wake_up(&uq->space_wq);
}

/**
 * mxa_job_queue() - arm a job and push it to its user queue.
 * @job: a job from mxa_job_create().
 * @may_wait: when MXA_UQUEUE_MAX_PENDING jobs of the queue have not ended yet, sleep
 *            (interruptibly) until one has; otherwise fail with -EAGAIN (io_uring
 *            issue, see mxa_uring.c).
 * @batch: the job is one of the submitter's io_uring batch: if it goes straight to
 *         the ring, its doorbell may wait for the batch's end (mxa_queue_run_direct()).
 *
 * On success the job's fence is set (@job->done), its output syncobjs have it, it is
 * in the queue's next group, and the caller keeps the reference mxa_job_create()
 * gave; the scheduler holds another until it frees the job (a job that went straight
 * to the ring has none: its ring slot holds one). On failure the job is untouched and
 * the caller frees it with mxa_job_destroy().
 *
 * Return: 0; -EAGAIN; -ERESTARTSYS; -EINVAL when the queue was destroyed meanwhile;
 * -ENOMEM.
 */
int mxa_job_queue(struct mxa_job *job, bool may_wait, bool batch)
{
	struct mxa_uqueue *uq = job->uq;
	bool direct = false;
	int ret;

	for (;;) {
		mutex_lock(&uq->submit_lock);
		if (uq->dead) {
			ret = -EINVAL;
			break;
		}
		if (atomic_read(&uq->pending) < MXA_UQUEUE_MAX_PENDING) {
			bool inputs = job->sched_init && !xa_empty(&job->base.dependencies);

			atomic_inc(&uq->pending);
			/* Under the submit lock: the queue's jobs keep their order. */
			if (!inputs && mxa_queue_run_direct(job, batch)) {
				direct = true;
				if (job->sched_init)
					drm_sched_job_cleanup(&job->base);
				job->sched_init = false;
			} else {
				/* A job without syncs initialises its scheduler part only now. */
				ret = mxa_job_init_sched(job);
				if (ret) {
					mxa_job_pending_done(uq);
					break;
				}
				drm_sched_job_arm(&job->base);
				job->done = dma_fence_get(&job->base.s_fence->finished);
				/* The scheduler's reference, dropped by mxa_job_sched_release(). */
				mxa_job_get(job);
				job->sched_waiting = true;
				atomic_inc(&job->queue->sched_waiting);
				drm_sched_entity_push_job(&job->base);
			}
			mxa_group_job_pushed(&uq->groups, job->done);
			trace_mxa_job_queue(job->queue->idx, uq->id, job->vm->ctx, job->id,
					    job->done->seqno);
			ret = 0;
			break;
		}
		mutex_unlock(&uq->submit_lock);
		if (!may_wait)
			return -EAGAIN;
		ret = wait_event_interruptible(uq->space_wq,
					       READ_ONCE(uq->dead) ||
					       atomic_read(&uq->pending) < MXA_UQUEUE_MAX_PENDING);
		if (ret)
			return ret;
	}
	mutex_unlock(&uq->submit_lock);
	if (!ret)
		mxa_job_attach_signals(job);
	/* it may have ended already; a plugged batch polls when its doorbell rings */
	if (direct && !current->plug)
		mxa_queue_poll(job->queue);
	return ret;
}

/**
 * mxa_job_sched_release() - the scheduler is done with a job (its free_job).
 * @job: the job.
 */
void mxa_job_sched_release(struct mxa_job *job)
{
	mxa_queue_sched_left(job);
	mxa_job_pending_done(job->uq);
	mxa_job_put(job);
}

/**
 * mxa_job_result() - how a job ended.
 * @job: a job whose finished fence has signalled.
 *
 * A job that never reached its hardware queue (its user queue was destroyed by a
 * fatal signal) ended with the finished fence's error.
 *
 * Return: the result, valid while the caller holds its reference.
 */
const struct drm_mxa_job_result *mxa_job_result(struct mxa_job *job)
{
	if (!READ_ONCE(job->ended) && !job->result.status) {
		job->result.status = job->done->error ?: -ECANCELED;
		job->result.error = MXA_ERR_ABORTED;
	}
	return &job->result;
}

/**
 * mxa_job_arm() - give the job its hardware fence on @q: under the queue lock, so
 * seqnos follow ring order.
 * @q: the job's hardware queue, its lock held.
 * @job: the job, about to enter the ring or the backlog.
 */
void mxa_job_arm(struct mxa_queue *q, struct mxa_job *job)
{
	lockdep_assert_held(&q->lock);
	container_of(job->fence, struct mxa_hw_fence, base)->q = q;
	dma_fence_init(job->fence, &mxa_fence_ops, &q->fence_lock, q->fence_context,
		       ++q->seqno);
	job->ran = true;
	/* The device uses the VM's page tables until the fence signals (mxa_vm.c). */
	atomic_inc(&job->vm->jobs);
}

static void mxa_job_signal(struct mxa_job *job)
{
	/* Before the fence: the finished fence, and its waiters, follow at once. */
	WRITE_ONCE(job->ended, true);
	if (job->direct) {
		atomic_dec(&job->queue->direct_live);
		mxa_job_pending_done(job->uq);
	}
	if (job->result.status)
		dma_fence_set_error(job->fence, job->result.status);
	dma_fence_signal(job->fence);
	/* The device is done with the job: its VM's page tables may go (mxa_vm.c). */
	atomic_dec(&job->vm->jobs);
}

/**
 * mxa_job_complete() - turn the job's completion record into its result, count it
 * against its context, and signal its fence.
 * @q: the job's hardware queue.
 * @job: the job the device finished.
 * @comp: its completion record.
 */
void mxa_job_complete(struct mxa_queue *q, struct mxa_job *job,
		      const struct mxa_completion *comp)
{
	struct drm_mxa_job_result *r = &job->result;
	u32 status = READ_ONCE(comp->status);

	switch (status) {
	case MXA_JOB_STATUS_OK:
		r->status = 0;
		break;
	case MXA_JOB_STATUS_ERROR:
		r->status = comp->error == MXA_ERR_MMU_FAULT ? -EFAULT : -EIO;
		break;
	case MXA_JOB_STATUS_ABORTED:
		r->status = -ECANCELED;
		break;
	default:
		drm_err_ratelimited(&q->mdev->drm,
				    "queue %u: job %llu counted complete with status %u\n",
				    q->idx, job->id, status);
		r->status = -EIO;
		break;
	}
	if (status != MXA_JOB_STATUS_OK) {
		r->error = comp->error;
		r->err_offset = comp->err_offset;
		r->err_opcode = comp->err_opcode;
		r->err_addr = comp->err_addr;
		r->err_info = comp->err_info;
		r->err_instance = comp->err_instance;
	}
	r->start_ns = comp->start_ns;
	r->end_ns = comp->end_ns;
	r->cycles = comp->cycles;
	r->commands = comp->commands;
	r->instances = comp->instances;
	r->tma_load_bytes = comp->tma_load_bytes;
	if (r->status == -EFAULT)
		trace_mxa_job_fault(q->idx, job->vm->ctx, job->id, r->err_addr, r->err_info,
				    r->err_offset);
	trace_mxa_job_complete(q->idx, job->id, job->fence->seqno, r->status, r->error,
			       r->cycles);
	if (r->end_ns > r->start_ns)
		atomic64_add(r->end_ns - r->start_ns, &job->vm->engine_ns[q->idx]);
	atomic64_add(r->cycles, &job->vm->engine_cycles[q->idx]);
	mxa_reset_note_result(job->vm, r->status);
	mxa_job_signal(job);
}

/**
 * mxa_job_abort() - end a job that will not run (or not finish) on the device with
 * @status and @error, and drop the reference its ring slot or backlog entry held.
 * @job: the job.
 * @status: drm_mxa_job_result.status (negative errno).
 * @error: drm_mxa_job_result.error (MXA_ERR_*).
 */
void mxa_job_abort(struct mxa_job *job, int status, u32 error)
{
	job->result.status = status;
	job->result.error = error;
	mxa_job_signal(job);
	mxa_job_put(job);
}

/**
 * mxa_job_file_close() - drop the file's references to its ioctl jobs.
 * @mf: the file.
 *
 * Jobs still queued or running keep going; the scheduler and their ring slot hold
 * them until they complete.
 */
void mxa_job_file_close(struct mxa_file *mf)
{
	struct mxa_job *job;
	unsigned long id;

	xa_for_each(&mf->jobs, id, job) {
		xa_erase(&mf->jobs, id);
		mxa_job_put(job);
	}
	xa_destroy(&mf->jobs);
}

int mxa_ioctl_submit(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct mxa_file *mf = to_mxa_file(file);
	struct drm_mxa_submit *args = data;
	struct mxa_job *job;
	int ret;

	ret = mxa_job_create(file, args, true, &job);
	if (ret)
		return ret;

	/* Reserve the table entry first so that nothing can fail after the push. */
	ret = xa_reserve(&mf->jobs, job->id, GFP_KERNEL);
	if (ret)
		goto err_destroy;
	ret = mxa_job_queue(job, true, false);
	if (ret) {
		xa_release(&mf->jobs, job->id);
		goto err_destroy;
	}
	args->job_id = job->id;
	/* The table takes over the creation reference. */
	xa_store(&mf->jobs, job->id, job, GFP_KERNEL);
	return 0;

err_destroy:
	mxa_job_destroy(job);
	return ret;
}

/**
 * mxa_fence_wait_ns() - wait for a fence with a relative uAPI timeout.
 * @fence: the fence.
 * @timeout_ns: the timeout (ns, >= 0); 0 polls.
 *
 * The deadline is a ktime: dma_fence_wait_timeout() counts jiffies, and a guest's
 * jiffies may advance in bursts (a 20 ms wait was seen to end after 16 ms), so the
 * wait is repeated until the fence signals or the deadline has really passed.
 *
 * Return: 0 once signalled; -ETIME at the deadline; -ERESTARTSYS.
 */
int mxa_fence_wait_ns(struct dma_fence *fence, s64 timeout_ns)
{
	ktime_t deadline = ktime_add_ns(ktime_get(), timeout_ns);

	for (;;) {
		s64 left = ktime_to_ns(ktime_sub(deadline, ktime_get()));
		long j, t;

		if (left <= 0) {
			j = 0;
		} else {
			/* Round up: a non-zero timeout waits at least one tick. */
			u64 jj = nsecs_to_jiffies64(left) + 1;

			j = jj >= MAX_SCHEDULE_TIMEOUT ? MAX_SCHEDULE_TIMEOUT : (long)jj;
		}
		t = dma_fence_wait_timeout(fence, true, j);
		if (t < 0)
			return t;
		if (t > 0)
			return 0;
		if (!j || ktime_compare(ktime_get(), deadline) >= 0)
			return -ETIME;
	}
}

int mxa_ioctl_wait(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct mxa_file *mf = to_mxa_file(file);
	struct drm_mxa_wait *args = data;
	struct mxa_job *job;
	int ret;

	ret = mxa_args_wait(args);
	if (ret)
		return ret;

	xa_lock(&mf->jobs);
	job = xa_load(&mf->jobs, args->job_id);
	if (job)
		mxa_job_get(job);
	xa_unlock(&mf->jobs);
	if (!job)
		return -ENOENT;

	ret = mxa_fence_wait_ns(job->done, args->timeout_ns);
	if (!ret) {
		args->result = *mxa_job_result(job);
		/* Release the id; a concurrent WAIT on it may have done so already. */
		if (xa_cmpxchg(&mf->jobs, args->job_id, job, NULL, 0) == job)
			mxa_job_put(job);
	}
	mxa_job_put(job);
	return ret;
}
