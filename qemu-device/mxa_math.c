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
#include "engine/mxa_engine.h"

/* The ISA's type codes are the engine's (both are the MXGV codes). */
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_F32 != (int)MXA_DT_F32);
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_E4M3 != (int)MXA_DT_E4M3);
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_S32 != (int)MXA_DT_S32);
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_E2M1 != (int)MXA_DT_E2M1);
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_MXINT8 != (int)MXA_DT_MXINT8);
QEMU_BUILD_BUG_ON((int)MXA_DTYPE_COUNT != (int)MXA_DT_COUNT);
QEMU_BUILD_BUG_ON(sizeof(struct mxa_isa_gemm) != 128);
QEMU_BUILD_BUG_ON((int)MXA_GEMM_ACCUM_FAST != (int)MXA_ACCUM_FAST);
QEMU_BUILD_BUG_ON((int)MXA_GEMM_SCHED_INTERWAVE != (int)MXA_SCHED_INTERWAVE);

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
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, va, -MXA_ENGINE_EINVAL_LAYOUT);
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

static int mxa_operand_load(MxaJob *job, MxaOperand *op, bool read)
{
    op->host = g_try_malloc(op->bytes);
    if (!op->host) {
        return mxa_job_fail(job, MXA_ERR_NO_MEMORY, op->va, 0);
    }
    return read ? mxa_va_read(job, op->va, op->host, op->bytes) : 0;
}

static int mxa_engine_error(MxaJob *job, int err, uint64_t addr)
{
    switch (err) {
    case MXA_ENGINE_EINVAL_K_ALIGN:
        return mxa_job_fail(job, MXA_ERR_K_ALIGN, addr, -err);
    case MXA_ENGINE_ENOMEM:
        return mxa_job_fail(job, MXA_ERR_NO_MEMORY, addr, -err);
    case MXA_ENGINE_EOVERFLOW:
        return mxa_job_fail(job, MXA_ERR_TOO_LARGE, addr, -err);
    default:
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, addr, -err);
    }
}

int mxa_exec_gemm(MxaJob *job, const uint32_t *args)
{
    MxaState *s = job->q->dev;
    struct mxa_isa_gemm g;
    struct mxa_gemm_desc d = { 0 };
    MxaOperand a = { 0 }, b = { 0 }, c = { 0 }, out = { 0 }, sa = { 0 }, sb = { 0 };
    uint64_t lda, ldb, ldc, ldd, ldsa, ldsb, b_rows, b_cols, macs;
    static uint8_t dummy; /* stands for operand pointers while validating */
    bool acc;
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
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, -MXA_ENGINE_EINVAL);
    }

    /* Validate types, shape and options before touching memory: dummy pointers. */
    d.m = g.m;
    d.n = g.n;
    d.k = g.k;
    d.type_a = g.type_a;
    d.type_b = g.type_b;
    d.type_c = g.type_c;
    d.type_d = g.type_d;
    d.flags = (acc ? MXA_GEMM_ACCUMULATE : 0) |
              ((g.flags & MXA_GEMM_F_SATFINITE) ? MXA_GEMM_SATFINITE : 0) |
              ((g.flags & MXA_GEMM_F_B_KN) ? MXA_GEMM_B_KN : 0);
    d.scale_block = g.scale_block;
    d.accum = g.accum;
    d.sched = g.sched;
    d.a = d.b = d.d = &dummy;
    d.c = acc ? &dummy : NULL;
    d.scale_a = g.scale_block ? &dummy : NULL;
    d.scale_b = g.scale_block ? &dummy : NULL;
    err = mxa_gemm_check(&d);
    if (err) {
        return mxa_engine_error(job, err, 0);
    }

    b_rows = (g.flags & MXA_GEMM_F_B_KN) ? g.k : g.n;
    b_cols = (g.flags & MXA_GEMM_F_B_KN) ? g.n : g.k;
    lda = le32_to_cpu(g.lda);
    ldb = le32_to_cpu(g.ldb);
    ldc = le32_to_cpu(g.ldc);
    ldd = le32_to_cpu(g.ldd);
    ldsa = le32_to_cpu(g.ld_scale_a);
    ldsb = le32_to_cpu(g.ld_scale_b);
    if (mxa_operand_size(job, &a, le64_to_cpu(g.a), g.m,
                         mxa_dtype_row_bytes(g.type_a, g.k), &lda) ||
        mxa_operand_size(job, &b, le64_to_cpu(g.b), b_rows,
                         mxa_dtype_row_bytes(g.type_b, b_cols), &ldb) ||
        mxa_operand_size(job, &out, le64_to_cpu(g.d), g.m,
                         mxa_dtype_row_bytes(g.type_d, g.n), &ldd) ||
        (acc && mxa_operand_size(job, &c, le64_to_cpu(g.c), g.m,
                                 mxa_dtype_row_bytes(g.type_c, g.n), &ldc)) ||
        (g.scale_block && (mxa_operand_size(job, &sa, le64_to_cpu(g.scale_a), g.m,
                                            g.k / g.scale_block, &ldsa) ||
                           mxa_operand_size(job, &sb, le64_to_cpu(g.scale_b), g.n,
                                            g.k / g.scale_block, &ldsb)))) {
        return -1;
    }

    if (mxa_operand_load(job, &a, true) || mxa_operand_load(job, &b, true) ||
        (acc && mxa_operand_load(job, &c, true)) ||
        (g.scale_block && (mxa_operand_load(job, &sa, true) ||
                           mxa_operand_load(job, &sb, true))) ||
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
    if (ldd != mxa_dtype_row_bytes(g.type_d, g.n) && g.m > 1) {
        /* D has gaps between rows: keep what the guest has there */
        if (mxa_va_read(job, out.va, out.host, out.bytes)) {
            goto out;
        }
    }
    err = mxa_gemm(s->engine, &d);
    if (err) {
        mxa_engine_error(job, err, 0);
        goto out;
    }
    if (mxa_va_write(job, out.va, out.host, out.bytes)) {
        goto out;
    }
    macs = (uint64_t)g.m * g.n * g.k;
    job->cycles += macs / (MXA_MACS_PER_CYCLE_PER_CORE * (uint64_t)s->num_cores) + 1;
    ret = 0;
out:
    g_free(a.host);
    g_free(b.host);
    g_free(c.host);
    g_free(out.host);
    g_free(sa.host);
    g_free(sb.host);
    return ret;
}
