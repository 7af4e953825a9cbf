/*
 * MXA device MMU: every DMA a job makes goes through its context's page table.
 *
 * A job binds its context at start (context table entry read once); translations are
 * cached in a TLB of the thread doing the access (the instance's command processor or
 * one of its asynchronous lanes; MXA_TLB_ENTRIES, slots by mxa_tlb_slot()), tagged with
 * the context id and the device-wide TLB generation, which the driver bumps through
 * MXA_REG_TLB_INVAL (and which changes whenever the context table is reprogrammed). A
 * miss prefetches the neighbouring leaf entries and remembers the leaf table
 * (mxa_mmu_walk()); an access moves each run of DMA-contiguous pages with one DMA. A
 * missing or read-only mapping fails the job with MXA_ERR_MMU_FAULT, the faulting VA
 * and the access type.
 *
 * Invalidation is a barrier (TLB_STATUS): each thread publishes the generation its
 * translations and DMA use while a run is in flight (mxa_dma_begin()/mxa_dma_end()),
 * and TLB_STATUS.BUSY reads 1 while any thread is still in flight under an older one.
 * The driver frees a page only once BUSY reads 0 after the invalidation that unmapped
 * it, so no translation of it is left in use.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/rcu.h"
#include "mxa.h"
#include "trace.h"

enum {
    MXA_TLB_PREFETCH = 16,              /* leaf entries read per TLB miss */
    MXA_DMA_RUN_MAX = 1024 * 1024,      /* bytes moved by one DMA at most */
};

#define MXA_MMU_PROBE (1u << 31)        /* in mxa_mmu_fault()'s why: record nothing */

/* Publish the generation this thread's next translations and DMA run under. */
static uint64_t mxa_dma_begin(MxaJob *job)
{
    MxaState *s = job->q->dev;
    uint64_t gen;

    /* seq_cst store then re-read: an invalidation either is seen here or sees us */
    do {
        gen = qatomic_read(&s->tlb_gen);
        qatomic_set(job->dma_gen, gen);
        smp_mb();
    } while (qatomic_read(&s->tlb_gen) != gen);
    return gen;
}

static void mxa_dma_end(MxaJob *job)
{
    qatomic_store_release(job->dma_gen, 0);
}

/*
 * Any generation but the current one is stale: no ordering of the numbers is used, so
 * the wrap at 2^64 is harmless. Only 0 is reserved ("none in flight"), and the bump
 * skips it (x-tlb-gen starts a device near the wrap, for the test).
 */
static bool mxa_gen_stale(uint64_t *dma_gen, uint64_t gen)
{
    uint64_t g = qatomic_read(dma_gen);

    return g && g != gen;
}

void mxa_tlb_bump(MxaState *s)
{
    if (qatomic_inc_fetch(&s->tlb_gen) == 0) {
        qatomic_inc(&s->tlb_gen);
    }
}

/* TLB_STATUS.BUSY: a thread still in flight under a generation older than the current. */
bool mxa_tlb_busy(MxaState *s)
{
    uint64_t gen = qatomic_read(&s->tlb_gen);

    smp_mb();
    for (unsigned i = 0; i < s->num_cores; i++) {
        MxaCore *core = &s->cores[i];

        if (mxa_gen_stale(&core->dma_gen, gen)) {
            return true;
        }
        for (unsigned l = 0; l < MXA_GROUP_CLASSES; l++) {
            if (mxa_gen_stale(&core->lanes[l].dma_gen, gen)) {
                return true;
            }
        }
    }
    return false;
}

int mxa_mmu_bind(MxaJob *job)
{
    MxaState *s = job->q->dev;
    uint64_t table = qatomic_read(&s->ctx_table);
    uint32_t count = qatomic_read(&s->ctx_count);
    struct mxa_ctx_desc cd;
    bool ok;

    mxa_dma_begin(job);
    ok = job->desc.ctx < count && table &&
         mxa_dma_read(s, table + (uint64_t)job->desc.ctx * sizeof(cd), &cd,
                      sizeof(cd)) == MEMTX_OK &&
         (le32_to_cpu(cd.flags) & MXA_CTX_F_VALID);
    mxa_dma_end(job);
    if (!ok) {
        return mxa_job_fail(job, MXA_ERR_BAD_CONTEXT, 0, job->desc.ctx);
    }
    job->pt_root = le64_to_cpu(cd.pt_root) & MXA_PTE_ADDR_MASK;
    return 0;
}

static int mxa_mmu_fault(MxaJob *job, uint64_t va, bool write, uint32_t why)
{
    if (why & MXA_MMU_PROBE) {
        return -1;          /* a probe: the caller will translate it for real */
    }
    trace_mxa_guest_err_mmu_fault(job->q->index, job->desc.ctx, va, write);
    return mxa_job_fail(job, MXA_ERR_MMU_FAULT, va,
                        (write ? MXA_FAULT_WRITE : MXA_FAULT_READ) | why);
}

/* The slot of page @vpn: its group of MXA_TLB_PREFETCH by a hash, then its place in it. */
static unsigned mxa_tlb_slot(uint64_t vpn)
{
    uint64_t g = vpn / MXA_TLB_PREFETCH;

    QEMU_BUILD_BUG_ON(MXA_TLB_ENTRIES & (MXA_TLB_ENTRIES - 1));
    g = (g ^ (g >> 7) ^ (g >> 14) ^ (g >> 21)) * MXA_TLB_PREFETCH;
    return (g + vpn % MXA_TLB_PREFETCH) & (MXA_TLB_ENTRIES - 1);
}

static bool mxa_tlb_hit(const MxaTlbEntry *e, uint64_t tag, uint32_t ctx, uint64_t gen)
{
    return e->valid && e->vpn == tag && e->ctx == ctx && e->gen == gen;
}

/*
 * The DMA address of the leaf table that maps @va: the upper levels walked, or the walk
 * cache (slot MXA_TLB_WALK) when it already names this 2 MiB region's table.
 */
static int mxa_mmu_leaf_table(MxaJob *job, uint64_t va, bool write, uint64_t gen, bool probe,
                              uint64_t *table)
{
    const uint32_t why = MXA_FAULT_NOT_PRESENT | (probe ? MXA_MMU_PROBE : 0);
    uint64_t region = va >> (MXA_PAGE_SHIFT + 9), t = job->pt_root, pte = 0;
    MxaTlbEntry *w = &job->tlb[MXA_TLB_WALK];

    if (mxa_tlb_hit(w, region, job->desc.ctx, gen)) {
        *table = w->pte;
        return 0;
    }
    for (int level = MXA_PT_LEVELS - 1; level >= 1; level--) {
        uint64_t addr = t + mxa_pt_index(va, level) * sizeof(uint64_t);

        if (mxa_dma_read(job->q->dev, addr, &pte, sizeof(pte)) != MEMTX_OK) {
            return mxa_mmu_fault(job, va, write, why);
        }
        pte = le64_to_cpu(pte);
        if (!(pte & MXA_PTE_VALID)) {
            return mxa_mmu_fault(job, va, write, why);
        }
        t = pte & MXA_PTE_ADDR_MASK;
    }
    *w = (MxaTlbEntry){ .vpn = region, .pte = t, .ctx = job->desc.ctx, .gen = gen, .valid = true };
    *table = t;
    return 0;
}

/*
 * Fill the TLB for @va: walk to the leaf table (the upper levels are skipped when the
 * walk cache, slot MXA_TLB_WALK, already names the leaf table of this 2 MiB region),
 * then read MXA_TLB_PREFETCH aligned leaf entries in one DMA and cache the valid ones,
 * so that a sequential stream costs one small read per 16 pages.
 */
static int mxa_mmu_walk(MxaJob *job, uint64_t va, bool write, uint64_t gen, bool probe)
{
    MxaQueue *q = job->q;
    uint64_t vpn = va >> MXA_PAGE_SHIFT, first = vpn & ~(uint64_t)(MXA_TLB_PREFETCH - 1);
    const uint32_t why = MXA_FAULT_NOT_PRESENT | (probe ? MXA_MMU_PROBE : 0);
    uint64_t table, pte;
    uint64_t ptes[MXA_TLB_PREFETCH];

    QEMU_BUILD_BUG_ON(MXA_PT_ENTRIES % MXA_TLB_PREFETCH ||
                      MXA_TLB_ENTRIES % MXA_TLB_PREFETCH);
    if (mxa_mmu_leaf_table(job, va, write, gen, probe, &table)) {
        return -1;
    }
    /* the entries lie in the leaf table's page (table is page aligned) */
    if (mxa_dma_read(q->dev,
                     table + (first & (MXA_PT_ENTRIES - 1)) * sizeof(uint64_t), ptes,
                     sizeof(ptes)) != MEMTX_OK) {
        return mxa_mmu_fault(job, va, write, why);
    }
    for (unsigned i = 0; i < MXA_TLB_PREFETCH; i++) {
        pte = le64_to_cpu(ptes[i]);
        if (pte & MXA_PTE_VALID) {
            job->tlb[mxa_tlb_slot(first + i)] =
                (MxaTlbEntry){ .vpn = first + i, .pte = pte, .ctx = job->desc.ctx,
                               .gen = gen, .valid = true };
        }
    }
    if (!(le64_to_cpu(ptes[vpn - first]) & MXA_PTE_VALID)) {
        return mxa_mmu_fault(job, va, write, why);
    }
    return 0;
}

/* Translate one VA; returns the DMA address or fails the job. */
static int mxa_mmu_translate(MxaJob *job, uint64_t va, bool write, uint64_t *dma,
                             bool probe, uint64_t gen)
{
    uint64_t vpn = va >> MXA_PAGE_SHIFT;
    MxaTlbEntry *e = &job->tlb[mxa_tlb_slot(vpn)];
    uint32_t p = probe ? MXA_MMU_PROBE : 0;

    if (va >> MXA_VA_BITS) {
        return mxa_mmu_fault(job, va, write, MXA_FAULT_NOT_PRESENT | p);
    }
    if (!mxa_tlb_hit(e, vpn, job->desc.ctx, gen) &&
        mxa_mmu_walk(job, va, write, gen, probe)) {
        return -1;
    }
    if (write && !(e->pte & MXA_PTE_WRITE)) {
        return mxa_mmu_fault(job, va, write, MXA_FAULT_READ_ONLY | p);
    }
    *dma = (e->pte & MXA_PTE_ADDR_MASK) | (va & (MXA_PAGE_SIZE - 1));
    return 0;
}

/*
 * One DMA per run of pages that are contiguous in the DMA address space too. Pages
 * after the first are only probed: one that does not translate ends the run, and is
 * translated (and faults) for real once the run before it has moved, as it would page
 * by page.
 */
static int mxa_va_access_rcu(MxaJob *job, MxaRamCache *ram, uint64_t va, void *buf,
                             uint64_t len, bool write)
{
    uint8_t *p = buf;

    if (va + len < va) {
        return mxa_mmu_fault(job, va, write, MXA_FAULT_NOT_PRESENT);
    }
    while (len) {
        uint64_t chunk = MIN(len, MXA_PAGE_SIZE - (va & (MXA_PAGE_SIZE - 1)));
        uint64_t dma, next, gen;
        MemTxResult r;

        /* a reset stops a large transfer between runs, not after it */
        if (job->core && qatomic_read(&job->core->abort)) {
            return mxa_job_fail(job, MXA_ERR_ABORTED, va, 0);
        }
        gen = ram->gen ? ram->gen : mxa_dma_begin(job);
        if (mxa_mmu_translate(job, va, write, &dma, false, gen)) {
            if (!ram->gen) {
                mxa_dma_end(job);
            }
            return -1;
        }
        while (chunk < len && chunk < MXA_DMA_RUN_MAX &&
               !mxa_mmu_translate(job, va + chunk, write, &next, true, gen) &&
               next == dma + chunk) {
            chunk += MIN(len - chunk, MXA_PAGE_SIZE);
        }
        if (job->q->dev->dma_delay_us) {
            g_usleep(job->q->dev->dma_delay_us);
        }
        r = mxa_dma_rw_cached(job->q->dev, ram, dma, p, chunk, write);
        if (!ram->gen) {
            mxa_dma_end(job);
        }
        if (r != MEMTX_OK) {
            /* the page table points at something that is not RAM */
            return mxa_mmu_fault(job, va, write, MXA_FAULT_NOT_PRESENT);
        }
        va += chunk;
        p += chunk;
        len -= chunk;
    }
    return 0;
}

/* One RCU read section and an empty RAM cache for a batch of accesses. */
static void mxa_va_batch_begin(MxaRamCache *ram)
{
    memset(ram, 0, sizeof(*ram));
    rcu_read_lock();
}

static void mxa_va_batch_end(void)
{
    rcu_read_unlock();
}

void mxa_va_batch_open(MxaJob *job, MxaRamCache *ram)
{
    mxa_va_batch_begin(ram);
    ram->gen = mxa_dma_begin(job);     /* a full barrier: after every earlier access */
}

void mxa_va_batch_close(MxaJob *job, MxaRamCache *ram)
{
    smp_mb();                           /* every access of the batch before what follows */
    mxa_dma_end(job);
    ram->gen = 0;
    mxa_va_batch_end();
}

int mxa_va_batch_rw(MxaJob *job, MxaRamCache *ram, uint64_t va, void *buf, uint64_t len,
                    bool write)
{
    return mxa_va_access_rcu(job, ram, va, buf, len, write);
}

/* A batch of one: its runs share the RAM section found. */
static int mxa_va_access(MxaJob *job, uint64_t va, void *buf, uint64_t len, bool write)
{
    MxaRamCache ram;
    int ret;

    mxa_va_batch_begin(&ram);
    ret = mxa_va_batch_rw(job, &ram, va, buf, len, write);
    mxa_va_batch_end();
    return ret;
}

int mxa_va_read(MxaJob *job, uint64_t va, void *buf, uint64_t len)
{
    return mxa_va_access(job, va, buf, len, false);
}

int mxa_va_write(MxaJob *job, uint64_t va, const void *buf, uint64_t len)
{
    return mxa_va_access(job, va, (void *)buf, len, true);
}

uint64_t mxa_va_window_open(MxaJob *job)
{
    rcu_read_lock();
    if (job->q->dev->dma_delay_us) {
        g_usleep(job->q->dev->dma_delay_us);
    }
    return mxa_dma_begin(job);
}

void mxa_va_window_close(MxaJob *job)
{
    mxa_dma_end(job);
    rcu_read_unlock();
}

/* The host address of the page at @va (read access), or NULL with the job failed. */
static const uint8_t *mxa_va_page(MxaJob *job, MxaRamCache *c, uint64_t va, uint64_t gen)
{
    uint64_t dma;
    const uint8_t *p;

    if (mxa_mmu_translate(job, va, false, &dma, false, gen)) {
        return NULL;
    }
    p = mxa_dma_host_page(job->q->dev, c, dma & ~(uint64_t)(MXA_PAGE_SIZE - 1));
    if (!p) {
        mxa_mmu_fault(job, va, false, MXA_FAULT_NOT_PRESENT);
    }
    return p;
}

/*
 * The host addresses of the @n pages from page-aligned @va (read access) into @page,
 * within a window of @gen: each leaf table's entries are read where they lie in guest
 * RAM, one walk a 2 MiB region, where a page at a time took a TLB lookup and, every
 * 16 pages, a fill through the memory API (15 ns a page: 0.04 ms of a 4096^2 MXFP4
 * GEMV's 0.4). A page that does not translate fails the job at its VA, or at @fault_va
 * for the first page (the operand's start). Returns 0, -1 (the job failed), or 1
 * where a leaf table is not RAM the device reads in place (or the range leaves the VA
 * space): the pages from there on stay NULL, for the caller to translate one by one.
 */
static int mxa_va_pages(MxaJob *job, uint64_t gen, MxaRamCache *ram, uint64_t va, uint64_t n,
                        const uint8_t **page, uint64_t fault_va)
{
    MxaState *s = job->q->dev;
    MxaRamCache ptc = { 0 };        /* the page tables' section */

    for (uint64_t done = 0; done < n;) {
        uint64_t v = va + (done << MXA_PAGE_SHIFT);
        unsigned idx = mxa_pt_index(v, 0);
        uint64_t cnt = MIN(n - done, (uint64_t)(MXA_PT_ENTRIES - idx)), table;
        const uint8_t *tp;

        if (qatomic_read(&job->core->abort)) {
            return mxa_job_fail(job, MXA_ERR_ABORTED, v, 0);
        }
        if ((v + ((cnt - 1) << MXA_PAGE_SHIFT)) >> MXA_VA_BITS) {
            return 1;       /* past the VA space: the page path faults where it starts */
        }
        if (mxa_mmu_leaf_table(job, done ? v : fault_va, false, gen, false, &table)) {
            return -1;
        }
        tp = mxa_dma_host_page(s, &ptc, table);
        if (!tp) {
            return 1;
        }
        for (uint64_t i = 0; i < cnt; i++) {
            uint64_t pte = ldq_le_p(tp + (idx + i) * sizeof(uint64_t));

            if (!(pte & MXA_PTE_VALID) ||
                !(page[done + i] = mxa_dma_host_page(s, ram, pte & MXA_PTE_ADDR_MASK))) {
                return mxa_mmu_fault(job, done + i ? v + (i << MXA_PAGE_SHIFT) : fault_va,
                                     false, MXA_FAULT_NOT_PRESENT);
            }
        }
        done += cnt;
    }
    return 0;
}

/*
 * Host addresses of @rows rows of @row_bytes, @ld apart from @va, within a window of
 * @gen: pages translate once each (in order, so the TLB prefetch serves a stream); a
 * row on pages that are contiguous in host memory is read where it lies, one that is
 * not (a row longer than the run of contiguous pages under it) is copied into
 * m->bounce. Faults as the staged copy would: the first untranslatable page fails the
 * job (-1). Bounce memory counts in max-host-mem-mb like staging buffers.
 */
int mxa_va_rows_map(MxaJob *job, uint64_t gen, MxaRows *m, uint64_t va, uint64_t rows,
                    uint64_t row_bytes, uint64_t ld)
{
    MxaState *s = job->q->dev;
    uint64_t first = va >> MXA_PAGE_SHIFT, span, npages, need = 0;
    MxaRamCache ram = { 0 };
    const uint8_t **page;
    int ret = -1;

    *m = (MxaRows){ 0 };
    if (!rows || !row_bytes) {
        return 0;
    }
    span = (rows - 1) * ld + row_bytes;     /* bounded by the caller */
    if (va + span < va) {
        return mxa_mmu_fault(job, va, false, MXA_FAULT_NOT_PRESENT);
    }
    npages = ((va + span - 1) >> MXA_PAGE_SHIFT) - first + 1;
    page = g_try_new(const uint8_t *, npages);
    m->row = g_try_new(const uint8_t *, rows);
    if (!page || !m->row) {
        mxa_job_fail(job, MXA_ERR_NO_MEMORY, va, MXA_NOMEM_HOST);
        goto out;
    }
    /* the pages rows touch (with ld > row_bytes some pages in between are skipped) */
    memset(page, 0, npages * sizeof(*page));
    /* no gap holds a page: every page, in bulk (those it leaves NULL: below) */
    if (ld - row_bytes < MXA_PAGE_SIZE &&
        mxa_va_pages(job, gen, &ram, first << MXA_PAGE_SHIFT, npages, page, va) < 0) {
        goto out;
    }
    for (uint64_t r = 0; r < rows; r++) {
        uint64_t a = va + r * ld;

        for (uint64_t p = a >> MXA_PAGE_SHIFT; p <= (a + row_bytes - 1) >> MXA_PAGE_SHIFT; p++) {
            if (qatomic_read(&job->core->abort)) {
                mxa_job_fail(job, MXA_ERR_ABORTED, p << MXA_PAGE_SHIFT, 0);
                goto out;
            }
            if (!page[p - first] &&
                !(page[p - first] = mxa_va_page(job, &ram, MAX(p << MXA_PAGE_SHIFT, va), gen))) {
                goto out;
            }
        }
    }
    for (uint64_t r = 0; r < rows; r++) {
        uint64_t a = va + r * ld, p0 = (a >> MXA_PAGE_SHIFT) - first;
        uint64_t p1 = ((a + row_bytes - 1) >> MXA_PAGE_SHIFT) - first;
        bool flat = true;

        for (uint64_t p = p0; p < p1 && flat; p++) {
            flat = page[p + 1] == page[p] + MXA_PAGE_SIZE;
        }
        m->row[r] = flat ? page[p0] + (a & (MXA_PAGE_SIZE - 1)) : NULL;
        need += !flat;
    }
    if (need) {
        uint64_t bytes = need * row_bytes, budget = (uint64_t)s->max_host_mem_mb << 20;

        if (qatomic_fetch_add(&s->host_mem_used, bytes) + bytes > budget) {
            qatomic_sub(&s->host_mem_used, bytes);
            mxa_job_fail(job, MXA_ERR_NO_MEMORY, va, MXA_NOMEM_BUDGET);
            goto out;
        }
        m->charged = bytes;
        m->bounce = g_try_malloc(bytes);
        if (!m->bounce) {
            mxa_job_fail(job, MXA_ERR_NO_MEMORY, va, MXA_NOMEM_HOST);
            goto out;
        }
    }
    for (uint64_t r = 0; r < rows; r++) {
        uint64_t a = va + r * ld, done = 0;
        uint8_t *dst;

        if (m->row[r]) {
            continue;
        }
        dst = m->bounce + m->bounced++ * row_bytes;
        while (done < row_bytes) {
            uint64_t at = a + done, off = at & (MXA_PAGE_SIZE - 1);
            uint64_t n = MIN(row_bytes - done, MXA_PAGE_SIZE - off);

            memcpy(dst + done, page[(at >> MXA_PAGE_SHIFT) - first] + off, n);
            done += n;
        }
        m->row[r] = dst;
    }
    ret = 0;
out:
    g_free(page);
    return ret;
}

void mxa_va_rows_free(MxaJob *job, MxaRows *m)
{
    g_free(m->row);
    g_free(m->bounce);
    qatomic_sub(&job->q->dev->host_mem_used, m->charged);
    *m = (MxaRows){ 0 };
}
