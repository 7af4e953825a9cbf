// SPDX-License-Identifier: MIT
/*
 * H200 probe for MXA's cycle model (issue 17): do SMs that load at the same time slow
 * each other down? G CTAs (1 ... 132, one per SM: each takes 192 KiB of shared memory)
 * each stream COPIES bulk copies (cp.async.bulk, global -> shared, 64 KiB, 3 in flight,
 * one thread) and time their own loop with clock64(). Two sources:
 *   l2    each CTA cycles through its own 1 MiB (G MiB in all: L2-resident for G <= 32,
 *         the H200's L2 being 50 MiB), as the model's kernels' operands are;
 *   hbm   each CTA reads its own COPIES x 64 KiB = 16 MiB once (G x 16 MiB, mostly
 *         beyond L2).
 * Output (CSV): probe,source,ctas,bytes_per_cycle (the mean over the CTAs of each
 * one's bytes over its cycles), slowest_bytes_per_cycle (the slowest CTA's), each the
 * best of 10 launches. One CTA's figure is the per-SM path the model has (95 bytes a
 * cycle, timing.csv's bulk_thr); where G CTAs each get less, the SMs contend.
 * Run on an H200: bench/h200/run.sh OUTDIR contention.
 */
#include "sm90.cuh"

#define COPY_BYTES	(64u << 10)
#define INFLIGHT	3
#define COPIES		256
#define L2_SPAN		(1u << 20)	/* per CTA, the l2 source */

__global__ void probe_stream(long long *out, const uint8_t *src, int l2)
{
	extern __shared__ __align__(128) uint8_t dyn[];
	__shared__ __align__(8) uint64_t mb[INFLIGHT];
	const uint8_t *mine = src + (size_t)blockIdx.x * (l2 ? L2_SPAN : (size_t)COPIES * COPY_BYTES);

	if (threadIdx.x)
		return;
	ring(out + blockIdx.x, mb, COPY_BYTES, COPIES, INFLIGHT, [&](int c, int s) {
		size_t off = l2 ? (size_t)c * COPY_BYTES % L2_SPAN : (size_t)c * COPY_BYTES;

		bulk_load(dyn + (size_t)s * COPY_BYTES, mine + off, COPY_BYTES, &mb[s]);
	});
}

int main(int argc, char **argv)
{
	static const int ctas[] = { 1, 2, 4, 8, 16, 32, 66, 132 };
	FILE *f = fopen(argc > 1 ? argv[1] : "contention.csv", "w");
	long long *dev, host[132];
	uint8_t *src;
	int sms;

	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	CHECK(cudaMalloc(&dev, sizeof(host)));
	CHECK(cudaMalloc(&src, (size_t)132 * COPIES * COPY_BYTES));	/* 2.1 GiB */
	CHECK(cudaMemset(src, 1, (size_t)132 * COPIES * COPY_BYTES));
	CHECK(cudaFuncSetAttribute(probe_stream, cudaFuncAttributeMaxDynamicSharedMemorySize,
				   INFLIGHT * COPY_BYTES));
	fprintf(f, "probe,source,ctas,bytes_per_cycle,slowest_bytes_per_cycle\n");
	for (int l2 = 1; l2 >= 0; l2--) {
		for (unsigned i = 0; i < sizeof(ctas) / sizeof(ctas[0]) && ctas[i] <= sms; i++) {
			int g = ctas[i];
			double best_mean = 0, best_slow = 0;

			for (int r = 0; r < 10; r++) {
				double sum = 0, slow = 1e30;

				probe_stream<<<g, 32, INFLIGHT * COPY_BYTES>>>(dev, src, l2);
				CHECK(cudaGetLastError());
				CHECK(cudaMemcpy(host, dev, g * sizeof(long long), cudaMemcpyDeviceToHost));
				for (int b = 0; b < g; b++) {
					double bpc = (double)COPIES * COPY_BYTES / host[b];

					sum += bpc;
					slow = bpc < slow ? bpc : slow;
				}
				if (sum / g > best_mean)
					best_mean = sum / g;
				if (slow > best_slow)
					best_slow = slow;
			}
			fprintf(f, "contention,%s,%d,%.1f,%.1f\n", l2 ? "l2" : "hbm", g, best_mean,
				best_slow);
		}
	}
	fclose(f);
	printf("contention written\n");
	return 0;
}
