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

MemTxResult mxa_dma_rw(MxaState *s, uint64_t addr, void *buf, uint64_t len, bool write)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    MemTxAttrs attrs = MEMTXATTRS_UNSPECIFIED;
    uint8_t *p = buf;

    /* the ordering pci_dma_rw() gives: accesses in program order with the device's */
    smp_mb();
    RCU_READ_LOCK_GUARD();
    while (len) {
        hwaddr xlat, l = len;
        MemoryRegion *mr = address_space_translate(as, addr, &xlat, &l, write, attrs);
        uint8_t *ram;

        if (!l || !memory_access_is_direct(mr, write, attrs)) {
            return MEMTX_ACCESS_ERROR;
        }
        ram = (uint8_t *)memory_region_get_ram_ptr(mr) + xlat;
        if (write) {
            memcpy(ram, p, l);
            memory_region_set_dirty(mr, xlat, l);
        } else {
            memcpy(p, ram, l);
        }
        addr += l;
        p += l;
        len -= l;
    }
    return MEMTX_OK;
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
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    hwaddr xlat, l;
    MemoryRegion *mr;

    if (addr - c->base < c->len && c->len - (addr - c->base) >= MXA_PAGE_SIZE) {
        return c->host + (addr - c->base);
    }
    l = UINT64_MAX - addr;      /* as far as the section goes */
    mr = address_space_translate(as, addr, &xlat, &l, false, MEMTXATTRS_UNSPECIFIED);
    if (l < MXA_PAGE_SIZE || !memory_access_is_direct(mr, false, MEMTXATTRS_UNSPECIFIED)) {
        return NULL;
    }
    c->base = addr;
    c->len = l;
    c->host = (const uint8_t *)memory_region_get_ram_ptr(mr) + xlat;
    return c->host;
}
