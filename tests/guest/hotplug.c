// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "hotplug": surprise-free hot-unplug of the device through the host.
 *
 *  - kill -9 of a process with io_uring WAIT_GROUP commands and jobs (ioctl and
 *    io_uring) pending: nothing leaks (debugfs counters return to their baseline).
 *  - device_del: the test prints "# MXA-HOST device_del mxa0" on stdout (the harness
 *    channel); the host sends QMP device_del and the guest kernel removes the PCI
 *    function (the driver goes through drm_dev_unplug()). With a file open, BOs
 *    mapped and jobs in flight on every queue: each job ends with -ECANCELED or
 *    -ENODEV (a thread blocked in DRM_IOCTL_MXA_WAIT, io_uring SUBMITs, a pending
 *    io_uring WAIT_GROUP), later ioctls and commands fail with -ENODEV, the mappings
 *    stay usable memory, close works and /dev/accel/accel0 disappears. The harness
 *    checks the kernel log for WARN/BUG/oops.
 *
 * The device is gone afterwards: this test runs after every other one (guest.mk).
 */
#include "mxa_test.h"

#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "../stress/mxa_counters.h"

#define SEC	NSEC_PER_SEC
#define HANGS_PER_QUEUE	3

/* Wait up to @secs for the live counters to come back to @bos/@ctxs/@jobs. */
static int counters_settle(long bos, long ctxs, long jobs, int secs)
{
	int i;

	for (i = 0; i < secs * 20; i++) {
		if (mxa_counter("bos") == bos && mxa_counter("contexts") == ctxs &&
		    mxa_counter("jobs") == jobs)
			return 0;
		usleep(50 * 1000);
	}
	return -ETIMEDOUT;
}

static int queue_cmd(struct io_uring *ring, int fd, uint32_t cmd_op, const void *payload,
		     size_t size, uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		return -EBUSY;
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
	sqe->user_data = user_data;
	memcpy(sqe->cmd, payload, size);
	return 0;
}

static int ring_init(struct io_uring *ring)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 };

	return io_uring_queue_init_params(256, ring, &p);
}

/*
 * Fill every queue: @hangs jobs that wait on the semaphore at @sem_va (never signalled;
 * the device gives up after @timeout_us each), half through the ioctl (ids in @ids),
 * half through io_uring (user_data 1..), then per queue a uring COMMIT_GROUP and a
 * WAIT_GROUP(0) with a long timeout (user_data 1000 + queue). Returns the number of
 * uring commands queued, or -errno.
 */
static int start_hangs(int fd, struct io_uring *ring, const struct mxa_bo *prog,
		       uint64_t sem_va, uint32_t timeout_us, unsigned int nq, int hangs,
		       uint64_t *ids, int *nids)
{
	uint32_t *p = prog->map;
	uint32_t size;
	int cmds = 0, ret, i;
	unsigned int q;

	p = mxa_put_sem_wait(p, sem_va, 1, timeout_us);
	size = mxa_bytes(prog->map, p);
	*nids = 0;
	for (q = 0; q < nq; q++) {
		for (i = 0; i < hangs; i++) {
			struct drm_mxa_submit s = {
				.prog_handle = prog->handle, .queue = q, .prog_size = size,
			};

			if (i % 2 == 0) {
				ret = mxa_submit(fd, prog->handle, q, 0, size, &ids[(*nids)++]);
				if (ret)
					return ret;
				continue;
			}
			ret = queue_cmd(ring, fd, MXA_URING_CMD_SUBMIT, &s, sizeof(s), ++cmds);
			if (ret)
				return ret;
		}
	}
	for (q = 0; q < nq; q++) {
		struct drm_mxa_commit_group c = { .queue = q };
		struct drm_mxa_wait_group w = { .queue = q, .timeout_ns = 120 * SEC };

		ret = queue_cmd(ring, fd, MXA_URING_CMD_COMMIT_GROUP, &c, sizeof(c), 2000 + q);
		if (!ret)
			ret = queue_cmd(ring, fd, MXA_URING_CMD_WAIT_GROUP, &w, sizeof(w),
					1000 + q);
		if (ret)
			return ret;
	}
	ret = io_uring_submit(ring);
	if (ret < 0)
		return ret;
	return cmds + 2 * nq;
}

FIXTURE(hotplug) {
	int unused;
};

FIXTURE_SETUP(hotplug)
{
}

FIXTURE_TEARDOWN(hotplug)
{
}

TEST_F_TIMEOUT(hotplug, kill9_with_uring_waits_and_jobs, 120)
{
	struct drm_mxa_device_info info;
	long bos, ctxs, jobs;
	int pipefd[2], fd, status;
	pid_t pid;
	char c;

	fd = mxa_open();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, mxa_query_device(fd, &info));
	close(fd);
	bos = mxa_counter("bos");
	ctxs = mxa_counter("contexts");
	jobs = mxa_counter("jobs");
	ASSERT_GE(bos, 0) TH_LOG("no debugfs counters at %s", mxa_debugfs_file("counters"));

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct mxa_bo prog, data;
		struct io_uring ring;
		uint64_t ids[64];
		int nids;

		close(pipefd[0]);
		fd = mxa_open();
		if (fd < 0 || mxa_bo_new(fd, 4096, &prog) || mxa_bo_new(fd, 4096, &data) ||
		    ring_init(&ring) ||
		    start_hangs(fd, &ring, &prog, prog.va + 2048, 500000, info.num_queues, 4, ids,
				&nids) < 0)
			_exit(1);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1)) TH_LOG("child could not start its jobs");
	close(pipefd[0]);
	usleep(100 * 1000);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));

	/* The jobs run out (0.5 s each); then every object is gone. */
	EXPECT_EQ(0, counters_settle(bos, ctxs, jobs, 60))
		TH_LOG("counters bos %ld/%ld contexts %ld/%ld jobs %ld/%ld", mxa_counter("bos"), bos,
		       mxa_counter("contexts"), ctxs, mxa_counter("jobs"), jobs);
}

struct waiter {
	int fd;
	uint64_t id;
	volatile pid_t tid;	/* the thread's id, once it runs */
	int ret;
	struct drm_mxa_job_result result;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->tid = gettid();
	w->ret = mxa_wait(w->fd, w->id, 120 * SEC, &w->result);
	return NULL;
}

static int wait_for_node_gone(int secs)
{
	int i;

	for (i = 0; i < secs * 20; i++) {
		if (access(MXA_TEST_DEVICE, F_OK) && errno == ENOENT)
			return 0;
		usleep(50 * 1000);
	}
	return -ETIMEDOUT;
}

TEST_F_TIMEOUT(hotplug, device_del_with_file_maps_and_jobs, 180)
{
	struct drm_mxa_bo_create bc = { .size = 4096 };
	struct drm_mxa_device_info info;
	struct drm_mxa_submit s = { 0 };
	struct __kernel_timespec ts = { .tv_sec = 30 };
	struct io_uring_cqe *cqe;
	struct mxa_bo prog, data;
	struct io_uring ring;
	struct waiter w;
	pthread_t thread;
	uint64_t ids[64];
	int fd, nids, ncmds, got = 0, bad = 0, i;
	volatile uint64_t *d;

	fd = mxa_open();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, mxa_query_device(fd, &info));
	ASSERT_EQ(0, mxa_bo_new(fd, 1 << 16, &prog));
	ASSERT_EQ(0, mxa_bo_new(fd, 4096, &data));
	ASSERT_EQ(0, ring_init(&ring));
	/* Each queue is busy for HANGS_PER_QUEUE x 10 s: the removal comes first. */
	ncmds = start_hangs(fd, &ring, &prog, data.va, MXA_SEM_MAX_TIMEOUT_US,
			    info.num_queues, 2 * HANGS_PER_QUEUE, ids, &nids);
	ASSERT_GT(ncmds, 0);
	ASSERT_GT(nids, 0);

	w.fd = fd;
	w.id = ids[0];
	w.ret = 1;
	w.tid = 0;
	ASSERT_EQ(0, pthread_create(&thread, NULL, wait_thread, &w));
	/* the device goes while the waiter sleeps in DRM_IOCTL_MXA_WAIT */
	ASSERT_TRUE(mxa_wait_until(w.tid && mxa_thread_blocked_in(w.tid, SYS_ioctl), 10000))
		TH_LOG("the waiter never blocked in its ioctl");

	TH_LOG("%d commands and %d ioctl jobs in flight, the waiter blocked", ncmds, nids);
	printf("# MXA-HOST device_del mxa0\n");
	fflush(stdout);
	ASSERT_EQ(0, wait_for_node_gone(60)) TH_LOG("/dev/accel/accel0 did not go away");
	TH_LOG("/dev/accel/accel0 gone");

	/* The waiter gets its job's end: aborted with the device. */
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(0, w.ret);
	EXPECT_EQ(-ECANCELED, w.result.status);

	/* Every io_uring command completes: jobs aborted, waits over. */
	while (got < ncmds && !io_uring_wait_cqe_timeout(&ring, &cqe, &ts)) {
		uint64_t ud = cqe->user_data;

		if (ud < 1000 && cqe->res != -ECANCELED && cqe->res != -ENODEV)
			bad++;
		if (ud >= 1000 && ud < 2000 && cqe->res != 0)
			bad++;
		if (bad == 1)
			TH_LOG("cqe user_data %llu res %d", (unsigned long long)ud, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
		got++;
	}
	EXPECT_EQ(ncmds, got);
	EXPECT_EQ(0, bad);

	/* The file is dead but safe. */
	EXPECT_EQ(-ENODEV, mxa_ioctl(fd, DRM_IOCTL_MXA_BO_CREATE, &bc));
	EXPECT_EQ(-ENODEV, mxa_submit(fd, prog.handle, 0, 0, 4, NULL));
	for (i = 1; i < nids; i++)
		EXPECT_EQ(-ENODEV, mxa_wait(fd, ids[i], 0, NULL));
	EXPECT_EQ(-ENODEV, mxa_query_device(fd, &info));
	s.prog_handle = prog.handle;
	s.prog_size = 4;
	ASSERT_EQ(0, queue_cmd(&ring, fd, MXA_URING_CMD_SUBMIT, &s, sizeof(s), 7));
	ASSERT_EQ(1, io_uring_submit(&ring));
	ASSERT_EQ(0, io_uring_wait_cqe_timeout(&ring, &cqe, &ts));
	EXPECT_EQ(-ENODEV, cqe->res);
	io_uring_cqe_seen(&ring, cqe);

	/* The mappings are still plain memory. */
	d = data.map;
	d[1] = 0x1234;
	EXPECT_EQ(0x1234, d[1]);
	EXPECT_EQ(0, d[0]);
	io_uring_queue_exit(&ring);
	EXPECT_EQ(0, munmap(prog.map, prog.size));
	EXPECT_EQ(0, munmap(data.map, data.size));
	EXPECT_EQ(0, close(fd));
	EXPECT_NE(0, access("/sys/class/accel/accel0", F_OK));
	EXPECT_GT(0, mxa_open());
}

TEST_HARNESS_MAIN
