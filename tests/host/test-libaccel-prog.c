// SPDX-License-Identifier: MIT
/*
 * Host test: libaccel's program builder emits the encodings of uapi/mxa_isa.h.
 */
#include <errno.h>

#include "kselftest_harness.h"

#include "accel.h"
#include "mxa_isa.h"

FIXTURE(prog) {
	struct accel_prog *prog;
};

FIXTURE_SETUP(prog)
{
	ASSERT_EQ(0, accel_prog_new(&self->prog));
	ASSERT_EQ(0, accel_prog_size(self->prog));
}

FIXTURE_TEARDOWN(prog)
{
	accel_prog_free(self->prog);
}

TEST_F(prog, nop)
{
	ASSERT_EQ(0, accel_prog_nop(self->prog));
	ASSERT_EQ(4, accel_prog_size(self->prog));
	EXPECT_EQ(0x00000100u, accel_prog_dwords(self->prog)[0]);
	EXPECT_EQ(MXA_OP_NOP, MXA_CMD_OPCODE(accel_prog_dwords(self->prog)[0]));
	EXPECT_EQ(1, MXA_CMD_DWORDS(accel_prog_dwords(self->prog)[0]));
	EXPECT_EQ(1, accel_prog_commands(self->prog));
}

TEST_F(prog, fence_write)
{
	const uint32_t *dw;

	ASSERT_EQ(0, accel_prog_fence_write(self->prog, 0x123456789abcdef8ull,
					    0xfedcba9876543210ull));
	ASSERT_EQ(20, accel_prog_size(self->prog));
	dw = accel_prog_dwords(self->prog);
	EXPECT_EQ(0x00000501u, dw[0]);
	EXPECT_EQ(0x9abcdef8u, dw[1]);
	EXPECT_EQ(0x12345678u, dw[2]);
	EXPECT_EQ(0x76543210u, dw[3]);
	EXPECT_EQ(0xfedcba98u, dw[4]);
}

TEST_F(prog, timestamp)
{
	const uint32_t *dw;

	ASSERT_EQ(0, accel_prog_timestamp(self->prog, 0x0000004000001008ull));
	ASSERT_EQ(12, accel_prog_size(self->prog));
	dw = accel_prog_dwords(self->prog);
	EXPECT_EQ(0x00000302u, dw[0]);
	EXPECT_EQ(0x00001008u, dw[1]);
	EXPECT_EQ(0x00000040u, dw[2]);
}

TEST_F(prog, misaligned_operands_rejected)
{
	EXPECT_EQ(-EINVAL, accel_prog_fence_write(self->prog, 0x1004, 1));
	EXPECT_EQ(-EINVAL, accel_prog_timestamp(self->prog, 0x1001));
	/* A failed emit leaves the program unchanged. */
	EXPECT_EQ(0, accel_prog_size(self->prog));
	EXPECT_EQ(0, accel_prog_commands(self->prog));
}

TEST_F(prog, sequence_and_growth)
{
	size_t i;

	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, accel_prog_nop(self->prog));
		ASSERT_EQ(0, accel_prog_fence_write(self->prog, 0x100000 + 8 * i, i));
		ASSERT_EQ(0, accel_prog_timestamp(self->prog, 0x200000 + 8 * i));
	}
	EXPECT_EQ(1000 * 4 * (1 + 5 + 3), accel_prog_size(self->prog));
	EXPECT_EQ(3000, accel_prog_commands(self->prog));
	/* The 500th FENCE_WRITE: dwords 9*500 + 1 .. */
	EXPECT_EQ(0x00000501u, accel_prog_dwords(self->prog)[9 * 500 + 1]);
	EXPECT_EQ(500u, accel_prog_dwords(self->prog)[9 * 500 + 1 + 3]);
}

TEST_F(prog, raw_and_reset)
{
	const uint32_t bad[2] = { 0xdeadbeef, 0 };

	ASSERT_EQ(0, accel_prog_raw(self->prog, bad, 2));
	EXPECT_EQ(8, accel_prog_size(self->prog));
	EXPECT_EQ(0xdeadbeefu, accel_prog_dwords(self->prog)[0]);
	EXPECT_EQ(0, accel_prog_commands(self->prog));
	accel_prog_reset(self->prog);
	EXPECT_EQ(0, accel_prog_size(self->prog));
	ASSERT_EQ(0, accel_prog_nop(self->prog));
	EXPECT_EQ(0x00000100u, accel_prog_dwords(self->prog)[0]);
}

TEST_HARNESS_MAIN
