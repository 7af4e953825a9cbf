/*
 * MXA on-chip memory, TMA and mbarriers (Hopper's model, Documentation/isa.rst).
 *
 * Each queue owns MXA_SRAM_SIZE bytes of SRAM, zeroed when a job starts so that
 * nothing leaks between contexts (skipped when no command since the last zeroing could
 * have written it: core->sram_dirty, set by mxa_exec_one()). TMA_LOAD and TMA_STORE
 * validate their tensor map and box when issued (command processor) and move the box
 * on the copy engine (its lane thread, or the command processor when that lane is
 * idle: mxa_async_issue()) through the job's MMU: rows (a row is the box's
 * extent along dim 0) that are whole and consecutive in memory as one run straight
 * into/out of SRAM, partial or swizzled rows through a row buffer. A load then
 * completes its bytes on an mbarrier in SRAM, which is how the program learns the data
 * is there (MBAR_WAIT).
 *
 * mbarriers live in SRAM as struct MxaMbar; core->mbar_lock serialises the command
 * processor and the copy engine on them. A wait that nothing can satisfy (arrivals
 * still expected from the blocked command processor itself, or bytes expected while
 * the copy engine is idle) is reported as a deadlock instead of hanging.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/bswap.h"
#include "qemu/memalign.h"
#include "qemu/timer.h"
#include "mxa.h"
#include "trace.h"

QEMU_BUILD_BUG_ON(sizeof(struct mxa_tensor_map) != 128);

#define MXA_MBAR_MAGIC 0x6d62u       /* high half of 'phase': initialised */
#define MXA_TMA_MAX_STRIDE (1ull << 40)

enum {
    MXA_MBAR_POLL_MS = 10,
};

typedef struct MxaMbar {
    uint32_t expected;      /* arrivals per phase */
    uint32_t pending;       /* arrivals still missing in the current phase */
    int32_t tx;             /* transaction bytes still missing */
    uint32_t phase;         /* MXA_MBAR_MAGIC << 16 | phase number (low 16 bits) */
} MxaMbar;

/*
 * The cycle model's view of an mbarrier (beside SRAM, which holds the 16 bytes the
 * program sees): when the current phase's latest arrival or transaction happens in
 * modelled time, and when each parity's last phase completed.
 */
struct MxaMbarTime {
    uint64_t phase;
    uint64_t done[2];
};

static MxaMbarTime *mxa_mbar_time(MxaCore *core, uint64_t addr)
{
    return &core->mbar_time[addr / 8];     /* addr checked: 8-aligned, inside SRAM */
}
QEMU_BUILD_BUG_ON(sizeof(MxaMbar) != MXA_MBAR_BYTES);

void mxa_tma_init(MxaCore *core)
{
    /*
     * On a cache line, not where g_malloc0() puts 256 KiB (16 bytes into an mmap()ed
     * page): memcpy() of a TMA box's 4 KiB pages into SRAM ran at about half the speed
     * with its destination 16 bytes off a line (a host program: 6-7 against 10-13 GB/s),
     * and the kernels' 64-byte rows of SRAM would straddle two lines.
     */
    core->sram = qemu_memalign(64, MXA_SRAM_SIZE);
    memset(core->sram, 0, MXA_SRAM_SIZE);
    core->mbar_time = g_new0(MxaMbarTime, MXA_SRAM_SIZE / 8);
    qemu_mutex_init(&core->mbar_lock);
    qemu_cond_init(&core->mbar_cond);
}

void mxa_tma_fini(MxaCore *core)
{
    qemu_cond_destroy(&core->mbar_cond);
    qemu_mutex_destroy(&core->mbar_lock);
    qemu_vfree(core->sram);
    g_free(core->mbar_time);
}

/* Only when an earlier job may have written it: 256 KiB cost a NOP job ~10 us. */
void mxa_tma_job_start(MxaJob *job)
{
    if (job->core->sram_dirty) {
        memset(job->core->sram, 0, MXA_SRAM_SIZE);
        job->core->sram_dirty = false;
    }
}

/* [addr, addr + len) inside SRAM and addr @align-aligned (MXA_ERR_SRAM_RANGE). */
int mxa_sram_check(MxaJob *job, uint64_t addr, uint64_t len, uint64_t align)
{
    if (addr % align || addr > MXA_SRAM_SIZE || len > MXA_SRAM_SIZE - addr) {
        return mxa_job_fail(job, MXA_ERR_SRAM_RANGE, addr, (uint32_t)MIN(len, UINT32_MAX));
    }
    return 0;
}

/* ---- mbarriers ---- */

/* The mbarrier at @addr (checked) of @core's SRAM; the caller holds its mbar_lock. */
static MxaMbar *mxa_mbar_get_on(MxaJob *job, MxaCore *core, uint64_t addr, bool init)
{
    MxaMbar *m;

    if (mxa_sram_check(job, addr, MXA_MBAR_BYTES, 8)) {
        return NULL;
    }
    m = (MxaMbar *)(core->sram + addr);
    if (!init && (m->phase >> 16) != MXA_MBAR_MAGIC) {
        mxa_job_fail(job, MXA_ERR_MBARRIER, addr, MXA_MBAR_ERR_UNINIT);
        return NULL;
    }
    return m;
}

static MxaMbar *mxa_mbar_get(MxaJob *job, uint64_t addr, bool init)
{
    return mxa_mbar_get_on(job, job->core, addr, init);
}

/* Caller holds mbar_lock; @t: the modelled cycle of what just arrived. */
static void mxa_mbar_maybe_complete(MxaCore *core, MxaMbar *m, uint64_t addr, uint64_t t)
{
    MxaMbarTime *mt = mxa_mbar_time(core, addr);

    mt->phase = MAX(mt->phase, t);
    if (m->pending == 0 && m->tx == 0) {
        mt->done[m->phase & 1] = mt->phase;
        mt->phase = 0;
        qatomic_set(&m->phase, (MXA_MBAR_MAGIC << 16) | ((m->phase + 1) & 0xffff));
        m->pending = m->expected;
        qemu_cond_broadcast(&core->mbar_cond);
    }
}

static int mxa_mbar_add_tx(MxaJob *job, MxaMbar *m, uint64_t addr, int64_t delta)
{
    int64_t tx = (int64_t)m->tx + delta;

    if (tx > MXA_MBAR_MAX_TX || tx < -MXA_MBAR_MAX_TX) {
        return mxa_job_fail(job, MXA_ERR_MBARRIER, addr, MXA_MBAR_ERR_TX);
    }
    m->tx = tx;
    return 0;
}

/* complete_tx from the copy engine, on @core's mbarrier (a multicast's targets). */
static int mxa_mbar_complete_tx(MxaJob *job, MxaCore *core, uint64_t addr, uint64_t bytes)
{
    MxaMbar *m;
    int ret = -1;

    qemu_mutex_lock(&core->mbar_lock);
    m = mxa_mbar_get_on(job, core, addr, false);
    if (m && !mxa_mbar_add_tx(job, m, addr, -(int64_t)bytes)) {
        mxa_mbar_maybe_complete(core, m, addr, job->cycles);   /* the load's completion */
        ret = 0;
    }
    qemu_mutex_unlock(&core->mbar_lock);
    return ret;
}

static bool mxa_copy_engine_idle(MxaCore *core)
{
    MxaLane *lane = &core->lanes[MXA_GROUP_COPY];
    bool idle;

    qemu_mutex_lock(&lane->lock);
    idle = lane->done == lane->issued;
    qemu_mutex_unlock(&lane->lock);
    return idle;
}

/*
 * An MBAR_WAIT on @mbar returned in phase @now: the TMA loads that completed earlier
 * phases of it are observed, their boxes are the program's again.
 */
static void mxa_tma_observed(MxaJob *job, uint64_t mbar, uint32_t now)
{
    unsigned j = 0;

    for (unsigned i = 0; i < job->ntma; i++) {
        if (job->tma[i].mbar != mbar || (int16_t)(job->tma[i].phase - now) >= 0) {
            job->tma[j++] = job->tma[i];
        }
    }
    job->ntma = j;
}

/*
 * A command reads or writes [start, start + len) of SRAM: not a box a TMA load may
 * still be writing (MXA_ERR_TMA_HAZARD, at the command's offset, whatever the timing).
 */
int mxa_tma_hazard(MxaJob *job, uint64_t start, uint64_t len)
{
    for (unsigned i = 0; i < job->ntma; i++) {
        if (start < job->tma[i].end && job->tma[i].start < start + len) {
            return mxa_job_fail(job, MXA_ERR_TMA_HAZARD, job->tma[i].start,
                                job->tma[i].end - job->tma[i].start);
        }
    }
    return 0;
}

static int mxa_mbar_wait(MxaJob *job, uint64_t addr, uint32_t parity)
{
    MxaCore *core = job->core;
    int64_t start = get_clock();
    uint32_t why = 0, now = 0;
    MxaMbar *m;

    if (core->dev->spin_ns && addr % 8 == 0 && addr <= MXA_SRAM_SIZE - MXA_MBAR_BYTES) {
        /* the copy engine usually completes the phase within microseconds */
        uint32_t *phase = &((MxaMbar *)(core->sram + addr))->phase;

        mxa_spin_until(core->dev->spin_ns, (qatomic_read(phase) >> 16) != MXA_MBAR_MAGIC ||
                       (qatomic_read(phase) & 1) != parity || qatomic_read(&core->abort));
    }
    qemu_mutex_lock(&core->mbar_lock);
    for (;;) {
        m = mxa_mbar_get(job, addr, false);
        if (!m) {
            break;
        }
        if ((m->phase & 1) != parity) {
            now = m->phase & 0xffff;
            break;      /* the phase of that parity has completed */
        }
        if (job->cluster->size > 1 &&
            ctpop32(qatomic_read(&job->cluster->ended_mask)) < job->cluster->size - 1) {
            /* running peers may still arrive or multicast into it: the timeout decides */
            if (get_clock() - start > (int64_t)core->dev->mbar_timeout_us * 1000) {
                why = MXA_MBAR_ERR_TIMEOUT;
            }
        } else if (m->pending) {
            why = MXA_MBAR_ERR_DEADLOCK;    /* only this thread could arrive */
        } else if (mxa_copy_engine_idle(core)) {
            /* a failed copy explains it best; else nothing will bring the bytes */
            MxaLane *lane = &core->lanes[MXA_GROUP_COPY];

            qemu_mutex_lock(&lane->lock);
            why = lane->error ? 0 : MXA_MBAR_ERR_DEADLOCK;
            qemu_mutex_unlock(&lane->lock);
            if (!why) {
                qemu_mutex_unlock(&core->mbar_lock);
                return mxa_async_drain(job, true) ? -1 :
                       mxa_job_fail(job, MXA_ERR_MBARRIER, addr, MXA_MBAR_ERR_DEADLOCK);
            }
        } else if (get_clock() - start > (int64_t)core->dev->mbar_timeout_us * 1000) {
            why = MXA_MBAR_ERR_TIMEOUT;
        }
        if (why || qatomic_read(&core->abort)) {
            break;
        }
        qemu_cond_timedwait(&core->mbar_cond, &core->mbar_lock, MXA_MBAR_POLL_MS);
    }
    qemu_mutex_unlock(&core->mbar_lock);
    if (!m || qatomic_read(&core->abort)) {
        return -1;
    }
    if (why) {
        return mxa_job_fail(job, MXA_ERR_MBARRIER, addr, why);
    }
    mxa_tma_observed(job, addr, now);
    /* modelled: the phase ended when its last arrival or transaction did */
    qemu_mutex_lock(&core->mbar_lock);
    job->cycles = MAX(job->cycles, mxa_mbar_time(core, addr)->done[parity]) +
                  job->core->dev->timing->mbar_wait;
    qemu_mutex_unlock(&core->mbar_lock);
    return 0;
}

int mxa_exec_mbar(MxaJob *job, const uint32_t *cmd)
{
    MxaCore *core = job->core;
    uint32_t op = MXA_CMD_OPCODE(cmd[0]);
    uint64_t addr = cmd[1];
    MxaMbar *m;
    int ret = 0;

    if ((op == MXA_OP_MBAR_ARRIVE || op == MXA_OP_MBAR_COMPLETE_TX) &&
        addr >= MXA_DSMEM_BASE) {
        /* mbarrier.arrive/complete_tx.shared::cluster: a peer's (or its own) barrier */
        core = mxa_sram_owner(job, &addr, MXA_MBAR_BYTES, 8);
        if (!core) {
            return -1;
        }
    }
    if (op != MXA_OP_MBAR_WAIT) {
        job->cycles += job->core->dev->timing->mbar;    /* a wait: its wake-up, after it */
    }
    if (op == MXA_OP_MBAR_WAIT) {
        if (cmd[2] & ~0xff01u || ((cmd[2] >> 8) & 0xff) >= MXA_NUM_REGS) {
            return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, addr, cmd[2]);
        }
        return mxa_mbar_wait(job, addr, (cmd[2] + mxa_job_reg(job, (cmd[2] >> 8) & 0xff)) & 1);
    }
    qemu_mutex_lock(&core->mbar_lock);
    m = mxa_mbar_get_on(job, core, addr, op == MXA_OP_MBAR_INIT);
    if (!m) {
        ret = -1;
    } else if (op == MXA_OP_MBAR_INIT) {
        if (cmd[2] == 0 || cmd[2] > MXA_MBAR_MAX_COUNT) {
            ret = mxa_job_fail(job, MXA_ERR_BAD_OPERAND, addr, cmd[2]);
        } else {
            *m = (MxaMbar){ .expected = cmd[2], .pending = cmd[2],
                            .phase = MXA_MBAR_MAGIC << 16 };
            *mxa_mbar_time(core, addr) = (MxaMbarTime){ 0 };
        }
    } else if (op == MXA_OP_MBAR_COMPLETE_TX) {
        ret = mxa_mbar_add_tx(job, m, addr, -(int64_t)cmd[2]);
        if (!ret) {
            mxa_mbar_maybe_complete(core, m, addr, job->cycles);
        }
    } else {
        ret = mxa_mbar_add_tx(job, m, addr, cmd[2]);
        if (!ret && op == MXA_OP_MBAR_ARRIVE) {
            if (!m->pending) {
                ret = mxa_job_fail(job, MXA_ERR_MBARRIER, addr, MXA_MBAR_ERR_ARRIVALS);
            } else {
                m->pending--;
                mxa_mbar_maybe_complete(core, m, addr, job->cycles);
            }
        }
    }
    qemu_mutex_unlock(&core->mbar_lock);
    return ret;
}

/* ---- TMA ---- */

static uint32_t mxa_swizzle_mask(uint8_t swizzle)
{
    return swizzle ? (2u << swizzle) / 2 - 1 : 0;  /* 32B: 1, 64B: 3, 128B: 7 */
}

/* Validate @m (host order) by uapi's rules; info names the first bad field. */
static int mxa_tma_check_map(MxaJob *job, uint64_t va, const struct mxa_tensor_map *m,
                             uint64_t *box_bytes)
{
    uint32_t bad = mxa_tensor_map_check(m, box_bytes);

    return bad ? mxa_job_fail(job, MXA_ERR_BAD_TENSOR_MAP, va, bad) : 0;
}

int mxa_exec_tma(MxaJob *job, const uint32_t *cmd, bool load)
{
    uint64_t map_va = (uint64_t)cmd[1] | ((uint64_t)cmd[2] << 32);
    uint32_t cregs = cmd[10], aregs = cmd[11];
    struct mxa_tensor_map m;
    uint64_t bytes, sram, mbar = 0;
    uint32_t mcast = (aregs & MXA_TMA_MCAST_MASK) >> MXA_TMA_MCAST_SHIFT;
    bool mine = !mcast || (mcast & (1u << job->rank));  /* the box lands here too */
    MxaAsyncOp *op;

    if (map_va % 64) {
        return mxa_job_fail(job, MXA_ERR_MISALIGNED, map_va, 64);
    }
    if (cregs >> 25 || MXA_REG_A(aregs) >= MXA_NUM_REGS ||
        MXA_REG_B(aregs) >= MXA_NUM_REGS || aregs >> 24 ||
        (!load && (cmd[4] || MXA_REG_B(aregs) || mcast))) {
        return mxa_job_fail(job, MXA_ERR_BAD_OPERAND, 0, 0);
    }
    if (mcast >> job->cluster->size) {
        /* a multicast to ranks the cluster does not have */
        return mxa_job_fail(job, MXA_ERR_CLUSTER, mcast, MXA_CLUSTER_ERR_OUTSIDE);
    }
    if (mxa_va_read(job, map_va, &m, sizeof(m))) {
        return -1;
    }
    m.global_addr = le64_to_cpu(m.global_addr);
    m.reserved0 = le32_to_cpu(m.reserved0);
    for (unsigned d = 0; d < MXA_TMA_MAX_RANK; d++) {
        m.dims[d] = le32_to_cpu(m.dims[d]);
        m.box[d] = le32_to_cpu(m.box[d]);
        if (d < 4) {
            m.strides[d] = le64_to_cpu(m.strides[d]);
        }
    }
    if (mxa_tma_check_map(job, map_va, &m, &bytes)) {
        return -1;
    }
    sram = (uint64_t)cmd[3] + mxa_job_reg(job, MXA_REG_A(aregs));
    if (mxa_sram_check(job, sram, ROUND_UP(bytes, 128), 128) ||
        (mine && (load ? mxa_sram_write_hazard(job, sram, ROUND_UP(bytes, 128)) :
                         mxa_sram_hazard(job, sram, ROUND_UP(bytes, 128))))) {
        return -1;
    }
    if (load && !mine) {
        /* the targets' own commands keep their boxes: only the address is checked here */
        mbar = (uint64_t)cmd[4] + mxa_job_reg(job, MXA_REG_B(aregs));
        if (mxa_sram_check(job, mbar, MXA_MBAR_BYTES, 8)) {
            return -1;
        }
    } else if (load) {
        MxaMbar *mb;
        uint32_t phase;

        mbar = (uint64_t)cmd[4] + mxa_job_reg(job, MXA_REG_B(aregs));
        qemu_mutex_lock(&job->core->mbar_lock);
        mb = mxa_mbar_get(job, mbar, false);
        phase = mb ? mb->phase & 0xffff : 0;
        qemu_mutex_unlock(&job->core->mbar_lock);
        if (!mb) {
            return -1;
        }
        /* the box is the program's again once an MBAR_WAIT observes this phase */
        if (job->ntma == MXA_MAX_PENDING_TMA) {
            return mxa_job_fail(job, MXA_ERR_TMA_HAZARD, sram, 0);
        }
        job->tma[job->ntma++] = (typeof(job->tma[0])){
            .start = sram, .end = sram + bytes, .mbar = mbar, .phase = phase };
    }
    op = g_new0(MxaAsyncOp, 1);
    op->map = m;
    for (unsigned d = 0; d < MXA_TMA_MAX_RANK; d++) {
        op->coord[d] = (int32_t)(cmd[5 + d] + (uint32_t)mxa_job_reg(job, (cregs >> (5 * d)) & 31));
    }
    op->sram = sram;
    op->mbar = mbar;
    op->len = bytes;
    op->mcast = mcast;
    return mxa_async_issue(job, MXA_GROUP_COPY, op);
}

/* Move a run of whole rows, contiguous in memory and in SRAM @base (no swizzle). */
static int mxa_tma_run(MxaJob *job, MxaRamCache *ram, bool load, uint64_t va, uint8_t *base,
                       uint64_t sram, uint64_t len)
{
    if (!len) {
        return 0;
    }
    return mxa_va_batch_rw(job, ram, va, base + sram, len, !load);
}

/*
 * The cores a multicast load lands on (ranks of @mcast; the issuer alone for 0): NULL
 * with the job failed when one of them has ended.
 */
static unsigned mxa_tma_targets(MxaJob *job, uint32_t mcast, MxaCore **out)
{
    MxaCluster *cl = job->cluster;
    unsigned n = 0;

    if (!mcast) {
        out[0] = job->core;
        return 1;
    }
    for (uint32_t r = 0; r < cl->size; r++) {
        if (!(mcast & (1u << r))) {
            continue;
        }
        if (r != job->rank && (qatomic_read(&cl->ended_mask) & (1u << r))) {
            mxa_job_fail(job, MXA_ERR_CLUSTER, r, MXA_CLUSTER_ERR_PEER_ENDED);
            return 0;
        }
        out[n++] = cl->cores[r];
    }
    return n;
}

/*
 * On the copy engine: move the box row by row. Without a swizzle, rows that lie whole
 * inside the tensor go straight between memory and SRAM, and consecutive such rows
 * that are also consecutive in memory (a dense box) go as one run: one translation per
 * page and one DMA per physically contiguous range. Partial rows and swizzled boxes go
 * through a row buffer (out-of-bounds fill, 16-byte swizzle). All the rows share one
 * RCU read section and RAM cache (@ram): a box of 64 rows of 32 bytes, each looking
 * the memory map up, took 19.5 us. *@read: the bytes read from memory.
 */
static int mxa_tma_rows(MxaJob *job, MxaAsyncOp *op, bool load, uint8_t *sram,
                        MxaRamCache *ram, uint64_t *read)
{
    const struct mxa_tensor_map *m = &op->map;
    uint32_t eb = m->elem_bytes, row_bytes = m->box[0] * eb;
    uint32_t mask = mxa_swizzle_mask(m->swizzle);
    uint64_t nrows = op->len / row_bytes;
    int64_t c0 = op->coord[0];
    int64_t lo = MAX(0, -c0), hi = MIN((int64_t)m->box[0], (int64_t)m->dims[0] - c0);
    bool whole = !mask && lo == 0 && hi == m->box[0];
    uint8_t fill = m->oob_fill == MXA_TMA_OOB_NAN ? 0xff : 0;
    uint64_t run_va = 0, run_sram = 0, run_len = 0;
    uint8_t row[MXA_TMA_MAX_BOX * 8];

    for (uint64_t r = 0; r < nrows; r++) {
        uint64_t base = m->global_addr, rest = r, sram_row = op->sram + r * row_bytes;
        bool inside = hi > lo;

        if (qatomic_read(&job->core->abort)) {
            return -1;
        }
        for (unsigned d = 1; d < m->rank; d++) {
            int64_t c = op->coord[d] + (int64_t)(rest % m->box[d]);

            rest /= m->box[d];
            if (c < 0 || c >= m->dims[d]) {
                inside = false;
                break;
            }
            base += (uint64_t)c * m->strides[d - 1];
        }
        if (inside) {
            base += (uint64_t)(c0 + lo) * eb;
        }
        if (inside && whole) {
            if (run_len && base == run_va + run_len && run_len < MXA_SRAM_SIZE) {
                run_len += row_bytes;
                continue;
            }
            if (mxa_tma_run(job, ram, load, run_va, sram, run_sram, run_len)) {
                return -1;
            }
            *read += run_len;
            run_va = base;
            run_sram = sram_row;
            run_len = row_bytes;
            continue;
        }
        /* rows move in order: the pending run first */
        if (mxa_tma_run(job, ram, load, run_va, sram, run_sram, run_len)) {
            return -1;
        }
        *read += run_len;
        run_len = 0;
        if (!mask) {
            if (load) {
                if (!inside) {
                    memset(sram + sram_row, fill, row_bytes);
                    continue;
                }
                memset(sram + sram_row, fill, lo * eb);
                memset(sram + sram_row + hi * eb, fill, row_bytes - hi * eb);
                if (mxa_va_batch_rw(job, ram, base, sram + sram_row + lo * eb,
                                    (hi - lo) * eb, false)) {
                    return -1;
                }
                *read += (hi - lo) * eb;
            } else if (inside &&
                       mxa_va_batch_rw(job, ram, base, sram + sram_row + lo * eb, (hi - lo) * eb,
                                       true)) {
                return -1;
            }
            continue;
        }
        if (load) {
            memset(row, fill, row_bytes);
            if (inside &&
                mxa_va_batch_rw(job, ram, base, row + lo * eb, (hi - lo) * eb, false)) {
                return -1;
            }
            *read += inside ? (hi - lo) * eb : 0;
            for (uint32_t u = 0; u < row_bytes; u += 16) {
                memcpy(sram + mxa_swizzle(sram_row + u, mask, 0), row + u, 16);
            }
        } else {
            for (uint32_t u = 0; u < row_bytes; u += 16) {
                memcpy(row + u, sram + mxa_swizzle(sram_row + u, mask, 0), 16);
            }
            if (inside &&
                mxa_va_batch_rw(job, ram, base, row + lo * eb, (hi - lo) * eb, true)) {
                return -1;
            }
        }
    }
    if (mxa_tma_run(job, ram, load, run_va, sram, run_sram, run_len)) {
        return -1;
    }
    *read += load ? run_len : 0;
    return 0;
}

/* On the copy engine: a TMA_LOAD or TMA_STORE. */
int mxa_lane_tma(MxaJob *job, MxaAsyncOp *op)
{
    bool load = MXA_CMD_OPCODE(op->header) == MXA_OP_TMA_LOAD;
    MxaCore *dst[MXA_CLUSTER_MAX];
    unsigned ndst = load ? mxa_tma_targets(job, op->mcast, dst) : 1;
    uint64_t read = 0;
    MxaRamCache ram;
    uint8_t *sram;
    int ret;

    if (!ndst) {
        return -1;      /* dst[] holds no target: read none of it */
    }
    sram = load ? dst[0]->sram : job->core->sram;
    mxa_va_batch_open(job, &ram);
    ret = mxa_tma_rows(job, op, load, sram, &ram, &read);
    mxa_va_batch_close(job, &ram);
    if (ret) {
        return -1;
    }
    if (!load) {
        return 0;
    }
    job->core->lanes[MXA_GROUP_COPY].tma_load_bytes += read;   /* the op's one thread */
    /* a multicast: read once, the same bytes at the same offset of every target */
    for (unsigned i = 0; i < ndst; i++) {
        if (i) {
            memcpy(dst[i]->sram + op->sram, sram + op->sram, op->len);
        }
        qatomic_set(&dst[i]->sram_dirty, true);
    }
    for (unsigned i = 0; i < ndst; i++) {
        if (mxa_mbar_complete_tx(job, dst[i], op->mbar, op->len)) {
            return -1;
        }
    }
    return 0;
}
