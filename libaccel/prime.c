// SPDX-License-Identifier: MIT
/*
 * libaccel: sharing buffers as dma-bufs (PRIME, through libdrm).
 *
 * A GEM handle is not reference counted per import: importing a dma-buf into a file
 * that already holds the object (it exported it, or imported it before) gives back
 * the same handle, and closing one accel_bo would close it under the other. So each
 * device handle keeps a list of the buffers it exported or imported, and an import
 * that lands on one of them is refused with -EEXIST (the handle is left alone).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "accel_internal.h"

static void accel_bo_share(struct accel_bo *bo)
{
	if (bo->shared)
		return;
	bo->shared = true;
	bo->shared_next = bo->dev->shared_bos;
	bo->dev->shared_bos = bo;
}

void accel_bo_unshare(struct accel_bo *bo)
{
	struct accel_bo **p;

	for (p = &bo->dev->shared_bos; *p; p = &(*p)->shared_next) {
		if (*p == bo) {
			*p = bo->shared_next;
			break;
		}
	}
	bo->shared = false;
}

int accel_bo_export_dmabuf(struct accel_bo *bo, unsigned int flags, int *fdp)
{
	int fd = -1, ret;

	if (!fdp)
		return -EINVAL;
	*fdp = -1;
	if (!bo || (flags & ~(unsigned int)(O_CLOEXEC | O_RDWR)))
		return -EINVAL;
	ret = drmPrimeHandleToFD(bo->dev->fd, bo->handle, flags, &fd);
	if (ret)
		return -errno;
	accel_bo_share(bo);
	*fdp = fd;
	return 0;
}

/* 1 if @fd is a dma-buf (its fdinfo names an exporter), else 0. */
static int accel_fd_is_dmabuf(int fd)
{
	char path[64], line[128];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "exp_name:", 9);
	fclose(f);
	return found;
}

int accel_bo_import_dmabuf(struct accel_device *dev, int fd, struct accel_bo **bop)
{
	struct drm_mxa_bo_mmap_offset mo = { 0 };
	struct accel_bo *bo, *other;
	uint32_t handle;
	off_t size;
	void *map;
	int ret, prot;

	if (!bop)
		return -EINVAL;
	*bop = NULL;
	if (!dev)
		return -EINVAL;
	if (fd < 0)
		return -EBADF;
	if (drmPrimeFDToHandle(dev->fd, fd, &handle)) {
		ret = -errno;
		/* the kernel says EINVAL both for "not a dma-buf" and "not ours" */
		if (ret == -EINVAL && accel_fd_is_dmabuf(fd))
			ret = -EOPNOTSUPP;
		return ret;
	}
	for (other = dev->shared_bos; other; other = other->shared_next)
		if (other->handle == handle)
			return -EEXIST;	/* the handle belongs to @other: keep it */

	size = lseek(fd, 0, SEEK_END);
	if (size <= 0) {
		ret = size < 0 ? -errno : -EINVAL;
		goto err_close;
	}
	lseek(fd, 0, SEEK_SET);
	bo = calloc(1, sizeof(*bo));
	if (!bo) {
		ret = -ENOMEM;
		goto err_close;
	}
	mo.handle = handle;
	ret = accel_ioctl(dev->fd, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo);
	if (ret)
		goto err_free;
	/* a dma-buf opened without write access imports read-only (accel.h) */
	prot = (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR ? PROT_READ | PROT_WRITE : PROT_READ;
	map = mmap(NULL, size, prot, MAP_SHARED, dev->fd, mo.offset);
	if (map == MAP_FAILED) {
		ret = -errno;
		goto err_free;
	}
	bo->dev = dev;
	bo->handle = handle;
	bo->va = 0;		/* not mapped in this device VM: see accel.h */
	bo->size = size;
	bo->map = map;
	bo->imported = true;
	accel_bo_share(bo);
	*bop = bo;
	return 0;

err_free:
	free(bo);
err_close:
	drmCloseBufferHandle(dev->fd, handle);
	return ret;
}
