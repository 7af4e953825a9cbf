// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA device VM.
 *
 * DOC: Device VMs and page tables
 *
 * Every open file gets a VM: a context id of the device (entry of its context table)
 * and a three-level page table in the format of uapi/mxa_regs.h (512 entries of 64
 * bits per level, 4 KiB pages, 39-bit VAs). Tables live in coherent DMA memory, so a
 * PTE store is visible to the device without a flush; the doorbell write that submits
 * a job orders it before the job starts.
 *
 * VAs come from a drm_mm over [MXA_VM_VA_START, MXA_VM_VA_END). Each BO is mapped
 * once, at creation, followed by an unmapped guard page. Unmapping clears the leaf
 * PTEs and invalidates the context's TLB before the pages can be reused. Intermediate
 * tables are kept until the VM is destroyed: a VM's footprint is bounded by what it
 * ever mapped, and a table never disappears under a running job.
 *
 * Lifetime: the file holds a reference, and so does every BO mapped in the VM (a BO
 * can outlive its handle while a job uses it). The context id is released with the
 * last reference, so an id is never reused while a job of the old VM is in flight.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "mxa_drv.h"
#include "mxa_vm.h"

/**
 * struct mxa_pt - one page table (4 KiB, 512 entries) of a VM.
 * @entries: the table, in coherent DMA memory.
 * @dma: its bus address.
 * @children: levels 2 and 1: the next-level table of each entry (NULL if none).
 */
struct mxa_pt {
	__le64 *entries;
	dma_addr_t dma;
	struct mxa_pt **children;
};

static void mxa_pt_free(struct mxa_device *mdev, struct mxa_pt *pt, int level)
{
	int i;

	if (!pt)
		return;
	if (pt->children) {
		for (i = 0; i < MXA_PT_ENTRIES; i++)
			mxa_pt_free(mdev, pt->children[i], level - 1);
		kfree(pt->children);
	}
	if (pt->entries)
		dma_free_coherent(&mdev->pdev->dev, MXA_PAGE_SIZE, pt->entries, pt->dma);
	kfree(pt);
}

static struct mxa_pt *mxa_pt_alloc(struct mxa_device *mdev, int level)
{
	struct mxa_pt *pt = kzalloc(sizeof(*pt), GFP_KERNEL);

	if (!pt)
		return NULL;
	/* Zeroed and page aligned, as the device requires 4 KiB aligned tables. */
	pt->entries = dma_alloc_coherent(&mdev->pdev->dev, MXA_PAGE_SIZE, &pt->dma,
					 GFP_KERNEL);
	if (level > 0)
		pt->children = kcalloc(MXA_PT_ENTRIES, sizeof(*pt->children), GFP_KERNEL);
	if (!pt->entries || (level > 0 && !pt->children)) {
		mxa_pt_free(mdev, pt, level);
		return NULL;
	}
	return pt;
}

static __le64 mxa_pte(dma_addr_t addr, u64 flags)
{
	return cpu_to_le64(MXA_PTE_VALID | flags | ((u64)addr & MXA_PTE_ADDR_MASK));
}

/*
 * The leaf PTE of @va, allocating the tables on the way when @alloc. Intermediate
 * entries carry MXA_PTE_WRITE: access rights are decided by the leaf alone.
 */
static __le64 *mxa_vm_leaf(struct mxa_vm *vm, u64 va, bool alloc)
{
	struct mxa_pt *pt = vm->root;
	int level;

	lockdep_assert_held(&vm->lock);

	for (level = MXA_PT_LEVELS - 1; level > 0; level--) {
		unsigned int i = mxa_pt_index(va, level);
		struct mxa_pt *child = pt->children[i];

		if (!child) {
			if (!alloc)
				return NULL;
			child = mxa_pt_alloc(vm->mdev, level - 1);
			if (!child)
				return ERR_PTR(-ENOMEM);
			pt->children[i] = child;
			WRITE_ONCE(pt->entries[i], mxa_pte(child->dma, MXA_PTE_WRITE));
		}
		pt = child;
	}
	return &pt->entries[mxa_pt_index(va, 0)];
}

static void mxa_vm_clear_range(struct mxa_vm *vm, u64 start, u64 size)
{
	u64 va;

	for (va = start; va < start + size; va += MXA_PAGE_SIZE) {
		__le64 *pte = mxa_vm_leaf(vm, va, false);

		if (pte)
			WRITE_ONCE(*pte, 0);
	}
	mxa_hw_tlb_invalidate(vm->mdev, vm->ctx);
}

/**
 * mxa_vm_map_sgt() - allocate a VA range and map DMA-mapped pages there.
 * @vm: the VM.
 * @node: out: the VA range (node->start is the VA); must be zeroed.
 * @size: bytes to map, a multiple of MXA_PAGE_SIZE, <= the length of @sgt.
 * @sgt: the pages, already DMA-mapped for the device.
 * @writable: map with MXA_PTE_WRITE.
 *
 * Return: 0, -ENOSPC when the VM is full, -ENOMEM, or -EINVAL if @sgt is too short.
 */
int mxa_vm_map_sgt(struct mxa_vm *vm, struct drm_mm_node *node, u64 size,
		   struct sg_table *sgt, bool writable)
{
	u64 flags = writable ? MXA_PTE_WRITE : 0;
	struct scatterlist *sg;
	u64 va, mapped = 0;
	unsigned int i;
	int ret;

	if (!size || !IS_ALIGNED(size, MXA_PAGE_SIZE))
		return -EINVAL;

	mutex_lock(&vm->lock);
	ret = drm_mm_insert_node_generic(&vm->mm, node, size + MXA_VM_GUARD_SIZE,
					 MXA_PAGE_SIZE, 0, DRM_MM_INSERT_BEST);
	if (ret)
		goto out_unlock;

	va = node->start;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);
		u64 len = sg_dma_len(sg), off;

		for (off = 0; off < len && mapped < size; off += MXA_PAGE_SIZE) {
			__le64 *pte = mxa_vm_leaf(vm, va, true);

			if (IS_ERR(pte)) {
				ret = PTR_ERR(pte);
				goto err_unmap;
			}
			WRITE_ONCE(*pte, mxa_pte(addr + off, flags));
			va += MXA_PAGE_SIZE;
			mapped += MXA_PAGE_SIZE;
		}
	}
	if (mapped < size) {
		ret = -EINVAL;
		goto err_unmap;
	}
	mutex_unlock(&vm->lock);
	return 0;

err_unmap:
	mxa_vm_clear_range(vm, node->start, mapped);
	drm_mm_remove_node(node);
out_unlock:
	mutex_unlock(&vm->lock);
	return ret;
}

/**
 * mxa_vm_unmap() - unmap a range mapped by mxa_vm_map_sgt() and free its VAs.
 * @vm: the VM.
 * @node: the range.
 *
 * The device no longer reaches the pages when this returns.
 */
void mxa_vm_unmap(struct mxa_vm *vm, struct drm_mm_node *node)
{
	mutex_lock(&vm->lock);
	mxa_vm_clear_range(vm, node->start, node->size);
	drm_mm_remove_node(node);
	mutex_unlock(&vm->lock);
}

/**
 * mxa_vm_create() - a new VM with its own context of the device.
 * @mdev: the device.
 *
 * Return: the VM with one reference, or an ERR_PTR: -ENOSPC when every context is in
 * use, -ENOMEM, -ENODEV when the device is gone.
 */
struct mxa_vm *mxa_vm_create(struct mxa_device *mdev)
{
	struct mxa_ctx_desc *desc;
	struct mxa_vm *vm;
	int ret, idx;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL);
	if (!vm)
		return ERR_PTR(-ENOMEM);
	kref_init(&vm->ref);
	mutex_init(&vm->lock);
	drm_mm_init(&vm->mm, MXA_VM_VA_START, MXA_VM_VA_END - MXA_VM_VA_START);
	vm->mdev = mdev;

	vm->root = mxa_pt_alloc(mdev, MXA_PT_LEVELS - 1);
	if (!vm->root) {
		ret = -ENOMEM;
		goto err_free;
	}

	/* Context 0 is never used: a zeroed descriptor must not name a valid context. */
	ret = ida_alloc_range(&mdev->ctx_ida, 1, mdev->ctx_count - 1, GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	vm->ctx = ret;

	if (!drm_dev_enter(&mdev->drm, &idx)) {
		ret = -ENODEV;
		goto err_ida;
	}
	desc = &mdev->ctx_table[vm->ctx];
	desc->pt_root = vm->root->dma;
	desc->reserved = 0;
	/* The device must never see VALID with a stale root. */
	dma_wmb();
	WRITE_ONCE(desc->flags, MXA_CTX_F_VALID);
	drm_dev_exit(idx);
	mxa_hw_tlb_invalidate(mdev, vm->ctx);

	drm_dev_get(&mdev->drm);
	atomic_inc(&mdev->live_contexts);
	scoped_guard(mutex, &mdev->vms_lock)
		list_add_tail(&vm->node, &mdev->vms);
	return vm;

err_ida:
	ida_free(&mdev->ctx_ida, vm->ctx);
err_free:
	mxa_pt_free(mdev, vm->root, MXA_PT_LEVELS - 1);
	drm_mm_takedown(&vm->mm);
	mutex_destroy(&vm->lock);
	kfree(vm);
	return ERR_PTR(ret);
}

static void mxa_vm_release(struct kref *ref)
{
	struct mxa_vm *vm = container_of(ref, struct mxa_vm, ref);
	struct mxa_device *mdev = vm->mdev;
	int idx;

	scoped_guard(mutex, &mdev->vms_lock)
		list_del(&vm->node);
	atomic_dec(&mdev->live_contexts);
	if (drm_dev_enter(&mdev->drm, &idx)) {
		WRITE_ONCE(mdev->ctx_table[vm->ctx].flags, 0);
		mxa_write(mdev, MXA_REG_TLB_INVAL, vm->ctx);
		drm_dev_exit(idx);
	}
	ida_free(&mdev->ctx_ida, vm->ctx);
	mxa_pt_free(mdev, vm->root, MXA_PT_LEVELS - 1);
	drm_mm_takedown(&vm->mm);
	mutex_destroy(&vm->lock);
	kfree(vm);
	drm_dev_put(&mdev->drm);
}

/**
 * mxa_vm_put() - drop a reference; the last one frees the VM and its context.
 * @vm: the VM, or NULL. Must be called from process context.
 */
void mxa_vm_put(struct mxa_vm *vm)
{
	if (vm)
		kref_put(&vm->ref, mxa_vm_release);
}
