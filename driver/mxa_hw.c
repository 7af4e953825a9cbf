// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA hardware access: registers, device reset, interrupts, device loss.
 *
 * DOC: Device bring-up and queue protocol
 *
 * Bring-up: global reset (MXA_CONTROL_RESET reads back 0 when done), identify the
 * device, program the context table, then per queue a descriptor ring plus a parallel
 * array of completion records, all in coherent DMA memory. Slot i of a ring always
 * uses completion record i, so nothing has to be allocated per job.
 *
 * Submission (mxa_queue.c) writes the descriptor at slot @tail and rings the doorbell
 * with the new tail; the device consumes descriptors in order, one job at a time per
 * queue, writes the job's completion record (status last), increments
 * MXA_QREG_COMPLETED and raises the queue's MSI-X vector. The vector's handler clears
 * its INT_STATUS bit first and only then reads COMPLETED, so a completion that races
 * with the handler either is seen now or raises the vector again.
 *
 * The last MSI-X vector reports device-level errors (MXA_REG_DEV_ERROR). A queue the
 * device stopped on a ring-level error is reset from the error work through the queue's
 * reset state machine (mxa_queue_reset_stopped()): the jobs it held fail with -EIO,
 * the ring starts again empty and the backlog refills it.
 */
#include <linux/interrupt.h>
#include <linux/iopoll.h>

#include "mxa_isa.h"
#include "mxa_drv.h"
#include "mxa_hw.h"
#include "mxa_job.h"
#include "mxa_queue.h"
#include "mxa_reset.h"

#ifdef __BIG_ENDIAN
#error "mxa: the ring, completion and page-table formats are little-endian"
#endif

#define MXA_RESET_POLL_US	10
#define MXA_RESET_TIMEOUT_US	(2 * 1000 * 1000)

u32 mxa_read(struct mxa_device *mdev, u32 reg)
{
	return readl(mdev->regs + reg);
}

void mxa_write(struct mxa_device *mdev, u32 reg, u32 val)
{
	writel(val, mdev->regs + reg);
}

/**
 * mxa_hw_poll_clear() - wait until @bit of register @reg reads 0.
 * @mdev: the device.
 * @reg: the register.
 * @bit: the bit.
 *
 * Return: 0, or -ETIMEDOUT after MXA_RESET_TIMEOUT_US.
 */
int mxa_hw_poll_clear(struct mxa_device *mdev, u32 reg, u32 bit)
{
	u32 val;

	return readl_poll_timeout(mdev->regs + reg, val, !(val & bit),
				  MXA_RESET_POLL_US, MXA_RESET_TIMEOUT_US);
}

static int mxa_hw_reset(struct mxa_device *mdev)
{
	int ret;

	mxa_write(mdev, MXA_REG_CONTROL, MXA_CONTROL_RESET);
	ret = mxa_hw_poll_clear(mdev, MXA_REG_CONTROL, MXA_CONTROL_RESET);
	if (ret)
		mxa_err(mdev, "device reset timed out\n");
	return ret;
}

/**
 * mxa_hw_tlb_invalidate() - drop the device's cached translations of a context, and
 * wait until no DMA that translated before is still in flight.
 * @mdev: the device.
 * @ctx: context id, or MXA_TLB_INVAL_ALL.
 *
 * When it returns, the device holds no translation of a page unmapped before the call:
 * the page may be freed. A device that does not get there in time is lost
 * (mxa_hw_lost(): bus mastering off), which stops its DMA as well. A no-op once the
 * device is gone.
 */
void mxa_hw_tlb_invalidate(struct mxa_device *mdev, u32 ctx)
{
	u32 val;
	int idx;

	if (!drm_dev_enter(&mdev->drm, &idx))
		return;
	mxa_write(mdev, MXA_REG_TLB_INVAL, ctx);
	/* one DMA run is at most 1 MiB: this is microseconds, not milliseconds */
	if (!READ_ONCE(mdev->lost) &&
	    readl_poll_timeout(mdev->regs + MXA_REG_TLB_STATUS, val,
			       !(val & MXA_TLB_STATUS_BUSY), 1, MXA_RESET_TIMEOUT_US))
		mxa_hw_lost(mdev, "a TLB invalidation did not complete");
	drm_dev_exit(idx);
}

static irqreturn_t mxa_error_irq(int irq, void *arg)
{
	struct mxa_device *mdev = arg;

	if (!(mxa_read(mdev, MXA_REG_INT_STATUS) & MXA_INT_ERROR))
		return IRQ_NONE;
	mxa_write(mdev, MXA_REG_INT_STATUS, MXA_INT_ERROR);
	mxa_reset_schedule_error(mdev);
	return IRQ_HANDLED;
}

/**
 * mxa_hw_lost() - take a device that did not finish a reset out of service, for good.
 * @mdev: the device.
 * @why: for the log.
 *
 * The device may still be running a job, walking page tables and writing buffers that
 * the driver is about to free (the job's file may close at once). So bus mastering goes
 * off first, at once, which stops every DMA of the device; then, on the reset
 * workqueue (the caller may hold a VM's lock, which ending jobs can take), every queue
 * stops taking jobs (submitters get -ENODEV) and its jobs end with -ENODEV. Only a
 * rebind of the driver (which resets the device) brings it back. Real drivers do the
 * same on a lost GPU.
 */
void mxa_hw_lost(struct mxa_device *mdev, const char *why)
{
	u16 cmd;

	if (xchg(&mdev->lost, true))
		return;
	mxa_err(mdev, "device lost: %s; its DMA is off and its jobs fail with -ENODEV until the driver is rebound\n",
		why);
	pci_clear_master(mdev->pdev);
	/* a config read orders the write before anything the driver frees next */
	pci_read_config_word(mdev->pdev, PCI_COMMAND, &cmd);
	queue_work(mdev->reset_wq, &mdev->lost_work);
}

static void mxa_hw_lost_work(struct work_struct *work)
{
	struct mxa_device *mdev = container_of(work, struct mxa_device, lost_work);
	u32 i;

	for (i = 0; i < mdev->num_queues; i++) {
		mxa_queue_halt(&mdev->queues[i], true);
		mxa_queue_abort(&mdev->queues[i], -ENODEV, MXA_ERR_ABORTED, true);
	}
}

static void mxa_error_work(struct work_struct *work)
{
	struct mxa_device *mdev = container_of(work, struct mxa_device, error_work);
	u32 info, err, i;
	int idx;

	if (!drm_dev_enter(&mdev->drm, &idx))
		return;

	/* DEV_ERROR clears on read: take its info first. */
	info = mxa_read(mdev, MXA_REG_DEV_ERROR_INFO);
	err = mxa_read(mdev, MXA_REG_DEV_ERROR);
	if (err != MXA_DEVERR_NONE)
		mxa_err(mdev, "device error %u (info 0x%x)\n", err, info);

	for (i = 0; i < mdev->num_queues && !READ_ONCE(mdev->lost); i++) {
		struct mxa_queue *q = &mdev->queues[i];

		if (mxa_qread(q, MXA_QREG_STATUS) & MXA_QSTATUS_STOPPED) {
			mxa_err(mdev, "queue %u stopped by the device (error %u), resetting it\n",
				q->idx, mxa_qread(q, MXA_QREG_ERROR));
			mxa_queue_reset_stopped(q);
		}
	}
	drm_dev_exit(idx);
}

static void mxa_hw_free_irqs(struct mxa_device *mdev, u32 nr_queue_irqs)
{
	u32 i;

	if (mdev->error_irq > 0) {
		free_irq(mdev->error_irq, mdev);
		mdev->error_irq = 0;
	}
	for (i = 0; i < nr_queue_irqs; i++) {
		free_irq(mdev->queues[i].irq, &mdev->queues[i]);
		mdev->queues[i].irq = 0;
	}
}

static int mxa_hw_request_irqs(struct mxa_device *mdev)
{
	struct pci_dev *pdev = mdev->pdev;
	u32 nvec = mdev->num_queues + 1;
	u32 i;
	int ret;

	ret = pci_alloc_irq_vectors(pdev, nvec, nvec, PCI_IRQ_MSIX);
	if (ret < 0) {
		mxa_err(mdev, "cannot get %u MSI-X vectors: %d\n", nvec, ret);
		return ret;
	}

	for (i = 0; i < mdev->num_queues; i++) {
		struct mxa_queue *q = &mdev->queues[i];

		q->irq = pci_irq_vector(pdev, i);
		ret = request_irq(q->irq, mxa_queue_irq, 0, q->name, q);
		if (ret) {
			q->irq = 0;
			goto err_free;
		}
	}
	mdev->error_irq = pci_irq_vector(pdev, mdev->num_queues);
	ret = request_irq(mdev->error_irq, mxa_error_irq, 0, "mxa-error", mdev);
	if (ret) {
		mdev->error_irq = 0;
		goto err_free;
	}
	return 0;

err_free:
	mxa_err(mdev, "cannot request IRQ: %d\n", ret);
	mxa_hw_free_irqs(mdev, i);
	pci_free_irq_vectors(pdev);
	return ret;
}

/**
 * mxa_hw_init() - reset, identify and enable the device.
 * @mdev: the device; @regs mapped.
 *
 * Return: 0 or a negative errno; on error the device is left reset and no IRQ is held.
 */
int mxa_hw_init(struct mxa_device *mdev)
{
	struct device *dev = &mdev->pdev->dev;
	u32 id, i;
	int ret;

	ret = mxa_hw_reset(mdev);
	if (ret)
		return ret;

	id = mxa_read(mdev, MXA_REG_ID);
	if (id != MXA_ID_VALUE) {
		mxa_err(mdev, "unexpected ID register 0x%08x\n", id);
		return -ENODEV;
	}
	mdev->hw_version = mxa_read(mdev, MXA_REG_VERSION);
	if ((mdev->hw_version >> 16) != MXA_HW_VERSION_MAJOR) {
		mxa_err(mdev, "unsupported device version %u.%u\n",
			mdev->hw_version >> 16, mdev->hw_version & 0xffff);
		return -ENODEV;
	}
	mdev->caps = mxa_read(mdev, MXA_REG_CAPS_LO) |
		     (u64)mxa_read(mdev, MXA_REG_CAPS_HI) << 32;
	mdev->num_queues = mxa_read(mdev, MXA_REG_NUM_QUEUES);
	mdev->num_cores = mxa_read(mdev, MXA_REG_NUM_CORES);
	mdev->num_engine_threads = mxa_read(mdev, MXA_REG_ENGINE_THREADS);
	if (!mdev->num_queues) {
		mxa_err(mdev, "device has no queues\n");
		return -ENODEV;
	}
	if (mdev->num_queues > MXA_MAX_QUEUES) {
		mxa_warn(mdev, "device has %u queues, using %u\n", mdev->num_queues,
			 MXA_MAX_QUEUES);
		mdev->num_queues = MXA_MAX_QUEUES;
	}

	mdev->ctx_count = MXA_MAX_CONTEXTS;
	mdev->ctx_table = dmam_alloc_coherent(dev, mdev->ctx_count * sizeof(*mdev->ctx_table),
					      &mdev->ctx_table_dma, GFP_KERNEL);
	if (!mdev->ctx_table)
		return -ENOMEM;
	INIT_WORK(&mdev->error_work, mxa_error_work);
	INIT_WORK(&mdev->lost_work, mxa_hw_lost_work);
	ret = mxa_reset_init(mdev);
	if (ret)
		return ret;

	for (i = 0; i < mdev->num_queues; i++) {
		ret = mxa_queue_init(mdev, i);
		if (ret)
			return ret;
	}

	/* Nothing may interrupt before the handlers are in place. */
	mxa_write(mdev, MXA_REG_INT_MASK, ~0u);
	ret = mxa_hw_request_irqs(mdev);
	if (ret)
		return ret;

	mxa_write(mdev, MXA_REG_CTX_TABLE_LO, lower_32_bits(mdev->ctx_table_dma));
	mxa_write(mdev, MXA_REG_CTX_TABLE_HI, upper_32_bits(mdev->ctx_table_dma));
	mxa_write(mdev, MXA_REG_CTX_COUNT, mdev->ctx_count);
	for (i = 0; i < mdev->num_queues; i++) {
		mxa_queue_hw_start(&mdev->queues[i]);
		mdev->queues[i].accepting = true;
	}
	mxa_write(mdev, MXA_REG_INT_MASK, 0);
	mxa_write(mdev, MXA_REG_CONTROL, MXA_CONTROL_ENABLE);

	ret = mxa_read(mdev, MXA_REG_DEV_ERROR);
	if (ret != MXA_DEVERR_NONE)
		mxa_warn(mdev, "device error %d after enable (info 0x%x)\n", ret,
			 mxa_read(mdev, MXA_REG_DEV_ERROR_INFO));

	mxa_info(mdev, "MXA %u.%u: %u queues, %u cores, caps 0x%llx\n",
		 mdev->hw_version >> 16, mdev->hw_version & 0xffff, mdev->num_queues,
		 mdev->num_cores, mdev->caps);
	return 0;
}

/**
 * mxa_hw_fini() - stop the device; every job still in flight fails with -ECANCELED.
 * @mdev: the device, already unplugged from userspace (drm_dev_unplug()).
 */
void mxa_hw_fini(struct mxa_device *mdev)
{
	u32 i;

	mxa_write(mdev, MXA_REG_INT_MASK, ~0u);
	mxa_hw_free_irqs(mdev, mdev->num_queues);
	cancel_work_sync(&mdev->error_work);
	cancel_work_sync(&mdev->lost_work);

	/* No new jobs; keep the results of those that finished before the reset. */
	for (i = 0; i < mdev->num_queues; i++)
		mxa_queue_halt(&mdev->queues[i], true);
	/* Watchdogs and resets find the device gone or the queues not accepting. */
	mxa_reset_fini(mdev);

	mxa_write(mdev, MXA_REG_CONTROL, 0);
	if (mxa_hw_reset(mdev)) {
		/* what the device may still use is freed below: stop its DMA first */
		WRITE_ONCE(mdev->lost, true);
		pci_clear_master(mdev->pdev);
	}

	for (i = 0; i < mdev->num_queues; i++)
		mxa_queue_abort(&mdev->queues[i], -ECANCELED, MXA_ERR_ABORTED, true);

	pci_free_irq_vectors(mdev->pdev);
}
