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
#include "qemu/madvise.h"
#include "qemu/memalign.h"
#include "mxa.h"
#include "engine/mxe_engine.h"

QEMU_BUILD_BUG_ON(sizeof(struct mxa_isa_gemm) != 128);
QEMU_BUILD_BUG_ON((int)MXA_GEMM_ACCUM_FAST != (int)MXE_ACCUM_FAST);
QEMU_BUILD_BUG_ON((int)MXA_GEMM_SCHED_INTERWAVE != (int)MXE_SCHED_INTERWAVE);

/* A device-memory matrix operand staged in a host buffer (the queue's stage @slot). */
typedef struct MxaOperand {
    uint64_t va;
    uint64_t bytes;     /* span from the first to the last byte */
    uint8_t *host;
    unsigned slot;      /* MXA_STAGE_A ... */
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
 * A stage's buffer. From 1 MiB on, whole 2 MiB huge pages (MADV_HUGEPAGE): a first job
 * faults in its fresh staging memory once per 2 MiB instead of once per 4 KiB, which was
 * half of the demo's one GEMM on a VM whose page faults cost microseconds.
 */
#define MXA_STAGE_HUGE (2u << 20)

static uint64_t mxa_stage_size(uint64_t bytes)
{
    return bytes < MXA_STAGE_HUGE / 2 ? bytes : ROUND_UP(bytes, MXA_STAGE_HUGE);
}

static void *mxa_stage_alloc(uint64_t size)
{
    void *buf;

    if (size < MXA_STAGE_HUGE) {
        return qemu_try_memalign(64, size);
    }
    buf = qemu_try_memalign(MXA_STAGE_HUGE, size);
    if (buf) {
        qemu_madvise(buf, size, QEMU_MADV_HUGEPAGE);
    }
    return buf;
}

/* Take @bytes of the device's host-memory budget; false (nothing taken) beyond it. */
static bool mxa_budget_take(MxaState *s, uint64_t bytes)
{
    if (qatomic_fetch_add(&s->host_mem_used, bytes) + bytes >
        ((uint64_t)s->max_host_mem_mb << 20)) {
        qatomic_sub(&s->host_mem_used, bytes);
        return false;
    }
    return true;
}

/* Give back a stage's buffer and its share of the budget. */
static void mxa_stage_release(MxaState *s, MxaStage *st)
{
    if (st->buf) {
        qemu_vfree(st->buf);
        qatomic_sub(&s->host_mem_used, st->cap);
        st->buf = NULL;
        st->cap = 0;
    }
}

void mxa_stage_fini(MxaState *s, MxaStage *stage)
{
    for (unsigned i = 0; i < MXA_STAGE_SLOTS; i++) {
        mxa_stage_release(s, &stage[i]);
    }
}

/*
 * Stage an operand in host memory. Every queue's staging buffers together stay within
 * the device's max-host-mem-mb: aliased operands on every queue could otherwise take
 * several GiB of QEMU's memory per GEMM. A queue keeps its buffers between jobs up to
 * its share of that budget: fresh memory costs a page fault per 4 KiB on first touch,
 * which was most of a large GEMV's staging time.
 */
static int mxa_operand_load(MxaJob *job, MxaOperand *op, unsigned slot, bool read)
{
    MxaState *s = job->q->dev;
    MxaStage *st = &job->stage[slot];

    op->slot = slot;
    if (st->cap < op->bytes) {
        uint64_t cap = mxa_stage_size(op->bytes);

        mxa_stage_release(job->q->dev, st);
        if (!mxa_budget_take(s, cap)) {
            return mxa_job_fail(job, MXA_ERR_NO_MEMORY, op->va, MXA_NOMEM_BUDGET);
        }
        st->buf = mxa_stage_alloc(cap);
        if (!st->buf) {
            qatomic_sub(&s->host_mem_used, cap);
            return mxa_job_fail(job, MXA_ERR_NO_MEMORY, op->va, MXA_NOMEM_HOST);
        }
        st->cap = cap;
    }
    op->host = st->buf;
    return read ? mxa_va_read(job, op->va, op->host, op->bytes) : 0;
}

/* After the GEMM: the buffers a queue keeps stay within a quarter of their queue's share
 * of the budget (the queue's command processor and its math lane each keep one set). */
static void mxa_operand_free(MxaJob *job, MxaOperand *op)
{
    MxaState *s = job->q->dev;
    uint64_t keep = ((uint64_t)s->max_host_mem_mb << 20) / (4 * s->num_queues), held = 0;

    if (!op->host) {
        return;
    }
    op->host = NULL;
    for (unsigned i = 0; i < MXA_STAGE_SLOTS; i++) {
        held += job->stage[i].cap;
    }
    if (held > keep) {
        mxa_stage_release(job->q->dev, &job->stage[op->slot]);
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
           (d->type_d == (d->type_a == MXA_DTYPE_F64 ? MXA_DTYPE_F64 : MXA_DTYPE_F32) ||
            (d->type_d == MXA_DTYPE_F16 && d->type_a == MXA_DTYPE_F16 &&
             d->type_b == MXA_DTYPE_F16));
}

int mxa_exec_gemm(MxaJob *job, const uint32_t *args)
{
    MxaState *s = job->q->dev;
    struct mxa_isa_gemm g;
    struct mxe_gemm_desc d = { 0 };
    MxaOperand a = { 0 }, b = { 0 }, c = { 0 }, out = { 0 }, sa = { 0 }, sb = { 0 };
    uint64_t lda, ldb, ldc, ldd, ldsa, ldsb, b_rows, b_cols, scratch = 0;
    static uint8_t dummy; /* stands for operand pointers while validating */
    MxaRows wb = { 0 }, wsb = { 0 };
    bool acc, scaled_a, scaled_b, hopper, in_place;
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

    if (mxa_dtype_nvfp4_unpaired(g.type_a, g.type_b)) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, g.type_b,
                            MXA_BADOP(MXA_BADOP_DTYPE, MXA_OPERAND_TYPE_B));
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
    d.tf32_input = MXE_LIBRARY_TF32_INPUT;
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
                                      DIV_ROUND_UP(g.k, g.scale_block), &ldsa)) ||
        (scaled_b && mxa_operand_size(job, &sb, le64_to_cpu(g.scale_b), g.n,
                                      DIV_ROUND_UP(g.k, g.scale_block), &ldsb))) {
        return -1;
    }

    /*
     * A GEMV streams its weights once: the engine reads them where they lie in guest
     * memory instead of from a staged copy, which cost as much as the math.
     */
    hopper = s->hopper && mxa_hopper_library_gemm(&d);
    in_place = !hopper && mxe_gemv_takes(&d);
    /*
     * The engine's copies of the operands (NVFP4 expanded to BF16: four times their
     * bytes; an A stored K x M transposed) count in the budget too: NVFP4 operands of
     * 1 GiB would otherwise take 8 GiB of QEMU's.
     */
    scratch = mxe_gemm_copy_bytes(&d);
    if (scratch && !mxa_budget_take(s, scratch)) {
        return mxa_job_fail(job, MXA_ERR_NO_MEMORY, 0, MXA_NOMEM_BUDGET);
    }
    if (mxa_operand_load(job, &a, MXA_STAGE_A, true) ||
        (!in_place && mxa_operand_load(job, &b, MXA_STAGE_B, true)) ||
        (acc && mxa_operand_load(job, &c, MXA_STAGE_C, true)) ||
        (scaled_a && mxa_operand_load(job, &sa, MXA_STAGE_SA, true)) ||
        (scaled_b && !in_place && mxa_operand_load(job, &sb, MXA_STAGE_SB, true)) ||
        mxa_operand_load(job, &out, MXA_STAGE_D, false)) {
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
    if (hopper) {
        struct mxe_hopper_plan plan;

        d.tf32_input = MXE_TF32_IN_RNE;   /* cuBLAS rounds TF32 inputs to nearest even */
        mxe_hopper_cublas_plan(&d, d.accum == MXE_ACCUM_FAST, &plan);
        err = mxe_hopper_gemm(s->engine, &d, &plan);
    } else if (in_place) {
        uint64_t gen = mxa_va_window_open(job);

        if (mxa_va_rows_map(job, gen, &wb, b.va, g.n, mxe_dtype_row_bytes(g.type_b, g.k),
                            ldb) ||
            (scaled_b && mxa_va_rows_map(job, gen, &wsb, sb.va, g.n,
                                         DIV_ROUND_UP(g.k, g.scale_block), ldsb))) {
            mxa_va_window_close(job);
            goto out;
        }
        d.b = wb.row[0];
        d.b_rows = wb.row;
        d.scale_b = scaled_b ? wsb.row[0] : NULL;
        d.scale_b_rows = scaled_b ? wsb.row : NULL;
        err = mxe_gemm(s->engine, &d);
        mxa_va_window_close(job);
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
    job->cycles += mxa_timing_gemm(s, g.m, g.n, g.k);    /* on a lane: already modelled */
    ret = 0;
out:
    qatomic_sub(&s->host_mem_used, scratch);
    mxa_operand_free(job, &a);
    mxa_operand_free(job, &b);
    mxa_operand_free(job, &c);
    mxa_operand_free(job, &out);
    mxa_operand_free(job, &sa);
    mxa_operand_free(job, &sb);
    mxa_va_rows_free(job, &wb);
    mxa_va_rows_free(job, &wsb);
    return ret;
}
