/*
 * MXA command interpreter: runs one job's program (uapi/mxa_isa.h) on its queue thread.
 *
 * Every command is validated before it runs (length, flags, alignment, bounds); the first
 * failure stops the job and fills its error record with the command's offset and header.
 * The queue's abort flag (reset) is checked between commands.
 *
 * Cycle model (Documentation/device.rst): each command costs a fixed number of cycles.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/timer.h"
#include "mxa.h"
#include "trace.h"

enum {
    MXA_CYCLES_NOP = 1,
    MXA_CYCLES_FENCE_WRITE = 16,
    MXA_CYCLES_TIMESTAMP = 8,
};

int mxa_job_fail(MxaJob *job, uint32_t error, uint64_t addr, uint32_t info)
{
    if (!job->error) {
        job->error = error;
        job->err_offset = job->cur_offset;
        job->err_opcode = job->cur_header;
        job->err_addr = addr;
        job->err_info = info;
        trace_mxa_guest_err_job(job->q->index, job->desc.job_id, error, job->cur_offset);
    }
    return -1;
}

static uint64_t mxa_arg64(const uint32_t *cmd, unsigned i)
{
    return (uint64_t)cmd[i] | ((uint64_t)cmd[i + 1] << 32);
}

static int mxa_exec_write64(MxaJob *job, uint64_t va, uint64_t value)
{
    uint64_t le = cpu_to_le64(value);

    if (va % 8) {
        return mxa_job_fail(job, MXA_ERR_MISALIGNED, va, 8);
    }
    return mxa_va_write(job, va, &le, sizeof(le));
}

/* Run one command; returns 0 or -1 with the job's error set. */
static int mxa_exec_one(MxaJob *job, const uint32_t *cmd, uint32_t ndw)
{
    uint32_t op = MXA_CMD_OPCODE(cmd[0]);
    uint32_t flags = MXA_CMD_FLAGS(cmd[0]);

    switch (op) {
    case MXA_OP_NOP:
        if (ndw != MXA_NOP_DWORDS) {
            return mxa_job_fail(job, MXA_ERR_BAD_LENGTH, 0, ndw);
        }
        if (flags) {
            return mxa_job_fail(job, MXA_ERR_BAD_FLAGS, 0, flags);
        }
        job->cycles += MXA_CYCLES_NOP;
        return 0;
    case MXA_OP_FENCE_WRITE:
        if (ndw != MXA_FENCE_WRITE_DWORDS) {
            return mxa_job_fail(job, MXA_ERR_BAD_LENGTH, 0, ndw);
        }
        if (flags) {
            return mxa_job_fail(job, MXA_ERR_BAD_FLAGS, 0, flags);
        }
        /* all earlier commands are complete: the interpreter is in order for now */
        smp_mb();
        job->cycles += MXA_CYCLES_FENCE_WRITE;
        return mxa_exec_write64(job, mxa_arg64(cmd, 1), mxa_arg64(cmd, 3));
    case MXA_OP_TIMESTAMP:
        if (ndw != MXA_TIMESTAMP_DWORDS) {
            return mxa_job_fail(job, MXA_ERR_BAD_LENGTH, 0, ndw);
        }
        if (flags) {
            return mxa_job_fail(job, MXA_ERR_BAD_FLAGS, 0, flags);
        }
        job->cycles += MXA_CYCLES_TIMESTAMP;
        return mxa_exec_write64(job, mxa_arg64(cmd, 1), get_clock());
    case MXA_OP_GEMM:
        if (ndw != MXA_GEMM_DWORDS) {
            return mxa_job_fail(job, MXA_ERR_BAD_LENGTH, 0, ndw);
        }
        if (flags) {
            return mxa_job_fail(job, MXA_ERR_BAD_FLAGS, 0, flags);
        }
        return mxa_exec_gemm(job, &cmd[1]);
    default:
        return mxa_job_fail(job, MXA_ERR_UNKNOWN_OPCODE, 0, op);
    }
}

void mxa_exec_program(MxaJob *job, const uint32_t *prog, uint32_t ndwords)
{
    uint32_t pc = 0;

    while (pc < ndwords) {
        uint32_t ndw = MXA_CMD_DWORDS(prog[pc]);

        if (qatomic_read(&job->q->abort)) {
            return;
        }
        job->cur_offset = pc * 4;
        job->cur_header = prog[pc];
        if (ndw == 0) {
            mxa_job_fail(job, MXA_ERR_BAD_LENGTH, 0, 0);
            return;
        }
        if (ndw > ndwords - pc) {
            mxa_job_fail(job, MXA_ERR_TRUNCATED, 0, ndw);
            return;
        }
        if (mxa_exec_one(job, &prog[pc], ndw)) {
            return;
        }
        job->commands++;
        pc += ndw;
    }
}
