/*
 * Whole CFR iterations of the compiled sweeps in one call (subgame.solve.cfr.CFRSolver.run on a tree whose terminals
 * are one sparse payoff matrix: Goofspiel, games enumerated whole).
 *
 * An iteration is the sequence of calls CFRSolver.step makes into _kernels.c (regret matching, forward reach, the
 * terminal values U @ reach_1 and -(U^T @ reach_0), the backward sweep, the sequence values and the regret update),
 * made here without returning to Python between them, so its results are bitwise those of step(): the same functions
 * on the same arrays in the same order. The terminal products add each row's entries in the order of the CSR matrix,
 * from 0.0, as scipy's csr_matvec does. Small trees gain most: there the calls from Python cost more than the loops.
 */
#include <stdint.h>
#include <string.h>

typedef int32_t idx_t;

void regret_matching(const double *regrets, const uint8_t *legal, double *strategy, int64_t rows, int64_t a);
void forward_reach(const idx_t *parent, const double *sw, const idx_t *seq, const double *probs, double *reach,
                   int64_t lo, int64_t n);
void backward_expected(const idx_t *parent, const double *sw, const idx_t *seq, const double *probs, double *v,
                       const int64_t *bounds, int64_t levels, double *sums);
void sequence_values(const idx_t *seq, const double *v, double *out, int64_t n);
void update_regrets(double *regrets, double *strategy_sum, double *predicted, const double *seqv, const double *v,
                    const double *reach, const double *strategy, const uint8_t *legal, const int64_t *infoset_priv,
                    int64_t rows, int64_t a, int flags, double positive, double negative, double scale, double weight,
                    double sum_discount);

/* One player's arrays (subgame.tree.public_tree.PlayerArrays and the solver's state), all contiguous. */
typedef struct {
    const idx_t *parent, *seq;      /* [G] parent private state, own action slot I*A + k (-1: none) */
    const int64_t *bounds;          /* [levels + 1] level_bounds */
    int64_t levels;
    const uint8_t *legal;           /* [I, A] */
    const int64_t *infoset_priv;    /* [I] */
    int64_t states, rows, a, root_lo, root_hi;
    const double *root;             /* [root_hi - root_lo] her root reach, or NULL: ones */
    double *regrets, *sums, *predicted; /* [I, A] (predicted: NULL unless the rule predicts) */
    double *matched;                /* what her strategy is matched from: regrets or predicted */
    double *sigma, *seqv;           /* [I, A] work */
    double *reach, *v;              /* [G] work */
    double *scratch;                /* as long as her widest level of parents (backward_expected's sums) */
} SweepPlayer;

/* CSR [rows, cols] (scipy's indptr and indices as int32) */
typedef struct {
    const int32_t *ptr, *idx;
    const double *val;
    int64_t rows;
} Csr;

typedef struct {
    SweepPlayer pl[2];
    Csr u, ut;                      /* player 0's payoffs [G0, G1] and their transpose */
    int64_t alternating;
} Sweep;

/* y = sign * (M @ x), each row summed from 0.0 in the matrix's order (scipy's csr_matvec into zeros, then negated) */
static void csr_times(const Csr *m, const double *x, double *y, int negate) {
    for (int64_t i = 0; i < m->rows; i++) {
        double s = 0.0;
        for (int32_t j = m->ptr[i]; j < m->ptr[i + 1]; j++) s += m->val[j] * x[m->idx[j]];
        y[i] = negate ? -s : s;
    }
}

static void match(SweepPlayer *q) { regret_matching(q->matched, q->legal, q->sigma, q->rows, q->a); }

static void reach_of(SweepPlayer *q) {
    for (int64_t i = q->root_lo; i < q->root_hi; i++) q->reach[i] = q->root ? q->root[i - q->root_lo] : 1.0;
    forward_reach(q->parent, NULL, q->seq, q->sigma, q->reach, q->root_hi, q->states);
}

/* her counterfactual values under her strategy sigma, from the terminal values already in v */
static void values_of(SweepPlayer *q) { backward_expected(q->parent, NULL, q->seq, q->sigma, q->v, q->bounds, q->levels, q->scratch); }

static void update(SweepPlayer *q, const double *r) {
    memset(q->seqv, 0, (size_t)(q->rows * q->a) * sizeof(double));
    sequence_values(q->seq, q->v, q->seqv, q->states);
    update_regrets(q->regrets, q->sums, q->predicted, q->seqv, q->v, q->reach, q->sigma, q->legal, q->infoset_priv,
                   q->rows, q->a, (int)r[0], r[1], r[2], r[3], r[4], r[5]);
}

/*
 * n iterations; params[6 i ...] are iteration i's update rule (flags, positive, negative, scale, weight, sum_discount:
 * subgame.tree.kernels.update_params). Alternating: player 0 is updated, then player 1 against player 0's new
 * strategy; else both against the strategies the iteration started from.
 */
void sweep_iterations(Sweep *S, const double *params, int64_t n) {
    SweepPlayer *p0 = &S->pl[0], *p1 = &S->pl[1];
    for (int64_t it = 0; it < n; it++) {
        const double *r = params + 6 * it;
        match(p0), match(p1);
        reach_of(p0), reach_of(p1);
        if (S->alternating) {
            csr_times(&S->u, p1->reach, p0->v, 0);
            values_of(p0);
            update(p0, r);
            match(p0);
            reach_of(p0);
            csr_times(&S->ut, p0->reach, p1->v, 1);
            values_of(p1);
            update(p1, r);
        } else {
            csr_times(&S->u, p1->reach, p0->v, 0);
            csr_times(&S->ut, p0->reach, p1->v, 1);
            values_of(p0), values_of(p1);
            update(p0, r), update(p1, r);
        }
    }
}

void best_level(const idx_t *parent, const idx_t *seq, double *v, int64_t plo, int64_t lo, int64_t hi,
                const uint8_t *legal, const int64_t *infoset_priv, int64_t ilo, int64_t ihi, int64_t a, double *sums,
                int64_t *best);

/* One player's arrays for an exact best response over one sparse payoff matrix (subgame.eval.exploitability). */
typedef struct {
    const idx_t *parent, *seq;      /* [G] */
    const uint8_t *legal;           /* [I, A] */
    const int64_t *infoset_priv;    /* [I] */
    int64_t states, a, root_lo, root_hi, levels;
    const int64_t *level;           /* [levels, 5] plo, lo, hi, ilo, ihi of each depth from 1 (tree.plan.levels) */
    const double *root;             /* [root_hi - root_lo] or NULL: ones */
    const double *probs;            /* [I, A] her strategy */
    double *reach, *terminal, *best;/* [G] her reach, her terminal values, her counterfactual best-response values */
    double *scratch;                /* the most (lo - plo) + (ihi - ilo) * a of her levels */
} BestPlayer;

/*
 * What subgame.eval.exploitability computes by the sweeps on a tree of one sparse payoff matrix, in one call: each
 * player's reach under her strategy (forward_reach), her terminal values against the other's reach (U @ reach_1,
 * -(U^T @ reach_0)) and, from a copy of them, her counterfactual best-response values (best_level, deepest level
 * first). The sums over root states and the game value are left to the caller (numpy's sums, bit for bit).
 */
void sweep_best_responses(BestPlayer *pl, const Csr *u, const Csr *ut) {
    for (int p = 0; p < 2; p++) {
        BestPlayer *q = &pl[p];
        for (int64_t i = q->root_lo; i < q->root_hi; i++) q->reach[i] = q->root ? q->root[i - q->root_lo] : 1.0;
        forward_reach(q->parent, NULL, q->seq, q->probs, q->reach, q->root_hi, q->states);
    }
    csr_times(u, pl[1].reach, pl[0].terminal, 0);
    csr_times(ut, pl[0].reach, pl[1].terminal, 1);
    for (int p = 0; p < 2; p++) {
        BestPlayer *q = &pl[p];
        memcpy(q->best, q->terminal, (size_t)q->states * sizeof(double));
        for (int64_t d = q->levels - 1; d >= 0; d--) {
            const int64_t *l = q->level + 5 * d;
            best_level(q->parent, q->seq, q->best, l[0], l[1], l[2], q->legal, q->infoset_priv, l[3], l[4], q->a, q->scratch,
                       NULL);
        }
    }
}
