/*
 * MXA WGMMA and WGMMA_DESC: Hopper's asynchronous warpgroup MMA on the math lane, and
 * the SRAM hazards of its operands.
 *
 * The command processor checks a WGMMA's operands and issues it; the math lane reads
 * A and B when it runs it, so until a WAIT_GROUP covers it, its D belongs to the math
 * engine and its A and B may not be written (job->acc, MXA_ERR_ACC_HAZARD and
 * MXA_ERR_OPERAND_HAZARD). WGMMA names dense row-major operands; WGMMA_DESC names them
 * through 64-bit shared-memory matrix descriptors (engine/mxe_smem_desc.c reads them as
 * an H200 does) or A in a tile register, whose footprint for the hazards is the range
 * from its lowest to its highest byte.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mxa.h"
#include "engine/mxe_engine.h"

/* ---- hazards ---- */

/*
 * Every SRAM access of a command: fails the job if [start, start + len) holds a
 * pending WGMMA accumulator or a TMA load's box that no MBAR_WAIT has observed yet.
 */
int mxa_sram_hazard(MxaJob *job, uint64_t start, uint64_t len)
{
    if (mxa_tma_hazard(job, start, len)) {
        return -1;
    }
    for (unsigned i = 0; i < job->nacc; i++) {
        if (start < job->acc[i].end && job->acc[i].start < start + len) {
            return mxa_job_fail(job, MXA_ERR_ACC_HAZARD, job->acc[i].start,
                                job->acc[i].end - job->acc[i].start);
        }
    }
    return 0;
}

/*
 * A command writes [start, start + len) of SRAM: it may not be a pending WGMMA's
 * accumulator, nor an A or B operand that the math engine may not have read yet (the
 * result would depend on timing).
 */
int mxa_sram_write_hazard(MxaJob *job, uint64_t start, uint64_t len)
{
    if (mxa_sram_hazard(job, start, len)) {
        return -1;
    }
    for (unsigned i = 0; i < job->nacc; i++) {
        if (start < job->acc[i].a_end && job->acc[i].a < start + len) {
            return mxa_job_fail(job, MXA_ERR_OPERAND_HAZARD, job->acc[i].a,
                                job->acc[i].a_end - job->acc[i].a);
        }
        if (start < job->acc[i].b_end && job->acc[i].b < start + len) {
            return mxa_job_fail(job, MXA_ERR_OPERAND_HAZARD, job->acc[i].b,
                                job->acc[i].b_end - job->acc[i].b);
        }
    }
    return 0;
}

/* A WAIT_GROUP has covered the math lane's first @done ops. */
void mxa_acc_retire(MxaJob *job, uint64_t done)
{
    unsigned j = 0;

    for (unsigned i = 0; i < job->nacc; i++) {
        if (job->acc[i].seq >= done) {
            job->acc[j++] = job->acc[i];
        }
    }
    job->nacc = j;
}

/* A pending WGMMA reads tile register @t (class and index) as its A. */
bool mxa_tile_a_pending(MxaJob *job, uint32_t t)
{
    for (unsigned i = 0; i < job->nacc; i++) {
        if (job->acc[i].a_tile && job->acc[i].a_tile == (t & ~MXA_TILE_REUSE)) {
            return true;
        }
    }
    return false;
}

/* ---- issue ---- */

/* The instruction: types, N and K (32 bytes of type_a); -1 after failing the job. */
static int mxa_wgmma_shape(MxaJob *job, uint32_t types, uint32_t n, uint64_t *k)
{
    uint32_t ta = MXA_REG_A(types), tb = MXA_REG_B(types), td = MXA_REG_C(types);

    if (types >> 24) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, types, MXA_BADOP(MXA_BADOP_INVALID, 0));
    }
    if (ta >= MXA_DTYPE_COUNT || !mxe_dtype_bits(ta)) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, ta,
                            MXA_BADOP(MXA_BADOP_DTYPE, MXA_OPERAND_TYPE_A));
    }
    if (tb >= MXA_DTYPE_COUNT || mxe_dtype_bits(ta) != mxe_dtype_bits(tb)) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, tb,
                            MXA_BADOP(MXA_BADOP_DTYPE, MXA_OPERAND_TYPE_B));
    }
    if (td >= MXA_DTYPE_COUNT || !mxe_dtype_bits(td)) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, td,
                            MXA_BADOP(MXA_BADOP_DTYPE, MXA_OPERAND_TYPE_D));
    }
    if (n < 8 || n > 256 || n % 8) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, n,
                            MXA_BADOP(MXA_BADOP_SHAPE, MXA_OPERAND_N));
    }
    *k = 256 / mxe_dtype_bits(ta);
    return 0;
}

/*
 * Check what the command processor can of a WGMMA whose A and B occupy [a, a_end) and
 * [b, b_end) of SRAM (a == a_end: A is tile @a_tile) and whose D is at @d, then issue
 * @op on the math lane.
 */
static int mxa_wgmma_issue(MxaJob *job, MxaAsyncOp *op, uint64_t a, uint64_t a_end,
                           uint32_t a_tile, uint64_t b, uint64_t b_end, uint64_t d,
                           uint64_t dbytes)
{
    int err = -1;

    if (mxa_sram_check(job, d, dbytes, 16)) {
        goto fail;
    }
    /*
     * A and B may not be a pending accumulator; D may (chained accumulation) but not
     * a pending WGMMA's A or B.
     */
    if ((a_end > a && mxa_sram_hazard(job, a, a_end - a)) ||
        mxa_sram_hazard(job, b, b_end - b) || mxa_tma_hazard(job, d, dbytes)) {
        goto fail;
    }
    for (unsigned i = 0; i < job->nacc; i++) {
        if ((d < job->acc[i].a_end && job->acc[i].a < d + dbytes) ||
            (d < job->acc[i].b_end && job->acc[i].b < d + dbytes)) {
            mxa_job_fail(job, MXA_ERR_OPERAND_HAZARD, d, dbytes);
            goto fail;
        }
    }
    if (job->nacc == MXA_MAX_PENDING_ACC) {
        mxa_job_fail(job, MXA_ERR_ACC_HAZARD, d, MXA_MAX_PENDING_ACC);
        goto fail;
    }
    op->sram = d;
    job->acc[job->nacc].seq = job->core->lanes[MXA_GROUP_MMA].issued;
    job->acc[job->nacc].start = d;
    job->acc[job->nacc].end = d + dbytes;
    job->acc[job->nacc].a = a;
    job->acc[job->nacc].a_end = a_end;
    job->acc[job->nacc].a_tile = a_tile;
    job->acc[job->nacc].b = b;
    job->acc[job->nacc].b_end = b_end;
    job->nacc++;
    return mxa_async_issue(job, MXA_GROUP_MMA, op);
fail:
    g_free(op);
    return err;
}

int mxa_exec_wgmma(MxaJob *job, const uint32_t *cmd)
{
    uint32_t types = cmd[1], n = cmd[2], regs = cmd[6];
    uint64_t a, b, d, k, abytes, bbytes;
    MxaAsyncOp *op;

    if (mxa_job_check_regs3(job, regs) || mxa_wgmma_shape(job, types, n, &k)) {
        return -1;
    }
    abytes = 64 * mxe_dtype_row_bytes(MXA_REG_A(types), k);
    bbytes = n * mxe_dtype_row_bytes(MXA_REG_B(types), k);
    a = cmd[3] + mxa_job_reg(job, MXA_REG_A(regs));
    b = cmd[4] + mxa_job_reg(job, MXA_REG_B(regs));
    d = cmd[5] + mxa_job_reg(job, MXA_REG_C(regs));
    if (mxa_sram_check(job, a, abytes, 16) || mxa_sram_check(job, b, bbytes, 16)) {
        return -1;
    }
    op = g_new0(MxaAsyncOp, 1);
    memcpy(op->cmd, cmd, MXA_WGMMA_DWORDS * sizeof(uint32_t));
    op->src = a;
    op->dst = b;
    op->len = k;
    return mxa_wgmma_issue(job, op, a, a + abytes, 0, b, b + bbytes, d,
                           64 * mxe_dtype_row_bytes(MXA_REG_C(types), n));
}

/* A descriptor operand of @rows rows: its footprint, or -1 after failing the job. */
static int mxa_wgmma_desc_span(MxaJob *job, uint64_t desc, bool mn_major, uint32_t type,
                               unsigned rows, unsigned operand, uint64_t *lo, uint64_t *hi)
{
    uint32_t key = 1u << 31 | rows << 1 | mn_major;
    /* a multiplicative hash: a stage's A and B descriptors differ in high bits only */
    MxaDescSpan *e = &job->core->desc_spans[((desc ^ (uint64_t)key << 40) *
                                             0x9e3779b97f4a7c15ull) >> 58];

    if (mn_major && mxe_dtype_bits(type) != 16) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, type,
                            MXA_BADOP(MXA_BADOP_DTYPE, operand == MXA_OPERAND_A ?
                                      MXA_OPERAND_TYPE_A : MXA_OPERAND_TYPE_B));
    }
    if (e->key == key && e->desc == desc) {
        *lo = e->lo;
        *hi = e->hi;
        return 0;
    }
    if (mxe_smem_desc_span(desc, mn_major, rows, MXA_SRAM_SIZE, lo, hi)) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, desc,
                            MXA_BADOP(MXA_BADOP_LAYOUT, operand));
    }
    *e = (MxaDescSpan){ .desc = desc, .lo = *lo, .hi = *hi, .key = key };
    return 0;
}

int mxa_exec_wgmma_desc(MxaJob *job, const uint32_t *cmd)
{
    uint32_t flags = MXA_CMD_FLAGS(cmd[0]), types = cmd[1], n = cmd[2], regs = cmd[8];
    uint64_t desc_a = ((uint64_t)cmd[4] << 32 | cmd[3]) + mxa_job_reg(job, MXA_REG_A(regs));
    uint64_t desc_b = ((uint64_t)cmd[6] << 32 | cmd[5]) + mxa_job_reg(job, MXA_REG_B(regs));
    uint64_t d = cmd[7] + mxa_job_reg(job, MXA_REG_C(regs));
    uint64_t k, a = 0, a_end = 0, b, b_end;
    uint32_t a_tile = 0;
    const uint8_t *tile = NULL;
    MxaAsyncOp *op;

    if (mxa_job_check_regs3(job, regs) || mxa_wgmma_shape(job, types, n, &k)) {
        return -1;
    }
    if (flags & MXA_WGMMA_F_TILE_A) {
        /* wgmma's register A: a T tile of 64 rows x 32 bytes, K-major */
        if ((flags & MXA_WGMMA_F_TRANS_A) || MXA_REG_A(regs) || cmd[4]) {
            return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, desc_a,
                                MXA_BADOP(MXA_BADOP_LAYOUT, MXA_OPERAND_A));
        }
        tile = mxa_tile_read(job, cmd[3], MXA_TILE_T, 64, 32);
        if (!tile) {
            return -1;
        }
        a_tile = cmd[3] & ~MXA_TILE_REUSE;
    } else if (mxa_wgmma_desc_span(job, desc_a, flags & MXA_WGMMA_F_TRANS_A,
                                   MXA_REG_A(types), 64, MXA_OPERAND_A, &a, &a_end)) {
        return -1;
    }
    if (mxa_wgmma_desc_span(job, desc_b, flags & MXA_WGMMA_F_TRANS_B, MXA_REG_B(types), n,
                            MXA_OPERAND_B, &b, &b_end)) {
        return -1;
    }
    op = g_new0(MxaAsyncOp, 1);
    memcpy(op->cmd, cmd, MXA_WGMMA_DESC_DWORDS * sizeof(uint32_t));
    op->desc_a = desc_a;
    op->desc_b = desc_b;
    op->tile_a = tile;
    op->len = k;
    return mxa_wgmma_issue(job, op, a, a_end, a_tile, b, b_end, d,
                           64 * mxe_dtype_row_bytes(MXA_REG_C(types), n));
}

/* ---- the math lane ---- */

/* Operands are copied out of SRAM (and the tile) so the engine sees stable data. */
int mxa_lane_wgmma(MxaJob *job, MxaAsyncOp *op)
{
    MxaState *s = job->q->dev;
    bool desc = MXA_CMD_OPCODE(op->header) == MXA_OP_WGMMA_DESC;
    uint32_t flags = MXA_CMD_FLAGS(op->cmd[0]), types = op->cmd[1], n = op->cmd[2];
    struct mxe_gemm_desc g = { 0 };
    uint64_t abytes, bbytes;
    uint8_t *a, *b, *d = job->core->sram + op->sram;
    int err;

    g.m = 64;
    g.n = n;
    g.k = op->len;
    g.type_a = MXA_REG_A(types);
    g.type_b = MXA_REG_B(types);
    g.type_c = g.type_d = MXA_REG_C(types);
    abytes = 64 * mxe_dtype_row_bytes(g.type_a, g.k);   /* 64 x 32 bytes */
    bbytes = n * mxe_dtype_row_bytes(g.type_b, g.k);
    a = g_malloc(abytes + bbytes);      /* at most 2 + 8 KiB: bounded */
    b = a + abytes;
    /* A and B are read before D is written: D may overlap them, as a copy would */
    if (!desc) {
        memcpy(a, job->core->sram + op->src, abytes);
        memcpy(b, job->core->sram + op->dst, bbytes);
    } else {
        if (op->tile_a) {
            memcpy(a, op->tile_a, abytes);
        } else {
            mxe_smem_desc_gather(job->core->sram, op->desc_a, flags & MXA_WGMMA_F_TRANS_A, 64, a);
        }
        mxe_smem_desc_gather(job->core->sram, op->desc_b, flags & MXA_WGMMA_F_TRANS_B, n, b);
    }
    /*
     * D in place in SRAM (the engine allows C = D): until a WAIT_GROUP covers it, the
     * issue's hazard checks keep every other command off it. Copying its 64 KiB in and
     * out took a seventh of a 64 x 256 x 32 E4M3 WGMMA's time (16.4 -> 14.1 us a WGMMA
     * on the development host).
     */
    g.a = a;
    g.b = b;
    g.c = (flags & MXA_WGMMA_F_ACCUMULATE) ? d : NULL;
    g.d = d;
    g.flags = ((flags & MXA_WGMMA_F_ACCUMULATE) ? MXA_GEMM_F_ACCUMULATE : 0) |
              ((flags & MXA_WGMMA_F_NEGATE_A) ? MXE_GEMM_NEGATE_A : 0) |
              ((flags & MXA_WGMMA_F_NEGATE_B) ? MXE_GEMM_NEGATE_B : 0);
    g.sched = (flags & MXA_WGMMA_F_INTERWAVE) ? MXE_SCHED_INTERWAVE : MXE_SCHED_INTRAWAVE;
    mxa_numerics_apply(s, &g);
    err = mxe_wgmma(s->engine, &g);
    g_free(a);
    return err ? mxa_engine_fail(job, err, op->sram) : 0;
}
