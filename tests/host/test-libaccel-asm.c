// SPDX-License-Identifier: MIT
/*
 * Host test: libaccel's assembler and disassembler. Every command of the table round
 * trips (text -> dwords -> the same text), the seeds' PTX and TMATMULMX forms assemble,
 * encodings equal those of the accel_prog_*() emitters, errors say line:column, and any
 * dwords at all disassemble to text that assembles back to them. The example programs
 * libaccel/examples/ *.s (run from the project root) round trip too.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "accel.h"
#include "mxa_isa.h"

static char text_buf[1 << 18];

/* assemble @text, disassemble with @flags: must give @text back */
static int round_trip(struct __test_metadata *_metadata, const char *text, unsigned flags)
{
	struct accel_prog *p;
	char err[256];
	int ret;

	ASSERT_EQ(0, accel_prog_new(&p));
	ret = accel_asm(text, p, err, sizeof(err));
	if (ret)
		TH_LOG("accel_asm: %s", err);
	EXPECT_EQ(0, ret);
	if (!ret) {
		accel_prog_disasm(p, flags, text_buf, sizeof(text_buf));
		EXPECT_STREQ(text, text_buf);
	}
	accel_prog_free(p);
	return ret;
}

static const char all_commands[] =
	"    NOP\n"
	"    FENCE_WRITE 0x1000, 42\n"
	"    TIMESTAMP 0x1008\n"
	"    TIMESTAMP.MODEL a31+0x1020\n"
	"    REG_SET r1, 100\n"
	"    REG_ADD r1, r1+16\n"
	"    REG_ADD r2, r1-16\n"
	"    REG_ADD r3, r1+r2\n"
	"    REG_ADD r3, r0+r2+5\n"
	"    REG_LOAD r4, 0x2000\n"
	"    REG_STORE r4, 0x2008\n"
	"    LOOP 4\n"
	"        LOOP r2+1\n"
	"            NOP\n"
	"        ENDLOOP\n"
	"    ENDLOOP\n"
	"    SEM_WAIT 0x3000, 1\n"
	"    SEM_WAIT 0x3000, 1, 5000\n"
	"    SEM_SIGNAL 0x3000, 1\n"
	"    SEM_SIGNAL.ADD 0x3000, 1\n"
	"    COMMIT_GROUP mma\n"
	"    WAIT_GROUP copy, 1\n"
	"    COPY r1+0x2000, 0x1000, 4096\n"
	"    COPY 0x2000, r2+0x1000, r3+64\n"
	"    TMA_LOAD 0, [0x40, {0, r1+16}], 0x30000\n"
	"    TMA_LOAD r3+0x800, [0x80, {-4, -2, 1}], r2+0x30000\n"
	"    TMA_STORE [0x40, {r1, 3}], 0x10000\n"
	"    MBAR_INIT 0x30000, 1\n"
	"    MBAR_ARRIVE 0x30000, 4096\n"
	"    MBAR_EXPECT_TX 0x30000, 4096\n"
	"    MBAR_COMPLETE_TX 0x30000, 4096\n"
	"    MBAR_WAIT 0x30000, 0\n"
	"    MBAR_WAIT 0x30000, r2\n"
	"    MBAR_WAIT 0x30000, r2+1\n"
	"    GEMM m=64, n=64, k=128, type_a=e4m3, type_b=e4m3, type_c=f32, type_d=f32, a=0x1000, "
	"b=0x2000, d=0x3000, scale_a=0x4000, scale_b=0x5000, scale_block=32\n"
	"    GEMM m=64, n=64, k=128, type_a=nvfp4, type_b=nvfp4, type_c=f32, type_d=f32, a=0x1000, "
	"b=0x2000, d=0x3000, scale_a=0x4000, scale_b=0x5000, scale_block=16\n"
	"    GEMM.ASYNC m=64, n=64, k=128, type_a=f16, type_b=f16, type_c=f32, type_d=f32, "
	"a=0x1000, b=0x2000, c=0x3000, d=0x3000, flags=acc|b_kn, lda=256, accum=fast, "
	"sched=interwave\n"
	"    WGMMA.ACC f32, f16, f16, 64, 0x10000, r3, r3+0x800\n"
	"    WGMMA.NEG_A.INTERWAVE f16, e4m3, e5m2, 256, 0x10000, 0, 0x800\n"
	"    .dword 0x000000ee\n";

TEST(every_command_round_trips)
{
	round_trip(_metadata, all_commands, 0);
}

TEST(tiles_tmatmulmx_mma_cvt_round_trip)
{
	round_trip(_metadata,
		   "    FENCE\n"
		   "    TILE_LOAD T#1, 0x1000, 64, 128\n"
		   "    TILE_LOAD.GLOBAL U#2.reuse, r1+0x100000, 64, 4, 256\n"
		   "    TILE_STORE 0x2000, ACC, 64, 256\n"
		   "    TMATMULMX.ACC <LB0:100, LB1:r1, LB2:r2+10, e4m3, e5m2> T#1, U#1, M#1, N#1, "
		   "ACC, ->ACC<64KB>\n"
		   "    TMATMULMX <LB0:64, LB1:64, LB2:64, bf16> T#1.reuse, M#2, ACC#3, ->ACC#3<16KB>\n"
		   "    TMATMULMX <LB0:16, LB1:8, LB2:72, nvfp4> T#1, U#1, M#1, N#1, ACC, ->ACC<1KB>\n"
		   "    MMA m16n8k16 f32, f16, f16, 0x100, 0x200, 0x300\n"
		   "    MMA.ACC.TILES m16n8k32 s32, s8, s8, ACC#1, T#0, M#0\n"
		   "    CVT.MX.RCEIL e4m3, f32, 64, 0x1000, 0, 0x2000\n"
		   "    CVT bf16, f32, 64, 0x1000, r1\n", 0);
}

TEST(seed_tmatmulmx_form)
{
	struct accel_prog *p;
	char err[256], text[512];
	const uint32_t *dw;

	ASSERT_EQ(0, accel_prog_new(&p));
	/* the seed's spelling: a0/a1 registers, a comma after '>' */
	ASSERT_EQ(0, accel_asm("TMATMULMX.ACC <LB0:100, LB1:a0, LB2:a1+10, e4m3, e5m2>, T#1, U#1, "
			       "M#1, N#1, ACC, ->ACC<64KB>", p, err, sizeof(err)));
	dw = accel_prog_dwords(p);
	EXPECT_EQ(MXA_CMD_HEADER(MXA_OP_TMATMULMX, MXA_TMM_DWORDS, MXA_TMM_F_ACC), dw[0]);
	EXPECT_EQ(MXA_REGS3(MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, 0), dw[1]);
	EXPECT_EQ(100, dw[2]);
	EXPECT_EQ(0, dw[3]);
	EXPECT_EQ(10, dw[4]);
	/* a0 and a1 are registers of their own (not r0, the zero register) */
	EXPECT_EQ(MXA_REGS3(0, MXA_AREG(0), MXA_AREG(1)), dw[5]);
	ASSERT_LT(0, accel_prog_disasm(p, 0, text, sizeof(text)));
	EXPECT_NE(NULL, strstr(text, "LB1:a0, LB2:a1+10")) TH_LOG("%s", text);
	EXPECT_EQ(MXA_TILE(MXA_TILE_T, 1) | MXA_TILE(MXA_TILE_U, 1) << 16, dw[6]);
	EXPECT_EQ(MXA_TILE(MXA_TILE_M, 1) | MXA_TILE(MXA_TILE_N, 1) << 16, dw[7]);
	EXPECT_EQ(MXA_TILE(MXA_TILE_ACC, 0), dw[8]);
	EXPECT_EQ(64 << 10, dw[9]);
	accel_prog_free(p);
}

/* Register names are r0..r31 and a0..a31, lowercase: A1 or R3 are symbols. */
TEST(register_names_do_not_capture_symbols)
{
	struct accel_prog *p;
	char err[256];
	const uint32_t *dw;

	ASSERT_EQ(0, accel_prog_new(&p));
	ASSERT_EQ(0, accel_asm(".equ A1, 7\n.equ R3, 9\nREG_SET a31, A1\nREG_ADD r1, r2 + R3\n",
			       p, err, sizeof(err))) TH_LOG("%s", err);
	dw = accel_prog_dwords(p);
	EXPECT_EQ(MXA_AREG(31), dw[1]);
	EXPECT_EQ(7, dw[2]);
	EXPECT_EQ(MXA_REGS3(1, 2, 0), dw[5]);
	EXPECT_EQ(9, dw[6]);
	accel_prog_free(p);

	ASSERT_EQ(0, accel_prog_new(&p));
	EXPECT_EQ(-EINVAL, accel_asm("REG_SET r32, 1", p, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "no register r32 (r0..r31, a0..a31)")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, accel_asm("REG_SET a32, 1", p, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "no register a32")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, accel_asm(".equ a1, 2", p, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "'a1' is a register name")) TH_LOG("%s", err);
	/* TMA coordinates have 5-bit register fields */
	EXPECT_EQ(-EINVAL, accel_asm("TMA_LOAD 0, [0x1000, {a1}], 0x40", p, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "a TMA coordinate register is r0..r31")) TH_LOG("%s", err);
	accel_prog_free(p);
}

TEST(ptx_forms_round_trip)
{
	round_trip(_metadata,
		   "    mbarrier.init 0x30000, 1;\n"
		   "    LOOP 4\n"
		   "        mbarrier.arrive.expect_tx 0x30000, 4096;\n"
		   "        TMA_LOAD r3, [0x100, {r1}], 0x30000\n"
		   "        mbarrier.try_wait.parity 0x30000, r2;\n"
		   "        WGMMA.ACC f32, f16, f16, 64, 0x10000, r3, r3+0x800\n"
		   "        wgmma.commit_group.sync.aligned;\n"
		   "        wgmma.wait_group.sync.aligned 1;\n"
		   "    ENDLOOP\n"
		   "    wgmma.wait_group.sync.aligned 0;\n"
		   "    TMA_STORE [0x200, {0}], 0x10000\n"
		   "    cp.async.bulk.commit_group;\n"
		   "    cp.async.bulk.wait_group 0;\n", ACCEL_DISASM_PTX);
}

TEST(ptx_forms_are_mxa_commands)
{
	struct accel_prog *a, *b;
	char err[256];

	ASSERT_EQ(0, accel_prog_new(&a));
	ASSERT_EQ(0, accel_prog_new(&b));
	ASSERT_EQ(0, accel_asm("wgmma.commit_group.sync.aligned;\n"
			       "wgmma.wait_group.sync.aligned 1;\n"
			       "cp.async.commit_group;\n"
			       "cp.async.wait_group 2;\n"
			       "mbarrier.init.shared::cta.b64 [0x100], 1;\n"
			       "mbarrier.arrive.expect_tx.shared::cta.b64 [0x100], 2048;\n"
			       "mbarrier.try_wait.parity.shared::cta.b64 [0x100], 1;\n"
			       "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
			       "[0x800], [0x40, {1, r2}], [0x100];\n"
			       "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [0x40, {r1, 2}], "
			       "[r2+0x800];\n", a, err, sizeof(err)));
	{
		struct accel_tma ld = { .map = 0x40, .sram = 0x800, .mbar = 0x100,
					.coord = { 1, 0 }, .coord_reg = { 0, 2 } };
		struct accel_tma st = { .map = 0x40, .sram = 0x800, .sram_reg = 2,
					.coord = { 0, 2 }, .coord_reg = { 1, 0 } };

		accel_prog_commit_group(b, MXA_GROUP_MMA);
		accel_prog_wait_group(b, MXA_GROUP_MMA, 1);
		accel_prog_commit_group(b, MXA_GROUP_COPY);
		accel_prog_wait_group(b, MXA_GROUP_COPY, 2);
		accel_prog_mbar_init(b, 0x100, 1);
		accel_prog_mbar_arrive(b, 0x100, 2048);
		accel_prog_mbar_wait(b, 0x100, 1, 0);
		accel_prog_tma(b, 0, &ld);
		accel_prog_tma(b, 1, &st);
	}
	ASSERT_EQ(accel_prog_size(b), accel_prog_size(a));
	EXPECT_EQ(0, memcmp(accel_prog_dwords(a), accel_prog_dwords(b), accel_prog_size(a)));
	EXPECT_EQ(accel_prog_commands(b), accel_prog_commands(a));
	accel_prog_free(a);
	accel_prog_free(b);
}

TEST(encodings_equal_the_emitters)
{
	struct accel_prog *a, *b;
	char err[256];
	struct accel_wgmma w = {
		.flags = MXA_WGMMA_F_ACCUMULATE | MXA_WGMMA_F_INTERWAVE, .type_a = MXA_DTYPE_E4M3,
		.type_b = MXA_DTYPE_E5M2, .type_d = MXA_DTYPE_F32, .n = 128, .a = 0x100, .a_reg = 3,
		.b = 0x2000, .d = 0x10000, .d_reg = 4,
	};
	struct accel_gemm g = {
		.m = 100, .n = 30, .k = 64, .type_a = MXA_DTYPE_E4M3, .type_b = MXA_DTYPE_E4M3,
		.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32, .scale_block = 32,
		.flags = MXA_GEMM_F_ACCUMULATE, .a = 0x10000, .b = 0x20000, .c = 0x30000,
		.d = 0x30000, .scale_a = 0x40000, .scale_b = 0x50000, .ldd = 128, .sched = 1,
	};

	ASSERT_EQ(0, accel_prog_new(&a));
	ASSERT_EQ(0, accel_prog_new(&b));
	ASSERT_EQ(0, accel_asm("  REG_SET r5, 0x123456789\n"
			       "  REG_ADD r6, r5+r7-1\n"
			       "  COPY r1+0x2000, r2+0x1000, r3+64\n"
			       "  SEM_WAIT 0x3000, 7, 100\n"
			       "  SEM_SIGNAL.ADD 0x3000, 1\n"
			       "  WGMMA.ACC.INTERWAVE f32, e4m3, e5m2, 128, r4+0x10000, r3+0x100, 0x2000\n"
			       "  GEMM m=100, n=30, k=64, type_a=e4m3, type_b=e4m3, type_c=f32, "
			       "type_d=f32, a=0x10000, b=0x20000, c=0x30000, d=0x30000, "
			       "scale_a=0x40000, scale_b=0x50000, scale_block=32, flags=acc, ldd=128, "
			       "sched=interwave\n"
			       "  LOOP r9+2\n  ENDLOOP\n", a, err, sizeof(err)));
	accel_prog_reg_set(b, 5, 0x123456789ull);
	accel_prog_reg_add(b, 6, 5, 7, (uint64_t)-1);
	accel_prog_copy(b, 0x2000, 1, 0x1000, 2, 64, 3);
	accel_prog_sem_wait(b, 0x3000, 7, 100);
	accel_prog_sem_signal(b, 0x3000, 1, 1);
	accel_prog_wgmma(b, &w);
	accel_prog_gemm(b, &g);
	accel_prog_loop(b, 2, 9);
	accel_prog_endloop(b);
	ASSERT_EQ(accel_prog_size(b), accel_prog_size(a));
	EXPECT_EQ(0, memcmp(accel_prog_dwords(a), accel_prog_dwords(b), accel_prog_size(a)));
	accel_prog_free(a);
	accel_prog_free(b);
}

static void expect_error(struct __test_metadata *_metadata, const char *text, const char *want)
{
	struct accel_prog *p;
	char err[256];

	ASSERT_EQ(0, accel_prog_new(&p));
	ASSERT_EQ(0, accel_prog_nop(p));
	EXPECT_EQ(-EINVAL, accel_asm(text, p, err, sizeof(err)));
	if (!strstr(err, want))
		TH_LOG("error '%s', want '%s'", err, want);
	EXPECT_NE(NULL, strstr(err, want));
	EXPECT_EQ(4, accel_prog_size(p));	/* unchanged */
	accel_prog_free(p);
}

TEST(errors_have_line_and_column)
{
	expect_error(_metadata, "NOP\n  FOO 1\n", "2:3: unknown command 'FOO'");
	expect_error(_metadata, "  REG_SET r32, 3\n", "1:11: no register r32");
	expect_error(_metadata, "FENCE_WRITE 0x1000+, 3\n", "1:20: expected a value");
	expect_error(_metadata, "  LOOP 3\n  NOP\n", "1:3: LOOP without ENDLOOP");
	expect_error(_metadata, "ENDLOOP\n", "1:1: ENDLOOP without LOOP");
	expect_error(_metadata, "k: LOOP 4\nl: LOOP 2\nENDLOOP k\nENDLOOP\n",
		     "3:9: ENDLOOP k closes the LOOP 'l' of line 2");
	expect_error(_metadata, "WAIT_GROUP dma, 0\n", "1:12: expected a class");
	expect_error(_metadata, "NOP 3\n", "1:5: unexpected '3'");
	expect_error(_metadata, "SEM_SIGNAL.SUB 0x10, 1\n", "1:11: SEM_SIGNAL has no suffix .SUB");
	expect_error(_metadata, "TIMESTAMP later\n", "1:11: undefined symbol 'later'");
	expect_error(_metadata, "MBAR_WAIT 0x100, 256\n", "1:18: value out of range");
	expect_error(_metadata, "WGMMA f32, f17, f16, 64, 0, 0, 0\n", "1:12: expected an element type");
	expect_error(_metadata, "FENCE_WRITE r1, 1\n", "1:13: no register allowed here");
	expect_error(_metadata, "TMA_LOAD 0, [0x41, {0}], 0\n", "1:14: tensor map address must be");
	expect_error(_metadata, ".buffer x, 4096\n", "1:1: .buffer: no buffers here");
	expect_error(_metadata, "TMATMULMX <LB0:1, LB1:2, e4m3> T#1, M#1, ACC, ->ACC<64KB>\n",
		     "1:26: expected LB2:");
}

TEST(labels_symbols_and_comments)
{
	struct accel_prog *p;
	char err[256];
	const uint32_t *dw;

	ASSERT_EQ(0, accel_prog_new(&p));
	ASSERT_EQ(0, accel_asm("; a comment\n"
			       ".equ OUT, 0x10000\n"
			       ".equ SLOT, end - start   // forward reference to labels\n"
			       "start: NOP\n"
			       "k_loop: LOOP 2   ; trips\n"
			       "    FENCE_WRITE OUT+SLOT, 1K\n"
			       "ENDLOOP k_loop\n"
			       "end:\n", p, err, sizeof(err)));
	dw = accel_prog_dwords(p);
	ASSERT_EQ(4 * (1 + 3 + 5 + 1), accel_prog_size(p));
	EXPECT_EQ(0x10000 + 40, dw[5]);
	EXPECT_EQ(1024, dw[7]);
	EXPECT_EQ(4, accel_prog_commands(p));
	accel_prog_free(p);
}

static int resolve(void *arg, const char *name, uint64_t *v)
{
	if (strcmp(name, "bufA"))
		return -ENOENT;
	*v = 0xabc000;
	return 0;
}

TEST(caller_symbols)
{
	struct accel_asm_opts o = { .filename = "x.s", .resolve = resolve };
	struct accel_prog *p;
	char err[256];

	ASSERT_EQ(0, accel_prog_new(&p));
	ASSERT_EQ(0, accel_asm_ex("TIMESTAMP bufA+8\n", &o, p, err, sizeof(err)));
	EXPECT_EQ(0xabc008, accel_prog_dwords(p)[1]);
	EXPECT_EQ(-EINVAL, accel_asm_ex("TIMESTAMP bufB\n", &o, p, err, sizeof(err)));
	EXPECT_STREQ("x.s:1:11: undefined symbol 'bufB'", err);
	accel_prog_free(p);
}

/* Any dwords disassemble to text that assembles back to exactly them. */
TEST(random_dwords_reassemble)
{
	static uint32_t dw[4096];
	struct accel_prog *p;
	char err[256];
	uint64_t x = 88172645463325252ull;
	const size_t ncmds = 64;

	ASSERT_EQ(0, accel_prog_new(&p));
	for (int round = 0; round < 200; round++) {
		size_t n = 0;

		/* mostly plausible headers with random operands and flags */
		for (size_t c = 0; c < ncmds && n < 4000; c++) {
			uint32_t ops[] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x07, 0x08, 0x09, 0x0a,
					   0x0b, 0x0c, 0x0d, 0x20, 0x21, 0x22, 0x23, 0x26, 0x27,
					   0x40, 0x41, 0x42, 0x43, 0x44, 0x7f };
			static const uint8_t len[] = { 1, 5, 3, 4, 4, 4, 3, 1, 6, 5, 1, 2, 1, 7, 12, 12,
						       3, 3, 8, 33, 7, 10, 7, 7, 2 };
			size_t i;
			uint32_t flags;

			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			i = x % (sizeof(ops) / sizeof(ops[0]));
			flags = (x >> 8) % 7 == 0 ? (uint32_t)(x >> 40) & 0xffff :
				(uint32_t)(x >> 40) & 1;
			dw[n++] = MXA_CMD_HEADER(ops[i], len[i], flags);
			for (int j = 1; j < len[i]; j++) {
				x ^= x << 13; x ^= x >> 7; x ^= x << 17;
				dw[n++] = (x >> 20) % 3 == 0 ? (uint32_t)x :
					  (x >> 20) % 3 == 1 ? (uint32_t)(x & 31) :
							       (uint32_t)(x & 0x1f1f1f);
			}
		}
		accel_prog_reset(p);
		accel_disasm(dw, n, 0, text_buf, sizeof(text_buf));
		if (accel_asm_ex(text_buf, NULL, p, err, sizeof(err)))
			TH_LOG("%s", err);
		ASSERT_EQ(n * 4, accel_prog_size(p));
		ASSERT_EQ(n * 4, accel_prog_size(p));
		ASSERT_EQ(0, memcmp(dw, accel_prog_dwords(p), n * 4));
	}
	accel_prog_free(p);
}

/* accel-run's buffers and tensor maps, at made-up addresses */
static int fake_buffer(void *arg, const char *name, uint64_t size, uint64_t *va)
{
	uint64_t *next = arg;

	*va = *next;
	*next += (size + 0xffff) & ~0xffffull;
	return 0;
}

static int fake_tmap(void *arg, const char *name, const void *map, uint64_t *va)
{
	return fake_buffer(arg, name, 128, va);
}

TEST(examples_round_trip)
{
	DIR *d = opendir("libaccel/examples");
	struct dirent *e;
	int seen = 0;

	if (!d)
		SKIP(return, "run from the project root to check libaccel/examples/*.s");
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char path[512];
		static char text[1 << 16];
		struct accel_prog *p;
		char err[256];
		FILE *f;
		size_t n;

		if (l < 3 || strcmp(e->d_name + l - 2, ".s"))
			continue;
		snprintf(path, sizeof(path), "libaccel/examples/%s", e->d_name);
		f = fopen(path, "r");
		ASSERT_NE(NULL, f);
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[n] = 0;
		/* examples use symbols accel-run defines; round trip their dwords */
		ASSERT_EQ(0, accel_prog_new(&p));
		if (p) {
			uint64_t next = 0x100000000ull;
			struct accel_asm_opts o = { .filename = path, .buffer = fake_buffer,
						    .tensor_map = fake_tmap, .arg = &next };
			int ret = accel_asm_ex(text, &o, p, err, sizeof(err));

			if (ret)
				TH_LOG("%s", err);
			ASSERT_EQ(0, ret);
		}
		{
			struct accel_prog *q;
			size_t len = accel_prog_size(p);

			accel_prog_disasm(p, 0, text_buf, sizeof(text_buf));
			ASSERT_EQ(0, accel_prog_new(&q));
			if (accel_asm(text_buf, q, err, sizeof(err)))
				TH_LOG("%s", err);
			ASSERT_EQ(len, accel_prog_size(q));
			EXPECT_EQ(0, memcmp(accel_prog_dwords(p), accel_prog_dwords(q), len));
			accel_prog_free(q);
		}
		accel_prog_free(p);
		seen++;
	}
	closedir(d);
	TH_LOG("%d example programs", seen);
	EXPECT_LT(0, seen);
}

TEST_HARNESS_MAIN
