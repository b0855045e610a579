/*
 * The general engine: any shape the Tables take, each propagation level (none, forward,
 * singles, hidden, locked, and ac3, gac, sac), cages, MRV, and the depth-first search (run_search), step by step as
 * sudokulab/native/reference.py specifies it. See core.h for the whole core.
 */

#include "core.h"

/* The propagation queue of one call, in locals (restrict: stores elsewhere cannot touch it). */
typedef struct {
    int32_t *restrict cell;
    uint32_t *restrict bit;
    size_t n, cap;
} Queue;

static inline __attribute__((always_inline)) int
q_push(Ctx *x, Queue *q, int cell, uint32_t bit)
{
    if (q->n >= q->cap) {
        x->overflow = 1;
        return 0;
    }
    q->cell[q->n] = cell;
    q->bit[q->n] = bit;
    q->n++;
    return 1;
}

/* Value bit lost a place in a unit (left: the places still left there, unit: its cells);
 * queue a hidden single; 0 on a contradiction. */
static inline __attribute__((always_inline)) int
lost_place(Ctx *x, Queue *q, const uint8_t *restrict placed, uint32_t left,
           const int32_t *restrict unit, uint32_t bit)
{
    if (!left)
        return 0; /* no place left for the value in this unit */
    if (left & (left - 1))
        return 1;
    int c = unit[__builtin_ctz(left)];
    return placed[c] ? 1 : q_push(x, q, c, bit);
}

/* none: whether a value set of cage g holds the cage's placed values and bit. */
static int
cage_admits(const TablesObject *t, const uint32_t *masks, const uint8_t *placed, int g,
            uint32_t bit)
{
    uint32_t held = bit;
    for (int k = t->cage_start[g]; k < t->cage_start[g + 1]; k++) {
        int c = t->cage_cells[k];
        if (placed[c])
            held |= masks[c];
    }
    for (int k = t->combo_start[g]; k < t->combo_start[g + 1]; k++)
        if ((t->combos[k] & held) == held)
            return 1;
    return 0;
}

/*
 * Cage g's unplaced cells keep only the values its feasible value sets allow (the
 * reference's _prune_cage); 0 on a contradiction. With q (singles, hidden) a cell left
 * with one candidate is queued and the cage marked again; with where (hidden) the places
 * of the removed values are updated as propagate_hidden does, hidden singles queued.
 */
static int
prune_cage(Ctx *x, uint32_t *masks, const uint8_t *placed, uint32_t *where, Queue *q, int g)
{
    const TablesObject *t = x->t;
    const int32_t *cells = t->cage_cells + t->cage_start[g];
    const int n = t->cage_start[g + 1] - t->cage_start[g];
    uint32_t held = 0, anywhere = 0;
    for (int i = 0; i < n; i++) {
        if (placed[cells[i]])
            held |= masks[cells[i]];
        else
            anywhere |= masks[cells[i]];
    }
    uint32_t allowed = 0;
    int feasible = 0;
    for (int k = t->combo_start[g]; k < t->combo_start[g + 1]; k++) {
        uint32_t combo = t->combos[k];
        if ((combo & held) != held)
            continue;
        uint32_t need = combo ^ held; /* the values the unplaced cells must take */
        if ((need & anywhere) != need)
            continue;
        int fits = 1;
        for (int i = 0; i < n && fits; i++)
            if (!placed[cells[i]] && !(masks[cells[i]] & need))
                fits = 0;
        if (fits) {
            feasible = 1;
            allowed |= need;
        }
    }
    if (!feasible)
        return 0;
    for (int i = 0; i < n; i++) {
        const int c = cells[i];
        if (placed[c])
            continue;
        uint32_t m = masks[c];
        const uint32_t gone = m & ~allowed;
        if (!gone)
            continue;
        m &= allowed; /* never 0: every unplaced cell meets each feasible set */
        masks[c] = m;
        if (q == NULL)
            continue;
        dirty_mark(&x->cages, g);
        if (!(m & (m - 1)) && !q_push(x, q, c, m))
            return 0;
        if (where == NULL)
            continue;
        for (int k = t->uo_start[c]; k < t->uo_start[c + 1]; k++) {
            const int row = t->uo_row[k];
            const uint32_t at = ~t->uo_bit[k];
            for (uint32_t gg = gone; gg; gg &= gg - 1) {
                uint32_t left = where[row + __builtin_ctz(gg)] &= at;
                if (!lost_place(x, q, placed, left, t->units + row, gg & (0u - gg)))
                    return 0;
            }
        }
    }
    return 1;
}

/* One group of a sum's peers (the reference's _sum_bounds): its coefficient; the least
 * and greatest sums its cells can make (lo, hi); the sums of its cells' least and of
 * their greatest values; the sums of the s smallest and the s largest values of their
 * union, and the s-th smallest and the s-th largest. */
typedef struct {
    int64_t k, lo, hi, least, most, small, large;
    int t, u;
} Span;

/* Group g (its size, then its places) spanned; 0 when a cell has no candidate, the union
 * has fewer values than the group cells (they differ) or the group no sum. */
static inline int
group_span(const uint32_t *masks, const int32_t *cells, const int64_t *coef, const int32_t *g,
           Span *sp)
{
    const int s = g[0];
    uint32_t uni = 0;
    int64_t least = 0, most = 0;
    for (int i = 1; i <= s; i++) {
        const uint32_t m = masks[cells[g[i]]];
        if (!m)
            return 0;
        uni |= m;
        least += __builtin_ctz(m) + 1;
        most += 32 - __builtin_clz(m);
    }
    if (popcount32(uni) < s)
        return 0;
    int64_t small = 0, large = 0;
    uint32_t lo = uni, hi = uni;
    int t = 0, u = 0;
    for (int i = 0; i < s; i++) {
        t = __builtin_ctz(lo) + 1;
        u = 32 - __builtin_clz(hi);
        small += t;
        large += u;
        lo &= lo - 1;
        hi &= ~(1u << (u - 1));
    }
    sp->lo = least > small ? least : small;
    sp->hi = most < large ? most : large;
    if (sp->lo > sp->hi)
        return 0;
    sp->k = coef[g[1]];
    sp->least = least;
    sp->most = most;
    sp->small = small;
    sp->large = large;
    sp->t = t;
    sp->u = u;
    return 1;
}

/* A sum on bounds that know distinctness (the reference's _sum_bounds): each group of
 * peers adds up to at least the s smallest values of its union and its cells' least
 * values (at most the like); each cell keeps the values for which the other groups'
 * least and greatest contributions, and its own group's with the value, leave room. */
static int
sum_bounds(const TablesObject *t, const uint32_t *masks, int r, uint32_t *out)
{
    const int32_t *cells = t->rule_cells + t->rule_start[r];
    const int64_t *coef = t->rule_coef + t->rule_start[r];
    const int32_t *first = t->rule_grp + t->rule_grp_start[r];
    const int32_t *end = t->rule_grp + t->rule_grp_start[r + 1];
    int64_t low = 0, high = 0;
    Span sp;
    for (const int32_t *g = first; g < end; g += 1 + g[0]) {
        if (!group_span(masks, cells, coef, g, &sp))
            return 0;
        const int64_t a = sp.k * sp.lo, b = sp.k * sp.hi;
        low += a < b ? a : b;
        high += a < b ? b : a;
    }
    const int64_t total = t->rule_total[r];
    if (total < low || total > high)
        return 0;
    for (const int32_t *g = first; g < end; g += 1 + g[0]) {
        group_span(masks, cells, coef, g, &sp);
        const int64_t ga = sp.k * sp.lo, gb = sp.k * sp.hi;
        const int64_t rest_low = low - (ga < gb ? ga : gb), rest_high = high - (ga < gb ? gb : ga);
        for (int i = 1; i <= g[0]; i++) {
            const uint32_t m = masks[cells[g[i]]];
            const int64_t others_least = sp.least - (__builtin_ctz(m) + 1);
            const int64_t others_most = sp.most - (32 - __builtin_clz(m));
            uint32_t keep = 0;
            for (uint32_t mm = m; mm; mm &= mm - 1) {
                const int v = __builtin_ctz(mm) + 1;
                /* the group's least and greatest sums with v in this cell */
                int64_t a = sp.small + (v > sp.t ? v - sp.t : 0);
                int64_t b = sp.large - (sp.u > v ? sp.u - v : 0);
                if (a < v + others_least)
                    a = v + others_least;
                if (b > v + others_most)
                    b = v + others_most;
                if (a > b)
                    continue;
                const int64_t ka = sp.k * a, kb = sp.k * b;
                const int64_t lo = rest_low + (ka < kb ? ka : kb);
                const int64_t hi = rest_high + (ka < kb ? kb : ka);
                if (lo <= total && total <= hi)
                    keep |= mm & (0u - mm);
            }
            if (!keep)
                return 0;
            out[g[i]] = keep;
        }
    }
    return 1;
}

/*
 * A sum of few candidates (the reference's _sum_support): with at most SUM_TUPLES
 * assignments, each cell keeps its values in those (peers distinct) that add up to the
 * total, found by a depth-first walk over the cells cut short by the least and greatest
 * sums of the cells left, the last cell's value read off what is left; with more, on
 * bounds.
 */
static int
sum_support(const TablesObject *t, const uint32_t *masks, int r, uint32_t *out)
{
    const int32_t *cells = t->rule_cells + t->rule_start[r];
    const int64_t *coef = t->rule_coef + t->rule_start[r];
    const uint32_t *near = t->rule_sup + t->rule_sup_start[r]; /* earlier peers, as bits */
    const int n = t->rule_start[r + 1] - t->rule_start[r]; /* at most SUM_CELLS */
    uint32_t ms[SUM_CELLS], chosen[SUM_CELLS], left[SUM_CELLS];
    int64_t lo[SUM_CELLS + 1], hi[SUM_CELLS + 1], rest[SUM_CELLS + 1];
    long tuples = 1;
    for (int i = 0; i < n; i++) {
        ms[i] = masks[cells[i]];
        if (tuples <= SUM_TUPLES)
            tuples *= popcount32(ms[i]);
    }
    if (tuples > SUM_TUPLES)
        return sum_bounds(t, masks, r, out);
    lo[n] = hi[n] = 0;
    for (int i = n - 1; i >= 0; i--) {
        if (!ms[i])
            return 0;
        const int64_t a = coef[i] * (__builtin_ctz(ms[i]) + 1);
        const int64_t b = coef[i] * (32 - __builtin_clz(ms[i]));
        lo[i] = lo[i + 1] + (a < b ? a : b);
        hi[i] = hi[i + 1] + (a < b ? b : a);
        out[i] = 0;
    }
    rest[0] = t->rule_total[r];
    if (n == 0)
        return rest[0] == 0;
    int found = 0, i = 0;
    left[0] = lo[0] <= rest[0] && rest[0] <= hi[0] ? ms[0] : 0;
    for (;;) {
        if (!left[i]) {
            if (--i < 0)
                break;
            continue;
        }
        const uint32_t bit = left[i] & (0u - left[i]);
        left[i] ^= bit;
        chosen[i] = bit;
        rest[i + 1] = rest[i] - coef[i] * (__builtin_ctz(bit) + 1);
        if (i + 1 == n) {
            if (!rest[n]) {
                found = 1;
                for (int j = 0; j < n; j++)
                    out[j] |= chosen[j];
            }
            continue;
        }
        if (i + 2 == n) { /* the last cell can hold the rest only: no walk over its values */
            const int64_t k = coef[n - 1], v = rest[n - 1] / k;
            if (v * k != rest[n - 1] || v < 1 || v > 32)
                continue;
            uint32_t taken = 0;
            for (uint32_t m = near[n - 1]; m; m &= m - 1)
                taken |= chosen[__builtin_ctz(m)];
            const uint32_t last = 1u << (v - 1);
            if (ms[n - 1] & ~taken & last) {
                found = 1;
                chosen[n - 1] = last;
                for (int j = 0; j < n; j++)
                    out[j] |= chosen[j];
            }
            continue;
        }
        i++;
        uint32_t taken = 0;
        for (uint32_t m = near[i]; m; m &= m - 1)
            taken |= chosen[__builtin_ctz(m)];
        left[i] = lo[i] <= rest[i] && rest[i] <= hi[i] ? ms[i] & ~taken : 0;
    }
    return found;
}

/*
 * A sandwich on a line of distinct values (the reference's _sandwich_support): each
 * placement (i, j) of its crusts the candidates allow is kept when every cell outside
 * holds another value and one of its value sets of j - i - 1 cells fits the cells
 * between; each cell keeps its values in some kept placement (outside one, neither a
 * crust nor a value every fitting set holds).
 */
static int
sandwich_support(const TablesObject *t, const uint32_t *masks, int r, uint32_t *out)
{
    const int32_t *cells = t->rule_cells + t->rule_start[r];
    const int64_t *starts = t->rule_coef + t->rule_start[r];
    const uint32_t *sets = t->rule_sup + t->rule_sup_start[r];
    const int n = t->rule_start[r + 1] - t->rule_start[r]; /* 2..size: tables.c checks */
    const uint32_t one = 1, top = 1u << (n - 1), crust = one | top;
    uint32_t ms[MAX_SIZE];
    int first = -1, last = 0; /* the first and last cell with crust values only */
    for (int x = 0; x < n; x++) {
        ms[x] = masks[cells[x]];
        out[x] = 0;
        if (!ms[x])
            return 0;
        if (!(ms[x] & ~crust)) {
            if (first < 0)
                first = x;
            last = x;
        }
    }
    if (first < 0)
        first = n - 1;
    /* the values a cell outside a kept placement may hold, by its first and second crust */
    uint32_t left[MAX_SIZE] = {0}, right[MAX_SIZE] = {0};
    for (int i = 0; i <= (first < n - 2 ? first : n - 2); i++) {
        if (!(ms[i] & crust))
            continue;
        uint32_t uni = 0; /* the candidates of the cells between i and j */
        for (int j = i + 1; j < n; j++) {
            if (j > i + 1)
                uni |= ms[j - 1];
            if (j < last)
                continue;
            const uint32_t turn = ((ms[i] & one) && (ms[j] & top) ? one : 0) |
                                  ((ms[i] & top) && (ms[j] & one) ? top : 0);
            if (!turn)
                continue;
            uint32_t fits = 0, common = ~0u;
            int found = 0;
            for (int64_t k = starts[j - i - 1]; k < starts[j - i]; k++) {
                const uint32_t set = sets[k];
                if ((uni & set) != set)
                    continue;
                int meets = 1;
                for (int x = i + 1; x < j && meets; x++)
                    meets = (ms[x] & set) != 0;
                if (meets) {
                    fits |= set;
                    common &= set;
                    found = 1;
                }
            }
            if (!found)
                continue;
            out[i] |= turn;
            out[j] |= turn == crust ? crust : crust & ~turn;
            for (int x = i + 1; x < j; x++)
                out[x] |= ms[x] & fits;
            left[i] |= ~crust & ~common;
            right[j] |= ~crust & ~common;
        }
    }
    uint32_t before = 0, after = 0;
    for (int x = n - 1; x >= 0; x--) { /* outside a placement whose first crust is later */
        out[x] |= ms[x] & before;
        before |= left[x];
    }
    for (int x = 0; x < n; x++) { /* or whose second crust is earlier */
        out[x] |= ms[x] & after;
        after |= right[x];
        if (!out[x])
            return 0;
    }
    return 1;
}

/*
 * The variant rules (the reference's prune_rule, "Rules" in docs/engine.md): one pass of
 * rule r over the masks, its cells' new masks into out[]; 0 when it leaves one empty or
 * cannot hold. Masks only: placed[] is not read (a placed cell holds one value).
 */
static int
rule_prune(const TablesObject *t, const uint32_t *masks, int r, uint32_t *out)
{
    const int32_t *cells = t->rule_cells + t->rule_start[r];
    const int n = t->rule_start[r + 1] - t->rule_start[r];
    const int size = t->size;
    switch (t->rule_kind[r]) {
    case RULE_PAIR: {
        const uint32_t *sup = t->rule_sup + t->rule_sup_start[r];
        const uint32_t mb = masks[cells[1]];
        uint32_t na = 0, nb = 0;
        for (uint32_t m = masks[cells[0]]; m; m &= m - 1)
            if (sup[__builtin_ctz(m)] & mb)
                na |= m & (0u - m);
        for (uint32_t m = mb; m; m &= m - 1)
            if (sup[size + __builtin_ctz(m)] & na)
                nb |= m & (0u - m);
        out[0] = na;
        out[1] = nb;
        return na && nb;
    }
    case RULE_SUM:
        return t->rule_exact[r] ? sum_support(t, masks, r, out) : sum_bounds(t, masks, r, out);
    case RULE_RUN: {
        uint32_t held = 0;
        for (int i = 0; i < n; i++) {
            const uint32_t m = masks[cells[i]];
            if (m && !(m & (m - 1))) {
                if (held & m)
                    return 0; /* two cells of the run hold one value */
                held |= m;
            }
        }
        for (int i = 0; i < n; i++) {
            const uint32_t m = masks[cells[i]];
            out[i] = (m & (m - 1)) ? m & ~held : m;
        }
        uint32_t allowed = 0;
        for (int low = 0; low + n <= size; low++) {
            const uint32_t window = (n >= 32 ? ~0u : ((1u << n) - 1u)) << low;
            uint32_t uni = 0;
            int fits = 1;
            for (int i = 0; i < n && fits; i++) {
                if (!(out[i] & window))
                    fits = 0;
                uni |= out[i] & window;
            }
            if (fits && popcount32(uni) >= n)
                allowed |= window;
        }
        for (int i = 0; i < n; i++)
            if (!(out[i] &= allowed))
                return 0;
        return 1;
    }
    default: { /* RULE_SANDWICH; on a line that may repeat values, checked once filled */
        if (t->rule_exact[r])
            return sandwich_support(t, masks, r, out);
        int one = -1, top = -1, open = 0;
        for (int i = 0; i < n; i++) {
            const uint32_t m = masks[cells[i]];
            out[i] = m;
            if (!m)
                return 0;
            open |= (m & (m - 1)) != 0;
        }
        if (open)
            return 1;
        for (int i = 0; i < n; i++) {
            const int v = 32 - __builtin_clz(masks[cells[i]]);
            if (v == 1 && one < 0)
                one = i;
            if (v == n && top < 0)
                top = i;
        }
        if (one < 0 || top < 0)
            return 0;
        const int i = one < top ? one : top, j = one < top ? top : one;
        int64_t sum = 0;
        for (int k = i + 1; k < j; k++)
            sum += 32 - __builtin_clz(masks[cells[k]]);
        return sum == t->rule_total[r];
    }
    }
}

/* Rule r's pruning applied to the masks; 0 on a contradiction. */
static int
rule_apply(const TablesObject *t, uint32_t *masks, int r)
{
    uint32_t out[MAX_SIZE * MAX_SIZE];
    if (!rule_prune(t, masks, r, out))
        return 0;
    const int32_t *cells = t->rule_cells + t->rule_start[r];
    for (int i = 0, n = t->rule_start[r + 1] - t->rule_start[r]; i < n; i++)
        masks[cells[i]] = out[i];
    return 1;
}

/* Mark the rules of cell c. */
static inline void
rules_mark_cell(Ctx *x, int c)
{
    const TablesObject *t = x->t;
    for (int k = t->ro_start[c]; k < t->ro_start[c + 1]; k++)
        dirty_mark(&x->rules, t->ro[k]);
}

/* Mark the rules of every cell whose mask is not the one in before[]. */
static void
rules_mark_changed(Ctx *x, const uint32_t *masks, const uint32_t *before)
{
    for (int c = 0; c < x->ncells; c++)
        if (masks[c] != before[c])
            rules_mark_cell(x, c);
}

/* The marked rules pruned to their own fixpoint (a rule that narrows a cell marks the
 * cell's rules); 0 on a contradiction. The worklist's order is not the reference's: the
 * fixpoint is the same (every pruning is monotone). */
static int
rules_run(Ctx *x, uint32_t *masks)
{
    const TablesObject *t = x->t;
    uint32_t out[MAX_SIZE * MAX_SIZE];
    for (int r; (r = dirty_take(&x->rules)) >= 0;) {
        if (!rule_prune(t, masks, r, out)) {
            dirty_clear(&x->rules);
            return 0;
        }
        const int32_t *cells = t->rule_cells + t->rule_start[r];
        for (int i = 0, n = t->rule_start[r + 1] - t->rule_start[r]; i < n; i++)
            if (out[i] != masks[cells[i]]) {
                masks[cells[i]] = out[i];
                rules_mark_cell(x, cells[i]);
            }
    }
    return 1;
}

/* none: whether placing bit in cell leaves every rule of the cell a chance. */
static int
rules_admit(const TablesObject *t, uint32_t *masks, int cell, uint32_t bit)
{
    uint32_t out[MAX_SIZE * MAX_SIZE];
    const uint32_t saved = masks[cell];
    masks[cell] = bit;
    int ok = 1;
    for (int k = t->ro_start[cell]; k < t->ro_start[cell + 1] && ok; k++)
        ok = rule_prune(t, masks, t->ro[k], out);
    masks[cell] = saved;
    return ok;
}

/* none: place bit unless a placed peer already holds it. */
static int
place_check(Ctx *x, uint32_t *masks, uint8_t *placed, int cell, uint32_t bit)
{
    const TablesObject *t = x->t;
    for (int k = t->peer_start[cell]; k < t->peer_start[cell + 1]; k++) {
        int p = t->peers[k];
        if (placed[p] && masks[p] == bit)
            return 0;
    }
    if (t->cage_of[cell] >= 0 && !cage_admits(t, masks, placed, t->cage_of[cell], bit))
        return 0; /* no value set of the cage holds these values */
    if (t->nrules && !rules_admit(t, masks, cell, bit))
        return 0;
    masks[cell] = bit;
    placed[cell] = 1;
    return 1;
}

/* forward: place bit and remove it from every peer; an empty peer is a contradiction. */
static int
place_forward(Ctx *x, uint32_t *masks, uint8_t *placed, int cell, uint32_t bit)
{
    const TablesObject *t = x->t;
    if (!(masks[cell] & bit))
        return 0;
    masks[cell] = bit;
    placed[cell] = 1;
    for (int k = t->peer_start[cell]; k < t->peer_start[cell + 1]; k++) {
        int p = t->peers[k];
        uint32_t m = masks[p];
        if (m & bit) {
            m ^= bit;
            if (!m)
                return 0;
            masks[p] = m;
        }
    }
    if (t->cage_of[cell] >= 0 && !prune_cage(x, masks, placed, NULL, NULL, t->cage_of[cell]))
        return 0;
    for (int k = t->ro_start ? t->ro_start[cell] : 0; t->nrules && k < t->ro_start[cell + 1]; k++)
        if (!rule_apply(t, masks, t->ro[k]))
            return 0; /* the rules of the cell, once each in index order */
    return 1;
}

/* singles: place bit, then every naked single in turn (and the cages), to a fixpoint. */
/* seeded: the queue already holds x->qseed entries and the caller marked the cages to
 * look at (root_settle); cell and bit are unused. */
static inline __attribute__((always_inline)) int
place_singles_impl(Ctx *x, uint32_t *masks, uint8_t *placed, int cell, uint32_t bit,
                   const int cg, const int seeded)
{
    const TablesObject *t = x->t;
    const int32_t *peer_start = t->peer_start, *peers = t->peers;
    const int32_t *cage_of = t->cage_of;
    Queue q = {x->qcell, x->qbit, 0, x->qcap};
    if (seeded) {
        q.n = x->qseed;
    } else {
        if (cg)
            dirty_clear(&x->cages);
        q_push(x, &q, cell, bit);
    }
    for (;;) {
        while (q.n) {
            q.n--;
            int c = q.cell[q.n];
            uint32_t b = q.bit[q.n];
            if (placed[c]) {
                if (masks[c] != b)
                    return 0;
                continue;
            }
            if (!(masks[c] & b))
                return 0;
            masks[c] = b;
            placed[c] = 1;
            if (cg && cage_of[c] >= 0)
                dirty_mark(&x->cages, cage_of[c]);
            for (int k = peer_start[c]; k < peer_start[c + 1]; k++) {
                int p = peers[k];
                uint32_t m = masks[p];
                if (m & b) {
                    m ^= b;
                    if (!m)
                        return 0;
                    masks[p] = m;
                    if (!(m & (m - 1)) && !q_push(x, &q, p, m))
                        return 0; /* one candidate left: a naked single */
                    if (cg && cage_of[p] >= 0)
                        dirty_mark(&x->cages, cage_of[p]);
                }
            }
        }
        if (!cg)
            return 1;
        int g = dirty_take(&x->cages);
        if (g < 0)
            return 1;
        if (!prune_cage(x, masks, placed, NULL, &q, g))
            return 0;
    }
}

static int
place_singles(Ctx *x, uint32_t *masks, uint8_t *placed, int cell, uint32_t bit)
{
    if (x->t->ncages)
        return place_singles_impl(x, masks, placed, cell, bit, 1, 0);
    return place_singles_impl(x, masks, placed, cell, bit, 0, 0);
}

/*
 * hidden: singles, and hidden singles, to a fixpoint.
 *
 * The reference marks the units whose candidates changed and rescans them whole once the
 * queue is empty. Here each state also carries where[u * size + v]: the positions in unit
 * u (bit i for its i-th cell) whose cell still has value v+1 as a candidate, kept up to
 * date as candidates are removed. So placing a value visits only the peers that still
 * have it (no scan of every peer); an empty set is the reference's "no place left"
 * contradiction; a set of one position is a hidden single, found once the placed cell
 * is done (the slots it changed are noted, then checked). The rules and
 * so the fixpoint (or the contradiction) are the reference's; only the order in which
 * they fire differs, which docs/engine.md allows. Two values whose only place
 * is the same cell are queued apart: placing the first removes the second, whose set
 * becomes empty, the same contradiction.
 */

/* nu: units per cell when constant (9x9: 3), else 0. seeded: the queue already holds
 * x->qseed entries (the root, see root_hidden) and cell, bit are unused. */
/* The number of bits of each 9-bit mask (filled at import by engine_init). */
static uint8_t bitcnt9[512];

void
engine_init(void)
{
    for (int m = 0; m < 512; m++)
        bitcnt9[m] = (uint8_t)popcount32((uint32_t)m);
}

static inline __attribute__((always_inline)) int
propagate_hidden(Ctx *x, uint32_t *restrict masks, uint8_t *restrict placed,
                 uint32_t *restrict where, int cell, uint32_t bit, const int seeded,
                 const int nu, const int small, const int cg)
{
    const TablesObject *t = x->t;
    const int32_t *restrict uo_start = t->uo_start;
    const int32_t *restrict uo_row = t->uo_row;
    const uint32_t *restrict uo_bit = t->uo_bit;
    const uint32_t *restrict uo_excl = t->uo_excl;
    const int32_t *restrict units = t->units;
    const int32_t *restrict cage_of = t->cage_of;
    const int32_t *restrict other_row = t->other_row;
    const uint32_t *restrict other_bit = t->other_bit;
    int32_t *restrict susp = x->susp;
    Queue q = {x->qcell, x->qbit, 0, x->qcap};
    if (cg && !seeded) /* seeded: the caller marked the cages to look at (lock_fixpoint) */
        dirty_clear(&x->cages);
    if (seeded)
        q.n = x->qseed;
    else
        q_push(x, &q, cell, bit);
again:
    while (q.n) {
        q.n--;
        const int c = q.cell[q.n];
        const uint32_t b = q.bit[q.n];
        if (placed[c]) {
            if (masks[c] != b)
                return 0;
            continue;
        }
        uint32_t gone = masks[c] & ~b; /* the other candidates of c */
        if (gone == masks[c])
            return 0; /* b is not a candidate of c */
        masks[c] = b;
        placed[c] = 1;
        if (cg && cage_of[c] >= 0)
            dirty_mark(&x->cages, cage_of[c]);
        const int c0 = uo_start[c];
        const int cend = nu ? c0 + nu : uo_start[c + 1];
        /* A where[] slot left with one place or none is noted (without a branch: the
         * outcome is data, a branch on it mispredicts often) and checked once c is done,
         * below: the same rules, fired a little later. */
        int ns = 0;
#define NOTE(left, row, v) (susp[ns] = ((row) << 5) | (v), ns += !((left) & ((left) - 1)))
        for (uint32_t g = gone; g; g &= g - 1) {
            const int gv = __builtin_ctz(g);
            for (int k = c0; k < cend; k++) {
                const int row = uo_row[k];
                const uint32_t left = where[row + gv] &= ~uo_bit[k];
                NOTE(left, row, gv);
            }
        }
        /* Remove b from every peer that has it: in each unit of c, the places of b. */
        const int v = __builtin_ctz(b);
        if (small) {
            /* Sizes up to 9: the places of those peers in all of c's units, gathered
             * into one word without a branch (unit k's at bits 9 k up), then walked in
             * one loop: one hard-to-predict loop exit instead of one per unit. Every unit
             * of c is set to c alone first, so a unit of c is never noted. */
            uint32_t all = 0;
            int32_t base[3]; /* bit at of all is slot base[at / 9] + at of units[] */
            for (int k = 0; k < 3; k++) {
                const int row = uo_row[c0 + k];
                const uint32_t mine = uo_bit[c0 + k];
                const uint32_t others = where[row + v] & uo_excl[c0 + k];
                where[row + v] = mine; /* c alone holds b here now */
                all |= others << (9 * k);
                base[k] = row - 9 * k;
            }
            for (; all; all &= all - 1) {
                const int at = __builtin_ctz(all);
                const int slot = base[(at >= 9) + (at >= 18)] + at;
                const int p = units[slot];
                uint32_t m = masks[p];
                if (!(m & b))
                    continue; /* a guard: uo_excl visits each peer once */
                m ^= b;
                if (!m)
                    return 0;
                masks[p] = m;
                /* One candidate left: a naked single, queued without a branch (q.n stays
                 * at most q.cap, and the queue has one entry more). */
                q.cell[q.n] = p;
                q.bit[q.n] = m;
                q.n += !(m & (m - 1));
                if (q.n > q.cap) {
                    x->overflow = 1;
                    return 0;
                }
                for (int j = 0; j < 2; j++) {
                    const int prow = other_row[2 * slot + j];
                    const uint32_t had = where[prow + v];
                    const uint32_t left = had & ~other_bit[2 * slot + j];
                    where[prow + v] = left;
                    susp[ns] = (prow << 5) | v;
                    ns += (had != left) & !(left & (left - 1));
                }
            }
        }
        for (int k = c0; k < (small ? c0 : cend); k++) {
            const int row = uo_row[k];
            const uint32_t mine = uo_bit[k];
            uint32_t others = where[row + v] & uo_excl[k];
            where[row + v] = mine; /* c alone holds b here now */
            for (; others; others &= others - 1) {
                const int p = units[row + __builtin_ctz(others)];
                uint32_t m = masks[p];
                if (!(m & b))
                    continue; /* a guard: uo_excl visits each peer once */
                m ^= b;
                if (!m)
                    return 0;
                masks[p] = m;
                if (!(m & (m - 1)) && !q_push(x, &q, p, m))
                    return 0; /* one candidate left: a naked single */
                if (cg && cage_of[p] >= 0)
                    dirty_mark(&x->cages, cage_of[p]);
                /* p's units other than u (done above, every place at once); a unit of c
                 * already set to c alone loses nothing and is not noted. */
                if (nu >= 2) {
                    const size_t slot = (size_t)(row + __builtin_ctz(others)) * (nu - 1);
                    for (int j = 0; j < nu - 1; j++) {
                        const int prow = other_row[slot + j];
                        const uint32_t at = other_bit[slot + j];
                        const uint32_t had = where[prow + v];
                        const uint32_t left = had & ~at;
                        where[prow + v] = left;
                        susp[ns] = (prow << 5) | v;
                        ns += (had != left) & !(left & (left - 1));
                    }
                    continue;
                }
                for (int j = uo_start[p]; j < uo_start[p + 1]; j++) {
                    const int prow = uo_row[j];
                    if (prow == row)
                        continue;
                    const uint32_t had = where[prow + v];
                    const uint32_t left = had & ~uo_bit[j];
                    where[prow + v] = left;
                    susp[ns] = (prow << 5) | v;
                    ns += (had != left) & !(left & (left - 1));
                }
            }
        }
#undef NOTE
        /* The noted slots: none left is a contradiction, one left at an unplaced cell a
         * hidden single. (A slot only loses places, so it still has one or none.) */
        for (int i = 0; i < ns; i++) {
            const int row = susp[i] >> 5, sv = susp[i] & 31;
            const uint32_t left = where[row + sv];
            if (!left)
                return 0; /* no place left for the value in this unit */
            const int pc = units[row + __builtin_ctz(left)];
            if (!placed[pc] && !q_push(x, &q, pc, 1u << sv))
                return 0;
        }
    }
    if (cg) {
        int g = dirty_take(&x->cages);
        if (g >= 0) {
            if (!prune_cage(x, masks, placed, where, &q, g))
                return 0;
            goto again;
        }
    }
    return 1;
}

static int
place_hidden(Ctx *x, uint32_t *masks, uint8_t *placed, uint32_t *where, int cell, uint32_t bit)
{
    if (x->t->ncages)
        return propagate_hidden(x, masks, placed, where, cell, bit, 0, 0, 0, 1);
    if (x->t->nunits_of == 3 && x->size <= 9)
        return propagate_hidden(x, masks, placed, where, cell, bit, 0, 3, 1, 0);
    if (x->t->nunits_of == 3)
        return propagate_hidden(x, masks, placed, where, cell, bit, 0, 3, 0, 0);
    return propagate_hidden(x, masks, placed, where, cell, bit, 0, 0, 0, 0);
}

/* where[] from the masks: the positions in each unit of each value's candidates. */
static void
where_from_masks(const Ctx *x, const uint32_t *masks, uint32_t *where)
{
    const TablesObject *t = x->t;
    const int size = t->size;
    for (int u = 0; u < t->nunits; u++) {
        uint32_t *w = where + (size_t)u * size;
        const int32_t *unit = t->units + (size_t)u * size;
        for (int v = 0; v < size; v++)
            w[v] = 0;
        for (int i = 0; i < size; i++)
            for (uint32_t m = masks[unit[i]]; m; m &= m - 1)
                w[__builtin_ctz(m)] |= 1u << i;
    }
}

/*
 * Pencil marks, the general path: after the givens, the level's fixpoint from the
 * narrowed state (the reference's root with candidates): every naked single the marks
 * make is queued, every cage marked, and under hidden every unit's value with no place
 * is a contradiction and with one place at an unplaced cell a hidden single; then the
 * level's propagation runs from that queue (and locked candidates under locked). 0 on a
 * contradiction.
 */
static int lock_fixpoint(Ctx *x, uint32_t *masks, uint8_t *placed, uint32_t *where);

static int
root_settle(Ctx *x, uint32_t *masks, uint8_t *placed, uint32_t *where)
{
    const TablesObject *t = x->t;
    const int size = t->size;
    if (x->prop < PROP_SINGLES)
        return 1;
    Queue q = {x->qcell, x->qbit, 0, x->qcap};
    for (int c = 0; c < t->ncells; c++) /* at most one entry a cell: within the bound */
        if (!placed[c] && !(masks[c] & (masks[c] - 1)) && !q_push(x, &q, c, masks[c]))
            return 0;
    if (x->prop >= PROP_HIDDEN) /* at most nunits * size more: within the bound */
        for (int u = 0; u < t->nunits; u++)
            for (int v = 0; v < size; v++) {
                const uint32_t left = where[(size_t)u * size + v];
                if (!left)
                    return 0; /* no place for the value in this unit */
                const int pc = t->units[(size_t)u * size + __builtin_ctz(left)];
                if (!(left & (left - 1)) && !placed[pc] && !q_push(x, &q, pc, 1u << v))
                    return 0;
            }
    const int cg = t->ncages != 0;
    if (cg)
        dirty_mark_all(&x->cages, t->ncages);
    x->qseed = q.n;
    if (x->prop == PROP_SINGLES)
        return cg ? place_singles_impl(x, masks, placed, 0, 0, 1, 1)
                  : place_singles_impl(x, masks, placed, 0, 0, 0, 1);
    if (!(cg ? propagate_hidden(x, masks, placed, where, 0, 0, 1, 0, 0, 1)
             : propagate_hidden(x, masks, placed, where, 0, 0, 1, 0, 0, 0)))
        return 0;
    return x->prop != PROP_LOCKED || lock_fixpoint(x, masks, placed, where);
}

/*
 * hidden without cages: the root in one sweep. The reference places the givens one by
 * one, each propagated; here every given is placed and removed from its peers at once
 * (a peer is a cell sharing a unit), the places of every value in every unit counted from
 * the masks, and every naked and hidden single so found queued for propagate_hidden.
 * These are the same rules fired in another order, so the same fixpoint or the same
 * contradiction (a value given twice in a unit, a cell or a unit-value left empty); the
 * sweep costs a few thousand instructions where the givens one by one cost tens of
 * thousands. 0 on a contradiction.
 */
static int
root_hidden(Ctx *x, uint32_t *restrict masks, uint8_t *restrict placed,
            uint32_t *restrict where, const uint8_t *givens, const uint32_t *cands)
{
    const TablesObject *t = x->t;
    const int size = t->size, ncells = t->ncells, nunits = t->nunits;
    const uint32_t full = t->full;
    uint32_t used[MAX_UNITS]; /* the given values of each unit */
    for (int u = 0; u < nunits; u++) {
        uint32_t seen = 0;
        const int32_t *unit = t->units + (size_t)u * size;
        for (int i = 0; i < size; i++) {
            const uint32_t b = (1u << givens[unit[i]]) >> 1; /* 0 for a blank */
            if (seen & b)
                return 0; /* a value given twice in a unit */
            seen |= b;
        }
        used[u] = seen;
    }
    Queue q = {x->qcell, x->qbit, 0, x->qcap};
    /* Without a branch on whether a cell is given (data): the queue takes at most one
     * entry per cell here, within its bound. */
    for (int c = 0; c < ncells; c++) {
        const int g = givens[c];
        uint32_t m = full;
        if (cands != NULL) { /* pencil marks: a given they exclude is a contradiction */
            m = cands[c];
            if (g && !(m >> (g - 1) & 1))
                return 0;
        }
        for (int k = t->uo_start[c]; k < t->uo_start[c + 1]; k++)
            m &= ~used[t->uo[k]];
        m = g ? 1u << (g - 1) : m;
        if (!m)
            return 0; /* no candidate left */
        masks[c] = m;
        placed[c] = (uint8_t)(g != 0);
        q.cell[q.n] = c; /* a naked single */
        q.bit[q.n] = m;
        q.n += !g & !(m & (m - 1));
    }
    for (int u = 0; u < nunits; u++) {
        uint32_t *w = where + (size_t)u * size;
        const int32_t *unit = t->units + (size_t)u * size;
        if (size <= 9) {
            /* A transpose without a branch (a loop over each cell's candidates would
             * exit at a data-dependent count, which mispredicts): a product spreads
             * values 0-4 of a mask to bits 12 v of lo, values 5-8 to bits 12 (v - 5) of
             * hi (the other partial products land on bits the masks clear, and none
             * overlap, so nothing carries); cell i shifts them by i. */
            uint64_t lo = 0, hi = 0;
            for (int i = 0; i < size; i++) {
                const uint64_t m = masks[unit[i]];
                lo |= (((m & 0x1Fu) * 0x0000100200400801ull) & 0x0001001001001001ull) << i;
                hi |= ((((m >> 5) & 0xFu) * 0x0000000200400801ull) & 0x0000001001001001ull)
                      << i;
            }
            for (int v = 0; v < size; v++)
                w[v] = (uint32_t)((v < 5 ? lo >> (12 * v) : hi >> (12 * (v - 5))) & 0x1FFu);
        } else {
            for (int v = 0; v < size; v++)
                w[v] = 0;
            for (int i = 0; i < size; i++)
                for (uint32_t m = masks[unit[i]]; m; m &= m - 1)
                    w[__builtin_ctz(m)] |= 1u << i;
        }
        /* No place left for v is a contradiction, one at an unplaced cell a hidden
         * single, queued without a branch (at most nunits * size entries here, within
         * the queue's bound). */
        for (int v = 0; v < size; v++) {
            const uint32_t left = w[v];
            if (!left)
                return 0;
            const int pc = unit[__builtin_ctz(left)];
            q.cell[q.n] = pc;
            q.bit[q.n] = 1u << v;
            q.n += !(left & (left - 1)) & !placed[pc];
        }
    }
    x->qseed = q.n;
    if (t->nunits_of == 3)
        return propagate_hidden(x, masks, placed, where, 0, 0, 1, 3, 0, 0);
    return propagate_hidden(x, masks, placed, where, 0, 0, 1, 0, 0, 0);
}

/*
 * locked: hidden, and locked candidates, to a fixpoint. When a value's places in unit a
 * (its where[] set) all lie where a meets unit b, the value leaves b's other cells. One
 * pass over every such pair of units removes what is locked now, keeping where[] up to
 * date, and queues the naked and hidden singles the removals make (and marks the cages
 * they touch); propagate_hidden then runs from that queue, and passes repeat until one
 * removes nothing. The rules only remove candidates, so the fixpoint (or contradiction)
 * is the reference's, whatever the order. 0 on a contradiction.
 */
static int
lock_pass(Ctx *x, uint32_t *restrict masks, const uint8_t *restrict placed,
          uint32_t *restrict where, int *changed)
{
    const TablesObject *t = x->t;
    const int size = x->size;
    Queue q = {x->qcell, x->qbit, 0, x->qcap};
    *changed = 0;
    for (int i = 0; i < t->nlock; i++) {
        const int arow = t->lock_a[i], brow = t->lock_b[i];
        const uint32_t ina = t->lock_ina[i], inb = t->lock_inb[i];
        for (int v = 0; v < size; v++) {
            const uint32_t w = where[arow + v];
            if (!w || (w & ~ina))
                continue; /* no place (a contradiction found elsewhere) or not locked */
            const uint32_t bit = 1u << v;
            for (uint32_t out = where[brow + v] & ~inb; out; out &= out - 1) {
                const int p = t->units[brow + __builtin_ctz(out)];
                if (placed[p])
                    continue;
                uint32_t m = masks[p] & ~bit;
                if (!m)
                    return 0;
                masks[p] = m;
                *changed = 1;
                if (!(m & (m - 1)) && !q_push(x, &q, p, m))
                    return 0; /* one candidate left: a naked single */
                if (t->ncages && t->cage_of[p] >= 0)
                    dirty_mark(&x->cages, t->cage_of[p]);
                for (int k = t->uo_start[p]; k < t->uo_start[p + 1]; k++) {
                    const int row = t->uo_row[k];
                    const uint32_t left = where[row + v] &= ~t->uo_bit[k];
                    if (!left)
                        return 0; /* no place left for the value in this unit */
                    const int pc = t->units[row + __builtin_ctz(left)];
                    if (!(left & (left - 1)) && !placed[pc] && !q_push(x, &q, pc, bit))
                        return 0; /* a hidden single */
                }
            }
        }
    }
    x->qseed = q.n;
    return 1;
}

static int
lock_fixpoint(Ctx *x, uint32_t *masks, uint8_t *placed, uint32_t *where)
{
    const int cg = x->t->ncages != 0;
    for (;;) {
        int changed;
        if (cg)
            dirty_clear(&x->cages);
        if (!lock_pass(x, masks, placed, where, &changed))
            return 0;
        if (!changed)
            return 1;
        if (!(cg ? propagate_hidden(x, masks, placed, where, 0, 0, 1, 0, 0, 1)
                 : propagate_hidden(x, masks, placed, where, 0, 0, 1, 0, 0, 0)))
            return 0;
    }
}

/* singles, hidden, locked with rules: every rule pruned after the level's fixpoint, and
 * the level's fixpoint again from a narrowed state (root_settle) until a pass of the
 * rules removes nothing: the reference's fixpoint, reached in another order. */
static int
rules_settle(Ctx *x, uint32_t *masks, uint8_t *placed, uint32_t *where)
{
    uint32_t before[MAX_SIZE * MAX_SIZE];
    const size_t bytes = sizeof(uint32_t) * (size_t)x->ncells;
    for (;;) {
        memcpy(before, masks, bytes);
        if (!rules_run(x, masks))
            return 0;
        if (!memcmp(before, masks, bytes))
            return 1;
        if (x->nwhere)
            where_from_masks(x, masks, where);
        memcpy(before, masks, bytes);
        if (!root_settle(x, masks, placed, where)) {
            dirty_clear(&x->rules);
            return 0;
        }
        rules_mark_changed(x, masks, before);
    }
}

static int
place_locked(Ctx *x, uint32_t *masks, uint8_t *placed, uint32_t *where, int cell, uint32_t bit)
{
    return place_hidden(x, masks, placed, where, cell, bit) &&
           lock_fixpoint(x, masks, placed, where);
}

/*
 * ac3, gac and sac: the levels named as constraint programming names them (the
 * reference's _ac3, _propagate_gac and _shave). Their fixpoints are unique, so the order
 * rules fire in here need not be the reference's; the probes of sac follow its order all
 * the same (cells ascending, each cell's candidates ascending, sweeps until one removes
 * nothing).
 */

/* ac3: queue the arcs (z, y) into y, each z a peer of y but skip, unless queued. Arc i is
 * (peers[i], y) for i in y's peer list; the queue is a ring of (i, y) pairs, at most one
 * entry per arc (arcin), so it never holds more than there are arcs. */
typedef struct {
    int32_t *q; /* 2 * cap: (arc, y) */
    size_t cap, head, n;
} Arcs;

static inline void
arcs_into(const TablesObject *t, uint8_t *arcin, Arcs *a, int y, int skip)
{
    for (int i = t->peer_start[y]; i < t->peer_start[y + 1]; i++) {
        if (arcin[i] || t->peers[i] == skip)
            continue;
        arcin[i] = 1;
        size_t at = a->head + a->n++;
        at = at >= a->cap ? at - a->cap : at;
        a->q[2 * at] = i;
        a->q[2 * at + 1] = y;
    }
}

/* AC-3 from the queued arcs and the marked cages (the reference's _ac3); 0 on a
 * contradiction. The arcs left queued by one are unmarked before returning. */
static int
ac3_run(Ctx *x, uint32_t *masks, uint8_t *placed, Arcs *a)
{
    const TablesObject *t = x->t;
    const int32_t *peers = t->peers, *cage_of = t->cage_of;
    uint8_t *arcin = x->arcin;
    int ok = 1;
    for (;;) {
        while (a->n) {
            const int i = a->q[2 * a->head], y = a->q[2 * a->head + 1];
            a->head = a->head + 1 == a->cap ? 0 : a->head + 1;
            a->n--;
            arcin[i] = 0;
            const int c = peers[i];
            const uint32_t b = masks[y];
            if ((b & (b - 1)) || !(masks[c] & b))
                continue; /* every value of c has a support in y */
            const uint32_t m = masks[c] ^ b;
            if (!m) {
                ok = 0;
                goto out;
            }
            masks[c] = m;
            if (!(m & (m - 1)))
                placed[c] = 1; /* one value left: assigned */
            arcs_into(t, arcin, a, c, y);
            if (cage_of[c] >= 0)
                dirty_mark(&x->cages, cage_of[c]);
        }
        const int g = dirty_take(&x->cages);
        if (g < 0)
            return 1;
        const int32_t *cells = t->cage_cells + t->cage_start[g];
        const int n = t->cage_start[g + 1] - t->cage_start[g];
        uint32_t before[MAX_SIZE];
        for (int k = 0; k < n; k++)
            before[k] = masks[cells[k]];
        if (!prune_cage(x, masks, placed, NULL, NULL, g)) {
            ok = 0;
            goto out;
        }
        for (int k = 0; k < n; k++) {
            const int c = cells[k];
            const uint32_t m = masks[c];
            if (m == before[k])
                continue;
            dirty_mark(&x->cages, g);
            if (!(m & (m - 1)))
                placed[c] = 1;
            arcs_into(t, arcin, a, c, -1);
        }
    }
out:
    for (; a->n; a->n--) { /* unmark what the contradiction left queued */
        arcin[a->q[2 * a->head]] = 0;
        a->head = a->head + 1 == a->cap ? 0 : a->head + 1;
    }
    dirty_clear(&x->cages);
    return ok;
}

/* ac3 with rules: AC-3's fixpoint, then every rule, the narrowed cells' arcs queued
 * (a cell left with one value assigned), until a pass of the rules removes nothing. */
static int
ac3_rules(Ctx *x, uint32_t *masks, uint8_t *placed, Arcs *a)
{
    const TablesObject *t = x->t;
    uint32_t before[MAX_SIZE * MAX_SIZE];
    const size_t bytes = sizeof(uint32_t) * (size_t)t->ncells;
    for (;;) {
        if (t->nrules)
            memcpy(before, masks, bytes);
        if (!ac3_run(x, masks, placed, a)) {
            dirty_clear(&x->rules);
            return 0;
        }
        if (!t->nrules)
            return 1;
        rules_mark_changed(x, masks, before);
        memcpy(before, masks, bytes);
        if (!rules_run(x, masks))
            return 0;
        int changed = 0;
        for (int c = 0; c < t->ncells; c++) {
            const uint32_t m = masks[c];
            if (m == before[c])
                continue;
            changed = 1;
            if (!(m & (m - 1)))
                placed[c] = 1;
            if (t->cage_of[c] >= 0)
                dirty_mark(&x->cages, t->cage_of[c]);
            arcs_into(t, x->arcin, a, c, -1);
        }
        if (!changed)
            return 1;
    }
}

static int
place_ac3(Ctx *x, uint32_t *masks, uint8_t *placed, int cell, uint32_t bit)
{
    if (!(masks[cell] & bit))
        return 0;
    masks[cell] = bit;
    placed[cell] = 1;
    dirty_clear(&x->cages);
    if (x->t->cage_of[cell] >= 0)
        dirty_mark(&x->cages, x->t->cage_of[cell]);
    Arcs a = {x->arcq, x->narcs, 0, 0};
    arcs_into(x->t, x->arcin, &a, cell, -1);
    if (x->t->nrules)
        rules_mark_cell(x, cell);
    return ac3_rules(x, masks, placed, &a);
}

/* gac: mark the units of cell c but skip for filtering. */
static inline void
units_mark(Ctx *x, int c, int skip)
{
    const TablesObject *t = x->t;
    for (int k = t->uo_start[c]; k < t->uo_start[c + 1]; k++)
        if (t->uo[k] != skip)
            dirty_mark(&x->units, t->uo[k]);
}

/* Match cell i of a unit (dom: the open cells' candidates; own[v]: the cell matched to
 * value v, -1 for none; mv[i]: cell i's value) along an augmenting path. */
static int
augment(int i, const uint32_t *dom, int *own, int *mv, uint32_t *seen)
{
    for (uint32_t c = dom[i] & ~*seen; c; c &= c - 1) {
        const int v = __builtin_ctz(c);
        if (*seen >> v & 1)
            continue; /* seen deeper down this very loop */
        *seen |= 1u << v;
        if (own[v] < 0 || augment(own[v], dom, own, mv, seen)) {
            own[v] = i;
            mv[i] = v;
            return 1;
        }
    }
    return 0;
}

/*
 * Régin's filtering of unit u over its open cells (the reference's gac_filter): a
 * matching of every open cell to a distinct candidate, or 0 (a contradiction). The open
 * cells' candidates are exactly the unit's missing values (the queue is empty when this
 * runs, so no placed value is left in them), as many as the cells: the matching is
 * perfect and no value is free, so an edge (i, v) not in it survives exactly when i and
 * the cell matched to v lie in one strongly connected component of the graph i -> j
 * (i has j's matched value). The components come from searches forward and backward on
 * bit masks (at most 25 cells: a frontier is one word) rather than Tarjan's recursion.
 */
static int
gac_unit(Ctx *x, uint32_t *masks, const uint8_t *placed, Queue *q, int u)
{
    const TablesObject *t = x->t;
    const int size = t->size;
    const int32_t *unit = t->units + (size_t)u * size;
    int cell[MAX_SIZE], own[MAX_SIZE], mv[MAX_SIZE];
    uint32_t dom[MAX_SIZE];
    int n = 0;
    for (int i = 0; i < size; i++)
        if (!placed[unit[i]]) {
            cell[n] = unit[i];
            dom[n++] = masks[unit[i]];
        }
    if (n < 2)
        return 1; /* one open cell: its candidates are the one missing value */
    for (int v = 0; v < size; v++)
        own[v] = -1;
    uint32_t taken = 0; /* the values matched so far */
    for (int i = 0; i < n; i++) { /* the lowest free candidate first, else augment */
        const uint32_t free = dom[i] & ~taken;
        if (free) {
            const int v = __builtin_ctz(free);
            own[v] = i;
            mv[i] = v;
            taken |= 1u << v;
            continue;
        }
        uint32_t seen = 0;
        if (!augment(i, dom, own, mv, &seen))
            return 0; /* no matching covers the open cells */
        for (int v = 0; v < size; v++)
            taken |= (uint32_t)(own[v] >= 0) << v;
    }
    /* The graph on the open cells: i -> j when i has j's matched value (adj), and its
     * reverse (radj). */
    uint32_t adj[MAX_SIZE], radj[MAX_SIZE];
    for (int i = 0; i < n; i++)
        radj[i] = 0;
    for (int i = 0; i < n; i++) {
        uint32_t r = 0;
        for (uint32_t c = dom[i] & ~(1u << mv[i]); c; c &= c - 1)
            r |= 1u << own[__builtin_ctz(c)];
        adj[i] = r;
        for (; r; r &= r - 1)
            radj[__builtin_ctz(r)] |= 1u << i;
    }
    /* The strongly connected components, forward and backward: the component of a cell
     * s not yet in one is what s reaches and what reaches s, among the cells left (a
     * path inside a component never leaves it). Each component's values are its cells'
     * matched values. Most often the first is every cell: nothing to remove. */
    const uint32_t all = (1u << n) - 1; /* n <= 25 */
    uint32_t vals_of[MAX_SIZE];
    for (uint32_t left = all; left;) {
        const int s0 = __builtin_ctz(left);
        uint32_t fwd = 1u << s0, bwd = fwd;
        for (uint32_t front = fwd; front;) {
            uint32_t next = 0;
            for (uint32_t f = front; f; f &= f - 1)
                next |= adj[__builtin_ctz(f)];
            front = next & left & ~fwd;
            fwd |= front;
        }
        for (uint32_t front = bwd; front;) {
            uint32_t next = 0;
            for (uint32_t f = front; f; f &= f - 1)
                next |= radj[__builtin_ctz(f)];
            front = next & left & ~bwd;
            bwd |= front;
        }
        const uint32_t scc = fwd & bwd;
        if (scc == all)
            return 1; /* one component: every edge lies on an even alternating cycle */
        uint32_t vals = 0;
        for (uint32_t f = scc; f; f &= f - 1)
            vals |= 1u << mv[__builtin_ctz(f)];
        for (uint32_t f = scc; f; f &= f - 1)
            vals_of[__builtin_ctz(f)] = vals;
        left &= ~scc;
    }
    for (int i = 0; i < n; i++) {
        const uint32_t keep = dom[i] & vals_of[i];
        if (keep == dom[i])
            continue;
        const int c = cell[i];
        masks[c] = keep;
        if (!(keep & (keep - 1)) && !q_push(x, q, c, keep))
            return 0;
        units_mark(x, c, u);
        if (t->cage_of[c] >= 0)
            dirty_mark(&x->cages, t->cage_of[c]);
    }
    return 1;
}

/* gac to a fixpoint from the queue (x->qseed entries) and the marked units and cages
 * (the reference's _propagate_gac); 0 on a contradiction, every mark then forgotten. */
static int
gac_fixpoint(Ctx *x, uint32_t *masks, uint8_t *placed)
{
    const TablesObject *t = x->t;
    const int32_t *peer_start = t->peer_start, *peers = t->peers, *cage_of = t->cage_of;
    Queue q = {x->qcell, x->qbit, x->qseed, x->qcap};
    for (;;) {
        while (q.n) {
            q.n--;
            const int c = q.cell[q.n];
            const uint32_t b = q.bit[q.n];
            if (placed[c] && masks[c] == b)
                continue;
            if (placed[c] || !(masks[c] & b))
                goto dead;
            masks[c] = b;
            placed[c] = 1;
            units_mark(x, c, -1);
            if (cage_of[c] >= 0)
                dirty_mark(&x->cages, cage_of[c]);
            for (int k = peer_start[c]; k < peer_start[c + 1]; k++) {
                const int p = peers[k];
                uint32_t m = masks[p];
                if (!(m & b))
                    continue;
                m ^= b;
                if (!m)
                    goto dead;
                masks[p] = m;
                if (!(m & (m - 1)) && !q_push(x, &q, p, m))
                    goto dead; /* one candidate left: a naked single */
                units_mark(x, p, -1);
                if (cage_of[p] >= 0)
                    dirty_mark(&x->cages, cage_of[p]);
            }
        }
        const int g = dirty_take(&x->cages);
        if (g >= 0) {
            const int32_t *cells = t->cage_cells + t->cage_start[g];
            const int n = t->cage_start[g + 1] - t->cage_start[g];
            uint32_t before[MAX_SIZE];
            for (int k = 0; k < n; k++)
                before[k] = masks[cells[k]];
            if (!prune_cage(x, masks, placed, NULL, &q, g))
                goto dead;
            for (int k = 0; k < n; k++)
                if (masks[cells[k]] != before[k])
                    units_mark(x, cells[k], -1);
            continue;
        }
        const int u = dirty_take(&x->units);
        if (u < 0)
            return 1;
        if (!gac_unit(x, masks, placed, &q, u))
            goto dead;
    }
dead:
    dirty_clear(&x->units);
    dirty_clear(&x->cages);
    return 0;
}

/* gac with rules: gac's fixpoint, then every rule, the narrowed cells queued (one value
 * left) and their units and cages marked, until a pass of the rules removes nothing. */
static int
gac_rules(Ctx *x, uint32_t *masks, uint8_t *placed)
{
    const TablesObject *t = x->t;
    uint32_t before[MAX_SIZE * MAX_SIZE];
    const size_t bytes = sizeof(uint32_t) * (size_t)t->ncells;
    for (;;) {
        if (t->nrules)
            memcpy(before, masks, bytes);
        if (!gac_fixpoint(x, masks, placed)) {
            dirty_clear(&x->rules);
            return 0;
        }
        if (!t->nrules)
            return 1;
        rules_mark_changed(x, masks, before);
        memcpy(before, masks, bytes);
        if (!rules_run(x, masks))
            return 0;
        size_t n = 0;
        int changed = 0;
        for (int c = 0; c < t->ncells; c++) {
            const uint32_t m = masks[c];
            if (m == before[c])
                continue;
            changed = 1;
            if (!(m & (m - 1)) && !placed[c]) { /* at most one entry a cell */
                x->qcell[n] = c;
                x->qbit[n++] = m;
            }
            units_mark(x, c, -1);
            if (t->cage_of[c] >= 0)
                dirty_mark(&x->cages, t->cage_of[c]);
        }
        if (!changed)
            return 1;
        x->qseed = n;
    }
}

static int
place_gac(Ctx *x, uint32_t *masks, uint8_t *placed, int cell, uint32_t bit)
{
    x->qcell[0] = cell;
    x->qbit[0] = bit;
    x->qseed = 1;
    return gac_rules(x, masks, placed);
}

/* sac: singleton arc consistency over a gac fixpoint (the reference's _shave): each open
 * cell's candidates, cells ascending and values ascending, are placed in the probe state
 * and propagated; one that fails leaves the cell, gac propagates at once; sweeps repeat
 * until one removes nothing. 0 on a contradiction, or when the clock, read after every
 * probe (a node's shaving can take seconds on large grids), says stop (r->timed_out). */
static int
shave(Ctx *x, uint32_t *masks, uint8_t *placed)
{
    const TablesObject *t = x->t;
    const int ncells = t->ncells;
    uint32_t *pm = x->probe;
    uint8_t *pp = (uint8_t *)(pm + ncells);
    for (;;) {
        int removed = 0;
        for (int c = 0; c < ncells; c++) {
            for (uint32_t todo = masks[c]; todo; todo &= todo - 1) {
                const uint32_t b = todo & (0u - todo);
                if (placed[c] || !(masks[c] & b))
                    continue;
                memcpy(pm, masks, sizeof(uint32_t) * (size_t)ncells);
                memcpy(pp, placed, (size_t)ncells);
                const int ok = place_gac(x, pm, pp, c, b);
                if (x->overflow || core_check(x->run))
                    return 0; /* the caller tells a deadline (r->timed_out) from a failure */
                if (ok)
                    continue;
                removed = 1;
                const uint32_t m = masks[c] & ~b; /* never 0: an open cell has two or more */
                masks[c] = m;
                x->qcell[0] = c;
                x->qbit[0] = m;
                x->qseed = !(m & (m - 1));
                units_mark(x, c, -1);
                if (t->cage_of[c] >= 0)
                    dirty_mark(&x->cages, t->cage_of[c]);
                if (t->nrules)
                    rules_mark_cell(x, c);
                if (!gac_rules(x, masks, placed))
                    return 0;
            }
        }
        if (!removed)
            return 1;
    }
}

static int
place_sac(Ctx *x, uint32_t *masks, uint8_t *placed, int cell, uint32_t bit)
{
    return place_gac(x, masks, placed, cell, bit) && shave(x, masks, placed);
}

/* The root under ac3, gac or sac (the reference's _root_cp): the givens set at once,
 * then one fixpoint. 0 on a contradiction. */
static int
root_cp(Ctx *x, uint32_t *masks, uint8_t *placed, const uint8_t *givens, const uint32_t *cands)
{
    const TablesObject *t = x->t;
    const int ncells = t->ncells;
    for (int c = 0; c < ncells; c++) {
        const uint32_t m = cands ? cands[c] : x->full;
        const int g = givens[c];
        if (!m || (g && !(m >> (g - 1) & 1)))
            return 0; /* no candidate, or a given the marks exclude */
        const uint32_t u = t->unary ? m & t->unary[c] : m;
        if (!u || (g && !(u >> (g - 1) & 1)))
            return 0; /* the unary rules leave no candidate, or exclude the given */
        masks[c] = g ? 1u << (g - 1) : u;
        placed[c] = 0;
    }
    const int narrowed = cands != NULL || t->unary != NULL;
    dirty_mark_all(&x->rules, t->nrules);
    dirty_clear(&x->cages);
    if (x->prop == PROP_AC3) {
        /* Every arc; a cell with one value is assigned (without marks, the givens only,
         * as under singles), and the cages of those cells marked (with marks, all). */
        for (int c = 0; c < ncells; c++) {
            const uint32_t m = masks[c];
            if (narrowed ? !(m & (m - 1)) : givens[c] != 0) {
                placed[c] = 1;
                if (t->cage_of[c] >= 0)
                    dirty_mark(&x->cages, t->cage_of[c]);
            }
        }
        if (narrowed)
            for (int g = 0; g < t->ncages; g++)
                dirty_mark(&x->cages, g);
        Arcs a = {x->arcq, x->narcs, 0, 0};
        for (int y = 0; y < ncells; y++)
            arcs_into(t, x->arcin, &a, y, -1);
        return ac3_rules(x, masks, placed, &a);
    }
    /* Every cell with one candidate queued (at most one entry a cell), every unit and
     * every cage marked. */
    size_t n = 0;
    for (int c = 0; c < ncells; c++)
        if (!(masks[c] & (masks[c] - 1))) {
            x->qcell[n] = c;
            x->qbit[n++] = masks[c];
        }
    x->qseed = n;
    dirty_mark_all(&x->units, t->nunits);
    dirty_mark_all(&x->cages, t->ncages);
    if (!gac_rules(x, masks, placed))
        return 0;
    return x->prop != PROP_SAC || shave(x, masks, placed);
}

static inline int
place_level(Ctx *x, uint32_t *masks, uint8_t *placed, uint32_t *where, int cell, uint32_t bit)
{
    switch (x->prop) {
    case PROP_NONE:
        return place_check(x, masks, placed, cell, bit);
    case PROP_FORWARD:
        return place_forward(x, masks, placed, cell, bit);
    case PROP_SINGLES:
        return place_singles(x, masks, placed, cell, bit);
    case PROP_HIDDEN:
        return place_hidden(x, masks, placed, where, cell, bit);
    case PROP_AC3:
        return place_ac3(x, masks, placed, cell, bit);
    case PROP_GAC:
        return place_gac(x, masks, placed, cell, bit);
    case PROP_SAC:
        return place_sac(x, masks, placed, cell, bit);
    default:
        return place_locked(x, masks, placed, where, cell, bit);
    }
}

/* Place bit in cell with the level's propagation; with rules under singles, hidden and
 * locked, the rules' fixpoint after it (none, forward, ac3, gac and sac see to theirs). */
static inline int
place(Ctx *x, uint32_t *masks, uint8_t *placed, uint32_t *where, int cell, uint32_t bit)
{
    if (!x->t->nrules || x->prop < PROP_SINGLES || x->prop >= PROP_AC3)
        return place_level(x, masks, placed, where, cell, bit);
    uint32_t before[MAX_SIZE * MAX_SIZE];
    memcpy(before, masks, sizeof(uint32_t) * (size_t)x->ncells);
    if (!place_level(x, masks, placed, where, cell, bit))
        return 0;
    rules_mark_changed(x, masks, before);
    return rules_settle(x, masks, placed, where);
}

static inline int
first_unplaced(const uint8_t *placed, int ncells)
{
    const void *p = memchr(placed, 0, (size_t)ncells);
    return p ? (int)((const uint8_t *)p - placed) : -1;
}

/* mrv-degree: the unplaced cell with the fewest candidates, on ties the one with the most
 * unplaced peers, then the lowest index; -1 when every cell is placed. */
static int
choose_degree(const Ctx *x, const uint32_t *masks, const uint8_t *placed)
{
    const int32_t *start = x->t->peer_start, *peers = x->t->peers;
    int best = -1, fewest = 0, most = -1;
    for (int c = 0; c < x->ncells; c++) {
        if (placed[c])
            continue;
        const int k = popcount32(masks[c]);
        if (best >= 0 && k > fewest)
            continue;
        int degree = 0;
        for (int i = start[c]; i < start[c + 1]; i++)
            degree += !placed[peers[i]];
        if (best < 0 || k < fewest || degree > most) {
            best = c;
            fewest = k;
            most = degree;
        }
    }
    return best;
}

/*
 * dom-wdeg, as the reference's _Blame and _choose_wdeg define it. Its guesses propagate
 * here in the reference's own order (wdeg_place), not the fast paths': a contradiction
 * is blamed on one constraint, and which contradiction comes first depends on the order.
 */

/* Raise the weight of the constraint a contradiction is blamed on: kind 'e' (a cell left
 * empty), 'n' (a value with no place in unit), 'c' (a clash at cell), 'g' (cage). */
static void
blame(Ctx *x, int kind, int cell, int unit, int cage)
{
    const TablesObject *t = x->t;
    int con = -1;
    if (kind == 'g') {
        con = t->nunits + cage;
    } else if (kind == 'n') {
        con = unit;
    } else if (kind == 'e' && x->remover < -1) {
        con = -2 - x->remover; /* locked candidates removed the value from this unit */
    } else if (kind == 'e' && x->remover >= 0) {
        const int r = x->remover;
        for (int k = t->uo_start[cell]; k < t->uo_start[cell + 1] && con < 0; k++)
            for (int j = t->uo_start[r]; j < t->uo_start[r + 1]; j++)
                if (t->uo[j] == t->uo[k]) {
                    con = t->uo[k]; /* the first unit the two cells share */
                    break;
                }
        if (con < 0 && t->cage_of[cell] >= 0)
            con = t->nunits + t->cage_of[cell]; /* peers through their cage only */
    }
    if (con < 0 && t->uo_start[cell] < t->uo_start[cell + 1])
        con = t->uo[t->uo_start[cell]];
    else if (con < 0 && t->cage_of[cell] >= 0)
        con = t->nunits + t->cage_of[cell]; /* a cell in no unit: its cage */
    if (con >= 0)
        x->weights[con]++;
}

/* The reference's _prune_cage with its dirty sets (queue NULL: forward's, once). */
static int
wdeg_prune(Ctx *x, uint32_t *masks, const uint8_t *placed, Queue *q, int g)
{
    const TablesObject *t = x->t;
    const int32_t *cells = t->cage_cells + t->cage_start[g];
    const int n = t->cage_start[g + 1] - t->cage_start[g];
    uint32_t held = 0, anywhere = 0, allowed = 0;
    for (int i = 0; i < n; i++) {
        if (placed[cells[i]])
            held |= masks[cells[i]];
        else
            anywhere |= masks[cells[i]];
    }
    int feasible = 0;
    for (int k = t->combo_start[g]; k < t->combo_start[g + 1]; k++) {
        const uint32_t combo = t->combos[k];
        if ((combo & held) != held)
            continue;
        const uint32_t need = combo ^ held;
        if ((need & anywhere) != need)
            continue;
        int fits = 1;
        for (int i = 0; i < n && fits; i++)
            if (!placed[cells[i]] && !(masks[cells[i]] & need))
                fits = 0;
        if (fits) {
            feasible = 1;
            allowed |= need;
        }
    }
    if (!feasible) {
        blame(x, 'g', -1, -1, g);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        const int c = cells[i];
        uint32_t m = masks[c];
        if (placed[c] || !(m & ~allowed))
            continue;
        m &= allowed;
        masks[c] = m;
        if (q == NULL)
            continue;
        if (!(m & (m - 1)) && !q_push(x, q, c, m))
            return 0;
        if (x->prop >= PROP_HIDDEN)
            for (int k = t->uo_start[c]; k < t->uo_start[c + 1]; k++)
                x->dirty[t->uo[k]] = 1;
        x->dirty[t->nunits + g] = 1;
    }
    return 1;
}

/* The reference's _hidden_singles over the dirty units, in unit order (and cleared). */
static int
wdeg_hidden(Ctx *x, const uint32_t *masks, const uint8_t *placed, Queue *q)
{
    const TablesObject *t = x->t;
    for (int u = 0; u < t->nunits; u++) {
        if (!x->dirty[u])
            continue;
        x->dirty[u] = 0;
        const int32_t *unit = t->units + (size_t)u * x->size;
        uint32_t once = 0, twice = 0;
        for (int i = 0; i < x->size; i++) {
            twice |= once & masks[unit[i]];
            once |= masks[unit[i]];
        }
        if (once != x->full) {
            blame(x, 'n', -1, u, -1);
            return 0;
        }
        const uint32_t only = once & ~twice;
        for (int i = 0; only && i < x->size; i++) {
            const uint32_t m = masks[unit[i]] & only;
            if (!m || placed[unit[i]])
                continue;
            if (m & (m - 1)) {
                blame(x, 'n', unit[i], u, -1);
                return 0;
            }
            if (!q_push(x, q, unit[i], m))
                return 0;
        }
    }
    return 1;
}

/* The reference's _locked_candidates: one pass over the pairs of units, in order. */
static int
wdeg_locked(Ctx *x, uint32_t *masks, const uint8_t *placed, Queue *q, int *changed)
{
    const TablesObject *t = x->t;
    const int size = x->size;
    for (int i = 0; i < t->nlock; i++) {
        const int32_t *a = t->units + t->lock_a[i], *b = t->units + t->lock_b[i];
        uint32_t inside = 0, outside = 0;
        for (int j = 0; j < size; j++) {
            if (t->lock_ina[i] >> j & 1)
                inside |= masks[a[j]];
            else
                outside |= masks[a[j]];
        }
        const uint32_t locked = inside & ~outside;
        if (!locked)
            continue;
        x->remover = -2 - t->lock_b[i] / size;
        for (int j = 0; j < size; j++) {
            const int c = b[j];
            uint32_t m = masks[c];
            if ((t->lock_inb[i] >> j & 1) || !(m & locked) || placed[c])
                continue;
            m &= ~locked;
            if (!m) {
                blame(x, 'e', c, -1, -1);
                return 0;
            }
            masks[c] = m;
            *changed = 1;
            if (!(m & (m - 1)) && !q_push(x, q, c, m))
                return 0;
            for (int k = t->uo_start[c]; k < t->uo_start[c + 1]; k++)
                x->dirty[t->uo[k]] = 1;
            if (t->cage_of[c] >= 0)
                x->dirty[t->nunits + t->cage_of[c]] = 1;
        }
    }
    return 1;
}

/* Place bit in cell at the chosen level in the reference's order, blaming the first
 * contradiction as its _Blame does; 0 on a contradiction. */
static int
wdeg_place(Ctx *x, uint32_t *masks, uint8_t *placed, int cell, uint32_t bit)
{
    const TablesObject *t = x->t;
    const int nunits = t->nunits, hidden = x->prop >= PROP_HIDDEN;
    const int g0 = t->cage_of[cell];
    if (x->prop == PROP_NONE) {
        for (int k = t->peer_start[cell]; k < t->peer_start[cell + 1]; k++)
            if (placed[t->peers[k]] && masks[t->peers[k]] == bit) {
                blame(x, 'c', cell, -1, -1);
                return 0;
            }
        if (g0 >= 0 && !cage_admits(t, masks, placed, g0, bit)) {
            blame(x, 'g', cell, -1, g0);
            return 0;
        }
        masks[cell] = bit;
        placed[cell] = 1;
        return 1;
    }
    if (x->prop == PROP_FORWARD) {
        if (!(masks[cell] & bit)) {
            blame(x, 'c', cell, -1, -1);
            return 0;
        }
        masks[cell] = bit;
        placed[cell] = 1;
        x->remover = cell;
        for (int k = t->peer_start[cell]; k < t->peer_start[cell + 1]; k++) {
            const int p = t->peers[k];
            if (!(masks[p] & bit))
                continue;
            if (!(masks[p] ^= bit)) {
                blame(x, 'e', p, -1, -1);
                return 0;
            }
        }
        return g0 < 0 || wdeg_prune(x, masks, placed, NULL, g0);
    }
    /* singles, hidden, locked: the reference's _propagate */
    Queue q = {x->qcell, x->qbit, 0, x->qcap};
    memset(x->dirty, 0, (size_t)nunits + (size_t)t->ncages);
    q_push(x, &q, cell, bit);
    for (;;) {
        while (q.n) {
            q.n--;
            const int c = q.cell[q.n];
            const uint32_t b = q.bit[q.n];
            if (placed[c] ? masks[c] != b : !(masks[c] & b)) {
                blame(x, 'c', c, -1, -1);
                return 0;
            }
            if (placed[c])
                continue;
            masks[c] = b;
            placed[c] = 1;
            x->remover = c;
            if (hidden)
                for (int k = t->uo_start[c]; k < t->uo_start[c + 1]; k++)
                    x->dirty[t->uo[k]] = 1;
            if (t->cage_of[c] >= 0)
                x->dirty[nunits + t->cage_of[c]] = 1;
            for (int k = t->peer_start[c]; k < t->peer_start[c + 1]; k++) {
                const int p = t->peers[k];
                uint32_t m = masks[p];
                if (!(m & b))
                    continue;
                m ^= b;
                if (!m) {
                    blame(x, 'e', p, -1, -1);
                    return 0;
                }
                masks[p] = m;
                if (!(m & (m - 1)) && !q_push(x, &q, p, m))
                    return 0;
                if (hidden)
                    for (int j = t->uo_start[p]; j < t->uo_start[p + 1]; j++)
                        x->dirty[t->uo[j]] = 1;
                if (t->cage_of[p] >= 0)
                    x->dirty[nunits + t->cage_of[p]] = 1;
            }
        }
        int any = 0;
        for (int u = 0; u < nunits && !any; u++)
            any = x->dirty[u];
        if (any) {
            if (!wdeg_hidden(x, masks, placed, &q))
                return 0;
            if (q.n)
                continue;
        }
        int g = -1;
        for (int k = 0; k < t->ncages && g < 0; k++)
            if (x->dirty[nunits + k])
                g = k;
        if (g >= 0) {
            x->dirty[nunits + g] = 0;
            if (!wdeg_prune(x, masks, placed, &q, g))
                return 0;
            continue;
        }
        if (x->prop != PROP_LOCKED)
            return 1;
        int changed = 0;
        if (!wdeg_locked(x, masks, placed, &q, &changed))
            return 0;
        if (!changed)
            return 1; /* nothing was locked: the fixpoint */
    }
}

/* dom-wdeg: the unplaced cell with the fewest candidates per weighted degree (the weights
 * of its constraints with another unplaced cell), by cross-multiplication; the lowest
 * index on ties; -1 when every cell is placed. */
static int
choose_wdeg(const Ctx *x, const uint32_t *masks, const uint8_t *placed)
{
    const TablesObject *t = x->t;
    const int nunits = t->nunits;
    for (int u = 0; u < nunits; u++) {
        int n = 0;
        for (int i = 0; i < x->size; i++)
            n += !placed[t->units[(size_t)u * x->size + i]];
        x->live[u] = n;
    }
    for (int g = 0; g < t->ncages; g++) {
        int n = 0;
        for (int k = t->cage_start[g]; k < t->cage_start[g + 1]; k++)
            n += !placed[t->cage_cells[k]];
        x->live[nunits + g] = n;
    }
    int best = -1;
    uint64_t fewest = 0, heaviest = 0;
    for (int c = 0; c < x->ncells; c++) {
        if (placed[c])
            continue;
        uint64_t wdeg = 0;
        for (int k = t->uo_start[c]; k < t->uo_start[c + 1]; k++)
            if (x->live[t->uo[k]] >= 2)
                wdeg += x->weights[t->uo[k]];
        const int g = t->cage_of[c];
        if (g >= 0 && x->live[nunits + g] >= 2)
            wdeg += x->weights[nunits + g];
        const uint64_t k = (uint64_t)popcount32(masks[c]);
        if (best < 0 || k * heaviest < fewest * wdeg) {
            best = c;
            fewest = k;
            heaviest = wdeg;
        }
    }
    return best;
}

/* The cell to branch on, or -1 when every cell is placed. */
static inline int
choose(const Ctx *x, const uint32_t *masks, const uint8_t *placed)
{
    if (x->wdeg)
        return choose_wdeg(x, masks, placed);
    if (x->degree)
        return choose_degree(x, masks, placed);
    if (x->pick9) {
        /* Sizes 2 to 9 under singles/hidden without cages: at a node a cell is placed
         * exactly when it has one candidate (an unplaced one with one is a naked single,
         * placed by propagation), so placed[] is not read and a placed cell counts as
         * more than any (no branch on it: whether a cell is placed is data). */
        int best = -1;
        unsigned fewest = 16;
        for (int c = 0; c < x->ncells; c++) {
            unsigned k = bitcnt9[masks[c]];
            k = k < 2 ? 16 : k;
            if (k < fewest) {
                best = c;
                fewest = k;
                if (k == 2)
                    break;
            }
        }
        return best;
    }
    int best = first_unplaced(placed, x->ncells);
    if (best < 0 || !x->mrv)
        return best;
    int fewest = popcount32(masks[best]);
    const int floor = x->floor;
    if (fewest <= floor)
        return best;
    for (int c = best + 1; c < x->ncells; c++) {
        if (!placed[c]) {
            int k = popcount32(masks[c]);
            if (k < fewest) {
                best = c;
                fewest = k;
                if (k <= floor)
                    break;
            }
        }
    }
    return best;
}

/* The slot for one more kept solution grid (ncells values); NULL when out of memory. */
uint8_t *
grid_slot(Run *r, int ncells)
{
    if (r->nsolutions == r->solcap) {
        Py_ssize_t cap = r->solcap ? r->solcap * 2 : 1; /* most searches keep one or two */
        if (cap > r->keep)
            cap = r->keep;
        uint8_t *grown = PyMem_RawRealloc(r->solutions, (size_t)cap * (size_t)ncells);
        if (grown == NULL)
            return NULL;
        r->solutions = grown;
        r->solcap = cap;
    }
    return r->solutions + (size_t)r->nsolutions++ * (size_t)ncells;
}

int
trace_push(Run *r, int depth, int cell, uint32_t bit)
{
    if (r->ntrace + 3 > r->tracemax) { /* the record's bound: it stops, the search goes on */
        r->trace_over = 1;
        r->tracing = 0;
        return 1;
    }
    if (r->ntrace + 3 > r->tracecap) {
        Py_ssize_t cap = r->tracecap ? r->tracecap * 2 : 3 * 256;
        cap = cap < r->tracemax ? cap : r->tracemax;
        int32_t *grown = PyMem_RawRealloc(r->trace, (size_t)cap * sizeof(int32_t));
        if (grown == NULL) {
            r->nomem = 1;
            return 0;
        }
        r->trace = grown;
        r->tracecap = cap;
    }
    int32_t *at = r->trace + r->ntrace;
    at[0] = depth;
    at[1] = cell;
    at[2] = 32 - __builtin_clz(bit); /* the value: bit v-1 */
    r->ntrace += 3;
    return 1;
}

/* Keep one more solution grid; 0 when out of memory. */
int
keep_solution(Run *r, const Ctx *x, const uint32_t *masks)
{
    uint8_t *grid = grid_slot(r, x->ncells);
    if (grid == NULL)
        return 0;
    for (int c = 0; c < x->ncells; c++)
        grid[c] = (uint8_t)(masks[c] ? 32 - __builtin_clz(masks[c]) : 0); /* bit_length */
    return 1;
}

/* next_guess with values=lcv: the untried candidate of the top frame found in the fewest
 * unplaced peers' candidates (in the frame's state), the lowest on ties. */
static int
next_guess_lcv(const Ctx *x, Run *r, Frame *stack, int *sp, uint32_t *bit,
               const char *states, size_t stride)
{
    Frame *f = next_frame(r, stack, sp);
    if (f == NULL)
        return 0;
    const uint32_t untried = f->untried;
    uint32_t pick = untried & (~untried + 1u);
    if (untried != pick) {
        const uint32_t *masks = (const uint32_t *)(states + (size_t)f->state * stride);
        const uint8_t *placed = (const uint8_t *)(masks + x->ncells + x->nwhere);
        const TablesObject *t = x->t;
        int fewest = INT_MAX;
        for (uint32_t u = untried; u; u &= u - 1) {
            const uint32_t b = u & (~u + 1u);
            int n = 0;
            for (int k = t->peer_start[f->cell]; k < t->peer_start[f->cell + 1]; k++)
                n += !placed[t->peers[k]] && (masks[t->peers[k]] & b);
            if (n < fewest) {
                fewest = n;
                pick = b;
            }
        }
    }
    *bit = pick;
    f->untried = untried ^ pick;
    if (r->tracing && !trace_push(r, *sp, f->cell, pick))
        return 0;
    return f->forced || count_guess(r);
}

/* The search proper; runs without the GIL. Returns 0 on an internal error. */
int
run_search(Ctx *x, Run *r, char *states, size_t stride, Frame *stack)
{
    const size_t nwhere = x->nwhere;
    const int ncells = x->ncells;
    const uint32_t full = x->full;
    r->complete = 0;
    r->timed_out = 0;
    r->budget_spent = 0;
    if (ncells < 1 || ncells > MAX_SIZE * MAX_SIZE)
        return 0; /* Tables never makes such a shape */
#if HAVE_BOARD9
    if ((x->prop == PROP_HIDDEN || x->prop == PROP_LOCKED || x->prop == PROP_GAC) &&
        x->t->board9 && r->cands == NULL && !x->wdeg && !x->lcv)
        return run_board9(x, r, states, stack); /* pencil marks: the general engine */
#endif

    /* The root: every given placed in cell order, each with the chosen propagation. */
    /* A state is one block (masks, where, placed; see arena_init): one copy per guess. */
    const size_t state_bytes = sizeof(uint32_t) * ((size_t)ncells + nwhere) + (size_t)ncells;
    int cur = 0; /* the state in use */
    uint32_t *masks = (uint32_t *)states;
    uint32_t *where = masks + ncells;
    uint8_t *placed = (uint8_t *)(where + nwhere);
    /* (Not for size 1: there the empty grid's cells are singles the reference never
     * places without a given, as nothing triggers propagation.) */
    if (x->prop >= PROP_AC3) {
        x->run = r;
        if (!root_cp(x, masks, placed, r->givens, r->cands)) {
            if (x->overflow)
                return 0;
            if (r->timed_out) /* sac's probes read the clock */
                return 1;
            r->complete = 1;
            return 1;
        }
        goto search;
    }
    if (x->prop >= PROP_HIDDEN && !x->t->ncages && !x->t->unary && x->size > 1) {
        if (!root_hidden(x, masks, placed, where, r->givens, r->cands) ||
            (x->prop == PROP_LOCKED && !lock_fixpoint(x, masks, placed, where))) {
            if (x->overflow)
                return 0;
            r->complete = 1;
            return 1;
        }
        goto search;
    }
    const uint32_t *cands = r->cands;
    memset(placed, 0, (size_t)ncells);
    if (cands == NULL) {
        for (int c = 0; c < ncells; c++)
            masks[c] = full;
        for (size_t i = 0; i < nwhere; i++)
            where[i] = full; /* every value has every place of every unit */
    } else {
        /* Pencil marks: no candidate, or a given they exclude, is a contradiction. */
        for (int c = 0; c < ncells; c++) {
            const int g = r->givens[c];
            masks[c] = cands[c];
            if (!cands[c] || (g && !(cands[c] >> (g - 1) & 1))) {
                r->complete = 1;
                return 1;
            }
        }
        if (nwhere)
            where_from_masks(x, masks, where);
    }
    const uint32_t *unary = x->t->unary;
    if (unary != NULL) { /* the unary rules narrow the cells before any given */
        for (int c = 0; c < ncells; c++) {
            const int g = r->givens[c];
            masks[c] &= unary[c];
            if (!masks[c] || (g && !(masks[c] >> (g - 1) & 1))) {
                r->complete = 1;
                return 1;
            }
        }
        if (nwhere)
            where_from_masks(x, masks, where);
    }
    for (int c = 0; c < ncells; c++) {
        int v = r->givens[c];
        if (!v)
            continue;
        uint32_t bit = 1u << (v - 1);
        if (!placed[c]) {
            if (!place(x, masks, placed, where, c, bit)) {
                if (x->overflow)
                    return 0;
                r->complete = 1;
                return 1;
            }
        } else if (masks[c] != bit) {
            r->complete = 1; /* propagation placed a different value here */
            return 1;
        }
    }
    if ((cands != NULL || unary != NULL) && !root_settle(x, masks, placed, where)) {
        if (x->overflow)
            return 0;
        r->complete = 1;
        return 1;
    }
    if (unary != NULL) { /* every rule: once under forward, to the fixpoint above it */
        int ok = 1;
        if (x->prop == PROP_FORWARD)
            for (int k = 0; k < x->t->nrules && ok; k++)
                ok = rule_apply(x->t, masks, k);
        else if (x->prop >= PROP_SINGLES) {
            dirty_mark_all(&x->rules, x->t->nrules);
            ok = rules_settle(x, masks, placed, where);
        }
        if (!ok) {
            if (x->overflow)
                return 0;
            r->complete = 1;
            return 1;
        }
    }

search:;
    if (x->wdeg) /* every constraint's weight starts at 1, for each puzzle */
        for (int i = 0; i < x->t->nunits + x->t->ncages; i++)
            x->weights[i] = 1;
    x->remover = -1;
    int sp = 0; /* frames on the stack */
    for (;;) {
        /* (masks, placed) is a consistent state: a node. */
        r->nodes++;
        int cell = choose(x, masks, placed);
        if (cell < 0) {
            r->count++;
            if ((Py_ssize_t)r->count <= r->keep && !keep_solution(r, x, masks)) {
                r->nomem = 1;
                return 0;
            }
            if (r->limit && r->count >= (unsigned long long)r->limit)
                return 1;
        } else {
            stack[sp].state = cur;
            stack[sp].cell = cell;
            stack[sp].untried = masks[cell];
            stack[sp].forced = !(masks[cell] & (masks[cell] - 1));
            sp++;
        }
        /* Find the next candidate whose propagation succeeds. */
        for (;;) {
            uint32_t bit;
            if (!(x->lcv ? next_guess_lcv(x, r, stack, &sp, &bit, states, stride)
                         : next_guess(r, stack, &sp, &bit)))
                return 1;
            const Frame *f = &stack[sp - 1];
            char *from = states + (size_t)f->state * stride;
            if (f->untried) {
                /* Slot sp is free: every frame below refers to a slot <= its index. */
                cur = sp;
                memcpy(states + (size_t)sp * stride, from, state_bytes);
            } else { /* last candidate: the frame's state is never needed again */
                cur = f->state;
            }
            masks = (uint32_t *)(states + (size_t)cur * stride);
            where = masks + ncells;
            placed = (uint8_t *)(where + nwhere);
            if (x->wdeg ? wdeg_place(x, masks, placed, f->cell, bit)
                        : place(x, masks, placed, where, f->cell, bit))
                break;
            if (x->overflow)
                return 0;
            if (r->timed_out) /* sac's probes read the clock */
                return 1;
        }
    }
}

