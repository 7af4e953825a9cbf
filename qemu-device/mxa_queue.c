/*
 * MXA hardware queues: one command-processor thread per queue.
 *
 * The thread sleeps until the doorbell (TAIL) moves past HEAD, reads the descriptor
 * through PCI DMA, fetches the program through the job's context, runs it
 * (mxa_exec.c), writes the completion record (status last) and raises the queue's
 * interrupt. Ring registers are validated when the queue is enabled and on every
 * doorbell; a bad value stops the queue with a device error instead of running.
 *
 * Locking: q->lock protects the ring registers and state flags; it is never held while
 * a program runs or DMA is in flight, and the thread never takes the BQL (its DMA
 * reaches RAM only: mxa_dma.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/atomic.h"
#include "qemu/timer.h"
#include "mxa.h"
#include "engine/mxe_engine.h"
#include "trace.h"

static bool mxa_is_pow2_ring(uint32_t n)
{
    return n >= 2 && n <= MXA_RING_MAX_ENTRIES && (n & (n - 1)) == 0;
}

/* Caller holds q->lock. The thread completes the reset at the next command boundary. */
void mxa_queue_reset_locked(MxaQueue *q)
{
    q->reset_pending = true;
    qatomic_set(&q->abort, 1);
    qemu_cond_broadcast(&q->cond);
}

static void mxa_queue_stop_locked(MxaQueue *q, uint32_t err)
{
    q->stopped = true;
    q->error = err;
    mxa_report_dev_error(q->dev, err, q->index);
}

uint32_t mxa_queue_reg_read(MxaQueue *q, unsigned reg)
{
    uint32_t val = 0;

    qemu_mutex_lock(&q->lock);
    switch (reg) {
    case MXA_QREG_RING_LO:   val = (uint32_t)q->ring_base; break;
    case MXA_QREG_RING_HI:   val = q->ring_base >> 32; break;
    case MXA_QREG_RING_SIZE: val = q->ring_size; break;
    case MXA_QREG_CONTROL:
        val = (q->control & MXA_QCTRL_ENABLE) | (q->reset_pending ? MXA_QCTRL_RESET : 0);
        break;
    case MXA_QREG_HEAD:      val = q->head; break;
    case MXA_QREG_TAIL:      val = q->tail; break;
    case MXA_QREG_STATUS:
        val = (q->busy ? MXA_QSTATUS_BUSY : 0) | (q->stopped ? MXA_QSTATUS_STOPPED : 0);
        break;
    case MXA_QREG_COMPLETED: val = q->completed; break;
    case MXA_QREG_ERROR:     val = q->error; break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "mxa: queue %u: read of unknown register 0x%x\n",
                      q->index, reg);
        break;
    }
    qemu_mutex_unlock(&q->lock);
    return val;
}

void mxa_queue_reg_write(MxaQueue *q, unsigned reg, uint32_t val)
{
    qemu_mutex_lock(&q->lock);
    if (q->reset_pending && reg != MXA_QREG_CONTROL) {
        /* writes during a reset are dropped: the reset clears the queue anyway */
        qemu_mutex_unlock(&q->lock);
        return;
    }
    switch (reg) {
    case MXA_QREG_RING_LO:
    case MXA_QREG_RING_HI:
    case MXA_QREG_RING_SIZE:
        if (q->control & MXA_QCTRL_ENABLE) {
            qemu_log_mask(LOG_GUEST_ERROR, "mxa: queue %u: ring register written while "
                          "enabled\n", q->index);
            mxa_queue_stop_locked(q, MXA_DEVERR_BAD_RING);
            break;
        }
        if (reg == MXA_QREG_RING_LO) {
            q->ring_base = (q->ring_base & ~0xffffffffull) | val;
        } else if (reg == MXA_QREG_RING_HI) {
            q->ring_base = (q->ring_base & 0xffffffffull) | ((uint64_t)val << 32);
        } else {
            q->ring_size = val;
        }
        break;
    case MXA_QREG_CONTROL:
        if (val & MXA_QCTRL_RESET) {
            trace_mxa_reset("queue");
            mxa_queue_reset_locked(q);
            break;
        }
        if ((val & MXA_QCTRL_ENABLE) && !(q->control & MXA_QCTRL_ENABLE)) {
            if (!mxa_is_pow2_ring(q->ring_size) || (q->ring_base & 63)) {
                qemu_log_mask(LOG_GUEST_ERROR, "mxa: queue %u: bad ring base 0x%" PRIx64
                              " size %u\n", q->index, q->ring_base, q->ring_size);
                mxa_queue_stop_locked(q, MXA_DEVERR_BAD_RING);
                break;
            }
            q->head = q->tail = 0;
            q->completed = 0;
            q->stopped = false;
            q->error = 0;
        }
        q->control = val & MXA_QCTRL_ENABLE;
        qemu_cond_signal(&q->cond);
        break;
    case MXA_QREG_TAIL:
        if (!(q->control & MXA_QCTRL_ENABLE) || val >= q->ring_size) {
            qemu_log_mask(LOG_GUEST_ERROR, "mxa: queue %u: bad doorbell %u (ring size %u,"
                          " %s)\n", q->index, val, q->ring_size,
                          (q->control & MXA_QCTRL_ENABLE) ? "enabled" : "disabled");
            mxa_queue_stop_locked(q, MXA_DEVERR_BAD_TAIL);
            break;
        }
        trace_mxa_doorbell(q->index, val);
        q->tail = val;
        qemu_cond_signal(&q->cond);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "mxa: queue %u: write to read-only/unknown register "
                      "0x%x\n", q->index, reg);
        mxa_report_dev_error(q->dev, MXA_DEVERR_BAD_REG, MXA_QUEUE_REG(q->index, reg));
        break;
    }
    qemu_mutex_unlock(&q->lock);
}

/*
 * Interrupt moderation. A completed job's interrupt is sent at once when the ring is
 * empty behind it; otherwise it is deferred while the next jobs run, and sent when the
 * ring drains, after irq-coalesce completions, MXA_IRQ_DEFER_NS after the oldest
 * deferred completion, before a command that may take long (anything but NOP, REG_SET,
 * REG_ADD, LOOP, ENDLOOP, TIMESTAMP, COMMIT_GROUP, FENCE) and before the thread sleeps.
 * So a job's completion is never held back by a slow job behind it. The driver reads
 * COMPLETED and completes every job up to it on each interrupt.
 */
void mxa_queue_irq_flush(MxaQueue *q)
{
    if (q->irq_deferred) {
        q->irq_deferred = 0;
        mxa_raise_queue_irq(q->dev, q->index);
    }
}

/*
 * Before a command of the running job: send a deferred interrupt, unless the command
 * is @quick (MXA_ISA_A_QUICK) and the interrupt is not yet MXA_IRQ_DEFER_NS old.
 */
void mxa_queue_irq_check(MxaQueue *q, bool quick)
{
    if (!q->irq_deferred ||
        (quick && get_clock() - q->irq_deferred_ns < MXA_IRQ_DEFER_NS)) {
        return;
    }
    mxa_queue_irq_flush(q);
}

static void mxa_queue_run_job(MxaJob *job)
{
    uint32_t size = job->desc.prog_size;
    uint32_t *prog;

    if (size == 0 || size % 4 || size > MXA_PROG_MAX_SIZE || job->desc.prog_va % 4) {
        mxa_job_fail(job, MXA_ERR_BAD_PROGRAM, job->desc.prog_va, size);
        return;
    }
    if (mxa_mmu_bind(job)) {
        return;
    }
    mxa_lanes_job_start(job);
    mxa_tma_job_start(job);
    mxa_tile_job_start(job);
    prog = g_try_malloc(size);
    if (!prog) {
        mxa_job_fail(job, MXA_ERR_NO_MEMORY, job->desc.prog_va, size);
        return;
    }
    if (mxa_va_read(job, job->desc.prog_va, prog, size) == 0) {
        for (uint32_t i = 0; i < size / 4; i++) {
            prog[i] = le32_to_cpu(prog[i]);
        }
        mxa_exec_program(job, prog, size / 4);
    }
    /* no asynchronous command outlives its job, even through a reset */
    mxa_async_drain(job, false);
    g_free(prog);
}

static void mxa_queue_complete_job(MxaJob *job, uint64_t start_ns, bool aborted)
{
    MxaQueue *q = job->q;
    struct mxa_completion rec = { 0 };
    uint32_t status;
    MemTxResult r;

    if (aborted) {
        status = MXA_JOB_STATUS_ABORTED;
        if (!job->error) {
            job->error = MXA_ERR_ABORTED;
            job->err_offset = job->cur_offset;
            job->err_opcode = job->cur_header;
        }
    } else {
        status = job->error ? MXA_JOB_STATUS_ERROR : MXA_JOB_STATUS_OK;
    }
    rec.job_id = cpu_to_le64(job->desc.job_id);
    rec.error = cpu_to_le32(job->error);
    rec.err_offset = cpu_to_le32(job->err_offset);
    rec.err_opcode = cpu_to_le32(job->err_opcode);
    rec.err_addr = cpu_to_le64(job->err_addr);
    rec.err_info = cpu_to_le32(job->err_info);
    rec.commands = cpu_to_le32(job->commands);
    rec.start_ns = cpu_to_le64(start_ns);
    rec.end_ns = cpu_to_le64(get_clock());
    rec.cycles = cpu_to_le64(job->cycles);
    /* everything but the status first, then the status: the driver polls on it */
    r = mxa_dma_write(q->dev, job->desc.completion, &rec, sizeof(rec));
    if (r == MEMTX_OK) {
        smp_wmb();
        status = cpu_to_le32(status);
        r = mxa_dma_write(q->dev, job->desc.completion +
                          offsetof(struct mxa_completion, status), &status, sizeof(status));
    }
    trace_mxa_job_end(q->index, job->desc.job_id, job->error, job->commands);
    if (r != MEMTX_OK) {
        qemu_mutex_lock(&q->lock);
        mxa_queue_stop_locked(q, MXA_DEVERR_COMPLETION);
        qemu_mutex_unlock(&q->lock);
    }
}

static void *mxa_queue_thread(void *opaque)
{
    MxaQueue *q = opaque;
    MxaState *s = q->dev;

    /* a reset (q->abort) stops this thread's long math within one engine task */
    mxe_engine_cancel_on(&q->abort);
    for (;;) {
        MxaJob job = { .q = q, .tlb = q->tlb, .stage = q->stage, .dma_gen = &q->dma_gen };
        uint64_t desc_addr, start_ns;
        uint32_t head;
        bool aborted, drained;

        qemu_mutex_lock(&q->lock);
        for (;;) {
            if (q->shutdown) {
                qemu_mutex_unlock(&q->lock);
                return NULL;
            }
            if (q->reset_pending) {
                q->ring_base = 0;
                q->ring_size = 0;
                q->control = 0;
                q->head = q->tail = 0;
                q->completed = 0;
                q->stopped = false;
                q->error = 0;
                memset(q->tlb, 0, sizeof(q->tlb));
                qatomic_set(&q->abort, 0);
                q->reset_pending = false;
                continue;
            }
            if ((q->control & MXA_QCTRL_ENABLE) && (s->control & MXA_CONTROL_ENABLE) &&
                !q->stopped && q->head != q->tail) {
                break;
            }
            mxa_queue_irq_flush(q);
            qemu_cond_wait(&q->cond, &q->lock);
        }
        head = q->head;
        desc_addr = q->ring_base + (uint64_t)head * sizeof(struct mxa_job_desc);
        q->busy = true;
        qemu_mutex_unlock(&q->lock);

        if (mxa_dma_read(s, desc_addr, &job.desc, sizeof(job.desc)) != MEMTX_OK) {
            qemu_mutex_lock(&q->lock);
            q->busy = false;
            mxa_queue_stop_locked(q, MXA_DEVERR_RING_DMA);
            qemu_mutex_unlock(&q->lock);
            continue;
        }
        job.desc.flags = le32_to_cpu(job.desc.flags);
        job.desc.ctx = le32_to_cpu(job.desc.ctx);
        job.desc.prog_va = le64_to_cpu(job.desc.prog_va);
        job.desc.prog_size = le32_to_cpu(job.desc.prog_size);
        job.desc.completion = le64_to_cpu(job.desc.completion);
        job.desc.job_id = le64_to_cpu(job.desc.job_id);

        start_ns = get_clock();
        qatomic_set(&q->timeline_job_ns, start_ns);
        trace_mxa_job_start(q->index, job.desc.job_id, job.desc.ctx, job.desc.prog_va,
                            job.desc.prog_size);
        mxa_queue_run_job(&job);
        aborted = qatomic_read(&q->abort);
        mxa_queue_complete_job(&job, start_ns, aborted);
        if (qatomic_read(&s->timeline)) {
            char name[40];

            snprintf(name, sizeof(name), "job %" PRIu64, (uint64_t)job.desc.job_id);
            mxa_timeline_span(s, q->index, MXA_TIMELINE_CP, name, start_ns, get_clock(),
                              job.desc.job_id, 0, job.error, 0, job.cycles);
            mxa_timeline_flush(s);
        }

        qemu_mutex_lock(&q->lock);
        q->busy = false;
        if (!q->reset_pending) {
            q->head = (head + 1) & (q->ring_size - 1);
            q->completed++;
        }
        drained = q->head == q->tail || q->reset_pending || q->stopped;
        qemu_mutex_unlock(&q->lock);
        if (job.desc.flags & MXA_JOB_F_IRQ) {
            if (!q->irq_deferred++) {
                q->irq_deferred_ns = get_clock();
            }
        }
        if (drained || q->irq_deferred >= s->irq_coalesce ||
            (q->irq_deferred && get_clock() - q->irq_deferred_ns >= MXA_IRQ_DEFER_NS)) {
            mxa_queue_irq_flush(q);
        }
    }
}

void mxa_queue_create(MxaState *s, unsigned i)
{
    MxaQueue *q = &s->queues[i];
    char name[32];

    q->dev = s;
    q->index = i;
    qemu_mutex_init(&q->lock);
    qemu_cond_init(&q->cond);
    mxa_tma_init(q);
    mxa_lanes_init(q);
    snprintf(name, sizeof(name), "mxa-q%u", i);
    qemu_thread_create(&q->thread, name, mxa_queue_thread, q, QEMU_THREAD_JOINABLE);
}

void mxa_queue_fini(MxaQueue *q)
{
    qemu_mutex_lock(&q->lock);
    q->shutdown = true;
    qatomic_set(&q->abort, 1);
    qemu_cond_broadcast(&q->cond);
    qemu_mutex_unlock(&q->lock);
    qemu_thread_join(&q->thread);
    mxa_lanes_fini(q);
    mxa_tma_fini(q);
    mxa_tile_fini(q);
    mxa_stage_fini(q, q->stage);
    qemu_cond_destroy(&q->cond);
    qemu_mutex_destroy(&q->lock);
}
