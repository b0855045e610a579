/*
 * The compiled core of sudokulab.native (sudokulab.native._core): what its files share.
 *
 * The same algorithm as sudokulab/native/reference.py (specified in docs/engine.md), with
 * the same results: for the same puzzle and knobs, the same solutions in the same order
 * and the same nodes, guesses and backtracks. Read docs/engine.md first; this file
 * follows the reference's code step by step:
 *
 *   - candidates are bit masks (bit v-1 for value v) in uint32_t, so sizes up to 25;
 *   - the propagation levels none, forward, singles, hidden, locked (and ac3, gac, sac, the
 *     levels named as constraint programming names them: see engine.c) place a value and
 *     propagate with a LIFO queue of (cell, bit); under hidden each state also keeps the
 *     places left for each value in each unit, so a hidden single is found when they
 *     drop to one instead of by rescanning units (see propagate_hidden); there the root
 *     is built in one sweep (root_hidden) rather than given by given; locked adds a
 *     pass over the pairs of units sharing two or more cells after each fixpoint
 *     (lock_fixpoint), reading the same per-unit places;
 *   - hidden is the hot path, and its time goes less to instructions than to branches
 *     whose outcome is data (how many peers hold a value, whether a unit is left with
 *     one place): callgrind's branch simulation guided it. So a unit slot left with one
 *     place or none is noted without a branch and checked once the placed cell is done,
 *     a naked single is queued without one, and (sizes up to 9, three units per cell)
 *     the peers holding the placed value are gathered from the cell's units into one
 *     word (unit k's places at bits 9 k up) and walked in one loop, each peer once
 *     (uo_excl), updating only its other units (other_row, other_bit); the root's
 *     where[] is a transpose of the masks done by multiplications, and its givens and
 *     singles are read and queued without a branch on the data;
 *   - mrv (sizes 2 to 9 under singles and hidden, without cages) scans the masks only: at
 *     a node a cell is placed exactly when it has one candidate; mrv-degree counts the
 *     unplaced peers (the peer lists) of each cell that ties on the fewest candidates;
 *   - the search is depth-first with an explicit stack of frames (state, cell, untried
 *     candidates, forced); a state (masks, where, placed) is one block, copied in one
 *     memcpy per guess; on the last candidate of a frame its state is reused in place and
 *     the frame stays on the stack until it is popped (and counted as a backtrack unless
 *     it is forced: its cell had one candidate, placed without a guess);
 *   - the clock is read every 256 guesses, and the guess budget (max_guesses) is checked
 *     before each guess, both in one place (next_guess) that both searches share; the
 *     same look at the clock sees Ctrl-C (core_check in _core.c: a search started on
 *     the main thread takes the GIL for a moment, every few milliseconds, to run
 *     Python's signal handlers; any search stops when interrupt() is called);
 *   - the classic 9x9 shape (rows, columns, boxes, no cages) under hidden or locked runs its own
 *     search, run_board9, on CPUs with AVX2: the same rules on digit planes (one AVX2
 *     vector of three band words per digit), every single of a digit placed at once, a
 *     320-byte state; the same results, 2.2x to 2.8x as fast (see its section).
 *
 * Cages (killer Sudoku) follow the reference too: a cage's cells are peers, and its value
 * sets (masks, computed and checked by reference.tables) prune the cage's candidates at
 * each level as docs/engine.md says (see prune_cage).
 *
 * Tables(size, units, cages) validates and precomputes a grid shape (peers, units of each
 * cell, the cell's place in each, the cages and their value sets) once. The module has
 * one entry point, search(tables, givens, /, *, knobs): the givens of k puzzles (one
 * puzzle is k = 1) as a buffer of bytes, or a list of ints, read and checked before any
 * search; one arena for them all (n*n+1 states, the frames, the propagation queue; the
 * last call's block is kept for the next); every puzzle run without the GIL, each with
 * its own deadline, budget and clocked time, its counters written and its kept grids
 * appended as it ends (one Run, whose grid buffer serves the next puzzle); two bytes
 * objects out, the kept grids (puzzle after puzzle) and seven int64 counters a puzzle
 * (count, flags, nodes, guesses, backtracks, nanoseconds, kept): no Python object per
 * puzzle. sudokulab.native.compiled builds the Outcomes and arrays from them.
 */

/*
 * The files, by concern (each reads on its own; this header holds only what they share):
 *
 *   tables.c   the Tables type: a grid shape validated and precomputed once
 *   engine.c   the general engine: propagation at each level, cages, MRV, run_search
 *   board9.c   the classic 9x9 solver on digit planes (AVX2), run_board9
 *   cover.c    exact cover for the dlx backend: the Cover type, Algorithm X with dancing
 *              links (it shares only core_check and the Run it reads)
 *   _core.c    the Python module: knobs, givens, arenas, the one entry point (search),
 *              and the module's set-up
 */
#ifndef SUDOKULAB_CORE_H
#define SUDOKULAB_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define MAX_SIZE 25
#define MAX_UNITS 256 /* each search state keeps nunits * size words */
#define CLOCK_EVERY 255u /* the reference's _CLOCK_EVERY */
#define MAX_COMBOS (1 << 22) /* value sets over all cages of a shape */

enum { PROP_NONE = 0, PROP_FORWARD = 1, PROP_SINGLES = 2, PROP_HIDDEN = 3, PROP_LOCKED = 4 };
/* The levels named as constraint programming names them, after the others (the ladder's
 * order is none, forward, ac3, singles, hidden, locked, gac, sac): none of them keeps
 * where[] or runs the bitboard solver; each has its own root (root_cp in engine.c). */
enum { PROP_AC3 = 5, PROP_GAC = 6, PROP_SAC = 7 };
/* The orders, as _core.c's order_names lists them. */
enum { ORDER_MRV = 0, ORDER_FIRST = 1, ORDER_DEGREE = 2, ORDER_WDEG = 3 };

/* The classic 9x9 solver is compiled where GCC-style x86-64 vector code is (board9.c). */
#if defined(__GNUC__) && defined(__x86_64__)
#define HAVE_BOARD9 1
#else
#define HAVE_BOARD9 0
#endif

/* ------------------------------------------------------------------------------------ */
/* Tables: a grid shape (tables.c)                                                        */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    int size;
    int ncells;
    int nunits;
    uint32_t full;
    int32_t *units;       /* nunits * size cells */
    int32_t *uo_start;    /* ncells + 1 offsets into uo */
    int32_t *uo;          /* the units of each cell */
    int32_t *uo_row;      /* u * size for each of those units u: its row in units[] */
    uint32_t *uo_bit;     /* 1 << the cell's position in each of those units */
    uint32_t *uo_excl;    /* the positions in each of those units whose cells are in none
                           * of the cell's earlier units (nor the cell): each peer once */
    int32_t *peer_start;  /* ncells + 1 offsets into peers */
    int32_t *peers;       /* the peers of each cell, ascending */
    int nunits_of;        /* units per cell when every cell has as many, else 0 */
    /* With nunits_of >= 2: for each slot u * size + i of units[], the other units of that
     * cell (nunits_of - 1 of them, in unit order) as a row in units[] and the cell's bit
     * there. Removing a value from a peer found through one unit then updates exactly its
     * other units, with no test to skip the first (see propagate_hidden). */
    int32_t *other_row;
    uint32_t *other_bit;
    PyObject *units_obj;  /* the units as a tuple of tuples of ints */
    int ncages;
    int32_t *cage_of;     /* each cell's cage, -1 for none */
    int32_t *cage_start;  /* ncages + 1 offsets into cage_cells */
    int32_t *cage_cells;  /* the cells of each cage */
    int32_t *combo_start; /* ncages + 1 offsets into combos */
    uint32_t *combos;     /* each cage's value sets, as masks */
    int board9;           /* searches under hidden or locked run run_board9 (9x9, AVX2) */
    /* Locked candidates: each ordered pair of units (a, b) sharing two or more cells, as
     * the rows of a and b in units[] and the positions of the shared cells in each. */
    int nlock;
    int32_t *lock_a, *lock_b;
    uint32_t *lock_ina, *lock_inb;
    /* The variant rules, compiled by reference.compile_rules (RULE_PAIR ... below): each
     * rule's kind, its cells (rule_start: nrules + 1 offsets), a coefficient per cell
     * (sums; an exact sandwich's set offsets), its total, its supports (rule_sup_start:
     * nrules + 1 offsets; a pair's 2 * size masks: for each value of its first cell the
     * second's values it allows, then the other way; an exact sum's earlier peers of each
     * cell, as bits; an exact sandwich's value sets) and whether it is exact (a sum pruned
     * to exact support when its candidates are few, a sandwich propagated); a sum's
     * groups of cells that are peers with one coefficient (rule_grp_start: nrules + 1
     * offsets into rule_grp, which holds each group's size and then its places in the
     * rule's cells; every place of a sum in one group, a lone cell in its own); each
     * cell's rules (ro_start: ncells + 1 offsets into ro) and its unary mask (NULL: no
     * rules). */
    int nrules;
    int32_t *rule_kind, *rule_start, *rule_cells, *rule_total, *rule_sup_start;
    int32_t *rule_grp_start, *rule_grp;
    int64_t *rule_coef;
    uint32_t *rule_sup;
    uint8_t *rule_exact;
    int32_t *ro_start, *ro;
    uint32_t *unary;
} TablesObject;

enum { RULE_PAIR = 0, RULE_SUM = 1, RULE_RUN = 2, RULE_SANDWICH = 3 };
/* The reference's SUM_CELLS and SUM_TUPLES: an exact sum has at most SUM_CELLS cells (its
 * peers as bits of a word), and is pruned to exact support while its candidates make at
 * most SUM_TUPLES assignments. */
#define SUM_CELLS 32
#define SUM_TUPLES 1024

extern PyTypeObject TablesType;

/* An int from a Python int (not a bool), or -1 with an exception set. */
int
as_index(PyObject *obj, const char *what, long lo, long hi, long *out);

/* Candidates in a mask; portable (no -mpopcnt needed), a dozen instructions. */
static inline int
popcount32(uint32_t m)
{
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    m = (m + (m >> 4)) & 0x0F0F0F0Fu;
    return (int)((m * 0x01010101u) >> 24);
}

/* ------------------------------------------------------------------------------------ */
/* A search: its frames, its context and its run (engine.c, board9.c, _core.c)           */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    int32_t state; /* arena slot of the frame's state */
    int32_t cell;
    uint32_t untried;
    uint32_t forced; /* the cell had one candidate: placing it is no guess (reference) */
} Frame;

/*
 * The units, cages or rules to look at again: a set (in[i], so each is marked once) and a
 * list of the marked ones, taken last marked first (any order reaches the same fixpoint).
 * Its arrays are the arena's (_core.c), each as long as there are units, cages or rules.
 */
typedef struct {
    uint8_t *in;
    int32_t *list;
    int n;
} DirtySet;

/* Mark i for another look (marked already: nothing changes). */
static inline void
dirty_mark(DirtySet *d, int i)
{
    if (!d->in[i]) {
        d->in[i] = 1;
        d->list[d->n++] = i;
    }
}

/* Forget the marks (a contradiction stopped the propagation that left them). */
static inline void
dirty_clear(DirtySet *d)
{
    for (int k = 0; k < d->n; k++)
        d->in[d->list[k]] = 0;
    d->n = 0;
}

/* Every one of the n marked, in index order, after any marks are forgotten. */
static inline void
dirty_mark_all(DirtySet *d, int n)
{
    dirty_clear(d);
    for (int i = 0; i < n; i++)
        dirty_mark(d, i);
}

/* A marked one, unmarked, or -1 when none is. */
static inline int
dirty_take(DirtySet *d)
{
    if (!d->n)
        return -1;
    const int i = d->list[--d->n];
    d->in[i] = 0;
    return i;
}

typedef struct {
    /* the grid shape */
    const TablesObject *t;
    int size, ncells;
    uint32_t full;
    /* the knobs */
    int prop;
    int mrv;
    int degree; /* mrv-degree: fewest candidates, then most unplaced peers (choose) */
    int floor;
    int pick9; /* choose's fast path (see there) */
    /* the propagation queue */
    int32_t *qcell;
    uint32_t *qbit;
    size_t qcap;
    size_t nwhere; /* words of where[] per state: nunits * size under hidden, else 0 */
    int overflow; /* the queue bound was broken: an internal error */
    size_t qseed; /* entries root_hidden left in the queue for propagate_hidden */
    int32_t *susp; /* where[] slots to check, (row << 5) | value: 2 * nunits * size */
    DirtySet cages; /* the cages whose cells changed, to prune again */
    /* ac3: the ring of queued arcs (arc, cell: 2 * narcs) and whether each is queued */
    int32_t *arcq;
    uint8_t *arcin;
    size_t narcs;
    DirtySet units; /* gac, sac: the units to filter again */
    uint32_t *probe; /* sac: the state a probe works on (masks, then placed) */
    struct Run *run; /* sac: the search's run, whose clock a node's probes read */
    /* dom-wdeg (engine.c, wdeg_place and choose_wdeg): each constraint's weight (units,
     * then cages), its unplaced cells at the node, the reference's dirty units and cages
     * (one byte each), and what removed candidates last (a cell; -2 - unit for locked
     * candidates; -1 nothing yet) */
    int wdeg;
    uint32_t *weights;
    int32_t *live;
    uint8_t *dirty;
    int remover;
    int lcv; /* values=lcv: the least constraining candidate first (next_guess_lcv) */
    DirtySet rules; /* the variant rules to prune again (engine.c's rules_run) */
} Ctx;


static inline int64_t
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

typedef struct Run {
    /* in */
    const uint8_t *givens;
    const uint32_t *cands; /* the pencil marks, a mask per cell; NULL: every value */
    long long limit; /* 0: no limit */
    int has_deadline;
    int64_t deadline_ns;
    unsigned long epoch;      /* interrupt()'s count when the search began */
    PyThreadState *poll;      /* the main thread's state, to look at signals; else NULL */
    int64_t poll_ns;          /* when to look at signals next */
    unsigned long long max_guesses; /* the guess budget; ULLONG_MAX: none */
    Py_ssize_t keep;
    /* out */
    uint8_t *solutions; /* kept grids, ncells values each */
    Py_ssize_t nsolutions;
    Py_ssize_t solcap;
    unsigned long long count, nodes, guesses, backtracks;
    int complete, timed_out, budget_spent;
    int interrupted; /* Ctrl-C (a Python exception may be set) or interrupt() stopped it */
    int nomem;
    int64_t elapsed_ns; /* the search's own time */
    /* the trace (a proof's skeleton, sudokulab.certify.search): when `tracing`, every
     * placement tried, (depth, cell, value) as three int32, in the order tried */
    int tracing;
    int32_t *trace;
    Py_ssize_t ntrace, tracecap; /* int32 held, and room for */
    Py_ssize_t tracemax;         /* int32 at most: past it the record stops, trace_over set */
    int trace_over;
} Run;

/* The look every 256 guesses (_core.c): 1 when the search must stop, with r->timed_out
 * set (and r->interrupted when Ctrl-C or interrupt() stopped it). */
int core_check(Run *r);

/* Keep one more solution grid (the run keeps up to r->keep); 0 when out of memory. */
uint8_t *grid_slot(Run *r, int ncells);
int keep_solution(Run *r, const Ctx *x, const uint32_t *masks);

/*
 * The search's next guess, for run_search and run_board9, in two halves (next_frame, then
 * count_guess) that engine.c's next_guess_lcv shares: frames whose candidates are all
 * tried are popped (each a backtrack, but a forced frame's); the next candidate of the
 * top frame (the lowest untried value) is taken into *bit and counted as a guess, and
 * every 256 guesses core_check reads the clock. A forced frame's one candidate is taken
 * without a guess and without a look at the budget or the clock (the reference's
 * Statistics): each is a frame deeper, so fewer than the cells come between two guesses. 1 with a guess to place (in the top frame), or 0 when the
 * search ends: the stack is empty (r->complete), the budget has no guess left for that
 * candidate (r->budget_spent: checked before the guess is counted, as the reference
 * does), or the deadline passed or Ctrl-C came (r->timed_out). Without a budget
 * max_guesses is ULLONG_MAX, which a count of guesses never reaches: one compare per
 * guess, no branch on whether there is a budget.
 */
static inline __attribute__((always_inline)) Frame *
next_frame(Run *r, Frame *stack, int *sp)
{
    for (;;) {
        if (*sp == 0) {
            r->complete = 1;
            return NULL;
        }
        Frame *f = &stack[*sp - 1];
        if (!f->untried) {
            (*sp)--;
            r->backtracks += !f->forced; /* a forced frame is no branching cell */
            continue;
        }
        if (!f->forced && r->guesses == r->max_guesses) {
            r->budget_spent = 1;
            return NULL;
        }
        return f;
    }
}

/* Append a placement tried to the trace; 0 when out of memory (r->nomem set). */
int trace_push(Run *r, int depth, int cell, uint32_t bit);

/* Count the guess just taken; 0 when the look at the clock says stop. */
static inline __attribute__((always_inline)) int
count_guess(Run *r)
{
    r->guesses++;
    return (r->guesses & CLOCK_EVERY) || !core_check(r);
}

static inline __attribute__((always_inline)) int
next_guess(Run *r, Frame *stack, int *sp, uint32_t *bit)
{
    Frame *f = next_frame(r, stack, sp);
    if (f == NULL)
        return 0;
    const uint32_t untried = f->untried;
    *bit = untried & (~untried + 1u);
    f->untried = untried ^ *bit;
    if (r->tracing && !trace_push(r, *sp, f->cell, *bit))
        return 0;
    return f->forced || count_guess(r);
}

/* engine.c: the tables of the general engine (at import), and the search proper, run
 * without the GIL: 0 on an internal error. */
void engine_init(void);
int run_search(Ctx *x, Run *r, char *states, size_t stride, Frame *stack);

/* board9.c: whether the CPU runs AVX2 code (set by board9_init at import); the bytes a
 * search's states need there (within the arena's states); the search itself. */
extern int b9_cpu;
void board9_init(void);
int board9_gac_avx512(void); /* gac's filter is the AVX-512 build (gac9_hall) */
size_t board9_states_bytes(void);
int run_board9(Ctx *x, Run *r, char *block, Frame *stack);

/* cover.c: add the Cover type to the module (at import); `epoch` is interrupt()'s count,
 * which core_check compares with a run's. 0, or -1 with an exception set. */
int cover_init(PyObject *module, const unsigned long *epoch);

#endif /* SUDOKULAB_CORE_H */
