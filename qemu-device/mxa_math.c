/*
 * MXA math commands: operands are read through the job's MMU into host buffers, the
 * matrix engine (engine/, plain C11) computes on the device's engine threads, and the
 * result is written back through the MMU.
 *
 * Every size comes from the guest: it is checked with overflow-safe arithmetic and
 * bounded by MXA_GEMM_MAX_OPERAND_BYTES before anything is allocated, and allocations
 * use g_try_malloc so a large request fails the job instead of QEMU.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "mxa.h"
#include "engine/mxe_engine.h"

/* The ISA's type codes are the engine's (both are the MXGV codes). */
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_F32 != (int)MXA_DTYPE_F32);
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_E4M3 != (int)MXA_DTYPE_E4M3);
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_S32 != (int)MXA_DTYPE_S32);
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_E2M1 != (int)MXA_DTYPE_E2M1);
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_MXINT8 != (int)MXA_DTYPE_MXINT8);
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_COUNT != (int)MXA_DTYPE_COUNT);
QEMU_BUILD_BUG_ON(sizeof(struct mxa_isa_gemm) != 128);
QEMU_BUILD_BUG_ON((int)MXA_GEMM_ACCUM_FAST != (int)MXE_ACCUM_FAST);
QEMU_BUILD_BUG_ON((int)MXA_GEMM_SCHED_INTERWAVE != (int)MXE_SCHED_INTERWAVE);

/* Nominal multiply-accumulates per cycle of one engine core (cycle model). */
#define MXA_MACS_PER_CYCLE_PER_CORE 1024

/* A device-memory matrix operand staged in a host buffer. */
typedef struct MxaOperand {
    uint64_t va;
    uint64_t bytes;     /* span from the first to the last byte */
    uint8_t *host;
} MxaOperand;

static int mxa_operand_size(MxaJob *job, MxaOperand *op, uint64_t va, uint64_t rows,
                            uint64_t row_bytes, uint64_t *ld)
{
    uint64_t span;

    if (*ld == 0) {
        *ld = row_bytes;
    }
    if (*ld < row_bytes) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, va, -MXE_ENGINE_EINVAL_LAYOUT);
    }
    /* span = (rows - 1) * ld + row_bytes, rows >= 1 */
    if (__builtin_mul_overflow(rows - 1, *ld, &span) ||
        __builtin_add_overflow(span, row_bytes, &span) ||
        span > MXA_GEMM_MAX_OPERAND_BYTES) {
        return mxa_job_fail(job, MXA_ERR_TOO_LARGE, va, 0);
    }
    op->va = va;
    op->bytes = span;
    return 0;
}

/*
 * Stage an operand in host memory. Every queue's staging buffers together stay within
 * the device's max-host-mem-mb: aliased operands on every queue could otherwise take
 * several GiB of QEMU's memory per GEMM.
 */
static int mxa_operand_load(MxaJob *job, MxaOperand *op, bool read)
{
    MxaState *s = job->q->dev;
    uint64_t budget = (uint64_t)s->max_host_mem_mb << 20;

    if (qatomic_fetch_add(&s->host_mem_used, op->bytes) + op->bytes > budget) {
        qatomic_sub(&s->host_mem_used, op->bytes);
        return mxa_job_fail(job, MXA_ERR_NO_MEMORY, op->va, MXA_NOMEM_BUDGET);
    }
    op->host = g_try_malloc(op->bytes);
    if (!op->host) {
        qatomic_sub(&s->host_mem_used, op->bytes);
        return mxa_job_fail(job, MXA_ERR_NO_MEMORY, op->va, MXA_NOMEM_HOST);
    }
    return read ? mxa_va_read(job, op->va, op->host, op->bytes) : 0;
}

static void mxa_operand_free(MxaJob *job, MxaOperand *op)
{
    if (op->host) {
        g_free(op->host);
        qatomic_sub(&job->q->dev->host_mem_used, op->bytes);
        op->host = NULL;
    }
}

int mxa_engine_fail(MxaJob *job, int err, uint64_t addr)
{
    switch (err) {
    case MXE_ENGINE_EINVAL_K_ALIGN:
        return mxa_job_fail(job, MXA_ERR_K_ALIGN, addr, -err);
    case MXE_ENGINE_ENOMEM:
        return mxa_job_fail(job, MXA_ERR_NO_MEMORY, addr, -err);
    case MXE_ENGINE_EOVERFLOW:
        return mxa_job_fail(job, MXA_ERR_TOO_LARGE, addr, -err);
    default:
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, addr, -err);
    }
}

/*
 * numerics=hopper: tensor-core instructions (WGMMA, MMA) on float inputs use the
 * engine's H200 model; integer inputs are exact either way.
 */
void mxa_numerics_apply(MxaState *s, struct mxe_gemm_desc *g)
{
    if (s->hopper && g->type_a != MXA_DTYPE_S8 && g->type_a != MXA_DTYPE_S4 &&
        g->type_a != MXA_DTYPE_B1) {
        g->accum = MXE_ACCUM_HOPPER;
        g->tf32_input = MXE_TF32_IN_TRUNCATE;
    }
}

/*
 * numerics=hopper, GEMM command: a library GEMM as cuBLAS/cuBLASLt runs it on the
 * H200 (mxe_hopper_gemm() with the measured plan: FP8 promoted into FP32 every 128 of
 * K, or never with accum = FAST, which stands for cuBLASLt's fast accumulation) for the
 * operand types the H200's tensor cores take. MX block scales, FP6/FP4 and integers
 * have no H200 instruction: they keep the default numerics.
 */
static bool mxa_hopper_library_gemm(const struct mxe_gemm_desc *d)
{
    static const uint8_t types[] = { MXA_DTYPE_F16, MXA_DTYPE_BF16, MXA_DTYPE_TF32,
                                     MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, MXA_DTYPE_F64 };
    bool a = false, b = false;

    for (size_t i = 0; i < sizeof(types); i++) {
        a |= d->type_a == types[i];
        b |= d->type_b == types[i];
    }
    return a && b && !d->scale_block &&
           d->type_d == (d->type_a == MXA_DTYPE_F64 ? MXA_DTYPE_F64 : MXA_DTYPE_F32);
}

int mxa_exec_gemm(MxaJob *job, const uint32_t *args)
{
    MxaState *s = job->q->dev;
    struct mxa_isa_gemm g;
    struct mxe_gemm_desc d = { 0 };
    MxaOperand a = { 0 }, b = { 0 }, c = { 0 }, out = { 0 }, sa = { 0 }, sb = { 0 };
    uint64_t lda, ldb, ldc, ldd, ldsa, ldsb, b_rows, b_cols, macs;
    static uint8_t dummy; /* stands for operand pointers while validating */
    bool acc, scaled_a, scaled_b;
    int ret = -1, err;

    memcpy(&g, args, sizeof(g));
    g.m = le32_to_cpu(g.m);
    g.n = le32_to_cpu(g.n);
    g.k = le32_to_cpu(g.k);
    g.flags = le32_to_cpu(g.flags);
    g.scale_block = le32_to_cpu(g.scale_block);
    acc = g.flags & MXA_GEMM_F_ACCUMULATE;

    if (g.flags & ~MXA_GEMM_F_ALL) {
        return mxa_job_fail(job, MXA_ERR_BAD_FLAGS, 0, g.flags);
    }
    if (g.reserved0[0] || g.reserved0[1] || g.reserved[0] || g.reserved[1] ||
        g.reserved[2] || g.reserved[3] || g.reserved[4] || g.reserved[5] ||
        g.reserved[6]) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, -MXE_ENGINE_EINVAL);
    }

    /* Validate types, shape and options before touching memory: dummy pointers. */
    d.m = g.m;
    d.n = g.n;
    d.k = g.k;
    d.type_a = g.type_a;
    d.type_b = g.type_b;
    d.type_c = g.type_c;
    d.type_d = g.type_d;
    d.flags = g.flags;      /* the engine takes the ISA's MXA_GEMM_F_* as they are */
    d.scale_block = g.scale_block;
    d.accum = g.accum;
    d.sched = g.sched;
    d.a = d.b = d.d = &dummy;
    d.c = acc ? &dummy : NULL;
    /*
     * A side's scales are read only when given (VA != 0) and not FP16/BF16, whose
     * scales are ignored as TMATMULMX's are: BF16 activations x MX weights read no
     * scale_a. MX data without scales, or F32 with scales, the engine rejects.
     */
    scaled_a = g.scale_block && le64_to_cpu(g.scale_a) &&
               g.type_a != MXA_DTYPE_F16 && g.type_a != MXA_DTYPE_BF16;
    scaled_b = g.scale_block && le64_to_cpu(g.scale_b) &&
               g.type_b != MXA_DTYPE_F16 && g.type_b != MXA_DTYPE_BF16;
    d.scale_a = scaled_a ? &dummy : NULL;
    d.scale_b = scaled_b ? &dummy : NULL;
    err = mxe_gemm_check(&d);
    if (err) {
        return mxa_engine_fail(job, err, 0);
    }

    b_rows = (g.flags & MXA_GEMM_F_B_KN) ? g.k : g.n;
    b_cols = (g.flags & MXA_GEMM_F_B_KN) ? g.n : g.k;
    lda = le32_to_cpu(g.lda);
    ldb = le32_to_cpu(g.ldb);
    ldc = le32_to_cpu(g.ldc);
    ldd = le32_to_cpu(g.ldd);
    ldsa = le32_to_cpu(g.ld_scale_a);
    ldsb = le32_to_cpu(g.ld_scale_b);
    if (mxa_operand_size(job, &a, le64_to_cpu(g.a),
                         (g.flags & MXA_GEMM_F_A_KM) ? g.k : g.m,
                         mxe_dtype_row_bytes(g.type_a,
                                             (g.flags & MXA_GEMM_F_A_KM) ? g.m : g.k),
                         &lda) ||
        mxa_operand_size(job, &b, le64_to_cpu(g.b), b_rows,
                         mxe_dtype_row_bytes(g.type_b, b_cols), &ldb) ||
        mxa_operand_size(job, &out, le64_to_cpu(g.d), g.m,
                         mxe_dtype_row_bytes(g.type_d, g.n), &ldd) ||
        (acc && mxa_operand_size(job, &c, le64_to_cpu(g.c), g.m,
                                 mxe_dtype_row_bytes(g.type_c, g.n), &ldc)) ||
        (scaled_a && mxa_operand_size(job, &sa, le64_to_cpu(g.scale_a), g.m,
                                      g.k / g.scale_block, &ldsa)) ||
        (scaled_b && mxa_operand_size(job, &sb, le64_to_cpu(g.scale_b), g.n,
                                      g.k / g.scale_block, &ldsb))) {
        return -1;
    }

    if (mxa_operand_load(job, &a, true) || mxa_operand_load(job, &b, true) ||
        (acc && mxa_operand_load(job, &c, true)) ||
        (scaled_a && mxa_operand_load(job, &sa, true)) ||
        (scaled_b && mxa_operand_load(job, &sb, true)) ||
        mxa_operand_load(job, &out, false)) {
        goto out;
    }
    d.a = a.host;
    d.lda = lda;
    d.b = b.host;
    d.ldb = ldb;
    d.c = acc ? c.host : NULL;
    d.ldc = ldc;
    d.d = out.host;
    d.ldd = ldd;
    d.scale_a = sa.host;
    d.ld_scale_a = ldsa;
    d.scale_b = sb.host;
    d.ld_scale_b = ldsb;
    if (ldd != mxe_dtype_row_bytes(g.type_d, g.n) && g.m > 1) {
        /* D has gaps between rows: keep what the guest has there */
        if (mxa_va_read(job, out.va, out.host, out.bytes)) {
            goto out;
        }
    }
    if (s->hopper && mxa_hopper_library_gemm(&d)) {
        struct mxe_hopper_plan plan;

        mxe_hopper_cublas_plan(&d, d.accum == MXE_ACCUM_FAST, &plan);
        err = mxe_hopper_gemm(s->engine, &d, &plan);
    } else {
        err = mxe_gemm(s->engine, &d);
    }
    if (err) {
        mxa_engine_fail(job, err, 0);
        goto out;
    }
    if (mxe_engine_cancelled()) {
        /* a reset cut the GEMM short: D is partial, never written back */
        mxa_job_fail(job, MXA_ERR_ABORTED, 0, 0);
        goto out;
    }
    if (mxa_va_write(job, out.va, out.host, out.bytes)) {
        goto out;
    }
    macs = (uint64_t)g.m * g.n * g.k;
    job->cycles += macs / (MXA_MACS_PER_CYCLE_PER_CORE * (uint64_t)s->num_cores) + 1;
    ret = 0;
out:
    mxa_operand_free(job, &a);
    mxa_operand_free(job, &b);
    mxa_operand_free(job, &c);
    mxa_operand_free(job, &out);
    mxa_operand_free(job, &sa);
    mxa_operand_free(job, &sb);
    return ret;
}

/* ---- WGMMA: asynchronous warpgroup MMA on SRAM operands ---- */

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

int mxa_exec_wgmma(MxaJob *job, const uint32_t *cmd)
{
    uint32_t types = cmd[1], n = cmd[2], regs = cmd[6];
    uint32_t ta = MXA_REG_A(types), tb = MXA_REG_B(types), td = MXA_REG_C(types);
    uint64_t a, b, d, k, abytes, bbytes, dbytes;
    MxaAsyncOp *op;

    if (mxa_job_check_regs3(job, regs)) {
        return -1;
    }
    if (types >> 24 || ta >= MXA_DTYPE_COUNT || tb >= MXA_DTYPE_COUNT ||
        td >= MXA_DTYPE_COUNT || !mxe_dtype_bits(ta) || mxe_dtype_bits(ta) != mxe_dtype_bits(tb) ||
        n < 8 || n > 256 || n % 8) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, -MXE_ENGINE_EINVAL_SHAPE);
    }
    k = 256 / mxe_dtype_bits(ta);
    abytes = 64 * mxe_dtype_row_bytes(ta, k);
    bbytes = n * mxe_dtype_row_bytes(tb, k);
    dbytes = 64 * mxe_dtype_row_bytes(td, n);
    a = cmd[3] + mxa_job_reg(job, MXA_REG_A(regs));
    b = cmd[4] + mxa_job_reg(job, MXA_REG_B(regs));
    d = cmd[5] + mxa_job_reg(job, MXA_REG_C(regs));
    if (mxa_sram_check(job, a, abytes, 16) || mxa_sram_check(job, b, bbytes, 16)) {
        return -1;
    }
    if (mxa_sram_check(job, d, dbytes, 16)) {
        return -1;
    }
    /*
     * A and B may not be a pending accumulator; D may (chained accumulation) but not
     * a pending WGMMA's A or B.
     */
    if (mxa_sram_hazard(job, a, abytes) || mxa_sram_hazard(job, b, bbytes) ||
        mxa_tma_hazard(job, d, dbytes)) {
        return -1;
    }
    for (unsigned i = 0; i < job->nacc; i++) {
        if ((d < job->acc[i].a_end && job->acc[i].a < d + dbytes) ||
            (d < job->acc[i].b_end && job->acc[i].b < d + dbytes)) {
            return mxa_job_fail(job, MXA_ERR_OPERAND_HAZARD, d, dbytes);
        }
    }
    if (job->nacc == MXA_MAX_PENDING_ACC) {
        return mxa_job_fail(job, MXA_ERR_ACC_HAZARD, d, MXA_MAX_PENDING_ACC);
    }
    op = g_new0(MxaAsyncOp, 1);
    memcpy(op->cmd, cmd, MXA_WGMMA_DWORDS * sizeof(uint32_t));
    op->src = a;
    op->dst = b;
    op->sram = d;
    op->len = k;
    job->acc[job->nacc].seq = job->q->lanes[MXA_GROUP_MMA].issued;
    job->acc[job->nacc].start = d;
    job->acc[job->nacc].end = d + dbytes;
    job->acc[job->nacc].a = a;
    job->acc[job->nacc].a_end = a + abytes;
    job->acc[job->nacc].b = b;
    job->acc[job->nacc].b_end = b + bbytes;
    job->nacc++;
    return mxa_async_issue(job, MXA_GROUP_MMA, op);
}

/* On the math engine: operands are copied out of SRAM so the engine sees stable data. */
int mxa_lane_wgmma(MxaJob *job, MxaAsyncOp *op)
{
    MxaState *s = job->q->dev;
    uint32_t flags = MXA_CMD_FLAGS(op->cmd[0]), types = op->cmd[1], n = op->cmd[2];
    struct mxe_gemm_desc g = { 0 };
    uint64_t abytes, bbytes, dbytes;
    uint8_t *a, *b, *d;
    int err;

    g.m = 64;
    g.n = n;
    g.k = op->len;
    g.type_a = MXA_REG_A(types);
    g.type_b = MXA_REG_B(types);
    g.type_c = g.type_d = MXA_REG_C(types);
    abytes = 64 * mxe_dtype_row_bytes(g.type_a, g.k);
    bbytes = n * mxe_dtype_row_bytes(g.type_b, g.k);
    dbytes = 64 * mxe_dtype_row_bytes(g.type_d, n);
    a = g_malloc(abytes + bbytes + dbytes);     /* at most 3 x 64 KiB: bounded */
    b = a + abytes;
    d = b + bbytes;
    memcpy(a, job->q->sram + op->src, abytes);
    memcpy(b, job->q->sram + op->dst, bbytes);
    memcpy(d, job->q->sram + op->sram, dbytes);
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
    if (!err) {
        memcpy(job->q->sram + op->sram, d, dbytes);
    }
    g_free(a);
    job->cycles += (uint64_t)64 * n * op->len /
                   (MXA_MACS_PER_CYCLE_PER_CORE * (uint64_t)s->num_cores) + 8;
    return err ? mxa_engine_fail(job, err, op->sram) : 0;
}
