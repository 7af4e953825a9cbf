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
 * sizes: the same at any host load, thread count or numerics mode. The modelled math
 * engine has MXA_MODEL_MATH_UNITS units whatever the "cores" property (the engine's
 * host threads) says.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mxa.h"

enum {
    MXA_CYCLES_COPY_SETUP = 32,
    MXA_COPY_BYTES_PER_CYCLE = 64,
    /*
     * TMA, measured on an H200 (bulk copies, bench/h200/timing.csv): 96 bytes a cycle
     * through the copy engine, the box in shared memory 700 + bytes / 96 cycles after
     * the start, never sooner than 784.
     */
    MXA_TMA_BYTES_PER_CYCLE = 96,
    MXA_TMA_LATENCY_BASE = 700,
    MXA_TMA_LATENCY_MIN = 784,
    MXA_CYCLES_GEMM = 1,
    /*
     * WGMMA, measured on an H200 (bench/h200/timing.csv): the same time for every type
     * at a given N (K is 32 bytes): the math engine is busy N/2 + 4 cycles and the
     * result is ready N/2 + 123 cycles after the start.
     */
    MXA_WGMMA_BUSY_BASE = 4,
    MXA_WGMMA_LATENCY_BASE = 123,
};

/* A GEMM of @m x @n x @k on the device's engine cores. */
uint64_t mxa_timing_gemm(const MxaState *s, uint64_t m, uint64_t n, uint64_t k)
{
    return m * n * k / (MXA_MACS_PER_CYCLE_PER_CORE * MXA_MODEL_MATH_UNITS) + MXA_CYCLES_GEMM;
}

/*
 * What an asynchronous op costs its engine: *@busy cycles before the engine takes the
 * next op, its result *@latency cycles after it starts (>= busy).
 */
void mxa_timing_lane_op(const MxaState *s, const MxaAsyncOp *op, uint64_t *busy,
                        uint64_t *latency)
{
    const struct mxa_isa_gemm *g;

    switch (MXA_CMD_OPCODE(op->header)) {
    case MXA_OP_COPY:
        *busy = MXA_CYCLES_COPY_SETUP + op->len / MXA_COPY_BYTES_PER_CYCLE;
        break;
    case MXA_OP_TMA_LOAD:
    case MXA_OP_TMA_STORE:
        *busy = 1 + op->len / MXA_TMA_BYTES_PER_CYCLE;
        *latency = MAX(MXA_TMA_LATENCY_MIN, MXA_TMA_LATENCY_BASE + op->len / MXA_TMA_BYTES_PER_CYCLE);
        return;
    case MXA_OP_WGMMA:
    case MXA_OP_WGMMA_DESC:  /* N = cmd[2] */
        *busy = op->cmd[2] / 2 + MXA_WGMMA_BUSY_BASE;
        *latency = op->cmd[2] / 2 + MXA_WGMMA_LATENCY_BASE;
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
