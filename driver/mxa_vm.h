/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA device VM: one per open file; a context of the device with its own page tables.
 */
#ifndef MXA_VM_H
#define MXA_VM_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/uidgid.h>

#include <drm/drm_mm.h>

#include "mxa_args.h"
#include "mxa_regs.h"

struct mxa_device;
struct mxa_pt;

/* MXA_VM_VA_START, MXA_VM_VA_END: mxa_args.h */
/* An unmapped page after every BO turns a small overrun into an MMU fault. */
#define MXA_VM_GUARD_SIZE	MXA_PAGE_SIZE

/**
 * struct mxa_vm - a device address space (one context of the device).
 * @ref: references: the file, and each BO mapped in it.
 * @mdev: the device; the VM holds a reference to its DRM device.
 * @ctx: context id (index into the device's context table, >= 1).
 * @lock: protects @mm and the page tables.
 * @mm: VA allocator over [MXA_VM_VA_START, MXA_VM_VA_END).
 * @root: level-2 page table, the context's pt_root.
 * @hangs: jobs of this context that timed out.
 * @faults: consecutive jobs of this context that ended in an MMU fault.
 * @banned: the context hung or faulted too often; its submissions get -ECANCELED.
 * @node: entry of mxa_device.vms (under mxa_device.vms_lock).
 * @binds: struct mxa_vm_bind of DRM_IOCTL_MXA_VM_BIND (under @lock).
 * @nr_binds: entries of @binds, at most DRM_MXA_VM_MAX_BINDS (under @lock).
 * @owner: the user who opened the file (max_contexts_per_user).
 * @stale_tables: empty page tables unlinked while jobs of the VM were in flight, to
 *                free once none is (under @lock).
 * @jobs: jobs of this VM on the hardware: from run until their hardware fence signals.
 * @engine_ns: per hardware queue, device time spent on this context's jobs (fdinfo
 *             drm-engine-*).
 * @engine_cycles: per hardware queue, modelled device cycles of this context's jobs
 *                 (fdinfo drm-cycles-*).
 */
struct mxa_vm {
	struct kref ref;
	struct mxa_device *mdev;
	u32 ctx;
	struct mutex lock;	/* protects mm and the page tables */
	struct drm_mm mm;
	struct mxa_pt *root;
	atomic_t hangs;
	atomic_t faults;
	bool banned;
	struct list_head node;
	struct list_head binds;
	u32 nr_binds;
	kuid_t owner;
	struct list_head stale_tables;
	atomic_t jobs;
	atomic64_t engine_ns[MXA_MAX_QUEUES];
	atomic64_t engine_cycles[MXA_MAX_QUEUES];
};

struct mxa_vm *mxa_vm_create(struct mxa_device *mdev);
void mxa_vm_put(struct mxa_vm *vm);

static inline struct mxa_vm *mxa_vm_get(struct mxa_vm *vm)
{
	kref_get(&vm->ref);
	return vm;
}

int mxa_vm_map_sgt(struct mxa_vm *vm, struct drm_mm_node *node, u64 size,
		   struct sg_table *sgt, bool writable);
void mxa_vm_unmap(struct mxa_vm *vm, struct drm_mm_node *node);
void mxa_vm_unbind_all(struct mxa_vm *vm);
void mxa_vm_unplug(struct mxa_device *mdev);

struct drm_device;
struct drm_file;
int mxa_ioctl_vm_bind(struct drm_device *dev, void *data, struct drm_file *file);

#endif /* MXA_VM_H */
