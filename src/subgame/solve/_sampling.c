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
#include <stdint.h>
#include <string.h>

typedef int32_t idx_t;

int64_t sampling_abi(void) { return 1; }

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

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_sampling", "Compiled pass of outcome-sampling MCCFR, called through ctypes.", -1, NULL};

PyMODINIT_FUNC PyInit__sampling(void) { return PyModule_Create(&module); }
