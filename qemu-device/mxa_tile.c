/*
 * MXA tile registers and the synchronous math on them and on SRAM: TILE_LOAD/STORE,
 * TMATMULMX (seed 004), the Ampere MMA shapes and CVT / MX quantisation.
 *
 * A queue has MXA_TILES_PER_CLASS tile registers of each class (T, U, M, N, ACC),
 * used only by its command processor. A tile holds a rows x row_bytes shape set by
 * whatever wrote it; every use checks the shape, so a mismatched M, N or K is a job
 * error, not garbage. A source tile named without .reuse is released by TMATMULMX
 * and MMA: a later read of it is MXA_ERR_TILE_RELEASED until something writes it
 * again. Tiles are empty when a job starts (their bytes are never readable before
 * the job wrote them, so nothing leaks between contexts); their host memory is
 * allocated on first write and kept for the queue's life.
 *
 * These commands run on the command processor: they see SRAM as it is when they run,
 * so SRAM that holds a pending WGMMA accumulator is a hazard to read or write, and its
 * pending A/B operands are a hazard to write (mxa_sram_write_hazard).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "mxa.h"
#include "engine/mxe_engine.h"
#include "trace.h"

QEMU_BUILD_BUG_ON(MXA_TILE_CLASSES > 0x7f);

static uint32_t mxa_tile_capacity(unsigned cls)
{
    switch (cls) {
    case MXA_TILE_T:
    case MXA_TILE_M:
        return MXA_TILE_DATA_BYTES;
    case MXA_TILE_U:
    case MXA_TILE_N:
        return MXA_TILE_SCALE_BYTES;
    default:
        return MXA_TILE_ACC_BYTES;
    }
}

void mxa_tile_fini(MxaCore *core)
{
    for (unsigned c = 0; c < MXA_TILE_CLASSES; c++) {
        for (unsigned i = 0; i < MXA_TILES_PER_CLASS; i++) {
            g_free(core->tiles[c][i].data);
            core->tiles[c][i].data = NULL;
        }
    }
}

void mxa_tile_job_start(MxaJob *job)
{
    for (unsigned c = 0; c < MXA_TILE_CLASSES; c++) {
        for (unsigned i = 0; i < MXA_TILES_PER_CLASS; i++) {
            job->core->tiles[c][i].rows = 0;
            job->core->tiles[c][i].row_bytes = 0;
            job->core->tiles[c][i].released = false;
        }
    }
}

static int mxa_tile_fail(MxaJob *job, uint32_t t, uint32_t why)
{
    return mxa_job_fail(job, MXA_ERR_TILE, 0, (t & 0x7fff) | why << 16);
}

/*
 * The tile register named by operand @t, which must be of class @cls. TILE_LOAD and
 * TILE_STORE take the class from the operand itself: a class beyond the register file
 * (or 0) must fail here, or it would index past core->tiles.
 */
static MxaTile *mxa_tile_get(MxaJob *job, uint32_t t, unsigned cls)
{
    unsigned c = MXA_TILE_CLASS(t), i = MXA_TILE_INDEX(t);

    if (!mxa_tile_valid(t & ~MXA_TILE_REUSE) || c != cls) {
        mxa_tile_fail(job, t, MXA_TILE_ERR_NUMBER);
        return NULL;
    }
    return &job->core->tiles[c][i];
}

/* A tile read by a command: it must hold exactly @rows x @row_bytes. */
static MxaTile *mxa_tile_src(MxaJob *job, uint32_t t, unsigned cls, uint64_t rows,
                             uint64_t row_bytes)
{
    MxaTile *tile = mxa_tile_get(job, t, cls);

    if (!tile) {
        return NULL;
    }
    if (tile->released) {
        trace_mxa_guest_err_tile_released(job->q->index, t & 0x7fff);
        mxa_job_fail(job, MXA_ERR_TILE_RELEASED, 0, t & 0x7fff);
        return NULL;
    }
    if (!tile->rows) {
        mxa_tile_fail(job, t, MXA_TILE_ERR_EMPTY);
        return NULL;
    }
    if (tile->rows != rows || tile->row_bytes != row_bytes) {
        mxa_tile_fail(job, t, MXA_TILE_ERR_SHAPE);
        return NULL;
    }
    return tile;
}

/* A tile a command writes: it gets the shape @rows x @row_bytes (if it fits). */
static MxaTile *mxa_tile_dst(MxaJob *job, uint32_t t, unsigned cls, uint64_t rows,
                             uint64_t row_bytes)
{
    MxaTile *tile = mxa_tile_get(job, t, cls);
    uint64_t bytes;

    if (!tile) {
        return NULL;
    }
    if (cls == MXA_TILE_T && mxa_tile_a_pending(job, t)) {
        /* a pending WGMMA_DESC.TILE_A reads it when the math engine runs it */
        mxa_job_fail(job, MXA_ERR_OPERAND_HAZARD, t & 0x7fff, 0);
        return NULL;
    }
    /* a scale tile holds its rows in whole fragments of MXA_TILE_SCALE_FRAGMENT bytes */
    if (!rows || !row_bytes ||
        __builtin_mul_overflow(rows, (cls == MXA_TILE_U || cls == MXA_TILE_N) ?
                               ROUND_UP(row_bytes, MXA_TILE_SCALE_FRAGMENT) : row_bytes,
                               &bytes) ||
        bytes > mxa_tile_capacity(cls)) {
        mxa_tile_fail(job, t, MXA_TILE_ERR_SIZE);
        return NULL;
    }
    if (!tile->data) {
        tile->data = g_try_malloc(mxa_tile_capacity(cls));
        if (!tile->data) {
            mxa_job_fail(job, MXA_ERR_NO_MEMORY, 0, t & 0x7fff);
            return NULL;
        }
    }
    tile->rows = rows;
    tile->row_bytes = row_bytes;
    tile->released = false;
    return tile;
}

/* After a command: a source tile named without .reuse is gone. */
static void mxa_tile_release(MxaJob *job, uint32_t t)
{
    MxaTile *tile;

    if (t == MXA_TILE_NONE || (t & MXA_TILE_REUSE)) {
        return;
    }
    tile = &job->core->tiles[MXA_TILE_CLASS(t)][MXA_TILE_INDEX(t)];
    tile->rows = tile->row_bytes = 0;
    tile->released = true;
}

/*
 * The bytes of tile @t (class @cls, @rows x @row_bytes) for a command of another file
 * that reads it now or later (WGMMA_DESC.TILE_A); released as any source without .reuse.
 */
const uint8_t *mxa_tile_read(MxaJob *job, uint32_t t, unsigned cls, uint64_t rows,
                             uint64_t row_bytes)
{
    MxaTile *tile = mxa_tile_src(job, t, cls, rows, row_bytes);

    if (!tile) {
        return NULL;
    }
    mxa_tile_release(job, t);
    return tile->data;
}

/*
 * [addr, addr + len) inside SRAM, @align-aligned and not a pending accumulator; when
 * the command @writes it, not a pending WGMMA's operand either.
 */
static int mxa_sram_range(MxaJob *job, uint64_t addr, uint64_t len, uint64_t align,
                          bool writes)
{
    if (mxa_sram_check(job, addr, len, align)) {
        return -1;
    }
    return writes ? mxa_sram_write_hazard(job, addr, len) : mxa_sram_hazard(job, addr, len);
}

/* ---- TILE_LOAD / TILE_STORE ---- */

int mxa_exec_tile(MxaJob *job, const uint32_t *cmd, bool load)
{
    bool global = MXA_CMD_FLAGS(cmd[0]) & MXA_TILE_F_GLOBAL;
    uint32_t t = cmd[1], rows = cmd[2], row_bytes = cmd[3];
    uint64_t addr, stride, span;
    unsigned cls = MXA_TILE_CLASS(t);
    MxaCore *owner = job->core;
    MxaTile *tile;

    if (mxa_job_check_regs3(job, cmd[7])) {
        return -1;
    }
    if (MXA_REG_B(cmd[7]) || MXA_REG_C(cmd[7]) || (t & MXA_TILE_REUSE) || !rows ||
        !row_bytes) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, t);
    }
    addr = ((uint64_t)cmd[4] | (uint64_t)cmd[5] << 32) + mxa_job_reg(job, MXA_REG_A(cmd[7]));
    stride = cmd[6] ? cmd[6] : row_bytes;
    if (stride < row_bytes) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, addr, cmd[6]);
    }
    span = (uint64_t)(rows - 1) * stride + row_bytes;   /* < 2^64: 32-bit factors */
    trace_mxa_tile(job->q->index, load, t, rows, row_bytes, global, addr);
    if (load) {
        tile = mxa_tile_dst(job, t, cls, rows, row_bytes);
    } else {
        tile = mxa_tile_src(job, t, cls, rows, row_bytes);
    }
    if (!tile) {
        return -1;
    }
    if (!global) {
        /* a cluster address names a peer's SRAM (ld/st.shared::cluster) */
        owner = mxa_sram_owner(job, &addr, span, 1);
        if (!owner || (owner == job->core && mxa_sram_range(job, addr, span, 1, !load))) {
            return -1;
        }
    }
    if (global && addr + span < addr) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, addr, 0);
    }
    if (global && stride == row_bytes) {
        uint64_t bytes = (uint64_t)rows * row_bytes;

        if (load ? mxa_va_read(job, addr, tile->data, bytes) :
                   mxa_va_write(job, addr, tile->data, bytes)) {
            goto fail;
        }
    } else {
        for (uint32_t r = 0; r < rows; r++) {
            uint8_t *row = tile->data + (uint64_t)r * row_bytes;
            uint64_t a = addr + r * stride;

            if (!global) {
                uint8_t *sram = owner->sram + a;

                memcpy(load ? row : sram, load ? sram : row, row_bytes);
            } else if (load ? mxa_va_read(job, a, row, row_bytes) :
                              mxa_va_write(job, a, row, row_bytes)) {
                goto fail;
            }
        }
    }
    job->cycles += job->q->dev->timing->tile_setup +
                   (uint64_t)rows * row_bytes / job->q->dev->timing->tile_bytes_per_cycle;
    return 0;
fail:
    if (load) {
        tile->rows = tile->row_bytes = 0;
    }
    return -1;
}

/* ---- TMATMULMX / TMATMULMX.ACC ---- */

static bool mxa_dtype_fp8(unsigned t)
{
    return t == MXA_DTYPE_E4M3 || t == MXA_DTYPE_E5M2;
}

int mxa_exec_tmatmulmx(MxaJob *job, const uint32_t *cmd)
{
    MxaState *s = job->q->dev;
    uint32_t flags = MXA_CMD_FLAGS(cmd[0]), types = cmd[1], regs = cmd[5];
    uint32_t ta = MXA_REG_A(types), tb = MXA_REG_B(types);
    uint32_t src[4] = { cmd[6] & 0xffff, cmd[6] >> 16, cmd[7] & 0xffff, cmd[7] >> 16 };
    uint32_t acc = cmd[8], acc_size = cmd[9];
    bool accumulate = flags & MXA_TMM_F_ACC;
    MxaTile *a, *sa = NULL, *b, *sb = NULL, *d;
    struct mxe_gemm_desc g = { 0 };
    uint64_t m, n, k;
    unsigned blk_a, blk_b;  /* elements a block scale covers; 0: no scales */
    int err;

    if (mxa_job_check_regs3(job, regs)) {
        return -1;
    }
    if (types >> 16) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, types,
                            MXA_BADOP(MXA_BADOP_INVALID, MXA_OPERAND_NONE));
    }
    if (ta >= MXA_DTYPE_COUNT || tb >= MXA_DTYPE_COUNT) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, ta >= MXA_DTYPE_COUNT ? ta : tb,
                            MXA_BADOP(MXA_BADOP_DTYPE, ta >= MXA_DTYPE_COUNT ?
                                      MXA_OPERAND_TYPE_A : MXA_OPERAND_TYPE_B));
    }
    if (mxa_dtype_nvfp4_unpaired(ta, tb)) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, tb,
                            MXA_BADOP(MXA_BADOP_DTYPE, MXA_OPERAND_TYPE_B));
    }
    m = cmd[2] + mxa_job_reg(job, MXA_REG_A(regs));
    n = cmd[3] + mxa_job_reg(job, MXA_REG_B(regs));
    k = cmd[4] + mxa_job_reg(job, MXA_REG_C(regs));
    trace_mxa_tmatmulmx(job->q->index, m, n, k, ta, tb, accumulate);
    /* LB0, LB1, LB2: each 1..MXA_TMM_MAX_DIM; the error names the first bad one */
    {
        const uint64_t dim[3] = { m, n, k };

        for (int i = 0; i < 3; i++) {
            if (!dim[i] || dim[i] > MXA_TMM_MAX_DIM) {
                return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, dim[i],
                                    MXA_BADOP(MXA_BADOP_SHAPE, MXA_OPERAND_M + i));
            }
        }
    }
    if ((mxa_dtype_fp8(ta) || mxa_dtype_fp8(tb)) && k % 64) {
        return mxa_job_fail(job, MXA_ERR_K_ALIGN, 0, k);
    }
    blk_a = mxa_dtype_scale_block(ta);
    blk_b = mxa_dtype_scale_block(tb);
    if ((blk_a && src[1] == MXA_TILE_NONE) || (blk_b && src[3] == MXA_TILE_NONE)) {
        return mxa_tile_fail(job, blk_a && !src[1] ? MXA_TILE(MXA_TILE_U, 0) :
                             MXA_TILE(MXA_TILE_N, 0), MXA_TILE_ERR_MISSING);
    }
    if (acc > 0xffff || (acc & MXA_TILE_REUSE)) {
        return mxa_tile_fail(job, acc, MXA_TILE_ERR_NUMBER);
    }
    a = mxa_tile_src(job, src[0], MXA_TILE_T, m, mxe_dtype_row_bytes(ta, k));
    /* ceil(K / block) scales a row: with K % block != 0 the last block is partial */
    if (!a || (blk_a && !(sa = mxa_tile_src(job, src[1], MXA_TILE_U, m,
                                           DIV_ROUND_UP(k, blk_a))))) {
        return -1;
    }
    b = mxa_tile_src(job, src[2], MXA_TILE_M, n, mxe_dtype_row_bytes(tb, k));
    if (!b || (blk_b && !(sb = mxa_tile_src(job, src[3], MXA_TILE_N, n,
                                           DIV_ROUND_UP(k, blk_b))))) {
        return -1;
    }
    /* ACC<size>: the instruction's idea of the output tile must hold M x N f32 */
    if (acc_size > MXA_TILE_ACC_BYTES || m * n * 4 > acc_size) {
        return mxa_tile_fail(job, acc, MXA_TILE_ERR_SIZE);
    }
    d = accumulate ? mxa_tile_src(job, acc, MXA_TILE_ACC, m, n * 4) :
                     mxa_tile_dst(job, acc, MXA_TILE_ACC, m, n * 4);
    if (!d) {
        return -1;
    }
    g.m = m;
    g.n = n;
    g.k = k;
    g.type_a = ta;
    g.type_b = tb;
    g.type_c = g.type_d = MXA_DTYPE_F32;
    g.flags = accumulate ? MXA_GEMM_F_ACCUMULATE : 0;
    g.a = a->data;
    g.b = b->data;
    g.c = accumulate ? d->data : NULL;
    g.d = d->data;
    g.scale_a = sa ? sa->data : NULL;
    g.scale_b = sb ? sb->data : NULL;
    g.scale_block = mxa_dtype_pair_scale_block(ta, tb);  /* unlike blocks: the engine refuses */
    g.sched = (flags & MXA_TMM_F_INTERWAVE) ? MXE_SCHED_INTERWAVE : MXE_SCHED_INTRAWAVE;
    err = mxe_tmatmulmx(s->engine, &g);
    if (err) {
        d->rows = d->row_bytes = 0;
        return mxa_engine_fail(job, err, 0);
    }
    mxa_tile_release(job, src[0]);
    mxa_tile_release(job, src[2]);
    if (blk_a) {
        mxa_tile_release(job, src[1]);
    }
    if (blk_b) {
        mxa_tile_release(job, src[3]);
    }
    job->cycles += m * n * k / s->timing->tmm_macs_per_cycle + s->timing->tmm_base;
    return 0;
}

/* ---- MMA: the synchronous Ampere shapes ---- */

int mxa_exec_mma(MxaJob *job, const uint32_t *cmd)
{
    MxaState *s = job->q->dev;
    uint32_t flags = MXA_CMD_FLAGS(cmd[0]), types = cmd[1], shape = cmd[2], regs = cmd[6];
    uint32_t ta = MXA_REG_A(types), tb = MXA_REG_B(types), td = MXA_REG_C(types);
    uint32_t m = shape & 0xff, n = (shape >> 8) & 0xff, k = shape >> 16;
    bool accumulate = flags & MXA_MMA_F_ACCUMULATE, tiles = flags & MXA_MMA_F_TILES;
    uint64_t arow, brow, drow, abytes, bbytes, dbytes, a = 0, b = 0, d = 0;
    struct mxe_gemm_desc g = { 0 };
    MxaTile *ta_tile, *tb_tile, *td_tile = NULL;  /* set when tiles */
    uint8_t *buf = NULL;
    int err;

    if (mxa_job_check_regs3(job, regs)) {
        return -1;
    }
    if (types >> 24 || ta >= MXA_DTYPE_COUNT || tb >= MXA_DTYPE_COUNT ||
        td >= MXA_DTYPE_COUNT) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, -MXE_ENGINE_EINVAL_DTYPE);
    }
    trace_mxa_mma(job->q->index, m, n, k, ta, td, tiles);
    if (!m || !n || !k || k > 256) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, -MXE_ENGINE_EINVAL_SHAPE);
    }
    arow = mxe_dtype_row_bytes(ta, k);
    brow = mxe_dtype_row_bytes(tb, k);
    drow = mxe_dtype_row_bytes(td, n);
    abytes = m * arow;
    bbytes = n * brow;
    dbytes = m * drow;
    g.m = m;
    g.n = n;
    g.k = k;
    g.type_a = ta;
    g.type_b = tb;
    g.type_c = g.type_d = td;
    g.flags = (accumulate ? MXA_GEMM_F_ACCUMULATE : 0) |
              ((flags & MXA_MMA_F_SATFINITE) ? MXA_GEMM_F_SATFINITE : 0) |
              ((flags & MXA_MMA_F_B1_XOR) ? MXE_GEMM_B1_XOR : 0);
    if (tiles) {
        if (regs) {
            return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, regs);
        }
        ta_tile = mxa_tile_src(job, cmd[3], MXA_TILE_T, m, arow);
        tb_tile = ta_tile ? mxa_tile_src(job, cmd[4], MXA_TILE_M, n, brow) : NULL;
        if (!tb_tile || (cmd[5] & MXA_TILE_REUSE)) {
            return tb_tile ? mxa_tile_fail(job, cmd[5], MXA_TILE_ERR_NUMBER) : -1;
        }
        td_tile = accumulate ? mxa_tile_src(job, cmd[5], MXA_TILE_ACC, m, drow) :
                               mxa_tile_dst(job, cmd[5], MXA_TILE_ACC, m, drow);
        if (!td_tile) {
            return -1;
        }
        g.a = ta_tile->data;
        g.b = tb_tile->data;
        g.d = td_tile->data;
    } else {
        a = cmd[3] + mxa_job_reg(job, MXA_REG_A(regs));
        b = cmd[4] + mxa_job_reg(job, MXA_REG_B(regs));
        d = cmd[5] + mxa_job_reg(job, MXA_REG_C(regs));
        if (mxa_sram_range(job, a, abytes, 16, false) ||
            mxa_sram_range(job, b, bbytes, 16, false) ||
            mxa_sram_range(job, d, dbytes, 16, true)) {
            return -1;
        }
        /* each operand under 256 KiB: copies keep D from aliasing A or B */
        buf = g_try_malloc(abytes + bbytes + dbytes);
        if (!buf) {
            return mxa_job_fail(job, MXA_ERR_NO_MEMORY, 0, 0);
        }
        memcpy(buf, job->core->sram + a, abytes);
        memcpy(buf + abytes, job->core->sram + b, bbytes);
        memcpy(buf + abytes + bbytes, job->core->sram + d, dbytes);
        g.a = buf;
        g.b = buf + abytes;
        g.d = buf + abytes + bbytes;
    }
    g.c = accumulate ? g.d : NULL;
    mxa_numerics_apply(s, &g);
    err = mxe_mma(s->engine, &g);
    if (err) {
        g_free(buf);
        if (tiles) {
            td_tile->rows = td_tile->row_bytes = 0;
        }
        return mxa_engine_fail(job, err, 0);
    }
    if (tiles) {
        mxa_tile_release(job, cmd[3]);
        mxa_tile_release(job, cmd[4]);
    } else {
        memcpy(job->core->sram + d, g.d, dbytes);
        g_free(buf);
    }
    job->cycles += job->q->dev->timing->mma;
    return 0;
}

/* ---- CVT: conversion and MX quantisation of SRAM ---- */

int mxa_exec_cvt(MxaJob *job, const uint32_t *cmd)
{
    uint32_t flags = MXA_CMD_FLAGS(cmd[0]), types = cmd[1], n = cmd[2], regs = cmd[6];
    uint32_t ts = MXA_REG_A(types), td = MXA_REG_B(types);
    bool mx = flags & MXA_CVT_F_MX;
    uint64_t src, dst, sc = 0, sbytes, dbytes, nscales = 0;
    uint8_t *sbuf, *dbuf, *scbuf;
    int err;

    if (mxa_job_check_regs3(job, regs)) {
        return -1;
    }
    if (types >> 16 || ts >= MXA_DTYPE_COUNT || td >= MXA_DTYPE_COUNT ||
        (mx && (ts != MXA_DTYPE_F32 || !mxe_dtype_is_mx_elem(td)))) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, -MXE_ENGINE_EINVAL_DTYPE);
    }
    if ((!mx && (flags & MXA_CVT_F_RCEIL)) || (mx && (flags & MXA_CVT_F_SATFINITE))) {
        return mxa_job_fail(job, MXA_ERR_BAD_FLAGS, 0, flags);
    }
    trace_mxa_cvt(job->q->index, ts, td, n, mx);
    /* n <= 8 x SRAM keeps every byte count far from overflowing */
    if (!n || n > MXA_SRAM_SIZE * 8) {
        return mxa_job_fail(job, MXA_ERR_SRAM_RANGE, 0, n);
    }
    src = cmd[3] + mxa_job_reg(job, MXA_REG_A(regs));
    dst = cmd[4] + mxa_job_reg(job, MXA_REG_B(regs));
    sbytes = mxe_dtype_row_bytes(ts, n);
    dbytes = mxe_dtype_row_bytes(td, n);
    if (mxa_sram_range(job, src, sbytes, 1, false) ||
        mxa_sram_range(job, dst, dbytes, 1, true)) {
        return -1;
    }
    if (mx) {
        sc = cmd[5] + mxa_job_reg(job, MXA_REG_C(regs));
        nscales = DIV_ROUND_UP(n, MXA_MX_BLOCK);
        if (mxa_sram_range(job, sc, nscales, 1, true)) {
            return -1;
        }
    } else if (cmd[5] || MXA_REG_C(regs)) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, cmd[5]);
    }
    /* each under 2 MiB; sources copied so overlapping ranges are well defined */
    sbuf = g_try_malloc(sbytes + dbytes + nscales);
    if (!sbuf) {
        return mxa_job_fail(job, MXA_ERR_NO_MEMORY, 0, 0);
    }
    dbuf = sbuf + sbytes;
    scbuf = dbuf + dbytes;
    memcpy(sbuf, job->core->sram + src, sbytes);
    memset(dbuf, 0, dbytes);
    if (mx) {
        /* the engine reads f32 through a float pointer: give it an aligned copy */
        float *f = g_try_new(float, n);

        err = MXE_ENGINE_ENOMEM;
        if (f) {
            memcpy(f, sbuf, (size_t)n * 4);
            err = mxe_mx_quantize(f, n, td, (flags & MXA_CVT_F_RCEIL) ?
                                  MXE_MX_SCALE_RCEIL : MXE_MX_SCALE_FLOOR, scbuf, dbuf);
            g_free(f);
        }
    } else {
        err = mxe_convert(td, dbuf, ts, sbuf, n,
                          (flags & MXA_CVT_F_SATFINITE) ? MXE_CVT_SATFINITE : 0);
    }
    if (!err) {
        memcpy(job->core->sram + dst, dbuf, dbytes);
        if (mx) {
            memcpy(job->core->sram + sc, scbuf, nscales);
        }
    }
    g_free(sbuf);
    job->cycles += job->q->dev->timing->cvt_setup + n / job->q->dev->timing->cvt_elems_per_cycle;
    return err ? mxa_engine_fail(job, err, src) : 0;
}
