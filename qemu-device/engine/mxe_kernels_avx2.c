// SPDX-License-Identifier: MIT
/*
 * mxe_kernels_avx2.c - AVX2/FMA/F16C micro kernels and row decoders.
 *
 * Compiled for any x86-64 with __attribute__((target)) and only called when
 * mxe_cpu_use_avx2() says the CPU has the features. The float kernel holds
 * a 6 x 16 block in 12 ymm accumulators; lane (i, j) computes exactly the
 * portable kernel's p = fma(a_ik, b_jk, p) sequence, so the bits agree.
 * The integer kernel multiplies int16 pairs with vpmaddwd (exact: two
 * products of at most 2^14 each) and adds in int32. The int8 kernels form
 * the small-integer MX types' block sums as exact dot products (vpmaddubsw),
 * as the VNNI ones do, for CPUs without VNNI.
 */
#include <math.h>
#include <string.h>

#include "mxe_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "mxe_avx2.h"

#define AVX2 __attribute__((target("avx2,fma,f16c")))

AVX2 static inline __m256 upd(__m256 p, const float *d, const float *c, unsigned flags)
{
	__m256 v;

	if (!(flags & MXE_KF_FIRST))
		v = _mm256_add_ps(_mm256_loadu_ps(d), p);
	else if (flags & MXE_KF_C)
		v = _mm256_add_ps(_mm256_loadu_ps(c), p);
	else
		v = p;
	if (flags & MXE_KF_LAST) {
		__m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));

		v = _mm256_blendv_ps(v, nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
	}
	return v;
}

/*
 * Whole MX sub-blocks of 32 k (@nsub >= 1) in one asm block, so that the
 * twelve accumulators never leave their registers: for each sub-block the
 * chains restart from +0 (vxorps), run 32 FMA steps, and are folded into
 * the block sum p (the first sub-block's chains are p; later ones are added
 * to p, kept in @p between sub-blocks). On return the accumulators hold p.
 * Same operations in the same order per lane as the portable kernel.
 */
/* A row i, element o: o * 4 + i * MXE_KA_STRIDE * 4 bytes */
#define ROWA(o, i, c0, c1)							\
	"vbroadcastss " #o "*4+" #i "*1024(%[a]), %%ymm15\n\t"			\
	"vfmadd231ps %%ymm13, %%ymm15, %[" #c0 "]\n\t"				\
	"vfmadd231ps %%ymm14, %%ymm15, %[" #c1 "]\n\t"
#define STEPA(o)								\
	"vmovaps " #o "*64(%[b]), %%ymm13\n\t"					\
	"vmovaps " #o "*64+32(%[b]), %%ymm14\n\t"				\
	ROWA(o, 0, c00, c01) ROWA(o, 1, c10, c11)				\
	ROWA(o, 2, c20, c21) ROWA(o, 3, c30, c31)				\
	ROWA(o, 4, c40, c41) ROWA(o, 5, c50, c51)
#define ZERO12								\
	"vxorps %[c00], %[c00], %[c00]\n\t" "vxorps %[c01], %[c01], %[c01]\n\t"	\
	"vxorps %[c10], %[c10], %[c10]\n\t" "vxorps %[c11], %[c11], %[c11]\n\t"	\
	"vxorps %[c20], %[c20], %[c20]\n\t" "vxorps %[c21], %[c21], %[c21]\n\t"	\
	"vxorps %[c30], %[c30], %[c30]\n\t" "vxorps %[c31], %[c31], %[c31]\n\t"	\
	"vxorps %[c40], %[c40], %[c40]\n\t" "vxorps %[c41], %[c41], %[c41]\n\t"	\
	"vxorps %[c50], %[c50], %[c50]\n\t" "vxorps %[c51], %[c51], %[c51]\n\t"
/* 32 k steps: 4 iterations of 8; each prefetches 3 lines of the next A
 * panel (6 KiB after this one in the packed layout) */
#define SUB32(l)								\
	"mov $4, %[cnt]\n\t"							\
	#l ":\n\t"								\
	STEPA(0) STEPA(1) STEPA(2) STEPA(3)					\
	"prefetcht0 (%[pf])\n\t"						\
	"prefetcht0 64(%[pf])\n\t"						\
	"prefetcht0 128(%[pf])\n\t"						\
	STEPA(4) STEPA(5) STEPA(6) STEPA(7)					\
	"add $192, %[pf]\n\t"							\
	"add $32, %[a]\n\t"							\
	"add $512, %[b]\n\t"							\
	"dec %[cnt]\n\t"							\
	"jnz " #l "b\n\t"
#define P12(op)									\
	op(c00, 0) op(c01, 32) op(c10, 64) op(c11, 96) op(c20, 128) op(c21, 160)	\
	op(c30, 192) op(c31, 224) op(c40, 256) op(c41, 288) op(c50, 320) op(c51, 352)
#define PSTORE(c, off) "vmovaps %[" #c "], " #off "(%[p])\n\t"
#define PADD(c, off) "vaddps " #off "(%[p]), %[" #c "], %[" #c "]\n\t"
/* one accumulator's fold between sub-blocks: p += q, stored, the chain restarted */
#define PFOLD(c, off) PADD(c, off) PSTORE(c, off) "vxorps %[" #c "], %[" #c "], %[" #c "]\n\t"

_Static_assert(MXE_KA_STRIDE == 256, "ROWA's displacement is 1024 bytes per A row");

AVX2 void mxe_kern_f32_avx2(const float *a, const float *b, size_t k, const struct mxe_kf32 *u)
{
	/* (initialised only to keep the compiler quiet: k >= 1) */
	__m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
	__m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
	float p[MXE_MR * MXE_NR] __attribute__((aligned(32)));
	size_t nsub = k / MXE_FAST_KSUB, rem = k % MXE_FAST_KSUB, cnt;
	const float *pf = a + MXE_MR * MXE_KA_STRIDE;

	/* D is read (or written) at the end: start fetching its rows now */
	for (unsigned i = 0; i < u->mr; i++)
		__builtin_prefetch(u->d + i * u->ldd, 1, 3);
	if (nsub) {
		__asm__ volatile(
			ZERO12
			SUB32(1)
			"dec %[nsub]\n\t"
			"jz 3f\n\t"
			P12(PSTORE)
			ZERO12
			"2:\n\t"
			SUB32(4)
			"dec %[nsub]\n\t"
			"jz 5f\n\t"
			/* each accumulator added, stored and zeroed in turn: all twelve
			 * added, then all stored, ran 6-7 % slower on a Zen 3 (stores
			 * waiting on the chains' ends held the next sub-block back) */
			P12(PFOLD)
			"jmp 2b\n\t"
			"5:\n\t"
			P12(PADD)
			"3:\n\t"
			: [a] "+r"(a), [b] "+r"(b), [nsub] "+r"(nsub), [cnt] "=&r"(cnt), [pf] "+r"(pf),
			  [c00] "=&x"(c00), [c01] "=&x"(c01), [c10] "=&x"(c10), [c11] "=&x"(c11),
			  [c20] "=&x"(c20), [c21] "=&x"(c21), [c30] "=&x"(c30), [c31] "=&x"(c31),
			  [c40] "=&x"(c40), [c41] "=&x"(c41), [c50] "=&x"(c50), [c51] "=&x"(c51)
			: [p] "r"(p)
			: "xmm13", "xmm14", "xmm15", "memory", "cc");
	}
	if (rem) {
		/* a last, partial sub-block (K not a multiple of 32) */
		__m256 r[12];

		if (k >= MXE_FAST_KSUB) {
			_mm256_store_ps(p + 0, c00), _mm256_store_ps(p + 8, c01);
			_mm256_store_ps(p + 16, c10), _mm256_store_ps(p + 24, c11);
			_mm256_store_ps(p + 32, c20), _mm256_store_ps(p + 40, c21);
			_mm256_store_ps(p + 48, c30), _mm256_store_ps(p + 56, c31);
			_mm256_store_ps(p + 64, c40), _mm256_store_ps(p + 72, c41);
			_mm256_store_ps(p + 80, c50), _mm256_store_ps(p + 88, c51);
		}
		for (int i = 0; i < 12; i++)
			r[i] = _mm256_setzero_ps();
		for (size_t kk = 0; kk < rem; kk++, a++, b += 16) {
			__m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);

			for (int i = 0; i < 6; i++) {
				__m256 ax = _mm256_broadcast_ss(a + i * MXE_KA_STRIDE);

				r[2 * i] = _mm256_fmadd_ps(ax, b0, r[2 * i]);
				r[2 * i + 1] = _mm256_fmadd_ps(ax, b1, r[2 * i + 1]);
			}
		}
		if (k >= MXE_FAST_KSUB)
			for (int i = 0; i < 12; i++)
				r[i] = _mm256_add_ps(_mm256_load_ps(p + 8 * i), r[i]);
		c00 = r[0], c01 = r[1], c10 = r[2], c11 = r[3], c20 = r[4], c21 = r[5];
		c30 = r[6], c31 = r[7], c40 = r[8], c41 = r[9], c50 = r[10], c51 = r[11];
	}

	if (u->mr == MXE_MR && u->nr == MXE_NR) {
		unsigned fl = u->flags;
		float *d = u->d;
		const float *c = (fl & MXE_KF_C) ? u->c : NULL;
		ptrdiff_t ldd = u->ldd, ldc = u->ldc;

#define ROW(i, r0, r1)								\
		do {								\
			_mm256_storeu_ps(d + (i) * ldd, upd(r0, d + (i) * ldd, c ? c + (i) * ldc : NULL, fl));	\
			_mm256_storeu_ps(d + (i) * ldd + 8,			\
					 upd(r1, d + (i) * ldd + 8, c ? c + (i) * ldc + 8 : NULL, fl));	\
		} while (0)
		ROW(0, c00, c01);
		ROW(1, c10, c11);
		ROW(2, c20, c21);
		ROW(3, c30, c31);
		ROW(4, c40, c41);
		ROW(5, c50, c51);
#undef ROW
	} else {
		_mm256_store_ps(p + 0, c00), _mm256_store_ps(p + 8, c01);
		_mm256_store_ps(p + 16, c10), _mm256_store_ps(p + 24, c11);
		_mm256_store_ps(p + 32, c20), _mm256_store_ps(p + 40, c21);
		_mm256_store_ps(p + 48, c30), _mm256_store_ps(p + 56, c31);
		_mm256_store_ps(p + 64, c40), _mm256_store_ps(p + 72, c41);
		_mm256_store_ps(p + 80, c50), _mm256_store_ps(p + 88, c51);
		mxe_kf32_apply(p, u);
	}
}
/*
 * EXACT: @u's sums s = (first ? 0 : s) + t, for the 6 x 16 doubles at @t; a full row in
 * vectors (one element at a time, it took 5-20 % of the int8 kernel's time alone).
 */
AVX2 static inline void kx64_add(const double *t, const struct mxe_kx64 *u)
{
	for (unsigned i = 0; i < u->mr; i++) {
		double *s = u->s + i * u->lds;
		const double *ti = t + i * MXE_NR;

		if (u->nr < MXE_NR) {
			for (unsigned j = 0; j < u->nr; j++)
				s[j] = (u->first ? 0.0 : s[j]) + ti[j];
			continue;
		}
		for (unsigned j = 0; j < MXE_NR; j += 4)
			_mm256_storeu_pd(s + j, _mm256_add_pd(u->first ? _mm256_setzero_pd() :
							      _mm256_loadu_pd(s + j),
							      _mm256_loadu_pd(ti + j)));
	}
}

/*
 * EXACT's block sums (struct mxe_kx64), in fixed registers: ymm0-11 the
 * chains, ymm12/13 the B vectors of one k, ymm14 the broadcast A element,
 * ymm15 the fold's. As in the AVX-512 kernel, each sub-block's chains go to
 * q (6 x 16 f32) when it ends, and the next sub-block's 8-k steps fold that
 * q into t (6 x 16 doubles), six groups of four per step, so that the
 * conversions and additions fill the pipes the FMAs leave free.
 */
#define XROWA(o, i, d0, d1)							\
	"vbroadcastss " #o "*4+" #i "*1024(%[a]), %%ymm14\n\t"			\
	"vfmadd231ps %%ymm12, %%ymm14, %%ymm" #d0 "\n\t"			\
	"vfmadd231ps %%ymm13, %%ymm14, %%ymm" #d1 "\n\t"
#define XSTEP(o)								\
	"vmovaps " #o "*64(%[b]), %%ymm12\n\t"					\
	"vmovaps " #o "*64+32(%[b]), %%ymm13\n\t"				\
	XROWA(o, 0, 0, 1) XROWA(o, 1, 2, 3) XROWA(o, 2, 4, 5)			\
	XROWA(o, 3, 6, 7) XROWA(o, 4, 8, 9) XROWA(o, 5, 10, 11)
#define XZ(r) "vxorps %%ymm" #r ", %%ymm" #r ", %%ymm" #r "\n\t"
#define XSQ(r) "vmovaps %%ymm" #r ", " #r "*32(%[qp])\n\t"
#define XFOLD1(oq, ot)								\
	"vcvtps2pd " #oq "(%[qp]), %%ymm15\n\t"					\
	"vaddpd " #ot "(%[tp]), %%ymm15, %%ymm15\n\t"				\
	"vmovapd %%ymm15, " #ot "(%[tp])\n\t"

AVX2 void mxe_kern_x64_avx2(const float *a, const float *b, size_t k, const struct mxe_kx64 *u)
{
	float q[MXE_MR * MXE_NR] __attribute__((aligned(32)));
	double t[MXE_MR * MXE_NR] __attribute__((aligned(32)));
	size_t n = k / MXE_FAST_KSUB, cnt;
	const float *pf = a + MXE_MR * MXE_KA_STRIDE;
	float *qp = q;
	double *tp = t;

	memset(q, 0, sizeof(q));
	memset(t, 0, sizeof(t));
	__asm__ volatile(
		"2:\n\t"
		XZ(0) XZ(1) XZ(2) XZ(3) XZ(4) XZ(5) XZ(6) XZ(7) XZ(8) XZ(9) XZ(10) XZ(11)
		"mov $4, %[cnt]\n\t"
		"4:\n\t"
		XSTEP(0) XSTEP(1) XSTEP(2) XSTEP(3)
		"prefetcht0 (%[pf])\n\t"
		"prefetcht0 64(%[pf])\n\t"
		"prefetcht0 128(%[pf])\n\t"
		XFOLD1(0, 0) XFOLD1(16, 32) XFOLD1(32, 64)
		XFOLD1(48, 96) XFOLD1(64, 128) XFOLD1(80, 160)
		XSTEP(4) XSTEP(5) XSTEP(6) XSTEP(7)
		"add $192, %[pf]\n\t"
		"add $32, %[a]\n\t"
		"add $512, %[b]\n\t"
		"add $96, %[qp]\n\t"
		"add $192, %[tp]\n\t"
		"dec %[cnt]\n\t"
		"jnz 4b\n\t"
		"sub $384, %[qp]\n\t"
		"sub $768, %[tp]\n\t"
		XSQ(0) XSQ(1) XSQ(2) XSQ(3) XSQ(4) XSQ(5) XSQ(6) XSQ(7) XSQ(8) XSQ(9) XSQ(10)
		XSQ(11)
		"dec %[n]\n\t"
		"jnz 2b\n\t"
		: [a] "+r"(a), [b] "+r"(b), [n] "+r"(n), [cnt] "=&r"(cnt), [pf] "+r"(pf),
		  [qp] "+r"(qp), [tp] "+r"(tp)
		:
		: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
		  "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc");
	for (unsigned g = 0; g < MXE_MR * MXE_NR; g += 4)	/* the last sub-block's */
		_mm256_store_pd(t + g, _mm256_add_pd(_mm256_load_pd(t + g),
						     _mm256_cvtps_pd(_mm_load_ps(q + g))));
	kx64_add(t, u);
}
#undef XROWA
#undef XSTEP
#undef XZ
#undef XSQ
#undef XFOLD1

#undef ROWA
#undef STEPA
#undef ZERO12
#undef SUB32
#undef P12
#undef PSTORE
#undef PADD

/* vbroadcastss is a plain load on Zen 3, vpbroadcastd from memory also
 * takes a vector pipe that vpmaddwd needs; the bits are the same. */
#define BCAST(p) _mm256_castps_si256(_mm256_broadcast_ss((const float *)(const void *)(p)))

AVX2 void mxe_kern_s16_avx2(const uint32_t *a, const uint32_t *b, size_t kpairs,
			    const struct mxe_ks32 *u)
{
	__m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
	__m256i c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
	int32_t p[MXE_MR * MXE_NR] __attribute__((aligned(32)));

#define STEP(o)								\
	do {								\
		__m256i b0 = _mm256_load_si256((const __m256i *)(b + (o) * 16));	\
		__m256i b1 = _mm256_load_si256((const __m256i *)(b + (o) * 16 + 8));	\
		__m256i ax = BCAST(a + (o) * 6 + 0);			\
		c00 = _mm256_add_epi32(c00, _mm256_madd_epi16(ax, b0));	\
		c01 = _mm256_add_epi32(c01, _mm256_madd_epi16(ax, b1));	\
		ax = BCAST(a + (o) * 6 + 1);				\
		c10 = _mm256_add_epi32(c10, _mm256_madd_epi16(ax, b0));	\
		c11 = _mm256_add_epi32(c11, _mm256_madd_epi16(ax, b1));	\
		ax = BCAST(a + (o) * 6 + 2);				\
		c20 = _mm256_add_epi32(c20, _mm256_madd_epi16(ax, b0));	\
		c21 = _mm256_add_epi32(c21, _mm256_madd_epi16(ax, b1));	\
		ax = BCAST(a + (o) * 6 + 3);				\
		c30 = _mm256_add_epi32(c30, _mm256_madd_epi16(ax, b0));	\
		c31 = _mm256_add_epi32(c31, _mm256_madd_epi16(ax, b1));	\
		ax = BCAST(a + (o) * 6 + 4);				\
		c40 = _mm256_add_epi32(c40, _mm256_madd_epi16(ax, b0));	\
		c41 = _mm256_add_epi32(c41, _mm256_madd_epi16(ax, b1));	\
		ax = BCAST(a + (o) * 6 + 5);				\
		c50 = _mm256_add_epi32(c50, _mm256_madd_epi16(ax, b0));	\
		c51 = _mm256_add_epi32(c51, _mm256_madd_epi16(ax, b1));	\
	} while (0)

	/* One step per iteration: unrolled, GCC hoists the vpmaddwd above
	 * their adds and spills. */
	for (size_t kp = 0; kp < kpairs; kp++) {
		STEP(0);
		a += 6;
		b += 16;
	}
#undef STEP
	_mm256_store_si256((__m256i *)(p + 0), c00), _mm256_store_si256((__m256i *)(p + 8), c01);
	_mm256_store_si256((__m256i *)(p + 16), c10), _mm256_store_si256((__m256i *)(p + 24), c11);
	_mm256_store_si256((__m256i *)(p + 32), c20), _mm256_store_si256((__m256i *)(p + 40), c21);
	_mm256_store_si256((__m256i *)(p + 48), c30), _mm256_store_si256((__m256i *)(p + 56), c31);
	_mm256_store_si256((__m256i *)(p + 64), c40), _mm256_store_si256((__m256i *)(p + 72), c41);
	_mm256_store_si256((__m256i *)(p + 80), c50), _mm256_store_si256((__m256i *)(p + 88), c51);
	mxe_ks32_apply(p, u);
}

/*
 * One 32-k block of the 6 x 16 int32 sums of int16 pair panels ([16][MXE_MR] words of A,
 * [16][MXE_NR] of B) in fixed registers: ymm12/13 one k pair's two B vectors, ymm14 the
 * broadcast A pair, ymm15 the products (vpmaddwd: a pair's two products in int32, then
 * vpaddd). In C with intrinsics, GCC kept half the sums on the stack and reloaded them
 * every k pair. The int16 windows (TK_W16) and the int8 panels' int16 pairs (@g 16)
 * both run it; the next A panel's six lines of the block (3072 bytes on in both
 * layouts) stream in meanwhile.
 */
#define W16ROW(o, i, h0, h1)							\
	"vbroadcastss " #o "*24+" #i "*4(%[a]), %%ymm14\n\t"			\
	"vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"				\
	"vpaddd %%ymm15, %[" #h0 "], %[" #h0 "]\n\t"				\
	"vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\t"				\
	"vpaddd %%ymm15, %[" #h1 "], %[" #h1 "]\n\t"
#define W16STEP(o)								\
	"vmovdqu " #o "*64(%[b]), %%ymm12\n\t"					\
	"vmovdqu " #o "*64+32(%[b]), %%ymm13\n\t"				\
	W16ROW(o, 0, h00, h01) W16ROW(o, 1, h10, h11) W16ROW(o, 2, h20, h21)	\
	W16ROW(o, 3, h30, h31) W16ROW(o, 4, h40, h41) W16ROW(o, 5, h50, h51)

_Static_assert(MXE_MR == 6 && MXE_NR == 16 && MXE_FAST_KBLOCK == 256,
	       "W16STEP's offsets: 6 A words and 16 B words a k pair; A panels 3072 bytes apart");

AVX2 static inline __attribute__((always_inline)) void
i16_block_avx2(const void *a, const void *b, __m256i h[12])
{
#pragma GCC unroll 12
	for (int x = 0; x < 12; x++)
		h[x] = _mm256_setzero_si256();
	__asm__(W16STEP(0) W16STEP(1) W16STEP(2) W16STEP(3)
		"prefetcht0 3072(%[a])\n\t" "prefetcht0 3136(%[a])\n\t"
		W16STEP(4) W16STEP(5) W16STEP(6) W16STEP(7)
		"prefetcht0 3200(%[a])\n\t" "prefetcht0 3264(%[a])\n\t"
		W16STEP(8) W16STEP(9) W16STEP(10) W16STEP(11)
		"prefetcht0 3328(%[a])\n\t" "prefetcht0 3392(%[a])\n\t"
		W16STEP(12) W16STEP(13) W16STEP(14) W16STEP(15)
		: [h00] "+x"(h[0]), [h01] "+x"(h[1]), [h10] "+x"(h[2]), [h11] "+x"(h[3]),
		  [h20] "+x"(h[4]), [h21] "+x"(h[5]), [h30] "+x"(h[6]), [h31] "+x"(h[7]),
		  [h40] "+x"(h[8]), [h41] "+x"(h[9]), [h50] "+x"(h[10]), [h51] "+x"(h[11])
		: [a] "r"(a), [b] "r"(b)
		: "xmm12", "xmm13", "xmm14", "xmm15", "memory");
}
#undef W16ROW
#undef W16STEP

/*
 * The int8 panels (struct mxe_ks8) without AVX512-VNNI: a Zen 3's AVX2. One 32-k block
 * of a 6 x 16 product as the VNNI kernel forms it, in fixed registers: the twelve
 * sums in the operands h.., ymm12/13 one k group's two B vectors, ymm14 the broadcast
 * A bytes, ymm15 the products. vpmaddubsw multiplies A's biased bytes by B's and adds
 * adjacent pairs in int16. With @g 8 the eight k groups' pair sums are added in int16
 * (vpaddw) and widened once at the end; with @g 2 two at a time (S8P3ASM, below); with
 * @g 1 each is widened at once (vpmaddwd by ones) and added in int32. The caller's bound
 * (mxe_tiled.c, s8_avx2_group()) keeps a pair sum, or @g of them, inside int16: nothing
 * saturates or wraps. With @g 16 the panels hold int16 pairs without a bias (a block
 * is 16 k pairs; MXINT8 x MXINT8, whose byte pairs pass int16), summed in int32 by the
 * int16 windows' block (i16_block_avx2(): |pair| <= 2 x 128^2). Then less the bias,
 * converted and scaled as there: the float kernels' q exactly. Row i is q[2 i]
 * (columns 0-7) and q[2 i + 1] (8-15). (Intrinsics left GCC spilling the sums.)
 */
#define S8ROW(o, i, h0, h1)							\
	"vbroadcastss " #o "*24+" #i "*4(%[a]), %%ymm14\n\t"			\
	"vpmaddubsw %%ymm12, %%ymm14, %%ymm15\n\t"				\
	S8ADD(h0)								\
	"vpmaddubsw %%ymm13, %%ymm14, %%ymm15\n\t"				\
	S8ADD(h1)
#define S8STEP(o)								\
	"vmovdqa " #o "*64(%[b]), %%ymm12\n\t"					\
	"vmovdqa " #o "*64+32(%[b]), %%ymm13\n\t"				\
	S8ROW(o, 0, h00, h01) S8ROW(o, 1, h10, h11) S8ROW(o, 2, h20, h21)	\
	S8ROW(o, 3, h30, h31) S8ROW(o, 4, h40, h41) S8ROW(o, 5, h50, h51)
/* the next A panel's three lines of this block (1536 bytes on) stream in meanwhile;
 * "memory": the panels it reads through @a and @b are not its operands */
#define S8ASM(a, b)								\
	__asm__(S8STEP(0) S8STEP(1) S8STEP(2)					\
		"prefetcht0 1536(%[a])\n\t"						\
		"prefetcht0 1600(%[a])\n\t"						\
		"prefetcht0 1664(%[a])\n\t"						\
		S8STEP(3) S8STEP(4) S8STEP(5) S8STEP(6) S8STEP(7)			\
		: [h00] "+x"(h[0]), [h01] "+x"(h[1]), [h10] "+x"(h[2]), [h11] "+x"(h[3]),	\
		  [h20] "+x"(h[4]), [h21] "+x"(h[5]), [h30] "+x"(h[6]), [h31] "+x"(h[7]),	\
		  [h40] "+x"(h[8]), [h41] "+x"(h[9]), [h50] "+x"(h[10]), [h51] "+x"(h[11])	\
		: [a] "r"(a), [b] "r"(b), [ones] "m"(ones)				\
		: "xmm12", "xmm13", "xmm14", "xmm15", "memory")

/*
 * @g 2: two k groups' pair sums added in int16, then widened and added in int32, three
 * rows at a time so that both groups' B vectors (ymm6-9), their A bytes (ymm10/11),
 * the products (ymm12-14) and the ones (ymm15) stay in registers beside six sums: with
 * all six rows, B came from memory and the loads bounded it at g 1's speed.
 */
#define S8P3H(h, b0, b1, p)							\
	"vpmaddubsw %%" b0 ", %%ymm10, %%" p "\n\t"				\
	"vpmaddubsw %%" b1 ", %%ymm11, %%ymm13\n\t"				\
	"vpaddw %%ymm13, %%" p ", %%" p "\n\t"					\
	"vpmaddwd %%ymm15, %%" p ", %%" p "\n\t"				\
	"vpaddd %%" p ", %[" #h "], %[" #h "]\n\t"
#define S8P3ROW(o, i, h0, h1)							\
	"vbroadcastss " #o "*24+(" #i ")*4(%[a]), %%ymm10\n\t"			\
	"vbroadcastss " #o "*24+24+(" #i ")*4(%[a]), %%ymm11\n\t"		\
	S8P3H(h0, "ymm6", "ymm8", "ymm12") S8P3H(h1, "ymm7", "ymm9", "ymm14")
#define S8P3B(o)								\
	"vmovdqa " #o "*64(%[b]), %%ymm6\n\t"					\
	"vmovdqa " #o "*64+32(%[b]), %%ymm7\n\t"				\
	"vmovdqa " #o "*64+64(%[b]), %%ymm8\n\t"				\
	"vmovdqa " #o "*64+96(%[b]), %%ymm9\n\t"
#define S8P3(o, r)								\
	S8P3B(o) S8P3ROW(o, r, h0, h1) S8P3ROW(o, r + 1, h2, h3) S8P3ROW(o, r + 2, h4, h5)
/* the next A panel's three lines of this block (1536 bytes on) */
#define S8PF "prefetcht0 1536(%[a])\n\t" "prefetcht0 1600(%[a])\n\t" "prefetcht0 1664(%[a])\n\t"
#define S8P3ASM(STEPS, r, x)							\
	__asm__("vmovdqa %[ones], %%ymm15\n\t"					\
		STEPS(r)							\
		: [h0] "+x"(h[x]), [h1] "+x"(h[x + 1]), [h2] "+x"(h[x + 2]),		\
		  [h3] "+x"(h[x + 3]), [h4] "+x"(h[x + 4]), [h5] "+x"(h[x + 5])	\
		: [a] "r"(a), [b] "r"(b), [ones] "m"(ones)				\
		: "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",	\
		  "xmm14", "xmm15", "memory")

_Static_assert(MXE_MR == 6 && MXE_NR == 16 && MXE_FAST_KBLOCK == 256,
	       "S8STEP's offsets: 6 A rows, 16 B columns; S8ASM's: A panels 6 x 256 bytes apart");

AVX2 static inline __attribute__((always_inline)) void
s8_block_avx2(const struct mxe_ks8 *in, size_t blk, unsigned g, int add, __m256 q[12])
{
	/* a block: 8 words a row or column of bytes, 16 of int16 pairs */
	const uint8_t *a = in->a + blk * (g == 16 ? 16 : 8) * MXE_MR * 4;
	const int8_t *b = in->b0 + blk * (g == 16 ? 16 : 8) * MXE_NR * 4;
	const __m256i ones = _mm256_set1_epi16(1);
	const int32_t *cb = in->cb0 + blk * in->sb_step;
	const float *sb = in->sb0 + blk * in->sb_step;
	__m256i h[12];

#pragma GCC unroll 12
	for (int x = 0; x < 12; x++)
		h[x] = _mm256_setzero_si256();
	if (g == 16) {
		i16_block_avx2(a, b, h);
	} else if (g == 8) {
#define S8ADD(h) "vpaddw %%ymm15, %[" #h "], %[" #h "]\n\t"
		S8ASM(a, b);
#undef S8ADD
#pragma GCC unroll 12
		for (int x = 0; x < 12; x++)
			h[x] = _mm256_madd_epi16(h[x], ones);
	} else if (g == 2) {
#define STEPS(r) S8P3(0, r) S8P3(2, r) S8PF S8P3(4, r) S8P3(6, r)
		S8P3ASM(STEPS, 0, 0);
		S8P3ASM(STEPS, 3, 6);
#undef STEPS
	} else {
#define S8ADD(h) "vpmaddwd %[ones], %%ymm15, %%ymm15\n\t" "vpaddd %%ymm15, %[" #h "], %[" #h "]\n\t"
		S8ASM(a, b);
#undef S8ADD
	}
	{
		__m256i c0 = _mm256_loadu_si256((const __m256i *)(const void *)cb);
		__m256i c1 = _mm256_loadu_si256((const __m256i *)(const void *)(cb + 8));
		__m256 s0 = _mm256_loadu_ps(sb), s1 = _mm256_loadu_ps(sb + 8);

#pragma GCC unroll 12
		for (unsigned x = 0; x < 12; x++) {
			__m256 f = _mm256_mul_ps(_mm256_set1_ps(in->sa[blk * in->sa_step + x / 2]),
						 x % 2 ? s1 : s0);
			/* int16 pairs have no bias to remove */
			__m256 v = _mm256_cvtepi32_ps(g == 16 ? h[x] : _mm256_sub_epi32(h[x], x % 2 ? c1 : c0));

			/* the product is exact (q), so one FMA rounds q + p as an add would */
			q[x] = add ? _mm256_fmadd_ps(v, f, q[x]) : _mm256_mul_ps(v, f);
		}
	}
}
#undef S8ROW
#undef S8STEP
#undef S8ASM
#undef S8P3H
#undef S8P3ROW
#undef S8P3B
#undef S8P3
#undef S8P3ASM
#undef S8PF

/* FAST: the block sums p = q, then p = p + q, and the update of @u. */
AVX2 static inline __attribute__((always_inline)) void
s8_kern_avx2(const struct mxe_ks8 *in, size_t k, unsigned g, const struct mxe_kf32 *u)
{
	float p[MXE_MR * MXE_NR] __attribute__((aligned(32)));
	__m256 pv[12];

	s8_block_avx2(in, 0, g, 0, pv);
	for (size_t blk = 1; blk < k / MXE_FAST_KSUB; blk++)
		s8_block_avx2(in, blk, g, 1, pv);
	if (u->mr == MXE_MR && u->nr == MXE_NR) {
		const float *c = (u->flags & MXE_KF_C) ? u->c : NULL;

		for (unsigned i = 0; i < MXE_MR; i++)
			for (unsigned h = 0; h < 2; h++) {
				float *d = u->d + i * u->ldd + 8 * h;

				_mm256_storeu_ps(d, upd(pv[2 * i + h], d, c ? c + i * u->ldc + 8 * h : NULL,
							u->flags));
			}
		return;
	}
	for (int x = 0; x < 12; x++)
		_mm256_store_ps(p + 8 * x, pv[x]);
	mxe_kf32_apply(p, u);
}

/*
 * EXACT: the block sums as doubles, added to @u (one panel, nr <= 16). The blocks' q
 * are kept and summed afterwards, each of the 24 double vectors in a register over
 * all blocks: summed block by block, t went to memory and back 24 times a block and
 * was zeroed by a rep stos each call (a third of the kernel's time). q is never -0
 * (an integer's conversion times a positive scale), so starting from q rather than
 * +0 gives the same sums.
 */
AVX2 static inline __attribute__((always_inline)) void
s8_kern_avx2_x64(const struct mxe_ks8 *in, size_t k, unsigned g, const struct mxe_kx64 *u)
{
	float qs[MXE_FAST_KBLOCK / MXE_FAST_KSUB][MXE_MR * MXE_NR] __attribute__((aligned(32)));
	double t[MXE_MR * MXE_NR] __attribute__((aligned(32)));
	size_t nb = k / MXE_FAST_KSUB;

	for (size_t blk = 0; blk < nb; blk++) {
		__m256 q[12];

		s8_block_avx2(in, blk, g, 0, q);
#pragma GCC unroll 12
		for (int x = 0; x < 12; x++)
			_mm256_store_ps(qs[blk] + 8 * x, q[x]);
	}
	for (unsigned v = 0; v < MXE_MR * MXE_NR; v += 32) {	/* eight chains at a time */
		__m256d s[8];

#pragma GCC unroll 8
		for (int x = 0; x < 8; x++)
			s[x] = _mm256_cvtps_pd(_mm_load_ps(qs[0] + v + 4 * x));
		for (size_t blk = 1; blk < nb; blk++)
#pragma GCC unroll 8
			for (int x = 0; x < 8; x++)
				s[x] = _mm256_add_pd(s[x], _mm256_cvtps_pd(_mm_load_ps(qs[blk] + v + 4 * x)));
#pragma GCC unroll 8
		for (int x = 0; x < 8; x++)
			_mm256_store_pd(t + v + 4 * x, s[x]);
	}
	kx64_add(t, u);
}

AVX2 void mxe_kern_s8_avx2(const struct mxe_ks8 *in, size_t k, unsigned g,
			   const struct mxe_kf32 *u)
{
	if (g == 16)
		s8_kern_avx2(in, k, 16, u);
	else if (g == 8)
		s8_kern_avx2(in, k, 8, u);
	else if (g == 2)
		s8_kern_avx2(in, k, 2, u);
	else
		s8_kern_avx2(in, k, 1, u);
}

AVX2 void mxe_kern_s8_avx2_x64(const struct mxe_ks8 *in, size_t k, unsigned g,
			       const struct mxe_kx64 *u)
{
	if (g == 16)
		s8_kern_avx2_x64(in, k, 16, u);
	else if (g == 8)
		s8_kern_avx2_x64(in, k, 8, u);
	else if (g == 2)
		s8_kern_avx2_x64(in, k, 2, u);
	else
		s8_kern_avx2_x64(in, k, 1, u);
}

AVX2 int32_t mxe_s8_e2m1_block(const uint8_t *codes, const int8_t *lut, int bias, int8_t *v)
{
	const __m128i table = _mm_loadu_si128((const __m128i *)lut), low = _mm_set1_epi8(0x0F);
	const __m128i sign = _mm_set1_epi8((char)0x80), add = _mm_set1_epi8((char)bias);
	__m128i b = _mm_loadu_si128((const __m128i *)codes);
	__m128i lo = _mm_shuffle_epi8(table, _mm_and_si128(b, low));
	__m128i hi = _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(b, 4), low));
	__m128i v0 = _mm_unpacklo_epi8(lo, hi), v1 = _mm_unpackhi_epi8(lo, hi);
	/* the sum from the bytes + 128 (unsigned for vpsadbw) */
	__m128i s = _mm_add_epi64(_mm_sad_epu8(_mm_xor_si128(v0, sign), _mm_setzero_si128()),
				  _mm_sad_epu8(_mm_xor_si128(v1, sign), _mm_setzero_si128()));
	int32_t sum = (int32_t)(_mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1)) - 32 * 128;

	_mm_storeu_si128((__m128i *)v, _mm_add_epi8(v0, add));
	_mm_storeu_si128((__m128i *)(v + 16), _mm_add_epi8(v1, add));
	return sum;
}

AVX2 int32_t mxe_s8_byte_block(const uint8_t *codes, const int8_t *lut, int bias, int8_t *v)
{
	const __m256i sign = _mm256_set1_epi8((char)0x80);
	__m256i c = _mm256_loadu_si256((const __m256i *)codes), r, s;
	int32_t sum;

	if (lut) {	/* 64 entries: four 16-entry shuffles, chosen by bits 4 and 5 */
		__m256i low = _mm256_and_si256(c, _mm256_set1_epi8(0x0F));
		__m256i sel = _mm256_and_si256(_mm256_srli_epi16(c, 4), _mm256_set1_epi8(0x03));

		r = _mm256_setzero_si256();
		for (int q = 0; q < 4; q++) {
			__m256i t = _mm256_broadcastsi128_si256(
				_mm_loadu_si128((const __m128i *)(lut + 16 * q)));

			r = _mm256_blendv_epi8(r, _mm256_shuffle_epi8(t, low),
					       _mm256_cmpeq_epi8(sel, _mm256_set1_epi8((char)q)));
		}
	} else {
		r = c;
	}
	c = _mm256_xor_si256(r, sign);	/* v + 128: unsigned for vpsadbw */
	s = _mm256_sad_epu8(c, _mm256_setzero_si256());
	sum = (int32_t)(_mm256_extract_epi64(s, 0) + _mm256_extract_epi64(s, 1) +
			_mm256_extract_epi64(s, 2) + _mm256_extract_epi64(s, 3)) - 32 * 128;
	_mm256_storeu_si256((__m256i *)v, _mm256_add_epi8(r, _mm256_set1_epi8((char)bias)));
	return sum;
}

AVX2 void mxe_decode_bf16_avx2(const uint16_t *src, float *dst, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + i)));

		_mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)));
	}
	for (; i < n; i++) {
		uint32_t u = (uint32_t)src[i] << 16;

		memcpy(dst + i, &u, 4);
	}
}

AVX2 void mxe_decode_f16_avx2(const uint16_t *src, float *dst, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
	if (i < n) {
		uint16_t tmp[8] = { 0 };
		float out[8];

		memcpy(tmp, src + i, (n - i) * 2);
		_mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)tmp)));
		memcpy(dst + i, out, (n - i) * 4);
	}
}

AVX2 void mxe_interleave_avx2(const float *src, size_t stride, unsigned rows, size_t n,
			      float *dst, int nt)
{
	size_t k = 0;

	if (rows == 16 && nt && !((uintptr_t)dst & 31)) {
		for (; k + 8 <= n; k += 8) {
			for (int h = 0; h < 2; h++) {
				__m256 r[8];

				for (int i = 0; i < 8; i++)
					r[i] = _mm256_loadu_ps(src + (size_t)(8 * h + i) * stride + k);
				mxe_transpose8_avx2(r);
				for (int i = 0; i < 8; i++)
					_mm256_stream_ps(dst + (k + i) * 16 + 8 * h, r[i]);
			}
		}
	} else if (rows == 16) {
		for (; k + 8 <= n; k += 8) {
			for (int h = 0; h < 2; h++) {
				__m256 r[8];

				for (int i = 0; i < 8; i++)
					r[i] = _mm256_loadu_ps(src + (size_t)(8 * h + i) * stride + k);
				mxe_transpose8_avx2(r);
				for (int i = 0; i < 8; i++)
					_mm256_storeu_ps(dst + (k + i) * 16 + 8 * h, r[i]);
			}
		}
	} else if (rows == 6) {
		/* 8 x 8 transposes of rows 0..5 (+2 don't-care rows); each column
		 * of 6 is stored with an 8-wide store whose 2 extra lanes the next
		 * column overwrites; the last column of the call is stored by hand. */
		for (; k + 8 <= n; k += 8) {
			__m256 r[8];

			for (int i = 0; i < 6; i++)
				r[i] = _mm256_loadu_ps(src + (size_t)i * stride + k);
			r[6] = r[7] = _mm256_setzero_ps();
			mxe_transpose8_avx2(r);
			for (int i = 0; i < 7; i++)
				_mm256_storeu_ps(dst + (k + i) * 6, r[i]);
			if (k + 8 < n) {
				_mm256_storeu_ps(dst + (k + 7) * 6, r[7]);
			} else {
				float t[8];

				_mm256_storeu_ps(t, r[7]);
				memcpy(dst + (k + 7) * 6, t, 6 * sizeof(float));
			}
		}
	}
	/* memcpy: the words may be int16 pairs, not floats */
	for (; k < n; k++)
		for (unsigned i = 0; i < rows; i++)
			memcpy(dst + k * rows + i, src + i * stride + k, 4);
}

AVX2 void mxe_copy_nt_avx2(const float *src, float *dst, size_t n)
{
	size_t i = 0;

	if (!((uintptr_t)dst & 31))
		for (; i + 8 <= n; i += 8)
			_mm256_stream_ps(dst + i, _mm256_loadu_ps(src + i));
	memcpy(dst + i, src + i, (n - i) * sizeof(float));
}

AVX2 void mxe_sfence_avx2(void)
{
	_mm_sfence();
}

AVX2 void mxe_widen_s8_avx2(const uint8_t *src, int16_t *dst, size_t n)
{
	size_t i = 0;

	for (; i + 16 <= n; i += 16)
		_mm256_storeu_si256((__m256i *)(dst + i),
				    _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(src + i))));
	for (; i < n; i++)
		dst[i] = (int8_t)src[i];
}

/*
 * FP8 through F16C: e5m2 is the upper byte of an f16; e4m3 shifted into
 * an f16 is its value times 2^-8 (the biases differ by 8), subnormals
 * included. One multiply by a power of two then restores e4m3 and applies
 * the block's MX scale; it is exact because the caller checked that every
 * scaled element is representable. NaN codes (and 0xFF scales) give NaN.
 */
AVX2 static void fp8_seg(const uint8_t *src, float *dst, size_t n, int e4m3, float factor,
			 int nan_scale)
{
	const __m256 f = _mm256_set1_ps(factor);
	const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
	size_t i = 0;

	if (nan_scale) {
		for (; i < n; i++)
			dst[i] = qnan[0];
		return;
	}
	for (; i + 8 <= n; i += 8) {
		__m128i b = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(src + i)));
		__m128i h, isnan;
		__m256 v;

		if (e4m3) {
			__m128i mag = _mm_and_si128(b, _mm_set1_epi16(0x7F));

			h = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(b, _mm_set1_epi16(0x80)), 8),
					 _mm_slli_epi16(mag, 7));
			isnan = _mm_cmpeq_epi16(mag, _mm_set1_epi16(0x7F));
		} else {
			h = _mm_slli_epi16(b, 8);
			isnan = _mm_cmpgt_epi16(_mm_and_si128(b, _mm_set1_epi16(0x7F)),
						_mm_set1_epi16(0x7C));
		}
		v = _mm256_mul_ps(_mm256_cvtph_ps(h), f);
		v = _mm256_blendv_ps(v, qnan, _mm256_castsi256_ps(_mm256_cvtepi16_epi32(isnan)));
		_mm256_storeu_ps(dst + i, v);
	}
	if (i < n) {
		uint8_t tmp[8] = { 0 };
		float out[8];

		memcpy(tmp, src + i, n - i);
		fp8_seg(tmp, out, 8, e4m3, factor, 0);
		memcpy(dst + i, out, (n - i) * 4);
	}
}

AVX2 void mxe_decode_fp8_avx2(const uint8_t *src, float *dst, size_t n, int e4m3,
			      const uint8_t *scales, size_t k0)
{
	int bias = e4m3 ? 8 : 0;	/* f16 holds e4m3 * 2^-8 */
	size_t i = 0;

	if (!scales) {
		fp8_seg(src, dst, n, e4m3, e4m3 ? 256.0f : 1.0f, 0);
		return;
	}
	while (i < n) {
		size_t blk = (k0 + i) / 32, end = (blk + 1) * 32 - k0;
		uint8_t sb = scales[blk];
		uint32_t fb;
		float f;

		if (end > n)
			end = n;
		/* 2^(sb - 127 + bias) */
		if (sb + bias >= 1 && sb + bias <= 254) {
			fb = (uint32_t)(sb + bias) << 23;
			memcpy(&f, &fb, 4);
		} else {
			f = sb == 0xFF ? 0.0f : ldexpf(1.0f, sb - 127 + bias);
		}
		fp8_seg(src + i, dst + i, end - i, e4m3, f, sb == 0xFF);
		i = end;
	}
}

AVX2 void mxe_decode_lut8_avx2(const uint8_t *src, const float *lut, float *dst, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(src + i)));

		_mm256_storeu_ps(dst + i, _mm256_i32gather_ps(lut, idx, 4));
	}
	for (; i < n; i++)
		dst[i] = lut[src[i]];
}

AVX2 void mxe_widen_f32_avx2(const float *src, double *dst, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		_mm256_storeu_pd(dst + i, _mm256_cvtps_pd(_mm_loadu_ps(src + i)));
		_mm256_storeu_pd(dst + i + 4, _mm256_cvtps_pd(_mm_loadu_ps(src + i + 4)));
	}
	for (; i < n; i++)
		dst[i] = src[i];
}

/* ---- EXACT WGMMAs in double sums (mxe_wgmma_exact.c), the AVX-512 functions' twins ---- */

/*
 * Sixteen 8-bit codes (one per 16-bit lane of @x) as F16 patterns, as the AVX-512
 * f8_as_f16(): E5M2 is the top byte of an F16, E4M3 the F16 2^8 below its value, its
 * NaN codes an F16 NaN; @neg: sign bits to flip.
 */
AVX2 static inline __m256i wg_f8_as_f16(__m256i x, int e4m3, __m256i neg)
{
	const __m256i sign = _mm256_set1_epi16((short)0x8000), low7 = _mm256_set1_epi16(0x7F);
	__m256i h, low;

	if (!e4m3)
		return _mm256_xor_si256(_mm256_slli_epi16(x, 8), neg);
	low = _mm256_and_si256(x, low7);
	h = _mm256_or_si256(_mm256_and_si256(_mm256_slli_epi16(x, 8), sign),
			    _mm256_slli_epi16(low, 7));
	h = _mm256_blendv_epi8(h, _mm256_set1_epi16(0x7E00), _mm256_cmpeq_epi16(low, low7));
	return _mm256_xor_si256(h, neg);
}

/* Eight F16 patterns as doubles times @scale, into @p0 (first four) and @p1. */
AVX2 static inline void wg_f16_as_f64(__m128i h, __m256d scale, double *p0, double *p1)
{
	__m256 f = _mm256_cvtph_ps(h);

	_mm256_storeu_pd(p0, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(f)), scale));
	_mm256_storeu_pd(p1, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)), scale));
}

/* Byte offsets of eight rows @ld apart, for the gathers of B's columns. */
AVX2 static inline __m256i wg_rows8(size_t ld)
{
	return _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
				  _mm256_set1_epi32((int)ld));
}

AVX2 void mxe_wgmma_decode8_avx2(const uint8_t *a, size_t lda, const uint8_t *b, size_t ldb,
				 unsigned n, int e4m3_a, int e4m3_b, int neg_a, int neg_b,
				 double *ad, double *bt)
{
	const __m256i rows = wg_rows8(ldb);
	const __m256i na = _mm256_set1_epi16(neg_a ? (short)0x8000 : 0);
	const __m256i nb = _mm256_set1_epi16(neg_b ? (short)0x8000 : 0);
	const __m256i by_byte = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
						 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
	const __m256i halves = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
	const __m256d scale = _mm256_set1_pd((e4m3_a ? 0x1p8 : 1.0) * (e4m3_b ? 0x1p8 : 1.0));
	const __m256d one = _mm256_set1_pd(1.0);

	for (unsigned i = 0; i < 64; i++)	/* A: 64 rows of 32, as they are */
		for (unsigned k = 0; k < 32; k += 16) {
			__m256i h = wg_f8_as_f16(_mm256_cvtepu8_epi16(_mm_loadu_si128(
					(const void *)(a + i * lda + k))), e4m3_a, na);
			double *p = ad + i * 32 + k;

			wg_f16_as_f64(_mm256_castsi256_si128(h), scale, p, p + 4);
			wg_f16_as_f64(_mm256_extracti128_si256(h, 1), scale, p + 8, p + 12);
		}
	for (unsigned j = 0; j < n; j += 8)	/* B: eight rows at a time, 4 bytes each */
		for (unsigned k = 0; k < 32; k += 4) {
			__m256i w = _mm256_i32gather_epi32((const int *)(b + j * ldb + k), rows, 1);

			/* four 64-bit words: byte k + q of rows j .. j + 7 */
			w = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(w, by_byte), halves);
			for (unsigned q = 0; q < 4; q += 2) {
				__m128i pair = q ? _mm256_extracti128_si256(w, 1) : _mm256_castsi256_si128(w);
				__m256i h = wg_f8_as_f16(_mm256_cvtepu8_epi16(pair), e4m3_b, nb);
				double *p0 = mxe_wgmma_bt_at(bt, n, 32, k + q, j);
				double *p1 = mxe_wgmma_bt_at(bt, n, 32, k + q + 1, j);

				wg_f16_as_f64(_mm256_castsi256_si128(h), one, p0, p0 + 4);
				wg_f16_as_f64(_mm256_extracti128_si256(h, 1), one, p1, p1 + 4);
			}
		}
}

/* Eight 16-bit elements, BF16 (@bf16) or F16, as doubles into @p0 (first four) and @p1. */
AVX2 static inline void wg_half8(__m128i h, int bf16, double *p0, double *p1)
{
	__m256 f = bf16 ? _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)) :
			  _mm256_cvtph_ps(h);

	_mm256_storeu_pd(p0, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
	_mm256_storeu_pd(p1, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
}

AVX2 void mxe_wgmma_decode16_avx2(const uint8_t *a, size_t lda, const uint8_t *b, size_t ldb,
				  unsigned n, int bf16, int neg_a, int neg_b, double *ad, double *bt)
{
	const __m256i rows = wg_rows8(ldb), low = _mm256_set1_epi32(0xFFFF);
	const __m128i na = _mm_set1_epi16(neg_a ? (short)0x8000 : 0);
	const __m128i nb = _mm_set1_epi16(neg_b ? (short)0x8000 : 0);

	for (unsigned i = 0; i < 64; i++)	/* A: 64 rows of 16, as they are */
		for (unsigned k = 0; k < 16; k += 8) {
			__m128i h = _mm_xor_si128(_mm_loadu_si128((const void *)(a + i * lda + 2 * k)), na);

			wg_half8(h, bf16, ad + i * 16 + k, ad + i * 16 + k + 4);
		}
	for (unsigned j = 0; j < n; j += 8)	/* B: elements k and k + 1 of eight rows */
		for (unsigned k = 0; k < 16; k += 2) {
			__m256i w = _mm256_i32gather_epi32((const int *)(b + j * ldb + 2 * k), rows, 1);
			/* 16-bit lanes: k of rows 0-3, k + 1 of 0-3 | k of 4-7, k + 1 of 4-7 */
			__m256i p = _mm256_packus_epi32(_mm256_and_si256(w, low), _mm256_srli_epi32(w, 16));
			double *p0 = mxe_wgmma_bt_at(bt, n, 16, k, j);
			double *p1 = mxe_wgmma_bt_at(bt, n, 16, k + 1, j);

			p = _mm256_permute4x64_epi64(p, 0xD8);	/* k of rows 0-7 | k + 1 of 0-7 */
			wg_half8(_mm_xor_si128(_mm256_castsi256_si128(p), nb), bf16, p0, p0 + 4);
			wg_half8(_mm_xor_si128(_mm256_extracti128_si256(p, 1), nb), bf16, p1, p1 + 4);
		}
}

AVX2 void mxe_wgmma_exp_fields_avx2(const uint8_t *p, size_t ld, unsigned rows, int bits16,
				    unsigned mbits, int e4m3, unsigned *lo, unsigned *hi)
{
	const __m256i ones = _mm256_set1_epi8(-1);
	uint8_t vmax[32], vmin[32];
	unsigned l = ~0u, h = 0;
	__m256i mx = _mm256_setzero_si256(), mn = ones;

	for (unsigned r = 0; r < rows; r++) {
		__m256i v = _mm256_loadu_si256((const void *)(p + r * ld)), mag, e, bad;

		if (bits16) {	/* not zero, not Inf or NaN (the top field) */
			mag = _mm256_and_si256(v, _mm256_set1_epi16(0x7FFF));
			e = _mm256_srli_epi16(mag, (int)mbits);
			bad = _mm256_or_si256(_mm256_cmpeq_epi16(mag, _mm256_setzero_si256()),
					      _mm256_cmpeq_epi16(e, _mm256_set1_epi16(
						      (short)(0x7FFF >> mbits))));
			mx = _mm256_max_epu16(mx, _mm256_andnot_si256(bad, e));
			mn = _mm256_min_epu16(mn, _mm256_or_si256(bad, _mm256_max_epu16(
						      e, _mm256_set1_epi16(1))));
		} else {	/* not zero, not NaN (E4M3 0x7F), not E5M2's top field */
			const __m256i field = _mm256_set1_epi8((char)(0x7F >> mbits));

			mag = _mm256_and_si256(v, _mm256_set1_epi8(0x7F));
			e = _mm256_and_si256(_mm256_srli_epi16(mag, (int)mbits), field);
			bad = _mm256_or_si256(_mm256_cmpeq_epi8(mag, _mm256_setzero_si256()),
					      e4m3 ? _mm256_cmpeq_epi8(mag, _mm256_set1_epi8(0x7F)) :
						     _mm256_cmpeq_epi8(e, field));
			mx = _mm256_max_epu8(mx, _mm256_andnot_si256(bad, e));
			mn = _mm256_min_epu8(mn, _mm256_or_si256(bad, _mm256_max_epu8(
						     e, _mm256_set1_epi8(1))));
		}
	}
	_mm256_storeu_si256((void *)vmax, mx);
	_mm256_storeu_si256((void *)vmin, mn);
	for (unsigned i = 0; i < (bits16 ? 16u : 32u); i++) {
		unsigned x = vmax[i], y = vmin[i];

		if (bits16) {
			uint16_t x16, y16;

			memcpy(&x16, vmax + 2 * i, 2);
			memcpy(&y16, vmin + 2 * i, 2);
			x = x16, y = y16;
		}
		h = x > h ? x : h;
		l = y < l ? y : l;
	}
	if (l == (bits16 ? 0xFFFFu : 0xFFu))
		l = ~0u;
	*lo = l;
	*hi = h;
}

/*
 * Rows i0 .. i0 + 3 against 8 columns of a strip from @jc: 8 accumulators, per k two
 * loads of B and four broadcasts of A (rows of @kk).
 */
AVX2 static inline __attribute__((always_inline)) void
wg_block(const double *a, const double *bs, unsigned kk, unsigned w, double *s, unsigned i0,
	 unsigned jc)
{
	__m256d s00 = _mm256_setzero_pd(), s01 = s00, s10 = s00, s11 = s00;
	__m256d s20 = s00, s21 = s00, s30 = s00, s31 = s00;
	const double *ar = a + i0 * kk;

	for (unsigned k = 0; k < kk; k++) {
		__m256d b0 = _mm256_loadu_pd(bs + k * w + jc), b1 = _mm256_loadu_pd(bs + k * w + jc + 4);
		__m256d x0 = _mm256_broadcast_sd(ar + k), x1 = _mm256_broadcast_sd(ar + kk + k);
		__m256d x2 = _mm256_broadcast_sd(ar + 2 * kk + k), x3 = _mm256_broadcast_sd(ar + 3 * kk + k);

		s00 = _mm256_fmadd_pd(x0, b0, s00), s01 = _mm256_fmadd_pd(x0, b1, s01);
		s10 = _mm256_fmadd_pd(x1, b0, s10), s11 = _mm256_fmadd_pd(x1, b1, s11);
		s20 = _mm256_fmadd_pd(x2, b0, s20), s21 = _mm256_fmadd_pd(x2, b1, s21);
		s30 = _mm256_fmadd_pd(x3, b0, s30), s31 = _mm256_fmadd_pd(x3, b1, s31);
	}
	s += (size_t)i0 * w + jc;
	_mm256_storeu_pd(s, s00), _mm256_storeu_pd(s + 4, s01);
	_mm256_storeu_pd(s + w, s10), _mm256_storeu_pd(s + w + 4, s11);
	_mm256_storeu_pd(s + 2 * w, s20), _mm256_storeu_pd(s + 2 * w + 4, s21);
	_mm256_storeu_pd(s + 3 * w, s30), _mm256_storeu_pd(s + 3 * w + 4, s31);
}

AVX2 void mxe_kern_wgmma_d64_avx2(const double *a, const double *bs, unsigned k, unsigned w,
				  double *s)
{
	for (unsigned i0 = 0; i0 < 64; i0 += 4)
		for (unsigned jc = 0; jc < w; jc += 8)
			wg_block(a, bs, k, w, s, i0, jc);
}

/* ---- EXACT E4M3 WGMMAs on int16 windows without VNNI (mxe_wgmma_exact.c) ---------- */

/* v over 2^sh (sh < 0: times 2^-sh). */
AVX2 static inline __m256i w16_shift8(__m256i v, int sh)
{
	return sh >= 0 ? _mm256_srl_epi32(v, _mm_cvtsi32_si128(sh))
		       : _mm256_sll_epi32(v, _mm_cvtsi32_si128(-sh));
}

/* The OR of @o's eight lanes: a block's or a row's magnitudes, for its leading bit. */
AVX2 static inline uint32_t w16_or_lanes(__m256i o)
{
	o = _mm256_or_si256(o, _mm256_permute2x128_si256(o, o, 1));
	o = _mm256_or_si256(o, _mm256_shuffle_epi32(o, 0x4E));
	o = _mm256_or_si256(o, _mm256_shuffle_epi32(o, 0xB1));
	return (uint32_t)_mm256_cvtsi256_si32(o);
}

/* The smallest of 32 bytes (phminposuw on the pairs' smaller bytes). */
AVX2 static inline unsigned wg16_min_epu8(__m256i v)
{
	__m128i x = _mm_min_epu8(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));

	x = _mm_and_si128(_mm_min_epu8(x, _mm_srli_epi16(x, 8)), _mm_set1_epi16(0xFF));
	return (unsigned)_mm_cvtsi128_si32(_mm_minpos_epu16(x)) & 0xFF;
}

/*
 * Row @row's 32 codes as int16 windows (16 words, two vectors) into @out and its window
 * into *@w: mxe_wgmma_w16_rows_avx512()'s w16_e4m3_row(). 0: a NaN code or values more
 * than 13 bits apart. A magnitude is m (e = 0), else (8 + m) << (e - 1) over 2^-9. The
 * window comes from the codes' bytes: E4M3 magnitudes are in the order of their 7-bit
 * codes, so the largest code gives the leading bit, and a code's lowest bit is
 * max(e, 1) - 1 + ctz of its significand (8 + m, or m). The values then come as
 * floats: the code's bits shifted into an f32 (sign, e, m; e = 0 a subnormal) are the
 * signed magnitude times 2^-129, times 2^64 2^(65 - w) an integer below 2^13,
 * converted exactly. Packed without putting the 128-bit lanes back in order: A's and
 * B's rows come through here alike, so each int16 pair holds the same two k on both
 * sides of the dot products.
 */
AVX2 static inline int wg16_row(const uint8_t *row, int neg, __m256i out[2], int *w)
{
	const __m256i low7 = _mm256_set1_epi8(0x7F), z = _mm256_setzero_si256();
	/* ctz(8 + m) - 1 for m = 0 .. 7 (a subnormal's m = 0 is a zero: left out) */
	const __m256i tz = _mm256_setr_epi8(2, -1, 0, -1, 1, -1, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0,
					    2, -1, 0, -1, 1, -1, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0);
	const __m256i raw = _mm256_loadu_si256((const __m256i *)row);
	const __m256i c7 = _mm256_and_si256(raw, low7);
	__m256i e, low, v[4];
	unsigned top, cmax;
	__m256 f;
	int sh;

	if (_mm256_movemask_epi8(_mm256_cmpeq_epi8(c7, low7)))
		return 0;	/* a NaN code */
	cmax = 0x7F - wg16_min_epu8(_mm256_sub_epi8(low7, c7));
	if (!cmax) {
		out[0] = out[1] = _mm256_setzero_si256();
		*w = 0;
		return 1;
	}
	top = cmax >= 8 ? (cmax >> 3) + 2 : 31 - (unsigned)__builtin_clz(cmax);
	e = _mm256_max_epu8(_mm256_and_si256(_mm256_srli_epi16(raw, 3), _mm256_set1_epi8(15)),
			    _mm256_set1_epi8(1));
	low = _mm256_add_epi8(e, _mm256_shuffle_epi8(tz, _mm256_and_si256(raw, _mm256_set1_epi8(7))));
	low = _mm256_or_si256(low, _mm256_cmpeq_epi8(c7, z));	/* zeros: 0xFF */
	if ((int)top - (int)wg16_min_epu8(low) > 12)
		return 0;
	sh = (int)top - 12;
	*w = sh;
	/* 2^(65 - sh) as an f32, negated where asked */
	f = _mm256_castsi256_ps(_mm256_set1_epi32((int)((unsigned)neg << 31 | (unsigned)(127 + 65 - sh) << 23)));
#pragma GCC unroll 4
	for (unsigned q = 0; q < 4; q++) {
		__m256i x = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(row + 8 * q)));
		__m256 m = _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(x, 20),
								_mm256_set1_epi32((int)0x87F00000u)));

		v[q] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_mul_ps(m, _mm256_set1_ps(0x1p64f)), f));
	}
	out[0] = _mm256_packs_epi32(v[0], v[1]);
	out[1] = _mm256_packs_epi32(v[2], v[3]);
	return 1;
}

/* 8 rows' words @x[r][h] (16 words a row) into @dst[k * @ld + r], k < 16: two 8 x 8
 * transposes of 32-bit words. */
AVX2 static inline void wg16_transpose8(const __m256i x[8][2], uint32_t *dst, size_t ld)
{
	for (unsigned h = 0; h < 2; h++) {
		__m256 r[8];

		for (unsigned i = 0; i < 8; i++)
			r[i] = _mm256_castsi256_ps(x[i][h]);
		mxe_transpose8_avx2(r);
		for (unsigned c = 0; c < 8; c++)
			_mm256_storeu_ps((float *)(dst + (8 * h + c) * ld), r[c]);
	}
}

AVX2 int mxe_wgmma_w16_rows_avx2(const uint8_t *p, size_t ld, unsigned rows, int neg,
				 uint32_t *hi, size_t ldt, int *w)
{
	for (unsigned r0 = 0; r0 < rows; r0 += 8) {
		__m256i x[8][2];

		for (unsigned r = 0; r < 8; r++) {
			if (!wg16_row(p + (r0 + r) * ld, neg, x[r], &w[r0 + r]))
				return 0;
			if (!ldt)
				for (unsigned h = 0; h < 2; h++)
					_mm256_storeu_si256((__m256i *)(hi + 16 * (r0 + r) + 8 * h),
							    x[r][h]);
		}
		if (ldt)
			wg16_transpose8(x, hi + r0, ldt);
	}
	return 1;
}

/*
 * Rows @i, @i + 1 of a strip of 32 columns: the int32 dot products of A's rows (16 words
 * a row) and @bt's columns ([16][@ldb] words) in fixed registers (ymm8-11 a k pair's B,
 * ymm12 the broadcast A pair, ymm13 the products), as mxe_kern_w16_avx2() does.
 */
#define WG16ROW(o, h0, h1, h2, h3)						\
	"vbroadcastss " #o "(%[ap]), %%ymm12\n\t"				\
	"vpmaddwd %%ymm8, %%ymm12, %%ymm13\n\t"					\
	"vpaddd %%ymm13, %[" #h0 "], %[" #h0 "]\n\t"				\
	"vpmaddwd %%ymm9, %%ymm12, %%ymm13\n\t"					\
	"vpaddd %%ymm13, %[" #h1 "], %[" #h1 "]\n\t"				\
	"vpmaddwd %%ymm10, %%ymm12, %%ymm13\n\t"				\
	"vpaddd %%ymm13, %[" #h2 "], %[" #h2 "]\n\t"				\
	"vpmaddwd %%ymm11, %%ymm12, %%ymm13\n\t"				\
	"vpaddd %%ymm13, %[" #h3 "], %[" #h3 "]\n\t"

AVX2 static inline __attribute__((always_inline)) void
wg16_rows2(const uint32_t *a, const uint32_t *bt, size_t ldb, __m256i h[8])
{
	long cnt;

#pragma GCC unroll 8
	for (int x = 0; x < 8; x++)
		h[x] = _mm256_setzero_si256();
	__asm__("mov $16, %[cnt]\n\t"
		"1:\n\t"
		"vmovdqu (%[bp]), %%ymm8\n\t"
		"vmovdqu 32(%[bp]), %%ymm9\n\t"
		"vmovdqu 64(%[bp]), %%ymm10\n\t"
		"vmovdqu 96(%[bp]), %%ymm11\n\t"
		WG16ROW(0, h00, h01, h02, h03)
		WG16ROW(64, h10, h11, h12, h13)
		"add $4, %[ap]\n\t"
		"add %[ldb4], %[bp]\n\t"
		"dec %[cnt]\n\t"
		"jnz 1b\n\t"
		: [h00] "+x"(h[0]), [h01] "+x"(h[1]), [h02] "+x"(h[2]), [h03] "+x"(h[3]),
		  [h10] "+x"(h[4]), [h11] "+x"(h[5]), [h12] "+x"(h[6]), [h13] "+x"(h[7]),
		  [ap] "+r"(a), [bp] "+r"(bt), [cnt] "=&r"(cnt)
		: [ldb4] "r"(ldb * 4)
		: "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "memory", "cc");
}
#undef WG16ROW

/* 2^(e - @sub) as a double vector's bits (e a window: the factor is a normal double) */
AVX2 static inline __m256i wg16_pow2(__m128i e, int sub)
{
	return _mm256_slli_epi64(_mm256_cvtepi32_epi64(_mm_add_epi32(e, _mm_set1_epi32(1023 - sub))), 52);
}

/* 2^(e - 9): a side's factor */
AVX2 static inline __m256d wg16_factor(__m128i e)
{
	return _mm256_castsi256_pd(wg16_pow2(e, 9));
}

AVX2 void mxe_kern_wgmma_w16_avx2(const uint32_t *a, const uint32_t *bt, size_t ldb, unsigned w,
				  const int *wa, const int *wb, double *s)
{
	__m256d fb[8];	/* the columns' factors, four a vector */

	for (unsigned q = 0; q < w / 4; q++)
		fb[q] = wg16_factor(_mm_loadu_si128((const __m128i *)(wb + 4 * q)));
	for (unsigned i = 0; i < 64; i += 2) {
		__m256i h[8];

		if (w == 32) {
			wg16_rows2(a + i * 16, bt, ldb, h);
		} else {	/* the last strip of a WGMMA whose N is not a multiple of 32 */
			for (unsigned x = 0; x < 8; x++)
				h[x] = _mm256_setzero_si256();
			for (unsigned kp = 0; kp < 16; kp++)
				for (unsigned q = 0; q < w / 8; q++) {
					__m256i b = _mm256_loadu_si256((const __m256i *)(bt + kp * ldb + 8 * q));

					for (unsigned r = 0; r < 2; r++)
						h[4 * r + q] = _mm256_add_epi32(h[4 * r + q], _mm256_madd_epi16(
							_mm256_set1_epi32((int)a[(i + r) * 16 + kp]), b));
				}
		}
#pragma GCC unroll 2
		for (unsigned r = 0; r < 2; r++) {
			__m256d fa = wg16_factor(_mm_set1_epi32(wa[i + r]));

#pragma GCC unroll 4
			for (unsigned q = 0; q < w / 8; q++) {
				__m256i v = h[4 * r + q];

#pragma GCC unroll 2
				for (unsigned c = 0; c < 2; c++) {
					__m256d x = _mm256_cvtepi32_pd(c ? _mm256_extracti128_si256(v, 1)
									 : _mm256_castsi256_si128(v));

					_mm256_storeu_pd(s + (i + r) * w + 8 * q + 4 * c,
							 _mm256_mul_pd(_mm256_mul_pd(x, fa), fb[2 * q + c]));
				}
			}
		}
	}
}

/*
 * mxe_finish_f32_avx512() for C alone, four lanes: h + l = s + C by TwoSum; h outside
 * f32's normal range, or at an f32 midpoint with l != 0, goes back to the caller.
 */
AVX2 uint64_t mxe_finish_f32_avx2(const double *s, const float *c, float *d, unsigned n)
{
	const __m256i low29 = _mm256_set1_epi64x(0x1FFFFFFF), tie = _mm256_set1_epi64x(0x10000000);
	const __m256i e_lo = _mm256_set1_epi64x(1023 - 126), e_span = _mm256_set1_epi64x(252);
	const __m256i zero = _mm256_setzero_si256();
	uint64_t left = 0;

	for (unsigned j = 0; j < n; j += 4) {
		__m256d h = _mm256_loadu_pd(s + j), l = _mm256_setzero_pd();
		__m256i bits, t, bad;
		__m128 f;
		unsigned m;

		if (c) {	/* TwoSum */
			__m256d cv = _mm256_cvtps_pd(_mm_loadu_ps(c + j)), x = h, bp;

			h = _mm256_add_pd(x, cv);
			bp = _mm256_sub_pd(h, x);
			l = _mm256_add_pd(_mm256_sub_pd(x, _mm256_sub_pd(h, bp)), _mm256_sub_pd(cv, bp));
		}
		bits = _mm256_castpd_si256(h);
		/* |h| in [2^-126, 2^127): its exponent field less 1023 - 126 in 0 .. 252 */
		t = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_slli_epi64(bits, 1), 53), e_lo);
		bad = _mm256_or_si256(_mm256_cmpgt_epi64(t, e_span), _mm256_cmpgt_epi64(zero, t));
		bad = _mm256_or_si256(bad, _mm256_and_si256(
			_mm256_cmpeq_epi64(_mm256_and_si256(bits, low29), tie),
			_mm256_castpd_si256(_mm256_cmp_pd(l, _mm256_setzero_pd(), _CMP_NEQ_UQ))));
		m = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(bad));
		f = _mm256_cvtpd_ps(h);
		if (!m) {
			_mm_storeu_ps(d + j, f);
			continue;
		}
		{	/* keep C where the caller redoes it */
			float v[4];

			_mm_storeu_ps(v, f);
			for (unsigned q = 0; q < 4; q++)
				if (!(m >> q & 1))
					d[j + q] = v[q];
		}
		left |= (uint64_t)m << j;
	}
	return left;
}

/*
 * The exact-addition window of mxe_finish_f32_add_avx512(), tested on the bits shifted
 * left once (the sign dropped, the exponent field on top), each an unsigned offset below
 * a limit (max and equal): finish_c_outside() the 8 C at @c whose exponent field is not
 * in [c_lo, c_lo + c_span] (+-0 is inside; a C below the window, a subnormal too, wraps
 * above it), finish_f_outside() the 8 results whose field is not in 2 .. 253 (|f| in
 * [2^-125, 2^127): h = s + C rounded to f is then D's rounding, in f32's normal range).
 */
struct finish_window {
	__m256i lo, lim;
};

AVX2 static inline struct finish_window finish_window(int c_lo, int c_span)
{
	return (struct finish_window){ _mm256_set1_epi32((int)((unsigned)c_lo << 24)),
				       _mm256_set1_epi32((int)((unsigned)(c_span + 1) << 24)) };
}

AVX2 static inline __attribute__((always_inline)) __m256i
finish_c_outside(const float *c, struct finish_window win)
{
	__m256i x = _mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)(const void *)c), 1);
	__m256i u = _mm256_sub_epi32(x, win.lo);

	return _mm256_andnot_si256(_mm256_cmpeq_epi32(x, _mm256_setzero_si256()),
				   _mm256_cmpeq_epi32(_mm256_max_epu32(u, win.lim), u));
}

AVX2 static inline __attribute__((always_inline)) __m256i finish_f_outside(__m256 f)
{
	__m256i e = _mm256_sub_epi32(_mm256_slli_epi32(_mm256_castps_si256(f), 1),
				     _mm256_set1_epi32(2 << 24));

	return _mm256_cmpeq_epi32(_mm256_max_epu32(e, _mm256_set1_epi32((int)(252u << 24))), e);
}

AVX2 static inline __attribute__((always_inline)) uint64_t
finish_add_avx2(const double *s, const float *c, float *d, unsigned n, int c_lo, int c_span)
{
	const struct finish_window win = finish_window(c_lo, c_span);
	unsigned j = 0;
	uint64_t left = 0;

	for (; n - j >= 16; j += 16) {
		__m256i bad = _mm256_or_si256(finish_c_outside(c + j, win),
					      finish_c_outside(c + j + 8, win));
		__m256 f[2];

		/* h = s + C exactly, rounded once to f, tested on f eight at a time rather
		 * than on each double's exponent; the rest go back to the caller */
#pragma GCC unroll 2
		for (unsigned q = 0; q < 2; q++) {
			__m256d h0 = _mm256_add_pd(_mm256_loadu_pd(s + j + 8 * q),
						   _mm256_cvtps_pd(_mm_loadu_ps(c + j + 8 * q)));
			__m256d h1 = _mm256_add_pd(_mm256_loadu_pd(s + j + 8 * q + 4),
						   _mm256_cvtps_pd(_mm_loadu_ps(c + j + 8 * q + 4)));

			f[q] = _mm256_set_m128(_mm256_cvtpd_ps(h1), _mm256_cvtpd_ps(h0));
			bad = _mm256_or_si256(bad, finish_f_outside(f[q]));
		}
		if (!_mm256_testz_si256(bad, bad)) {
			left |= mxe_finish_f32_avx2(s + j, c + j, d + j, 16) << j;
			continue;
		}
		_mm256_storeu_ps(d + j, f[0]);
		_mm256_storeu_ps(d + j + 8, f[1]);
	}
	if (j < n)
		left |= mxe_finish_f32_avx2(s + j, c + j, d + j, n - j) << j;
	return left;
}

/*
 * 16 outputs of mxe_kern_wgmma_w16_add_avx2(): the int32 sums @v (two vectors of 8)
 * times their factors @fab (powers of two), plus C, in one FMA each (the product and
 * the sum are exact where C lies in the window: the same bits as rounding s + C),
 * rounded once into @d, tested as finish_add_avx2() tests them. 1 when a C is outside
 * the window or a result outside f32's normal range: nothing stored, the 16 exact sums
 * in @s for mxe_finish_f32_avx2().
 */
AVX2 static inline __attribute__((always_inline)) int
w16_finish16(const __m256i v[2], const __m256d fab[4], const float *c, float *d,
	     struct finish_window win, double *s)
{
	__m256i bad = _mm256_or_si256(finish_c_outside(c, win), finish_c_outside(c + 8, win));
	__m256d x[4];
	__m256 f[2];

#pragma GCC unroll 4
	for (unsigned q = 0; q < 4; q++)
		x[q] = _mm256_cvtepi32_pd(q % 2 ? _mm256_extracti128_si256(v[q / 2], 1) :
					  _mm256_castsi256_si128(v[q / 2]));
#pragma GCC unroll 2
	for (unsigned q = 0; q < 2; q++) {
		__m256d h0 = _mm256_fmadd_pd(x[2 * q], fab[2 * q], _mm256_cvtps_pd(_mm_loadu_ps(c + 8 * q)));
		__m256d h1 = _mm256_fmadd_pd(x[2 * q + 1], fab[2 * q + 1],
					     _mm256_cvtps_pd(_mm_loadu_ps(c + 8 * q + 4)));

		f[q] = _mm256_set_m128(_mm256_cvtpd_ps(h1), _mm256_cvtpd_ps(h0));
		bad = _mm256_or_si256(bad, finish_f_outside(f[q]));
	}
	if (!_mm256_testz_si256(bad, bad)) {
		for (unsigned q = 0; q < 4; q++)
			_mm256_storeu_pd(s + 4 * q, _mm256_mul_pd(x[q], fab[q]));
		return 1;
	}
	_mm256_storeu_ps(d, f[0]);
	_mm256_storeu_ps(d + 8, f[1]);
	return 0;
}

/*
 * mxe_kern_wgmma_w16_add_vnni() on AVX2: a strip of 32 columns, each row finished from
 * its int32 sums in registers (w16_finish16()), where mxe_kern_wgmma_w16_avx2() scales
 * them into @s for mxe_finish_rows_f32_add_avx2(). A sum's factor 2^(wa[i] + wb[j] -
 * 18): the column's 2^(wb[j] - 18) with wa[i] added to its exponent field.
 */
AVX2 void mxe_kern_wgmma_w16_add_avx2(const uint32_t *a, const uint32_t *bt, size_t ldb,
				      const int *wa, const int *wb, const float *c, size_t ldc,
				      float *d, size_t ldd, int c_lo, int c_span, double *s,
				      uint64_t left[64])
{
	const struct finish_window win = finish_window(c_lo, c_span);
	__m256i fb[8];	/* the columns' 2^(wb - 18), four a vector */

	for (unsigned q = 0; q < 8; q++)
		fb[q] = wg16_pow2(_mm_loadu_si128((const __m128i *)(wb + 4 * q)), 18);
	for (unsigned i = 0; i < 64; i += 2) {
		__m256i h[8];

		wg16_rows2(a + i * 16, bt, ldb, h);
#pragma GCC unroll 2
		for (unsigned r = 0; r < 2; r++) {
			const __m256i ea = _mm256_set1_epi64x((long long)((uint64_t)(int64_t)wa[i + r] << 52));
			const float *ci = (const float *)((const uint8_t *)c + (i + r) * ldc);
			float *di = (float *)((uint8_t *)d + (i + r) * ldd);

			left[i + r] = 0;
#pragma GCC unroll 2
			for (unsigned g = 0; g < 2; g++) {	/* columns 16 g .. 16 g + 15 */
				__m256d fab[4];

#pragma GCC unroll 4
				for (unsigned q = 0; q < 4; q++)
					fab[q] = _mm256_castsi256_pd(_mm256_add_epi64(fb[4 * g + q], ea));
				if (w16_finish16(h + 4 * r + 2 * g, fab, ci + 16 * g, di + 16 * g, win, s))
					left[i + r] |= mxe_finish_f32_avx2(s, ci + 16 * g, di + 16 * g, 16)
						       << (16 * g);
			}
		}
	}
}

/* one call a strip: a call a row of 32 spent a fifth of its time entering and leaving */
AVX2 void mxe_finish_rows_f32_add_avx2(const double *s, unsigned w, const float *c, size_t ldc,
				       float *d, size_t ldd, unsigned rows, int c_lo, int c_span,
				       uint64_t *left)
{
	for (unsigned i = 0; i < rows; i++)
		left[i] = finish_add_avx2(s + i * w, (const float *)((const uint8_t *)c + i * ldc),
					  (float *)((uint8_t *)d + i * ldd), w, c_lo, c_span);
}

/* ---- int16 windows (struct mxe_kw16) without AVX512-VNNI ------------------------- */

/* 8 codes of a row from element @k (a multiple of 8), one a lane. */
AVX2 static inline __m256i w16_codes8(const uint8_t *row, unsigned t, size_t k)
{
	__m256i c;

	if (t == MXA_DTYPE_E2M1) {	/* two a byte, the low nibble first */
		uint32_t w;

		memcpy(&w, row + k / 2, 4);
		return _mm256_cvtepu8_epi32(mxe_w16_e2m1_bytes(_mm_cvtsi32_si128((int)w)));
	}
	c = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(row + k)));
	if (t == MXA_DTYPE_E3M2 || t == MXA_DTYPE_E2M3)	/* six bits a byte */
		c = _mm256_and_si256(c, _mm256_set1_epi32(0x3F));
	return c;
}

/* The 32 integers of the block from element @k, 8 a vector. */
AVX2 static inline void w16_ints8(const uint8_t *row, unsigned t, const int32_t *lut, size_t k,
				  __m256i v[4])
{
	for (unsigned q = 0; q < 4; q++)
		v[q] = _mm256_i32gather_epi32((const int *)lut, w16_codes8(row, t, k + 8 * q), 4);
}

AVX2 int mxe_w16_tops_avx2(const uint8_t *row, unsigned t, const int32_t *lut, size_t nb,
			   int8_t *top, size_t *under)
{
	const __m256i bad = _mm256_set1_epi32(INT32_MIN);

	for (size_t b = 0; b < nb; b++) {
		__m256i v[4], o = _mm256_setzero_si256();
		uint32_t m;
		int hi, isbad = 0;

		w16_ints8(row, t, lut, b * 32, v);
		for (unsigned q = 0; q < 4; q++) {
			isbad |= _mm256_movemask_epi8(_mm256_cmpeq_epi32(v[q], bad));
			o = _mm256_or_si256(o, _mm256_abs_epi32(v[q]));
		}
		if (isbad)
			return 0;
		m = w16_or_lanes(o);
		if (!m) {
			top[b] = MXE_W16_ZERO;
			continue;
		}
		hi = 31 - __builtin_clz(m);
		if (hi - __builtin_ctz(m) > 25)
			return 0;
		top[b] = (int8_t)hi;
		if (hi - __builtin_ctz(m) > 12) {	/* the elements with bits under 2^(hi - 12) */
			__m256i low = _mm256_set1_epi32((1 << (hi - 12)) - 1), z = _mm256_setzero_si256();

			for (unsigned q = 0; q < 4; q++)
				*under += 8 - (size_t)__builtin_popcount((unsigned)_mm256_movemask_ps(
					_mm256_castsi256_ps(_mm256_cmpeq_epi32(
						_mm256_and_si256(_mm256_abs_epi32(v[q]), low), z))));
		}
	}
	return 1;
}

/* 16 int32 (each fits int16) as int16, in order. */
AVX2 static inline void w16_store16(int16_t *out, __m256i a, __m256i b)
{
	_mm256_storeu_si256((__m256i *)out,
			    _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8));
}

AVX2 uint32_t mxe_w16_block_avx2(const uint8_t *row, unsigned t, const int32_t *lut, size_t k0,
				 int top, int16_t *hi, int16_t *lo)
{
	int sh = top == MXE_W16_ZERO ? 0 : top - 12;
	__m256i v[4], x[4], r[4], z = _mm256_setzero_si256();
	uint32_t any = 0;

	w16_ints8(row, t, lut, k0, v);
	for (unsigned q = 0; q < 4; q++) {	/* on magnitudes; each part keeps the sign */
		__m256i m = _mm256_abs_epi32(v[q]);

		x[q] = _mm256_sign_epi32(w16_shift8(m, sh), v[q]);
		r[q] = z;
		if (sh > 0)	/* the bits below 2^sh, over 2^(sh - 13) */
			r[q] = _mm256_sign_epi32(w16_shift8(_mm256_and_si256(
				m, _mm256_set1_epi32((1 << sh) - 1)), sh - 13), v[q]);
		any |= (uint32_t)(~_mm256_movemask_ps(_mm256_castsi256_ps(
			_mm256_cmpeq_epi32(r[q], z))) & 0xFF) << (8 * q);
	}
	w16_store16(hi, x[0], x[1]);
	w16_store16(hi + 16, x[2], x[3]);
	w16_store16(lo, r[0], r[1]);
	w16_store16(lo + 16, r[2], r[3]);
	return any;
}

AVX2 void mxe_kern_w16_avx2(const struct mxe_kw16 *in, size_t nblk, int64_t *t, ptrdiff_t ldt,
			    unsigned mr, unsigned nr, int first)
{
	int64_t s[MXE_MR * 16] __attribute__((aligned(32)));
	int full = mr == MXE_MR && nr == 16;

	if (first || full) {	/* in vectors: element by element it cost a tenth */
		for (unsigned i = 0; i < MXE_MR; i++)
#pragma GCC unroll 4
			for (unsigned j = 0; j < 16; j += 4)
				_mm256_store_si256((__m256i *)(s + i * 16 + j), first ?
					_mm256_setzero_si256() :
					_mm256_loadu_si256((const __m256i *)(t + i * ldt + j)));
	} else {
		for (unsigned i = 0; i < MXE_MR; i++)
			for (unsigned j = 0; j < 16; j++)
				s[i * 16 + j] = i >= mr || j >= nr ? 0 : t[i * ldt + j];
	}
	for (size_t blk = 0; blk < nblk; blk++) {
		const int32_t *sb = in->shb0 + blk * in->shb_step;
		__m256i cs[4], h[12];

		i16_block_avx2(in->a + blk * 16 * MXE_MR, in->b0 + blk * 16 * MXE_NR, h);
#pragma GCC unroll 4
		for (unsigned q = 0; q < 4; q++)
			cs[q] = _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(sb + 4 * q)));
#pragma GCC unroll 6
		for (unsigned r = 0; r < MXE_MR; r++) {
			__m256i ra = _mm256_set1_epi64x(in->sha[blk * in->sha_step + r]);
			int64_t *p = s + r * 16;

#pragma GCC unroll 4
			for (unsigned q = 0; q < 4; q++) {
				__m256i v = h[2 * r + q / 2];
				__m256i w = _mm256_cvtepi32_epi64(q % 2 ? _mm256_extracti128_si256(v, 1)
									: _mm256_castsi256_si128(v));

				w = _mm256_sllv_epi64(w, _mm256_add_epi64(ra, cs[q]));
				_mm256_store_si256((__m256i *)(p + 4 * q), _mm256_add_epi64(
					_mm256_load_si256((const __m256i *)(p + 4 * q)), w));
			}
		}
	}
	if (full) {
		for (unsigned i = 0; i < MXE_MR; i++)
#pragma GCC unroll 4
			for (unsigned j = 0; j < 16; j += 4)
				_mm256_storeu_si256((__m256i *)(t + i * ldt + j),
						    _mm256_load_si256((const __m256i *)(s + i * 16 + j)));
		return;
	}
	for (unsigned i = 0; i < mr; i++)
		for (unsigned j = 0; j < nr; j++)
			t[i * ldt + j] = s[i * 16 + j];
}

/*
 * Four int64 lanes as doubles, correctly rounded (AVX2 has no vcvtqq2pd): the high
 * dword, signed, times 2^32 plus the low dword, unsigned, both exact, added with one
 * rounding; *@rest = x - fl(x) exactly ((high - fl) is a multiple of fl's ulp below
 * 2^33, then the low dword brings it to the rounding error, a small integer).
 */
AVX2 static inline __m256d w16_i64_pd(__m256i x, __m256d *rest)
{
	__m256i p = _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(1, 3, 5, 7, 0, 2, 4, 6));
	__m256d hi = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(p)),
				   _mm256_set1_pd(0x1p32));
	__m256d lo = _mm256_add_pd(_mm256_cvtepi32_pd(_mm_xor_si128(_mm256_extracti128_si256(p, 1),
								    _mm_set1_epi32(INT32_MIN))),
				   _mm256_set1_pd(0x1p31));
	__m256d f = _mm256_add_pd(hi, lo);

	*rest = _mm256_add_pd(_mm256_sub_pd(hi, f), lo);
	return f;
}

/* mxe_w16_pairs_avx512()'s steps four lanes at a time, the int64 conversions split. */
AVX2 uint64_t mxe_w16_pairs_avx2(const int64_t *t0, const int64_t *t1, const int64_t *t2,
				 unsigned n, double unit, double *h, double *l)
{
	const __m256i big = _mm256_set1_epi64x((int64_t)1 << 48), nbig = _mm256_set1_epi64x(-((int64_t)1 << 48));
	const __m256d up = _mm256_set1_pd(0x1p26), down = _mm256_set1_pd(0x1p-26);
	const __m256d u = _mm256_set1_pd(unit);	/* times 2^-26, then @unit: as the scalar */
	uint64_t left = 0;

	for (unsigned c = 0; c < n; c += 4) {
		__m256i m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n - c), _mm256_setr_epi64x(0, 1, 2, 3));
		__m256i x0 = _mm256_maskload_epi64((const long long *)(t0 + c), m);
		__m256i x1 = _mm256_maskload_epi64((const long long *)(t1 + c), m);
		__m256i x2 = _mm256_maskload_epi64((const long long *)(t2 + c), m);
		__m256i in = _mm256_and_si256(_mm256_cmpgt_epi64(x1, nbig), _mm256_cmpgt_epi64(big, x1));
		__m256d hv, e, zh, zr, t, bp, lv;
		__m256i z;

		left |= (uint64_t)(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_andnot_si256(in, m)))) << c;
		hv = w16_i64_pd(x0, &e);		/* |e| <= 2^8: an int32 */
		z = _mm256_add_epi64(_mm256_add_epi64(_mm256_slli_epi64(_mm256_cvtepi32_epi64(
			_mm256_cvtpd_epi32(e)), 26), _mm256_slli_epi64(x1, 13)), x2);
		zh = w16_i64_pd(z, &zr);
		hv = _mm256_mul_pd(hv, up);
		t = _mm256_add_pd(hv, zh);	/* TwoSum(hv, zh) */
		bp = _mm256_sub_pd(t, hv);
		lv = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(hv, _mm256_sub_pd(t, bp)),
						 _mm256_sub_pd(zh, bp)), zr);
		_mm256_maskstore_pd(h + c, m, _mm256_mul_pd(_mm256_mul_pd(t, down), u));
		_mm256_maskstore_pd(l + c, m, _mm256_mul_pd(_mm256_mul_pd(lv, down), u));
	}
	return left;
}

#else /* no x86-64 AVX2 support in this compiler: never selected */

void mxe_widen_f32_avx2(const float *src, double *dst, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i];
}

void mxe_kern_f32_avx2(const float *a, const float *b, size_t k, const struct mxe_kf32 *u)
{
	mxe_kern_f32_portable(a, b, k, u);
}

void mxe_kern_s16_avx2(const uint32_t *a, const uint32_t *b, size_t kpairs,
		       const struct mxe_ks32 *u)
{
	mxe_kern_s16_portable(a, b, kpairs, u);
}

void mxe_kern_x64_avx2(const float *a, const float *b, size_t k, const struct mxe_kx64 *u)
{
	mxe_kern_x64_portable(a, b, k, u);
}

void mxe_kern_s8_avx2(const struct mxe_ks8 *in, size_t k, unsigned g, const struct mxe_kf32 *u)
{
	(void)in, (void)k, (void)g, (void)u;
}

void mxe_kern_s8_avx2_x64(const struct mxe_ks8 *in, size_t k, unsigned g,
			  const struct mxe_kx64 *u)
{
	(void)in, (void)k, (void)g, (void)u;
}

int32_t mxe_s8_e2m1_block(const uint8_t *codes, const int8_t *lut, int bias, int8_t *v)
{
	(void)codes, (void)lut, (void)bias, (void)v;
	return 0;
}

int32_t mxe_s8_byte_block(const uint8_t *codes, const int8_t *lut, int bias, int8_t *v)
{
	(void)codes, (void)lut, (void)bias, (void)v;
	return 0;
}

void mxe_decode_bf16_avx2(const uint16_t *src, float *dst, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u = (uint32_t)src[i] << 16;

		memcpy(dst + i, &u, 4);
	}
}

void mxe_decode_f16_avx2(const uint16_t *src, float *dst, size_t n)
{
	(void)src, (void)dst, (void)n;
}

void mxe_decode_lut8_avx2(const uint8_t *src, const float *lut, float *dst, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = lut[src[i]];
}

void mxe_widen_s8_avx2(const uint8_t *src, int16_t *dst, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (int8_t)src[i];
}

void mxe_copy_nt_avx2(const float *src, float *dst, size_t n)
{
	memcpy(dst, src, n * sizeof(float));
}

void mxe_sfence_avx2(void)
{
}

void mxe_interleave_avx2(const float *src, size_t stride, unsigned rows, size_t n, float *dst,
			 int nt)
{
	for (size_t k = 0; k < n; k++)
		for (unsigned i = 0; i < rows; i++)
			memcpy(dst + k * rows + i, src + i * stride + k, 4);
}

void mxe_decode_fp8_avx2(const uint8_t *src, float *dst, size_t n, int e4m3,
			 const uint8_t *scales, size_t k0)
{
	(void)src, (void)dst, (void)n, (void)e4m3, (void)scales, (void)k0;
}
int mxe_wgmma_w16_rows_avx2(const uint8_t *p, size_t ld, unsigned rows, int neg,
			    uint32_t *hi, size_t ldt, int *w)
{
	(void)p, (void)ld, (void)rows, (void)neg, (void)hi, (void)ldt, (void)w;
	return 0;
}

void mxe_kern_wgmma_w16_avx2(const uint32_t *a, const uint32_t *bt, size_t ldb, unsigned w,
			     const int *wa, const int *wb, double *s)
{
	(void)a, (void)bt, (void)ldb, (void)w, (void)wa, (void)wb, (void)s;
}

void mxe_kern_wgmma_w16_add_avx2(const uint32_t *a, const uint32_t *bt, size_t ldb,
				 const int *wa, const int *wb, const float *c, size_t ldc,
				 float *d, size_t ldd, int c_lo, int c_span, double *s,
				 uint64_t left[64])
{
	(void)a, (void)bt, (void)ldb, (void)wa, (void)wb, (void)c, (void)ldc, (void)d, (void)ldd;
	(void)c_lo, (void)c_span, (void)s, (void)left;
}

void mxe_kern_wgmma_d64_avx2(const double *a, const double *bs, unsigned k, unsigned w,
			     double *s)
{
	(void)a, (void)bs, (void)k, (void)w, (void)s;
}

void mxe_wgmma_decode8_avx2(const uint8_t *a, size_t lda, const uint8_t *b, size_t ldb,
			    unsigned n, int e4m3_a, int e4m3_b, int neg_a, int neg_b,
			    double *ad, double *bt)
{
	(void)a, (void)lda, (void)b, (void)ldb, (void)n, (void)e4m3_a, (void)e4m3_b;
	(void)neg_a, (void)neg_b, (void)ad, (void)bt;
}

void mxe_wgmma_decode16_avx2(const uint8_t *a, size_t lda, const uint8_t *b, size_t ldb,
			     unsigned n, int bf16, int neg_a, int neg_b, double *ad, double *bt)
{
	(void)a, (void)lda, (void)b, (void)ldb, (void)n, (void)bf16, (void)neg_a, (void)neg_b;
	(void)ad, (void)bt;
}

void mxe_wgmma_exp_fields_avx2(const uint8_t *p, size_t ld, unsigned rows, int bits16,
			       unsigned mbits, int e4m3, unsigned *lo, unsigned *hi)
{
	(void)p, (void)ld, (void)rows, (void)bits16, (void)mbits, (void)e4m3;
	*lo = ~0u;
	*hi = 0;
}

uint64_t mxe_finish_f32_avx2(const double *s, const float *c, float *d, unsigned n)
{
	(void)s, (void)c, (void)d;
	return n < 64 ? (1ull << n) - 1 : ~0ull;	/* all left to the caller */
}

void mxe_finish_rows_f32_add_avx2(const double *s, unsigned w, const float *c, size_t ldc,
				  float *d, size_t ldd, unsigned rows, int c_lo, int c_span,
				  uint64_t *left)
{
	(void)ldc, (void)ldd, (void)c_lo, (void)c_span;
	for (unsigned i = 0; i < rows; i++)
		left[i] = mxe_finish_f32_avx2(s, c, d, w);	/* all left to the caller */
}

int mxe_w16_tops_avx2(const uint8_t *row, unsigned t, const int32_t *lut, size_t nb,
		      int8_t *top, size_t *under)
{
	(void)row, (void)t, (void)lut, (void)nb, (void)top, (void)under;
	return 0;	/* never taken */
}

uint32_t mxe_w16_block_avx2(const uint8_t *row, unsigned t, const int32_t *lut, size_t k0,
			    int top, int16_t *hi, int16_t *lo)
{
	(void)row, (void)t, (void)lut, (void)k0, (void)top, (void)hi, (void)lo;
	return 0;
}

void mxe_kern_w16_avx2(const struct mxe_kw16 *in, size_t nblk, int64_t *t, ptrdiff_t ldt,
		       unsigned mr, unsigned nr, int first)
{
	(void)in, (void)nblk, (void)t, (void)ldt, (void)mr, (void)nr, (void)first;
}

uint64_t mxe_w16_pairs_avx2(const int64_t *t0, const int64_t *t1, const int64_t *t2, unsigned n,
			    double unit, double *h, double *l)
{
	(void)t0, (void)t1, (void)t2, (void)unit, (void)h, (void)l;
	return n < 64 ? (1ull << n) - 1 : ~0ull;	/* all left to the caller */
}
#endif
