/*
 * MXA command interpreter: runs one job's program (uapi/mxa_isa.h) on its queue thread.
 *
 * Every command is validated before it runs: its opcode, length and header flags against
 * the ISA table (uapi/mxa_isa_table.h, held by this file), then its operands (alignment,
 * bounds, registers) by the command itself; the first
 * failure stops the job and fills its error record with the command's offset and header.
 * The queue's abort flag (reset) is checked between commands and inside every wait.
 *
 * Control flow: 32 scalar registers (R0 = 0), LOOP/ENDLOOP nested up to
 * MXA_LOOP_MAX_DEPTH deep, and a budget of MXA_JOB_CMD_BUDGET executed commands per job
 * so that no program runs forever. Asynchronous commands (COPY, GEMM with
 * MXA_CMD_F_ASYNC) go to the queue's lanes (mxa_async.c); WAIT_GROUP, FENCE_WRITE,
 * SEM_SIGNAL and SEM_WAIT's polling are the only points where the interpreter blocks.
 *
 * Cycle model (Documentation/device.rst): each command costs a fixed number of cycles.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/timer.h"
#include "qemu/bswap.h"
#include "mxa.h"
#define MXA_ISA_TABLE_DEFINE
#include "uapi/mxa_isa_table.h"
#include "trace.h"

enum {
    MXA_SEM_POLL_MAX_US = 1000,
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

/* TIMESTAMP.MODEL: the cycle model's view so far, at no modelled cost. */
static int mxa_exec_timestamp_model(MxaJob *job, uint64_t va)
{
    struct mxa_timestamp_model t = {
        .ns = cpu_to_le64(get_clock()), .cycles = cpu_to_le64(job->cycles),
    };

    if (va % 8) {
        return mxa_job_fail(job, MXA_ERR_MISALIGNED, va, 8);
    }
    for (unsigned i = 0; i < MXA_GROUP_CLASSES; i++) {
        t.busy[i] = cpu_to_le64(job->core->lanes[i].model_busy); /* this thread's issues */
    }
    return mxa_va_write(job, va, &t, sizeof(t));
}

/* The header checks every command shares: a known opcode, its length, its flags. */
static int mxa_check_header(MxaJob *job, const struct mxa_isa_cmd *d, uint32_t op,
                            uint32_t ndw, uint32_t flags)
{
    if (!d) {
        return mxa_job_fail(job, MXA_ERR_UNKNOWN_OPCODE, 0, op);
    }
    if (ndw != d->dwords) {
        return mxa_job_fail(job, MXA_ERR_BAD_LENGTH, 0, ndw);
    }
    if (!(d->attrs & MXA_ISA_A_CLASS) && (flags & ~(uint32_t)d->flags)) {
        return mxa_job_fail(job, MXA_ERR_BAD_FLAGS, 0, flags);
    }
    return 0;
}

/* One register operand (a whole dword): MXA_ERR_BAD_REGISTER with its number. */
static int mxa_check_reg(MxaJob *job, uint32_t r)
{
    if (r >= MXA_NUM_REGS) {
        return mxa_job_fail(job, MXA_ERR_BAD_REGISTER, 0, r);
    }
    return 0;
}

/*
 * A register triple (MXA_REGS3) of any command: each register must exist
 * (MXA_ERR_BAD_REGISTER, info: the first bad number) and bits 31:24 must be zero
 * (MXA_ERR_BAD_OPERAND, info: the dword).
 */
int mxa_job_check_regs3(MxaJob *job, uint32_t regs)
{
    if (mxa_check_reg(job, MXA_REG_A(regs)) || mxa_check_reg(job, MXA_REG_B(regs)) ||
        mxa_check_reg(job, MXA_REG_C(regs))) {
        return -1;
    }
    if (regs >> 24) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, regs);
    }
    return 0;
}

/* R[r]: R0 and numbers past the last register read as zero. */
uint64_t mxa_job_reg(MxaJob *job, uint32_t r)
{
    return r && r < MXA_NUM_REGS ? job->regs[r] : 0;
}

static void mxa_reg_write(MxaJob *job, uint32_t r, uint64_t value)
{
    if (r) {
        job->regs[r] = value;
    }
}

static int mxa_exec_read64(MxaJob *job, uint64_t va, uint64_t *value)
{
    uint64_t le;

    if (va % 8) {
        return mxa_job_fail(job, MXA_ERR_MISALIGNED, va, 8);
    }
    if (mxa_va_read(job, va, &le, sizeof(le))) {
        return -1;
    }
    *value = le64_to_cpu(le);
    return 0;
}

/* The dword index after the ENDLOOP matching the LOOP whose body starts at @pc. */
static int mxa_skip_loop(MxaJob *job, const uint32_t *prog, uint32_t ndwords, uint32_t pc,
                         uint32_t *next)
{
    unsigned depth = 1;

    while (pc < ndwords) {
        uint32_t ndw = MXA_CMD_DWORDS(prog[pc]);
        uint32_t op = MXA_CMD_OPCODE(prog[pc]);

        if (ndw == 0 || ndw > ndwords - pc) {
            break;
        }
        pc += ndw;
        if (op == MXA_OP_LOOP) {
            depth++;
        } else if (op == MXA_OP_ENDLOOP && --depth == 0) {
            *next = pc;
            return 0;
        }
    }
    return mxa_job_fail(job, MXA_ERR_LOOP_NESTING, 0, 0);
}

static int mxa_exec_sem_wait(MxaJob *job, const uint32_t *cmd)
{
    uint64_t va = mxa_arg64(cmd, 1), want = mxa_arg64(cmd, 3);
    uint32_t timeout_us = cmd[5] ? cmd[5] : MXA_SEM_DEFAULT_TIMEOUT_US;
    int64_t start = get_clock(), now;
    unsigned sleep_us = 1;
    uint64_t value;

    if (timeout_us > MXA_SEM_MAX_TIMEOUT_US) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, va, timeout_us);
    }
    for (;;) {
        if (mxa_exec_read64(job, va, &value)) {
            return -1;
        }
        if (value >= want) {
            break;
        }
        if (qatomic_read(&job->core->abort)) {
            return -1;
        }
        now = get_clock();
        if (now - start >= (int64_t)timeout_us * 1000) {
            trace_mxa_guest_err_sem_timeout(job->q->index, va, value, want);
            return mxa_job_fail(job, MXA_ERR_SEM_TIMEOUT, va, timeout_us);
        }
        g_usleep(sleep_us);
        sleep_us = MIN(sleep_us * 2, MXA_SEM_POLL_MAX_US);
    }
    smp_mb();   /* what the signaller wrote before the semaphore is visible now */
    /* the signal comes from another queue, whose clock is not this one's: a fixed cost */
    job->cycles += job->q->dev->timing->sem;
    return 0;
}

static int mxa_exec_sem_signal(MxaJob *job, const uint32_t *cmd, uint32_t flags)
{
    MxaState *s = job->q->dev;
    uint64_t va = mxa_arg64(cmd, 1), value = mxa_arg64(cmd, 3), old;
    int ret;

    if (va % 8) {
        return mxa_job_fail(job, MXA_ERR_MISALIGNED, va, 8);
    }
    if (mxa_async_drain(job, true)) {
        return -1;
    }
    smp_mb();
    job->cycles += job->q->dev->timing->sem;
    if (!(flags & MXA_SEM_F_ADD)) {
        return mxa_exec_write64(job, va, value);
    }
    qemu_mutex_lock(&s->sem_lock);
    ret = mxa_exec_read64(job, va, &old);
    if (!ret) {
        ret = mxa_exec_write64(job, va, old + value);
    }
    qemu_mutex_unlock(&s->sem_lock);
    return ret;
}

static int mxa_exec_copy(MxaJob *job, const uint32_t *cmd)
{
    uint32_t regs = cmd[6];
    MxaAsyncOp *op;
    uint64_t len;

    if (mxa_job_check_regs3(job, regs)) {
        return -1;
    }
    len = cmd[5] + mxa_job_reg(job, MXA_REG_C(regs));
    if (len < cmd[5] || len > MXA_COPY_MAX_BYTES) {
        return mxa_job_fail(job, MXA_ERR_TOO_LARGE, 0, 0);
    }
    op = g_new0(MxaAsyncOp, 1);
    op->src = mxa_arg64(cmd, 1) + mxa_job_reg(job, MXA_REG_A(regs));
    op->dst = mxa_arg64(cmd, 3) + mxa_job_reg(job, MXA_REG_B(regs));
    op->len = len;
    return mxa_async_issue(job, MXA_GROUP_COPY, op);
}

/*
 * GEMM with MXA_CMD_F_GEMM_REGS: add the registers to the operand addresses of @cmd
 * (a copy of the command) and clear the flag and the register fields.
 */
static int mxa_gemm_regs(MxaJob *job, uint32_t *cmd)
{
    struct mxa_isa_gemm g;
    uint32_t r0, r1;

    memcpy(&g, &cmd[1], sizeof(g));
    r0 = le32_to_cpu(g.reserved[0]);
    r1 = le32_to_cpu(g.reserved[1]);
    if (mxa_job_check_regs3(job, r0) || mxa_job_check_regs3(job, r1)) {
        return -1;
    }
    if ((r0 | r1) >> 24) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, (r0 | r1));
    }
    g.a = cpu_to_le64(le64_to_cpu(g.a) + mxa_job_reg(job, MXA_REG_A(r0)));
    g.b = cpu_to_le64(le64_to_cpu(g.b) + mxa_job_reg(job, MXA_REG_B(r0)));
    g.c = cpu_to_le64(le64_to_cpu(g.c) + mxa_job_reg(job, MXA_REG_C(r0)));
    g.d = cpu_to_le64(le64_to_cpu(g.d) + mxa_job_reg(job, MXA_REG_A(r1)));
    g.scale_a = cpu_to_le64(le64_to_cpu(g.scale_a) + mxa_job_reg(job, MXA_REG_B(r1)));
    g.scale_b = cpu_to_le64(le64_to_cpu(g.scale_b) + mxa_job_reg(job, MXA_REG_C(r1)));
    g.reserved[0] = g.reserved[1] = 0;
    memcpy(&cmd[1], &g, sizeof(g));
    cmd[0] &= ~MXA_CMD_HEADER(0, 0, MXA_CMD_F_GEMM_REGS);
    return 0;
}

/*
 * Run one command (@d: its table entry, NULL for an unknown opcode); returns 0 or -1
 * with the job's error set (or the abort flag).
 * *next is the dword index of the next command (pc + ndw unless the command jumps).
 */
static int mxa_exec_one(MxaJob *job, const struct mxa_isa_cmd *d, const uint32_t *prog,
                        uint32_t ndwords, uint32_t pc, uint32_t *next)
{
    const uint32_t *cmd = &prog[pc];
    uint32_t ndw = MXA_CMD_DWORDS(cmd[0]);
    uint32_t op = MXA_CMD_OPCODE(cmd[0]);
    uint32_t flags = MXA_CMD_FLAGS(cmd[0]);
    uint32_t gemm[MXA_GEMM_DWORDS];
    uint64_t value, va;
    int ret;

    *next = pc + ndw;
    if (!d || (d->attrs & MXA_ISA_A_SRAM)) {
        job->core->sram_dirty = true;  /* the next job starts with SRAM zeroed */
    }
    if (mxa_check_header(job, d, op, ndw, flags) || mxa_block_check(job, d)) {
        return -1;
    }
    switch (op) {
    case MXA_OP_NOP:
        job->cycles += job->q->dev->timing->nop;
        return 0;
    case MXA_OP_FENCE_WRITE:
        /* every earlier command, asynchronous ones included, is complete */
        if (mxa_async_drain(job, true)) {
            return -1;
        }
        smp_mb();
        job->cycles += job->q->dev->timing->fence_write;
        return mxa_exec_write64(job, mxa_arg64(cmd, 1), mxa_arg64(cmd, 3));
    case MXA_OP_TIMESTAMP:
        if (mxa_check_reg(job, cmd[0] >> MXA_TIMESTAMP_REG_SHIFT)) {
            return -1;
        }
        va = mxa_arg64(cmd, 1) + mxa_job_reg(job, cmd[0] >> MXA_TIMESTAMP_REG_SHIFT);
        if (flags & MXA_TIMESTAMP_F_MODEL) {
            return mxa_exec_timestamp_model(job, va);
        }
        job->cycles += job->q->dev->timing->timestamp;
        return mxa_exec_write64(job, va, get_clock());
    case MXA_OP_REG_SET:
        if (mxa_check_reg(job, cmd[1])) {
            return -1;
        }
        mxa_reg_write(job, cmd[1], mxa_arg64(cmd, 2));
        job->cycles += job->q->dev->timing->reg;
        return 0;
    case MXA_OP_REG_ADD:
        if (mxa_job_check_regs3(job, cmd[1])) {
            return -1;
        }
        mxa_reg_write(job, MXA_REG_A(cmd[1]), mxa_job_reg(job, MXA_REG_B(cmd[1])) +
                      mxa_job_reg(job, MXA_REG_C(cmd[1])) + mxa_arg64(cmd, 2));
        job->cycles += job->q->dev->timing->reg;
        return 0;
    case MXA_OP_REG_CTA:
        if (mxa_check_reg(job, MXA_REG_A(cmd[1]))) {
            return -1;
        }
        if (MXA_REG_B(cmd[1]) >= MXA_SREG_COUNT || cmd[1] >> 16) {
            return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, MXA_REG_B(cmd[1]));
        }
        mxa_reg_write(job, MXA_REG_A(cmd[1]),
                      (uint64_t)job->sreg[MXA_REG_B(cmd[1])] * cmd[2]);
        job->cycles += job->q->dev->timing->reg;
        return 0;
    case MXA_OP_CLUSTER_ARRIVE:
        return mxa_cluster_arrive(job);
    case MXA_OP_CLUSTER_WAIT:
        return mxa_cluster_wait(job);
    case MXA_OP_REG_LOAD:
        if (mxa_check_reg(job, cmd[1]) ||
            mxa_exec_read64(job, mxa_arg64(cmd, 2), &value)) {
            return -1;
        }
        mxa_reg_write(job, cmd[1], value);
        job->cycles += job->q->dev->timing->fence_write;
        return 0;
    case MXA_OP_REG_STORE:
        if (mxa_check_reg(job, cmd[1])) {
            return -1;
        }
        job->cycles += job->q->dev->timing->fence_write;
        return mxa_exec_write64(job, mxa_arg64(cmd, 2), mxa_job_reg(job, cmd[1]));
    case MXA_OP_LOOP:
        if (mxa_check_reg(job, cmd[2])) {
            return -1;
        }
        job->cycles += job->q->dev->timing->loop;
        value = (uint64_t)cmd[1] + mxa_job_reg(job, cmd[2]);
        if (value < cmd[1]) {
            value = UINT64_MAX;     /* the budget stops it */
        }
        if (value == 0) {
            return mxa_skip_loop(job, prog, ndwords, *next, next);
        }
        if (job->loop_depth >= MXA_LOOP_MAX_DEPTH) {
            return mxa_job_fail(job, MXA_ERR_LOOP_NESTING, 0, job->loop_depth);
        }
        job->loops[job->loop_depth++] = (MxaLoop){ .body = *next, .remaining = value - 1 };
        return 0;
    case MXA_OP_ENDLOOP:
        if (!job->loop_depth) {
            return mxa_job_fail(job, MXA_ERR_LOOP_NESTING, 0, 0);
        }
        job->cycles += job->q->dev->timing->loop;
        if (job->loops[job->loop_depth - 1].remaining) {
            job->loops[job->loop_depth - 1].remaining--;
            *next = job->loops[job->loop_depth - 1].body;
        } else {
            job->loop_depth--;
        }
        return 0;
    case MXA_OP_SEM_WAIT:
        return mxa_exec_sem_wait(job, cmd);
    case MXA_OP_SEM_SIGNAL:
        return mxa_exec_sem_signal(job, cmd, flags);
    case MXA_OP_COMMIT_GROUP:
        if (flags >= MXA_GROUP_CLASSES) {
            return mxa_job_fail(job, MXA_ERR_BAD_CLASS, 0, flags);
        }
        job->cycles += job->q->dev->timing->group;
        return mxa_async_commit(job, flags);
    case MXA_OP_WAIT_GROUP:
        if (flags >= MXA_GROUP_CLASSES) {
            return mxa_job_fail(job, MXA_ERR_BAD_CLASS, 0, flags);
        }
        job->cycles += job->q->dev->timing->group;
        ret = mxa_async_wait_group(job, flags, cmd[1]);
        if (!ret) {
            job->cycles += job->q->dev->timing->group_wait;  /* the wake-up */
            if (cmd[1]) {
                job->cycles += job->q->dev->timing->pending_wait;
            }
        }
        return ret;
    case MXA_OP_FENCE:
        trace_mxa_fence(job->q->index, job->cur_offset);
        job->cycles += job->q->dev->timing->group;
        return 0;
    case MXA_OP_COPY:
        return mxa_exec_copy(job, cmd);
    case MXA_OP_TMA_LOAD:
    case MXA_OP_TMA_STORE:
        return mxa_exec_tma(job, cmd, op == MXA_OP_TMA_LOAD);
    case MXA_OP_MBAR_INIT:
    case MXA_OP_MBAR_ARRIVE:
    case MXA_OP_MBAR_EXPECT_TX:
    case MXA_OP_MBAR_COMPLETE_TX:
    case MXA_OP_MBAR_WAIT:
        return mxa_exec_mbar(job, cmd);
    case MXA_OP_WGMMA:
        return mxa_exec_wgmma(job, cmd);
    case MXA_OP_WGMMA_DESC:
        return mxa_exec_wgmma_desc(job, cmd);
    case MXA_OP_BSTART_CUBE:
    case MXA_OP_B_DATR:
    case MXA_OP_B_DIM:
    case MXA_OP_B_IOT:
        return mxa_exec_block(job, cmd);
    case MXA_OP_TILE_LOAD:
    case MXA_OP_TILE_STORE:
        return mxa_exec_tile(job, cmd, op == MXA_OP_TILE_LOAD);
    case MXA_OP_TMATMULMX:
        return mxa_exec_tmatmulmx(job, cmd);
    case MXA_OP_MMA:
        return mxa_exec_mma(job, cmd);
    case MXA_OP_CVT:
        return mxa_exec_cvt(job, cmd);
    case MXA_OP_GEMM:
        memcpy(gemm, cmd, sizeof(gemm));
        if ((flags & MXA_CMD_F_GEMM_REGS) && mxa_gemm_regs(job, gemm)) {
            return -1;
        }
        if (flags & MXA_CMD_F_ASYNC) {
            MxaAsyncOp *aop = g_new0(MxaAsyncOp, 1);

            memcpy(aop->cmd, gemm, sizeof(gemm));
            return mxa_async_issue(job, MXA_GROUP_MMA, aop);
        }
        return mxa_exec_gemm(job, &gemm[1]);
    default:    /* in the table but not run by this device: a defect, not the guest's */
        return mxa_job_fail(job, MXA_ERR_UNKNOWN_OPCODE, 0, op);
    }
}

/*
 * A program the doorbell may run itself (mxa_queue.c): every command quick (ISA table:
 * a few cycles, no memory wait) but a LOOP, which repeats commands, or a FENCE_WRITE,
 * which drains nothing where no command started an engine. So at most @ndwords
 * commands, none of which waits. A malformed header says no: the queue thread runs the
 * program and reports it.
 */
bool mxa_prog_is_control(const uint32_t *prog, uint32_t ndwords)
{
    for (uint32_t pc = 0; pc < ndwords;) {
        uint32_t ndw = MXA_CMD_DWORDS(prog[pc]), op = MXA_CMD_OPCODE(prog[pc]);
        const struct mxa_isa_cmd *d = mxa_isa_lookup(op);

        if (!d || ndw == 0 || ndw > ndwords - pc || op == MXA_OP_LOOP ||
            (!(d->attrs & MXA_ISA_A_QUICK) && op != MXA_OP_FENCE_WRITE)) {
            return false;
        }
        pc += ndw;
    }
    return true;
}

void mxa_exec_program(MxaJob *job, const uint32_t *prog, uint32_t ndwords)
{
    MxaState *s = job->q->dev;
    const struct mxa_isa_cmd *d;
    uint32_t pc = 0, next;

    while (pc < ndwords) {
        uint32_t ndw = MXA_CMD_DWORDS(prog[pc]);

        if (qatomic_read(&job->core->abort)) {
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
        if (job->commands >= MXA_JOB_CMD_BUDGET) {
            mxa_job_fail(job, MXA_ERR_LOOP_BUDGET, 0, MXA_JOB_CMD_BUDGET);
            return;
        }
        d = mxa_isa_lookup(MXA_CMD_OPCODE(prog[pc]));
        /* commands that hold the command processor are spans of the timeline */
        if (qatomic_read(&s->timeline) && d && (d->attrs & MXA_ISA_A_BLOCKING)) {
            int64_t start = get_clock();
            uint64_t cycles = job->cycles;
            int ret = mxa_exec_one(job, d, prog, ndwords, pc, &next);

            mxa_timeline_core_span(job->core, MXA_TIMELINE_CP, mxa_isa_mnemonic(d->opcode),
                                   start, get_clock(), job->desc.job_id, pc * 4, job->error,
                                   cycles, job->cycles);
            if (ret) {
                return;
            }
        } else if (mxa_exec_one(job, d, prog, ndwords, pc, &next)) {
            return;
        }
        job->commands++;
        pc = next;
    }
    if (mxa_block_end(job, prog)) {
        return;
    }
    if (job->loop_depth) {
        /* the program ends inside a loop: blame the innermost LOOP */
        job->cur_offset = (job->loops[job->loop_depth - 1].body - MXA_LOOP_DWORDS) * 4;
        job->cur_header = prog[job->cur_offset / 4];
        mxa_job_fail(job, MXA_ERR_LOOP_NESTING, 0, job->loop_depth);
    }
}
