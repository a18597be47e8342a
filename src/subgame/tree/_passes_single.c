/* The depth-first passes of _passes.c again, their rows of reaches and values in float32 (poker_pass_single) */
#define PASSES_SINGLE 1
#include "_passes.c"
