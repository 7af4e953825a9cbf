// SPDX-License-Identifier: MIT
/*
 * H200 probes of what a wait costs (issue 17): does a warp that waits pay a wake-up
 * after the result is ready, and does a wait that finds the result already there cost
 * the same? One CTA on one SM, cycles from clock64() (t0 just before the issue), each
 * the best of 20 launches.
 *   wgmma_spin   one warpgroup: one wgmma.mma_async m64nNk32 (e4m3), commit, a delay of
 *                D dependent multiply-adds (about 4 cycles each), wgmma.wait_group 0
 *   bulk_spin    one thread: one 4 KiB bulk copy global -> shared on an mbarrier, the
 *                same delay, then try_wait.parity until the phase completes
 *   wgmma_issue  C chained wgmmas (one accumulator), commit, wait_group 0
 *   syncthreads  128 threads, 100 __syncthreads()
 * Columns: issued (t0 to past the commit or copy), wait_from (t0 to the wait), total (t0
 * to past the wait). A wait that blocks returns at ready + wake-up; one that finds the
 * result there returns at wait_from + its own cost: where total leaves its plateau the
 * result was ready, and the plateau against the last blocked wait_from bounds the wake-up.
 * Output: CSV "probe,param,delay,issued,wait_from,total" (param: N or bytes; delay: D, C
 * or the count). Run on an H200: run.sh OUTDIR wakeup.
 */
#include <cstring>

#include "sm90.cuh"

/* A delay of @n dependent integer multiply-adds (a few cycles each; clock64() in a loop
 * would step by ~40 cycles): the caller reads the clock after it. */
template <int K> __device__ static uint32_t delay(uint32_t x)
{
#pragma unroll
	for (int i = 0; i < K; i++)
		asm volatile("mad.lo.u32 %0, %0, 3, 1;\n" : "+r"(x));
	return x;	/* used: ptxas keeps the chain */
}

template <int N, int K> __global__ void probe_wgmma_spin(long long *out)
{
	__shared__ __align__(1024) uint8_t smem[WG_PROBE_SMEM];
	float d[N / 2];
	long long t0, ta, t1, t2;
	uint32_t x;
	uint64_t da, db;

	wg_probe_setup<N>(smem, d, &da, &db);
	t0 = clock64();
	wgmma_t<N, 2>(d, da, db);
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
	ta = clock64();
	x = delay<K>((uint32_t)t0);
	t1 = clock64();
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	t2 = clock64();
	if (threadIdx.x == 0) {
		out[0] = t2 - t0;
		out[1] = t1 - t0;
		out[2] = ta - t0;
	}
	if (d[0] == 12345.0f || x == 12345)
		out[3] = 1;
}

template <int K> __global__ void probe_bulk_spin(long long *out, const uint8_t *src)
{
	__shared__ __align__(128) uint8_t buf[4096];
	__shared__ __align__(8) uint64_t mb;
	long long t0, ta, t1, t2;
	uint32_t x;

	if (threadIdx.x)
		return;
	mbar_init(&mb, 1);
	asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
	t0 = clock64();
	mbar_expect(&mb, sizeof(buf));
	bulk_load(buf, src, sizeof(buf), &mb);
	ta = clock64();
	x = delay<K>((uint32_t)t0);
	t1 = clock64();
	mbar_wait(&mb, 0);
	t2 = clock64();
	out[0] = t2 - t0;
	out[1] = t1 - t0;
	out[2] = ta - t0;
	if (buf[17] == 0x77 || x == 12345)
		out[3] = 1;
}

/* One warpgroup: @C chained wgmmas m64nNk32 (e4m3), commit, wait: issue and total. */
template <int N, int C> __global__ void probe_wgmma_issue(long long *out)
{
	__shared__ __align__(1024) uint8_t smem[WG_PROBE_SMEM];
	float d[N / 2];
	long long t0, ta, t2;
	uint64_t da, db;

	wg_probe_setup<N>(smem, d, &da, &db);
	t0 = clock64();
#pragma unroll
	for (int i = 0; i < C; i++)
		wgmma_t<N, 2>(d, da, db);
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
	ta = clock64();
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	t2 = clock64();
	if (threadIdx.x == 0) {
		out[0] = t2 - t0;
		out[1] = ta - t0;
		out[2] = ta - t0;
	}
	if (d[0] == 12345.0f)
		out[3] = 1;
}

/* 128 threads: 100 __syncthreads() (as pipeline.cu's step after WAIT_GROUP 1). */
__global__ void probe_sync(long long *out)
{
	long long t0 = clock64();

	for (int i = 0; i < 100; i++)
		__syncthreads();
	if (threadIdx.x == 0)
		out[0] = out[1] = out[2] = clock64() - t0;
}

static int g_spin, g_n, g_chain;
static const uint8_t *g_src;

/* The delays, K = 0, 4, .. 124 dependent multiply-adds, as template instances. */
template <int K> static void launch_k(long long *dev)
{
	if (g_spin == K) {
		if (g_n == 64)
			probe_wgmma_spin<64, K><<<1, 128>>>(dev);
		else if (g_n == 256)
			probe_wgmma_spin<256, K><<<1, 128>>>(dev);
		else
			probe_bulk_spin<K><<<1, 32>>>(dev, g_src);
		return;
	}
	if constexpr (K < 124)
		launch_k<K + 4>(dev);
}

static void launch(long long *dev)
{
	if (g_chain == 0) {
		launch_k<0>(dev);
		return;
	}
	if (g_chain < 0) {
		probe_sync<<<1, 128>>>(dev);
		return;
	}
#define CHAIN(c)									\
	if (g_chain == c) {								\
		if (g_n == 64)								\
			probe_wgmma_issue<64, c><<<1, 128>>>(dev);			\
		else									\
			probe_wgmma_issue<256, c><<<1, 128>>>(dev);			\
	}
	CHAIN(1) CHAIN(2) CHAIN(4) CHAIN(8)
#undef CHAIN
}

/* Best of 20 by total: v[0] total, v[1] the wait's start, v[2] past the issue. */
static void best_of(long long *dev, long long v[3])
{
	long long r3[3];

	v[0] = -1;
	for (int r = 0; r < 20; r++) {
		launch(dev);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(r3, dev, sizeof(r3), cudaMemcpyDeviceToHost));
		if (v[0] < 0 || r3[0] < v[0])
			memcpy(v, r3, sizeof(r3));
	}
}

int main(int argc, char **argv)
{
	FILE *f = fopen(argc > 1 ? argv[1] : "wakeup.csv", "w");
	long long *dev, v[3];
	uint8_t *src;

	CHECK(cudaMalloc(&dev, 64));
	CHECK(cudaMalloc(&src, 1u << 20));
	CHECK(cudaMemset(src, 1, 1u << 20));
	g_src = src;
	fprintf(f, "probe,param,delay,issued,wait_from,total\n");
	for (g_n = 64; g_n <= 256; g_n *= 4)
		for (g_spin = 0; g_spin <= 124; g_spin += 4) {
			best_of(dev, v);
			fprintf(f, "wgmma_spin,%d,%d,%lld,%lld,%lld\n", g_n, g_spin, v[2], v[1], v[0]);
		}
	g_n = 0;
	for (g_spin = 0; g_spin <= 124; g_spin += 4) {
		best_of(dev, v);
		fprintf(f, "bulk_spin,4096,%d,%lld,%lld,%lld\n", g_spin, v[2], v[1], v[0]);
	}
	for (g_n = 64; g_n <= 256; g_n *= 4)
		for (g_chain = 1; g_chain <= 8; g_chain *= 2) {
			best_of(dev, v);
			fprintf(f, "wgmma_issue,%d,%d,%lld,%lld,%lld\n", g_n, g_chain, v[2], v[1], v[0]);
		}
	g_chain = -1;
	best_of(dev, v);
	fprintf(f, "syncthreads,128,100,%lld,%lld,%lld\n", v[2], v[1], v[0]);
	fclose(f);
	printf("wakeup written\n");
	return 0;
}
