// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "gemm": GEMM descriptors (accel_gemm_plan/accel_gemm_run). Each case
 * runs on the device and is compared bit for bit with the host engine computing the
 * same numerics (mxe_gemm with the plan's k_chunk: the TMA + WGMMA pipeline rounds once
 * per WGMMA K step, the GEMM command once over all of K): FP16/BF16/FP8 pipelines with
 * M/N/K that are not multiples of the tiles (TMA out-of-bounds fill), serial and
 * multistage, intrawave and interwave, beta = 1 on the device, alpha/beta/per-tensor
 * scales through the post-pass, MX FP8/FP4 and B stored K x N through the GEMM command,
 * a program built from a plan by the caller (accel_prog_gemm_desc), and the errors (K %
 * 64 for FP8 MX as the job's error, A^T, impossible pipelines). accel_gemm() keeps its
 * program buffer from one call to the next.
 *
 * accel_gemm() on every A/B type pair the GEMM command takes (float, FP8, MX FP8/FP6/FP4/
 * INT8 with block scales, F64, S8/S4, B1; B stored N x K and, for whole-byte types,
 * K x N) on the odd shapes 100x48x192 and 257x129x320, D at sampled rows x columns (tile
 * edges, middle, last) and the whole last row compared bit for bit with the engine.
 *
 * Plumbing tests: the reference is the same engine code compiled into the guest, so they
 * check operands, encodings and data paths, not numerics (the H200 golden vectors,
 * tests/host/test-engine-golden, are the numerics oracle; Documentation/testing.rst).
 */
#include "mxa_test.h"

#include <stdio.h>

#include "accel.h"
#include "accel_test.h"
#include "kselftest_harness.h"
#include "../stress/mxa_counters.h"
#include "../../qemu-device/engine/mxe_engine.h"

#define DATA_BYTES	(8u << 20)
#define A_OFF		0u
#define B_OFF		(2u << 20)
#define C_OFF		(4u << 20)
#define D_OFF		(6u << 20)
#define SA_OFF		(7u << 20)
#define SB_OFF		((7u << 20) + (512u << 10))

FIXTURE(gemm) {
	struct accel_device *dev;
	struct accel_bo *bo;
	uint8_t *p;
	uint64_t va;
	float *want;
	struct accel_job_result r;
	struct accel_gemm_plan plan;
};

FIXTURE_SETUP(gemm)
{
	ASSERT_EQ(0, accel_open(NULL, ACCEL_SUBMIT_AUTO, &self->dev));
	ASSERT_EQ(0, accel_bo_alloc(self->dev, DATA_BYTES, &self->bo));
	self->p = accel_bo_map(self->bo);
	self->va = accel_bo_va(self->bo);
	self->want = calloc(1, 2u << 20);
	ASSERT_NE(NULL, self->want);
}

FIXTURE_TEARDOWN(gemm)
{
	free(self->want);
	accel_bo_free(self->bo);
	accel_close(self->dev);
}

static uint32_t rng = 2463534242u;

static float rnd(void)		/* [-2, 2) in steps that make FP8/F16 roundings matter */
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return ((int32_t)(rng % 4001) - 2000) / 997.0f;
}

/* @rows x @cols of @type at @off, pitch @ld bytes (0 dense); MX types get scales too. */
static void fill(FIXTURE_DATA(gemm) *self, uint32_t off, enum mxa_isa_dtype type,
		 uint32_t rows, uint32_t cols, uint32_t ld, uint32_t scale_off)
{
	size_t row = accel_dtype_row_bytes(type, cols);
	float *f = malloc(cols * sizeof(float));

	if (!ld)
		ld = row;
	for (uint32_t r = 0; r < rows; r++) {
		uint8_t *dst = self->p + off + (size_t)r * ld;

		for (uint32_t c = 0; c < cols; c++)
			f[c] = rnd();
		if (scale_off) {
			accel_mx_quantize(f, cols, type, ACCEL_MX_SCALE_FLOOR,
					  self->p + scale_off + (size_t)r * (cols / 32), dst);
			continue;
		}
		for (uint32_t c = 0; c < cols; c++) {
			switch (type) {
			case MXA_DTYPE_F16: {
				uint16_t h = mxe_cvt_f32_to_f16(f[c], 1);

				memcpy(dst + 2 * c, &h, 2);
				break;
			}
			case MXA_DTYPE_BF16: {
				uint16_t h = mxe_cvt_f32_to_bf16(f[c], 1);

				memcpy(dst + 2 * c, &h, 2);
				break;
			}
			case MXA_DTYPE_E4M3:
				dst[c] = mxe_cvt_f32_to_e4m3(f[c], 1);
				break;
			case MXA_DTYPE_E5M2:
				dst[c] = mxe_cvt_f32_to_e5m2(f[c], 1);
				break;
			default:
				memcpy(dst + 4 * c, &f[c], 4);
				break;
			}
		}
	}
	free(f);
}

/* A desc over the fixture's regions: A M x K, B N x K (trans_b T), C, D F32. */
static void desc(FIXTURE_DATA(gemm) *self, struct accel_gemm_desc *d, uint32_t m, uint32_t n,
		 uint32_t k, enum mxa_isa_dtype ta, enum mxa_isa_dtype tb)
{
	accel_gemm_desc_init(d);
	d->m = m;
	d->n = n;
	d->k = k;
	d->type_a = ta;
	d->type_b = tb;
	d->type_c = d->type_d = MXA_DTYPE_F32;
	d->trans_b = ACCEL_OP_T;
	d->a = self->va + A_OFF;
	d->b = self->va + B_OFF;
	d->c = self->va + C_OFF;
	d->d = self->va + D_OFF;
}

static void fill_inputs(FIXTURE_DATA(gemm) *self, const struct accel_gemm_desc *d)
{
	int mx = d->mx_scale_a != 0;
	uint32_t brows = d->trans_b == ACCEL_OP_T ? d->n : d->k;
	uint32_t bcols = d->trans_b == ACCEL_OP_T ? d->k : d->n;

	fill(self, A_OFF, d->type_a, d->m, d->k, d->lda, mx ? SA_OFF : 0);
	fill(self, B_OFF, d->type_b, brows, bcols, d->ldb, mx ? SB_OFF : 0);
	fill(self, C_OFF, MXA_DTYPE_F32, d->m, d->n, d->ldc, 0);
	memset(self->p + D_OFF, 0x5a, 1 << 20);
}

/* The host engine's D for @d with the numerics of @p (no post-pass). */
static int expect(FIXTURE_DATA(gemm) *self, const struct accel_gemm_desc *d,
		  const struct accel_gemm_plan *p)
{
	struct mxe_gemm_desc g;

	memset(&g, 0, sizeof(g));
	g.m = d->m;
	g.n = d->n;
	g.k = d->k;
	g.type_a = d->type_a;
	g.type_b = d->type_b;
	g.type_c = g.type_d = d->type_d;
	g.a = self->p + A_OFF;
	g.lda = d->lda;
	g.b = self->p + B_OFF;
	g.ldb = d->ldb;
	if (p->device_c) {
		g.flags |= MXA_GEMM_F_ACCUMULATE;
		g.c = self->p + C_OFF;
		g.ldc = d->ldc;
	}
	if (d->trans_b == ACCEL_OP_N)
		g.flags |= MXA_GEMM_F_B_KN;
	if (d->mx_scale_a) {
		g.scale_a = self->p + SA_OFF;
		g.scale_b = self->p + SB_OFF;
		g.scale_block = 32;
	}
	g.d = self->want;
	g.accum = p->accum;
	g.k_chunk = p->k_chunk;
	return mxe_gemm(NULL, &g);
}

static int compare(FIXTURE_DATA(gemm) *self, const struct accel_gemm_desc *d)
{
	uint32_t ldd = d->ldd ? d->ldd : d->n * 4;
	int bad = 0;

	for (uint32_t i = 0; i < d->m; i++) {
		const uint8_t *row = self->p + D_OFF + (size_t)i * ldd;

		for (uint32_t j = 0; j < d->n; j++) {
			uint32_t got, want;

			memcpy(&got, row + 4 * j, 4);
			memcpy(&want, &self->want[(size_t)i * d->n + j], 4);
			if (got != want && bad++ < 5)
				fprintf(stderr, "# D[%u][%u] = %#x, want %#x\n", i, j, got, want);
		}
	}
	return bad;
}

static int run(FIXTURE_DATA(gemm) *self, const struct accel_gemm_desc *d)
{
	int ret = accel_gemm_run(self->dev, 0, d, &self->plan, &self->r);

	if (ret && self->r.has_detail) {
		char why[256];

		accel_job_explain(&self->r, why, sizeof(why));
		fprintf(stderr, "# %s\n", why);
	}
	return ret;
}

/*
 * The elements of D that differ from the post-pass's f32 arithmetic on the engine's
 * product (self->want, expect()) and C: alpha x scale_a x scale_b x product + beta x C,
 * products left to right as documented.
 */
static int post_pass_mismatches(FIXTURE_DATA(gemm) *self, const struct accel_gemm_desc *d)
{
	const float *c = (const float *)(self->p + C_OFF);
	int bad = 0;

	for (uint32_t i = 0; i < d->m * d->n; i++) {
		float s = d->alpha * d->scale_a, v, got;

		s = s * d->scale_b;
		v = s * self->want[i];
		v = v + d->beta * c[i];
		memcpy(&got, self->p + D_OFF + 4 * i, 4);
		if (memcmp(&got, &v, 4) && bad++ < 5)
			fprintf(stderr, "# D[%u] = %a, want %a\n", i, got, v);
	}
	return bad;
}

/* Run @d on the device and the engine; 0 when every bit of D agrees. */
static int check(FIXTURE_DATA(gemm) *self, const struct accel_gemm_desc *d, int want_algo)
{
	int ret;

	fill_inputs(self, d);
	ret = run(self, d);
	if (ret)
		return ret;
	if (self->plan.algo != want_algo) {
		fprintf(stderr, "# algo %u (%s), want %d\n", self->plan.algo, self->plan.why,
			want_algo);
		return -1;
	}
	fprintf(stderr, "# %ux%ux%u %s x %s: %s, tile %ux%u, %u stages of K %u, %s, "
		"k_chunk %u\n",
		d->m, d->n, d->k, accel_dtype_name(d->type_a), accel_dtype_name(d->type_b),
		self->plan.algo == ACCEL_GEMM_ALGO_PIPELINE ? "pipeline" : "command",
		self->plan.tile_m, self->plan.tile_n, self->plan.stages, self->plan.k_stage,
		self->plan.sched == ACCEL_GEMM_SCHED_INTERWAVE ? "interwave" : "intrawave",
		self->plan.k_chunk);
	ret = expect(self, d, &self->plan);
	if (ret)
		return 1000 + ret;
	return compare(self, d);
}

TEST_F(gemm, pipeline_f16_tile_multiples)
{
	struct accel_gemm_desc d;

	desc(self, &d, 128, 128, 128, MXA_DTYPE_F16, MXA_DTYPE_F16);
	EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_PIPELINE));
}

/*
 * accel_gemm() and accel_gemm_run() keep their program buffer (and a pipeline's tensor
 * maps) for the next call (libaccel.rst): after the first call the device holds one
 * buffer more than before, and no more after many calls, a job that faulted included
 * (it ended, so its buffer is kept and serves the next call, whose D is the engine's
 * again); a pipeline's longer program replaces it, and its maps add one, both kept.
 * (120 s: the debug guest kernel took 230-290 s for this file's tests on the Ice Lake
 * host, this one past the harness's default 30 s in one run.)
 */
TEST_F_TIMEOUT(gemm, program_buffer_kept_between_calls, 120)
{
	const uint32_t m = 16, n = 24, k = 64;
	long bos = mxa_counter("bos");
	struct accel_gemm g = { 0 };
	struct mxe_gemm_desc e = { 0 };
	struct accel_gemm_desc d;
	struct accel_job_result r;
	struct accel_prog *prog;
	static uint8_t maps[ACCEL_GEMM_MAPS_BYTES];

	ASSERT_GE(bos, 1);
	desc(self, &d, m, n, k, MXA_DTYPE_BF16, MXA_DTYPE_BF16);
	fill_inputs(self, &d);
	g.m = m, g.n = n, g.k = k;
	g.type_a = g.type_b = MXA_DTYPE_BF16, g.type_c = g.type_d = MXA_DTYPE_F32;
	g.a = d.a, g.b = d.b, g.d = d.d;
	e.m = m, e.n = n, e.k = k;
	e.type_a = e.type_b = MXA_DTYPE_BF16, e.type_c = e.type_d = MXA_DTYPE_F32;
	e.a = self->p + A_OFF, e.b = self->p + B_OFF, e.d = self->want;
	ASSERT_EQ(0, mxe_gemm(NULL, &e));
	ASSERT_EQ(0, accel_gemm(self->dev, 0, &g, &r));
	EXPECT_EQ(bos + 1, mxa_counter("bos"));
	for (int i = 0; i < 20; i++)
		ASSERT_EQ(0, accel_gemm(self->dev, 0, &g, &r));
	EXPECT_EQ(bos + 1, mxa_counter("bos"));
	/* B at a VA nothing maps: the job faults there and ends */
	g.b = 0x7f00000000ull;
	EXPECT_EQ(-EFAULT, accel_gemm(self->dev, 0, &g, &r));
	EXPECT_EQ(MXA_ERR_MMU_FAULT, r.error);
	EXPECT_EQ(g.b, r.err_addr);
	EXPECT_EQ(bos + 1, mxa_counter("bos"));
	g.b = d.b;
	memset(self->p + D_OFF, 0x5a, (size_t)m * n * 4);
	ASSERT_EQ(0, accel_gemm(self->dev, 0, &g, &r));
	EXPECT_EQ(0, compare(self, &d));
	/* a pipeline's program through accel_gemm_run(), longer than the buffer's page:
	 * the kept buffer is replaced by a larger one, and the pipeline's tensor maps get
	 * a buffer of their own, kept as well */
	desc(self, &d, 128, 128, 4096, MXA_DTYPE_F16, MXA_DTYPE_F16);
	ASSERT_EQ(0, accel_gemm_plan(&d, &self->plan));
	ASSERT_EQ(0, accel_prog_new(&prog));
	ASSERT_EQ(0, accel_prog_gemm_desc(prog, &d, &self->plan, maps, 0x100000));
	EXPECT_GT(accel_prog_size(prog), 4096);
	accel_prog_free(prog);
	EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_PIPELINE));
	EXPECT_EQ(bos + 2, mxa_counter("bos"));
	for (int i = 0; i < 5; i++)	/* the bits checked once above: the guest's reference is slow */
		EXPECT_EQ(0, run(self, &d));
	EXPECT_EQ(bos + 2, mxa_counter("bos"));
	/* and serves the command's program again */
	desc(self, &d, m, n, k, MXA_DTYPE_BF16, MXA_DTYPE_BF16);
	fill_inputs(self, &d);
	ASSERT_EQ(0, mxe_gemm(NULL, &e));
	memset(self->p + D_OFF, 0x5a, (size_t)m * n * 4);
	ASSERT_EQ(0, accel_gemm(self->dev, 0, &g, &r));
	EXPECT_EQ(0, compare(self, &d));
	EXPECT_EQ(bos + 2, mxa_counter("bos"));
	/* a post-pass on the CPU (alpha, beta): its copies of D and C are kept too */
	desc(self, &d, 66, 40, 96, MXA_DTYPE_E4M3, MXA_DTYPE_E4M3);
	d.alpha = 0.75f;
	d.beta = -1.5f;
	fill_inputs(self, &d);
	ASSERT_EQ(0, run(self, &d));
	ASSERT_EQ(1, self->plan.post_pass);
	EXPECT_EQ(bos + 4, mxa_counter("bos"));
	for (int i = 0; i < 5; i++) {
		fill_inputs(self, &d);
		ASSERT_EQ(0, run(self, &d));
	}
	EXPECT_EQ(bos + 4, mxa_counter("bos"));
	ASSERT_EQ(0, expect(self, &d, &self->plan));
	EXPECT_EQ(0, post_pass_mismatches(self, &d));
}

/*
 * accel_gemm_run() spreads a pipeline over the cores: a persistent grid whose instances
 * each loop over an equal share of the output tiles; the bits are the engine's.
 */
TEST_F(gemm, pipeline_spread_over_the_cores)
{
	uint32_t cores = accel_device_info(self->dev)->num_cores;
	struct accel_gemm_desc d;

	desc(self, &d, 512, 512, 128, MXA_DTYPE_F16, MXA_DTYPE_F16);
	ASSERT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_PIPELINE));
	/* 4 x 2 tiles of 128 x 256: as many instances as cores divide them evenly */
	EXPECT_EQ(128, self->plan.tile_m);
	EXPECT_EQ(256, self->plan.tile_n);
	EXPECT_EQ(cores >= 8 ? 8 : cores >= 4 ? 4 : cores >= 2 ? 2 : 1,
		  self->plan.grid_x * self->plan.grid_y);
	EXPECT_EQ(self->plan.grid_x * self->plan.grid_y, self->r.instances);
	EXPECT_EQ(0, 4 % self->plan.grid_x);
	EXPECT_EQ(0, 2 % self->plan.grid_y);
	/* the same plan on one core: accel_gemm_plan_spread() with 1 */
	EXPECT_EQ(1, accel_gemm_plan_spread(&self->plan, &d, 1));
	EXPECT_EQ(1, self->plan.grid_x);
}

/*
 * In clusters along M the instances of a cluster share each B tile: each reads
 * 1/cluster_m of its rows and multicasts them to all, refilling a stage only once every
 * instance has read it (the "empty" barriers across the cluster). The bits are the
 * engine's; the device counts the B bytes read: 1/cluster_m of the unclustered grid's.
 * (120 s: the engine's reference D of 14 GEMMs runs in the guest, under TCG: 38 s on a
 * Zen 3 host, past the harness's default 30 s.)
 */
TEST_F_TIMEOUT(gemm, pipeline_clusters_multicast_b, 120)
{
	static const struct { uint32_t m, n, k, tile_m, tile_n, stages, cluster; } cases[] = {
		{ 512, 512, 128, 0, 0, 0, 2 },	/* 4 x 2 tiles: one tile an instance */
		{ 512, 256, 256, 0, 64, 0, 2 },	/* 4 x 4 tiles: 4 tiles an instance */
		{ 512, 256, 256, 0, 64, 1, 4 },	/* serial stages, clusters of 4 */
		{ 250, 200, 200, 64, 64, 3, 2 },	/* ragged M, N, K: zero-filled boxes */
		/* shares of 2 and 4 rows of B: 128-byte aligned with 2 K steps a stage */
		{ 256, 8, 16, 64, 8, 0, 4 },	/* one K step: the second zero-filled */
		{ 256, 16, 16, 64, 16, 0, 4 },
		{ 256, 8, 64, 64, 8, 0, 2 },
	};
	uint32_t cores = accel_device_info(self->dev)->num_cores;

	if (cores < 4)
		SKIP(return, "%u cores: the cases need 4", cores);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t m = cases[i].m, n = cases[i].n, k = cases[i].k;
		uint64_t bytes[2], cycles[2], a_bytes, b_bytes;
		uint32_t grid[2];
		struct accel_gemm_desc d;

		for (int cl = 0; cl < 2; cl++) {
			desc(self, &d, m, n, k, MXA_DTYPE_F16, MXA_DTYPE_F16);
			d.tile_m = cases[i].tile_m;
			d.tile_n = cases[i].tile_n;
			d.stages = (uint8_t)cases[i].stages;
			d.cluster_m = cl ? cases[i].cluster : 1;
			ASSERT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_PIPELINE));
			EXPECT_EQ(cl ? cases[i].cluster : 1, self->plan.cluster_x);
			/* the same grid both ways (4 x 1 on 4 cores), every instance run */
			grid[cl] = self->plan.grid_x * self->plan.grid_y;
			if (cores == 4)
				EXPECT_EQ(4, grid[cl]);
			EXPECT_EQ(grid[0], grid[cl]);
			EXPECT_EQ(grid[cl], self->r.instances);
			bytes[cl] = self->r.tma_load_bytes;
			cycles[cl] = self->r.cycles;
			/* modelled time: a function of the program, whatever the host did */
			ASSERT_EQ(0, run(self, &d));
			EXPECT_EQ(cycles[cl], self->r.cycles);
		}
		fprintf(stderr, "# %ux%ux%u: %llu modelled cycles, %llu in %ux1 clusters\n",
			m, n, k, (unsigned long long)cycles[0], (unsigned long long)cycles[1],
			cases[i].cluster);
		/* each instance reads its A tiles whole: the same A bytes both ways */
		a_bytes = (uint64_t)m * k * 2 * ((n + self->plan.tile_n - 1) / self->plan.tile_n);
		b_bytes = bytes[0] - a_bytes;
		EXPECT_EQ((uint64_t)n * k * 2 * ((m + self->plan.tile_m - 1) / self->plan.tile_m),
			  b_bytes);
		EXPECT_EQ(a_bytes + b_bytes / cases[i].cluster, bytes[1]);
	}
}

/* Clusters the tiles or the cores cannot make are refused, and say why. */
TEST_F(gemm, pipeline_clusters_that_cannot_form)
{
	struct accel_gemm_desc d;

	desc(self, &d, 128, 64, 64, MXA_DTYPE_F16, MXA_DTYPE_F16);
	d.cluster_m = 3;
	EXPECT_EQ(-EINVAL, accel_gemm_plan(&d, &self->plan));
	EXPECT_STREQ("cluster_m: 0, 1, 2 or 4", self->plan.why);
	/* one 128-row tile of M: no cluster of 2 along M */
	d.cluster_m = 2;
	fill_inputs(self, &d);
	EXPECT_EQ(-EOPNOTSUPP, run(self, &d));
	EXPECT_EQ(1, self->plan.cluster_x);
	EXPECT_NE(NULL, strstr(self->plan.why, "cluster_m: "));
	/* the GEMM command runs on one instance */
	desc(self, &d, 128, 128, 64, MXA_DTYPE_F16, MXA_DTYPE_F16);
	d.algo = ACCEL_GEMM_ALGO_COMMAND;
	d.cluster_m = 2;
	EXPECT_EQ(-EOPNOTSUPP, run(self, &d));
	EXPECT_STREQ("cluster_m: only a pipeline runs in clusters", self->plan.why);
}

TEST_F(gemm, pipeline_f16_ragged_edges)
{
	struct accel_gemm_desc d;

	/* M, N, K none a multiple of the tiles or of the WGMMA K step: zero fill */
	desc(self, &d, 150, 72, 200, MXA_DTYPE_F16, MXA_DTYPE_F16);
	EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_PIPELINE));
	/* N above one 256 tile, a K shorter than the stages */
	desc(self, &d, 70, 264, 40, MXA_DTYPE_F16, MXA_DTYPE_F16);
	EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_PIPELINE));
}

TEST_F(gemm, pipeline_fp8_mixed_padded_rows)
{
	struct accel_gemm_desc d;

	desc(self, &d, 97, 40, 200, MXA_DTYPE_E4M3, MXA_DTYPE_E5M2);
	d.lda = d.ldb = 208;	/* TMA needs 16-byte row pitches */
	d.ldd = 48 * 4;
	EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_PIPELINE));
	/* the dense 200-byte rows cannot go through TMA: the GEMM command, EXACT */
	desc(self, &d, 33, 40, 200, MXA_DTYPE_E4M3, MXA_DTYPE_E4M3);
	EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_COMMAND));
	EXPECT_EQ(0, self->plan.k_chunk);
}

TEST_F(gemm, pipeline_bf16_beta_one_on_device)
{
	struct accel_gemm_desc d;

	desc(self, &d, 80, 96, 160, MXA_DTYPE_BF16, MXA_DTYPE_BF16);
	d.beta = 1.0f;
	EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_PIPELINE));
	EXPECT_EQ(1, self->plan.device_c);
	EXPECT_EQ(0, self->plan.post_pass);
}

TEST_F(gemm, serial_multistage_intrawave_interwave_bit_identical)
{
	static const struct { uint8_t stages, sched; } v[] = {
		{ 1, ACCEL_GEMM_SCHED_INTRAWAVE }, { 1, ACCEL_GEMM_SCHED_INTERWAVE },
		{ 2, ACCEL_GEMM_SCHED_INTERWAVE }, { 4, ACCEL_GEMM_SCHED_INTRAWAVE },
	};
	struct accel_gemm_desc d;

	desc(self, &d, 130, 64, 320, MXA_DTYPE_E4M3, MXA_DTYPE_E4M3);
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		d.stages = v[i].stages;
		d.sched = v[i].sched;
		EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_PIPELINE));
		EXPECT_EQ(v[i].stages, self->plan.stages);
		EXPECT_EQ(v[i].sched, self->plan.sched);
	}
}

/*
 * A stage holds 4 K steps (boxes of 128-byte rows) where K and the SRAM give the stages
 * asked for (auto: 2), else 2 or 1 (64- or 32-byte rows, each swizzled as wide); where
 * none does, 2. Every width gives the engine's bits, K's tail zero-filled.
 * (120 s: 28 s on the debug guest kernel on a Zen 3 host, its two 128x256x2048 GEMMs and
 * their references under TCG; one CI run there went past the harness's default 30 s.)
 */
TEST_F_TIMEOUT(gemm, pipeline_stage_k_steps, 120)
{
	static const struct { uint32_t m, n, k; uint8_t ta, stages; uint32_t k_stage, st; } v[] = {
		{ 64, 64, 1024, MXA_DTYPE_E4M3, 0, 128, 4 },	/* 4 steps: 8 stages of K */
		{ 64, 64, 992, MXA_DTYPE_E4M3, 1, 128, 1 },	/* serial, a ragged last box */
		{ 64, 64, 320, MXA_DTYPE_E4M3, 0, 128, 3 },	/* 4 steps give 3 stages */
		{ 64, 64, 320, MXA_DTYPE_E4M3, 4, 64, 4 },	/* 4 asked for: 2 steps */
		{ 64, 64, 96, MXA_DTYPE_E4M3, 0, 64, 2 },	/* none gives 4: 2 steps */
		{ 64, 64, 96, MXA_DTYPE_E4M3, 3, 32, 3 },	/* 3 stages of one step */
		{ 40, 24, 32, MXA_DTYPE_E4M3, 0, 32, 1 },	/* one step in all */
		{ 128, 256, 2048, MXA_DTYPE_BF16, 0, 64, 2 },	/* 4 steps fit 2 stages */
		{ 128, 256, 2048, MXA_DTYPE_BF16, 4, 32, 4 },	/* 4 asked for: 2 steps */
		{ 72, 48, 200, MXA_DTYPE_BF16, 0, 64, 4 },	/* 13 steps: 4 a stage, ragged */
	};
	struct accel_gemm_desc d;

	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		desc(self, &d, v[i].m, v[i].n, v[i].k, v[i].ta, v[i].ta);
		d.stages = v[i].stages;
		EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_PIPELINE));
		EXPECT_EQ(v[i].k_stage, self->plan.k_stage);
		EXPECT_EQ(v[i].st, self->plan.stages);
	}
}

TEST_F(gemm, mx_fp8_and_fp4_through_the_command)
{
	struct accel_gemm_desc d;

	desc(self, &d, 70, 50, 128, MXA_DTYPE_E4M3, MXA_DTYPE_E4M3);
	d.mx_scale_a = self->va + SA_OFF;
	d.mx_scale_b = self->va + SB_OFF;
	EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_COMMAND));
	desc(self, &d, 33, 17, 96, MXA_DTYPE_E2M1, MXA_DTYPE_E3M2);
	d.mx_scale_a = self->va + SA_OFF;
	d.mx_scale_b = self->va + SB_OFF;
	EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_COMMAND));
}

/* Quantise @rows x @k random floats (one tensor: one amax) into NVFP4 at @off, scales at
 * @scale_off, blocks of 16 over ranges 1 .. @spread apart; the tensor scale goes to *@ts. */
static void fill_nvfp4(FIXTURE_DATA(gemm) *self, uint32_t off, uint32_t scale_off,
		       uint32_t rows, uint32_t k, uint32_t spread, float *ts)
{
	float *f = calloc((size_t)rows * k, sizeof(float));
	float amax;

	for (size_t i = 0; i < (size_t)rows * k; i++)
		f[i] = rnd() * (float)(1 + (i / 16) % spread);
	amax = accel_nvfp4_amax(f, (size_t)rows * k);
	for (uint32_t r = 0; r < rows; r++)
		accel_nvfp4_quantize(f + (size_t)r * k, k, amax,
				     self->p + scale_off + (size_t)r * ((k + 15) / 16),
				     self->p + off + (size_t)r * accel_dtype_row_bytes(MXA_DTYPE_NVFP4, k),
				     ts);
	free(f);
}

/* Element @i of an NVFP4 row times its block scale: exact in a double. */
static double nvfp4_value(const uint8_t *row, const uint8_t *scales, uint32_t i)
{
	return accel_load_elem(MXA_DTYPE_NVFP4, row, i) * mxe_cvt_ue4m3_to_f32(scales[i / 16]);
}

/*
 * NVFP4 x NVFP4 through accel_gemm(): E2M1 with UE4M3 scales per 16 on the device, the
 * tensor scales (accel_nvfp4_quantize()'s) as scale_a/scale_b in the post-pass. The
 * reference is float64 arithmetic in this test, not the engine: each product has at most
 * 12 significant bits and the blocks span a few binades, so the double sum is exact;
 * EXACT rounds it once to f32, the post-pass multiplies by ts_a x ts_b (f32 products).
 * K = 88 leaves a partial last block (the BF16 copies); K = 128 with blocks of ranges
 * at most 2 apart runs on the engine's int16 pairs (numerics.rst "NVFP4"); 3 rows of A
 * with ranges 5 apart run on its NVFP4 GEMV, the weights read in place.
 */
TEST_F(gemm, nvfp4_through_accel_gemm_checked_in_float64)
{
	static const uint32_t ks[3] = { 88, 128, 128 }, spreads[3] = { 5, 2, 5 };
	static const uint32_t ms[3] = { 37, 37, 3 };
	const uint32_t n = 29;
	uint32_t m = 37;
	struct accel_gemm_desc d;
	float ts_a, ts_b, back[88];
	uint32_t k = 88;

	for (int t = 0; t < 3; t++) {
		uint32_t kt = ks[t], kb = (kt + 15) / 16;
		size_t row = accel_dtype_row_bytes(MXA_DTYPE_NVFP4, kt);
		int bad = 0;

		m = ms[t];
		desc(self, &d, m, n, kt, MXA_DTYPE_NVFP4, MXA_DTYPE_NVFP4);
		d.mx_scale_a = self->va + SA_OFF;
		d.mx_scale_b = self->va + SB_OFF;
		fill_nvfp4(self, A_OFF, SA_OFF, m, kt, spreads[t], &ts_a);
		fill_nvfp4(self, B_OFF, SB_OFF, n, kt, spreads[t], &ts_b);
		d.scale_a = ts_a;
		d.scale_b = ts_b;
		memset(self->p + D_OFF, 0x5a, (size_t)m * n * 4);
		ASSERT_EQ(0, run(self, &d));
		EXPECT_EQ(ACCEL_GEMM_ALGO_COMMAND, self->plan.algo);
		EXPECT_EQ(1, self->plan.post_pass);
		for (uint32_t i = 0; i < m; i++) {
			for (uint32_t j = 0; j < n; j++) {
				const uint8_t *ar = self->p + A_OFF + i * row;
				const uint8_t *br = self->p + B_OFF + j * row;
				double sum = 0;
				float s = d.alpha * d.scale_a, want, got;

				for (uint32_t kk = 0; kk < kt; kk++)
					sum += nvfp4_value(ar, self->p + SA_OFF + i * kb, kk) *
					       nvfp4_value(br, self->p + SB_OFF + j * kb, kk);
				s = s * d.scale_b;
				want = s * (float)sum;
				memcpy(&got, self->p + D_OFF + 4 * ((size_t)i * n + j), 4);
				if (memcmp(&got, &want, 4) && bad++ < 5)
					fprintf(stderr, "# K = %u: D[%u][%u] = %a, want %a\n", kt,
						i, j, got, want);
			}
		}
		EXPECT_EQ(0, bad);
	}
	/* K = 88 again for what follows */
	m = 37;
	fill_nvfp4(self, A_OFF, SA_OFF, m, k, 5, &ts_a);
	/* dequantised: element x block scale x tensor scale */
	ASSERT_EQ(0, accel_nvfp4_dequantize(self->p + SA_OFF, self->p + A_OFF, k, ts_a, back));
	for (uint32_t kk = 0; kk < k; kk++)
		EXPECT_EQ((float)nvfp4_value(self->p + A_OFF, self->p + SA_OFF, kk) * ts_a, back[kk]);
	/* the type rules, named */
	desc(self, &d, m, n, k, MXA_DTYPE_NVFP4, MXA_DTYPE_E2M1);
	d.mx_scale_a = self->va + SA_OFF;
	d.mx_scale_b = self->va + SB_OFF;
	EXPECT_EQ(-EINVAL, accel_gemm_plan(&d, &self->plan));
	EXPECT_STREQ("type_b: NVFP4 (type_a) pairs only with NVFP4", self->plan.why);
	desc(self, &d, m, n, k, MXA_DTYPE_NVFP4, MXA_DTYPE_NVFP4);
	d.mx_scale_a = self->va + SA_OFF;
	EXPECT_EQ(-EINVAL, accel_gemm_plan(&d, &self->plan));
	EXPECT_STREQ("mx_scale_b: type_b is NVFP4 and needs its UE4M3 scales", self->plan.why);
}

/*
 * BF16 activations (no block scales: mx_scale_a = 0, as the documentation says) times
 * MX-FP8 weights with their scales, through the GEMM command: the device reads no
 * scale_a (it used to read VA 0 and fault) and D matches the engine bit for bit.
 */
TEST_F(gemm, bf16_activations_times_mx_fp8_weights)
{
	const uint32_t m = 40, n = 56, k = 128;
	struct accel_gemm_desc d;
	struct mxe_gemm_desc g = { 0 };

	desc(self, &d, m, n, k, MXA_DTYPE_BF16, MXA_DTYPE_E4M3);
	d.mx_scale_b = self->va + SB_OFF;
	fill(self, A_OFF, MXA_DTYPE_BF16, m, k, 0, 0);
	fill(self, B_OFF, MXA_DTYPE_E4M3, n, k, 0, SB_OFF);
	memset(self->p + D_OFF, 0x5a, (size_t)m * n * 4);
	ASSERT_EQ(0, run(self, &d));
	EXPECT_EQ(ACCEL_GEMM_ALGO_COMMAND, self->plan.algo);
	EXPECT_EQ(0, self->r.status);
	g.m = m, g.n = n, g.k = k;
	g.type_a = MXA_DTYPE_BF16, g.type_b = MXA_DTYPE_E4M3;
	g.type_c = g.type_d = MXA_DTYPE_F32;
	g.a = self->p + A_OFF, g.b = self->p + B_OFF, g.d = self->want;
	g.scale_b = self->p + SB_OFF, g.scale_block = 32;
	ASSERT_EQ(0, mxe_gemm(NULL, &g));
	EXPECT_EQ(0, compare(self, &d));
}

/*
 * A GEMV's weights are read in place from guest memory, row by row (the device's
 * in-place path for the engine's GEMV): the weights' pages are bound (accel_vm_bind)
 * at W_VA in the order 7 i mod pages, so that neighbouring pages are not neighbours in
 * memory (whether the buffer's own pages lie in ascending or descending order).
 * Rows inside a page are read where they lie, rows across a page boundary are copied;
 * either way D equals the engine's on the same matrix stored contiguously. MXFP4 rows
 * of 2 KiB (dense, and 2 KiB + 32 apart: every other row crosses a page) against 1 and
 * 3 rows of A (the one-row and several-row integer kernels, 40 columns: a last task of
 * 8), MX-FP8 rows of 8 KiB (two pages each), M = 1 and M = 3, EXACT and FAST numerics
 * (each its own GEMV kernel), and the weights across two leaf page tables (the device
 * reads a leaf table's entries in bulk). Then one page of the weights is unbound (across
 * the tables: the second's first): the job fails with the MMU fault at that page, as a
 * staged copy did.
 */
#define W_VA	0x7100000000ull

static uint32_t gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int gemv_in_place(struct __test_metadata *_metadata, FIXTURE_DATA(gemm) *self,
			 uint32_t m, uint32_t n, uint32_t k, enum mxa_isa_dtype ta,
			 enum mxa_isa_dtype tb, uint32_t ldb, uint8_t accum, uint64_t va_off)
{
	const uint64_t wva = W_VA + va_off;
	const uint32_t pages = (uint32_t)(((size_t)(n - 1) * ldb + accel_dtype_row_bytes(tb, k) + 4095) / 4096);
	uint8_t *w = calloc(pages, 4096);
	struct accel_gemm g = { 0 };
	struct mxe_gemm_desc e = { 0 };
	struct accel_job_result r;
	uint32_t stride = 7;
	int bad = 0;

	ASSERT_NE(NULL, w);
	ASSERT_GE((size_t)(C_OFF - B_OFF), (size_t)pages * 4096);
	/* the weights as a contiguous matrix here, page i in BO page 7 i mod pages there */
	fill(self, A_OFF, ta, m, k, 0, mxe_dtype_is_mx_elem(ta) ? SA_OFF : 0);
	for (uint32_t j = 0; j < n; j++) {
		fill(self, C_OFF, tb, 1, k, 0, SB_OFF + j * (k / 32));
		memcpy(w + (size_t)j * ldb, self->p + C_OFF, accel_dtype_row_bytes(tb, k));
	}
	while (gcd(stride, pages) != 1)
		stride += 2;
	for (uint32_t i = 0; i < pages; i++) {
		size_t at = B_OFF + (size_t)(i * stride % pages) * 4096;

		memcpy(self->p + at, w + (size_t)i * 4096, 4096);
		ASSERT_EQ(0, accel_vm_bind(self->dev, self->bo, at, wva + (uint64_t)i * 4096, 4096,
					   ACCEL_VM_BIND_READ_ONLY));
	}
	g.m = m, g.n = n, g.k = k;
	g.type_a = ta, g.type_b = tb, g.type_c = g.type_d = MXA_DTYPE_F32;
	g.a = self->va + A_OFF, g.b = wva, g.ldb = ldb, g.d = self->va + D_OFF;
	g.scale_block = 32;
	g.scale_b = self->va + SB_OFF;
	g.scale_a = mxe_dtype_is_mx_elem(ta) ? self->va + SA_OFF : 0;
	g.accum = accum;
	memset(self->p + D_OFF, 0x5a, (size_t)m * n * 4);
	EXPECT_EQ(0, accel_gemm(self->dev, 0, &g, &r)) TH_LOG("error %u info %#x at %#llx",
		r.error, r.err_info, (unsigned long long)r.err_addr);
	e.m = m, e.n = n, e.k = k;
	e.type_a = ta, e.type_b = tb, e.type_c = e.type_d = MXA_DTYPE_F32;
	e.a = self->p + A_OFF, e.b = w, e.ldb = ldb, e.d = self->want;
	e.scale_block = 32;
	e.scale_b = self->p + SB_OFF;
	e.scale_a = mxe_dtype_is_mx_elem(ta) ? self->p + SA_OFF : NULL;
	e.accum = accum;
	EXPECT_EQ(0, mxe_gemm(NULL, &e));
	for (size_t i = 0; i < (size_t)m * n; i++)
		bad += memcmp(self->p + D_OFF + 4 * i, &self->want[i], 4) != 0;
	EXPECT_EQ(0, bad) TH_LOG("%ux%ux%u %s x %s, ldb %u, accum %u: %d outputs differ", m, n,
				 k, accel_dtype_name(ta), accel_dtype_name(tb), ldb, accum, bad);
	/* a page of the weights gone: the fault names it */
	ASSERT_EQ(0, accel_vm_unbind(self->dev, wva + (uint64_t)(pages / 2) * 4096, 4096));
	EXPECT_EQ(-EFAULT, accel_gemm(self->dev, 0, &g, &r));
	EXPECT_EQ(MXA_ERR_MMU_FAULT, r.error);
	EXPECT_EQ(wva + (uint64_t)(pages / 2) * 4096, r.err_addr);
	EXPECT_EQ(MXA_FAULT_READ | MXA_FAULT_NOT_PRESENT, r.err_info);
	for (uint32_t i = 0; i < pages; i++)
		if (i != pages / 2)
			EXPECT_EQ(0, accel_vm_unbind(self->dev, wva + (uint64_t)i * 4096, 4096));
	free(w);
	return bad;
}

TEST_F(gemm, gemv_weights_read_in_place)
{
	for (uint8_t accum = MXA_GEMM_ACCUM_EXACT; ; accum = MXA_GEMM_ACCUM_FAST) {
		gemv_in_place(_metadata, self, 1, 96, 4096, MXA_DTYPE_BF16, MXA_DTYPE_E2M1, 2048,
			      accum, 0);
		gemv_in_place(_metadata, self, 1, 96, 4096, MXA_DTYPE_BF16, MXA_DTYPE_E2M1,
			      2048 + 32, accum, 0);
		gemv_in_place(_metadata, self, 3, 40, 4096, MXA_DTYPE_BF16, MXA_DTYPE_E2M1,
			      2048 + 32, accum, 0);
		/* 21 pages over two leaf tables, the second's first page the one unbound */
		gemv_in_place(_metadata, self, 3, 40, 4096, MXA_DTYPE_BF16, MXA_DTYPE_E2M1,
			      2048 + 32, accum, (2 << 20) - 10 * 4096);
		gemv_in_place(_metadata, self, 3, 40, 8192, MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, 8192,
			      accum, 0);
		if (accum == MXA_GEMM_ACCUM_FAST)
			break;
	}
}

TEST_F(gemm, b_stored_k_by_n_and_fast_numerics)
{
	struct accel_gemm_desc d;

	desc(self, &d, 40, 24, 64, MXA_DTYPE_F16, MXA_DTYPE_F16);
	d.trans_b = ACCEL_OP_N;
	EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_COMMAND));
	desc(self, &d, 64, 64, 512, MXA_DTYPE_BF16, MXA_DTYPE_BF16);
	d.numerics = ACCEL_GEMM_NUM_FAST;
	EXPECT_EQ(0, check(self, &d, ACCEL_GEMM_ALGO_COMMAND));
	EXPECT_EQ(1, self->plan.accum);
}

/* D = alpha x scale_a x scale_b x (A B^T) + beta x C, the post-pass in f32 */
TEST_F(gemm, alpha_beta_scales_post_pass)
{
	struct accel_gemm_desc d;

	desc(self, &d, 66, 40, 96, MXA_DTYPE_E4M3, MXA_DTYPE_E4M3);
	d.alpha = 0.75f;
	d.scale_a = 2.0f;
	d.scale_b = 0.375f;
	d.beta = -1.5f;
	fill_inputs(self, &d);
	ASSERT_EQ(0, run(self, &d));
	EXPECT_EQ(1, self->plan.post_pass);
	EXPECT_EQ(0, self->plan.device_c);
	ASSERT_EQ(0, expect(self, &d, &self->plan));
	EXPECT_EQ(0, post_pass_mismatches(self, &d));
}

/* accel_prog_gemm_desc(): the plan's program built by the caller, maps in its buffer */
TEST_F(gemm, program_from_a_plan)
{
	struct accel_gemm_desc d;
	struct accel_prog *prog;
	struct accel_bo *prog_bo, *maps;

	ASSERT_EQ(0, accel_bo_alloc(self->dev, 1 << 16, &prog_bo));
	ASSERT_EQ(0, accel_bo_alloc(self->dev, 4096, &maps));
	ASSERT_EQ(0, accel_prog_new(&prog));
	desc(self, &d, 100, 48, 192, MXA_DTYPE_F16, MXA_DTYPE_F16);
	fill_inputs(self, &d);
	ASSERT_EQ(0, accel_gemm_plan(&d, &self->plan));
	ASSERT_EQ(ACCEL_GEMM_ALGO_PIPELINE, self->plan.algo);
	memset(accel_bo_map(maps), 0, 4096);
	ASSERT_EQ(0, accel_prog_gemm_desc(prog, &d, &self->plan, accel_bo_map(maps),
					  accel_bo_va(maps)));
	/* the four tensor maps went where the caller said */
	EXPECT_EQ(self->va + A_OFF, ((struct mxa_tensor_map *)accel_bo_map(maps))[0].global_addr);
	EXPECT_GT(accel_prog_commands(prog), 10);
	ASSERT_EQ(0, accel_test_run(self->dev, prog, prog_bo, &self->r));
	ASSERT_EQ(0, self->r.status);
	ASSERT_EQ(0, expect(self, &d, &self->plan));
	EXPECT_EQ(0, compare(self, &d));

	/* the GEMM command for a plan that asks for it */
	accel_prog_reset(prog);
	d.algo = ACCEL_GEMM_ALGO_COMMAND;
	fill_inputs(self, &d);
	ASSERT_EQ(0, accel_gemm_plan(&d, &self->plan));
	ASSERT_EQ(0, accel_prog_gemm_desc(prog, &d, &self->plan, NULL, 0));
	EXPECT_EQ(1, accel_prog_commands(prog));
	ASSERT_EQ(0, accel_test_run(self->dev, prog, prog_bo, &self->r));
	ASSERT_EQ(0, self->r.status);
	ASSERT_EQ(0, expect(self, &d, &self->plan));
	EXPECT_EQ(0, compare(self, &d));

	/* a plan with a CPU post-pass cannot be a program alone */
	d.alpha = 2.0f;
	ASSERT_EQ(0, accel_gemm_plan(&d, &self->plan));
	ASSERT_EQ(1, self->plan.post_pass);
	EXPECT_EQ(-EINVAL, accel_prog_gemm_desc(prog, &d, &self->plan, NULL, 0));
	EXPECT_EQ(1, accel_prog_commands(prog));

	accel_prog_free(prog);
	accel_bo_free(maps);
	accel_bo_free(prog_bo);
}

TEST_F(gemm, errors)
{
	struct accel_gemm_desc d;

	/* FP8 MX with K % 64 != 0: the device's job error */
	desc(self, &d, 64, 64, 96, MXA_DTYPE_E4M3, MXA_DTYPE_E4M3);
	d.mx_scale_a = self->va + SA_OFF;
	d.mx_scale_b = self->va + SB_OFF;
	EXPECT_EQ(-EIO, accel_gemm_run(self->dev, 0, &d, &self->plan, &self->r));
	EXPECT_EQ(MXA_ERR_K_ALIGN, self->r.error);
	/* a pipeline that cannot be: MX scales */
	d.algo = ACCEL_GEMM_ALGO_PIPELINE;
	EXPECT_EQ(-EOPNOTSUPP, accel_gemm_plan(&d, &self->plan));
	/* A stored K x M: whole-byte types only, never the pipeline */
	desc(self, &d, 64, 64, 64, MXA_DTYPE_E2M1, MXA_DTYPE_E2M1);
	d.trans_a = ACCEL_OP_T;
	EXPECT_EQ(-EOPNOTSUPP, accel_gemm_plan(&d, &self->plan));
	desc(self, &d, 64, 64, 64, MXA_DTYPE_F16, MXA_DTYPE_F16);
	d.trans_a = ACCEL_OP_T;
	d.algo = ACCEL_GEMM_ALGO_PIPELINE;
	EXPECT_EQ(-EOPNOTSUPP, accel_gemm_plan(&d, &self->plan));
	desc(self, &d, 64, 64, 64, MXA_DTYPE_F16, MXA_DTYPE_F16);
	d.tile_n = 12;
	EXPECT_EQ(-EINVAL, accel_gemm_plan(&d, &self->plan));
	EXPECT_STREQ("tile_n: 0 or a multiple of 8 up to 256", self->plan.why);
	d.tile_n = 0;
	d.k = 0;
	EXPECT_EQ(-EINVAL, accel_gemm_plan(&d, &self->plan));
	EXPECT_STREQ("k is 0", self->plan.why);
	/* every refusal names the field */
	desc(self, &d, 64, 64, 64, MXA_DTYPE_E4M3, MXA_DTYPE_E4M3);
	d.mx_scale_b = self->va + SB_OFF;
	EXPECT_EQ(-EINVAL, accel_gemm_plan(&d, &self->plan));
	EXPECT_NE(NULL, strstr(self->plan.why, "mx_scale_a")) TH_LOG("%s", self->plan.why);
	EXPECT_EQ(-EINVAL, accel_gemm_run(self->dev, 0, &d, &self->plan, &self->r));
	desc(self, &d, 64, 64, 64, MXA_DTYPE_F32, MXA_DTYPE_E4M3);
	d.mx_scale_a = self->va + SA_OFF;
	d.mx_scale_b = self->va + SB_OFF;
	EXPECT_EQ(-EINVAL, accel_gemm_plan(&d, &self->plan));
	EXPECT_STREQ("mx_scale_a: type_a takes no block scales (0)", self->plan.why);
	/* K % 32 != 0 is allowed: the last MX block of each row is partial */
	desc(self, &d, 64, 64, 48, MXA_DTYPE_BF16, MXA_DTYPE_E2M1);
	d.mx_scale_b = self->va + SB_OFF;
	EXPECT_EQ(0, accel_gemm_plan(&d, &self->plan)) TH_LOG("%s", self->plan.why);
	desc(self, &d, 64, 64, 64, MXA_DTYPE_F16, MXA_DTYPE_F16);
	d.d = 0;
	EXPECT_EQ(-EINVAL, accel_gemm_plan(&d, &self->plan));
	EXPECT_STREQ("d is 0", self->plan.why);
}

static void fill_any(uint8_t *dst, enum mxa_isa_dtype type, uint32_t rows, uint32_t cols,
		     size_t ld);

/*
 * A stored K x M (accel_gemm_desc.trans_a = ACCEL_OP_T, the command's MXA_GEMM_F_A_KM) on
 * odd shapes: D is bit for bit the D of the same A stored M x K (whose D the other tests
 * check against the engine), through the descriptor API and through struct accel_gemm
 * with a padded pitch.
 */
TEST_F(gemm, a_stored_k_by_m)
{
	static const struct { uint8_t t; uint32_t m, n, k; } cases[] = {
		{ MXA_DTYPE_BF16, 100, 48, 192 }, { MXA_DTYPE_E4M3, 257, 129, 320 },
		{ MXA_DTYPE_S8, 100, 48, 192 }, { MXA_DTYPE_F32, 257, 129, 320 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint32_t m = cases[c].m, n = cases[c].n, k = cases[c].k;
		uint8_t t = cases[c].t;
		int integer = t == MXA_DTYPE_S8;
		size_t es = accel_dtype_row_bytes(t, 1), dbytes = (size_t)m * n * 4;
		size_t ldt = (size_t)m * es + 64;	/* K x M rows, padded */
		uint8_t *a = self->p + A_OFF, *at = self->p + C_OFF;
		uint8_t *d1 = malloc(dbytes);
		struct accel_gemm_desc d;
		struct accel_gemm g;

		ASSERT_NE(NULL, d1);
		desc(self, &d, m, n, k, t, t);
		if (integer)
			d.type_c = d.type_d = MXA_DTYPE_S32;
		fill_any(a, t, m, k, accel_dtype_row_bytes(t, k));
		fill_any(self->p + B_OFF, t, n, k, accel_dtype_row_bytes(t, k));
		d.algo = ACCEL_GEMM_ALGO_COMMAND;
		ASSERT_EQ(0, run(self, &d));
		memcpy(d1, self->p + D_OFF, dbytes);
		/* the same A, stored K x M at C_OFF */
		for (uint32_t kk = 0; kk < k; kk++)
			for (uint32_t i = 0; i < m; i++)
				memcpy(at + kk * ldt + i * es, a + ((size_t)i * k + kk) * es, es);
		d.trans_a = ACCEL_OP_T;
		d.a = self->va + C_OFF;
		d.lda = ldt;
		d.algo = ACCEL_GEMM_ALGO_AUTO;
		memset(self->p + D_OFF, 0x5a, dbytes);
		ASSERT_EQ(0, run(self, &d));
		EXPECT_EQ(ACCEL_GEMM_ALGO_COMMAND, self->plan.algo);
		EXPECT_EQ(0, memcmp(d1, self->p + D_OFF, dbytes)) {
			TH_LOG("%s %ux%ux%u: A as K x M differs", accel_dtype_name(t), m, n, k);
		}
		/* struct accel_gemm with MXA_GEMM_F_A_KM */
		memset(&g, 0, sizeof(g));
		g.m = m;
		g.n = n;
		g.k = k;
		g.type_a = g.type_b = t;
		g.type_c = g.type_d = integer ? MXA_DTYPE_S32 : MXA_DTYPE_F32;
		g.flags = MXA_GEMM_F_A_KM;
		g.a = self->va + C_OFF;
		g.lda = ldt;
		g.b = self->va + B_OFF;
		g.d = self->va + D_OFF;
		memset(self->p + D_OFF, 0x5a, dbytes);
		ASSERT_EQ(0, accel_gemm(self->dev, 0, &g, &self->r));
		EXPECT_EQ(0, memcmp(d1, self->p + D_OFF, dbytes)) {
			TH_LOG("%s %ux%ux%u: accel_gemm with MXA_GEMM_F_A_KM differs",
			       accel_dtype_name(t), m, n, k);
		}
		free(d1);
	}
	/* the device refuses a sub-byte A stored K x M (job error) */
	{
		struct accel_gemm g = {
			.m = 64, .n = 64, .k = 64, .type_a = MXA_DTYPE_E2M1, .type_b = MXA_DTYPE_E2M1,
			.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32, .flags = MXA_GEMM_F_A_KM,
			.scale_block = 32, .a = self->va + A_OFF, .b = self->va + B_OFF,
			.d = self->va + D_OFF, .scale_a = self->va + SA_OFF,
			.scale_b = self->va + SB_OFF,
		};

		EXPECT_EQ(-EIO, accel_gemm(self->dev, 0, &g, &self->r));
		EXPECT_NE(0, self->r.error);
	}
}

/* ---- accel_gemm() on every type pair, odd shapes ------------------------------------ */

struct type_pair {
	uint8_t a, b, d;
	uint8_t mx;		/* E8M0 block scales (scale_block 32) */
};

/*
 * Every A/B pair the GEMM command takes (qemu-device/engine/mxe_gemm.c): any two float
 * inputs (F32, TF32, F16, BF16, FP8, FP6, FP4, MXINT8 elements) to F32 without scales;
 * MX with E8M0 block scales: any two of the MX element types and F16/BF16 (which ignore
 * their scales), at least one MX; F64 x F64 -> F64; S8/S4 x S8/S4 -> S32; B1 x B1 -> S32;
 * and a few pairs to an F16 D.
 */
static size_t all_type_pairs(struct type_pair *p)
{
	static const uint8_t fl[] = {
		MXA_DTYPE_F32, MXA_DTYPE_TF32, MXA_DTYPE_F16, MXA_DTYPE_BF16, MXA_DTYPE_E4M3,
		MXA_DTYPE_E5M2, MXA_DTYPE_E3M2, MXA_DTYPE_E2M3, MXA_DTYPE_E2M1, MXA_DTYPE_MXINT8,
	};
	static const uint8_t mx[] = {
		MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, MXA_DTYPE_E3M2, MXA_DTYPE_E2M3, MXA_DTYPE_E2M1,
		MXA_DTYPE_MXINT8, MXA_DTYPE_F16, MXA_DTYPE_BF16,
	};
	static const uint8_t in[] = { MXA_DTYPE_S8, MXA_DTYPE_S4 };
	size_t n = 0;

	for (size_t i = 0; i < sizeof(fl); i++)
		for (size_t j = 0; j < sizeof(fl); j++)
			p[n++] = (struct type_pair){ fl[i], fl[j], MXA_DTYPE_F32, 0 };
	for (size_t i = 0; i < sizeof(mx); i++)
		for (size_t j = 0; j < sizeof(mx); j++)
			if (mxe_dtype_is_mx_elem(mx[i]) || mxe_dtype_is_mx_elem(mx[j]))
				p[n++] = (struct type_pair){ mx[i], mx[j], MXA_DTYPE_F32, 1 };
	p[n++] = (struct type_pair){ MXA_DTYPE_F64, MXA_DTYPE_F64, MXA_DTYPE_F64, 0 };
	for (size_t i = 0; i < sizeof(in); i++)
		for (size_t j = 0; j < sizeof(in); j++)
			p[n++] = (struct type_pair){ in[i], in[j], MXA_DTYPE_S32, 0 };
	p[n++] = (struct type_pair){ MXA_DTYPE_B1, MXA_DTYPE_B1, MXA_DTYPE_S32, 0 };
	p[n++] = (struct type_pair){ MXA_DTYPE_F16, MXA_DTYPE_F16, MXA_DTYPE_F16, 0 };
	p[n++] = (struct type_pair){ MXA_DTYPE_E4M3, MXA_DTYPE_E5M2, MXA_DTYPE_F16, 0 };
	p[n++] = (struct type_pair){ MXA_DTYPE_E2M1, MXA_DTYPE_E3M2, MXA_DTYPE_F16, 1 };
	return n;
}

/*
 * @rows x @cols elements of any input type at @dst (@ld bytes apart): random codes
 * drawn directly (the guest's CPU is emulated: converting floats would take minutes),
 * every mantissa bit random, magnitudes in [2^-3, 4) or the format's own range, never
 * NaN or Inf. FP6, FP4, MXINT8 and the integers have no NaN: any bits will do.
 */
static uint32_t rnd32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static int any_bits_valid(uint8_t t)
{
	return t == MXA_DTYPE_S8 || t == MXA_DTYPE_S4 || t == MXA_DTYPE_B1 || t == MXA_DTYPE_E3M2 ||
	       t == MXA_DTYPE_E2M3 || t == MXA_DTYPE_E2M1 || t == MXA_DTYPE_MXINT8;
}

static void fill_any(uint8_t *dst, enum mxa_isa_dtype type, uint32_t rows, uint32_t cols,
		     size_t ld)
{
	size_t row_bytes = accel_dtype_row_bytes(type, cols);

	for (uint32_t r = 0; r < rows; r++) {
		uint8_t *row = dst + r * ld;

		if (any_bits_valid(type)) {
			for (size_t i = 0; i < row_bytes; i++)
				row[i] = (uint8_t)rnd32();
			continue;
		}
		for (uint32_t c = 0; c < cols; c++) {
			uint32_t x = rnd32(), e = rnd32() % 5;	/* exponent offset 0..4 */
			uint64_t d;

			switch (type) {
			case MXA_DTYPE_F32:
			case MXA_DTYPE_TF32:	/* low 13 bits 0: what a TF32 holds */
				x = (x & 0x807fffffu) | (124 + e) << 23;
				if (type == MXA_DTYPE_TF32)
					x &= ~0x1fffu;
				memcpy(row + 4 * c, &x, 4);
				break;
			case MXA_DTYPE_F64:
				d = (uint64_t)x << 32 | rnd32();
				d = (d & 0x800fffffffffffffull) | (uint64_t)(1020 + e) << 52;
				memcpy(row + 8 * c, &d, 8);
				break;
			case MXA_DTYPE_F16:
				x = (x & 0x83ff) | (12 + e) << 10;
				memcpy(row + 2 * c, &x, 2);
				break;
			case MXA_DTYPE_BF16:
				x = (x & 0x807f) | (124 + e) << 7;
				memcpy(row + 2 * c, &x, 2);
				break;
			case MXA_DTYPE_E4M3:	/* |x| <= 2: exponent field <= 8 */
				row[c] = (x & 0x80) | (x >> 8) % 0x48;
				break;
			case MXA_DTYPE_E5M2:	/* |x| <= 2: exponent field <= 16 */
				row[c] = (x & 0x80) | (x >> 8) % 0x44;
				break;
			default:
				break;
			}
		}
	}
}

/* Indices of D checked against the engine: tile edges, the middle, the last ones. */
static size_t sample(uint32_t m, uint32_t *idx)
{
	const uint32_t cand[] = { 0, 1, 7, 8, 31, 63, 64, 65, 127, 128, m / 2, m - 2, m - 1 };
	size_t n = 0;

	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		int dup = cand[i] >= m;

		for (size_t j = 0; j < n; j++)
			dup |= idx[j] == cand[i];
		if (!dup)
			idx[n++] = cand[i];
	}
	return n;
}

/*
 * Run D = A x B^T (B stored N x K, or K x N with @b_kn) through accel_gemm() and compare
 * D bit for bit with the engine (mxe_gemm) at the sampled rows x sampled columns, and the
 * whole last row: each element of the GEMM command is its exact sum rounded once, so a
 * 1 x 1 (or 1 x N) engine GEMM on that row and column gives its bits. (The guest runs
 * the engine under TCG: the whole of D would take minutes.) Return the number of
 * differing elements, or -errno when the device refused.
 */
static int pair_check(FIXTURE_DATA(gemm) *self, const struct type_pair *tp, uint32_t m,
		      uint32_t n, uint32_t k, int b_kn)
{
	uint32_t b_rows = b_kn ? k : n, b_cols = b_kn ? n : k, rows[16], cols[16];
	size_t lda = accel_dtype_row_bytes(tp->a, k);
	size_t ldb = accel_dtype_row_bytes(tp->b, b_cols);
	size_t ldd = accel_dtype_row_bytes(tp->d, n);
	size_t esz = accel_dtype_row_bytes(tp->d, 1), nrows, ncols;
	uint8_t *want = (uint8_t *)self->want;
	struct accel_gemm g = {
		.m = m, .n = n, .k = k, .type_a = tp->a, .type_b = tp->b,
		.type_c = tp->d, .type_d = tp->d, .flags = b_kn ? MXA_GEMM_F_B_KN : 0,
		.a = self->va + A_OFF, .b = self->va + B_OFF, .d = self->va + D_OFF,
	};
	int ret, bad = 0;

	fill_any(self->p + A_OFF, tp->a, m, k, lda);
	fill_any(self->p + B_OFF, tp->b, b_rows, b_cols, ldb);
	if (tp->mx) {
		/* scales 2^-3 .. 2^1 (2^-5 .. 2^-1 for an F16 D, which stays finite) */
		uint8_t lo = tp->d == MXA_DTYPE_F16 ? 122 : 124;

		for (uint32_t i = 0; i < (m > n ? m : n) * (k / 32); i++) {
			self->p[SA_OFF + i] = lo + rnd32() % 5;
			self->p[SB_OFF + i] = lo + rnd32() % 5;
		}
		g.scale_block = 32;
		g.scale_a = self->va + SA_OFF;
		g.scale_b = self->va + SB_OFF;
	}
	memset(self->p + D_OFF, 0x5a, (size_t)m * ldd);
	ret = accel_gemm(self->dev, 0, &g, &self->r);
	if (ret) {
		char why[256];

		accel_job_explain(&self->r, why, sizeof(why));
		fprintf(stderr, "# %s x %s -> %s: %s\n", accel_dtype_name(tp->a),
			accel_dtype_name(tp->b), accel_dtype_name(tp->d), why);
		return ret;
	}
	nrows = sample(m, rows);
	ncols = sample(n, cols);
	for (size_t i = 0; i < nrows; i++) {
		int whole = rows[i] == m - 1;

		for (size_t c = 0; c < (whole ? 1 : ncols); c++) {
			uint32_t j = whole ? 0 : cols[c];
			/* column j of B^T: row j of N x K, column j of K x N (whole bytes) */
			size_t boff = b_kn ? j * accel_dtype_row_bytes(tp->b, 1) : j * ldb;
			struct mxe_gemm_desc e = {
				.m = 1, .n = whole ? n : 1, .k = k, .type_a = tp->a,
				.type_b = tp->b, .type_c = tp->d, .type_d = tp->d,
				.flags = b_kn ? MXA_GEMM_F_B_KN : 0,
				.a = self->p + A_OFF + rows[i] * lda, .b = self->p + B_OFF + boff,
				.ldb = ldb, .d = want,
			};
			const uint8_t *got = self->p + D_OFF + rows[i] * ldd + j * esz;

			if (tp->mx) {
				e.scale_block = 32;
				e.scale_a = self->p + SA_OFF + rows[i] * (k / 32);
				e.scale_b = self->p + SB_OFF + j * (k / 32);
			}
			ret = mxe_gemm(NULL, &e);
			if (ret) {
				fprintf(stderr, "# engine: %s\n", mxe_engine_strerror(ret));
				return 1000000;
			}
			for (uint32_t x = 0; x < e.n; x++)
				if (memcmp(got + x * esz, want + x * esz, esz) && bad++ < 3)
					fprintf(stderr, "# %s x %s -> %s%s %ux%ux%u: D[%u][%u] "
						"differs\n", accel_dtype_name(tp->a),
						accel_dtype_name(tp->b), accel_dtype_name(tp->d),
						b_kn ? " (B K x N)" : "", m, n, k, rows[i], j + x);
		}
	}
	return bad;
}

static void every_pair(struct __test_metadata *_metadata, FIXTURE_DATA(gemm) *self,
		       uint32_t m, uint32_t n, uint32_t k)
{
	static struct type_pair pairs[256];
	size_t np = all_type_pairs(pairs), ran = 0, ran_kn = 0, failed = 0;
	struct timespec t0, t1;
	double device_s = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < np; i++) {
		if (pair_check(self, &pairs[i], m, n, k, 0))
			failed++;
		device_s += (self->r.end_ns - self->r.start_ns) / 1e9;
		ran++;
		/* B stored K x N: the engine packs B along N, so whole-byte types only */
		if (accel_dtype_row_bytes(pairs[i].b, 2) < 2)
			continue;
		if (pair_check(self, &pairs[i], m, n, k, 1))
			failed++;
		device_s += (self->r.end_ns - self->r.start_ns) / 1e9;
		ran_kn++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("%ux%ux%u: %zu type pairs, %zu of them with B stored K x N too; %zu failed; "
	       "%.1f s, %.1f s of it on the device", m, n, k, ran, ran_kn, failed,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, device_s);
	EXPECT_LT(150, ran);
	EXPECT_EQ(0, failed);
}

TEST_F_TIMEOUT(gemm, every_type_pair_100x48x192, 600)
{
	every_pair(_metadata, self, 100, 48, 192);
}

TEST_F_TIMEOUT(gemm, every_type_pair_257x129x320, 600)
{
	every_pair(_metadata, self, 257, 129, 320);
}

TEST_HARNESS_MAIN
