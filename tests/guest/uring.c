// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "uring": jobs through io_uring (IORING_OP_URING_CMD,
 * MXA_URING_CMD_SUBMIT): CQE = job status + job id, the result record, many jobs in
 * flight from one thread, full hardware rings, submission errors, ring/task exit with
 * commands in flight; and libaccel's two submission paths.
 */
#include "mxa_test.h"

#include <liburing.h>
#include <stdio.h>
#include <sys/wait.h>

#include "accel.h"
#include "kselftest_harness.h"
#include "../stress/mxa_counters.h"

#define SEC	NSEC_PER_SEC
#define RING_ENTRIES	256

FIXTURE(uring) {
	int fd;
	struct drm_mxa_device_info info;
	struct mxa_bo prog;
	struct mxa_bo data;
	struct io_uring ring;
	unsigned int cq_entries;
};

static int ring_init(struct io_uring *ring, unsigned int flags, unsigned int *cq_entries)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	ret = io_uring_queue_init_params(RING_ENTRIES, ring, &p);
	if (cq_entries)
		*cq_entries = p.cq_entries;
	return ret;
}

FIXTURE_SETUP(uring)
{
	int ret;

	self->fd = mxa_open();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 1 << 20, &self->prog));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 1 << 20, &self->data));
	ret = ring_init(&self->ring, IORING_SETUP_SQE128 | IORING_SETUP_CQE32,
			&self->cq_entries);
	if (ret == -ENOSYS || ret == -EPERM)
		SKIP(return, "io_uring unavailable (%d)", ret);
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(uring)
{
	io_uring_queue_exit(&self->ring);
	mxa_bo_free(self->fd, &self->data);
	mxa_bo_free(self->fd, &self->prog);
	close(self->fd);
}

/* Queue one MXA_URING_CMD_SUBMIT SQE (the ring must have been made with SQE128). */
static int queue_cmd(struct io_uring *ring, int fd, uint32_t cmd_op,
		     const struct drm_mxa_submit *s, uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		return -EBUSY;
	memset(sqe, 0, (ring->flags & IORING_SETUP_SQE128) ? 2 * sizeof(*sqe) : sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
	sqe->user_data = user_data;
	memcpy(sqe->cmd, s, (ring->flags & IORING_SETUP_SQE128) ? sizeof(*s) : 16);
	return 0;
}

struct cqe_out {
	int res;
	uint64_t user_data;
	uint64_t extra;
};

/* Submit what is queued and reap exactly one CQE. */
static int reap_one(struct io_uring *ring, struct cqe_out *out)
{
	struct __kernel_timespec ts = { .tv_sec = 20 };
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_submit_and_wait_timeout(ring, &cqe, 1, &ts, NULL);
	if (ret < 0)
		return ret;
	out->res = cqe->res;
	out->user_data = cqe->user_data;
	out->extra = (ring->flags & IORING_SETUP_CQE32) ? cqe->big_cqe[0] : 0;
	io_uring_cqe_seen(ring, cqe);
	return 0;
}

static struct drm_mxa_submit submit_args(struct mxa_bo *prog, uint32_t offset,
					 uint32_t size, uint32_t queue)
{
	struct drm_mxa_submit s = {
		.prog_handle = prog->handle, .queue = queue, .prog_offset = offset,
		.prog_size = size,
	};
	return s;
}

TEST_F(uring, fence_write)
{
	volatile uint64_t *d = self->data.map;
	struct drm_mxa_job_result res = { .status = 12345 };
	struct drm_mxa_submit s;
	struct cqe_out c;
	uint32_t *p = self->prog.map;

	p = mxa_put_nop(p);
	p = mxa_put_timestamp(p, self->data.va + 8);
	p = mxa_put_fence(p, self->data.va, 0xc0ffee0000000001ull);
	s = submit_args(&self->prog, 0, mxa_bytes(self->prog.map, p), 0);
	s.result_ptr = (uintptr_t)&res;
	ASSERT_EQ(0, queue_cmd(&self->ring, self->fd, MXA_URING_CMD_SUBMIT, &s, 0x77));
	ASSERT_EQ(0, reap_one(&self->ring, &c));
	EXPECT_EQ(0, c.res);
	EXPECT_EQ(0x77, c.user_data);
	EXPECT_NE(0, c.extra);	/* job id */
	EXPECT_EQ(0xc0ffee0000000001ull, d[0]);
	EXPECT_EQ(0, res.status);
	EXPECT_EQ(0, res.error);
	EXPECT_LE(res.start_ns, d[1]);
	EXPECT_LE(d[1], res.end_ns);

	/* Not waitable through the ioctl: the CQE was its result. */
	EXPECT_EQ(-ENOENT, mxa_wait(self->fd, c.extra, 0, NULL));
}

/* Keep up to the CQ size in flight; every job writes its own slot. */
static void run_many(struct __test_metadata *_metadata, FIXTURE_DATA(uring) *self,
		     unsigned int n, int one_queue)
{
	volatile uint64_t *d = self->data.map;
	uint64_t *seen_ids = calloc(n, sizeof(*seen_ids));
	unsigned int submitted = 0, done = 0, i, in_flight = 0;
	const unsigned int stride = 32;	/* bytes per program */
	int64_t t0 = mxa_now_ns();

	ASSERT_NE(NULL, seen_ids);
	ASSERT_LE(n * stride, self->prog.size);
	ASSERT_LE(n * 8, self->data.size);
	for (i = 0; i < n; i++) {
		uint32_t *start = (uint32_t *)((char *)self->prog.map + i * stride);

		d[i] = 0;
		mxa_put_fence(start, self->data.va + 8 * i, 0x5eed000000000000ull | i);
	}
	while (done < n) {
		struct io_uring_cqe *cqe;
		unsigned int head, got = 0;

		while (submitted < n && in_flight < self->cq_entries) {
			struct drm_mxa_submit s = submit_args(
				&self->prog, submitted * stride, 20,
				one_queue ? 0 : submitted % self->info.num_queues);

			if (queue_cmd(&self->ring, self->fd, MXA_URING_CMD_SUBMIT, &s, submitted))
				break;
			submitted++;
			in_flight++;
		}
		ASSERT_LE(0, io_uring_submit_and_wait(&self->ring, 1));
		io_uring_for_each_cqe(&self->ring, head, cqe) {
			ASSERT_EQ(0, cqe->res) TH_LOG("job %llu", (unsigned long long)cqe->user_data);
			ASSERT_LT(cqe->user_data, n);
			ASSERT_EQ(0, seen_ids[cqe->user_data]);
			seen_ids[cqe->user_data] = cqe->big_cqe[0];
			got++;
		}
		io_uring_cq_advance(&self->ring, got);
		done += got;
		in_flight -= got;
	}
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0x5eed000000000000ull | i, d[i]) TH_LOG("slot %u", i);
		ASSERT_NE(0, seen_ids[i]);
	}
	TH_LOG("%u jobs on %s: %.0f jobs/s", n, one_queue ? "queue 0" : "all queues",
	       n / ((mxa_now_ns() - t0) / 1e9));
	free(seen_ids);
}

TEST_F_TIMEOUT(uring, many_in_flight_all_queues, 120)
{
	run_many(_metadata, self, 8000, 0);
}

TEST_F_TIMEOUT(uring, full_hw_ring_one_queue, 120)
{
	/* More jobs in flight than one hardware ring holds: issue waits in io-wq. */
	run_many(_metadata, self, 4000, 1);
}

TEST_F(uring, job_error_result)
{
	struct drm_mxa_job_result res;
	struct drm_mxa_submit s;
	struct cqe_out c;
	uint32_t *p = self->prog.map;

	p = mxa_put_nop(p);
	*p++ = MXA_CMD_HEADER(0x3d, 1, 0);
	s = submit_args(&self->prog, 0, mxa_bytes(self->prog.map, p), 0);
	s.result_ptr = (uintptr_t)&res;
	ASSERT_EQ(0, queue_cmd(&self->ring, self->fd, MXA_URING_CMD_SUBMIT, &s, 1));
	ASSERT_EQ(0, reap_one(&self->ring, &c));
	EXPECT_EQ(-EIO, c.res);
	EXPECT_NE(0, c.extra);
	EXPECT_EQ(-EIO, res.status);
	EXPECT_EQ(MXA_ERR_UNKNOWN_OPCODE, res.error);
	EXPECT_EQ(4, res.err_offset);
	EXPECT_EQ(MXA_CMD_HEADER(0x3d, 1, 0), res.err_opcode);

	/* An MMU fault reads -EFAULT. */
	p = mxa_put_fence(self->prog.map, 0x2000, 1);
	s = submit_args(&self->prog, 0, mxa_bytes(self->prog.map, p), 1 % self->info.num_queues);
	s.result_ptr = (uintptr_t)&res;
	ASSERT_EQ(0, queue_cmd(&self->ring, self->fd, MXA_URING_CMD_SUBMIT, &s, 2));
	ASSERT_EQ(0, reap_one(&self->ring, &c));
	EXPECT_EQ(-EFAULT, c.res);
	EXPECT_EQ(MXA_ERR_MMU_FAULT, res.error);
	EXPECT_EQ(0x2000, res.err_addr);
}

TEST_F(uring, bad_result_ptr)
{
	struct drm_mxa_submit s;
	struct cqe_out c;
	uint32_t *p = mxa_put_nop(self->prog.map);

	s = submit_args(&self->prog, 0, mxa_bytes(self->prog.map, p), 0);
	s.result_ptr = 0x10;
	ASSERT_EQ(0, queue_cmd(&self->ring, self->fd, MXA_URING_CMD_SUBMIT, &s, 1));
	ASSERT_EQ(0, reap_one(&self->ring, &c));
	EXPECT_EQ(-EFAULT, c.res);
	EXPECT_NE(0, c.extra);
}

TEST_F(uring, submission_errors)
{
	uint32_t *p = mxa_put_nop(self->prog.map);
	uint32_t size = mxa_bytes(self->prog.map, p);
	struct {
		const char *what;
		struct drm_mxa_submit s;
		int res;
	} cases[] = {
		{ "bad handle", submit_args(&self->prog, 0, size, 0), -ENOENT },
		{ "bad queue", submit_args(&self->prog, 0, size, self->info.num_queues), -EINVAL },
		{ "result_size", submit_args(&self->prog, 0, size, 0), -EINVAL },
		{ "flags", submit_args(&self->prog, 0, size, 0), -EINVAL },
		{ "size 0", submit_args(&self->prog, 0, 0, 0), -EINVAL },
		{ "size 6", submit_args(&self->prog, 0, 6, 0), -EINVAL },
		{ "offset 2", submit_args(&self->prog, 2, size, 0), -EINVAL },
		{ "past BO", submit_args(&self->prog, self->prog.size - 4, 8, 0), -EINVAL },
	};
	struct cqe_out c;
	size_t i;

	cases[0].s.prog_handle = 0xbad;
	cases[2].s.result_size = 1;	/* < 48 bytes */
	cases[3].s.flags = 1;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(0, queue_cmd(&self->ring, self->fd, MXA_URING_CMD_SUBMIT,
				       &cases[i].s, i));
		ASSERT_EQ(0, reap_one(&self->ring, &c));
		EXPECT_EQ(cases[i].res, c.res) TH_LOG("%s", cases[i].what);
		EXPECT_EQ(0, c.extra) TH_LOG("%s: job id of a refused submission", cases[i].what);
	}
}

TEST_F(uring, unknown_cmd_op)
{
	struct drm_mxa_submit s = submit_args(&self->prog, 0, 4, 0);
	struct cqe_out c;

	mxa_put_nop(self->prog.map);
	ASSERT_EQ(0, queue_cmd(&self->ring, self->fd, 0x7777, &s, 1));
	ASSERT_EQ(0, reap_one(&self->ring, &c));
	EXPECT_EQ(-EOPNOTSUPP, c.res);
}

TEST_F(uring, ring_without_big_entries)
{
	static const unsigned int flags[] = { 0, IORING_SETUP_SQE128, IORING_SETUP_CQE32 };
	struct drm_mxa_submit s = submit_args(&self->prog, 0, 4, 0);
	size_t i;

	mxa_put_nop(self->prog.map);
	for (i = 0; i < 3; i++) {
		struct io_uring ring;
		struct cqe_out c;

		ASSERT_EQ(0, ring_init(&ring, flags[i], NULL));
		ASSERT_EQ(0, queue_cmd(&ring, self->fd, MXA_URING_CMD_SUBMIT, &s, 1));
		ASSERT_EQ(0, reap_one(&ring, &c));
		EXPECT_EQ(-EINVAL, c.res) TH_LOG("ring flags 0x%x", flags[i]);
		io_uring_queue_exit(&ring);
	}
}

/* Queue @n jobs of many NOPs on @ring and submit them without reaping anything. */
static int flood(struct io_uring *ring, int fd, struct mxa_bo *prog, uint32_t size,
		 unsigned int queues, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		struct drm_mxa_submit s = submit_args(prog, 0, size, i % queues);

		ret = queue_cmd(ring, fd, MXA_URING_CMD_SUBMIT, &s, i);
		if (ret) {
			ret = io_uring_submit(ring);
			if (ret < 0)
				return ret;
			ret = queue_cmd(ring, fd, MXA_URING_CMD_SUBMIT, &s, i);
			if (ret)
				return ret;
		}
	}
	ret = io_uring_submit(ring);
	return ret < 0 ? ret : 0;
}

static uint32_t nop_program(struct mxa_bo *prog, uint32_t nops)
{
	uint32_t *p = prog->map;
	uint32_t i;

	for (i = 0; i < nops; i++)
		p = mxa_put_nop(p);
	return mxa_bytes(prog->map, p);
}

/*
 * The jobs of one io_uring_enter() that go straight to the ring share doorbells: the
 * first rings it when the ring is empty (the device starts while the rest are issued),
 * then at most 8 jobs wait for one, and the last ones ring when the call ends, so all
 * 20 end. Until 2026-12-03 the whole batch rang once, at its end.
 */
TEST_F(uring, a_batch_rings_the_doorbell_early_and_every_8_jobs)
{
	uint32_t size = nop_program(&self->prog, 1);
	long before = mxa_counter("doorbells"), rung;
	struct cqe_out c;
	int i;

	ASSERT_LE(0, before);
	ASSERT_EQ(0, flood(&self->ring, self->fd, &self->prog, size, 1, 20));
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, reap_one(&self->ring, &c));
		EXPECT_EQ(0, c.res);
	}
	rung = mxa_counter("doorbells") - before;
	EXPECT_LE(3, rung) TH_LOG("%ld doorbells for 20 jobs", rung);	/* 8 + 8 + 4 at most */
	EXPECT_GE(20, rung);
}

/*
 * A lone job of a few control commands runs at its doorbell and is completed by its
 * submitter (submit.c has the ioctl's twin): its CQE is posted when io_uring_submit()
 * returns, with nothing waited for.
 */
TEST_F(uring, a_lone_control_job_has_ended_when_its_submission_returns)
{
	volatile uint64_t *d = self->data.map;
	struct io_uring_cqe *cqe;
	struct drm_mxa_submit s;
	uint32_t *p;
	int i;

	for (i = 0; i < 20; i++) {
		d[0] = 0;
		p = mxa_put_fence(self->prog.map, self->data.va, 200 + i);
		s = submit_args(&self->prog, 0, mxa_bytes(self->prog.map, p), 0);
		ASSERT_EQ(0, queue_cmd(&self->ring, self->fd, MXA_URING_CMD_SUBMIT, &s, i));
		ASSERT_EQ(1, io_uring_submit(&self->ring));
		EXPECT_EQ(200 + i, d[0]) TH_LOG("job %d", i);
		ASSERT_EQ(0, io_uring_peek_cqe(&self->ring, &cqe)) TH_LOG("job %d", i);
		EXPECT_EQ(0, cqe->res);
		EXPECT_EQ(i, cqe->user_data);
		io_uring_cqe_seen(&self->ring, cqe);
	}
}

/*
 * A batch of control jobs: the first rings the doorbell early and runs at it, the
 * other seven ring once when the call ends, run at that doorbell (the ring is empty
 * again) and are completed by the submitting call: all eight CQEs are posted when
 * io_uring_submit() returns.
 */
TEST_F(uring, a_batch_of_control_jobs_has_ended_when_its_submission_returns)
{
	volatile uint64_t *d = self->data.map;
	struct io_uring_cqe *cqe;
	struct drm_mxa_submit s;
	uint32_t *p, *start;
	int i, seen = 0;

	p = self->prog.map;
	for (i = 0; i < 8; i++) {
		d[i] = 0;
		start = p;
		p = mxa_put_fence(p, self->data.va + 8 * i, 300 + i);
		s = submit_args(&self->prog, 4 * (start - (uint32_t *)self->prog.map),
				mxa_bytes(start, p), 0);
		ASSERT_EQ(0, queue_cmd(&self->ring, self->fd, MXA_URING_CMD_SUBMIT, &s, i));
	}
	ASSERT_EQ(8, io_uring_submit(&self->ring));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(300 + i, d[i]) TH_LOG("job %d", i);
	while (io_uring_peek_cqe(&self->ring, &cqe) == 0) {
		EXPECT_EQ(0, cqe->res);
		EXPECT_EQ(seen, cqe->user_data);
		io_uring_cqe_seen(&self->ring, cqe);
		seen++;
	}
	EXPECT_EQ(8, seen);
}

TEST_F_TIMEOUT(uring, ring_closed_with_commands_in_flight, 120)
{
	uint32_t size = nop_program(&self->prog, 100000);
	struct drm_mxa_submit s;
	struct io_uring ring2;
	struct cqe_out c;
	uint32_t *p;

	ASSERT_EQ(0, ring_init(&ring2, IORING_SETUP_SQE128 | IORING_SETUP_CQE32, NULL));
	ASSERT_EQ(0, flood(&ring2, self->fd, &self->prog, size, self->info.num_queues, 200));
	/* Tear the ring down: its commands are cancelled, their jobs run on. */
	io_uring_queue_exit(&ring2);

	/* The fd and the device carry on. */
	p = mxa_put_fence((uint32_t *)((char *)self->prog.map + 512 * 1024), self->data.va, 9);
	s = submit_args(&self->prog, 512 * 1024,
			mxa_bytes((uint32_t *)((char *)self->prog.map + 512 * 1024), p), 0);
	ASSERT_EQ(0, queue_cmd(&self->ring, self->fd, MXA_URING_CMD_SUBMIT, &s, 1));
	ASSERT_EQ(0, reap_one(&self->ring, &c));
	EXPECT_EQ(0, c.res);
	EXPECT_EQ(9, *(volatile uint64_t *)self->data.map);
}

TEST_F_TIMEOUT(uring, task_exits_with_commands_in_flight, 120)
{
	int round;

	for (round = 0; round < 3; round++) {
		pid_t pid = fork();
		int status;

		ASSERT_GE(pid, 0);
		if (pid == 0) {
			struct io_uring ring;
			struct mxa_bo prog;
			uint32_t size;
			int fd = mxa_open();

			if (fd < 0 || mxa_bo_new(fd, 1 << 20, &prog) ||
			    ring_init(&ring, IORING_SETUP_SQE128 | IORING_SETUP_CQE32, NULL))
				_exit(1);
			size = nop_program(&prog, 50000);
			if (flood(&ring, fd, &prog, size, self->info.num_queues, 300))
				_exit(2);
			if (round == 1)
				close(fd);	/* the ring's requests keep the file open */
			_exit(0);	/* no reaping, no teardown */
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
	}
}

static void libaccel_mode(struct __test_metadata *_metadata, enum accel_submit_mode mode)
{
	const unsigned int n = 500;
	struct accel_device *dev;
	struct accel_bo *prog_bo, *data_bo;
	struct accel_prog *prog;
	struct accel_job **jobs = calloc(n + 1, sizeof(*jobs));
	const struct accel_job_result *r;
	volatile uint64_t *d;
	char why[256];
	unsigned int i;
	uint32_t bad = MXA_CMD_HEADER(0x3c, 1, 0);

	ASSERT_NE(NULL, jobs);
	ASSERT_EQ(0, accel_open(NULL, mode, &dev));
	ASSERT_EQ(mode, accel_submit_mode(dev));
	ASSERT_EQ(0, accel_bo_alloc(dev, n * 64 + 4096, &prog_bo));
	ASSERT_EQ(0, accel_bo_alloc(dev, n * 8, &data_bo));
	ASSERT_EQ(0, accel_prog_new(&prog));
	d = accel_bo_map(data_bo);
	for (i = 0; i < n; i++) {
		accel_prog_reset(prog);
		ASSERT_EQ(0, accel_prog_nop(prog));
		ASSERT_EQ(0, accel_prog_fence_write(prog, accel_bo_va(data_bo) + 8 * i, i + 1));
		ASSERT_EQ(0, accel_prog_upload(prog, prog_bo, i * 64));
		ASSERT_EQ(0, accel_submit(dev, i % accel_device_info(dev)->num_queues, prog_bo,
					  i * 64, accel_prog_size(prog), &jobs[i]));
	}
	/* One failing job, explained. */
	accel_prog_reset(prog);
	ASSERT_EQ(0, accel_prog_nop(prog));
	ASSERT_EQ(0, accel_prog_raw(prog, &bad, 1));
	ASSERT_EQ(0, accel_prog_upload(prog, prog_bo, n * 64));
	ASSERT_EQ(0, accel_submit(dev, 0, prog_bo, n * 64, accel_prog_size(prog), &jobs[n]));

	ASSERT_EQ(0, accel_wait(jobs[n], 20 * SEC));
	r = accel_job_result(jobs[n]);
	EXPECT_EQ(-EIO, r->status);
	EXPECT_EQ(1, r->has_detail);
	EXPECT_EQ(MXA_ERR_UNKNOWN_OPCODE, r->error);
	EXPECT_EQ(4, r->err_offset);
	accel_job_explain(r, why, sizeof(why));
	EXPECT_NE(NULL, strstr(why, "unknown opcode")) TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(why, "offset 0x4")) TH_LOG("%s", why);

	ASSERT_EQ(0, accel_wait_all(dev, 60 * SEC));
	for (i = 0; i < n; i++) {
		ASSERT_TRUE(accel_job_done(jobs[i]));
		ASSERT_EQ(0, accel_job_result(jobs[i])->status);
		ASSERT_EQ(i + 1, d[i]);
	}
	for (i = 0; i <= n; i++)
		accel_job_free(jobs[i]);
	free(jobs);
	accel_prog_free(prog);
	accel_bo_free(data_bo);
	accel_bo_free(prog_bo);
	accel_close(dev);
}

TEST(libaccel_uring)
{
	libaccel_mode(_metadata, ACCEL_SUBMIT_URING);
}

TEST(libaccel_ioctl)
{
	libaccel_mode(_metadata, ACCEL_SUBMIT_IOCTL);
}

static int write_sysctl(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

TEST(libaccel_auto_falls_back_to_ioctl)
{
	const char *knob = "/proc/sys/kernel/io_uring_disabled";
	struct accel_device *dev;
	int ret;

	if (access(knob, W_OK))
		SKIP(return, "no %s", knob);
	ASSERT_EQ(0, write_sysctl(knob, "2"));
	ret = accel_open(NULL, ACCEL_SUBMIT_AUTO, &dev);
	write_sysctl(knob, "0");
	ASSERT_EQ(0, ret);
	EXPECT_EQ(ACCEL_SUBMIT_IOCTL, accel_submit_mode(dev));
	accel_close(dev);

	/* Forced io_uring fails instead. */
	ASSERT_EQ(0, write_sysctl(knob, "2"));
	ret = accel_open(NULL, ACCEL_SUBMIT_URING, &dev);
	write_sysctl(knob, "0");
	EXPECT_NE(0, ret);
	if (!ret)
		accel_close(dev);
}

TEST(libaccel_free_jobs_in_flight)
{
	struct accel_device *dev;
	struct accel_bo *bo;
	struct accel_prog *prog;
	struct accel_job *job;
	int i;

	/* Jobs freed while in flight, then close: nothing is left behind. */
	ASSERT_EQ(0, accel_open(NULL, ACCEL_SUBMIT_AUTO, &dev));
	ASSERT_EQ(0, accel_bo_alloc(dev, 1 << 20, &bo));
	ASSERT_EQ(0, accel_prog_new(&prog));
	for (i = 0; i < 20000; i++)
		ASSERT_EQ(0, accel_prog_nop(prog));
	ASSERT_EQ(0, accel_prog_upload(prog, bo, 0));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, accel_submit(dev, i % accel_device_info(dev)->num_queues, bo, 0,
					  accel_prog_size(prog), &job));
		accel_job_free(job);
	}
	ASSERT_EQ(0, accel_flush(dev));
	accel_prog_free(prog);
	accel_bo_free(bo);
	accel_close(dev);
}

TEST_HARNESS_MAIN
