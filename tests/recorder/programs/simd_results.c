// Results of SSE to SSE4.2, AES-NI, ADX, LZCNT and TZCNT instructions,
// printed, so that a recording is compared with the native run
// (tests/recorder/test_cpu_traps.cpp): a regression guard for answers the
// emulator, or the recorder's host evaluation of floating point
// (sse_host_eval.h), could get wrong without a word. `argc` feeds every
// input so that the compiler folds none of them. x86-64 only.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#pragma GCC target("sse4.2,aes,adx,lzcnt,bmi")
#include <immintrin.h>

static void p(const char* n, __m128i v) {
  uint32_t a[4];
  memcpy(a, &v, 16);
  printf("%-12s %08x %08x %08x %08x\n", n, a[0], a[1], a[2], a[3]);
}
static void pf(const char* n, __m128 v) { p(n, _mm_castps_si128(v)); }
static void pd(const char* n, __m128d v) { p(n, _mm_castpd_si128(v)); }

static void sse(int argc) {
  __m128i a = _mm_set_epi32(0x12345678 + argc, 0x9abcdef0, 0x0fedcba9, 0x87654321);
  __m128i b = _mm_set_epi32(0x11223344, 0x55667788 ^ argc, 0x99aabbcc, 0xddeeff00);
  __m128 f = _mm_set_ps(1.5f, -2.25f, 3.75f, 1e10f), g = _mm_set_ps(0.5f, 2.0f, -1.0f, 3.0f + argc);
  __m128d d = _mm_set_pd(1e300, -3.5), e = _mm_set_pd(1e-300, 7.0 + argc);
  p("paddsb", _mm_adds_epi8(a, b)); p("psubusw", _mm_subs_epu16(a, b)); p("pmulhw", _mm_mulhi_epi16(a, b)); p("pmulhuw", _mm_mulhi_epu16(a, b));
  p("pmaddwd", _mm_madd_epi16(a, b)); p("pmuludq", _mm_mul_epu32(a, b)); p("psadbw", _mm_sad_epu8(a, b)); p("pavgb", _mm_avg_epu8(a, b));
  p("psraw", _mm_sra_epi16(a, _mm_cvtsi32_si128(3))); p("psrlq", _mm_srli_epi64(a, 13)); p("pslldq", _mm_slli_si128(a, 5)); p("psrldq", _mm_srli_si128(b, 3));
  p("packsswb", _mm_packs_epi16(a, b)); p("packuswb", _mm_packus_epi16(a, b)); p("punpckhbw", _mm_unpackhi_epi8(a, b)); p("pshufd", _mm_shuffle_epi32(a, 0x1b));
  p("pshufhw", _mm_shufflehi_epi16(a, 0x4e)); p("pcmpgtb", _mm_cmpgt_epi8(a, b)); printf("pmovmskb %x movmskps %x movmskpd %x\n", _mm_movemask_epi8(a), _mm_movemask_ps(f), _mm_movemask_pd(d));
  pf("addps", _mm_add_ps(f, g)); pf("mulss", _mm_mul_ss(f, g)); pf("divps", _mm_div_ps(f, g)); pf("sqrtps", _mm_sqrt_ps(g)); pf("rcpps", _mm_rcp_ps(g)); pf("rsqrtps", _mm_rsqrt_ps(g));
  pf("minps", _mm_min_ps(f, g)); pf("maxps", _mm_max_ps(f, g)); pf("cmpltps", _mm_cmplt_ps(f, g)); pf("cmpunord", _mm_cmpunord_ps(f, g)); pf("shufps", _mm_shuffle_ps(f, g, 0x9c));
  pf("unpcklps", _mm_unpacklo_ps(f, g)); pf("andnps", _mm_andnot_ps(f, g)); pf("cvtdq2ps", _mm_cvtepi32_ps(a)); p("cvtps2dq", _mm_cvtps_epi32(f)); p("cvttps2dq", _mm_cvttps_epi32(f));
  pd("addpd", _mm_add_pd(d, e)); pd("mulpd", _mm_mul_pd(d, e)); pd("divsd", _mm_div_sd(d, e)); pd("sqrtpd", _mm_sqrt_pd(e)); pd("cvtps2pd", _mm_cvtps_pd(f)); pf("cvtpd2ps", _mm_cvtpd_ps(d));
  p("cvtpd2dq", _mm_cvtpd_epi32(e)); printf("cvtsd2si %d cvttsd2si %lld cvtss2si %d comisd %d ucomiss %d\n", _mm_cvtsd_si32(e), (long long)_mm_cvttsd_si64(d), _mm_cvtss_si32(f), _mm_comilt_sd(d, e), _mm_ucomigt_ss(f, g));
  pf("haddps", _mm_hadd_ps(f, g)); pd("hsubpd", _mm_hsub_pd(d, e)); pf("addsubps", _mm_addsub_ps(f, g)); pf("movshdup", _mm_movehdup_ps(f)); pd("movddup", _mm_movedup_pd(d));
  pf("roundss", _mm_round_ss(f, g, 3)); pd("roundpd", _mm_round_pd(e, 0)); pd("dppd", _mm_dp_pd(d, e, 0x31)); pf("blendvps", _mm_blendv_ps(f, g, f));
  volatile long double x = 1.0L / 3 + argc; long long ll; __asm__("fisttpll %0" : "=m"(ll) : "t"(x * 1e10L) : "st"); printf("fisttp %lld\n", ll);
  p("lddqu", _mm_lddqu_si128((const __m128i*)((const char*)&a + 0)));
  uint64_t q = 0x123456789abcdef0ull + argc; __m64 m = _mm_cvtsi64_m64(q);
  printf("pmulhuw mmx %llx psadbw mmx %llx\n", (unsigned long long)_mm_cvtm64_si64(_mm_mulhi_pu16(m, m)), (unsigned long long)_mm_cvtm64_si64(_mm_sad_pu8(m, _mm_setzero_si64()))); _mm_empty();
}

static void sse4(int argc) {
  __m128i a = _mm_set_epi32(0x12345678 + argc, 0x9abcdef0, 0x0fedcba9, 0x87654321);
  __m128i b = _mm_set_epi32(0x11223344, 0x55667788 ^ argc, 0x99aabbcc, 0xddeeff00);
  __m128i s = _mm_setr_epi8('h','e','l','l','o',' ','w','o','r','l','d',0,0,0,0,0);
  __m128i t = _mm_setr_epi8('w','o',0,0,0,0,0,0,0,0,0,0,0,0,0,0);
  p("pshufb", _mm_shuffle_epi8(a, b)); p("phaddd", _mm_hadd_epi32(a, b)); p("pmaddubsw", _mm_maddubs_epi16(a, b));
  p("pmulhrsw", _mm_mulhrs_epi16(a, b)); p("palignr", _mm_alignr_epi8(a, b, 5)); p("psignd", _mm_sign_epi32(a, b)); p("pabsd", _mm_abs_epi32(b));
  p("pmulld", _mm_mullo_epi32(a, b)); p("pmuldq", _mm_mul_epi32(a, b)); p("pminsd", _mm_min_epi32(a, b)); p("pmaxud", _mm_max_epu32(a, b));
  p("pblendw", _mm_blend_epi16(a, b, 0x5a)); p("pblendvb", _mm_blendv_epi8(a, b, b)); p("packusdw", _mm_packus_epi32(a, b));
  p("pmovzxbd", _mm_cvtepu8_epi32(a)); p("pmovsxwq", _mm_cvtepi16_epi64(b)); p("mpsadbw", _mm_mpsadbw_epu8(a, b, 5)); p("phminposuw", _mm_minpos_epu16(a));
  p("pinsrd", _mm_insert_epi32(a, 77, 2)); printf("pextrb %d ptest %d %d\n", _mm_extract_epi8(a, 5), _mm_testz_si128(a, b), _mm_testc_si128(a, b));
  __m128 f = _mm_set_ps(1.5f, -2.25f, 3.75f, 1e10f), g = _mm_set_ps(0.5f, 2.0f, -1.0f, 3.0f);
  p("dpps", _mm_castps_si128(_mm_dp_ps(f, g, 0xf1))); p("roundps", _mm_castps_si128(_mm_round_ps(f, 1))); p("blendps", _mm_castps_si128(_mm_blend_ps(f, g, 5)));
  p("insertps", _mm_castps_si128(_mm_insert_ps(f, g, 0x9c)));
  p("pcmpgtq", _mm_cmpgt_epi64(a, b)); p("pcmpeqq", _mm_cmpeq_epi64(a, a));
  printf("pcmpistri %d pcmpestri %d\n", _mm_cmpistri(t, s, _SIDD_CMP_EQUAL_ORDERED), _mm_cmpestri(t, 2, s, 11, _SIDD_CMP_EQUAL_ORDERED));
  p("pcmpistrm", _mm_cmpistrm(t, s, _SIDD_CMP_EQUAL_ANY | _SIDD_UNIT_MASK)); p("pcmpestrm", _mm_cmpestrm(t, 2, s, 11, _SIDD_CMP_RANGES | _SIDD_BIT_MASK));
  printf("crc32 %08x %08x\n", _mm_crc32_u64(0xffffffff, 0x123456789abcdef0ull + argc), _mm_crc32_u8(0, 'a'));
  p("aesenc", _mm_aesenc_si128(a, b)); p("aesenclast", _mm_aesenclast_si128(a, b)); p("aesdec", _mm_aesdec_si128(a, b));
  p("aesdeclast", _mm_aesdeclast_si128(a, b)); p("aesimc", _mm_aesimc_si128(a)); p("aeskeygen", _mm_aeskeygenassist_si128(a, 0x1b));
}

static void adx_lzcnt(int argc) {
  unsigned long long a[4] = {~0ull, ~0ull - argc, 5, 7}, b[4] = {1, 2, ~0ull, 9}, r[4];
  unsigned char c = 0, o = 0;
  for (int i = 0; i < 4; ++i) c = _addcarryx_u64(c, a[i], b[i], &r[i]);
  printf("adcx %llx %llx %llx %llx carry %d\n", r[0], r[1], r[2], r[3], c);
  unsigned long long x = 0, y = 0;
  __asm__("xor %%eax, %%eax\n\tmov $-1, %0\n\tmov $5, %1\n\tadox %1, %0\n\tadcx %1, %1\n\tseto %b2\n\tsetc %b3" : "+r"(x), "+r"(y), "=q"(o), "=q"(c) : : "rax", "cc");
  printf("adox %llx %llx of %d cf %d\n", x, y, o, c);
  unsigned int lz0 = _lzcnt_u32(0), tz0 = _tzcnt_u32(0);
  printf("lzcnt0 %u tzcnt0 %u\n", lz0, tz0);
}
#endif

int main(int argc, char** argv) {
  (void)argv;
#if defined(__x86_64__)
  sse(argc);
  sse4(argc);
  adx_lzcnt(argc);
#else
  (void)argc;
  printf("x86-64 only\n");
#endif
  return 0;
}
