// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA debugfs.
 *
 * DOC: debugfs
 *
 * In the accel device's debugfs directory (/sys/kernel/debug/accel/<minor>/):
 *
 * - ``counters``: live objects of the device, one "name value" per line (bos, contexts,
 *   jobs, page_tables) plus totals; the fuzzing and lifecycle tests check them for leaks.
 * - ``queues``: per hardware queue its ring state, backlog, reset state and counters,
 *   and its scheduler's credits in use (jobs handed to the ring and not yet done).
 * - ``contexts``: per context (open file) its id, ban state, hang and fault counts.
 * - ``vm``: per context its VA ranges (drm_mm).
 * - ``bos``: per BO that holds a DMA mapping its device VA (0 for an import not yet
 *   bound), size and the runs of contiguous DMA addresses its pages make ("va 0x...
 *   size N runs R"; mxa_gem.c, "Huge pages").
 * - ``job_timeout_ms``: the device's job timeout, writable (0 disables it).
 * - ``reset_queue``: write a hardware queue index to reset that queue now (the job on
 *   it ends with -ECANCELED, the rest run afterwards; mxa_queue_reset_force()).
 * - ``inject_submit_nomem``, ``inject_run_abort``: fault injection counters, writable:
 *   that many coming submissions fail with -ENOMEM / jobs end with -ECANCELED without
 *   reaching the device (struct mxa_device).
 * - ``inject_reset_timeout``: that many coming queue resets count as not completed:
 *   the device is lost (mxa_hw_lost()) until the driver is rebound.
 * - ``inject_queue_stop``: write a hardware queue index to ring its doorbell with a
 *   slot past the ring: the device stops the queue (MXA_DEVERR_BAD_TAIL) and raises
 *   its error interrupt, whose recovery (mxa_queue_reset_stopped()) fails the jobs in the
 *   ring with -EIO and runs the rest.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/nospec.h>
#include <linux/seq_file.h>

#include <drm/drm_print.h>

#include "mxa_drv.h"
#include "mxa_debugfs.h"
#include "mxa_gem.h"
#include "mxa_queue.h"
#include "mxa_reset.h"
#include "mxa_vm.h"

static int mxa_counters_show(struct seq_file *m, void *unused)
{
	struct mxa_device *mdev = m->private;

	seq_printf(m, "bos %d\n", atomic_read(&mdev->live_bos));
	seq_printf(m, "contexts %d\n", atomic_read(&mdev->live_contexts));
	seq_printf(m, "jobs %d\n", atomic_read(&mdev->live_jobs));
	seq_printf(m, "jobs_total %llu\n", (u64)atomic64_read(&mdev->jobs_total));
	seq_printf(m, "jobs_direct %llu\n", (u64)atomic64_read(&mdev->jobs_direct));
	seq_printf(m, "doorbells %llu\n", (u64)atomic64_read(&mdev->doorbells));
	seq_printf(m, "page_tables %d\n", atomic_read(&mdev->live_page_tables));
	seq_printf(m, "groups %d\n", atomic_read(&mdev->live_groups));
	seq_printf(m, "lost %d\n", READ_ONCE(mdev->lost));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mxa_counters);

static int mxa_queues_show(struct seq_file *m, void *unused)
{
	struct mxa_device *mdev = m->private;
	u32 i;

	for (i = 0; i < mdev->num_queues; i++) {
		struct mxa_queue *q = &mdev->queues[i];

		spin_lock_irq(&q->lock);
		seq_printf(m, "queue %u: head %u tail %u in_flight %u backlog %u seqno %llu accepting %d recovering %d direct %d\n",
			   q->idx, q->head, q->tail, mxa_queue_in_flight(q), q->backlog_len,
			   q->seqno, q->accepting, q->recovering, atomic_read(&q->direct_live));
		spin_unlock_irq(&q->lock);
		seq_printf(m, "  reset %s resets %u timeouts %u\n",
			   mxa_queue_reset_state_name(READ_ONCE(q->reset_state)), q->resets,
			   q->timeouts);
		if (q->sched_ready)
			seq_printf(m, "  sched credits %d of %u\n",
				   atomic_read(&q->sched.credit_count), q->sched.credit_limit);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mxa_queues);

static int mxa_contexts_show(struct seq_file *m, void *unused)
{
	struct mxa_device *mdev = m->private;
	struct mxa_vm *vm;

	guard(mutex)(&mdev->vms_lock);
	list_for_each_entry(vm, &mdev->vms, node)
		seq_printf(m, "context %u: banned %d hangs %d faults %d\n", vm->ctx,
			   READ_ONCE(vm->banned), atomic_read(&vm->hangs),
			   atomic_read(&vm->faults));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mxa_contexts);

static int mxa_vm_show(struct seq_file *m, void *unused)
{
	struct mxa_device *mdev = m->private;
	struct drm_printer p = drm_seq_file_printer(m);
	struct mxa_vm *vm;

	guard(mutex)(&mdev->vms_lock);
	list_for_each_entry(vm, &mdev->vms, node) {
		seq_printf(m, "context %u:\n", vm->ctx);
		guard(mutex)(&vm->lock);
		drm_mm_print(&vm->mm, &p);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mxa_vm);

static int mxa_bos_show(struct seq_file *m, void *unused)
{
	struct mxa_device *mdev = m->private;
	struct mxa_bo *bo;

	/* a listed BO keeps its DMA mapping until it leaves the list (mxa_gem.c) */
	guard(mutex)(&mdev->bos_lock);
	list_for_each_entry(bo, &mdev->bos, dev_node)
		seq_printf(m, "va 0x%llx size %zu runs %u\n", mxa_bo_va(bo), mxa_bo_size(bo),
			   mxa_gem_dma_runs(bo));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mxa_bos);

/* The hardware queue whose index was written to a debugfs file, or an ERR_PTR. */
static struct mxa_queue *mxa_debugfs_queue(struct file *f, const char __user *buf, size_t len)
{
	struct mxa_device *mdev = file_inode(f)->i_private;
	u32 queue;
	int ret;

	ret = kstrtou32_from_user(buf, len, 0, &queue);
	if (ret)
		return ERR_PTR(ret);
	if (queue >= mdev->num_queues)
		return ERR_PTR(-EINVAL);
	return &mdev->queues[array_index_nospec(queue, mdev->num_queues)];
}

static ssize_t mxa_reset_queue_write(struct file *f, const char __user *buf, size_t len,
				     loff_t *pos)
{
	struct mxa_queue *q = mxa_debugfs_queue(f, buf, len);
	int ret;

	if (IS_ERR(q))
		return PTR_ERR(q);
	ret = mxa_queue_reset_force(q);
	return ret ? ret : len;
}

static const struct file_operations mxa_reset_queue_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = mxa_reset_queue_write,
	.llseek = noop_llseek,
};

static ssize_t mxa_inject_queue_stop_write(struct file *f, const char __user *buf,
					   size_t len, loff_t *pos)
{
	struct mxa_queue *q = mxa_debugfs_queue(f, buf, len);

	if (IS_ERR(q))
		return PTR_ERR(q);
	spin_lock_irq(&q->lock);
	mxa_qwrite(q, MXA_QREG_TAIL, q->size);	/* no such slot */
	spin_unlock_irq(&q->lock);
	return len;
}

static const struct file_operations mxa_inject_queue_stop_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = mxa_inject_queue_stop_write,
	.llseek = noop_llseek,
};

/**
 * mxa_debugfs_init() - create the device's debugfs files (after drm_dev_register()).
 * @mdev: the device.
 *
 * The files go with the DRM device's debugfs directory.
 */
void mxa_debugfs_init(struct mxa_device *mdev)
{
	struct dentry *root = mdev->drm.debugfs_root;

	if (IS_ERR_OR_NULL(root))
		return;
	debugfs_create_file("counters", 0444, root, mdev, &mxa_counters_fops);
	debugfs_create_file("queues", 0444, root, mdev, &mxa_queues_fops);
	debugfs_create_file("contexts", 0444, root, mdev, &mxa_contexts_fops);
	debugfs_create_file("vm", 0444, root, mdev, &mxa_vm_fops);
	debugfs_create_file("bos", 0444, root, mdev, &mxa_bos_fops);
	debugfs_create_u32("job_timeout_ms", 0644, root, &mdev->job_timeout_ms);
	debugfs_create_file("reset_queue", 0200, root, mdev, &mxa_reset_queue_fops);
	debugfs_create_atomic_t("inject_submit_nomem", 0644, root, &mdev->inject_submit_nomem);
	debugfs_create_atomic_t("inject_run_abort", 0644, root, &mdev->inject_run_abort);
	debugfs_create_atomic_t("inject_reset_timeout", 0644, root, &mdev->inject_reset_timeout);
	debugfs_create_file("inject_queue_stop", 0200, root, mdev, &mxa_inject_queue_stop_fops);
}
