/*
 * MXA virtual matrix accelerator: device state shared by the device's files.
 *
 *   mxa_pci.c    PCI device, properties, BAR0 registers, resets, interrupts
 *   mxa_queue.c  one thread per hardware queue: ring fetch, launch of the job's grid on
 *                cores, completion
 *   mxa_core.c   the cores: one command-processor thread each, running one instance
 *   mxa_exec.c   the command interpreter (uapi/mxa_isa.h): control, registers, loops
 *   mxa_async.c  asynchronous engines (copy, math): worker lanes, commit/wait groups
 *   mxa_tma.c    per-queue SRAM, TMA tensor loads/stores, mbarriers
 *   mxa_mmu.c    contexts, page-table walk, TLB, translated DMA
 *   mxa_dma.c    the device's DMA to guest RAM (never MMIO: no thread needs the BQL)
 *   mxa_math.c   the GEMM command on the matrix engine (engine/)
 *   mxa_wgmma.c  WGMMA and WGMMA_DESC: asynchronous warpgroup MMA, its SRAM hazards
 *   mxa_tile.c   tile registers, TMATMULMX, MMA shapes, CVT / MX quantisation
 *   mxa_block.c  the seed's split encoding of TMATMULMX (BSTART.CUBE, B.DATR/DIM/IOT)
 *   mxa_timeline.c  the execution timeline (Chrome / Perfetto trace JSON)
 *   mxa_timing.c the cycle model of the asynchronous engines
 *
 * Register map, ring and page-table formats: uapi/mxa_regs.h, Documentation/device.rst.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MXA_H
#define HW_MXA_H

#include "hw/pci/pci_device.h"
#include "qemu/thread.h"
#include <sched.h>
#include "qemu/processor.h"
#include "qemu/timer.h"
#include "uapi/mxa_regs.h"
#include "uapi/mxa_isa.h"

#define TYPE_MXA "mxa"
OBJECT_DECLARE_SIMPLE_TYPE(MxaState, MXA)

/*
 * 4096 entries in groups of 16 (the aligned level-0 entries a miss reads): a group's
 * slots are picked by a hash of its number, so that a box of 64 rows 64 KiB apart (64
 * pages 16 apart, each in a group of its own) and its A and B operands 1 MiB apart do
 * not share slots. A 64-entry table indexed by the page number's low bits put such a
 * box's rows in 4 slots: every row missed (performance.rst, "pipeline-fast.csv").
 */
#define MXA_TLB_ENTRIES 4096
#define MXA_TLB_WALK MXA_TLB_ENTRIES       /* extra slot: the last leaf table walked to */
#define MXA_TLB_SLOTS (MXA_TLB_ENTRIES + 1)
#define MXA_LANE_DEPTH 256  /* asynchronous ops queued per lane; issuing waits beyond */

/*
 * Short waits between the device's own threads (command processor, lanes) spin for up
 * to a budget (properties spin-ns, lane-spin-ns) before they sleep on a condition
 * variable: a futex wake-up costs more than a TMA box takes to move. After the first
 * MXA_SPIN_PAUSE_NS the spinner yields the CPU on every round, so that on a host with
 * more runnable threads than cores it does not hold up the thread it waits for. @cond
 * is read without the lock (atomics); the caller re-checks it under the lock.
 */
#define MXA_SPIN_NS 50000
#define MXA_SPIN_PAUSE_NS 2000
#define mxa_spin_until(ns, cond) ({                                         \
    int64_t spin_t0_ = get_clock(), spin_dt_ = 0;                           \
    bool spin_ok_;                                                          \
    while (!(spin_ok_ = (cond)) && (spin_dt_ = get_clock() - spin_t0_) < (ns)) { \
        if (spin_dt_ < MXA_SPIN_PAUSE_NS) {                                 \
            cpu_relax();                                                    \
        } else {                                                            \
            sched_yield();                                                  \
        }                                                                   \
    }                                                                       \
    spin_ok_;                                                               \
})

typedef struct MxaTlbEntry {
    uint64_t vpn;       /* VA >> MXA_PAGE_SHIFT */
    uint64_t pte;       /* leaf entry */
    uint32_t ctx;
    uint64_t gen;       /* MxaState.tlb_gen when filled; stale when different */
    bool valid;
} MxaTlbEntry;

struct MxaJob;
struct MxaAsyncOp;

/* A tile register (mxa_tile.c); only the queue's command processor uses it. */
typedef struct MxaTile {
    uint8_t *data;          /* the class's capacity, allocated on first write */
    uint32_t rows;          /* shape written last; 0: empty */
    uint32_t row_bytes;
    bool released;          /* read by a command without .reuse since */
} MxaTile;

typedef struct MxaMbarTime MxaMbarTime;

/*
 * Every parameter of the cycle model (mxa_timing.c: the presets, chosen by the device's
 * "timing" property; Documentation/device.rst "Timing and the cycle model").
 */
typedef struct MxaTiming {
    const char *name;
    uint32_t cycle_mhz;         /* the clock the cycles are counted in */
    /* command processor: per command */
    uint32_t nop, reg, loop, group, group_wait, timestamp, fence_write, sem, mbar, mbar_wait;
    uint32_t pending_wait;      /* a WAIT_GROUP that leaves groups pending: releasing a stage */
    uint32_t async_issue, mma_issue, mma;
    uint32_t tile_setup, tile_bytes_per_cycle, cvt_setup, cvt_elems_per_cycle;
    uint32_t gemm_macs_per_cycle, gemm_base, tmm_macs_per_cycle, tmm_base;
    /* copy engine */
    uint32_t copy_setup, copy_bytes_per_cycle;
    uint32_t tma_box_setup, tma_row_cycles_x100, tma_bytes_per_cycle, tma_latency;
    /* the path is the core's own up to this many cores loading at once, then a share */
    uint32_t tma_own_cores, tma_shared_pct;
    /* math engine */
    uint32_t wgmma_busy_base, wgmma_latency_base;
} MxaTiming;

/* A GEMM operand's host staging buffer, kept by the thread that runs GEMMs (a queue's
 * command processor, its math lane) between jobs (mxa_math.c). */
typedef struct MxaStage {
    uint8_t *buf;
    uint64_t cap;
} MxaStage;

enum { MXA_STAGE_A, MXA_STAGE_B, MXA_STAGE_C, MXA_STAGE_D, MXA_STAGE_SA, MXA_STAGE_SB,
       MXA_STAGE_SLOTS };

/*
 * An asynchronous engine of a core: one worker thread running the core's
 * asynchronous commands of one class in issue order (so results are deterministic and
 * completion is monotone: op i done implies every earlier op done).
 */
typedef struct MxaLane {
    struct MxaCore *core;
    unsigned index;         /* MXA_GROUP_* served */
    QemuThread thread;
    QemuMutex lock;         /* protects the fields below up to 'tlb' */
    QemuCond cond;          /* signalled when work is queued, 'wake_done' is reached, shutdown */
    struct MxaAsyncOp *head, *tail;
    uint64_t issued;        /* ops queued since the job started */
    uint64_t done;          /* ops finished (or dropped) */
    uint64_t wake_done;     /* the instance waits until 'done' reaches it (UINT64_MAX: it
                             * does not): only that op's end wakes it, not every op's */
    uint64_t model_clock;   /* cycle model: when the engine can take the next op */
    uint64_t model_done;    /* and when the last result of what was issued is ready */
    uint64_t model_fabric;  /* when the path from memory to SRAM is free (TMA loads) */
    uint64_t model_busy;    /* busy cycles of the job's ops so far (TIMESTAMP.MODEL) */
    uint32_t model_loaders; /* the job's cores that load at once (its grid's on the cores) */
    uint64_t tma_load_bytes; /* bytes its TMA loads read from memory (as 'tlb') */
    bool shutdown;
    struct MxaQueue *jq;    /* the running job's queue */
    struct MxaCluster *cluster; /* and its cluster, its rank there */
    uint32_t rank;
    uint32_t ctx;           /* the running job's context */
    uint64_t pt_root;
    uint64_t job_id;
    /* first failure of the job's ops (0 = none) */
    uint32_t error, err_offset, err_opcode, err_info;
    uint64_t err_addr;
    /* used only by the one thread running the lane's op: its own, or the command
     * processor's running a TMA while the lane is idle (mxa_async_issue()) */
    MxaTlbEntry tlb[MXA_TLB_SLOTS];
    MxaStage stage[MXA_STAGE_SLOTS]; /* likewise: GEMM.ASYNC operands */
    uint64_t dma_gen;       /* atomic: TLB generation of its DMA in flight, 0 = none */
} MxaLane;

struct MxaLaunch;

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
    int64_t timeline_job_ns; /* host start of the running job (the timeline's model origin) */
    /* interrupt moderation: completions not yet signalled */
    uint32_t irq_deferred;  /* atomic: jobs with MXA_JOB_F_IRQ completed since the last MSI-X */
    int64_t irq_deferred_ns; /* whoever runs the job (busy): when the oldest completed */
    QEMUTimer *irq_timer;   /* sends them when due while the queue thread runs a grid */
} MxaQueue;

/*
 * The SRAM footprint of a WGMMA_DESC operand, kept for the next command with the same
 * descriptor: working it out visits each of its 16-byte chunks, 1 us for N = 256, an
 * eighth of the WGMMA's math, and a pipeline's stages reuse a few descriptors.
 */
#define MXA_DESC_SPANS 64      /* indexed by the top 6 bits of a hash */
typedef struct MxaDescSpan {
    uint64_t desc, lo, hi;
    uint32_t key;           /* 1 << 31 | rows << 1 | mn_major; 0: empty */
} MxaDescSpan;

/*
 * A core (mxa_core.c): a command processor (its thread), SRAM, tile registers and the
 * asynchronous engines, running one instance of a job's grid at a time. The queue
 * thread that launches a grid hands an instance over in @launch and @cta.
 */
typedef struct MxaCore {
    struct MxaState *dev;
    unsigned index;
    QemuThread thread;
    QemuCond cond;          /* with MxaState.core_lock: an instance handed over, shutdown */
    /* under MxaState.core_lock: */
    struct MxaLaunch *launch; /* the launch whose instance it runs; NULL: the core is free */
    uint32_t cta;           /* that instance's index in the grid */
    struct MxaCluster *cluster; /* and its cluster */
    uint32_t rank;          /* its rank there */
    bool pending;           /* handed over, not yet taken by the core's thread */
    bool shutdown;
    int abort;              /* atomic: stop the running instance at the next command */
    MxaTlbEntry tlb[MXA_TLB_SLOTS]; /* used only by the thread running its instance */
    uint64_t dma_gen;       /* atomic: TLB generation of its DMA in flight, 0 = none */
    MxaLane lanes[MXA_GROUP_CLASSES];
    uint8_t *sram;          /* MXA_SRAM_SIZE bytes: the running instance's on-chip memory */
    struct MxaMbarTime *mbar_time; /* per 8 bytes of SRAM: mbarriers in modelled time */
    MxaStage stage[MXA_STAGE_SLOTS]; /* GEMM operands, command-processor thread only */
    bool sram_dirty;        /* instance's thread only: a command may have written sram */
    QemuMutex mbar_lock;    /* protects the mbarriers in sram */
    QemuCond mbar_cond;     /* signalled when an mbarrier phase completes */
    MxaTile tiles[MXA_TILE_CLASSES][MXA_TILES_PER_CLASS]; /* instance's thread only */
    MxaDescSpan desc_spans[MXA_DESC_SPANS]; /* instance's thread only (mxa_wgmma.c) */
} MxaCore;

struct MxaState {
    PCIDevice parent_obj;
    MemoryRegion mmio;
    QEMUBH *irq_bh;
    struct mxe_engine *engine;  /* matrix engine; thread-safe, shared by all queues */

    /* properties */
    uint32_t num_queues;
    uint32_t num_cores;
    uint32_t engine_threads; /* the matrix engine's host threads */
    uint32_t cycle_mhz;     /* 0: the timing preset's */
    char *timing_name;      /* the "timing" property: a preset of mxa_timing.c */
    const MxaTiming *timing;
    uint32_t spin_ns;       /* command processor waits on lanes/mbarriers spin first */
    uint32_t lane_spin_ns;  /* an idle lane spins for the next op first */
    uint32_t engine_spin_ns; /* an idle engine thread spins for the next task first */
    uint32_t irq_coalesce;  /* at most this many completions per queue interrupt */
    uint32_t dma_delay_us;  /* x-dma-delay-us (tests): widens the DMA-in-flight window */
    uint64_t tlb_gen_start; /* x-tlb-gen (tests): first TLB generation */
    uint32_t max_host_mem_mb; /* budget of math-operand staging buffers, all queues */
    uint32_t host_cpus;     /* the host CPUs QEMU may run on (its affinity) */
    uint32_t mbar_timeout_us; /* an MBAR_WAIT longer than this fails (MXA_MBAR_ERR_TIMEOUT) */
    uint64_t host_mem_used; /* atomic: bytes of it in use */
    bool doorbell_jobs;     /* a TAIL write runs control-only jobs itself (mxa_queue.c) */
    MxaTlbEntry *doorbell_tlb; /* its TLB for reading their programs (BQL) */
    uint64_t doorbell_dma_gen;

    /* registers (BQL) */
    uint32_t control;
    uint32_t int_mask;
    uint32_t int_status;    /* atomic: set by queue threads, cleared by the guest */
    uint32_t irq_pending;   /* atomic: MSI-X vectors not yet sent */
    bool irq_work_queued;   /* atomic: the boot vCPU has work to send them */
    uint64_t ctx_table;     /* atomic 64-bit: read by queue threads */
    uint32_t ctx_count;
    /* atomic: bumped by TLB_INVAL and context-table changes. 64 bits: a 32-bit count
     * wraps after 2^32 invalidations and a stale entry of a freed page matches again;
     * 2^64 at one invalidation per 100 ns takes 58,000 years. */
    uint64_t tlb_gen;
    uint32_t dev_error;
    uint32_t dev_error_info;
    uint32_t scratch;
    QemuMutex sem_lock;     /* makes SEM_SIGNAL add atomic across queues */
    char *timeline_path;    /* property "timeline" */
    char *numerics;         /* property "numerics": "default" or "hopper" */
    bool hopper;            /* numerics=hopper: WGMMA/MMA use the H200 model */
    FILE *timeline;         /* set at realize; NULL again once closed at exit */
    bool timeline_opened;
    Notifier timeline_exit;
    QemuMutex timeline_lock; /* protects the file and the count below */
    uint64_t timeline_events;
    int64_t timeline_t0;

    MxaQueue queues[MXA_MAX_QUEUES];
    QemuMutex core_lock;    /* protects every MxaCore.launch */
    QemuCond core_cond;     /* signalled when a core is freed, on reset and shutdown */
    MxaCore cores[MXA_MAX_CORES];
};

/* Commit groups of one asynchronous class (queue thread only). */
typedef struct MxaGroups {
    uint64_t committed;     /* groups committed */
    uint64_t mark[MXA_MAX_PENDING_GROUPS]; /* group g ends with lane op mark[g % size] */
    uint64_t done_cycle[MXA_MAX_PENDING_GROUPS]; /* its modelled completion */
} MxaGroups;

typedef struct MxaLoop {
    uint32_t body;          /* dword index of the first command of the body */
    uint64_t remaining;     /* iterations left after the current one */
} MxaLoop;

/*
 * The instances of one placed cluster (mxa_core.c): their cores by rank, the cluster
 * barrier, and which of them have ended. Allocated by the launch when it places the
 * cluster; its cores stay the cluster's until every instance has ended (so that a
 * late access to a peer's SRAM never reaches another job's), then the last instance
 * frees them and it.
 */
typedef struct MxaCluster {
    uint32_t size;
    MxaCore *cores[MXA_CLUSTER_MAX];
    QemuMutex lock;         /* protects the fields below */
    QemuCond cond;          /* signalled when a phase completes or an instance ends */
    uint32_t arrived;       /* arrivals in the current phase */
    uint32_t phase;         /* phases completed */
    uint64_t arrive_cycle;  /* modelled: the current phase's latest arrival */
    uint64_t done_cycle;    /* modelled: when the last phase completed */
    uint32_t ready;         /* instances set up (SRAM zeroed): the program starts at size */
    uint32_t ended_mask;    /* ranks that have ended */
    uint32_t missing;       /* ranks that ended without arriving at the current phase */
    uint32_t ended;         /* under MxaState.core_lock: instances ended */
} MxaCluster;

/* A running instance of a job: what the interpreter and the MMU need. */
typedef struct MxaJob {
    MxaQueue *q;            /* the queue the job came from */
    MxaCore *core;          /* the core it runs on */
    struct mxa_job_desc desc;
    uint32_t sreg[MXA_SREG_COUNT]; /* its place in the grid (REG_CTA) */
    MxaCluster *cluster;    /* its cluster (NULL: the job's result record, no instance) */
    uint32_t rank;          /* its rank in the cluster */
    bool ready;             /* counted in its cluster's ready */
    bool bar_arrived;       /* arrived at the cluster barrier, not yet waited */
    uint32_t bar_phase;     /* the phase it arrived at */
    uint64_t pt_root;
    MxaTlbEntry *tlb;       /* the TLB (MXA_TLB_SLOTS) of the thread using this job */
    MxaStage *stage;        /* that thread's GEMM staging buffers (MXA_STAGE_SLOTS) */
    uint64_t *dma_gen;      /* that thread's in-flight generation (mxa_mmu.c, TLB_STATUS) */
    bool mma_inline;        /* a WGMMA to its idle math engine runs here (mxa_async_inline()) */
    uint64_t regs[MXA_NUM_REGS];
    MxaLoop loops[MXA_LOOP_MAX_DEPTH];
    unsigned loop_depth;
    MxaGroups groups[MXA_GROUP_CLASSES];
    /* SRAM accumulators of WGMMAs not yet covered by a WAIT_GROUP (program order) */
    struct {
        uint64_t seq;       /* math-lane op */
        uint32_t start, end;
        uint32_t a, a_end, b, b_end; /* its SRAM operands, read when it runs */
        uint32_t a_tile;    /* or its A tile register (MXA_TILE(), 0: none) */
    } acc[MXA_MAX_PENDING_ACC];
    unsigned nacc;
    struct {                /* an open split block (mxa_block.c) */
        bool open;
        uint32_t offset;    /* its BSTART_CUBE */
        uint32_t flags;     /* MXA_TMM_F_* */
        uint32_t type_a, type_b;
        uint32_t have;      /* 1 << MXA_BLOCK_PART_* given so far */
        uint32_t dim[3];
        uint8_t reg[3];
        uint32_t src[2];    /* the first B_IOT's tiles */
    } block;
    /*
     * SRAM boxes of TMA loads not yet observed: a load is observed by an MBAR_WAIT on
     * its mbarrier that returns after the phase the load completes (program order,
     * so the hazard does not depend on when the copy engine writes).
     */
    struct {
        uint32_t start, end;
        uint32_t mbar;
        uint32_t phase;     /* the mbarrier's phase number when the load was issued */
    } tma[MXA_MAX_PENDING_TMA];
    unsigned ntma;
    /* error record, filled by the first failure */
    uint32_t error;
    uint32_t err_offset;
    uint32_t err_opcode;
    uint64_t err_addr;
    uint32_t err_info;
    uint32_t commands;
    uint64_t cycles;
    uint64_t tma_load_bytes; /* bytes its TMA loads read from memory */
    uint32_t cur_offset;    /* offset of the command being executed */
    uint32_t cur_header;
} MxaJob;

/* mxa_pci.c */
void mxa_raise_queue_irq(MxaState *s, unsigned q);
void mxa_report_dev_error(MxaState *s, uint32_t code, uint32_t info);

/* mxa_queue.c */
#define MXA_IRQ_DEFER_NS 20000  /* a deferred queue interrupt waits at most this long */
void mxa_queue_irq_flush(MxaQueue *q);
void mxa_queue_create(MxaState *s, unsigned q);
void mxa_queue_fini(MxaQueue *q);
void mxa_queue_reset_locked(MxaQueue *q);
uint32_t mxa_queue_reg_read(MxaQueue *q, unsigned reg);
void mxa_queue_reg_write(MxaQueue *q, unsigned reg, uint32_t val);

/*
 * A job's grid being run (mxa_queue.c): the queue thread places its clusters on free
 * cores and waits for every instance; the cores report each instance's end.
 */
typedef struct MxaLaunch {
    MxaQueue *q;
    struct mxa_job_desc desc;   /* host byte order */
    uint32_t gx, gy, cx, cy;    /* grid and cluster shape (1 for 0) */
    uint32_t count;             /* instances */
    QemuMutex lock;             /* protects the fields below */
    QemuCond cond;              /* signalled when an instance ends */
    uint32_t started, ended;
    /* the first instance to fail: its error record */
    uint32_t error, err_offset, err_opcode, err_info, err_instance;
    uint64_t err_addr;
    bool aborted;               /* an instance stopped by a reset: where it stopped */
    uint32_t abort_offset, abort_header;
    uint64_t commands;
    uint64_t tma_load_bytes;
    uint64_t *cycles;           /* each instance's modelled cycles */
    bool at_doorbell;           /* run by a TAIL write: take a free core, never wait */
    bool declined;              /* none was free: nothing ran, the queue thread runs it */
    /* a grid's modelled timeline spans (MxaTimelineSpan), placed when it ends */
    GArray *timeline;
} MxaLaunch;

void mxa_launch_instance_end(MxaLaunch *l, const MxaJob *job, uint32_t cta);

/* mxa_core.c */
void mxa_core_create(MxaState *s, unsigned i);
void mxa_core_fini(MxaCore *core);
void mxa_core_run_locked(MxaCore *core);
int mxa_cluster_arrive(MxaJob *job);
int mxa_cluster_wait(MxaJob *job);
MxaCore *mxa_sram_owner(MxaJob *job, uint64_t *addr, uint64_t len, uint64_t align);

/* mxa_exec.c */
void mxa_exec_program(MxaJob *job, const uint32_t *prog, uint32_t ndwords);
bool mxa_prog_is_control(const uint32_t *prog, uint32_t ndwords);
int mxa_job_fail(MxaJob *job, uint32_t error, uint64_t addr, uint32_t info);
/* mxa_exec.c: the job's scalar registers, for every command that takes them */
uint64_t mxa_job_reg(MxaJob *job, uint32_t r);
int mxa_job_check_regs3(MxaJob *job, uint32_t regs);
/* mxa_tma.c: the one SRAM range check */
int mxa_sram_check(MxaJob *job, uint64_t addr, uint64_t len, uint64_t align);

/* mxa_async.c */
typedef struct MxaAsyncOp {
    struct MxaAsyncOp *next;
    uint32_t offset;        /* issuing command, for the error record */
    uint32_t header;
    uint64_t issue_cycle;   /* job->cycles when issued */
    uint64_t start_cycle, done_cycle; /* its modelled start and end (mxa_timing.c) */
    uint64_t seq;           /* lane op number */
    uint64_t src, dst, len; /* COPY: resolved operands */
    uint32_t cmd[MXA_GEMM_DWORDS]; /* GEMM, WGMMA: the command */
    uint64_t desc_a, desc_b;       /* WGMMA_DESC: the descriptors, registers added */
    const uint8_t *tile_a;         /* WGMMA_DESC.TILE_A: the tile's bytes */
    struct mxa_tensor_map map;     /* TMA: the validated map, host byte order */
    int64_t coord[MXA_TMA_MAX_RANK];
    uint32_t sram, mbar;
    uint32_t mcast;         /* TMA_LOAD: the multicast CTA mask (0: the issuer only) */
} MxaAsyncOp;

void mxa_lanes_init(MxaCore *core);
void mxa_lanes_fini(MxaCore *core);
void mxa_lanes_job_start(MxaJob *job);
int mxa_async_issue(MxaJob *job, unsigned cls, MxaAsyncOp *op);
int mxa_async_commit(MxaJob *job, unsigned cls);
int mxa_async_wait_group(MxaJob *job, unsigned cls, uint64_t n);
int mxa_async_drain(MxaJob *job, bool abortable);

/* mxa_tma.c */
void mxa_tma_init(MxaCore *core);
void mxa_tma_fini(MxaCore *core);
void mxa_tma_job_start(MxaJob *job);
int mxa_exec_tma(MxaJob *job, const uint32_t *cmd, bool load);
int mxa_exec_mbar(MxaJob *job, const uint32_t *cmd);
int mxa_lane_tma(MxaJob *job, MxaAsyncOp *op);

/* mxa_math.c */
int mxa_exec_gemm(MxaJob *job, const uint32_t *args);
struct mxe_gemm_desc;
void mxa_numerics_apply(MxaState *s, struct mxe_gemm_desc *g);
int mxa_engine_fail(MxaJob *job, int err, uint64_t addr);
void mxa_stage_fini(MxaState *s, MxaStage *stage);

/* mxa_wgmma.c */
int mxa_exec_wgmma(MxaJob *job, const uint32_t *cmd);
int mxa_exec_wgmma_desc(MxaJob *job, const uint32_t *cmd);
int mxa_lane_wgmma(MxaJob *job, MxaAsyncOp *op);
bool mxa_tile_a_pending(MxaJob *job, uint32_t t);
int mxa_sram_hazard(MxaJob *job, uint64_t start, uint64_t len);
int mxa_tma_hazard(MxaJob *job, uint64_t start, uint64_t len);
int mxa_sram_write_hazard(MxaJob *job, uint64_t start, uint64_t len);
void mxa_acc_retire(MxaJob *job, uint64_t done);

/* mxa_block.c */
struct mxa_isa_cmd;
int mxa_exec_block(MxaJob *job, const uint32_t *cmd);
int mxa_block_check(MxaJob *job, const struct mxa_isa_cmd *d);
int mxa_block_end(MxaJob *job, const uint32_t *prog);

/* mxa_timing.c */
const MxaTiming *mxa_timing_preset(const char *name);
uint64_t mxa_timing_gemm(const MxaState *s, uint64_t m, uint64_t n, uint64_t k);
void mxa_timing_issue(const MxaState *s, MxaLane *lane, MxaAsyncOp *op, uint64_t now);
uint32_t mxa_timing_issue_cost(const MxaState *s, uint32_t opcode);

/* mxa_tile.c */
void mxa_tile_fini(MxaCore *core);
void mxa_tile_job_start(MxaJob *job);
int mxa_exec_tile(MxaJob *job, const uint32_t *cmd, bool load);
int mxa_exec_tmatmulmx(MxaJob *job, const uint32_t *cmd);
int mxa_exec_mma(MxaJob *job, const uint32_t *cmd);
int mxa_exec_cvt(MxaJob *job, const uint32_t *cmd);
const uint8_t *mxa_tile_read(MxaJob *job, uint32_t t, unsigned cls, uint64_t rows,
                             uint64_t row_bytes);

/*
 * mxa_timeline.c: tid 0 the queue's jobs; core c's command processor and engines
 * MXA_TIMELINE_TID(c, MXA_TIMELINE_CP) and MXA_TIMELINE_TID(c, 1 + MXA_GROUP_*).
 */
#define MXA_TIMELINE_JOBS 0
#define MXA_TIMELINE_CP 0
#define MXA_TIMELINE_ENGINES (1 + MXA_GROUP_CLASSES)
#define MXA_TIMELINE_TID(core, engine) (1 + (core) * MXA_TIMELINE_ENGINES + (engine))
#define MXA_TIMELINE_MODEL_PID 100  /* + queue: the modelled-time tracks */
bool mxa_timeline_open(MxaState *s, Error **errp);
void mxa_timeline_close(MxaState *s);
void mxa_timeline_span(MxaState *s, unsigned q, unsigned tid, const char *name,
                       int64_t start_ns, int64_t end_ns, uint64_t job, uint32_t offset,
                       uint32_t error, uint64_t model_start, uint64_t model_end);
/*
 * A span of @core's @engine (MXA_TIMELINE_CP or 1 + MXA_GROUP_*) for the instance it
 * runs: host time at once; modelled time at once for a one-instance job, else kept in
 * the launch until mxa_timeline_launch_end() knows where the model placed the instance.
 */
void mxa_timeline_core_span(MxaCore *core, unsigned engine, const char *name,
                            int64_t start_ns, int64_t end_ns, uint64_t job, uint32_t offset,
                            uint32_t error, uint64_t model_start, uint64_t model_end);
/* A "doorbell" or "interrupt" at @ns on queue @q's jobs track (host time only). */
void mxa_timeline_instant(MxaState *s, unsigned q, const char *name, int64_t ns,
                          uint32_t value);
/* The grid's kept spans, each instance from @start[cta] on modelled core @core[cta]. */
void mxa_timeline_launch_end(MxaLaunch *l, const uint64_t *start, const unsigned *core);
void mxa_timeline_flush(MxaState *s);

/* mxa_dma.c */
MemTxResult mxa_dma_rw(MxaState *s, uint64_t addr, void *buf, uint64_t len, bool write);
static inline MemTxResult mxa_dma_read(MxaState *s, uint64_t addr, void *buf, uint64_t len)
{
    return mxa_dma_rw(s, addr, buf, len, false);
}
static inline MemTxResult mxa_dma_write(MxaState *s, uint64_t addr, const void *buf,
                                        uint64_t len)
{
    return mxa_dma_rw(s, addr, (void *)buf, len, true);
}

/*
 * The RAM section a stream of accesses last met (mxa_dma.c), valid within one RCU read
 * section and for one direction.
 */
typedef struct MxaRamCache {
    uint64_t base, len;         /* DMA addresses [base, base + len) */
    uint8_t *host;              /* base's host address */
    MemoryRegion *mr;
    hwaddr xlat;                /* base's offset in mr */
    bool write;
    /*
     * The generation of a DMA window open across a whole batch (mxa_va_batch_open()),
     * 0 for none: the batch's accesses then run under it, ordered against the rest of
     * the device's by one barrier at each end instead of two per access.
     */
    uint64_t gen;
} MxaRamCache;
MemTxResult mxa_dma_rw_cached(MxaState *s, MxaRamCache *c, uint64_t addr, void *buf,
                              uint64_t len, bool write);
const uint8_t *mxa_dma_host_page(MxaState *s, MxaRamCache *c, uint64_t addr);

/* mxa_mmu.c */
int mxa_mmu_bind(MxaJob *job);
int mxa_va_read(MxaJob *job, uint64_t va, void *buf, uint64_t len);
int mxa_va_write(MxaJob *job, uint64_t va, const void *buf, uint64_t len);
/*
 * Many small accesses (the rows of a TMA box): between mxa_va_batch_open() and
 * mxa_va_batch_close() one RCU read section and the RAM section last met serve them
 * all, where mxa_va_read() looks the section up every time, and the job is in flight
 * for the TLB barrier throughout (one box: short), where each run would enter and leave
 * it: for the 64 rows of 32 bytes of a swizzled box, that and the barriers were most of
 * the copy.
 */
void mxa_va_batch_open(MxaJob *job, MxaRamCache *ram);
void mxa_va_batch_close(MxaJob *job, MxaRamCache *ram);
int mxa_va_batch_rw(MxaJob *job, MxaRamCache *ram, uint64_t va, void *buf, uint64_t len,
                    bool write);

/*
 * A matrix read in place from guest memory, row by row (the GEMM command's weights):
 * between mxa_va_window_open() and mxa_va_window_close() the job is in flight for the
 * TLB barrier and the RCU read lock is held, so the rows' host addresses that
 * mxa_va_rows_map() gives stay valid; no other DMA of the job's thread meanwhile.
 */
typedef struct MxaRows {
    const uint8_t **row;    /* each row's host address */
    uint8_t *bounce;        /* copies of the rows that cross a discontiguity */
    uint64_t bounced;       /* how many, each row_bytes */
    uint64_t charged;       /* bytes counted in the device's host-memory budget */
} MxaRows;
uint64_t mxa_va_window_open(MxaJob *job);
void mxa_va_window_close(MxaJob *job);
int mxa_va_rows_map(MxaJob *job, uint64_t gen, MxaRows *m, uint64_t va, uint64_t rows,
                    uint64_t row_bytes, uint64_t ld);
void mxa_va_rows_free(MxaJob *job, MxaRows *m);
bool mxa_tlb_busy(MxaState *s);
void mxa_tlb_bump(MxaState *s);

#endif
