// SPDX-License-Identifier: MIT
/*
 * H200 probe of wgmma's shared-memory matrix descriptors (PTX 9.7.15.5.1.2).
 *
 * One warpgroup fills 64 KiB of shared memory (1024-byte aligned, so the swizzle
 * pattern's address bits are the same as the offsets'), then runs one
 * wgmma.mma_async m64n32 (D = A x B, scale-d false) per case, with descriptors for A
 * and B chosen at random: every swizzle, K-major and (bf16) MN-major, random leading
 * and stride byte offsets, start addresses inside and across swizzle rows, base
 * offsets. The data are small integers, so every D is exact whatever order the tensor
 * core adds in: a case tells only where the instruction read its operands.
 *
 * Output (little-endian), read by tests/host/test-device-wgmma-desc.c:
 *   "MXWD", u32 version 1, u32 smem_bytes, u32 ncases, smem bytes,
 *   per case: u32 type (0 bf16, 1 e4m3), u32 trans_a, u32 trans_b, u32 n (32),
 *             u64 desc_a, u64 desc_b (start addresses as offsets into the 64 KiB),
 *             i16 d[64][32] (row-major; |d| < 2^15, checked).
 *
 * Build and run (on the H200): ./run.sh OUTDIR
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda.h>

#define SMEM_BYTES 65536
#define N 32

#define CHECK(x)                                                                      \
	do {                                                                          \
		cudaError_t e_ = (x);                                                 \
		if (e_ != cudaSuccess) {                                              \
			fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));      \
			exit(1);                                                      \
		}                                                                     \
	} while (0)

struct Case {
	uint32_t type, trans_a, trans_b, n;
	uint64_t desc_a, desc_b;
};

/* Accumulator fragment of m64nN f32 (CUTLASS's GMMA C layout). */
__device__ static void store_d(float *out, const float *d)
{
	int t = threadIdx.x, w = t / 32, l = t % 32;

	for (int i = 0; i < N / 2; i++) {
		int row = 16 * w + (l >> 2) + 8 * ((i >> 1) & 1);
		int col = 8 * (i >> 2) + 2 * (l & 3) + (i & 1);
		out[row * N + col] = d[i];
	}
}

#define D16 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"
#define OUT16(d)                                                                      \
	"=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]),       \
	"=f"(d[6]), "=f"(d[7]), "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]),     \
	"=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15])

template <int TYPE, int TA, int TB>
__device__ static void mma(float *d, uint64_t da, uint64_t db)
{
	if (TYPE == 0) {
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 " D16
			     ", %16, %17, p, 1, 1, %18, %19;\n}\n"
			     : OUT16(d)
			     : "l"(da), "l"(db), "n"(TA), "n"(TB));
	} else {
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 " D16
			     ", %16, %17, p, 1, 1;\n}\n"
			     : OUT16(d)
			     : "l"(da), "l"(db));
	}
}

template <int TYPE, int TA, int TB>
__global__ void probe(const uint8_t *src, uint64_t da, uint64_t db, float *out)
{
	extern __shared__ uint8_t raw[];
	uint8_t *smem = raw + ((1024 - ((uint32_t)__cvta_generic_to_shared(raw) & 1023)) & 1023);
	uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
	float d[16];

	for (int i = threadIdx.x * 16; i < SMEM_BYTES; i += blockDim.x * 16)
		*(uint4 *)(smem + i) = *(const uint4 *)(src + i);
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	__syncthreads();
	/* start address field (bits 13:0) counts 16 bytes from the aligned base */
	da += base >> 4;
	db += base >> 4;
	asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
	mma<TYPE, TA, TB>(d, da, db);
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	store_d(out, d);
}

typedef void (*probe_fn)(const uint8_t *, uint64_t, uint64_t, float *);

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static uint64_t desc(uint32_t start, uint32_t lbo, uint32_t sbo, uint32_t base_off,
		     uint32_t swz)
{
	return (uint64_t)(start >> 4) | (uint64_t)(lbo >> 4) << 16 |
	       (uint64_t)(sbo >> 4) << 32 | (uint64_t)base_off << 49 | (uint64_t)swz << 62;
}

/*
 * A descriptor whose operand stays inside the 64 KiB under any reading of LBO and SBO:
 * starts below 9 KiB, offsets up to 2 KiB, so 64 rows end below 40 KiB.
 */
static uint64_t random_desc(int mn_major)
{
	static const uint32_t width[4] = { 16, 128, 64, 32 };	/* swizzle codes 0..3 */
	uint32_t swz = rnd(4), w = width[swz], lbo, sbo, start, base_off = 0;

	sbo = 16 * (1 + rnd(128));
	lbo = 16 * (1 + rnd(128));
	if (rnd(2)) {	/* the canonical values CUTLASS writes */
		sbo = swz ? 8 * w : 128 * (1 + rnd(4));
		if (mn_major)
			lbo = swz ? 8 * w * (1 + rnd(2)) : 128 * (1 + rnd(8));
	}
	start = 1024 * rnd(8);
	switch (rnd(4)) {
	case 0:	/* K steps inside a swizzle row, as DeepGEMM advances descriptors */
		start += 32 * rnd(w / 32 ? w / 32 : 1);
		break;
	case 1:	/* a start that is not aligned to the swizzle pattern */
		start += 128 * rnd(8);
		base_off = rnd(2) ? (start >> 7) & 7 : 0;
		break;
	case 2:
		start += 16 * rnd(64);
		base_off = rnd(8);
		break;
	default:
		break;
	}
	return desc(start, lbo, sbo, base_off, swz);
}

int main(int argc, char **argv)
{
	static const probe_fn fns[5] = { probe<0, 0, 0>, probe<0, 1, 0>, probe<0, 0, 1>,
					 probe<0, 1, 1>, probe<1, 0, 0> };
	int ncases = argc > 2 ? atoi(argv[2]) : 256;
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 1;
	std::vector<uint8_t> host(SMEM_BYTES);
	std::vector<float> d(64 * N);
	std::vector<int16_t> d16(64 * N);
	uint8_t *src;
	float *out;
	FILE *f;

	if (argc < 2 || !seed) {
		fprintf(stderr, "usage: %s OUT.bin [ncases [seed != 0]]\n", argv[0]);
		return 2;
	}
	rng ^= seed * 0xd1342543de82ef95ull;
	/*
	 * Every 2-byte word is a bf16 in {0, +-2, +-3, +-4}, and each of its bytes an e4m3
	 * in {0, -0, +-2} (0x00, 0x40, 0x80, 0xc0): bf16 and e4m3 cases read the same
	 * bytes, and their sums are small integers, exact in any order.
	 */
	for (int i = 0; i < SMEM_BYTES; i += 2) {
		static const uint16_t bf16[7] = { 0x0000, 0x4000, 0xc000, 0x4040,
						  0xc040, 0x4080, 0xc080 };
		uint16_t v = bf16[rnd(7)];

		host[i] = v & 0xff;
		host[i + 1] = v >> 8;
	}
	CHECK(cudaMalloc(&src, SMEM_BYTES));
	CHECK(cudaMalloc(&out, sizeof(float) * 64 * N));
	for (int i = 0; i < 5; i++)
		CHECK(cudaFuncSetAttribute(fns[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
					   SMEM_BYTES + 1024));
	f = fopen(argv[1], "wb");
	if (!f)
		return 1;
	{
		uint32_t hdr[3] = { 1, SMEM_BYTES, (uint32_t)ncases };

		fwrite("MXWD", 1, 4, f);
		fwrite(hdr, 4, 3, f);
	}
	CHECK(cudaMemcpy(src, host.data(), SMEM_BYTES, cudaMemcpyHostToDevice));
	fwrite(host.data(), 1, SMEM_BYTES, f);
	for (int c = 0; c < ncases; c++) {
		Case k;
		int fn;

		k.type = rnd(5) == 0;
		k.trans_a = k.type ? 0 : rnd(2);
		k.trans_b = k.type ? 0 : rnd(2);
		k.n = N;
		k.desc_a = random_desc(k.trans_a);
		k.desc_b = random_desc(k.trans_b);
		fn = k.type ? 4 : k.trans_a + 2 * k.trans_b;
		fns[fn]<<<1, 128, SMEM_BYTES + 1024>>>(src, k.desc_a, k.desc_b, out);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(d.data(), out, sizeof(float) * 64 * N, cudaMemcpyDeviceToHost));
		for (int i = 0; i < 64 * N; i++) {
			if (d[i] != (float)(int16_t)d[i]) {
				fprintf(stderr, "case %d: d[%d] = %g is not a small integer\n", c, i,
					d[i]);
				return 1;
			}
			d16[i] = (int16_t)d[i];
		}
		fwrite(&k, sizeof(k), 1, f);
		fwrite(d16.data(), 2, 64 * N, f);
	}
	fclose(f);
	printf("%d cases written to %s\n", ncases, argv[1]);
	return 0;
}
