/*
 * MXA device DMA: every access the device makes to guest memory, from any of its
 * threads (command processors, asynchronous lanes, TMA engines).
 *
 * RAM only. An access whose target is not RAM (MMIO of this or another device, an
 * unassigned hole, ROM for a write) fails as a bus error, as if nothing had answered.
 * pci_dma_rw() would dispatch MMIO, and MMIO dispatch takes the BQL; but a reset or an
 * unplug waits for the queue threads while holding the BQL, so a queue thread that
 * needed it would deadlock QEMU. Translation and copy happen in one RCU section, so a
 * remap by the guest between the two cannot turn a checked RAM page into MMIO.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/rcu.h"
#include "exec/memory.h"
#include "mxa.h"
#include "engine/mxe_engine.h"
#include "engine/mxe_pool.h"

/*
 * A copy of at least this many bytes runs on two of the engine's threads. A DMA engine
 * keeps many reads in flight; one host thread's memcpy from guest RAM keeps as many as
 * one core does, and a second core doubles them (a 64 KiB TMA box of a stream from
 * DRAM: performance.rst, tma.csv).
 */
enum { MXA_DMA_SPLIT_MIN = 32 * 1024 };

struct mxa_dma_split {
    uint8_t *dst;
    const uint8_t *src;
    uint64_t len;
};

static unsigned mxa_dma_split_tasks(void *arg, unsigned phase)
{
    return phase ? 0 : 2;
}

/* Half of the copy, cut at a cache line. */
static void mxa_dma_split_task(void *arg, unsigned phase, unsigned task)
{
    struct mxa_dma_split *c = arg;
    uint64_t half = (c->len / 2) & ~(uint64_t)63;

    if (task) {
        memcpy(c->dst + half, c->src + half, c->len - half);
    } else {
        memcpy(c->dst, c->src, half);
    }
}

static const struct mxe_pool_job_ops mxa_dma_split_ops = {
    .phase_tasks = mxa_dma_split_tasks,
    .task = mxa_dma_split_task,
};

/*
 * memcpy() between guest RAM and device memory, both validated by the caller, whose
 * RCU read section keeps them so while a helper thread copies (mxe_pool_run() returns
 * when both halves are done; with the engine's other threads busy, this thread copies
 * both). A reset of the calling core (its cancel flag: mxe_engine_cancel_on()) may skip
 * a half that has not started, as it stops a large transfer between runs.
 */
static void mxa_dma_copy(MxaState *s, void *dst, const void *src, uint64_t len)
{
    struct mxa_dma_split c = { .dst = dst, .src = src, .len = len };

    if (len < MXA_DMA_SPLIT_MIN || s->engine_threads < 2) {
        memcpy(dst, src, len);
        return;
    }
    mxe_pool_run(s->engine, 2, &mxa_dma_split_ops, &c);
}

/*
 * The RAM section that holds @addr, for accesses in one direction, into @c; false when
 * it is not directly accessible RAM. The caller holds the RCU read lock for as long as
 * it uses @c: the section cannot be unplugged or remapped meanwhile.
 */
static bool mxa_ram_lookup(MxaState *s, MxaRamCache *c, uint64_t addr, bool write)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    MemTxAttrs attrs = MEMTXATTRS_UNSPECIFIED;
    hwaddr xlat, l = UINT64_MAX - addr;     /* as far as the section goes */
    MemoryRegion *mr = address_space_translate(as, addr, &xlat, &l, write, attrs);

    if (!l || !memory_access_is_direct(mr, write, attrs)) {
        c->len = 0;
        return false;
    }
    c->base = addr;
    c->len = l;
    c->mr = mr;
    c->xlat = xlat;
    c->write = write;
    c->host = (uint8_t *)memory_region_get_ram_ptr(mr) + xlat;
    return true;
}

static bool mxa_ram_hit(const MxaRamCache *c, uint64_t addr, bool write)
{
    return addr - c->base < c->len && c->write == write;
}

/*
 * mxa_dma_rw() within the caller's RCU read section, remembering the last section in
 * @c: a stream of page-sized runs (a buffer's pages scattered over guest RAM) looks
 * the memory map up once instead of once per page.
 */
MemTxResult mxa_dma_rw_cached(MxaState *s, MxaRamCache *c, uint64_t addr, void *buf,
                              uint64_t len, bool write)
{
    uint8_t *p = buf;

    /*
     * the ordering pci_dma_rw() gives: accesses in program order with the device's
     * (within a batch window, its ends order the batch as a whole)
     */
    if (!c->gen) {
        smp_mb();
    }
    while (len) {
        uint64_t off, l;

        if (!mxa_ram_hit(c, addr, write) && !mxa_ram_lookup(s, c, addr, write)) {
            return MEMTX_ACCESS_ERROR;
        }
        off = addr - c->base;
        l = MIN(len, c->len - off);
        if (write) {
            mxa_dma_copy(s, c->host + off, p, l);
            memory_region_set_dirty(c->mr, c->xlat + off, l);
        } else {
            mxa_dma_copy(s, p, c->host + off, l);
        }
        addr += l;
        p += l;
        len -= l;
    }
    return MEMTX_OK;
}

MemTxResult mxa_dma_rw(MxaState *s, uint64_t addr, void *buf, uint64_t len, bool write)
{
    MxaRamCache c = { 0 };

    RCU_READ_LOCK_GUARD();
    return mxa_dma_rw_cached(s, &c, addr, buf, len, write);
}

/*
 * The host address of the RAM page at @addr for reading in place (an operand the
 * engine streams without a copy), or NULL when it is not directly accessible RAM. The
 * caller holds the RCU read lock from the first call until it is done with the
 * pointers, so the RAM cannot be unplugged or remapped meanwhile. @c remembers the
 * last section found: the next pages of a stream are mostly in it, and a lookup in the
 * memory map per 4 KiB page cost as much as a fifth of a GEMV's math.
 */
const uint8_t *mxa_dma_host_page(MxaState *s, MxaRamCache *c, uint64_t addr)
{
    if (!mxa_ram_hit(c, addr, false) && !mxa_ram_lookup(s, c, addr, false)) {
        return NULL;
    }
    return c->len - (addr - c->base) >= MXA_PAGE_SIZE ? c->host + (addr - c->base) : NULL;
}
