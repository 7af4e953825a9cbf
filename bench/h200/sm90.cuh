// SPDX-License-Identifier: MIT
/*
 * What the H200 probes share: CHECK() for CUDA calls, mbarrier and bulk-copy helpers,
 * 2-D tensor maps and TMA loads, and wgmma.mma_async m64nNk(32 bytes) with both operands from shared-memory
 * descriptors, accumulating into f32: wgmma_t<N, T>(d, desc_a, desc_b) with T 0 f16,
 * 1 bf16, 2 e4m3, 3 tf32 and N / 2 floats of d a thread.
 */
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>

#define CHECK(x)                                                                      \
	do {                                                                          \
		cudaError_t e_ = (x);                                                 \
		if (e_ != cudaSuccess) {                                              \
			fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));      \
			exit(1);                                                      \
		}                                                                     \
	} while (0)

__device__ static void mbar_init(uint64_t *m, int count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"((uint32_t)__cvta_generic_to_shared(m)), "r"(count));
}

__device__ static void mbar_expect(uint64_t *m, uint32_t bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
		     ::"r"((uint32_t)__cvta_generic_to_shared(m)), "r"(bytes) : "memory");
}

__device__ static void mbar_wait(uint64_t *m, uint32_t parity)
{
	asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}\n"
		     ::"r"((uint32_t)__cvta_generic_to_shared(m)), "r"(parity) : "memory");
}

__device__ static void bulk_load(void *dst, const void *src, uint32_t bytes, uint64_t *m)
{
	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
		     ::"r"((uint32_t)__cvta_generic_to_shared(dst)), "l"(src), "r"(bytes),
		       "r"((uint32_t)__cvta_generic_to_shared(m)) : "memory");
}

/*
 * One thread: @copies loads, @inflight at a time on as many mbarriers, each expecting
 * @bytes and started by @issue(c, s) (load c into slot s); cycles to out[0].
 */
template <typename Issue>
__device__ static void ring(long long *out, uint64_t *mb, uint32_t bytes, int copies,
			    int inflight, Issue issue)
{
	long long t0, t1;

	for (int i = 0; i < inflight; i++)
		mbar_init(&mb[i], 1);
	asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
	t0 = clock64();
	for (int c = 0; c < copies; c++) {
		int s = c % inflight;

		if (c >= inflight)
			mbar_wait(&mb[s], ((c / inflight) - 1) & 1);
		mbar_expect(&mb[s], bytes);
		issue(c, s);
	}
	for (int c = copies - inflight; c < copies; c++)
		mbar_wait(&mb[c % inflight], (c / inflight) & 1);
	t1 = clock64();
	out[0] = t1 - t0;
}

__device__ static void tma_load2(uint32_t dst, const CUtensorMap *map, int c0, int c1,
				 uint64_t *mbar)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
		     " [%0], [%1, {%2, %3}], [%4];\n"
		     ::"r"(dst), "l"(map), "r"(c0), "r"(c1),
		       "r"((uint32_t)__cvta_generic_to_shared(mbar)) : "memory");
}

/* A 2-D tensor map of @rows x @cols elements of @eb bytes (rows @cols x @eb apart). */
static CUtensorMap tmap_2d(void *g, CUtensorMapDataType type, int eb, uint64_t cols,
			   uint64_t rows, uint32_t box_cols, uint32_t box_rows,
			   CUtensorMapSwizzle swizzle)
{
	CUtensorMap m;
	cuuint64_t dims[2] = { cols, rows }, strides[1] = { cols * eb };
	cuuint32_t box[2] = { box_cols, box_rows }, es[2] = { 1, 1 };
	CUresult r = cuTensorMapEncodeTiled(&m, type, 2, g, dims, strides, box, es,
					    CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
					    CU_TENSOR_MAP_L2_PROMOTION_NONE,
					    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);

	if (r != CUDA_SUCCESS) {
		fprintf(stderr, "cuTensorMapEncodeTiled: %d\n", (int)r);
		exit(1);
	}
	return m;
}

/*
 * The wgmma.mma_async instructions the probes use, m64nNk{16,32,8} with f32
 * accumulators in d[0 .. N/2 - 1]: one macro writes each, its operand lists below.
 */
#define WG_R32 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define WG_R64 WG_R32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define WG_R128 WG_R64 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define WG_AB32 "%32, %33"
#define WG_AB64 "%64, %65"
#define WG_AB128 "%128, %129"
#define WG_O8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
		 "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define WG_O32 WG_O8(0), WG_O8(8), WG_O8(16), WG_O8(24)
#define WG_O64 WG_O32, WG_O8(32), WG_O8(40), WG_O8(48), WG_O8(56)
#define WG_O128 WG_O64, WG_O8(64), WG_O8(72), WG_O8(80), WG_O8(88), WG_O8(96), WG_O8(104), \
		WG_O8(112), WG_O8(120)
/* @tail: the scale-d predicate's followers (f16/bf16 also take the transposes) */
#define WGMMA_FN(name, n, shape, tail)                                                   \
	__device__ static void name(float *d, uint64_t da, uint64_t db)                 \
	{                                                                               \
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"                  \
			     "wgmma.mma_async.sync.aligned." shape " {" WG_R##n "}, "       \
			     WG_AB##n ", p" tail ";\n}\n"                                   \
			     : WG_O##n : "l"(da), "l"(db));                                  \
	}
WGMMA_FN(wgmma_f16_64, 32, "m64n64k16.f32.f16.f16", ", 1, 1, 0, 0")
WGMMA_FN(wgmma_f16_128, 64, "m64n128k16.f32.f16.f16", ", 1, 1, 0, 0")
WGMMA_FN(wgmma_f16_256, 128, "m64n256k16.f32.f16.f16", ", 1, 1, 0, 0")
WGMMA_FN(wgmma_bf16_64, 32, "m64n64k16.f32.bf16.bf16", ", 1, 1, 0, 0")
WGMMA_FN(wgmma_bf16_128, 64, "m64n128k16.f32.bf16.bf16", ", 1, 1, 0, 0")
WGMMA_FN(wgmma_bf16_256, 128, "m64n256k16.f32.bf16.bf16", ", 1, 1, 0, 0")
WGMMA_FN(wgmma_e4m3_64, 32, "m64n64k32.f32.e4m3.e4m3", ", 1, 1")
WGMMA_FN(wgmma_e4m3_128, 64, "m64n128k32.f32.e4m3.e4m3", ", 1, 1")
WGMMA_FN(wgmma_e4m3_256, 128, "m64n256k32.f32.e4m3.e4m3", ", 1, 1")
WGMMA_FN(wgmma_tf32_64, 32, "m64n64k8.f32.tf32.tf32", ", 1, 1")
WGMMA_FN(wgmma_tf32_128, 64, "m64n128k8.f32.tf32.tf32", ", 1, 1")
WGMMA_FN(wgmma_tf32_256, 128, "m64n256k8.f32.tf32.tf32", ", 1, 1")

template <int N, int T> __device__ static void wgmma_t(float *d, uint64_t da, uint64_t db);
template <> __device__ void wgmma_t<64, 0>(float *d, uint64_t da, uint64_t db)
{
	wgmma_f16_64(d, da, db);
}
template <> __device__ void wgmma_t<64, 1>(float *d, uint64_t da, uint64_t db)
{
	wgmma_bf16_64(d, da, db);
}
template <> __device__ void wgmma_t<64, 2>(float *d, uint64_t da, uint64_t db)
{
	wgmma_e4m3_64(d, da, db);
}
template <> __device__ void wgmma_t<64, 3>(float *d, uint64_t da, uint64_t db)
{
	wgmma_tf32_64(d, da, db);
}
template <> __device__ void wgmma_t<128, 0>(float *d, uint64_t da, uint64_t db)
{
	wgmma_f16_128(d, da, db);
}
template <> __device__ void wgmma_t<128, 1>(float *d, uint64_t da, uint64_t db)
{
	wgmma_bf16_128(d, da, db);
}
template <> __device__ void wgmma_t<128, 2>(float *d, uint64_t da, uint64_t db)
{
	wgmma_e4m3_128(d, da, db);
}
template <> __device__ void wgmma_t<128, 3>(float *d, uint64_t da, uint64_t db)
{
	wgmma_tf32_128(d, da, db);
}
template <> __device__ void wgmma_t<256, 0>(float *d, uint64_t da, uint64_t db)
{
	wgmma_f16_256(d, da, db);
}
template <> __device__ void wgmma_t<256, 1>(float *d, uint64_t da, uint64_t db)
{
	wgmma_bf16_256(d, da, db);
}
template <> __device__ void wgmma_t<256, 2>(float *d, uint64_t da, uint64_t db)
{
	wgmma_e4m3_256(d, da, db);
}
template <> __device__ void wgmma_t<256, 3>(float *d, uint64_t da, uint64_t db)
{
	wgmma_tf32_256(d, da, db);
}

/* K-major operands without swizzle: core matrices 8 rows x 16 B, LBO 128, SBO 256. */
__device__ static uint64_t desc_plain(const void *p)
{
	uint32_t a = (uint32_t)__cvta_generic_to_shared(p);

	return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)(128 >> 4) << 16 | (uint64_t)(256 >> 4) << 32;
}

/* The shared memory of a one-wgmma probe: A (64 x 64 bytes) then B (up to 256 rows). */
#define WG_PROBE_SMEM (64 * 64 + 256 * 64)

/*
 * Before a warpgroup's timed wgmmas: @smem filled, the m64nN accumulators @d zeroed and
 * final, the operands' descriptors in *@da and *@db, and the wgmma fence behind a
 * barrier, so that the next instruction may issue a wgmma.
 */
template <int N>
__device__ static void wg_probe_setup(uint8_t *smem, float *d, uint64_t *da, uint64_t *db)
{
	for (int i = threadIdx.x; i < WG_PROBE_SMEM; i += blockDim.x)
		smem[i] = 0x30;
#pragma unroll
	for (int i = 0; i < N / 2; i++)
		d[i] = 0;
#pragma unroll
	for (int i = 0; i < N / 2; i++)	/* the accumulators are final before the chain */
		asm volatile("" : "+f"(d[i])::"memory");
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	__syncthreads();
	*da = desc_plain(smem);
	*db = desc_plain(smem + 64 * 64);
	asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
	__syncthreads();
}
