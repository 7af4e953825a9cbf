// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "observe": the driver's sysfs attributes (the PCI function's "mxa"
 * group) agree with DRM_IOCTL_MXA_QUERY; debugfs reset_queue resets a queue through the
 * reset state machine (the running job ends with -ECANCELED, the job behind it runs);
 * debugfs fault injection (inject_submit_nomem, inject_run_abort) fails exactly the
 * requested submissions/jobs, through ioctl and io_uring, and nothing leaks.
 */
#include "mxa_test.h"

#include <stdio.h>

#include "accel.h"
#include "../stress/mxa_counters.h"
#include "kselftest_harness.h"

#define SEC	NSEC_PER_SEC

FIXTURE(observe) {
	int fd;
	struct drm_mxa_device_info info;
	struct mxa_bo prog, data;
	uint32_t gate_size, fence_off, fence_size;
	char dir[512];
};

static volatile uint64_t *D(FIXTURE_DATA(observe) *self)
{
	return self->data.map;
}

FIXTURE_SETUP(observe)
{
	uint32_t *p, *start;

	self->fd = mxa_open();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
	ASSERT_EQ(0, mxa_debugfs_dir(MXA_TEST_DEVICE, self->dir, sizeof(self->dir)));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 1 << 16, &self->prog));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &self->data));
	/* Gate: writes data[2] = 1 (it runs), then waits (up to 10 s) until the CPU writes
	 * data[0] = 1. */
	p = mxa_put_fence(self->prog.map, self->data.va + 16, 1);
	p = mxa_put_sem_wait(p, self->data.va, 1, MXA_SEM_MAX_TIMEOUT_US);
	self->gate_size = mxa_bytes(self->prog.map, p);
	self->fence_off = 1024;
	start = (uint32_t *)((char *)self->prog.map + self->fence_off);
	p = mxa_put_fence(start, self->data.va + 8, 0x77);
	self->fence_size = mxa_bytes(start, p);
}

FIXTURE_TEARDOWN(observe)
{
	if (self->data.map)
		D(self)[0] = 1;
	mxa_bo_free(self->fd, &self->data);
	mxa_bo_free(self->fd, &self->prog);
	close(self->fd);
}

/* Write @text to debugfs file @name; 0 or -errno. */
static int dbg_write(FIXTURE_DATA(observe) *self, const char *name, const char *text)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", self->dir, name);
	return mxa_write_text(path, text);
}

/* "resets N" of hardware queue @q in debugfs queues; -1 if not found. */
static long queue_resets(FIXTURE_DATA(observe) *self, unsigned int q)
{
	char path[600], buf[8192], key[32], *s;
	long v = -1;

	snprintf(path, sizeof(path), "%s/queues", self->dir);
	if (mxa_read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	snprintf(key, sizeof(key), "queue %u:", q);
	s = strstr(buf, key);
	if (s && (s = strstr(s, "resets ")))
		sscanf(s, "resets %ld", &v);
	return v;
}

static int submit(FIXTURE_DATA(observe) *self, uint32_t queue, uint32_t off, uint32_t size,
		  uint64_t *id)
{
	return mxa_submit(self->fd, self->prog.handle, queue, off, size, id);
}

TEST_F(observe, sysfs_matches_query)
{
	char path[256], buf[64];
	unsigned long long v;
	unsigned int a, b;

	snprintf(path, sizeof(path), "/sys/class/accel/accel0/device/mxa/caps");
	ASSERT_LT(0, mxa_read_text(path, buf, sizeof(buf)));
	v = strtoull(buf, NULL, 16);
	EXPECT_EQ(self->info.caps, v);
	ASSERT_LT(0, mxa_read_text("/sys/class/accel/accel0/device/mxa/driver_caps", buf,
			       sizeof(buf)));
	EXPECT_EQ(self->info.driver_caps, strtoull(buf, NULL, 16));
	ASSERT_LT(0, mxa_read_text("/sys/class/accel/accel0/device/mxa/num_queues", buf,
			       sizeof(buf)));
	EXPECT_EQ(self->info.num_queues, strtoul(buf, NULL, 10));
	ASSERT_LT(0, mxa_read_text("/sys/class/accel/accel0/device/mxa/num_cores", buf,
			       sizeof(buf)));
	EXPECT_EQ(self->info.num_cores, strtoul(buf, NULL, 10));
	ASSERT_LT(0, mxa_read_text("/sys/class/accel/accel0/device/mxa/hw_version", buf,
			       sizeof(buf)));
	ASSERT_EQ(2, sscanf(buf, "%u.%u", &a, &b));
	EXPECT_EQ(self->info.hw_version, a << 16 | b);
	ASSERT_LT(0, mxa_read_text("/sys/class/accel/accel0/device/mxa/uapi_version", buf,
			       sizeof(buf)));
	ASSERT_EQ(2, sscanf(buf, "%u.%u", &a, &b));
	EXPECT_EQ(self->info.uapi_major, a);
	EXPECT_EQ(self->info.uapi_minor, b);
	/* Read-only. */
	EXPECT_GT(0, open("/sys/class/accel/accel0/device/mxa/caps", O_WRONLY));
}

/* What driver/70-mxa.rules matches on: SUBSYSTEM "accel", a parent bound to "mxa". */
TEST_F(observe, udev_rule_keys)
{
	char target[256];
	ssize_t n;

	n = readlink("/sys/class/accel/accel0/subsystem", target, sizeof(target) - 1);
	ASSERT_LT(0, n);
	target[n] = 0;
	EXPECT_STREQ("accel", strrchr(target, '/') + 1);
	n = readlink("/sys/class/accel/accel0/device/driver", target, sizeof(target) - 1);
	ASSERT_LT(0, n);
	target[n] = 0;
	EXPECT_STREQ("mxa", strrchr(target, '/') + 1);
}

TEST_F(observe, reset_queue_aborts_the_running_job)
{
	struct drm_mxa_job_result r;
	uint64_t gate, behind;
	long before;
	char text[16];

	before = queue_resets(self, 2);
	ASSERT_LE(0, before);
	ASSERT_EQ(0, submit(self, 2, 0, self->gate_size, &gate));
	ASSERT_EQ(0, submit(self, 2, self->fence_off, self->fence_size, &behind));
	/* the reset must find the gate running on the device, not queued */
	ASSERT_TRUE(mxa_wait_until(D(self)[2] == 1, 10000));
	EXPECT_EQ(-ETIME, mxa_wait(self->fd, gate, 0, NULL));
	snprintf(text, sizeof(text), "%u", 2);
	ASSERT_EQ(0, dbg_write(self, "reset_queue", text));
	ASSERT_EQ(0, mxa_wait(self->fd, gate, 10 * SEC, &r));
	EXPECT_EQ(-ECANCELED, r.status);
	EXPECT_EQ(MXA_ERR_ABORTED, r.error);
	ASSERT_EQ(0, mxa_wait(self->fd, behind, 10 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x77, D(self)[1]);
	ASSERT_TRUE(mxa_wait_until(queue_resets(self, 2) >= before + 1, 10000));
	EXPECT_EQ(before + 1, queue_resets(self, 2));
	/* An idle queue resets too, and runs afterwards. */
	ASSERT_EQ(0, dbg_write(self, "reset_queue", "2"));
	ASSERT_TRUE(mxa_wait_until(queue_resets(self, 2) >= before + 2, 10000));
	EXPECT_EQ(before + 2, queue_resets(self, 2));
	D(self)[1] = 0;
	ASSERT_EQ(0, submit(self, 2, self->fence_off, self->fence_size, &behind));
	ASSERT_EQ(0, mxa_wait(self->fd, behind, 10 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x77, D(self)[1]);
	/* Bad queue numbers. */
	snprintf(text, sizeof(text), "%u", self->info.num_queues);
	EXPECT_EQ(-EINVAL, dbg_write(self, "reset_queue", text));
	EXPECT_EQ(-EINVAL, dbg_write(self, "reset_queue", "zero"));
}

/*
 * A queue the device stops on an error (a doorbell past the ring, injected) recovers
 * through the reset state machine: the jobs in its ring fail with -EIO, the queue is
 * reset and runs again.
 */
TEST_F(observe, device_stopped_queue_recovers)
{
	struct drm_mxa_job_result r;
	uint64_t gate, behind;
	long before;

	before = queue_resets(self, 2);
	ASSERT_LE(0, before);
	D(self)[1] = 0;
	ASSERT_EQ(0, submit(self, 2, 0, self->gate_size, &gate));
	ASSERT_EQ(0, submit(self, 2, self->fence_off, self->fence_size, &behind));
	ASSERT_TRUE(mxa_wait_until(D(self)[2] == 1, 10000));
	ASSERT_EQ(0, dbg_write(self, "inject_queue_stop", "2"));
	ASSERT_EQ(0, mxa_wait(self->fd, gate, 10 * SEC, &r));
	EXPECT_EQ(-EIO, r.status);
	EXPECT_EQ(MXA_ERR_ABORTED, r.error);
	ASSERT_EQ(0, mxa_wait(self->fd, behind, 10 * SEC, &r));
	EXPECT_EQ(-EIO, r.status);
	EXPECT_EQ(0, D(self)[1]);
	ASSERT_TRUE(mxa_wait_until(queue_resets(self, 2) >= before + 1, 10000));
	EXPECT_EQ(before + 1, queue_resets(self, 2));
	/* the queue runs again */
	ASSERT_EQ(0, submit(self, 2, self->fence_off, self->fence_size, &behind));
	ASSERT_EQ(0, mxa_wait(self->fd, behind, 10 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x77, D(self)[1]);
	EXPECT_EQ(-EINVAL, dbg_write(self, "inject_queue_stop", "zero"));
}

TEST_F(observe, inject_submit_nomem)
{
	struct mxa_counters base, now;
	struct accel_device *dev;
	struct accel_bo *bo;
	struct accel_job *job;
	uint64_t id;

	ASSERT_EQ(0, mxa_read_counters(self->dir, &base));
	ASSERT_EQ(0, dbg_write(self, "inject_submit_nomem", "2"));
	EXPECT_EQ(-ENOMEM, submit(self, 0, self->fence_off, self->fence_size, &id));
	/* Through io_uring the error is the job's result. */
	ASSERT_EQ(0, accel_open(NULL, ACCEL_SUBMIT_URING, &dev));
	ASSERT_EQ(0, accel_bo_alloc(dev, 4096, &bo));
	*(uint32_t *)accel_bo_map(bo) = MXA_CMD_HEADER(MXA_OP_NOP, MXA_NOP_DWORDS, 0);
	ASSERT_EQ(0, accel_submit(dev, 0, bo, 0, 4, &job));
	ASSERT_EQ(0, accel_wait(job, 10 * SEC));
	EXPECT_EQ(-ENOMEM, accel_job_result(job)->status);
	accel_job_free(job);
	/* The count is used up: both paths work again. */
	ASSERT_EQ(0, accel_submit(dev, 0, bo, 0, 4, &job));
	ASSERT_EQ(0, accel_wait(job, 10 * SEC));
	EXPECT_EQ(0, accel_job_result(job)->status);
	accel_job_free(job);
	accel_bo_free(bo);
	accel_close(dev);
	ASSERT_EQ(0, submit(self, 0, self->fence_off, self->fence_size, &id));
	EXPECT_EQ(0, mxa_wait(self->fd, id, 10 * SEC, NULL));
	EXPECT_EQ(0x77, D(self)[1]);
	EXPECT_TRUE(mxa_counters_settle(self->dir, &base, &now, 10));
}

TEST_F(observe, inject_run_abort)
{
	struct drm_mxa_job_result r;
	uint64_t a, b;

	ASSERT_EQ(0, dbg_write(self, "inject_run_abort", "1"));
	ASSERT_EQ(0, submit(self, 1, self->fence_off, self->fence_size, &a));
	ASSERT_EQ(0, mxa_wait(self->fd, a, 10 * SEC, &r));
	EXPECT_EQ(-ECANCELED, r.status);
	EXPECT_EQ(MXA_ERR_ABORTED, r.error);
	EXPECT_EQ(0, r.start_ns);
	EXPECT_EQ(0, D(self)[1]);
	ASSERT_EQ(0, submit(self, 1, self->fence_off, self->fence_size, &b));
	ASSERT_EQ(0, mxa_wait(self->fd, b, 10 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x77, D(self)[1]);
}

TEST_HARNESS_MAIN
