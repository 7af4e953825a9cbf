// SPDX-License-Identifier: MIT
/*
 * libaccel: buffer objects (GEM BOs mapped in the device VM and in this process).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <xf86drm.h>

#include "accel_internal.h"

int accel_bo_alloc(struct accel_device *dev, size_t size, struct accel_bo **bop)
{
	struct drm_mxa_bo_mmap_offset mo = { 0 };
	struct drm_mxa_bo_create c = { 0 };
	struct accel_bo *bo;
	void *map;
	int ret;

	*bop = NULL;
	if (!size)
		return -EINVAL;
	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;

	c.size = size;
	ret = accel_ioctl(dev->fd, DRM_IOCTL_MXA_BO_CREATE, &c);
	if (ret)
		goto err_free;
	mo.handle = c.handle;
	ret = accel_ioctl(dev->fd, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo);
	if (ret)
		goto err_close;
	map = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd, mo.offset);
	if (map == MAP_FAILED) {
		ret = -errno;
		goto err_close;
	}

	bo->dev = dev;
	bo->handle = c.handle;
	bo->va = c.device_va;
	bo->size = c.size;
	bo->map = map;
	*bop = bo;
	return 0;

err_close:
	drmCloseBufferHandle(dev->fd, c.handle);
err_free:
	free(bo);
	return ret;
}

void accel_bo_free(struct accel_bo *bo)
{
	if (!bo)
		return;
	munmap(bo->map, bo->size);
	if (bo->shared)
		accel_bo_unshare(bo);
	drmCloseBufferHandle(bo->dev->fd, bo->handle);
	free(bo);
}

void *accel_bo_map(const struct accel_bo *bo)
{
	return bo->map;
}

uint64_t accel_bo_va(const struct accel_bo *bo)
{
	return bo->va;
}

size_t accel_bo_size(const struct accel_bo *bo)
{
	return bo->size;
}

uint32_t accel_bo_handle(const struct accel_bo *bo)
{
	return bo->handle;
}
