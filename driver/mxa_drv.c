// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA DRM accel driver: PCI probe/remove, the DRM accel device, file operations and
 * the ioctl table.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>

#include "drm/mxa_accel.h"
#include "mxa_drv.h"
#include "mxa_debugfs.h"
#include "mxa_gem.h"
#include "mxa_job.h"
#include "mxa_sched.h"
#include "mxa_uqueue.h"
#include "mxa_uring.h"
#include "mxa_vm.h"

/* What this driver's uAPI offers (drm_mxa_device_info.driver_caps, sysfs driver_caps). */
#define MXA_DRIVER_CAPS \
	(DRM_MXA_DRIVER_CAP_GROUPS | DRM_MXA_DRIVER_CAP_RESULT_SIZE | \
	 DRM_MXA_DRIVER_CAP_JOB_TIMEOUT | DRM_MXA_DRIVER_CAP_VM_BIND | \
	 DRM_MXA_DRIVER_CAP_SYNCOBJ | DRM_MXA_DRIVER_CAP_USER_QUEUES | \
	 DRM_MXA_DRIVER_CAP_GRID)

static int mxa_open(struct drm_device *dev, struct drm_file *file)
{
	struct mxa_device *mdev = to_mxa_device(dev);
	struct mxa_file *mf;

	mf = kzalloc(sizeof(*mf), GFP_KERNEL);
	if (!mf)
		return -ENOMEM;
	mf->mdev = mdev;
	xa_init(&mf->jobs);
	atomic64_set(&mf->next_job_id, 0);
	mxa_uqueue_file_init(mf);

	mf->vm = mxa_vm_create(mdev);
	if (IS_ERR(mf->vm)) {
		int ret = PTR_ERR(mf->vm);

		mxa_uqueue_file_fini(mf);
		kfree(mf);
		return ret;
	}
	file->driver_priv = mf;
	return 0;
}

/* GEM handles are gone already (drm_gem_release() runs first). */
static void mxa_postclose(struct drm_device *dev, struct drm_file *file)
{
	struct mxa_file *mf = to_mxa_file(file);

	/* Waits until the queues' jobs are on the hardware; they run to their end. */
	mxa_uqueue_file_fini(mf);
	mxa_job_file_close(mf);
	mxa_vm_unbind_all(mf->vm);
	mxa_vm_put(mf->vm);
	kfree(mf);
}

/*
 * The size/pointer protocol of DRM_IOCTL_MXA_QUERY: copy what fits in the user's
 * buffer, zero-fill the rest of it, report the full size.
 */
static int mxa_query_copy(struct drm_mxa_query *args, const void *answer, u32 size)
{
	void __user *ptr = u64_to_user_ptr(args->pointer);
	u32 user_size = args->size;

	args->size = size;
	if (!args->pointer)
		return 0;
	if (copy_to_user(ptr, answer, min(user_size, size)))
		return -EFAULT;
	if (user_size > size && clear_user(ptr + size, user_size - size))
		return -EFAULT;
	return 0;
}

static int mxa_ioctl_query(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct mxa_device *mdev = to_mxa_device(dev);
	struct drm_mxa_query *args = data;
	struct drm_mxa_device_info info;

	switch (args->type) {
	case DRM_MXA_QUERY_DEVICE:
		memset(&info, 0, sizeof(info));
		info.uapi_major = MXA_UAPI_VERSION_MAJOR;
		info.uapi_minor = MXA_UAPI_VERSION_MINOR;
		info.hw_version = mdev->hw_version;
		info.num_queues = mdev->num_queues;
		info.caps = mdev->caps;
		info.num_cores = mdev->num_cores;
		info.num_engine_threads = mdev->num_engine_threads;
		info.va_start = MXA_VM_VA_START;
		info.va_end = MXA_VM_VA_END;
		info.max_bo_size = MXA_BO_MAX_SIZE;
		info.driver_caps = MXA_DRIVER_CAPS;
		info.job_timeout_ms = READ_ONCE(mdev->job_timeout_ms);
		return mxa_query_copy(args, &info, sizeof(info));
	default:
		return -EINVAL;
	}
}

static const struct drm_ioctl_desc mxa_ioctls[] = {
	DRM_IOCTL_DEF_DRV(MXA_QUERY, mxa_ioctl_query, 0),
	DRM_IOCTL_DEF_DRV(MXA_BO_CREATE, mxa_ioctl_bo_create, 0),
	DRM_IOCTL_DEF_DRV(MXA_BO_MMAP_OFFSET, mxa_ioctl_bo_mmap_offset, 0),
	DRM_IOCTL_DEF_DRV(MXA_SUBMIT, mxa_ioctl_submit, 0),
	DRM_IOCTL_DEF_DRV(MXA_WAIT, mxa_ioctl_wait, 0),
	DRM_IOCTL_DEF_DRV(MXA_COMMIT_GROUP, mxa_ioctl_commit_group, 0),
	DRM_IOCTL_DEF_DRV(MXA_WAIT_GROUP, mxa_ioctl_wait_group, 0),
	DRM_IOCTL_DEF_DRV(MXA_VM_BIND, mxa_ioctl_vm_bind, 0),
	DRM_IOCTL_DEF_DRV(MXA_QUEUE_CREATE, mxa_ioctl_queue_create, 0),
	DRM_IOCTL_DEF_DRV(MXA_QUEUE_DESTROY, mxa_ioctl_queue_destroy, 0),
};

/*
 * DRM core ioctls an accel node may use. An accel file never has a drm_master, yet
 * drm_ioctl_permit() lets master-only core ioctls through for non-render clients:
 * on 6.12 GET_MAGIC and GET_UNIQUE then dereference the missing master (an oops that
 * also leaves dev->master_mutex held). Global GEM names (FLINK/OPEN) would bypass
 * per-file isolation. So only this list reaches drm_ioctl(); other core ioctls get
 * -EACCES. Driver ioctls (DRM_COMMAND_BASE and up) are not affected.
 *
 * drm_ioctl() and drm_compat_ioctl() both dispatch on the number alone, whatever the
 * command's type: so does this filter, and a command whose type is not DRM's is no
 * ioctl of this file (-ENOTTY) rather than a core ioctl under another name.
 */
static int mxa_core_ioctl_check(unsigned int cmd)
{
	static const unsigned int allowed[] = {
		DRM_IOCTL_VERSION, DRM_IOCTL_GET_CAP, DRM_IOCTL_SET_CLIENT_CAP,
		DRM_IOCTL_GEM_CLOSE, DRM_IOCTL_PRIME_HANDLE_TO_FD, DRM_IOCTL_PRIME_FD_TO_HANDLE,
		DRM_IOCTL_SYNCOBJ_CREATE, DRM_IOCTL_SYNCOBJ_DESTROY,
		DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE,
		DRM_IOCTL_SYNCOBJ_WAIT, DRM_IOCTL_SYNCOBJ_RESET, DRM_IOCTL_SYNCOBJ_SIGNAL,
		DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, DRM_IOCTL_SYNCOBJ_QUERY,
		DRM_IOCTL_SYNCOBJ_TRANSFER, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
		DRM_IOCTL_SYNCOBJ_EVENTFD,
	};
	unsigned int i;

	if (_IOC_TYPE(cmd) != DRM_IOCTL_BASE)
		return -ENOTTY;
	if (_IOC_NR(cmd) >= DRM_COMMAND_BASE)
		return 0;
	for (i = 0; i < ARRAY_SIZE(allowed); i++)
		if (_IOC_NR(cmd) == _IOC_NR(allowed[i]))
			return 0;
	return -EACCES;
}

static long mxa_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	int ret = mxa_core_ioctl_check(cmd);

	return ret ? ret : drm_ioctl(filp, cmd, arg);
}

#ifdef CONFIG_COMPAT
static long mxa_compat_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	int ret = mxa_core_ioctl_check(cmd);

	return ret ? ret : drm_compat_ioctl(filp, cmd, arg);
}
#endif

/* DEFINE_DRM_ACCEL_FOPS() of 6.12 has neither .uring_cmd nor .show_fdinfo. */
static const struct file_operations mxa_fops = {
	.owner = THIS_MODULE,
	.open = accel_open,
	.release = drm_release,
	.unlocked_ioctl = mxa_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl = mxa_compat_ioctl,
#endif
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = drm_gem_mmap,
	.uring_cmd = mxa_uring_cmd,
	.show_fdinfo = drm_show_fdinfo,
	.fop_flags = FOP_UNSIGNED_OFFSET,
};

/* Documentation/gpu/drm-usage-stats.rst: one engine per hardware queue. */
static void mxa_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct mxa_file *mf = to_mxa_file(file);
	u32 i;

	for (i = 0; i < mf->mdev->num_queues; i++) {
		drm_printf(p, "drm-engine-q%u:\t%llu ns\n", i,
			   (u64)atomic64_read(&mf->vm->engine_ns[i]));
		drm_printf(p, "drm-engine-capacity-q%u:\t1\n", i);
		drm_printf(p, "drm-cycles-q%u:\t%llu\n", i,
			   (u64)atomic64_read(&mf->vm->engine_cycles[i]));
	}
	drm_show_memory_stats(p, file);
}

static const struct drm_driver mxa_drm_driver = {
	.driver_features = DRIVER_COMPUTE_ACCEL | DRIVER_GEM | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.open = mxa_open,
	.postclose = mxa_postclose,
	.gem_create_object = mxa_gem_create_object,
	.gem_prime_import = mxa_gem_prime_import,
	.gem_prime_import_sg_table = mxa_gem_prime_import_sg_table,
	.show_fdinfo = mxa_show_fdinfo,
	.ioctls = mxa_ioctls,
	.num_ioctls = ARRAY_SIZE(mxa_ioctls),
	.fops = &mxa_fops,
	.name = MXA_DRIVER_NAME,
	.desc = MXA_DRIVER_DESC,
	.major = MXA_UAPI_VERSION_MAJOR,
	.minor = MXA_UAPI_VERSION_MINOR,
};

static int mxa_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct mxa_device *mdev;
	int ret;

	mdev = devm_drm_dev_alloc(&pdev->dev, &mxa_drm_driver, struct mxa_device, drm);
	if (IS_ERR(mdev))
		return PTR_ERR(mdev);
	mdev->pdev = pdev;
	ida_init(&mdev->ctx_ida);
	ret = drmm_mutex_init(&mdev->drm, &mdev->vms_lock);
	if (ret)
		return ret;
	INIT_LIST_HEAD(&mdev->vms);
	ret = drmm_mutex_init(&mdev->drm, &mdev->bos_lock);
	if (ret)
		return ret;
	INIT_LIST_HEAD(&mdev->bos);
	pci_set_drvdata(pdev, mdev);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);

	/* Page-table entries carry 52-bit addresses; descriptors 64-bit ones. */
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(52));
	if (ret)
		return ret;
	/*
	 * The device MMU maps page by page: a scatterlist segment may be as long as
	 * the BO. Without this the DMA API's 64 KiB default applies, and dma-debug
	 * reports every longer segment the shmem helper makes (found by the debug
	 * guest kernel: a 128 KiB BO).
	 */
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);

	if (pci_resource_len(pdev, 0) < MXA_BAR0_SIZE) {
		dev_err(&pdev->dev, "BAR0 too small\n");
		return -ENODEV;
	}
	mdev->regs = pcim_iomap_region(pdev, 0, MXA_DRIVER_NAME);
	if (IS_ERR(mdev->regs))
		return PTR_ERR(mdev->regs);

	ret = mxa_hw_init(mdev);
	if (ret)
		return ret;

	ret = mxa_sched_init(mdev);
	if (ret) {
		mxa_hw_fini(mdev);
		return ret;
	}

	ret = drm_dev_register(&mdev->drm, 0);
	if (ret) {
		mxa_hw_fini(mdev);
		return ret;
	}
	mxa_debugfs_init(mdev);
	return 0;
}

static void mxa_remove(struct pci_dev *pdev)
{
	struct mxa_device *mdev = pci_get_drvdata(pdev);

	/* No new ioctl or uring command reaches the device after this. */
	drm_dev_unplug(&mdev->drm);
	mxa_hw_fini(mdev);
	/*
	 * Open files outlive the device: the DMA mappings of their BOs and page tables go
	 * now, while the device is still bound (the device no longer runs anything).
	 */
	mxa_gem_unplug(mdev);
	mxa_vm_unplug(mdev);
}

/*
 * sysfs: what the device and driver offer, under the PCI function's "mxa" group
 * (/sys/class/accel/accelN/device/mxa/), readable without opening the node.
 */
static struct mxa_device *mxa_from_dev(struct device *dev)
{
	return pci_get_drvdata(to_pci_dev(dev));
}

static ssize_t caps_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%llx\n", mxa_from_dev(dev)->caps);
}
static DEVICE_ATTR_RO(caps);

static ssize_t driver_caps_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%llx\n", MXA_DRIVER_CAPS);
}
static DEVICE_ATTR_RO(driver_caps);

static ssize_t num_queues_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", mxa_from_dev(dev)->num_queues);
}
static DEVICE_ATTR_RO(num_queues);

static ssize_t num_cores_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", mxa_from_dev(dev)->num_cores);
}
static DEVICE_ATTR_RO(num_cores);

/* The device's budget for staging math operands (MXA_ERR_NO_MEMORY beyond it). */
static ssize_t host_mem_mb_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct mxa_device *mdev = mxa_from_dev(dev);
	u32 v = 0;
	int idx;

	if (drm_dev_enter(&mdev->drm, &idx)) {
		v = mxa_read(mdev, MXA_REG_HOST_MEM_MB);
		drm_dev_exit(idx);
	}
	return sysfs_emit(buf, "%u\n", v);
}
static DEVICE_ATTR_RO(host_mem_mb);

/* How long an MBAR_WAIT may wait before the job fails (the mbar-timeout-us property). */
static ssize_t mbar_timeout_us_show(struct device *dev, struct device_attribute *attr,
				    char *buf)
{
	struct mxa_device *mdev = mxa_from_dev(dev);
	u32 v = 0;
	int idx;

	if (drm_dev_enter(&mdev->drm, &idx)) {
		v = mxa_read(mdev, MXA_REG_MBAR_TIMEOUT_US);
		drm_dev_exit(idx);
	}
	return sysfs_emit(buf, "%u\n", v);
}
static DEVICE_ATTR_RO(mbar_timeout_us);

static ssize_t hw_version_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	u32 v = mxa_from_dev(dev)->hw_version;

	return sysfs_emit(buf, "%u.%u\n", v >> 16, v & 0xffff);
}
static DEVICE_ATTR_RO(hw_version);

static ssize_t uapi_version_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u.%u\n", MXA_UAPI_VERSION_MAJOR, MXA_UAPI_VERSION_MINOR);
}
static DEVICE_ATTR_RO(uapi_version);

static struct attribute *mxa_attrs[] = {
	&dev_attr_caps.attr,
	&dev_attr_driver_caps.attr,
	&dev_attr_num_queues.attr,
	&dev_attr_num_cores.attr,
	&dev_attr_host_mem_mb.attr,
	&dev_attr_mbar_timeout_us.attr,
	&dev_attr_hw_version.attr,
	&dev_attr_uapi_version.attr,
	NULL
};

static const struct attribute_group mxa_attr_group = {
	.name = "mxa",
	.attrs = mxa_attrs,
};

static const struct attribute_group *mxa_attr_groups[] = {
	&mxa_attr_group,
	NULL
};

static const struct pci_device_id mxa_pci_ids[] = {
	{ PCI_DEVICE(MXA_PCI_VENDOR_ID, MXA_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, mxa_pci_ids);

static struct pci_driver mxa_pci_driver = {
	.name = MXA_DRIVER_NAME,
	.id_table = mxa_pci_ids,
	.probe = mxa_probe,
	.remove = mxa_remove,
	.dev_groups = mxa_attr_groups,
};

static int __init mxa_init(void)
{
	int ret;

	ret = mxa_job_cache_init();
	if (ret)
		return ret;
	mxa_gem_init();
	ret = pci_register_driver(&mxa_pci_driver);
	if (ret) {
		mxa_gem_fini();
		mxa_job_cache_fini();
	}
	return ret;
}

static void __exit mxa_exit(void)
{
	pci_unregister_driver(&mxa_pci_driver);
	/* Jobs released last are freed from a work item that runs our code. */
	mxa_job_flush_free();
	mxa_gem_fini();
	mxa_job_cache_fini();
}

module_init(mxa_init);
module_exit(mxa_exit);

MODULE_DESCRIPTION(MXA_DRIVER_DESC " DRM accel driver");
MODULE_LICENSE("GPL");
