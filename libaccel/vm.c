// SPDX-License-Identifier: MIT
/*
 * libaccel: buffers at device VAs the caller picks (DRM_IOCTL_MXA_VM_BIND).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "accel_internal.h"

int accel_vm_bind(struct accel_device *dev, struct accel_bo *bo, uint64_t bo_offset,
		  uint64_t va, uint64_t size, unsigned int flags)
{
	struct drm_mxa_vm_bind b;

	if (!dev || !bo || bo->dev != dev || (flags & ~ACCEL_VM_BIND_READ_ONLY))
		return -EINVAL;
	memset(&b, 0, sizeof(b));
	b.op = DRM_MXA_VM_BIND_OP_MAP;
	b.flags = (flags & ACCEL_VM_BIND_READ_ONLY) ? DRM_MXA_VM_BIND_READ_ONLY : 0;
	b.handle = bo->handle;
	b.bo_offset = bo_offset;
	b.va = va;
	b.size = size;
	return accel_ioctl(dev->fd, DRM_IOCTL_MXA_VM_BIND, &b);
}

int accel_vm_unbind(struct accel_device *dev, uint64_t va, uint64_t size)
{
	struct drm_mxa_vm_bind b;

	if (!dev)
		return -EINVAL;
	memset(&b, 0, sizeof(b));
	b.op = DRM_MXA_VM_BIND_OP_UNMAP;
	b.va = va;
	b.size = size;
	return accel_ioctl(dev->fd, DRM_IOCTL_MXA_VM_BIND, &b);
}
