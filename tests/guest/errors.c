// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "errors": every ioctl rejects bad arguments with the documented
 * errno: non-zero padding and flags, bad handles, queues, program ranges, ids,
 * timeouts, query types and pointers, and unknown ioctls.
 */
#include "mxa_test.h"

#include "kselftest_harness.h"

FIXTURE(errors) {
	int fd;
	struct drm_mxa_device_info info;
	struct mxa_bo prog;
	uint32_t size;		/* a valid program: one NOP */
};

FIXTURE_SETUP(errors)
{
	self->fd = mxa_open();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 8192, &self->prog));
	self->size = mxa_bytes(self->prog.map, mxa_put_nop(self->prog.map));
}

FIXTURE_TEARDOWN(errors)
{
	mxa_bo_free(self->fd, &self->prog);
	close(self->fd);
}

static struct drm_mxa_submit good_submit(FIXTURE_DATA(errors) *self)
{
	struct drm_mxa_submit s = {
		.prog_handle = self->prog.handle, .queue = 0, .prog_offset = 0,
		.prog_size = self->size,
	};
	return s;
}

static int submit(FIXTURE_DATA(errors) *self, struct drm_mxa_submit *s)
{
	int ret = mxa_ioctl(self->fd, DRM_IOCTL_MXA_SUBMIT, s);

	/* A job that was accepted by mistake must not linger. */
	if (!ret)
		mxa_wait(self->fd, s->job_id, 10 * NSEC_PER_SEC, NULL);
	return ret;
}

TEST_F(errors, submit_valid_baseline)
{
	struct drm_mxa_submit s = good_submit(self);

	EXPECT_EQ(0, submit(self, &s));
}

TEST_F(errors, submit_pad_and_flags)
{
	struct drm_mxa_submit s = good_submit(self);

	s.result_size = 1;	/* io_uring only */
	EXPECT_EQ(-EINVAL, submit(self, &s));
	s = good_submit(self);
	s.flags = 1;
	EXPECT_EQ(-EINVAL, submit(self, &s));
	s = good_submit(self);
	s.flags = 0x80000000u;
	EXPECT_EQ(-EINVAL, submit(self, &s));
	/* result_ptr is for io_uring only */
	s = good_submit(self);
	s.result_ptr = (uintptr_t)&s;
	EXPECT_EQ(-EINVAL, submit(self, &s));
}

TEST_F(errors, submit_bad_handle)
{
	struct drm_mxa_submit s = good_submit(self);

	s.prog_handle = 0;
	EXPECT_EQ(-ENOENT, submit(self, &s));
	s.prog_handle = 0xdeadbeef;
	EXPECT_EQ(-ENOENT, submit(self, &s));
}

TEST_F(errors, submit_bad_queue)
{
	struct drm_mxa_submit s = good_submit(self);

	s.queue = self->info.num_queues;
	EXPECT_EQ(-EINVAL, submit(self, &s));
	s.queue = MXA_MAX_QUEUES;
	EXPECT_EQ(-EINVAL, submit(self, &s));
	s.queue = 0xffffffffu;
	EXPECT_EQ(-EINVAL, submit(self, &s));
}

TEST_F(errors, submit_bad_program_range)
{
	struct drm_mxa_submit s = good_submit(self);

	s.prog_size = 0;
	EXPECT_EQ(-EINVAL, submit(self, &s));
	s.prog_size = 6;			/* not a multiple of 4 */
	EXPECT_EQ(-EINVAL, submit(self, &s));
	s.prog_size = 4;
	s.prog_offset = 2;			/* misaligned */
	EXPECT_EQ(-EINVAL, submit(self, &s));
	s.prog_offset = self->prog.size - 4;	/* last dword: fine */
	EXPECT_EQ(0, submit(self, &s));
	s.prog_size = 8;			/* runs past the BO */
	EXPECT_EQ(-EINVAL, submit(self, &s));
	s.prog_offset = self->prog.size;
	s.prog_size = 4;
	EXPECT_EQ(-EINVAL, submit(self, &s));
	s.prog_offset = 0xfffffffcu;		/* offset + size overflows 32 bits */
	s.prog_size = 8;
	EXPECT_EQ(-EINVAL, submit(self, &s));
	s.prog_offset = 0;
	s.prog_size = MXA_PROG_MAX_SIZE + 4;	/* over the device limit */
	EXPECT_EQ(-EINVAL, submit(self, &s));
	s.prog_size = self->prog.size + 4;	/* bigger than the BO */
	EXPECT_EQ(-EINVAL, submit(self, &s));
}

TEST_F(errors, wait_bad_args)
{
	struct drm_mxa_submit s = good_submit(self);
	struct drm_mxa_wait w = { 0 };

	ASSERT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_SUBMIT, &s));
	w.job_id = s.job_id;
	w.flags = 1;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT, &w));
	w.flags = 0;
	w.pad = 1;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT, &w));
	w.pad = 0;
	w.timeout_ns = -1;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT, &w));
	w.timeout_ns = 10 * NSEC_PER_SEC;
	EXPECT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT, &w));
	EXPECT_EQ(0, w.result.status);
	EXPECT_EQ(-ENOENT, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT, &w));
	w.job_id = ~0ull;
	EXPECT_EQ(-ENOENT, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT, &w));
}

TEST_F(errors, job_ids_are_per_file)
{
	struct drm_mxa_submit s = good_submit(self);
	int fd2 = mxa_open();

	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_SUBMIT, &s));
	EXPECT_EQ(-ENOENT, mxa_wait(fd2, s.job_id, 0, NULL));
	EXPECT_EQ(0, mxa_wait(self->fd, s.job_id, 10 * NSEC_PER_SEC, NULL));
	close(fd2);
}

TEST_F(errors, submit_other_files_handle)
{
	struct drm_mxa_submit s = good_submit(self);
	int fd2 = mxa_open();

	ASSERT_GE(fd2, 0);
	/* Handles are per file: ours means nothing (or another BO) there. */
	s.prog_handle = self->prog.handle + 1000;
	EXPECT_EQ(-ENOENT, mxa_ioctl(fd2, DRM_IOCTL_MXA_SUBMIT, &s));
	close(fd2);
}

TEST_F(errors, query_bad_args)
{
	struct drm_mxa_query q = { .type = 1 };
	struct drm_mxa_device_info info;

	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_QUERY, &q));
	q.type = 0xffffffffu;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_QUERY, &q));
	q.type = DRM_MXA_QUERY_DEVICE;
	q.size = sizeof(info);
	q.pointer = 0x10;	/* unmapped */
	EXPECT_EQ(-EFAULT, mxa_ioctl(self->fd, DRM_IOCTL_MXA_QUERY, &q));
}

TEST_F(errors, bo_bad_args)
{
	struct drm_mxa_bo_create c = { .size = 4096, .flags = 2 };
	struct drm_mxa_bo_mmap_offset mo = { .handle = 0x7777 };

	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_CREATE, &c));
	c.flags = 0;
	c.size = 0;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_CREATE, &c));
	c.size = self->info.max_bo_size + 4096;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_CREATE, &c));
	EXPECT_EQ(-ENOENT, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo));
	mo.handle = self->prog.handle;
	mo.pad = 5;
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo));
}

TEST_F(errors, unknown_ioctls)
{
	uint64_t buf[16] = { 0 };

	/* Driver ioctl numbers past the table. */
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOWR(DRM_COMMAND_BASE + 0x30, uint64_t[2]),
				     buf));
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOWR(DRM_COMMAND_BASE + 0x3f, uint64_t[16]),
				     buf));
	/* Not a DRM ioctl at all. */
	EXPECT_EQ(-ENOTTY, mxa_ioctl(self->fd, _IOWR('x', 0x10, uint64_t), buf));
}

TEST_F(errors, kms_ioctls_refused)
{
	struct drm_mode_card_res res = { 0 };

	/* An accel node has no modesetting. */
	EXPECT_NE(0, mxa_ioctl(self->fd, DRM_IOCTL_MODE_GETRESOURCES, &res));
}

TEST_HARNESS_MAIN
