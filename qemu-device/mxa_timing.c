/*
 * MXA cycle model of the asynchronous engines (Documentation/device.rst, "Cycle
 * model"): what a copy, TMA, WGMMA or asynchronous GEMM costs, from its sizes alone.
 *
 * An op's cost is known when the command processor issues it, so its modelled
 * completion is too: max(the lane's modelled clock, the issue cycle) + cost. Waits move
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
    MXA_CYCLES_TMA_SETUP = 64,
    MXA_TMA_BYTES_PER_CYCLE = 64,
    MXA_CYCLES_WGMMA = 8,
    MXA_CYCLES_GEMM = 1,
};

/* A GEMM of @m x @n x @k on the device's engine cores. */
uint64_t mxa_timing_gemm(const MxaState *s, uint64_t m, uint64_t n, uint64_t k)
{
    return m * n * k / (MXA_MACS_PER_CYCLE_PER_CORE * MXA_MODEL_MATH_UNITS) + MXA_CYCLES_GEMM;
}

uint64_t mxa_timing_lane_op(const MxaState *s, const MxaAsyncOp *op)
{
    const struct mxa_isa_gemm *g;

    switch (MXA_CMD_OPCODE(op->header)) {
    case MXA_OP_COPY:
        return MXA_CYCLES_COPY_SETUP + op->len / MXA_COPY_BYTES_PER_CYCLE;
    case MXA_OP_TMA_LOAD:
    case MXA_OP_TMA_STORE:
        return MXA_CYCLES_TMA_SETUP + op->len / MXA_TMA_BYTES_PER_CYCLE;
    case MXA_OP_WGMMA:
    case MXA_OP_WGMMA_DESC:  /* M = 64, N = cmd[2], K = op->len elements */
        return (uint64_t)64 * op->cmd[2] * op->len /
               (MXA_MACS_PER_CYCLE_PER_CORE * MXA_MODEL_MATH_UNITS) + MXA_CYCLES_WGMMA;
    case MXA_OP_GEMM:
        g = (const struct mxa_isa_gemm *)&op->cmd[1];
        return mxa_timing_gemm(s, le32_to_cpu(g->m), le32_to_cpu(g->n), le32_to_cpu(g->k));
    default:
        return 0;
    }
}
