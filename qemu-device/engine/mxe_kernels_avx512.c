// SPDX-License-Identifier: MIT
/*
 * mxe_kernels_avx512.c - the AVX-512F float micro kernel of the FAST path.
 *
 * Compiled for any x86-64 with __attribute__((target)) and only called when
 * mxe_cpu_simd() says the CPU (and the OS) has AVX-512F. It computes a
 * 6 x 32 block: two adjacent packed B panels (16 columns each, one zmm per
 * k) against one A panel, so that 32 vector registers hold the twelve
 * chains and the twelve running block sums p at once. Lane (i, j) runs
 * exactly the portable kernel's operations, in the same order: per MX
 * sub-block of 32 k a chain q = fma(a_ik, b_jk, q) from +0, then p = q (the
 * first sub-block) or p = p + q. So the bits are the portable kernel's.
 * With AVX512-VNNI, the int8 kernels form the same q for small-integer MX
 * types as exact integer dot products (struct mxe_ks8); with AVX512-BF16, the
 * BF16 pair kernel forms it two k a vdpbf16ps (mxe_kern_bf16x2_avx512()).
 */
#include <math.h>
#include <string.h>

#include "mxe_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")))

/* Bytes from one B panel to the next inside a packed K block. */
#define BPANEL_BYTES (MXE_NR * MXE_FAST_KBLOCK * 4)

_Static_assert(MXE_KA_STRIDE == 256, "ROWA's displacement is 1024 bytes per A row");
_Static_assert(BPANEL_BYTES == 16384, "STEP's second B panel is 16384 bytes on");

/*
 * Registers: zmm0-11 the chains q (row i: zmm 2i, 2i+1 = panel 0, 1),
 * zmm16-27 the block sums p in the same order, zmm28/29 the two B vectors
 * of one k, zmm30 the broadcast A element.
 */
#define ROWA(o, i, d0, d1)							\
	"vbroadcastss " #o "*4+" #i "*1024(%[a]), %%zmm30\n\t"			\
	"vfmadd231ps %%zmm28, %%zmm30, %%zmm" #d0 "\n\t"			\
	"vfmadd231ps %%zmm29, %%zmm30, %%zmm" #d1 "\n\t"
#define LOADB(o)								\
	"vmovaps " #o "*64(%[b]), %%zmm28\n\t"					\
	"vmovaps " #o "*64+16384(%[b]), %%zmm29\n\t"
/* one step of the chains (q: zmm0-11) or of the block sums (p: zmm16-27), its
 * products by ROW */
#define STEPQ_(ROW, o) LOADB(o)							\
	ROW(o, 0, 0, 1) ROW(o, 1, 2, 3) ROW(o, 2, 4, 5)				\
	ROW(o, 3, 6, 7) ROW(o, 4, 8, 9) ROW(o, 5, 10, 11)
#define STEPP_(ROW, o) LOADB(o)							\
	ROW(o, 0, 16, 17) ROW(o, 1, 18, 19) ROW(o, 2, 20, 21)			\
	ROW(o, 3, 22, 23) ROW(o, 4, 24, 25) ROW(o, 5, 26, 27)
#define STEPQ(o) STEPQ_(ROWA, o)
#define STEPP(o) STEPP_(ROWA, o)
/* One MX sub-block: @n iterations of 8 steps, each prefetching 3 lines of the
 * next A panel (6 KiB after this one in the packed layout) */
#define SUBN(l, STEP, n)							\
	"mov $" #n ", %[cnt]\n\t"						\
	#l ":\n\t"								\
	STEP(0) STEP(1) STEP(2) STEP(3)						\
	"prefetcht0 (%[pf])\n\t"						\
	"prefetcht0 64(%[pf])\n\t"						\
	"prefetcht0 128(%[pf])\n\t"						\
	STEP(4) STEP(5) STEP(6) STEP(7)						\
	"add $192, %[pf]\n\t"							\
	"add $32, %[a]\n\t"							\
	"add $512, %[b]\n\t"							\
	"dec %[cnt]\n\t"							\
	"jnz " #l "b\n\t"
#define SUB32(l, STEP) SUBN(l, STEP, 4)	/* 32 k steps */
#define Z(r) "vpxord %%zmm" #r ", %%zmm" #r ", %%zmm" #r "\n\t"
#define ZERO_Q Z(0) Z(1) Z(2) Z(3) Z(4) Z(5) Z(6) Z(7) Z(8) Z(9) Z(10) Z(11)
#define ZERO_P Z(16) Z(17) Z(18) Z(19) Z(20) Z(21) Z(22) Z(23) Z(24) Z(25) Z(26) Z(27)
/* p = p + q (the running value first, as the portable kernel writes it) */
#define A1(q, p) "vaddps %%zmm" #q ", %%zmm" #p ", %%zmm" #p "\n\t"
#define ADD_QP A1(0, 16) A1(1, 17) A1(2, 18) A1(3, 19) A1(4, 20) A1(5, 21)	\
	A1(6, 22) A1(7, 23) A1(8, 24) A1(9, 25) A1(10, 26) A1(11, 27)
/* row i of panel 0 to p0[16 i], of panel 1 to p1[16 i] = p0[96 + 16 i] */
#define S1(r, off) "vmovaps %%zmm" #r ", " #off "(%[p])\n\t"
#define STORE_P S1(16, 0) S1(17, 384) S1(18, 64) S1(19, 448) S1(20, 128)	\
	S1(21, 512) S1(22, 192) S1(23, 576) S1(24, 256) S1(25, 640)		\
	S1(26, 320) S1(27, 704)

/*
 * A K block's chains of two B panels, @nsub sub-blocks of @SUB: the first one's
 * straight into the block sums p, each later one's into q from +0 and then added to p;
 * p stored to @p at the end. Operands a, b, nsub, cnt, pf and p of the caller.
 */
#define CHAINS(SUB, STEPP, STEPQ)						\
	__asm__ volatile(							\
		ZERO_P								\
		SUB(1, STEPP)							\
		"dec %[nsub]\n\t"						\
		"jz 3f\n\t"							\
		"2:\n\t"							\
		ZERO_Q								\
		SUB(4, STEPQ)							\
		ADD_QP								\
		"dec %[nsub]\n\t"						\
		"jnz 2b\n\t"							\
		"3:\n\t"							\
		STORE_P								\
		: [a] "+r"(a), [b] "+r"(b), [nsub] "+r"(nsub), [cnt] "=&r"(cnt),	\
		  [pf] "+r"(pf)							\
		: [p] "r"(p)							\
		: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",	\
		  "xmm8", "xmm9", "xmm10", "xmm11", "xmm16", "xmm17", "xmm18",	\
		  "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25",	\
		  "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "memory", "cc")

AVX512 static inline void upd_row(const float *p, float *d, const float *c, unsigned flags)
{
	__m512 v = _mm512_load_ps(p);

	if (!(flags & MXE_KF_FIRST))
		v = _mm512_add_ps(_mm512_loadu_ps(d), v);
	else if (flags & MXE_KF_C)
		v = _mm512_add_ps(_mm512_loadu_ps(c), v);
	if (flags & MXE_KF_LAST)
		v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v,
					 _mm512_castsi512_ps(_mm512_set1_epi32(0x7FFFFFFF)));
	_mm512_storeu_ps(d, v);
}

AVX512 static void apply(const float *p, const struct mxe_kf32 *u)
{
	if (u->mr != MXE_MR || u->nr != MXE_NR) {
		mxe_kf32_apply(p, u);
		return;
	}
	for (unsigned i = 0; i < MXE_MR; i++)
		upd_row(p + i * MXE_NR, u->d + i * u->ldd,
			(u->flags & MXE_KF_C) ? u->c + i * u->ldc : NULL, u->flags);
}

AVX512 void mxe_kern_f32x2_avx512(const float *a, const float *b, size_t k,
				  const struct mxe_kf32 *u0, const struct mxe_kf32 *u1)
{
	float p[2 * MXE_MR * MXE_NR] __attribute__((aligned(64)));
	size_t nsub = k / MXE_FAST_KSUB, cnt;
	const float *pf = a + MXE_MR * MXE_KA_STRIDE;

	if (!nsub || k % MXE_FAST_KSUB || !u1->nr) {
		/* a partial MX sub-block, or no second panel (the asm below would read
		 * one past the packed B): the AVX2 kernel, one panel at a time */
		mxe_kern_f32_avx2(a, b, k, u0);
		if (u1->nr)
			mxe_kern_f32_avx2(a, b + BPANEL_BYTES / 4, k, u1);
		return;
	}
	/* D is read (or written) at the end: start fetching its rows now */
	for (unsigned i = 0; i < u0->mr; i++) {
		__builtin_prefetch(u0->d + i * u0->ldd, 1, 3);
		__builtin_prefetch(u0->d + i * u0->ldd + 16, 1, 3);
	}
	CHAINS(SUB32, STEPP, STEPQ);
	apply(p, u0);
	if (u1->nr)
		apply(p + MXE_MR * MXE_NR, u1);
}

/* ---- BF16 pairs (AVX512-BF16) ------------------------------------------------
 *
 * vdpbf16ps adds to each f32 lane two products of BF16 pairs, each as an f32 FMA
 * rounded to nearest even: the odd (high) element's product first, then the even
 * one's; inputs and results below 2^-126 are flushed to zero. With the element of
 * k in a pair's high half and k + 1 in its low half, one vdpbf16ps is two steps of
 * FAST's chain q = fma(a_k, b_k, q), in k's order, as long as no input, product or
 * partial sum is subnormal: the caller (mxe_tiled.c) packs pairs only where every
 * element is exact in BF16 and every product's grid is at least 2^-126, so a nonzero
 * partial sum never falls below it. Twice the products of an FMA a cycle.
 */
#define BF16 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512bf16,avx2,fma")))

/* The 16 pair words of 32 f32 (@v0: 0..15, @v1: 16..31), each value's high half: of
 * their 16-bit words (0..63) pair word j takes 4j + 3 (float 2j + 1) low, 4j + 1 high. */
BF16 static inline __m512i pairs32(__m512i v0, __m512i v1)
{
	const __m512i idx = _mm512_set_epi16(61, 63, 57, 59, 53, 55, 49, 51, 45, 47, 41, 43,
					     37, 39, 33, 35, 29, 31, 25, 27, 21, 23, 17, 19,
					     13, 15, 9, 11, 5, 7, 1, 3);

	return _mm512_permutex2var_epi16(v0, idx, v1);
}

/* @v's NaNs with their quiet bit set: a NaN's high half stays a NaN (a payload in the
 * low half alone would truncate to an Inf). */
BF16 static inline __m512i quiet_nans(__m512i v)
{
	const __m512i abs = _mm512_set1_epi32(0x7FFFFFFF), inf = _mm512_set1_epi32(0x7F800000);

	return _mm512_mask_or_epi32(v, _mm512_cmpgt_epi32_mask(_mm512_and_si512(v, abs), inf), v,
				    _mm512_set1_epi32(0x00400000));
}

/* Pair word j of @n f32 at @src (@n even): (BF16 of src[2j]) << 16 | BF16 of src[2j+1],
 * truncated (the values are BF16 already); a NaN stays a NaN (quiet bit set). */
BF16 void mxe_bf16_pack_avx512(const float *src, uint32_t *dst, size_t n)
{
	size_t i = 0;

	for (; i < n; i += 32) {
		__mmask16 m0 = n - i >= 16 ? 0xFFFF : (__mmask16)((1u << (n - i)) - 1);
		__mmask16 m1 = n - i >= 32 ? 0xFFFF : n - i <= 16 ? 0 :
			       (__mmask16)((1u << (n - i - 16)) - 1);
		__mmask16 out = n - i >= 32 ? 0xFFFF : (__mmask16)((1u << ((n - i) / 2)) - 1);
		__m512i v0 = quiet_nans(_mm512_maskz_loadu_epi32(m0, src + i));
		__m512i v1 = quiet_nans(_mm512_maskz_loadu_epi32(m1, src + i + 16));

		_mm512_mask_storeu_epi32(dst + i / 2, out, pairs32(v0, v1));
	}
}

/*
 * @n (a multiple of 32) E4M3 (@e4m3) or E5M2 codes from element @k0 (a multiple of 32)
 * of a row, with its MX @scales (or none), straight to pair words: the f32 values of
 * mxe_decode_fp8_avx2() (through F16: E4M3 x 2^-8, E5M2 its high byte, times
 * 2^(scale - 127) and back; NaN codes and scales 0x7FFFFFFF), negated where @neg, then
 * truncated as mxe_bf16_pack_avx512() does: a pass and a buffer fewer.
 */
BF16 void mxe_fp8_pairs_avx512(const uint8_t *src, uint32_t *dst, size_t n, int e4m3,
			       const uint8_t *scales, size_t k0, int neg)
{
	const __m512i qnan = _mm512_set1_epi32(0x7FFFFFFF);
	const __m512i sign = _mm512_set1_epi32(neg ? (int)0x80000000u : 0);

	for (size_t i = 0; i < n; i += 32) {
		__m512i b = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(src + i)));
		__m512i mag = _mm512_and_si512(b, _mm512_set1_epi16(0x7F)), h;
		__mmask32 nan;
		unsigned sb = scales ? scales[(k0 + i) / 32] : 127;
		int x = (int)sb - 127 + (e4m3 ? 8 : 0);
		__m512 f = x >= -126 && x <= 127 ? _mm512_castsi512_ps(_mm512_set1_epi32((x + 127) << 23))
						 : _mm512_set1_ps(ldexpf(1.0f, x)), v[2];

		if (e4m3) {	/* s.eeee.mmm -> F16 s.0eeee.mmm0000000 */
			h = _mm512_or_si512(_mm512_slli_epi16(_mm512_and_si512(b, _mm512_set1_epi16(0x80)), 8),
					    _mm512_slli_epi16(mag, 7));
			nan = _mm512_cmpeq_epi16_mask(mag, _mm512_set1_epi16(0x7F));
		} else {	/* E5M2: F16's high byte */
			h = _mm512_slli_epi16(b, 8);
			nan = _mm512_cmpgt_epi16_mask(mag, _mm512_set1_epi16(0x7C));
		}
		if (sb == 0xFF)
			nan = 0xFFFFFFFFu;
		for (int g = 0; g < 2; g++) {	/* (clang: the lane an immediate) */
			__m256i hg = g ? _mm512_extracti64x4_epi64(h, 1) : _mm512_castsi512_si256(h);
			__m512i w = _mm512_castps_si512(_mm512_mul_ps(_mm512_cvtph_ps(hg), f));

			w = _mm512_mask_mov_epi32(w, (__mmask16)(nan >> (16 * g)), qnan);
			v[g] = _mm512_castsi512_ps(_mm512_xor_si512(w, sign));
		}
		_mm512_storeu_si512(dst + i / 2, pairs32(_mm512_castps_si512(v[0]),
						       _mm512_castps_si512(v[1])));
	}
}

/* @n (even) BF16 values to pair words: each 32-bit word's halves swapped (k high),
 * the signs flipped where @neg. */
BF16 void mxe_bf16_pairs_avx512(const uint16_t *src, uint32_t *dst, size_t n, int neg)
{
	const __m512i sign = _mm512_set1_epi32(neg ? (int)0x80008000u : 0);
	size_t i = 0;

	for (; i < n; i += 32) {
		__mmask16 in = n - i >= 32 ? 0xFFFF : (__mmask16)((1u << ((n - i) / 2)) - 1);
		__m512i v = _mm512_maskz_loadu_epi32(in, src + i);

		_mm512_mask_storeu_epi32(dst + i / 2, in,
					 _mm512_xor_si512(_mm512_rol_epi32(v, 16), sign));
	}
}

/* Whether @n f32 at @src are each exact in BF16 and zero, normal, Inf or NaN: the least
 * exponent field of the nonzero finite ones (255: none), or 0 where one is not. */
BF16 unsigned mxe_bf16_exact_min_exp_avx512(const float *src, size_t n)
{
	const __m512i abs = _mm512_set1_epi32(0x7FFFFFFF), low = _mm512_set1_epi32(0xFFFF);
	__m512i lo = _mm512_set1_epi32(255);
	__mmask16 bad = 0;

	for (size_t i = 0; i < n; i += 16) {
		__mmask16 in = n - i >= 16 ? 0xFFFF : (__mmask16)((1u << (n - i)) - 1);
		__m512i v = _mm512_maskz_loadu_epi32(in, src + i);
		__m512i e = _mm512_srli_epi32(_mm512_and_si512(v, abs), 23);
		/* nonzero and finite */
		__mmask16 f = _mm512_test_epi32_mask(v, abs) &
			      _mm512_cmpneq_epi32_mask(e, _mm512_set1_epi32(255));

		bad |= _mm512_mask_test_epi32_mask(f, v, low) |
		       _mm512_mask_cmpeq_epi32_mask(f, e, _mm512_setzero_si512());
		lo = _mm512_mask_min_epu32(lo, f, lo, e);
	}
	return bad ? 0 : (unsigned)_mm512_reduce_min_epu32(lo);
}

/* Rows 2kp and 2kp + 1 of the k-major [@nk][16] f32 at @src into pair row kp of @dst
 * ([@nk / 2][16] words); @dst may be @src (each pair row is written after both of its
 * rows, and after every row it overwrites, were read). */
BF16 void mxe_bf16_fold_avx512(const float *src, size_t nk, uint32_t *dst)
{
	const __m512i hi = _mm512_set1_epi32((int)0xFFFF0000u);

	for (size_t kp = 0; kp < nk / 2; kp++) {
		__m512i e = quiet_nans(_mm512_loadu_si512(src + 2 * kp * MXE_NR));
		__m512i o = quiet_nans(_mm512_loadu_si512(src + (2 * kp + 1) * MXE_NR));

		/* (e & hi) | (o >> 16) */
		_mm512_storeu_si512(dst + kp * MXE_NR,
				    _mm512_ternarylogic_epi32(e, hi, _mm512_srli_epi32(o, 16), 0xEA));
	}
}

/* The smallest exponent field of the nonzero BF16 values at @p (@n of them); 255
 * when there is none (zeros, infinities and NaNs have no bearing on it). */
BF16 unsigned mxe_bf16_min_exp_avx512(const uint16_t *p, size_t n)
{
	const __m512i mag = _mm512_set1_epi16(0x7FFF), top = _mm512_set1_epi16(0x7F80);
	__m512i lo = top;
	size_t i = 0;

	for (; i < n; i += 32) {
		__mmask32 in = n - i >= 32 ? 0xFFFFFFFFu : (__mmask32)((1u << (n - i)) - 1);
		__m512i v = _mm512_and_si512(_mm512_maskz_loadu_epi16(in, p + i), mag);

		/* a zero counts as the top exponent; a subnormal has field 0 */
		lo = _mm512_min_epu16(lo, _mm512_mask_blend_epi16(_mm512_test_epi16_mask(v, v),
								  top, _mm512_and_si512(v, top)));
	}
	lo = _mm512_min_epu16(lo, _mm512_srli_epi32(lo, 16));
	{
		uint16_t w[32];
		unsigned m = 0x7F80;

		_mm512_storeu_si512(w, lo);
		for (int j = 0; j < 32; j += 2)
			m = w[j] < m ? w[j] : m;
		return m >> 7;
	}
}

/* Chains of two B panels (row i: zmm 2i, 2i+1), the pairs as above: A's row i at
 * i * 512 bytes (its block's f32 row stride, halved), a pair word a step. */
#define BROWA(o, i, d0, d1)							\
	"vpbroadcastd " #o "*4+" #i "*512(%[a]), %%zmm30\n\t"			\
	"vdpbf16ps %%zmm28, %%zmm30, %%zmm" #d0 "\n\t"				\
	"vdpbf16ps %%zmm29, %%zmm30, %%zmm" #d1 "\n\t"
#define BSTEPQ(o) STEPQ_(BROWA, o)
#define BSTEPP(o) STEPP_(BROWA, o)
/* 16 pairs: 2 iterations of 8 (the next A panel's pairs: 3 KiB at 6 KiB on) */
#define BSUB32(l, STEP) SUBN(l, STEP, 2)

/* One B panel: the same chains, in intrinsics (the last panel of an odd count). */
BF16 static void bf16_one_panel(const uint32_t *a, const uint32_t *b, size_t nsub, float *p)
{
	__m512 s[MXE_MR], q[MXE_MR];

	for (size_t j = 0; j < nsub; j++) {
		for (unsigned i = 0; i < MXE_MR; i++)
			q[i] = _mm512_setzero_ps();
		for (unsigned kp = 0; kp < MXE_FAST_KSUB / 2; kp++) {
			__m512bh bv = (__m512bh)_mm512_loadu_si512(b + (j * 16 + kp) * MXE_NR);

			for (unsigned i = 0; i < MXE_MR; i++)
				q[i] = _mm512_dpbf16_ps(q[i], (__m512bh)_mm512_set1_epi32(
							(int)a[i * MXE_KA_STRIDE / 2 + j * 16 + kp]), bv);
		}
		for (unsigned i = 0; i < MXE_MR; i++)
			s[i] = j ? _mm512_add_ps(s[i], q[i]) : q[i];
	}
	for (unsigned i = 0; i < MXE_MR; i++)
		_mm512_store_ps(p + i * MXE_NR, s[i]);
}

BF16 void mxe_kern_bf16x2_avx512(const uint32_t *a, const uint32_t *b, size_t k,
				 const struct mxe_kf32 *u0, const struct mxe_kf32 *u1)
{
	float p[2 * MXE_MR * MXE_NR] __attribute__((aligned(64)));
	size_t nsub = k / MXE_FAST_KSUB, cnt;
	const uint32_t *pf = a + MXE_MR * MXE_KA_STRIDE;

	for (unsigned i = 0; i < u0->mr; i++) {
		__builtin_prefetch(u0->d + i * u0->ldd, 1, 3);
		__builtin_prefetch(u0->d + i * u0->ldd + 16, 1, 3);
	}
	if (!u1->nr) {	/* the asm would read the panel after the last one */
		bf16_one_panel(a, b, nsub, p);
		apply(p, u0);
		return;
	}
	CHAINS(BSUB32, BSTEPP, BSTEPQ);
	apply(p, u0);
	apply(p + MXE_MR * MXE_NR, u1);
}

/* Whether vdpbf16ps gives the chain's bits (the high element's product first, each
 * an FMA): a_k b_k = 1, a_k+1 b_k+1 = -1 from c = (i + 1) 2^-24 in lane i. The chain
 * rounds c + 1 first (lane 0: to 1, a tie, so 0 in the end); the other order, or one
 * rounding, keeps c (2^-24). */
BF16 int mxe_bf16_self_check(void)
{
	float c[16], r[16];

	for (int i = 0; i < 16; i++)
		c[i] = (float)(i + 1) * 0x1p-24f;
	_mm512_storeu_ps(r, _mm512_dpbf16_ps(_mm512_loadu_ps(c),
					     (__m512bh)_mm512_set1_epi32(0x3F803F80),
					     (__m512bh)_mm512_set1_epi32((int)0x3F80BF80u)));
	for (int i = 0; i < 16; i++) {
		float want = __builtin_fmaf(-1.0f, 1.0f, __builtin_fmaf(1.0f, 1.0f, c[i]));

		if (memcmp(&want, &r[i], 4))
			return 0;
	}
	return 1;
}

/* zmm r (row r / 2, panel r % 2) of one sub-block's chains to qp + 16 r */
#define SQ(r, off) "vmovaps %%zmm" #r ", " #off "(%[qp])\n\t"
#define STORE_Q SQ(0, 0) SQ(1, 64) SQ(2, 128) SQ(3, 192) SQ(4, 256) SQ(5, 320)	\
	SQ(6, 384) SQ(7, 448) SQ(8, 512) SQ(9, 576) SQ(10, 640) SQ(11, 704)
/* eight f32 sums at qp + oq, as doubles, added to the eight at tp + ot */
#define FOLD1(oq, ot)								\
	"vcvtps2pd " #oq "(%[qp]), %%zmm31\n\t"					\
	"vaddpd " #ot "(%[tp]), %%zmm31, %%zmm31\n\t"				\
	"vmovapd %%zmm31, " #ot "(%[tp])\n\t"
#define FOLD6 FOLD1(0, 0) FOLD1(32, 64) FOLD1(64, 128) FOLD1(96, 192) FOLD1(128, 256)	\
	FOLD1(160, 320)

/*
 * EXACT's block sums (struct mxe_kx64), two panels. Each sub-block's chains
 * go to q (6 x 32 f32) when the sub-block ends; while the next one runs,
 * its 8-k steps fold the previous q into t (6 x 32 doubles), a quarter per
 * step of 8 k, so the conversions and additions fill the pipes the FMAs
 * leave free instead of waiting on each other after the loop (a fold after
 * the asm cost a fifth of the kernel's time at 2048^3, its adds in chains).
 * The first sub-block folds q's zeros; the last one's q is folded after.
 */
AVX512 void mxe_kern_x64x2_avx512(const float *a, const float *b, size_t k,
				  const struct mxe_kx64 *u)
{
	float q[2 * MXE_MR * MXE_NR] __attribute__((aligned(64)));
	double t[2 * MXE_MR * MXE_NR] __attribute__((aligned(64)));
	size_t n = k / MXE_FAST_KSUB, cnt;
	const float *pf = a + MXE_MR * MXE_KA_STRIDE;
	float *qp = q;
	double *tp = t;

	memset(q, 0, sizeof(q));
	memset(t, 0, sizeof(t));
	__asm__ volatile(
		"2:\n\t"
		ZERO_Q
		"mov $4, %[cnt]\n\t"
		"4:\n\t"
		STEPQ(0) STEPQ(1) STEPQ(2) STEPQ(3)
		"prefetcht0 (%[pf])\n\t"
		"prefetcht0 64(%[pf])\n\t"
		"prefetcht0 128(%[pf])\n\t"
		FOLD6
		STEPQ(4) STEPQ(5) STEPQ(6) STEPQ(7)
		"add $192, %[pf]\n\t"
		"add $32, %[a]\n\t"
		"add $512, %[b]\n\t"
		"add $192, %[qp]\n\t"
		"add $384, %[tp]\n\t"
		"dec %[cnt]\n\t"
		"jnz 4b\n\t"
		"sub $768, %[qp]\n\t"
		"sub $1536, %[tp]\n\t"
		STORE_Q
		"dec %[n]\n\t"
		"jnz 2b\n\t"
		: [a] "+r"(a), [b] "+r"(b), [n] "+r"(n), [cnt] "=&r"(cnt), [pf] "+r"(pf),
		  [qp] "+r"(qp), [tp] "+r"(tp)
		:
		: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
		  "xmm9", "xmm10", "xmm11", "xmm28", "xmm29", "xmm30", "xmm31", "memory", "cc");
	for (unsigned g = 0; g < 2 * MXE_MR * MXE_NR; g += 8)
		_mm512_store_pd(t + g, _mm512_add_pd(_mm512_load_pd(t + g),
						     _mm512_cvtps_pd(_mm256_load_ps(q + g))));
	for (unsigned i = 0; i < u->mr; i++) {
		double *s = u->s + i * u->lds;

		for (unsigned c = 0; c < u->nr; c += 8) {
			__mmask8 m = u->nr - c >= 8 ? 0xFF : (__mmask8)((1u << (u->nr - c)) - 1);
			__m512d v = _mm512_load_pd(t + i * 2 * MXE_NR + c);

			if (!u->first)
				v = _mm512_add_pd(v, _mm512_maskz_loadu_pd(m, s + c));
			_mm512_mask_storeu_pd(s + c, m, v);
		}
	}
}

/*
 * EXACT's double kernel (struct mxe_kd64): a 6 x 16 or 6 x 32 block, the chains of
 * one sub-block in 12 or 24 registers, the running pairs (s, c) in a local tile. The
 * chains and the TwoSum are exact, so any order gives the portable kernel's bits.
 */
AVX512 static inline __attribute__((always_inline)) void
d64_sub(const double *a, const double *b0, const double *b1, double *s, double *c, int wide)
{
	__m512d q[24];
	const int nv = wide ? 4 : 2;

#pragma GCC unroll 24
	for (int g = 0; g < 24; g++)
		q[g] = _mm512_setzero_pd();
	for (int kk = 0; kk < MXE_FAST_KSUB; kk++) {
		__m512d x[4];

		x[0] = _mm512_load_pd(b0 + kk * MXE_NR);
		x[1] = _mm512_load_pd(b0 + kk * MXE_NR + 8);
		if (wide) {
			x[2] = _mm512_load_pd(b1 + kk * MXE_NR);
			x[3] = _mm512_load_pd(b1 + kk * MXE_NR + 8);
		}
#pragma GCC unroll 6
		for (int i = 0; i < MXE_MR; i++) {
			__m512d ai = _mm512_set1_pd(a[i * MXE_KA_STRIDE + kk]);

#pragma GCC unroll 4
			for (int h = 0; h < nv; h++)
				q[i * 4 + h] = _mm512_fmadd_pd(ai, x[h], q[i * 4 + h]);
		}
	}
#pragma GCC unroll 6
	for (int i = 0; i < MXE_MR; i++) {
#pragma GCC unroll 4
		for (int h = 0; h < nv; h++) {
			double *sp = s + i * 32 + 8 * h, *cp = c + i * 32 + 8 * h;
			__m512d sv = _mm512_load_pd(sp), t = _mm512_add_pd(sv, q[i * 4 + h]);
			__m512d bp = _mm512_sub_pd(t, sv);
			__m512d e = _mm512_add_pd(_mm512_sub_pd(sv, _mm512_sub_pd(t, bp)),
						  _mm512_sub_pd(q[i * 4 + h], bp));

			_mm512_store_pd(sp, t);
			_mm512_store_pd(cp, _mm512_add_pd(_mm512_load_pd(cp), e));
		}
	}
}

AVX512 void mxe_kern_d64_avx512(const double *a, const double *b0, const double *b1, size_t k,
				const struct mxe_kd64 *u)
{
	double s[MXE_MR * 32] __attribute__((aligned(64)));
	double c[MXE_MR * 32] __attribute__((aligned(64)));
	int wide = u->nr > MXE_NR;

	for (unsigned i = 0; i < MXE_MR; i++) {
		for (unsigned j = 0; j < 32; j += 8) {
			__mmask8 m = i >= u->mr || u->first || j >= u->nr ? 0 :
				     u->nr - j >= 8 ? 0xFF : (__mmask8)((1u << (u->nr - j)) - 1);

			_mm512_store_pd(s + i * 32 + j, _mm512_maskz_loadu_pd(m, u->s + i * u->lds + j));
			_mm512_store_pd(c + i * 32 + j, _mm512_maskz_loadu_pd(m, u->c + i * u->lds + j));
		}
	}
	for (size_t k0 = 0; k0 < k; k0 += MXE_FAST_KSUB) {
		if (wide)
			d64_sub(a + k0, b0 + k0 * MXE_NR, b1 + k0 * MXE_NR, s, c, 1);
		else
			d64_sub(a + k0, b0 + k0 * MXE_NR, NULL, s, c, 0);
	}
	for (unsigned i = 0; i < u->mr; i++) {
		for (unsigned j = 0; j < u->nr; j += 8) {
			__mmask8 m = u->nr - j >= 8 ? 0xFF : (__mmask8)((1u << (u->nr - j)) - 1);

			_mm512_mask_storeu_pd(u->s + i * u->lds + j, m, _mm512_load_pd(s + i * 32 + j));
			_mm512_mask_storeu_pd(u->c + i * u->lds + j, m, _mm512_load_pd(c + i * 32 + j));
		}
	}
}

#define VNNI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma,f16c")))

/*
 * One 32-k block of a 6 x 32 int8 product: 12 int32 dot products (vpdpbusd: four
 * u8 x s8 products a lane; 32 of at most 255 x 128 stay far inside int32), less
 * the bias, converted and scaled into @q (exact: the integers fit 24 bits and the
 * factors are powers of two). Row i, panel h is q[2 i + h].
 */
VNNI static inline __attribute__((always_inline)) void s8_block(const struct mxe_ks8 *in, size_t blk, __m512 q[12])
{
	const uint8_t *a = in->a + blk * 8 * MXE_MR * 4;
	const int8_t *b0 = in->b0 + blk * 8 * MXE_NR * 4, *b1 = in->b1 + blk * 8 * MXE_NR * 4;
	__m512i acc[12];

	for (int x = 0; x < 12; x++)
		acc[x] = _mm512_setzero_si512();
	/* unrolled: a loop made GCC copy the twelve sums between registers every step */
#pragma GCC unroll 8
	for (unsigned kg = 0; kg < 8; kg++) {
		__m512i x0 = _mm512_load_si512(b0 + kg * 64), x1 = _mm512_load_si512(b1 + kg * 64);

#pragma GCC unroll 6
		for (unsigned i = 0; i < MXE_MR; i++) {
			int32_t w;
			__m512i ai;

			memcpy(&w, a + (kg * MXE_MR + i) * 4, 4);
			ai = _mm512_set1_epi32(w);
			acc[2 * i] = _mm512_dpbusd_epi32(acc[2 * i], ai, x0);
			acc[2 * i + 1] = _mm512_dpbusd_epi32(acc[2 * i + 1], ai, x1);
		}
	}
	__m512i c0 = _mm512_loadu_si512(in->cb0 + blk * in->sb_step);
	__m512i c1 = _mm512_loadu_si512(in->cb1 + blk * in->sb_step);
	__m512 s0 = _mm512_loadu_ps(in->sb0 + blk * in->sb_step);
	__m512 s1 = _mm512_loadu_ps(in->sb1 + blk * in->sb_step);

#pragma GCC unroll 6
	for (unsigned i = 0; i < MXE_MR; i++) {
		__m512 fa = _mm512_set1_ps(in->sa[blk * in->sa_step + i]);

		q[2 * i] = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(acc[2 * i], c0)),
					 _mm512_mul_ps(fa, s0));
		q[2 * i + 1] = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(acc[2 * i + 1], c1)),
					     _mm512_mul_ps(fa, s1));
	}
}

VNNI void mxe_kern_s8x2_vnni(const struct mxe_ks8 *in, size_t k, const struct mxe_kf32 *u0,
			     const struct mxe_kf32 *u1)
{
	float p[2 * MXE_MR * MXE_NR] __attribute__((aligned(64)));
	__m512 pv[12], q[12];

	s8_block(in, 0, pv);	/* p = q, then p = p + q */
	for (size_t blk = 1; blk < k / MXE_FAST_KSUB; blk++) {
		s8_block(in, blk, q);
		for (int x = 0; x < 12; x++)
			pv[x] = _mm512_add_ps(pv[x], q[x]);
	}
	for (unsigned i = 0; i < MXE_MR; i++) {	/* panel 0's rows, then panel 1's */
		_mm512_store_ps(p + i * MXE_NR, pv[2 * i]);
		_mm512_store_ps(p + (MXE_MR + i) * MXE_NR, pv[2 * i + 1]);
	}
	apply(p, u0);
	if (u1->nr)
		apply(p + MXE_MR * MXE_NR, u1);
}

VNNI void mxe_kern_s8x2_vnni_x64(const struct mxe_ks8 *in, size_t k, const struct mxe_kx64 *u)
{
	__m512d t[24];
	__m512 q[12];

	for (int x = 0; x < 24; x++)
		t[x] = _mm512_setzero_pd();
	for (size_t blk = 0; blk < k / MXE_FAST_KSUB; blk++) {
		s8_block(in, blk, q);
		for (int x = 0; x < 12; x++) {
			t[2 * x] = _mm512_add_pd(t[2 * x], _mm512_cvtps_pd(_mm512_castps512_ps256(q[x])));
			t[2 * x + 1] = _mm512_add_pd(t[2 * x + 1],
				_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(q[x]), 1))));
		}
	}
	for (unsigned i = 0; i < u->mr; i++) {
		double *s = u->s + i * u->lds;

		for (unsigned c = 0; c < u->nr; c += 8) {
			/* columns c.. of row i: panel c / 16, half c % 16 / 8 */
			__mmask8 m = u->nr - c >= 8 ? 0xFF : (__mmask8)((1u << (u->nr - c)) - 1);
			__m512d v = t[2 * (2 * i + c / 16) + c % 16 / 8];

			if (!u->first)
				v = _mm512_add_pd(v, _mm512_maskz_loadu_pd(m, s + c));
			_mm512_mask_storeu_pd(s + c, m, v);
		}
	}
}

/* 16 int32 results of a row: int64 sums as mxe_ks32_apply() forms them. */
AVX512 static inline __m256i ks_half(__m256i p, const int32_t *s, const int32_t *c,
				     unsigned flags)
{
	__m512i v = _mm512_cvtepi32_epi64(p);

	if (!(flags & MXE_KF_FIRST))
		v = _mm512_add_epi64(v, _mm512_cvtepi32_epi64(_mm256_loadu_si256((const void *)s)));
	if ((flags & MXE_KF_LAST) && (flags & MXE_KF_C))
		v = _mm512_add_epi64(v, _mm512_cvtepi32_epi64(_mm256_loadu_si256((const void *)c)));
	/* LAST with SAT clamps; otherwise the low 32 bits (wrap) */
	return (flags & MXE_KF_LAST) && (flags & MXE_KF_SAT) ? _mm512_cvtsepi64_epi32(v)
							       : _mm512_cvtepi64_epi32(v);
}

AVX512 static void ks_apply(const int32_t *p, const struct mxe_ks32 *u)
{
	if (u->mr != MXE_MR || u->nr != MXE_NR) {
		mxe_ks32_apply(p, u);
		return;
	}
	for (unsigned i = 0; i < MXE_MR; i++) {
		const int32_t *s = u->s ? u->s + i * u->lds : NULL;
		const int32_t *c = u->c ? u->c + i * u->ldc : NULL;
		int32_t *d = u->d + i * u->ldd;

		for (unsigned h = 0; h < 2; h++)
			_mm256_storeu_si256((void *)(d + 8 * h),
					    ks_half(_mm256_load_si256((const void *)(p + i * MXE_NR + 8 * h)),
						    s ? s + 8 * h : NULL, c ? c + 8 * h : NULL,
						    u->flags));
	}
}

/*
 * Integers: a 6 x 32 block of int32 sums of int16 pairs (vpmaddwd: two
 * products of at most 2^14 each, exact), the pairs of @b0's panel into
 * columns 0..15 and of @b1's into 16..31; 12 accumulators, no spills.
 */
AVX512 void mxe_kern_s16x2_avx512(const uint32_t *a, const uint32_t *b0, const uint32_t *b1,
				  size_t kpairs, const struct mxe_ks32 *u0,
				  const struct mxe_ks32 *u1)
{
	__m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00;
	__m512i c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
	int32_t p[2 * MXE_MR * MXE_NR] __attribute__((aligned(64)));

	if (!u1->nr)
		b1 = b0; /* no second panel: never read past the packed B */
#define ROW(i, r0, r1)								\
	do {									\
		__m512i ax = _mm512_set1_epi32((int)a[i]);			\
		r0 = _mm512_add_epi32(r0, _mm512_madd_epi16(ax, x0));		\
		r1 = _mm512_add_epi32(r1, _mm512_madd_epi16(ax, x1));		\
	} while (0)
	for (size_t kp = 0; kp < kpairs; kp++, a += MXE_MR, b0 += MXE_NR, b1 += MXE_NR) {
		__m512i x0 = _mm512_load_si512(b0), x1 = _mm512_load_si512(b1);

		ROW(0, c00, c01);
		ROW(1, c10, c11);
		ROW(2, c20, c21);
		ROW(3, c30, c31);
		ROW(4, c40, c41);
		ROW(5, c50, c51);
	}
#undef ROW
	_mm512_store_si512(p + 0 * MXE_NR, c00), _mm512_store_si512(p + 6 * MXE_NR, c01);
	_mm512_store_si512(p + 1 * MXE_NR, c10), _mm512_store_si512(p + 7 * MXE_NR, c11);
	_mm512_store_si512(p + 2 * MXE_NR, c20), _mm512_store_si512(p + 8 * MXE_NR, c21);
	_mm512_store_si512(p + 3 * MXE_NR, c30), _mm512_store_si512(p + 9 * MXE_NR, c31);
	_mm512_store_si512(p + 4 * MXE_NR, c40), _mm512_store_si512(p + 10 * MXE_NR, c41);
	_mm512_store_si512(p + 5 * MXE_NR, c50), _mm512_store_si512(p + 11 * MXE_NR, c51);
	ks_apply(p, u0);
	if (u1->nr)
		ks_apply(p + MXE_MR * MXE_NR, u1);
}

/* (h, l) = TwoSum(x, y), eight lanes: h = fl(x + y), h + l = x + y exactly. */
AVX512 static inline __m512d two_sum8(__m512d x, __m512d y, __m512d *l)
{
	__m512d t = _mm512_add_pd(x, y), bp = _mm512_sub_pd(t, x);

	*l = _mm512_add_pd(_mm512_sub_pd(x, _mm512_sub_pd(t, bp)), _mm512_sub_pd(y, bp));
	return t;
}

/*
 * Eight lanes of mxe_tiled.c's finish_exact(); every lane whose result is not one
 * conversion of h goes back to the caller:
 * - h outside f32's normal range: zero, tiny, too large, Inf or NaN (C not finite makes
 *   h so too);
 * - l deciding a midpoint of two f32 values (a midpoint with l = 0 is exact: rounding to
 *   even is right, and FP8 data, on coarse grids, land on them often);
 * - C with separate sums (@cs): |l| above half an ulp of h.
 * Without @cs, 32 outputs are tested at once with vector operations (mask registers are
 * slow on AMD); a group that fails goes lane by lane.
 */
AVX512 uint64_t mxe_finish_f32_avx512(const double *s, const double *cs, const float *c,
				      float *d, unsigned n)
{
	const __m512d sign = _mm512_set1_pd(-0.0), zero = _mm512_setzero_pd();
	const __m512i expo = _mm512_set1_epi64(0x7FF0000000000000ll);
	const __m512i ulp53 = _mm512_set1_epi64(53ll << 52), one = _mm512_set1_epi64(1);
	const __m512i low29 = _mm512_set1_epi64(0x1FFFFFFF), tie = _mm512_set1_epi64(0x10000000);
	/* |h| in [2^-126, 2^127): its exponent field, less 1023 - 126, below 253 */
	const __m512i e_lo = _mm512_set1_epi64(1023 - 126), e_span = _mm512_set1_epi64(252);
	uint64_t left = 0;

	for (unsigned j = 0; j < n; j += 8) {
		__mmask8 m = n - j >= 8 ? 0xFF : (__mmask8)((1u << (n - j)) - 1), bad = 0;
		__m512d h, l = zero;
		__m512i bits, e;

		if (!cs && j % 32 == 0 && n - j >= 32) {
			/* the largest exponent offset, and the low bits nearest to a tie with
			 * l != 0: zero only for a lane that fails */
			__m512d hq[4];
			__m512i top = _mm512_setzero_si512(), near = _mm512_set1_epi64(-1);

			for (unsigned q = 0; q < 4; q++) {
				hq[q] = _mm512_loadu_pd(s + j + 8 * q);
				l = zero;
				if (c)
					hq[q] = two_sum8(hq[q], _mm512_cvtps_pd(
						_mm256_loadu_ps(c + j + 8 * q)), &l);
				bits = _mm512_castpd_si512(hq[q]);
				e = _mm512_srli_epi64(_mm512_slli_epi64(bits, 1), 53);
				top = _mm512_max_epu64(top, _mm512_sub_epi64(e, e_lo));
				/* (low bits ^ tie) | (l == +-0): 0 when a tie that l decides */
				near = _mm512_min_epu64(near, _mm512_or_si512(
					_mm512_xor_si512(_mm512_and_si512(bits, low29), tie),
					_mm512_xor_si512(one, _mm512_min_epu64(one, _mm512_slli_epi64(
						_mm512_castpd_si512(l), 1)))));
			}
			if (!(_mm512_cmpgt_epu64_mask(top, e_span) |
			      _mm512_cmpeq_epi64_mask(near, _mm512_setzero_si512()))) {
				for (unsigned q = 0; q < 4; q++)
					_mm256_storeu_ps(d + j + 8 * q, _mm512_cvtpd_ps(hq[q]));
				j += 24;
				continue;
			}
			l = zero;
		}
		h = _mm512_maskz_loadu_pd(m, s + j);
		if (cs)
			h = two_sum8(h, _mm512_maskz_loadu_pd(m, cs + j), &l);
		if (c && !cs) {
			/* l = 0: the chain below is one TwoSum, and |l| <= ulp(h) / 2 */
			h = two_sum8(h, _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, c + j)), &l);
		} else if (c) {
			__m512d cv = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, c + j));
			__m512d t, u, v, hu;

			t = two_sum8(h, cv, &h);
			u = two_sum8(h, l, &v);
			h = two_sum8(t, u, &t);
			l = two_sum8(t, v, &v);
			hu = _mm512_castsi512_pd(_mm512_sub_epi64(
				_mm512_and_si512(_mm512_castpd_si512(h), expo), ulp53));
			bad = _mm512_cmp_pd_mask(_mm512_andnot_pd(sign, l), hu, _CMP_GT_OQ);
		}
		bits = _mm512_castpd_si512(h);
		e = _mm512_srli_epi64(_mm512_slli_epi64(bits, 1), 53);
		bad |= _mm512_cmpgt_epu64_mask(_mm512_sub_epi64(e, e_lo), e_span) |
		       _mm512_mask_cmp_pd_mask(_mm512_cmpeq_epi64_mask(_mm512_and_si512(bits, low29),
								       tie), l, zero, _CMP_NEQ_UQ);
		if (m == 0xFF && !bad) {	/* the common case: no mask operations */
			_mm256_storeu_ps(d + j, _mm512_cvtpd_ps(h));
			continue;
		}
		bad &= m;
		_mm256_mask_storeu_ps(d + j, m & ~bad, _mm512_cvtpd_ps(h));
		left |= (uint64_t)bad << j;
	}
	return left;
}

/*
 * mxe_finish_f32_add_avx512()'s 32 outputs from the sums @h (4 x 8): D = h + C in one
 * exact addition and one rounding, where C's exponents lie in the window; returns 0 then,
 * 1 (nothing stored) where they do not.
 */
AVX512 static inline __attribute__((always_inline)) int
finish_add32(const __m512d h0[4], const float *c, float *d, int c_lo, int c_span)
{
	/* C's bits shifted left once (the sign dropped, the exponent field on top): its
	 * offset from the window's start, unsigned, below the limit unless C = +-0; a C below
	 * the window (a subnormal too) wraps above */
	const __m512i lo = _mm512_set1_epi32((int)((unsigned)c_lo << 24));
	const __m512i lim = _mm512_set1_epi32((int)((unsigned)(c_span + 1) << 24));
	__mmask16 outside = 0;
	__mmask8 bad = 0;
	__m256 f[4];

#pragma GCC unroll 2
	for (unsigned q = 0; q < 2; q++) {
		__m512i x = _mm512_slli_epi32(_mm512_loadu_si512(c + 16 * q), 1);

		outside |= _mm512_mask_cmpge_epu32_mask(_mm512_test_epi32_mask(x, x),
							_mm512_sub_epi32(x, lo), lim);
	}
	/*
	 * The sum is exact in a double, so one conversion rounds it as the general path
	 * does; a zero (whose sign the exact sum's rules give), a subnormal or an Inf f32
	 * still goes there: fpclass 0xBF is NaN, +-0, +-Inf and denormal. One test of the
	 * f32 rather than four integer steps on each double: 14.1 -> 13.0 us a 64 x 256 x
	 * 32 E4M3 WGMMA on the development host.
	 */
#pragma GCC unroll 4
	for (unsigned q = 0; q < 4; q++) {
		f[q] = _mm512_cvtpd_ps(_mm512_add_pd(h0[q], _mm512_cvtps_pd(_mm256_loadu_ps(c + 8 * q))));
		bad |= _mm256_fpclass_ps_mask(f[q], 0xBF);
	}
	if (outside || bad)
		return 1;
#pragma GCC unroll 4
	for (unsigned q = 0; q < 4; q++)
		_mm256_storeu_ps(d + 8 * q, f[q]);
	return 0;
}

AVX512 uint64_t mxe_finish_f32_add_avx512(const double *s, const float *c, float *d, unsigned n,
					  int c_lo, int c_span)
{
	unsigned j = 0;
	uint64_t left = 0;

	for (; n - j >= 32; j += 32) {
		__m512d h[4];

		for (unsigned q = 0; q < 4; q++)
			h[q] = _mm512_loadu_pd(s + j + 8 * q);
		if (finish_add32(h, c + j, d + j, c_lo, c_span))
			left |= mxe_finish_f32_avx512(s + j, NULL, c + j, d + j, 32) << j;
	}
	if (j < n)
		left |= mxe_finish_f32_avx512(s + j, NULL, c + j, d + j, n - j) << j;
	return left;
}

/* Byte offsets of eight rows @ld apart, for the gathers of B's columns. */
AVX512 static inline __m256i row_offsets8(size_t ld)
{
	return _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
				  _mm256_set1_epi32((int)ld));
}

/* The sign bit to flip in eight doubles: a side negated (@neg) or not. */
AVX512 static inline __m512d sign8(int neg)
{
	return _mm512_set1_pd(neg ? -0.0 : 0.0);
}

/*
 * Sixteen 8-bit codes (one per 16-bit lane of @x) as F16 patterns: E5M2 is the top byte of
 * an F16; E4M3 (@e4m3) becomes the F16 2^8 below its value (exponent bias 7 against 15,
 * subnormals included), its NaN codes 0x7F and 0xFF an F16 NaN. @neg: sign bits to flip.
 */
AVX512 static inline __m256i f8_as_f16(__m256i x, int e4m3, __m256i neg)
{
	const __m256i sign = _mm256_set1_epi16((short)0x8000), low7 = _mm256_set1_epi16(0x7F);
	__m256i h;

	if (!e4m3)
		return _mm256_xor_si256(_mm256_slli_epi16(x, 8), neg);
	h = _mm256_or_si256(_mm256_and_si256(_mm256_slli_epi16(x, 8), sign),
			    _mm256_slli_epi16(_mm256_and_si256(x, low7), 7));
	h = _mm256_mask_mov_epi16(h, _mm256_cmpeq_epi16_mask(_mm256_and_si256(x, low7), low7),
				  _mm256_set1_epi16(0x7E00));
	return _mm256_xor_si256(h, neg);
}

/* The sixteen F16 patterns of @h as doubles times @scale, into @lo (first eight) and @hi. */
AVX512 static inline void f16_as_f64(__m256i h, __m512d scale, double *lo, double *hi)
{
	__m512 f = _mm512_cvtph_ps(h);

	_mm512_storeu_pd(lo, _mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(f)), scale));
	_mm512_storeu_pd(hi, _mm512_mul_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps(f, 1)), scale));
}

AVX512 void mxe_wgmma_decode8_avx512(const uint8_t *a, size_t lda, const uint8_t *b, size_t ldb,
				     unsigned n, int e4m3_a, int e4m3_b, int neg_a, int neg_b,
				     double *ad, double *bt)
{
	const __m256i rows = row_offsets8(ldb);
	const __m256i na = _mm256_set1_epi16(neg_a ? (short)0x8000 : 0);
	const __m256i nb = _mm256_set1_epi16(neg_b ? (short)0x8000 : 0);
	/* the bytes of four 32-bit lanes, byte 0 of each first, in each 128-bit half */
	const __m256i by_byte = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
						 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
	const __m256i halves = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
	/* E4M3 codes decode 2^8 low (f8_as_f16()); A carries both sides' factors */
	const __m512d scale = _mm512_set1_pd((e4m3_a ? 0x1p8 : 1.0) * (e4m3_b ? 0x1p8 : 1.0));
	const __m512d one = _mm512_set1_pd(1.0);

	for (unsigned i = 0; i < 64; i++)	/* A: 64 rows of 32, as they are */
		for (unsigned k = 0; k < 32; k += 16) {
			__m256i x = _mm256_cvtepu8_epi16(_mm_loadu_si128((const void *)(a + i * lda + k)));

			f16_as_f64(f8_as_f16(x, e4m3_a, na), scale, ad + i * 32 + k, ad + i * 32 + k + 8);
		}
	for (unsigned j = 0; j < n; j += 8)	/* B: k-major, eight rows of B at a time */
		for (unsigned k = 0; k < 32; k += 4) {
			/* the 4 bytes k .. k + 3 of eight rows (inside the rows), then as four
			 * 64-bit words: byte k + q of rows j .. j + 7 */
			__m256i w = _mm256_i32gather_epi32((const int *)(b + j * ldb + k), rows, 1);

			w = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(w, by_byte), halves);
			for (unsigned q = 0; q < 4; q += 2) {
				__m128i pair = q ? _mm256_extracti128_si256(w, 1) : _mm256_castsi256_si128(w);

				f16_as_f64(f8_as_f16(_mm256_cvtepu8_epi16(pair), e4m3_b, nb), one,
					   mxe_wgmma_bt_at(bt, n, 32, k + q, j),
					   mxe_wgmma_bt_at(bt, n, 32, k + q + 1, j));
			}
		}
}

/* Eight BF16 (@bf16) or F16 values, one in the low half of each 32-bit lane, as doubles. */
AVX512 static inline __m512d half8(__m256i w, int bf16, __m512d neg)
{
	__m256 f = bf16 ? _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)) :
			  _mm256_cvtph_ps(_mm256_cvtepi32_epi16(w));

	return _mm512_xor_pd(_mm512_cvtps_pd(f), neg);
}

AVX512 void mxe_wgmma_decode16_avx512(const uint8_t *a, size_t lda, const uint8_t *b,
				      size_t ldb, unsigned n, int bf16, int neg_a, int neg_b,
				      double *ad, double *bt)
{
	const __m256i rows = row_offsets8(ldb);
	const __m256i low = _mm256_set1_epi32(0xFFFF);
	const __m512d na = sign8(neg_a), nb = sign8(neg_b);

	for (unsigned i = 0; i < 64; i++)	/* A: 64 rows of 16, as they are */
		for (unsigned k = 0; k < 16; k += 8) {
			__m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const void *)(a + i * lda + 2 * k)));

			_mm512_storeu_pd(ad + i * 16 + k, half8(w, bf16, na));
		}
	for (unsigned j = 0; j < n; j += 8)	/* B: k-major, eight rows of B at a time */
		for (unsigned k = 0; k < 16; k += 2) {
			/* elements k and k + 1 of eight rows */
			__m256i w = _mm256_i32gather_epi32((const int *)(b + j * ldb + 2 * k), rows, 1);

			_mm512_storeu_pd(mxe_wgmma_bt_at(bt, n, 16, k, j),
					 half8(_mm256_and_si256(w, low), bf16, nb));
			_mm512_storeu_pd(mxe_wgmma_bt_at(bt, n, 16, k + 1, j),
					 half8(_mm256_srli_epi32(w, 16), bf16, nb));
		}
}

AVX512 void mxe_wgmma_exp_fields_avx512(const uint8_t *p, size_t ld, unsigned rows, int bits16,
					unsigned mbits, int e4m3, unsigned *lo, unsigned *hi)
{
	uint8_t vmax[32], vmin[32];
	unsigned l = ~0u, h = 0;

	if (bits16) {
		const __m256i magm = _mm256_set1_epi16(0x7FFF), one = _mm256_set1_epi16(1);
		const __m256i top = _mm256_set1_epi16((short)(0x7FFF >> mbits));
		__m256i mx = _mm256_setzero_si256(), mn = _mm256_set1_epi16(-1);

		for (unsigned r = 0; r < rows; r++) {
			__m256i mag = _mm256_and_si256(_mm256_loadu_si256((const void *)(p + r * ld)), magm);
			__m256i e = _mm256_srli_epi16(mag, (int)mbits);
			__mmask16 ok = _mm256_test_epi16_mask(mag, mag) & _mm256_cmpneq_epi16_mask(e, top);

			mx = _mm256_mask_max_epu16(mx, ok, mx, e);
			mn = _mm256_mask_min_epu16(mn, ok, mn, _mm256_max_epu16(e, one));
		}
		_mm256_storeu_si256((void *)vmax, mx);
		_mm256_storeu_si256((void *)vmin, mn);
		for (unsigned i = 0; i < 16; i++) {
			uint16_t x, y;

			memcpy(&x, vmax + 2 * i, 2);
			memcpy(&y, vmin + 2 * i, 2);
			h = x > h ? x : h;
			l = y < l ? y : l;
		}
	} else {
		const __m256i magm = _mm256_set1_epi8(0x7F), one = _mm256_set1_epi8(1);
		const __m256i field = _mm256_set1_epi8((char)(0x7F >> mbits));
		__m256i mx = _mm256_setzero_si256(), mn = _mm256_set1_epi8(-1);

		for (unsigned r = 0; r < rows; r++) {
			__m256i mag = _mm256_and_si256(_mm256_loadu_si256((const void *)(p + r * ld)), magm);
			__m256i e = _mm256_and_si256(_mm256_srli_epi16(mag, (int)mbits), field);
			/* not zero, not NaN (E4M3 0x7F), not Inf / NaN (E5M2's top exponent) */
			__mmask32 ok = _mm256_test_epi8_mask(mag, mag) &
				       (e4m3 ? _mm256_cmpneq_epi8_mask(mag, magm) :
					       _mm256_cmpneq_epi8_mask(e, field));

			mx = _mm256_mask_max_epu8(mx, ok, mx, e);
			mn = _mm256_mask_min_epu8(mn, ok, mn, _mm256_max_epu8(e, one));
		}
		_mm256_storeu_si256((void *)vmax, mx);
		_mm256_storeu_si256((void *)vmin, mn);
		for (unsigned i = 0; i < 32; i++) {
			h = vmax[i] > h ? vmax[i] : h;
			l = vmin[i] < l ? vmin[i] : l;
		}
		if (l == 0xFF)
			l = ~0u;
	}
	if (bits16 && l == 0xFFFF)
		l = ~0u;
	*lo = l;
	*hi = h;
}

/*
 * Rows i0 .. i0 + 3 against the 32 columns of a strip (@wide) or 8 from @jc: 16 (or 4)
 * accumulators in registers, per k four (or one) loads of B and four broadcasts of A
 * (rows of @kk).
 */
/*
 * The sums of rows @i0 .. @i0 + 3 of a WGMMA over a strip of 32 columns into @acc (4 x 4
 * vectors: 16 accumulators in registers, as the loops are unrolled): per k, 4 loads of
 * B and 16 FMAs.
 */
AVX512 static inline __attribute__((always_inline)) void
wgmma_sums32(const double *a, const double *bs, unsigned kk, unsigned i0, __m512d acc[4][4])
{
	const double *ar = a + i0 * kk;

#pragma GCC unroll 4
	for (unsigned r = 0; r < 4; r++)
#pragma GCC unroll 4
		for (unsigned v = 0; v < 4; v++)
			acc[r][v] = _mm512_setzero_pd();
	for (unsigned k = 0; k < kk; k++) {
		const double *bk = bs + k * 32;
		__m512d b[4];

#pragma GCC unroll 4
		for (unsigned v = 0; v < 4; v++)
			b[v] = _mm512_loadu_pd(bk + 8 * v);
#pragma GCC unroll 4
		for (unsigned r = 0; r < 4; r++) {
			__m512d x = _mm512_set1_pd(ar[r * kk + k]);

#pragma GCC unroll 4
			for (unsigned v = 0; v < 4; v++)
				acc[r][v] = _mm512_fmadd_pd(x, b[v], acc[r][v]);
		}
	}
}

/* The same for 8 columns @jc .. @jc + 7 of a narrower strip (@w columns), into @s. */
AVX512 static inline __attribute__((always_inline)) void
wgmma_sums8(const double *a, const double *bs, unsigned kk, unsigned w, double *s, unsigned i0,
	    unsigned jc)
{
	__m512d acc[4];
	const double *ar = a + i0 * kk;

#pragma GCC unroll 4
	for (unsigned r = 0; r < 4; r++)
		acc[r] = _mm512_setzero_pd();
	for (unsigned k = 0; k < kk; k++) {
		__m512d b = _mm512_loadu_pd(bs + k * w + jc);

#pragma GCC unroll 4
		for (unsigned r = 0; r < 4; r++)
			acc[r] = _mm512_fmadd_pd(_mm512_set1_pd(ar[r * kk + k]), b, acc[r]);
	}
#pragma GCC unroll 4
	for (unsigned r = 0; r < 4; r++)
		_mm512_storeu_pd(s + (i0 + r) * w + jc, acc[r]);
}

AVX512 void mxe_kern_wgmma_d64_avx512(const double *a, const double *bs, unsigned k, unsigned w,
				      double *s)
{
	for (unsigned i0 = 0; i0 < 64; i0 += 4) {
		if (w == 32) {
			__m512d acc[4][4];

			wgmma_sums32(a, bs, k, i0, acc);
#pragma GCC unroll 4
			for (unsigned r = 0; r < 4; r++)
#pragma GCC unroll 4
				for (unsigned v = 0; v < 4; v++)
					_mm512_storeu_pd(s + (i0 + r) * 32 + 8 * v, acc[r][v]);
		} else {
			for (unsigned jc = 0; jc < w; jc += 8)
				wgmma_sums8(a, bs, k, w, s, i0, jc);
		}
	}
}

/*
 * Rows @i0 .. @i0 + 3 of a WGMMA's strip of 32 columns, their sums @h in registers,
 * rounded with C into D (finish_add32()); a row whose C lies outside the window goes
 * through @s and mxe_finish_f32_avx512(). @left[i]: what row i left to the caller.
 */
AVX512 static inline __attribute__((always_inline)) void
wgmma_finish4(const __m512d h[4][4], unsigned i0, const float *c, size_t ldc, float *d,
	      size_t ldd, int c_lo, int c_span, double *s, uint64_t left[64])
{
#pragma GCC unroll 4
	for (unsigned r = 0; r < 4; r++) {
		unsigned i = i0 + r;
		const float *ci = (const float *)((const uint8_t *)c + i * ldc);
		float *di = (float *)((uint8_t *)d + i * ldd);

		left[i] = 0;
		if (!finish_add32(h[r], ci, di, c_lo, c_span))
			continue;
		for (unsigned v = 0; v < 4; v++)	/* C outside the window */
			_mm512_storeu_pd(s + 8 * v, h[r][v]);
		left[i] = mxe_finish_f32_avx512(s, NULL, ci, di, 32);
	}
}

AVX512 void mxe_kern_wgmma_d64_add_avx512(const double *a, const double *bs, unsigned kk,
					  const float *c, size_t ldc, float *d, size_t ldd,
					  int c_lo, int c_span, double *s, uint64_t left[64])
{
	for (unsigned i0 = 0; i0 < 64; i0 += 4) {
		__m512d acc[4][4];

		wgmma_sums32(a, bs, kk, i0, acc);
		wgmma_finish4(acc, i0, c, ldc, d, ldd, c_lo, c_span, s, left);
	}
}

/* ---- int16 windows (struct mxe_kw16) --------------------------------------------- */

/*
 * One 32-k block of a 6 x 32 product of int16 windows: 12 int32 sums (vpdpwssd: two
 * products a lane), row i and panel h in acc[2 i + h].
 */
VNNI static inline __attribute__((always_inline)) void w16_block(const struct mxe_kw16 *in,
								 size_t blk, __m512i acc[12])
{
	const uint32_t *a = in->a + blk * 16 * MXE_MR;
	const uint32_t *b0 = in->b0 + blk * 16 * MXE_NR, *b1 = in->b1 + blk * 16 * MXE_NR;

	for (int x = 0; x < 12; x++)
		acc[x] = _mm512_setzero_si512();
#pragma GCC unroll 16
	for (unsigned kp = 0; kp < 16; kp++) {
		__m512i x0 = _mm512_loadu_si512(b0 + kp * MXE_NR);
		__m512i x1 = _mm512_loadu_si512(b1 + kp * MXE_NR);

#pragma GCC unroll 6
		for (unsigned i = 0; i < MXE_MR; i++) {
			__m512i ai = _mm512_set1_epi32((int)a[kp * MXE_MR + i]);

			acc[2 * i] = _mm512_dpwssd_epi32(acc[2 * i], ai, x0);
			acc[2 * i + 1] = _mm512_dpwssd_epi32(acc[2 * i + 1], ai, x1);
		}
	}
}

VNNI void mxe_kern_w16x2_vnni(const struct mxe_kw16 *in, size_t nblk, int64_t *t, ptrdiff_t ldt,
			      unsigned mr, unsigned nr, int first)
{
	int64_t s[MXE_MR * 32] __attribute__((aligned(64)));

	for (unsigned i = 0; i < MXE_MR; i++) {
		for (unsigned j = 0; j < 32; j += 8) {
			__mmask8 m = i >= mr || first || j >= nr ? 0 :
				     nr - j >= 8 ? 0xFF : (__mmask8)((1u << (nr - j)) - 1);

			_mm512_store_si512(s + i * 32 + j, _mm512_maskz_loadu_epi64(m, t + i * ldt + j));
		}
	}
	for (size_t blk = 0; blk < nblk; blk++) {
		const int32_t *sb0 = in->shb0 + blk * in->shb_step, *sb1 = in->shb1 + blk * in->shb_step;
		__m512i acc[12], cs[4];

		w16_block(in, blk, acc);
		cs[0] = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)sb0));
		cs[1] = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(sb0 + 8)));
		cs[2] = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)sb1));
		cs[3] = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(sb1 + 8)));
#pragma GCC unroll 6
		for (unsigned i = 0; i < MXE_MR; i++) {
			__m512i ra = _mm512_set1_epi64(in->sha[blk * in->sha_step + i]);

#pragma GCC unroll 2
			for (unsigned h = 0; h < 2; h++) {
				__m512i v = acc[2 * i + h];
				__m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
				__m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1));
				int64_t *p = s + i * 32 + 16 * h;

				lo = _mm512_sllv_epi64(lo, _mm512_add_epi64(ra, cs[2 * h]));
				hi = _mm512_sllv_epi64(hi, _mm512_add_epi64(ra, cs[2 * h + 1]));
				_mm512_store_si512(p, _mm512_add_epi64(_mm512_load_si512(p), lo));
				_mm512_store_si512(p + 8, _mm512_add_epi64(_mm512_load_si512(p + 8), hi));
			}
		}
	}
	for (unsigned i = 0; i < mr; i++) {
		for (unsigned j = 0; j < nr; j += 8) {
			__mmask8 m = nr - j >= 8 ? 0xFF : (__mmask8)((1u << (nr - j)) - 1);

			_mm512_mask_storeu_epi64(t + i * ldt + j, m, _mm512_load_si512(s + i * 32 + j));
		}
	}
}

/* 16 codes of a row from element @k (a multiple of 16), one a lane. */
AVX512 static inline __m512i w16_codes(const uint8_t *row, unsigned t, size_t k)
{
	__m512i c;

	if (t == MXA_DTYPE_E2M1) {	/* two a byte, the low nibble first */
		return _mm512_cvtepu8_epi32(mxe_w16_e2m1_bytes(
				_mm_loadl_epi64((const __m128i *)(row + k / 2))));
	}
	c = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(row + k)));
	if (t == MXA_DTYPE_E3M2 || t == MXA_DTYPE_E2M3)	/* six bits a byte */
		c = _mm512_and_si512(c, _mm512_set1_epi32(0x3F));
	return c;
}

/* The 32 integers of the block from element @k. */
AVX512 static inline void w16_ints(const uint8_t *row, unsigned t, const int32_t *lut, size_t k,
				   __m512i v[2])
{
	v[0] = _mm512_i32gather_epi32(w16_codes(row, t, k), lut, 4);
	v[1] = _mm512_i32gather_epi32(w16_codes(row, t, k + 16), lut, 4);
}

AVX512 int mxe_w16_tops_avx512(const uint8_t *row, unsigned t, const int32_t *lut, size_t nb,
			       int8_t *top, size_t *under)
{
	const __m512i bad = _mm512_set1_epi32(INT32_MIN);

	for (size_t b = 0; b < nb; b++) {
		__m512i v[2];
		uint32_t m;
		int hi;

		w16_ints(row, t, lut, b * 32, v);
		if (_mm512_cmpeq_epi32_mask(v[0], bad) | _mm512_cmpeq_epi32_mask(v[1], bad))
			return 0;
		/* the OR of the magnitudes: the largest one's leading bit, the lowest set bit */
		m = (uint32_t)_mm512_reduce_or_epi32(_mm512_or_si512(_mm512_abs_epi32(v[0]),
								     _mm512_abs_epi32(v[1])));
		if (!m) {
			top[b] = MXE_W16_ZERO;
			continue;
		}
		hi = 31 - __builtin_clz(m);
		if (hi - __builtin_ctz(m) > 25)
			return 0;
		top[b] = (int8_t)hi;
		if (hi - __builtin_ctz(m) > 12) {	/* count the elements with bits under 2^(hi - 12) */
			__m512i low = _mm512_set1_epi32((1 << (hi - 12)) - 1);

			*under += (size_t)__builtin_popcount(
				_mm512_test_epi32_mask(_mm512_abs_epi32(v[0]), low) |
				(unsigned)_mm512_test_epi32_mask(_mm512_abs_epi32(v[1]), low) << 16);
		}
	}
	return 1;
}

/*
 * Per lane as compute_exact_w16()'s scalar steps: h = fl(T0), e = T0 - h (|e| <= 2^8);
 * the rest z = e 2^26 + T1 2^13 + T2 (below 2^63 while |T1| < 2^48); h 2^26 + fl(z) by
 * TwoSum, plus z - fl(z). With T1 = T2 = 0 this gives h = fl(T0), l = e, as it must.
 */
AVX512 uint64_t mxe_w16_pairs_avx512(const int64_t *t0, const int64_t *t1, const int64_t *t2,
				     unsigned n, double unit, double *h, double *l)
{
	const __m512i big = _mm512_set1_epi64((int64_t)1 << 48);
	const __m512d up = _mm512_set1_pd(0x1p26), down = _mm512_set1_pd(0x1p-26);
	const __m512d u = _mm512_set1_pd(unit);	/* times 2^-26, then @unit: as the scalar */
	uint64_t left = 0;

	for (unsigned c = 0; c < n; c += 8) {
		__mmask8 m = n - c >= 8 ? 0xFF : (__mmask8)((1u << (n - c)) - 1), wide;
		__m512i x0 = _mm512_maskz_loadu_epi64(m, t0 + c);
		__m512i x1 = _mm512_maskz_loadu_epi64(m, t1 + c);
		__m512i x2 = _mm512_maskz_loadu_epi64(m, t2 + c);
		__m512d hv = _mm512_cvtepi64_pd(x0), zh, t, bp, lv;
		__m512i e = _mm512_sub_epi64(x0, _mm512_cvttpd_epi64(hv)), z;

		wide = _mm512_mask_cmpge_epu64_mask(m, _mm512_abs_epi64(x1), big);
		left |= (uint64_t)wide << c;
		z = _mm512_add_epi64(_mm512_add_epi64(_mm512_slli_epi64(e, 26),
						      _mm512_slli_epi64(x1, 13)), x2);
		zh = _mm512_cvtepi64_pd(z);
		hv = _mm512_mul_pd(hv, up);
		t = _mm512_add_pd(hv, zh);	/* TwoSum(hv, zh) */
		bp = _mm512_sub_pd(t, hv);
		lv = _mm512_add_pd(_mm512_sub_pd(hv, _mm512_sub_pd(t, bp)), _mm512_sub_pd(zh, bp));
		lv = _mm512_add_pd(lv, _mm512_cvtepi64_pd(_mm512_sub_epi64(z,
								_mm512_cvttpd_epi64(zh))));
		_mm512_mask_storeu_pd(h + c, m, _mm512_mul_pd(_mm512_mul_pd(t, down), u));
		_mm512_mask_storeu_pd(l + c, m, _mm512_mul_pd(_mm512_mul_pd(lv, down), u));
	}
	return left;
}

/* The int16 halves (k even: low, odd: high) of int16-pair words, sign-extended. */
AVX512 static inline __m512i w16_half(__m512i w, unsigned odd)
{
	return odd ? _mm512_srai_epi32(w, 16) : _mm512_srai_epi32(_mm512_slli_epi32(w, 16), 16);
}

AVX512 void mxe_w16_under_avx512(const struct mxe_kw16u *u, int64_t *t1, int64_t *t2, ptrdiff_t ldt,
				 unsigned mr, unsigned nr)
{
	__m512i sb[4], tb[32];
	__mmask8 cm[4];
	uint32_t used = 0;

	for (unsigned q = 0; q < 4; q++) {
		unsigned c = 8 * q;

		sb[q] = nr <= c ? _mm512_setzero_si512() :
			_mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(u->sb + c)));
		cm[q] = nr <= c ? 0 : nr - c >= 8 ? 0xFF : (__mmask8)((1u << (nr - c)) - 1);
	}
	/* A's parts: each against the 32 columns' windows, a vector of 8 a time; against
	 * B's parts at the same k one by one */
	for (unsigned x = 0; x < u->na; x++) {
		uint32_t e = u->al[x];
		unsigned k = e >> 16 & 31, r = e >> 21;
		__m512i av = _mm512_set1_epi32((int16_t)e), ra = _mm512_set1_epi64(u->sa[r]);

		if (r >= mr)
			continue;
		for (unsigned h = 0; h < 2 && 16 * h < nr; h++) {
			__m512i p = _mm512_mullo_epi32(av, w16_half(_mm512_loadu_si512(
					u->bh[h] + k / 2 * MXE_NR), k % 2));

			for (unsigned y = 0; y < 2; y++) {
				unsigned q = 2 * h + y;
				int64_t *d1 = t1 + r * ldt + 8 * q;
				__m512i v = _mm512_sllv_epi64(_mm512_cvtepi32_epi64(y ?
					_mm512_extracti64x4_epi64(p, 1) : _mm512_castsi512_si256(p)),
					_mm512_add_epi64(ra, sb[q]));

				_mm512_mask_storeu_epi64(d1, cm[q], _mm512_add_epi64(
					_mm512_maskz_loadu_epi64(cm[q], d1), v));
			}
		}
		mxe_w16_under_both(u, e, t2 + r * ldt, nr);
	}
	/* B's parts: each against the rows' windows (six lanes), into a column-major buffer */
	__m512i sa = _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(0x3F, u->sa));

	for (unsigned h = 0; h < 2; h++) {
		for (unsigned z = 0; z < u->nb[h]; z++) {
			uint32_t f = u->bl[h][z];
			unsigned k = f >> 16 & 31, j = 16 * h + (f >> 21);
			__m512i w;

			if (j >= nr)
				continue;
			if (!(used >> j & 1))
				tb[j] = _mm512_setzero_si512();
			used |= 1u << j;
			w = _mm512_castsi256_si512(_mm256_maskz_loadu_epi32(0x3F, u->ah + k / 2 * MXE_MR));
			w = _mm512_mullo_epi32(_mm512_set1_epi32((int16_t)f), w16_half(w, k % 2));
			tb[j] = _mm512_add_epi64(tb[j], _mm512_sllv_epi64(
				_mm512_cvtepi32_epi64(_mm512_castsi512_si256(w)),
				_mm512_add_epi64(sa, _mm512_set1_epi64(u->sb[j]))));
		}
	}
	for (; used; used &= used - 1) {
		unsigned j = (unsigned)__builtin_ctz(used);
		int64_t v[8];

		_mm512_storeu_si512(v, tb[j]);
		for (unsigned r = 0; r < mr; r++)
			t1[r * ldt + j] += v[r];
	}
}

/* v over 2^sh (sh < 0: times 2^-sh), exact where the caller says so. */
AVX512 static inline __m512i w16_shift(__m512i v, int sh)
{
	return sh >= 0 ? _mm512_srl_epi32(v, _mm_cvtsi32_si128(sh))
		       : _mm512_sll_epi32(v, _mm_cvtsi32_si128(-sh));
}

AVX512 uint32_t mxe_w16_block_avx512(const uint8_t *row, unsigned t, const int32_t *lut,
				     size_t k0, int top, int16_t *hi, int16_t *lo)
{
	int sh = top == MXE_W16_ZERO ? 0 : top - 12;
	uint32_t any = 0;
	__m512i v[2];

	w16_ints(row, t, lut, k0, v);
	for (int h = 0; h < 2; h++) {	/* on magnitudes: each part keeps the sign */
		__mmask16 neg = _mm512_movepi32_mask(v[h]);
		__m512i m = _mm512_abs_epi32(v[h]), x = w16_shift(m, sh), r = _mm512_setzero_si512();

		if (sh > 0)	/* the bits below 2^sh, over 2^(sh - 13) (a block within 26 bits) */
			r = w16_shift(_mm512_and_si512(m, _mm512_set1_epi32((1 << sh) - 1)), sh - 13);
		x = _mm512_mask_sub_epi32(x, neg, _mm512_setzero_si512(), x);
		r = _mm512_mask_sub_epi32(r, neg, _mm512_setzero_si512(), r);
		any |= (uint32_t)_mm512_test_epi32_mask(r, r) << (16 * h);
		_mm256_storeu_si256((__m256i *)(hi + 16 * h), _mm512_cvtepi32_epi16(x));
		_mm256_storeu_si256((__m256i *)(lo + 16 * h), _mm512_cvtepi32_epi16(r));
	}
	return any;
}

/* E4M3 codes (16 lanes) as signed integers over 2^-9 (0x7F / 0xFF, NaN, left to the caller). */
AVX512 static inline __m512i w16_e4m3(__m512i c)
{
	__m512i e = _mm512_and_si512(_mm512_srli_epi32(c, 3), _mm512_set1_epi32(15));
	__m512i m = _mm512_and_si512(c, _mm512_set1_epi32(7));
	__mmask16 nrm = _mm512_test_epi32_mask(e, e);
	/* normal: (8 + m) << (e - 1); subnormal: m */
	__m512i v = _mm512_mask_sllv_epi32(m, nrm, _mm512_or_si512(m, _mm512_set1_epi32(8)),
					   _mm512_sub_epi32(e, _mm512_set1_epi32(1)));

	return _mm512_mask_sub_epi32(v, _mm512_test_epi32_mask(c, _mm512_set1_epi32(0x80)),
				     _mm512_setzero_si512(), v);
}

/* Row @row's 32 E4M3 codes as int16 windows (16 words) into *@out and its window into
 * *@w; 0: a NaN code or values more than 13 bits apart. */
AVX512 static inline int w16_e4m3_row(const uint8_t *row, int neg, __m512i *out, int *w)
{
	const __m512i low7 = _mm512_set1_epi32(0x7F);
	__m512i c0 = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)row));
	__m512i c1 = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(row + 16)));
	__m512i v0, v1;
	uint32_t m;
	int top, sh;

	if (_mm512_cmpeq_epi32_mask(_mm512_and_si512(c0, low7), low7) |
	    _mm512_cmpeq_epi32_mask(_mm512_and_si512(c1, low7), low7))
		return 0;
	v0 = w16_e4m3(c0), v1 = w16_e4m3(c1);
	if (neg) {
		v0 = _mm512_sub_epi32(_mm512_setzero_si512(), v0);
		v1 = _mm512_sub_epi32(_mm512_setzero_si512(), v1);
	}
	m = (uint32_t)_mm512_reduce_or_epi32(_mm512_or_si512(_mm512_abs_epi32(v0),
							     _mm512_abs_epi32(v1)));
	if (!m) {
		*out = _mm512_setzero_si512();
		*w = 0;
		return 1;
	}
	top = 31 - __builtin_clz(m);
	if (top - __builtin_ctz(m) > 12)
		return 0;
	sh = top - 12;
	*w = sh;
	/* exact: every magnitude a multiple of 2^sh, or shifted up (srai keeps signs) */
	v0 = sh >= 0 ? _mm512_sra_epi32(v0, _mm_cvtsi32_si128(sh))
		     : _mm512_sll_epi32(v0, _mm_cvtsi32_si128(-sh));
	v1 = sh >= 0 ? _mm512_sra_epi32(v1, _mm_cvtsi32_si128(sh))
		     : _mm512_sll_epi32(v1, _mm_cvtsi32_si128(-sh));
	*out = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi32_epi16(v0)),
				  _mm512_cvtepi32_epi16(v1), 1);
	return 1;
}

/* @x[j] (16 words each) into @dst[k * @ld + j] for k < 16: a 16 x 16 transpose. */
AVX512 static void w16_transpose16(const __m512i x[16], uint32_t *dst, size_t ld)
{
	__m512i t[16], u[16], v[16];

	for (unsigned i = 0; i < 8; i++) {
		t[2 * i] = _mm512_unpacklo_epi32(x[2 * i], x[2 * i + 1]);
		t[2 * i + 1] = _mm512_unpackhi_epi32(x[2 * i], x[2 * i + 1]);
	}
	for (unsigned i = 0; i < 4; i++) {	/* u[4i + c]: words c of each 4, rows 4i .. 4i + 3 */
		u[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
		u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
		u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
		u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
	}
	for (unsigned c = 0; c < 4; c++) {	/* v: lanes 0, 2 and 1, 3 of rows 0-7, 8-15 */
		v[2 * c] = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x88);
		v[2 * c + 1] = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xDD);
		v[8 + 2 * c] = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x88);
		v[8 + 2 * c + 1] = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xDD);
	}
	for (unsigned c = 0; c < 4; c++) {	/* word c of lane L: row 4 L + c of the output */
		_mm512_storeu_si512(dst + c * ld, _mm512_shuffle_i32x4(v[2 * c], v[8 + 2 * c], 0x88));
		_mm512_storeu_si512(dst + (8 + c) * ld,
				    _mm512_shuffle_i32x4(v[2 * c], v[8 + 2 * c], 0xDD));
		_mm512_storeu_si512(dst + (4 + c) * ld,
				    _mm512_shuffle_i32x4(v[2 * c + 1], v[8 + 2 * c + 1], 0x88));
		_mm512_storeu_si512(dst + (12 + c) * ld,
				    _mm512_shuffle_i32x4(v[2 * c + 1], v[8 + 2 * c + 1], 0xDD));
	}
}

AVX512 int mxe_wgmma_w16_rows_avx512(const uint8_t *p, size_t ld, unsigned rows, int neg,
				     uint32_t *hi, size_t ldt, int *w)
{
	for (unsigned r0 = 0; r0 < rows; r0 += 16) {
		__m512i x[16];

		for (unsigned r = 0; r < 16; r++) {
			x[r] = _mm512_setzero_si512();
			if (r0 + r < rows && !w16_e4m3_row(p + (r0 + r) * ld, neg, &x[r], &w[r0 + r]))
				return 0;
			if (!ldt && r0 + r < rows)
				_mm512_storeu_si512(hi + 16 * (r0 + r), x[r]);
		}
		if (ldt)
			w16_transpose16(x, hi + r0, ldt);
	}
	return 1;
}

/*
 * Rows @i0 .. @i0 + 3 of a strip of @w columns of a WGMMA on int16 windows: the int32 dot
 * products of A's rows (@a, 16 words a row) and @bt's columns ([16][@ldb] words), each
 * times 2^(wa[i] - 9) and the column's factor @fb (2^(wb[j] - 9)), into @h[r][q] (8
 * columns a vector).
 */
VNNI static inline __attribute__((always_inline)) void
wgmma_w16_rows4(const uint32_t *a, const uint32_t *bt, size_t ldb, unsigned w, unsigned i0,
		const int *wa, const __m512d fb[4], __m512d h[4][4])
{
	__m512i acc[4][2];

	for (unsigned r = 0; r < 4; r++)
		acc[r][0] = acc[r][1] = _mm512_setzero_si512();
#pragma GCC unroll 16
	for (unsigned kp = 0; kp < 16; kp++) {
		__m512i b0 = _mm512_loadu_si512(bt + kp * ldb);
		__m512i b1 = w > 16 ? _mm512_loadu_si512(bt + kp * ldb + 16) : b0;

#pragma GCC unroll 4
		for (unsigned r = 0; r < 4; r++) {
			__m512i x = _mm512_set1_epi32((int)a[(i0 + r) * 16 + kp]);

			acc[r][0] = _mm512_dpwssd_epi32(acc[r][0], x, b0);
			acc[r][1] = _mm512_dpwssd_epi32(acc[r][1], x, b1);
		}
	}
#pragma GCC unroll 4
	for (unsigned r = 0; r < 4; r++) {
		__m512d fa = _mm512_castsi512_pd(_mm512_set1_epi64(
			(long long)((uint64_t)(wa[i0 + r] + 1023 - 9) << 52)));

#pragma GCC unroll 4
		for (unsigned q = 0; q < 4; q++) {
			__m512i v = acc[r][q / 2];
			__m256i x = q % 2 ? _mm512_extracti64x4_epi64(v, 1) : _mm512_castsi512_si256(v);

			h[r][q] = _mm512_mul_pd(_mm512_mul_pd(_mm512_cvtepi32_pd(x), fa), fb[q]);
		}
	}
}

/* The columns' factors 2^(wb - 9) of a strip of @w columns (a multiple of 8). */
AVX512 static inline void wgmma_w16_fb(const int *wb, unsigned w, __m512d fb[4])
{
	for (unsigned q = 0; q < 4; q++) {
		__m256i e = q < w / 8 ? _mm256_loadu_si256((const __m256i *)(wb + 8 * q))
				      : _mm256_setzero_si256();

		fb[q] = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_cvtepi32_epi64(
			_mm256_add_epi32(e, _mm256_set1_epi32(1023 - 9))), 52));
	}
}

VNNI void mxe_kern_wgmma_w16_vnni(const uint32_t *a, const uint32_t *bt, size_t ldb, unsigned w,
				  const int *wa, const int *wb, double *s)
{
	__m512d fb[4];

	wgmma_w16_fb(wb, w, fb);
	for (unsigned i0 = 0; i0 < 64; i0 += 4) {
		__m512d h[4][4];

		wgmma_w16_rows4(a, bt, ldb, w, i0, wa, fb, h);
		for (unsigned r = 0; r < 4; r++)
			for (unsigned q = 0; q < w / 8; q++)
				_mm512_storeu_pd(s + (i0 + r) * w + 8 * q, h[r][q]);
	}
}

VNNI void mxe_kern_wgmma_w16_add_vnni(const uint32_t *a, const uint32_t *bt, size_t ldb,
				      const int *wa, const int *wb, const float *c, size_t ldc,
				      float *d, size_t ldd, int c_lo, int c_span, double *s,
				      uint64_t left[64])
{
	__m512d fb[4];

	wgmma_w16_fb(wb, 32, fb);
	for (unsigned i0 = 0; i0 < 64; i0 += 4) {
		__m512d h[4][4];

		wgmma_w16_rows4(a, bt, ldb, 32, i0, wa, fb, h);
		wgmma_finish4(h, i0, c, ldc, d, ldd, c_lo, c_span, s, left);
	}
}

#else /* no x86-64 AVX-512 support in this compiler: never selected */

void mxe_kern_f32x2_avx512(const float *a, const float *b, size_t k,
			   const struct mxe_kf32 *u0, const struct mxe_kf32 *u1)
{
	mxe_kern_f32_portable(a, b, k, u0);
	if (u1->nr)
		mxe_kern_f32_portable(a, b + MXE_NR * MXE_FAST_KBLOCK, k, u1);
}

int mxe_bf16_self_check(void)
{
	return 0;
}

void mxe_bf16_pack_avx512(const float *src, uint32_t *dst, size_t n)
{
	(void)src, (void)dst, (void)n;
}

void mxe_bf16_fold_avx512(const float *src, size_t nk, uint32_t *dst)
{
	(void)src, (void)nk, (void)dst;
}

unsigned mxe_bf16_min_exp_avx512(const uint16_t *p, size_t n)
{
	(void)p, (void)n;
	return 0;
}

unsigned mxe_bf16_exact_min_exp_avx512(const float *src, size_t n)
{
	(void)src, (void)n;
	return 0;
}

void mxe_fp8_pairs_avx512(const uint8_t *src, uint32_t *dst, size_t n, int e4m3,
			  const uint8_t *scales, size_t k0, int neg)
{
	(void)src, (void)dst, (void)n, (void)e4m3, (void)scales, (void)k0, (void)neg;
}

void mxe_bf16_pairs_avx512(const uint16_t *src, uint32_t *dst, size_t n, int neg)
{
	(void)src, (void)dst, (void)n, (void)neg;
}

void mxe_kern_bf16x2_avx512(const uint32_t *a, const uint32_t *b, size_t k,
			    const struct mxe_kf32 *u0, const struct mxe_kf32 *u1)
{
	(void)a, (void)b, (void)k, (void)u0, (void)u1;
}

void mxe_kern_s16x2_avx512(const uint32_t *a, const uint32_t *b0, const uint32_t *b1,
			   size_t kpairs, const struct mxe_ks32 *u0, const struct mxe_ks32 *u1)
{
	mxe_kern_s16_portable(a, b0, kpairs, u0);
	if (u1->nr)
		mxe_kern_s16_portable(a, b1, kpairs, u1);
}

void mxe_kern_s8x2_vnni(const struct mxe_ks8 *in, size_t k, const struct mxe_kf32 *u0,
			const struct mxe_kf32 *u1)
{
	(void)in, (void)k, (void)u0, (void)u1;
}

void mxe_kern_s8x2_vnni_x64(const struct mxe_ks8 *in, size_t k, const struct mxe_kx64 *u)
{
	(void)in, (void)k, (void)u;
}

void mxe_kern_d64_avx512(const double *a, const double *b0, const double *b1, size_t k,
			 const struct mxe_kd64 *u)
{
	mxe_kern_d64_portable(a, b0, b1, k, u);
}

void mxe_kern_w16x2_vnni(const struct mxe_kw16 *in, size_t nblk, int64_t *t, ptrdiff_t ldt,
			 unsigned mr, unsigned nr, int first)
{
	(void)in, (void)nblk, (void)t, (void)ldt, (void)mr, (void)nr, (void)first;
}

int mxe_w16_tops_avx512(const uint8_t *row, unsigned t, const int32_t *lut, size_t nb,
			int8_t *top, size_t *under)
{
	(void)row, (void)t, (void)lut, (void)nb, (void)top, (void)under;
	return 0;	/* never taken */
}

void mxe_w16_under_avx512(const struct mxe_kw16u *u, int64_t *t1, int64_t *t2, ptrdiff_t ldt,
			  unsigned mr, unsigned nr)
{
	(void)u, (void)t1, (void)t2, (void)ldt, (void)mr, (void)nr;
}

uint32_t mxe_w16_block_avx512(const uint8_t *row, unsigned t, const int32_t *lut, size_t k0,
			      int top, int16_t *hi, int16_t *lo)
{
	(void)row, (void)t, (void)lut, (void)k0, (void)top, (void)hi, (void)lo;
	return 0;
}

uint64_t mxe_w16_pairs_avx512(const int64_t *t0, const int64_t *t1, const int64_t *t2,
			      unsigned n, double unit, double *h, double *l)
{
	(void)t0, (void)t1, (void)t2, (void)unit, (void)h, (void)l;
	return n < 64 ? (1ull << n) - 1 : ~0ull;	/* all left to the caller */
}

void mxe_kern_x64x2_avx512(const float *a, const float *b, size_t k, const struct mxe_kx64 *u)
{
	struct mxe_kx64 u0 = *u, u1 = *u;

	u0.nr = MXE_NR;
	u1.s += MXE_NR;
	u1.nr -= MXE_NR;
	mxe_kern_x64_portable(a, b, k, &u0);
	mxe_kern_x64_portable(a, b + MXE_NR * MXE_FAST_KBLOCK, k, &u1);
}

int mxe_wgmma_w16_rows_avx512(const uint8_t *p, size_t ld, unsigned rows, int neg,
			      uint32_t *hi, size_t ldt, int *w)
{
	(void)p, (void)ld, (void)rows, (void)neg, (void)hi, (void)ldt, (void)w;
	return 0;	/* never taken */
}

void mxe_kern_wgmma_w16_vnni(const uint32_t *a, const uint32_t *bt, size_t ldb, unsigned w,
			     const int *wa, const int *wb, double *s)
{
	(void)a, (void)bt, (void)ldb, (void)w, (void)wa, (void)wb, (void)s;
}

void mxe_kern_wgmma_w16_add_vnni(const uint32_t *a, const uint32_t *bt, size_t ldb,
				 const int *wa, const int *wb, const float *c, size_t ldc,
				 float *d, size_t ldd, int c_lo, int c_span, double *s,
				 uint64_t left[64])
{
	(void)a, (void)bt, (void)ldb, (void)wa, (void)wb, (void)c, (void)ldc, (void)d, (void)ldd;
	(void)c_lo, (void)c_span, (void)s, (void)left;
}

uint64_t mxe_finish_f32_avx512(const double *s, const double *cs, const float *c, float *d,
			       unsigned n)
{
	(void)s, (void)cs, (void)c, (void)d;
	return n < 64 ? (1ull << n) - 1 : ~0ull;	/* all left to the caller */
}

uint64_t mxe_finish_f32_add_avx512(const double *s, const float *c, float *d, unsigned n,
				   int c_lo, int c_span)
{
	(void)s, (void)c, (void)d, (void)c_lo, (void)c_span;
	return n < 64 ? (1ull << n) - 1 : ~0ull;	/* all left to the caller */
}

void mxe_kern_wgmma_d64_avx512(const double *a, const double *bs, unsigned k, unsigned w,
			       double *s)
{
	(void)a, (void)bs, (void)k, (void)w, (void)s;
}

void mxe_kern_wgmma_d64_add_avx512(const double *a, const double *bs, unsigned kk,
				   const float *c, size_t ldc, float *d, size_t ldd, int c_lo,
				   int c_span, double *s, uint64_t left[64])
{
	(void)a, (void)bs, (void)kk, (void)c, (void)ldc, (void)d, (void)ldd, (void)c_lo;
	(void)c_span, (void)s;
	for (unsigned i = 0; i < 64; i++)
		left[i] = (1ull << 32) - 1;	/* all left to the caller */
}

void mxe_wgmma_decode8_avx512(const uint8_t *a, size_t lda, const uint8_t *b, size_t ldb,
			      unsigned n, int e4m3_a, int e4m3_b, int neg_a, int neg_b,
			      double *ad, double *bt)
{
	(void)a, (void)lda, (void)b, (void)ldb, (void)n, (void)e4m3_a, (void)e4m3_b;
	(void)neg_a, (void)neg_b, (void)ad, (void)bt;
}

void mxe_wgmma_decode16_avx512(const uint8_t *a, size_t lda, const uint8_t *b, size_t ldb,
			       unsigned n, int bf16, int neg_a, int neg_b, double *ad, double *bt)
{
	(void)a, (void)lda, (void)b, (void)ldb, (void)n, (void)bf16, (void)neg_a, (void)neg_b;
	(void)ad, (void)bt;
}

void mxe_wgmma_exp_fields_avx512(const uint8_t *p, size_t ld, unsigned rows, int bits16,
				 unsigned mbits, int e4m3, unsigned *lo, unsigned *hi)
{
	(void)p, (void)ld, (void)rows, (void)bits16, (void)mbits, (void)e4m3;
	*lo = ~0u, *hi = 0;
}
#endif
