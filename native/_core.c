/*
 * sudokulab.native._core: the native engine in C.
 *
 * The same algorithm as sudokulab/native/reference.py (the specification), with the same
 * results: for the same puzzle and knobs, the same solutions in the same order and the
 * same nodes, guesses and backtracks. Read the reference's docstring first; this file
 * follows its code step by step:
 *
 *   - candidates are bit masks (bit v-1 for value v) in uint32_t, so sizes up to 25;
 *   - the four propagation levels (none, forward, singles, hidden) place a value and
 *     propagate with a LIFO queue of (cell, bit); under hidden each state also keeps the
 *     places left for each value in each unit, so a hidden single is found when they
 *     drop to one instead of by rescanning units (see propagate_hidden); there the root
 *     is built in one sweep (root_hidden) rather than given by given;
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
 *     a node a cell is placed exactly when it has one candidate;
 *   - the search is depth-first with an explicit stack of frames (state, cell, untried
 *     candidates); a state (masks, where, placed) is one block, copied in one memcpy per
 *     guess; on the last candidate of a frame its state is reused in place and the
 *     frame stays on the stack until it is popped (and counted as a backtrack);
 *   - the clock is read every 256 guesses, and the guess budget (max_guesses) is checked
 *     before each guess, both in one place (next_guess) that both searches share;
 *   - the classic 9x9 shape (rows, columns, boxes, no cages) under hidden runs its own
 *     search, run_board9, on CPUs with AVX2: the same rules on digit planes (one AVX2
 *     vector of three band words per digit), every single of a digit placed at once, a
 *     320-byte state; the same results, 1.7x to 2.2x as fast (see its section).
 *
 * Cages (killer Sudoku) follow the reference too: a cage's cells are peers, and its value
 * sets (masks, computed and checked by reference.tables) prune the cage's candidates at
 * each level as the reference's docstring says (see prune_cage).
 *
 * Tables(size, units, cages) validates and precomputes a grid shape (peers, units of each
 * cell, the cell's place in each, the cages and their value sets) once; search(...)
 * copies its inputs into C arrays, takes one arena per call (n*n+1 states, the frames,
 * the propagation queue; the last call's block is kept for the next) and releases the
 * GIL while it searches.
 * search_batch(...) reads every puzzle first, then runs them all in one arena without
 * the GIL (each with its own deadline, budget and clocked time) and builds the answers
 * at the end: no Python work per puzzle inside the loop.
 */

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

enum { PROP_NONE = 0, PROP_FORWARD = 1, PROP_SINGLES = 2, PROP_HIDDEN = 3 };

/* ------------------------------------------------------------------------------------ */
/* Tables: a grid shape                                                                   */
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
    int board9;           /* searches under hidden run run_board9 (classic 9x9, AVX2) */
} TablesObject;

/* The CPU runs AVX2 code (see run_board9); set at import. */
static int b9_cpu;

/* Whether units (size 9, no cages) are exactly the rows, columns and boxes. */
static int
is_classic9(const TablesObject *t)
{
    if (t->size != 9 || t->nunits != 27 || t->ncages)
        return 0;
    uint32_t hit = 0; /* which of the 27 classic units were seen */
    for (int u = 0; u < 27; u++) {
        uint64_t lo = 0, hi = 0; /* the unit's cells */
        for (int i = 0; i < 9; i++) {
            const int c = t->units[u * 9 + i];
            if (c < 64)
                lo |= 1ull << c;
            else
                hi |= 1ull << (c - 64);
        }
        for (int k = 0; k < 27; k++) {
            uint64_t klo = 0, khi = 0;
            for (int i = 0; i < 9; i++) {
                const int c = k < 9    ? 9 * k + i               /* row k */
                              : k < 18 ? 9 * i + (k - 9)         /* column k - 9 */
                                       : 27 * ((k - 18) / 3) + 3 * ((k - 18) % 3) +
                                             9 * (i / 3) + i % 3; /* box k - 18 */
                if (c < 64)
                    klo |= 1ull << c;
                else
                    khi |= 1ull << (c - 64);
            }
            if (lo == klo && hi == khi)
                hit |= 1u << k;
        }
    }
    return hit == (1u << 27) - 1;
}


static void
Tables_dealloc(TablesObject *self)
{
    PyMem_Free(self->units);
    PyMem_Free(self->uo_start);
    PyMem_Free(self->uo);
    PyMem_Free(self->uo_row);
    PyMem_Free(self->uo_bit);
    PyMem_Free(self->uo_excl);
    PyMem_Free(self->other_row);
    PyMem_Free(self->other_bit);
    PyMem_Free(self->peer_start);
    PyMem_Free(self->peers);
    PyMem_Free(self->cage_of);
    PyMem_Free(self->cage_start);
    PyMem_Free(self->cage_cells);
    PyMem_Free(self->combo_start);
    PyMem_Free(self->combos);
    Py_XDECREF(self->units_obj);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Candidates in a mask; portable (no -mpopcnt needed), a dozen instructions. */
static inline int
popcount32(uint32_t m)
{
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    m = (m + (m >> 4)) & 0x0F0F0F0Fu;
    return (int)((m * 0x01010101u) >> 24);
}

/* An int from a Python int (not a bool), or -1 with an exception set. */
static int
as_index(PyObject *obj, const char *what, long lo, long hi, long *out)
{
    if (!PyLong_Check(obj) || PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be in %ld..%ld, got %R", what, lo, hi, obj);
        return -1;
    }
    *out = v;
    return 0;
}

/*
 * The cages: a sequence of (cells, value sets) pairs, the value sets as masks of as many
 * values as the cage has cells (reference.tables computes them). 0, or -1 with an
 * exception set. Also fills cage_of, so that it always exists (all -1 without cages).
 */
static int
read_cages(TablesObject *self, PyObject *cages_arg)
{
    const int ncells = self->ncells;
    self->cage_of = PyMem_Malloc(sizeof(int32_t) * (size_t)ncells);
    if (self->cage_of == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int c = 0; c < ncells; c++)
        self->cage_of[c] = -1;
    Py_ssize_t ncages = 0;
    PyObject *seq = NULL;
    if (cages_arg != NULL) {
        seq = PySequence_Fast(cages_arg, "cages must be a sequence of (cells, value sets)");
        if (seq == NULL)
            return -1;
        ncages = PySequence_Fast_GET_SIZE(seq);
    }
    if (ncages > ncells) {
        PyErr_Format(PyExc_ValueError, "too many cages: %zd for %d cells", ncages, ncells);
        goto fail;
    }
    self->ncages = (int)ncages;
    self->cage_start = PyMem_Calloc((size_t)ncages + 1, sizeof(int32_t));
    self->cage_cells = PyMem_Malloc(sizeof(int32_t) * ((size_t)ncells + 1));
    self->combo_start = PyMem_Calloc((size_t)ncages + 1, sizeof(int32_t));
    if (!self->cage_start || !self->cage_cells || !self->combo_start) {
        PyErr_NoMemory();
        goto fail;
    }
    /* Two passes over the value sets: count, then copy. */
    size_t ncombos = 0, ncells_in = 0;
    for (Py_ssize_t g = 0; g < ncages; g++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(seq, g);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_Format(PyExc_TypeError, "cage %zd must be a (cells, value sets) tuple", g);
            goto fail;
        }
        PyObject *cells = PySequence_Fast(PyTuple_GET_ITEM(pair, 0),
                                          "a cage's cells must be a sequence");
        if (cells == NULL)
            goto fail;
        Py_ssize_t len = PySequence_Fast_GET_SIZE(cells);
        if (len < 1 || len > self->size) {
            PyErr_Format(PyExc_ValueError, "cage %zd has %zd cells, expected 1..%d", g, len,
                         self->size);
            Py_DECREF(cells);
            goto fail;
        }
        for (Py_ssize_t i = 0; i < len; i++) {
            long cell;
            if (as_index(PySequence_Fast_GET_ITEM(cells, i), "a cage's cell", 0, ncells - 1,
                         &cell) < 0) {
                Py_DECREF(cells);
                goto fail;
            }
            if (self->cage_of[cell] >= 0) {
                PyErr_Format(PyExc_ValueError, "cell %ld is in cage %d and cage %zd", cell,
                             (int)self->cage_of[cell], g);
                Py_DECREF(cells);
                goto fail;
            }
            self->cage_of[cell] = (int32_t)g;
            self->cage_cells[ncells_in++] = (int32_t)cell;
        }
        Py_DECREF(cells);
        self->cage_start[g + 1] = (int32_t)ncells_in;
        PyObject *combos = PySequence_Fast(PyTuple_GET_ITEM(pair, 1),
                                           "a cage's value sets must be a sequence");
        if (combos == NULL)
            goto fail;
        ncombos += (size_t)PySequence_Fast_GET_SIZE(combos);
        Py_DECREF(combos);
        if (ncombos > MAX_COMBOS) {
            PyErr_Format(PyExc_ValueError, "too many cage value sets: more than %d", MAX_COMBOS);
            goto fail;
        }
        self->combo_start[g + 1] = (int32_t)ncombos;
    }
    self->combos = PyMem_Malloc(sizeof(uint32_t) * (ncombos + 1));
    if (self->combos == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t g = 0; g < ncages; g++) {
        PyObject *combos = PySequence_Fast(PyTuple_GET_ITEM(PySequence_Fast_GET_ITEM(seq, g), 1),
                                           "a cage's value sets must be a sequence");
        if (combos == NULL)
            goto fail;
        int want = self->cage_start[g + 1] - self->cage_start[g];
        Py_ssize_t n = PySequence_Fast_GET_SIZE(combos);
        if (n != self->combo_start[g + 1] - self->combo_start[g]) {
            PyErr_Format(PyExc_ValueError, "cage %zd: its value sets changed while read", g);
            Py_DECREF(combos);
            goto fail;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            long mask;
            if (as_index(PySequence_Fast_GET_ITEM(combos, i), "a cage's value set", 1,
                         (long)self->full, &mask) < 0) {
                Py_DECREF(combos);
                goto fail;
            }
            if (popcount32((uint32_t)mask) != want) {
                PyErr_Format(PyExc_ValueError, "cage %zd: value set %ld does not hold %d values",
                             g, mask, want);
                Py_DECREF(combos);
                goto fail;
            }
            self->combos[self->combo_start[g] + i] = (uint32_t)mask;
        }
        Py_DECREF(combos);
    }
    Py_XDECREF(seq);
    return 0;

fail:
    Py_XDECREF(seq);
    return -1;
}

static PyObject *
Tables_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"size", "units", "cages", "bitboard", NULL};
    PyObject *size_obj, *units_arg, *cages_arg = NULL;
    int bitboard = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|Op:Tables", kwlist, &size_obj, &units_arg,
                                     &cages_arg, &bitboard))
        return NULL;
    long size;
    if (as_index(size_obj, "size", 1, MAX_SIZE, &size) < 0)
        return NULL;
    int ncells = (int)(size * size);

    PyObject *seq = PySequence_Fast(units_arg, "units must be a sequence of units");
    if (seq == NULL)
        return NULL;
    Py_ssize_t nunits = PySequence_Fast_GET_SIZE(seq);
    if (nunits > MAX_UNITS) {
        Py_DECREF(seq);
        /* Every search state carries a count per unit and value (see propagate_hidden). */
        PyErr_Format(PyExc_ValueError, "too many units: %zd, at most %d", nunits, MAX_UNITS);
        return NULL;
    }

    TablesObject *self = (TablesObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    self->size = (int)size;
    self->ncells = ncells;
    self->nunits = (int)nunits;
    self->full = (1u << size) - 1u;
    self->units_obj = PyTuple_New(nunits);
    self->units = PyMem_Malloc(sizeof(int32_t) * (size_t)(nunits * size + 1));
    self->uo_start = PyMem_Calloc((size_t)ncells + 1, sizeof(int32_t));
    self->uo = PyMem_Malloc(sizeof(int32_t) * (size_t)(nunits * size + 1));
    self->uo_row = PyMem_Malloc(sizeof(int32_t) * (size_t)(nunits * size + 1));
    self->uo_bit = PyMem_Malloc(sizeof(uint32_t) * (size_t)(nunits * size + 1));
    self->peer_start = PyMem_Calloc((size_t)ncells + 1, sizeof(int32_t));
    uint8_t *seen = PyMem_Calloc((size_t)ncells, 1);
    uint8_t *peerbits = NULL;
    int32_t *fill = NULL;
    if (!self->units_obj || !self->units || !self->uo_start || !self->uo || !self->uo_row || !self->uo_bit ||
        !self->peer_start || !seen) {
        PyErr_NoMemory();
        goto fail;
    }

    for (Py_ssize_t u = 0; u < nunits; u++) {
        PyObject *unit = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, u),
                                         "each unit must be a sequence of cells");
        if (unit == NULL)
            goto fail;
        Py_ssize_t len = PySequence_Fast_GET_SIZE(unit);
        if (len != size) {
            PyErr_Format(PyExc_ValueError, "unit %zd has %zd cells, expected %ld", u, len,
                         size);
            Py_DECREF(unit);
            goto fail;
        }
        PyObject *tup = PyTuple_New(len);
        if (tup == NULL) {
            Py_DECREF(unit);
            goto fail;
        }
        PyTuple_SET_ITEM(self->units_obj, u, tup);
        for (Py_ssize_t i = 0; i < len; i++) {
            PyObject *item = PySequence_Fast_GET_ITEM(unit, i);
            long cell;
            if (as_index(item, "a unit's cell", 0, ncells - 1, &cell) < 0) {
                Py_DECREF(unit);
                goto fail;
            }
            if (seen[cell]) {
                PyErr_Format(PyExc_ValueError, "unit %zd holds cell %ld twice", u, cell);
                Py_DECREF(unit);
                goto fail;
            }
            seen[cell] = 1;
            self->units[u * size + i] = (int32_t)cell;
            PyObject *c = PyLong_FromLong(cell);
            if (c == NULL) {
                Py_DECREF(unit);
                goto fail;
            }
            PyTuple_SET_ITEM(tup, i, c);
        }
        for (Py_ssize_t i = 0; i < len; i++)
            seen[self->units[u * size + i]] = 0;
        Py_DECREF(unit);
    }
    Py_CLEAR(seq);
    if (read_cages(self, cages_arg) < 0)
        goto fail;

    /* The units of each cell, in unit order. */
    for (int k = 0; k < self->nunits * self->size; k++)
        self->uo_start[self->units[k] + 1]++;
    for (int c = 0; c < ncells; c++)
        self->uo_start[c + 1] += self->uo_start[c];
    fill = PyMem_Malloc(sizeof(int32_t) * (size_t)(ncells + 1));
    if (fill == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    memcpy(fill, self->uo_start, sizeof(int32_t) * (size_t)ncells);
    for (int u = 0; u < self->nunits; u++)
        for (int i = 0; i < self->size; i++) {
            int c = self->units[u * self->size + i];
            self->uo_row[fill[c]] = u * self->size;
            self->uo_bit[fill[c]] = 1u << i;
            self->uo[fill[c]++] = u;
        }

    /* For each unit of each cell, the positions whose cells no earlier unit of the cell
     * holds (nor the cell itself): walking them visits each unit peer once. */
    self->uo_excl = PyMem_Malloc(sizeof(uint32_t) * (size_t)(nunits * size + 1));
    if (self->uo_excl == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (int c = 0; c < ncells; c++) {
        for (int k = self->uo_start[c]; k < self->uo_start[c + 1]; k++) {
            const int32_t *unit = self->units + self->uo_row[k];
            uint32_t excl = 0;
            for (int i = 0; i < self->size; i++) {
                int earlier = unit[i] == c;
                for (int j = self->uo_start[c]; j < k && !earlier; j++) {
                    const int32_t *prev = self->units + self->uo_row[j];
                    for (int e = 0; e < self->size; e++)
                        if (prev[e] == unit[i])
                            earlier = 1;
                }
                if (!earlier)
                    excl |= 1u << i;
            }
            self->uo_excl[k] = excl;
        }
    }

    /* The peers of each cell: every other cell sharing a unit, ascending. */
    peerbits = PyMem_Calloc((size_t)ncells, 1);
    if (peerbits == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        total = 0;
        for (int c = 0; c < ncells; c++) {
            for (int k = self->uo_start[c]; k < self->uo_start[c + 1]; k++) {
                const int32_t *unit = self->units + (size_t)self->uo[k] * self->size;
                for (int i = 0; i < self->size; i++)
                    peerbits[unit[i]] = 1;
            }
            if (self->cage_of[c] >= 0) { /* a cage's values are distinct too */
                int g = self->cage_of[c];
                for (int k = self->cage_start[g]; k < self->cage_start[g + 1]; k++)
                    peerbits[self->cage_cells[k]] = 1;
            }
            peerbits[c] = 0;
            if (pass == 1)
                self->peer_start[c] = (int32_t)total;
            for (int p = 0; p < ncells; p++) {
                if (peerbits[p]) {
                    if (pass == 1)
                        self->peers[total] = p;
                    total++;
                    peerbits[p] = 0;
                }
            }
        }
        if (pass == 0) {
            self->peers = PyMem_Malloc(sizeof(int32_t) * (total + 1));
            if (self->peers == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
        }
    }
    self->peer_start[ncells] = (int32_t)total;

    /* Classic shapes give every cell as many units (3): constant loop bounds. */
    self->nunits_of = self->uo_start[1] - self->uo_start[0];
    for (int c = 1; c < ncells; c++)
        if (self->uo_start[c + 1] - self->uo_start[c] != self->nunits_of)
            self->nunits_of = 0;

    if (self->nunits_of >= 2) {
        const int nu = self->nunits_of;
        const size_t nslots = (size_t)self->nunits * (size_t)self->size;
        self->other_row = PyMem_Malloc(sizeof(int32_t) * nslots * (size_t)(nu - 1));
        self->other_bit = PyMem_Malloc(sizeof(uint32_t) * nslots * (size_t)(nu - 1));
        if (!self->other_row || !self->other_bit) {
            PyErr_NoMemory();
            goto fail;
        }
        for (size_t slot = 0; slot < nslots; slot++) {
            const int c = self->units[slot];
            const int row = (int)(slot / (size_t)self->size) * self->size;
            size_t j = slot * (size_t)(nu - 1);
            for (int k = self->uo_start[c]; k < self->uo_start[c + 1]; k++) {
                if (self->uo_row[k] == row)
                    continue;
                self->other_row[j] = self->uo_row[k];
                self->other_bit[j++] = self->uo_bit[k];
            }
        }
    }

    self->board9 = bitboard && b9_cpu && is_classic9(self);

    PyMem_Free(seen);
    PyMem_Free(peerbits);
    PyMem_Free(fill);
    return (PyObject *)self;

fail:
    Py_XDECREF(seq);
    PyMem_Free(seen);
    PyMem_Free(peerbits);
    PyMem_Free(fill);
    Py_DECREF(self);
    return NULL;
}

static PyObject *
Tables_get_size(TablesObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->size);
}

static PyObject *
Tables_get_units(TablesObject *self, void *closure)
{
    (void)closure;
    Py_INCREF(self->units_obj);
    return self->units_obj;
}

static PyObject *
Tables_get_peers(TablesObject *self, void *closure)
{
    (void)closure;
    PyObject *out = PyTuple_New(self->ncells);
    if (out == NULL)
        return NULL;
    for (int c = 0; c < self->ncells; c++) {
        int lo = self->peer_start[c], hi = self->peer_start[c + 1];
        PyObject *t = PyTuple_New(hi - lo);
        if (t == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, c, t);
        for (int k = lo; k < hi; k++) {
            PyObject *v = PyLong_FromLong(self->peers[k]);
            if (v == NULL) {
                Py_DECREF(out);
                return NULL;
            }
            PyTuple_SET_ITEM(t, k - lo, v);
        }
    }
    return out;
}

static PyObject *
Tables_get_bitboard(TablesObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->board9);
}

static PyObject *
Tables_repr(TablesObject *self)
{
    return PyUnicode_FromFormat("<sudokulab.native._core.Tables size=%d units=%d>", self->size,
                                self->nunits);
}

static PyGetSetDef Tables_getset[] = {
    {"size", (getter)Tables_get_size, NULL, "the number of values (and cells per unit)", NULL},
    {"units", (getter)Tables_get_units, NULL, "the units, a tuple of tuples of cells", NULL},
    {"peers", (getter)Tables_get_peers, NULL, "the peers of each cell, ascending", NULL},
    {"bitboard", (getter)Tables_get_bitboard, NULL,
     "whether searches under hidden propagation run the classic 9x9 bitboard solver "
     "(this shape is rows, columns and boxes of a 9x9 grid without cages, the CPU has "
     "AVX2, and bitboard=False was not given)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TablesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sudokulab.native._core.Tables",
    .tp_basicsize = sizeof(TablesObject),
    .tp_dealloc = (destructor)Tables_dealloc,
    .tp_repr = (reprfunc)Tables_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Tables(size, units, cages=(), bitboard=True): a grid shape, validated, with "
              "peers and unit membership. bitboard=False keeps the classic 9x9 shape on the "
              "general engine (for cross-checks; the results are the same).",
    .tp_getset = Tables_getset,
    .tp_new = Tables_new,
};

/* ------------------------------------------------------------------------------------ */
/* The search                                                                             */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    int32_t state; /* arena slot of the frame's state */
    int32_t cell;
    uint32_t untried;
} Frame;

typedef struct {
    /* the grid shape */
    const TablesObject *t;
    int size, ncells;
    uint32_t full;
    /* the knobs */
    int prop;
    int mrv;
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
    /* the cages whose cells changed, to prune again (singles, hidden): a set and a list */
    uint8_t *cdirty;
    int32_t *clist;
    int nclist;
} Ctx;


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

/* Mark cage g for another look (a set: marked once). */
static inline void
cage_mark(Ctx *x, int g)
{
    if (!x->cdirty[g]) {
        x->cdirty[g] = 1;
        x->clist[x->nclist++] = g;
    }
}

/* Forget the marks a propagation stopped by a contradiction left behind. */
static inline void
cage_clear(Ctx *x)
{
    for (int i = 0; i < x->nclist; i++)
        x->cdirty[x->clist[i]] = 0;
    x->nclist = 0;
}

/* A marked cage, or -1 (any order reaches the same fixpoint). */
static inline int
cage_take(Ctx *x)
{
    if (!x->nclist)
        return -1;
    int g = x->clist[--x->nclist];
    x->cdirty[g] = 0;
    return g;
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
        cage_mark(x, g);
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
    if (t->cage_of[cell] >= 0)
        return prune_cage(x, masks, placed, NULL, NULL, t->cage_of[cell]);
    return 1;
}

/* singles: place bit, then every naked single in turn (and the cages), to a fixpoint. */
static inline __attribute__((always_inline)) int
place_singles_impl(Ctx *x, uint32_t *masks, uint8_t *placed, int cell, uint32_t bit,
                   const int cg)
{
    const TablesObject *t = x->t;
    const int32_t *peer_start = t->peer_start, *peers = t->peers;
    const int32_t *cage_of = t->cage_of;
    Queue q = {x->qcell, x->qbit, 0, x->qcap};
    if (cg)
        cage_clear(x);
    q_push(x, &q, cell, bit);
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
                cage_mark(x, cage_of[c]);
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
                        cage_mark(x, cage_of[p]);
                }
            }
        }
        if (!cg)
            return 1;
        int g = cage_take(x);
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
        return place_singles_impl(x, masks, placed, cell, bit, 1);
    return place_singles_impl(x, masks, placed, cell, bit, 0);
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
 * they fire differs, which the reference's docstring allows. Two values whose only place
 * is the same cell are queued apart: placing the first removes the second, whose set
 * becomes empty, the same contradiction.
 */

/* nu: units per cell when constant (9x9: 3), else 0. seeded: the queue already holds
 * x->qseed entries (the root, see root_hidden) and cell, bit are unused. */
/* The number of bits of each 9-bit mask (filled at import). */
static uint8_t bitcnt9[512];

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
    if (cg)
        cage_clear(x);
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
            cage_mark(x, cage_of[c]);
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
                    cage_mark(x, cage_of[p]);
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
        int g = cage_take(x);
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
            uint32_t *restrict where, const uint8_t *givens)
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

static inline int
place(Ctx *x, uint32_t *masks, uint8_t *placed, uint32_t *where, int cell, uint32_t bit)
{
    switch (x->prop) {
    case PROP_NONE:
        return place_check(x, masks, placed, cell, bit);
    case PROP_FORWARD:
        return place_forward(x, masks, placed, cell, bit);
    case PROP_SINGLES:
        return place_singles(x, masks, placed, cell, bit);
    default:
        return place_hidden(x, masks, placed, where, cell, bit);
    }
}

static inline int
first_unplaced(const uint8_t *placed, int ncells)
{
    const void *p = memchr(placed, 0, (size_t)ncells);
    return p ? (int)((const uint8_t *)p - placed) : -1;
}

/* The cell to branch on, or -1 when every cell is placed. */
static inline int
choose(const Ctx *x, const uint32_t *masks, const uint8_t *placed)
{
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

static inline int64_t
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

typedef struct {
    /* in */
    const uint8_t *givens;
    long long limit; /* 0: no limit */
    int has_deadline;
    int64_t deadline_ns;
    unsigned long long max_guesses; /* the guess budget; ULLONG_MAX: none */
    Py_ssize_t keep;
    /* out */
    uint8_t *solutions; /* kept grids, ncells values each */
    Py_ssize_t nsolutions;
    Py_ssize_t solcap;
    unsigned long long count, nodes, guesses, backtracks;
    int complete, timed_out, budget_spent;
    int nomem;
    int64_t elapsed_ns; /* the search's own time */
} Run;

/* The slot for one more kept solution grid (ncells values); NULL when out of memory. */
static uint8_t *
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

/* Keep one more solution grid; 0 when out of memory. */
static int
keep_solution(Run *r, const Ctx *x, const uint32_t *masks)
{
    uint8_t *grid = grid_slot(r, x->ncells);
    if (grid == NULL)
        return 0;
    for (int c = 0; c < x->ncells; c++)
        grid[c] = (uint8_t)(masks[c] ? 32 - __builtin_clz(masks[c]) : 0); /* bit_length */
    return 1;
}

/*
 * The search's next guess, for run_search and run_board9: frames whose candidates are all
 * tried are popped (each a backtrack); the next candidate of the top frame (the lowest
 * untried value) is taken into *bit and counted as a guess, and the clock is read every
 * 256 guesses. 1 with a guess to place (in the top frame), or 0 when the search ends: the
 * stack is empty (r->complete), the budget has no guess left for that candidate
 * (r->budget_spent: checked before the guess is counted, as the reference does), or the
 * deadline passed (r->timed_out). Without a budget max_guesses is ULLONG_MAX, which a
 * count of guesses never reaches: one compare per guess, no branch on whether there is
 * a budget.
 */
static inline __attribute__((always_inline)) int
next_guess(Run *r, Frame *stack, int *sp, uint32_t *bit)
{
    for (;;) {
        if (*sp == 0) {
            r->complete = 1;
            return 0;
        }
        Frame *f = &stack[*sp - 1];
        const uint32_t untried = f->untried;
        if (!untried) {
            (*sp)--;
            r->backtracks++;
            continue;
        }
        if (r->guesses == r->max_guesses) {
            r->budget_spent = 1;
            return 0;
        }
        *bit = untried & (~untried + 1u);
        f->untried = untried ^ *bit;
        r->guesses++;
        if (!(r->guesses & CLOCK_EVERY) && r->has_deadline && now_ns() > r->deadline_ns) {
            r->timed_out = 1;
            return 0;
        }
        return 1;
    }
}

/* ------------------------------------------------------------------------------------ */
/* The classic 9x9 board under hidden: digit planes (AVX2)                                */
/* ------------------------------------------------------------------------------------ */

/*
 * The same search as run_search under hidden, for the classic 9x9 shape only (rows,
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
 * A state is 320 bytes (the general engine's is 1.4 KB), copied once per guess.
 *
 * Compiled for AVX2 (target attribute) where the compiler can, used when the CPU has it
 * (checked once at import); elsewhere the general engine runs.
 */
#if defined(__GNUC__) && defined(__x86_64__)
#define HAVE_BOARD9 1
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

static void
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

/* Naked and hidden singles to the fixpoint; dirty: the digits whose planes changed.
 * 0 on a contradiction. */
B9 int
propagate9(Board9 *s, unsigned dirty)
{
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
            return 1;
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
            return 1;
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

/* run_search for the classic 9x9 shape under hidden (see above); `block` holds 82
 * states (the root and one per depth) plus 32 bytes for the alignment. */
__attribute__((target("avx2"))) static int
run_board9(Ctx *x, Run *r, char *block, Frame *stack)
{
    Board9 *states = (Board9 *)(((uintptr_t)block + 31) & ~(uintptr_t)31);
    Board9 *s = states;
    const int mrv = x->mrv;
    for (int d = 0; d < 9; d++)
        s->p[d] = B9S(B9BAND);
    s->u = (B9V){B9BAND, B9BAND, B9BAND, 0};
    unsigned dirty = 0;
    for (int c = 0; c < 81; c++)
        if (r->givens[c] && !place9(s, c, r->givens[c] - 1, &dirty)) {
            r->complete = 1; /* a value given twice in a unit */
            return 1;
        }
    if (!propagate9(s, 0x1FF)) {
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
            if (place9(s, f->cell, __builtin_ctz(bit), &dirty) && propagate9(s, dirty))
                break;
        }
    }
}

#else
#define HAVE_BOARD9 0
static void
board9_init(void)
{
    b9_cpu = 0;
}
#endif

/* The search proper; runs without the GIL. Returns 0 on an internal error. */
static int
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
    if (x->prop == PROP_HIDDEN && x->t->board9)
        return run_board9(x, r, states, stack);
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
    if (x->prop == PROP_HIDDEN && !x->t->ncages && x->size > 1) {
        if (!root_hidden(x, masks, placed, where, r->givens)) {
            if (x->overflow)
                return 0;
            r->complete = 1;
            return 1;
        }
        goto search;
    }
    for (int c = 0; c < ncells; c++)
        masks[c] = full;
    memset(placed, 0, (size_t)ncells);
    for (size_t i = 0; i < nwhere; i++)
        where[i] = full; /* every value has every place of every unit */
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

search:;
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
            sp++;
        }
        /* Find the next candidate whose propagation succeeds. */
        for (;;) {
            uint32_t bit;
            if (!next_guess(r, stack, &sp, &bit))
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
            if (place(x, masks, placed, where, f->cell, bit))
                break;
            if (x->overflow)
                return 0;
        }
    }
}

static int
parse_choice(PyObject *obj, const char *what, const char *const *names, int n, const char *all)
{
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (PyUnicode_CompareWithASCIIString(obj, names[i]) == 0)
            return i;
    PyErr_Format(PyExc_ValueError, "unknown %s %R: choose one of %s", what, obj, all);
    return -1;
}

/* The knobs shared by search and search_batch, checked. */
typedef struct {
    int prop, order;
    long long limit; /* 0: no limit */
    int has_timeout;
    int64_t timeout_ns;
    unsigned long long max_guesses; /* ULLONG_MAX: no budget */
    Py_ssize_t keep;
} Knobs;

/* A count (limit, keep, max_guesses) from a Python int, at least lo; *huge when beyond a long long.
 * 0, or -1 with a TypeError (not an int: `expected` says what is) or a ValueError set. */
static int
read_count(PyObject *obj, const char *what, const char *expected, long long lo,
           long long *out, int *huge)
{
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be %s, not %.100s", what, expected,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow < 0 || (!overflow && v < lo)) {
        PyErr_Format(PyExc_ValueError, "%s must be at least %lld, got %R", what, lo, obj);
        return -1;
    }
    *out = v;
    *huge = overflow > 0;
    return 0;
}

/* The knobs from their Python values; max_guesses_obj NULL or None: no budget. */
static int
parse_knobs(PyObject *prop_obj, PyObject *order_obj, PyObject *limit_obj,
            PyObject *timeout_obj, PyObject *keep_obj, PyObject *max_guesses_obj, Knobs *k)
{
    static const char *const props[] = {"none", "forward", "singles", "hidden"};
    static const char *const orders[] = {"mrv", "first"};
    memset(k, 0, sizeof *k);
    k->prop = parse_choice(prop_obj, "propagation", props, 4, "none, forward, singles, hidden");
    if (k->prop < 0)
        return -1;
    k->order = parse_choice(order_obj, "order", orders, 2, "mrv, first");
    if (k->order < 0)
        return -1;
    long long n;
    int huge;
    if (limit_obj != Py_None) {
        if (read_count(limit_obj, "limit", "an int or None", 1, &n, &huge) < 0)
            return -1;
        k->limit = huge ? 0 : n; /* beyond 2**63: as good as no limit */
    }
    if (timeout_obj != Py_None) {
        double timeout = PyFloat_AsDouble(timeout_obj);
        if (timeout == -1.0 && PyErr_Occurred())
            return -1;
        if (isnan(timeout)) {
            PyErr_SetString(PyExc_ValueError, "timeout must be a number of seconds, not nan");
            return -1;
        }
        if (timeout < 1e9) { /* longer: no deadline in practice */
            k->has_timeout = 1;
            k->timeout_ns = timeout > 0 ? (int64_t)(timeout * 1e9) : 0;
        }
    }
    if (read_count(keep_obj, "keep", "an int", 0, &n, &huge) < 0)
        return -1;
    k->keep = (huge || n > PY_SSIZE_T_MAX) ? PY_SSIZE_T_MAX : (Py_ssize_t)n;
    k->max_guesses = ULLONG_MAX;
    if (max_guesses_obj != NULL && max_guesses_obj != Py_None) {
        /* the reference's check_budget message, word for word */
        if (read_count(max_guesses_obj, "max_guesses", "an int or None", 0, &n, &huge) < 0)
            return -1;
        if (!huge) /* beyond 2**63: as good as no budget */
            k->max_guesses = (unsigned long long)n;
    }
    return 0;
}

/* Copy one puzzle's givens (n*n ints in 0..n) into out; `which` names it in errors. */
static int
read_givens(PyObject *obj, const TablesObject *t, uint8_t *out, const char *which)
{
    PyObject *seq = PySequence_Fast(obj, "givens must be a sequence of ints");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n != t->ncells) {
        PyErr_Format(PyExc_ValueError, "%s must hold %d values, got %zd", which, t->ncells, n);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t c = 0; c < n; c++) {
        long v;
        if (as_index(PySequence_Fast_GET_ITEM(seq, c), "a given", 0, t->size, &v) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        out[c] = (uint8_t)v;
    }
    Py_DECREF(seq);
    return 0;
}

/* The working memory of searches on one shape: states, frames, queue. One allocation. */
typedef struct {
    char *block;
    size_t bytes; /* of block */
    char *states; /* nstates states of stride bytes: masks, where, placed (each in one) */
    size_t stride;
    Frame *stack;
    Ctx x;
} Arena;

/* The block of the last search, kept for the next one (a fresh block of a hundred
 * kilobytes per call costs more than a small search): taken and given back with the GIL
 * held, so one search at a time owns it; others allocate their own. */
static char *arena_cache;
static size_t arena_cache_bytes;

static char *
arena_alloc(size_t bytes, size_t *got)
{
    if (arena_cache != NULL && arena_cache_bytes >= bytes) {
        char *block = arena_cache;
        *got = arena_cache_bytes;
        arena_cache = NULL;
        return block;
    }
    *got = bytes;
    return PyMem_RawMalloc(bytes);
}

/* Give an arena's block back (the GIL held): kept when it is the larger. */
static void
arena_release(Arena *a)
{
    if (a->block == NULL)
        return;
    if (arena_cache == NULL || arena_cache_bytes < a->bytes) {
        PyMem_RawFree(arena_cache);
        arena_cache = a->block;
        arena_cache_bytes = a->bytes;
    } else {
        PyMem_RawFree(a->block);
    }
    a->block = NULL;
}

static int
arena_init(Arena *a, const TablesObject *t, const Knobs *k)
{
    const int ncells = t->ncells;
    size_t nstates = (size_t)ncells + 1; /* the root and one per branching depth */
    size_t qcap = 1 + (size_t)ncells + (size_t)t->nunits * (size_t)t->size;
    size_t nwhere = k->prop == PROP_HIDDEN ? (size_t)t->nunits * (size_t)t->size : 0;
    /* one block per state, a multiple of 64 bytes (run_search copies one per guess) */
    size_t stride = sizeof(uint32_t) * ((size_t)ncells + nwhere) + (size_t)ncells;
    stride = (stride + 63) & ~(size_t)63;
    size_t bytes_states = stride * nstates;
#if HAVE_BOARD9
    if (t->board9 && k->prop == PROP_HIDDEN && bytes_states < sizeof(Board9) * 82 + 32)
        bytes_states = sizeof(Board9) * 82 + 32; /* run_board9's states, 32-byte aligned */
#endif
    size_t bytes_frames = sizeof(Frame) * nstates;
    /* one entry more than the bound: propagate_hidden writes one past it unqueued */
    size_t bytes_queue = (sizeof(int32_t) + sizeof(uint32_t)) * (qcap + 1);
    size_t bytes_cages = (sizeof(int32_t) + 1) * (size_t)t->ncages;
    /* propagate_hidden's noted slots, per placed cell: its units' places of its other
     * values, and each peer's other units once (writes one past the count) */
    size_t nsusp = 2 * (size_t)t->nunits * (size_t)t->size + 1;
    memset(a, 0, sizeof *a);
    a->block = arena_alloc(bytes_states + bytes_frames + bytes_queue + bytes_cages +
                               sizeof(int32_t) * nsusp + 1,
                           &a->bytes);
    if (a->block == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    char *p = a->block; /* 4-byte items first, then bytes: every item aligned */
    a->states = p;
    a->stride = stride;
    p += bytes_states;
    a->stack = (Frame *)p;
    p += bytes_frames;
    a->x.qcell = (int32_t *)p;
    p += sizeof(int32_t) * (qcap + 1);
    a->x.qbit = (uint32_t *)p;
    p += sizeof(uint32_t) * (qcap + 1);
    a->x.susp = (int32_t *)p;
    p += sizeof(int32_t) * nsusp;
    a->x.clist = (int32_t *)p;
    p += sizeof(int32_t) * (size_t)t->ncages;
    a->x.cdirty = (uint8_t *)p;
    memset(a->x.cdirty, 0, (size_t)t->ncages);

    Ctx *x = &a->x;
    x->t = t;
    x->size = t->size;
    x->ncells = ncells;
    x->full = t->full;
    x->prop = k->prop;
    /* Under none mrv ties everywhere and picks the first unplaced cell. */
    x->mrv = k->order == 0 && k->prop != PROP_NONE;
    /* Under singles/hidden an unplaced cell keeps two or more candidates; forward, one. */
    x->floor = (k->prop == PROP_SINGLES || k->prop == PROP_HIDDEN) ? 2 : 1;
    x->pick9 = x->mrv && x->floor == 2 && t->size >= 2 && t->size <= 9 && !t->ncages;
    x->qcap = qcap;
    x->nwhere = nwhere;
    return 0;
}

/* One search, timed; runs without the GIL. Returns 0 on an internal error. */
static int
arena_run(Arena *a, const Knobs *k, const uint8_t *givens, Run *r)
{
    memset(r, 0, sizeof *r);
    r->givens = givens;
    r->limit = k->limit;
    r->keep = k->keep;
    int64_t start = now_ns();
    r->has_deadline = k->has_timeout;
    r->deadline_ns = start + k->timeout_ns;
    r->max_guesses = k->max_guesses;
    a->x.overflow = 0;
    int ok = run_search(&a->x, r, a->states, a->stride, a->stack);
    r->elapsed_ns = now_ns() - start;
    return ok;
}

/* The Python error for a failed run (the GIL held). */
static PyObject *
run_error(const Run *r)
{
    if (r->nomem)
        return PyErr_NoMemory();
    PyErr_SetString(PyExc_RuntimeError, "sudokulab native core: propagation queue overflow");
    return NULL;
}

/* (solutions, count, complete, timed_out, budget_spent, nodes, guesses, backtracks
 * [, seconds]): the fields of reference.Outcome in its order, then the search's time. */
static PyObject *
outcome_tuple(const Run *r, int ncells, PyObject *const *small, int timed)
{
    PyObject *sols = PyTuple_New(r->nsolutions);
    if (sols == NULL)
        return NULL;
    for (Py_ssize_t s = 0; s < r->nsolutions; s++) {
        PyObject *grid = PyTuple_New(ncells);
        if (grid == NULL) {
            Py_DECREF(sols);
            return NULL;
        }
        PyTuple_SET_ITEM(sols, s, grid);
        const uint8_t *g = r->solutions + (size_t)s * (size_t)ncells;
        for (int c = 0; c < ncells; c++) {
            Py_INCREF(small[g[c]]);
            PyTuple_SET_ITEM(grid, c, small[g[c]]);
        }
    }
    if (timed)
        return Py_BuildValue("(NKNNNKKKd)", sols, r->count, PyBool_FromLong(r->complete),
                             PyBool_FromLong(r->timed_out), PyBool_FromLong(r->budget_spent),
                             r->nodes, r->guesses, r->backtracks, (double)r->elapsed_ns / 1e9);
    return Py_BuildValue("(NKNNNKKK)", sols, r->count, PyBool_FromLong(r->complete),
                         PyBool_FromLong(r->timed_out), PyBool_FromLong(r->budget_spent),
                         r->nodes, r->guesses, r->backtracks);
}

/* The ints 0..MAX_SIZE, for the grids; 0 on failure (then none is held). */
static int
small_ints(PyObject **small)
{
    for (int v = 0; v <= MAX_SIZE; v++) {
        small[v] = PyLong_FromLong(v);
        if (small[v] == NULL) {
            for (int w = 0; w < v; w++)
                Py_DECREF(small[w]);
            return 0;
        }
    }
    return 1;
}

static void
drop_small_ints(PyObject **small)
{
    for (int v = 0; v <= MAX_SIZE; v++)
        Py_DECREF(small[v]);
}

static PyObject *
core_search(PyObject *module, PyObject *args, PyObject *kwds)
{
    (void)module;
    static char *kwlist[] = {"tables", "givens",  "propagation", "order",
                             "limit",  "timeout", "keep",        "max_guesses", NULL};
    PyObject *tables_obj, *givens_obj, *prop_obj, *order_obj, *limit_obj, *timeout_obj,
        *keep_obj, *max_guesses_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OOOOOO|O:search", kwlist, &TablesType,
                                     &tables_obj, &givens_obj, &prop_obj, &order_obj,
                                     &limit_obj, &timeout_obj, &keep_obj, &max_guesses_obj))
        return NULL;
    TablesObject *t = (TablesObject *)tables_obj;
    Knobs k;
    if (parse_knobs(prop_obj, order_obj, limit_obj, timeout_obj, keep_obj, max_guesses_obj,
                    &k) < 0)
        return NULL;
    uint8_t givens[MAX_SIZE * MAX_SIZE];
    if (read_givens(givens_obj, t, givens, "givens") < 0)
        return NULL;
    PyObject *small[MAX_SIZE + 1];
    if (!small_ints(small))
        return NULL;
    Arena a;
    if (arena_init(&a, t, &k) < 0) {
        drop_small_ints(small);
        return NULL;
    }
    Run r;
    int ok;
    Py_INCREF(tables_obj); /* the tables outlive the search, GIL or not */
    Py_BEGIN_ALLOW_THREADS
    ok = arena_run(&a, &k, givens, &r);
    Py_END_ALLOW_THREADS
    Py_DECREF(tables_obj);
    arena_release(&a);
    PyObject *out = ok ? outcome_tuple(&r, t->ncells, small, 0) : run_error(&r);
    PyMem_RawFree(r.solutions);
    drop_small_ints(small);
    return out;
}

static PyObject *
core_search_batch(PyObject *module, PyObject *args, PyObject *kwds)
{
    (void)module;
    static char *kwlist[] = {"tables", "puzzles", "propagation", "order",
                             "limit",  "timeout", "keep",        "max_guesses", NULL};
    PyObject *tables_obj, *puzzles_obj, *prop_obj, *order_obj, *limit_obj, *timeout_obj,
        *keep_obj, *max_guesses_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OOOOOO|O:search_batch", kwlist,
                                     &TablesType, &tables_obj, &puzzles_obj, &prop_obj,
                                     &order_obj, &limit_obj, &timeout_obj, &keep_obj,
                                     &max_guesses_obj))
        return NULL;
    TablesObject *t = (TablesObject *)tables_obj;
    Knobs k;
    if (parse_knobs(prop_obj, order_obj, limit_obj, timeout_obj, keep_obj, max_guesses_obj,
                    &k) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(puzzles_obj, "puzzles must be a sequence of givens");
    if (seq == NULL)
        return NULL;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    const int ncells = t->ncells;
    if ((size_t)n > ((size_t)PY_SSIZE_T_MAX / 2) / (sizeof(Run) + (size_t)ncells)) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    /* Every puzzle read (and checked) before any search: no Python work in the loop. */
    uint8_t *givens = PyMem_RawMalloc((size_t)n * (size_t)ncells + 1);
    Run *runs = PyMem_RawCalloc((size_t)n + 1, sizeof(Run));
    if (givens == NULL || runs == NULL) {
        PyMem_RawFree(givens);
        PyMem_RawFree(runs);
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    PyObject *out = NULL;
    PyObject *small[MAX_SIZE + 1];
    int have_small = 0;
    Arena a = {0};
    for (Py_ssize_t i = 0; i < n; i++) {
        if (read_givens(PySequence_Fast_GET_ITEM(seq, i), t, givens + (size_t)i * ncells,
                        "givens") < 0) {
            if (PyErr_ExceptionMatches(PyExc_TypeError) ||
                PyErr_ExceptionMatches(PyExc_ValueError)) {
                /* Name the puzzle whatever went wrong inside it. */
                PyObject *type, *value, *tb;
                PyErr_Fetch(&type, &value, &tb);
                PyErr_NormalizeException(&type, &value, &tb);
                PyErr_Format(type, "puzzle %zd: %S", i, value);
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
            }
            goto done;
        }
    }
    if (!(have_small = small_ints(small)))
        goto done;
    if (arena_init(&a, t, &k) < 0)
        goto done;

    Py_ssize_t failed = -1;
    Py_INCREF(tables_obj);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!arena_run(&a, &k, givens + (size_t)i * ncells, &runs[i])) {
            failed = i;
            break;
        }
    }
    Py_END_ALLOW_THREADS
    Py_DECREF(tables_obj);
    if (failed >= 0) {
        run_error(&runs[failed]);
        goto done;
    }
    out = PyList_New(n);
    if (out == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = outcome_tuple(&runs[i], ncells, small, 1);
        if (item == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, item);
    }
done:
    for (Py_ssize_t i = 0; i < n; i++)
        PyMem_RawFree(runs[i].solutions);
    PyMem_RawFree(runs);
    PyMem_RawFree(givens);
    arena_release(&a);
    if (have_small)
        drop_small_ints(small);
    Py_DECREF(seq);
    return out;
}

/* The number of int64 counters search_buffer gives each puzzle, in this order. */
enum { BUF_COUNT, BUF_FLAGS, BUF_NODES, BUF_GUESSES, BUF_BACKTRACKS, BUF_NS, BUF_FIELDS };

static PyObject *
core_search_buffer(PyObject *module, PyObject *args, PyObject *kwds)
{
    (void)module;
    static char *kwlist[] = {"tables", "givens", "propagation", "order",
                             "limit",  "timeout", "max_guesses", NULL};
    PyObject *tables_obj, *givens_obj, *prop_obj, *order_obj, *limit_obj, *timeout_obj,
        *max_guesses_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OOOOO|O:search_buffer", kwlist,
                                     &TablesType, &tables_obj, &givens_obj, &prop_obj,
                                     &order_obj, &limit_obj, &timeout_obj, &max_guesses_obj))
        return NULL;
    TablesObject *t = (TablesObject *)tables_obj;
    PyObject *one = PyLong_FromLong(1);
    if (one == NULL)
        return NULL;
    Knobs k;
    int bad = parse_knobs(prop_obj, order_obj, limit_obj, timeout_obj, one, max_guesses_obj, &k);
    Py_DECREF(one);
    if (bad < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(givens_obj, &view, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    const int ncells = t->ncells;
    PyObject *sols = NULL, *counters = NULL, *out = NULL;
    Run *runs = NULL;
    Arena a = {0};
    if (view.itemsize != 1 || view.len % ncells != 0) {
        PyErr_Format(PyExc_ValueError,
                     "givens must be bytes of %d values a puzzle, got %zd bytes of %zd",
                     ncells, view.len, view.itemsize);
        goto done;
    }
    const Py_ssize_t n = view.len / ncells;
    const uint8_t *givens = view.buf;
    for (Py_ssize_t i = 0; i < n * ncells; i++) {
        if (givens[i] > t->size) {
            PyErr_Format(PyExc_ValueError, "puzzle %zd: cell %zd: %d is outside 0..%d",
                         i / ncells, i % ncells, givens[i], t->size);
            goto done;
        }
    }
    sols = PyBytes_FromStringAndSize(NULL, n * ncells);
    counters = PyBytes_FromStringAndSize(NULL, n * BUF_FIELDS * (Py_ssize_t)sizeof(int64_t));
    runs = PyMem_RawCalloc((size_t)n + 1, sizeof(Run));
    if (sols == NULL || counters == NULL || runs == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    if (arena_init(&a, t, &k) < 0)
        goto done;
    uint8_t *grids = (uint8_t *)PyBytes_AS_STRING(sols);
    int64_t *cnt = (int64_t *)PyBytes_AS_STRING(counters);
    Py_ssize_t failed = -1;
    Py_INCREF(tables_obj);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        Run *r = &runs[i];
        if (!arena_run(&a, &k, givens + (size_t)i * ncells, r)) {
            failed = i;
            break;
        }
        uint8_t *grid = grids + (size_t)i * ncells;
        if (r->nsolutions)
            memcpy(grid, r->solutions, (size_t)ncells);
        else
            memset(grid, 0, (size_t)ncells);
        PyMem_RawFree(r->solutions);
        r->solutions = NULL;
        int64_t *c = cnt + (size_t)i * BUF_FIELDS;
        c[BUF_COUNT] = (int64_t)r->count;
        c[BUF_FLAGS] = (r->complete ? 1 : 0) | (r->timed_out ? 2 : 0) | (r->budget_spent ? 4 : 0);
        c[BUF_NODES] = (int64_t)r->nodes;
        c[BUF_GUESSES] = (int64_t)r->guesses;
        c[BUF_BACKTRACKS] = (int64_t)r->backtracks;
        c[BUF_NS] = r->elapsed_ns;
    }
    Py_END_ALLOW_THREADS
    Py_DECREF(tables_obj);
    if (failed >= 0) {
        run_error(&runs[failed]);
        goto done;
    }
    out = PyTuple_Pack(2, sols, counters);
done:
    if (runs != NULL) {
        for (Py_ssize_t i = 0; i < view.len / ncells; i++)
            PyMem_RawFree(runs[i].solutions);
        PyMem_RawFree(runs);
    }
    arena_release(&a);
    Py_XDECREF(sols);
    Py_XDECREF(counters);
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef core_methods[] = {
    {"search", (PyCFunction)(void (*)(void))core_search, METH_VARARGS | METH_KEYWORDS,
     "search(tables, givens, propagation, order, limit, timeout, keep, max_guesses=None)"
     "\n--\n\n"
     "Search one grid (see sudokulab.native.reference). givens: n*n ints in 0..n; "
     "propagation: none, forward, singles or hidden; order: mrv or first; limit: an int "
     ">= 1 or None; timeout: seconds from the call or None; keep: solution grids to "
     "return; max_guesses: the guess budget, an int >= 0 or None. Returns (solutions, "
     "count, complete, timed_out, budget_spent, nodes, guesses, backtracks)."},
    {"search_batch", (PyCFunction)(void (*)(void))core_search_batch,
     METH_VARARGS | METH_KEYWORDS,
     "search_batch(tables, puzzles, propagation, order, limit, timeout, keep, "
     "max_guesses=None)\n--\n\n"
     "Search many grids of one shape in one call, without the GIL: the same as search on "
     "each, with timeout and max_guesses per puzzle (the timeout from its own start). "
     "Returns a list of (solutions, count, complete, timed_out, budget_spent, nodes, "
     "guesses, backtracks, seconds), seconds being that puzzle's search time measured in "
     "C."},
    {"search_buffer", (PyCFunction)(void (*)(void))core_search_buffer,
     METH_VARARGS | METH_KEYWORDS,
     "search_buffer(tables, givens, propagation, order, limit, timeout, max_guesses=None)"
     "\n--\n\n"
     "Search many grids of one shape given as one buffer (bytes, or a C-contiguous uint8 "
     "array) of n*n values per puzzle, without the GIL and without a Python object per "
     "puzzle: the same as search on each (timeout and max_guesses per puzzle). Returns "
     "(solutions, counters): bytes of n*n values per puzzle (its first solution, zeros "
     "when it has none) and bytes of 6 native int64 per puzzle: count, flags (1 complete, "
     "2 timed out, 4 budget spent), nodes, guesses, backtracks, search nanoseconds."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "sudokulab.native._core",
    .m_doc = "The native engine in C: the same search as sudokulab.native.reference.",
    .m_size = -1,
    .m_methods = core_methods,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    for (int m = 0; m < 512; m++)
        bitcnt9[m] = (uint8_t)popcount32((uint32_t)m);
    board9_init();
    if (PyType_Ready(&TablesType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&TablesType);
    if (PyModule_AddObject(m, "Tables", (PyObject *)&TablesType) < 0) {
        Py_DECREF(&TablesType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "BITBOARD", b9_cpu) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "MAX_SIZE", MAX_SIZE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
