// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "examples": the example programs in /bin run and pass: accel-gemm (an
 * MX-FP8 GEMM through accel_gemm, checked against float64), accel-queues (producer and
 * consumer on two queues through a semaphore), accel-llm (a transformer decode step with
 * MXFP4 or NVFP4 weights, logits against float64) and accel-demo (jobs over all queues).
 * libaccel/examples/pipeline.s runs in the "asm" and "tools" tests.
 */
#include "mxa_test.h"

#include <stdio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

static char out[1 << 16];

static int sh(const char *cmd)
{
	char full[512];
	FILE *p;
	size_t n;
	int st;

	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	p = popen(full, "r");
	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(accel_gemm_mx_fp8)
{
	EXPECT_EQ(0, sh("/bin/accel-gemm 128 96 256"));
	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "result: PASS"));
	EXPECT_EQ(0, sh("/bin/accel-gemm 64 64 128 --type e5m2 --ioctl"));
	EXPECT_NE(NULL, strstr(out, "result: PASS"));
}

TEST(accel_queues_semaphores)
{
	EXPECT_EQ(0, sh("/bin/accel-queues 16"));
	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "PASS"));
}

/* The LLM decode example, small: its logits equal the float64 reference's. */
TEST(accel_llm_decode)
{
	EXPECT_EQ(0, sh("/bin/accel-llm --layers 2 --dim 256 --vocab 512 --steps 2"));
	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "result: PASS"));
}

/* The same in FAST numerics: within the check despite f32 roundings; a bad value refused. */
TEST(accel_llm_decode_fast)
{
	EXPECT_EQ(0, sh("/bin/accel-llm --layers 2 --dim 256 --vocab 512 --steps 2 --numerics fast"));
	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "FAST numerics"));
	EXPECT_NE(NULL, strstr(out, "result: PASS"));
	EXPECT_NE(0, sh("/bin/accel-llm --numerics quick"));
}

/*
 * With NVFP4 weights, the activations quantised to NVFP4 (the engine's NVFP4 GEMV): the
 * logits equal the float64 reference's in EXACT and FAST's chains' bit for bit; a
 * format it does not know refused.
 */
TEST(accel_llm_decode_nvfp4)
{
	EXPECT_EQ(0, sh("/bin/accel-llm --layers 2 --dim 256 --vocab 512 --steps 2 --weights nvfp4"));
	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "of NVFP4 weights"));
	EXPECT_NE(NULL, strstr(out, "result: PASS"));
	EXPECT_EQ(0, sh("/bin/accel-llm --layers 2 --dim 256 --vocab 512 --steps 2 --weights nvfp4 "
			"--numerics fast"));
	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "max |device - reference (FAST's f32 chains)| = 0 "));
	EXPECT_NE(NULL, strstr(out, "result: PASS"));
	EXPECT_NE(0, sh("/bin/accel-llm --weights fp4"));
}

TEST(accel_demo)
{
	EXPECT_EQ(0, sh("/bin/accel-demo -n 200"));
	EXPECT_NE(NULL, strstr(out, "PASS")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
