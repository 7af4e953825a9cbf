// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "sync": DRM syncobjs on DRM_IOCTL_MXA_SUBMIT and MXA_URING_CMD_SUBMIT
 * (drm_mxa_submit.syncs): binary and timeline, out and in; a job with an input fence
 * is held back until it signals (a gate job waiting on a semaphore the test releases);
 * argument errors; libaccel's accel_submit_syncs()/accel_syncobj_*().
 */
#include "mxa_test.h"

#include <liburing.h>
#include <stdio.h>
#include <xf86drm.h>

#include "accel.h"
#include "kselftest_harness.h"

#define SEC	NSEC_PER_SEC

FIXTURE(sync) {
	int fd;
	struct drm_mxa_device_info info;
	struct mxa_bo prog, data;
	uint32_t gate_size, fence_off[4], fence_size;
};

#define D0(self) (*(volatile uint64_t *)(self)->data.map)
/* data[GATE_RUNNING] is 1 once the gate runs on the device */
#define GATE_RUNNING 8

FIXTURE_SETUP(sync)
{
	uint32_t *p;
	int i;

	self->fd = mxa_open();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
	if (!(self->info.driver_caps & DRM_MXA_DRIVER_CAP_SYNCOBJ))
		SKIP(return, "no DRM_MXA_DRIVER_CAP_SYNCOBJ");
	ASSERT_EQ(0, mxa_bo_new(self->fd, 1 << 16, &self->prog));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &self->data));
	/* Gate: writes data[GATE_RUNNING] = 1, then waits (up to 10 s) until the CPU
	 * writes data[0] = 1. */
	p = mxa_put_fence(self->prog.map, self->data.va + 8 * GATE_RUNNING, 1);
	p = mxa_put_sem_wait(p, self->data.va, 1, MXA_SEM_MAX_TIMEOUT_US);
	self->gate_size = mxa_bytes(self->prog.map, p);
	/* Program i writes 0x100 + i to data[1 + i]. */
	for (i = 0; i < 4; i++) {
		uint32_t *start = (uint32_t *)((char *)self->prog.map + 1024 * (i + 1));

		self->fence_off[i] = 1024 * (i + 1);
		p = mxa_put_fence(start, self->data.va + 8 * (1 + i), 0x100 + i);
		self->fence_size = mxa_bytes(start, p);
	}
}

FIXTURE_TEARDOWN(sync)
{
	mxa_bo_free(self->fd, &self->data);
	mxa_bo_free(self->fd, &self->prog);
	close(self->fd);
}

static int submit(FIXTURE_DATA(sync) *self, uint32_t queue, uint32_t off, uint32_t size,
		  const struct drm_mxa_sync_op *ops, uint32_t n, uint64_t *id)
{
	struct drm_mxa_submit s = {
		.prog_handle = self->prog.handle, .queue = queue, .prog_offset = off,
		.prog_size = size,
		.syncs = { .stride = sizeof(*ops), .count = n, .array = (uintptr_t)ops },
	};
	int ret = mxa_ioctl(self->fd, DRM_IOCTL_MXA_SUBMIT, &s);

	if (!ret && id)
		*id = s.job_id;
	return ret;
}

static volatile uint64_t *D(FIXTURE_DATA(sync) *self)
{
	return self->data.map;
}

/*
 * The gate is running on the device: from here on, a job that waits for it cannot have
 * ended, so the negative checks that follow are about the dependency, not about how soon
 * they look. Each test also checks, after the gate opens, that the waiting job started
 * only after the gate ended (device timestamps), which no timing can fake.
 */
static int gate_running(FIXTURE_DATA(sync) *self)
{
	return mxa_wait_until(D(self)[GATE_RUNNING] == 1, 10000);
}

TEST_F(sync, binary_out_and_in)
{
	struct drm_mxa_sync_op out = { .flags = DRM_MXA_SYNC_OP_SIGNAL };
	struct drm_mxa_sync_op in = { .flags = DRM_MXA_SYNC_OP_WAIT };
	struct drm_mxa_job_result r = { 0 }, rg = { 0 };
	uint64_t gate, b, c;
	uint32_t s;

	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &s));
	out.handle = in.handle = s;
	ASSERT_EQ(0, submit(self, 0, 0, self->gate_size, &out, 1, &gate));
	/* b on another queue waits for the gate through the syncobj. */
	ASSERT_EQ(0, submit(self, 1, self->fence_off[0], self->fence_size, &in, 1, &b));
	/*
	 * c behind b on queue 1 waits too (queues run in order); its submit returns at
	 * once (joins the backlog behind b rather than sleeping until the gate opens).
	 */
	ASSERT_EQ(0, submit(self, 1, self->fence_off[1], self->fence_size, NULL, 0, &c));
	ASSERT_TRUE(gate_running(self));
	EXPECT_EQ(-ETIME, mxa_wait(self->fd, b, 0, &r));
	EXPECT_EQ(-ETIME, mxa_wait(self->fd, c, 0, &r));
	EXPECT_EQ(0, D(self)[1]);
	EXPECT_NE(0, drmSyncobjWait(self->fd, &s, 1, 0, 0, NULL));
	EXPECT_EQ(ETIME, errno);

	D(self)[0] = 1;	/* open the gate */
	ASSERT_EQ(0, mxa_wait(self->fd, gate, 10 * SEC, &rg));
	EXPECT_EQ(0, rg.status) TH_LOG("gate: error %u at %u info 0x%x addr 0x%llx", rg.error,
				       rg.err_offset, rg.err_info, (unsigned long long)rg.err_addr);
	ASSERT_EQ(0, mxa_wait(self->fd, b, 10 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_LE(rg.end_ns, r.start_ns);	/* b waited for the gate's fence */
	ASSERT_EQ(0, mxa_wait(self->fd, c, 10 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_LE(rg.end_ns, r.start_ns);
	EXPECT_EQ(0x100, D(self)[1]);
	EXPECT_EQ(0x101, D(self)[2]);
	EXPECT_EQ(0, drmSyncobjWait(self->fd, &s, 1, INT64_MAX, 0, NULL));
	/* An already signalled input fence does not delay the job. */
	ASSERT_EQ(0, submit(self, 2, self->fence_off[2], self->fence_size, &in, 1, &b));
	ASSERT_EQ(0, mxa_wait(self->fd, b, 10 * SEC, &r));
	EXPECT_EQ(0x102, D(self)[3]);
	EXPECT_EQ(0, drmSyncobjDestroy(self->fd, s));
}

TEST_F(sync, timeline)
{
	struct drm_mxa_sync_op a_ops[] = {
		{ .flags = DRM_MXA_SYNC_OP_SIGNAL | DRM_MXA_SYNC_OP_TIMELINE, .timeline_value = 3 },
	};
	struct drm_mxa_sync_op b_ops[] = {
		{ .flags = DRM_MXA_SYNC_OP_WAIT | DRM_MXA_SYNC_OP_TIMELINE, .timeline_value = 3 },
		{ .flags = DRM_MXA_SYNC_OP_SIGNAL | DRM_MXA_SYNC_OP_TIMELINE, .timeline_value = 5 },
	};
	struct drm_mxa_job_result r = { 0 }, rg = { 0 };
	uint64_t gate, b, point = 5, value = 0;
	uint32_t t;

	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &t));
	a_ops[0].handle = b_ops[0].handle = b_ops[1].handle = t;
	ASSERT_EQ(0, submit(self, 0, 0, self->gate_size, a_ops, 1, &gate));
	ASSERT_EQ(0, submit(self, 1, self->fence_off[0], self->fence_size, b_ops, 2, &b));
	ASSERT_TRUE(gate_running(self));
	EXPECT_EQ(-ETIME, mxa_wait(self->fd, b, 0, &r));
	EXPECT_EQ(0, drmSyncobjQuery(self->fd, &t, &value, 1));
	EXPECT_EQ(0, value);
	D(self)[0] = 1;
	EXPECT_EQ(0, drmSyncobjTimelineWait(self->fd, &t, &point, 1, INT64_MAX, 0, NULL));
	EXPECT_EQ(0x100, D(self)[1]);
	EXPECT_EQ(0, drmSyncobjQuery(self->fd, &t, &value, 1));
	EXPECT_EQ(5, value);
	EXPECT_EQ(0, mxa_wait(self->fd, gate, SEC, &rg));
	EXPECT_EQ(0, mxa_wait(self->fd, b, SEC, &r));
	EXPECT_LE(rg.end_ns, r.start_ns);	/* b waited for timeline point 3 */
	drmSyncobjDestroy(self->fd, t);
}

TEST_F(sync, uring)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 };
	struct drm_mxa_sync_op ops[2] = {
		{ .flags = DRM_MXA_SYNC_OP_WAIT },
		{ .flags = DRM_MXA_SYNC_OP_SIGNAL },
	};
	struct drm_mxa_sync_op out = { .flags = DRM_MXA_SYNC_OP_SIGNAL };
	struct __kernel_timespec ts = { .tv_sec = 10 };
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct drm_mxa_submit s = { 0 };
	uint32_t s1, s2;
	uint64_t gate;

	ASSERT_EQ(0, io_uring_queue_init_params(16, &ring, &p));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &s1));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &s2));
	out.handle = ops[0].handle = s1;
	ops[1].handle = s2;
	ASSERT_EQ(0, submit(self, 0, 0, self->gate_size, &out, 1, &gate));

	s.prog_handle = self->prog.handle;
	s.queue = 1;
	s.prog_offset = self->fence_off[0];
	s.prog_size = self->fence_size;
	s.syncs.stride = sizeof(ops[0]);
	s.syncs.count = 2;
	s.syncs.array = (uintptr_t)ops;
	ASSERT_GE(80, sizeof(s));	/* the SQE128 command area */
	sqe = io_uring_get_sqe(&ring);
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = self->fd;
	sqe->cmd_op = MXA_URING_CMD_SUBMIT;
	memcpy(sqe->cmd, &s, sizeof(s));
	ASSERT_EQ(1, io_uring_submit(&ring));
	/* Held back by the gate. */
	ASSERT_TRUE(gate_running(self));
	EXPECT_EQ(-EAGAIN, io_uring_peek_cqe(&ring, &cqe));
	EXPECT_NE(0, drmSyncobjWait(self->fd, &s2, 1, 0, 0, NULL));
	D(self)[0] = 1;
	ASSERT_EQ(0, io_uring_wait_cqe_timeout(&ring, &cqe, &ts));
	EXPECT_EQ(0, cqe->res);
	io_uring_cqe_seen(&ring, cqe);
	EXPECT_EQ(0x100, D(self)[1]);
	EXPECT_EQ(0, drmSyncobjWait(self->fd, &s2, 1, INT64_MAX, 0, NULL));
	EXPECT_EQ(0, mxa_wait(self->fd, gate, SEC, NULL));
	io_uring_queue_exit(&ring);
	drmSyncobjDestroy(self->fd, s1);
	drmSyncobjDestroy(self->fd, s2);
}

TEST_F(sync, bad_arguments)
{
	struct drm_mxa_sync_op op = { 0 };
	struct drm_mxa_sync_op many[DRM_MXA_MAX_SYNCS + 1];
	struct { struct drm_mxa_sync_op op; uint64_t extra; } big = { 0 };
	uint32_t s, t, off = self->fence_off[0], size = self->fence_size;
	struct drm_mxa_submit sub = {
		.prog_handle = self->prog.handle, .prog_offset = off, .prog_size = size,
		.syncs = { .stride = 8, .count = 1, .array = (uintptr_t)&op },
	};

	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &s));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &t));
	/* No fence yet: nothing to wait for. */
	op.handle = s;
	EXPECT_EQ(-EINVAL, submit(self, 0, off, size, &op, 1, NULL));
	op.flags = DRM_MXA_SYNC_OP_TIMELINE;
	op.timeline_value = 1;
	op.handle = t;
	EXPECT_EQ(-EINVAL, submit(self, 0, off, size, &op, 1, NULL));
	/* Unknown syncobj. */
	op.flags = DRM_MXA_SYNC_OP_SIGNAL;
	op.timeline_value = 0;
	op.handle = 0xdead;
	EXPECT_EQ(-ENOENT, submit(self, 0, off, size, &op, 1, NULL));
	op.flags = 0;
	EXPECT_EQ(-ENOENT, submit(self, 0, off, size, &op, 1, NULL));
	/* Flags, binary with a point, timeline without one. */
	op.handle = s;
	op.flags = DRM_MXA_SYNC_OP_SIGNAL | (1u << 7);
	EXPECT_EQ(-EINVAL, submit(self, 0, off, size, &op, 1, NULL));
	op.flags = DRM_MXA_SYNC_OP_SIGNAL;
	op.timeline_value = 2;
	EXPECT_EQ(-EINVAL, submit(self, 0, off, size, &op, 1, NULL));
	op.flags = DRM_MXA_SYNC_OP_SIGNAL | DRM_MXA_SYNC_OP_TIMELINE;
	op.timeline_value = 0;
	EXPECT_EQ(-EINVAL, submit(self, 0, off, size, &op, 1, NULL));
	/* Stride too small; too many; bad pointer. */
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_SUBMIT, &sub));
	memset(many, 0, sizeof(many));
	EXPECT_EQ(-EINVAL, submit(self, 0, off, size, many, DRM_MXA_MAX_SYNCS + 1, NULL));
	EXPECT_EQ(-EFAULT, submit(self, 0, off, size, (void *)8, 1, NULL));
	/* A bigger stride with non-zero extra bytes. */
	big.op.flags = DRM_MXA_SYNC_OP_SIGNAL;
	big.op.handle = s;
	big.extra = 1;
	sub.syncs.stride = sizeof(big);
	sub.syncs.array = (uintptr_t)&big;
	EXPECT_EQ(-E2BIG, mxa_ioctl(self->fd, DRM_IOCTL_MXA_SUBMIT, &sub));
	big.extra = 0;
	EXPECT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_SUBMIT, &sub));
	EXPECT_EQ(0, mxa_wait(self->fd, sub.job_id, 10 * SEC, NULL));
	drmSyncobjDestroy(self->fd, s);
	drmSyncobjDestroy(self->fd, t);
}

TEST_F(sync, libaccel)
{
	struct accel_device *dev;
	struct accel_bo *bo, *pbo;
	struct accel_prog *prog;
	struct accel_job *a, *b;
	struct accel_sync sa[1], sb[2];
	uint32_t s, t;
	volatile uint64_t *m;

	ASSERT_EQ(0, accel_open(NULL, ACCEL_SUBMIT_AUTO, &dev));
	ASSERT_EQ(0, accel_bo_alloc(dev, 4096, &bo));
	ASSERT_EQ(0, accel_bo_alloc(dev, 4096, &pbo));
	ASSERT_EQ(0, accel_syncobj_create(dev, &s));
	ASSERT_EQ(0, accel_syncobj_create(dev, &t));
	ASSERT_EQ(0, accel_prog_new(&prog));
	ASSERT_EQ(0, accel_prog_fence_write(prog, accel_bo_va(bo), 7));
	ASSERT_EQ(0, accel_prog_upload(prog, pbo, 0));
	sa[0] = (struct accel_sync){ .handle = s, .signal = 1 };
	ASSERT_EQ(0, accel_submit_syncs(dev, 0, pbo, 0, accel_prog_size(prog), sa, 1, &a));
	sb[0] = (struct accel_sync){ .handle = s };
	sb[1] = (struct accel_sync){ .handle = t, .point = 9, .signal = 1 };
	ASSERT_EQ(0, accel_submit_syncs(dev, 1, pbo, 0, accel_prog_size(prog), sb, 2, &b));
	EXPECT_EQ(0, accel_syncobj_wait(dev, t, 9, 10 * SEC));
	EXPECT_EQ(0, accel_syncobj_wait(dev, s, 0, 10 * SEC));
	m = accel_bo_map(bo);
	EXPECT_EQ(7, m[0]);
	EXPECT_EQ(0, accel_wait(a, -1));
	EXPECT_EQ(0, accel_wait(b, -1));
	EXPECT_EQ(0, accel_job_result(b)->status);
	accel_job_free(a);
	accel_job_free(b);
	accel_syncobj_destroy(dev, s);
	accel_syncobj_destroy(dev, t);
	accel_prog_free(prog);
	accel_bo_free(pbo);
	accel_bo_free(bo);
	accel_close(dev);
}

TEST_HARNESS_MAIN
