// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "bo": buffer objects: create, mmap, VAs, close, bad arguments.
 */
#include "mxa_test.h"
#include "../stress/mxa_counters.h"

#include "kselftest_harness.h"

FIXTURE(bo) {
	int fd;
	struct drm_mxa_device_info info;
};

FIXTURE_SETUP(bo)
{
	self->fd = mxa_open();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
}

FIXTURE_TEARDOWN(bo)
{
	close(self->fd);
}

TEST_F(bo, create_rounds_to_pages)
{
	struct drm_mxa_bo_create c = { .size = 1 };

	ASSERT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_CREATE, &c));
	EXPECT_NE(0, c.handle);
	EXPECT_EQ(MXA_PAGE_SIZE, c.size);
	EXPECT_EQ(0, c.device_va % MXA_PAGE_SIZE);
	EXPECT_GE(c.device_va, self->info.va_start);
	EXPECT_LE(c.device_va + c.size, self->info.va_end);
	EXPECT_EQ(0, mxa_gem_close(self->fd, c.handle));
}

TEST_F(bo, write_read_back)
{
	struct mxa_bo bo;
	uint32_t *p;
	size_t i, n;

	ASSERT_EQ(0, mxa_bo_new(self->fd, 1 << 20, &bo));
	p = bo.map;
	n = bo.size / sizeof(*p);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, p[i]) TH_LOG("new BO not zeroed at %zu", i);
	for (i = 0; i < n; i++)
		p[i] = (uint32_t)(i * 2654435761u);
	for (i = 0; i < n; i++)
		ASSERT_EQ((uint32_t)(i * 2654435761u), p[i]);
	mxa_bo_free(self->fd, &bo);
}

TEST_F(bo, two_mappings_share_pages)
{
	struct drm_mxa_bo_mmap_offset mo = { 0 };
	struct mxa_bo bo;
	uint64_t *a, *b;

	ASSERT_EQ(0, mxa_bo_new(self->fd, 8192, &bo));
	mo.handle = bo.handle;
	ASSERT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo));
	b = mmap(NULL, bo.size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, mo.offset);
	ASSERT_NE(MAP_FAILED, b);
	a = bo.map;
	a[1000] = 0x1122334455667788ull;
	EXPECT_EQ(0x1122334455667788ull, b[1000]);
	b[5] = 42;
	EXPECT_EQ(42, a[5]);
	munmap(b, bo.size);
	mxa_bo_free(self->fd, &bo);
}

TEST_F(bo, vas_do_not_overlap)
{
	struct mxa_bo bos[16];
	int i, j;

	for (i = 0; i < 16; i++)
		ASSERT_EQ(0, mxa_bo_new(self->fd, (i + 1) * 4096, &bos[i]));
	for (i = 0; i < 16; i++) {
		for (j = i + 1; j < 16; j++) {
			int apart = bos[i].va + bos[i].size <= bos[j].va ||
				    bos[j].va + bos[j].size <= bos[i].va;

			EXPECT_TRUE(apart) TH_LOG("BOs %d and %d overlap", i, j);
		}
	}
	for (i = 0; i < 16; i++)
		mxa_bo_free(self->fd, &bos[i]);
}

/* (120 s: the debug guest kernel takes about 20 ms a round) */
TEST_F_TIMEOUT(bo, create_close_many, 120)
{
	struct drm_mxa_bo_create c;
	int i;

	/* VAs and handles are recycled: no exhaustion. */
	for (i = 0; i < 2000; i++) {
		memset(&c, 0, sizeof(c));
		c.size = 65536;
		ASSERT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_CREATE, &c));
		ASSERT_EQ(0, mxa_gem_close(self->fd, c.handle));
	}
}

TEST_F(bo, large)
{
	struct mxa_bo bo;
	uint8_t *p;
	size_t i;

	ASSERT_EQ(0, mxa_bo_new(self->fd, 32 << 20, &bo));
	p = bo.map;
	for (i = 0; i < bo.size; i += 4096)
		p[i] = (uint8_t)(i >> 12);
	for (i = 0; i < bo.size; i += 4096)
		ASSERT_EQ((uint8_t)(i >> 12), p[i]);
	mxa_bo_free(self->fd, &bo);
}

/* The runs of contiguous DMA addresses of the BO at @va, from debugfs "bos"; -1 if absent. */
static long bo_dma_runs(uint64_t va)
{
	char line[160];
	unsigned long long at;
	size_t size;
	unsigned int runs;
	long found = -1;
	FILE *f = fopen(mxa_debugfs_file("bos"), "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "va %llx size %zu runs %u", &at, &size, &runs) == 3 && at == va)
			found = runs;
	fclose(f);
	return found;
}

/* Create a BO of @size with module parameter huge_bos set to @huge: its DMA runs. */
static long bo_runs_with(int fd, size_t size, const char *huge)
{
	struct drm_mxa_bo_create c = { .size = size };
	long runs;

	if (mxa_write_text("/sys/module/mxa/parameters/huge_bos", huge) ||
	    mxa_ioctl(fd, DRM_IOCTL_MXA_BO_CREATE, &c))
		return -1;
	runs = bo_dma_runs(c.device_va);
	mxa_gem_close(fd, c.handle);
	return runs;
}

/*
 * A BO of 8 MiB lies in 2 MiB pieces of guest memory (mxa_gem.c, "Huge pages"): at
 * most 4 runs, which the device copies in one piece each; with huge_bos=0 its 2048
 * pages of 4 KiB come from the kernel's shmem mount, and make more runs. A kernel
 * without transparent huge pages (the debug kernel of make check) has 4 KiB pages
 * either way, and the BOs work the same.
 */
TEST_F(bo, large_bos_are_in_huge_pages)
{
	bool thp = access("/sys/kernel/mm/transparent_hugepage", F_OK) == 0;
	long huge = bo_runs_with(self->fd, 8 << 20, "Y");
	long small = bo_runs_with(self->fd, 8 << 20, "N");

	ASSERT_EQ(0, mxa_write_text("/sys/module/mxa/parameters/huge_bos", "Y"));
	TH_LOG("8 MiB BO: %ld runs with huge_bos=Y, %ld with N (%s transparent huge pages)",
	       huge, small, thp ? "kernel with" : "kernel without");
	ASSERT_LE(1, huge) TH_LOG("no line for the BO in %s", mxa_debugfs_file("bos"));
	if (thp) {
		EXPECT_GE(4, huge);
	} else {
		EXPECT_LT(4, huge);
	}
	EXPECT_LT(4, small);
	/* a small BO has no huge page: one 4 KiB page is one run */
	EXPECT_EQ(1, bo_runs_with(self->fd, 4096, "Y"));
}

TEST_F(bo, bad_create_args)
{
	struct drm_mxa_bo_create c = { 0 };

	c.size = 0;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_CREATE, &c));
	c.size = 4096;
	c.flags = 1;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_CREATE, &c));
	c.flags = 0x80000000u;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_CREATE, &c));
	c.flags = 0;
	c.size = self->info.max_bo_size + 1;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_CREATE, &c));
	c.size = ~0ull;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_CREATE, &c));
}

TEST_F(bo, bad_mmap_offset_args)
{
	struct drm_mxa_bo_mmap_offset mo = { 0 };
	struct mxa_bo bo;

	mo.handle = 0xdead;
	EXPECT_EQ(-ENOENT, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &bo));
	mo.handle = bo.handle;
	mo.pad = 1;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo));
	mo.pad = 0;
	EXPECT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo));
	mxa_bo_free(self->fd, &bo);
	/* closed handle */
	EXPECT_EQ(-ENOENT, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo));
}

TEST_F(bo, mmap_outlives_handle)
{
	struct mxa_bo bo;
	volatile uint32_t *p;

	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &bo));
	p = bo.map;
	p[3] = 7;
	/* The mapping keeps the object alive after its handle is closed. */
	ASSERT_EQ(0, mxa_gem_close(self->fd, bo.handle));
	EXPECT_EQ(7, p[3]);
	p[4] = 8;
	EXPECT_EQ(8, p[4]);
	munmap(bo.map, bo.size);
}

TEST_F(bo, bogus_mmap_offset)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 0x7fff0000);

	EXPECT_EQ(MAP_FAILED, p);
}

TEST_F(bo, handles_are_per_file)
{
	struct mxa_bo bo;
	struct drm_mxa_bo_mmap_offset mo = { 0 };
	int fd2 = mxa_open();

	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &bo));
	mo.handle = bo.handle;
	EXPECT_EQ(-ENOENT, mxa_ioctl(fd2, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo));
	close(fd2);
	mxa_bo_free(self->fd, &bo);
}

TEST(close_with_bos_mapped)
{
	struct mxa_bo bo[8];
	int fd = mxa_open();
	int i;

	ASSERT_GE(fd, 0);
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, mxa_bo_new(fd, 8192, &bo[i]));
	/* Close the file with BOs still open and mapped; then unmap. */
	close(fd);
	for (i = 0; i < 8; i++) {
		((uint32_t *)bo[i].map)[0] = i;
		munmap(bo[i].map, bo[i].size);
	}
}

TEST_HARNESS_MAIN
