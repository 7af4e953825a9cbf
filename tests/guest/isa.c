// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "isa": the device's control commands through libaccel: scalar
 * registers, LOOP/ENDLOOP (nesting, zero trips, the command budget), cross-queue
 * semaphores (wait, signal, add, timeout), and the errors each reports with the offset
 * of the failing command.
 */
#include "mxa_test.h"

#include <stdio.h>

#include "accel.h"
#include "kselftest_harness.h"

#define SEC	NSEC_PER_SEC

FIXTURE(isa) {
	struct accel_device *dev;
	struct accel_bo *prog_bo, *data_bo;
	struct accel_prog *prog;
	volatile uint64_t *data;
	uint64_t va;
	struct accel_job_result r;
};

FIXTURE_SETUP(isa)
{
	ASSERT_EQ(0, accel_open(NULL, ACCEL_SUBMIT_AUTO, &self->dev));
	if (!(accel_device_info(self->dev)->caps & MXA_CAP_CONTROL))
		SKIP(return, "device without MXA_CAP_CONTROL");
	ASSERT_EQ(0, accel_bo_alloc(self->dev, 1 << 20, &self->prog_bo));
	ASSERT_EQ(0, accel_bo_alloc(self->dev, 1 << 16, &self->data_bo));
	ASSERT_EQ(0, accel_prog_new(&self->prog));
	self->data = accel_bo_map(self->data_bo);
	self->va = accel_bo_va(self->data_bo);
}

FIXTURE_TEARDOWN(isa)
{
	accel_prog_free(self->prog);
	accel_bo_free(self->data_bo);
	accel_bo_free(self->prog_bo);
	accel_close(self->dev);
}

/* Run the fixture's program at @offset of prog_bo on @queue; its result in self->r. */
static int run_at(FIXTURE_DATA(isa) *self, unsigned int queue, size_t offset)
{
	struct accel_job *job;
	int ret;

	ret = accel_prog_upload(self->prog, self->prog_bo, offset);
	if (!ret)
		ret = accel_submit(self->dev, queue, self->prog_bo, offset,
				   accel_prog_size(self->prog), &job);
	if (ret)
		return ret;
	ret = accel_wait(job, 30 * SEC);
	if (!ret) {
		self->r = *accel_job_result(job);
		if (self->r.status) {
			char why[256];

			accel_job_explain(&self->r, why, sizeof(why));
			fprintf(stderr, "# %s\n", why);
		}
	}
	accel_job_free(job);
	return ret;
}

static int run(FIXTURE_DATA(isa) *self)
{
	return run_at(self, 0, 0);
}

TEST_F(isa, registers)
{
	struct accel_prog *p = self->prog;

	ASSERT_EQ(0, accel_prog_reg_set(p, 1, 0x123456789abcdef0ull));
	ASSERT_EQ(0, accel_prog_reg_add(p, 2, 1, 1, 5));	/* R2 = 2 * R1 + 5 */
	ASSERT_EQ(0, accel_prog_reg_set(p, 0, 77));		/* ignored */
	ASSERT_EQ(0, accel_prog_reg_add(p, 3, 0, 0, (uint64_t)-1));
	ASSERT_EQ(0, accel_prog_reg_store(p, 1, self->va));
	ASSERT_EQ(0, accel_prog_reg_store(p, 2, self->va + 8));
	ASSERT_EQ(0, accel_prog_reg_store(p, 0, self->va + 16));
	ASSERT_EQ(0, accel_prog_reg_store(p, 3, self->va + 24));
	self->data[16] = 0xfeedull;
	ASSERT_EQ(0, accel_prog_reg_load(p, 4, self->va + 128));
	ASSERT_EQ(0, accel_prog_reg_add(p, 4, 4, 0, 1));
	ASSERT_EQ(0, accel_prog_reg_store(p, 4, self->va + 32));
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(0x123456789abcdef0ull, self->data[0]);
	EXPECT_EQ(0x123456789abcdef0ull * 2 + 5, self->data[1]);
	EXPECT_EQ(0, self->data[2]);
	EXPECT_EQ((uint64_t)-1, self->data[3]);
	EXPECT_EQ(0xfeeeull, self->data[4]);
}

TEST_F(isa, loops_nested_and_from_register)
{
	struct accel_prog *p = self->prog;

	ASSERT_EQ(0, accel_prog_reg_set(p, 5, 7));
	ASSERT_EQ(0, accel_prog_loop(p, 100, 0));
	ASSERT_EQ(0, accel_prog_reg_add(p, 1, 1, 0, 3));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, accel_prog_loop(p, 3, 5));			/* 3 + R5 = 10 trips */
	ASSERT_EQ(0, accel_prog_loop(p, 5, 0));
	ASSERT_EQ(0, accel_prog_loop(p, 2, 0));
	ASSERT_EQ(0, accel_prog_loop(p, 2, 0));			/* depth 4 */
	ASSERT_EQ(0, accel_prog_reg_add(p, 2, 2, 0, 1));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, accel_prog_reg_add(p, 3, 3, 0, 1));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, accel_prog_loop(p, 0, 0));			/* zero trips: skipped */
	ASSERT_EQ(0, accel_prog_loop(p, 9, 0));
	ASSERT_EQ(0, accel_prog_fence_write(p, self->va + 24, 99));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, accel_prog_reg_store(p, 1, self->va));
	ASSERT_EQ(0, accel_prog_reg_store(p, 2, self->va + 8));
	ASSERT_EQ(0, accel_prog_reg_store(p, 3, self->va + 16));
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(300, self->data[0]);
	EXPECT_EQ(10 * 5 * 2 * 2, self->data[1]);
	EXPECT_EQ(10, self->data[2]);
	EXPECT_EQ(0, self->data[3]);
}

TEST_F(isa, loop_budget_exceeded)
{
	struct accel_prog *p = self->prog;
	uint32_t loop_at;

	ASSERT_EQ(0, accel_prog_nop(p));
	loop_at = accel_prog_size(p);
	ASSERT_EQ(0, accel_prog_loop(p, 0xffffffffu, 0));
	ASSERT_EQ(0, accel_prog_nop(p));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, accel_prog_fence_write(p, self->va, 1));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(-EIO, self->r.status);
	EXPECT_EQ(MXA_ERR_LOOP_BUDGET, self->r.error);
	/* the budget runs out inside the body: at the NOP or the ENDLOOP */
	EXPECT_GT(self->r.err_offset, loop_at);
	EXPECT_EQ(0, self->data[0]);
}

TEST_F(isa, loop_errors)
{
	const uint32_t bad_reg_set[] = { MXA_CMD_HEADER(MXA_OP_REG_SET, 4, 0), MXA_NUM_REGS, 1, 0 };
	struct accel_prog *p = self->prog;
	uint32_t at;
	int i;

	/* five deep */
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, accel_prog_loop(p, 1, 0));
	at = accel_prog_size(p);
	ASSERT_EQ(0, accel_prog_loop(p, 1, 0));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_LOOP_NESTING, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);

	/* ENDLOOP without LOOP */
	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_nop(p));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_LOOP_NESTING, self->r.error);
	EXPECT_EQ(4, self->r.err_offset);

	/* LOOP without ENDLOOP (one trip, and zero trips) */
	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_nop(p));
	ASSERT_EQ(0, accel_prog_loop(p, 2, 0));
	ASSERT_EQ(0, accel_prog_nop(p));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_LOOP_NESTING, self->r.error);
	EXPECT_EQ(4, self->r.err_offset);
	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_loop(p, 0, 0));
	ASSERT_EQ(0, accel_prog_nop(p));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_LOOP_NESTING, self->r.error);
	EXPECT_EQ(0, self->r.err_offset);

	/* register 64 does not exist (a31 is 63) */
	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_nop(p));
	ASSERT_EQ(0, accel_prog_raw(p, bad_reg_set, 4));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_BAD_REGISTER, self->r.error);
	EXPECT_EQ(4, self->r.err_offset);
	EXPECT_EQ(MXA_NUM_REGS, self->r.err_info);
}

TEST_F(isa, semaphore_across_queues)
{
	struct accel_prog *p = self->prog;
	struct accel_job *waiter, *signaller;
	uint64_t sem = self->va + 4096;
	const struct accel_job_result *rw, *rs;

	if (accel_device_info(self->dev)->num_queues < 2)
		SKIP(return, "one queue");
	/* queue 1: say it runs (data[4] = 1), wait for sem >= 2, then copy what queue 0
	 * wrote */
	ASSERT_EQ(0, accel_prog_fence_write(p, self->va + 32, 1));
	ASSERT_EQ(0, accel_prog_sem_wait(p, sem, 2, 5000000));
	ASSERT_EQ(0, accel_prog_reg_load(p, 1, self->va + 8));
	ASSERT_EQ(0, accel_prog_reg_store(p, 1, self->va + 16));
	ASSERT_EQ(0, accel_prog_upload(p, self->prog_bo, 0));
	ASSERT_EQ(0, accel_submit(self->dev, 1, self->prog_bo, 0, accel_prog_size(p), &waiter));
	ASSERT_EQ(0, accel_flush(self->dev));
	/* the waiter runs on the device: it is at its wait, with nothing signalled yet */
	ASSERT_TRUE(mxa_wait_until(self->data[4] == 1, 10000));
	EXPECT_FALSE(accel_job_done(waiter));
	/* queue 0: write the payload, signal +1 twice */
	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_fence_write(p, self->va + 8, 0xabcdef));
	ASSERT_EQ(0, accel_prog_sem_signal(p, sem, 1, 1));
	ASSERT_EQ(0, accel_prog_sem_signal(p, sem, 1, 1));
	ASSERT_EQ(0, accel_prog_upload(p, self->prog_bo, 4096));
	ASSERT_EQ(0, accel_submit(self->dev, 0, self->prog_bo, 4096, accel_prog_size(p),
				  &signaller));
	ASSERT_EQ(0, accel_wait(waiter, 30 * SEC));
	ASSERT_EQ(0, accel_wait(signaller, 30 * SEC));
	rw = accel_job_result(waiter);
	rs = accel_job_result(signaller);
	EXPECT_EQ(0, rw->status);
	EXPECT_EQ(0, rs->status);
	EXPECT_EQ(2, self->data[4096 / 8]);
	EXPECT_EQ(0xabcdef, self->data[2]);
	EXPECT_GE(rw->end_ns, rs->start_ns);
	accel_job_free(waiter);
	accel_job_free(signaller);
}

TEST_F(isa, semaphore_write_and_timeout)
{
	struct accel_prog *p = self->prog;
	uint32_t at;

	ASSERT_EQ(0, accel_prog_sem_signal(p, self->va, 41, 0));
	ASSERT_EQ(0, accel_prog_sem_signal(p, self->va, 1, 1));
	ASSERT_EQ(0, accel_prog_sem_wait(p, self->va, 42, 0));	/* already there */
	at = accel_prog_size(p);
	ASSERT_EQ(0, accel_prog_sem_wait(p, self->va, 43, 20000));
	ASSERT_EQ(0, accel_prog_fence_write(p, self->va + 8, 1));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_SEM_TIMEOUT, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(self->va, self->r.err_addr);
	EXPECT_EQ(42, self->data[0]);
	EXPECT_EQ(0, self->data[1]);
	EXPECT_GE(self->r.end_ns - self->r.start_ns, 20000000ull);
}

TEST_HARNESS_MAIN
