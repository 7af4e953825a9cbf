/* SPDX-License-Identifier: MIT */
/*
 * MXA device <-> driver contract: PCI identity, BAR0 register map, job ring descriptors,
 * completion records, context table and device page-table format.
 *
 * Included by the QEMU device (qemu-device/), the kernel driver (driver/) and tests.
 * Documented in Documentation/device.rst; keep both in step.
 *
 * All multi-byte fields are little-endian. Registers are 32 bits wide and must be
 * accessed with aligned 32-bit loads/stores; 64-bit quantities are split LO/HI and the
 * HI half is written last.
 */
#ifndef MXA_REGS_H
#define MXA_REGS_H

#include <linux/types.h>

#define MXA_PCI_VENDOR_ID	0x1234
#define MXA_PCI_DEVICE_ID	0x4d58
#define MXA_PCI_REVISION	0x01
#define MXA_PCI_CLASS		0x1200	/* processing accelerator */

/* BAR0: registers. BAR1: MSI-X table and PBA. */
#define MXA_BAR0_SIZE		0x10000

#define MXA_ID_VALUE		0x3141584du	/* "MXA1" read as little-endian bytes */
#define MXA_HW_VERSION_MAJOR	1
#define MXA_HW_VERSION_MINOR	0

/* ---- global registers ---- */
#define MXA_REG_ID		0x0000	/* RO: MXA_ID_VALUE */
#define MXA_REG_VERSION		0x0004	/* RO: major << 16 | minor */
#define MXA_REG_CAPS_LO		0x0008	/* RO: MXA_CAP_* bits 31:0 */
#define MXA_REG_CAPS_HI		0x000c	/* RO: MXA_CAP_* bits 63:32 */
#define MXA_REG_NUM_QUEUES	0x0010	/* RO: number of hardware queues */
#define MXA_REG_NUM_CORES	0x0014	/* RO: cores (command processor, SRAM, engines each) */
#define MXA_REG_CONTROL		0x0018	/* RW: MXA_CONTROL_* */
#define MXA_REG_STATUS		0x001c	/* RO: MXA_STATUS_* */
#define MXA_REG_INT_STATUS	0x0020	/* RW1C: bit q = queue q completed jobs, MXA_INT_ERROR */
#define MXA_REG_INT_MASK	0x0024	/* RW: 1 = source masked (no MSI-X message) */
#define MXA_REG_CTX_TABLE_LO	0x0030	/* RW: DMA address of the context table (4 KiB aligned) */
#define MXA_REG_CTX_TABLE_HI	0x0034
#define MXA_REG_CTX_COUNT	0x0038	/* RW: entries in the context table (<= MXA_MAX_CONTEXTS) */
#define MXA_REG_TLB_INVAL	0x003c	/* WO: context id to flush, or MXA_TLB_INVAL_ALL */
#define MXA_REG_DEV_ERROR	0x0040	/* RO: last device-level error (MXA_DEVERR_*), cleared on read */
#define MXA_REG_DEV_ERROR_INFO	0x0044	/* RO: register offset or queue of that error */
#define MXA_REG_SCRATCH		0x0048	/* RW: free for the driver (reset test) */
#define MXA_REG_CYCLE_MHZ	0x004c	/* RO: clock of the cycle model, in MHz */
#define MXA_REG_TLB_STATUS	0x0050	/* RO: MXA_TLB_STATUS_* */
#define MXA_REG_HOST_MEM_MB	0x0054	/* RO: MiB the device may stage math operands in */
#define MXA_REG_MBAR_TIMEOUT_US	0x0058	/* RO: how long an MBAR_WAIT waits (MXA_MBAR_ERR_TIMEOUT) */
#define MXA_REG_ENGINE_THREADS	0x005c	/* RO: host threads of the matrix engine, shared by the cores */

#define MXA_CONTROL_RESET	(1u << 0)	/* write 1: global reset; reads back 0 when done */
#define MXA_CONTROL_ENABLE	(1u << 1)	/* queues fetch only while set */

#define MXA_STATUS_READY	(1u << 0)
#define MXA_STATUS_ENABLED	(1u << 1)

#define MXA_INT_QUEUE(q)	(1u << (q))
#define MXA_INT_ERROR		(1u << 31)

#define MXA_TLB_INVAL_ALL	0xffffffffu
/*
 * TLB_STATUS.BUSY: a DMA that translated its addresses before the last TLB_INVAL (or
 * context-table write) is still in flight. The invalidation is complete, and the pages
 * it covered may be freed, once BUSY reads 0.
 */
#define MXA_TLB_STATUS_BUSY	(1u << 0)

/* Capability bits (MXA_REG_CAPS_LO/HI and the driver's query ioctl). */
#define MXA_CAP_NOP		(1ull << 0)
#define MXA_CAP_FENCE_WRITE	(1ull << 1)
#define MXA_CAP_MMU		(1ull << 2)
#define MXA_CAP_TIMESTAMP	(1ull << 3)
#define MXA_CAP_MSIX		(1ull << 4)
#define MXA_CAP_GEMM		(1ull << 5)	/* MXA_OP_GEMM on the matrix engine */
#define MXA_CAP_CONTROL		(1ull << 6)	/* registers, LOOP, semaphores (mxa_isa.h) */
#define MXA_CAP_ASYNC		(1ull << 7)	/* COPY, async GEMM, COMMIT/WAIT_GROUP */
#define MXA_CAP_TMA		(1ull << 8)	/* SRAM, TMA_LOAD/STORE, mbarriers */
#define MXA_CAP_WGMMA		(1ull << 9)	/* WGMMA from SRAM */
#define MXA_CAP_TILE		(1ull << 10)	/* tile registers, TILE_LOAD/STORE, TMATMULMX */
#define MXA_CAP_MMA		(1ull << 11)	/* synchronous MMA shapes */
#define MXA_CAP_CVT		(1ull << 12)	/* CVT, MX quantisation on the device */
#define MXA_CAP_FENCE		(1ull << 13)	/* FENCE (wgmma.fence) */
#define MXA_CAP_HOPPER_NUMERICS	(1ull << 14)	/* -device mxa,numerics=hopper: WGMMA and MMA
						 * reproduce the H200 tensor core bit for bit */
#define MXA_CAP_GRID		(1ull << 15)	/* grids of instances on cores, clusters, REG_CTA */

/* ---- per-queue registers: MXA_QUEUE_BASE + q * MXA_QUEUE_STRIDE ---- */
#define MXA_MAX_QUEUES		16
#define MXA_QUEUE_BASE		0x1000
#define MXA_QUEUE_STRIDE	0x100
#define MXA_QUEUE_REG(q, r)	(MXA_QUEUE_BASE + (q) * MXA_QUEUE_STRIDE + (r))

#define MXA_QREG_RING_LO	0x00	/* RW: DMA address of the descriptor ring (64 B aligned) */
#define MXA_QREG_RING_HI	0x04
#define MXA_QREG_RING_SIZE	0x08	/* RW: entries, power of two in [2, MXA_RING_MAX_ENTRIES] */
#define MXA_QREG_CONTROL	0x0c	/* RW: MXA_QCTRL_* */
#define MXA_QREG_HEAD		0x10	/* RO: index of the next descriptor the device consumes */
#define MXA_QREG_TAIL		0x14	/* RW doorbell: index one past the last valid descriptor */
#define MXA_QREG_STATUS		0x18	/* RO: MXA_QSTATUS_* */
#define MXA_QREG_COMPLETED	0x1c	/* RO: jobs completed since enable (wraps at 2^32) */
#define MXA_QREG_ERROR		0x20	/* RO: ring-level error (MXA_DEVERR_*) that stopped the queue */

#define MXA_QCTRL_ENABLE	(1u << 0)	/* ring registers are latched when set */
#define MXA_QCTRL_RESET		(1u << 1)	/* write 1: abort the queue; reads back 0 when done */

#define MXA_QSTATUS_BUSY	(1u << 0)
#define MXA_QSTATUS_STOPPED	(1u << 1)	/* ring-level error; see MXA_QREG_ERROR */

#define MXA_RING_MAX_ENTRIES	4096

/* Device-level errors: a bad register value or ring content (not a job's program). */
#define MXA_DEVERR_NONE		0
#define MXA_DEVERR_BAD_REG	1	/* access to an unknown register or with a bad size */
#define MXA_DEVERR_BAD_RING	2	/* ring base/size invalid when the queue was enabled */
#define MXA_DEVERR_RING_DMA	3	/* descriptor could not be read */
#define MXA_DEVERR_BAD_TAIL	4	/* doorbell value >= ring size */
#define MXA_DEVERR_COMPLETION	5	/* completion record could not be written */

/**
 * struct mxa_job_desc - one entry of a queue's ring (64 bytes).
 * @flags: MXA_JOB_F_*.
 * @ctx: context id; its page table translates every device VA of the job.
 * @prog_va: device VA of the first command (4-byte aligned).
 * @prog_size: program size in bytes (multiple of 4, <= MXA_PROG_MAX_SIZE).
 * @grid_x, @grid_y: the grid: the program runs as grid_x * grid_y instances (CTAs),
 *	each on a core of its own with its own SRAM, tile and scalar registers (0 means 1;
 *	at most MXA_GRID_MAX_INSTANCES in all).
 * @completion: DMA address (physical, untranslated) of the job's struct mxa_completion.
 * @job_id: opaque to the device, copied into the completion record.
 * @cluster_x, @cluster_y: the cluster shape (0 means 1): the instances of a cluster
 *	run at the same time on distinct cores; cluster_x * cluster_y <= MXA_CLUSTER_MAX
 *	and <= the device's cores, and it divides the grid in each dimension
 *	(MXA_ERR_BAD_GRID otherwise).
 */
struct mxa_job_desc {
	__u32 flags;
	__u32 ctx;
	__u64 prog_va;
	__u32 prog_size;
	__u16 grid_x;
	__u16 grid_y;
	__u64 completion;
	__u64 job_id;
	__u8 cluster_x;
	__u8 cluster_y;
	__u16 reserved0;
	__u32 reserved1;
	__u64 reserved[2];
};

#define MXA_MAX_CORES		16	/* the "cores" property's largest value */
#define MXA_CLUSTER_MAX		8	/* instances in a cluster */
#define MXA_GRID_MAX_INSTANCES	65536	/* instances of one job */

#define MXA_JOB_F_IRQ		(1u << 0)	/* raise the queue interrupt when done */

#define MXA_PROG_MAX_SIZE	(1u << 24)

/**
 * struct mxa_completion - written by the device when a job ends (128 bytes).
 * @job_id: copied from the descriptor.
 * @status: MXA_JOB_STATUS_*; written last, after every other field.
 * @error: MXA_ERR_* (0 when status is OK).
 * @err_offset: byte offset in the program of the command that failed.
 * @err_opcode: the header dword of that command.
 * @err_addr: faulting device VA (MMU faults), or another address the error names.
 * @err_info: error specific (MMU faults: MXA_FAULT_*).
 * @start_ns, @end_ns: host CLOCK_MONOTONIC time at which the job started and ended.
 * @cycles: modelled device cycles (see Documentation/device.rst): of a grid, its
 *	instances scheduled on the cores in modelled time.
 * @commands: number of commands executed (all instances).
 * @err_instance: the instance (CTA index, x + y * grid_x) whose error the record holds:
 *	the first to fail.
 * @instances: instances that were started (fewer than the grid when a reset or a
 *	failure stopped the placing of the rest).
 * @tma_load_bytes: bytes the job's TMA loads read from memory (all instances; a
 *	multicast load counts once).
 */
struct mxa_completion {
	__u64 job_id;
	__u32 status;
	__u32 error;
	__u32 err_offset;
	__u32 err_opcode;
	__u64 err_addr;
	__u32 err_info;
	__u32 commands;
	__u64 start_ns;
	__u64 end_ns;
	__u64 cycles;
	__u32 err_instance;
	__u32 instances;
	__u64 tma_load_bytes;
	__u64 reserved[6];
};

#define MXA_JOB_STATUS_PENDING	0
#define MXA_JOB_STATUS_OK	1
#define MXA_JOB_STATUS_ERROR	2
#define MXA_JOB_STATUS_ABORTED	3	/* queue or device reset while queued or running */

#define MXA_FAULT_READ		(1u << 0)
#define MXA_FAULT_WRITE		(1u << 1)
#define MXA_FAULT_NOT_PRESENT	(1u << 2)
#define MXA_FAULT_READ_ONLY	(1u << 3)

/* ---- contexts and the device MMU ---- */
#define MXA_MAX_CONTEXTS	1024

/**
 * struct mxa_ctx_desc - entry of the context table (16 bytes).
 * @pt_root: DMA address of the level-2 page table (4 KiB aligned).
 * @flags: MXA_CTX_F_VALID.
 */
struct mxa_ctx_desc {
	__u64 pt_root;
	__u32 flags;
	__u32 reserved;
};

#define MXA_CTX_F_VALID		(1u << 0)

/*
 * Page tables: three levels of 512 64-bit entries (4 KiB each), 4 KiB pages, 39-bit
 * device VAs. Level 2 is indexed by VA bits 38:30, level 1 by 29:21, level 0 by 20:12.
 * An entry is MXA_PTE_VALID | [MXA_PTE_WRITE] | (DMA address & MXA_PTE_ADDR_MASK); in
 * levels 2 and 1 the address is the next table's.
 */
#define MXA_VA_BITS		39
#define MXA_PAGE_SHIFT		12
#define MXA_PAGE_SIZE		(1ull << MXA_PAGE_SHIFT)
#define MXA_PT_LEVELS		3
#define MXA_PT_ENTRIES		512
#define MXA_PTE_VALID		(1ull << 0)
#define MXA_PTE_WRITE		(1ull << 1)
#define MXA_PTE_ADDR_MASK	0x000ffffffffff000ull

static inline unsigned int mxa_pt_index(__u64 va, int level)
{
	return (unsigned int)(va >> (MXA_PAGE_SHIFT + 9 * level)) & (MXA_PT_ENTRIES - 1);
}

#endif /* MXA_REGS_H */
