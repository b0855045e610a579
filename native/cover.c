/*
 * Cover: exact cover in C, Knuth's Algorithm X with dancing links, for the `dlx` backend.
 *
 * The same algorithm as sudokulab/backends/dlx.py (the readable version, and the
 * specification: read its docstring first), with the same results: for the same model,
 * the same solutions in the same order and the same `nodes` (rows tried) and `updates`
 * (links removed, as Knuth counts them). It follows that file step by step:
 *
 *   - the matrix of a shape is built once, as dlx.matrix builds it: node 0 the root,
 *     nodes 1..columns the headers (the cells' columns, then each full unit's value
 *     columns, primary, then each partial unit's, secondary: left out of the root's list),
 *     then each row's nodes, rows in (cell, value) order, each row's cell column first and
 *     then its units' columns in the order the units were given;
 *   - per puzzle the mutable links (every node's up and down, the headers' left and
 *     right, the column sizes) are copied from the shape's, the rows a narrowed domain
 *     excludes are unlinked (not counted), and the givens' rows are chosen in cell order,
 *     their columns covered (counted); two givens in one column: no solution, no search;
 *   - the search picks the primary column with the fewest rows (the first on ties, a
 *     column with none ends the branch), covers it and tries its rows from the top, and
 *     reads the clock every 1,024 rows tried (core_check: the deadline, Ctrl-C on the main
 *     thread, interrupt()); it counts solutions up to the limit and keeps the first ones.
 *
 * The row nodes' left, right and column never change: they live in the shape, and a
 * puzzle's working copy holds only what covering changes (up and down in one pair per
 * node, the headers' left and right, the sizes).
 *
 * Cover(size, units) is the Python type; Cover.search(masks, limit, timeout, keep) runs
 * every puzzle of a buffer of candidate masks without the GIL, each with its own deadline,
 * and returns buffers (see cover_search's docstring). cover_init adds the type to the
 * module; _core.c calls it at import with interrupt()'s count.
 */

#include "core.h"

#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Rows tried between two looks at the clock (dlx.py's _CLOCK_EVERY). */
#define COVER_CLOCK_EVERY 1023u
/* The nodes of a shape's matrix: an int32 index each, with room to spare. */
#define COVER_MAX_NODES (1L << 28)

/* interrupt()'s count (in _core.c) and the thread that imported the module: only there
 * can Python's signal handlers run, so only a search there takes the GIL to run them. */
static const unsigned long *cover_epoch;
static unsigned long cover_main_ident;
#define COVER_POLL_NS 10000000LL

/* A node's links that never change in a search (a header's left and right do, and live
 * in the working copy): one 16-byte record, so a step along a row reads one line. */
typedef struct {
    int32_t left, right, column, row; /* row: cell * size + value - 1; -1 for a header */
} Link;

/* A node's links that covering changes: one puzzle's working copy. */
typedef struct {
    int32_t up, down;
} Vert;

typedef struct {
    PyObject_HEAD
    int size;    /* values per cell */
    int ncells;
    int nunits;
    int primary; /* primary columns are 1..primary, secondary ones primary+1..columns */
    int columns;
    int32_t nnodes;  /* 1 + columns + the ones */
    int32_t *left;   /* every node's, as built (the headers' change in a search) */
    int32_t *right;
    int32_t *up;     /* as built; a search works on a copy */
    int32_t *down;
    int32_t *column; /* each node's column (a header's is itself) */
    int32_t *count;  /* each column's rows, as built (index 0 unused) */
    int32_t *row_of; /* each node's row (cell * size + value - 1), -1 for the headers */
    int32_t *first;  /* each row's first node (its cell column's) */
    int16_t *size16; /* the sizes a search starts from (see COVERED and choose) */
    Link *link;      /* the arrays above, packed for the search */
    Vert *vert;
    int32_t nsize16;
    PyObject *units_obj;
} CoverObject;


typedef struct {
    int32_t col, node; /* a level of the search: the column covered, the row tried there */
} Level;

/* A batch's working memory: the links, the givens' covered columns, the levels. */
typedef struct {
    Vert *v;
    int32_t *hl, *hr; /* the headers' left and right */
    int16_t *size;    /* each column's rows left (see COVERED), padded (see choose) */
    uint8_t *covered; /* columns the givens covered */
    Level *levels;
    uint8_t *base;    /* the givens' grid */
    int32_t *chosen;  /* the givens' rows */
} Work;

/* What one puzzle's search did. */
typedef struct {
    unsigned long long count, nodes, updates;
    int complete, timed_out, interrupted, nomem;
    int64_t elapsed_ns;
} Found;

/* The kept grids of a batch, one after the other (grown as they come). */
typedef struct {
    uint8_t *grids;
    size_t n, cap; /* grids */
} Kept;

static int
kept_add(Kept *k, int ncells, uint8_t **slot)
{
    if (k->n == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 64;
        uint8_t *grown = PyMem_RawRealloc(k->grids, cap * (size_t)ncells);
        if (grown == NULL)
            return 0;
        k->grids = grown;
        k->cap = cap;
    }
    *slot = k->grids + k->n++ * (size_t)ncells;
    return 1;
}

/* ------------------------------------------------------------------------------------ */
/* The dancing links                                                                      */
/* ------------------------------------------------------------------------------------ */

/* A covered column's size is offset by COVERED: its rows stay out of every other column,
 * so no later cover changes it, and the choice among the primary columns is a scan of
 * one array by index (the root's list is in index order, so its first on ties is the
 * lowest index), with no walk along the list. Sizes are 16-bit (a column has at most
 * n*n rows, 625), sixteen to an AVX2 vector (eight to an SSE2 one); the root's slot 0
 * holds NOT_PRIMARY, and the array is padded with it to a multiple of sixteen, so that
 * the scan needs no tail. The AVX2 scan halves the SSE2 one's steps: about 6% less time
 * on 2,000 17-clue puzzles, the same counters (benchmarks/dlx.py). */
#define COVERED 0x4000
#define NOT_PRIMARY 0x7FFF
/* A secondary column's size is offset by SECONDARY, so that the scan passes over it too:
 * never below an uncovered primary column's, never beyond 16 bits once covered. */
#define SECONDARY 0x2000

/* The primary column with the fewest rows, the first on ties (when every one is covered,
 * hr[0] == 0 says so before this is asked): a pass for the minimum, then one for its
 * first place. sz[0] and the slots after the last primary column hold NOT_PRIMARY. */
static inline int32_t
choose(const int16_t *sz, int32_t primary)
{
#if defined(__AVX2__)
    const int32_t end = (primary + 16) & ~15; /* slots 0..primary, padded to sixteen */
    __m256i low = _mm256_set1_epi16(NOT_PRIMARY);
    for (int32_t c = 0; c < end; c += 16)
        low = _mm256_min_epi16(low, _mm256_loadu_si256((const __m256i *)(sz + c)));
    __m128i half = _mm_min_epi16(_mm256_castsi256_si128(low), _mm256_extracti128_si256(low, 1));
    half = _mm_minpos_epu16(half); /* the sizes are never negative: unsigned order holds */
    const __m256i fewest = _mm256_set1_epi16((short)_mm_extract_epi16(half, 0));
    for (int32_t c = 0;; c += 16) {
        const unsigned hit = (unsigned)_mm256_movemask_epi8(
            _mm256_cmpeq_epi16(fewest, _mm256_loadu_si256((const __m256i *)(sz + c))));
        if (hit)
            return c + (__builtin_ctz(hit) >> 1);
    }
#elif defined(__SSE2__)
    const int32_t end = (primary + 8) & ~7; /* slots 0..primary, padded */
    __m128i low = _mm_set1_epi16(NOT_PRIMARY);
    for (int32_t c = 0; c < end; c += 8)
        low = _mm_min_epi16(low, _mm_loadu_si128((const __m128i *)(sz + c)));
    low = _mm_min_epi16(low, _mm_shuffle_epi32(low, 0x4E));
    low = _mm_min_epi16(low, _mm_shuffle_epi32(low, 0xB1));
    low = _mm_min_epi16(low, _mm_shufflelo_epi16(low, 0xB1));
    low = _mm_shuffle_epi32(_mm_shufflelo_epi16(low, 0), 0); /* the minimum everywhere */
    for (int32_t c = 0;; c += 8) {
        const int hit = _mm_movemask_epi8(
            _mm_cmpeq_epi16(low, _mm_loadu_si128((const __m128i *)(sz + c))));
        if (hit)
            return c + (__builtin_ctz((unsigned)hit) >> 1);
    }
#else
    const int32_t end = (primary + 8) & ~7; /* slots 0..primary, padded */
    int16_t fewest = NOT_PRIMARY;
    for (int32_t c = 0; c < end; c++)
        fewest = sz[c] < fewest ? sz[c] : fewest;
    int32_t c = 0;
    while (sz[c] != fewest)
        c++;
    return c;
#endif
}

/* Unlink column c and every row that meets it: the updates it made. */
static inline unsigned long long
cover(const CoverObject *m, Work *w, int32_t c)
{
    const Link *link = m->link;
    Vert *v = w->v;
    int16_t *size = w->size;
    w->hr[w->hl[c]] = w->hr[c];
    w->hl[w->hr[c]] = w->hl[c];
    size[c] += COVERED;
    unsigned long long updates = 1;
    for (int32_t i = v[c].down; i != c; i = v[i].down) {
        for (int32_t j = link[i].right; j != i; j = link[j].right) {
            const int32_t u = v[j].up, d = v[j].down;
            v[u].down = d;
            v[d].up = u;
            size[link[j].column]--;
            updates++;
        }
    }
    return updates;
}

/* Relink what cover(c) unlinked, in reverse order. */
static inline void
uncover(const CoverObject *m, Work *w, int32_t c)
{
    const Link *link = m->link;
    Vert *v = w->v;
    int16_t *size = w->size;
    for (int32_t i = v[c].up; i != c; i = v[i].up) {
        for (int32_t j = link[i].left; j != i; j = link[j].left) {
            size[link[j].column]++;
            v[v[j].up].down = j;
            v[v[j].down].up = j;
        }
    }
    w->hr[w->hl[c]] = c;
    w->hl[w->hr[c]] = c;
    size[c] -= COVERED;
}

/* Each node's left and right as the search sees them: a header's from the working copy
 * (the root's list changes), a row node's from the shape (never changes). The row loops
 * below visit row nodes only, so they read the shape's arrays directly. */

/* Restore the shape's links, unlink the rows the masks exclude and choose the givens'
 * rows: 0 when two givens need one column (no solution), else 1. */
static int
restrict_rows(const CoverObject *m, Work *w, const uint32_t *masks, Found *f, int *ngiven)
{
    const int size = m->size, ncells = m->ncells;
    const uint32_t full = size == 32 ? 0xFFFFFFFFu : (1u << size) - 1u;
    const int32_t *right = m->right, *column = m->column;
    memcpy(w->v, m->vert, sizeof(Vert) * (size_t)m->nnodes);
    memcpy(w->hl, m->left, sizeof(int32_t) * ((size_t)m->columns + 1));
    memcpy(w->hr, m->right, sizeof(int32_t) * ((size_t)m->columns + 1));
    memcpy(w->size, m->size16, sizeof(int16_t) * (size_t)m->nsize16);
    memset(w->covered, 0, (size_t)m->columns + 1);
    memset(w->base, 0, (size_t)ncells);
    Vert *v = w->v;
    int n = 0;
    for (int cell = 0; cell < ncells; cell++) {
        const uint32_t mask = masks[cell];
        if (mask == full)
            continue;
        if (mask && !(mask & (mask - 1))) {
            w->chosen[n++] = cell * size + __builtin_ctz(mask);
            continue;
        }
        for (int k = 0; k < size; k++) {
            if (mask >> k & 1u)
                continue;
            const int32_t node = m->first[cell * size + k];
            int32_t j = node;
            do { /* unlink the row from each of its columns */
                const int32_t u = v[j].up, d = v[j].down;
                v[u].down = d;
                v[d].up = u;
                w->size[column[j]]--;
                j = right[j];
            } while (j != node);
        }
    }
    for (int g = 0; g < n; g++) {
        const int32_t node = m->first[w->chosen[g]];
        int32_t j = node;
        do {
            if (w->covered[column[j]])
                return 0; /* two givens in one column: a value twice in a unit */
            j = right[j];
        } while (j != node);
        do {
            w->covered[column[j]] = 1;
            f->updates += cover(m, w, column[j]);
            j = right[j];
        } while (j != node);
        w->base[w->chosen[g] / size] = (uint8_t)(w->chosen[g] % size + 1);
    }
    *ngiven = n;
    return 1;
}

/* Algorithm X from the current links (dlx.Links.search, step by step); runs without
 * the GIL. Solutions are counted in f, the first `keep` kept in out. */
static void
search_cover(const CoverObject *m, Work *w, Run *r, long long limit, Py_ssize_t keep,
             Kept *out, Found *f)
{
    const Link *link = m->link;
    const int size = m->size, ncells = m->ncells;
    Vert *v = w->v;
    const int32_t *hr = w->hr;
    const int16_t *sz = w->size;
    Level *levels = w->levels;
    const int32_t primary = m->primary;
    int depth = 0;
    unsigned long long nodes = 0, updates = 0, found = 0;
    int descend = 1;
    for (;;) {
        if (descend) {
            if (hr[0] == 0) { /* every primary column covered: a solution */
                found++;
                if ((Py_ssize_t)found <= keep) {
                    uint8_t *grid;
                    if (!kept_add(out, ncells, &grid)) {
                        f->nomem = 1;
                        break;
                    }
                    memcpy(grid, w->base, (size_t)ncells);
                    for (int d = 0; d < depth; d++) {
                        const int32_t row = link[levels[d].node].row;
                        grid[row / size] = (uint8_t)(row % size + 1);
                    }
                }
                if (limit && found >= (unsigned long long)limit)
                    break;
            } else {
                const int32_t best = choose(sz, primary);
                if (sz[best]) {
                    updates += cover(m, w, best);
                    const int32_t node = v[best].down;
                    levels[depth].col = best;
                    levels[depth].node = node;
                    depth++;
                    nodes++;
                    for (int32_t j = link[node].right; j != node; j = link[j].right)
                        updates += cover(m, w, link[j].column);
                    if (!(nodes & COVER_CLOCK_EVERY) && core_check(r))
                        break;
                    continue;
                }
            }
        }
        /* back: undo the last row tried, then take the next row of its column */
        if (!depth) {
            f->complete = 1;
            break;
        }
        Level *level = &levels[depth - 1];
        const int32_t c = level->col;
        int32_t node = level->node;
        for (int32_t j = link[node].left; j != node; j = link[j].left)
            uncover(m, w, link[j].column);
        node = v[node].down;
        if (node == c) { /* every row of the column tried */
            uncover(m, w, c);
            depth--;
            descend = 0;
            continue;
        }
        level->node = node;
        nodes++;
        for (int32_t j = link[node].right; j != node; j = link[j].right)
            updates += cover(m, w, link[j].column);
        if (!(nodes & COVER_CLOCK_EVERY) && core_check(r))
            break;
        descend = 1;
    }
    f->count = found;
    f->nodes = nodes;
    f->updates += updates;
    f->timed_out = r->timed_out;
    f->interrupted = r->interrupted;
}

/* ------------------------------------------------------------------------------------ */
/* The Python type                                                                        */
/* ------------------------------------------------------------------------------------ */

static void
Cover_dealloc(CoverObject *self)
{
    PyMem_Free(self->left);
    PyMem_Free(self->right);
    PyMem_Free(self->up);
    PyMem_Free(self->down);
    PyMem_Free(self->column);
    PyMem_Free(self->count);
    PyMem_Free(self->size16);
    PyMem_Free(self->link);
    PyMem_Free(self->vert);
    PyMem_Free(self->row_of);
    PyMem_Free(self->first);
    Py_XDECREF(self->units_obj);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The shape's matrix, as dlx.matrix builds it. 0, or -1 with an exception set. */
static int
build_matrix(CoverObject *self, int32_t *const *cells_of, const int32_t *len)
{
    const int size = self->size, ncells = self->ncells, nunits = self->nunits;
    int nfull = 0;
    for (int u = 0; u < nunits; u++)
        nfull += len[u] == size;
    /* each unit's first column: the full units' after the cells, then the partial ones' */
    int32_t *unit_col = PyMem_Malloc(sizeof(int32_t) * ((size_t)nunits + 1));
    int32_t *nof = PyMem_Calloc((size_t)ncells + 1, sizeof(int32_t)); /* units per cell */
    if (unit_col == NULL || nof == NULL) {
        PyMem_Free(unit_col);
        PyMem_Free(nof);
        PyErr_NoMemory();
        return -1;
    }
    int next = ncells + 1;
    for (int pass = 0; pass < 2; pass++)
        for (int u = 0; u < nunits; u++)
            if ((len[u] == size) == (pass == 0)) {
                unit_col[u] = next;
                next += size;
            }
    self->primary = ncells + nfull * size;
    self->columns = next - 1;
    long ones = 0;
    for (int u = 0; u < nunits; u++)
        for (int i = 0; i < len[u]; i++)
            nof[cells_of[u][i]]++;
    for (int c = 0; c < ncells; c++)
        ones += (long)size * (1 + nof[c]);
    const long nnodes = (long)self->columns + 1 + ones;
    if (nnodes > COVER_MAX_NODES) {
        PyMem_Free(unit_col);
        PyMem_Free(nof);
        PyErr_Format(PyExc_ValueError, "the exact-cover matrix is too large: %ld nodes", nnodes);
        return -1;
    }
    self->nnodes = (int32_t)nnodes;
    const size_t n = (size_t)nnodes, ncols = (size_t)self->columns + 1;
    const size_t nrows = (size_t)ncells * (size_t)size;
    self->left = PyMem_Malloc(sizeof(int32_t) * n);
    self->right = PyMem_Malloc(sizeof(int32_t) * n);
    self->up = PyMem_Malloc(sizeof(int32_t) * n);
    self->down = PyMem_Malloc(sizeof(int32_t) * n);
    self->column = PyMem_Malloc(sizeof(int32_t) * n);
    self->row_of = PyMem_Malloc(sizeof(int32_t) * n);
    self->count = PyMem_Calloc(ncols, sizeof(int32_t));
    self->first = PyMem_Malloc(sizeof(int32_t) * (nrows + 1));
    /* the units of each cell, in the order given */
    int32_t *uof_start = PyMem_Calloc((size_t)ncells + 1, sizeof(int32_t));
    int32_t *uof = PyMem_Malloc(sizeof(int32_t) * ((size_t)(ones / (size > 0 ? size : 1)) + 1));
    if (!self->left || !self->right || !self->up || !self->down || !self->column ||
        !self->row_of || !self->count || !self->first || !uof_start || !uof) {
        PyMem_Free(unit_col);
        PyMem_Free(nof);
        PyMem_Free(uof_start);
        PyMem_Free(uof);
        PyErr_NoMemory();
        return -1;
    }
    for (int c = 0; c < ncells; c++)
        uof_start[c + 1] = uof_start[c] + nof[c];
    memset(nof, 0, sizeof(int32_t) * (size_t)ncells);
    for (int u = 0; u < nunits; u++)
        for (int i = 0; i < len[u]; i++) {
            const int32_t c = cells_of[u][i];
            uof[uof_start[c] + nof[c]++] = u;
        }
    /* the headers: a circular list through the root, the secondary ones left out */
    const int32_t columns = self->columns, primary = self->primary;
    for (int32_t c = 0; c <= columns; c++) {
        self->left[c] = c == 0 ? columns : c - 1;
        self->right[c] = c == columns ? 0 : c + 1;
        self->up[c] = self->down[c] = self->column[c] = c;
        self->row_of[c] = -1;
    }
    if (primary < columns) {
        self->right[primary] = 0;
        self->left[0] = primary;
        for (int32_t c = primary + 1; c <= columns; c++)
            self->left[c] = self->right[c] = c;
    }
    int32_t at = columns + 1;
    int32_t cols[1 + MAX_UNITS];
    for (int cell = 0; cell < ncells; cell++) {
        const int k0 = uof_start[cell], nk = uof_start[cell + 1] - k0;
        for (int val = 0; val < size; val++) {
            const int32_t row = cell * size + val;
            cols[0] = cell + 1;
            for (int k = 0; k < nk; k++)
                cols[1 + k] = unit_col[uof[k0 + k]] + val;
            const int32_t start = at, len_row = 1 + nk;
            self->first[row] = start;
            for (int k = 0; k < len_row; k++) {
                const int32_t node = start + k, col = cols[k];
                self->left[node] = start + (k + len_row - 1) % len_row;
                self->right[node] = start + (k + 1) % len_row;
                self->up[node] = self->up[col];
                self->down[node] = col;
                self->down[self->up[col]] = node;
                self->up[col] = node;
                self->column[node] = col;
                self->row_of[node] = row;
                self->count[col]++;
            }
            at += len_row;
        }
    }
    PyMem_Free(unit_col);
    PyMem_Free(nof);
    PyMem_Free(uof_start);
    PyMem_Free(uof);
    int32_t end = ((primary + 16) & ~15) > columns + 1 ? ((primary + 16) & ~15) : columns + 1;
    self->nsize16 = (end + 15) & ~15;
    self->size16 = PyMem_Malloc(sizeof(int16_t) * (size_t)self->nsize16);
    self->link = PyMem_Malloc(sizeof(Link) * n);
    self->vert = PyMem_Malloc(sizeof(Vert) * n);
    if (self->size16 == NULL || self->link == NULL || self->vert == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int32_t c = 0; c < self->nsize16; c++)
        self->size16[c] = (int16_t)(c == 0 || c > columns ? NOT_PRIMARY
                                    : c <= primary     ? self->count[c]
                                                       : SECONDARY + self->count[c]);
    for (size_t i = 0; i < n; i++) {
        self->link[i] = (Link){self->left[i], self->right[i], self->column[i], self->row_of[i]};
        self->vert[i] = (Vert){self->up[i], self->down[i]};
    }
    return 0;
}

static PyObject *
Cover_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"size", "units", NULL};
    PyObject *size_obj, *units_arg;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:Cover", kwlist, &size_obj, &units_arg))
        return NULL;
    long size;
    if (as_index(size_obj, "size", 1, MAX_SIZE, &size) < 0)
        return NULL;
    const int ncells = (int)(size * size);
    PyObject *seq = PySequence_Fast(units_arg, "units must be a sequence of units");
    if (seq == NULL)
        return NULL;
    const Py_ssize_t nunits = PySequence_Fast_GET_SIZE(seq);
    if (nunits > MAX_UNITS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "too many units: %zd, at most %d", nunits, MAX_UNITS);
        return NULL;
    }
    CoverObject *self = (CoverObject *)type->tp_alloc(type, 0);
    int32_t *cells = PyMem_Malloc(sizeof(int32_t) * ((size_t)nunits * (size_t)ncells + 1));
    int32_t **cells_of = PyMem_Malloc(sizeof(int32_t *) * ((size_t)nunits + 1));
    int32_t *len = PyMem_Malloc(sizeof(int32_t) * ((size_t)nunits + 1));
    uint8_t *seen = PyMem_Calloc((size_t)ncells, 1);
    if (self == NULL || cells == NULL || cells_of == NULL || len == NULL || seen == NULL) {
        if (self != NULL && !PyErr_Occurred())
            PyErr_NoMemory();
        goto fail;
    }
    self->size = (int)size;
    self->ncells = ncells;
    self->nunits = (int)nunits;
    if ((self->units_obj = PyTuple_New(nunits)) == NULL)
        goto fail;
    for (Py_ssize_t u = 0; u < nunits; u++) {
        PyObject *unit = PySequence_Tuple(PySequence_Fast_GET_ITEM(seq, u));
        if (unit == NULL)
            goto fail;
        PyTuple_SET_ITEM(self->units_obj, u, unit);
        const Py_ssize_t n = PyTuple_GET_SIZE(unit);
        if (n > ncells) {
            PyErr_Format(PyExc_ValueError, "unit %zd has %zd cells, more than the grid's %d", u,
                         n, ncells);
            goto fail;
        }
        cells_of[u] = cells + u * ncells;
        len[u] = (int32_t)n;
        for (Py_ssize_t i = 0; i < n; i++) {
            long cell;
            if (as_index(PyTuple_GET_ITEM(unit, i), "a unit's cell", 0, ncells - 1, &cell) < 0)
                goto fail;
            if (seen[cell]) {
                PyErr_Format(PyExc_ValueError, "unit %zd holds cell %ld twice", u, cell);
                goto fail;
            }
            seen[cell] = 1;
            cells_of[u][i] = (int32_t)cell;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            seen[cells_of[u][i]] = 0;
    }
    if (build_matrix(self, cells_of, len) < 0)
        goto fail;
    PyMem_Free(cells);
    PyMem_Free(cells_of);
    PyMem_Free(len);
    PyMem_Free(seen);
    Py_DECREF(seq);
    return (PyObject *)self;
fail:
    PyMem_Free(cells);
    PyMem_Free(cells_of);
    PyMem_Free(len);
    PyMem_Free(seen);
    Py_DECREF(seq);
    Py_XDECREF(self);
    return NULL;
}

/* The number of int64 counters Cover.search gives each puzzle, in this order. */
enum { CV_COUNT, CV_FLAGS, CV_NODES, CV_UPDATES, CV_KEPT, CV_NS, CV_FIELDS };

static void
work_free(Work *w)
{
    PyMem_RawFree(w->v);
    PyMem_RawFree(w->hl);
    PyMem_RawFree(w->hr);
    PyMem_RawFree(w->size);
    PyMem_RawFree(w->covered);
    PyMem_RawFree(w->levels);
    PyMem_RawFree(w->base);
    PyMem_RawFree(w->chosen);
}

static int
work_alloc(const CoverObject *m, Work *w)
{
    const size_t ncols = (size_t)m->columns + 1;
    memset(w, 0, sizeof *w);
    w->v = PyMem_RawMalloc(sizeof(Vert) * (size_t)m->nnodes);
    w->hl = PyMem_RawMalloc(sizeof(int32_t) * ncols);
    w->hr = PyMem_RawMalloc(sizeof(int32_t) * ncols);
    w->size = PyMem_RawMalloc(sizeof(int16_t) * (size_t)m->nsize16);
    w->covered = PyMem_RawMalloc(ncols);
    w->levels = PyMem_RawMalloc(sizeof(Level) * ((size_t)m->primary + 1));
    w->base = PyMem_RawMalloc((size_t)m->ncells);
    w->chosen = PyMem_RawMalloc(sizeof(int32_t) * ((size_t)m->ncells + 1));
    if (!w->v || !w->hl || !w->hr || !w->size || !w->covered || !w->levels || !w->base ||
        !w->chosen) {
        work_free(w);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static PyObject *
Cover_search(CoverObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"masks", "limit", "timeout", "keep", NULL};
    PyObject *masks_obj, *limit_obj = Py_None, *timeout_obj = Py_None, *keep_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOO:search", kwlist, &masks_obj, &limit_obj,
                                     &timeout_obj, &keep_obj))
        return NULL;
    long long limit = 0; /* 0: no limit */
    if (limit_obj != Py_None) {
        if (!PyLong_Check(limit_obj) || PyBool_Check(limit_obj)) {
            PyErr_Format(PyExc_TypeError, "limit must be an int or None, not %.100s",
                         Py_TYPE(limit_obj)->tp_name);
            return NULL;
        }
        int overflow = 0;
        limit = PyLong_AsLongLongAndOverflow(limit_obj, &overflow);
        if (limit == -1 && PyErr_Occurred())
            return NULL;
        if (overflow < 0 || (!overflow && limit < 1)) {
            PyErr_Format(PyExc_ValueError, "limit must be at least 1, got %R", limit_obj);
            return NULL;
        }
        if (overflow > 0)
            limit = 0; /* beyond 2**63: as good as no limit */
    }
    int has_timeout = 0;
    int64_t timeout_ns = 0;
    if (timeout_obj != Py_None) {
        const double timeout = PyFloat_AsDouble(timeout_obj);
        if (timeout == -1.0 && PyErr_Occurred())
            return NULL;
        if (isnan(timeout)) {
            PyErr_SetString(PyExc_ValueError, "timeout must be a number of seconds, not nan");
            return NULL;
        }
        if (timeout < 1e9) { /* longer: no deadline in practice */
            has_timeout = 1;
            timeout_ns = timeout > 0 ? (int64_t)(timeout * 1e9) : 0;
        }
    }
    Py_ssize_t keep = 1;
    if (keep_obj != NULL) {
        if (!PyLong_Check(keep_obj) || PyBool_Check(keep_obj)) {
            PyErr_Format(PyExc_TypeError, "keep must be an int, not %.100s",
                         Py_TYPE(keep_obj)->tp_name);
            return NULL;
        }
        int overflow = 0;
        long long k = PyLong_AsLongLongAndOverflow(keep_obj, &overflow);
        if (k == -1 && PyErr_Occurred())
            return NULL;
        if (overflow < 0 || (!overflow && k < 0)) {
            PyErr_Format(PyExc_ValueError, "keep must be at least 0, got %R", keep_obj);
            return NULL;
        }
        keep = (overflow || k > PY_SSIZE_T_MAX) ? PY_SSIZE_T_MAX : (Py_ssize_t)k;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(masks_obj, &view, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    const int ncells = self->ncells;
    const uint32_t full = (1u << self->size) - 1u;
    PyObject *sols = NULL, *counters = NULL, *out = NULL;
    Found *found = NULL;
    Kept kept = {0};
    Work w = {0};
    int have_work = 0;
    if (view.itemsize != 4 || view.len % ((Py_ssize_t)ncells * 4) != 0) {
        PyErr_Format(PyExc_ValueError,
                     "masks must be 4-byte unsigned ints, %d a puzzle, got %zd bytes of %zd",
                     ncells, view.len, view.itemsize);
        goto done;
    }
    const Py_ssize_t n = view.len / ((Py_ssize_t)ncells * 4);
    const uint32_t *masks = view.buf;
    for (Py_ssize_t i = 0; i < n * ncells; i++) {
        if (masks[i] & ~full) {
            PyErr_Format(PyExc_ValueError,
                         "puzzle %zd: cell %zd: candidate mask %lu has values outside 1..%d",
                         i / ncells, i % ncells, (unsigned long)masks[i], self->size);
            goto done;
        }
    }
    found = PyMem_RawCalloc((size_t)n + 1, sizeof(Found));
    counters = PyBytes_FromStringAndSize(NULL, n * CV_FIELDS * (Py_ssize_t)sizeof(int64_t));
    if (found == NULL || counters == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    if (work_alloc(self, &w) < 0)
        goto done;
    have_work = 1;

    int64_t *cnt = (int64_t *)PyBytes_AS_STRING(counters);
    const unsigned long epoch = __atomic_load_n(cover_epoch, __ATOMIC_RELAXED);
    const int main_thread = PyThread_get_thread_ident() == cover_main_ident;
    Py_ssize_t stopped = -1;
    Py_INCREF(self); /* the shape outlives the search, GIL or not */
    PyThreadState *ts = PyEval_SaveThread();
    PyThreadState *poll = main_thread ? ts : NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        Found *f = &found[i];
        Run r;
        memset(&r, 0, sizeof r);
        const int64_t start = now_ns();
        r.has_deadline = has_timeout;
        r.deadline_ns = start + timeout_ns;
        r.epoch = epoch;
        r.poll = poll;
        r.poll_ns = start + COVER_POLL_NS;
        const size_t before = kept.n;
        int ngiven = 0;
        if (restrict_rows(self, &w, masks + (size_t)i * ncells, f, &ngiven))
            search_cover(self, &w, &r, limit, keep, &kept, f);
        else
            f->complete = 1; /* the givens clash: no solution, proved */
        if (poll != NULL)
            poll = r.poll; /* the same state, saved again by core_check */
        f->elapsed_ns = now_ns() - start;
        int64_t *c = cnt + (size_t)i * CV_FIELDS;
        c[CV_COUNT] = (int64_t)f->count;
        c[CV_FLAGS] = (f->complete ? 1 : 0) | (f->timed_out ? 2 : 0);
        c[CV_NODES] = (int64_t)f->nodes;
        c[CV_UPDATES] = (int64_t)f->updates;
        c[CV_KEPT] = (int64_t)(kept.n - before);
        c[CV_NS] = f->elapsed_ns;
        if (f->interrupted || f->nomem) {
            stopped = i;
            break;
        }
    }
    PyEval_RestoreThread(ts);
    Py_DECREF(self);
    if (stopped >= 0) {
        if (found[stopped].nomem)
            PyErr_NoMemory();
        else if (!PyErr_Occurred())
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        goto done;
    }
    sols = PyBytes_FromStringAndSize((const char *)kept.grids, (Py_ssize_t)(kept.n * ncells));
    if (sols == NULL)
        goto done;
    out = PyTuple_Pack(2, sols, counters);
done:
    if (have_work)
        work_free(&w);
    PyMem_RawFree(found);
    PyMem_RawFree(kept.grids);
    Py_XDECREF(sols);
    Py_XDECREF(counters);
    PyBuffer_Release(&view);
    return out;
}

/* A list of ints from an int32 array. */
static PyObject *
int_list(const int32_t *a, Py_ssize_t n)
{
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(a[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *
Cover_links(CoverObject *self, PyObject *unused)
{
    (void)unused;
    const Py_ssize_t n = self->nnodes, ncols = (Py_ssize_t)self->columns + 1;
    PyObject *parts[6] = {int_list(self->left, n),   int_list(self->right, n),
                          int_list(self->up, n),     int_list(self->down, n),
                          int_list(self->column, n), int_list(self->count, ncols)};
    PyObject *out = NULL;
    if (parts[0] && parts[1] && parts[2] && parts[3] && parts[4] && parts[5])
        out = PyTuple_Pack(6, parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]);
    for (int i = 0; i < 6; i++)
        Py_XDECREF(parts[i]);
    return out;
}

static PyObject *
Cover_get_int(CoverObject *self, void *closure)
{
    const char *which = closure;
    switch (which[0]) {
    case 's':
        return PyLong_FromLong(self->size);
    case 'r':
        return PyLong_FromLong((long)self->ncells * self->size);
    case 'c':
        return PyLong_FromLong(self->columns);
    case 'p':
        return PyLong_FromLong(self->primary);
    default: /* ones */
        return PyLong_FromLong((long)self->nnodes - self->columns - 1);
    }
}

static PyObject *
Cover_get_units(CoverObject *self, void *closure)
{
    (void)closure;
    Py_INCREF(self->units_obj);
    return self->units_obj;
}

static PyObject *
Cover_repr(CoverObject *self)
{
    return PyUnicode_FromFormat("<sudokulab.native._core.Cover size=%d rows=%d columns=%d>",
                                self->size, self->ncells * self->size, self->columns);
}

static PyGetSetDef Cover_getset[] = {
    {"size", (getter)Cover_get_int, NULL, "the number of values", "s"},
    {"rows", (getter)Cover_get_int, NULL, "the matrix's rows: one per (cell, value)", "r"},
    {"columns", (getter)Cover_get_int, NULL, "the matrix's columns, primary and secondary",
     "c"},
    {"primary", (getter)Cover_get_int, NULL, "the primary columns: 1..primary", "p"},
    {"ones", (getter)Cover_get_int, NULL, "the matrix's ones (row nodes)", "o"},
    {"units", (getter)Cover_get_units, NULL, "the units, a tuple of tuples of cells", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Cover_methods[] = {
    {"search", (PyCFunction)(void (*)(void))Cover_search, METH_VARARGS | METH_KEYWORDS,
     "search(masks, limit=None, timeout=None, keep=1)\n--\n\n"
     "Algorithm X on each puzzle of a buffer of candidate masks (4-byte unsigned ints, "
     "n*n a puzzle: bit v-1 for value v; one bit is a given, every bit a free cell), "
     "without the GIL: the same as sudokulab.backends.dlx's Links on each, with timeout "
     "seconds per puzzle from its own start. Returns (solutions, counters): bytes of the "
     "kept grids one after the other (up to keep per puzzle, n*n values each, in puzzle "
     "order) and bytes of 6 native int64 per puzzle: count, flags (1 complete, 2 timed "
     "out), nodes (rows tried), updates (links removed), kept (grids kept), search "
     "nanoseconds. Ctrl-C and interrupt() raise KeyboardInterrupt."},
    {"links", (PyCFunction)Cover_links, METH_NOARGS,
     "links()\n--\n\n"
     "The matrix as built: (left, right, up, down, column, size) lists, as "
     "sudokulab.backends.dlx.matrix names them."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sudokulab.native._core.Cover",
    .tp_basicsize = sizeof(CoverObject),
    .tp_dealloc = (destructor)Cover_dealloc,
    .tp_repr = (reprfunc)Cover_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Cover(size, units): the exact-cover matrix of a grid shape (a row per cell "
              "and value, a column per cell and per unit and value; a unit of fewer or "
              "more cells than values gives secondary columns), built once, searched by "
              "Algorithm X with dancing links.",
    .tp_getset = Cover_getset,
    .tp_methods = Cover_methods,
    .tp_new = Cover_new,
};

int
cover_init(PyObject *module, const unsigned long *epoch)
{
    cover_epoch = epoch;
    cover_main_ident = PyThread_get_thread_ident();
    if (PyType_Ready(&CoverType) < 0)
        return -1;
    Py_INCREF(&CoverType);
    if (PyModule_AddObject(module, "Cover", (PyObject *)&CoverType) < 0) {
        Py_DECREF(&CoverType);
        return -1;
    }
    return 0;
}
