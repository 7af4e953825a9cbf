// SPDX-License-Identifier: MIT
/*
 * H200 1-CTA pipelined GEMMs for MXA's cycle model (issue 17): the kernels that
 * bench/bench-model.c runs on MXA under `timing=h200`, written the same way.
 *
 * One warpgroup computes one TILE_M x TILE_N f32 tile of D = A x B^T over K = 3072
 * bytes, A and B K-major. A stage holds KW K steps of 32 bytes in TMA boxes of BOX-byte
 * rows swizzled as wide (TILE_M or TILE_N rows), all on the stage's mbarrier: BOX = 32
 * is the planner's stage (KW = 2, two boxes of each operand), BOX = 64 one box of each
 * (KW = 2), BOX = 128 one box of each (KW = 4); WGMMA descriptors advance 32 bytes
 * within a box row. With S stages, S - 1 stage loads are in flight before the first
 * WGMMA; each iteration waits for its stage, issues its WGMMAs (KW x TILE_M / 64 of
 * m64nTILE_Nk32B), commits, waits until only this group is pending and refills the
 * stage the previous group read. S = 1 is the serial program: load, wait, compute,
 * wait for the WGMMAs. Thread 0 issues the loads; the stage, its phase and the stage
 * to refill are counters, as CUTLASS keeps them, so every S costs the same a step.
 *
 * Cycles (clock64, the SM clock) from the first load to the last WGMMA's completion, the
 * best of 20 launches; the result is checked against the host (small integers: exact).
 * Output: CSV "kernel,type,tile_m,tile_n,box,stages,k,cycles,max_err".
 * --phases: the e4m3 kernels again, with thread 0's clock64() stamped at each phase of
 * each iteration and a 5th warp stamping when each load lands (PH_*, below), the best
 * launch's: CSV "kernel,it,load,loaded,land,wait,ready,issued,group,sync,cycles,max_err"
 * (cycles from the first load's issue; -1: no such phase). The stamps cost thread 0
 * about 25 cycles each, so these kernels run slower than the unstamped ones.
 * Run on an H200: bench/h200/run.sh OUTDIR [pipeline] [phases].
 */
#include "sm90.cuh"

#include <cmath>
#include <cstring>
#include <vector>

#define KBYTES	3072	/* K in bytes */

/* K steps of 32 bytes a stage, boxes of each operand a stage, stage loads. */
template <int BOX> struct shape {
	static constexpr int kw = BOX == 128 ? 4 : 2, boxes = kw * 32 / BOX,
			     steps = KBYTES / (kw * 32);
};

/* K-major, swizzled as wide as @BOX bytes: rows of BOX bytes, 8-row atoms (SBO) apart. */
template <int BOX> __device__ static uint64_t desc_sw(uint32_t a)
{
	constexpr uint64_t mode = BOX == 128 ? 1 : BOX == 64 ? 2 : 3;

	return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)1 << 16 |
	       (uint64_t)(8 * BOX >> 4) << 32 | mode << 62;
}

/*
 * Where the phases of the trace (TRACE: --phases) are, per load j or iteration it, in
 * trace[PH_* * STEPS + j]: thread 0's clock64() at the start and end of load j's issue,
 * the 5th warp's when load j's stage completed (it waits on every phase in turn), and
 * thread 0's before and after the iteration's mbarrier wait, after its commit, after its
 * WAIT_GROUP and after the warpgroup barrier.
 */
enum { PH_LOAD, PH_LOADED, PH_LAND, PH_WAIT, PH_READY, PH_ISSUED, PH_GROUP, PH_SYNC, PH_N };

template <int TM, int N, int T, int S, int BOX, bool TRACE = false>
__global__ void __launch_bounds__(160) pipe_kernel(const __grid_constant__ CUtensorMap ma,
						   const __grid_constant__ CUtensorMap mb,
						   float *dout, long long *cycles, long long *trace)
{
	constexpr int KW = shape<BOX>::kw, STEPS = shape<BOX>::steps;
	constexpr uint32_t A_BYTES = TM * 32, B_BYTES = N * 32;	/* a K step's */
	constexpr uint32_t STAGE = KW * (A_BYTES + B_BYTES);
	constexpr int EB = T == 2 ? 1 : 2, KBOX = BOX / EB;	/* elements of a box row */
	extern __shared__ uint8_t dyn[];
	__shared__ __align__(8) uint64_t full[S];
	/* thread 0's stamps, in shared memory until the end (global stores cost it more) */
	__shared__ long long stamps[TRACE ? PH_N * STEPS : 1];
	uint32_t base = ((uint32_t)__cvta_generic_to_shared(dyn) + 1023) & ~1023u;
	float d[TM / 64][N / 2];
	long long t0 = 0;

#pragma unroll
	for (int h = 0; h < TM / 64; h++)
#pragma unroll
		for (int i = 0; i < N / 2; i++)
			d[h][i] = 0;
	if (threadIdx.x == 0) {
		for (int s = 0; s < S; s++)
			mbar_init(&full[s], 1);
		for (int i = 0; TRACE && i < PH_N * STEPS; i++)
			stamps[i] = 0;
		asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
	}
	__syncthreads();

	auto stamp = [&](int ph, int i) {
		if constexpr (TRACE)
			stamps[ph * STEPS + i] = clock64();
	};
	auto load = [&](int s, int step) {
		uint32_t sa = base + s * STAGE, sb = sa + KW * A_BYTES;

		stamp(PH_LOAD, step);
		mbar_expect(&full[s], STAGE);
		for (int j = 0; j < shape<BOX>::boxes; j++) {
			int c = (step * shape<BOX>::boxes + j) * KBOX;

			tma_load2(sa + j * TM * BOX, &ma, c, 0, &full[s]);
			tma_load2(sb + j * N * BOX, &mb, c, 0, &full[s]);
		}
		stamp(PH_LOADED, step);
	};

	if (TRACE && threadIdx.x >= 128) {	/* the 5th warp: when each load lands */
		if (threadIdx.x == 128)
			for (int j = 0; j < STEPS; j++) {
				mbar_wait(&full[j % S], (j / S) & 1);
				trace[PH_LAND * STEPS + j] = clock64();
			}
		return;
	}

	if (threadIdx.x == 0) {
		t0 = clock64();
		for (int s = 0; s < S - 1; s++)
			load(s, s);
	}
	/*
	 * The stage, its phase and the stage to refill advance as CUTLASS's pipeline state
	 * does, a compare a step: computed as it % S, S = 3's divisions cost thread 0 about
	 * 50 cycles a step more than S = 2's and 4's masks (--phases), which MXA's unrolled
	 * program does not pay.
	 */
	int s = 0, refill = S - 1;
	uint32_t phase = 0;

	for (int it = 0; it < STEPS; it++) {
		uint32_t sa = base + s * STAGE, sb = sa + KW * A_BYTES;

		/* K step j of rows 64h.. : its box, the row block, 32 B into the box row */
		auto ka = [&](uint32_t st, int rows, int j, int h) {
			return st + (j * 32 / BOX) * rows * BOX + h * 64 * BOX + (j * 32 % BOX);
		};

		if (S == 1 && threadIdx.x == 0)
			load(0, it);
		if (threadIdx.x == 0)
			stamp(PH_WAIT, it);
		mbar_wait(&full[s], phase);
		if (threadIdx.x == 0)
			stamp(PH_READY, it);
		if (++s == S) {	/* the next iteration's (sa and sb hold this one's) */
			s = 0;
			phase ^= 1;
		}
		asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
		for (int j = 0; j < KW; j++)
#pragma unroll
			for (int h = 0; h < TM / 64; h++)
				wgmma_t<N, T>(d[h], desc_sw<BOX>(ka(sa, TM, j, h)),
					      desc_sw<BOX>(ka(sb, N, j, 0)));
		asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
		if (threadIdx.x == 0)
			stamp(PH_ISSUED, it);
		if (S == 1) {
			asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
			if (threadIdx.x == 0)
				stamp(PH_GROUP, it);
			continue;
		}
		/* the previous group's operands are read: refill its stage S - 1 ahead */
		asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
		if (threadIdx.x == 0)
			stamp(PH_GROUP, it);
		asm volatile("bar.sync 1, 128;\n" ::: "memory");	/* the warpgroup's */
		if (threadIdx.x == 0)
			stamp(PH_SYNC, it);
		if (threadIdx.x == 0 && it + S - 1 < STEPS)
			load(refill, it + S - 1);
		refill = refill + 1 == S ? 0 : refill + 1;
	}
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	if (threadIdx.x == 0) {
		cycles[0] = clock64() - t0;
		for (int i = 0; TRACE && i < PH_N * STEPS; i++)
			if (i / STEPS != PH_LAND)
				trace[i] = stamps[i];
	}

	/* the m64nN accumulator fragment of each thread */
	int w = threadIdx.x / 32, l = threadIdx.x % 32;
#pragma unroll
	for (int h = 0; h < TM / 64; h++)
#pragma unroll
		for (int i = 0; i < N / 2; i++) {
			int row = h * 64 + 16 * w + l / 4 + 8 * ((i % 4) / 2);
			int col = (i / 4) * 8 + (l % 4) * 2 + (i % 2);

			dout[row * N + col] = d[h][i];
		}
}

/* Small integers -2..2 as e4m3 (type 2) or bf16 (type 1) codes. */
static void fill(std::vector<uint8_t> &buf, std::vector<int> &val, int type, size_t n,
		 unsigned seed)
{
	static const uint8_t e4m3[5] = { 0xc0, 0xb8, 0x00, 0x38, 0x40 };
	static const uint16_t bf16[5] = { 0xc000, 0xbf80, 0x0000, 0x3f80, 0x4000 };

	val.resize(n);
	buf.resize(n * (type == 2 ? 1 : 2));
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		val[i] = (int)((seed >> 16) % 5) - 2;
		if (type == 2)
			buf[i] = e4m3[val[i] + 2];
		else
			((uint16_t *)buf.data())[i] = bf16[val[i] + 2];
	}
}

/*
 * One kernel: the best of 20 launches to @f, or with TRACE its phases (trace[] of the
 * best launch, relative to the first load's issue) as rows "kernel,it,load,...".
 */
template <int TM, int N, int T, int S, int BOX, bool TRACE> static void run(FILE *f)
{
	constexpr int STEPS = shape<BOX>::steps;
	constexpr uint32_t STAGE = shape<BOX>::kw * (TM + N) * 32;
	const int eb = T == 2 ? 1 : 2, k = KBYTES / eb;
	const char *tname = T == 2 ? "e4m3" : "bf16";
	size_t smem = S * STAGE + 1024;
	std::vector<uint8_t> ha, hb;
	std::vector<int> va, vb;
	std::vector<float> hd((size_t)TM * N);
	void *ga, *gb;
	float *gd;
	long long *gc, *gt, c, best = -1;
	std::vector<long long> tr(PH_N * STEPS), besttr;
	double err = 0;

	fill(ha, va, T, (size_t)TM * k, 1 + TM + N);
	fill(hb, vb, T, (size_t)N * k, 7 + S);
	CHECK(cudaMalloc(&ga, ha.size()));
	CHECK(cudaMalloc(&gb, hb.size()));
	CHECK(cudaMalloc(&gd, hd.size() * 4));
	CHECK(cudaMalloc(&gc, 8));
	CHECK(cudaMalloc(&gt, tr.size() * 8));
	CHECK(cudaMemcpy(ga, ha.data(), ha.size(), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(gb, hb.data(), hb.size(), cudaMemcpyHostToDevice));
	CUtensorMapDataType dt = T == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 :
				    CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
	CUtensorMapSwizzle swz = BOX == 128 ? CU_TENSOR_MAP_SWIZZLE_128B :
				 BOX == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_32B;
	CUtensorMap ma = tmap_2d(ga, dt, eb, k, TM, BOX / eb, TM, swz);
	CUtensorMap mb = tmap_2d(gb, dt, eb, k, N, BOX / eb, N, swz);

	CHECK(cudaFuncSetAttribute(pipe_kernel<TM, N, T, S, BOX, TRACE>,
				   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	for (int r = 0; r < 20; r++) {
		CHECK(cudaMemset(gt, 0, tr.size() * 8));
		pipe_kernel<TM, N, T, S, BOX, TRACE><<<1, TRACE ? 160 : 128, smem>>>(ma, mb, gd,
										    gc, gt);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(&c, gc, 8, cudaMemcpyDeviceToHost));
		if (best < 0 || c < best) {
			best = c;
			CHECK(cudaMemcpy(tr.data(), gt, tr.size() * 8, cudaMemcpyDeviceToHost));
			besttr = tr;
		}
	}
	CHECK(cudaMemcpy(hd.data(), gd, hd.size() * 4, cudaMemcpyDeviceToHost));
	for (int m = 0; m < TM; m++)
		for (int n = 0; n < N; n++) {
			long ref = 0;

			for (int i = 0; i < k; i++)
				ref += va[(size_t)m * k + i] * vb[(size_t)n * k + i];
			err = fmax(err, fabs(hd[(size_t)m * N + n] - (double)ref));
		}
	if (!TRACE)
		fprintf(f, "pipe-%s-%dx%d-b%d-s%d,%s,%d,%d,%d,%d,%d,%lld,%g\n", tname, TM, N,
			BOX, S, tname, TM, N, BOX, S, k, best, err);
	for (int it = 0; TRACE && it < STEPS; it++) {
		fprintf(f, "pipe-%s-%dx%d-b%d-s%d,%d", tname, TM, N, BOX, S, it);
		for (int ph = 0; ph < PH_N; ph++) {
			long long v = besttr[ph * STEPS + it];

			fprintf(f, ",%lld", v ? v - besttr[PH_LOAD * STEPS] : -1);
		}
		fprintf(f, ",%lld,%g\n", best, err);
	}
	fflush(f);
	CHECK(cudaFree(ga));
	CHECK(cudaFree(gb));
	CHECK(cudaFree(gd));
	CHECK(cudaFree(gc));
	CHECK(cudaFree(gt));
}

template <int TM, int N, int T, int BOX, bool TRACE> static void stages(FILE *f)
{
	run<TM, N, T, 1, BOX, TRACE>(f);
	run<TM, N, T, 2, BOX, TRACE>(f);
	run<TM, N, T, 3, BOX, TRACE>(f);
	run<TM, N, T, 4, BOX, TRACE>(f);
}

/* Every tile shape with 32-byte boxes (the planner's); 64 and 128-byte boxes on three. */
template <int T, bool TRACE = false> static void shapes(FILE *f)
{
	stages<64, 64, T, 32, TRACE>(f);
	stages<64, 128, T, 32, TRACE>(f);
	stages<64, 256, T, 32, TRACE>(f);
	stages<128, 64, T, 32, TRACE>(f);
	stages<128, 128, T, 32, TRACE>(f);
	stages<64, 128, T, 64, TRACE>(f);
	stages<64, 256, T, 64, TRACE>(f);
	stages<128, 128, T, 64, TRACE>(f);
	stages<64, 128, T, 128, TRACE>(f);
	stages<64, 256, T, 128, TRACE>(f);
	stages<128, 128, T, 128, TRACE>(f);
}

/* pipeline [OUT.csv]: the kernels' cycles; pipeline --phases [OUT.csv]: the e4m3 ones' phases */
int main(int argc, char **argv)
{
	bool phases = argc > 1 && !strcmp(argv[1], "--phases");
	const char *out = argc > 1 + phases ? argv[1 + phases] :
			  phases ? "phases.csv" : "pipeline.csv";
	FILE *f = fopen(out, "w");

	if (!f)
		return 1;
	if (phases) {
		fprintf(f, "kernel,it,load,loaded,land,wait,ready,issued,group,sync,cycles,max_err\n");
		shapes<2, true>(f);
		fclose(f);
		printf("phases written\n");
		return 0;
	}
	fprintf(f, "kernel,type,tile_m,tile_n,box,stages,k,cycles,max_err\n");
	shapes<2>(f);
	shapes<1>(f);
	fclose(f);
	printf("pipeline written\n");
	return 0;
}
