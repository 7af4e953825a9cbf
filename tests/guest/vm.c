// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "vm": DRM_IOCTL_MXA_VM_BIND. A BO (or a page range of it) mapped at a
 * VA the test picks is the same memory as the BO; read-only mappings can be read by a
 * job and fault on a write (MXA_FAULT_READ_ONLY); overlapping binds are refused;
 * unmapping invalidates the device TLB (a job that used the range before faults after);
 * page tables emptied by an unmap are freed (debugfs counter page_tables); binds left
 * at close leak nothing; buffers take the lowest free VAs, clear of binds high in the
 * VM; libaccel's accel_vm_bind()/accel_vm_unbind().
 */
#include "mxa_test.h"

#include <stdio.h>

#include "accel.h"
#include "kselftest_harness.h"
#include "../stress/mxa_counters.h"

#define SEC		NSEC_PER_SEC
/* Far from the driver's own allocations, which start at the bottom of the VM. */
#define BIND_VA		0x7000000000ull

static int vm_bind(int fd, uint32_t op, uint32_t flags, uint32_t handle, uint64_t bo_offset,
		   uint64_t va, uint64_t size)
{
	struct drm_mxa_vm_bind b = {
		.op = op, .flags = flags, .handle = handle, .bo_offset = bo_offset,
		.va = va, .size = size,
	};

	return mxa_ioctl(fd, DRM_IOCTL_MXA_VM_BIND, &b);
}

static int map(int fd, uint32_t flags, uint32_t handle, uint64_t off, uint64_t va,
	       uint64_t size)
{
	return vm_bind(fd, DRM_MXA_VM_BIND_OP_MAP, flags, handle, off, va, size);
}

static int unmap(int fd, uint64_t va, uint64_t size)
{
	return vm_bind(fd, DRM_MXA_VM_BIND_OP_UNMAP, 0, 0, 0, va, size);
}

FIXTURE(vm) {
	int fd;
	struct drm_mxa_device_info info;
	struct mxa_bo prog;
	struct mxa_bo data;
};

FIXTURE_SETUP(vm)
{
	self->fd = mxa_open();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
	if (!(self->info.driver_caps & DRM_MXA_DRIVER_CAP_VM_BIND))
		SKIP(return, "no DRM_MXA_DRIVER_CAP_VM_BIND");
	ASSERT_EQ(0, mxa_bo_new(self->fd, 1 << 16, &self->prog));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4 * 4096, &self->data));
}

FIXTURE_TEARDOWN(vm)
{
	mxa_bo_free(self->fd, &self->data);
	mxa_bo_free(self->fd, &self->prog);
	close(self->fd);
}

/* Run a program written at prog offset @off by the caller; returns the result. */
static int run(FIXTURE_DATA(vm) *self, uint32_t off, uint32_t *end,
	       struct drm_mxa_job_result *r)
{
	uint64_t id;
	int ret;

	ret = mxa_submit(self->fd, self->prog.handle, 0, off,
			 mxa_bytes((uint32_t *)((char *)self->prog.map + off), end), &id);
	if (ret)
		return ret;
	return mxa_wait(self->fd, id, 10 * SEC, r);
}

static int fence_to(FIXTURE_DATA(vm) *self, uint64_t va, uint64_t value,
		    struct drm_mxa_job_result *r)
{
	uint32_t *p = mxa_put_fence(self->prog.map, va, value);

	return run(self, 0, p, r);
}

TEST_F(vm, map_whole_bo_and_range)
{
	struct drm_mxa_job_result r;
	volatile uint64_t *d = self->data.map;

	ASSERT_EQ(0, map(self->fd, 0, self->data.handle, 0, BIND_VA, self->data.size));
	ASSERT_EQ(0, fence_to(self, BIND_VA + 8, 0x1111, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x1111, d[1]);
	ASSERT_EQ(0, fence_to(self, BIND_VA + 3 * 4096 + 16, 0x3333, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x3333, d[3 * 512 + 2]);

	/* Pages 1..2 of the BO, elsewhere. */
	ASSERT_EQ(0, map(self->fd, 0, self->data.handle, 4096, BIND_VA + (1 << 20), 2 * 4096));
	ASSERT_EQ(0, fence_to(self, BIND_VA + (1 << 20) + 4096 + 24, 0x2222, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x2222, d[2 * 512 + 3]);
	/* Past the bound range: not present. */
	ASSERT_EQ(0, fence_to(self, BIND_VA + (1 << 20) + 2 * 4096, 1, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(MXA_FAULT_WRITE | MXA_FAULT_NOT_PRESENT, r.err_info);

	EXPECT_EQ(0, unmap(self->fd, BIND_VA + (1 << 20), 2 * 4096));
	EXPECT_EQ(0, unmap(self->fd, BIND_VA, self->data.size));
}

TEST_F(vm, read_only)
{
	struct drm_mxa_job_result r;
	volatile uint64_t *d = self->data.map;
	uint32_t *p;

	ASSERT_EQ(0, map(self->fd, DRM_MXA_VM_BIND_READ_ONLY, self->data.handle, 0, BIND_VA,
			 4096));
	/* A read works: the semaphore is already there. */
	d[0] = 5;
	p = mxa_put_sem_wait(self->prog.map, BIND_VA, 5, 1000000);
	p = mxa_put_fence(p, self->data.va + 64, 0x77);
	ASSERT_EQ(0, run(self, 0, p, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x77, d[8]);
	/* A write faults, and names the read-only mapping. */
	ASSERT_EQ(0, fence_to(self, BIND_VA + 32, 0xbad, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(MXA_ERR_MMU_FAULT, r.error);
	EXPECT_EQ(BIND_VA + 32, r.err_addr);
	EXPECT_EQ(MXA_FAULT_WRITE | MXA_FAULT_READ_ONLY, r.err_info);
	EXPECT_NE(0xbad, d[4]);
	/* The BO's own mapping stays writable. */
	ASSERT_EQ(0, fence_to(self, self->data.va + 32, 0x600d, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x600d, d[4]);
	EXPECT_EQ(0, unmap(self->fd, BIND_VA, 4096));
}

TEST_F(vm, overlaps_refused)
{
	ASSERT_EQ(0, map(self->fd, 0, self->data.handle, 0, BIND_VA, 2 * 4096));
	EXPECT_EQ(-EEXIST, map(self->fd, 0, self->data.handle, 0, BIND_VA, 4096));
	EXPECT_EQ(-EEXIST, map(self->fd, 0, self->data.handle, 0, BIND_VA + 4096, 2 * 4096));
	EXPECT_EQ(-EEXIST, map(self->fd, 0, self->data.handle, 0, BIND_VA - 4096, 2 * 4096));
	/* A BO's own range, and its guard page. */
	EXPECT_EQ(-EEXIST, map(self->fd, 0, self->data.handle, 0, self->data.va, 4096));
	EXPECT_EQ(-EEXIST, map(self->fd, 0, self->data.handle, 0,
			       self->data.va + self->data.size, 4096));
	/* Next to it is fine. */
	EXPECT_EQ(0, map(self->fd, 0, self->data.handle, 0, BIND_VA + 2 * 4096, 4096));
	/* Unmap needs the exact range; the BO's own mapping is not a bind. */
	EXPECT_EQ(-ENOENT, unmap(self->fd, BIND_VA, 4096));
	EXPECT_EQ(-ENOENT, unmap(self->fd, self->data.va, self->data.size));
	EXPECT_EQ(0, unmap(self->fd, BIND_VA, 2 * 4096));
	EXPECT_EQ(-ENOENT, unmap(self->fd, BIND_VA, 2 * 4096));
	EXPECT_EQ(0, unmap(self->fd, BIND_VA + 2 * 4096, 4096));
}

/*
 * Buffers take the lowest free VAs (uapi.rst): one created after a bind high in the VM
 * lies below it, so a second bind right after the first still finds its range free
 * (best fit put the buffer there), and a buffer freed between two others leaves the
 * lowest hole, which the next buffer of its size takes.
 */
TEST_F(vm, buffers_take_the_lowest_free_vas)
{
	struct mxa_bo a, b, c;
	uint64_t hole;

	ASSERT_EQ(0, map(self->fd, 0, self->data.handle, 0, BIND_VA, 2 * 4096));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &a));
	EXPECT_LT(a.va, BIND_VA);
	EXPECT_EQ(0, map(self->fd, 0, self->data.handle, 0, BIND_VA + 2 * 4096, 4096));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &b));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &c));
	EXPECT_LT(b.va, BIND_VA);
	EXPECT_LT(c.va, BIND_VA);
	hole = b.va;
	mxa_bo_free(self->fd, &b);
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &b));
	EXPECT_EQ(hole, b.va);
	mxa_bo_free(self->fd, &c);
	mxa_bo_free(self->fd, &b);
	mxa_bo_free(self->fd, &a);
	EXPECT_EQ(0, unmap(self->fd, BIND_VA + 2 * 4096, 4096));
	EXPECT_EQ(0, unmap(self->fd, BIND_VA, 2 * 4096));
}

/* A file holds at most DRM_MXA_VM_MAX_BINDS mappings (-ENOSPC); unmapping frees a slot. */
TEST_F_TIMEOUT(vm, bind_count_is_bounded, 120)
{
	uint32_t h = self->data.handle;
	uint64_t va;
	int i;

	for (i = 0; i < DRM_MXA_VM_MAX_BINDS; i++)
		ASSERT_EQ(0, map(self->fd, 0, h, 0, BIND_VA + (uint64_t)i * 2 * 4096, 4096))
			TH_LOG("bind %d", i);
	va = BIND_VA + (uint64_t)DRM_MXA_VM_MAX_BINDS * 2 * 4096;
	EXPECT_EQ(-ENOSPC, map(self->fd, 0, h, 0, va, 4096));
	ASSERT_EQ(0, unmap(self->fd, BIND_VA, 4096));
	EXPECT_EQ(0, map(self->fd, 0, h, 0, va, 4096));
	EXPECT_EQ(-ENOSPC, map(self->fd, 0, h, 0, BIND_VA, 4096));
	/* the fixture's close removes them all (close_with_binds_leaks_nothing) */
}

TEST_F(vm, bad_arguments)
{
	struct drm_mxa_vm_bind b = { .op = DRM_MXA_VM_BIND_OP_MAP, .handle = self->data.handle,
				     .va = BIND_VA, .size = 4096 };
	uint32_t h = self->data.handle;

	EXPECT_EQ(-EINVAL, map(self->fd, 0, h, 0, BIND_VA + 8, 4096));
	EXPECT_EQ(-EINVAL, map(self->fd, 0, h, 0, BIND_VA, 100));
	EXPECT_EQ(-EINVAL, map(self->fd, 0, h, 0, BIND_VA, 0));
	EXPECT_EQ(-EINVAL, map(self->fd, 0, h, 100, BIND_VA, 4096));
	EXPECT_EQ(-EINVAL, map(self->fd, 0, h, 4096, BIND_VA, self->data.size));
	EXPECT_EQ(-EINVAL, map(self->fd, 0, h, -4096ull, BIND_VA, 8192));
	EXPECT_EQ(-EINVAL, map(self->fd, 0, h, 0, 0, 4096));
	EXPECT_EQ(-EINVAL, map(self->fd, 0, h, 0, self->info.va_end - 4096, 8192));
	EXPECT_EQ(-EINVAL, map(self->fd, 0, h, 0, -4096ull, 8192));
	EXPECT_EQ(-EINVAL, map(self->fd, 1u << 5, h, 0, BIND_VA, 4096));
	EXPECT_EQ(-ENOENT, map(self->fd, 0, 0xdead, 0, BIND_VA, 4096));
	EXPECT_EQ(-EINVAL, vm_bind(self->fd, 7, 0, h, 0, BIND_VA, 4096));
	EXPECT_EQ(-EINVAL, vm_bind(self->fd, DRM_MXA_VM_BIND_OP_UNMAP, 0, h, 0, BIND_VA, 4096));
	b.pad = 1;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_VM_BIND, &b));
}

TEST_F(vm, unmap_invalidates_tlb)
{
	struct drm_mxa_job_result r;

	ASSERT_EQ(0, map(self->fd, 0, self->data.handle, 0, BIND_VA, 4096));
	/* The device caches the translation... */
	ASSERT_EQ(0, fence_to(self, BIND_VA, 1, &r));
	EXPECT_EQ(0, r.status);
	ASSERT_EQ(0, unmap(self->fd, BIND_VA, 4096));
	/* ...and drops it on unmap. */
	ASSERT_EQ(0, fence_to(self, BIND_VA, 2, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(MXA_FAULT_WRITE | MXA_FAULT_NOT_PRESENT, r.err_info);
	EXPECT_EQ(1, *(volatile uint64_t *)self->data.map);
	/* Map something else there: the device sees the new pages. */
	ASSERT_EQ(0, map(self->fd, 0, self->data.handle, 4096, BIND_VA, 4096));
	ASSERT_EQ(0, fence_to(self, BIND_VA, 3, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(3, ((volatile uint64_t *)self->data.map)[512]);
	ASSERT_EQ(0, unmap(self->fd, BIND_VA, 4096));
}

TEST_F(vm, page_tables_freed)
{
	struct drm_mxa_job_result r;
	long base = mxa_counter("page_tables");
	uint64_t va = 0x5000000000ull;	/* its own level-1 and level-0 tables */

	ASSERT_GE(base, 0);
	ASSERT_EQ(0, map(self->fd, 0, self->data.handle, 0, va, self->data.size));
	EXPECT_EQ(base + 2, mxa_counter("page_tables"));
	/* Across a 2 MiB boundary: one more level-0 table. */
	ASSERT_EQ(0, map(self->fd, 0, self->data.handle, 0, va + (2 << 20) - 4096, 2 * 4096));
	EXPECT_EQ(base + 3, mxa_counter("page_tables"));
	ASSERT_EQ(0, fence_to(self, va + (2 << 20), 9, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(9, ((volatile uint64_t *)self->data.map)[512]);
	ASSERT_EQ(0, unmap(self->fd, va + (2 << 20) - 4096, 2 * 4096));
	EXPECT_EQ(base + 2, mxa_counter("page_tables"));
	ASSERT_EQ(0, unmap(self->fd, va, self->data.size));
	EXPECT_EQ(base, mxa_counter("page_tables"));
}

TEST_F(vm, close_with_binds_leaks_nothing)
{
	long bos = mxa_counter("bos"), ctxs = mxa_counter("contexts"), pts = mxa_counter("page_tables");
	struct mxa_bo b;
	int fd = mxa_open(), i;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, mxa_bo_new(fd, 8192, &b));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, map(fd, i & 1 ? DRM_MXA_VM_BIND_READ_ONLY : 0, b.handle, 0,
				 BIND_VA + (uint64_t)i * (1ull << 30), 8192));
	/* The binds hold the BO after its handle is gone. */
	mxa_bo_free(fd, &b);
	EXPECT_EQ(bos + 1, mxa_counter("bos"));
	close(fd);
	EXPECT_EQ(bos, mxa_counter("bos"));
	EXPECT_EQ(ctxs, mxa_counter("contexts"));
	EXPECT_EQ(pts, mxa_counter("page_tables"));
}

TEST_F(vm, libaccel)
{
	struct accel_device *dev;
	struct accel_bo *bo, *pbo;
	struct accel_job *job;
	struct accel_prog *prog;
	volatile uint64_t *m;

	ASSERT_EQ(0, accel_open(NULL, ACCEL_SUBMIT_AUTO, &dev));
	ASSERT_EQ(0, accel_bo_alloc(dev, 8192, &bo));
	ASSERT_EQ(0, accel_bo_alloc(dev, 4096, &pbo));
	ASSERT_EQ(0, accel_vm_bind(dev, bo, 4096, BIND_VA, 4096, 0));
	ASSERT_EQ(0, accel_vm_bind(dev, bo, 0, BIND_VA + 4096, 4096, ACCEL_VM_BIND_READ_ONLY));
	EXPECT_EQ(-EEXIST, accel_vm_bind(dev, bo, 0, BIND_VA, 4096, 0));
	ASSERT_EQ(0, accel_prog_new(&prog));
	ASSERT_EQ(0, accel_prog_fence_write(prog, BIND_VA + 8, 0x5a));
	ASSERT_EQ(0, accel_prog_fence_write(prog, BIND_VA + 4096, 0xa5));
	ASSERT_EQ(0, accel_prog_upload(prog, pbo, 0));
	ASSERT_EQ(0, accel_submit(dev, 0, pbo, 0, accel_prog_size(prog), &job));
	ASSERT_EQ(0, accel_wait(job, -1));
	EXPECT_EQ(-EFAULT, accel_job_result(job)->status);
	EXPECT_EQ(MXA_FAULT_WRITE | MXA_FAULT_READ_ONLY, accel_job_result(job)->err_info);
	m = accel_bo_map(bo);
	EXPECT_EQ(0x5a, m[513]);
	EXPECT_EQ(0, m[0]);
	accel_job_free(job);
	EXPECT_EQ(0, accel_vm_unbind(dev, BIND_VA, 4096));
	EXPECT_EQ(0, accel_vm_unbind(dev, BIND_VA + 4096, 4096));
	EXPECT_EQ(-ENOENT, accel_vm_unbind(dev, BIND_VA, 4096));
	accel_prog_free(prog);
	accel_bo_free(pbo);
	accel_bo_free(bo);
	accel_close(dev);
}

TEST_HARNESS_MAIN
