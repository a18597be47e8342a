/*
 * Showdowns of the 52-card deck for every hand at once (subgame.games.poker.showdown).
 *
 * A hand's value is the integer of subgame.games.poker.evaluator.hand_values (category * 13^5 plus the deciding ranks
 * in base 13), computed here from rank counts and suit masks. On a complete board the valid hands (those meeting no
 * board card) are sorted by value (two radix passes) and scanned once in ascending order: the opponent weight below a
 * hand and tied with it, card removal included, is the running total minus the running totals of the hand's two cards
 * (no other hand holds both). Earlier boards enumerate every completion. Called through ctypes (the GIL is released).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RANKS 13
#define SUITS 4
#define DECK 52
#define P4 28561LL   /* 13^4 */
#define P5 371293LL  /* 13^5 */
#define RADIX 2048   /* two passes of 11 bits cover 9 * 13^5 < 2^22 */

int64_t showdown_abi(void) { return 1; }

static int straight_high(unsigned mask) {
    for (int top = RANKS - 1; top >= 4; top--)
        if (((mask >> (top - 4)) & 0x1F) == 0x1F) return top;
    if ((mask & 0x100F) == 0x100F) return 3;  /* the wheel: ace, 2, 3, 4, 5 */
    return -1;
}

/* the k highest ranks set in mask (skipping the ranks in except), as base-13 digits from place 4 - start down */
static int64_t top_digits(unsigned mask, unsigned except, int k, int start) {
    int64_t out = 0, place = P4;
    for (int i = 0; i < start; i++) place /= RANKS;
    mask &= ~except;
    for (int r = RANKS - 1; r >= 0 && k > 0; r--)
        if (mask >> r & 1) { out += r * place; place /= RANKS; k--; }
    return out;
}

/* the ranks and suits of some cards, as the value needs them; built one card at a time */
typedef struct {
    uint8_t count[RANKS], suit_count[SUITS];
    uint16_t suit_mask[SUITS];
    uint64_t held;  /* bit c: card c is among them */
} Cards;

static inline void add_card(Cards *k, int c) {
    int r = c / SUITS, s = c % SUITS;
    k->count[r]++; k->suit_count[s]++; k->suit_mask[s] |= (uint16_t)(1u << r);
    k->held |= 1ULL << c;
}

static inline int holds(const Cards *k, int c) { return (int)(k->held >> c & 1); }

static int64_t evaluate_counts(const uint8_t *count, const uint16_t *suit_mask, const uint8_t *suit_count) {
    for (int s = 0; s < SUITS; s++)
        if (suit_count[s] >= 5) {
            int top = straight_high(suit_mask[s]);
            return top >= 0 ? 8 * P5 + top * P4 : 5 * P5 + top_digits(suit_mask[s], 0, 5, 0);
        }
    unsigned present = 0, pairs = 0;
    int quad = -1, trip = -1;
    for (int r = 0; r < RANKS; r++) {
        if (count[r]) present |= 1u << r;
        if (count[r] >= 2) pairs |= 1u << r;
        if (count[r] >= 3) trip = r;
        if (count[r] >= 4) quad = r;
    }
    if (quad >= 0) return 7 * P5 + quad * P4 + top_digits(present, 1u << quad, 1, 1);
    if (trip >= 0) {
        unsigned others = pairs & ~(1u << trip);
        if (others) {
            int pair = 31 - __builtin_clz(others);
            return 6 * P5 + trip * P4 + pair * (P4 / RANKS);
        }
    }
    int straight = straight_high(present);
    if (straight >= 0) return 4 * P5 + straight * P4;
    if (trip >= 0) return 3 * P5 + trip * P4 + top_digits(present, 1u << trip, 2, 1);
    if (pairs) {
        int high = 31 - __builtin_clz(pairs);
        unsigned rest = pairs & ~(1u << high);
        if (rest) {
            int low = 31 - __builtin_clz(rest);
            return 2 * P5 + high * P4 + low * (P4 / RANKS) + top_digits(present, (1u << high) | (1u << low), 1, 2);
        }
        return 1 * P5 + high * P4 + top_digits(present, 1u << high, 3, 1);
    }
    return top_digits(present, 0, 5, 0);
}

/* values of n hands of ncards cards each (rows of cards [n, ncards]) */
static inline int64_t evaluate(const Cards *k) { return evaluate_counts(k->count, k->suit_mask, k->suit_count); }

/* the value of a board's cards with two more */
static inline int64_t with_two(const Cards *board, int a, int b) {
    Cards k = *board;
    add_card(&k, a);
    add_card(&k, b);
    return evaluate(&k);
}

static Cards cards_of(const int32_t *cards, int n) {
    Cards k;
    memset(&k, 0, sizeof k);
    for (int j = 0; j < n; j++) add_card(&k, cards[j]);
    return k;
}

void hand_values(const int32_t *cards, int64_t n, int32_t ncards, int64_t *out) {
    for (int64_t i = 0; i < n; i++) {
        Cards k = cards_of(cards + i * ncards, ncards);
        out[i] = evaluate(&k);
    }
}

typedef struct {
    const int32_t *hands;  /* [H, 2] */
    int64_t num_hands;
    int32_t *scratch, *valid;  /* [H] */
    int64_t *value;                    /* [H] */
} Work;

/*
 * On the complete board (5 cards) add to num[h] the opponent weight beaten by hand h plus half the weight tied with it,
 * and to den[h] the opponent weight that meets neither h nor the board; hands meeting the board are left alone.
 * Returns the number of valid hands.
 */
static int64_t river_pass(Work *w, const int32_t *board, const double *weight, double *num, double *den) {
    Cards k = cards_of(board, 5);
    int64_t m = 0;
    for (int64_t h = 0; h < w->num_hands; h++) {
        int a = w->hands[2 * h], b = w->hands[2 * h + 1];
        if (holds(&k, a) || holds(&k, b)) continue;
        w->value[h] = with_two(&k, a, b);
        w->valid[m++] = (int32_t)h;
    }
    /* LSD radix sort of the valid hands by value (stable: ties stay in hand order) */
    int64_t hist[RADIX];
    int32_t *src = w->valid, *dst = w->scratch;
    for (int shift = 0; shift < 22; shift += 11) {
        memset(hist, 0, sizeof hist);
        for (int64_t i = 0; i < m; i++) hist[(w->value[src[i]] >> shift) & (RADIX - 1)]++;
        int64_t at = 0;
        for (int k = 0; k < RADIX; k++) { int64_t c = hist[k]; hist[k] = at; at += c; }
        for (int64_t i = 0; i < m; i++) dst[hist[(w->value[src[i]] >> shift) & (RADIX - 1)]++] = src[i];
        int32_t *t = src; src = dst; dst = t;
    }
    double total = 0.0, card_total[DECK] = {0};
    for (int64_t i = 0; i < m; i++) {
        int64_t h = src[i];
        double x = weight ? weight[h] : 1.0;
        total += x; card_total[w->hands[2 * h]] += x; card_total[w->hands[2 * h + 1]] += x;
    }
    double below = 0.0, card_below[DECK] = {0}, group_card[DECK];
    memset(group_card, 0, sizeof group_card);
    for (int64_t lo = 0; lo < m;) {
        int64_t hi = lo;
        double group = 0.0;
        while (hi < m && w->value[src[hi]] == w->value[src[lo]]) {
            int64_t h = src[hi++];
            double x = weight ? weight[h] : 1.0;
            group += x; group_card[w->hands[2 * h]] += x; group_card[w->hands[2 * h + 1]] += x;
        }
        for (int64_t i = lo; i < hi; i++) {
            int64_t h = src[i];
            int a = w->hands[2 * h], b = w->hands[2 * h + 1];
            double x = weight ? weight[h] : 1.0;
            double beaten = below - card_below[a] - card_below[b];
            double tied = group - group_card[a] - group_card[b] + x;
            num[h] += beaten + 0.5 * tied;
            den[h] += total - card_total[a] - card_total[b] + x;
        }
        for (int64_t i = lo; i < hi; i++) {
            int64_t h = src[i];
            int a = w->hands[2 * h], b = w->hands[2 * h + 1];
            double x = weight ? weight[h] : 1.0;
            card_below[a] += x; card_below[b] += x;
            group_card[a] = 0.0; group_card[b] = 0.0;
        }
        below += group;
        lo = hi;
    }
    return m;
}

static int alloc_work(Work *w, const int32_t *hands, int64_t num_hands) {
    w->hands = hands; w->num_hands = num_hands;
    w->scratch = malloc(sizeof(int32_t) * num_hands);
    w->valid = malloc(sizeof(int32_t) * num_hands);
    w->value = malloc(sizeof(int64_t) * num_hands);
    return w->scratch && w->valid && w->value;
}

static void free_work(Work *w) { free(w->scratch); free(w->valid); free(w->value); }

/*
 * calls visit(board5) for every completion of board[0..b) to five cards that holds none of the cards in dead (bit c:
 * card c); the new cards ascending after the board
 */
typedef void (*Visit)(void *ctx, const int32_t *board5);

static void completions(const int32_t *board, int32_t b, uint64_t dead, Visit visit, void *ctx) {
    int32_t full[5];
    uint64_t used = dead;
    for (int j = 0; j < b; j++) { full[j] = board[j]; used |= 1ULL << board[j]; }
    int need = 5 - b, pick[5];
    if (need == 0) { visit(ctx, full); return; }
    for (int j = 0; j < need; j++) pick[j] = j;
    int rest[DECK], n = 0;
    for (int c = 0; c < DECK; c++) if (!(used >> c & 1)) rest[n++] = c;
    for (;;) {
        for (int j = 0; j < need; j++) full[b + j] = rest[pick[j]];
        visit(ctx, full);
        int j = need - 1;
        while (j >= 0 && pick[j] == n - need + j) j--;
        if (j < 0) break;
        pick[j]++;
        for (int k = j + 1; k < need; k++) pick[k] = pick[k - 1] + 1;
    }
}

typedef struct { Work *w; const double *weight; double *num, *den; } EquityCtx;

static void equity_visit(void *ctx, const int32_t *board5) {
    EquityCtx *e = ctx;
    river_pass(e->w, board5, e->weight, e->num, e->den);
}

/*
 * Each hand's weight beaten plus half tied (num) and weight met (den), summed over every completion of the board
 * [b] (0 <= b <= 5) against opponent weights [H] (NULL: uniform). Returns 0, or -1 when out of memory.
 */
int64_t equity_sums(const int32_t *hands, int64_t num_hands, const int32_t *board, int32_t b, const double *weight,
                    double *num, double *den) {
    Work w;
    if (!alloc_work(&w, hands, num_hands)) { free_work(&w); return -1; }
    memset(num, 0, sizeof(double) * num_hands);
    memset(den, 0, sizeof(double) * num_hands);
    EquityCtx e = {&w, weight, num, den};
    completions(board, b, 0, equity_visit, &e);
    free_work(&w);
    return 0;
}

/*
 * [n, H] each hand's strength on each complete board [n, 5] against a uniform opponent hand: (beaten + tied / 2) /
 * met, 0.5 where no opponent hand remains, NaN where the hand meets the board.
 */
int64_t river_strengths(const int32_t *hands, int64_t num_hands, const int32_t *boards, int64_t n, double *out) {
    Work w;
    double *num = malloc(sizeof(double) * num_hands), *den = malloc(sizeof(double) * num_hands);
    if (!alloc_work(&w, hands, num_hands) || !num || !den) { free_work(&w); free(num); free(den); return -1; }
    for (int64_t i = 0; i < n; i++) {
        for (int64_t h = 0; h < num_hands; h++) { num[h] = 0.0; den[h] = -1.0; }
        Cards k = cards_of(boards + i * 5, 5);
        for (int64_t h = 0; h < num_hands; h++)
            if (!(holds(&k, hands[2 * h]) || holds(&k, hands[2 * h + 1]))) den[h] = 0.0;
        river_pass(&w, boards + i * 5, NULL, num, den);
        double *row = out + i * num_hands;
        for (int64_t h = 0; h < num_hands; h++)
            row[h] = den[h] < 0 ? NAN : den[h] > 0 ? num[h] / den[h] : 0.5;
    }
    free_work(&w); free(num); free(den);
    return 0;
}

typedef struct { Work *w; double *num, *den; int64_t *hist; int32_t bins; } HistCtx;

static void hist_visit(void *ctx, const int32_t *board5) {
    HistCtx *e = ctx;
    const Work *w = e->w;
    Cards k = cards_of(board5, 5);
    for (int64_t h = 0; h < w->num_hands; h++) { e->num[h] = 0.0; e->den[h] = 0.0; }
    river_pass(e->w, board5, NULL, e->num, e->den);
    for (int64_t h = 0; h < w->num_hands; h++) {
        if (holds(&k, w->hands[2 * h]) || holds(&k, w->hands[2 * h + 1])) continue;
        double v = e->den[h] > 0 ? e->num[h] / e->den[h] : 0.5;
        int64_t k = (int64_t)(v * e->bins);
        e->hist[h * e->bins + (k < e->bins ? k : e->bins - 1)]++;
    }
}

/*
 * [H, bins] each hand's cumulative histogram of its strength (as river_strengths) over every completion of the board
 * [b] (b < 5) that it does not meet, normalised; NaN rows for hands with no such completion.
 */
int64_t strength_cdfs(const int32_t *hands, int64_t num_hands, const int32_t *board, int32_t b, int32_t bins,
                      double *out) {
    Work w;
    double *num = malloc(sizeof(double) * num_hands), *den = malloc(sizeof(double) * num_hands);
    int64_t *hist = calloc((size_t)(num_hands * bins), sizeof(int64_t));
    if (!alloc_work(&w, hands, num_hands) || !num || !den || !hist) {
        free_work(&w); free(num); free(den); free(hist); return -1;
    }
    HistCtx e = {&w, num, den, hist, bins};
    completions(board, b, 0, hist_visit, &e);
    for (int64_t h = 0; h < num_hands; h++) {
        int64_t total = 0;
        for (int k = 0; k < bins; k++) total += hist[h * bins + k];
        double cum = 0.0;
        for (int k = 0; k < bins; k++) {
            cum += (double)hist[h * bins + k];
            out[h * bins + k] = total > 0 ? cum / (double)total : NAN;
        }
    }
    free_work(&w); free(num); free(den); free(hist);
    return 0;
}

typedef struct {
    const int32_t *hands;
    int64_t num_hands;
    int32_t mine[2];
    double *out;
} ScoreCtx;

static void score_visit(void *ctx, const int32_t *board5) {
    ScoreCtx *e = ctx;
    Cards k = cards_of(board5, 5);
    int64_t mine = with_two(&k, e->mine[0], e->mine[1]);
    for (int64_t o = 0; o < e->num_hands; o++) {
        int a = e->hands[2 * o], b = e->hands[2 * o + 1];
        if (holds(&k, a) || holds(&k, b) || a == e->mine[0] || a == e->mine[1] || b == e->mine[0] || b == e->mine[1])
            continue;
        int64_t theirs = with_two(&k, a, b);
        e->out[o] += mine > theirs ? 1.0 : mine == theirs ? 0.5 : 0.0;
    }
}

/*
 * [H] for one hand of two cards: each opponent hand's wins against it plus half the ties, summed over every
 * completion of the board [b] that meets neither (zero for opponent hands meeting the board or the hand); the
 * equity against weights w is then w . out / (sum of w over those hands * completions per pair).
 */
int64_t hand_scores(const int32_t *hands, int64_t num_hands, const int32_t *board, int32_t b, const int32_t *mine,
                    double *out) {
    memset(out, 0, sizeof(double) * num_hands);
    ScoreCtx e = {hands, num_hands, {mine[0], mine[1]}, out};
    completions(board, b, (1ULL << mine[0]) | (1ULL << mine[1]), score_visit, &e);
    return 0;
}

static struct PyModuleDef showdown_module = {PyModuleDef_HEAD_INIT, "_showdown",
                                             "Compiled showdowns of the 52-card deck, called through ctypes.", -1, NULL};

PyMODINIT_FUNC PyInit__showdown(void) { return PyModule_Create(&showdown_module); }
