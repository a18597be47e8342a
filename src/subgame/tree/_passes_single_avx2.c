/* The float32 passes of _passes_single.c again for AVX2 (poker_pass_single_avx2), where GCC builds for x86-64 Linux */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define PASSES_SINGLE 1
#define PASSES_AVX2 1
#include "_passes.c"
#endif
