// SPDX-License-Identifier: MIT
/*
 * Host test: libaccel's error texts and job explanations.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"

#include "accel.h"
#include "mxa_isa.h"

TEST(strerror_errnos)
{
	EXPECT_STREQ("success", accel_strerror(0));
	EXPECT_NE(NULL, strstr(accel_strerror(-ETIME), "timed out"));
	EXPECT_NE(NULL, strstr(accel_strerror(-EFAULT), "MMU fault"));
	EXPECT_NE(NULL, strstr(accel_strerror(-ECANCELED), "aborted"));
	/* Anything else falls back to the C library's text. */
	EXPECT_STREQ(strerror(EPERM), accel_strerror(-EPERM));
}

TEST(strerror_job_errors)
{
	int e;

	for (e = 1; e < MXA_ERR_COUNT; e++) {
		EXPECT_STRNE("unknown job error", accel_strerror(e));
		EXPECT_NE(0, strlen(accel_strerror(e)));
	}
	EXPECT_STREQ("unknown job error", accel_strerror(MXA_ERR_COUNT + 100));
	EXPECT_NE(NULL, strstr(accel_strerror(MXA_ERR_UNKNOWN_OPCODE), "opcode"));
}

TEST(opcode_names)
{
	EXPECT_STREQ("NOP", accel_opcode_name(MXA_OP_NOP));
	EXPECT_STREQ("FENCE_WRITE", accel_opcode_name(MXA_OP_FENCE_WRITE));
	EXPECT_STREQ("TIMESTAMP", accel_opcode_name(MXA_OP_TIMESTAMP));
	EXPECT_STREQ("?", accel_opcode_name(0xee));
}

TEST(cap_names)
{
	EXPECT_STREQ("NOP", accel_cap_name(0));
	EXPECT_STREQ("GEMM", accel_cap_name(5));
	EXPECT_EQ(NULL, accel_cap_name(63));
	EXPECT_EQ(NULL, accel_cap_name(64));
}

TEST(explain_success)
{
	struct accel_job_result r = { .status = 0, .job_id = 7, .start_ns = 100,
				      .end_ns = 350, .has_detail = 1 };
	char buf[256];

	accel_job_explain(&r, buf, sizeof(buf));
	EXPECT_STREQ("job 7 completed in 250 ns", buf);
}

/* MXA_ERR_BAD_OPERAND names the operand, its value and the reason (MXA_BADOP()). */
TEST(explain_bad_operand)
{
	struct accel_job_result r = {
		.status = -EIO, .error = MXA_ERR_BAD_OPERAND, .err_offset = 0x40,
		.err_opcode = MXA_CMD_HEADER(MXA_OP_TMATMULMX, MXA_TMM_DWORDS, MXA_TMM_F_ACC),
		.err_addr = 0, .err_info = MXA_BADOP(MXA_BADOP_SHAPE, MXA_OPERAND_K),
		.job_id = 4, .has_detail = 1,
	};
	char buf[512];

	accel_job_explain(&r, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "invalid math operands: K = 0: a dimension is 0")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "TMATMULMX")) TH_LOG("%s", buf);
	r.err_info = MXA_BADOP(MXA_BADOP_DTYPE, MXA_OPERAND_TYPE_B);
	r.err_addr = 40;
	accel_job_explain(&r, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "type_b = 40: unsupported type")) TH_LOG("%s", buf);
	r.err_info = MXA_BADOP(MXA_BADOP_INVALID, MXA_OPERAND_NONE);
	accel_job_explain(&r, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "reserved bits set (info 0x1)")) TH_LOG("%s", buf);
}

TEST(explain_mmu_fault)
{
	struct accel_job_result r = {
		.status = -EFAULT, .error = MXA_ERR_MMU_FAULT, .err_offset = 0x14,
		.err_opcode = MXA_CMD_HEADER(MXA_OP_FENCE_WRITE, MXA_FENCE_WRITE_DWORDS, 0),
		.err_addr = 0xdead000, .err_info = MXA_FAULT_WRITE | MXA_FAULT_NOT_PRESENT,
		.job_id = 3, .has_detail = 1,
	};
	char buf[512];
	int n;

	n = accel_job_explain(&r, buf, sizeof(buf));
	EXPECT_EQ((int)strlen(buf), n);
	EXPECT_NE(NULL, strstr(buf, "job 3 failed"));
	EXPECT_NE(NULL, strstr(buf, "FENCE_WRITE"));
	EXPECT_NE(NULL, strstr(buf, "0xdead000"));
	EXPECT_NE(NULL, strstr(buf, "write, page not mapped"));
	EXPECT_NE(NULL, strstr(buf, "offset 0x14"));
}

TEST(explain_bad_opcode)
{
	struct accel_job_result r = {
		.status = -EIO, .error = MXA_ERR_UNKNOWN_OPCODE, .err_offset = 8,
		.err_opcode = 0x000001ee, .job_id = 9, .has_detail = 1,
	};
	char buf[512];

	accel_job_explain(&r, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "unknown opcode"));
	EXPECT_NE(NULL, strstr(buf, "opcode 0xee"));
	EXPECT_NE(NULL, strstr(buf, "offset 0x8"));
}

TEST(explain_refused_and_truncated)
{
	struct accel_job_result r = { .status = -ENOENT };
	char small[8];
	char buf[256];
	int n;

	accel_job_explain(&r, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "submission refused"));
	n = accel_job_explain(&r, small, sizeof(small));
	EXPECT_EQ((int)strlen(buf), n);
	EXPECT_EQ(7, strlen(small));
}

TEST_HARNESS_MAIN
