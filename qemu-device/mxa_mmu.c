/*
 * MXA device MMU: every DMA a job makes goes through its context's page table.
 *
 * A job binds its context at start (context table entry read once); translations are
 * cached in a small direct-mapped TLB of the thread doing the access (the queue's
 * command processor or one of its asynchronous lanes), tagged with the context id and the
 * device-wide TLB generation, which the driver bumps through MXA_REG_TLB_INVAL (and
 * which changes whenever the context table is reprogrammed). A missing or read-only
 * mapping fails the job with MXA_ERR_MMU_FAULT, the faulting VA and the access type.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "mxa.h"
#include "trace.h"

int mxa_mmu_bind(MxaJob *job)
{
    MxaState *s = job->q->dev;
    uint64_t table = qatomic_read(&s->ctx_table);
    uint32_t count = qatomic_read(&s->ctx_count);
    struct mxa_ctx_desc cd;

    if (job->desc.ctx >= count || !table ||
        pci_dma_read(PCI_DEVICE(s), table + (uint64_t)job->desc.ctx * sizeof(cd), &cd,
                     sizeof(cd)) != MEMTX_OK ||
        !(le32_to_cpu(cd.flags) & MXA_CTX_F_VALID)) {
        return mxa_job_fail(job, MXA_ERR_BAD_CONTEXT, 0, job->desc.ctx);
    }
    job->pt_root = le64_to_cpu(cd.pt_root) & MXA_PTE_ADDR_MASK;
    return 0;
}

static int mxa_mmu_fault(MxaJob *job, uint64_t va, bool write, uint32_t why)
{
    trace_mxa_guest_err_mmu_fault(job->q->index, job->desc.ctx, va, write);
    return mxa_job_fail(job, MXA_ERR_MMU_FAULT, va,
                        (write ? MXA_FAULT_WRITE : MXA_FAULT_READ) | why);
}

/* Translate one VA; returns the DMA address or fails the job. */
static int mxa_mmu_translate(MxaJob *job, uint64_t va, bool write, uint64_t *dma)
{
    MxaQueue *q = job->q;
    uint32_t gen = qatomic_read(&q->dev->tlb_gen);
    uint64_t vpn = va >> MXA_PAGE_SHIFT;
    MxaTlbEntry *e = &job->tlb[vpn % MXA_TLB_ENTRIES];
    uint64_t table = job->pt_root, pte = 0;

    if (va >> MXA_VA_BITS) {
        return mxa_mmu_fault(job, va, write, MXA_FAULT_NOT_PRESENT);
    }
    if (!(e->valid && e->vpn == vpn && e->ctx == job->desc.ctx && e->gen == gen)) {
        for (int level = MXA_PT_LEVELS - 1; level >= 0; level--) {
            uint64_t addr = table + mxa_pt_index(va, level) * sizeof(uint64_t);

            if (pci_dma_read(PCI_DEVICE(q->dev), addr, &pte, sizeof(pte)) != MEMTX_OK) {
                return mxa_mmu_fault(job, va, write, MXA_FAULT_NOT_PRESENT);
            }
            pte = le64_to_cpu(pte);
            if (!(pte & MXA_PTE_VALID)) {
                return mxa_mmu_fault(job, va, write, MXA_FAULT_NOT_PRESENT);
            }
            table = pte & MXA_PTE_ADDR_MASK;
        }
        *e = (MxaTlbEntry){ .vpn = vpn, .pte = pte, .ctx = job->desc.ctx, .gen = gen,
                            .valid = true };
    }
    if (write && !(e->pte & MXA_PTE_WRITE)) {
        return mxa_mmu_fault(job, va, write, MXA_FAULT_READ_ONLY);
    }
    *dma = (e->pte & MXA_PTE_ADDR_MASK) | (va & (MXA_PAGE_SIZE - 1));
    return 0;
}

static int mxa_va_access(MxaJob *job, uint64_t va, void *buf, uint64_t len, bool write)
{
    uint8_t *p = buf;

    if (va + len < va) {
        return mxa_mmu_fault(job, va, write, MXA_FAULT_NOT_PRESENT);
    }
    while (len) {
        uint64_t chunk = MIN(len, MXA_PAGE_SIZE - (va & (MXA_PAGE_SIZE - 1)));
        uint64_t dma;
        MemTxResult r;

        if (mxa_mmu_translate(job, va, write, &dma)) {
            return -1;
        }
        r = write ? pci_dma_write(PCI_DEVICE(job->q->dev), dma, p, chunk)
                  : pci_dma_read(PCI_DEVICE(job->q->dev), dma, p, chunk);
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

int mxa_va_read(MxaJob *job, uint64_t va, void *buf, uint64_t len)
{
    return mxa_va_access(job, va, buf, len, false);
}

int mxa_va_write(MxaJob *job, uint64_t va, const void *buf, uint64_t len)
{
    return mxa_va_access(job, va, (void *)buf, len, true);
}
