/*
 * MXA asynchronous engines: the copy engine and the math engine of a core.
 *
 * Each core has one lane per asynchronous class (MXA_GROUP_*), a worker thread that
 * runs the class's commands in issue order while the command processor moves on. Ops
 * of one lane complete in order, so "group g is complete" is "the lane has finished
 * op mark[g]", and results do not depend on timing: a program that waits where PTX
 * says it must (WAIT_GROUP, FENCE_WRITE, SEM_SIGNAL) always sees the same bytes.
 *
 * A lane reaches guest memory only through the running job's context (its own TLB, the
 * job's page-table root), never under the BQL. A failing op records its error with the
 * offset of the command that issued it; later ops of the job are dropped and the error
 * reaches the job at the next WAIT_GROUP, fence or at the end of the job. A TMA issued
 * to an idle copy engine, and a WGMMA to an idle math engine where the host has fewer
 * CPUs than the running instances' threads, run on the command processor's thread at
 * once, as the lane (mxa_async_inline(), mxa_lane_run(): same context, same error
 * record, same modelled cycles). A reset
 * (core->abort) makes the lane drop its queued ops and every wait return at once.
 *
 * Cycle model (mxa_timing.c): an op's modelled completion is fixed when it is issued,
 * max(the lane's modelled clock, the issue cycle) + its cost; a wait moves the command
 * processor's clock to the modelled completion of what it waited for, whatever the
 * host did meanwhile.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/memalign.h"
#include "qemu/timer.h"
#include "mxa.h"
#include "uapi/mxa_isa_table.h"
#include "engine/mxe_engine.h"
#include "trace.h"

enum {
    MXA_COPY_CHUNK = 64 * 1024,
    MXA_WAIT_POLL_MS = 10,     /* waits re-check the abort flag this often */
};

static int mxa_lane_copy(MxaJob *job, MxaAsyncOp *op)
{
    uint64_t off = 0;
    uint8_t *buf;
    int ret = 0;

    /* on a cache line, as the SRAM (mxa_tma_init()): memcpy() into it at full speed */
    buf = qemu_try_memalign(64, MIN(op->len, MXA_COPY_CHUNK));
    if (!buf) {
        return mxa_job_fail(job, MXA_ERR_NO_MEMORY, op->src, 0);
    }
    while (off < op->len) {
        uint64_t chunk = MIN(op->len - off, MXA_COPY_CHUNK);

        if (qatomic_read(&job->core->abort) ||
            mxa_va_read(job, op->src + off, buf, chunk) ||
            mxa_va_write(job, op->dst + off, buf, chunk)) {
            ret = -1;
            break;
        }
        off += chunk;
    }
    qemu_vfree(buf);
    return ret;
}

static void mxa_lane_exec(MxaJob *job, MxaAsyncOp *op)
{
    switch (MXA_CMD_OPCODE(op->header)) {
    case MXA_OP_COPY:
        mxa_lane_copy(job, op);
        break;
    case MXA_OP_GEMM:
        mxa_exec_gemm(job, &op->cmd[1]);
        break;
    case MXA_OP_TMA_LOAD:
    case MXA_OP_TMA_STORE:
        mxa_lane_tma(job, op);
        break;
    case MXA_OP_WGMMA:
    case MXA_OP_WGMMA_DESC:
        mxa_lane_wgmma(job, op);
        break;
    default:
        mxa_job_fail(job, MXA_ERR_UNKNOWN_OPCODE, 0, MXA_CMD_OPCODE(op->header));
        break;
    }
}

/*
 * Run @op for @lane, with lane->lock held on entry and on return (dropped meanwhile):
 * as the job's context sees it from the lane (its TLB and staging), its failure
 * recorded as the lane's first; dropped when the lane failed before or on a reset.
 * The caller then counts it done.
 */
static void mxa_lane_run(MxaLane *lane, MxaAsyncOp *op)
{
    MxaCore *core = lane->core;
    MxaJob shadow = { .core = core, .tlb = lane->tlb, .stage = lane->stage,
                      .dma_gen = &lane->dma_gen };
    bool skip = lane->error || qatomic_read(&core->abort);

    shadow.q = lane->jq;
    shadow.cluster = lane->cluster;
    shadow.rank = lane->rank;
    shadow.desc.ctx = lane->ctx;
    shadow.desc.job_id = lane->job_id;
    shadow.pt_root = lane->pt_root;
    shadow.cur_offset = op->offset;
    shadow.cur_header = op->header;
    shadow.cycles = op->done_cycle;    /* what its mbarrier arrivals are stamped with */
    qemu_mutex_unlock(&lane->lock);

    trace_mxa_async_op(shadow.q->index, lane->index, op->seq, op->offset, skip);
    if (!skip) {
        int64_t t0 = get_clock();

        mxa_lane_exec(&shadow, op);
        mxa_timeline_core_span(core, 1 + lane->index,
                               mxa_isa_mnemonic(MXA_CMD_OPCODE(op->header)), t0,
                               get_clock(), shadow.desc.job_id, op->offset, shadow.error,
                               op->start_cycle, op->done_cycle);
    }

    qemu_mutex_lock(&lane->lock);
    if (shadow.error && !lane->error) {
        lane->error = shadow.error;
        lane->err_offset = shadow.err_offset;
        lane->err_opcode = shadow.err_opcode;
        lane->err_addr = shadow.err_addr;
        lane->err_info = shadow.err_info;
    }
}

static void *mxa_lane_thread(void *opaque)
{
    MxaLane *lane = opaque;
    MxaCore *core = lane->core;

    mxe_engine_cancel_on(&core->abort);	/* as the command processor's */
    qemu_mutex_lock(&lane->lock);
    for (;;) {
        MxaAsyncOp *op;
        bool spun = false;

        while (!lane->shutdown && !lane->head) {
            if (!spun && core->dev->lane_spin_ns) {
                /* the command processor often issues the next op right away */
                qemu_mutex_unlock(&lane->lock);
                mxa_spin_until(core->dev->lane_spin_ns, qatomic_read(&lane->head) || qatomic_read(&lane->shutdown));
                qemu_mutex_lock(&lane->lock);
                spun = true;
                continue;
            }
            qemu_cond_wait(&lane->cond, &lane->lock);
        }
        if (lane->shutdown) {
            break;
        }
        op = lane->head;
        mxa_lane_run(lane, op);        /* 'head' stays set meanwhile: the lane is busy */
        lane->head = op->next;
        if (!lane->head) {
            lane->tail = NULL;
        }
        qatomic_set(&lane->done, lane->done + 1);
        if (lane->done >= lane->wake_done) {
            /* a wake-up per op would put the waiter on this CPU after each one */
            qemu_cond_broadcast(&lane->cond);
        }
        g_free(op);
    }
    qemu_mutex_unlock(&lane->lock);
    return NULL;
}

void mxa_lanes_init(MxaCore *core)
{
    for (unsigned i = 0; i < MXA_GROUP_CLASSES; i++) {
        MxaLane *lane = &core->lanes[i];
        char name[32];

        lane->core = core;
        lane->index = i;
        lane->wake_done = UINT64_MAX;
        qemu_mutex_init(&lane->lock);
        qemu_cond_init(&lane->cond);
        snprintf(name, sizeof(name), "mxa-c%u-%s", core->index,
                 i == MXA_GROUP_COPY ? "copy" : "mma");
        qemu_thread_create(&lane->thread, name, mxa_lane_thread, lane,
                           QEMU_THREAD_JOINABLE);
    }
}

void mxa_lanes_fini(MxaCore *core)
{
    for (unsigned i = 0; i < MXA_GROUP_CLASSES; i++) {
        MxaLane *lane = &core->lanes[i];

        qemu_mutex_lock(&lane->lock);
        lane->shutdown = true;
        qemu_cond_broadcast(&lane->cond);
        qemu_mutex_unlock(&lane->lock);
        qemu_thread_join(&lane->thread);
        while (lane->head) {
            MxaAsyncOp *op = lane->head;

            lane->head = op->next;
            g_free(op);
        }
        mxa_stage_fini(core->dev, lane->stage);
        qemu_cond_destroy(&lane->cond);
        qemu_mutex_destroy(&lane->lock);
    }
}

/* The core starts an instance: the lanes are idle (the last one drained them). */
void mxa_lanes_job_start(MxaJob *job)
{
    /* the launch's instances that run at once, a command processor and engines each */
    uint32_t at_once = MIN(job->core->launch->count, job->core->dev->num_cores);

    job->mma_inline = 2 * at_once > job->core->dev->host_cpus;
    for (unsigned i = 0; i < MXA_GROUP_CLASSES; i++) {
        MxaLane *lane = &job->core->lanes[i];

        qemu_mutex_lock(&lane->lock);
        lane->issued = lane->done = 0;
        lane->model_clock = lane->model_done = lane->model_fabric = lane->model_busy = 0;
        /* a function of the grid's shape: the same cycles whatever else runs */
        lane->model_loaders = at_once;
        lane->error = 0;
        lane->jq = job->q;
        lane->cluster = job->cluster;
        lane->rank = job->rank;
        lane->tma_load_bytes = 0;
        lane->ctx = job->desc.ctx;
        lane->pt_root = job->pt_root;
        lane->job_id = job->desc.job_id;
        /* its TLB stays: entries are tagged with the context and the generation */
        qemu_mutex_unlock(&lane->lock);
    }
}

/* Copy a lane's first error into the job (which keeps its own first error). */
static int mxa_lane_error_locked(MxaJob *job, MxaLane *lane)
{
    if (!lane->error) {
        return 0;
    }
    if (!job->error) {
        job->error = lane->error;
        job->err_offset = lane->err_offset;
        job->err_opcode = lane->err_opcode;
        job->err_addr = lane->err_addr;
        job->err_info = lane->err_info;
        trace_mxa_guest_err_job(job->q->index, job->desc.job_id, lane->error,
                                lane->err_offset);
    }
    return -1;
}

/*
 * Wait until @lane has finished its first @count ops; the job's clock then moves to
 * @done_cycle. @abortable: return -1 at once on a reset (the job is being aborted);
 * otherwise wait anyway (lanes drop ops quickly once core->abort is set), so that no
 * op outlives its job.
 */
static int mxa_lane_wait(MxaJob *job, MxaLane *lane, uint64_t count, uint64_t done_cycle,
                         bool abortable)
{
    int ret;

    if (qatomic_read(&lane->done) < count && job->q->dev->spin_ns) {
        mxa_spin_until(job->q->dev->spin_ns, qatomic_read(&lane->done) >= count ||
                       qatomic_read(&job->core->abort));
    }
    qemu_mutex_lock(&lane->lock);
    lane->wake_done = count;
    while (lane->done < count && !(abortable && qatomic_read(&job->core->abort))) {
        qemu_cond_timedwait(&lane->cond, &lane->lock, MXA_WAIT_POLL_MS);
    }
    lane->wake_done = UINT64_MAX;
    if (lane->done < count) {
        qemu_mutex_unlock(&lane->lock);
        return -1;
    }
    ret = mxa_lane_error_locked(job, lane);
    qemu_mutex_unlock(&lane->lock);
    job->cycles = MAX(job->cycles, done_cycle);
    return ret;
}

/*
 * The lane of class @cls is idle: does the command processor run @op itself, at once?
 * The results, the errors and the modelled cycles are the lane's either way (the lane
 * has nothing queued or running, so the order of its ops is kept).
 * - A TMA box on an idle copy engine: handed over, the command processor would spin,
 *   and on a host with few CPUs share one with the lane's thread (performance.rst,
 *   tma.csv). A TMA is one bounded box; COPY, which may be large, always goes to the lane.
 * - A WGMMA on an idle math engine where the launch's instances that run at once need
 *   more threads (a command processor and a math engine each) than QEMU has CPUs to run
 *   on: the math engines would take turns on them with the command processors, each
 *   waking the other (performance.rst, pipeline-fast.csv). One instance on a 2-CPU
 *   host keeps both threads, so that its TMAs overlap its WGMMAs.
 */
static bool mxa_async_inline(const MxaJob *job, unsigned cls, const MxaAsyncOp *op)
{
    uint32_t opc = MXA_CMD_OPCODE(op->header);

    if (cls == MXA_GROUP_COPY) {
        return opc == MXA_OP_TMA_LOAD || opc == MXA_OP_TMA_STORE;
    }
    return job->mma_inline && (opc == MXA_OP_WGMMA || opc == MXA_OP_WGMMA_DESC);
}

/* Queue @op (allocated by the caller, freed by the lane) on the lane of class @cls. */
int mxa_async_issue(MxaJob *job, unsigned cls, MxaAsyncOp *op)
{
    MxaLane *lane = &job->core->lanes[cls];
    uint32_t cost = mxa_timing_issue_cost(job->q->dev, MXA_CMD_OPCODE(job->cur_header));

    qemu_mutex_lock(&lane->lock);
    lane->wake_done = lane->issued - MXA_LANE_DEPTH + 1;   /* a place in the queue */
    while (lane->issued - lane->done >= MXA_LANE_DEPTH && !qatomic_read(&job->core->abort)) {
        qemu_cond_timedwait(&lane->cond, &lane->lock, MXA_WAIT_POLL_MS);
    }
    lane->wake_done = UINT64_MAX;
    if (lane->issued - lane->done >= MXA_LANE_DEPTH) {
        qemu_mutex_unlock(&lane->lock);
        g_free(op);
        return -1;
    }
    op->next = NULL;
    op->offset = job->cur_offset;
    op->header = job->cur_header;
    op->issue_cycle = job->cycles;
    mxa_timing_issue(job->q->dev, lane, op, job->cycles);
    op->seq = lane->issued++;
    if (!lane->head && lane->done + 1 == lane->issued && mxa_async_inline(job, cls, op)) {
        mxa_lane_run(lane, op);
        qatomic_set(&lane->done, lane->done + 1);
        qemu_mutex_unlock(&lane->lock);
        g_free(op);
        job->cycles += cost;
        return 0;
    }
    if (lane->tail) {
        lane->tail->next = op;
    } else {
        qatomic_set(&lane->head, op);
    }
    lane->tail = op;
    qemu_cond_broadcast(&lane->cond);
    qemu_mutex_unlock(&lane->lock);
    job->cycles += cost;
    return 0;
}

int mxa_async_commit(MxaJob *job, unsigned cls)
{
    MxaGroups *g = &job->groups[cls];
    MxaLane *lane = &job->core->lanes[cls];
    unsigned slot = g->committed % MXA_MAX_PENDING_GROUPS;

    /* the ring holds the newest groups: the one it drops must be complete */
    if (g->committed >= MXA_MAX_PENDING_GROUPS &&
        mxa_lane_wait(job, lane, g->mark[slot], g->done_cycle[slot], true)) {
        return -1;
    }
    g->mark[slot] = lane->issued;   /* only this thread changes 'issued' */
    g->done_cycle[slot] = lane->model_done;
    g->committed++;
    return 0;
}

int mxa_async_wait_group(MxaJob *job, unsigned cls, uint64_t n)
{
    MxaGroups *g = &job->groups[cls];
    MxaLane *lane = &job->core->lanes[cls];
    uint64_t count = 0, done = 0;

    if (n < MXA_MAX_PENDING_GROUPS && g->committed > n) {
        count = g->mark[(g->committed - n - 1) % MXA_MAX_PENDING_GROUPS];
        done = g->done_cycle[(g->committed - n - 1) % MXA_MAX_PENDING_GROUPS];
    }
    trace_mxa_wait_group(job->q->index, cls, n, count);
    if (mxa_lane_wait(job, lane, count, done, true)) {
        return -1;
    }
    if (cls == MXA_GROUP_MMA) {
        mxa_acc_retire(job, count);
    }
    return 0;
}

/*
 * Wait for every issued op of every class (committed or not). At the end of a job
 * (@abortable false) this also waits through a reset, so no op outlives its job.
 */
int mxa_async_drain(MxaJob *job, bool abortable)
{
    int ret = 0;

    for (unsigned i = 0; i < MXA_GROUP_CLASSES; i++) {
        MxaLane *lane = &job->core->lanes[i];

        if (mxa_lane_wait(job, lane, lane->issued, lane->model_done, abortable)) {
            ret = -1;
        } else if (i == MXA_GROUP_MMA) {
            mxa_acc_retire(job, lane->issued);
        }
    }
    return ret;
}
