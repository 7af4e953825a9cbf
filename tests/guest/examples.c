// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "examples": the example programs in /bin run and pass: accel-gemm (an
 * MX-FP8 GEMM through accel_gemm, checked against float64), accel-queues (producer and
 * consumer on two queues through a semaphore), accel-llm (a transformer decode step with
 * MXFP4 or NVFP4 weights, logits against float64; its --profile, --csv and --gemms-only
 * lines) and accel-demo (jobs over all queues).
 * libaccel/examples/pipeline.s runs in the "asm" and "tools" tests.
 */
#include "mxa_test.h"

#include <math.h>
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

/* Run @cmd, which must pass; where its output's first line starting with @line is, or NULL. */
static const char *passing_line(struct __test_metadata *_metadata, const char *cmd,
				const char *line)
{
	EXPECT_EQ(0, sh(cmd));
	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "result: PASS"));
	return strstr(out, line);
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

/* The LLM decode example, small: its logits equal the float64 reference's, attention's
 * products on the device too. */
TEST(accel_llm_decode)
{
	EXPECT_EQ(0, sh("/bin/accel-llm --layers 2 --dim 256 --vocab 512 --steps 2"));
	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "result: PASS"));
}

/*
 * --profile: each kind of matrix with its shape, its calls, and device times that add up
 * (a call's times the calls make the step's; the weight kinds' make the step's weight
 * GEMMs, attention's score and value products against the KV cache its attention
 * GEMMs), and the step's wall time as its accel_gemm() calls and the CPU's parts; --csv:
 * the model's weight bytes, the weight GEMMs' device time and the step's wall time,
 * which holds them.
 */
TEST(accel_llm_profile_and_csv)
{
	static const struct { const char *kind; unsigned n, k, calls; } want[] = {
		{ "qkv", 768, 256, 2 }, { "o", 256, 256, 2 }, { "up", 1024, 256, 2 },
		{ "down", 256, 1024, 2 }, { "head", 512, 256, 1 },
		{ "score", 17, 256, 2 }, { "value", 256, 17, 2 },	/* 16 cached tokens + 1 */
	};
	double sum = 0, attn = 0, dev_ms = -1, attn_ms = -1, dev_ns = 0, step_ns = 0;
	double step = -1, in_calls = -1, dev = -1, cpu = -1;	/* the line "step: " */
	unsigned attn_gemms = 0;
	unsigned long long bytes = 0;
	const char *at;

	at = passing_line(_metadata, "/bin/accel-llm --layers 2 --dim 256 --vocab 512 --steps 2 "
			  "--profile --csv", "device GEMMs ");
	ASSERT_NE(NULL, at);
	EXPECT_EQ(3, sscanf(at, "device GEMMs %lf ms: %*f GB/s of weights; attention's %u GEMMs "
			    "%lf ms", &dev_ms, &attn_gemms, &attn_ms));
	EXPECT_EQ(4, attn_gemms);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char head[16], kind[8];
		unsigned n = 0, k = 0, calls = 0;
		double call = -1, step = -1, gbps = -1;

		snprintf(head, sizeof(head), "\n%s ", want[i].kind);
		at = strstr(out, head);
		ASSERT_NE(NULL, at) TH_LOG("no line for %s", want[i].kind);
		ASSERT_EQ(7, sscanf(at + 1, "%7s %u x %u %u %lf %lf %lf", kind, &n, &k, &calls, &call,
				    &step, &gbps));
		EXPECT_EQ(want[i].n, n);
		EXPECT_EQ(want[i].k, k);
		EXPECT_EQ(want[i].calls, calls);
		EXPECT_GT(call, 0);
		EXPECT_GT(gbps, 0);
		EXPECT_LE(fabs(call * calls - step), 0.005 * calls + 0.005);
		if (i < 5)
			sum += step;
		else
			attn += step;
	}
	EXPECT_LE(fabs(sum - dev_ms), 0.05 + 0.005 * 5);
	EXPECT_LE(fabs(attn - attn_ms), 0.05 + 0.005 * 2);
	/* the step's wall time: its accel_gemm() calls, which hold their device time, and
	 * the CPU's parts (each figure rounded to 0.1 ms) */
	at = strstr(out, "\nstep: ");
	ASSERT_NE(NULL, at);
	ASSERT_EQ(4, sscanf(at + 1, "step: %lf ms = accel_gemm() calls %lf ms (%lf ms of them on "
			    "the device) + the CPU's parts %lf ms", &step, &in_calls, &dev, &cpu));
	EXPECT_LE(fabs(dev - dev_ms - attn_ms), 0.15);
	EXPECT_GE(in_calls + 0.05, dev);
	EXPECT_GT(cpu, 0);
	EXPECT_LE(fabs(step - in_calls - cpu), 0.15);
	at = strstr(out, "\nllm,mxfp4-2x256,");
	ASSERT_NE(NULL, at);
	ASSERT_EQ(3, sscanf(at + 1, "llm,mxfp4-2x256,%llu,%lf,%lf", &bytes, &dev_ns, &step_ns));
	/* 2 layers of 12 d^2 weights and the 512 x 256 head: half a byte and a 32nd each */
	EXPECT_EQ((2ull * 12 * 256 * 256 + 512 * 256) * 17 / 32, bytes);
	EXPECT_LE(fabs(dev_ns / 1e6 - dev_ms), 0.05);
	EXPECT_GT(step_ns, dev_ns);
}

/*
 * --gemms-only: a step's 4 L + 1 GEMMs alone, on the activations each got in the step,
 * whose wall time holds their device time, the time a call beyond the device that the
 * two give, and outputs equal to the step's.
 */
TEST(accel_llm_gemms_only)
{
	unsigned calls = 0, steps = 0;
	double wall = -1, dev = -1, beyond = -1;
	const char *at;

	at = passing_line(_metadata, "/bin/accel-llm --layers 2 --dim 256 --vocab 512 --steps 2 "
			  "--gemms-only", "GEMMs alone: ");
	ASSERT_NE(NULL, at);
	ASSERT_EQ(5, sscanf(at, "GEMMs alone: %u calls a step, best of %u: %lf ms of wall time, "
			    "%lf ms of device time, %lf us a call beyond the device", &calls, &steps,
			    &wall, &dev, &beyond));
	EXPECT_EQ(9, calls);
	EXPECT_EQ(2, steps);
	EXPECT_GT(dev, 0);
	EXPECT_GE(wall, dev);
	/* the figures are rounded to 0.1 ms and 1 us */
	EXPECT_LE(fabs((wall - dev) * 1000 / calls - beyond), 0.1 * 1000 / calls + 1);
	/* replayed on the activations the step recorded: the step's bits */
	EXPECT_NE(NULL, strstr(out, "GEMMs alone: on the step's activations, 0 outputs differ"));
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
