/*
 * MXA cores: the device's command processors, each with its own SRAM, tile registers
 * and asynchronous engines (the "cores" property; Hopper's SMs).
 *
 * A core runs one instance (CTA) of a job's grid at a time. The queue thread that
 * launches the grid (mxa_queue.c) picks free cores for a cluster under
 * MxaState.core_lock, sets each core's launch, cta, cluster and rank and signals it; the
 * core builds the instance's job, runs the program and reports to the launch
 * (mxa_launch_instance_end); the cluster's last instance frees the cluster's cores. A
 * queue reset sets the abort flag of every core running one of its instances.
 *
 * Clusters: the instances of a cluster share a barrier (CLUSTER_ARRIVE/WAIT) and reach
 * each other's SRAM through cluster addresses (MXA_DSMEM, mxa_sram_owner()).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "mxa.h"
#include "engine/mxe_engine.h"
#include "trace.h"

/* The instance's special registers (REG_CTA) from its index in the grid. */
static void mxa_core_sregs(MxaJob *job, const MxaLaunch *l, uint32_t cta)
{
    uint32_t x = cta % l->gx, y = cta / l->gx;
    uint32_t *r = job->sreg;

    r[MXA_SREG_CTA] = cta;
    r[MXA_SREG_CTAID_X] = x;
    r[MXA_SREG_CTAID_Y] = y;
    r[MXA_SREG_NCTAID_X] = l->gx;
    r[MXA_SREG_NCTAID_Y] = l->gy;
    r[MXA_SREG_CLUSTERID_X] = x / l->cx;
    r[MXA_SREG_CLUSTERID_Y] = y / l->cy;
    r[MXA_SREG_NCLUSTERID_X] = l->gx / l->cx;
    r[MXA_SREG_NCLUSTERID_Y] = l->gy / l->cy;
    r[MXA_SREG_CLUSTER_CTAID_X] = x % l->cx;
    r[MXA_SREG_CLUSTER_CTAID_Y] = y % l->cy;
    r[MXA_SREG_CLUSTER_NCTAID_X] = l->cx;
    r[MXA_SREG_CLUSTER_NCTAID_Y] = l->cy;
    r[MXA_SREG_CLUSTER_CTARANK] = x % l->cx + (y % l->cy) * l->cx;
    r[MXA_SREG_CLUSTER_NCTARANK] = l->cx * l->cy;
}

/* ---- clusters: the barrier and distributed SRAM ---- */

/* CLUSTER_ARRIVE: count the instance in the current phase; the last one completes it. */
int mxa_cluster_arrive(MxaJob *job)
{
    MxaCluster *cl = job->cluster;

    if (job->bar_arrived) {
        return mxa_job_fail(job, MXA_ERR_CLUSTER, 0, MXA_CLUSTER_ERR_ARRIVE);
    }
    job->cycles += job->q->dev->timing->mbar;
    qemu_mutex_lock(&cl->lock);
    job->bar_arrived = true;
    job->bar_phase = cl->phase;
    cl->arrive_cycle = MAX(cl->arrive_cycle, job->cycles);
    if (++cl->arrived == cl->size) {
        cl->arrived = 0;
        cl->phase++;
        cl->done_cycle = cl->arrive_cycle;
        cl->arrive_cycle = 0;
        /* an instance that has ended arrives at no later phase */
        cl->missing = ctpop32(cl->ended_mask);
        qemu_cond_broadcast(&cl->cond);
    }
    qemu_mutex_unlock(&cl->lock);
    return 0;
}

/*
 * CLUSTER_WAIT: until the phase the instance arrived at completes. A peer that ended
 * without arriving, a reset or the device's mbar-timeout-us end the wait with an error.
 */
int mxa_cluster_wait(MxaJob *job)
{
    MxaCluster *cl = job->cluster;
    MxaState *s = job->q->dev;
    int64_t start = get_clock();
    uint32_t why = 0, peer = 0;

    if (!job->bar_arrived) {
        return mxa_job_fail(job, MXA_ERR_CLUSTER, 0, MXA_CLUSTER_ERR_WAIT);
    }
    job->bar_arrived = false;
    qemu_mutex_lock(&cl->lock);
    while (cl->phase == job->bar_phase) {
        if (cl->missing) {
            why = MXA_CLUSTER_ERR_PEER_ENDED;
            peer = ctz32(cl->ended_mask);
            break;
        }
        if (qatomic_read(&job->core->abort)) {
            qemu_mutex_unlock(&cl->lock);
            return -1;
        }
        if (get_clock() - start > (int64_t)s->mbar_timeout_us * 1000) {
            why = MXA_CLUSTER_ERR_TIMEOUT;
            break;
        }
        qemu_cond_timedwait(&cl->cond, &cl->lock, 10);
    }
    qemu_mutex_unlock(&cl->lock);
    if (why) {
        return mxa_job_fail(job, MXA_ERR_CLUSTER, peer, why);
    }
    job->cycles = MAX(job->cycles, cl->done_cycle) + s->timing->mbar_wait;
    return 0;
}

/*
 * The instance is set up (its SRAM zeroed, its tiles empty): wait until every peer is,
 * so that no peer's store into this SRAM comes before the zeroing. -1 on a reset.
 */
static int mxa_cluster_start(MxaJob *job)
{
    MxaCluster *cl = job->cluster;
    int ret = 0;

    qemu_mutex_lock(&cl->lock);
    job->ready = true;
    if (++cl->ready == cl->size) {
        qemu_cond_broadcast(&cl->cond);
    }
    while (cl->ready < cl->size) {
        if (qatomic_read(&job->core->abort)) {
            ret = -1;
            break;
        }
        qemu_cond_timedwait(&cl->cond, &cl->lock, 10);
    }
    qemu_mutex_unlock(&cl->lock);
    return ret;
}

/* An instance ends: a peer waiting for its arrival will not get it. */
static void mxa_cluster_instance_end(MxaJob *job)
{
    MxaCluster *cl = job->cluster;

    qemu_mutex_lock(&cl->lock);
    if (!job->ready) {      /* it failed before it was set up: peers start without it */
        job->ready = true;
        cl->ready++;
    }
    cl->ended_mask |= 1u << job->rank;
    if (!job->bar_arrived || job->bar_phase != cl->phase) {
        cl->missing++;
    }
    qemu_cond_broadcast(&cl->cond);
    qemu_mutex_unlock(&cl->lock);
}

/*
 * The core whose SRAM an operand of @len bytes at *@addr names: the instance's own
 * SRAM for an offset, a peer's for a cluster address (MXA_DSMEM), *@addr then made the
 * offset in it. NULL with the job failed (MXA_ERR_SRAM_RANGE, MXA_ERR_CLUSTER).
 */
MxaCore *mxa_sram_owner(MxaJob *job, uint64_t *addr, uint64_t len, uint64_t align)
{
    MxaCluster *cl = job->cluster;
    uint64_t a = *addr, rank, off;
    MxaCore *peer;

    if (a < MXA_DSMEM_BASE) {
        return mxa_sram_check(job, a, len, align) ? NULL : job->core;
    }
    rank = (a - MXA_DSMEM_BASE) / MXA_DSMEM_STRIDE;
    off = (a - MXA_DSMEM_BASE) % MXA_DSMEM_STRIDE;
    if (rank >= cl->size) {
        mxa_job_fail(job, MXA_ERR_CLUSTER, a, MXA_CLUSTER_ERR_OUTSIDE);
        return NULL;
    }
    if (off % align || off > MXA_SRAM_SIZE || len > MXA_SRAM_SIZE - off) {
        mxa_job_fail(job, MXA_ERR_SRAM_RANGE, a, (uint32_t)MIN(len, UINT32_MAX));
        return NULL;
    }
    if (rank != job->rank && (qatomic_read(&cl->ended_mask) & (1u << rank))) {
        mxa_job_fail(job, MXA_ERR_CLUSTER, rank, MXA_CLUSTER_ERR_PEER_ENDED);
        return NULL;
    }
    peer = cl->cores[rank];
    qatomic_set(&peer->sram_dirty, true);
    *addr = off;
    return peer;
}

/* Run one instance: bind its context, fetch and run the program, drain its engines. */
static void mxa_core_run_instance(MxaJob *job)
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
    if (mxa_cluster_start(job)) {
        return;
    }
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
    /* no asynchronous command outlives its instance, even through a reset */
    mxa_async_drain(job, false);
    job->tma_load_bytes = job->core->lanes[MXA_GROUP_COPY].tma_load_bytes;
    g_free(prog);
}

/*
 * Run the instance handed to @core (its launch, cta, cluster and rank set under
 * core_lock) on the calling thread: the core's own, or the queue thread that launched a
 * grid of one instance (mxa_queue.c), which saves two thread hand-offs a job. Whoever
 * runs it owns the core's per-instance state (TLB, SRAM, tiles, stage) until the core
 * is released here. Called and returns with core_lock held.
 */
void mxa_core_run_locked(MxaCore *core)
{
    MxaState *s = core->dev;
    MxaLaunch *l = core->launch;
    uint32_t cta = core->cta;
    MxaJob job = { .q = l->q, .core = core, .desc = l->desc, .tlb = core->tlb,
                   .stage = core->stage, .dma_gen = &core->dma_gen,
                   .cluster = core->cluster, .rank = core->rank };
    MxaCluster *cl = job.cluster;

    qemu_mutex_unlock(&s->core_lock);
    /* a reset (core->abort) stops this instance's long math within one engine task */
    mxe_engine_cancel_on(&core->abort);
    mxa_core_sregs(&job, l, cta);
    mxa_core_run_instance(&job);
    mxa_cluster_instance_end(&job);
    mxe_engine_cancel_on(NULL);
    /*
     * The end and the cores' release in one step under core_lock: a launcher that sees
     * a core free also sees the instance's error, and no core points to a launch that
     * has ended. A cluster keeps its cores until its last instance ends.
     */
    qemu_mutex_lock(&s->core_lock);
    mxa_launch_instance_end(l, &job, cta);
    if (++cl->ended == cl->size) {
        for (uint32_t r = 0; r < cl->size; r++) {
            cl->cores[r]->launch = NULL;
            cl->cores[r]->cluster = NULL;
        }
        qemu_cond_destroy(&cl->cond);
        qemu_mutex_destroy(&cl->lock);
        g_free(cl);
        qemu_cond_broadcast(&s->core_cond);
    }
}

static void *mxa_core_thread(void *opaque)
{
    MxaCore *core = opaque;
    MxaState *s = core->dev;

    qemu_mutex_lock(&s->core_lock);
    for (;;) {
        while (!core->shutdown && !core->pending) {
            qemu_cond_wait(&core->cond, &s->core_lock);
        }
        if (core->shutdown) {
            break;
        }
        core->pending = false;
        mxa_core_run_locked(core);
    }
    qemu_mutex_unlock(&s->core_lock);
    return NULL;
}

void mxa_core_create(MxaState *s, unsigned i)
{
    MxaCore *core = &s->cores[i];
    char name[32];

    core->dev = s;
    core->index = i;
    qemu_cond_init(&core->cond);
    mxa_tma_init(core);
    mxa_lanes_init(core);
    snprintf(name, sizeof(name), "mxa-c%u", i);
    qemu_thread_create(&core->thread, name, mxa_core_thread, core, QEMU_THREAD_JOINABLE);
}

/* After every queue thread has stopped: no launch is running. */
void mxa_core_fini(MxaCore *core)
{
    MxaState *s = core->dev;

    qemu_mutex_lock(&s->core_lock);
    core->shutdown = true;
    qatomic_set(&core->abort, 1);
    qemu_cond_broadcast(&core->cond);
    qemu_mutex_unlock(&s->core_lock);
    qemu_thread_join(&core->thread);
    mxa_lanes_fini(core);
    mxa_tma_fini(core);
    mxa_tile_fini(core);
    mxa_stage_fini(s, core->stage);
    qemu_cond_destroy(&core->cond);
}
