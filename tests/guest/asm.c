// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "asm": programs written as text run on the device. The assembler's
 * output runs as the builder's would, the hand-written two-stage TMA + WGMMA pipeline of
 * libaccel/examples/pipeline.s gives the host engine's bits, PTX spellings run, and a
 * failing job is explained with its command disassembled. A builder's program, its
 * disassembly (accel_disasm, accel_prog_disasm, accel_disasm_cmd) and the text assembled
 * back (accel_asm) are the same dwords and run alike; opcodes are named.
 */
#include "mxa_test.h"

#include <stdio.h>

#include "accel.h"
#include "kselftest_harness.h"
#include "asm_pipeline.h"

#define SEC	NSEC_PER_SEC

struct named_bo {
	char name[32];
	struct accel_bo *bo;
};

FIXTURE(asm) {
	struct accel_device *dev;
	struct accel_bo *prog_bo, *maps;
	struct accel_prog *prog;
	struct named_bo bos[8];
	int nbos;
	uint32_t maps_used;
	struct accel_job_result r;
	char err[256];
};

FIXTURE_SETUP(asm)
{
	ASSERT_EQ(0, accel_open(NULL, ACCEL_SUBMIT_AUTO, &self->dev));
	ASSERT_EQ(0, accel_bo_alloc(self->dev, 1 << 16, &self->prog_bo));
	ASSERT_EQ(0, accel_bo_alloc(self->dev, 1 << 12, &self->maps));
	ASSERT_EQ(0, accel_prog_new(&self->prog));
}

FIXTURE_TEARDOWN(asm)
{
	for (int i = 0; i < self->nbos; i++)
		accel_bo_free(self->bos[i].bo);
	accel_prog_free(self->prog);
	accel_bo_free(self->maps);
	accel_bo_free(self->prog_bo);
	accel_close(self->dev);
}

static int cb_buffer(void *arg, const char *name, uint64_t size, uint64_t *va)
{
	FIXTURE_DATA(asm) *self = arg;
	struct named_bo *b = &self->bos[self->nbos];
	int ret;

	if (self->nbos == 8)
		return -ENOSPC;
	ret = accel_bo_alloc(self->dev, size, &b->bo);
	if (ret)
		return ret;
	snprintf(b->name, sizeof(b->name), "%s", name);
	*va = accel_bo_va(b->bo);
	self->nbos++;
	return 0;
}

static int cb_tmap(void *arg, const char *name, const void *map, uint64_t *va)
{
	FIXTURE_DATA(asm) *self = arg;

	memcpy((char *)accel_bo_map(self->maps) + self->maps_used, map, 128);
	*va = accel_bo_va(self->maps) + self->maps_used;
	self->maps_used += 128;
	return 0;
}

static void *bo_named(FIXTURE_DATA(asm) *self, const char *name)
{
	for (int i = 0; i < self->nbos; i++)
		if (!strcmp(self->bos[i].name, name))
			return accel_bo_map(self->bos[i].bo);
	return NULL;
}

static int assemble(FIXTURE_DATA(asm) *self, const char *text)
{
	struct accel_asm_opts o = { .filename = "test.s", .buffer = cb_buffer,
				    .tensor_map = cb_tmap, .arg = self };

	accel_prog_reset(self->prog);
	return accel_asm_ex(text, &o, self->prog, self->err, sizeof(self->err));
}

static int run(FIXTURE_DATA(asm) *self)
{
	struct accel_job *job;
	int ret;

	ret = accel_prog_upload(self->prog, self->prog_bo, 0);
	if (!ret)
		ret = accel_submit(self->dev, 0, self->prog_bo, 0, accel_prog_size(self->prog),
				   &job);
	if (ret)
		return ret;
	ret = accel_wait(job, 60 * SEC);
	if (!ret)
		self->r = *accel_job_result(job);
	accel_job_free(job);
	return ret;
}

TEST_F(asm, loop_registers_fence)
{
	uint64_t *out;

	ASSERT_EQ(0, assemble(self,
		".buffer out, 4096\n"
		"    REG_SET r1, 0\n"
		"    LOOP 10\n"
		"        REG_ADD r1, r1+3\n"
		"        REG_STORE r1, out+16\n"
		"    ENDLOOP\n"
		"    FENCE_WRITE out, 42\n"
		"    TIMESTAMP out+8\n")) TH_LOG("%s", self->err);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	out = bo_named(self, "out");
	EXPECT_EQ(42, out[0]);
	EXPECT_NE(0, out[1]);
	EXPECT_EQ(30, out[2]);
}

TEST_F(asm, pipeline_example_bit_exact)
{
	static uint16_t a[64 * PIPE_K], b[64 * PIPE_K];
	static float want[64 * 64];
	float *d;
	int bad = 0;

	if (!(accel_device_info(self->dev)->caps & MXA_CAP_WGMMA))
		SKIP(return, "no WGMMA");
	ASSERT_EQ(0, assemble(self, pipeline_s)) TH_LOG("%s", self->err);
	pipeline_inputs(a, b);
	memcpy(bo_named(self, "A"), a, sizeof(a));
	memcpy(bo_named(self, "B"), b, sizeof(b));
	d = bo_named(self, "D");
	memset(d, 0xff, 64 * 64 * 4);
	ASSERT_EQ(0, run(self));
	if (self->r.status) {
		char why[2048];

		accel_job_explain_prog(&self->r, accel_prog_dwords(self->prog),
				       accel_prog_size(self->prog) / 4, why, sizeof(why));
		TH_LOG("%s", why);
	}
	ASSERT_EQ(0, self->r.status);
	ASSERT_EQ(0, pipeline_expect(a, b, want));
	for (int i = 0; i < 64 * 64; i++)
		if (memcmp(&d[i], &want[i], 4) && bad++ < 5)
			TH_LOG("D[%d] = %a, engine %a", i, d[i], want[i]);
	EXPECT_EQ(0, bad);
}

TEST_F(asm, explain_shows_the_command)
{
	char why[2048];

	if (!(accel_device_info(self->dev)->caps & MXA_CAP_WGMMA))
		SKIP(return, "no WGMMA");
	ASSERT_EQ(0, assemble(self,
		".buffer out, 64K\n"
		".tmap tD, addr=out, elem=4, dims={64, 64}, box={64, 64}\n"
		"    NOP\n"
		"    LOOP 1\n"
		"        WGMMA f32, f16, f16, 64, 0x10000, 0, 0x800\n"
		"        wgmma.commit_group.sync.aligned;\n"
		"        TMA_STORE [tD, {0, 0}], 0x10000\n"
		"    ENDLOOP\n")) TH_LOG("%s", self->err);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(MXA_ERR_ACC_HAZARD, self->r.error);
	EXPECT_EQ(4 + 12 + 28 + 4, self->r.err_offset);
	accel_job_explain_prog(&self->r, accel_prog_dwords(self->prog),
			       accel_prog_size(self->prog) / 4, why, sizeof(why));
	TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(why, "command at 0x0030: TMA_STORE ["));
	EXPECT_NE(NULL, strstr(why, "(inside 1 loop)"));
	EXPECT_NE(NULL, strstr(why, "hint: wait for the WGMMA first"));
}

TEST_F(asm, ptx_and_mxa_spellings_run_alike)
{
	uint64_t *out;

	ASSERT_EQ(0, assemble(self,
		".buffer src, 4096\n"
		".buffer out, 4096\n"
		"    COPY out, src, 64\n"
		"    cp.async.commit_group;\n"
		"    cp.async.wait_group 0;\n"
		"    REG_LOAD r3, out+8\n"
		"    REG_STORE r3, out+128\n")) TH_LOG("%s", self->err);
	((uint64_t *)bo_named(self, "src"))[1] = 0x1234567890ull;
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	out = bo_named(self, "out");
	EXPECT_EQ(0x1234567890ull, out[1]);
	EXPECT_EQ(0x1234567890ull, out[16]);
}

/*
 * The builder's program, its disassembly (whole, per program, per command) and the
 * reassembled text are the same dwords, and the reassembled program runs alike.
 */
TEST_F(asm, disassembly_reassembles_and_runs)
{
	struct accel_prog *again;
	uint64_t out = accel_bo_va(self->maps) + 2048;
	uint64_t *o = (uint64_t *)((char *)accel_bo_map(self->maps) + 2048);
	static char text[4096], text2[4096];
	const uint32_t *dw;
	size_t count, at = 0, used, cmds = 0;
	char line[256];
	int len;

	ASSERT_EQ(0, accel_prog_reg_set(self->prog, 1, 5));
	ASSERT_EQ(0, accel_prog_loop(self->prog, 3, 0));
	ASSERT_EQ(0, accel_prog_reg_add(self->prog, 1, 1, 0, 7));
	ASSERT_EQ(0, accel_prog_endloop(self->prog));
	ASSERT_EQ(0, accel_prog_reg_store(self->prog, 1, out));
	ASSERT_EQ(0, accel_prog_timestamp(self->prog, out + 8));
	ASSERT_EQ(0, accel_prog_fence_write(self->prog, out + 16, 0xfeed));
	EXPECT_EQ(7, accel_prog_commands(self->prog));
	dw = accel_prog_dwords(self->prog);
	count = accel_prog_size(self->prog) / 4;

	len = accel_prog_disasm(self->prog, 0, text, sizeof(text));
	ASSERT_GT(len, 0);
	ASSERT_LT(len, sizeof(text));
	TH_LOG("\n%s", text);
	EXPECT_EQ(len, accel_disasm(dw, count, 0, text2, sizeof(text2)));
	EXPECT_STREQ(text, text2);
	EXPECT_NE(NULL, strstr(text, "    LOOP 3\n        REG_ADD r1, r1+7\n    ENDLOOP\n"));
	/* snprintf-like: a short buffer gets the same length back, NUL-terminated */
	EXPECT_EQ(len, accel_disasm(dw, count, 0, text2, 8));
	EXPECT_EQ(7, strlen(text2));

	/* command by command: lengths add up, each names its opcode */
	while (at < count) {
		used = 0;
		ASSERT_GT(accel_disasm_cmd(dw + at, count - at, 0, line, sizeof(line), &used), 0);
		ASSERT_GT(used, 0);
		EXPECT_EQ(0, strncmp(line, accel_opcode_name(MXA_CMD_OPCODE(dw[at])),
				     strlen(accel_opcode_name(MXA_CMD_OPCODE(dw[at])))))
			TH_LOG("'%s' vs %s", line, accel_opcode_name(MXA_CMD_OPCODE(dw[at])));
		at += used;
		cmds++;
	}
	EXPECT_EQ(count, at);
	EXPECT_EQ(7, cmds);
	EXPECT_STREQ("?", accel_opcode_name(0xfe));

	/* the text assembles back to the same dwords, and runs */
	ASSERT_EQ(0, accel_prog_new(&again));
	ASSERT_EQ(0, accel_asm(text, again, self->err, sizeof(self->err))) TH_LOG("%s", self->err);
	ASSERT_EQ(accel_prog_size(self->prog), accel_prog_size(again));
	EXPECT_EQ(0, memcmp(dw, accel_prog_dwords(again), accel_prog_size(again)));
	EXPECT_EQ(7, accel_prog_commands(again));
	accel_prog_free(self->prog);
	self->prog = again;
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(5 + 3 * 7, o[0]);
	EXPECT_NE(0, o[1]);
	EXPECT_EQ(0xfeed, o[2]);

	/* errors: line:column, program unchanged */
	EXPECT_EQ(-EINVAL, accel_asm("  NOP\n  FENCE_WRITE 3\n", again, self->err,
				     sizeof(self->err)));
	EXPECT_EQ(0, strncmp(self->err, "2:", 2)) TH_LOG("%s", self->err);
	EXPECT_EQ(count * 4, accel_prog_size(again));
}

/* A failed job's opcode, named. */
TEST_F(asm, failing_command_named)
{
	ASSERT_EQ(0, accel_asm("NOP\nFENCE_WRITE 0x1000, 1\n", self->prog, self->err,
			       sizeof(self->err)));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(-EFAULT, self->r.status);
	EXPECT_EQ(4, self->r.err_offset);
	EXPECT_STREQ("FENCE_WRITE", accel_opcode_name(MXA_CMD_OPCODE(self->r.err_opcode)));
}

TEST_HARNESS_MAIN
