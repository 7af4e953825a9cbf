// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "tools": the libaccel tools in /bin. Each answers --help; accel-info
 * describes the device; accel-run runs libaccel/examples/pipeline.s with its inputs from
 * files and its output to a file (bit-exact against the host engine) and explains a
 * failing program; accel-trace writes a Perfetto timeline (with an event per trip of an
 * unrolled loop, and per command in it; a failure located in its trip); accel-bench
 * measures.
 */
#include "mxa_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "accel.h"
#include "kselftest_harness.h"
#include "asm_pipeline.h"

/* run a shell command, its stdout+stderr into @out; return its exit status */
static int sh(char *out, size_t len, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	FILE *p;
	size_t n = 0;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (out && len) {
		n = fread(out, 1, len - 1, p);
		out[n] = 0;
	} else {
		char sink[4096];

		while (fread(sink, 1, sizeof(sink), p) > 0)
			;
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static char out[1 << 18];

TEST(help)
{
	static const char *const tools[] = { "accel-info", "accel-run", "accel-trace",
					     "accel-bench" };

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		EXPECT_EQ(0, sh(out, sizeof(out), "/bin/%s --help", tools[i]));
		EXPECT_NE(NULL, strstr(out, "usage: ")) TH_LOG("%s: %s", tools[i], out);
		EXPECT_EQ(2, sh(NULL, 0, "/bin/%s --no-such-option", tools[i]));
	}
}

TEST(accel_info)
{
	ASSERT_EQ(0, sh(out, sizeof(out), "/bin/accel-info"));
	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "driver:        mxa"));
	EXPECT_NE(NULL, strstr(out, "hardware queues"));
	EXPECT_NE(NULL, strstr(out, " GEMM"));
	EXPECT_EQ(0, sh(NULL, 0, "/bin/accel-info -q"));
	EXPECT_EQ(1, sh(NULL, 0, "/bin/accel-info -d /dev/null"));
}

TEST(accel_run_pipeline_files)
{
	static uint16_t a[64 * PIPE_K], b[64 * PIPE_K];
	static float want[64 * 64], got[64 * 64];
	FILE *f;

	ASSERT_EQ(0, write_file("/tmp/pipeline.s", pipeline_s, strlen(pipeline_s)));
	pipeline_inputs(a, b);
	ASSERT_EQ(0, write_file("/tmp/a.bin", a, sizeof(a)));
	ASSERT_EQ(0, write_file("/tmp/b.bin", b, sizeof(b)));
	ASSERT_EQ(0, sh(out, sizeof(out), "/bin/accel-run /tmp/pipeline.s --in /tmp/a.bin@A "
			"--in /tmp/b.bin@B --out /tmp/d.bin@D")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "completed in"));
	f = fopen("/tmp/d.bin", "rb");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(sizeof(got), fread(got, 1, sizeof(got), f));
	fclose(f);
	ASSERT_EQ(0, pipeline_expect(a, b, want));
	EXPECT_EQ(0, memcmp(want, got, sizeof(got)));
	/* a byte range of it, at an offset */
	ASSERT_EQ(0, sh(out, sizeof(out), "/bin/accel-run /tmp/pipeline.s -i /tmp/a.bin@A "
			"-i /tmp/b.bin@B -O /tmp/d2.bin@D+256:64"));
	f = fopen("/tmp/d2.bin", "rb");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(64, fread(got, 1, sizeof(got), f));
	fclose(f);
	EXPECT_EQ(0, memcmp((char *)want + 256, got, 64));
}

TEST(accel_run_explains_failures)
{
	static const char bad[] =
		"; an mbarrier nobody set up\n"
		".buffer out, 4096\n"
		"    FENCE_WRITE out, 1\n"
		"    MBAR_ARRIVE 0x100, 0\n";

	ASSERT_EQ(0, write_file("/tmp/bad.s", bad, strlen(bad)));
	EXPECT_EQ(1, sh(out, sizeof(out), "/bin/accel-run /tmp/bad.s"));
	TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "mbarrier misuse"));
	EXPECT_NE(NULL, strstr(out, "command at 0x0014: MBAR_ARRIVE 0x100, 0"));
	EXPECT_NE(NULL, strstr(out, "hint: "));
	/* assembly errors: file:line:column, exit 2 */
	ASSERT_EQ(0, write_file("/tmp/bad.s", "NOP\n  WAIT_GROUP dma, 0\n", 20));
	EXPECT_EQ(2, sh(out, sizeof(out), "/bin/accel-run /tmp/bad.s"));
	EXPECT_NE(NULL, strstr(out, "/tmp/bad.s:2:14: expected a class")) TH_LOG("%s", out);
}

/* accel-trace on libaccel/examples/pipeline.s with its inputs: its exit status. */
static int trace_pipeline(void)
{
	static uint16_t a[64 * PIPE_K], b[64 * PIPE_K];

	pipeline_inputs(a, b);
	if (write_file("/tmp/pipeline.s", pipeline_s, strlen(pipeline_s)) ||
	    write_file("/tmp/a.bin", a, sizeof(a)) || write_file("/tmp/b.bin", b, sizeof(b)))
		return -1;
	return sh(out, sizeof(out), "/bin/accel-trace /tmp/pipeline.s -i /tmp/a.bin@A "
		  "-i /tmp/b.bin@B -o /tmp/trace.json");
}

TEST(accel_trace_timeline)
{
	ASSERT_EQ(0, trace_pipeline()) TH_LOG("%s", out);
	ASSERT_EQ(0, sh(out, sizeof(out), "cat /tmp/trace.json"));
	EXPECT_NE(NULL, strstr(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["));
	EXPECT_NE(NULL, strstr(out, "\"name\":\"LOOP\",\"cat\":\"loop\""));
	EXPECT_NE(NULL, strstr(out, "\"command\":\"TMA_STORE ["));
	EXPECT_NE(NULL, strstr(out, "\"name\":\"thread_name\""));

	/* LOOP 8 (an immediate) is unrolled: one event per trip, in time order, each
	 * holding its 19 commands (two WGMMAs), each with its own timestamps */
	double prev_end = 0;
	int wgmmas = 0;
	char *p;

	for (int trip = 0; trip < 8; trip++) {
		char key[64];
		double ts, dur;

		snprintf(key, sizeof(key), "\"name\":\"trip %d\",\"cat\":\"trip\"", trip);
		p = strstr(out, key);
		ASSERT_NE(NULL, p) TH_LOG("no event for trip %d", trip);
		ASSERT_EQ(2, sscanf(strstr(p, "\"ts\":"), "\"ts\":%lf,\"dur\":%lf", &ts, &dur));
		EXPECT_GE(ts + 0.002, prev_end);	/* printed to the ns */
		EXPECT_GT(dur, 0);
		prev_end = ts + dur;
	}
	EXPECT_EQ(NULL, strstr(out, "\"trip 8\""));
	for (p = out; (p = strstr(p, "\"command\":\"WGMMA.ACC")); p++)
		wgmmas++;
	EXPECT_EQ(2 * 16, wgmmas);	/* host time and modelled time */
	EXPECT_NE(NULL, strstr(out, "\"command\":\"REG_ADD r2, r2+1\",\"trip\":7}"));
}

/*
 * accel-trace's cycle-model summary of pipeline.s under the default timing: the engines'
 * busy cycles are the documented model's (16 WGMMAs of N = 64 at N/2 + 4 each; 35 TMA
 * boxes of 64 rows at 14 cycles and 0.91 a row), the critical path's parts add up to
 * the job's modelled cycles, and the trace has the modelled track with each command's
 * cycles.
 */
TEST(accel_trace_model)
{
	unsigned long long total, math, copy, part, sum = 0;
	double pm, pc;
	char *p;

	ASSERT_EQ(0, trace_pipeline()) TH_LOG("%s", out);
	TH_LOG("%s", out);
	p = strstr(out, "accel-trace: modelled ");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(5, sscanf(p, "accel-trace: modelled %llu cycles; utilisation: math %lf%% (%llu "
			    "busy cycles), copy/TMA %lf%% (%llu)", &total, &pm, &math, &pc, &copy));
	EXPECT_EQ(16 * (64 / 2 + 4), math);
	EXPECT_EQ(35 * (14 + 64 * 91 / 100), copy);
	EXPECT_LT(fabs(pm - 100.0 * math / total), 0.06);
	EXPECT_LT(fabs(pc - 100.0 * copy / total), 0.06);
	EXPECT_NE(NULL, strstr(out, "waiting on copy/TMA (WAIT_GROUP copy, MBAR_WAIT) "));
	EXPECT_NE(NULL, strstr(out, "accel-trace: longest wait 1: "));
	p = strstr(out, "accel-trace: critical path (the command processor's cycles): issuing ");
	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, strchr(p, '\n'));
	*strchr(p, '\n') = 0;	/* its parts: "NAME CYCLES (PERCENT%)", comma separated */
	for (p = strchr(p, ':') + 1; (p = strpbrk(p, "0123456789")); ) {
		part = strtoull(p, &p, 10);
		sum += part;
		p = strchr(p, ')');	/* past the percentage */
		if (!p)
			break;
	}
	EXPECT_EQ(total, sum);
	ASSERT_EQ(0, sh(out, sizeof(out), "cat /tmp/trace.json"));
	EXPECT_NE(NULL, strstr(out, "\"name\":\"mxa modelled (1 ns = 1 cycle)\""));
	EXPECT_NE(NULL, strstr(out, "\"ph\":\"X\",\"pid\":2,"));
	EXPECT_NE(NULL, strstr(out, ",\"trip\":7,\"cycles\":"));
}

TEST(accel_trace_loops)
{
	static const char prog[] =
		".buffer out, 8K\n"
		"    REG_SET r3, 2\n"
		"    LOOP 1+r3\n"			/* a register count: one span */
		"        TIMESTAMP out\n"
		"    ENDLOOP\n"
		"    LOOP 4\n"			/* trip 2 reads past the buffer */
		"        TILE_LOAD.GLOBAL T#0, out+r2, 1, 64\n"
		"        REG_ADD r2, r2+4096\n"
		"    ENDLOOP\n";

	ASSERT_EQ(0, write_file("/tmp/loops.s", prog, strlen(prog)));
	EXPECT_EQ(1, sh(out, sizeof(out), "/bin/accel-trace /tmp/loops.s -o /tmp/loops.json"));
	TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "accel-trace: failed in trip 2 of the loop at 0x002c"));
	/* the failing command, found in the program as written */
	EXPECT_NE(NULL, strstr(out, "command at 0x0038: TILE_LOAD.GLOBAL T#0, r2+0x100000, 1, 64 (inside 1 loop)"));
	ASSERT_EQ(0, sh(out, sizeof(out), "cat /tmp/loops.json"));
	TH_LOG("%s", out);
	/* the register-count loop is one LOOP event with no trips; trips 0 and 1 ran */
	EXPECT_NE(NULL, strstr(out, "\"name\":\"LOOP\",\"cat\":\"loop\""));
	EXPECT_NE(NULL, strstr(out, "\"name\":\"trip 1\""));
	EXPECT_EQ(NULL, strstr(out, "\"name\":\"trip 2\""));
	EXPECT_EQ(NULL, strstr(out, "\"command\":\"TIMESTAMP"));
}

/*
 * accel-trace --grid: each instance writes its own records (TIMESTAMP.MODEL a31+va), so
 * each has its own line and track; the instances that loop longer take more modelled
 * cycles, the cluster barrier holds the two of a cluster to the later one, and the
 * summary names the slowest instance with its critical path.
 */
TEST(accel_trace_grid)
{
	static const char prog[] =
		"    REG_CTA r1, %clusterid.x, 200\n"	/* cluster 1 loops 200 trips more */
		"    LOOP r1+16\n"
		"        REG_ADD r2, r2+1\n"
		"    ENDLOOP\n"
		"    CLUSTER_ARRIVE\n"
		"    CLUSTER_WAIT\n";
	unsigned long long cycles[4];
	char key[64], *p;

	ASSERT_EQ(0, write_file("/tmp/grid.s", prog, strlen(prog)));
	ASSERT_EQ(0, sh(out, sizeof(out), "/bin/accel-trace --grid 4 --cluster 2 /tmp/grid.s "
			"-o /tmp/grid.json")) TH_LOG("%s", out);
	TH_LOG("%s", out);
	for (int i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "accel-trace: instance %d (%d, 0): modelled ", i, i);
		p = strstr(out, key);
		ASSERT_NE(NULL, p) TH_LOG("no line for instance %d", i);
		ASSERT_EQ(1, sscanf(p + strlen(key), "%llu", &cycles[i]));
	}
	EXPECT_EQ(cycles[0], cycles[1]);	/* a cluster leaves its barrier together */
	EXPECT_EQ(cycles[2], cycles[3]);
	EXPECT_LT(cycles[0] + 200, cycles[2]);	/* 200 trips of two commands more */
	EXPECT_NE(NULL, strstr(out, "over 4 instances; the slowest is instance 2\n"));
	EXPECT_NE(NULL, strstr(out, "accel-trace: instance 2: critical path "));
	ASSERT_EQ(0, sh(out, sizeof(out), "cat /tmp/grid.json"));
	for (int i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "\"name\":\"queue 0 instance %d (%d, 0)\"", i, i);
		EXPECT_NE(NULL, strstr(out, key)) TH_LOG("no track for instance %d", i);
		snprintf(key, sizeof(key), "\"command\":\"CLUSTER_WAIT\",\"instance\":%d,", i);
		EXPECT_NE(NULL, strstr(out, key)) TH_LOG("no CLUSTER_WAIT of instance %d", i);
	}
	/* the records' register is the tool's; a shape the device cannot run says why */
	ASSERT_EQ(0, write_file("/tmp/a31.s", "REG_SET a31, 1\n", 15));
	EXPECT_EQ(2, sh(out, sizeof(out), "/bin/accel-trace --grid 2 /tmp/a31.s"));
	EXPECT_NE(NULL, strstr(out, "the program uses a31")) TH_LOG("%s", out);
	EXPECT_EQ(0, sh(out, sizeof(out), "/bin/accel-trace /tmp/a31.s -o /tmp/a31.json"));
	EXPECT_EQ(2, sh(out, sizeof(out), "/bin/accel-run --grid 4 --cluster 3 /tmp/grid.s"));
	EXPECT_NE(NULL, strstr(out, "cluster 3x1 does not divide grid 4x1")) TH_LOG("%s", out);
	EXPECT_EQ(2, sh(out, sizeof(out), "/bin/accel-run --grid 0 /tmp/grid.s"));
	EXPECT_NE(NULL, strstr(out, "--grid 0: expected X or XxY")) TH_LOG("%s", out);
}

TEST(accel_bench)
{
	ASSERT_EQ(0, sh(out, sizeof(out), "/bin/accel-bench -s 64 -r 1 -j 64 -B 16 all"))
		TH_LOG("%s", out);
	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "gemm_e4m3_64x64x64_rate"));
	EXPECT_NE(NULL, strstr(out, "jobs/s"));
}

TEST_HARNESS_MAIN
