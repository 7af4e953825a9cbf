/*
 * MXA cycle model of the asynchronous engines (Documentation/device.rst, "Cycle
 * model"): what a copy, TMA, WGMMA or asynchronous GEMM costs, from its sizes alone.
 *
 * An op's cost is known when the command processor issues it, so its modelled
 * completion is too: it starts at max(the lane's modelled clock, the issue cycle),
 * keeps its engine busy for a while and delivers its result a latency after its start
 * (a pipelined WGMMA: the next one starts before this one's result is ready). Waits move
 * the command processor's clock to the modelled completion of what they wait for
 * (WAIT_GROUP: the group's last op; MBAR_WAIT: the last arrival or transaction of the
 * phase) and on by a wake-up time, never by host time, so a job's cycles are a function of its program and
 * sizes: the same at any host load, thread count or numerics mode (the math costs are
 * the model's, whatever the "engine-threads" property, the engine's host threads, says).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mxa.h"

/*
 * The presets. Both model the engines as an H200 SM measured them (bench/h200): a
 * WGMMA keeps the math engine busy N/2 + 4 cycles, for every type (timing.csv), and
 * its result is ready N/2 + 120 after its issue (wakeup.csv); a TMA box keeps the copy
 * engine 14 cycles and 0.91 a box row (fitted) and the path from memory a cycle per 95
 * bytes (timing.csv's bulk copies), and lands 174 cycles after both are through. Up to
 * 4 SMs streaming at once each keep the 95 bytes a cycle; 8 to 16 each get 84% of it
 * (contention.csv: 80.8 of 95.5 at 8 SMs, judged on 16: 80.1), so a grid of more than 4
 * instances on more than 4 cores loads at that share. "mxa" (the default) counts them
 * at 1000 MHz with a nominal command processor (one cycle for control, a few for an
 * issue or an mbarrier; a WGMMA's latency is 123, its whole issue-to-wait time on the
 * H200). "h200" counts them at the H200's SM clock (1980 MHz) with the command
 * processor an H200 warpgroup is. Measured (wakeup.csv): an mbarrier arrive 6 cycles and
 * a try_wait 45, blocked or not, and the wake-up after a WAIT_GROUP 5. Fitted
 * (bench/h200/fit-model.py, with the TMA, on 7 of the 11 shapes of pipeline.csv's GEMMs
 * and judged on the others: Documentation/device.rst): issuing a TMA 40, a WGMMA 4 (the
 * H200's chained wgmma issue, wakeup.csv), a commit or a wait 8, and a WAIT_GROUP that
 * leaves a group pending 150 more (a pipelined step releasing its stage: on the H200 a
 * barrier of the warpgroup, thread 0's refill and the stage's bookkeeping).
 */
/*
 * What both presets share: the control commands' nominal costs, the synchronous tile,
 * CVT and GEMM rates, and the engines (COPY nominal; TMA and WGMMA the H200's, fitted).
 */
#define MXA_TIMING_SHARED                                                        \
    .nop = 1, .reg = 1, .loop = 1, .timestamp = 8, .fence_write = 16, .sem = 16, \
    .mma = 8, .tile_setup = 16, .tile_bytes_per_cycle = 128, .cvt_setup = 8,     \
    .cvt_elems_per_cycle = 64, .gemm_macs_per_cycle = 2048, .gemm_base = 1,      \
    .tmm_macs_per_cycle = 8192, .tmm_base = 8,                                   \
    .copy_setup = 32, .copy_bytes_per_cycle = 64,                                \
    .tma_box_setup = 14, .tma_row_cycles_x100 = 91, .tma_bytes_per_cycle = 95,   \
    .tma_latency = 174, .tma_own_cores = 4, .tma_shared_pct = 84,                \
    .wgmma_busy_base = 4

/*
 * What differs: the clock, the command processor's issue, group and mbarrier costs, and
 * the WGMMA's latency (h200: N/2 + 120 and a wake-up of 5, as measured; mxa: the whole
 * N/2 + 123 from issue to the end of the wait, the wake-up free).
 */
static const MxaTiming mxa_timing_presets[] = {
    {
        .name = "mxa", .cycle_mhz = 1000, MXA_TIMING_SHARED,
        .group = 1, .group_wait = 0, .pending_wait = 0, .mbar = 2, .mbar_wait = 0,
        .async_issue = 4, .mma_issue = 4, .wgmma_latency_base = 123,
    },
    {
        .name = "h200", .cycle_mhz = 1980, MXA_TIMING_SHARED,
        .group = 8, .group_wait = 5, .pending_wait = 150, .mbar = 6, .mbar_wait = 45,
        .async_issue = 40, .mma_issue = 4, .wgmma_latency_base = 120,
    },
};

const MxaTiming *mxa_timing_preset(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(mxa_timing_presets); i++) {
        if (!strcmp(name ? name : "mxa", mxa_timing_presets[i].name)) {
            return &mxa_timing_presets[i];
        }
    }
    return NULL;
}

/* A GEMM of @m x @n x @k on the device's engine cores. */
uint64_t mxa_timing_gemm(const MxaState *s, uint64_t m, uint64_t n, uint64_t k)
{
    return m * n * k / s->timing->gemm_macs_per_cycle + s->timing->gemm_base;
}

/* What the command processor spends issuing an asynchronous command of @opcode. */
uint32_t mxa_timing_issue_cost(const MxaState *s, uint32_t opcode)
{
    return opcode == MXA_OP_WGMMA || opcode == MXA_OP_WGMMA_DESC ? s->timing->mma_issue :
                                                                  s->timing->async_issue;
}

/*
 * Time @op, issued at cycle @now, on @lane: its modelled start and completion, and
 * the lane's clocks. An op keeps its engine busy for a while and delivers its result a
 * latency after its start (a pipelined WGMMA: the next one starts before this one's
 * result is ready). A TMA box also needs the path from memory, which one box at a time
 * holds for its bytes: it lands when both are through, plus the latency.
 */
void mxa_timing_issue(const MxaState *s, MxaLane *lane, MxaAsyncOp *op, uint64_t now)
{
    const MxaTiming *t = s->timing;
    struct mxa_isa_gemm g;
    uint64_t busy, latency, rows = 1, path;

    op->start_cycle = MAX(lane->model_clock, now);
    switch (MXA_CMD_OPCODE(op->header)) {
    case MXA_OP_COPY:
        busy = t->copy_setup + op->len / t->copy_bytes_per_cycle;
        latency = busy;
        break;
    case MXA_OP_TMA_LOAD:
    case MXA_OP_TMA_STORE:
        for (unsigned d = 1; d < op->map.rank; d++) {
            rows *= op->map.box[d];
        }
        busy = t->tma_box_setup + rows * t->tma_row_cycles_x100 / 100;
        /* the path from memory: the core's own, or its share when more cores load */
        path = MAX(lane->model_fabric, op->start_cycle) +
               op->len * 100 / (t->tma_bytes_per_cycle *
                                (lane->model_loaders > t->tma_own_cores ? t->tma_shared_pct : 100));
        lane->model_fabric = path;
        latency = MAX(op->start_cycle + busy, path) - op->start_cycle + t->tma_latency;
        break;
    case MXA_OP_WGMMA:
    case MXA_OP_WGMMA_DESC:  /* N = cmd[2] */
        busy = op->cmd[2] / 2 + t->wgmma_busy_base;
        latency = op->cmd[2] / 2 + t->wgmma_latency_base;
        break;
    case MXA_OP_GEMM:
        /* cmd[1] is 4-byte aligned, the struct's 64-bit fields want 8: a copy */
        memcpy(&g, &op->cmd[1], sizeof(g));
        busy = mxa_timing_gemm(s, le32_to_cpu(g.m), le32_to_cpu(g.n), le32_to_cpu(g.k));
        latency = busy;
        break;
    default:
        busy = latency = 0;
        break;
    }
    op->done_cycle = op->start_cycle + latency;
    lane->model_busy += busy;
    lane->model_clock = op->start_cycle + busy;
    lane->model_done = MAX(lane->model_done, op->done_cycle);
}
