// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "prime": sharing buffers as dma-bufs with accel_bo_export_dmabuf()
 * and accel_bo_import_dmabuf(). A buffer exported by one open of /dev/accel/accel0 and
 * imported by a second open is the same memory (CPU writes on either side, a device
 * write by the exporter's job, the dma-buf's own mmap) and outlives the exporter's
 * handle. What the driver does with an imported buffer, checked: it has no VA in the
 * importer's device VM until accel_vm_bind() maps it there, after which the importer's
 * jobs read and write the shared memory (and fault again once it is unbound); it cannot
 * hold a program (-EINVAL); the exporter's VA means nothing in the importer's VM.
 * Errors: bad fds, a file that is not a dma-buf, bad flags, an import the device handle
 * already holds (-EEXIST). With a second device (run-guest.py --devices 2): a dma-buf of
 * accel0 imported by accel1, bound there, and written by accel1's job.
 */
#include "mxa_test.h"

#include <stdio.h>
#include <sys/stat.h>

#include "accel.h"
#include "accel_test.h"
#include "kselftest_harness.h"

#define BO_SIZE		(64u << 10)
#define SEC		NSEC_PER_SEC

FIXTURE(prime) {
	struct accel_device *a, *b;	/* exporter, importer: two opens of accel0 */
	struct accel_bo *filler, *bo;	/* in a */
	struct accel_bo *prog_b;	/* in b */
};

FIXTURE_SETUP(prime)
{
	ASSERT_EQ(0, accel_open(NULL, ACCEL_SUBMIT_AUTO, &self->a));
	ASSERT_EQ(0, accel_open(NULL, ACCEL_SUBMIT_AUTO, &self->b));
	/* the exporter's buffer sits above every VA the importer will use */
	ASSERT_EQ(0, accel_bo_alloc(self->a, 1u << 20, &self->filler));
	ASSERT_EQ(0, accel_bo_alloc(self->a, BO_SIZE, &self->bo));
	ASSERT_EQ(0, accel_bo_alloc(self->b, 4096, &self->prog_b));
	ASSERT_GT(accel_bo_va(self->bo), accel_bo_va(self->prog_b) + 4096);
}

FIXTURE_TEARDOWN(prime)
{
	accel_bo_free(self->prog_b);
	accel_bo_free(self->bo);
	accel_bo_free(self->filler);
	accel_close(self->b);
	accel_close(self->a);
}

static void pattern(uint32_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = seed ^ (uint32_t)(i * 2654435761u);
}

/* Run one FENCE_WRITE of @value at @va on @dev (program in @prog_bo): the job's result. */
static int fence_job(struct accel_device *dev, struct accel_bo *prog_bo, uint64_t va,
		     uint64_t value, struct accel_job_result *r)
{
	struct accel_prog *prog;
	int ret;

	ret = accel_prog_new(&prog);
	if (ret)
		return ret;
	ret = accel_prog_fence_write(prog, va, value);
	if (!ret)
		ret = accel_test_run(dev, prog, prog_bo, r);
	accel_prog_free(prog);
	return ret;
}

TEST_F(prime, export_import_shares_memory)
{
	uint32_t *pa = accel_bo_map(self->bo), *pb, *pd;
	struct accel_job_result r;
	struct accel_bo *imp;
	int fd, flags;

	pattern(pa, BO_SIZE / 4, 0x1234);
	ASSERT_EQ(0, accel_bo_export_dmabuf(self->bo, O_CLOEXEC | O_RDWR, &fd));
	ASSERT_GE(fd, 0);
	flags = fcntl(fd, F_GETFD);
	EXPECT_TRUE(flags & FD_CLOEXEC);
	EXPECT_EQ(BO_SIZE, lseek(fd, 0, SEEK_END));

	ASSERT_EQ(0, accel_bo_import_dmabuf(self->b, fd, &imp));
	EXPECT_EQ(BO_SIZE, accel_bo_size(imp));
	EXPECT_EQ(0, accel_bo_va(imp));		/* not mapped in b's device VM */
	EXPECT_NE(0, accel_bo_handle(imp));
	pb = accel_bo_map(imp);
	ASSERT_NE(NULL, pb);
	EXPECT_EQ(0, memcmp(pa, pb, BO_SIZE));

	/* CPU writes in either process view are the other's */
	pb[5] = 0xcafef00d;
	EXPECT_EQ(0xcafef00d, pa[5]);
	pa[BO_SIZE / 4 - 1] = 0x600dbeef;
	EXPECT_EQ(0x600dbeef, pb[BO_SIZE / 4 - 1]);

	/* a device write by the exporter's job is seen through the import */
	ASSERT_EQ(0, fence_job(self->a, self->filler, accel_bo_va(self->bo) + 256,
			       0x1122334455667788ull, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x1122334455667788ull, *(volatile uint64_t *)((uint8_t *)pb + 256));

	/* the dma-buf's own mmap is the same memory too */
	pd = mmap(NULL, BO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, pd);
	EXPECT_EQ(0xcafef00d, pd[5]);
	pd[7] = 0x77777777;
	EXPECT_EQ(0x77777777, pa[7]);
	EXPECT_EQ(0x77777777, pb[7]);
	munmap(pd, BO_SIZE);

	accel_bo_free(imp);
	close(fd);
	/* the exporter's buffer is untouched by the importer's close */
	EXPECT_EQ(0x77777777, pa[7]);
	ASSERT_EQ(0, fence_job(self->a, self->filler, accel_bo_va(self->bo) + 512, 9, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(9, ((uint64_t *)pa)[64]);
}

TEST_F(prime, import_outlives_the_exporter)
{
	struct accel_bo *imp;
	uint32_t *pb;
	int fd;

	pattern(accel_bo_map(self->bo), BO_SIZE / 4, 0xabcd);
	ASSERT_EQ(0, accel_bo_export_dmabuf(self->bo, 0, &fd));
	EXPECT_FALSE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	accel_bo_free(self->bo);	/* the dma-buf holds the memory */
	self->bo = NULL;
	ASSERT_EQ(0, accel_bo_import_dmabuf(self->b, fd, &imp));
	close(fd);			/* now the import alone */
	accel_bo_free(self->filler);
	self->filler = NULL;
	accel_close(self->a);		/* and the exporting file is gone */
	self->a = NULL;
	pb = accel_bo_map(imp);
	for (size_t i = 0; i < BO_SIZE / 4; i++)
		if (pb[i] != (0xabcd ^ (uint32_t)(i * 2654435761u))) {
			EXPECT_EQ(0, i) TH_LOG("word %zu differs", i);
			break;
		}
	accel_bo_free(imp);
}

/* What the driver does with an imported buffer in the importer's device context. */
TEST_F(prime, imported_buffer_binds_in_the_importers_vm)
{
	uint64_t exporter_va = accel_bo_va(self->bo), va = 0x7000000000ull;
	uint64_t *pa = accel_bo_map(self->bo);
	struct accel_job_result r;
	struct accel_prog *prog;
	struct accel_bo *imp;
	struct accel_job *job;
	int fd, ret;

	ASSERT_EQ(0, accel_bo_export_dmabuf(self->bo, O_CLOEXEC | O_RDWR, &fd));
	ASSERT_EQ(0, accel_bo_import_dmabuf(self->b, fd, &imp));
	close(fd);

	/* a program in the imported buffer: refused by the kernel (-EINVAL) */
	ASSERT_EQ(0, accel_prog_new(&prog));
	ASSERT_EQ(0, accel_prog_nop(prog));
	ASSERT_EQ(0, accel_prog_upload(prog, imp, 0));
	ret = accel_submit(self->b, 0, imp, 0, accel_prog_size(prog), &job);
	if (!ret) {		/* io_uring: the refusal is the job's result */
		ASSERT_EQ(0, accel_wait(job, 10 * SEC));
		ret = accel_job_result(job)->status;
		EXPECT_EQ(0, accel_job_result(job)->job_id);
		accel_job_free(job);
	}
	EXPECT_EQ(-EINVAL, ret);
	accel_prog_free(prog);

	/* the exporter's VA means nothing in the importer's VM: the job faults there */
	ASSERT_EQ(0, fence_job(self->b, self->prog_b, exporter_va + 64, 0xdead, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(exporter_va + 64, r.err_addr);
	EXPECT_TRUE(r.err_info & MXA_FAULT_WRITE);
	EXPECT_EQ(0, ((uint64_t *)accel_bo_map(imp))[8]);

	/* bound at a VA of the importer's VM, the importer's jobs use the shared memory */
	ASSERT_EQ(0, accel_vm_bind(self->b, imp, 0, va, BO_SIZE, 0));
	ASSERT_EQ(0, fence_job(self->b, self->prog_b, va + 64, 0xbeef, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0xbeef, pa[8]);
	/* a read-only bind of it: the device may not write through it */
	ASSERT_EQ(0, accel_vm_bind(self->b, imp, 4096, va + 2 * BO_SIZE, 4096,
				   ACCEL_VM_BIND_READ_ONLY));
	ASSERT_EQ(0, fence_job(self->b, self->prog_b, va + 2 * BO_SIZE, 1, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_TRUE(r.err_info & MXA_FAULT_READ_ONLY);
	EXPECT_EQ(0, accel_vm_unbind(self->b, va + 2 * BO_SIZE, 4096));
	/* the binds hold the memory: freeing the import and the exporter's buffer */
	accel_bo_free(imp);
	accel_bo_free(self->bo);
	self->bo = NULL;
	ASSERT_EQ(0, fence_job(self->b, self->prog_b, va + 72, 0xf00d, &r));
	EXPECT_EQ(0, r.status);
	/* unbound, the importer's jobs fault again */
	EXPECT_EQ(0, accel_vm_unbind(self->b, va, BO_SIZE));
	ASSERT_EQ(0, fence_job(self->b, self->prog_b, va + 64, 0xdead, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(va + 64, r.err_addr);
}

/*
 * A dma-buf exported without write access stays read-only in the importer: its VM may
 * map it only read-only (-EACCES otherwise; a device write through it faults), and it
 * cannot be mmap()ed writable, through the importer's device file or the dma-buf itself.
 * (Found in review: the import was the exporter's own BO, bound writable.)
 */
TEST_F(prime, read_only_export_stays_read_only)
{
	uint64_t *pa = accel_bo_map(self->bo), va = 0x7100000000ull;
	struct drm_mxa_bo_mmap_offset mo = { 0 };
	struct accel_job_result r;
	struct accel_prog *prog;
	struct accel_bo *imp;
	void *m;
	int fd;

	pa[9] = 0x1234;
	ASSERT_EQ(0, accel_bo_export_dmabuf(self->bo, O_CLOEXEC, &fd));
	EXPECT_EQ(O_RDONLY, fcntl(fd, F_GETFL) & O_ACCMODE);
	ASSERT_EQ(0, accel_bo_import_dmabuf(self->b, fd, &imp));
	/* the CPU: readable, never writable */
	EXPECT_EQ(0x1234, ((uint64_t *)accel_bo_map(imp))[9]);
	mo.handle = accel_bo_handle(imp);
	ASSERT_EQ(0, ioctl(accel_device_fd(self->b), DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo));
	m = mmap(NULL, BO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, accel_device_fd(self->b),
		 mo.offset);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(accel_bo_map(imp), 4096, PROT_READ | PROT_WRITE));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, BO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	/* the device: a writable bind is refused, a read-only one reads and cannot write */
	EXPECT_EQ(-EACCES, accel_vm_bind(self->b, imp, 0, va, BO_SIZE, 0));
	ASSERT_EQ(0, accel_vm_bind(self->b, imp, 0, va, BO_SIZE, ACCEL_VM_BIND_READ_ONLY));
	ASSERT_EQ(0, fence_job(self->b, self->prog_b, va + 64, 0xdead, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_TRUE(r.err_info & MXA_FAULT_READ_ONLY);
	EXPECT_EQ(0, pa[8]);
	ASSERT_EQ(0, accel_prog_new(&prog));
	ASSERT_EQ(0, accel_prog_reg_load(prog, 1, va + 72));
	ASSERT_EQ(0, accel_prog_reg_store(prog, 1, accel_bo_va(self->prog_b) + 2048));
	ASSERT_EQ(0, accel_test_run(self->b, prog, self->prog_b, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x1234, ((uint64_t *)accel_bo_map(self->prog_b))[256]);
	accel_prog_free(prog);
	EXPECT_EQ(0, accel_vm_unbind(self->b, va, BO_SIZE));
	accel_bo_free(imp);
	close(fd);
}

TEST_F(prime, an_import_the_handle_already_holds_is_refused)
{
	struct accel_job_result r;
	struct accel_bo *imp, *imp2;
	int fd;

	ASSERT_EQ(0, accel_bo_export_dmabuf(self->bo, O_CLOEXEC, &fd));
	/* the exporter itself: the GEM handle would be bo's own */
	imp = (struct accel_bo *)1;
	EXPECT_EQ(-EEXIST, accel_bo_import_dmabuf(self->a, fd, &imp));
	EXPECT_EQ(NULL, imp);
	/* ... and bo's handle is still open: a job in it runs */
	ASSERT_EQ(0, fence_job(self->a, self->bo, accel_bo_va(self->bo) + 2048, 5, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(5, ((uint64_t *)accel_bo_map(self->bo))[256]);

	/* a second import into the same handle */
	ASSERT_EQ(0, accel_bo_import_dmabuf(self->b, fd, &imp));
	EXPECT_EQ(-EEXIST, accel_bo_import_dmabuf(self->b, fd, &imp2));
	EXPECT_EQ(5, ((uint64_t *)accel_bo_map(imp))[256]);
	accel_bo_free(imp);
	/* once freed, importing again works */
	ASSERT_EQ(0, accel_bo_import_dmabuf(self->b, fd, &imp2));
	EXPECT_EQ(5, ((uint64_t *)accel_bo_map(imp2))[256]);
	accel_bo_free(imp2);
	close(fd);
}

TEST_F(prime, errors)
{
	struct accel_bo *imp = NULL;
	int fd = 1234, pfd[2];

	/* flags other than O_CLOEXEC | O_RDWR */
	EXPECT_EQ(-EINVAL, accel_bo_export_dmabuf(self->bo, O_APPEND, &fd));
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(-EINVAL, accel_bo_export_dmabuf(self->bo, 0, NULL));
	/* not a file descriptor */
	EXPECT_EQ(-EBADF, accel_bo_import_dmabuf(self->b, -1, &imp));
	EXPECT_EQ(-EBADF, accel_bo_import_dmabuf(self->b, 1000, &imp));
	EXPECT_EQ(NULL, imp);
	/* open files that are not dma-bufs */
	ASSERT_EQ(0, pipe(pfd));
	EXPECT_EQ(-EINVAL, accel_bo_import_dmabuf(self->b, pfd[0], &imp));
	close(pfd[0]);
	close(pfd[1]);
	EXPECT_EQ(-EINVAL, accel_bo_import_dmabuf(self->b, accel_device_fd(self->a), &imp));
	EXPECT_EQ(NULL, imp);
	EXPECT_EQ(-EINVAL, accel_bo_import_dmabuf(self->b, 0, NULL));
	EXPECT_STREQ("not an open file descriptor", accel_strerror(-EBADF));
	EXPECT_NE(NULL, strstr(accel_strerror(-EEXIST), "already holds"));
}

/*
 * A dma-buf of another MXA device (run-guest.py --devices 2 gives accel1): imported,
 * shared through the CPU, bound in accel1's VM and written by accel1's job, read by an
 * accel0 job; the import outlives the exporter's buffer.
 */
TEST_F(prime, another_device)
{
	uint64_t va = 0x7000000000ull, *pa = accel_bo_map(self->bo), *pi;
	struct accel_device *other;
	struct accel_bo *imp = NULL, *prog;
	struct accel_job_result r;
	struct stat st;
	int fd;

	if (stat("/dev/accel/accel1", &st))
		SKIP(return, "no second device (run-guest.py --devices 2)");
	ASSERT_EQ(0, accel_open("/dev/accel/accel1", ACCEL_SUBMIT_AUTO, &other));
	ASSERT_EQ(0, accel_bo_alloc(other, 4096, &prog));
	pa[3] = 0x3333;
	ASSERT_EQ(0, accel_bo_export_dmabuf(self->bo, O_CLOEXEC | O_RDWR, &fd));
	ASSERT_EQ(0, accel_bo_import_dmabuf(other, fd, &imp));
	close(fd);
	EXPECT_EQ(BO_SIZE, accel_bo_size(imp));
	EXPECT_EQ(0, accel_bo_va(imp));
	pi = accel_bo_map(imp);
	ASSERT_NE(NULL, pi);
	EXPECT_EQ(0x3333, pi[3]);
	pi[4] = 0x4444;
	EXPECT_EQ(0x4444, pa[4]);

	ASSERT_EQ(0, accel_vm_bind(other, imp, 0, va, BO_SIZE, 0));
	ASSERT_EQ(0, fence_job(other, prog, va + 40, 0xacce1, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0xacce1, pa[5]);
	/* accel0's job writes, accel1's view sees it */
	ASSERT_EQ(0, fence_job(self->a, self->filler, accel_bo_va(self->bo) + 48, 0x600d, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x600d, pi[6]);
	/* the import outlives the exporter's buffer */
	accel_bo_free(self->bo);
	self->bo = NULL;
	ASSERT_EQ(0, fence_job(other, prog, va + 56, 7, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(7, pi[7]);
	EXPECT_EQ(0, accel_vm_unbind(other, va, BO_SIZE));
	accel_bo_free(imp);
	accel_bo_free(prog);
	accel_close(other);
}

TEST_HARNESS_MAIN
