/*
 * The seed's split encoding of TMATMULMX[.ACC] (seed 004: 本指令将拆分成以下进行编码):
 *
 *   BSTART.CUBE MAMULBMX.ACC, e4m3        the instruction, its suffixes, type A
 *   B.DATR e5m2                           type B (left out when it is type A)
 *   B.DIM r0, 100, ->LB0                  M, N, K: a register plus an immediate each
 *   B.DIM a0, 0, ->LB1
 *   B.DIM a1, 10, ->LB2
 *   B.IOT T#1, U#1                        A and its scales
 *   B.IOT M#1, N#1, last, ACC, ->ACC<64KB> B, its scales and the accumulator: run it
 *
 * The command processor collects the parts in job->block and, at the last B.IOT, runs
 * the TMATMULMX they spell (mxa_exec_tmatmulmx(): the same checks, numerics and
 * errors, at the B.IOT's offset), reading the B.DIM registers then. A block holds its
 * parts and nothing else; every way of breaking that is MXA_ERR_BLOCK with a reason
 * (MXA_BLOCK_ERR_*) at the offending command, err_addr the block's BSTART.CUBE offset
 * or the part that is missing or repeated.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mxa.h"
#include "uapi/mxa_isa_table.h"

static int mxa_block_fail(MxaJob *job, uint32_t why, uint64_t addr)
{
    job->block.open = false;
    return mxa_job_fail(job, MXA_ERR_BLOCK, addr, why);
}

/* A command of any kind while a block is open: only its parts may come. */
int mxa_block_check(MxaJob *job, const struct mxa_isa_cmd *d)
{
    if (job->block.open && !(d->attrs & MXA_ISA_A_BLOCK)) {
        return mxa_block_fail(job, MXA_BLOCK_ERR_INSIDE, job->block.offset);
    }
    return 0;
}

/* The program ended: a block still open was never closed by its last B.IOT. */
int mxa_block_end(MxaJob *job, const uint32_t *prog)
{
    if (!job->block.open) {
        return 0;
    }
    job->cur_offset = job->block.offset;
    job->cur_header = prog[job->block.offset / 4];
    return mxa_block_fail(job, MXA_BLOCK_ERR_OPEN, job->block.offset);
}

/* The last B.IOT: the one-line TMATMULMX of the parts. */
static int mxa_block_run(MxaJob *job, const uint32_t *cmd)
{
    uint32_t tmm[MXA_TMM_DWORDS] = {
        MXA_CMD_HEADER(MXA_OP_TMATMULMX, MXA_TMM_DWORDS, job->block.flags),
        MXA_REGS3(job->block.type_a, job->block.type_b, 0),
        job->block.dim[0], job->block.dim[1], job->block.dim[2],
        MXA_REGS3(job->block.reg[0], job->block.reg[1], job->block.reg[2]),
        job->block.src[0] | job->block.src[1] << 16, cmd[1], cmd[2], cmd[3],
    };

    job->block.open = false;
    return mxa_exec_tmatmulmx(job, tmm);
}

int mxa_exec_block(MxaJob *job, const uint32_t *cmd)
{
    uint32_t op = MXA_CMD_OPCODE(cmd[0]), have = job->block.have;

    job->cycles += 1;
    if (op == MXA_OP_BSTART_CUBE) {
        if (job->block.open) {
            return mxa_block_fail(job, MXA_BLOCK_ERR_NESTED, job->block.offset);
        }
        if ((cmd[1] & 0xff) != MXA_CUBE_MAMULBMX || cmd[1] >> 16) {
            return mxa_job_fail(job, MXA_ERR_BLOCK, cmd[1], MXA_BLOCK_ERR_OPERAND);
        }
        memset(&job->block, 0, sizeof(job->block));
        job->block.open = true;
        job->block.offset = job->cur_offset;
        job->block.flags = MXA_CMD_FLAGS(cmd[0]);
        job->block.type_a = job->block.type_b = (cmd[1] >> 8) & 0xff;
        return 0;
    }
    if (!job->block.open) {
        return mxa_job_fail(job, MXA_ERR_BLOCK, 0, MXA_BLOCK_ERR_OUTSIDE);
    }
    switch (op) {
    case MXA_OP_B_DATR:
        if (have & (1u << MXA_BLOCK_PART_DATR)) {
            return mxa_block_fail(job, MXA_BLOCK_ERR_REPEATED, MXA_BLOCK_PART_DATR);
        }
        if (have || cmd[1] > 0xff) {
            return mxa_block_fail(job, have ? MXA_BLOCK_ERR_ORDER : MXA_BLOCK_ERR_OPERAND,
                                  MXA_BLOCK_PART_DATR);
        }
        job->block.type_b = cmd[1];
        have |= 1u << MXA_BLOCK_PART_DATR;
        break;
    case MXA_OP_B_DIM: {
        uint32_t lb = (cmd[2] >> 8) & 0xff, part = MXA_BLOCK_PART_LB0 + lb;

        if (lb > 2 || cmd[2] >> 16) {
            return mxa_block_fail(job, MXA_BLOCK_ERR_OPERAND, cmd[2]);
        }
        if (have & (1u << MXA_BLOCK_PART_IOT_A)) {
            return mxa_block_fail(job, MXA_BLOCK_ERR_ORDER, part);
        }
        if (have & (1u << part)) {
            return mxa_block_fail(job, MXA_BLOCK_ERR_REPEATED, part);
        }
        job->block.dim[lb] = cmd[1];
        job->block.reg[lb] = cmd[2] & 0xff;
        have |= 1u << part;
        break;
    }
    default:    /* B_IOT */
        for (uint32_t part = MXA_BLOCK_PART_LB0; part < MXA_BLOCK_PART_LB0 + 3; part++) {
            if (!(have & (1u << part))) {
                return mxa_block_fail(job, MXA_BLOCK_ERR_MISSING, part);
            }
        }
        if (!(MXA_CMD_FLAGS(cmd[0]) & MXA_BIOT_F_LAST)) {
            if (have & (1u << MXA_BLOCK_PART_IOT_A)) {
                return mxa_block_fail(job, MXA_BLOCK_ERR_REPEATED, MXA_BLOCK_PART_IOT_A);
            }
            if (cmd[2] || cmd[3]) {
                return mxa_block_fail(job, MXA_BLOCK_ERR_OPERAND, MXA_BLOCK_PART_IOT_A);
            }
            job->block.src[0] = cmd[1] & 0xffff;
            job->block.src[1] = cmd[1] >> 16;
            have |= 1u << MXA_BLOCK_PART_IOT_A;
            break;
        }
        if (!(have & (1u << MXA_BLOCK_PART_IOT_A))) {
            return mxa_block_fail(job, MXA_BLOCK_ERR_MISSING, MXA_BLOCK_PART_IOT_A);
        }
        return mxa_block_run(job, cmd);
    }
    job->block.have = have;
    return 0;
}
