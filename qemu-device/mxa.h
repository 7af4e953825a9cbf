/*
 * MXA virtual matrix accelerator: device state shared by the device's files.
 *
 *   mxa_pci.c    PCI device, properties, BAR0 registers, resets, interrupts
 *   mxa_queue.c  one command-processor thread per hardware queue: ring fetch, completion
 *   mxa_exec.c   the command interpreter (uapi/mxa_isa.h)
 *   mxa_mmu.c    contexts, page-table walk, TLB, translated DMA
 *   mxa_math.c   math commands on the matrix engine (engine/)
 *
 * Register map, ring and page-table formats: uapi/mxa_regs.h, Documentation/device.rst.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MXA_H
#define HW_MXA_H

#include "hw/pci/pci_device.h"
#include "qemu/thread.h"
#include "uapi/mxa_regs.h"
#include "uapi/mxa_isa.h"

#define TYPE_MXA "mxa"
OBJECT_DECLARE_SIMPLE_TYPE(MxaState, MXA)

#define MXA_TLB_ENTRIES 64

typedef struct MxaTlbEntry {
    uint64_t vpn;       /* VA >> MXA_PAGE_SHIFT */
    uint64_t pte;       /* leaf entry */
    uint32_t ctx;
    uint32_t gen;       /* MxaState.tlb_gen when filled; stale when different */
    bool valid;
} MxaTlbEntry;

typedef struct MxaQueue {
    struct MxaState *dev;
    unsigned index;
    QemuThread thread;
    QemuMutex lock;         /* protects the fields below up to 'stopped' */
    QemuCond cond;          /* signalled on doorbell, reset, shutdown */
    uint64_t ring_base;
    uint32_t ring_size;
    uint32_t control;
    uint32_t head;
    uint32_t tail;
    uint32_t completed;
    uint32_t error;
    bool busy;
    bool stopped;
    bool reset_pending;     /* QCTRL.RESET written; cleared by the thread */
    bool shutdown;
    int abort;              /* atomic: stop the running job at the next command */
    MxaTlbEntry tlb[MXA_TLB_ENTRIES]; /* used only by the queue's thread */
} MxaQueue;

struct MxaState {
    PCIDevice parent_obj;
    MemoryRegion mmio;
    QEMUBH *irq_bh;
    struct mxa_engine *engine;  /* matrix engine; thread-safe, shared by all queues */

    /* properties */
    uint32_t num_queues;
    uint32_t num_cores;
    uint32_t cycle_mhz;

    /* registers (BQL) */
    uint32_t control;
    uint32_t int_mask;
    uint32_t int_status;    /* atomic: set by queue threads, cleared by the guest */
    uint32_t irq_pending;   /* atomic: MSI-X vectors the BH must send */
    uint64_t ctx_table;     /* atomic 64-bit: read by queue threads */
    uint32_t ctx_count;
    uint32_t tlb_gen;       /* atomic: bumped by TLB_INVAL and context-table changes */
    uint32_t dev_error;
    uint32_t dev_error_info;
    uint32_t scratch;

    MxaQueue queues[MXA_MAX_QUEUES];
};

/* A running job: what the interpreter and the MMU need. */
typedef struct MxaJob {
    MxaQueue *q;
    struct mxa_job_desc desc;
    uint64_t pt_root;
    /* error record, filled by the first failure */
    uint32_t error;
    uint32_t err_offset;
    uint32_t err_opcode;
    uint64_t err_addr;
    uint32_t err_info;
    uint32_t commands;
    uint64_t cycles;
    uint32_t cur_offset;    /* offset of the command being executed */
    uint32_t cur_header;
} MxaJob;

/* mxa_pci.c */
void mxa_raise_queue_irq(MxaState *s, unsigned q);
void mxa_report_dev_error(MxaState *s, uint32_t code, uint32_t info);

/* mxa_queue.c */
void mxa_queue_init(MxaState *s, unsigned q);
void mxa_queue_fini(MxaQueue *q);
void mxa_queue_reset_locked(MxaQueue *q);
uint32_t mxa_queue_reg_read(MxaQueue *q, unsigned reg);
void mxa_queue_reg_write(MxaQueue *q, unsigned reg, uint32_t val);

/* mxa_exec.c */
void mxa_exec_program(MxaJob *job, const uint32_t *prog, uint32_t ndwords);
int mxa_job_fail(MxaJob *job, uint32_t error, uint64_t addr, uint32_t info);

/* mxa_math.c */
int mxa_exec_gemm(MxaJob *job, const uint32_t *args);

/* mxa_mmu.c */
int mxa_mmu_bind(MxaJob *job);
int mxa_va_read(MxaJob *job, uint64_t va, void *buf, uint64_t len);
int mxa_va_write(MxaJob *job, uint64_t va, const void *buf, uint64_t len);

#endif
