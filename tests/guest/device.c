// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "device": probe, DRM identity, DRM_IOCTL_MXA_QUERY, fdinfo.
 */
#include "mxa_test.h"

#include <stddef.h>

#include <stdio.h>

#include <xf86drm.h>

#include "kselftest_harness.h"

/* The uAPI layout is part of the ABI: sizes must never change by accident. */
_Static_assert(sizeof(struct drm_mxa_query) == 16, "drm_mxa_query");
/* Grown by appending (uAPI 0.2): device_info 56 -> 72, job_result 48 -> 64. */
_Static_assert(sizeof(struct drm_mxa_device_info) == 72, "drm_mxa_device_info");
_Static_assert(sizeof(struct drm_mxa_bo_create) == 24, "drm_mxa_bo_create");
_Static_assert(sizeof(struct drm_mxa_bo_mmap_offset) == 16, "drm_mxa_bo_mmap_offset");
/* uAPI 0.3 appended syncs: submit 40 -> 56; uAPI 0.5 the grid: 56 -> 64. */
_Static_assert(sizeof(struct drm_mxa_submit) == 64, "drm_mxa_submit");
/* uAPI 0.5 appended tma_load_bytes: job_result 64 -> 72, wait 88 -> 96. */
_Static_assert(sizeof(struct drm_mxa_job_result) == 72, "drm_mxa_job_result");
_Static_assert(sizeof(struct drm_mxa_wait) == 96, "drm_mxa_wait");
_Static_assert(sizeof(struct drm_mxa_commit_group) == 16, "drm_mxa_commit_group");
_Static_assert(sizeof(struct drm_mxa_wait_group) == 32, "drm_mxa_wait_group");
_Static_assert(offsetof(struct drm_mxa_job_result, cycles) == DRM_MXA_JOB_RESULT_SIZE_V1,
	       "drm_mxa_job_result v1 prefix");

FIXTURE(device) {
	int fd;
};

FIXTURE_SETUP(device)
{
	self->fd = mxa_open();
	ASSERT_GE(self->fd, 0) TH_LOG("open %s: %s", MXA_TEST_DEVICE, strerror(errno));
}

FIXTURE_TEARDOWN(device)
{
	close(self->fd);
}

static int read_sysfs_hex(const char *path, unsigned int *val)
{
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, "%x", val);
	fclose(f);
	return n == 1 ? 0 : -EINVAL;
}

TEST_F(device, pci_identity)
{
	unsigned int vendor, devid;

	ASSERT_EQ(0, read_sysfs_hex("/sys/class/accel/accel0/device/vendor", &vendor));
	ASSERT_EQ(0, read_sysfs_hex("/sys/class/accel/accel0/device/device", &devid));
	EXPECT_EQ(MXA_PCI_VENDOR_ID, vendor);
	EXPECT_EQ(MXA_PCI_DEVICE_ID, devid);
}

TEST_F(device, drm_version)
{
	drmVersionPtr v = drmGetVersion(self->fd);

	ASSERT_NE(NULL, v);
	EXPECT_STREQ("mxa", v->name);
	EXPECT_EQ(MXA_UAPI_VERSION_MAJOR, v->version_major);
	EXPECT_EQ(MXA_UAPI_VERSION_MINOR, v->version_minor);
	drmFreeVersion(v);
}

TEST_F(device, query_device)
{
	struct drm_mxa_device_info info;

	ASSERT_EQ(0, mxa_query_device(self->fd, &info));
	TH_LOG("hw %u.%u, %u queues, %u cores, caps 0x%llx, VA [0x%llx, 0x%llx), max BO %llu",
	       info.hw_version >> 16, info.hw_version & 0xffff, info.num_queues,
	       info.num_cores, (unsigned long long)info.caps,
	       (unsigned long long)info.va_start, (unsigned long long)info.va_end,
	       (unsigned long long)info.max_bo_size);
	EXPECT_EQ(MXA_UAPI_VERSION_MAJOR, info.uapi_major);
	EXPECT_EQ(MXA_UAPI_VERSION_MINOR, info.uapi_minor);
	EXPECT_EQ(MXA_HW_VERSION_MAJOR, info.hw_version >> 16);
	EXPECT_GE(info.num_queues, 1);
	EXPECT_LE(info.num_queues, MXA_MAX_QUEUES);
	EXPECT_GE(info.num_cores, 1);
	EXPECT_EQ(MXA_CAP_NOP | MXA_CAP_FENCE_WRITE | MXA_CAP_MMU | MXA_CAP_TIMESTAMP |
		  MXA_CAP_MSIX,
		  info.caps & (MXA_CAP_NOP | MXA_CAP_FENCE_WRITE | MXA_CAP_MMU |
			       MXA_CAP_TIMESTAMP | MXA_CAP_MSIX));
	EXPECT_LE(info.num_cores, MXA_MAX_CORES);
	EXPECT_NE(0, info.caps & MXA_CAP_GRID);
	EXPECT_GE(info.num_engine_threads, 1);
	EXPECT_LT(info.va_start, info.va_end);
	EXPECT_EQ(0, info.va_start % MXA_PAGE_SIZE);
	EXPECT_LE(info.va_end, 1ull << MXA_VA_BITS);
	EXPECT_GE(info.max_bo_size, 1ull << 20);
}

TEST_F(device, query_size_protocol)
{
	struct drm_mxa_query q = { .type = DRM_MXA_QUERY_DEVICE };
	struct drm_mxa_device_info full;
	unsigned char buf[sizeof(full) + 16];
	size_t i;

	/* pointer 0: only the size */
	ASSERT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_QUERY, &q));
	EXPECT_EQ(sizeof(struct drm_mxa_device_info), q.size);

	ASSERT_EQ(0, mxa_query_device(self->fd, &full));

	/* a smaller buffer gets the beginning, nothing past it */
	memset(buf, 0xcc, sizeof(buf));
	q.size = 8;
	q.pointer = (uintptr_t)buf;
	ASSERT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_QUERY, &q));
	EXPECT_EQ(sizeof(full), q.size);
	EXPECT_EQ(0, memcmp(buf, &full, 8));
	for (i = 8; i < sizeof(buf); i++)
		ASSERT_EQ(0xcc, buf[i]);

	/* a larger buffer is zero-filled past the answer */
	memset(buf, 0xcc, sizeof(buf));
	q.size = sizeof(buf);
	ASSERT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_QUERY, &q));
	EXPECT_EQ(sizeof(full), q.size);
	EXPECT_EQ(0, memcmp(buf, &full, sizeof(full)));
	for (i = sizeof(full); i < sizeof(buf); i++)
		ASSERT_EQ(0, buf[i]);
}

TEST_F(device, fdinfo)
{
	char path[64], text[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", self->fd);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	EXPECT_NE(NULL, strstr(text, "drm-driver:\tmxa")) TH_LOG("fdinfo:\n%s", text);
	EXPECT_NE(NULL, strstr(text, "drm-client-id:"));
}

TEST(many_opens)
{
	int fds[32];
	int i;

	/* Each open is a device context; all can live at once and close in any order. */
	for (i = 0; i < 32; i++) {
		fds[i] = mxa_open();
		ASSERT_GE(fds[i], 0) TH_LOG("open #%d: %s", i, strerror(errno));
	}
	for (i = 0; i < 32; i += 2)
		close(fds[i]);
	for (i = 1; i < 32; i += 2)
		close(fds[i]);
}

TEST_HARNESS_MAIN
