// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA buffer objects.
 *
 * DOC: Buffer objects
 *
 * A BO is a GEM shmem object whose pages are pinned and DMA-mapped at creation and
 * mapped, read-write, in the creating file's device VM (mxa_vm.c) at a VA the driver
 * picks. The mapping lives as long as the object: a job keeps a reference to its
 * program BO, so closing the handle while the job runs is harmless; the VA is
 * unmapped (and the TLB invalidated) only when the last reference is gone.
 *
 * PRIME: a BO exported as a dma-buf and imported by another file of the same device
 * is the same object (the DRM core hands back the exporter's BO); a dma-buf of another
 * device (another MXA, or any exporter) becomes a GEM shmem object over the pages the
 * attachment maps for this device, with no VA of its own (@mxa_bo.vm NULL). Either way
 * the importer maps it in its VM with DRM_IOCTL_MXA_VM_BIND.
 *
 * The export's access mode holds on import: a dma-buf opened without write access
 * (DRM_IOCTL_PRIME_HANDLE_TO_FD without DRM_RDWR) is imported as an object of its own
 * even from this device (the exporter's BO would carry the exporter's rights), marked
 * @mxa_bo.read_only: VM_BIND maps it only with DRM_MXA_VM_BIND_READ_ONLY (else
 * -EACCES), and mmap() of it refuses write access.
 *
 * Removal: open files keep their BOs after the device is unbound, but not the BOs' DMA
 * mappings. Every BO that holds one is listed on the device (mxa_device.bos), and
 * mxa_gem_unplug() unmaps them all once the device has stopped; the object, its pages
 * and its CPU mappings stay until the last reference goes. BO creation and import
 * run inside drm_dev_enter(), so none adds a mapping after that walk.
 */

/**
 * DOC: Huge pages
 *
 * The device moves a TMA box, a DMA or a GEMV's weights in one copy per run of pages
 * that are contiguous in guest memory (qemu-device/mxa_mmu.c), but pages of the
 * kernel's shmem mount lie wherever the allocator found them: a 64 KiB box was 16
 * copies of 4 KiB at unrelated addresses. A BO's pages therefore come from a tmpfs the
 * driver mounts for itself with huge=within_size (as i915's gemfs): a BO of 2 MiB or
 * more gets 2 MiB folios where the guest has them free, and 4 KiB pages elsewhere (its
 * tail, a fragmented guest). Module parameter huge_bos=0 (writable at run time: it
 * applies to BOs created after) keeps new BOs on the kernel's mount. debugfs "bos"
 * lists each BO's contiguous runs.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_vma_manager.h>

#include "drm/mxa_accel.h"
#include "mxa_drv.h"
#include "mxa_gem.h"
#include "mxa_vm.h"

/* dma_buf_attach() and friends (mxa_gem_import_attach()) */
MODULE_IMPORT_NS(DMA_BUF);

static bool mxa_huge_bos = true;
module_param_named(huge_bos, mxa_huge_bos, bool, 0644);
MODULE_PARM_DESC(huge_bos, "back new BOs of 2 MiB or more with huge pages where free (default: on)");

/* The driver's tmpfs (DOC: Huge pages); NULL if it could not be mounted. */
static struct vfsmount *mxa_gemfs;

/**
 * mxa_gem_init() - mount the driver's tmpfs (DOC: Huge pages), at module load.
 *
 * Without transparent huge pages (a kernel built without them: the mount has 4 KiB
 * pages only), or if the mount fails (BOs stay on the kernel's shmem mount), BOs lie
 * in 4 KiB pages: more copies in the device, the same behaviour otherwise.
 */
void mxa_gem_init(void)
{
	char opts[] = "huge=within_size";
	bool huge = IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) && has_transparent_hugepage();
	struct file_system_type *type;
	struct vfsmount *mnt;

	type = get_fs_type("tmpfs");
	if (!type)
		return;
	/* without huge pages the mount still serves: BOs take the same path either way */
	mnt = vfs_kern_mount(type, SB_KERNMOUNT, type->name, huge ? opts : NULL);
	if (IS_ERR(mnt)) {
		pr_info(MXA_DRIVER_NAME ": no tmpfs of its own (%ld): BOs on the kernel's shmem mount\n",
			PTR_ERR(mnt));
		return;
	}
	mxa_gemfs = mnt;
}

/* mxa_gem_fini() - unmount it, at module unload (no BO is left then). */
void mxa_gem_fini(void)
{
	if (mxa_gemfs)
		kern_unmount(mxa_gemfs);
	mxa_gemfs = NULL;
}

/*
 * Move a new shmem object, before it has pages, to a file of the driver's tmpfs. The
 * shmem helper's drm_gem_object_init() made its file on the kernel's mount; the file
 * is all that changes (the helper's allocation flags are kept).
 */
static int mxa_gem_use_gemfs(struct drm_gem_object *obj)
{
	struct file *filp;

	if (!mxa_gemfs || !READ_ONCE(mxa_huge_bos))
		return 0;
	filp = shmem_file_setup_with_mnt(mxa_gemfs, "mxa bo", obj->size, VM_NORESERVE);
	if (IS_ERR(filp))
		return PTR_ERR(filp);
	mapping_set_gfp_mask(filp->f_mapping, mapping_gfp_mask(obj->filp->f_mapping));
	fput(obj->filp);
	obj->filp = filp;
	return 0;
}

/**
 * mxa_gem_dma_runs() - how many runs of contiguous DMA addresses a BO's pages make.
 * @bo: a BO that holds its DMA mapping (on mxa_device.bos, under its lock).
 *
 * Return: the number of runs (1 for a BO in one piece), 0 without a mapping.
 */
unsigned int mxa_gem_dma_runs(const struct mxa_bo *bo)
{
	struct sg_table *sgt = bo->base.sgt;
	struct scatterlist *sg;
	dma_addr_t end = 0;
	unsigned int runs = 0, i;

	if (!sgt)
		return 0;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (!runs || sg_dma_address(sg) != end)
			runs++;
		end = sg_dma_address(sg) + sg_dma_len(sg);
	}
	return runs;
}

/* List @bo on its device: it holds a DMA mapping from now on (mxa_gem_unplug()). */
static void mxa_gem_list(struct mxa_bo *bo)
{
	struct mxa_device *mdev = to_mxa_device(bo->base.base.dev);

	scoped_guard(mutex, &mdev->bos_lock)
		list_add_tail(&bo->dev_node, &mdev->bos);
}

static void mxa_gem_free(struct drm_gem_object *obj)
{
	struct mxa_device *mdev = to_mxa_device(obj->dev);
	struct mxa_bo *bo = to_mxa_bo(obj);

	atomic_dec(&mdev->live_bos);
	scoped_guard(mutex, &mdev->bos_lock)
		list_del_init(&bo->dev_node);
	if (bo->vm) {
		mxa_vm_unmap(bo->vm, &bo->node);
		mxa_vm_put(bo->vm);
		bo->vm = NULL;
	}
	/* Unmaps the DMA mapping, unpins the pages and frees @bo (base comes first). */
	drm_gem_shmem_free(&bo->base);
}

/* A read-only import is never mapped writable, nor can mprotect() make it so. */
static int mxa_gem_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	if (to_mxa_bo(obj)->read_only) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	return drm_gem_shmem_object_mmap(obj, vma);
}

static const struct drm_gem_object_funcs mxa_gem_funcs = {
	.free = mxa_gem_free,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = mxa_gem_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/* drm_driver.gem_create_object: lets drm_gem_shmem_create() allocate a struct mxa_bo. */
struct drm_gem_object *mxa_gem_create_object(struct drm_device *dev, size_t size)
{
	struct mxa_bo *bo;

	BUILD_BUG_ON(offsetof(struct mxa_bo, base) != 0);
	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.base.funcs = &mxa_gem_funcs;
	INIT_LIST_HEAD(&bo->dev_node);
	return &bo->base.base;
}

/**
 * mxa_gem_prime_import_sg_table() - drm_driver.gem_prime_import_sg_table: a dma-buf
 * of another device as a BO of this one (pages DMA-mapped for this device by the
 * attachment; no VA until DRM_IOCTL_MXA_VM_BIND maps it).
 * @dev: the importing device.
 * @attach: the attachment.
 * @sgt: its mapped pages.
 *
 * Return: the object or an ERR_PTR().
 */
struct drm_gem_object *mxa_gem_prime_import_sg_table(struct drm_device *dev,
						     struct dma_buf_attachment *attach,
						     struct sg_table *sgt)
{
	struct drm_gem_object *obj = drm_gem_shmem_prime_import_sg_table(dev, attach, sgt);

	/* mxa_gem_free() counts it down and unlists it like any BO. */
	if (!IS_ERR(obj)) {
		atomic_inc(&to_mxa_device(dev)->live_bos);
		mxa_gem_list(to_mxa_bo(obj));
	}
	return obj;
}

/*
 * drm_gem_prime_import_dev() without its shortcut for this device's own dma-bufs: an
 * attachment, its pages, and a new object over them.
 */
static struct drm_gem_object *mxa_gem_import_attach(struct drm_device *dev,
						    struct dma_buf *dma_buf)
{
	struct dma_buf_attachment *attach;
	struct drm_gem_object *obj;
	struct sg_table *sgt;
	int ret;

	attach = dma_buf_attach(dma_buf, dev->dev);
	if (IS_ERR(attach))
		return ERR_CAST(attach);
	get_dma_buf(dma_buf);
	sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto err_detach;
	}
	obj = mxa_gem_prime_import_sg_table(dev, attach, sgt);
	if (IS_ERR(obj)) {
		ret = PTR_ERR(obj);
		goto err_unmap;
	}
	obj->import_attach = attach;
	obj->resv = dma_buf->resv;
	return obj;

err_unmap:
	dma_buf_unmap_attachment_unlocked(attach, sgt, DMA_BIDIRECTIONAL);
err_detach:
	dma_buf_detach(dma_buf, attach);
	dma_buf_put(dma_buf);
	return ERR_PTR(ret);
}

/**
 * mxa_gem_prime_import() - drm_driver.gem_prime_import: honours the dma-buf's access
 * mode (DOC: Buffer objects).
 * @dev: the importing device.
 * @dma_buf: the dma-buf.
 *
 * Return: the object or an ERR_PTR().
 */
struct drm_gem_object *mxa_gem_prime_import(struct drm_device *dev, struct dma_buf *dma_buf)
{
	struct drm_gem_object *obj;
	int idx;

	/* an attachment maps pages for the device: not after mxa_gem_unplug() */
	if (!drm_dev_enter(dev, &idx))
		return ERR_PTR(-ENODEV);
	if (dma_buf->file->f_mode & FMODE_WRITE) {
		obj = drm_gem_prime_import(dev, dma_buf);
	} else {
		obj = mxa_gem_import_attach(dev, dma_buf);
		if (!IS_ERR(obj))
			to_mxa_bo(obj)->read_only = true;
	}
	drm_dev_exit(idx);
	return obj;
}

/*
 * Unmap @bo's pages from the device; its pages and CPU mappings stay. An import hands
 * its mapping back to the dma-buf core, which may keep it cached in the attachment
 * (cache_sgt_mapping) until the attachment is detached when the object goes.
 */
static void mxa_gem_unmap_dma(struct mxa_bo *bo)
{
	struct drm_gem_shmem_object *shmem = &bo->base;
	struct drm_gem_object *obj = &shmem->base;

	dma_resv_lock(obj->resv, NULL);
	if (shmem->sgt && obj->import_attach) {
		dma_buf_unmap_attachment(obj->import_attach, shmem->sgt, DMA_BIDIRECTIONAL);
	} else if (shmem->sgt) {
		dma_unmap_sgtable(obj->dev->dev, shmem->sgt, DMA_BIDIRECTIONAL, 0);
		sg_free_table(shmem->sgt);
		kfree(shmem->sgt);
	}
	/* drm_gem_shmem_free() then only unpins the pages (or detaches) */
	shmem->sgt = NULL;
	dma_resv_unlock(obj->resv);
}

/**
 * mxa_gem_unplug() - unmap every BO's pages from a removed device (DOC: Buffer objects).
 * @mdev: the device: unplugged, stopped, still bound to the driver.
 */
void mxa_gem_unplug(struct mxa_device *mdev)
{
	struct mxa_bo *bo, *next;

	guard(mutex)(&mdev->bos_lock);
	list_for_each_entry_safe(bo, next, &mdev->bos, dev_node) {
		mxa_gem_unmap_dma(bo);
		list_del_init(&bo->dev_node);
	}
}

int mxa_ioctl_bo_create(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct mxa_file *mf = to_mxa_file(file);
	struct drm_mxa_bo_create *args = data;
	struct drm_gem_shmem_object *shmem;
	struct drm_gem_object *obj;
	struct sg_table *sgt;
	struct mxa_bo *bo;
	u64 va = 0, size = 0;
	u32 handle;
	int ret, idx;

	ret = mxa_args_bo_create(args);
	if (ret)
		return ret;
	/* the BO's pages are mapped for the device: not after mxa_gem_unplug() */
	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;

	shmem = drm_gem_shmem_create(dev, args->size);
	if (IS_ERR(shmem)) {
		drm_dev_exit(idx);
		return PTR_ERR(shmem);
	}
	obj = &shmem->base;
	bo = to_mxa_bo(obj);
	/* From here mxa_gem_free() runs when the object goes. */
	atomic_inc(&to_mxa_device(dev)->live_bos);

	ret = mxa_gem_use_gemfs(obj);
	if (ret)
		goto out_put;
	sgt = drm_gem_shmem_get_pages_sgt(shmem);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto out_put;
	}
	mxa_gem_list(bo);
	ret = mxa_vm_map_sgt(mf->vm, &bo->node, obj->size, sgt, true);
	if (ret)
		goto out_put;
	bo->vm = mxa_vm_get(mf->vm);
	/* Read before the handle exists: another thread may close it at once. */
	va = mxa_bo_va(bo);
	size = obj->size;

	ret = drm_gem_handle_create(file, obj, &handle);
out_put:
	/* On success the handle holds the object; on failure this frees it. */
	drm_gem_object_put(obj);
	drm_dev_exit(idx);
	if (ret)
		return ret;

	args->size = size;
	args->handle = handle;
	args->device_va = va;
	return 0;
}

int mxa_ioctl_bo_mmap_offset(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_mxa_bo_mmap_offset *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->pad)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		args->offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);
	return ret;
}
