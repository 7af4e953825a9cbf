/*
 * MXA execution timeline: with -device mxa,timeline=<path> the device writes what its
 * queues do as Chrome / Perfetto trace JSON (the "JSON array format", open it in
 * ui.perfetto.dev or chrome://tracing).
 *
 * Two processes per queue, each with a thread for the queue's jobs and three for each
 * core (the instances of the queue's jobs that ran there): its command processor (the
 * commands that take time there: waits, synchronous math, tile moves), its math engine
 * (WGMMA, asynchronous GEMM) and its copy engine (COPY, TMA). "mxa queue N" has
 * host time (CLOCK_MONOTONIC, microseconds since the device was realized); "mxa queue
 * N (modelled)" (pid MXA_TIMELINE_MODEL_PID + N) the same spans in the cycle model's
 * time (mxa_timing.c: cycles at cycle-mhz, each job from its host start), where the
 * overlap of copies and math is the program's, not the host's; a grid's instances on
 * the cores and at the cycles where the model's schedule put them (mxa_queue.c), which
 * may not be the cores the host ran them on. Every span is a complete
 * event ("ph": "X"); args name the job, the command's program offset and its cycles.
 *
 * Queue and lane threads write under timeline_lock; the file is flushed when a job ends
 * and completed (closing bracket) when QEMU exits or the device goes away.
 * The guest chooses how much happens, so the file stops growing after
 * MXA_TIMELINE_MAX_EVENTS events (a last event says so).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "system/system.h"
#include "mxa.h"

#define MXA_TIMELINE_MAX_EVENTS (1u << 20)

static void mxa_timeline_exit(Notifier *n, void *data);

bool mxa_timeline_open(MxaState *s, Error **errp)
{
    static const char *const engines[] = { "command processor", "math engine",
                                           "copy engine" };

    if (!s->timeline_path || !*s->timeline_path) {
        return true;
    }
    s->timeline = fopen(s->timeline_path, "w");
    if (!s->timeline) {
        error_setg_errno(errp, errno, "mxa: cannot write timeline '%s'", s->timeline_path);
        return false;
    }
    qemu_mutex_init(&s->timeline_lock);
    s->timeline_exit.notify = mxa_timeline_exit;
    qemu_add_exit_notifier(&s->timeline_exit);
    s->timeline_opened = true;
    s->timeline_t0 = get_clock();
    fprintf(s->timeline, "[\n");
    /* what the modelled tracks count in */
    fprintf(s->timeline, "{\"name\":\"cycle model\",\"ph\":\"i\",\"s\":\"g\",\"pid\":%u,"
            "\"tid\":0,\"ts\":0,\"args\":{\"timing\":\"%s\",\"cycle_mhz\":%u}},\n",
            MXA_TIMELINE_MODEL_PID, s->timing->name, s->cycle_mhz);
    for (unsigned q = 0; q < s->num_queues; q++) {
        for (unsigned model = 0; model < 2; model++) {
            unsigned pid = q + (model ? MXA_TIMELINE_MODEL_PID : 0);

            fprintf(s->timeline, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,"
                    "\"args\":{\"name\":\"mxa queue %u%s\"}},\n", pid, q,
                    model ? " (modelled)" : "");
            fprintf(s->timeline, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,"
                    "\"tid\":%u,\"args\":{\"name\":\"jobs\"}},\n", pid, MXA_TIMELINE_JOBS);
            for (unsigned c = 0; c < s->num_cores; c++) {
                for (unsigned t = 0; t < ARRAY_SIZE(engines); t++) {
                    fprintf(s->timeline, "{\"name\":\"thread_name\",\"ph\":\"M\","
                            "\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"core %u %s\"}},\n",
                            pid, MXA_TIMELINE_TID(c, t), c, engines[t]);
                }
            }
        }
    }
    fflush(s->timeline);
    return true;
}

/* Complete the JSON and close the file; queue threads may still be running. */
static void mxa_timeline_finish(MxaState *s)
{
    qemu_mutex_lock(&s->timeline_lock);
    if (s->timeline) {
        fprintf(s->timeline, "{\"name\":\"end\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,"
                "\"tid\":0,\"ts\":%.3f}\n]\n", (get_clock() - s->timeline_t0) / 1000.0);
        fclose(s->timeline);
        qatomic_set(&s->timeline, NULL);
    }
    qemu_mutex_unlock(&s->timeline_lock);
}

static void mxa_timeline_exit(Notifier *n, void *data)
{
    mxa_timeline_finish(container_of(n, MxaState, timeline_exit));
}

/* The device goes away: its queue threads have stopped. */
void mxa_timeline_close(MxaState *s)
{
    if (!s->timeline_opened) {
        return;
    }
    qemu_remove_exit_notifier(&s->timeline_exit);
    mxa_timeline_finish(s);
    qemu_mutex_destroy(&s->timeline_lock);
    s->timeline_opened = false;
}

/* A modelled span of a grid's instance, kept until the launch has placed it. */
typedef struct MxaTimelineSpan {
    const char *name;           /* a mnemonic: static */
    uint64_t job, model_start, model_end;
    uint32_t cta, offset, error;
    uint8_t core, engine;       /* where the host ran it */
} MxaTimelineSpan;

/* One complete event; the caller holds timeline_lock and has counted it. */
static void mxa_timeline_event(MxaState *s, unsigned pid, unsigned tid, const char *name,
                               double ts, double dur, uint64_t job, uint32_t offset,
                               uint32_t error, uint64_t cycles)
{
    fprintf(s->timeline, "{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,"
            "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"job\":%" PRIu64 ",\"offset\":%u,"
            "\"error\":%u,\"cycles\":%" PRIu64 "}},\n", name, pid, tid, ts, dur, job, offset,
            error, cycles);
}

/*
 * Take timeline_lock for one more span: true with the lock held when it may be written
 * (false, and no lock held, when the file is closed or full).
 */
static bool mxa_timeline_begin(MxaState *s, unsigned q, unsigned tid, int64_t start_ns)
{
    if (!qatomic_read(&s->timeline)) {
        return false;
    }
    qemu_mutex_lock(&s->timeline_lock);
    if (s->timeline && s->timeline_events < MXA_TIMELINE_MAX_EVENTS) {
        s->timeline_events++;
        return true;
    }
    if (s->timeline && s->timeline_events++ == MXA_TIMELINE_MAX_EVENTS) {
        fprintf(s->timeline, "{\"name\":\"timeline full: later events dropped\","
                "\"ph\":\"i\",\"s\":\"g\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f},\n",
                q, tid, (start_ns - s->timeline_t0) / 1000.0);
    }
    qemu_mutex_unlock(&s->timeline_lock);
    return false;
}

/*
 * The modelled event of a span of queue @q's job: from the job's host start, @at + its
 * cycles at the model's clock. The caller holds timeline_lock and has counted it.
 */
static void mxa_timeline_model_event(MxaState *s, unsigned q, unsigned tid, const char *name,
                                     uint64_t at, uint64_t model_start, uint64_t model_end,
                                     uint64_t job, uint32_t offset, uint32_t error)
{
    uint64_t cycles = model_end - MIN(model_start, model_end);
    double job_us = (qatomic_read(&s->queues[q].timeline_job_ns) - s->timeline_t0) / 1000.0;

    mxa_timeline_event(s, q + MXA_TIMELINE_MODEL_PID, tid, name,
                       job_us + (at + model_start) / (double)s->cycle_mhz,
                       cycles / (double)s->cycle_mhz, job, offset, error, cycles);
}

/*
 * A moment on queue @q's jobs track in host time only (the model has no doorbells or
 * interrupts): "doorbell" when the guest moved TAIL (@value: the new TAIL), "interrupt"
 * when the device sent the queue's MSI-X message (@value: the jobs it had completed).
 * Between them and the jobs' spans a reader sees where a job's round trip goes: from
 * the doorbell to the job's start the queue's thread waking, from its end to the
 * interrupt the completion, from the interrupt to the next doorbell the guest.
 */
void mxa_timeline_instant(MxaState *s, unsigned q, const char *name, int64_t ns,
                          uint32_t value)
{
    if (!mxa_timeline_begin(s, q, MXA_TIMELINE_JOBS, ns)) {
        return;
    }
    fprintf(s->timeline, "{\"name\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,"
            "\"tid\":%u,\"ts\":%.3f,\"args\":{\"value\":%u}},\n", name, q,
            MXA_TIMELINE_JOBS, (ns - s->timeline_t0) / 1000.0, value);
    qemu_mutex_unlock(&s->timeline_lock);
}

/* The host-time event of a span, and its modelled one unless @model is false. */
static void mxa_timeline_write(MxaState *s, unsigned q, unsigned tid, const char *name,
                               int64_t start_ns, int64_t end_ns, uint64_t job,
                               uint32_t offset, uint32_t error, uint64_t model_start,
                               uint64_t model_end, bool model)
{
    if (!mxa_timeline_begin(s, q, tid, start_ns)) {
        return;
    }
    mxa_timeline_event(s, q, tid, name, (start_ns - s->timeline_t0) / 1000.0,
                       MAX(end_ns - start_ns, 0) / 1000.0, job, offset, error,
                       model_end - MIN(model_start, model_end));
    if (model) {
        mxa_timeline_model_event(s, q, tid, name, 0, model_start, model_end, job, offset,
                                 error);
    }
    qemu_mutex_unlock(&s->timeline_lock);
}

void mxa_timeline_span(MxaState *s, unsigned q, unsigned tid, const char *name,
                       int64_t start_ns, int64_t end_ns, uint64_t job, uint32_t offset,
                       uint32_t error, uint64_t model_start, uint64_t model_end)
{
    mxa_timeline_write(s, q, tid, name, start_ns, end_ns, job, offset, error, model_start,
                       model_end, true);
}

void mxa_timeline_core_span(MxaCore *core, unsigned engine, const char *name,
                            int64_t start_ns, int64_t end_ns, uint64_t job, uint32_t offset,
                            uint32_t error, uint64_t model_start, uint64_t model_end)
{
    MxaLaunch *l = core->launch;
    bool grid;

    if (!qatomic_read(&core->dev->timeline)) {
        return;
    }
    grid = l->count > 1;
    mxa_timeline_write(core->dev, l->q->index, MXA_TIMELINE_TID(core->index, engine), name,
                       start_ns, end_ns, job, offset, error, model_start, model_end, !grid);
    if (grid) {
        /* an instance counts from its own start: the launch places it (a bounded list) */
        MxaTimelineSpan span = {
            .name = name, .job = job, .model_start = model_start, .model_end = model_end,
            .cta = core->cta, .offset = offset, .error = error, .core = core->index,
            .engine = engine,
        };

        qemu_mutex_lock(&l->lock);
        if (!l->timeline) {
            l->timeline = g_array_new(false, false, sizeof(MxaTimelineSpan));
        }
        if (l->timeline->len < MXA_TIMELINE_MAX_EVENTS) {
            g_array_append_val(l->timeline, span);
        }
        qemu_mutex_unlock(&l->lock);
    }
}

void mxa_timeline_launch_end(MxaLaunch *l, const uint64_t *start, const unsigned *core)
{
    MxaState *s = l->q->dev;
    unsigned q = l->q->index;

    if (!l->timeline) {
        return;
    }
    for (unsigned i = 0; i < l->timeline->len; i++) {
        const MxaTimelineSpan *sp = &g_array_index(l->timeline, MxaTimelineSpan, i);
        /* where the model ran the instance (where the host did if it has no schedule) */
        uint64_t at = start ? start[sp->cta] : 0;
        unsigned tid = MXA_TIMELINE_TID(core ? core[sp->cta] : sp->core, sp->engine);

        if (!mxa_timeline_begin(s, q, tid, get_clock())) {
            continue;
        }
        mxa_timeline_model_event(s, q, tid, sp->name, at, sp->model_start, sp->model_end,
                                 sp->job, sp->offset, sp->error);
        qemu_mutex_unlock(&s->timeline_lock);
    }
    g_array_free(l->timeline, true);
    l->timeline = NULL;
}

void mxa_timeline_flush(MxaState *s)
{
    if (qatomic_read(&s->timeline)) {
        qemu_mutex_lock(&s->timeline_lock);
        if (s->timeline) {
            fflush(s->timeline);
        }
        qemu_mutex_unlock(&s->timeline_lock);
    }
}
