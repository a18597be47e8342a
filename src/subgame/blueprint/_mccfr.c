/*
 * The inner loop of external-sampling MCCFR on an implicit abstract game (subgame.blueprint.implicit_mccfr).
 *
 * A batch of iterations walks the abstract betting tree once per sampled deal: the deal's buckets (one per player and
 * round) and its showdown result come in as arrays computed by numpy for the whole batch, so nothing here knows cards.
 * At the traverser's decisions every action is walked and the regrets updated; at the opponent's one action is drawn
 * from his current strategy (regret matching) after his strategy is added to the average (Lanctot et al. 2009,
 * external sampling, "simple averaging"). Regrets and average strategies are float32 tables indexed by
 * offset[node] + bucket * actions + action. The random stream is a splitmix64 generator seeded per batch by the
 * caller, so a batch is a pure function of its inputs. Called through ctypes (the GIL is released).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define MAX_ACTIONS 64

int64_t mccfr_abi(void) { return 2; }

typedef struct {
    const int8_t *kind;        /* [N] 0 decision, 1 terminal */
    const int8_t *player;      /* [N] */
    const int8_t *round;       /* [N] */
    const int64_t *first;      /* [N] first child slot */
    const int32_t *num;        /* [N] actions */
    const int32_t *children;   /* [E] */
    const int64_t *offset;     /* [N] table offset of bucket 0, action 0 */
    const double *payoff;      /* [N, 3] player 0's utility if player 0 wins, loses, ties */
    int32_t rounds;
} Tree;

typedef struct {
    const float *regrets;      /* read: the current strategy and pruning */
    float *regret_out, *average_out;  /* written: the same tables (in place) or a worker's deltas */
    const int32_t *buckets;    /* [2, rounds] of this deal */
    int32_t outcome;           /* 0: player 0 wins, 1: player 1 wins, 2: tie */
    int32_t traverser;
    int32_t prune;             /* skip actions with regret below threshold */
    float threshold;
    uint64_t rng;
} Walk;

static inline uint64_t next_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline double uniform(uint64_t *s) { return (double)(next_u64(s) >> 11) * (1.0 / 9007199254740992.0); }

/* regret matching on n float32 regrets; uniform where none is positive */
static inline void current(const float *r, int n, double *sigma) {
    double sum = 0.0;
    for (int a = 0; a < n; a++) sum += r[a] > 0.0f ? (double)r[a] : 0.0;
    for (int a = 0; a < n; a++) sigma[a] = sum > 0.0 ? (r[a] > 0.0f ? (double)r[a] / sum : 0.0) : 1.0 / n;
}

static double walk(const Tree *T, Walk *W, int64_t node) {
    if (T->kind[node] != 0) {
        double u0 = T->payoff[node * 3 + W->outcome];
        return W->traverser == 0 ? u0 : -u0;
    }
    const int p = T->player[node], n = T->num[node];
    const int64_t base = T->offset[node] + (int64_t)W->buckets[p * T->rounds + T->round[node]] * n;
    const int32_t *child = T->children + T->first[node];
    double sigma[MAX_ACTIONS];
    current(W->regrets + base, n, sigma);
    if (p != W->traverser) {
        float *avg = W->average_out + base;
        for (int a = 0; a < n; a++) avg[a] += (float)sigma[a];
        double x = uniform(&W->rng), cum = 0.0;
        int pick = n - 1;
        for (int a = 0; a < n; a++) {
            cum += sigma[a];
            if (x < cum) { pick = a; break; }
        }
        return walk(T, W, child[pick]);
    }
    double v[MAX_ACTIONS], ev = 0.0;
    char explored[MAX_ACTIONS];
    const float *reg = W->regrets + base;
    float *out = W->regret_out + base;
    int any = 0;
    for (int a = 0; a < n; a++) any |= explored[a] = !(W->prune && reg[a] < W->threshold);
    for (int a = 0; a < n; a++) {
        explored[a] = explored[a] || !any;
        v[a] = explored[a] ? walk(T, W, child[a]) : 0.0;
        ev += explored[a] ? sigma[a] * v[a] : 0.0;
    }
    for (int a = 0; a < n; a++)
        if (explored[a]) out[a] += (float)(v[a] - ev);
    return ev;
}

/*
 * One batch: deals i = 0..n-1, deal i walked for traverser[i] with buckets [n, 2, rounds] and outcome [n].
 * prune[i] != 0: that walk skips the traverser's actions whose regret is below threshold (negative-regret pruning,
 * as Pluribus does it on most iterations). Strategies come from regrets; regret and average increments go to
 * regret_out and average_out: the same tables for in-place updates, or a worker's zeroed deltas while regrets stay as
 * they were at the batch's start. Returns the sum of the traverser's sampled values (player 0's sign).
 */
double mccfr_batch(const int8_t *kind, const int8_t *player, const int8_t *round, const int64_t *first,
                   const int32_t *num, const int32_t *children, const int64_t *offset, const double *payoff,
                   int32_t rounds, const float *regrets, float *regret_out, float *average_out, const int32_t *buckets,
                   const int8_t *outcome, const int8_t *traverser, const int8_t *prune, float threshold, int64_t n,
                   uint64_t seed) {
    Tree T = {kind, player, round, first, num, children, offset, payoff, rounds};
    Walk W = {regrets, regret_out, average_out, NULL, 0, 0, 0, threshold, seed};
    double total = 0.0;
    for (int64_t i = 0; i < n; i++) {
        W.buckets = buckets + i * 2 * rounds;
        W.outcome = outcome[i];
        W.traverser = traverser[i];
        W.prune = prune[i];
        double v = walk(&T, &W, 0);
        total += W.traverser == 0 ? v : -v;
    }
    return total;
}

static struct PyModuleDef mccfr_module = {PyModuleDef_HEAD_INIT, "_mccfr",
                                          "Compiled inner loop of sampling CFR on an implicit game, called through ctypes.",
                                          -1, NULL};

PyMODINIT_FUNC PyInit__mccfr(void) { return PyModule_Create(&mccfr_module); }
