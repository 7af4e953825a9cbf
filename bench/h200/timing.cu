// SPDX-License-Identifier: MIT
/*
 * H200 timing probes for MXA's cycle model (issue 17): one CTA on one SM, cycles from
 * clock64() (the SM clock), each the best of 20 runs:
 *   wgmma_lat   one wgmma.mma_async (D = A x B, operands in shared memory), commit,
 *               wait: the latency, per type (f16, bf16, e4m3, tf32) and N (64, 128, 256)
 *   wgmma_thr   32 of them chained into one accumulator, commit, wait: cycles per wgmma
 *   bulk_lat    one TMA bulk copy global -> shared (cp.async.bulk ... complete_tx on an
 *               mbarrier, waited with try_wait.parity), per size
 *   bulk_thr    256 such copies, up to 8 in flight on as many mbarriers (as many as 192
 *               KiB of shared memory holds; the type column says how many): per copy
 *   tma2d_lat   one load of PER_BAR (1 or 4) 2-D boxes (type: INNERxROWS, rows of INNER
 *               bytes swizzled as wide) on one mbarrier
 *   tma2d_thr   128 such loads, as many in flight as 192 KiB holds (at most 8): per load
 *   mbar        mbarrier arrive + try_wait round trip of one thread
 * Output: CSV "probe,type,param,cycles" (param: N, bytes or boxes per mbarrier); run.sh
 * adds the clocks.
 * Run on an H200: bench/h200/run.sh OUTDIR (writes OUTDIR/timing.csv).
 */
#include "sm90.cuh"

/* One warpgroup: @chain wgmmas into one accumulator, commit, wait; cycles to out[0]. */
template <int N, int T, int CHAIN> __global__ void probe_wgmma(long long *out)
{
	__shared__ __align__(1024) uint8_t smem[WG_PROBE_SMEM];
	float d[N / 2];
	long long t0, t1;
	uint64_t da, db;

	wg_probe_setup<N>(smem, d, &da, &db);
	t0 = clock64();
#pragma unroll
	for (int i = 0; i < CHAIN; i++)
		wgmma_t<N, T>(d, da, db);
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	t1 = clock64();
	if (threadIdx.x == 0)
		out[0] = t1 - t0;
	if (d[0] == 12345.0f)
		out[1] = 1;
}

/* One thread: @copies bulk loads of @bytes, @inflight at a time. */
__global__ void probe_bulk(long long *out, const uint8_t *src, uint32_t bytes, int copies, int inflight)
{
	extern __shared__ __align__(128) uint8_t dyn[];
	__shared__ __align__(8) uint64_t mb[8];

	if (threadIdx.x)
		return;
	ring(out, mb, bytes, copies, inflight, [&](int c, int s) {
		bulk_load(dyn + (size_t)s * bytes, src + (size_t)c * bytes, bytes, &mb[s]);
	});
}

/*
 * One thread: @copies loads of @per_bar 2-D boxes of @box_rows rows (consecutive rows of
 * @map, @bytes each box) on one mbarrier, @inflight at a time.
 */
__global__ void probe_tma2d(long long *out, const __grid_constant__ CUtensorMap map,
			    uint32_t bytes, int box_rows, int total_rows, int copies, int inflight,
			    int per_bar)
{
	extern __shared__ uint8_t dyn2[];
	__shared__ __align__(8) uint64_t mb[8];
	uint32_t base = ((uint32_t)__cvta_generic_to_shared(dyn2) + 1023) & ~1023u;

	if (threadIdx.x)
		return;
	ring(out, mb, bytes * per_bar, copies, inflight, [&](int c, int s) {
		for (int b = 0; b < per_bar; b++)
			tma_load2(base + (s * per_bar + b) * bytes, &map, 0,
				  (c * per_bar + b) * box_rows % total_rows, &mb[s]);
	});
}

/* One thread: @n arrive + try_wait round trips on one mbarrier of count 1. */
__global__ void probe_mbar(long long *out, int n)
{
	__shared__ __align__(8) uint64_t mb;
	long long t0, t1;

	if (threadIdx.x)
		return;
	mbar_init(&mb, 1);
	asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
	t0 = clock64();
	for (int i = 0; i < n; i++) {
		asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n"
			     ::"r"((uint32_t)__cvta_generic_to_shared(&mb)) : "memory");
		mbar_wait(&mb, i & 1);
	}
	t1 = clock64();
	out[0] = t1 - t0;
}

static long long best_of(void (*launch)(long long *), long long *dev)
{
	long long best = -1, v;

	for (int r = 0; r < 20; r++) {
		launch(dev);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(&v, dev, sizeof(v), cudaMemcpyDeviceToHost));
		if (best < 0 || v < best)
			best = v;
	}
	return best;
}

static int g_chain, g_copies, g_inflight;
static uint32_t g_bytes;
static const uint8_t *g_src;

template <int N, int T> static void launch_wgmma(long long *dev)
{
	if (g_chain == 1)
		probe_wgmma<N, T, 1><<<1, 128>>>(dev);
	else
		probe_wgmma<N, T, 32><<<1, 128>>>(dev);
}

template <int T> static void wgmma_rows(FILE *f, const char *name, long long *dev)
{
	for (int chain = 1; chain <= 32; chain += 31) {
		const char *probe = chain == 1 ? "wgmma_lat" : "wgmma_thr";

		g_chain = chain;
		fprintf(f, "%s,%s,64,%.1f\n", probe, name, (double)best_of(launch_wgmma<64, T>, dev) / chain);
		fprintf(f, "%s,%s,128,%.1f\n", probe, name, (double)best_of(launch_wgmma<128, T>, dev) / chain);
		fprintf(f, "%s,%s,256,%.1f\n", probe, name, (double)best_of(launch_wgmma<256, T>, dev) / chain);
	}
}

static void launch_bulk(long long *dev)
{
	probe_bulk<<<1, 32, g_bytes * g_inflight>>>(dev, g_src, g_bytes, g_copies, g_inflight);
}

static CUtensorMap g_map;
static int g_box_rows, g_total_rows, g_per_bar;

static void launch_tma2d(long long *dev)
{
	probe_tma2d<<<1, 32, g_bytes * g_per_bar * g_inflight + 1024>>>(
		dev, g_map, g_bytes, g_box_rows, g_total_rows, g_copies, g_inflight, g_per_bar);
}

static void launch_mbar(long long *dev)
{
	probe_mbar<<<1, 32>>>(dev, 1000);
}

int main(int argc, char **argv)
{
	static const char *const tnames[4] = { "f16", "bf16", "e4m3", "tf32" };
	long long *dev;
	uint8_t *src;
	FILE *f = fopen(argc > 1 ? argv[1] : "timing.csv", "w");

	CHECK(cudaMalloc(&dev, 64));
	CHECK(cudaMalloc(&src, 256u << 20));
	CHECK(cudaMemset(src, 1, 256u << 20));
	CHECK(cudaFuncSetAttribute(probe_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10));
	fprintf(f, "probe,type,param,cycles\n");
	wgmma_rows<0>(f, tnames[0], dev);
	wgmma_rows<1>(f, tnames[1], dev);
	wgmma_rows<2>(f, tnames[2], dev);
	wgmma_rows<3>(f, tnames[3], dev);
	g_src = src;
	for (uint32_t bytes = 1024; bytes <= (64u << 10); bytes *= 2) {
		g_bytes = bytes;
		g_copies = 1, g_inflight = 1;
		fprintf(f, "bulk_lat,-,%u,%lld\n", bytes, best_of(launch_bulk, dev));
		/* as many in flight as 192 KiB of shared memory holds, at most 8 */
		g_inflight = (192u << 10) / bytes < 8 ? (int)((192u << 10) / bytes) : 8;
		g_copies = 256;
		fprintf(f, "bulk_thr,%d,%u,%.1f\n", g_inflight, bytes,
			(double)best_of(launch_bulk, dev) / 256);
	}
	/* 2-D boxes of 32, 64 and 128-byte rows (swizzled as wide), 64 to 256 rows */
	CHECK(cudaFuncSetAttribute(probe_tma2d, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10));
	for (uint32_t inner = 32; inner <= 128; inner *= 2) {
		CUtensorMapSwizzle swz = inner == 32 ? CU_TENSOR_MAP_SWIZZLE_32B :
					 inner == 64 ? CU_TENSOR_MAP_SWIZZLE_64B :
						       CU_TENSOR_MAP_SWIZZLE_128B;

		g_total_rows = (int)((64u << 20) / inner);
		for (int rows = 64; rows <= 256; rows *= 2) {
			g_map = tmap_2d(src, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, inner, g_total_rows,
					inner, rows, swz);
			g_box_rows = rows;
			g_bytes = inner * rows;
			for (g_per_bar = 1; g_per_bar <= 4; g_per_bar *= 4) {
				g_copies = 1, g_inflight = 1;
				fprintf(f, "tma2d_lat,%ux%d,%d,%lld\n", inner, rows, g_per_bar,
					best_of(launch_tma2d, dev));
				g_inflight = (int)((192u << 10) / (g_bytes * g_per_bar));
				g_inflight = g_inflight < 8 ? g_inflight : 8;
				g_copies = 128;
				fprintf(f, "tma2d_thr,%ux%d,%d,%.1f\n", inner, rows, g_per_bar,
					(double)best_of(launch_tma2d, dev) / 128);
			}
		}
	}
	fprintf(f, "mbar,-,1,%.1f\n", (double)best_of(launch_mbar, dev) / 1000);
	fclose(f);
	printf("timing written\n");
	return 0;
}
