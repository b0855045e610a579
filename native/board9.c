/*
 * The classic 9x9 board under hidden or locked propagation on digit planes (AVX2):
 * run_board9.
 * See core.h for the whole core, and run_search (engine.c) for the search it mirrors.
 */

#include "core.h"

/* ------------------------------------------------------------------------------------ */
/* The classic 9x9 board under hidden or locked: digit planes (AVX2)                      */
/* ------------------------------------------------------------------------------------ */

/*
 * The same search as run_search under hidden (and locked), for the classic 9x9 shape only (rows,
 * columns and 3x3 boxes, no cages), turned around: instead of each cell's candidates,
 * each digit's plane, the cells that may still hold it. A plane is one AVX2 vector of
 * four 64-bit lanes: lanes 0-2 are the bands (rows 3b..3b+2, row r at bits 16 (r mod 3)
 * up, column k at bit k), lane 3 a pad (full in the planes, empty in `u`). Then a rule
 * is a few vector operations on a plane, with no branch on the data:
 *
 *   - naked singles: the cells in exactly one plane (`ones` and `twos` over the planes);
 *     a cell in none is the reference's empty-cell contradiction;
 *   - hidden singles of a digit (hidden9): rows are 9-bit fields, tested for one bit
 *     with a subtraction per field (a guard bit at 15 stops the borrow); columns are
 *     the three rows of a band folded (or: any, and: two), then the three bands folded
 *     with lane rotations; boxes are the column folds' 3-bit groups. A unit with no
 *     place is the reference's "no place left" contradiction;
 *   - placing every naked (or hidden) single of one digit at once (cover9): the plane
 *     loses their rows, columns and boxes, and keeps the cells; two of them sharing a
 *     unit is a contradiction (the reference would place one and find the other empty).
 *
 * Naked singles run to their fixpoint first, then the hidden singles of the digits whose
 * planes changed. These are the reference's rules, only fired in another order and many
 * at once, which its docstring allows (they only remove candidates, so the fixpoint or
 * the contradiction is the same). MRV counts candidates with bit-sliced adders over the
 * planes and takes the lowest cell with the fewest. So the nodes, guesses, backtracks
 * and solutions are the reference's (tests/test_core_board9.py checks this against the
 * general engine on whole sets; the identity tests check it against the reference), and
 * as it takes its guesses from next_guess too, a deadline or a guess budget stops it
 * where it stops the general engine.
 * Under locked, once the singles are at their fixpoint, each digit whose plane changed
 * gets its locked candidates (locked9: pointing and claiming along rows and columns, a
 * few dozen vector operations on its plane), and the singles run again on what they
 * removed, to the fixpoint: the reference's rules again, so again the same results.
 * A state is 320 bytes (the general engine's is 1.4 KB), copied once per guess.
 *
 * Compiled for AVX2 (target attribute) where the compiler can, used when the CPU has it
 * (checked once at import); elsewhere the general engine runs.
 */
/* The CPU runs AVX2 code (see run_board9); set at import. */
int b9_cpu;

#if HAVE_BOARD9
#include <immintrin.h>

typedef uint64_t B9V __attribute__((vector_size(32)));
#define B9 static inline __attribute__((target("avx2"), always_inline))
#define B9F9 0x1FFull
#define B9L3 0x0000000100010001ull /* the lowest bit of each row field */
#define B9H3 0x0000800080008000ull /* a guard bit above each row field */
#define B9BAND (B9F9 * B9L3)       /* every cell of a band */
#define B9S(x) ((B9V){(x), (x), (x), (x)})

typedef struct {
    B9V p[9]; /* p[d]: the cells that may still hold d+1 (pad lane full) */
    B9V u;    /* the cells not placed yet (pad lane empty) */
} Board9;

static B9V b9_peer[81]; /* each cell's peers */
static B9V b9_bit[81];  /* each cell alone */

void
board9_init(void)
{
    for (int c = 0; c < 81; c++) {
        const int r = c / 9, k = c % 9;
        for (int o = 0; o < 81; o++) {
            const int ro = o / 9, ko = o % 9;
            if (o != c && (ro == r || ko == k || (ro / 3 == r / 3 && ko / 3 == k / 3)))
                b9_peer[c][ro / 3] |= 1ull << (16 * (ro % 3) + ko);
        }
        b9_bit[c][r / 3] = 1ull << (16 * (r % 3) + k);
    }
    __builtin_cpu_init();
    b9_cpu = __builtin_cpu_supports("avx2") != 0;
}

/* The cell at bit pos of band b. */
static inline int
b9_cell(int b, int pos)
{
    return 27 * b + 9 * (pos >> 4) + (pos & 15);
}

B9 int
b9_any(B9V x)
{
    return !_mm256_testz_si256((__m256i)x, (__m256i)x);
}

/* Lane i gets lane i+1 (resp. i+2) of the bands, modulo 3; the pad stays. */
B9 B9V
b9_rot1(B9V x)
{
    return (B9V)_mm256_permute4x64_epi64((__m256i)x, 0xC9);
}

B9 B9V
b9_rot2(B9V x)
{
    return (B9V)_mm256_permute4x64_epi64((__m256i)x, 0xD2);
}

/* The hidden singles of plane x: *out = every cell that is the only place of the digit
 * in its row, column or box. Nonzero when a unit has no place for it. */
B9 B9V
hidden9(B9V x, B9V *out)
{
    const B9V h = B9S(B9H3), l = B9S(B9L3), f = B9S(B9F9), k49 = B9S(0x49);
    /* rows: a field with two or more bits keeps one after x & (x - 1) */
    const B9V z = x & ((x | h) - l);
    const B9V multi = (z + (h - l)) & h;
    const B9V some = (x + (h - l)) & h;
    const B9V one = (some & ~multi) >> 15;
    const B9V rows = x & ((one << 9) - one);
    /* columns: in each band, the columns with a place (o) and with two (t) */
    const B9V a = x & f, b = (x >> 16) & f, c = x >> 32;
    const B9V o = a | b | c;
    const B9V t = (a & b) | (c & (a | b));
    const B9V o1 = b9_rot1(o), o2 = b9_rot2(o);
    const B9V cols_any = o | o1 | o2;
    const B9V cols_two = t | b9_rot1(t) | b9_rot2(t) | (o & o1) | (o2 & (o | o1));
    /* boxes: groups of three columns of a band */
    const B9V box_any = (o | o >> 1 | o >> 2) & k49;
    const B9V box_two = (t | t >> 1 | t >> 2 | (o & o >> 1) | ((o | o >> 1) & o >> 2)) & k49;
    const B9V g = box_any & ~box_two;
    const B9V spots = (cols_any & ~cols_two) | ((g << 3) - g);
    *out = rows | (x & (spots | spots << 16 | spots << 32));
    return (some ^ h) | (cols_any ^ f) | (box_any ^ k49);
}

/* Cells n all take one digit: *cover = their rows, columns and boxes (n included).
 * Nonzero when two of them share a unit. */
B9 B9V
cover9(B9V n, B9V *cover)
{
    const B9V h = B9S(B9H3), l = B9S(B9L3), f = B9S(B9F9), k49 = B9S(0x49);
    B9V clash = n & ((n | h) - l);
    const B9V some = ((n + (h - l)) & h) >> 15;
    const B9V a = n & f, b = (n >> 16) & f, c = n >> 32;
    const B9V o = a | b | c;
    const B9V t = (a & b) | (c & (a | b));
    const B9V o1 = b9_rot1(o);
    clash |= t | (o & o1) | (((o & o >> 1) | ((o | o >> 1) & o >> 2)) & k49);
    const B9V box_any = (o | o >> 1 | o >> 2) & k49;
    const B9V spots = o | o1 | b9_rot2(o) | ((box_any << 3) - box_any);
    *cover = ((some << 9) - some) | spots | spots << 16 | spots << 32;
    return clash;
}

/* Place digit d in cell c (a given or a guess); *dirty gets the digits whose planes
 * change. 0 when d is not a candidate there. */
B9 int
place9(Board9 *s, int c, int d, unsigned *dirty)
{
    const int b = c / 27, pos = 16 * ((c / 9) % 3) + c % 9;
    if (!((s->p[d][b] >> pos) & 1))
        return 0;
    if (!((s->u[b] >> pos) & 1))
        return 1; /* already placed, with d */
    const B9V bit = b9_bit[c];
    for (int e = 0; e < 9; e++) {
        *dirty |= (unsigned)((s->p[e][b] >> pos) & 1) << e;
        s->p[e] &= ~bit;
    }
    s->p[d] = (s->p[d] & ~b9_peer[c]) | bit;
    s->u &= ~bit;
    return 1;
}

/* Fold macros over a band word: REP3 copies a row field's bits to the three rows, EXP3
 * spreads a segment's (or a box group's) first bit to its three cells. */
#define REP3(v) ((v) | (v) << 16 | (v) << 32)
#define EXP3(v) ((v) | (v) << 1 | (v) << 2)

/* Per row field of v: bit 16 r when row r holds a bit (ANY3), two or more (TWO3). */
B9 B9V
any_rows(B9V v)
{
    const B9V h = B9S(B9H3), l = B9S(B9L3);
    return ((v + (h - l)) & h) >> 15;
}

B9 B9V
two_rows(B9V v)
{
    const B9V h = B9S(B9H3), l = B9S(B9L3);
    return any_rows(v & ((v | h) - l)); /* each field without its lowest bit */
}

/* The cells of the rows whose bit 16 r is set. */
B9 B9V
rows_of(B9V r)
{
    return (r << 9) - r;
}

/*
 * Locked candidates of one digit's plane x: the cells that lose the digit. Segments are
 * the three cells a row shares with a box; `seg` has bit 16 r + 3 j when row r of box j
 * (of the band) may hold the digit, `o` bit k when column k of the band may.
 *   - pointing along a row: a box whose places lie in one row confines the digit to
 *     that segment, so the row's other cells lose it (a row two boxes point into loses
 *     it everywhere: the rules' union, as the reference applies them one by one);
 *   - claiming by a row: a row whose places lie in one box: the box's other rows lose it;
 *   - pointing along a column: a box whose places lie in one column: that column loses
 *     it in the other bands (lane rotations);
 *   - claiming by a column: a column whose places lie in one band: the box's other
 *     columns lose it.
 * Box groups and rows are counted with the same "any" and "two or more" folds as
 * hidden9. The caller keeps only unplaced cells of the bands (the pad lane is garbage).
 */
B9 B9V
locked9(B9V x)
{
    const B9V f = B9S(B9F9), k49 = B9S(0x49), k3 = B9S(0x49 * B9L3);
    const B9V seg = (x | x >> 1 | x >> 2) & k3;
    /* pointing along rows: boxes with one row of places */
    const B9V s0 = seg & k49, s1 = (seg >> 16) & k49, s2 = (seg >> 32) & k49;
    const B9V box_one_row = (s0 | s1 | s2) & ~((s0 & s1) | (s2 & (s0 | s1)));
    const B9V point = seg & REP3(box_one_row);
    const B9V out_rows = (rows_of(any_rows(point)) & ~EXP3(point)) | rows_of(two_rows(point));
    /* claiming by rows: rows with one segment; by box group, one such row or more */
    const B9V claim = seg & rows_of(any_rows(seg) & ~two_rows(seg));
    const B9V q0 = claim & k49, q1 = (claim >> 16) & k49, q2 = (claim >> 32) & k49;
    const B9V q_any = q0 | q1 | q2, q_two = (q0 & q1) | (q2 & (q0 | q1));
    const B9V out_boxes = (REP3(EXP3(q_any)) & ~EXP3(claim)) | REP3(EXP3(q_two));
    /* the band's columns with places; pointing along columns: boxes with one column */
    const B9V o = (x | x >> 16 | x >> 32) & f;
    const B9V g0 = o & k49, g1 = (o >> 1) & k49, g2 = (o >> 2) & k49;
    const B9V box_one_col = (g0 | g1 | g2) & ~((g0 & g1) | (g2 & (g0 | g1)));
    const B9V col = o & EXP3(box_one_col);
    const B9V out_cols = REP3(b9_rot1(col) | b9_rot2(col));
    /* claiming by columns: columns with places in this band only */
    const B9V only = o & ~(b9_rot1(o) | b9_rot2(o));
    const B9V c0 = only & k49, c1 = (only >> 1) & k49, c2 = (only >> 2) & k49;
    const B9V c_any = c0 | c1 | c2, c_two = (c0 & c1) | (c2 & (c0 | c1));
    const B9V out_group = REP3((EXP3(c_any) & ~only) | EXP3(c_two));
    return out_rows | out_boxes | out_cols | out_group;
}

/* Naked and hidden singles (and with lock, locked candidates) to the fixpoint; dirty: the
 * digits whose planes changed. 0 on a contradiction. */
B9 int
propagate9(Board9 *s, unsigned dirty, const int lock)
{
    unsigned stale = dirty; /* digits whose planes changed since their locked candidates */
    for (;;) {
        B9V ones = s->p[0], twos = B9S(0);
        for (int d = 1; d < 9; d++) {
            twos |= ones & s->p[d];
            ones |= s->p[d];
        }
        if (b9_any(s->u & ~ones))
            return 0; /* a cell without a candidate */
        const B9V naked = s->u & ~twos;
        if (b9_any(naked)) {
            unsigned digits = 0;
            for (int d = 0; d < 9; d++)
                digits |= (unsigned)b9_any(naked & s->p[d]) << d;
            dirty |= digits;
            stale |= digits;
            for (; digits; digits &= digits - 1) {
                const int d = __builtin_ctz(digits);
                const B9V n = naked & s->p[d];
                B9V cover;
                if (b9_any(cover9(n, &cover)))
                    return 0;
                s->p[d] = (s->p[d] & ~cover) | n;
                s->u &= ~n;
            }
            continue; /* naked singles to their fixpoint first */
        }
        if (!dirty)
            goto locked;
        B9V hid[9];
        unsigned found = 0;
        for (unsigned dd = dirty; dd; dd &= dd - 1) {
            const int d = __builtin_ctz(dd);
            B9V out;
            if (b9_any(hidden9(s->p[d], &out)))
                return 0; /* a unit without a place for d + 1 */
            hid[d] = out & s->u;
            found |= (unsigned)b9_any(hid[d]) << d;
        }
        dirty = 0;
        if (!found)
            goto locked;
        for (; found; found &= found - 1) {
            const int d = __builtin_ctz(found);
            const B9V n = hid[d];
            B9V cover;
            /* an earlier digit's hidden single may have taken one of these cells */
            if (b9_any(n & ~s->p[d]) || b9_any(cover9(n, &cover)))
                return 0;
            for (int e = 0; e < 9; e++) {
                dirty |= (unsigned)b9_any(s->p[e] & n) << e;
                s->p[e] &= ~n;
            }
            s->p[d] = (s->p[d] & ~cover) | n;
            s->u &= ~n;
        }
        stale |= dirty;
        continue;
    locked:
        if (!lock)
            return 1;
        /* Singles are at their fixpoint: the locked candidates of each digit whose plane
         * changed since its last look (they depend on that plane alone), all from this
         * state (the rules only remove, so their union is the same fixpoint). */
        for (; stale; stale &= stale - 1) {
            const int d = __builtin_ctz(stale);
            const B9V gone = locked9(s->p[d]) & s->p[d] & s->u;
            if (b9_any(gone)) {
                s->p[d] &= ~gone;
                dirty |= 1u << d;
            }
        }
        if (!dirty)
            return 1;
        stale = dirty;
    }
}

/* The cell to branch on (mrv: the fewest candidates, lowest index; else the first), or
 * -1 when every cell is placed. */
B9 int
choose9(const Board9 *s, int mrv)
{
    B9V m = s->u;
    if (mrv) {
        /* the candidates of every cell counted in binary (c3 c2 c1 c0), over the planes */
        B9V c0 = B9S(0), c1 = c0, c2 = c0, c3 = c0;
        for (int d = 0; d < 9; d++) {
            const B9V x = s->p[d];
            const B9V k0 = c0 & x;
            c0 ^= x;
            const B9V k1 = c1 & k0;
            c1 ^= k0;
            c3 |= c2 & k1;
            c2 ^= k1;
        }
        /* an unplaced cell has two candidates or more at a node */
        for (int k = 2; k <= 9; k++) {
            m = s->u & ((k & 1) ? c0 : ~c0) & ((k & 2) ? c1 : ~c1) & ((k & 4) ? c2 : ~c2) &
                ((k & 8) ? c3 : ~c3);
            if (b9_any(m))
                break;
        }
    }
    for (int b = 0; b < 3; b++)
        if (m[b])
            return b9_cell(b, __builtin_ctzll(m[b]));
    return -1;
}

/* run_search for the classic 9x9 shape under hidden or locked (see above); `block` holds 82
 * states (the root and one per depth) plus 32 bytes for the alignment. */
__attribute__((target("avx2"))) int
run_board9(Ctx *x, Run *r, char *block, Frame *stack)
{
    Board9 *states = (Board9 *)(((uintptr_t)block + 31) & ~(uintptr_t)31);
    Board9 *s = states;
    const int mrv = x->mrv;
    const int lock = x->prop == PROP_LOCKED;
    for (int d = 0; d < 9; d++)
        s->p[d] = B9S(B9BAND);
    s->u = (B9V){B9BAND, B9BAND, B9BAND, 0};
    unsigned dirty = 0;
    for (int c = 0; c < 81; c++)
        if (r->givens[c] && !place9(s, c, r->givens[c] - 1, &dirty)) {
            r->complete = 1; /* a value given twice in a unit */
            return 1;
        }
    if (!propagate9(s, 0x1FF, lock)) {
        r->complete = 1;
        return 1;
    }
    int cur = 0, sp = 0;
    for (;;) {
        /* s is a consistent state: a node. */
        r->nodes++;
        const int cell = choose9(s, mrv);
        if (cell < 0) {
            r->count++;
            if ((Py_ssize_t)r->count <= r->keep) {
                uint8_t *grid = grid_slot(r, 81);
                if (grid == NULL) {
                    r->nomem = 1;
                    return 0;
                }
                for (int d = 0; d < 9; d++)
                    for (int b = 0; b < 3; b++)
                        for (uint64_t m = s->p[d][b]; m; m &= m - 1)
                            grid[b9_cell(b, __builtin_ctzll(m))] = (uint8_t)(d + 1);
            }
            if (r->limit && r->count >= (unsigned long long)r->limit)
                return 1;
        } else {
            const int b = cell / 27, pos = 16 * ((cell / 9) % 3) + cell % 9;
            uint32_t candidates = 0;
            for (int d = 0; d < 9; d++)
                candidates |= (uint32_t)((s->p[d][b] >> pos) & 1) << d;
            stack[sp].state = cur;
            stack[sp].cell = cell;
            stack[sp].untried = candidates;
            sp++;
        }
        /* Find the next candidate whose propagation succeeds. */
        for (;;) {
            uint32_t bit;
            if (!next_guess(r, stack, &sp, &bit))
                return 1;
            const Frame *f = &stack[sp - 1];
            if (f->untried) {
                cur = sp; /* slot sp is free: every frame below refers to a slot <= its index */
                states[cur] = states[f->state];
            } else { /* last candidate: the frame's state is never needed again */
                cur = f->state;
            }
            s = &states[cur];
            dirty = 0;
            if (place9(s, f->cell, __builtin_ctz(bit), &dirty) && propagate9(s, dirty, lock))
                break;
        }
    }
}

/* 82 states (the root and one per depth), 32-byte aligned within the block. */
size_t
board9_states_bytes(void)
{
    return sizeof(Board9) * 82 + 32;
}

#else
void
board9_init(void)
{
    b9_cpu = 0;
}

size_t
board9_states_bytes(void)
{
    return 0;
}

int
run_board9(Ctx *x, Run *r, char *block, Frame *stack)
{
    (void)x, (void)r, (void)block, (void)stack;
    return 0; /* never called: no Tables is a board9 without AVX2 code */
}
#endif
