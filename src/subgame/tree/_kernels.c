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

#include "_rows.h"

typedef int32_t idx_t;

/* The version of these functions' signatures: subgame.tree.kernels refuses a library built from another one (bump
   both together whenever a signature changes, so that a stale build left in place falls back to numpy). */
int64_t kernels_abi(void) { return 27; }

/* numpy's maximum: the second argument unless the first is larger or NaN (so max(-0.0, 0.0) is 0.0) */
static inline double np_max(double a, double b) { return (a > b || a != a) ? a : b; }

/* np_max(x, 0.0) as a selection the compiler makes without a branch: x where x > 0 or x is NaN, else 0.0 (-0.0 too) */
static inline double positive_part(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits &= (uint64_t)0 - (uint64_t)!(x <= 0.0);
    memcpy(&x, &bits, sizeof bits);
    return x;
}

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

/* Inlined into each caller, so that a body called with constant arguments (an action count, a set of flags) is
   compiled as a loop of its own for them: the same operations in the same order, without the tests of the general one */
#define INLINE static inline __attribute__((always_inline))
/* A loop over a row of hands compiled twice, for AVX2 and for the baseline, the one the processor runs chosen when the
   library loads (GCC on x86-64 Linux; -ffp-contract=off keeps each multiply and add apart, so both give the same bits) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define ROW_LOOPS __attribute__((target_clones("avx2", "default")))
#else
#define ROW_LOOPS
#endif
/* two doubles, and two 64-bit masks (GCC's and Clang's vector extensions: SSE2 on x86-64, NEON on ARM) */
typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2i __attribute__((vector_size(16)));

/* strategy[i, :] proportional to the positive regrets, uniform over the legal slots without any (a < 16); the
   regrets are T (float64, or float32 read as float64), the strategy float64. NAME_rows reads the regrets and legal
   masks of rows at[i] (the depth-first passes' live rows) and writes row i's strategy action by action
   (strategy[k * rows + i]: the passes' buffers, a node's actions × its rows). NAME_compact does the same for storage
   laid out that way too (compact storage: regrets[k * rows + i]), each action's loop over the rows apart, so that the
   compiler runs it over several rows at once: per row the same operations in the same order as NAME_row. NAME_body
   runs for a = 2, ..., 8 with a constant count. With positive 0 (NAME_average) the rows are normalized as they are:
   the average strategy of strategy sums (subgame.solve.plan.average_rows). */
#define REGRET_MATCHING(NAME, T)                                                                                      \
    INLINE void NAME##_row(const T *restrict r, const uint8_t *restrict l, double *restrict s, int64_t a,             \
                           int positive) {                                                                            \
        int64_t k0 = 0;                                                                                               \
        if (positive && sizeof(T) == sizeof(double)) /* two at a time: x <= 0 (-0.0 too, not NaN) cleared */          \
            for (; k0 + 1 < a; k0 += 2) {                                                                             \
                v2d x;                                                                                                \
                memcpy(&x, r + k0, sizeof x);                                                                         \
                const v2i clear = x <= 0.0;                                                                           \
                x = (v2d)((v2i)x & ~clear);                                                                           \
                memcpy(s + k0, &x, sizeof x);                                                                         \
            }                                                                                                         \
        for (int64_t k = k0; k < a; k++) s[k] = positive ? positive_part((double)r[k]) : (double)r[k];                \
        double total = row_sum(s, a);                                                                                 \
        if (total > 0.0) {                                                                                            \
            for (int64_t k = 0; k < a; k++) s[k] /= total;                                                            \
        } else {                                                                                                      \
            int64_t count = 0;                                                                                        \
            for (int64_t k = 0; k < a; k++) count += l[k] != 0;                                                       \
            for (int64_t k = 0; k < a; k++) s[k] = l[k] ? 1.0 / (double)count : 0.0;                                  \
        }                                                                                                             \
    }                                                                                                                 \
    INLINE void NAME##_body(const T *restrict regrets, const uint8_t *restrict legal, double *restrict strategy,      \
                            int64_t rows, int64_t n, int64_t a, const row_t *restrict at, int positive,               \
                            int by_action) {                                                                          \
        double s[n > 0 ? n : 1];                                                                                      \
        for (int64_t i = 0; i < rows; i++) {                                                                          \
            const int64_t g = at ? at[i] : i;                                                                         \
            if (!by_action) {                                                                                         \
                NAME##_row(regrets + g * a, legal + g * a, strategy + i * a, n, positive);                            \
                continue;                                                                                             \
            }                                                                                                         \
            NAME##_row(regrets + g * a, legal + g * a, s, n, positive);                                               \
            for (int64_t k = 0; k < n; k++) strategy[k * rows + i] = s[k];                                            \
        }                                                                                                             \
    }                                                                                                                 \
    INLINE void NAME##_columns(const T *restrict regrets, const uint8_t *restrict legal, double *restrict strategy,   \
                               double *restrict total, int64_t rows, int64_t n, int positive) {                       \
        if (n >= 8) { /* numpy's order of a longer row's sum: row by row */                                           \
            int64_t x0 = 0; /* the node's slots, all n * rows of them one after another */                            \
            if (positive) /* two at a time: x <= 0 (-0.0 too, not NaN) cleared */                                     \
                for (; x0 + 1 < n * rows; x0 += 2) {                                                                  \
                    v2d x = {(double)regrets[x0], (double)regrets[x0 + 1]};                                           \
                    const v2i clear = x <= 0.0;                                                                       \
                    x = (v2d)((v2i)x & ~clear);                                                                       \
                    memcpy(strategy + x0, &x, sizeof x);                                                              \
                }                                                                                                     \
            for (int64_t x = x0; x < n * rows; x++)                                                                   \
                strategy[x] = positive ? positive_part((double)regrets[x]) : (double)regrets[x];                      \
            for (int64_t i = 0; i < rows; i++) {                                                                      \
                double x[n];                                                                                          \
                for (int64_t k = 0; k < n; k++) x[k] = strategy[k * rows + i];                                        \
                total[i] = row_sum(x, n);                                                                             \
            }                                                                                                         \
        } else { /* each action's slots added to the rows' totals as they are written (a pass fewer over them) */     \
            for (int64_t i = 0; i < rows; i++) {                                                                      \
                const double r = (double)regrets[i], x = positive ? positive_part(r) : r;                             \
                strategy[i] = x;                                                                                      \
                total[i] = x + 0.0;                                                                                   \
            }                                                                                                         \
            for (int64_t k = 1; k < n; k++)                                                                           \
                for (int64_t i = 0; i < rows; i++) {                                                                  \
                    const double r = (double)regrets[k * rows + i], x = positive ? positive_part(r) : r;              \
                    strategy[k * rows + i] = x;                                                                       \
                    total[i] += x;                                                                                    \
                }                                                                                                     \
        }                                                                                                             \
        for (int64_t k = 0; k < n; k++)                                                                               \
            for (int64_t i = 0; i < rows; i++) strategy[k * rows + i] /= total[i]; /* rows without: redone below */   \
        for (int64_t i = 0; i < rows; i++) {                                                                          \
            if (total[i] > 0.0) continue;                                                                             \
            int64_t count = 0;                                                                                        \
            for (int64_t k = 0; k < n; k++) count += legal[k * rows + i] != 0;                                        \
            for (int64_t k = 0; k < n; k++) strategy[k * rows + i] = legal[k * rows + i] ? 1.0 / (double)count : 0.0; \
        }                                                                                                             \
    }                                                                                                                 \
    static void NAME##_at(const T *regrets, const uint8_t *legal, double *strategy, int64_t rows, int64_t n,          \
                          int64_t a, const row_t *at, int positive, int by_action) {                                  \
        switch (n) {                                                                                                  \
        case 2: NAME##_body(regrets, legal, strategy, rows, 2, a, at, positive, by_action); break;                    \
        case 3: NAME##_body(regrets, legal, strategy, rows, 3, a, at, positive, by_action); break;                    \
        case 4: NAME##_body(regrets, legal, strategy, rows, 4, a, at, positive, by_action); break;                    \
        case 5: NAME##_body(regrets, legal, strategy, rows, 5, a, at, positive, by_action); break;                    \
        case 6: NAME##_body(regrets, legal, strategy, rows, 6, a, at, positive, by_action); break;                    \
        case 7: NAME##_body(regrets, legal, strategy, rows, 7, a, at, positive, by_action); break;                    \
        case 8: NAME##_body(regrets, legal, strategy, rows, 8, a, at, positive, by_action); break;                    \
        default: NAME##_body(regrets, legal, strategy, rows, n, a, at, positive, by_action);                          \
        }                                                                                                             \
    }                                                                                                                 \
    ROW_LOOPS static void NAME##_columns_at(const T *regrets, const uint8_t *legal, double *strategy,                 \
                                            double *total, int64_t rows, int64_t n, int positive) {                   \
        switch (n) {                                                                                                  \
        case 2: NAME##_columns(regrets, legal, strategy, total, rows, 2, positive); break;                             \
        case 3: NAME##_columns(regrets, legal, strategy, total, rows, 3, positive); break;                            \
        case 4: NAME##_columns(regrets, legal, strategy, total, rows, 4, positive); break;                            \
        default: NAME##_columns(regrets, legal, strategy, total, rows, n, positive);                                  \
        }                                                                                                             \
    }                                                                                                                 \
    void NAME(const T *regrets, const uint8_t *legal, double *strategy, int64_t rows, int64_t a) {                    \
        NAME##_at(regrets, legal, strategy, rows, a, a, NULL, 1, 0);                                                  \
    }                                                                                                                 \
    void NAME##_rows(const T *regrets, const uint8_t *legal, double *strategy, int64_t rows, int64_t a,               \
                     const row_t *at, int64_t n) {                                                                    \
        NAME##_at(regrets, legal, strategy, rows, n, a, at, 1, 1);                                                    \
    }                                                                                                                 \
    void NAME##_compact(const T *regrets, const uint8_t *legal, double *strategy, double *total, int64_t rows,        \
                        int64_t n) {                                                                                  \
        NAME##_columns_at(regrets, legal, strategy, total, rows, n, 1);                                               \
    }                                                                                                                 \
    void NAME##_average(const T *sums, const uint8_t *legal, double *strategy, int64_t rows, int64_t a) {             \
        NAME##_at(sums, legal, strategy, rows, a, a, NULL, 0, 0);                                                     \
    }                                                                                                                 \
    void NAME##_average_rows(const T *sums, const uint8_t *legal, double *strategy, int64_t rows, int64_t a,          \
                             const row_t *at, int64_t n) {                                                            \
        NAME##_at(sums, legal, strategy, rows, n, a, at, 0, 1);                                                       \
    }                                                                                                                 \
    void NAME##_average_compact(const T *sums, const uint8_t *legal, double *strategy, double *total, int64_t rows,   \
                                int64_t n) {                                                                          \
        NAME##_columns_at(sums, legal, strategy, total, rows, n, 0);                                                  \
    }

REGRET_MATCHING(regret_matching, double)
REGRET_MATCHING(regret_matching_f32, float)
REGRET_MATCHING(regret_matching_i16, int16_t)
REGRET_MATCHING(regret_matching_u16, uint16_t)

/*
 * One player's regret and average update at her information sets (subgame.solve.rules, an UpdateRule):
 *   regret times the discount of its sign (flag 8: before), plus (sequence value - state value) * legal, floored at 0
 *   (rm+), times the discount of its sign (flag 2: after), times `scale` (flag 4); with `predicted` (not NULL) that
 *   array becomes the new regret plus the increment again (predictive CFR+);
 *   strategy_sum times `sum_discount` (flag 32), plus reach * strategy * weight (flag 16: strategy * weight).
 * Flags: 1 rm+, 2 and 8 the discounts (positive, negative), 4 scale, 16 no reach, 32 sum_discount. The values are
 * float64; the stored regrets and sums are T (float64, or float32 rounded after every step, as numpy's in-place
 * operations on a float32 array round them). NAME_rows updates the stored rows at[i] (at NULL: 0, 1, ...; and reads
 * their legal masks) from row i of seqv and strategy, laid out action by action (seqv[k * rows + i]: the passes'
 * buffers), over the first n of each row's a slots (a node's own actions: the others, zero and illegal, would stay
 * zero); infoset_priv NULL stands for 0, 1, ... NAME_compact does the same for storage laid out action by action too
 * (compact storage), each action's loop over the rows apart. NAME_body runs for the flags of the presets (0 cfr, 1
 * cfr+ and pcfr+, 2 dcfr, 3 dcfr+, 19 dcfr+-postflop, 56 dcfr-postflop) with constant flags.
 */
#define UPDATE_REGRETS(NAME, T)                                                                                        \
    INLINE void NAME##_slot(T *restrict rg, T *restrict sm, T *restrict pr, double sq, double st, uint8_t lg,          \
                            double vi, double ri, int flags, const double *discount, double scale, double weight,      \
                            double sum_discount) {                                                                     \
        const double inst = (sq - vi) * (double)lg;                                                                    \
        T r = *rg;                                                                                                     \
        if (flags & 8) r = (T)((double)r * discount[r > 0]);                                                           \
        r = (T)((double)r + inst);                                                                                     \
        if (flags & 1) r = ((r > 0) | (r != r)) ? r : (T)0;                                                            \
        /* after rm+'s floor a regret is 0, NaN or positive: the positive discount leaves 0 and NaN as they are */     \
        if (flags & 2) r = (T)((double)r * ((flags & 1) ? discount[1] : discount[r > 0]));                             \
        if (flags & 4) r = (T)((double)r * scale);                                                                     \
        *rg = r;                                                                                                       \
        if (pr) *pr = (T)((double)r + inst);                                                                           \
        T s = *sm;                                                                                                     \
        if (flags & 32) s = (T)((double)s * sum_discount);                                                             \
        *sm = (T)((double)s + (ri * st) * weight);                                                                     \
    }                                                                                                                  \
    /* row i's n slots; its seqv and strategy entries `cs` apart (1: a row of its own; rows: action by action) */      \
    INLINE void NAME##_body(T *regrets, T *strategy_sum, T *predicted, const double *seqv, const double *v,            \
                            const double *reach, const double *strategy, const uint8_t *legal,                         \
                            const int64_t *infoset_priv, int64_t rows, int64_t a, int flags, double positive,          \
                            double negative, double scale, double weight, double sum_discount, const row_t *at,        \
                            int64_t n, int64_t cs) {                                                                   \
        const double discount[2] = {negative, positive}; /* by the sign, without a branch that mispredicts */          \
        for (int64_t i = 0; i < rows; i++) {                                                                           \
            const int64_t g = infoset_priv ? infoset_priv[i] : i, row = at ? at[i] : i;                                \
            const double vi = v[g], ri = (flags & 16) ? 1.0 : reach[g];                                                \
            const int64_t in = cs == 1 ? i * a : i;                                                                    \
            for (int64_t k = 0; k < n; k++) {                                                                          \
                const int64_t x = row * a + k;                                                                         \
                NAME##_slot(regrets + x, strategy_sum + x, predicted ? predicted + x : NULL, seqv[in + k * cs],         \
                            strategy[in + k * cs], legal[x], vi, ri, flags, discount, scale, weight, sum_discount);    \
            }                                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
    INLINE void NAME##_columns(T *restrict regrets, T *restrict strategy_sum, T *restrict predicted,                   \
                               const double *restrict seqv, const double *restrict v, const double *restrict reach,    \
                               const double *restrict strategy, const uint8_t *restrict legal, int64_t rows,           \
                               int flags, double positive, double negative, double scale, double weight,               \
                               double sum_discount, int64_t n) {                                                       \
        const double discount[2] = {negative, positive};                                                               \
        for (int64_t k = 0; k < n; k++)                                                                                \
            for (int64_t i = 0; i < rows; i++) {                                                                       \
                const int64_t x = k * rows + i;                                                                        \
                NAME##_slot(regrets + x, strategy_sum + x, predicted ? predicted + x : NULL, seqv[x], strategy[x],     \
                            legal[x], v[i], (flags & 16) ? 1.0 : reach[i], flags, discount, scale, weight,             \
                            sum_discount);                                                                             \
            }                                                                                                          \
    }                                                                                                                  \
    static void NAME##_at(T *regrets, T *strategy_sum, T *predicted, const double *seqv, const double *v,              \
                          const double *reach, const double *strategy, const uint8_t *legal,                           \
                          const int64_t *infoset_priv, int64_t rows, int64_t a, int flags, double positive,            \
                          double negative, double scale, double weight, double sum_discount, const row_t *at,          \
                          int64_t n, int64_t cs) {                                                                     \
        switch (flags) {                                                                                               \
        case 0: NAME##_body(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, infoset_priv, rows, a,   \
                            0, positive, negative, scale, weight, sum_discount, at, n, cs); break;                      \
        case 1: NAME##_body(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, infoset_priv, rows, a,   \
                            1, positive, negative, scale, weight, sum_discount, at, n, cs); break;                      \
        case 2: NAME##_body(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, infoset_priv, rows, a,   \
                            2, positive, negative, scale, weight, sum_discount, at, n, cs); break;                      \
        case 3: NAME##_body(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, infoset_priv, rows, a,  \
                            3, positive, negative, scale, weight, sum_discount, at, n, cs); break;                     \
        case 19: NAME##_body(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, infoset_priv, rows, a, \
                             19, positive, negative, scale, weight, sum_discount, at, n, cs); break;                   \
        case 56: NAME##_body(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, infoset_priv, rows, a,  \
                             56, positive, negative, scale, weight, sum_discount, at, n, cs); break;                    \
        default: NAME##_body(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, infoset_priv, rows, a,  \
                             flags, positive, negative, scale, weight, sum_discount, at, n, cs);                       \
        }                                                                                                              \
    }                                                                                                                  \
    void NAME(T *regrets, T *strategy_sum, T *predicted, const double *seqv, const double *v, const double *reach,     \
              const double *strategy, const uint8_t *legal, const int64_t *infoset_priv, int64_t rows, int64_t a,       \
              int flags, double positive, double negative, double scale, double weight, double sum_discount) {          \
        NAME##_at(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, infoset_priv, rows, a, flags,      \
                  positive, negative, scale, weight, sum_discount, NULL, a, 1);                                         \
    }                                                                                                                  \
    void NAME##_rows(T *regrets, T *strategy_sum, T *predicted, const double *seqv, const double *v,                   \
                     const double *reach, const double *strategy, const uint8_t *legal, const int64_t *infoset_priv,    \
                     int64_t rows, int64_t a, int flags, double positive, double negative, double scale, double weight, \
                     double sum_discount, const row_t *at, int64_t n) {                                                 \
        NAME##_at(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, infoset_priv, rows, a, flags,      \
                  positive, negative, scale, weight, sum_discount, at, n, rows);                                        \
    }                                                                                                                  \
    ROW_LOOPS void NAME##_compact(T *regrets, T *strategy_sum, T *predicted, const double *seqv, const double *v,     \
                                  const double *reach, const double *strategy, const uint8_t *legal, int64_t rows,    \
                                  int flags, double positive, double negative, double scale, double weight,           \
                                  double sum_discount, int64_t n) {                                                   \
        switch (flags) {                                                                                               \
        case 1: NAME##_columns(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, rows, 1, positive,    \
                               negative, scale, weight, sum_discount, n); break;                                        \
        case 2: NAME##_columns(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, rows, 2, positive,    \
                               negative, scale, weight, sum_discount, n); break;                                        \
        case 3: NAME##_columns(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, rows, 3, positive,   \
                               negative, scale, weight, sum_discount, n); break;                                       \
        case 19: NAME##_columns(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, rows, 19, positive, \
                                negative, scale, weight, sum_discount, n); break;                                      \
        case 56: NAME##_columns(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, rows, 56, positive,  \
                                negative, scale, weight, sum_discount, n); break;                                       \
        default: NAME##_columns(regrets, strategy_sum, predicted, seqv, v, reach, strategy, legal, rows, flags,         \
                                positive, negative, scale, weight, sum_discount, n);                                    \
        }                                                                                                              \
    }

UPDATE_REGRETS(update_regrets, double)
UPDATE_REGRETS(update_regrets_f32, float)

/*
 * One fold of one board: out[mrow[i]] = value * (the opponent's reach over her hands sharing no card with the
 * traverser's hand i), for the traverser's nm hands (rows mrow in `out`, cards mc, [k] each) against the opponent's no
 * hands (reach opp[orow[u]], cards oc), by inclusion-exclusion over i's k <= 2 cards: with two cards the hand itself,
 * subtracted twice, is added back (twin[i]: the opponent's row of it, -1 where she has none). `mass` is scratch of
 * `cards` doubles.
 *
 * One showdown of one board by its ladder: the traverser's hands in ascending strength (their rows mrow in `out`,
 * cards mc, [k] each; tie group g's hands at mt[g] .. mt[g+1] - 1) against the opponent's (reach opp[orow[u]], cards
 * oc, groups at ot). The opponent's reach over disjoint weaker hands is a running sum over the groups already passed
 * less what those hands hold of the hand's cards; stronger hands likewise from the top. out[mrow[j]] = w_below *
 * weaker + w_above * stronger, negated where `negate`. `scratch` holds cards + the traverser's hands doubles.
 *
 * The rows of reaches and values are R: float64 (removal_values, ladder_values and the passes' _rows forms), or
 * float32 (removal_values_f32, ladder_values_f32: the float32 passes of _passes_single.c); the sums are float64 either
 * way, each value rounded to R once. The positions mrow, twin and orow are I: the sweeps' int64 private states, or the
 * passes' int16 rows of a node.
 */
#define REMOVAL_SUMS(SUFFIX, R, I)                                                                                     \
    /* total plus the opponent's reach over her hands lo .. hi - 1, and each card's share into mass */                 \
    INLINE double add_opponents##SUFFIX(const R *opp, const I *orow, const uint8_t *oc, int64_t lo, int64_t hi,        \
                                        int64_t k, double total, double *mass) {                                       \
        for (int64_t u = lo; u < hi; u++) {                                                                            \
            const double x = (double)opp[orow[u]];                                                                     \
            if (x == 0.0) continue; /* adds nothing (both sums start at +0.0 and never hold -0.0) */                   \
            total += x;                                                                                                \
            for (int64_t c = 0; c < k; c++) mass[oc[u * k + c]] += x;                                                  \
        }                                                                                                              \
        return total;                                                                                                  \
    }                                                                                                                  \
    INLINE void removal_body##SUFFIX(const R *opp, R *out, const I *mrow, const uint8_t *mc,                           \
                                     const I *twin, int64_t nm, const I *orow, const uint8_t *oc,                      \
                                     int64_t no, int64_t k, double value, double *mass, int64_t cards) {               \
        memset(mass, 0, (size_t)cards * sizeof(double));                                                               \
        const double total = add_opponents##SUFFIX(opp, orow, oc, 0, no, k, 0.0, mass);                                \
        for (int64_t i = 0; i < nm; i++) {                                                                             \
            double m = total - mass[mc[i * k]];                                                                        \
            if (k == 2) m = (m - mass[mc[i * k + 1]]) + (twin[i] >= 0 ? (double)opp[twin[i]] : 0.0);                   \
            out[mrow[i]] = (R)(value * m + 0.0);                                                                       \
        }                                                                                                              \
    }                                                                                                                  \
    void removal_values##SUFFIX(const R *opp, R *out, const I *mrow, const uint8_t *mc, const I *twin,                 \
                                int64_t nm, const I *orow, const uint8_t *oc, int64_t no, int64_t k,                   \
                                double value, double *mass, int64_t cards) {                                           \
        if (k == 2) removal_body##SUFFIX(opp, out, mrow, mc, twin, nm, orow, oc, no, 2, value, mass, cards);           \
        else removal_body##SUFFIX(opp, out, mrow, mc, twin, nm, orow, oc, no, k, value, mass, cards);                  \
    }

#define LADDER_SUMS(SUFFIX, R, I)                                                                                      \
    INLINE void ladder_body##SUFFIX(const R *opp, R *out, const I *mrow, const uint8_t *mc, const int64_t *mt,         \
                                    const I *orow, const uint8_t *oc, const int64_t *ot, int64_t groups,               \
                                    int64_t k, double w_below, double w_above, int negate, double *scratch,            \
                                    int64_t cards) {                                                                   \
        double *mass = scratch, *weaker = scratch + cards, total = 0.0;                                                \
        memset(mass, 0, (size_t)cards * sizeof(double));                                                               \
        for (int64_t g = 0; g < groups; g++) {                                                                         \
            for (int64_t j = mt[g]; j < mt[g + 1]; j++) {                                                              \
                double m = total - mass[mc[j * k]];                                                                    \
                if (k == 2) m -= mass[mc[j * k + 1]];                                                                  \
                weaker[j] = m;                                                                                         \
            }                                                                                                          \
            total = add_opponents##SUFFIX(opp, orow, oc, ot[g], ot[g + 1], k, total, mass);                            \
        }                                                                                                              \
        total = 0.0;                                                                                                   \
        memset(mass, 0, (size_t)cards * sizeof(double));                                                               \
        for (int64_t g = groups - 1; g >= 0; g--) {                                                                    \
            for (int64_t j = mt[g]; j < mt[g + 1]; j++) {                                                              \
                double m = total - mass[mc[j * k]];                                                                    \
                if (k == 2) m -= mass[mc[j * k + 1]];                                                                  \
                const double value = w_below * weaker[j] + w_above * m;                                                \
                out[mrow[j]] = (R)((negate ? -value : value) + 0.0);                                                   \
            }                                                                                                          \
            total = add_opponents##SUFFIX(opp, orow, oc, ot[g], ot[g + 1], k, total, mass);                            \
        }                                                                                                              \
    }                                                                                                                  \
    void ladder_values##SUFFIX(const R *opp, R *out, const I *mrow, const uint8_t *mc, const int64_t *mt,              \
                               const I *orow, const uint8_t *oc, const int64_t *ot, int64_t groups, int64_t k,         \
                               double w_below, double w_above, int negate, double *scratch, int64_t cards) {           \
        if (k == 2)                                                                                                    \
            ladder_body##SUFFIX(opp, out, mrow, mc, mt, orow, oc, ot, groups, 2, w_below, w_above, negate, scratch,    \
                                cards);                                                                                \
        else                                                                                                           \
            ladder_body##SUFFIX(opp, out, mrow, mc, mt, orow, oc, ot, groups, k, w_below, w_above, negate, scratch,    \
                                cards);                                                                                \
    }

REMOVAL_SUMS(, double, int64_t)       /* the sweeps: private-state positions */
REMOVAL_SUMS(_rows, double, row_t)    /* the depth-first passes: rows of a node, a layout's int16 */
REMOVAL_SUMS(_f32, float, row_t)
LADDER_SUMS(, double, int64_t)
LADDER_SUMS(_rows, double, row_t)

/* ladder_values in float32 rows, in one pass up the ladder: a hand's opponents weaker and disjoint as there, and its
   stronger ones as (all disjoint) - (weaker or tied, disjoint), both counted from the running sums (T - mass[c1] -
   mass[c2]), the hand's own cards in both so their correction cancels. One sum over the opponent's hands instead of
   two; other roundings than ladder_values (float64 sums, each value rounded to float32 once), which the float32
   passes' tests hold to float64's. `scratch`: cards + twice the traverser's hands doubles. */
/* the reach `mass` leaves of `total` for a hand with cards c: what its opponents hold of neither card */
INLINE double disjoint_of(double total, const double *mass, const uint8_t *c, int64_t k) {
    double m = total - mass[c[0]];
    if (k == 2) m -= mass[c[1]];
    return m;
}

INLINE void ladder_one_pass(const float *opp, float *out, const row_t *mrow, const uint8_t *mc, const int64_t *mt,
                            const row_t *orow, const uint8_t *oc, const int64_t *ot, int64_t groups, int64_t k,
                            double w_below, double w_above, int negate, double *scratch, int64_t cards) {
    double *mass = scratch, *weaker = scratch + cards, *upto = weaker + mt[groups], total = 0.0;
    memset(mass, 0, (size_t)cards * sizeof(double));
    for (int64_t g = 0; g < groups; g++) {
        for (int64_t j = mt[g]; j < mt[g + 1]; j++) weaker[j] = disjoint_of(total, mass, mc + j * k, k);
        total = add_opponents_f32(opp, orow, oc, ot[g], ot[g + 1], k, total, mass);
        for (int64_t j = mt[g]; j < mt[g + 1]; j++) upto[j] = disjoint_of(total, mass, mc + j * k, k);
    }
    for (int64_t j = 0; j < mt[groups]; j++) {
        const double value = w_below * weaker[j] + w_above * (disjoint_of(total, mass, mc + j * k, k) - upto[j]);
        out[mrow[j]] = (float)((negate ? -value : value) + 0.0);
    }
}

void ladder_values_f32(const float *opp, float *out, const row_t *mrow, const uint8_t *mc, const int64_t *mt,
                       const row_t *orow, const uint8_t *oc, const int64_t *ot, int64_t groups, int64_t k,
                       double w_below, double w_above, int negate, double *scratch, int64_t cards) {
    if (k == 2)
        ladder_one_pass(opp, out, mrow, mc, mt, orow, oc, ot, groups, 2, w_below, w_above, negate, scratch, cards);
    else
        ladder_one_pass(opp, out, mrow, mc, mt, orow, oc, ot, groups, k, w_below, w_above, negate, scratch, cards);
}

/*
 * Fold terminals of one board, columns [c0, c1), by removal_values over the board's hands (both players hold all of
 * them; me_local and opp_local their private-state positions): out[me(i, t)] = value[t] * (the opponent's reach over
 * the hands sharing no card with hand i), me(i, t) = me_local[i] + me_start[t], likewise opp(i, t).
 */
void fold_values(const double *opp, double *out, const int64_t *me_local, const int64_t *me_start,
                 const int64_t *opp_local, const int64_t *opp_start, const double *value, const uint8_t *hand_cards,
                 int64_t n, int64_t k, int64_t c0, int64_t c1, double *mass, int64_t cards) {
    for (int64_t t = c0; t < c1; t++)
        removal_values(opp + opp_start[t], out + me_start[t], me_local, hand_cards, opp_local, n, opp_local, hand_cards,
                       n, k, value[t], mass, cards);
}

/*
 * Showdown terminals of one board, columns [c0, c1), by ladder_values over the board's ladder (both players' hands,
 * each player's private-state position of them). Player 0 gets win[t] * weaker + lose[t] * stronger, player 1 minus
 * lose[t] * weaker + win[t] * stronger. `scratch` holds cards + n doubles.
 */
void showdown_values(const double *opp, double *out, const int64_t *me_local, const int64_t *me_start,
                     const int64_t *opp_local, const int64_t *opp_start, const double *win, const double *lose,
                     const uint8_t *hand_cards, const int64_t *ties, int64_t groups, int64_t k, int player, int64_t c0,
                     int64_t c1, double *scratch, int64_t cards) {
    for (int64_t t = c0; t < c1; t++)
        ladder_values(opp + opp_start[t], out + me_start[t], me_local, hand_cards, ties, opp_local, hand_cards, ties,
                      groups, k, player == 0 ? win[t] : lose[t], player == 0 ? lose[t] : win[t], player != 0, scratch,
                      cards);
}

/* leaf_values: the reach of the hands at ladder positions [q0, q1) added to the running sums per giver bucket
 * (`total`, [kx, U]) and per card held (`mass`, [cards, kx, U]) */
static inline void add_group(double *total, double *mass, const double *reach, const int64_t *order, int64_t q0, int64_t q1,
                             const int64_t *hand_cards, int64_t k, const int64_t *gb, int64_t T, int64_t t, int64_t kx,
                             int64_t U) {
    const int64_t w = U * kx;
    for (int64_t q = q0; q < q1; q++) {
        const int64_t h = order[q];
        const double *r = reach + (h * T + t) * kx;
        for (int64_t x = 0; x < kx; x++) {
            const int64_t off = x * U + gb[h];
            total[off] += r[x];
            for (int64_t j = 0; j < k; j++) mass[hand_cards[h * k + j] * w + off] += r[x];
        }
    }
}

/*
 * Depth-limited leaves of one last-round board (subgame.depthlimited.poker_leaf): for each receiver hand i, leaf
 * column t and continuation k,
 *   out[i, t, k] = weight[t] * sum_u sum_j coef[seq[t], k, j, rb[i], u] * part_j(i, t, x, u),
 * part_j the giver's reach over the hands in giver bucket u that share no card with i: all of them (j = 0), the
 * weaker (1), the stronger (2), the tied (3); x = k where the reach has a column per continuation (kx == K), else 0.
 * One ascending and one descending pass over the hands in strength order (`order`, groups of ties at `ties`) keep
 * per bucket the running reach and what each card holds of it, as showdown_values does for one bucket.
 * reach [n, T, kx], out [n, T, K], coef [S, K, 4, ur, U] (n = ties[groups]); scratch: 2 * cards * U * kx + 2 * U * kx
 * + n * U * kx doubles.
 */
static void leaf_values(const double *reach, double *out, const double *coef, const int64_t *seq, const double *weight,
                        const int64_t *order, const int64_t *ties, int64_t groups, const int64_t *hand_cards, int64_t k,
                        const int64_t *gb, const int64_t *rb, int64_t T, int64_t K, int64_t kx, int64_t ur, int64_t U,
                        int64_t cards, double *scratch) {
    const int64_t w = U * kx;  /* one hand's or card's entry: [kx, U], a giver bucket's sums contiguous per x */
    const int64_t ru = ur * U;  /* one part's rows of the coefficients */
    double *mass = scratch, *above = mass + cards * w, *tot = above + cards * w, *top = tot + w, *weaker = top + w;
    for (int64_t t = 0; t < T; t++) {
        const double *c_t = coef + seq[t] * K * 4 * ru;
        memset(mass, 0, (size_t)(cards * w) * sizeof(double));
        memset(tot, 0, (size_t)w * sizeof(double));
        for (int64_t g = 0; g < groups; g++) {
            for (int64_t q = ties[g]; q < ties[g + 1]; q++) {
                const int64_t *c = hand_cards + order[q] * k;
                double *wq = weaker + q * w;
                const double *m0 = mass + c[0] * w, *m1 = mass + c[k - 1] * w;
                if (k == 2)
                    for (int64_t e = 0; e < w; e++) wq[e] = tot[e] - m0[e] - m1[e];
                else
                    for (int64_t e = 0; e < w; e++) wq[e] = tot[e] - m0[e];
            }
            add_group(tot, mass, reach, order, ties[g], ties[g + 1], hand_cards, k, gb, T, t, kx, U);
        }
        memset(above, 0, (size_t)(cards * w) * sizeof(double));
        memset(top, 0, (size_t)w * sizeof(double));
        for (int64_t g = groups - 1; g >= 0; g--) {
            for (int64_t q = ties[g]; q < ties[g + 1]; q++) {
                const int64_t i = order[q];
                const int64_t *c = hand_cards + i * k;
                const double *r = reach + (i * T + t) * kx;
                double *o = out + (i * T + t) * K;
                for (int64_t kk = 0; kk < K; kk++) o[kk] = 0.0;
                for (int64_t x = 0; x < kx; x++) {
                    const int64_t xo = x * U;
                    const double *tx = tot + xo, *px = top + xo, *wx = weaker + q * w + xo;
                    const double *m0 = mass + c[0] * w + xo, *m1 = mass + c[k - 1] * w + xo;
                    const double *a0 = above + c[0] * w + xo, *a1 = above + c[k - 1] * w + xo;
                    for (int64_t kk = (kx == 1 ? 0 : x); kk < (kx == 1 ? K : x + 1); kk++) {
                        const double *f0 = c_t + kk * 4 * ru + rb[i] * U, *f1 = f0 + ru, *f2 = f1 + ru, *f3 = f2 + ru;
                        double acc = 0.0;
                        for (int64_t u = 0; u < U; u++) {
                            double all = tx[u] - m0[u], stronger = px[u] - a0[u];
                            if (k == 2) {
                                all -= m1[u];
                                stronger -= a1[u];
                            }
                            acc += f0[u] * all + f1[u] * wx[u] + f2[u] * stronger + f3[u] * (all - wx[u] - stronger);
                        }
                        /* two hole cards: the hand itself was removed with each of its cards, added back once */
                        if (k == 2) acc += (f0[gb[i]] + f3[gb[i]]) * r[x];
                        o[kk] += acc;
                    }
                }
                for (int64_t kk = 0; kk < K; kk++) o[kk] = weight[t] * o[kk];
            }
            add_group(top, above, reach, order, ties[g], ties[g + 1], hand_cards, k, gb, T, t, kx, U);
        }
    }
}

/* leaf_values over several full boards that share their columns (segments: a leaf board's last-round cards): segment
 * s holds the rows [rows[s], rows[s + 1]) of reach, out, hand_cards, gb and rb, its ladder order (positions local to
 * the segment) at the same rows, and its groups of ties at ties[tie0[s] .. tie0[s + 1]) (local positions); scratch
 * as leaf_values needs it for the largest segment. */
void leaf_values_segments(const double *reach, double *out, const double *coef, const int64_t *seq,
                          const double *weight, const int64_t *order, const int64_t *ties, const int64_t *rows,
                          const int64_t *tie0, int64_t segments, const int64_t *hand_cards, int64_t k, const int64_t *gb,
                          const int64_t *rb, int64_t T, int64_t K, int64_t kx, int64_t ur, int64_t U, int64_t cards,
                          double *scratch) {
    for (int64_t s = 0; s < segments; s++) {
        const int64_t r0 = rows[s];
        leaf_values(reach + r0 * T * kx, out + r0 * T * K, coef, seq, weight, order + r0, ties + tie0[s],
                    tie0[s + 1] - tie0[s] - 1, hand_cards + r0 * k, k, gb + r0, rb + r0, T, K, kx, ur, U, cards, scratch);
    }
}

/* leaf_values_segments with everything but the reach and the output bound (kernels.LeafValues); rows_total is
 * rows[segments], most the rows of the largest segment */
typedef struct {
    const double *coef;
    const int64_t *seq;
    const double *weight;
    const int64_t *order, *ties, *rows, *tie0;
    int64_t segments;
    const int64_t *hand_cards;
    int64_t k;
    const int64_t *gb, *rb;
    int64_t T, K, ur, U, cards, most, rows_total;
} LeafCall;

/* Entries of reach and out from which a leaf call lets other threads run while it computes */
#define LEAF_RELEASE_ENTRIES 4096

/* leaf_values_call(call, reach, out) -> None: a prepared LeafCall on reach [rows_total, T, kx] (contiguous float64,
   kx = 1 or K) into out [rows_total, T, K], through the interpreter's own calling convention, where packing a ctypes
   call's arguments cost more than a small leaf's values; call is the address of the prepared LeafCall, which must
   outlive the call */
static PyObject *leaf_values_call(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    (void)self;
    if (n != 3) {
        PyErr_SetString(PyExc_TypeError, "leaf_values_call(call, reach, out) takes 3 arguments");
        return NULL;
    }
    const LeafCall *c = (const LeafCall *)PyLong_AsVoidPtr(args[0]);
    if (c == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "leaf_values_call: no prepared call");
        return NULL;
    }
    Py_buffer reach, out;
    if (PyObject_GetBuffer(args[1], &reach, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(args[2], &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&reach);
        return NULL;
    }
    PyObject *result = NULL;
    const int64_t cells = c->rows_total * c->T;
    const int64_t kx = cells > 0 ? (int64_t)(reach.len / (Py_ssize_t)sizeof(double)) / cells : 0;
    if (reach.itemsize != sizeof(double) || out.itemsize != sizeof(double) || strcmp(reach.format, "d") != 0
        || strcmp(out.format, "d") != 0) {
        PyErr_SetString(PyExc_TypeError, "leaf_values_call: reach and out must be float64");
    } else if ((kx != 1 && kx != c->K) || reach.len != (Py_ssize_t)(cells * kx * (int64_t)sizeof(double))
               || out.len != (Py_ssize_t)(cells * c->K * (int64_t)sizeof(double))) {
        PyErr_SetString(PyExc_ValueError, "leaf_values_call: reach or out does not fit the prepared call");
    } else {
        double *scratch = malloc((size_t)((2 * c->cards * c->U + 2 * c->U + c->most * c->U) * kx + 1) * sizeof(double));
        if (scratch == NULL) {
            PyErr_NoMemory();
        } else {
            if (cells * c->K >= LEAF_RELEASE_ENTRIES) {
                Py_BEGIN_ALLOW_THREADS
                leaf_values_segments(reach.buf, out.buf, c->coef, c->seq, c->weight, c->order, c->ties, c->rows, c->tie0,
                                     c->segments, c->hand_cards, c->k, c->gb, c->rb, c->T, c->K, kx, c->ur, c->U,
                                     c->cards, scratch);
                Py_END_ALLOW_THREADS
            } else {
                leaf_values_segments(reach.buf, out.buf, c->coef, c->seq, c->weight, c->order, c->ties, c->rows, c->tie0,
                                     c->segments, c->hand_cards, c->k, c->gb, c->rb, c->T, c->K, kx, c->ur, c->U,
                                     c->cards, scratch);
            }
            free(scratch);
            Py_INCREF(Py_None);
            result = Py_None;
        }
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&reach);
    return result;
}

/* from _passes.c */
int64_t poker_best_totals(const void *call, int64_t threads, int64_t min_fan, double *totals);
int64_t poker_best_released(const void *call);

/* best_response_totals(call, threads, min_fan) -> (best0, best1, value, fans): poker_best_totals through the
   interpreter's own calling convention, where an exploitability of Kuhn poker costs less than a ctypes call's
   arguments; call is the address of a prepared BestCall (whole.LayoutBestResponses), which must outlive the call */
static PyObject *best_response_totals(PyObject *self, PyObject *const *args, Py_ssize_t n) {
    (void)self;
    if (n != 3) {
        PyErr_SetString(PyExc_TypeError, "best_response_totals(call, threads, min_fan) takes 3 arguments");
        return NULL;
    }
    const void *call = PyLong_AsVoidPtr(args[0]);
    const long long threads = PyLong_AsLongLong(args[1]), min_fan = PyLong_AsLongLong(args[2]);
    if (PyErr_Occurred()) return NULL;
    if (call == NULL) {
        PyErr_SetString(PyExc_ValueError, "best_response_totals: no prepared call");
        return NULL;
    }
    double t[3];
    int64_t fans;
    if (poker_best_released(call)) {
        Py_BEGIN_ALLOW_THREADS
        fans = poker_best_totals(call, threads, min_fan, t);
        Py_END_ALLOW_THREADS
    } else {
        fans = poker_best_totals(call, threads, min_fan, t);
    }
    if (fans < 0) return PyErr_NoMemory();
    PyObject *out = PyTuple_New(4);
    if (!out) return NULL;
    for (int i = 0; i < 3; i++) {
        PyObject *x = PyFloat_FromDouble(t[i]);
        if (!x) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, x);
    }
    PyObject *f = PyLong_FromLongLong((long long)fans);
    if (!f) {
        Py_DECREF(out);
        return NULL;
    }
    PyTuple_SET_ITEM(out, 3, f);
    return out;
}

static PyMethodDef kernels_methods[] = {
    {"leaf_values_call", (PyCFunction)(void (*)(void))leaf_values_call, METH_FASTCALL,
     "A prepared depth-limited poker leaf's values (subgame.tree.kernels.LeafValues)."},
    {"best_response_totals", (PyCFunction)(void (*)(void))best_response_totals, METH_FASTCALL,
     "Totals of a prepared exploitability call (subgame.tree.whole.LayoutBestResponses)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef kernels_module = {PyModuleDef_HEAD_INIT, "_kernels",
                                            "Compiled sweep and poker-operator loops, called through ctypes (and one "
                                            "call of the interpreter's convention).", -1, kernels_methods};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&kernels_module); }
