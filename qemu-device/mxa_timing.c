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
 * phase), never by host time, so a job's cycles are a function of its program and
 * sizes: the same at any host load, thread count or numerics mode (the math costs are
 * the model's, whatever the "cores" property, the engine's host threads, says).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mxa.h"

/*
 * The presets. "mxa" (the default): the engines' costs measured on an H200
 * (bench/h200/timing.csv: WGMMA busy N/2 + 4 and ready after N/2 + 123 cycles, the same
 * for every type; TMA 96 bytes a cycle and ready after max(784, 700 + bytes / 96)), the
 * command processor's nominal (one cycle for control, 16 for a memory round trip),
 * counted at 1000 MHz. "h200": the same at the H200's SM clock (1980 MHz) with the
 * mbarrier round trip it measured (arrive + wait: 51 cycles, 25 each).
 */
static const MxaTiming mxa_timing_presets[] = {
    {
        .name = "mxa", .cycle_mhz = 1000,
        .nop = 1, .reg = 1, .loop = 1, .group = 1, .timestamp = 8, .fence_write = 16,
        .sem = 16, .mbar = 2, .async_issue = 4, .mma = 8,
        .tile_setup = 16, .tile_bytes_per_cycle = 128, .cvt_setup = 8,
        .cvt_elems_per_cycle = 64,
        .gemm_macs_per_cycle = 2048, .gemm_base = 1, .tmm_macs_per_cycle = 8192,
        .tmm_base = 8,
        .copy_setup = 32, .copy_bytes_per_cycle = 64,
        .tma_bytes_per_cycle = 96, .tma_latency_base = 700, .tma_latency_min = 784,
        .wgmma_busy_base = 4, .wgmma_latency_base = 123,
    },
    {
        .name = "h200", .cycle_mhz = 1980,
        .nop = 1, .reg = 1, .loop = 1, .group = 1, .timestamp = 8, .fence_write = 16,
        .sem = 16, .mbar = 25, .async_issue = 4, .mma = 8,
        .tile_setup = 16, .tile_bytes_per_cycle = 128, .cvt_setup = 8,
        .cvt_elems_per_cycle = 64,
        .gemm_macs_per_cycle = 2048, .gemm_base = 1, .tmm_macs_per_cycle = 8192,
        .tmm_base = 8,
        .copy_setup = 32, .copy_bytes_per_cycle = 64,
        .tma_bytes_per_cycle = 96, .tma_latency_base = 700, .tma_latency_min = 784,
        .wgmma_busy_base = 4, .wgmma_latency_base = 123,
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

/*
 * What an asynchronous op costs its engine: *@busy cycles before the engine takes the
 * next op, its result *@latency cycles after it starts (>= busy).
 */
void mxa_timing_lane_op(const MxaState *s, const MxaAsyncOp *op, uint64_t *busy,
                        uint64_t *latency)
{
    const MxaTiming *t = s->timing;
    const struct mxa_isa_gemm *g;

    switch (MXA_CMD_OPCODE(op->header)) {
    case MXA_OP_COPY:
        *busy = t->copy_setup + op->len / t->copy_bytes_per_cycle;
        break;
    case MXA_OP_TMA_LOAD:
    case MXA_OP_TMA_STORE:
        *busy = 1 + op->len / t->tma_bytes_per_cycle;
        *latency = MAX(t->tma_latency_min, t->tma_latency_base + op->len / t->tma_bytes_per_cycle);
        return;
    case MXA_OP_WGMMA:
    case MXA_OP_WGMMA_DESC:  /* N = cmd[2] */
        *busy = op->cmd[2] / 2 + t->wgmma_busy_base;
        *latency = op->cmd[2] / 2 + t->wgmma_latency_base;
        return;
    case MXA_OP_GEMM:
        g = (const struct mxa_isa_gemm *)&op->cmd[1];
        *busy = mxa_timing_gemm(s, le32_to_cpu(g->m), le32_to_cpu(g->n), le32_to_cpu(g->k));
        break;
    default:
        *busy = 0;
        break;
    }
    *latency = *busy;
}
