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
 * once, at creation, followed by an unmapped guard page. DRM_IOCTL_MXA_VM_BIND adds
 * more mappings of a BO (or a page range of it) at VAs userspace picks, optionally
 * read-only: a bind reserves its exact range in the same drm_mm (so it can overlap
 * neither a BO's own range, its guard page included, nor another bind) and holds a
 * reference to the BO until it is unbound or the file closes.
 *
 * Unmapping clears the leaf PTEs and invalidates the context's TLB before the pages
 * can be reused. Every table counts its valid entries; a table that becomes empty is
 * unlinked from its parent (TLB invalidated again) and freed. The device may still be
 * walking it if a job of the VM is running, so then the table is parked on the VM's
 * stale list and freed by a later unmap that finds no job of the VM in flight, or
 * with the VM (mxa_vm.jobs counts jobs from creation to their fence signalling).
 *
 * Lifetime: the file holds a reference, and so does every BO mapped in the VM (a BO
 * can outlive its handle while a job uses it). The context id is released with the
 * last reference, so an id is never reused while a job of the old VM is in flight.
 * When the device is removed under open files, mxa_vm_unplug() frees every VM's
 * tables at once (the device has stopped); the VMs live on without tables (@root
 * NULL): unmapping does nothing and mapping fails with -ENODEV.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/dma-mapping.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include <drm/drm_gem.h>

#include "drm/mxa_accel.h"
#include "mxa_drv.h"
#include "mxa_gem.h"
#include "mxa_vm.h"

/**
 * struct mxa_pt - one page table (4 KiB, 512 entries) of a VM.
 * @entries: the table, in coherent DMA memory.
 * @dma: its bus address.
 * @children: levels 2 and 1: the next-level table of each entry (NULL if none).
 * @used: valid entries; the table is unlinked when it drops to zero.
 * @stale: entry of mxa_vm.stale_tables once unlinked while jobs may still walk it.
 */
struct mxa_pt {
	__le64 *entries;
	dma_addr_t dma;
	struct mxa_pt **children;
	u32 used;
	struct list_head stale;
};

/**
 * struct mxa_vm_bind - a mapping made by DRM_IOCTL_MXA_VM_BIND.
 * @link: entry of mxa_vm.binds.
 * @node: the VA range, reserved in mxa_vm.mm.
 * @bo: the mapped BO (reference).
 */
struct mxa_vm_bind {
	struct list_head link;
	struct drm_mm_node node;
	struct mxa_bo *bo;
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
	if (pt->entries) {
		dma_free_coherent(&mdev->pdev->dev, MXA_PAGE_SIZE, pt->entries, pt->dma);
		atomic_dec(&mdev->live_page_tables);
	}
	kfree(pt);
}

static struct mxa_pt *mxa_pt_alloc(struct mxa_device *mdev, int level)
{
	struct mxa_pt *pt = kzalloc(sizeof(*pt), GFP_KERNEL);

	if (!pt)
		return NULL;
	/* Zeroed and page aligned, as the device requires 4 KiB aligned tables. */
	INIT_LIST_HEAD(&pt->stale);
	pt->entries = dma_alloc_coherent(&mdev->pdev->dev, MXA_PAGE_SIZE, &pt->dma,
					 GFP_KERNEL);
	if (pt->entries)
		atomic_inc(&mdev->live_page_tables);
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
 * The level-0 table that maps @va, allocating the tables on the way when @alloc.
 * Intermediate entries carry MXA_PTE_WRITE: access rights are decided by the leaf alone.
 */
static struct mxa_pt *mxa_vm_walk(struct mxa_vm *vm, u64 va, bool alloc)
{
	struct mxa_pt *pt = vm->root;
	int level;

	lockdep_assert_held(&vm->lock);
	if (!pt)	/* the device is gone (mxa_vm_unplug()) */
		return alloc ? ERR_PTR(-ENODEV) : NULL;

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
			pt->used++;
			WRITE_ONCE(pt->entries[i], mxa_pte(child->dma, MXA_PTE_WRITE));
		}
		pt = child;
	}
	return pt;
}

/* Free the tables parked on the stale list once no job of the VM can walk them. */
static void mxa_vm_free_stale(struct mxa_vm *vm)
{
	struct mxa_pt *pt, *next;

	lockdep_assert_held(&vm->lock);
	/* The unlinking PTE stores and TLB invalidation come before the job count. */
	smp_mb();
	if (atomic_read(&vm->jobs))
		return;
	list_for_each_entry_safe(pt, next, &vm->stale_tables, stale) {
		list_del(&pt->stale);
		/* Empty tables: their children are gone already. */
		mxa_pt_free(vm->mdev, pt, 0);
	}
}

/*
 * Unlink the empty tables below @pt (at @level, covering VAs from @base) that map
 * [@start, @end), onto the stale list. Returns whether anything was unlinked.
 */
static bool mxa_vm_prune(struct mxa_vm *vm, struct mxa_pt *pt, int level, u64 base,
			 u64 start, u64 end)
{
	u64 span = 1ull << (MXA_PAGE_SHIFT + 9 * level);
	bool pruned = false;
	u64 va;

	for (va = max(start, base) & ~(span - 1); va < end && va < base + 512 * span;
	     va += span) {
		unsigned int i = mxa_pt_index(va, level);
		struct mxa_pt *child = pt->children[i];

		if (!child)
			continue;
		if (level > 1)
			pruned |= mxa_vm_prune(vm, child, level - 1, va, start, end);
		if (child->used)
			continue;
		WRITE_ONCE(pt->entries[i], 0);
		pt->children[i] = NULL;
		pt->used--;
		/* Its children array goes now; the table itself may still be walked. */
		kfree(child->children);
		child->children = NULL;
		list_add_tail(&child->stale, &vm->stale_tables);
		pruned = true;
	}
	return pruned;
}

static void mxa_vm_clear_range(struct mxa_vm *vm, u64 start, u64 size)
{
	u64 va;

	if (!vm->root)	/* the device is gone, and the tables with it */
		return;
	for (va = start; va < start + size; va += MXA_PAGE_SIZE) {
		struct mxa_pt *pt = mxa_vm_walk(vm, va, false);
		unsigned int i = mxa_pt_index(va, 0);

		if (pt && pt->entries[i]) {
			WRITE_ONCE(pt->entries[i], 0);
			pt->used--;
		}
	}
	mxa_hw_tlb_invalidate(vm->mdev, vm->ctx);
	if (mxa_vm_prune(vm, vm->root, MXA_PT_LEVELS - 1, 0, start, start + size))
		mxa_hw_tlb_invalidate(vm->mdev, vm->ctx);
	mxa_vm_free_stale(vm);
}

/* Map @size bytes of @sgt from byte @offset at @va; returns bytes mapped or -errno. */
static s64 mxa_vm_map_pages(struct mxa_vm *vm, u64 va, struct sg_table *sgt, u64 offset,
			    u64 size, u64 flags)
{
	struct scatterlist *sg;
	u64 mapped = 0, pos = 0;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);
		u64 len = sg_dma_len(sg), off;

		if (pos + len <= offset) {
			pos += len;
			continue;
		}
		for (off = offset > pos ? offset - pos : 0; off < len && mapped < size;
		     off += MXA_PAGE_SIZE) {
			struct mxa_pt *pt = mxa_vm_walk(vm, va, true);
			unsigned int idx = mxa_pt_index(va, 0);

			if (IS_ERR(pt))
				return PTR_ERR(pt);
			if (!pt->entries[idx])
				pt->used++;
			WRITE_ONCE(pt->entries[idx], mxa_pte(addr + off, flags));
			va += MXA_PAGE_SIZE;
			mapped += MXA_PAGE_SIZE;
		}
		pos += len;
		if (mapped >= size)
			break;
	}
	return mapped;
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
	s64 mapped = 0;
	int ret;

	if (!size || !IS_ALIGNED(size, MXA_PAGE_SIZE))
		return -EINVAL;

	mutex_lock(&vm->lock);
	/*
	 * The lowest free range: buffers fill the VM from va_start up, so a program that
	 * binds at VAs of its own choosing (VM_BIND) high in the VM meets no buffer there
	 * (best fit put a buffer right after such a bind, where the next bind then failed).
	 */
	ret = drm_mm_insert_node_generic(&vm->mm, node, size + MXA_VM_GUARD_SIZE,
					 MXA_PAGE_SIZE, 0, DRM_MM_INSERT_LOW);
	if (ret)
		goto out_unlock;

	mapped = mxa_vm_map_pages(vm, node->start, sgt, 0, size, flags);
	if (mapped < 0) {
		ret = mapped;
		/* What was mapped before the failure is cleared with the whole range. */
		mapped = size;
		goto err_unmap;
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

static unsigned int mxa_max_contexts_per_user = 64;
module_param_named(max_contexts_per_user, mxa_max_contexts_per_user, uint, 0644);
MODULE_PARM_DESC(max_contexts_per_user,
		 "contexts (open files) of a device one user may hold, CAP_SYS_RESOURCE exempt (default 64)");

/* Contexts of @mdev that @uid holds. */
static unsigned int mxa_vm_user_contexts(struct mxa_device *mdev, kuid_t uid)
{
	struct mxa_vm *vm;
	unsigned int n = 0;

	lockdep_assert_held(&mdev->vms_lock);
	list_for_each_entry(vm, &mdev->vms, node)
		n += uid_eq(vm->owner, uid);
	return n;
}

/**
 * mxa_vm_create() - a new VM with its own context of the device.
 * @mdev: the device.
 *
 * A user without CAP_SYS_RESOURCE holds at most max_contexts_per_user contexts of a
 * device (module parameter), so that one user cannot take every context.
 *
 * Return: the VM with one reference, or an ERR_PTR: -ENOSPC when every context is in
 * use, -EDQUOT when the caller's user holds max_contexts_per_user already, -ENOMEM,
 * -ENODEV when the device is gone.
 */
struct mxa_vm *mxa_vm_create(struct mxa_device *mdev)
{
	struct mxa_ctx_desc *desc;
	struct mxa_vm *vm;
	int ret, idx;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL_ACCOUNT);
	if (!vm)
		return ERR_PTR(-ENOMEM);
	vm->owner = current_uid();
	kref_init(&vm->ref);
	mutex_init(&vm->lock);
	INIT_LIST_HEAD(&vm->binds);
	INIT_LIST_HEAD(&vm->stale_tables);
	drm_mm_init(&vm->mm, MXA_VM_VA_START, MXA_VM_VA_END - MXA_VM_VA_START);
	vm->mdev = mdev;

	vm->root = mxa_pt_alloc(mdev, MXA_PT_LEVELS - 1);
	if (!vm->root) {
		ret = -ENOMEM;
		goto err_free;
	}

	/* Counted and listed under one lock: concurrent opens cannot overshoot the limit. */
	mutex_lock(&mdev->vms_lock);
	if (!capable(CAP_SYS_RESOURCE) && mxa_vm_user_contexts(mdev, vm->owner) >=
					  READ_ONCE(mxa_max_contexts_per_user)) {
		mutex_unlock(&mdev->vms_lock);
		ret = -EDQUOT;
		goto err_free;
	}
	list_add_tail(&vm->node, &mdev->vms);
	mutex_unlock(&mdev->vms_lock);

	/* Context 0 is never used: a zeroed descriptor must not name a valid context. */
	ret = ida_alloc_range(&mdev->ctx_ida, 1, mdev->ctx_count - 1, GFP_KERNEL);
	if (ret < 0)
		goto err_unlist;
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
	return vm;

err_ida:
	ida_free(&mdev->ctx_ida, vm->ctx);
err_unlist:
	scoped_guard(mutex, &mdev->vms_lock)
		list_del(&vm->node);
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
		drm_dev_exit(idx);
	}
	/* the barrier: no walk of this VM's tables is left when they are freed below */
	mxa_hw_tlb_invalidate(mdev, vm->ctx);
	ida_free(&mdev->ctx_ida, vm->ctx);
	/* No job of the VM is left: its stale tables can go. */
	mutex_lock(&vm->lock);
	mxa_vm_free_stale(vm);
	mutex_unlock(&vm->lock);
	mxa_pt_free(mdev, vm->root, MXA_PT_LEVELS - 1);
	drm_mm_takedown(&vm->mm);
	mutex_destroy(&vm->lock);
	kfree(vm);
	drm_dev_put(&mdev->drm);
}

/**
 * mxa_vm_unplug() - free the page tables of every VM of a removed device.
 * @mdev: the device: unplugged, stopped (no job walks a table any more), still bound.
 *
 * The tables are coherent DMA memory of the device, which must not outlive its driver;
 * the open files keep their VMs, without tables (DOC: Device VMs and page tables).
 */
void mxa_vm_unplug(struct mxa_device *mdev)
{
	struct mxa_pt *pt, *next;
	struct mxa_vm *vm;

	guard(mutex)(&mdev->vms_lock);
	list_for_each_entry(vm, &mdev->vms, node) {
		guard(mutex)(&vm->lock);
		list_for_each_entry_safe(pt, next, &vm->stale_tables, stale) {
			list_del(&pt->stale);
			mxa_pt_free(mdev, pt, 0);
		}
		mxa_pt_free(mdev, vm->root, MXA_PT_LEVELS - 1);
		vm->root = NULL;
	}
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

/* Release a bind: the range is unmapped already. Drops the BO, which may take vm->lock. */
static void mxa_vm_bind_free(struct mxa_vm_bind *b)
{
	drm_gem_object_put(&b->bo->base.base);
	kfree(b);
}

static int mxa_vm_bind_map(struct mxa_file *mf, struct drm_file *file,
			   const struct drm_mxa_vm_bind *args)
{
	struct mxa_vm *vm = mf->vm;
	struct drm_gem_object *obj;
	struct mxa_vm_bind *b;
	u64 bo_end;
	s64 mapped;
	int ret;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	/*
	 * Any BO the file holds a handle to: its own, or one imported as a dma-buf (of
	 * another file of this device, whose BO it then is, or of another device, with
	 * the pages DMA-mapped for this one; mxa_gem_prime_import_sg_table()).
	 */
	if (!to_mxa_bo(obj)->base.sgt ||
	    check_add_overflow(args->bo_offset, args->size, &bo_end) || bo_end > obj->size) {
		drm_gem_object_put(obj);
		return -EINVAL;
	}
	/* a dma-buf exported without write access stays read-only (mxa_gem.c) */
	if (to_mxa_bo(obj)->read_only && !(args->flags & DRM_MXA_VM_BIND_READ_ONLY)) {
		drm_gem_object_put(obj);
		return -EACCES;
	}
	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b) {
		drm_gem_object_put(obj);
		return -ENOMEM;
	}
	b->bo = to_mxa_bo(obj);	/* the lookup's reference becomes the bind's */
	b->node.start = args->va;
	b->node.size = args->size;

	mutex_lock(&vm->lock);
	if (vm->nr_binds >= DRM_MXA_VM_MAX_BINDS) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	ret = drm_mm_reserve_node(&vm->mm, &b->node);
	if (ret) {
		ret = ret == -ENOSPC ? -EEXIST : ret;
		goto err_unlock;
	}
	mapped = mxa_vm_map_pages(vm, args->va, b->bo->base.sgt, args->bo_offset, args->size,
				  (args->flags & DRM_MXA_VM_BIND_READ_ONLY) ? 0 : MXA_PTE_WRITE);
	if (mapped != args->size) {
		ret = mapped < 0 ? mapped : -EINVAL;
		mxa_vm_clear_range(vm, args->va, args->size);
		drm_mm_remove_node(&b->node);
		goto err_unlock;
	}
	list_add_tail(&b->link, &vm->binds);
	vm->nr_binds++;
	mutex_unlock(&vm->lock);
	/* No negative caching is promised by the device: make the new PTEs visible. */
	mxa_hw_tlb_invalidate(vm->mdev, vm->ctx);
	return 0;

err_unlock:
	mutex_unlock(&vm->lock);
	mxa_vm_bind_free(b);
	return ret;
}

static int mxa_vm_bind_unmap(struct mxa_vm *vm, const struct drm_mxa_vm_bind *args)
{
	struct mxa_vm_bind *b, *found = NULL;

	mutex_lock(&vm->lock);
	list_for_each_entry(b, &vm->binds, link) {
		if (b->node.start == args->va && b->node.size == args->size) {
			found = b;
			break;
		}
	}
	if (found) {
		list_del(&found->link);
		vm->nr_binds--;
		mxa_vm_clear_range(vm, found->node.start, found->node.size);
		drm_mm_remove_node(&found->node);
	}
	mutex_unlock(&vm->lock);
	if (!found)
		return -ENOENT;
	mxa_vm_bind_free(found);
	return 0;
}

int mxa_ioctl_vm_bind(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct mxa_file *mf = to_mxa_file(file);
	struct drm_mxa_vm_bind *args = data;

	int ret = mxa_args_vm_bind(args);

	if (ret)
		return ret;
	return args->op == DRM_MXA_VM_BIND_OP_MAP ? mxa_vm_bind_map(mf, file, args) :
						    mxa_vm_bind_unmap(mf->vm, args);
}

/**
 * mxa_vm_unbind_all() - remove every DRM_IOCTL_MXA_VM_BIND mapping (file close).
 * @vm: the VM.
 */
void mxa_vm_unbind_all(struct mxa_vm *vm)
{
	struct mxa_vm_bind *b, *next;
	LIST_HEAD(gone);

	mutex_lock(&vm->lock);
	list_for_each_entry_safe(b, next, &vm->binds, link) {
		mxa_vm_clear_range(vm, b->node.start, b->node.size);
		drm_mm_remove_node(&b->node);
		list_move_tail(&b->link, &gone);
	}
	vm->nr_binds = 0;
	mutex_unlock(&vm->lock);
	/* Outside the lock: the last BO reference unmaps the BO's own range. */
	list_for_each_entry_safe(b, next, &gone, link)
		mxa_vm_bind_free(b);
}
