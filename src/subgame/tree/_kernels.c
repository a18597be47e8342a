/*
 * Compiled loops of the public-tree sweeps and the poker terminal operators.
 *
 * Every function here is one loop that the numpy code of subgame.tree.sweep, subgame.solve.cfr
 * and subgame.tree.poker_operators writes as several whole-array calls with temporaries. The
 * sweeps and the regret update add and multiply in the order numpy does, so their results are
 * bitwise those of the numpy code; the operators sum card removal in one pass over the hands
 * sorted by strength (O(n) per terminal node for hands of one or two cards) and agree with the
 * numpy operators to rounding. The functions are called through ctypes, which releases the GIL,
 * so the operators' pieces run on several threads at once. Python's API is used only to make
 * the shared library importable as a module (its path is where ctypes loads it from).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t idx_t;

/* The version of these functions' signatures: subgame.tree.kernels refuses a library built from another one (bump
   both together whenever a signature changes, so that a stale build left in place falls back to numpy). */
int64_t kernels_abi(void) { return 10; }

/* numpy's maximum: the second argument unless the first is larger or NaN (so max(-0.0, 0.0) is 0.0) */
static inline double np_max(double a, double b) { return (a > b || a != a) ? a : b; }

/* sw[i] = probs[seq[i]] where the player acted (seq >= 0), else 1; for every state i < n */
void transition_weights(const idx_t *seq, const double *probs, double *sw, int64_t n) {
    for (int64_t i = 0; i < n; i++) sw[i] = seq[i] >= 0 ? probs[seq[i]] : 1.0;
}

/* the transition weight of state i: sw[i] where the caller has the array, else read from the strategy */
static inline double weight(const double *sw, const idx_t *seq, const double *probs, int64_t i) {
    return sw ? sw[i] : (seq[i] >= 0 ? probs[seq[i]] : 1.0);
}

/* reach[i] = reach[parent[i]] * weight(i) for lo <= i < n; parents precede their children */
void forward_reach(const idx_t *parent, const double *sw, const idx_t *seq, const double *probs, double *reach,
                   int64_t lo, int64_t n) {
    for (int64_t i = lo; i < n; i++) reach[i] = reach[parent[i]] * weight(sw, seq, probs, i);
}

/* v[parent[i]] += v[i] * weight(i), deepest level first: as numpy's bincount does it, each level's children are
   summed in ascending order into `sums` (zeroed, as long as the widest level of parents) and then added to the parents */
void backward_expected(const idx_t *parent, const double *sw, const idx_t *seq, const double *probs, double *v,
                       const int64_t *bounds, int64_t levels, double *sums) {
    for (int64_t d = levels - 1; d >= 1; d--) {
        const int64_t plo = bounds[d - 1], width = bounds[d] - plo;
        memset(sums, 0, (size_t)width * sizeof(double));
        for (int64_t i = bounds[d]; i < bounds[d + 1]; i++) sums[parent[i] - plo] += v[i] * weight(sw, seq, probs, i);
        for (int64_t j = 0; j < width; j++) v[plo + j] += sums[j];
    }
}

/*
 * One level of a best-response sweep (subgame.tree.sweep.backward_best): the children [lo, hi) add their
 * values to their parents [plo, lo), or to the action slots of the player's information sets [ilo, ihi)
 * where her own action leads to them (summed first, as numpy's bincount does); each of those information
 * sets then takes its best legal slot (the first of equal ones), and `best` (if not NULL) records which.
 * `sums` is scratch of (lo - plo) + (ihi - ilo) * a doubles.
 */
void best_level(const idx_t *parent, const idx_t *seq, double *v, int64_t plo, int64_t lo, int64_t hi,
                const uint8_t *legal, const int64_t *infoset_priv, int64_t ilo, int64_t ihi, int64_t a, double *sums,
                int64_t *best) {
    const int64_t width = lo - plo, first = ilo * a;
    double *slots = sums + width;
    memset(sums, 0, (size_t)(width + (ihi - ilo) * a) * sizeof(double));
    for (int64_t i = lo; i < hi; i++) {
        if (seq[i] >= 0) slots[seq[i] - first] += v[i];
        else sums[parent[i] - plo] += v[i];
    }
    for (int64_t j = 0; j < width; j++) v[plo + j] += sums[j];
    for (int64_t r = 0; r < ihi - ilo; r++) {
        const double *x = slots + r * a;
        const uint8_t *l = legal + (ilo + r) * a;
        double top = -INFINITY;
        int64_t arg = 0;
        for (int64_t k = 0; k < a; k++) {
            const double y = l[k] ? x[k] + 0.0 : -INFINITY;
            if (y > top) top = y, arg = k;
        }
        v[infoset_priv[ilo + r]] = top;
        if (best) best[ilo + r] = arg;
    }
}

/* out[seq[i]] += v[i] over the states reached by the player's own action; out starts at zero */
void sequence_values(const idx_t *seq, const double *v, double *out, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (seq[i] >= 0) out[seq[i]] += v[i];
}

/* numpy's sum of a short contiguous row (fewer than 16 entries), in its order of additions */
static inline double row_sum(const double *x, int64_t a) {
    if (a < 8) {
        double s = x[0] + 0.0;
        for (int64_t k = 1; k < a; k++) s += x[k];
        return s;
    }
    double s = ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7]));
    for (int64_t k = 8; k < a; k++) s += x[k];
    return s;
}

/* strategy[i, :] proportional to the positive regrets, uniform over the legal slots without any (a < 16); the
   regrets are T (float64, or float32 read as float64), the strategy float64 */
#define REGRET_MATCHING(NAME, T)                                                                                      \
    void NAME(const T *regrets, const uint8_t *legal, double *strategy, int64_t rows, int64_t a) {                   \
        for (int64_t i = 0; i < rows; i++) {                                                                         \
            const T *r = regrets + i * a;                                                                            \
            double *s = strategy + i * a;                                                                            \
            for (int64_t k = 0; k < a; k++) s[k] = np_max((double)r[k], 0.0);                                        \
            double total = row_sum(s, a);                                                                            \
            if (total > 0.0) {                                                                                       \
                for (int64_t k = 0; k < a; k++) s[k] /= total;                                                       \
            } else {                                                                                                 \
                const uint8_t *l = legal + i * a;                                                                    \
                int64_t count = 0;                                                                                   \
                for (int64_t k = 0; k < a; k++) count += l[k] != 0;                                                  \
                for (int64_t k = 0; k < a; k++) s[k] = l[k] ? 1.0 / (double)count : 0.0;                             \
            }                                                                                                        \
        }                                                                                                            \
    }

REGRET_MATCHING(regret_matching, double)
REGRET_MATCHING(regret_matching_f32, float)

/*
 * One player's regret and average update at her information sets (subgame.solve.rules, an UpdateRule):
 *   regret times the discount of its sign (flag 8: before), plus (sequence value - state value) * legal, floored at 0
 *   (rm+), times the discount of its sign (flag 2: after), times `scale` (flag 4); with `predicted` (not NULL) that
 *   array becomes the new regret plus the increment again (predictive CFR+);
 *   strategy_sum times `sum_discount` (flag 32), plus reach * strategy * weight (flag 16: strategy * weight).
 * Flags: 1 rm+, 2 and 8 the discounts (positive, negative), 4 scale, 16 no reach, 32 sum_discount. The values are
 * float64; the stored regrets and sums are T (float64, or float32 rounded after every step, as numpy's in-place
 * operations on a float32 array round them).
 */
#define UPDATE_REGRETS(NAME, T)                                                                                        \
    void NAME(T *regrets, T *strategy_sum, T *predicted, const double *seqv, const double *v, const double *reach,     \
              const double *strategy, const uint8_t *legal, const int64_t *infoset_priv, int64_t rows, int64_t a,       \
              int flags, double positive, double negative, double scale, double weight, double sum_discount) {          \
        for (int64_t i = 0; i < rows; i++) {                                                                           \
            const int64_t g = infoset_priv[i];                                                                         \
            const double vi = v[g], ri = (flags & 16) ? 1.0 : reach[g];                                                \
            for (int64_t k = 0; k < a; k++) {                                                                          \
                const int64_t j = i * a + k;                                                                           \
                const double inst = (seqv[j] - vi) * (double)legal[j];                                                 \
                T r = regrets[j];                                                                                      \
                if (flags & 8) r = (T)((double)r * (r > 0 ? positive : negative));                                     \
                r = (T)((double)r + inst);                                                                             \
                if (flags & 1) r = (r > 0 || r != r) ? r : (T)0;                                                       \
                if (flags & 2) r = (T)((double)r * (r > 0 ? positive : negative));                                     \
                if (flags & 4) r = (T)((double)r * scale);                                                             \
                regrets[j] = r;                                                                                        \
                if (predicted) predicted[j] = (T)((double)r + inst);                                                   \
                T s = strategy_sum[j];                                                                                 \
                if (flags & 32) s = (T)((double)s * sum_discount);                                                     \
                strategy_sum[j] = (T)((double)s + (ri * strategy[j]) * weight);                                        \
            }                                                                                                          \
        }                                                                                                              \
    }

UPDATE_REGRETS(update_regrets, double)
UPDATE_REGRETS(update_regrets_f32, float)

/*
 * Fold terminals of one board, columns [c0, c1): out[me(i, t)] = value[t] * (the opponent's reach over
 * the hands sharing no card with hand i), by inclusion-exclusion over i's k <= 2 cards.
 * me(i, t) = me_local[i] + me_start[t], likewise opp(i, t); `mass` is scratch of `cards` doubles.
 */
void fold_values(const double *opp, double *out, const int64_t *me_local, const int64_t *me_start,
                 const int64_t *opp_local, const int64_t *opp_start, const double *value, const int64_t *hand_cards,
                 int64_t n, int64_t k, int64_t c0, int64_t c1, double *mass, int64_t cards) {
    for (int64_t t = c0; t < c1; t++) {
        const double *r = opp + opp_start[t];
        double total = 0.0;
        memset(mass, 0, (size_t)cards * sizeof(double));
        for (int64_t i = 0; i < n; i++) {
            const double x = r[opp_local[i]];
            total += x;
            for (int64_t j = 0; j < k; j++) mass[hand_cards[i * k + j]] += x;
        }
        double *o = out + me_start[t];
        for (int64_t i = 0; i < n; i++) {
            double m = total - mass[hand_cards[i * k]];
            if (k == 2) m = (m - mass[hand_cards[i * k + 1]]) + r[opp_local[i]];
            o[me_local[i]] = value[t] * m + 0.0;
        }
    }
}

/*
 * Showdown terminals of one board, columns [c0, c1): with the hands in ascending strength (the ladder: their
 * cards, where each group of tied hands starts, each player's private-state position of them), the opponent's
 * reach over disjoint weaker hands is a running sum over the groups already passed less what those hands hold
 * of the hand's cards; stronger hands likewise from the top. Player 0 gets win[t] * weaker + lose[t] * stronger,
 * player 1 minus lose[t] * weaker + win[t] * stronger. `scratch` holds cards + 2 n doubles.
 */
void showdown_values(const double *opp, double *out, const int64_t *me_local, const int64_t *me_start,
                     const int64_t *opp_local, const int64_t *opp_start, const double *win, const double *lose,
                     const int64_t *hand_cards, const int64_t *ties, int64_t groups, int64_t n, int64_t k, int player,
                     int64_t c0, int64_t c1, double *scratch, int64_t cards) {
    double *mass = scratch, *weaker = scratch + cards, *x = scratch + cards + n;
    for (int64_t t = c0; t < c1; t++) {
        const double *r = opp + opp_start[t];
        double *o = out + me_start[t];
        const double w_below = player == 0 ? win[t] : lose[t], w_above = player == 0 ? lose[t] : win[t];
        for (int64_t q = 0; q < n; q++) x[q] = r[opp_local[q]];
        double total = 0.0;
        memset(mass, 0, (size_t)cards * sizeof(double));
        for (int64_t g = 0; g < groups; g++) {
            for (int64_t q = ties[g]; q < ties[g + 1]; q++) {
                double m = total - mass[hand_cards[q * k]];
                if (k == 2) m -= mass[hand_cards[q * k + 1]];
                weaker[q] = m;
            }
            for (int64_t q = ties[g]; q < ties[g + 1]; q++) {
                total += x[q];
                for (int64_t j = 0; j < k; j++) mass[hand_cards[q * k + j]] += x[q];
            }
        }
        total = 0.0;
        memset(mass, 0, (size_t)cards * sizeof(double));
        for (int64_t g = groups - 1; g >= 0; g--) {
            for (int64_t q = ties[g]; q < ties[g + 1]; q++) {
                double m = total - mass[hand_cards[q * k]];
                if (k == 2) m -= mass[hand_cards[q * k + 1]];
                const double value = w_below * weaker[q] + w_above * m;
                o[me_local[q]] = (player == 0 ? value : -value) + 0.0;
            }
            for (int64_t q = ties[g]; q < ties[g + 1]; q++) {
                total += x[q];
                for (int64_t j = 0; j < k; j++) mass[hand_cards[q * k + j]] += x[q];
            }
        }
    }
}

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

typedef struct {
    const int64_t *node;                   /* [N, NK_COLS] */
    const int64_t *board;                  /* [B, 5]: hands n, first row of its hands, first tie, tie groups, by matrix */
    const int64_t *hand_cards;             /* [rows, k] each board's hands in canonical order */
    const int64_t *ladder_cards;           /* [rows, k] in ascending strength */
    const int64_t *local[2];               /* [rows] each player's row of each canonical hand */
    const int64_t *ladder_local[2];        /* [rows] the same in ascending strength */
    const int64_t *hand_of_row[2];         /* [rows] each player's canonical hand of each of her rows */
    const int64_t *rank;                   /* [rows] each canonical hand's strength rank on its board */
    const int64_t *ties;                   /* per board, where each group of tied hands starts, then n */
    const int64_t *maps[2];                /* chance children: the parent's row of each of the child's rows */
    const int64_t *mirror;                 /* [E, 2] a left-out deal's canonical child and offset of its rows' map */
    const double *term;                    /* [T, 2] fold: (player 0's value, 0); showdown: (win, lose) */
    int64_t k, cards;
} Layout;

typedef struct {
    int kind, f32;                         /* SRC_*; float32 regrets or sums */
    const void *data;                      /* [I, a] regrets, sums (T) or probabilities (float64) */
    const uint8_t *legal;                  /* [I, a] */
    int64_t a;
} Source;

typedef struct {
    void *regrets, *sums, *predicted;      /* the traverser's (predicted: NULL, or what her Source matches from) */
    int flags;
    double positive, negative, scale, weight, sum_discount;
} Update;

typedef struct {
    const Layout *L;
    int p, mode;
    Source src[2];
    Update up;
    const int64_t *iota;                   /* 0, 1, ... (the rows of a node are its own information sets) */
    double *scratch;                       /* cards + 2 * max hands */
    int64_t scratch_size;
    int threads;                           /* for the children of the first chance node met; 1 below it */
    int64_t min_fan;                       /* rows below a chance node from which its children are shared out */
    int failed;
} Pass;

static void visit(Pass *P, int64_t n, const double *own, const double *opp, double *out);

/* chance child c of a node with rows `own` (NULL outside CFR passes) and `opp`: its rows taken through its map into
   `rows` (2 * its hands) and visited, its values into `val` */
static void visit_dealt(Pass *P, int64_t c, const double *own, const double *opp, double *rows, double *val) {
    const int64_t *cd = P->L->node + c * NK_COLS, Hc = cd[NK_SIZE];
    const int64_t *mp = P->L->maps[P->p] + cd[NK_MAP], *mq = P->L->maps[1 - P->p] + cd[NK_MAP];
    double *own_c = rows, *opp_c = rows + Hc;
    if (own) for (int64_t j = 0; j < Hc; j++) own_c[j] = own[mp[j]] * 1.0;
    for (int64_t j = 0; j < Hc; j++) opp_c[j] = opp[mq[j]] * 1.0;
    visit(P, c, own ? own_c : NULL, opp_c, val);
}

/* chance child c's values `val` added to its parent's rows `out` through its map */
static void add_dealt(const Pass *P, int64_t c, const double *val, double *out) {
    const int64_t *cd = P->L->node + c * NK_COLS, Hc = cd[NK_SIZE];
    const int64_t *mp = P->L->maps[P->p] + cd[NK_MAP];
    for (int64_t j = 0; j < Hc; j++) out[mp[j]] += val[j] * 1.0;
}

/* The children of one chance node shared among threads: each takes the next child not yet taken and writes its
   values to its own row of `vals`, which the caller adds to the parent in the children's order afterwards. */
typedef struct {
    const Pass *P;
    int64_t lo, hi, width, next;
    const double *own, *opp;
    double *vals;
    int failed;
} Fan;

static void *fan_worker(void *arg) {
    Fan *F = arg;
    Pass Q = *F->P;
    Q.threads = 1, Q.failed = 0;
    Q.scratch = malloc((size_t)Q.scratch_size * sizeof(double));
    double *rows = malloc((size_t)(2 * F->width) * sizeof(double));
    if (!Q.scratch || !rows) Q.failed = 1;
    for (;;) {
        const int64_t i = __atomic_fetch_add(&F->next, 1, __ATOMIC_RELAXED);
        if (Q.failed || i >= F->hi - F->lo) break;
        visit_dealt(&Q, F->lo + i, F->own, F->opp, rows, F->vals + i * F->width);
    }
    if (Q.failed) __atomic_store_n(&F->failed, 1, __ATOMIC_RELAXED);
    free(Q.scratch), free(rows);
    return NULL;
}

/* the chance node's children on `threads` threads, each child's values kept until all are added to the parent (then
   those of the deals a suit-isomorphic tree left out, as the sweeps add them); returns 0, or -1 where memory ran out */
static int fan_out(Pass *P, const int64_t *nd, int threads, int64_t width, const double *own, const double *opp,
                   double *out) {
    const int64_t lo = nd[NK_CHILD_LO], hi = nd[NK_CHILD_HI], H = nd[NK_SIZE];
    Fan F = {P, lo, hi, width, 0, own, opp, NULL, 0};
    F.vals = malloc((size_t)((hi - lo) * width) * sizeof(double));
    pthread_t tid[64];
    const int extra = (threads < 64 ? threads : 64) - 1;
    int started = 0;
    if (!F.vals) return -1;
    for (; started < extra; started++)
        if (pthread_create(&tid[started], NULL, fan_worker, &F) != 0) break;
    fan_worker(&F);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    if (F.failed) P->failed = 1;
    for (int64_t j = 0; j < H; j++) out[j] = 0.0;
    for (int64_t c = lo; c < hi && !P->failed; c++) add_dealt(P, c, F.vals + (c - lo) * width, out);
    if (nd[NK_MIRROR_LO] < nd[NK_MIRROR_HI] && !P->failed) {
        double *m = calloc((size_t)H, sizeof(double));
        if (!m) {
            free(F.vals);
            return -1;
        }
        for (int64_t e = nd[NK_MIRROR_LO]; e < nd[NK_MIRROR_HI]; e++) {
            const int64_t c = P->L->mirror[2 * e], Hc = P->L->node[c * NK_COLS + NK_SIZE];
            const int64_t *mm = P->L->maps[P->p] + P->L->mirror[2 * e + 1];
            const double *val = F.vals + (c - lo) * width;
            for (int64_t j = 0; j < Hc; j++) m[mm[j]] += val[j] * 1.0;
        }
        for (int64_t j = 0; j < H; j++) out[j] += m[j];
        free(m);
    }
    free(F.vals);
    return 0;
}

/* the strategy of rows [lo, lo + rows) of player q into out [rows, a] */
static void source_rows(const Source *s, int64_t lo, int64_t rows, double *out) {
    const int64_t a = s->a;
    const uint8_t *legal = s->legal + lo * a;
    if (s->kind == SRC_REGRETS) {
        if (s->f32) regret_matching_f32((const float *)s->data + lo * a, legal, out, rows, a);
        else regret_matching((const double *)s->data + lo * a, legal, out, rows, a);
        return;
    }
    if (s->kind == SRC_PROBS) {
        memcpy(out, (const double *)s->data + lo * a, (size_t)(rows * a) * sizeof(double));
        return;
    }
    for (int64_t i = 0; i < rows; i++) { /* the normalized sums (subgame.solve.cfr.average_rows) */
        double *o = out + i * a;
        for (int64_t k = 0; k < a; k++)
            o[k] = s->f32 ? (double)((const float *)s->data)[(lo + i) * a + k] : ((const double *)s->data)[(lo + i) * a + k];
        const double total = row_sum(o, a);
        if (total > 0.0) {
            for (int64_t k = 0; k < a; k++) o[k] /= total;
        } else {
            const uint8_t *l = legal + i * a;
            int64_t count = 0;
            for (int64_t k = 0; k < a; k++) count += l[k] != 0;
            for (int64_t k = 0; k < a; k++) o[k] = l[k] ? 1.0 / (double)count : 0.0;
        }
    }
}

/* whether two hands of k <= 2 cards share a card */
static inline int share(const int64_t *x, const int64_t *y, int64_t k) {
    return k == 1 ? x[0] == y[0] : (x[0] == y[0] || x[0] == y[1] || x[1] == y[0] || x[1] == y[1]);
}

/*
 * A terminal of a board the sweeps value by one sparse payoff matrix (subgame.tree.operators.SparseTerminal, boards of
 * few hands), as its product gives it: row by row of the traverser, player 0's payoff of each decided pair of disjoint
 * hands (fold: t[0]; showdown: t[0] where her hand is stronger, t[1] where weaker) times the opponent's reach, summed
 * from zero over the opponent's rows in ascending order (the matrix's sorted columns); player 1 gets minus that sum.
 */
static void matrix_row(const Layout *L, const int64_t *b, int p, int showdown, const double *t, const double *opp,
                       double *out) {
    const int64_t n = b[0], row = b[1], k = L->k;
    const int64_t *mine = L->hand_of_row[p] + row, *theirs = L->hand_of_row[1 - p] + row;
    const int64_t *cards = L->hand_cards + row * k, *rank = L->rank + row;
    for (int64_t r = 0; r < n; r++) {
        const int64_t h = mine[r];
        double s = 0.0;
        for (int64_t x = 0; x < n; x++) {
            const int64_t g = theirs[x];
            if (share(cards + h * k, cards + g * k, k) || (showdown && rank[h] == rank[g])) continue;
            const double u = !showdown || (p == 0 ? rank[h] > rank[g] : rank[g] > rank[h]) ? t[0] : t[1];
            s += u * opp[x];
        }
        out[r] = p == 0 ? s : -s;
    }
}

static void terminal_row(Pass *P, const int64_t *nd, const double *opp, double *out) {
    const Layout *L = P->L;
    const int64_t *b = L->board + nd[NK_BOARD] * 5, row = b[1], n = b[0], k = L->k, q = 1 - P->p;
    const double *t = L->term + nd[NK_TERM] * 2;
    static const int64_t zero = 0;
    if (b[4]) {
        matrix_row(L, b, P->p, (int)nd[NK_SHOWDOWN], t, opp, out);
    } else if (nd[NK_SHOWDOWN]) {
        showdown_values(opp, out, L->ladder_local[P->p] + row, &zero, L->ladder_local[q] + row, &zero, t, t + 1,
                        L->ladder_cards + row * k, L->ties + b[2], b[3], n, k, P->p, 0, 1, P->scratch, L->cards);
    } else {
        const double value = P->p == 0 ? t[0] : -1.0 * t[0];
        fold_values(opp, out, L->local[P->p] + row, &zero, L->local[q] + row, &zero, &value, L->hand_cards + row * k, n, k,
                    0, 1, P->scratch, L->cards);
    }
}

/* out [rows of n] = the traverser's values at node n, given her reach `own` (NULL outside CFR passes) and the
   opponent's `opp` there */
static void visit(Pass *P, int64_t n, const double *own, const double *opp, double *out) {
    if (P->failed) return;
    const Layout *L = P->L;
    const int64_t *nd = L->node + n * NK_COLS;
    const int64_t H = nd[NK_SIZE], lo = nd[NK_CHILD_LO], hi = nd[NK_CHILD_HI];
    const int p = P->p;
    if (nd[NK_KIND] == K_TERMINAL) {
        terminal_row(P, nd, opp, out);
        return;
    }
    if (nd[NK_KIND] == K_CHANCE) {
        int64_t width = 1;
        for (int64_t c = lo; c < hi; c++) width = L->node[c * NK_COLS + NK_SIZE] > width ? L->node[c * NK_COLS + NK_SIZE] : width;
        const int shared = P->threads > 1 && hi - lo > 1 && nd[NK_ROWS] >= P->min_fan;
        if (shared || nd[NK_MIRROR_LO] < nd[NK_MIRROR_HI]) {
            if (fan_out(P, nd, shared ? P->threads : 1, width, own, opp, out) != 0) P->failed = 1;
            return;
        }
        double *buf = malloc((size_t)(3 * width) * sizeof(double));
        if (!buf) { P->failed = 1; return; }
        double *val = buf + 2 * width;
        for (int64_t j = 0; j < H; j++) out[j] = 0.0;
        for (int64_t c = lo; c < hi && !P->failed; c++) {
            visit_dealt(P, c, own, opp, buf, val);
            add_dealt(P, c, val, out);
        }
        free(buf);
        return;
    }
    const int actor = (int)nd[NK_ACTOR];
    const Source *s = &P->src[actor];
    const int64_t a = s->a, inf = nd[NK_INF];
    double *buf = malloc((size_t)(H * (2 * a + 3)) * sizeof(double));
    if (!buf) { P->failed = 1; return; }
    double *sigma = buf, *slots = buf + H * a, *reach_c = buf + 2 * H * a, *val = reach_c + H, *acc = val + H;
    source_rows(s, inf, H, sigma);
    for (int64_t j = 0; j < H * a; j++) slots[j] = 0.0;
    for (int64_t j = 0; j < H; j++) acc[j] = 0.0;
    for (int64_t c = lo; c < hi && !P->failed; c++) {
        const int64_t slot = c - lo;
        if (actor == p) {
            if (own) for (int64_t j = 0; j < H; j++) reach_c[j] = own[j] * sigma[j * a + slot];
            visit(P, c, own ? reach_c : NULL, opp, val);
            for (int64_t j = 0; j < H; j++) slots[j * a + slot] += val[j];
            if (P->mode != PASS_BEST)
                for (int64_t j = 0; j < H; j++) acc[j] += val[j] * sigma[j * a + slot];
        } else {
            for (int64_t j = 0; j < H; j++) reach_c[j] = opp[j] * sigma[j * a + slot];
            visit(P, c, own, reach_c, val);
            for (int64_t j = 0; j < H; j++) acc[j] += val[j] * 1.0;
        }
    }
    if (actor == p && P->mode == PASS_BEST) {
        for (int64_t j = 0; j < H; j++) {
            const uint8_t *l = s->legal + (inf + j) * a;
            double top = -INFINITY;
            for (int64_t k = 0; k < a; k++) {
                const double y = l[k] ? slots[j * a + k] + 0.0 : -INFINITY;
                if (y > top) top = y;
            }
            out[j] = top;
        }
    } else {
        for (int64_t j = 0; j < H; j++) out[j] = 0.0 + acc[j];
    }
    if (actor == p && P->mode == PASS_CFR && !P->failed) {
        const Update *u = &P->up;
        const size_t at = (size_t)(inf * a);
        if (s->f32)
            update_regrets_f32((float *)u->regrets + at, (float *)u->sums + at, u->predicted ? (float *)u->predicted + at : NULL,
                               slots, out, own, sigma, s->legal + at, P->iota, H, a, u->flags, u->positive, u->negative,
                               u->scale, u->weight, u->sum_discount);
        else
            update_regrets((double *)u->regrets + at, (double *)u->sums + at, u->predicted ? (double *)u->predicted + at : NULL,
                           slots, out, own, sigma, s->legal + at, P->iota, H, a, u->flags, u->positive, u->negative, u->scale,
                           u->weight, u->sum_discount);
    }
    free(buf);
}

/*
 * One pass for player p from the root nodes [0, roots): the CFR update of her regrets and sums (mode PASS_CFR, her
 * reach from `own`), her counterfactual best-response values (PASS_BEST) or her counterfactual values
 * (PASS_VALUES). `own` and `opp` hold each player's reach at the roots' rows one after the other; her values there
 * are written to `out`. The strategies come from `src0` and `src1`. The children of the first chance node on a path
 * with at least `min_fan` rows below it are shared among `threads` threads (each child's arithmetic is the same on any of them, and they are added to
 * their parent in order after all are done: the result does not depend on the count). Returns 0, or -1 where
 * memory ran out.
 */
int64_t poker_pass(const Layout *L, int p, int mode, const Source *src0, const Source *src1, const Update *up,
                   int64_t roots, const double *own, const double *opp, double *out, int64_t max_hands, int64_t threads,
                   int64_t min_fan) {
    Pass P = {L, p, mode, {*src0, *src1}, {0}, NULL, NULL, L->cards + 2 * max_hands + 1, threads > 1 ? (int)threads : 1,
              min_fan, 0};
    if (up) P.up = *up;
    int64_t *iota = malloc((size_t)(max_hands > 0 ? max_hands : 1) * sizeof(int64_t));
    double *scratch = malloc((size_t)P.scratch_size * sizeof(double));
    if (!iota || !scratch) {
        free(iota), free(scratch);
        return -1;
    }
    for (int64_t j = 0; j < max_hands; j++) iota[j] = j;
    P.iota = iota, P.scratch = scratch;
    int64_t at = 0;
    for (int64_t r = 0; r < roots && !P.failed; r++) {
        visit(&P, r, mode == PASS_CFR ? own + at : NULL, opp + at, out + at);
        at += L->node[r * NK_COLS + NK_SIZE];
    }
    free(iota), free(scratch);
    return P.failed ? -1 : 0;
}

static struct PyModuleDef kernels_module = {PyModuleDef_HEAD_INIT, "_kernels",
                                            "Compiled sweep and poker-operator loops, called through ctypes.", -1, NULL};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&kernels_module); }
