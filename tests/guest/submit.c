// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "submit": jobs through DRM_IOCTL_MXA_SUBMIT / DRM_IOCTL_MXA_WAIT:
 * NOP, FENCE_WRITE (the value really written by the device, read back through mmap),
 * TIMESTAMP, every queue, a full ring, WAIT timeouts, job errors with the right
 * MXA_ERR and offset, MMU faults, isolation, and closing with jobs in flight.
 */
#include "mxa_test.h"

#include <sys/wait.h>

#include "kselftest_harness.h"

#define SEC	NSEC_PER_SEC

FIXTURE(submit) {
	int fd;
	struct drm_mxa_device_info info;
	struct mxa_bo prog;
	struct mxa_bo data;
};

FIXTURE_SETUP(submit)
{
	self->fd = mxa_open();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 1 << 20, &self->prog));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 64 << 10, &self->data));
}

FIXTURE_TEARDOWN(submit)
{
	mxa_bo_free(self->fd, &self->data);
	mxa_bo_free(self->fd, &self->prog);
	close(self->fd);
}

/* Submit the program [start, end) at offset 0 of the program BO and wait for it. */
static int run_prog(int fd, struct mxa_bo *prog, const uint32_t *end, uint32_t queue,
		    struct drm_mxa_job_result *r)
{
	uint64_t id;
	int ret;

	ret = mxa_submit(fd, prog->handle, queue, 0, mxa_bytes(prog->map, end), &id);
	if (ret)
		return ret;
	return mxa_wait(fd, id, 10 * SEC, r);
}

TEST_F(submit, nop)
{
	struct drm_mxa_job_result r;
	uint32_t *p = self->prog.map;
	int i;

	for (i = 0; i < 16; i++)
		p = mxa_put_nop(p);
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 0, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0, r.error);
	EXPECT_EQ(0, r.err_instance);
	EXPECT_EQ(1, r.instances);
	EXPECT_NE(0, r.start_ns);
	EXPECT_LE(r.start_ns, r.end_ns);
}

TEST_F(submit, fence_write_visible_through_mmap)
{
	volatile uint64_t *d = self->data.map;
	struct drm_mxa_job_result r;
	uint32_t *p = self->prog.map;

	d[0] = 0;
	d[1] = 0;
	p = mxa_put_nop(p);
	p = mxa_put_fence(p, self->data.va, 0x0123456789abcdefull);
	p = mxa_put_fence(p, self->data.va + 8, 0xfeedfacecafebeefull);
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 0, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x0123456789abcdefull, d[0]);
	EXPECT_EQ(0xfeedfacecafebeefull, d[1]);
	/* The last byte of the BO is mapped too. */
	p = self->prog.map;
	p = mxa_put_fence(p, self->data.va + self->data.size - 8, 77);
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 0, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(77, d[self->data.size / 8 - 1]);
}

/*
 * A lone job of a few control commands, on an idle queue, runs at its doorbell
 * (device.rst, "Jobs a doorbell runs"), and the submitter completes it at once
 * (mxa_queue_poll()): it has ended, its fence written, when the submit ioctl returns.
 * Until 2026-12-04 the queue's thread ran it 30-60 us later (performance.rst,
 * "Submission"). Twenty in a row: each finds the queue idle again.
 */
TEST_F(submit, a_lone_control_job_has_ended_when_submit_returns)
{
	volatile uint64_t *d = self->data.map;
	struct drm_mxa_job_result r;
	uint32_t *p;
	uint64_t id;
	int i;

	for (i = 0; i < 20; i++) {
		d[0] = 0;
		p = mxa_put_timestamp(self->prog.map, self->data.va + 8);
		p = mxa_put_fence(p, self->data.va, 100 + i);
		ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, 0,
					mxa_bytes(self->prog.map, p), &id));
		EXPECT_EQ(100 + i, d[0]) TH_LOG("job %d", i);
		ASSERT_EQ(0, mxa_wait(self->fd, id, 0, &r)) TH_LOG("job %d", i);
		EXPECT_EQ(0, r.status);
		EXPECT_EQ(2, r.commands);
	}
}

TEST_F(submit, fence_write_to_program_bo)
{
	/* A job may write into the BO holding its own program, past the program. */
	volatile uint64_t *target = (uint64_t *)((char *)self->prog.map + 4096);
	struct drm_mxa_job_result r;
	uint32_t *p = self->prog.map;

	p = mxa_put_fence(p, self->prog.va + 4096, 5);
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 0, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(5, *target);
}

TEST_F(submit, timestamp)
{
	volatile uint64_t *d = self->data.map;
	struct drm_mxa_job_result r;
	uint32_t *p = self->prog.map;

	d[0] = d[1] = 0;
	p = mxa_put_timestamp(p, self->data.va);
	p = mxa_put_nop(p);
	p = mxa_put_timestamp(p, self->data.va + 8);
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 0, &r));
	ASSERT_EQ(0, r.status);
	EXPECT_NE(0, d[0]);
	EXPECT_LE(d[0], d[1]);
	/* Same clock as the completion record. */
	EXPECT_LE(r.start_ns, d[0]);
	EXPECT_LE(d[1], r.end_ns);
}

TEST_F(submit, every_queue)
{
	volatile uint64_t *d = self->data.map;
	uint64_t ids[MXA_MAX_QUEUES];
	struct drm_mxa_job_result r;
	uint32_t q, off;

	for (q = 0; q < self->info.num_queues; q++) {
		uint32_t *start = (uint32_t *)((char *)self->prog.map + q * 256);
		uint32_t *p = mxa_put_fence(start, self->data.va + 8 * q, 100 + q);

		off = q * 256;
		ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, q, off,
					mxa_bytes(start, p), &ids[q]));
	}
	for (q = 0; q < self->info.num_queues; q++) {
		ASSERT_EQ(0, mxa_wait(self->fd, ids[q], 10 * SEC, &r));
		EXPECT_EQ(0, r.status) TH_LOG("queue %u", q);
		EXPECT_EQ(100 + q, d[q]);
	}
}

TEST_F(submit, job_ids_unique_and_released)
{
	struct drm_mxa_job_result r;
	uint32_t *p = mxa_put_nop(self->prog.map);
	uint64_t a, b;

	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, 0, mxa_bytes(self->prog.map, p), &a));
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, 0, mxa_bytes(self->prog.map, p), &b));
	EXPECT_NE(0, a);
	EXPECT_NE(a, b);
	ASSERT_EQ(0, mxa_wait(self->fd, b, 10 * SEC, &r));
	ASSERT_EQ(0, mxa_wait(self->fd, a, 10 * SEC, &r));
	/* Released after a successful wait. */
	EXPECT_EQ(-ENOENT, mxa_wait(self->fd, a, 0, &r));
	EXPECT_EQ(-ENOENT, mxa_wait(self->fd, b, 0, &r));
	EXPECT_EQ(-ENOENT, mxa_wait(self->fd, 0, 0, &r));
	EXPECT_EQ(-ENOENT, mxa_wait(self->fd, b + 1000, 0, &r));
}

TEST_F_TIMEOUT(submit, full_ring_many_jobs, 120)
{
	volatile uint64_t *d = self->data.map;
	const unsigned int n = 1500;	/* several times the ring size */
	struct drm_mxa_job_result r;
	uint64_t *ids = calloc(n, sizeof(*ids));
	unsigned int i;

	ASSERT_NE(NULL, ids);
	/* One program per job, each writing its own slot. */
	for (i = 0; i < n; i++) {
		uint32_t *start = (uint32_t *)((char *)self->prog.map + i * 32);
		uint32_t *p = mxa_put_fence(start, self->data.va + 8 * i, 0xabc00000 + i);

		ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, i % self->info.num_queues,
					i * 32, mxa_bytes(start, p), &ids[i]))
			TH_LOG("job %u", i);
	}
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, mxa_wait(self->fd, ids[i], 30 * SEC, &r)) TH_LOG("job %u", i);
		ASSERT_EQ(0, r.status);
	}
	for (i = 0; i < n; i++)
		ASSERT_EQ(0xabc00000 + i, d[i]) TH_LOG("slot %u", i);
	free(ids);
}

TEST_F_TIMEOUT(submit, wait_timeout, 120)
{
	/*
	 * A gate job that cannot end until the CPU opens it (SEM_WAIT on data[0]), and
	 * three jobs behind it on the same queue: the waits below expire however fast
	 * the device is.
	 */
	struct drm_mxa_job_result r;
	struct mxa_bo prog, data;
	uint64_t ids[4];
	uint32_t *p, gate_size, fence_off = 1024, fence_size;
	int64_t dt;
	uint32_t i;

	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &prog));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &data));
	p = mxa_put_sem_wait(prog.map, data.va, 1, MXA_SEM_MAX_TIMEOUT_US);
	gate_size = mxa_bytes(prog.map, p);
	p = mxa_put_fence((uint32_t *)((char *)prog.map + fence_off), data.va + 8, 0x5a);
	fence_size = mxa_bytes((uint32_t *)((char *)prog.map + fence_off), p);
	ASSERT_EQ(0, mxa_submit(self->fd, prog.handle, 0, 0, gate_size, &ids[0]));
	for (i = 1; i < 4; i++)
		ASSERT_EQ(0, mxa_submit(self->fd, prog.handle, 0, fence_off, fence_size, &ids[i]));

	/* Polling the last one: still waiting behind the gate. */
	EXPECT_EQ(-ETIME, mxa_wait(self->fd, ids[3], 0, &r));
	/* A short timeout expires, not early, and the job stays waitable. */
	dt = mxa_now_ns();
	EXPECT_EQ(-ETIME, mxa_wait(self->fd, ids[3], 20 * 1000 * 1000, &r));
	dt = mxa_now_ns() - dt;
	EXPECT_GE(dt, 20 * 1000 * 1000);
	EXPECT_EQ(0, ((volatile uint64_t *)data.map)[1]);
	/* Negative timeouts are rejected. */
	EXPECT_EQ(-EINVAL, mxa_wait(self->fd, ids[3], -1, &r));
	/* Open the gate: then each completes, and the ids are released. */
	((volatile uint64_t *)data.map)[0] = 1;
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, mxa_wait(self->fd, ids[i], 60 * SEC, &r));
		EXPECT_EQ(0, r.status);
	}
	EXPECT_EQ(0x5a, ((volatile uint64_t *)data.map)[1]);
	EXPECT_EQ(-ENOENT, mxa_wait(self->fd, ids[3], 0, &r));
	mxa_bo_free(self->fd, &data);
	mxa_bo_free(self->fd, &prog);
}

/* Submit a raw program and expect a job error. */
static void expect_job_error(struct __test_metadata *_metadata, int fd, struct mxa_bo *prog,
			     const uint32_t *end, int status, uint32_t error, uint32_t offset)
{
	struct drm_mxa_job_result r;

	ASSERT_EQ(0, run_prog(fd, prog, end, 0, &r));
	EXPECT_EQ(status, r.status);
	EXPECT_EQ(error, r.error);
	EXPECT_EQ(offset, r.err_offset);
	EXPECT_EQ(((uint32_t *)prog->map)[offset / 4], r.err_opcode);
}

TEST_F(submit, unknown_opcode)
{
	uint32_t *p = self->prog.map;

	p = mxa_put_nop(p);
	p = mxa_put_nop(p);
	*p++ = MXA_CMD_HEADER(0x3e, 1, 0);
	p = mxa_put_nop(p);
	expect_job_error(_metadata, self->fd, &self->prog, p, -EIO, MXA_ERR_UNKNOWN_OPCODE, 8);
}

TEST_F(submit, bad_length)
{
	uint32_t *p = self->prog.map;

	p = mxa_put_nop(p);
	*p++ = MXA_CMD_HEADER(MXA_OP_NOP, 2, 0);
	*p++ = 0;
	expect_job_error(_metadata, self->fd, &self->prog, p, -EIO, MXA_ERR_BAD_LENGTH, 4);
}

TEST_F(submit, truncated)
{
	uint32_t *p = self->prog.map;

	p = mxa_put_nop(p);
	p = mxa_put_fence(p, self->data.va, 1);
	/* Cut the FENCE_WRITE after three of its five dwords. */
	expect_job_error(_metadata, self->fd, &self->prog, p - 2, -EIO, MXA_ERR_TRUNCATED, 4);
}

TEST_F(submit, bad_flags)
{
	uint32_t *p = self->prog.map;

	*p++ = MXA_CMD_HEADER(MXA_OP_NOP, 1, 0x8000);
	expect_job_error(_metadata, self->fd, &self->prog, p, -EIO, MXA_ERR_BAD_FLAGS, 0);
}

TEST_F(submit, misaligned_fence)
{
	uint32_t *p = self->prog.map;

	p = mxa_put_nop(p);
	p = mxa_put_fence(p, self->data.va + 4, 1);
	expect_job_error(_metadata, self->fd, &self->prog, p, -EIO, MXA_ERR_MISALIGNED, 4);
}

TEST_F(submit, mmu_fault_unmapped)
{
	struct drm_mxa_job_result r;
	uint32_t *p = self->prog.map;

	p = mxa_put_nop(p);
	p = mxa_put_nop(p);
	p = mxa_put_fence(p, 0x1000, 1);	/* below va_start: never mapped */
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 0, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(MXA_ERR_MMU_FAULT, r.error);
	EXPECT_EQ(8, r.err_offset);
	EXPECT_EQ(MXA_CMD_HEADER(MXA_OP_FENCE_WRITE, MXA_FENCE_WRITE_DWORDS, 0), r.err_opcode);
	EXPECT_EQ(0x1000, r.err_addr);
	EXPECT_TRUE(r.err_info & MXA_FAULT_WRITE);
	EXPECT_TRUE(r.err_info & MXA_FAULT_NOT_PRESENT);
}

TEST_F(submit, mmu_fault_guard_page)
{
	struct drm_mxa_job_result r;
	uint32_t *p = self->prog.map;

	/* The page right after a BO is never mapped. */
	p = mxa_put_timestamp(p, self->data.va + self->data.size);
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 0, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(MXA_ERR_MMU_FAULT, r.error);
	EXPECT_EQ(self->data.va + self->data.size, r.err_addr);
}

TEST_F(submit, mmu_fault_beyond_va_space)
{
	struct drm_mxa_job_result r;
	uint32_t *p = self->prog.map;

	p = mxa_put_fence(p, 1ull << MXA_VA_BITS, 1);
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 0, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(MXA_ERR_MMU_FAULT, r.error);
}

TEST_F(submit, closed_bo_unmapped_from_device)
{
	struct drm_mxa_job_result r;
	struct mxa_bo victim;
	uint64_t va;
	uint32_t *p;

	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &victim));
	va = victim.va;
	mxa_bo_free(self->fd, &victim);
	/* Its VA no longer translates (TLB invalidated). */
	p = mxa_put_fence(self->prog.map, va, 1);
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 0, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(va, r.err_addr);
}

TEST_F(submit, queue_recovers_after_error)
{
	volatile uint64_t *d = self->data.map;
	struct drm_mxa_job_result r;
	uint32_t *p = self->prog.map;

	*p++ = 0xffffffff;
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 0, &r));
	EXPECT_EQ(-EIO, r.status);
	p = mxa_put_fence(self->prog.map, self->data.va, 99);
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 0, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(99, d[0]);
}

TEST_F(submit, program_at_offset)
{
	volatile uint64_t *d = self->data.map;
	struct drm_mxa_job_result r;
	uint32_t *start = (uint32_t *)((char *)self->prog.map + self->prog.size - 20);
	uint32_t *p = mxa_put_fence(start, self->data.va, 31337);
	uint64_t id;

	/* The last 20 bytes of the BO. */
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, self->prog.size - 20,
				mxa_bytes(start, p), &id));
	ASSERT_EQ(0, mxa_wait(self->fd, id, 10 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(31337, d[0]);
}

TEST_F(submit, bo_closed_while_job_queued)
{
	volatile uint64_t *d = self->data.map;
	struct drm_mxa_job_result r;
	struct mxa_bo prog2;
	uint64_t id;
	uint32_t *p;

	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &prog2));
	p = mxa_put_fence(prog2.map, self->data.va, 4242);
	ASSERT_EQ(0, mxa_submit(self->fd, prog2.handle, 0, 0, mxa_bytes(prog2.map, p), &id));
	/* The job holds the program BO; closing the handle does not pull it away. */
	mxa_bo_free(self->fd, &prog2);
	ASSERT_EQ(0, mxa_wait(self->fd, id, 10 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(4242, d[0]);
}

TEST_F(submit, contexts_isolated)
{
	struct drm_mxa_job_result r;
	struct mxa_bo prog2, data2;
	uint32_t *p;
	int fd2 = mxa_open();

	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, mxa_bo_new(fd2, 4096, &prog2));
	ASSERT_EQ(0, mxa_bo_new(fd2, 4096, &data2));
	/*
	 * File 2 has its own VM: a VA of file 1 that file 2 has not mapped faults there
	 * (pick one past file 2's BOs), and file 1 keeps working afterwards.
	 */
	p = mxa_put_fence(prog2.map, data2.va + 64 * 4096, 1);
	ASSERT_EQ(0, run_prog(fd2, &prog2, p, 1 % self->info.num_queues, &r));
	EXPECT_EQ(-EFAULT, r.status);
	p = mxa_put_fence(self->prog.map, self->data.va, 2);
	ASSERT_EQ(0, run_prog(self->fd, &self->prog, p, 1 % self->info.num_queues, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(2, *(volatile uint64_t *)self->data.map);
	mxa_bo_free(fd2, &data2);
	mxa_bo_free(fd2, &prog2);
	close(fd2);
}

TEST(close_with_jobs_in_flight)
{
	int round;

	/* Close (and exit) with many jobs queued and running; then the device still works. */
	for (round = 0; round < 3; round++) {
		pid_t pid = fork();

		ASSERT_GE(pid, 0);
		if (pid == 0) {
			struct drm_mxa_device_info info;
			struct mxa_bo prog, data;
			uint32_t *p;
			int fd = mxa_open(), i;

			if (fd < 0 || mxa_query_device(fd, &info) ||
			    mxa_bo_new(fd, 1 << 20, &prog) || mxa_bo_new(fd, 4096, &data))
				_exit(1);
			p = prog.map;
			for (i = 0; i < 20000; i++)
				p = mxa_put_nop(p);
			p = mxa_put_fence(p, data.va, 1);
			for (i = 0; i < 300; i++)
				if (mxa_submit(fd, prog.handle, i % info.num_queues, 0,
					       mxa_bytes(prog.map, p), NULL))
					_exit(2);
			if (round == 1)
				close(fd);	/* the mappings keep the BOs alive */
			_exit(0);
		}
		int status;

		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
	}

	/* A fresh file runs jobs normally. */
	{
		struct drm_mxa_job_result r;
		struct mxa_bo prog, data;
		uint32_t *p;
		int fd = mxa_open();

		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, mxa_bo_new(fd, 4096, &prog));
		ASSERT_EQ(0, mxa_bo_new(fd, 4096, &data));
		p = mxa_put_fence(prog.map, data.va, 123);
		ASSERT_EQ(0, run_prog(fd, &prog, p, 0, &r));
		EXPECT_EQ(0, r.status);
		EXPECT_EQ(123, *(volatile uint64_t *)data.map);
		close(fd);
	}
}

TEST_HARNESS_MAIN
