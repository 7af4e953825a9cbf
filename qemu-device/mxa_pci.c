/*
 * MXA virtual matrix accelerator: PCI function, BAR0 registers, resets and interrupts.
 *
 * Usage:
 *   -device mxa[,queues=N][,cores=N][,engine-threads=N][,cycle-mhz=N][,timeline=PATH]
 *              [,numerics=hopper]
 *     queues     hardware queues, 1..16 (default 4); MSI-X vector q per queue plus one
 *                for device errors
 *     cores      cores (command processor, SRAM, tiles, copy and math engines each),
 *                1..16 (default 4): a job's grid runs on them, queues share them
 *     engine-threads  host threads of the matrix engine, shared by the cores (default 2)
 *     cycle-mhz  clock of the documented cycle model (default 1000)
 *     timeline   write an execution timeline there (Chrome/Perfetto trace JSON)
 *     numerics   "default" (exact sums, rounded once) or "hopper": WGMMA and MMA
 *                reproduce the H200 tensor core bit for bit (MXA_CAP_HOPPER_NUMERICS)
 *     doorbell-jobs  on (default): a TAIL write runs an idle queue's control-only jobs
 *                itself (mxa_queue.c); off: the queue thread runs every job
 *
 * MMIO callbacks read and write registers and wake queue threads: programs run on the
 * queue threads (mxa_queue.c), which never take the BQL, but for the few control
 * commands of the jobs that a doorbell runs itself. Interrupts raised by those
 * threads are collected in irq_pending and sent under the BQL by the boot vCPU (queue
 * interrupts) or a bottom half (errors, unmasking).
 *
 * Spec: Documentation/device.rst; binary layout: uapi/mxa_regs.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/atomic.h"
#include "qemu/main-loop.h"
#include "qapi/error.h"
#include "hw/core/cpu.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "mxa.h"
#include "engine/mxe_engine.h"
#include "trace.h"

static const uint64_t mxa_caps = MXA_CAP_NOP | MXA_CAP_FENCE_WRITE | MXA_CAP_MMU |
                                 MXA_CAP_TIMESTAMP | MXA_CAP_MSIX | MXA_CAP_GEMM |
                                 MXA_CAP_CONTROL | MXA_CAP_ASYNC | MXA_CAP_TMA |
                                 MXA_CAP_WGMMA | MXA_CAP_TILE | MXA_CAP_MMA |
                                 MXA_CAP_CVT | MXA_CAP_FENCE | MXA_CAP_GRID;

void mxa_report_dev_error(MxaState *s, uint32_t code, uint32_t info)
{
    trace_mxa_guest_err_device(code, info);
    qemu_log_mask(LOG_GUEST_ERROR, "mxa: device error %u (info 0x%x)\n", code, info);
    s->dev_error = code;
    s->dev_error_info = info;
    qatomic_or(&s->int_status, MXA_INT_ERROR);
    qatomic_or(&s->irq_pending, 1u << s->num_queues);
    qemu_bh_schedule(s->irq_bh);
}

/* Send the pending interrupts; the BQL is held (the bottom half or a vCPU's work). */
static void mxa_irq_send(MxaState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint32_t pending = qatomic_xchg(&s->irq_pending, 0);

    for (unsigned v = 0; v <= s->num_queues; v++) {
        uint32_t src = v == s->num_queues ? MXA_INT_ERROR : MXA_INT_QUEUE(v);

        if (!(pending & (1u << v)) || (s->int_mask & src)) {
            continue;
        }
        if (msix_enabled(pdev)) {
            trace_mxa_irq(v);
            if (v < s->num_queues && qatomic_read(&s->timeline)) {
                mxa_timeline_instant(s, v, "interrupt", get_clock(),
                                     qatomic_read(&s->queues[v].completed));
            }
            msix_notify(pdev, v);
        }
    }
}

static void mxa_irq_bh(void *opaque)
{
    mxa_irq_send(opaque);
}

static void mxa_irq_on_cpu(CPUState *cpu, run_on_cpu_data data)
{
    MxaState *s = data.host_ptr;

    qatomic_set(&s->irq_work_queued, false);
    mxa_irq_send(s);
    object_unref(OBJECT(s));
}

/*
 * Called from queue threads, which never take the BQL (the system reset waits for
 * them under it): the boot vCPU sends the message, as work of its own. Under the BQL
 * (a doorbell that ran its jobs, the queue's timer) it is sent at once. A bottom half
 * woke the main loop, which then woke the vCPU: two thread wake-ups for a completion
 * where this takes one (Documentation/performance.rst, "Submission"). The work holds a
 * reference to the device: it may run after an unplug, when MSI-X is off.
 */
void mxa_raise_queue_irq(MxaState *s, unsigned q)
{
    CPUState *cpu = first_cpu;

    qatomic_or(&s->int_status, MXA_INT_QUEUE(q));
    qatomic_or(&s->irq_pending, 1u << q);
    if (bql_locked()) {
        mxa_irq_send(s);    /* a job run by its doorbell, or the queue's timer */
    } else if (!cpu) {
        qemu_bh_schedule(s->irq_bh);
    } else if (!qatomic_xchg(&s->irq_work_queued, true)) {
        object_ref(OBJECT(s));
        async_run_on_cpu(cpu, mxa_irq_on_cpu, RUN_ON_CPU_HOST_PTR(s));
    }
}

static void mxa_reset_registers(MxaState *s)
{
    s->control = 0;
    s->int_mask = 0xffffffffu;
    qatomic_set(&s->int_status, 0);
    qatomic_set(&s->irq_pending, 0);
    qatomic_set(&s->ctx_table, 0);
    s->ctx_count = 0;
    mxa_tlb_bump(s);
    s->dev_error = 0;
    s->dev_error_info = 0;
}

/* Reset every queue; the threads finish the reset at the next command boundary. */
static void mxa_reset_all_queues(MxaState *s)
{
    for (unsigned i = 0; i < s->num_queues; i++) {
        MxaQueue *q = &s->queues[i];

        qemu_mutex_lock(&q->lock);
        mxa_queue_reset_locked(q);
        qemu_mutex_unlock(&q->lock);
    }
}

static bool mxa_reset_in_progress(MxaState *s)
{
    for (unsigned i = 0; i < s->num_queues; i++) {
        if (mxa_queue_reg_read(&s->queues[i], MXA_QREG_CONTROL) & MXA_QCTRL_RESET) {
            return true;
        }
    }
    return false;
}

static uint64_t mxa_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    MxaState *s = opaque;
    uint64_t val = 0;

    if (addr >= MXA_QUEUE_BASE) {
        unsigned q = (addr - MXA_QUEUE_BASE) / MXA_QUEUE_STRIDE;

        if (q < s->num_queues) {
            val = mxa_queue_reg_read(&s->queues[q], (addr - MXA_QUEUE_BASE) % MXA_QUEUE_STRIDE);
        }
        trace_mxa_mmio_read(addr, val);
        return val;
    }
    switch (addr) {
    case MXA_REG_ID:            val = MXA_ID_VALUE; break;
    case MXA_REG_VERSION:       val = MXA_HW_VERSION_MAJOR << 16 | MXA_HW_VERSION_MINOR; break;
    case MXA_REG_CAPS_LO:
        val = (uint32_t)(mxa_caps | (s->hopper ? MXA_CAP_HOPPER_NUMERICS : 0));
        break;
    case MXA_REG_CAPS_HI:
        val = (uint32_t)((mxa_caps | (s->hopper ? MXA_CAP_HOPPER_NUMERICS : 0)) >> 32);
        break;
    case MXA_REG_NUM_QUEUES:    val = s->num_queues; break;
    case MXA_REG_NUM_CORES:     val = s->num_cores; break;
    case MXA_REG_ENGINE_THREADS: val = s->engine_threads; break;
    case MXA_REG_CONTROL:
        val = s->control & MXA_CONTROL_ENABLE;
        if (mxa_reset_in_progress(s)) {
            val |= MXA_CONTROL_RESET;
        }
        break;
    case MXA_REG_STATUS:
        val = MXA_STATUS_READY | ((s->control & MXA_CONTROL_ENABLE) ? MXA_STATUS_ENABLED : 0);
        break;
    case MXA_REG_INT_STATUS:    val = qatomic_read(&s->int_status); break;
    case MXA_REG_INT_MASK:      val = s->int_mask; break;
    case MXA_REG_CTX_TABLE_LO:  val = (uint32_t)qatomic_read(&s->ctx_table); break;
    case MXA_REG_CTX_TABLE_HI:  val = qatomic_read(&s->ctx_table) >> 32; break;
    case MXA_REG_CTX_COUNT:     val = s->ctx_count; break;
    case MXA_REG_DEV_ERROR:
        val = s->dev_error;
        s->dev_error = 0;
        break;
    case MXA_REG_DEV_ERROR_INFO: val = s->dev_error_info; break;
    case MXA_REG_SCRATCH:       val = s->scratch; break;
    case MXA_REG_CYCLE_MHZ:     val = s->cycle_mhz; break;
    case MXA_REG_TLB_STATUS:    val = mxa_tlb_busy(s) ? MXA_TLB_STATUS_BUSY : 0; break;
    case MXA_REG_HOST_MEM_MB:   val = s->max_host_mem_mb; break;
    case MXA_REG_MBAR_TIMEOUT_US: val = s->mbar_timeout_us; break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "mxa: read of unknown register 0x%" HWADDR_PRIx "\n",
                      addr);
        break;
    }
    trace_mxa_mmio_read(addr, val);
    return val;
}

static void mxa_mmio_write(void *opaque, hwaddr addr, uint64_t val64, unsigned size)
{
    MxaState *s = opaque;
    uint32_t val = val64;
    uint64_t table;

    trace_mxa_mmio_write(addr, val);
    if (addr >= MXA_QUEUE_BASE) {
        unsigned q = (addr - MXA_QUEUE_BASE) / MXA_QUEUE_STRIDE;

        if (q < s->num_queues) {
            mxa_queue_reg_write(&s->queues[q], (addr - MXA_QUEUE_BASE) % MXA_QUEUE_STRIDE, val);
        } else {
            mxa_report_dev_error(s, MXA_DEVERR_BAD_REG, addr);
        }
        return;
    }
    switch (addr) {
    case MXA_REG_CONTROL:
        if (val & MXA_CONTROL_RESET) {
            trace_mxa_reset("global");
            mxa_reset_registers(s);
            mxa_reset_all_queues(s);
            return;
        }
        s->control = val & MXA_CONTROL_ENABLE;
        /* queue threads re-check 'enabled' when kicked */
        for (unsigned i = 0; i < s->num_queues; i++) {
            qemu_mutex_lock(&s->queues[i].lock);
            qemu_cond_signal(&s->queues[i].cond);
            qemu_mutex_unlock(&s->queues[i].lock);
        }
        break;
    case MXA_REG_INT_STATUS:
        qatomic_and(&s->int_status, ~val);
        break;
    case MXA_REG_INT_MASK: {
        uint32_t unmasked = s->int_mask & ~val;

        s->int_mask = val;
        /* a source unmasked while its status is set gets its message now */
        if (unmasked & qatomic_read(&s->int_status)) {
            for (unsigned v = 0; v < s->num_queues; v++) {
                if (unmasked & qatomic_read(&s->int_status) & MXA_INT_QUEUE(v)) {
                    qatomic_or(&s->irq_pending, 1u << v);
                }
            }
            if (unmasked & qatomic_read(&s->int_status) & MXA_INT_ERROR) {
                qatomic_or(&s->irq_pending, 1u << s->num_queues);
            }
            qemu_bh_schedule(s->irq_bh);
        }
        break;
    }
    case MXA_REG_CTX_TABLE_LO:
        table = qatomic_read(&s->ctx_table);
        qatomic_set(&s->ctx_table, (table & ~0xffffffffull) | (val & ~0xfffu));
        mxa_tlb_bump(s);
        break;
    case MXA_REG_CTX_TABLE_HI:
        table = qatomic_read(&s->ctx_table);
        qatomic_set(&s->ctx_table, (table & 0xffffffffull) | ((uint64_t)val << 32));
        mxa_tlb_bump(s);
        break;
    case MXA_REG_CTX_COUNT:
        if (val > MXA_MAX_CONTEXTS) {
            mxa_report_dev_error(s, MXA_DEVERR_BAD_REG, addr);
            val = MXA_MAX_CONTEXTS;
        }
        qatomic_set(&s->ctx_count, val);
        mxa_tlb_bump(s);
        break;
    case MXA_REG_TLB_INVAL:
        trace_mxa_tlb_inval(val);
        mxa_tlb_bump(s);
        break;
    case MXA_REG_SCRATCH:
        s->scratch = val;
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "mxa: write 0x%x to read-only/unknown register 0x%"
                      HWADDR_PRIx "\n", val, addr);
        mxa_report_dev_error(s, MXA_DEVERR_BAD_REG, addr);
        break;
    }
}

static const MemoryRegionOps mxa_mmio_ops = {
    .read = mxa_mmio_read,
    .write = mxa_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 4, .max_access_size = 4, .unaligned = false },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

/* The CPUs this process may run on (taskset, cgroups' cpusets): its threads share them. */
static uint32_t mxa_host_cpus(void)
{
    cpu_set_t set;
    long n;

    if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0) {
        return CPU_COUNT(&set);
    }
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

static void mxa_realize(PCIDevice *pdev, Error **errp)
{
    MxaState *s = MXA(pdev);

    if (s->numerics && strcmp(s->numerics, "default") && strcmp(s->numerics, "hopper")) {
        error_setg(errp, "mxa: numerics must be 'default' or 'hopper'");
        return;
    }
    s->hopper = s->numerics && !strcmp(s->numerics, "hopper");

    if (s->num_queues < 1 || s->num_queues > MXA_MAX_QUEUES) {
        error_setg(errp, "mxa: queues must be in 1..%d", MXA_MAX_QUEUES);
        return;
    }
    if (s->num_cores < 1 || s->num_cores > MXA_MAX_CORES) {
        error_setg(errp, "mxa: cores must be in 1..%d", MXA_MAX_CORES);
        return;
    }
    if (s->engine_threads < 1 || s->engine_threads > 256) {
        error_setg(errp, "mxa: engine-threads must be in 1..256");
        return;
    }
    s->host_cpus = mxa_host_cpus();
    s->timing = mxa_timing_preset(s->timing_name);
    if (!s->timing) {
        error_setg(errp, "mxa: timing must be mxa or h200");
        return;
    }
    if (!s->cycle_mhz) {
        s->cycle_mhz = s->timing->cycle_mhz;
    }
    if (!mxa_timeline_open(s, errp)) {
        return;
    }
    pci_config_set_interrupt_pin(pdev->config, 1);
    memory_region_init_io(&s->mmio, OBJECT(s), &mxa_mmio_ops, s, "mxa-regs", MXA_BAR0_SIZE);
    pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY, &s->mmio);
    if (msix_init_exclusive_bar(pdev, s->num_queues + 1, 1, errp)) {
        mxa_timeline_close(s);
        return;
    }
    for (unsigned v = 0; v <= s->num_queues; v++) {
        msix_vector_use(pdev, v);
    }
    s->engine = mxe_engine_create(s->engine_threads);
    /* 0 means "no DMA in flight" (mxa_mmu.c); x-tlb-gen starts elsewhere, for tests */
    qatomic_set(&s->tlb_gen, s->tlb_gen_start ? s->tlb_gen_start : 1);
    if (!s->engine) {
        error_setg(errp, "mxa: cannot start %u engine threads", s->engine_threads);
        msix_uninit_exclusive_bar(pdev);
        mxa_timeline_close(s);
        return;
    }
    mxe_engine_set_spin_ns(s->engine, s->engine_spin_ns);
    s->doorbell_tlb = g_new0(MxaTlbEntry, MXA_TLB_SLOTS);
    s->irq_bh = qemu_bh_new_guarded(mxa_irq_bh, s, &DEVICE(pdev)->mem_reentrancy_guard);
    mxa_reset_registers(s);
    qemu_mutex_init(&s->sem_lock);
    qemu_mutex_init(&s->core_lock);
    qemu_cond_init(&s->core_cond);
    for (unsigned i = 0; i < s->num_cores; i++) {
        mxa_core_create(s, i);
    }
    for (unsigned i = 0; i < s->num_queues; i++) {
        mxa_queue_create(s, i);
    }
}

static void mxa_pci_exit(PCIDevice *pdev)
{
    MxaState *s = MXA(pdev);

    for (unsigned i = 0; i < s->num_queues; i++) {
        mxa_queue_fini(&s->queues[i]);
    }
    for (unsigned i = 0; i < s->num_cores; i++) {
        mxa_core_fini(&s->cores[i]);
    }
    qemu_cond_destroy(&s->core_cond);
    qemu_mutex_destroy(&s->core_lock);
    qemu_bh_delete(s->irq_bh);
    qemu_mutex_destroy(&s->sem_lock);
    g_free(s->doorbell_tlb);
    mxe_engine_destroy(s->engine);
    msix_uninit_exclusive_bar(pdev);
    mxa_timeline_close(s);
}

/* System reset: wait for every queue thread to finish its reset (they never need the BQL). */
static void mxa_device_reset(DeviceState *dev)
{
    MxaState *s = MXA(dev);

    mxa_reset_registers(s);
    mxa_reset_all_queues(s);
    while (mxa_reset_in_progress(s)) {
        g_usleep(100);
    }
}

static const Property mxa_properties[] = {
    DEFINE_PROP_UINT32("queues", MxaState, num_queues, 4),
    DEFINE_PROP_UINT32("cores", MxaState, num_cores, 4),
    DEFINE_PROP_UINT32("engine-threads", MxaState, engine_threads, 2),
    DEFINE_PROP_UINT32("cycle-mhz", MxaState, cycle_mhz, 0),
    DEFINE_PROP_STRING("timing", MxaState, timing_name),
    DEFINE_PROP_UINT32("spin-ns", MxaState, spin_ns, MXA_SPIN_NS),
    DEFINE_PROP_UINT32("lane-spin-ns", MxaState, lane_spin_ns, MXA_SPIN_NS),
    DEFINE_PROP_UINT32("engine-spin-ns", MxaState, engine_spin_ns, MXA_SPIN_NS),
    DEFINE_PROP_UINT32("irq-coalesce", MxaState, irq_coalesce, 32),
    DEFINE_PROP_BOOL("doorbell-jobs", MxaState, doorbell_jobs, true),
    /* host memory for staging math operands, all queues together (job error beyond) */
    DEFINE_PROP_UINT32("max-host-mem-mb", MxaState, max_host_mem_mb, 4096),
    DEFINE_PROP_UINT32("mbar-timeout-us", MxaState, mbar_timeout_us, MXA_SEM_MAX_TIMEOUT_US),
    /* tests only: the TLB generation to start from (near 2^64: the wrap) */
    DEFINE_PROP_UINT64("x-tlb-gen", MxaState, tlb_gen_start, 0),
    /* tests only: each DMA run waits this long between translation and copy */
    DEFINE_PROP_UINT32("x-dma-delay-us", MxaState, dma_delay_us, 0),
    DEFINE_PROP_STRING("timeline", MxaState, timeline_path),
    DEFINE_PROP_STRING("numerics", MxaState, numerics),
};

static const VMStateDescription vmstate_mxa = {
    .name = TYPE_MXA,
    .unmigratable = 1,
};

static void mxa_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = mxa_realize;
    k->exit = mxa_pci_exit;
    k->vendor_id = MXA_PCI_VENDOR_ID;
    k->device_id = MXA_PCI_DEVICE_ID;
    k->revision = MXA_PCI_REVISION;
    k->class_id = MXA_PCI_CLASS;
    dc->desc = "MXA virtual matrix accelerator";
    dc->vmsd = &vmstate_mxa;
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
    device_class_set_props(dc, mxa_properties);
    device_class_set_legacy_reset(dc, mxa_device_reset);
}

static void mxa_register_types(void)
{
    static InterfaceInfo interfaces[] = {
        { INTERFACE_PCIE_DEVICE },
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    };
    static const TypeInfo mxa_info = {
        .name = TYPE_MXA,
        .parent = TYPE_PCI_DEVICE,
        .instance_size = sizeof(MxaState),
        .class_init = mxa_class_init,
        .interfaces = interfaces,
    };

    type_register_static(&mxa_info);
}
type_init(mxa_register_types)
