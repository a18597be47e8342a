/*
 * One pass of outcome-sampling MCCFR over a compiled public tree (subgame.solve.compiled_sampling), the whole
 * tree in two calls: the opponent's sampled pure strategy with his 0/1 reach and his average increment, then,
 * after numpy's terminal operators, the updating player's sampled path, its importance weights and the backward
 * update (Lanctot et al. 2009, outcome sampling). The uniform draws come from the caller's numpy generator and
 * every sum is taken in numpy's order, so a pass gives the bits of the numpy pass (subgame.solve.mccfr).
 * Private states are in level order (parents first); the states [0, root_stop) are the roots. Called through
 * ctypes (the GIL is released).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef int32_t idx_t;

int64_t sampling_abi(void) { return 3; }

/* numpy's sample_actions on one row: the first slot whose cumulative sum reaches (1 - u) * total, at most a - 1 */
static inline int64_t draw(const double *p, int64_t a, double u, double *cum) {
    cum[0] = p[0];
    for (int64_t k = 1; k < a; k++) cum[k] = cum[k - 1] + p[k];
    const double x = (1.0 - u) * cum[a - 1];
    int64_t below = 0;
    for (int64_t k = 0; k < a; k++) below += cum[k] < x;
    return below < a - 1 ? below : a - 1;
}

/*
 * The opponent's pass: one slot per information set drawn from sigma [I, a] with the uniforms u [I], his 0/1
 * reach [G], and avg [I, a] = reach at the information set's state times sigma, 0 where the public node's
 * chance weight w is 0 (outside the sample). cum: scratch of a doubles.
 */
void os_opponent(const idx_t *parent, const idx_t *seq, const int64_t *infoset_priv, const idx_t *node, int64_t g,
                 int64_t root_stop, const double *sigma, const double *u, int64_t ni, int64_t a, const double *w,
                 int64_t *picked, double *reach, double *avg, double *cum) {
    for (int64_t i = 0; i < ni; i++) picked[i] = draw(sigma + i * a, a, u[i], cum);
    for (int64_t s = 0; s < root_stop; s++) reach[s] = 1.0;
    for (int64_t s = root_stop; s < g; s++) {
        const double sw = seq[s] < 0 ? 1.0 : (seq[s] % a == picked[seq[s] / a] ? 1.0 : 0.0);
        reach[s] = reach[parent[s]] * sw;
    }
    for (int64_t i = 0; i < ni; i++) {
        const int64_t s = infoset_priv[i];
        for (int64_t k = 0; k < a; k++) avg[i * a + k] = w[node[s]] == 0.0 ? 0.0 : reach[s] * sigma[i * a + k];
    }
}

/*
 * The updating player's pass. v [G] enters with the terminal operators' values and leaves with the sampled
 * counterfactual values; inst [I, a] gets the sampled regrets times legal. q, the epsilon-exploring strategy
 * [I, a], picked [I], q_path [G] and sums (as long as the widest level) are scratch.
 */
void os_traverser(const idx_t *parent, const idx_t *seq, const int64_t *infoset_priv, const idx_t *node, int64_t g,
                  const int64_t *bounds, int64_t levels, const uint8_t *legal, const double *uniform,
                  const double *sigma, const double *u, int64_t ni, int64_t a, double epsilon, const double *w,
                  double *v, double *inst, double *q, int64_t *picked, double *q_path, double *sums, double *cum) {
    const int64_t slots = ni * a, root_stop = bounds[1];
    for (int64_t k = 0; k < slots; k++) q[k] = epsilon * uniform[k] + (1.0 - epsilon) * sigma[k];
    for (int64_t i = 0; i < ni; i++) picked[i] = draw(q + i * a, a, u[i], cum);
    for (int64_t s = 0; s < root_stop; s++) q_path[s] = 1.0;
    for (int64_t s = root_stop; s < g; s++) {
        const double sw = seq[s] < 0 ? 1.0 : (seq[s] % a == picked[seq[s] / a] ? q[seq[s]] : 0.0);
        q_path[s] = q_path[parent[s]] * sw;
    }
    for (int64_t s = 0; s < g; s++) v[s] = (v[s] * w[node[s]]) * (q_path[s] > 0.0 ? 1.0 : 0.0);
    /* backward: each level's children summed in ascending order, then added to their parents (numpy's bincount) */
    for (int64_t d = levels - 1; d >= 1; d--) {
        const int64_t plo = bounds[d - 1], width = bounds[d] - plo;
        memset(sums, 0, (size_t)width * sizeof(double));
        for (int64_t s = bounds[d]; s < bounds[d + 1]; s++) {
            const int64_t k = seq[s];
            const double sw = k < 0 ? 1.0 : (k % a == picked[k / a] ? sigma[k] / q[k] : 0.0);
            sums[parent[s] - plo] += v[s] * sw;
        }
        for (int64_t j = 0; j < width; j++) v[plo + j] += sums[j];
    }
    for (int64_t s = 0; s < g; s++) v[s] = v[s] * (q_path[s] > 0.0 ? 1.0 : 0.0);
    memset(inst, 0, (size_t)slots * sizeof(double));
    for (int64_t s = 0; s < g; s++)
        if (seq[s] >= 0) inst[seq[s]] += v[s];
    for (int64_t i = 0; i < ni; i++) {
        const int64_t s = infoset_priv[i];
        const double vi = v[s], qi = q_path[s];
        for (int64_t k = 0; k < a; k++) {
            double x = (k == picked[i] ? inst[i * a + k] / q[i * a + k] : 0.0) - vi;
            x = qi > 0.0 ? x / qi : 0.0;
            inst[i * a + k] = x * (legal[i * a + k] ? 1.0 : 0.0);
        }
    }
}

/*
 * A whole iteration (MCCFRSolver.step with the compiled engine, one stream) in one call, on a tree whose terminals are
 * one sparse payoff matrix: both players' regret matching, per player the public chance sample, the two passes above
 * (or, for external sampling, the opponent's and the traverser's whole backward sweep),
 * the payoff matrix's product, the regret update and the opponent's average, in the order and with the operations of
 * the numpy code (sweep.regret_matching, PublicChanceSampler.weights, SparseTerminal.cfv, rules.accumulate_regrets
 * and rules.add_average), the uniforms drawn from the numpy generator's own bit generator.
 */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *);
    uint32_t (*next_uint32)(void *);
    double (*next_double)(void *);
    uint64_t (*next_raw)(void *);
} bitgen_t;

/* One player's tree arrays, the solver's regrets and strategy sums, and scratch (subgame.solve.compiled_sampling) */
typedef struct {
    const idx_t *parent, *seq, *node;
    const int64_t *infoset_priv, *bounds;
    int64_t g, ni, a, levels;
    const uint8_t *legal;
    const double *uniform;
    double *regrets, *sums;
    double *sigma, *draws, *result, *q, *reach, *level_sums, *cum, *v;
    int64_t *picked;
} OSPlayer;

/* The public chance sampler (subgame.solve.mccfr.PublicChanceSampler) with its scratch */
typedef struct {
    int64_t nodes, count, width;
    const int64_t *num_children, *chance_parent, *sibling_rank, *ancestors;
    const double *full_weight;
    double *w, *u;
    int64_t *choice;
    uint8_t *keep;
} OSChance;

/* numpy's maximum(x, 0.0): x where x >= 0 (so -0.0 stays) or NaN */
static inline double at_least_zero(double x) { return (x >= 0.0 || x != x) ? x : 0.0; }

/* sweep.regret_matching of rows of a < 16 slots: the positive parts over their sum (numpy's order), else uniform */
static void matched(const double *r, const uint8_t *legal, double *s, int64_t ni, int64_t a) {
    for (int64_t i = 0; i < ni; i++) {
        const double *ri = r + i * a;
        double *si = s + i * a;
        for (int64_t k = 0; k < a; k++) si[k] = at_least_zero(ri[k]);
        double total;
        if (a < 8) {
            total = si[0] + 0.0;
            for (int64_t k = 1; k < a; k++) total += si[k];
        } else {
            total = ((si[0] + si[1]) + (si[2] + si[3])) + ((si[4] + si[5]) + (si[6] + si[7]));
            for (int64_t k = 8; k < a; k++) total += si[k];
        }
        if (total > 0.0) {
            for (int64_t k = 0; k < a; k++) si[k] = si[k] / total;
        } else {
            int64_t count = 0;
            for (int64_t k = 0; k < a; k++) count += legal[i * a + k] != 0;
            for (int64_t k = 0; k < a; k++) si[k] = (legal[i * a + k] ? 1.0 : 0.0) / (double)count;
        }
    }
}

/* PublicChanceSampler.weights: one uniform per chance node, its child floor(u * children); a node's weight is its
   full weight where every chance child above it was drawn, else 0 */
static void chance_weights(const OSChance *c, bitgen_t *rng) {
    if (c->count == 0) {
        memcpy(c->w, c->full_weight, (size_t)c->nodes * sizeof(double));
        return;
    }
    for (int64_t k = 0; k < c->count; k++) c->u[k] = rng->next_double(rng->state);
    for (int64_t k = 0; k < c->count; k++) c->choice[k] = (int64_t)floor(c->u[k] * (double)c->num_children[k]);
    for (int64_t n = 0; n < c->nodes; n++)
        c->keep[n] = c->chance_parent[n] < 0 || c->sibling_rank[n] == c->choice[c->chance_parent[n]];
    c->keep[c->nodes] = 1;
    for (int64_t n = 0; n < c->nodes; n++) {
        int all = 1;
        for (int64_t j = 0; j < c->width; j++) {
            const int64_t x = c->ancestors[n * c->width + j];
            all &= c->keep[x < 0 ? c->nodes : x];
        }
        c->w[n] = all ? c->full_weight[n] : 0.0;
    }
}

/* scipy's CSR product y = M x: each row's entries added in order from 0 (negated for player 1's values) */
static void csr_values(const int32_t *ptr, const int32_t *idx, const double *val, int64_t rows, const double *x,
                       double *y, int negate) {
    for (int64_t i = 0; i < rows; i++) {
        double s = 0.0;
        for (int32_t j = ptr[i]; j < ptr[i + 1]; j++) s += val[j] * x[idx[j]];
        y[i] = negate ? -s : s;
    }
}

/* rules.accumulate_regrets and rules.add_average of one rule (flags as subgame.tree.kernels.update_params) */
/* rules.accumulate_regrets of me's regrets, rules.add_average of the owner's sums by `increment` (scaled in place) */
static void update(OSPlayer *me, OSPlayer *owner, double *increment, int64_t flags, double pos, double neg,
                   double scale, double weight, double sum_discount) {
    const int64_t slots = me->ni * me->a, oslots = owner->ni * owner->a;
    for (int64_t k = 0; k < slots; k++) {
        double r = me->regrets[k];
        if (flags & 8) r = r * (r > 0 ? pos : neg);
        r = r + me->result[k];
        if (flags & 1) r = at_least_zero(r);
        if (flags & 2) r = r * (r > 0 ? pos : neg);
        if (flags & 4) r = r * scale;
        me->regrets[k] = r;
    }
    for (int64_t k = 0; k < oslots; k++) increment[k] = increment[k] * weight;
    if (flags & 32)
        for (int64_t k = 0; k < oslots; k++) owner->sums[k] = owner->sums[k] * sum_discount;
    for (int64_t k = 0; k < oslots; k++) owner->sums[k] = owner->sums[k] + increment[k];
}

/* a player's own reach [G] under her current strategy (sweep.forward_reach): ones at the roots, each state its
   parent's times the strategy's weight of the action leading to it */
static void reach_under(const OSPlayer *pl, double *reach) {
    for (int64_t s = 0; s < pl->bounds[1]; s++) reach[s] = 1.0;
    for (int64_t s = pl->bounds[1]; s < pl->g; s++) {
        const int64_t k = pl->seq[s];
        reach[s] = reach[pl->parent[s]] * (k < 0 ? 1.0 : pl->sigma[k]);
    }
}

/* External sampling's traverser (the numpy pass's backward_expected and sequence_values over the whole tree): v [G]
   enters with the payoff matrix's values, is weighted by the chance sample and swept up under her own strategy
   (each level's children summed in ascending order, then added to their parents: numpy's bincount); result [I, a]
   gets her sampled regrets, the action's value minus the information set's, times legal */
static void es_traverser(OSPlayer *me, const double *w) {
    double *v = me->v;
    const int64_t a = me->a;
    for (int64_t s = 0; s < me->g; s++) v[s] = v[s] * w[me->node[s]];
    for (int64_t d = me->levels - 1; d >= 1; d--) {
        const int64_t plo = me->bounds[d - 1], width = me->bounds[d] - plo;
        memset(me->level_sums, 0, (size_t)width * sizeof(double));
        for (int64_t s = me->bounds[d]; s < me->bounds[d + 1]; s++) {
            const int64_t k = me->seq[s];
            me->level_sums[me->parent[s] - plo] += v[s] * (k < 0 ? 1.0 : me->sigma[k]);
        }
        for (int64_t j = 0; j < width; j++) v[plo + j] += me->level_sums[j];
    }
    memset(me->result, 0, (size_t)(me->ni * a) * sizeof(double));
    for (int64_t s = 0; s < me->g; s++)
        if (me->seq[s] >= 0) me->result[me->seq[s]] += v[s];
    for (int64_t i = 0; i < me->ni; i++) {
        const double vi = v[me->infoset_priv[i]];
        for (int64_t k = 0; k < a; k++)
            me->result[i * a + k] = (me->result[i * a + k] - vi) * (me->legal[i * a + k] ? 1.0 : 0.0);
    }
}

static void draw_uniforms(double *out, int64_t n, bitgen_t *rng) {
    for (int64_t i = 0; i < n; i++) out[i] = rng->next_double(rng->state);
}

/* scheme: SCHEME_EXTERNAL (the opponent's actions sampled, the traverser's tree walked), SCHEME_OUTCOME (her path
   sampled too, exploring with epsilon) or SCHEME_CHANCE (public chance sampling: neither sampled; the average is the
   traverser's own) */
enum { SCHEME_EXTERNAL = 0, SCHEME_OUTCOME = 1, SCHEME_CHANCE = 2 };

void os_iteration(OSPlayer *pl, const OSChance *chance, const int32_t *u_ptr, const int32_t *u_idx, const double *u_val,
                  const int32_t *ut_ptr, const int32_t *ut_idx, const double *ut_val, double epsilon, int64_t flags,
                  double pos, double neg, double scale, double weight, double sum_discount, bitgen_t *rng,
                  int64_t scheme) {
    matched(pl[0].regrets, pl[0].legal, pl[0].sigma, pl[0].ni, pl[0].a);
    matched(pl[1].regrets, pl[1].legal, pl[1].sigma, pl[1].ni, pl[1].a);
    for (int p = 0; p < 2; p++) {
        OSPlayer *me = pl + p, *opp = pl + (1 - p);
        if (p == 1) matched(pl[0].regrets, pl[0].legal, pl[0].sigma, pl[0].ni, pl[0].a);
        chance_weights(chance, rng);
        if (scheme == SCHEME_CHANCE) {
            reach_under(opp, opp->reach);
        } else {
            draw_uniforms(opp->draws, opp->ni, rng);
            os_opponent(opp->parent, opp->seq, opp->infoset_priv, opp->node, opp->g, opp->bounds[1], opp->sigma,
                        opp->draws, opp->ni, opp->a, chance->w, opp->picked, opp->reach, opp->result, opp->cum);
        }
        if (p == 0)
            csr_values(u_ptr, u_idx, u_val, me->g, opp->reach, me->v, 0);
        else
            csr_values(ut_ptr, ut_idx, ut_val, me->g, opp->reach, me->v, 1);
        if (scheme == SCHEME_OUTCOME) {
            draw_uniforms(me->draws, me->ni, rng);
            os_traverser(me->parent, me->seq, me->infoset_priv, me->node, me->g, me->bounds, me->levels, me->legal,
                         me->uniform, me->sigma, me->draws, me->ni, me->a, epsilon, chance->w, me->v, me->result, me->q,
                         me->picked, me->reach, me->level_sums, me->cum);
        } else {
            es_traverser(me, chance->w);
        }
        if (scheme == SCHEME_CHANCE) { /* her own reach times her strategy, 0 outside the sample, into q */
            reach_under(me, me->reach);
            for (int64_t i = 0; i < me->ni; i++) {
                const int64_t s = me->infoset_priv[i];
                for (int64_t k = 0; k < me->a; k++)
                    me->q[i * me->a + k] = chance->w[me->node[s]] == 0.0 ? 0.0 : me->reach[s] * me->sigma[i * me->a + k];
            }
            update(me, me, me->q, flags, pos, neg, scale, weight, sum_discount);
        } else {
            update(me, opp, opp->result, flags, pos, neg, scale, weight, sum_discount);
        }
    }
}

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_sampling", "Compiled pass of outcome-sampling MCCFR, called through ctypes.", -1, NULL};

PyMODINIT_FUNC PyInit__sampling(void) { return PyModule_Create(&module); }
