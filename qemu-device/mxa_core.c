/*
 * MXA cores: the device's command processors, each with its own SRAM, tile registers
 * and asynchronous engines (the "cores" property; Hopper's SMs).
 *
 * A core runs one instance (CTA) of a job's grid at a time. The queue thread that
 * launches the grid (mxa_queue.c) picks free cores under MxaState.core_lock, sets
 * core->launch and core->cta and signals the core; the core builds the instance's job,
 * runs the program, then reports to the launch (mxa_launch_instance_end) and frees
 * itself in one step. A queue reset sets the abort flag of every core running one of its instances.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "mxa.h"
#include "engine/mxe_engine.h"

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

/* Run one instance: bind its context, fetch and run the program, drain its engines. */
void mxa_core_run_instance(MxaJob *job)
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
    /* no asynchronous command outlives its instance, even through a reset */
    mxa_async_drain(job, false);
    g_free(prog);
}

static void *mxa_core_thread(void *opaque)
{
    MxaCore *core = opaque;
    MxaState *s = core->dev;

    /* a reset (core->abort) stops this thread's long math within one engine task */
    mxe_engine_cancel_on(&core->abort);
    qemu_mutex_lock(&s->core_lock);
    for (;;) {
        MxaLaunch *l;
        uint32_t cta;

        while (!core->shutdown && !core->pending) {
            qemu_cond_wait(&core->cond, &s->core_lock);
        }
        if (core->shutdown) {
            break;
        }
        core->pending = false;
        l = core->launch;
        cta = core->cta;
        qemu_mutex_unlock(&s->core_lock);

        {
            MxaJob job = { .q = l->q, .core = core, .desc = l->desc, .tlb = core->tlb,
                           .stage = core->stage, .dma_gen = &core->dma_gen };

            mxa_core_sregs(&job, l, cta);
            mxa_core_run_instance(&job);
            /*
             * The end and the core's release in one step under core_lock: a launcher
             * that sees the core free also sees the instance's error, and no core
             * points to a launch that has ended.
             */
            qemu_mutex_lock(&s->core_lock);
            mxa_launch_instance_end(l, &job, cta);
        }
        core->launch = NULL;
        qemu_cond_broadcast(&s->core_cond);
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
