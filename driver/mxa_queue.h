/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA hardware queues (mxa_queue.c): the ring, its jobs, watchdog and reset.
 */
#ifndef MXA_QUEUE_H
#define MXA_QUEUE_H

#include <linux/interrupt.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

#include "mxa_regs.h"
#include "mxa_hw.h"

struct dma_fence;
struct mxa_device;
struct mxa_job;

/* Ring entries per hardware queue (power of two, <= MXA_RING_MAX_ENTRIES). */
#define MXA_RING_ENTRIES	256
/*
 * Jobs that went straight to a queue's ring (mxa_queue_run_direct()) and have not
 * ended: at most this many. The scheduler's credits are the ring's other slots, so
 * the two together never overfill the ring, and jobs beyond it wait in their user
 * queues, where priorities apply.
 */
#define MXA_RING_DIRECT_MAX	(MXA_RING_ENTRIES / 2)

/*
 * The direct jobs of one io_uring_enter() ring the doorbell at the first of them when
 * the ring was empty, then every MXA_DOORBELL_EVERY jobs, and for the rest at the end
 * of the batch (mxa_queue_run_direct()).
 */
#define MXA_DOORBELL_EVERY	8

/**
 * struct mxa_queue - one hardware queue: its ring, completion records and jobs in flight.
 * @mdev: the device.
 * @idx: queue index; also its MSI-X vector.
 * @irq: Linux IRQ number of the vector.
 * @size: ring entries (power of two).
 * @ring: descriptor ring (coherent DMA), @size entries.
 * @ring_dma: its bus address.
 * @comps: completion records, one per ring slot (coherent DMA).
 * @comps_dma: their bus address.
 * @lock: protects @jobs, @head, @tail, @unrung, @hw_completed, @backlog, @backlog_len,
 *        @seqno, @accepting and @recovering; taken from the interrupt handler.
 * @jobs: slot -> job in flight there, holding a reference; NULL for free slots.
 * @head: oldest slot whose job has not completed yet (driver view).
 * @tail: next slot to fill; the value last written to MXA_QREG_TAIL, but for the
 *        @unrung jobs of a batch whose doorbell is still to come.
 * @unrung: jobs placed since the last doorbell.
 * @hw_completed: MXA_QREG_COMPLETED value up to which jobs have been completed.
 * @backlog: jobs run by the scheduler while the queue was halted for a reset (or
 *           requeued by it), in order; each holds a reference and has its fence.
 * @backlog_len: entries of @backlog.
 * @seqno: seqno of the last fence emitted on this queue.
 * @accepting: the queue takes new jobs (cleared on device removal).
 * @recovering: the queue is halted for a reset (mxa_queue_halt()): nothing is
 *              written to the ring and completions are not processed from the
 *              interrupt meanwhile.
 * @fence_lock: the dma_fence lock of this queue's job fences.
 * @fence_context: dma_fence context of the queue (fences signal in ring order).
 * @name: timeline name of the fences ("mxa-q<N>").
 * @sched: the scheduler that feeds this queue from the user queues (mxa_sched.c).
 * @sched_waiting: jobs pushed to @sched that have not reached mxa_queue_run_job()
 *                 (atomic; changed under @lock where a job reaches the ring). A job
 *                 goes straight to the ring only while there is none
 *                 (mxa_queue_run_direct()).
 * @direct_live: jobs that went straight to the ring and have not ended (atomic), at
 *               most MXA_RING_DIRECT_MAX.
 * @sched_ready: @sched is initialised.
 * @watchdog: job timeout of the job at @head.
 * @reset_work: the queue's reset, on the device's ordered reset workqueue.
 * @watch_seqno: fence seqno of the job @watchdog times (under @lock).
 * @watch_start: jiffies when that job reached the head of the ring (under @lock).
 * @watch_timeout: the timeout (ms) @watchdog was last armed with (under @lock).
 * @guilty_seqno: seqno of the job the watchdog found hung, 0 if none (under @lock).
 * @force_reset: debugfs asked for a reset of this queue (under @lock).
 * @device_stopped: the device stopped the queue on an error (under @lock).
 * @reset_state: enum mxa_reset_state; written by the reset work only.
 * @resets: queue resets done.
 * @timeouts: jobs failed with -ETIMEDOUT.
 */
struct mxa_queue {
	struct mxa_device *mdev;
	u32 idx;
	int irq;
	u32 size;
	struct mxa_job_desc *ring;
	dma_addr_t ring_dma;
	struct mxa_completion *comps;
	dma_addr_t comps_dma;

	spinlock_t lock;	/* protects the ring state below; IRQ-safe */
	struct mxa_job **jobs;
	u32 head;
	u32 tail;
	u32 unrung;
	u32 hw_completed;
	struct list_head backlog;
	u32 backlog_len;
	u64 seqno;
	bool accepting;
	bool recovering;

	spinlock_t fence_lock;	/* the queue's dma_fence lock */
	u64 fence_context;
	char name[16];

	struct drm_gpu_scheduler sched;
	atomic_t sched_waiting;
	atomic_t direct_live;
	bool sched_ready;
	struct delayed_work watchdog;
	struct work_struct reset_work;
	u64 watch_seqno;
	unsigned long watch_start;
	u32 watch_timeout;
	u64 guilty_seqno;
	bool force_reset;
	bool device_stopped;
	int reset_state;
	u32 resets;
	u32 timeouts;
};

/**
 * enum mxa_reset_state - where a queue's reset state machine is (mxa_queue.reset_state).
 * @MXA_RESET_IDLE: the queue runs normally.
 * @MXA_RESET_QUEUED: the watchdog, the error interrupt or debugfs asked for a reset.
 * @MXA_RESET_HALTED: the driver stopped feeding the ring and harvested what completed.
 * @MXA_RESET_RESETTING: MXA_QCTRL_RESET written, waiting for the device.
 * @MXA_RESET_RESTARTING: ring re-enabled, jobs being requeued.
 */
enum mxa_reset_state {
	MXA_RESET_IDLE,
	MXA_RESET_QUEUED,
	MXA_RESET_HALTED,
	MXA_RESET_RESETTING,
	MXA_RESET_RESTARTING,
};

static inline u32 mxa_qread(struct mxa_queue *q, u32 reg)
{
	return mxa_read(q->mdev, MXA_QUEUE_REG(q->idx, reg));
}

static inline void mxa_qwrite(struct mxa_queue *q, u32 reg, u32 val)
{
	mxa_write(q->mdev, MXA_QUEUE_REG(q->idx, reg), val);
}

static inline u32 mxa_queue_in_flight(const struct mxa_queue *q)
{
	return (q->tail - q->head) & (q->size - 1);
}

static inline bool mxa_queue_full(const struct mxa_queue *q)
{
	return ((q->tail + 1) & (q->size - 1)) == q->head;
}

int mxa_queue_init(struct mxa_device *mdev, u32 idx);
irqreturn_t mxa_queue_irq(int irq, void *arg);
void mxa_queue_hw_start(struct mxa_queue *q);
int mxa_queue_hw_reset(struct mxa_queue *q);
struct dma_fence *mxa_queue_run_job(struct mxa_job *job);
bool mxa_queue_run_direct(struct mxa_job *job, bool batch);
void mxa_queue_sched_left(struct mxa_job *job);
void mxa_queue_complete(struct mxa_queue *q);
void mxa_queue_poll(struct mxa_queue *q);
void mxa_queue_halt(struct mxa_queue *q, bool for_good);
void mxa_queue_abort(struct mxa_queue *q, int status, u32 error, bool backlog);
void mxa_queue_requeue(struct mxa_queue *q, int status, u32 error);
void mxa_queue_resume(struct mxa_queue *q);
void mxa_queue_watch(struct mxa_queue *q);
int mxa_queue_reset_force(struct mxa_queue *q);
void mxa_queue_reset_stopped(struct mxa_queue *q);
const char *mxa_queue_reset_state_name(int state);

#endif /* MXA_QUEUE_H */
