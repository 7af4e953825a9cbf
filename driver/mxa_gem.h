/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA buffer objects: GEM shmem objects mapped in their file's device VM.
 */
#ifndef MXA_GEM_H
#define MXA_GEM_H

#include <linux/bits.h>

#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_mm.h>

#include "mxa_args.h"

struct drm_device;
struct drm_file;
struct mxa_device;
struct mxa_vm;

/* MXA_BO_MAX_SIZE, the largest BO DRM_IOCTL_MXA_BO_CREATE accepts: mxa_args.h */

/**
 * struct mxa_bo - a buffer object.
 * @base: the GEM shmem object.
 * @vm: the VM the BO is mapped in (holds a reference), NULL before mapping.
 * @node: the BO's VA range in @vm; node.start is its device VA.
 * @read_only: imported from a dma-buf opened without write access: bound read-only
 *	only, and mmap()ed without write (mxa_gem.c, "PRIME").
 * @dev_node: entry of mxa_device.bos while the BO holds a DMA mapping (empty otherwise).
 */
struct mxa_bo {
	struct drm_gem_shmem_object base;
	struct mxa_vm *vm;
	struct drm_mm_node node;
	bool read_only;
	struct list_head dev_node;
};

static inline struct mxa_bo *to_mxa_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct mxa_bo, base);
}

static inline u64 mxa_bo_va(const struct mxa_bo *bo)
{
	return bo->node.start;
}

static inline size_t mxa_bo_size(const struct mxa_bo *bo)
{
	return bo->base.base.size;
}

struct drm_gem_object *mxa_gem_create_object(struct drm_device *dev, size_t size);
struct drm_gem_object *mxa_gem_prime_import(struct drm_device *dev, struct dma_buf *dma_buf);
struct drm_gem_object *mxa_gem_prime_import_sg_table(struct drm_device *dev,
						     struct dma_buf_attachment *attach,
						     struct sg_table *sgt);
void mxa_gem_init(void);
void mxa_gem_fini(void);
unsigned int mxa_gem_dma_runs(const struct mxa_bo *bo);
void mxa_gem_unplug(struct mxa_device *mdev);
int mxa_ioctl_bo_create(struct drm_device *dev, void *data, struct drm_file *file);
int mxa_ioctl_bo_mmap_offset(struct drm_device *dev, void *data, struct drm_file *file);

#endif /* MXA_GEM_H */
