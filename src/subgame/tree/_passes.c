/*
 * The depth-first passes of subgame.tree.poker_layout, linked into the _kernels extension beside the loops of
 * _kernels.c whose arithmetic they share (regret matching, the regret update, the terminal operators), called
 * through ctypes like them.
 *
 * _passes_avx2.c and _passes_single_avx2.c compile this file again for AVX2 (PASSES_AVX2, GCC on x86-64 Linux), and
 * poker_pass runs those where the processor has it: the same operations in the same order (-ffp-contract=off keeps
 * each multiply and add apart), so both give the same bits; the rows' loops of a node then run four or eight wide.
 */
#ifdef PASSES_AVX2
#pragma GCC target("avx2")
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_rows.h"

/* The passes' rows of reaches and values: float64, or float32 where _passes_single.c compiles this file again
   (PASSES_SINGLE: regrets, sums, reaches and values all float32, as postflop-solver computes; its terminal sums are
   float64, as postflop-solver's are) */
#ifdef PASSES_SINGLE
typedef float real;
#else
typedef double real;
#endif

/* from _kernels.c (the _rows and _compact forms write or read the passes' buffers action by action) */
void regret_matching_rows(const double *regrets, const uint8_t *legal, double *strategy, int64_t rows, int64_t a,
                          const row_t *at, int64_t n);
void regret_matching_f32_rows(const float *regrets, const uint8_t *legal, double *strategy, int64_t rows, int64_t a,
                              const row_t *at, int64_t n);
void regret_matching_average_rows(const double *sums, const uint8_t *legal, double *strategy, int64_t rows, int64_t a,
                                  const row_t *at, int64_t n);
void regret_matching_f32_average_rows(const float *sums, const uint8_t *legal, double *strategy, int64_t rows,
                                      int64_t a, const row_t *at, int64_t n);
void regret_matching_compact(const double *regrets, const uint8_t *legal, double *strategy, double *total, int64_t rows,
                             int64_t n);
void regret_matching_f32_compact(const float *regrets, const uint8_t *legal, double *strategy, double *total,
                                 int64_t rows, int64_t n);
void regret_matching_average_compact(const double *sums, const uint8_t *legal, double *strategy, double *total,
                                     int64_t rows, int64_t n);
void regret_matching_f32_average_compact(const float *sums, const uint8_t *legal, double *strategy, double *total,
                                         int64_t rows, int64_t n);
void regret_matching_i16_compact(const int16_t *regrets, const uint8_t *legal, double *strategy, double *total,
                                 int64_t rows, int64_t n);
void regret_matching_u16_average_compact(const uint16_t *sums, const uint8_t *legal, double *strategy, double *total,
                                         int64_t rows, int64_t n);
void update_regrets_rows(double *regrets, double *strategy_sum, double *predicted, const double *seqv, const double *v,
                         const double *reach, const double *strategy, const uint8_t *legal, const int64_t *infoset_priv,
                         int64_t rows, int64_t a, int flags, double positive, double negative, double scale,
                         double weight, double sum_discount, const row_t *at, int64_t n);
void update_regrets_f32_rows(float *regrets, float *strategy_sum, float *predicted, const double *seqv, const double *v,
                             const double *reach, const double *strategy, const uint8_t *legal,
                             const int64_t *infoset_priv, int64_t rows, int64_t a, int flags, double positive,
                             double negative, double scale, double weight, double sum_discount, const row_t *at,
                             int64_t n);
void update_regrets_compact(double *regrets, double *strategy_sum, double *predicted, const double *seqv, const double *v,
                            const double *reach, const double *strategy, const uint8_t *legal, int64_t rows, int flags,
                            double positive, double negative, double scale, double weight, double sum_discount,
                            int64_t n);
void update_regrets_f32_compact(float *regrets, float *strategy_sum, float *predicted, const double *seqv,
                                const double *v, const double *reach, const double *strategy, const uint8_t *legal,
                                int64_t rows, int flags, double positive, double negative, double scale, double weight,
                                double sum_discount, int64_t n);
void removal_values_rows(const double *opp, double *out, const row_t *mrow, const uint8_t *mc, const row_t *twin,
                         int64_t nm, const row_t *orow, const uint8_t *oc, int64_t no, int64_t k, double value,
                         double *mass, int64_t cards);
void ladder_values_rows(const double *opp, double *out, const row_t *mrow, const uint8_t *mc, const int64_t *mt,
                        const row_t *orow, const uint8_t *oc, const int64_t *ot, int64_t groups, int64_t k,
                        double w_below, double w_above, int negate, double *scratch, int64_t cards);
/* from _pool.c */
int pool_run(void (*work)(void *), void *arg, int extra);
/*
 * Depth-first passes over a poker tree (subgame.tree.poker_layout): one row over the hands of a board per public
 * node and player, kept only along the path being walked, instead of the sweeps' arrays over every private state.
 * Each node's arithmetic is the sweeps' (children summed in slot order from zero, weights multiplied as the forward
 * sweep does, the terminal loops above or a small board's payoff matrix, update_regrets), so a CFR pass gives bitwise what CFRSolver's compiled
 * sweeps give, in the memory of the regrets and strategy sums alone.
 */
enum { NK_KIND, NK_ACTOR, NK_CHILD_LO, NK_CHILD_HI, NK_SIZE, NK_INF, NK_MAP, NK_TERM, NK_BOARD, NK_SHOWDOWN, NK_PARENT, NK_ROWS,
       NK_MIRROR_LO, NK_MIRROR_HI, NK_COLS };
enum { K_DECISION = 0, K_CHANCE = 1, K_TERMINAL = 2 };
enum { SRC_REGRETS = 0, SRC_PROBS = 1, SRC_SUMS = 2 };
enum { PASS_CFR = 0, PASS_BEST = 1, PASS_VALUES = 2 };

/* Rows of a node and hands of a board are row_t (local, ladder_local, hand_of_row, rank, maps, live_row, live_hand_row,
   live_hand_twin, live_ladder_row: a quarter of int64's bytes on a flop's tens of millions); offsets into them int64. */
typedef struct {
    const int64_t *node;                   /* [N, NK_COLS] */
    const int64_t *board;                  /* [B, 5]: hands n, first row of its hands, first tie, tie groups, by matrix */
    const uint8_t *hand_cards;             /* [rows, k] each board's hands in canonical order */
    const uint8_t *ladder_cards;           /* [rows, k] in ascending strength */
    const row_t *local[2];                 /* [rows] each player's row of each canonical hand */
    const row_t *ladder_local[2];          /* [rows] the same in ascending strength */
    const row_t *hand_of_row[2];           /* [rows] each player's canonical hand of each of her rows */
    const row_t *rank;                     /* [rows] each canonical hand's strength rank on its board */
    const int64_t *ties;                   /* per board, where each group of tied hands starts, then n */
    const row_t *maps[2];                  /* chance children: the parent's row of each of the child's rows */
    const int64_t *mirror;                 /* [E, 2] a left-out deal's canonical child and offset of its rows' map */
    const double *term;                    /* [T, 2] fold: (player 0's value, 0); showdown: (win, lose) */
    int64_t k, cards;
    /* Rows of live hands only (NULL: every hand's row). A live layout's maps are of these rows and its mirror's
       offsets are mirror_map's; its terminals read the live_hand_* and live_ladder_* lists, never local or ladder_local. */
    const int64_t *live_node[2];           /* [N, 3] per player and node: rows, first of them in live_row, offset in maps */
    const row_t *live_row[2];              /* each live row's row among all of the node's hands */
    const int64_t *mirror_map[2];          /* [E] per player: the offset in maps of a left-out deal's rows */
    const int64_t *live_board[2];          /* [B, 2] per player and board: the first of its live hands below, their count */
    const row_t *live_hand_row[2];         /* each board's live hands in canonical order: their rows at its nodes */
    const uint8_t *live_hand_cards[2];     /* [., k] their cards */
    const row_t *live_hand_twin[2];        /* the other player's row of the same hand (-1: not live) */
    const row_t *live_ladder_row[2];       /* each board's live hands in ascending strength: their rows */
    const uint8_t *live_ladder_cards[2];   /* [., k] their cards */
    const int64_t *live_ties[2];           /* per board (as ties): the live hands in ascending strength before each group */
} Layout;

/* player q's rows at node n, where they start in live_row (NULL: all rows, in order) and its map's offset */
static inline int64_t rows_of(const Layout *L, int64_t n, int q) {
    return L->live_node[0] ? L->live_node[q][3 * n] : L->node[n * NK_COLS + NK_SIZE];
}
static inline const row_t *live_of(const Layout *L, int64_t n, int q) {
    return L->live_node[0] ? L->live_row[q] + L->live_node[q][3 * n + 1] : NULL;
}
static inline int64_t map_of(const Layout *L, int64_t n, int q) {
    return L->live_node[0] ? L->live_node[q][3 * n + 2] : L->node[n * NK_COLS + NK_MAP];
}

typedef struct {
    int kind, f32;                         /* SRC_*; float32 regrets or sums (2: and the pass computes in float32) */
    const void *data;                      /* [I, a] regrets, sums (T) or probabilities (float64); or compact (offset) */
    const uint8_t *legal;                  /* laid out as data */
    int64_t a;
    /* NULL: data is [I, a], a node's row j information set inf + j. Else compact: per node the first slot of its rows,
       action by action (slot k * rows + j: row j's action k), each of the node's own actions only, only its rows in
       the pass's layout (live rows where it has them) */
    const int64_t *offset;
    int bits16;                            /* compact 16-bit storage: int16 regrets or uint16 sums, a scale per node */
    int block_legal;                       /* compact, every slot legal: legal is one node's block of ones (no base) */
} Source;

/* Where a node's rows are stored in a Source: the first slot, the slots a row takes, the row of each of the pass's
   rows (NULL: the i-th is the i-th), and whether they are stored action by action (compact storage) */
typedef struct {
    int64_t base, stride;
    const row_t *at;
    int compact;
} Rows;

static inline Rows rows_in(const Source *s, int64_t n, int64_t inf, int64_t nc, const row_t *live) {
    if (s->offset) return (Rows){s->offset[n], nc, NULL, 1};
    return (Rows){inf * s->a, s->a, live, 0};
}

/* where row j's action k is stored (the pass's row j: R.at's row of it), of a node with `rows` rows */
static inline int64_t slot_of(Rows R, int64_t rows, int64_t j, int64_t k) {
    return R.compact ? R.base + k * rows + j : R.base + (R.at ? R.at[j] : j) * R.stride + k;
}

/* the legal masks of a node stored compact, slot by slot from its first (every one legal: a block of ones) */
static inline const uint8_t *block_legal(const Source *s, Rows R) {
    return s->block_legal ? s->legal : s->legal + R.base;
}

/* whether row j's action k is legal at a node with `rows` rows */
static inline int legal_at(const Source *s, Rows R, int64_t rows, int64_t j, int64_t k) {
    return R.compact ? block_legal(s, R)[k * rows + j] : s->legal[slot_of(R, rows, j, k)];
}

typedef struct {
    void *regrets, *sums, *predicted;      /* the traverser's (predicted: NULL, or what her Source matches from) */
    int flags;
    double positive, negative, scale, weight, sum_discount;
    float *regret_scale, *sum_scale;       /* 16-bit storage: per node what one unit of its regrets and sums is worth */
} Update;

typedef struct {
    const Layout *L;
    int p, mode;
    Source src[2];
    Update up;
    double *scratch;                       /* cards + 2 * max hands */
    int64_t scratch_size;
    int threads;                           /* threads a node's children may be shared among */
    int64_t min_fan;                       /* rows below a node from which its children are shared out */
    int failed;
    int64_t fans;                          /* nodes whose children went to threads */
    real *arena;                           /* the nodes' buffers along the path being walked, a stack (need) */
    int64_t arena_size, arena_top;
} Pass;

/* n entries for a node's buffer: the top of the pass's stack, or (where it is full, or none was made) malloc's; NULL
   where memory ran out. Buffers are given back in the reverse order (give). */
static real *take(Pass *P, int64_t n) {
    if (P->arena && P->arena_top + n <= P->arena_size) {
        real *x = P->arena + P->arena_top;
        P->arena_top += n;
        return x;
    }
    return malloc((size_t)(n > 0 ? n : 1) * sizeof(real));
}

static void give(Pass *P, real *x, int64_t n) {
    if (P->arena && x >= P->arena && x < P->arena + P->arena_size) P->arena_top -= n;
    else free(x);
}

static void visit(Pass *P, int64_t n, const real *own, const real *opp, real *out);

/* chance child c of a node with rows `own` (NULL where the pass carries none: see own_reach) and `opp`: its rows
   taken through its map into `rows` (2 * its hands) and visited, its values into `val` */
static void visit_dealt(Pass *P, int64_t c, const real *own, const real *opp, real *rows, real *val) {
    const Layout *L = P->L;
    const int64_t Hp = rows_of(L, c, P->p), Hq = rows_of(L, c, 1 - P->p);
    const row_t *mp = L->maps[P->p] + map_of(L, c, P->p), *mq = L->maps[1 - P->p] + map_of(L, c, 1 - P->p);
    real *own_c = rows, *opp_c = rows + (Hp > Hq ? Hp : Hq);
    if (own) for (int64_t j = 0; j < Hp; j++) own_c[j] = own[mp[j]] * (real)1.0;
    for (int64_t j = 0; j < Hq; j++) opp_c[j] = opp[mq[j]] * (real)1.0;
    visit(P, c, own ? own_c : NULL, opp_c, val);
}

/* chance child c's values `val` added to its parent's rows `sums` through its map */
static void add_dealt(const Pass *P, int64_t c, const real *val, double *sums) {
    const int64_t Hc = rows_of(P->L, c, P->p);
    const row_t *mp = P->L->maps[P->p] + map_of(P->L, c, P->p);
    for (int64_t j = 0; j < Hc; j++) sums[mp[j]] += (double)(val[j] * (real)1.0);
}

/* A chance node's children's values are summed in float64, where the rows are float32 as well (as postflop-solver
   sums them: with a river's cards summed in float32, subgame1's turn was 0.575 % of the pot exploitable after 250
   iterations of dcfr-postflop, against 0.488 % with float64 sums and 0.489 % in float64 throughout); sums_for gives
   n float64 sums for a node whose values go to `out` (out itself where the rows are float64), sums_done rounds them
   into it and gives them back. NULL where memory ran out. */
static double *sums_for(real *out, int64_t n) {
#ifdef PASSES_SINGLE
    return malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
#else
    (void)n;
    return out;
#endif
}

static void sums_done(double *sums, real *out, int64_t n) {
#ifdef PASSES_SINGLE
    for (int64_t j = 0; j < n; j++) out[j] = (real)sums[j];
    free(sums);
#else
    (void)sums, (void)out, (void)n;
#endif
}

/* child c of decision node nd, given the actor's reach at each child (`reaches`, a row per child; not made for the
   traverser outside CFR passes, where `own` is NULL), its values into `val` */
static void visit_move(Pass *P, const int64_t *nd, int64_t c, const real *own, const real *opp, const real *reaches,
                       real *val) {
    const int64_t n = (nd - P->L->node) / NK_COLS, k = c - nd[NK_CHILD_LO];
    if (nd[NK_ACTOR] == P->p) visit(P, c, own ? reaches + k * rows_of(P->L, n, P->p) : NULL, opp, val);
    else visit(P, c, own, reaches + k * rows_of(P->L, n, 1 - P->p), val);
}

/* The children of one node shared among threads: each takes the next child in `order` (most rows below first, so
   the last ones taken are short) and writes its values to the child's own row of `vals`, which the caller adds to
   the node in the children's order afterwards. */
typedef struct {
    const Pass *P;
    const int64_t *nd, *order;
    int64_t width, next;
    const real *own, *opp, *reaches;       /* reaches: a decision node's, as visit_move reads them */
    real *vals;                            /* [children, width] */
    int failed;
} Fan;

/* At least n bytes kept for the calling thread from one shared node to the next (buffer `which` of a worker `depth`
   fans deep on it: a chance node of a suit-isomorphic tree fans its children out on one thread, and one below it may
   too): the pool's helpers live on, and a node's buffers of a megabyte or more, taken and given back at every shared
   node, cost the kernel a fresh zeroed page each time. NULL where memory ran out or the depth has none. One set serves
   every compilation of the passes (a float32 solve's evaluation runs the float64 ones), as a thread runs one pass at a
   time. */
enum { KEPT_DEPTH = 4 };
static __thread int fan_depth;

#if !defined(PASSES_SINGLE) && !defined(PASSES_AVX2)
void *passes_kept(int depth, int which, int64_t n) {
    static __thread void *buf[KEPT_DEPTH][3];
    static __thread int64_t size[KEPT_DEPTH][3];
    if (depth >= KEPT_DEPTH) return NULL;
    if (size[depth][which] < n) {
        free(buf[depth][which]);
        buf[depth][which] = malloc((size_t)(n > 0 ? n : 1));
        size[depth][which] = buf[depth][which] ? n : 0;
    }
    return buf[depth][which];
}
#else
void *passes_kept(int depth, int which, int64_t n);
#endif

static void fan_worker(void *arg) {
    Fan *F = arg;
    const int64_t lo = F->nd[NK_CHILD_LO], nc = F->nd[NK_CHILD_HI] - lo;
    const int dealt = F->nd[NK_KIND] == K_CHANCE, depth = fan_depth++;
    Pass Q = *F->P;
    Q.failed = 0, Q.arena_top = 0;
    Q.arena = Q.arena_size ? passes_kept(depth, 0, Q.arena_size * (int64_t)sizeof(real)) : NULL;
    if (!Q.arena) Q.arena_size = 0; /* take() mallocs node by node */
    double *scratch = passes_kept(depth, 1, Q.scratch_size * (int64_t)sizeof(double));
    real *rows = dealt ? passes_kept(depth, 2, 2 * F->width * (int64_t)sizeof(real)) : NULL;
    const int own_scratch = !scratch, own_rows = dealt && !rows;
    if (own_scratch) scratch = malloc((size_t)Q.scratch_size * sizeof(double));
    if (own_rows) rows = malloc((size_t)(2 * F->width) * sizeof(real));
    Q.scratch = scratch;
    if (!Q.scratch || (dealt && !rows)) Q.failed = 1;
    for (;;) {
        const int64_t i = __atomic_fetch_add(&F->next, 1, __ATOMIC_RELAXED);
        if (Q.failed || i >= nc) break;
        const int64_t c = F->order[i];
        if (dealt) visit_dealt(&Q, c, F->own, F->opp, rows, F->vals + (c - lo) * F->width);
        else visit_move(&Q, F->nd, c, F->own, F->opp, F->reaches, F->vals + (c - lo) * F->width);
    }
    if (Q.failed) __atomic_store_n(&F->failed, 1, __ATOMIC_RELAXED);
    if (own_scratch) free(scratch);
    if (own_rows) free(rows);
    fan_depth--;
}

/* whether node nd's children are shared among threads: two or more of them, min_fan rows below it, and fewer shared
   nodes above it on this thread than the depths that keep their buffers (deeper, each share would malloc a path's
   buffers afresh: a flop took 1.05 times as long). A helper busy elsewhere joins when its part there is done, so one
   that finished its share of a node's children joins the walk still going on below another. */
static int sharing(const Pass *P, const int64_t *nd) {
    return P->threads > 1 && nd[NK_CHILD_HI] - nd[NK_CHILD_LO] > 1 && nd[NK_ROWS] >= P->min_fan && fan_depth < KEPT_DEPTH;
}

/* node nd's children visited on up to `threads` threads (the caller's among them), child c's values into
   vals + (c - lo) * width; sets P->failed where memory ran out */
static void share_children(Pass *P, const int64_t *nd, int threads, int64_t width, const real *own, const real *opp,
                           const real *reaches, real *vals) {
    const int64_t lo = nd[NK_CHILD_LO], nc = nd[NK_CHILD_HI] - lo;
    int64_t *order = malloc((size_t)nc * sizeof(int64_t));
    Fan F = {P, nd, order, width, 0, own, opp, reaches, vals, 0};
    const int64_t most = threads < nc ? threads : nc;
    if (!order) { P->failed = 1; return; }
    for (int64_t i = 0; i < nc; i++) { /* insertion sort by rows below, descending; ties in child order */
        int64_t j = i;
        for (; j > 0 && P->L->node[order[j - 1] * NK_COLS + NK_ROWS] < P->L->node[(lo + i) * NK_COLS + NK_ROWS]; j--)
            order[j] = order[j - 1];
        order[j] = lo + i;
    }
    const int offered = pool_run(fan_worker, &F, (int)most - 1);
    if (F.failed) P->failed = 1;
    P->fans += offered > 0;
    free(order);
}

/* the chance node's children on `threads` threads, each child's values kept until all are added to the parent (then
   those of the deals a suit-isomorphic tree left out, as the sweeps add them); returns 0, or -1 where memory ran out */
static int fan_out(Pass *P, const int64_t *nd, int threads, int64_t width, const real *own, const real *opp,
                   real *out) {
    const int64_t lo = nd[NK_CHILD_LO], hi = nd[NK_CHILD_HI], H = rows_of(P->L, (nd - P->L->node) / NK_COLS, P->p);
    real *vals = take(P, (hi - lo) * width);
    if (!vals) return -1;
    double *sums = sums_for(out, 2 * H), *m = NULL; /* float32 rows: the mirrored deals' sums after the children's */
    if (!sums) {
        give(P, vals, (hi - lo) * width);
        return -1;
    }
    share_children(P, nd, threads, width, own, opp, NULL, vals);
    for (int64_t j = 0; j < H; j++) sums[j] = 0.0;
    for (int64_t c = lo; c < hi && !P->failed; c++) add_dealt(P, c, vals + (c - lo) * width, sums);
    if (nd[NK_MIRROR_LO] < nd[NK_MIRROR_HI] && !P->failed) {
        m = sizeof(real) == sizeof(double) ? (double *)take(P, H) : sums + H;
        if (!m) {
            give(P, vals, (hi - lo) * width);
            return -1;
        }
        for (int64_t j = 0; j < H; j++) m[j] = 0.0;
        for (int64_t e = nd[NK_MIRROR_LO]; e < nd[NK_MIRROR_HI]; e++) {
            const int64_t c = P->L->mirror[2 * e], Hc = rows_of(P->L, c, P->p);
            const row_t *mm = P->L->maps[P->p] + (P->L->live_node[0] ? P->L->mirror_map[P->p][e] : P->L->mirror[2 * e + 1]);
            const real *val = vals + (c - lo) * width;
            for (int64_t j = 0; j < Hc; j++) m[mm[j]] += (double)(val[j] * (real)1.0);
        }
        for (int64_t j = 0; j < H; j++) sums[j] += m[j];
        if (sizeof(real) == sizeof(double)) give(P, (real *)m, H);
    }
    sums_done(sums, out, H);
    give(P, vals, (hi - lo) * width);
    return 0;
}

/* the strategy of a node's `rows` rows stored at r, the first n of each row's actions, into out [n, rows] (action by
   action); `total` is scratch of `rows` doubles */
#ifdef PASSES_SINGLE
/* source_rows in float32: the node's float32 regrets matched (positive) or sums normalized, any layout */
static void single_rows(const Source *s, Rows r, int64_t rows, int64_t n, real *out, real *total, int positive) {
    const float *g = (const float *)s->data;
    if (s->bits16) { /* a node's scale is common to its rows: it cancels in the normalization below */
        if (positive) {
            const int16_t *x = (const int16_t *)s->data + r.base;
            for (int64_t i = 0; i < n * rows; i++) { /* the positive part in integers: the loop runs a row wide */
                int16_t y = x[i];
                y = y > 0 ? y : 0;
                out[i] = (float)y;
            }
        } else {
            const uint16_t *x = (const uint16_t *)s->data + r.base;
            for (int64_t i = 0; i < n * rows; i++) out[i] = (float)x[i];
        }
    } else if (r.compact) {
        const float *x = g + r.base;
        for (int64_t i = 0; i < n * rows; i++) out[i] = positive ? (x[i] > 0.0f ? x[i] : 0.0f) : x[i];
    } else {
        for (int64_t j = 0; j < rows; j++)
            for (int64_t k = 0; k < n; k++) {
                const float x = g[slot_of(r, rows, j, k)];
                out[k * rows + j] = positive ? (x > 0.0f ? x : 0.0f) : x;
            }
    }
    for (int64_t j = 0; j < rows; j++) total[j] = 0.0f;
    for (int64_t k = 0; k < n; k++)
        for (int64_t j = 0; j < rows; j++) total[j] += out[k * rows + j];
    for (int64_t k = 0; k < n; k++)
        for (int64_t j = 0; j < rows; j++) out[k * rows + j] /= total[j]; /* rows without: redone below */
    for (int64_t j = 0; j < rows; j++) {
        if (total[j] > 0.0f) continue;
        int64_t count = 0;
        for (int64_t k = 0; k < n; k++) count += legal_at(s, r, rows, j, k) != 0;
        for (int64_t k = 0; k < n; k++) out[k * rows + j] = legal_at(s, r, rows, j, k) ? 1.0f / (float)count : 0.0f;
    }
}
#endif

static void source_rows(const Source *s, Rows r, int64_t rows, int64_t n, real *out, real *total) {
#ifdef PASSES_SINGLE
    if (s->kind == SRC_PROBS) {
        for (int64_t j = 0; j < rows; j++)
            for (int64_t k = 0; k < n; k++) out[k * rows + j] = (real)((const double *)s->data)[slot_of(r, rows, j, k)];
    } else {
        single_rows(s, r, rows, n, out, total, s->kind == SRC_REGRETS);
    }
#else
    const int64_t a = r.stride;
    const row_t *live = r.at;
    const uint8_t *legal = r.compact ? block_legal(s, r) : s->legal + r.base;
    if (s->kind == SRC_PROBS) {
        const double *p = (const double *)s->data + r.base;
        if (r.compact) memcpy(out, p, (size_t)(n * rows) * sizeof(double));
        else
            for (int64_t j = 0; j < rows; j++)
                for (int64_t k = 0; k < n; k++) out[k * rows + j] = p[(live ? live[j] : j) * a + k];
    } else if (s->bits16) { /* compact only; a node's scale cancels in the normalization */
        if (s->kind == SRC_REGRETS) regret_matching_i16_compact((const int16_t *)s->data + r.base, legal, out, total, rows, n);
        else regret_matching_u16_average_compact((const uint16_t *)s->data + r.base, legal, out, total, rows, n);
    } else if (r.compact) {
        const int average = s->kind != SRC_REGRETS;
        if (s->f32) (average ? regret_matching_f32_average_compact : regret_matching_f32_compact)(
            (const float *)s->data + r.base, legal, out, total, rows, n);
        else (average ? regret_matching_average_compact : regret_matching_compact)(
            (const double *)s->data + r.base, legal, out, total, rows, n);
    } else if (s->kind == SRC_REGRETS) {
        if (s->f32) regret_matching_f32_rows((const float *)s->data + r.base, legal, out, rows, a, live, n);
        else regret_matching_rows((const double *)s->data + r.base, legal, out, rows, a, live, n);
    } else { /* the normalized sums */
        if (s->f32) regret_matching_f32_average_rows((const float *)s->data + r.base, legal, out, rows, a, live, n);
        else regret_matching_average_rows((const double *)s->data + r.base, legal, out, rows, a, live, n);
    }
#endif
}

/* whether two hands of k <= 2 cards share a card */
static inline int share(const uint8_t *x, const uint8_t *y, int64_t k) {
    return k == 1 ? x[0] == y[0] : (x[0] == y[0] || x[0] == y[1] || x[1] == y[0] || x[1] == y[1]);
}

#ifdef PASSES_SINGLE
/* removal_values and ladder_values of _kernels.c over float32 rows (their sums in float64, as postflop-solver's are) */
void removal_values_f32(const float *opp, float *out, const row_t *mrow, const uint8_t *mc, const row_t *twin,
                        int64_t nm, const row_t *orow, const uint8_t *oc, int64_t no, int64_t k, double value,
                        double *mass, int64_t cards);
void ladder_values_f32(const float *opp, float *out, const row_t *mrow, const uint8_t *mc, const int64_t *mt,
                       const row_t *orow, const uint8_t *oc, const int64_t *ot, int64_t groups, int64_t k,
                       double w_below, double w_above, int negate, double *scratch, int64_t cards);
#define REMOVAL removal_values_f32
#define LADDER ladder_values_f32
#else
#define REMOVAL removal_values_rows
#define LADDER ladder_values_rows
#endif

/*
 * A terminal of a board the sweeps value by one sparse payoff matrix (subgame.tree.operators.SparseTerminal, boards of
 * few hands), as its product gives it: row by row of the traverser, player 0's payoff of each decided pair of disjoint
 * hands (fold: t[0]; showdown: t[0] where her hand is stronger, t[1] where weaker) times the opponent's reach, summed
 * from zero over the opponent's rows in ascending order (the matrix's sorted columns); player 1 gets minus that sum.
 */
static void matrix_row(const Layout *L, const int64_t *b, int p, int showdown, const double *t, const real *opp,
                       real *out) {
    const int64_t n = b[0], row = b[1], k = L->k;
    const row_t *mine = L->hand_of_row[p] + row, *theirs = L->hand_of_row[1 - p] + row;
    const uint8_t *cards = L->hand_cards + row * k;
    const row_t *rank = L->rank + row;
    for (int64_t r = 0; r < n; r++) {
        const int64_t h = mine[r];
        double s = 0.0;
        for (int64_t x = 0; x < n; x++) {
            const int64_t g = theirs[x];
            if (share(cards + h * k, cards + g * k, k) || (showdown && rank[h] == rank[g])) continue;
            const double u = !showdown || (p == 0 ? rank[h] > rank[g] : rank[g] > rank[h]) ? t[0] : t[1];
            s += u * opp[x];
        }
        out[r] = (real)(p == 0 ? s : -s);
    }
}

/*
 * A fold or a showdown over live rows: removal_values and ladder_values over each player's live hands only (the
 * opponent's reach summed over hers, the values written for the traverser's). The dropped hands add exactly zero to
 * those sums, so leaving them out leaves every running sum and every value bitwise as the loops over all hands make them.
 */
static void live_fold(const Layout *L, const int64_t *b, int p, double value, const real *opp, real *out,
                      double *mass) {
    const int64_t bi = (b - L->board) / 5, q = 1 - p, mb = L->live_board[p][2 * bi], ob = L->live_board[q][2 * bi];
    REMOVAL(opp, out, L->live_hand_row[p] + mb, L->live_hand_cards[p] + mb * L->k, L->live_hand_twin[p] + mb,
                   L->live_board[p][2 * bi + 1], L->live_hand_row[q] + ob, L->live_hand_cards[q] + ob * L->k,
                   L->live_board[q][2 * bi + 1], L->k, value, mass, L->cards);
}

static void live_showdown(const Layout *L, const int64_t *b, int p, const double *t, const real *opp, real *out,
                          double *scratch) {
    const int64_t bi = (b - L->board) / 5, q = 1 - p, mb = L->live_board[p][2 * bi], ob = L->live_board[q][2 * bi];
    LADDER(opp, out, L->live_ladder_row[p] + mb, L->live_ladder_cards[p] + mb * L->k, L->live_ties[p] + b[2],
                  L->live_ladder_row[q] + ob, L->live_ladder_cards[q] + ob * L->k, L->live_ties[q] + b[2], b[3], L->k,
                  p == 0 ? t[0] : t[1], p == 0 ? t[1] : t[0], p != 0, scratch, L->cards);
}

static inline int all_zero(const real *x, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (x[i] != 0.0) return 0;
    return 1;
}

static void terminal_row(Pass *P, const int64_t *nd, const real *opp, real *out) {
    const Layout *L = P->L;
    const int64_t *b = L->board + nd[NK_BOARD] * 5, row = b[1], n = b[0], k = L->k, q = 1 - P->p;
    const double *t = L->term + nd[NK_TERM] * 2;
    if (L->live_node[0]) {
        if (nd[NK_SHOWDOWN]) live_showdown(L, b, P->p, t, opp, out, P->scratch);
        else live_fold(L, b, P->p, P->p == 0 ? t[0] : -1.0 * t[0], opp, out, P->scratch);
    } else if (b[4]) {
        matrix_row(L, b, P->p, (int)nd[NK_SHOWDOWN], t, opp, out);
    } else if (nd[NK_SHOWDOWN]) {
        const uint8_t *cards = L->ladder_cards + row * k;
        const int64_t *ties = L->ties + b[2];
        LADDER(opp, out, L->ladder_local[P->p] + row, cards, ties, L->ladder_local[q] + row, cards, ties, b[3], k,
                      P->p == 0 ? t[0] : t[1], P->p == 0 ? t[1] : t[0], P->p != 0, P->scratch, L->cards);
    } else {
        const uint8_t *cards = L->hand_cards + row * k;
        const row_t *mine = L->local[P->p] + row, *theirs = L->local[q] + row;
        REMOVAL(opp, out, mine, cards, theirs, n, theirs, cards, n, k, P->p == 0 ? t[0] : -1.0 * t[0], P->scratch,
                       L->cards);
    }
}

#ifdef PASSES_SINGLE
/* a regret after iteration t's update in float32 (update_regrets of _kernels.c: the discount of its sign before (flag
   8), plus the instantaneous regret, floored at 0 (1), the discount after (2), the scale (4)) */
static inline __attribute__((always_inline)) float next_regret(float r, float inst, int flags, const float discount[2],
                                                               float scale) {
    /* each condition one comparison, no short circuit, so that a row's loop runs in vector blends */
    if (flags & 8) r *= r > 0 ? discount[1] : discount[0];
    r += inst;
    if (flags & 1) r = ((r > 0) | (r != r)) ? r : 0.0f;
    /* after the floor (rm+) a regret is 0, NaN or positive: the positive discount leaves 0 and NaN as they are */
    if (flags & 2) r *= (flags & 1) ? discount[1] : (r > 0 ? discount[1] : discount[0]);
    if (flags & 4) r *= scale;
    return r;
}

/* The traverser's regret and average update at a node (update_regrets of _kernels.c, the same flags) in float32, as
   postflop-solver updates: rows of `rows` hands action by action, n actions. Inlined into update_single with constant
   `compact` and `flags` (compact storage lies as the buffers do, so the loop over a row runs several rows wide). */
static inline __attribute__((always_inline)) void update_slots(const Source *s, Rows R, const Update *u, int64_t rows,
                                                               int64_t n, const real *seqv, const real *v,
                                                               const real *reach, const real *sigma, int compact,
                                                               int flags) {
    float *rg = u->regrets, *sm = u->sums, *pr = u->predicted;
    const float discount[2] = {(float)u->negative, (float)u->positive}, scale = (float)u->scale;
    const float weight = (float)u->weight, sum_discount = (float)u->sum_discount;
    const uint8_t *legal = compact ? block_legal(s, R) : s->legal;
    for (int64_t k = 0; k < n; k++)
        for (int64_t j = 0; j < rows; j++) {
            const int64_t y = k * rows + j, x = compact ? R.base + y : slot_of(R, rows, j, k);
            const float inst = (seqv[y] - v[j]) * (float)legal[compact ? y : x];
            const float r = next_regret(rg[x], inst, flags, discount, scale);
            rg[x] = r;
            if (pr) pr[x] = r + inst;
            const float m = (flags & 32) ? sm[x] * sum_discount : sm[x];
            sm[x] = m + ((flags & 16) ? 1.0f : reach[j]) * sigma[y] * weight;
        }
}

/* update_slots over 16-bit storage (postflop-solver's compression): node `node`'s regrets and sums decoded by its
   units, updated in float32 as update_slots does into `r` and `m` (n * rows each), then encoded again, each kind
   scaled so that its largest magnitude at the node is the type's largest (32767, 65535), rounded to nearest (halves
   away from zero). Inlined into update_bits16 with constant `flags`, so that every loop runs a row wide. */
static inline __attribute__((always_inline)) void bits16_slots(const Source *s, Rows R, const Update *u, int64_t node,
                                                               int64_t rows, int64_t n, const real *seqv, const real *v,
                                                               const real *reach, const real *sigma, float *r, float *m,
                                                               int flags) {
    int16_t *rg = (int16_t *)u->regrets + R.base;
    uint16_t *sm = (uint16_t *)u->sums + R.base;
    const uint8_t *legal = block_legal(s, R);
    const float discount[2] = {(float)u->negative, (float)u->positive}, scale = (float)u->scale;
    const float weight = (float)u->weight, sum_discount = (float)u->sum_discount;
    const float unit_r = u->regret_scale[node], unit_s = u->sum_scale[node];
    for (int64_t k = 0; k < n; k++)
        for (int64_t j = 0; j < rows; j++) {
            const int64_t y = k * rows + j;
            const float inst = (seqv[y] - v[j]) * (float)legal[y];
            r[y] = next_regret((float)rg[y] * unit_r, inst, flags, discount, scale);
            const float w = (flags & 32) ? (float)sm[y] * unit_s * sum_discount : (float)sm[y] * unit_s;
            m[y] = w + ((flags & 16) ? 1.0f : reach[j]) * sigma[y] * weight;
        }
    /* the largest magnitudes compared as the bits of non-negative floats (an integer maximum runs a row wide) */
    int32_t top_r = 0, top_s = 0;
    for (int64_t y = 0; y < n * rows; y++) {
        const float a = fabsf(r[y]);
        int32_t b, c;
        memcpy(&b, &a, sizeof b), memcpy(&c, m + y, sizeof c);
        top_r = b > top_r ? b : top_r, top_s = c > top_s ? c : top_s;
    }
    float tr, ts;
    memcpy(&tr, &top_r, sizeof tr), memcpy(&ts, &top_s, sizeof ts);
    const float to_r = tr > 0.0f ? 32767.0f / tr : 0.0f, to_s = ts > 0.0f ? 65535.0f / ts : 0.0f;
    for (int64_t y = 0; y < n * rows; y++) {
        const float x = r[y] * to_r;
        rg[y] = (int16_t)(int32_t)(x + (x >= 0.0f ? 0.5f : -0.5f));
        sm[y] = (uint16_t)(int32_t)(m[y] * to_s + 0.5f);
    }
    u->regret_scale[node] = tr / 32767.0f, u->sum_scale[node] = ts / 65535.0f;
}

static void update_bits16(const Source *s, Rows R, const Update *u, int64_t node, int64_t rows, int64_t n,
                          const real *seqv, const real *v, const real *reach, const real *sigma, float *r, float *m) {
    /* 16-bit storage averages the strategy alone (flag 16): dcfr-postflop, or another rule so */
    if (u->flags == 56) bits16_slots(s, R, u, node, rows, n, seqv, v, reach, sigma, r, m, 56); /* dcfr-postflop */
    else if (u->flags == 19) bits16_slots(s, R, u, node, rows, n, seqv, v, reach, sigma, r, m, 19); /* dcfr+-postflop */
    else bits16_slots(s, R, u, node, rows, n, seqv, v, reach, sigma, r, m, u->flags);
}

static void update_single(const Source *s, Rows R, const Update *u, int64_t rows, int64_t n, const real *seqv,
                          const real *v, const real *reach, const real *sigma) {
    if (!R.compact) update_slots(s, R, u, rows, n, seqv, v, reach, sigma, 0, u->flags);
    else if (u->flags == 1) update_slots(s, R, u, rows, n, seqv, v, reach, sigma, 1, 1); /* cfr+, pcfr+ */
    else if (u->flags == 2) update_slots(s, R, u, rows, n, seqv, v, reach, sigma, 1, 2); /* dcfr */
    else if (u->flags == 3) update_slots(s, R, u, rows, n, seqv, v, reach, sigma, 1, 3); /* dcfr+ */
    else if (u->flags == 19) update_slots(s, R, u, rows, n, seqv, v, reach, sigma, 1, 19); /* dcfr+-postflop */
    else if (u->flags == 56) update_slots(s, R, u, rows, n, seqv, v, reach, sigma, 1, 56); /* dcfr-postflop */
    else update_slots(s, R, u, rows, n, seqv, v, reach, sigma, 1, u->flags);
}
#endif

/* out [rows of n] = the traverser's values at node n, given her reach `own` (NULL where the pass carries none: see
   own_reach) and the opponent's `opp` there */
static void visit(Pass *P, int64_t n, const real *own, const real *opp, real *out) {
    if (P->failed) return;
    const Layout *L = P->L;
    const int64_t *nd = L->node + n * NK_COLS;
    const int64_t lo = nd[NK_CHILD_LO], hi = nd[NK_CHILD_HI];
    const int p = P->p;
    const int64_t H = rows_of(L, n, p), Hq = rows_of(L, n, 1 - p), Hm = H > Hq ? H : Hq;
    if (nd[NK_KIND] == K_TERMINAL) {
        /* where the opponent reaches it with no hand the loops would give +0.0 at every row (on the boards they value:
           a payoff matrix gives player 1 -0.0): the regrets' discounts and the sums below a line she never takes
           still need the walk, its terminals do not */
        if (!L->board[nd[NK_BOARD] * 5 + 4] && all_zero(opp, Hq)) memset(out, 0, (size_t)H * sizeof(real));
        else terminal_row(P, nd, opp, out);
        return;
    }
    if (nd[NK_KIND] == K_CHANCE) {
        int64_t width = 1;
        for (int64_t c = lo; c < hi; c++) width = L->node[c * NK_COLS + NK_SIZE] > width ? L->node[c * NK_COLS + NK_SIZE] : width;
        const int shared = sharing(P, nd);
        if (shared || nd[NK_MIRROR_LO] < nd[NK_MIRROR_HI]) {
            if (fan_out(P, nd, shared ? P->threads : 1, width, own, opp, out) != 0) P->failed = 1;
            return;
        }
        real *buf = take(P, 3 * width);
        double *sums = buf ? sums_for(out, H) : NULL;
        if (!sums) { if (buf) give(P, buf, 3 * width); P->failed = 1; return; }
        real *val = buf + 2 * width;
        for (int64_t j = 0; j < H; j++) sums[j] = 0.0;
        for (int64_t c = lo; c < hi && !P->failed; c++) {
            visit_dealt(P, c, own, opp, buf, val);
            add_dealt(P, c, val, sums);
        }
        sums_done(sums, out, H);
        give(P, buf, 3 * width);
        return;
    }
    const int actor = (int)nd[NK_ACTOR];
    const Source *s = &P->src[actor];
    const int64_t a = s->a, nc = hi - lo;
    const Rows R = rows_in(s, n, nd[NK_INF], nc, live_of(L, n, actor));
    /* the slots read and written: a node's own actions (all a of a padded row from 8 on: numpy's order of its sum) */
    const int64_t width = s->offset || a < 8 ? nc : a;
    real *buf = take(P, Hm * (4 * a + 1));
    if (!buf) { P->failed = 1; return; }
    /* Every buffer action by action (entry k * rows + j: row j's action k), as postflop-solver lays out a node, so
       that each loop below runs over a row of hands. sigma: the actor's strategy; reaches: the reach of the actor's
       rows at each child; vals: each child's values in a row of their own (so children on other threads write apart),
       added up in the children's order after the last; slots: the traverser's, read for the update. */
    const int64_t Ha = actor == p ? H : Hq;
    real *sigma = buf, *slots = buf + Hm * a, *vals = buf + 2 * Hm * a, *reaches = buf + 3 * Hm * a;
    real *scratch = buf + 4 * Hm * a;
    if (actor != p || P->mode != PASS_BEST) /* a best response reads no strategy of the traverser's */
        source_rows(s, R, Ha, width, sigma, scratch);
    const real *from = actor == p ? own : opp; /* the reach the actor's strategy multiplies (own NULL: none) */
    if (from)
        for (int64_t k = 0; k < nc; k++)
            for (int64_t j = 0; j < Ha; j++) reaches[k * Ha + j] = from[j] * sigma[k * Ha + j];
    if (sharing(P, nd))
        share_children(P, nd, P->threads, H, own, opp, reaches, vals);
    else
        for (int64_t c = lo; c < hi && !P->failed; c++) visit_move(P, nd, c, own, opp, reaches, vals + (c - lo) * H);
    if (P->failed) { give(P, buf, Hm * (4 * a + 1)); return; }
    if (actor == p) {
        /* out[j] = 0.0 + the children's values times the strategy summed from 0.0 in slot order, and slot k of row j
           = 0.0 + child k's value (0.0 past the node's own actions): the additions of the loops over the children that
           added them one child at a time */
        if (P->mode != PASS_BEST) {
            for (int64_t j = 0; j < H; j++) out[j] = 0.0;
            for (int64_t k = 0; k < nc; k++)
                for (int64_t j = 0; j < H; j++) out[j] += vals[k * H + j] * sigma[k * H + j];
            for (int64_t j = 0; j < H; j++) out[j] = (real)0.0 + out[j];
        }
        for (int64_t x = 0; x < nc * H; x++) slots[x] = (real)0.0 + vals[x];
        for (int64_t x = nc * H; x < width * H; x++) slots[x] = 0.0;
    } else {
        real *acc = slots;
        for (int64_t j = 0; j < H; j++) acc[j] = 0.0;
        for (int64_t k = 0; k < nc; k++)
            for (int64_t j = 0; j < H; j++) acc[j] += vals[k * H + j] * (real)1.0;
        for (int64_t j = 0; j < H; j++) out[j] = (real)0.0 + acc[j];
    }
    if (actor == p && P->mode == PASS_BEST) {
        for (int64_t j = 0; j < H; j++) {
            real top = -INFINITY;
            for (int64_t k = 0; k < width; k++) {
                const real y = legal_at(s, R, H, j, k) ? slots[k * H + j] + (real)0.0 : -INFINITY;
                if (y > top) top = y;
            }
            out[j] = top;
        }
    }
    if (actor == p && P->mode == PASS_CFR) {
#ifdef PASSES_SINGLE
        if (s->bits16) update_bits16(s, R, &P->up, n, H, width, slots, out, own, sigma, vals, reaches);
        else update_single(s, R, &P->up, H, width, slots, out, own, sigma);
#else
        const Update *u = &P->up;
        const size_t at = (size_t)R.base;
        if (R.compact && s->f32)
            update_regrets_f32_compact((float *)u->regrets + at, (float *)u->sums + at,
                                       u->predicted ? (float *)u->predicted + at : NULL, slots, out, own, sigma,
                                       block_legal(s, R), H, u->flags, u->positive, u->negative, u->scale, u->weight,
                                       u->sum_discount, width);
        else if (R.compact)
            update_regrets_compact((double *)u->regrets + at, (double *)u->sums + at,
                                   u->predicted ? (double *)u->predicted + at : NULL, slots, out, own, sigma,
                                   block_legal(s, R), H, u->flags, u->positive, u->negative, u->scale, u->weight,
                                   u->sum_discount, width);
        else if (s->f32)
            update_regrets_f32_rows((float *)u->regrets + at, (float *)u->sums + at, u->predicted ? (float *)u->predicted + at : NULL,
                                    slots, out, own, sigma, s->legal + at, NULL, H, R.stride, u->flags, u->positive,
                                    u->negative, u->scale, u->weight, u->sum_discount, R.at, width);
        else
            update_regrets_rows((double *)u->regrets + at, (double *)u->sums + at, u->predicted ? (double *)u->predicted + at : NULL,
                                slots, out, own, sigma, s->legal + at, NULL, H, R.stride, u->flags, u->positive,
                                u->negative, u->scale, u->weight, u->sum_discount, R.at, width);
#endif
    }
    give(P, buf, Hm * (4 * a + 1));
}

/* the doubles visit takes for its buffers on the deepest path from node n (what a pass's stack needs) */
static int64_t need(const Pass *P, int64_t n) {
    const Layout *L = P->L;
    const int64_t *nd = L->node + n * NK_COLS, lo = nd[NK_CHILD_LO], hi = nd[NK_CHILD_HI];
    if (nd[NK_KIND] == K_TERMINAL) return 0;
    int64_t own, below = 0;
    if (nd[NK_KIND] == K_CHANCE) {
        int64_t width = 1;
        for (int64_t c = lo; c < hi; c++) width = L->node[c * NK_COLS + NK_SIZE] > width ? L->node[c * NK_COLS + NK_SIZE] : width;
        own = (hi - lo) * width + rows_of(L, n, P->p);
        if (own < 3 * width) own = 3 * width;
    } else {
        const int64_t H = rows_of(L, n, P->p), Hq = rows_of(L, n, 1 - P->p);
        own = (H > Hq ? H : Hq) * (4 * P->src[nd[NK_ACTOR]].a + 1);
    }
    for (int64_t c = lo; c < hi; c++) {
        const int64_t x = need(P, c);
        if (x > below) below = x;
    }
    return own + below;
}

/*
 * One pass for player p from the root nodes [0, roots): the CFR update of her regrets and sums (mode PASS_CFR, her
 * reach from `own`), her counterfactual best-response values (PASS_BEST) or her counterfactual values
 * (PASS_VALUES). `own` and `opp` hold each player's reach at the roots' rows one after the other; her values there
 * are written to `out`. The strategies come from `src0` and `src1`. The children of a node with at least `min_fan`
 * rows below it are shared among up to `threads` threads (sharing), as postflop-solver shares every node's actions
 * and cards: a helper joins such a node's children when it is free, so one that finished its part of a node joins
 * the walk still going on below another. Children of a node
 * update disjoint information sets, each child's arithmetic is the same on any thread, and they are added to their
 * parent in order after all are done: the result does not depend on the count. Returns the nodes whose children
 * went to threads, or -1 where memory ran out.
 */
#define PASS_ARGS                                                                                                     \
    const Layout *L, int p, int mode, const Source *src0, const Source *src1, const Update *up, int64_t roots,        \
        const double *own, const double *opp, double *out, int64_t max_hands, int64_t threads, int64_t min_fan
#if defined(PASSES_SINGLE) && defined(PASSES_AVX2)
#define POKER_PASS poker_pass_single_avx2
#elif defined(PASSES_SINGLE)
#define POKER_PASS poker_pass_single
#elif defined(PASSES_AVX2)
#define POKER_PASS poker_pass_double_avx2
#else
#define POKER_PASS poker_pass_double
#endif

int64_t POKER_PASS(PASS_ARGS) {
    Pass P = {L, p, mode, {*src0, *src1}, {0}, NULL, L->cards + 2 * max_hands + 1, threads > 1 ? (int)threads : 1,
              min_fan, 0, 0, NULL, 0, 0};
    if (up) P.up = *up;
    for (int64_t r = 0; r < roots; r++) {
        const int64_t x = need(&P, r);
        if (x > P.arena_size) P.arena_size = x;
    }
    P.arena = P.arena_size ? malloc((size_t)P.arena_size * sizeof(real)) : NULL; /* NULL: malloc node by node */
    if (!P.arena) P.arena_size = 0;
    double *scratch = malloc((size_t)P.scratch_size * sizeof(double));
    if (!scratch) { free(P.arena); return -1; }
    P.scratch = scratch;
    /* the traverser's reach is read only by the strategy sums' increments, which an update without reach weighting
       (flag 16, postflop-solver's) does not take: its rows are then not carried down at all */
    const int own_reach = mode == PASS_CFR && !(P.up.flags & 16);
    int64_t at = 0;
    /* the roots' rows copied in and out where the passes keep live rows or compute in float32 */
    const int copied = L->live_node[0] || sizeof(real) != sizeof(double);
    real *rows = copied ? malloc((size_t)(3 * (max_hands > 0 ? max_hands : 1)) * sizeof(real)) : NULL;
    if (copied && !rows) P.failed = 1;
    for (int64_t r = 0; r < roots && !P.failed; r++) {
        const int64_t H = L->node[r * NK_COLS + NK_SIZE];
        if (rows) { /* the live rows of the root's reaches in, their values out (zero at the others) */
            const int64_t Hp = rows_of(L, r, p), Hq = rows_of(L, r, 1 - p);
            const row_t *lp = live_of(L, r, p), *lq = live_of(L, r, 1 - p);
            for (int64_t j = 0; j < Hp; j++) rows[j] = (real)own[at + (lp ? lp[j] : j)];
            for (int64_t j = 0; j < Hq; j++) rows[max_hands + j] = (real)opp[at + (lq ? lq[j] : j)];
            visit(&P, r, own_reach ? rows : NULL, rows + max_hands, rows + 2 * max_hands);
            for (int64_t j = 0; j < H; j++) out[at + j] = 0.0;
            for (int64_t j = 0; j < Hp; j++) out[at + (lp ? lp[j] : j)] = rows[2 * max_hands + j];
        } else {
            visit(&P, r, own_reach ? (const real *)own + at : NULL, (const real *)opp + at, (real *)out + at);
        }
        at += H;
    }
    free(scratch), free(rows), free(P.arena);
    return P.failed ? -1 : P.fans;
}

#if !defined(PASSES_SINGLE) && !defined(PASSES_AVX2)
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define HAVE_AVX2_PASSES 1
int64_t poker_pass_double_avx2(PASS_ARGS);
int64_t poker_pass_single_avx2(PASS_ARGS);
#endif
int64_t poker_pass_single(PASS_ARGS);

/* Which compilation of the passes runs: -1 the processor's best (AVX2 where it has it), 0 the baseline, 1 AVX2 */
static int pass_loops = -1;

/* Sets the compilation the passes run (-1, 0 or 1 as pass_loops; -2 leaves it) and returns the one that now runs: 0
   the baseline, 1 AVX2 (1 is refused where this build or the processor lacks it: the baseline runs) */
int64_t poker_pass_loops(int64_t choice) {
    if (choice >= -1 && choice <= 1) pass_loops = (int)choice;
#ifdef HAVE_AVX2_PASSES
    return pass_loops != 0 && __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/* One pass over the layout (PASS_CFR, PASS_BEST or PASS_VALUES) for player p: float32 rows where both Sources are
   float32 storage computed in float32 (CFRSolver's compute="float32"), float64 otherwise; returns the nodes whose
   children went to threads, or -1 where memory ran out */
int64_t poker_pass(PASS_ARGS) {
    const int single = src0->f32 == 2 || src1->f32 == 2;
#ifdef HAVE_AVX2_PASSES
    if (poker_pass_loops(-2))
        return (single ? poker_pass_single_avx2 : poker_pass_double_avx2)(L, p, mode, src0, src1, up, roots, own, opp,
                                                                            out, max_hands, threads, min_fan);
#endif
    return (single ? poker_pass_single : poker_pass_double)(L, p, mode, src0, src1, up, roots, own, opp, out, max_hands,
                                                            threads, min_fan);
}

/*
 * n alternating CFR iterations as depth-first passes: per iteration poker_pass(PASS_CFR) for player 0, then for
 * player 1, each reading both players' strategies from src0 and src1 as the earlier passes left them, so the result is
 * bitwise that of 2n calls of poker_pass. params[6 i ...] is iteration i's update rule (flags, positive, negative,
 * scale, weight, sum_discount: subgame.tree.kernels.update_params), written into up0 and up1 (player 0's and player
 * 1's arrays) before their passes; reach[p] is player p's root reach, out[p] where her pass drops its root values.
 * Returns the nodes whose children went to threads in all the passes, or -1 where memory ran out (in the iteration
 * that failed).
 */
int64_t poker_iterations(const Layout *L, const Source *src0, const Source *src1, Update *up0, Update *up1,
                         const double *params, int64_t n, int64_t roots, const double *reach0, const double *reach1,
                         double *out0, double *out1, int64_t max_hands, int64_t threads, int64_t min_fan) {
    Update *up[2] = {up0, up1};
    const double *reach[2] = {reach0, reach1};
    double *out[2] = {out0, out1};
    int64_t fans = 0;
    for (int64_t i = 0; i < n; i++) {
        const double *r = params + 6 * i;
        for (int p = 0; p < 2; p++) {
            Update *u = up[p];
            u->flags = (int)r[0], u->positive = r[1], u->negative = r[2], u->scale = r[3], u->weight = r[4];
            u->sum_discount = r[5];
            const int64_t f = poker_pass(L, p, PASS_CFR, src0, src1, u, roots, reach[p], reach[1 - p], out[p], max_hands,
                                         threads, min_fan);
            if (f < 0) return -1;
            fans += f;
        }
    }
    return fans;
}

/*
 * The three passes of an exact exploitability (subgame.eval.best_response.layout_exploitability) in one call: player
 * 0's and player 1's best-response values at their root rows (best0, best1: poker_pass PASS_BEST) and player 0's values
 * under the profile (values: PASS_VALUES; NULL: that pass left out), the strategies read from src0 and src1. Returns
 * the nodes whose children went to threads, or -1 where memory ran out.
 */
int64_t poker_best_responses(const Layout *L, const Source *src0, const Source *src1, int64_t roots, const double *reach0,
                             const double *reach1, double *best0, double *best1, double *values, int64_t max_hands,
                             int64_t threads, int64_t min_fan) {
    const int64_t a = poker_pass(L, 0, PASS_BEST, src0, src1, NULL, roots, reach0, reach1, best0, max_hands, threads, min_fan);
    if (a < 0) return -1;
    const int64_t b = poker_pass(L, 1, PASS_BEST, src0, src1, NULL, roots, reach1, reach0, best1, max_hands, threads, min_fan);
    if (b < 0) return -1;
    if (!values) return a + b;
    const int64_t c = poker_pass(L, 0, PASS_VALUES, src0, src1, NULL, roots, reach0, reach1, values, max_hands, threads,
                                 min_fan);
    return c < 0 ? -1 : a + b + c;
}

/* A poker_best_responses call prepared once (subgame.tree.whole.LayoutBestResponses): its arguments but the threads */
typedef struct {
    const Layout *L;
    const Source *src0, *src1;
    int64_t roots;
    const double *reach0, *reach1;
    double *best0, *best1, *values;
    int64_t max_hands, rows0, rows1;       /* rows0: of best1; rows1: of best0 and values */
    int64_t release;                       /* whether the interpreter lets other threads run meanwhile (not worth it on
                                              a tree as small as Kuhn poker's) */
} BestCall;

/* numpy's sum of n float64 (its pairwise_sum, which np.add.reduce adds to 0.0), so that totals here are its bits */
static double numpy_sum(const double *x, int64_t n) {
    if (n < 8) {
        double s = 0.0;
        for (int64_t i = 0; i < n; i++) s += x[i];
        return s;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; j++) r[j] = x[j];
        int64_t i = 8;
        for (; i < n - n % 8; i += 8)
            for (int j = 0; j < 8; j++) r[j] += x[i + j];
        double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) s += x[i];
        return s;
    }
    int64_t h = n / 2;
    h -= h % 8;
    return numpy_sum(x, h) + numpy_sum(x + h, n - h);
}

int64_t poker_best_released(const BestCall *c) { return c->release; }

/* Runs a prepared call and writes the totals over the root rows of best0, best1 and values (each player's best-response
   value and player 0's value where the root reaches are ones); returns poker_best_responses' count (-1: no memory) */
int64_t poker_best_totals(const BestCall *c, int64_t threads, int64_t min_fan, double *totals) {
    const int64_t fans = poker_best_responses(c->L, c->src0, c->src1, c->roots, c->reach0, c->reach1, c->best0, c->best1,
                                              c->values, c->max_hands, threads, min_fan);
    if (fans < 0) return -1;
    totals[0] = 0.0 + numpy_sum(c->best0, c->rows1);
    totals[1] = 0.0 + numpy_sum(c->best1, c->rows0);
    totals[2] = c->values ? 0.0 + numpy_sum(c->values, c->rows1) : 0.0;
    return fans;
}
#endif
