// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "reset": job timeouts, per-queue reset and banning. A job that waits
 * on a semaphore that never comes hangs its queue; with a short job timeout (debugfs
 * job_timeout_ms) the driver resets that queue: the job fails with -ETIMEDOUT, jobs of
 * other contexts queued behind it run, a context that hangs or faults repeatedly is
 * banned (-ECANCELED) while others continue. Also the debugfs counters return to their
 * baseline when files close (no leaked BOs, contexts or jobs).
 */
#include "mxa_test.h"

#include <liburing.h>
#include <stdio.h>

#include "kselftest_harness.h"
#include "../stress/mxa_counters.h"

#define SEC	NSEC_PER_SEC
#define MS	1000000ll
#define TIMEOUT_MS	300

static int write_u32(const char *path, unsigned int v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u\n", v);
	return mxa_write_text(path, buf);
}

FIXTURE(reset) {
	int fd;
	struct drm_mxa_device_info info;
	struct mxa_bo prog;
	struct mxa_bo data;
	unsigned int old_timeout;
	uint32_t hang_size, fence_off, fence_size, fault_off, fault_size;
};

/* Programs at fixed offsets of a file's program BO. */
static void setup_progs(FIXTURE_DATA(reset) *self, struct mxa_bo *prog, struct mxa_bo *data)
{
	uint32_t *start, *p;

	/* Semaphore data[0] >= 1 never comes: the device would wait 10 s. */
	p = mxa_put_sem_wait(prog->map, data->va, 1, MXA_SEM_MAX_TIMEOUT_US);
	self->hang_size = mxa_bytes(prog->map, p);
	self->fence_off = 1024;
	start = p = (uint32_t *)((char *)prog->map + 1024);
	p = mxa_put_fence(p, data->va + 8, 0xabc);
	self->fence_size = mxa_bytes(start, p);
	self->fault_off = 2048;
	start = p = (uint32_t *)((char *)prog->map + 2048);
	p = mxa_put_fence(p, 0x2000, 1);	/* below the first VA: never mapped */
	self->fault_size = mxa_bytes(start, p);
}

FIXTURE_SETUP(reset)
{
	char buf[32];

	self->fd = mxa_open();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
	if (!(self->info.driver_caps & DRM_MXA_DRIVER_CAP_JOB_TIMEOUT))
		SKIP(return, "driver without job timeouts");
	if (mxa_read_text(mxa_debugfs_file("job_timeout_ms"), buf, sizeof(buf)) < 0)
		SKIP(return, "no debugfs");
	self->old_timeout = strtoul(buf, NULL, 10);
	ASSERT_EQ(0, write_u32(mxa_debugfs_file("job_timeout_ms"), TIMEOUT_MS));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 64 << 10, &self->prog));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &self->data));
	memset(self->data.map, 0, 4096);
	setup_progs(self, &self->prog, &self->data);
}

FIXTURE_TEARDOWN(reset)
{
	mxa_bo_free(self->fd, &self->data);
	mxa_bo_free(self->fd, &self->prog);
	close(self->fd);
	if (self->old_timeout)
		write_u32(mxa_debugfs_file("job_timeout_ms"), self->old_timeout);
}

TEST_F_TIMEOUT(reset, hang_times_out_and_queue_recovers, 60)
{
	struct drm_mxa_job_result r;
	struct drm_mxa_device_info info;
	uint64_t id;
	int64_t t0 = mxa_now_ns();

	ASSERT_EQ(0, mxa_query_device(self->fd, &info));
	EXPECT_EQ(TIMEOUT_MS, info.job_timeout_ms);
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, 0, self->hang_size, &id));
	ASSERT_EQ(0, mxa_wait(self->fd, id, 30 * SEC, &r));
	EXPECT_EQ(-ETIMEDOUT, r.status);
	EXPECT_EQ(MXA_ERR_ABORTED, r.error);
	/* Well before the device's own 10 s semaphore timeout. */
	EXPECT_LT(mxa_now_ns() - t0, 8 * SEC);

	/* The same file and queue run jobs again. */
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, self->fence_off,
				self->fence_size, &id));
	ASSERT_EQ(0, mxa_wait(self->fd, id, 30 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0xabc, ((volatile uint64_t *)self->data.map)[1]);
}

/*
 * One GEMM command far longer than the job timeout: the reset must cut it short (the
 * engine stops between tasks, D is not written back) and the queue then runs the next
 * job. Found in review: math could not be aborted, the reset timed out, the driver
 * ignored that and its restart writes were dropped, so the next job never ran.
 */
TEST_F_TIMEOUT(reset, long_gemm_is_cut_short_by_the_reset, 120)
{
	const uint32_t m = 4096, n = 4096, k = 8192;
	struct drm_mxa_job_result r;
	struct mxa_isa_gemm g = {
		.m = m, .n = n, .k = k, .type_a = MXA_DTYPE_BF16, .type_b = MXA_DTYPE_BF16,
		.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32, .accum = MXA_GEMM_ACCUM_EXACT,
	};
	uint64_t abytes = (uint64_t)m * k * 2, dbytes = (uint64_t)m * n * 4;
	struct mxa_bo ops, prog;
	uint32_t *p;
	uint64_t id;
	int64_t t0;

	ASSERT_EQ(0, mxa_bo_new(self->fd, 2 * abytes + dbytes, &ops));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &prog));
	/* bf16 1.0 everywhere; D a pattern the aborted GEMM must leave alone */
	for (uint64_t i = 0; i < abytes; i += 2)
		*(uint16_t *)((char *)ops.map + i) = 0x3f80, *(uint16_t *)((char *)ops.map + abytes + i) = 0x3f80;
	memset((char *)ops.map + 2 * abytes, 0x5a, dbytes);
	g.a = ops.va;
	g.b = ops.va + abytes;
	g.d = ops.va + 2 * abytes;
	p = prog.map;
	*p++ = MXA_CMD_HEADER(MXA_OP_GEMM, MXA_GEMM_DWORDS, 0);
	memcpy(p, &g, sizeof(g));
	p += MXA_GEMM_ARGS_DWORDS;
	t0 = mxa_now_ns();
	ASSERT_EQ(0, mxa_submit(self->fd, prog.handle, 0, 0, mxa_bytes(prog.map, p), &id));
	ASSERT_EQ(0, mxa_wait(self->fd, id, 60 * SEC, &r));
	EXPECT_EQ(-ETIMEDOUT, r.status);
	EXPECT_EQ(MXA_ERR_ABORTED, r.error);
	TH_LOG("submit to the job's end: %.2f s (job timeout %d ms)", (mxa_now_ns() - t0) / 1e9,
	       TIMEOUT_MS);
	/* the reset completed: the device is not lost */
	EXPECT_EQ(0x5a5a5a5a, *(volatile uint32_t *)((char *)ops.map + 2 * abytes));
	EXPECT_EQ(0, mxa_counter("lost"));
	/* the queue works: the next job runs */
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, self->fence_off,
				self->fence_size, &id));
	ASSERT_EQ(0, mxa_wait(self->fd, id, 30 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0xabc, ((volatile uint64_t *)self->data.map)[1]);
	mxa_bo_free(self->fd, &prog);
	mxa_bo_free(self->fd, &ops);
}

TEST_F_TIMEOUT(reset, other_contexts_queued_behind_survive, 60)
{
	struct drm_mxa_job_result r;
	struct mxa_bo prog2, data2;
	uint64_t hang, ok[4];
	int fd2 = mxa_open(), i;

	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, mxa_bo_new(fd2, 64 << 10, &prog2));
	ASSERT_EQ(0, mxa_bo_new(fd2, 4096, &data2));
	memset(data2.map, 0, 4096);
	setup_progs(self, &prog2, &data2);

	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, 0, self->hang_size, &hang));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, mxa_submit(fd2, prog2.handle, 0, self->fence_off, self->fence_size,
					&ok[i]));
	ASSERT_EQ(0, mxa_wait(self->fd, hang, 30 * SEC, &r));
	EXPECT_EQ(-ETIMEDOUT, r.status);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, mxa_wait(fd2, ok[i], 30 * SEC, &r));
		EXPECT_EQ(0, r.status) TH_LOG("job %d", i);
	}
	EXPECT_EQ(0xabc, ((volatile uint64_t *)data2.map)[1]);
	mxa_bo_free(fd2, &data2);
	mxa_bo_free(fd2, &prog2);
	close(fd2);
}

/* A parameter of mxa.ko (/sys/module/mxa/parameters/@name); -1 if unreadable. */
static long module_param(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/module/mxa/parameters/%s", name);
	return mxa_read_text(path, buf, sizeof(buf)) > 0 ? strtol(buf, NULL, 10) : -1;
}

TEST_F_TIMEOUT(reset, repeated_hangs_ban_the_context_only, 90)
{
	struct drm_mxa_job_result r;
	struct mxa_bo prog2, data2;
	long limit = module_param("ban_hangs");
	uint64_t id;
	int i, fd2;

	/* Exactly ban_hangs hangs are run (each charged before its job ends), no more. */
	ASSERT_LT(0, limit);
	ASSERT_GE(8, limit) TH_LOG("ban_hangs %ld: too many 2 s hangs for this test", limit);
	for (i = 0; i < limit; i++) {
		ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, i % self->info.num_queues, 0,
					self->hang_size, &id)) TH_LOG("hang %d of %ld", i + 1, limit);
		ASSERT_EQ(0, mxa_wait(self->fd, id, 30 * SEC, &r));
		EXPECT_EQ(-ETIMEDOUT, r.status);
	}
	EXPECT_EQ(-ECANCELED, mxa_submit(self->fd, self->prog.handle, 0,
					 self->fence_off, self->fence_size, &id));

	/* Another file is not affected. */
	fd2 = mxa_open();
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, mxa_bo_new(fd2, 64 << 10, &prog2));
	ASSERT_EQ(0, mxa_bo_new(fd2, 4096, &data2));
	setup_progs(self, &prog2, &data2);
	ASSERT_EQ(0, mxa_submit(fd2, prog2.handle, 0, self->fence_off, self->fence_size, &id));
	ASSERT_EQ(0, mxa_wait(fd2, id, 30 * SEC, &r));
	EXPECT_EQ(0, r.status);
	mxa_bo_free(fd2, &data2);
	mxa_bo_free(fd2, &prog2);
	close(fd2);
}

TEST_F_TIMEOUT(reset, repeated_faults_ban_the_context, 60)
{
	struct drm_mxa_job_result r;
	uint64_t id;
	int i, ret = 0;

	long limit = module_param("ban_faults");

	/* Exactly ban_faults consecutive faulting jobs run (each counted before its job
	 * ends), then the context is banned. */
	ASSERT_LT(0, limit);
	for (i = 0; i < limit; i++) {
		ret = mxa_submit(self->fd, self->prog.handle, 0, self->fault_off,
				 self->fault_size, &id);
		ASSERT_EQ(0, ret) TH_LOG("fault %d of %ld", i + 1, limit);
		ASSERT_EQ(0, mxa_wait(self->fd, id, 30 * SEC, &r));
		EXPECT_EQ(-EFAULT, r.status);
	}
	ret = mxa_submit(self->fd, self->prog.handle, 0, self->fault_off, self->fault_size, &id);
	EXPECT_EQ(-ECANCELED, ret);
}

TEST_F_TIMEOUT(reset, uring_and_groups_see_the_timeout, 60)
{
	struct drm_mxa_submit s = { .prog_handle = self->prog.handle,
		.prog_size = self->hang_size };
	struct drm_mxa_commit_group c = { 0 };
	struct drm_mxa_wait_group w = { .timeout_ns = 30 * SEC };
	struct drm_mxa_job_result res;
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int i, ret, got_job = 0, got_wait = 0;
	const void *payloads[3] = { &s, &c, &w };
	const size_t sizes[3] = { sizeof(s), sizeof(c), sizeof(w) };
	const uint32_t ops[3] = { MXA_URING_CMD_SUBMIT, MXA_URING_CMD_COMMIT_GROUP,
				  MXA_URING_CMD_WAIT_GROUP };

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	ret = io_uring_queue_init_params(16, &ring, &p);
	if (ret == -ENOSYS || ret == -EPERM)
		SKIP(return, "io_uring unavailable");
	ASSERT_EQ(0, ret);
	s.result_ptr = (uintptr_t)&res;
	s.result_size = sizeof(res);
	memset(&res, 0xff, sizeof(res));
	for (i = 0; i < 3; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		ASSERT_NE(NULL, sqe);
		memset(sqe, 0, 2 * sizeof(*sqe));
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->fd = self->fd;
		sqe->cmd_op = ops[i];
		sqe->user_data = i;
		memcpy(sqe->cmd, payloads[i], sizes[i]);
	}
	ASSERT_EQ(3, io_uring_submit(&ring));
	for (i = 0; i < 3; i++) {
		struct __kernel_timespec ts = { .tv_sec = 30 };

		ASSERT_EQ(0, io_uring_wait_cqe_timeout(&ring, &cqe, &ts));
		if (cqe->user_data == 0) {
			EXPECT_EQ(-ETIMEDOUT, cqe->res);
			got_job++;
		} else if (cqe->user_data == 2) {
			EXPECT_EQ(0, cqe->res);
			EXPECT_EQ(1, cqe->big_cqe[0]);
			got_wait++;
		} else {
			EXPECT_EQ(0, cqe->res);
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	EXPECT_EQ(1, got_job);
	EXPECT_EQ(1, got_wait);
	EXPECT_EQ(-ETIMEDOUT, res.status);
	EXPECT_EQ(0, res.instances);	/* a hung job that was reset ran no instance to its end */
	io_uring_queue_exit(&ring);
}

TEST(counters_return_to_baseline)
{
	long bos, ctxs, jobs, before;
	struct mxa_bo prog, data;
	int fd, i, tries;

	/* Jobs of earlier tests' closed files may still be ending: wait until they have. */
	for (tries = 0, before = -2; tries < 100; tries++) {
		jobs = mxa_counter("jobs");
		if (jobs == before)
			break;
		before = jobs;
		usleep(100000);
	}
	bos = mxa_counter("bos");
	ctxs = mxa_counter("contexts");
	jobs = mxa_counter("jobs");
	if (bos < 0)
		SKIP(return, "no debugfs counters");
	fd = mxa_open();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, mxa_bo_new(fd, 4096, &prog));
	ASSERT_EQ(0, mxa_bo_new(fd, 4096, &data));
	EXPECT_EQ(bos + 2, mxa_counter("bos"));
	EXPECT_EQ(ctxs + 1, mxa_counter("contexts"));
	mxa_put_fence(prog.map, data.va, 1);
	for (i = 0; i < 50; i++)
		ASSERT_EQ(0, mxa_submit(fd, prog.handle, i % 2, 0, 20, NULL));
	munmap(prog.map, prog.size);
	munmap(data.map, data.size);
	close(fd);	/* with jobs in flight and never waited for */

	/* Jobs are freed from a work item once they end. */
	for (tries = 0; tries < 100; tries++) {
		if (mxa_counter("bos") == bos && mxa_counter("contexts") == ctxs &&
		    mxa_counter("jobs") == jobs)
			break;
		usleep(50000);
	}
	EXPECT_EQ(bos, mxa_counter("bos"));
	EXPECT_EQ(ctxs, mxa_counter("contexts"));
	EXPECT_EQ(jobs, mxa_counter("jobs"));
}

TEST_HARNESS_MAIN
