// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "groups": commit and wait groups of jobs (DRM_IOCTL_MXA_COMMIT_GROUP,
 * DRM_IOCTL_MXA_WAIT_GROUP and the same through io_uring): ids as timeline points,
 * "at most n pending" semantics, uncommitted jobs, per-queue independence, timeouts,
 * cancellation, argument checks; and the job result's cycles/commands.
 *
 * A job that blocks on a semaphore in a BO (SEM_WAIT) keeps its group pending until
 * the test writes the semaphore through the CPU mapping. libaccel's
 * accel_commit_group()/accel_wait_group() (and accel_poll()) on both submission paths.
 */
#include "mxa_test.h"

#include <liburing.h>
#include <stdio.h>

#include "accel.h"
#include "kselftest_harness.h"
#include "../stress/mxa_counters.h"

#define SEC	NSEC_PER_SEC
#define MS	1000000ll

FIXTURE(groups) {
	int fd;
	struct drm_mxa_device_info info;
	struct mxa_bo prog;
	struct mxa_bo data;
	uint32_t block_off, block_size;	/* program: wait for sem >= 1 */
	uint32_t fence_off, fence_size;	/* program: data[1] = 7 */
};

FIXTURE_SETUP(groups)
{
	uint32_t *start, *p;

	self->fd = mxa_open();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
	if (!(self->info.driver_caps & DRM_MXA_DRIVER_CAP_GROUPS))
		SKIP(return, "driver without groups");
	ASSERT_EQ(0, mxa_bo_new(self->fd, 64 << 10, &self->prog));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &self->data));
	memset(self->data.map, 0, 4096);

	start = p = self->prog.map;
	p = mxa_put_sem_wait(p, self->data.va, 1, MXA_SEM_MAX_TIMEOUT_US);
	self->block_off = 0;
	self->block_size = mxa_bytes(start, p);
	start = p = (uint32_t *)((char *)self->prog.map + 1024);
	p = mxa_put_fence(p, self->data.va + 8, 7);
	self->fence_off = 1024;
	self->fence_size = mxa_bytes(start, p);
}

FIXTURE_TEARDOWN(groups)
{
	/* Release any blocked job before closing. */
	if (self->data.map)
		((volatile uint64_t *)self->data.map)[0] = 1;
	mxa_bo_free(self->fd, &self->data);
	mxa_bo_free(self->fd, &self->prog);
	close(self->fd);
}

static int commit(int fd, uint32_t queue, uint64_t *id)
{
	struct drm_mxa_commit_group c = { .queue = queue };
	int ret = mxa_ioctl(fd, DRM_IOCTL_MXA_COMMIT_GROUP, &c);

	if (!ret && id)
		*id = c.group_id;
	return ret;
}

static int wait_group(int fd, uint32_t queue, uint32_t n, int64_t timeout_ns, uint64_t *id)
{
	struct drm_mxa_wait_group w = { .queue = queue, .n = n, .timeout_ns = timeout_ns };
	int ret = mxa_ioctl(fd, DRM_IOCTL_MXA_WAIT_GROUP, &w);

	if (id)
		*id = w.group_id;
	return ret;
}

static void release(FIXTURE_DATA(groups) *self)
{
	__atomic_store_n((uint64_t *)self->data.map, 1, __ATOMIC_SEQ_CST);
}

TEST_F(groups, empty_groups_are_timeline_points)
{
	uint64_t id, done;

	ASSERT_EQ(0, commit(self->fd, 0, &id));
	EXPECT_EQ(1, id);
	ASSERT_EQ(0, commit(self->fd, 0, &id));
	EXPECT_EQ(2, id);
	ASSERT_EQ(0, wait_group(self->fd, 0, 0, 0, &done));
	EXPECT_EQ(2, done);
	ASSERT_EQ(0, wait_group(self->fd, 0, 5, 0, &done));
	EXPECT_EQ(0, done);
	/* Another queue has its own timeline. */
	ASSERT_EQ(0, commit(self->fd, self->info.num_queues - 1, &id));
	EXPECT_EQ(self->info.num_queues > 1 ? 1 : 3, id);
}

TEST_F_TIMEOUT(groups, wait_at_most_n_pending, 60)
{
	volatile uint64_t *d = self->data.map;
	uint64_t job_block, job_fence, g1, g2, done;
	struct drm_mxa_job_result r;

	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, self->block_off,
				self->block_size, &job_block));
	ASSERT_EQ(0, commit(self->fd, 0, &g1));
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, self->fence_off,
				self->fence_size, &job_fence));
	ASSERT_EQ(0, commit(self->fd, 0, &g2));
	EXPECT_EQ(g1 + 1, g2);

	/* Two groups pending. */
	EXPECT_EQ(0, wait_group(self->fd, 0, 2, 0, &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(-ETIME, wait_group(self->fd, 0, 1, 50 * MS, &done));
	EXPECT_EQ(g1, done);
	EXPECT_EQ(-ETIME, wait_group(self->fd, 0, 0, 0, NULL));
	EXPECT_EQ(0, d[1]);

	release(self);
	ASSERT_EQ(0, wait_group(self->fd, 0, 0, 20 * SEC, &done));
	EXPECT_EQ(g2, done);
	EXPECT_EQ(7, d[1]);
	/* The jobs are still waitable one by one. */
	ASSERT_EQ(0, mxa_wait(self->fd, job_block, 0, &r));
	EXPECT_EQ(0, r.status);
	ASSERT_EQ(0, mxa_wait(self->fd, job_fence, 0, &r));
	EXPECT_EQ(0, r.status);
}

/*
 * Committing again and again while the last job is pending must not grow the kernel's
 * group list (found in review: an entry per commit, walked with IRQs off): groups that
 * would complete with the newest listed one share its entry. Their semantics stay.
 */
TEST_F_TIMEOUT(groups, commits_while_pending_take_no_memory, 60)
{
	uint64_t job, id = 0, first, done;
	long base = mxa_counter("groups");
	struct drm_mxa_job_result r;
	int64_t t0;
	uint32_t n;

	ASSERT_LE(0, base) TH_LOG("no debugfs counter groups");
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, self->block_off,
				self->block_size, &job));
	ASSERT_EQ(0, commit(self->fd, 0, &first));
	/*
	 * 100,000 commits, or as many as 4 s allow (a debug kernel is slower): the blocking
	 * job's SEM_WAIT gives up after MXA_SEM_MAX_TIMEOUT_US (10 s), and every commit
	 * must be made while it is pending.
	 */
	t0 = mxa_now_ns();
	for (n = 0; n < 100000 && (n % 1000 || mxa_now_ns() - t0 < 4 * SEC); n++)
		ASSERT_EQ(0, commit(self->fd, 0, &id));
	ASSERT_LE(1000, n);
	EXPECT_EQ(first + n, id);
	EXPECT_EQ(base + 1, mxa_counter("groups"));
	/* every one of them is pending, none of them is done */
	EXPECT_EQ(-ETIME, wait_group(self->fd, 0, n, 0, &done));
	EXPECT_EQ(first, done);
	EXPECT_EQ(0, wait_group(self->fd, 0, n + 1, 0, &done));
	release(self);
	ASSERT_EQ(0, wait_group(self->fd, 0, 0, 20 * SEC, &done));
	EXPECT_EQ(id, done);
	ASSERT_EQ(0, mxa_wait(self->fd, job, 10 * SEC, &r));
	/* the entry goes with its group: at the next commit, or when the queue goes */
	ASSERT_EQ(0, commit(self->fd, 0, &id));
	EXPECT_EQ(base, mxa_counter("groups"));
}

TEST_F_TIMEOUT(groups, uncommitted_jobs_not_waited, 60)
{
	uint64_t job, g;

	ASSERT_EQ(0, commit(self->fd, 0, &g));
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, self->block_off,
				self->block_size, &job));
	EXPECT_EQ(0, wait_group(self->fd, 0, 0, 0, NULL));
	/* Committing it makes it count. */
	ASSERT_EQ(0, commit(self->fd, 0, &g));
	EXPECT_EQ(2, g);
	EXPECT_EQ(-ETIME, wait_group(self->fd, 0, 0, 10 * MS, NULL));
	release(self);
	EXPECT_EQ(0, wait_group(self->fd, 0, 0, 20 * SEC, NULL));
}

TEST_F_TIMEOUT(groups, queues_independent, 60)
{
	uint64_t g;

	if (self->info.num_queues < 2)
		SKIP(return, "one queue");
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, self->block_off,
				self->block_size, NULL));
	ASSERT_EQ(0, commit(self->fd, 0, NULL));
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 1, self->fence_off,
				self->fence_size, NULL));
	ASSERT_EQ(0, commit(self->fd, 1, &g));
	EXPECT_EQ(1, g);
	EXPECT_EQ(0, wait_group(self->fd, 1, 0, 20 * SEC, NULL));
	EXPECT_EQ(-ETIME, wait_group(self->fd, 0, 0, 0, NULL));
	release(self);
	EXPECT_EQ(0, wait_group(self->fd, 0, 0, 20 * SEC, NULL));
}

TEST_F(groups, files_independent)
{
	uint64_t g;
	int fd2 = mxa_open();

	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, self->block_off,
				self->block_size, NULL));
	ASSERT_EQ(0, commit(self->fd, 0, NULL));
	ASSERT_EQ(0, commit(fd2, 0, &g));
	EXPECT_EQ(1, g);
	EXPECT_EQ(0, wait_group(fd2, 0, 0, 0, NULL));
	close(fd2);
	release(self);
}

TEST_F(groups, bad_args)
{
	struct drm_mxa_commit_group c = { .queue = self->info.num_queues };
	struct drm_mxa_wait_group w = { .queue = self->info.num_queues };

	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_COMMIT_GROUP, &c));
	c.queue = 0;
	c.flags = 1;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_COMMIT_GROUP, &c));
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT_GROUP, &w));
	w.queue = 0;
	w.flags = 1;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT_GROUP, &w));
	w.flags = 0;
	w.pad = 1;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT_GROUP, &w));
	w.pad = 0;
	w.timeout_ns = -1;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT_GROUP, &w));
	w.timeout_ns = 0;
	EXPECT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT_GROUP, &w));
}

TEST_F(groups, result_cycles_and_commands)
{
	struct drm_mxa_job_result r;
	uint32_t *p = self->prog.map;
	uint64_t id;
	int i;

	if (!(self->info.driver_caps & DRM_MXA_DRIVER_CAP_RESULT_SIZE))
		SKIP(return, "no cycles in results");
	for (i = 0; i < 10; i++)
		p = mxa_put_nop(p);
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, 0,
				mxa_bytes(self->prog.map, p), &id));
	ASSERT_EQ(0, mxa_wait(self->fd, id, 20 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(10, r.commands);
	EXPECT_LE(10, r.cycles);
	EXPECT_EQ(1, r.instances);
}

/* The value of fdinfo key @key ("drm-engine-q0:") of @fd; -1 if missing. */
static long long fdinfo_value(int fd, const char *key, char *buf, size_t len)
{
	char path[64], *s;
	long long v = -1;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (mxa_read_text(path, buf, len) <= 0)
		return -1;
	s = strstr(buf, key);
	if (s)
		sscanf(s + strlen(key), "%lld", &v);
	return v;
}

TEST_F(groups, fdinfo_engine_time)
{
	long long ns0, cyc0, ns1, cyc1;
	char buf[4096];
	uint64_t id;

	ns0 = fdinfo_value(self->fd, "drm-engine-q0:", buf, sizeof(buf));
	cyc0 = fdinfo_value(self->fd, "drm-cycles-q0:", buf, sizeof(buf));
	ASSERT_LE(0, ns0) TH_LOG("%s", buf);
	ASSERT_LE(0, cyc0) TH_LOG("%s", buf);
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 0, self->fence_off,
				self->fence_size, &id));
	ASSERT_EQ(0, mxa_wait(self->fd, id, 20 * SEC, NULL));
	ns1 = fdinfo_value(self->fd, "drm-engine-q0:", buf, sizeof(buf));
	cyc1 = fdinfo_value(self->fd, "drm-cycles-q0:", buf, sizeof(buf));
	/* the job's device time and modelled cycles are the file's */
	EXPECT_LT(ns0, ns1) TH_LOG("%s", buf);
	EXPECT_LT(cyc0, cyc1) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "drm-driver:\tmxa")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "drm-engine-capacity-q0:\t1")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "drm-total-memory:")) TH_LOG("%s", buf);
	/* another file's fdinfo does not count this file's jobs */
	{
		int other = mxa_open();

		ASSERT_GE(other, 0);
		EXPECT_EQ(0, fdinfo_value(other, "drm-cycles-q0:", buf, sizeof(buf)));
		close(other);
	}
}

/* ---- io_uring ---- */

static int ring_setup(struct io_uring *ring)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	return io_uring_queue_init_params(64, ring, &p);
}

static struct io_uring_sqe *queue_cmd(struct io_uring *ring, int fd, uint32_t op,
				      const void *payload, size_t size, uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		abort();	/* the tests queue far fewer than the ring holds */
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = op;
	sqe->user_data = user_data;
	memcpy(sqe->cmd, payload, size);
	return sqe;
}

/* In a TEST_F: set up @ring, or skip the test where io_uring is unavailable. */
#define RING_SETUP_OR_SKIP(ring)						\
	do {									\
		int ret_ = ring_setup(ring);					\
		if (ret_ == -ENOSYS || ret_ == -EPERM)				\
			SKIP(return, "io_uring unavailable");			\
		ASSERT_EQ(0, ret_);						\
	} while (0)

/* Queue the gate job (user_data 1) and a commit that closes it into a group (2). */
static void queue_gate_group(struct io_uring *ring, FIXTURE_DATA(groups) *self)
{
	struct drm_mxa_submit gate = { .prog_handle = self->prog.handle,
		.prog_offset = self->block_off, .prog_size = self->block_size };
	struct drm_mxa_commit_group c = { 0 };

	queue_cmd(ring, self->fd, MXA_URING_CMD_SUBMIT, &gate, sizeof(gate), 1);
	queue_cmd(ring, self->fd, MXA_URING_CMD_COMMIT_GROUP, &c, sizeof(c), 2);
}

struct cqe_out {
	int res;
	uint64_t user_data;
	uint64_t extra;
};

static int reap(struct io_uring *ring, struct cqe_out *out, int64_t timeout_ns)
{
	struct __kernel_timespec ts = { .tv_sec = timeout_ns / SEC, .tv_nsec = timeout_ns % SEC };
	struct io_uring_cqe *cqe;
	int ret = io_uring_submit_and_wait_timeout(ring, &cqe, 1, &ts, NULL);

	if (ret < 0)
		return ret;
	out->res = cqe->res;
	out->user_data = cqe->user_data;
	out->extra = cqe->big_cqe[0];
	io_uring_cqe_seen(ring, cqe);
	return 0;
}

TEST_F_TIMEOUT(groups, uring_commit_and_wait, 60)
{
	struct drm_mxa_submit sf = { .prog_handle = self->prog.handle,
		.prog_offset = self->fence_off, .prog_size = self->fence_size };
	struct drm_mxa_commit_group c = { 0 };
	struct drm_mxa_wait_group w1 = { .n = 1, .timeout_ns = 30 * SEC };
	struct drm_mxa_wait_group w0 = { .n = 0, .timeout_ns = 50 * MS };
	volatile uint64_t *d = self->data.map;
	struct io_uring ring;
	struct cqe_out o;
	int i, seen_w1 = 0, seen_jobs = 0;

	RING_SETUP_OR_SKIP(&ring);

	queue_gate_group(&ring, self);
	queue_cmd(&ring, self->fd, MXA_URING_CMD_SUBMIT, &sf, sizeof(sf), 3);
	queue_cmd(&ring, self->fd, MXA_URING_CMD_COMMIT_GROUP, &c, sizeof(c), 4);
	queue_cmd(&ring, self->fd, MXA_URING_CMD_WAIT_GROUP, &w1, sizeof(w1), 5);
	queue_cmd(&ring, self->fd, MXA_URING_CMD_WAIT_GROUP, &w0, sizeof(w0), 6);

	/* The commits complete at once; the 50 ms wait times out; nothing else yet. */
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, reap(&ring, &o, 10 * SEC));
		if (o.user_data == 2) {
			EXPECT_EQ(0, o.res);
			EXPECT_EQ(1, o.extra);
		} else if (o.user_data == 4) {
			EXPECT_EQ(0, o.res);
			EXPECT_EQ(2, o.extra);
		} else {
			EXPECT_EQ(6, o.user_data);
			EXPECT_EQ(-ETIME, o.res);
			EXPECT_EQ(2, o.extra);
		}
	}
	EXPECT_EQ(-ETIME, reap(&ring, &o, 100 * MS));
	EXPECT_EQ(0, d[1]);

	release(self);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, reap(&ring, &o, 20 * SEC));
		EXPECT_EQ(0, o.res) TH_LOG("user_data %llu", (unsigned long long)o.user_data);
		if (o.user_data == 5) {
			EXPECT_EQ(1, o.extra);
			seen_w1++;
		} else {
			EXPECT_NE(0, o.extra);
			seen_jobs++;
		}
	}
	EXPECT_EQ(1, seen_w1);
	EXPECT_EQ(2, seen_jobs);
	EXPECT_EQ(7, d[1]);

	/* Same answers as the ioctl. */
	ASSERT_EQ(0, wait_group(self->fd, 0, 0, 0, NULL));
	io_uring_queue_exit(&ring);
}

TEST_F_TIMEOUT(groups, uring_wait_cancelled_on_ring_exit, 60)
{
	struct drm_mxa_wait_group w = { .n = 0, .timeout_ns = 60 * SEC };
	struct io_uring ring;
	struct cqe_out o;
	int i;

	RING_SETUP_OR_SKIP(&ring);
	queue_gate_group(&ring, self);
	for (i = 0; i < 8; i++)
		queue_cmd(&ring, self->fd, MXA_URING_CMD_WAIT_GROUP, &w, sizeof(w), 10 + i);
	ASSERT_EQ(0, reap(&ring, &o, 10 * SEC));
	EXPECT_EQ(2, o.user_data);
	/* Ring exit with the job and eight waits pending: cancelled, not leaked or hung. */
	io_uring_queue_exit(&ring);
	release(self);
	EXPECT_EQ(0, wait_group(self->fd, 0, 0, 20 * SEC, NULL));

	/* A short own timeout fires while the group is pending. */
	ASSERT_EQ(0, ring_setup(&ring));
	((volatile uint64_t *)self->data.map)[0] = 0;
	queue_gate_group(&ring, self);
	w.timeout_ns = 20 * MS;
	queue_cmd(&ring, self->fd, MXA_URING_CMD_WAIT_GROUP, &w, sizeof(w), 3);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, reap(&ring, &o, 10 * SEC));
		if (o.user_data == 3) {
			EXPECT_EQ(-ETIME, o.res);
		} else {
			EXPECT_EQ(2, o.user_data);
		}
	}
	release(self);
	ASSERT_EQ(0, reap(&ring, &o, 20 * SEC));
	EXPECT_EQ(1, o.user_data);
	EXPECT_EQ(0, o.res);
	io_uring_queue_exit(&ring);
}

/*
 * Commands issued from io-wq (IOSQE_ASYNC) race the ring's exit (cancel), their own
 * timeout and their fence, from other CPUs, while their issue path still arms them
 * (found in review: a cancel or the timeout could free a WAIT_GROUP, and a cancel drop
 * a SUBMIT's job, before the issue path was done with them). Many rounds of each, with
 * the ring torn down at once: nothing crashes (the harness checks the kernel log), every
 * job and group entry goes away, and the queue keeps its semantics.
 */
TEST_F_TIMEOUT(groups, uring_async_issue_races_cancel_and_timeout, 120)
{
	struct drm_mxa_submit sb = { .prog_handle = self->prog.handle,
		.prog_offset = self->fence_off, .prog_size = self->fence_size };
	struct drm_mxa_wait_group w = { .n = 0 };
	long jobs = mxa_counter("jobs"), groups = mxa_counter("groups");
	struct io_uring ring;
	struct cqe_out o;
	int64_t gate_end;
	int i;

	RING_SETUP_OR_SKIP(&ring);
	/* a pending group on queue 0 for the waits to wait for */
	queue_gate_group(&ring, self);
	ASSERT_EQ(2, io_uring_submit(&ring));
	gate_end = mxa_now_ns() + 5 * SEC;
	ASSERT_EQ(0, reap(&ring, &o, 10 * SEC));
	EXPECT_EQ(2, o.user_data);
	/*
	 * 400 rounds, or as many as half of the gate's SEM_WAIT (10 s, the device's limit)
	 * allows: a slow kernel (KASAN, lockdep) on a loaded host must not outlast the gate
	 */
	for (i = 0; i < 400 && mxa_now_ns() < gate_end; i++) {
		struct io_uring r2;
		unsigned int n = 0;

		ASSERT_EQ(0, ring_setup(&r2));
		w.timeout_ns = (i % 4) * 50000;		/* 0, 50, 100, 150 us */
		io_uring_sqe_set_flags(queue_cmd(&r2, self->fd, MXA_URING_CMD_WAIT_GROUP, &w,
						 sizeof(w), 10), IOSQE_ASYNC);
		n++;
		io_uring_sqe_set_flags(queue_cmd(&r2, self->fd, MXA_URING_CMD_SUBMIT, &sb,
						 sizeof(sb), 11), (i & 1) ? IOSQE_ASYNC : 0);
		n++;
		ASSERT_EQ(n, io_uring_submit(&r2));
		if (i % 3 == 0)
			reap(&r2, &o, 1 * MS);
		io_uring_queue_exit(&r2);	/* cancels what is pending */
	}
	EXPECT_LE(4, i);	/* every timeout of the four at least once */
	TH_LOG("%d rounds", i);
	/* the gate still holds its group: the waits did not complete it */
	EXPECT_EQ(-ETIME, wait_group(self->fd, 0, 0, 0, NULL));
	release(self);
	EXPECT_EQ(0, wait_group(self->fd, 0, 0, 20 * SEC, NULL));
	ASSERT_EQ(0, reap(&ring, &o, 20 * SEC));
	EXPECT_EQ(1, o.user_data);
	EXPECT_EQ(0, o.res);
	io_uring_queue_exit(&ring);
	/* every job ended and was freed, and no group entry is left */
	EXPECT_TRUE(mxa_wait_until(mxa_counter("jobs") == jobs, 20000))
		TH_LOG("jobs %ld, were %ld", mxa_counter("jobs"), jobs);
	EXPECT_TRUE(mxa_wait_until(mxa_counter("groups") <= groups + 1, 20000))
		TH_LOG("groups %ld, were %ld", mxa_counter("groups"), groups);
}

/* libaccel: the same semantics through accel_commit_group() / accel_wait_group(). */
static void libaccel_groups(struct __test_metadata *_metadata, enum accel_submit_mode mode)
{
	struct accel_device *dev;
	struct accel_bo *bo;
	struct accel_prog *prog;
	struct accel_job *blocked, *quick;
	volatile uint64_t *sem;
	uint64_t id1 = 0, id2 = 0, id3 = 0;

	ASSERT_EQ(0, accel_open(NULL, mode, &dev));
	ASSERT_EQ(mode, accel_submit_mode(dev));
	ASSERT_EQ(0, accel_bo_alloc(dev, 8192, &bo));
	sem = (volatile uint64_t *)((char *)accel_bo_map(bo) + 4096);
	ASSERT_EQ(0, accel_prog_new(&prog));
	/* job 1 (offset 0): waits for the semaphore, then writes 7 */
	ASSERT_EQ(0, accel_prog_sem_wait(prog, accel_bo_va(bo) + 4096, 1, 10000000));
	ASSERT_EQ(0, accel_prog_fence_write(prog, accel_bo_va(bo) + 4104, 7));
	ASSERT_EQ(0, accel_prog_upload(prog, bo, 0));
	ASSERT_EQ(0, accel_submit(dev, 1, bo, 0, accel_prog_size(prog), &blocked));
	ASSERT_EQ(0, accel_commit_group(dev, 1, &id1));
	/* job 2 (offset 1024) on queue 2: a group of its own queue */
	accel_prog_reset(prog);
	ASSERT_EQ(0, accel_prog_fence_write(prog, accel_bo_va(bo) + 4112, 9));
	ASSERT_EQ(0, accel_prog_upload(prog, bo, 1024));
	ASSERT_EQ(0, accel_submit(dev, 2, bo, 1024, accel_prog_size(prog), &quick));
	ASSERT_EQ(0, accel_commit_group(dev, 2, NULL));
	/* an empty group after the blocked one */
	ASSERT_EQ(0, accel_commit_group(dev, 1, &id2));
	EXPECT_EQ(id1 + 1, id2);

	/* queue 2 ends on its own: once its group is waited for, so is its job */
	EXPECT_EQ(0, accel_wait_group(dev, 2, 0, 10 * SEC));
	EXPECT_EQ(1, accel_job_done(quick));
	EXPECT_EQ(0, accel_job_result(quick)->status);
	EXPECT_EQ(9, sem[2]);
	/* queue 1 has 2 pending groups */
	EXPECT_EQ(-ETIME, accel_wait_group(dev, 1, 0, 0));
	EXPECT_EQ(-ETIME, accel_wait_group(dev, 1, 1, 20 * MS));
	EXPECT_EQ(0, accel_wait_group(dev, 1, 2, 0));
	EXPECT_EQ(0, accel_job_done(blocked));
	*sem = 1;
	EXPECT_EQ(0, accel_wait_group(dev, 1, 0, 10 * SEC));
	/* the groups ended, and so have their jobs: no accel_poll() needed */
	EXPECT_EQ(1, accel_job_done(blocked));
	EXPECT_EQ(0, accel_job_result(blocked)->status);
	EXPECT_NE(0, accel_job_result(blocked)->end_ns);
	EXPECT_EQ(7, sem[1]);
	EXPECT_EQ(0, accel_poll(dev));	/* nothing was left to find */
	/* nothing pending: a new group ends at once */
	ASSERT_EQ(0, accel_commit_group(dev, 1, &id3));
	EXPECT_EQ(id2 + 1, id3);
	EXPECT_EQ(0, accel_wait_group(dev, 1, 0, 0));
	/* bad queue */
	EXPECT_EQ(-EINVAL, accel_commit_group(dev, 1000, NULL));
	EXPECT_EQ(-EINVAL, accel_wait_group(dev, 1000, 0, 0));
	EXPECT_EQ(-EINVAL, accel_commit_group(NULL, 0, NULL));

	accel_job_free(blocked);
	accel_job_free(quick);
	accel_prog_free(prog);
	accel_bo_free(bo);
	accel_close(dev);
}

TEST(libaccel_groups_uring)
{
	libaccel_groups(_metadata, ACCEL_SUBMIT_URING);
}

TEST(libaccel_groups_ioctl)
{
	libaccel_groups(_metadata, ACCEL_SUBMIT_IOCTL);
}

TEST_HARNESS_MAIN
