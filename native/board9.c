/*
 * The classic 9x9 board under hidden, locked or gac propagation on digit planes (AVX2):
 * run_board9.
 * See core.h for the whole core, and run_search (engine.c) for the search it mirrors.
 */

#include "core.h"

/* ------------------------------------------------------------------------------------ */
/* The classic 9x9 board under hidden, locked or gac: digit planes (AVX2)                */
/* ------------------------------------------------------------------------------------ */

/*
 * The same search as run_search under hidden (and locked, and gac), for the classic 9x9
 * shape only (rows, columns and 3x3 boxes, no cages), turned around: instead of each
 * cell's candidates, each digit's plane, the cells that may still hold it. A plane is one
 * AVX2 vector of four 64-bit lanes: lanes 0-2 are the bands (rows 3b..3b+2, row r at
 * bits 16 (r mod 3) up, column k at bit k), lane 3 a pad (full in the planes, empty in
 * `u`). Then a rule is a few vector operations on a plane, with no branch on the data:
 *
 *   - naked singles: the cells in exactly one plane (`ones` and `twos` over the planes);
 *     a cell in none is the reference's empty-cell contradiction;
 *   - hidden singles of a digit (hidden9): rows are 9-bit fields, tested for one bit
 *     with a subtraction per field (a guard bit at 15 stops the borrow); columns are
 *     the three rows of a band folded (or: any, and: two), a column's single place
 *     being in the band with one there when the other bands (lane rotations) have none;
 *     boxes are the column folds' 3-bit groups. A unit with no place is the
 *     reference's "no place left" contradiction;
 *   - placing every naked (or hidden) single of one digit at once (cover9): the plane
 *     loses their rows, columns and boxes, and keeps the cells; two of them sharing a
 *     unit is a contradiction (the reference would place one and find the other empty).
 *
 * Each round places every naked single, then every hidden single of the digits whose
 * planes changed (all at once: the cells leave every plane in one pass), until a round
 * places nothing. These are the reference's rules, only fired in another order and many
 * at once, which docs/engine.md allows (they only remove candidates, so the fixpoint or
 * the contradiction is the same). MRV counts candidates with bit-sliced adders over the
 * planes and takes the lowest cell with the fewest; mrv-degree then counts each such
 * cell's unplaced peers (three popcounts of u and the cell's peer mask) and takes the
 * lowest cell with the most. So the nodes, guesses, backtracks and solutions are the
 * reference's (tests/test_core_board9.py checks this against the general engine on whole
 * sets; the identity tests check it against the reference), and as it takes its guesses
 * from next_guess too, a deadline or a guess budget stops it where it stops the general
 * engine.
 * Under locked, once the singles are at their fixpoint, each digit whose plane changed
 * gets its locked candidates (locked9: pointing and claiming along rows and columns, on
 * segment words, three digits sharing each vector operation), and the singles run again
 * on what they removed, to the fixpoint: the reference's rules again, so again the same
 * results.
 * Under gac, once the singles are at their fixpoint, Régin's filtering of every unit whose
 * cells changed (by Hall sets, below), and the singles again on what it removed, to the fixpoint:
 * gac's own, as the singles only remove what gac would (docs/engine.md).
 * A state is 320 bytes (the general engine's is 1.4 KB), copied once per guess.
 *
 * Compiled for AVX2 and POPCNT (target attribute) where the compiler can, used when the CPU
 * has them (checked once at import); elsewhere the general engine runs. gac's filter by
 * Hall sets (gac9_hall) is compiled for AVX-512 (BW, BITALG, VBMI2) and BMI2, used when
 * the CPU has them too (checked at import); else gac9_hall2, on AVX2.
 */
/* The CPU runs AVX2 code (see run_board9); set at import. */
int b9_cpu;

#if HAVE_BOARD9
#include <immintrin.h>

typedef uint64_t B9V __attribute__((vector_size(32)));
#define B9 static inline __attribute__((target("avx2,popcnt"), always_inline))
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
/* b9_peer's band words, read as scalars (choose9) */
static const uint64_t (*const b9_peer_w)[4] = (const uint64_t (*)[4])b9_peer;

static void board9_units_init(void);

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
    board9_units_init();
    __builtin_cpu_init();
    b9_cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
}

/* A band word's 27 cells in cell order: row r's column k (bit 16 r + k) to bit 9 r + k. */
static inline uint64_t
b9_cells27(uint64_t w)
{
    return (w & 0x1FF) | (w >> 7 & 0x3FE00) | (w >> 14 & 0x7FC0000);
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
    /* rows: a field with two or more bits keeps one after x & (x - 1); multi's guard bit
     * (15) minus its copy at bit 0, moved to bit 9, is that row's field */
    const B9V z = x & ((x | h) - l);
    const B9V multi = (z + (h - l)) & h;
    const B9V some = (x + (h - l)) & h;
    const B9V rows = x & ~((multi >> 6) - (multi >> 15)); /* the rows with one place */
    /* columns: in each band, the columns with a place (o) and with two (t); a column's
     * only place is in this band when the band has one there and the others none */
    const B9V a = x & f, b = (x >> 16) & f, c = x >> 32;
    const B9V o = a | b | c;
    const B9V t = (a & b) | (c & (a | b));
    const B9V others = b9_rot1(o) | b9_rot2(o); /* a place in another band */
    const B9V cols_any = o | others;
    const B9V one = o & ~t; /* one place in this band */
    /* boxes: groups of three columns of a band; a box's only place is in the one column
     * of its group with places (g: the groups with one such column), if that has one */
    const B9V box_any = (o | o >> 1 | o >> 2) & k49;
    const B9V box_cols = ((o & o >> 1) | ((o | o >> 1) & o >> 2)) & k49; /* two columns */
    const B9V g = box_any & ~box_cols;
    const B9V spots = one & (~others | ((g << 3) - g));
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

/* Guess digit d, a candidate, in unplaced cell c: every plane loses the cell and d's its
 * peers too, so the planes that change are the cell's candidates' (the frame keeps them). */
B9 void
place9(Board9 *s, int c, int d)
{
    const B9V bit = b9_bit[c];
    for (int e = 0; e < 9; e++)
        s->p[e] &= ~bit;
    s->p[d] = (s->p[d] & ~b9_peer[c]) | bit;
    s->u &= ~bit;
}

/* Fold macros over a band word: REP3 copies a row field's bits to the three rows, EXP3
 * spreads a segment's first bit to its three cells. */
#define REP3(v) ((v) | (v) << 16 | (v) << 32)
#define EXP3(v) ((v) | (v) << 1 | (v) << 2)

/*
 * Locked candidates of three digits' planes at once (x[i]; an empty plane is allowed):
 * gone[i], the cells of x[i] that lose its digit. A band's segments are where a row meets
 * a box (row r of box j may hold the digit) and where a column meets the band:
 *   - pointing along a row: box j's places all in row r (no other row of the box has a
 *     segment): row r's other segments lose the digit;
 *   - claiming by a row: row r's places all in box j: the box's other rows' segments lose it;
 *   - pointing along a column: a box's places all in column k (no other column of its
 *     group has one): column k loses it in the other bands (lane rotations);
 *   - claiming by a column: column k's places all in this band: the other columns of
 *     its box lose it.
 * All four from the same plane: the rules' union, which the reference reaches applying
 * them one by one (two boxes pointing into one row take it from the whole row). The three
 * digits share every operation: in the segment word, digit i's segment (r, j) is bit
 * 16 r + 3 j + i (the segments' first bits, moved up by i); in the column word, digit i's
 * column k is bit 16 i + k of its band's lane. The caller keeps only unplaced cells of the
 * bands (the pad lane is garbage).
 */
#define B9K3 (0x49 * B9L3) /* the first cell of each segment, every row */
/* A segment word with (r, j) moved to where (r - 1, j) or (r, j - 1) was, mod 3, as the
 * shifts say: (16, 32) gives each segment the one of the next row, (32, 16) the row
 * after; (3, 6) the next box's, (6, 3) the box after. */
B9 B9V
seg_next(B9V s, int right, int left)
{
    return (s >> right | s << left) & B9S(B9BAND);
}

/* On column words: column k gets column k + 1 (k + 2) of its group of three, mod 3. */
B9 B9V
col_next1(B9V c)
{
    return (c >> 1 & B9S(REP3(0x0DBull))) | (c << 2 & B9S(REP3(0x124ull)));
}

B9 B9V
col_next2(B9V c)
{
    return (c >> 2 & B9S(REP3(0x049ull))) | (c << 1 & B9S(REP3(0x1B6ull)));
}

B9 void
locked9(const B9V x[3], B9V gone[3])
{
    B9V seg = B9S(0), col = B9S(0);
    for (int i = 0; i < 3; i++) {
        seg |= ((x[i] | x[i] >> 1 | x[i] >> 2) & B9S(B9K3)) << i;
        col |= ((x[i] | x[i] >> 16 | x[i] >> 32) & B9S(B9F9)) << (16 * i);
    }
    const B9V box_in_row = seg & ~(seg_next(seg, 16, 32) | seg_next(seg, 32, 16)); /* pointing */
    const B9V row_in_box = seg & ~(seg_next(seg, 3, 6) | seg_next(seg, 6, 3)); /* claiming */
    const B9V segs = seg_next(box_in_row, 3, 6) | seg_next(box_in_row, 6, 3) |
                     seg_next(row_in_box, 16, 32) | seg_next(row_in_box, 32, 16);
    const B9V col_in_band = col & ~(b9_rot1(col) | b9_rot2(col)); /* claiming */
    const B9V box_in_col = col & ~(col_next1(col) | col_next2(col)); /* pointing */
    const B9V cols = col_next1(col_in_band) | col_next2(col_in_band) | b9_rot1(box_in_col) |
                     b9_rot2(box_in_col);
    for (int i = 0; i < 3; i++) {
        const B9V si = segs >> i & B9S(B9K3), ci = cols >> (16 * i) & B9S(B9F9);
        gone[i] = x[i] & (EXP3(si) | REP3(ci));
    }
}

/*
 * gac on the planes: Régin's all-different filtering of each unit (gac_unit in engine.c
 * does it with a matching), here found by Hall sets. The open cells of a unit (two
 * candidates or more: the naked singles are placed when a pass starts) have the unit's
 * missing digits among their candidates, as many as the cells (the singles' checks hold),
 * so a perfect matching exists unless some set of open cells is short (fewer digits among
 * them than cells: Hall's theorem), and then an edge (i, v) lies in no perfect matching
 * exactly when a tight set S of open cells (as many digits among them as cells) holds v
 * and not i: every matching gives S's digits to S's cells; conversely, when Régin drops
 * (i, v), the cells that v's cell reaches are such an S. So every subset of a unit's open
 * cells has its digits counted against its cells, many subsets a vector; a short one is a
 * contradiction, and each tight one takes its digits from the other open cells. A unit
 * with three open cells or fewer is skipped: the singles' fixpoint is gac's there (a Hall
 * set of two cells among three leaves the third a single). Within a pass each unit reads
 * the candidates of the pass's start, a superset of the current ones: what it removes is
 * removed for the current ones too (an edge in no perfect matching of a graph is in none
 * of its subgraphs), and every unit whose cells changed is looked at again, on fresh
 * candidates, in the next pass, so the passes end at gac's fixpoint, or its
 * contradiction. Two implementations: gac9_hall where the CPU has AVX-512 (BW, BITALG,
 * VBMI2) and BMI2, 32 subsets a vector; gac9_hall2 elsewhere, on AVX2, 16 a vector.
 */
/* Each unit's cells, rows 0-8, columns 9-17, boxes 18-26 (bit k of units9_of). */
static uint8_t b9_unit[27][9];
/* gac9_hall's tables. Each unit's cells: b9_uidx, as lanes of the band vectors (lane i:
 * its cell i, band b's cells at 32 b up, lanes 9-31 unused), b9_uhi the lanes in band 2;
 * b9_umask[k][b], its cells in band b (bit 9 r + k), b9_uat[k], the lane of its first cell
 * past bands 0 (and 1). b9_size[j][l]: the cells of subset 32 j + l; b9_iota: 0, 1, ... */
static uint16_t b9_uidx[27][32] __attribute__((aligned(64)));
static uint32_t b9_uhi[27];
static uint64_t b9_umask[27][3];
static uint8_t b9_uat[27][2];
static uint16_t b9_size[16][32] __attribute__((aligned(64)));
static uint16_t b9_iota[32] __attribute__((aligned(64)));

/* gac by gac9_hall, not gac9_hall2: set at import, when the CPU has what it needs and the
 * environment does not ask for the other with SUDOKULAB_GAC9_AVX2=1 (for its tests). */
static int b9_hall;

int
board9_gac_avx512(void)
{
    return b9_hall;
}

static void
board9_units_init(void)
{
    const char *avx2 = getenv("SUDOKULAB_GAC9_AVX2");
    __builtin_cpu_init();
    b9_hall = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512bitalg") &&
              __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2") &&
              !(avx2 && strcmp(avx2, "1") == 0);
    for (int k = 0; k < 9; k++)
        for (int i = 0; i < 9; i++) {
            b9_unit[k][i] = (uint8_t)(9 * k + i);
            b9_unit[9 + k][i] = (uint8_t)(9 * i + k);
            b9_unit[18 + k][i] = (uint8_t)(27 * (k / 3) + 9 * (i / 3) + 3 * (k % 3) + i % 3);
        }
    for (int k = 0; k < 27; k++)
        for (int i = 0; i < 9; i++) {
            const int c = b9_unit[k][i];
            b9_uidx[k][i] = (uint16_t)(32 * (c / 27) + c % 27);
            b9_uhi[k] |= (uint32_t)(c >= 54) << i;
            b9_umask[k][c / 27] |= 1ull << (c % 27);
            b9_uat[k][0] += c < 27;
            b9_uat[k][1] += c < 54;
        }
    for (int j = 0; j < 16; j++)
        for (int l = 0; l < 32; l++)
            b9_size[j][l] = (uint16_t)__builtin_popcount((unsigned)(32 * j + l));
    for (int l = 0; l < 32; l++)
        b9_iota[l] = (uint16_t)l;
}

/* The units holding a cell of t (lanes 0-2). */
B9 uint32_t
units9_of(const B9V t)
{
    uint32_t rows = 0, col = 0, box = 0;
    for (int b = 0; b < 3; b++) {
        const uint64_t w = t[b];
        const uint64_t r0 = w & 0x1FF, r1 = w >> 16 & 0x1FF, r2 = w >> 32 & 0x1FF;
        rows |= (uint32_t)((r0 != 0) | (r1 != 0) << 1 | (r2 != 0) << 2) << (3 * b);
        const uint64_t o = r0 | r1 | r2;
        col |= (uint32_t)o;
        box |= (uint32_t)(((o & 7) != 0) | ((o & 0x38) != 0) << 1 | ((o & 0x1C0) != 0) << 2)
               << (3 * b);
    }
    return rows | col << 9 | box << 18;
}

/* Every cell's candidates (bit d: digit d + 1) into cm[0..80], sixteen cells a vector
 * (cm has room for 96: a band's second store runs into the next band, stored after). */
B9 void
cands9(const Board9 *s, uint16_t *cm)
{
    const __m256i lo = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
                                         4096, 8192, 16384, (short)0x8000);
    for (int b = 0; b < 3; b++) {
        __m256i a0 = _mm256_setzero_si256(), a1 = a0;
        for (int d = 0; d < 9; d++) {
            const uint32_t cells = (uint32_t)b9_cells27(s->p[d][b]);
            const __m256i bit = _mm256_set1_epi16((short)(1 << d));
            const __m256i v0 = _mm256_set1_epi16((short)(cells & 0xFFFF));
            const __m256i v1 = _mm256_set1_epi16((short)(cells >> 16));
            a0 = _mm256_or_si256(a0, _mm256_and_si256(
                                         _mm256_cmpeq_epi16(_mm256_and_si256(v0, lo), lo), bit));
            a1 = _mm256_or_si256(a1, _mm256_and_si256(
                                         _mm256_cmpeq_epi16(_mm256_and_si256(v1, lo), lo), bit));
        }
        _mm256_storeu_si256((__m256i *)(cm + 27 * b), a0);
        _mm256_storeu_si256((__m256i *)(cm + 27 * b + 16), a1);
    }
}

/*
 * gac9_hall, where the CPU has AVX-512 (BW, BITALG and VBMI2) and BMI2 (see above for
 * why tight and short sets are Régin's filtering): every subset of a unit's open cells
 * (packed in cell order) gets its digits counted (vpopcntw on the union of its cells'
 * candidates) against its cells, 32 subsets a vector (open cells 0-4 across the lanes,
 * one vector per subset of open cells 5-8), with no branch on the data but the tight
 * set's (about one unit in six).
 * The empty set and all the open cells (tight at the singles' fixpoint) remove nothing and
 * are left out. The candidates come from the planes in three vectors, one per band (a
 * masked add per plane), and each unit's from those by two permutations; its open cells
 * (the unit's n) from the bands' by bit extraction, so the units with fewer than four are
 * dropped before any vector work, with no branch on each.
 */
/* gac9_hall's code: compiled for AVX-512 whatever the rest is compiled for; the filter
 * itself not inlined (propagate9, compiled for AVX2 alone, calls it), its units inlined */
#define B9X_TARGET target("avx2,popcnt,bmi2,avx512f,avx512bw,avx512bitalg,avx512vbmi2")
#define B9X static __attribute__((B9X_TARGET, noinline))
#define B9XI static inline __attribute__((B9X_TARGET, always_inline))

/* the lanes whose subset holds open cell c: cells 0-4 in lo's lanes, 5-8 in hi's */
static const __mmask32 b9_has[9] = {0xAAAAAAAA, 0xCCCCCCCC, 0xF0F0F0F0, 0xFF00FF00, 0xFFFF0000,
                                    0xAAAA,     0xCCCC,     0xF0F0,     0xFF00};

/* One unit k of gac9_hall, its open cells `open` (four or more; `small`: five at most, so
 * one vector of subsets and no cell past the fifth), from the bands' candidates cb. */
B9XI int
hall9_unit(Board9 *s, const __m512i cb[3], int k, uint32_t open, unsigned *changed,
           const int small)
{
    const int n = __builtin_popcount(open);
    /* lane i: the unit's cell i's candidates (bands 0 and 1 in one table, then 2) */
    const __m512i idx = _mm512_load_si512((const void *)b9_uidx[k]);
    const __m512i dom = _mm512_mask_permutexvar_epi16(
        _mm512_permutex2var_epi16(cb[0], idx, cb[1]), b9_uhi[k], idx, cb[2]);
    /* p: the open cells' packed (lane i: the i-th, none past n); lo: the union of
     * subset l of open cells 0-4 in lane l, hi: of subset j of open cells 5-8 in lane j */
    const __m512i p = _mm512_maskz_compress_epi16(open, dom);
    __m512i lo = _mm512_setzero_si512(), hi = lo;
    for (int c = 0; c < 5; c++)
        lo = _mm512_or_si512(
            lo, _mm512_maskz_permutexvar_epi16(b9_has[c], _mm512_set1_epi16((short)c), p));
    if (!small) /* cells 5-8: none in a small unit */
        for (int c = 5; c < 9; c++)
            hi = _mm512_or_si512(
                hi, _mm512_maskz_permutexvar_epi16(b9_has[c], _mm512_set1_epi16((short)c), p));
    /* vector j: the subsets 32 j + l (l: the lane) of the open cells, up to all n */
    const uint32_t full = (1u << n) - 1, last = small ? 0 : full >> 5; /* small: one vector */
    const uint32_t lanes = n < 5 ? (1u << (1 << n)) - 1 : 0xFFFFFFFFu; /* within n */
    uint32_t tight[16], found = 0, v = 0;
    __m512i cnt, cells;
    do {
        cnt = _mm512_popcnt_epi16(
            _mm512_or_si512(lo, _mm512_permutexvar_epi16(_mm512_set1_epi16((short)v), hi)));
        cells = _mm512_load_si512((const void *)b9_size[v]);
        const uint32_t trivial = (uint32_t)(v == 0) | (uint32_t)(v == last) << (full & 31);
        tight[v] = _mm512_cmple_epu16_mask(cnt, cells) & lanes & ~trivial;
        found |= tight[v];
    } while (++v <= last);
    if (_mm512_mask_cmplt_epu16_mask(1u << (full & 31), cnt, cells))
        return 0; /* fewer digits than open cells (never at the singles' fixpoint) */
    if (!found)
        return 1; /* no tight set but the trivial: every edge in some matching */
    /* each tight set (a short one: no matching) takes its digits from the other cells:
     * its digits read from its vector's unions (made again, stored), the other cells'
     * lanes of `gone` (lane i: open cell i) given them in one masked or */
    uint16_t d[32], at[32], have[32];
    _mm512_storeu_si512((void *)d, p);
    _mm512_storeu_si512((void *)at, _mm512_maskz_compress_epi16(
                                        open, _mm512_load_si512((const void *)b9_iota)));
    __m512i gone = _mm512_setzero_si512();
    for (uint32_t j = 0; j <= last; j++) {
        uint32_t t = tight[j];
        if (!t)
            continue;
        _mm512_storeu_si512((void *)have, _mm512_or_si512(lo, _mm512_permutexvar_epi16(
                                                                 _mm512_set1_epi16((short)j), hi)));
        for (; t; t &= t - 1) {
            const int l = __builtin_ctz(t);
            const uint32_t set = j << 5 | (uint32_t)l;
            if (__builtin_popcount(have[l]) < __builtin_popcount(set))
                return 0; /* fewer digits than cells: no matching covers them */
            gone = _mm512_mask_mov_epi16(
                gone, full & ~set,
                _mm512_or_si512(gone, _mm512_set1_epi16((short)have[l])));
        }
    }
    uint16_t lost[32];
    _mm512_storeu_si512((void *)lost, _mm512_and_si512(gone, p));
    for (int i = 0; i < n; i++) {
        uint32_t g = lost[i];
        *changed |= g;
        for (; g; g &= g - 1)
            s->p[__builtin_ctz(g)] &= ~b9_bit[b9_unit[k][at[i]]];
    }
    return 1;
}

/* gac's filter of the units in `units`, by Hall sets (above), from the planes of the
 * pass's start: *changed gets the digits whose planes lost a cell; 0 on a contradiction. */
B9X int
gac9_hall(Board9 *s, uint32_t units, unsigned *changed)
{
    /* every cell's candidates (bit d: digit d + 1), band b's 27 cells in cb[b]'s lanes 0-26
     * in cell order, and its open cells (two candidates or more) in ob[b]'s bits */
    __m512i cb[3];
    uint64_t ob[3];
    for (int b = 0; b < 3; b++) {
        cb[b] = _mm512_setzero_si512();
        for (int d = 0; d < 9; d++)
            cb[b] = _mm512_mask_add_epi16(cb[b], (__mmask32)_pext_u64(s->p[d][b], B9BAND), cb[b],
                                          _mm512_set1_epi16((short)(1 << d)));
        ob[b] = _mm512_cmpgt_epu16_mask(_mm512_popcnt_epi16(cb[b]), _mm512_set1_epi16(1));
    }
    /* each unit's open cells (bit i: its cell i, cells in increasing order in every unit),
     * and the units with four or more (the others' fixpoint is gac's, see above) */
    uint32_t opens[27], small = 0, big = 0;
    for (; units; units &= units - 1) {
        const int k = __builtin_ctz(units);
        opens[k] = (uint32_t)(_pext_u64(ob[0], b9_umask[k][0]) |
                              _pext_u64(ob[1], b9_umask[k][1]) << b9_uat[k][0] |
                              _pext_u64(ob[2], b9_umask[k][2]) << b9_uat[k][1]);
        const int n = __builtin_popcount(opens[k]);
        small |= (uint32_t)(n >= 4 && n <= 5) << k;
        big |= (uint32_t)(n >= 6) << k;
    }
    /* the small units (four or five open cells) first, then the rest: a pass's units all
     * read the candidates of its start, so their order changes nothing */
    for (; small; small &= small - 1) {
        const int k = __builtin_ctz(small);
        if (!hall9_unit(s, cb, k, opens[k], changed, 1))
            return 0;
    }
    for (; big; big &= big - 1) {
        const int k = __builtin_ctz(big);
        if (!hall9_unit(s, cb, k, opens[k], changed, 0))
            return 0;
    }
    return 1;
}

/* gac9_hall on AVX2 (gac9_hall2): the same subsets and tests on sixteen 16-bit lanes, the
 * unions of open cells 0-3 across the lanes, of cells 4-8 a scalar table broadcast per
 * vector, the digits counted by nibble lookups; each unit's cells from cands9's words. */
B9 __m256i
b9_popcnt16(__m256i x)
{
    const __m256i nib = _mm256_set1_epi8(0x0F);
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1,
                                         2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i c8 =
        _mm256_add_epi8(_mm256_shuffle_epi8(lut, _mm256_and_si256(x, nib)),
                        _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(x, 4), nib)));
    return _mm256_add_epi16(_mm256_and_si256(c8, _mm256_set1_epi16(0xFF)),
                            _mm256_srli_epi16(c8, 8));
}

/* The lanes of a 16-bit mask vector (all ones or zero) as 16 bits. */
B9 uint32_t
b9_lanes16(__m256i m)
{
    const uint32_t b = (uint32_t)_mm256_movemask_epi8(_mm256_packs_epi16(m, m));
    return (b & 0xFF) | (b >> 8 & 0xFF00);
}

B9 int
gac9_hall2(Board9 *s, const uint16_t *cm, uint32_t units, unsigned *changed)
{
    const __m256i lane = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m256i lane_size = b9_popcnt16(lane);
    for (; units; units &= units - 1) {
        const int k = __builtin_ctz(units);
        uint32_t d[9], at[9];
        int n = 0;
        for (int i = 0; i < 9; i++) { /* the open cells, packed without a branch */
            const uint32_t m = cm[b9_unit[k][i]];
            d[n] = m;
            at[n] = (uint32_t)i;
            n += (m & (m - 1)) != 0;
        }
        if (n < 4)
            continue; /* the singles' fixpoint is gac's (see above) */
        __m256i lo = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++) {
            const __m256i bit = _mm256_set1_epi16((short)(1 << c));
            const __m256i in = _mm256_cmpeq_epi16(_mm256_and_si256(lane, bit), bit);
            lo = _mm256_or_si256(lo, _mm256_and_si256(in, _mm256_set1_epi16((short)d[c])));
        }
        uint16_t hi[32];
        hi[0] = 0;
        for (int c = 4, half = 1; c < n; c++, half <<= 1)
            for (int j = 0; j < half; j++)
                hi[half + j] = (uint16_t)(hi[j] | d[c]);
        const uint32_t last = (1u << (n - 4)) - 1, full = (1u << n) - 1;
        uint32_t tight[32], found = 0;
        for (uint32_t j = 0; j <= last; j++) {
            const __m256i cnt = b9_popcnt16(_mm256_or_si256(lo, _mm256_set1_epi16((short)hi[j])));
            const __m256i size =
                _mm256_add_epi16(lane_size, _mm256_set1_epi16((short)__builtin_popcount(j)));
            if (!_mm256_testz_si256(_mm256_cmpgt_epi16(size, cnt), _mm256_cmpgt_epi16(size, cnt)))
                return 0; /* a set of open cells with fewer digits: no matching covers them */
            const uint32_t trivial = (uint32_t)(j == 0) | (uint32_t)(j == last) << 15;
            tight[j] = ~b9_lanes16(_mm256_cmpgt_epi16(cnt, size)) & 0xFFFF & ~trivial;
            found |= tight[j];
        }
        if (!found)
            continue; /* no tight set but the trivial: every edge in some matching */
        /* each tight set takes its digits from the other open cells */
        uint32_t gone[9] = {0};
        for (uint32_t j = 0; j <= last; j++)
            for (uint32_t t = tight[j]; t; t &= t - 1) {
                const uint32_t set = j << 4 | (uint32_t)__builtin_ctz(t);
                uint32_t have = hi[j];
                for (uint32_t c = set & 0xF; c; c &= c - 1)
                    have |= d[__builtin_ctz(c)];
                for (uint32_t c = full & ~set; c; c &= c - 1)
                    gone[__builtin_ctz(c)] |= have;
            }
        for (int i = 0; i < n; i++) {
            uint32_t g = gone[i] & d[i];
            *changed |= g;
            for (; g; g &= g - 1)
                s->p[__builtin_ctz(g)] &= ~b9_bit[b9_unit[k][at[i]]];
        }
    }
    return 1;
}

/* snap (below) is set and read under gac alone, which GCC cannot tell once inlined */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
/* Naked and hidden singles (and with lock, locked candidates) to the fixpoint; dirty: the
 * digits whose planes changed. 0 on a contradiction. Each round places every naked single,
 * then every hidden single of the digits whose planes changed, all at once (cover9 per
 * digit); at the singles' fixpoint come the locked candidates. */
B9 int
propagate9(Board9 *s, unsigned dirty, const int lock, const int gac, B9V touch,
           const B9V *first)
{
    unsigned stale = dirty; /* digits whose planes changed since their locked candidates */
    B9V snap[9];            /* under gac, the planes at its last pass */
    if (gac)
        for (int d = 0; d < 9; d++)
            snap[d] = s->p[d];
    for (;;) {
        B9V naked;
        if (first != NULL) { /* a guess's first round: its naked singles are known */
            naked = *first;
            first = NULL;
        } else {
            B9V ones = s->p[0], twos = B9S(0);
            for (int d = 1; d < 9; d++) {
                twos |= ones & s->p[d];
                ones |= s->p[d];
            }
            if (b9_any(s->u & ~ones))
                return 0; /* a cell without a candidate */
            naked = s->u & ~twos;
        }
        int placed = b9_any(naked);
        if (placed) {
            unsigned digits = 0;
            for (int d = 0; d < 9; d++)
                digits |= (unsigned)b9_any(naked & s->p[d]) << d;
            dirty |= digits;
            for (; digits; digits &= digits - 1) {
                const int d = __builtin_ctz(digits);
                const B9V n = naked & s->p[d];
                B9V cover;
                if (b9_any(cover9(n, &cover)))
                    return 0;
                s->p[d] = (s->p[d] & ~cover) | n;
            }
            s->u &= ~naked;
        }
        stale |= dirty;
        /* the hidden singles of the digits whose planes changed, from this state */
        B9V hid[9], all = B9S(0), twice = B9S(0);
        unsigned found = 0;
        for (; dirty; dirty &= dirty - 1) {
            const int d = __builtin_ctz(dirty);
            B9V out;
            if (b9_any(hidden9(s->p[d], &out)))
                return 0; /* a unit without a place for d + 1 */
            hid[d] = out & s->u;
            found |= (unsigned)b9_any(hid[d]) << d;
            twice |= all & hid[d];
            all |= hid[d];
        }
        if (found) {
            if (b9_any(twice))
                return 0; /* a cell is the only place of two digits */
            /* every plane loses the cells, each found digit its cells' peers */
            for (int d = 0; d < 9; d++) {
                dirty |= (unsigned)b9_any(s->p[d] & all) << d;
                s->p[d] &= ~all;
            }
            for (; found; found &= found - 1) {
                const int d = __builtin_ctz(found);
                B9V cover;
                if (b9_any(cover9(hid[d], &cover)))
                    return 0;
                s->p[d] = (s->p[d] & ~cover) | hid[d];
            }
            s->u &= ~all;
            placed = 1;
        }
        if (placed)
            continue;
        if (gac) {
            /* Singles are at their fixpoint: gac on every unit with a cell whose candidates
             * changed since the last pass (touch: the cells changed before this call); the
             * singles again on the planes it narrowed. */
            for (int d = 0; d < 9; d++) {
                touch |= s->p[d] ^ snap[d];
                snap[d] = s->p[d];
            }
            unsigned changed = 0;
            const uint32_t units = units9_of(touch);
            if (b9_hall) {
                if (!gac9_hall(s, units, &changed))
                    return 0; /* a unit whose open digits no matching covers */
            } else {
                uint16_t cm[96];
                cands9(s, cm);
                if (!gac9_hall2(s, cm, units, &changed))
                    return 0;
            }
            if (!changed)
                return 1;
            touch = B9S(0);
            dirty = changed;
            continue;
        }
        if (!lock)
            return 1;
        /* Singles are at their fixpoint: the locked candidates of each digit whose plane
         * changed since its last look (they depend on that plane alone), all from this
         * state (the rules only remove, so their union is the same fixpoint). */
        while (stale) { /* three digits at a time */
            int d[3] = {-1, -1, -1};
            B9V x[3] = {B9S(0), B9S(0), B9S(0)}, gone[3];
            for (int i = 0; i < 3 && stale; i++, stale &= stale - 1) {
                d[i] = __builtin_ctz(stale);
                x[i] = s->p[d[i]];
            }
            locked9(x, gone);
            for (int i = 0; i < 3 && d[i] >= 0; i++) {
                const B9V g = gone[i] & s->u;
                s->p[d[i]] &= ~g;
                dirty |= (unsigned)b9_any(g) << d[i];
            }
        }
        if (!dirty)
            return 1;
        stale = dirty;
    }
}

#pragma GCC diagnostic pop

/* The cell to branch on (mrv: the fewest candidates, lowest index; degree too, then on
 * ties the most unplaced peers; else the first), or -1 when every cell is placed. */
B9 int
choose9(const Board9 *s, int mrv, int degree, B9V *two)
{
    B9V m = s->u;
    if (mrv) {
        /* an unplaced cell has two candidates or more at a node: first the cells with
         * exactly two (not in three planes), the usual fewest */
        B9V t1 = s->p[0], t2 = B9S(0), t3 = B9S(0);
        for (int d = 1; d < 9; d++) {
            t3 |= t2 & s->p[d];
            t2 |= t1 & s->p[d];
            t1 |= s->p[d];
        }
        m = s->u & ~t3;
        *two = m; /* the cells with two candidates, for the guesses' first round */
    }
    if (mrv && !b9_any(m)) {
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
        for (int k = 3; k <= 9; k++) {
            m = s->u & ((k & 1) ? c0 : ~c0) & ((k & 2) ? c1 : ~c1) & ((k & 4) ? c2 : ~c2) &
                ((k & 8) ? c3 : ~c3);
            if (b9_any(m))
                break;
        }
    }
    if (degree) {
        /* the largest key: the most unplaced peers, then the lowest cell (no branch); the
         * tied cells walked in cell order as two words (cells 0-53, 54-80), each peer
         * count three scalar popcounts of the unplaced cells' band words */
        const uint64_t u0 = s->u[0], u1 = s->u[1], u2 = s->u[2];
        uint64_t lo = b9_cells27(m[0]) | b9_cells27(m[1]) << 27, hi = b9_cells27(m[2]);
        int best = -1;
        for (; lo; lo &= lo - 1) {
            const int c = __builtin_ctzll(lo);
            const uint64_t *q = b9_peer_w[c];
            const int n = __builtin_popcountll(u0 & q[0]) + __builtin_popcountll(u1 & q[1]) +
                          __builtin_popcountll(u2 & q[2]);
            const int key = n << 7 | (127 - c);
            best = key > best ? key : best;
        }
        for (; hi; hi &= hi - 1) {
            const int c = 54 + __builtin_ctzll(hi);
            const uint64_t *q = b9_peer_w[c];
            const int n = __builtin_popcountll(u0 & q[0]) + __builtin_popcountll(u1 & q[1]) +
                          __builtin_popcountll(u2 & q[2]);
            const int key = n << 7 | (127 - c);
            best = key > best ? key : best;
        }
        return best < 0 ? -1 : 127 - (best & 127);
    }
    for (int b = 0; b < 3; b++)
        if (m[b])
            return b9_cell(b, __builtin_ctzll(m[b]));
    return -1;
}

/* *to = *from as ten 32-byte moves (an assignment compiles to rep movsq, whose start-up
 * costs more than the copy). */
B9 void
b9_copy(Board9 *to, const Board9 *from)
{
    for (int d = 0; d < 9; d++)
        to->p[d] = from->p[d];
    to->u = from->u;
}

/* The cells given v, from the 81 givens (one byte each) loaded as three 32-byte chunks:
 * bytes 0-31, 32-63 and 49-80 (no byte past the last is read). A band's 27 cells are
 * contiguous in the byte order; each row of 9 goes to its 16-bit field. */
B9 B9V
b9_given(__m256i g0, __m256i g1, __m256i g2, int v)
{
    const __m256i k = _mm256_set1_epi8((char)v);
    const uint64_t a = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(g0, k)) |
                       (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(g1, k)) << 32;
    const uint64_t c = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(g2, k)) >> 15;
    /* cells 0-26, 27-53, 54-80, each band's 27 cells spread to its three row fields in
     * every lane at once (lane 3 empty): a vector built from scalars lane by lane goes
     * through memory and stalls on the store forwarding */
    const B9V cells = (B9V)_mm256_setr_epi64x((long long)a, (long long)(a >> 27),
                                               (long long)(a >> 54 | c << 10), 0);
    return (cells & B9S(0x1FF)) | (cells & B9S(0x3FE00)) << 7 | (cells & B9S(0x7FC0000)) << 14;
}

/* The solved board's 81 values into grid, b9_given backwards: per band, each digit's 27
 * cells spread to a byte each (bytes 27 b on; the bands' 32-byte stores overlap, in order). */
B9 void
b9_grid(const Board9 *s, uint8_t *grid)
{
    uint8_t bytes[96];
    const __m256i pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2,
                                          2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    for (int b = 0; b < 3; b++) {
        __m256i acc = _mm256_setzero_si256();
        for (int d = 0; d < 9; d++) {
            const uint32_t cells = (uint32_t)b9_cells27(s->p[d][b]);
            const __m256i m = _mm256_shuffle_epi8(_mm256_set1_epi32((int)cells), pick);
            const __m256i on = _mm256_cmpeq_epi8(_mm256_and_si256(m, bit), bit);
            acc = _mm256_or_si256(acc, _mm256_and_si256(on, _mm256_set1_epi8((char)(d + 1))));
        }
        _mm256_storeu_si256((__m256i *)(bytes + 27 * b), acc);
    }
    memcpy(grid, bytes, 81);
}

/* run_search for the classic 9x9 shape under hidden, locked or gac (see above); `block` holds 82
 * states (the root and one per depth) plus 32 bytes for the alignment. */
__attribute__((target("avx2,popcnt"))) int
run_board9(Ctx *x, Run *r, char *block, Frame *stack)
{
    Board9 *states = (Board9 *)(((uintptr_t)block + 31) & ~(uintptr_t)31);
    Board9 *s = states;
    const int mrv = x->mrv || x->degree, degree = x->degree;
    const int lock = x->prop == PROP_LOCKED, gac = x->prop == PROP_GAC;
    /* The givens, every digit's at once (b9_given); each plane keeps its givens and loses
     * their peers and the other digits' givens. */
    const __m256i g0 = _mm256_loadu_si256((const __m256i *)r->givens);
    const __m256i g1 = _mm256_loadu_si256((const __m256i *)(r->givens + 32));
    const __m256i g2 = _mm256_loadu_si256((const __m256i *)(r->givens + 49));
    const B9V band = (B9V){B9BAND, B9BAND, B9BAND, 0};
    const B9V given = band & ~b9_given(g0, g1, g2, 0);
    for (int d = 0; d < 9; d++) {
        const B9V n = b9_given(g0, g1, g2, d + 1);
        B9V cover;
        if (b9_any(cover9(n, &cover))) {
            r->complete = 1; /* a value given twice in a unit */
            return 1;
        }
        s->p[d] = (B9S(B9BAND) & ~cover & ~given) | n;
    }
    s->u = band & ~given;
    uint32_t cands[81]; /* each frame's candidates: the planes its guesses change */
    /* Under mrv, each frame's cells with two candidates (choose9 counts them): a guess of
     * d there takes d from the cell's peers and nothing else from any cell but the cell
     * itself, at a fixpoint where every open cell has two candidates or more, so the
     * first round's naked singles are the peers that held d among those, and no cell is
     * left without a candidate: that round counts no planes. */
    B9V two[82]; /* one per frame, and one more: choose9 writes it at a solution too */
    if (!propagate9(s, 0x1FF, lock, gac, B9S(B9BAND), NULL)) {
        r->complete = 1;
        return 1;
    }
    int cur = 0, sp = 0;
    for (;;) {
        /* s is a consistent state: a node. */
        r->nodes++;
        const int cell = choose9(s, mrv, degree, &two[sp]);
        if (cell < 0) {
            r->count++;
            if ((Py_ssize_t)r->count <= r->keep) {
                uint8_t *grid = grid_slot(r, 81);
                if (grid == NULL) {
                    r->nomem = 1;
                    return 0;
                }
                b9_grid(s, grid);
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
            stack[sp].forced = !(candidates & (candidates - 1)); /* hidden never leaves one */
            cands[sp] = candidates;
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
                b9_copy(&states[cur], &states[f->state]);
            } else { /* last candidate: the frame's state is never needed again */
                cur = f->state;
            }
            s = &states[cur];
            const int d = __builtin_ctz(bit);
            /* the cells place9 changes: the cell and its peers that may hold d */
            const B9V touch = b9_bit[f->cell] | (b9_peer[f->cell] & s->p[d]);
            const B9V naked = b9_peer[f->cell] & s->p[d] & two[sp - 1];
            place9(s, f->cell, d);
            if (propagate9(s, cands[sp - 1], lock, gac, touch, mrv ? &naked : NULL))
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
board9_gac_avx512(void)
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
