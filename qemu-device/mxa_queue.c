/*
 * MXA hardware queues: one thread per queue.
 *
 * The thread sleeps until the doorbell (TAIL) moves past HEAD, reads the descriptor
 * through PCI DMA, launches the job's grid: its clusters, in order, each on as many
 * free cores as it has instances, all at once (mxa_core.c runs them), waits for every
 * instance, writes the completion record (status last) and raises the queue's
 * interrupt. Ring registers are validated when the queue is enabled and on every
 * doorbell; a bad value stops the queue with a device error instead of running. A
 * doorbell on an empty ring runs the jobs of a few control commands it added itself
 * (below, "Jobs a doorbell runs"); whoever runs the queue's job holds q->busy.
 *
 * Locking: q->lock protects the ring registers and state flags; it is never held while
 * a program runs or DMA is in flight, and the thread never takes the BQL (its DMA
 * reaches RAM only: mxa_dma.c); a doorbell's job runs under it, but never waits. Lock
 * order: q->lock, then MxaState.core_lock, then a launch's lock.
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

static void mxa_queue_doorbell_run(MxaQueue *q, uint64_t desc_addr);

/*
 * Caller holds q->lock: a job waits at HEAD and nothing runs the queue; mark it busy,
 * its descriptor's address into @desc_addr.
 */
static bool mxa_queue_claim_locked(MxaQueue *q, uint64_t *desc_addr)
{
    if ((q->control & MXA_QCTRL_ENABLE) && (q->dev->control & MXA_CONTROL_ENABLE) &&
        !q->stopped && !q->reset_pending && !q->shutdown && !q->busy && q->head != q->tail) {
        q->busy = true;
        *desc_addr = q->ring_base + (uint64_t)q->head * sizeof(struct mxa_job_desc);
        return true;
    }
    return false;
}

static bool mxa_is_pow2_ring(uint32_t n)
{
    return n >= 2 && n <= MXA_RING_MAX_ENTRIES && (n & (n - 1)) == 0;
}

/*
 * Caller holds q->lock. Every core running an instance of the queue's job stops at its
 * next command boundary; the thread then completes the reset.
 */
void mxa_queue_reset_locked(MxaQueue *q)
{
    MxaState *s = q->dev;

    q->reset_pending = true;
    qatomic_set(&q->abort, 1);
    qemu_cond_broadcast(&q->cond);
    qemu_mutex_lock(&s->core_lock);
    for (unsigned i = 0; i < s->num_cores; i++) {
        if (s->cores[i].launch && s->cores[i].launch->q == q) {
            qatomic_set(&s->cores[i].abort, 1);
        }
    }
    qemu_cond_broadcast(&s->core_cond);
    qemu_mutex_unlock(&s->core_lock);
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
    uint64_t desc_addr = 0;
    int64_t doorbell_ns = 0;   /* a TAIL write, for the timeline */
    bool run_here = false, idle;

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
        doorbell_ns = get_clock();
        idle = q->head == q->tail;      /* the ring was empty: nothing runs */
        q->tail = val;
        if (idle && q->dev->doorbell_jobs && mxa_queue_claim_locked(q, &desc_addr)) {
            run_here = true;    /* mxa_queue_doorbell_run() */
        } else {
            qemu_cond_signal(&q->cond);
        }
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "mxa: queue %u: write to read-only/unknown register "
                      "0x%x\n", q->index, reg);
        mxa_report_dev_error(q->dev, MXA_DEVERR_BAD_REG, MXA_QUEUE_REG(q->index, reg));
        break;
    }
    qemu_mutex_unlock(&q->lock);
    if (doorbell_ns && qatomic_read(&q->dev->timeline)) {
        mxa_timeline_instant(q->dev, q->index, "doorbell", doorbell_ns, val);
    }
    if (run_here) {
        mxa_queue_doorbell_run(q, desc_addr);
    }
}

/*
 * Interrupt moderation. A completed job's interrupt is sent at once when the ring is
 * empty behind it; otherwise it is deferred while the next jobs run, and sent when the
 * ring drains, after irq-coalesce completions, MXA_IRQ_DEFER_NS after the oldest
 * deferred completion (while the thread runs a grid, the queue's timer sends it then)
 * and before the thread sleeps. So a job's completion is never held back by a slow job
 * behind it. The driver reads COMPLETED and completes every job up to it on each
 * interrupt.
 */
void mxa_queue_irq_flush(MxaQueue *q)
{
    /* whoever runs the queue's job (thread or doorbell) or its timer: first one wins */
    if (qatomic_xchg(&q->irq_deferred, 0)) {
        mxa_raise_queue_irq(q->dev, q->index);
    }
}

static void mxa_queue_irq_timer(void *opaque)
{
    mxa_queue_irq_flush(opaque);
}

/* A core reports the end of an instance (its core is freed after this). */
void mxa_launch_instance_end(MxaLaunch *l, const MxaJob *job, uint32_t cta)
{
    qemu_mutex_lock(&l->lock);
    if (job->error && !l->error) {
        l->error = job->error;
        l->err_offset = job->err_offset;
        l->err_opcode = job->err_opcode;
        l->err_addr = job->err_addr;
        l->err_info = job->err_info;
        l->err_instance = cta;
    }
    if (!job->error && qatomic_read(&job->core->abort) && !l->aborted) {
        l->aborted = true;      /* where the first stopped instance stopped */
        l->abort_offset = job->cur_offset;
        l->abort_header = job->cur_header;
    }
    l->commands += job->commands;
    l->tma_load_bytes += job->tma_load_bytes;
    l->cycles[cta] = job->cycles;
    l->ended++;
    qemu_cond_signal(&l->cond);
    qemu_mutex_unlock(&l->lock);
}

/* The descriptor's grid: MXA_GRID_ERR_* or 0. */
static uint32_t mxa_launch_shape(MxaLaunch *l, unsigned cores)
{
    l->gx = MAX(l->desc.grid_x, 1);
    l->gy = MAX(l->desc.grid_y, 1);
    l->cx = MAX(l->desc.cluster_x, 1);
    l->cy = MAX(l->desc.cluster_y, 1);
    l->count = l->gx * l->gy;
    if (l->count > MXA_GRID_MAX_INSTANCES) {
        return MXA_GRID_ERR_TOO_MANY;
    }
    if (l->cx * l->cy > MXA_CLUSTER_MAX || l->cx * l->cy > cores) {
        return MXA_GRID_ERR_CLUSTER;
    }
    if (l->gx % l->cx || l->gy % l->cy) {
        return MXA_GRID_ERR_DIVIDE;
    }
    return 0;
}

/*
 * The grid's modelled cycles: its clusters, in order, each on the cluster-size cores
 * that are free first in modelled time (the lowest index on a tie), starting together
 * when the last of them is free and holding them until its longest instance ends. A
 * function of the instances' cycles alone, whichever cores the host ran them on. Where
 * each instance started and on which core, into @start_of and @on unless NULL.
 */
static uint64_t mxa_launch_cycles(const MxaLaunch *l, unsigned cores, uint64_t *start_of,
                                  unsigned *on)
{
    uint64_t free_at[MXA_MAX_CORES] = { 0 }, end = 0;
    uint32_t csize = l->cx * l->cy, ncx = l->gx / l->cx;

    for (uint32_t cl = 0; cl < l->count / csize; cl++) {
        bool used[MXA_MAX_CORES] = { false };
        unsigned pick[MXA_CLUSTER_MAX];
        uint64_t start = 0, longest = 0;

        for (uint32_t r = 0; r < csize; r++) {
            unsigned best = cores;

            for (unsigned c = 0; c < cores; c++) {
                if (!used[c] && (best == cores || free_at[c] < free_at[best])) {
                    best = c;
                }
            }
            used[best] = true;
            pick[r] = best;
            start = MAX(start, free_at[best]);
        }
        for (uint32_t r = 0; r < csize; r++) {
            uint32_t x = (cl % ncx) * l->cx + r % l->cx;
            uint32_t y = (cl / ncx) * l->cy + r / l->cx;

            longest = MAX(longest, l->cycles[x + y * l->gx]);
            if (start_of) {
                start_of[x + y * l->gx] = start;
                on[x + y * l->gx] = pick[r];
            }
        }
        for (uint32_t r = 0; r < csize; r++) {
            free_at[pick[r]] = start + longest;     /* a cluster frees its cores together */
        }
        end = MAX(end, start + longest);
    }
    return end;
}

/* Wait for the launch's running instances (the queue's timer sends deferred interrupts). */
static void mxa_launch_wait(MxaLaunch *l)
{
    qemu_mutex_lock(&l->lock);
    while (l->ended < l->started) {
        qemu_cond_wait(&l->cond, &l->lock);
    }
    qemu_mutex_unlock(&l->lock);
}

/*
 * Run the job's grid: each cluster on free cores (waiting for enough of them), the
 * next cluster once it is placed; then wait for every instance. A reset or a failed
 * instance stops the placing; on a reset the instances already running stop at their
 * next command, after a failure they run to their end.
 */
static void mxa_queue_launch(MxaLaunch *l, MxaJob *res)
{
    MxaQueue *q = l->q;
    MxaState *s = q->dev;
    uint32_t why = mxa_launch_shape(l, s->num_cores), csize, ncx;
    bool here = l->count == 1;

    if (why) {
        res->cur_offset = 0;
        mxa_job_fail(res, MXA_ERR_BAD_GRID, 0, why);
        return;
    }
    l->cycles = g_try_new0(uint64_t, l->count);
    if (!l->cycles) {
        mxa_job_fail(res, MXA_ERR_NO_MEMORY, 0, MXA_NOMEM_HOST);
        return;
    }
    qemu_mutex_init(&l->lock);
    qemu_cond_init(&l->cond);
    /*
     * The thread is busy until the grid ends (waiting for cores, running an instance
     * itself, waiting for the instances): the timer sends a deferred interrupt when it
     * is due. Anticipate: a job in the same deferral keeps the deadline, and the main
     * loop is not woken again.
     */
    if (qatomic_read(&q->irq_deferred)) {
        timer_mod_anticipate_ns(q->irq_timer, q->irq_deferred_ns + MXA_IRQ_DEFER_NS);
    }
    csize = l->cx * l->cy;
    ncx = l->gx / l->cx;
    for (uint32_t cl = 0; cl < l->count / csize; cl++) {
        MxaCluster *cluster;
        unsigned picked = 0;

        qemu_mutex_lock(&s->core_lock);
        for (;;) {
            unsigned free_cores = 0;

            for (unsigned c = 0; c < s->num_cores; c++) {
                free_cores += !s->cores[c].launch;
            }
            if (qatomic_read(&q->abort) || qatomic_read(&l->error) || free_cores >= csize) {
                break;
            }
            if (l->at_doorbell) {
                l->declined = true;     /* under the BQL: never wait for a core */
                break;
            }
            qemu_cond_wait(&s->core_cond, &s->core_lock);
        }
        if (qatomic_read(&q->abort) || qatomic_read(&l->error) || l->declined) {
            qemu_mutex_unlock(&s->core_lock);
            break;     /* a reset, or an instance failed: place no more */
        }
        cluster = g_new0(MxaCluster, 1);
        cluster->size = csize;
        qemu_mutex_init(&cluster->lock);
        qemu_cond_init(&cluster->cond);
        for (unsigned c = 0; c < s->num_cores && picked < csize; c++) {
            if (!s->cores[c].launch) {
                cluster->cores[picked++] = &s->cores[c];
            }
        }
        for (uint32_t r = 0; r < csize; r++) {
            MxaCore *core = cluster->cores[r];

            core->launch = l;
            core->cluster = cluster;
            core->rank = r;
            core->cta = (cl % ncx) * l->cx + r % l->cx +
                        ((cl / ncx) * l->cy + r / l->cx) * l->gx;
            qatomic_set(&core->abort, 0);
            if (!here) {
                core->pending = true;
                qemu_cond_signal(&core->cond);
            }
        }
        qemu_mutex_lock(&l->lock);
        l->started += csize;
        qemu_mutex_unlock(&l->lock);
        if (here) {
            /*
             * A grid of one instance runs here, on the core it holds: waking the core's
             * thread and being woken by it took 2 thread wake-ups a job (a no-op job
             * 24 -> 8 us: Documentation/performance.rst, "Submission").
             */
            mxa_core_run_locked(cluster->cores[0]);
        }
        qemu_mutex_unlock(&s->core_lock);
    }
    mxa_launch_wait(l);
    if (l->declined) {
        g_free(l->cycles);
        qemu_cond_destroy(&l->cond);
        qemu_mutex_destroy(&l->lock);
        return;
    }

    res->error = l->error;
    res->err_offset = l->err_offset;
    res->err_opcode = l->err_opcode;
    res->err_addr = l->err_addr;
    res->err_info = l->err_info;
    res->commands = MIN(l->commands, UINT32_MAX);
    {
        /* the timeline's grid spans need the schedule; without it, where the host ran */
        bool all = l->started == l->count;
        uint64_t *start_of = all && l->timeline ? g_try_new(uint64_t, l->count) : NULL;
        unsigned *on = start_of ? g_try_new(unsigned, l->count) : NULL;

        if (!on) {
            g_free(start_of);
            start_of = NULL;
        }
        res->cycles = all ? mxa_launch_cycles(l, s->num_cores, start_of, on) : 0;
        mxa_timeline_launch_end(l, start_of, on);
        g_free(start_of);
        g_free(on);
    }
    g_free(l->cycles);
    qemu_cond_destroy(&l->cond);
    qemu_mutex_destroy(&l->lock);
}

static void mxa_queue_complete_job(MxaJob *job, const MxaLaunch *l, uint64_t start_ns,
                                   bool aborted)
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
    rec.err_instance = cpu_to_le32(l->err_instance);
    rec.instances = cpu_to_le32(l->ended);
    rec.tma_load_bytes = cpu_to_le64(l->tma_load_bytes);
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

/*
 * Jobs a doorbell runs itself. A job of one instance whose program is a few control
 * commands (mxa_prog_is_control(): none waits, loops or starts an engine) takes a few
 * microseconds; waking the queue thread for it took 30-60 us under TCG
 * (Documentation/performance.rst, "Submission"). So a TAIL write to an empty ring runs
 * the jobs it added, in ring order, while they are such jobs (at most
 * MXA_DOORBELL_JOBS_MAX: the BQL is held), on the writer's thread, the queue busy for
 * its thread meanwhile; the first other job, or one that finds no core free, goes to
 * the thread with the rest. Same commands, results and cycles: only the completion
 * comes sooner. Property doorbell-jobs=off leaves every job to the thread.
 */
enum {
    MXA_DOORBELL_PROG_DWORDS = 16,      /* the longest program a doorbell runs */
    MXA_DOORBELL_JOBS_MAX = 32,         /* jobs a doorbell runs at most */
};

/* The job of @desc is one a doorbell runs: one instance, a short control program. */
static bool mxa_queue_doorbell_job(MxaQueue *q, const struct mxa_job_desc *desc)
{
    MxaState *s = q->dev;
    uint32_t prog[MXA_DOORBELL_PROG_DWORDS];
    uint32_t size = desc->prog_size;
    /* no core: a TLB of its own; a fault here is reported when the thread runs it */
    MxaJob job = { .q = q, .desc = *desc, .tlb = s->doorbell_tlb,
                   .dma_gen = &s->doorbell_dma_gen };

    if (desc->grid_x > 1 || desc->grid_y > 1 || desc->cluster_x > 1 ||
        desc->cluster_y > 1 || size == 0 || size % 4 || size > sizeof(prog) ||
        desc->prog_va % 4) {
        return false;
    }
    if (mxa_mmu_bind(&job) || mxa_va_read(&job, desc->prog_va, prog, size)) {
        return false;
    }
    for (uint32_t i = 0; i < size / 4; i++) {
        prog[i] = le32_to_cpu(prog[i]);
    }
    return mxa_prog_is_control(prog, size / 4);
}

/*
 * Run the job at @head, its descriptor at @desc_addr (q->busy set by the caller;
 * cleared here with HEAD moved past it). @at_doorbell: only a job that
 * mxa_queue_doorbell_job() accepts, on a core free now; false when it is not one
 * (nothing ran, q->busy still set).
 */
static bool mxa_queue_run_head(MxaQueue *q, uint32_t head, uint64_t desc_addr,
                               bool at_doorbell)
{
    MxaState *s = q->dev;
    MxaJob job = { .q = q };
    MxaLaunch launch = { .q = q, .at_doorbell = at_doorbell };
    uint64_t start_ns;
    uint32_t deferred;
    bool aborted, drained;

    if (mxa_dma_read(s, desc_addr, &job.desc, sizeof(job.desc)) != MEMTX_OK) {
        qemu_mutex_lock(&q->lock);
        q->busy = false;
        mxa_queue_stop_locked(q, MXA_DEVERR_RING_DMA);
        qemu_mutex_unlock(&q->lock);
        return true;
    }
    job.desc.flags = le32_to_cpu(job.desc.flags);
    job.desc.ctx = le32_to_cpu(job.desc.ctx);
    job.desc.prog_va = le64_to_cpu(job.desc.prog_va);
    job.desc.prog_size = le32_to_cpu(job.desc.prog_size);
    job.desc.completion = le64_to_cpu(job.desc.completion);
    job.desc.job_id = le64_to_cpu(job.desc.job_id);
    job.desc.grid_x = le16_to_cpu(job.desc.grid_x);
    job.desc.grid_y = le16_to_cpu(job.desc.grid_y);
    launch.desc = job.desc;
    if (at_doorbell && !mxa_queue_doorbell_job(q, &job.desc)) {
        return false;
    }

    start_ns = get_clock();
    qatomic_set(&q->timeline_job_ns, start_ns);
    trace_mxa_job_start(q->index, job.desc.job_id, job.desc.ctx, job.desc.prog_va,
                        job.desc.prog_size);
    mxa_queue_launch(&launch, &job);
    if (launch.declined) {
        return false;
    }
    aborted = qatomic_read(&q->abort);
    if (aborted && !job.error) {
        job.err_offset = launch.abort_offset;
        job.cur_offset = launch.abort_offset;
        job.cur_header = launch.abort_header;
    }
    mxa_queue_complete_job(&job, &launch, start_ns, aborted);
    if (qatomic_read(&s->timeline)) {
        char name[40];

        snprintf(name, sizeof(name), "job %" PRIu64, (uint64_t)job.desc.job_id);
        mxa_timeline_span(s, q->index, MXA_TIMELINE_JOBS, name, start_ns, get_clock(),
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
    if (drained && !at_doorbell) {
        mxe_engine_park(s->engine);     /* the host's cores to the guest, who is next */
    }
    if ((job.desc.flags & MXA_JOB_F_IRQ) && !qatomic_fetch_inc(&q->irq_deferred)) {
        q->irq_deferred_ns = get_clock();
    }
    deferred = qatomic_read(&q->irq_deferred);
    if (drained || deferred >= s->irq_coalesce ||
        (deferred && get_clock() - q->irq_deferred_ns >= MXA_IRQ_DEFER_NS)) {
        mxa_queue_irq_flush(q);
    }
    return true;
}

/* After a TAIL write that claimed the idle queue (BQL held): its control-only jobs. */
static void mxa_queue_doorbell_run(MxaQueue *q, uint64_t desc_addr)
{
    bool claimed = true;

    for (unsigned n = 0; claimed && n < MXA_DOORBELL_JOBS_MAX; n++) {
        if (!mxa_queue_run_head(q, q->head, desc_addr, true)) {
            break;      /* q->busy still set */
        }
        qemu_mutex_lock(&q->lock);
        claimed = mxa_queue_claim_locked(q, &desc_addr);
        qemu_mutex_unlock(&q->lock);
    }
    qemu_mutex_lock(&q->lock);
    if (claimed) {
        q->busy = false;
    }
    qemu_cond_signal(&q->cond);     /* the rest, if any, is the thread's */
    qemu_mutex_unlock(&q->lock);
}

static void *mxa_queue_thread(void *opaque)
{
    MxaQueue *q = opaque;

    for (;;) {
        uint64_t desc_addr;

        qemu_mutex_lock(&q->lock);
        for (;;) {
            if (q->shutdown) {
                qemu_mutex_unlock(&q->lock);
                return NULL;
            }
            if (q->reset_pending && !q->busy) {
                q->ring_base = 0;
                q->ring_size = 0;
                q->control = 0;
                q->head = q->tail = 0;
                q->completed = 0;
                q->stopped = false;
                q->error = 0;
                qatomic_set(&q->abort, 0);
                q->reset_pending = false;
                continue;
            }
            if (mxa_queue_claim_locked(q, &desc_addr)) {
                break;
            }
            mxa_queue_irq_flush(q);
            qemu_cond_wait(&q->cond, &q->lock);
        }
        qemu_mutex_unlock(&q->lock);
        mxa_queue_run_head(q, q->head, desc_addr, false);
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
    q->irq_timer = timer_new_ns(QEMU_CLOCK_REALTIME, mxa_queue_irq_timer, q);
    snprintf(name, sizeof(name), "mxa-q%u", i);
    qemu_thread_create(&q->thread, name, mxa_queue_thread, q, QEMU_THREAD_JOINABLE);
}

void mxa_queue_fini(MxaQueue *q)
{
    qemu_mutex_lock(&q->lock);
    q->shutdown = true;
    mxa_queue_reset_locked(q);
    qemu_mutex_unlock(&q->lock);
    qemu_thread_join(&q->thread);
    timer_free(q->irq_timer);
    qemu_cond_destroy(&q->cond);
    qemu_mutex_destroy(&q->lock);
}
