/*
 * Tables: a grid shape (its units, peers, cages and value sets), validated and
 * precomputed once for every search of that shape. See core.h for the whole core.
 */

#include "core.h"

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
    PyMem_Free(self->lock_a);
    PyMem_Free(self->lock_b);
    PyMem_Free(self->lock_ina);
    PyMem_Free(self->lock_inb);
    PyMem_Free(self->rule_kind);
    PyMem_Free(self->rule_start);
    PyMem_Free(self->rule_cells);
    PyMem_Free(self->rule_total);
    PyMem_Free(self->rule_coef);
    PyMem_Free(self->rule_sup);
    PyMem_Free(self->rule_sup_start);
    PyMem_Free(self->rule_exact);
    PyMem_Free(self->rule_grp_start);
    PyMem_Free(self->rule_grp);
    PyMem_Free(self->ro_start);
    PyMem_Free(self->ro);
    PyMem_Free(self->unary);
    Py_XDECREF(self->units_obj);
    Py_TYPE(self)->tp_free((PyObject *)self);
}


/* An int from a Python int (not a bool), or -1 with an exception set. */
int
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

/* The pairs of units that share two or more cells (locked candidates), both ways round;
 * 0, or -1 with MemoryError set. */
static int
read_intersections(TablesObject *self)
{
    const int size = self->size, nunits = self->nunits;
    const size_t most = (size_t)nunits * (size_t)nunits + 1;
    self->lock_a = PyMem_Malloc(sizeof(int32_t) * most);
    self->lock_b = PyMem_Malloc(sizeof(int32_t) * most);
    self->lock_ina = PyMem_Malloc(sizeof(uint32_t) * most);
    self->lock_inb = PyMem_Malloc(sizeof(uint32_t) * most);
    if (!self->lock_a || !self->lock_b || !self->lock_ina || !self->lock_inb) {
        PyErr_NoMemory();
        return -1;
    }
    int n = 0;
    for (int a = 0; a < nunits; a++) {
        for (int b = 0; b < nunits; b++) {
            if (a == b)
                continue;
            uint32_t ina = 0, inb = 0;
            for (int i = 0; i < size; i++)
                for (int j = 0; j < size; j++)
                    if (self->units[a * size + i] == self->units[b * size + j]) {
                        ina |= 1u << i;
                        inb |= 1u << j;
                    }
            if (popcount32(ina) < 2)
                continue;
            self->lock_a[n] = a * size;
            self->lock_b[n] = b * size;
            self->lock_ina[n] = ina;
            self->lock_inb[n] = inb;
            n++;
        }
    }
    self->nlock = n;
    return 0;
}

/* An int64 item of a sequence (a rule's coefficient), or -1 with an exception set. */
static int
rule_int(PyObject *seq, Py_ssize_t i, const char *what, long long lo, long long hi,
         long long *out)
{
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyLong_Check(item) || PyBool_Check(item)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", what);
        return -1;
    }
    long long v = PyLong_AsLongLong(item);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s %lld is outside %lld..%lld", what, v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/*
 * A sum's groups (the reference's CompiledRule.groups, flat: each group's size, then its
 * places) into grp[]: every place 0..n-1 in exactly one group, a group's places of one
 * coefficient. 0, or -1 with an exception set.
 */
static int
read_groups(PyObject *groups, Py_ssize_t r, int n, const int64_t *coef, int32_t *grp)
{
    const Py_ssize_t len = PySequence_Fast_GET_SIZE(groups);
    uint8_t *seen = PyMem_Calloc((size_t)n + 1, 1);
    if (seen == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    int ok = -1, placed = 0;
    for (Py_ssize_t k = 0; k < len;) {
        long long s, v;
        if (rule_int(groups, k, "a group's size", 1, n, &s) < 0)
            goto out;
        if (k + s > len - 1) {
            PyErr_Format(PyExc_ValueError, "rule %zd: its groups end inside a group", r);
            goto out;
        }
        grp[k] = (int32_t)s;
        for (long long i = 1; i <= s; i++) {
            if (rule_int(groups, k + i, "a group's place", 0, n - 1, &v) < 0)
                goto out;
            if (seen[v]) {
                PyErr_Format(PyExc_ValueError, "rule %zd: place %lld is in two groups", r, v);
                goto out;
            }
            if (i > 1 && coef[v] != coef[grp[k + 1]]) { /* the bounds take one coefficient */
                PyErr_Format(PyExc_ValueError,
                             "rule %zd: place %lld has another coefficient than its group", r, v);
                goto out;
            }
            seen[v] = 1;
            grp[k + i] = (int32_t)v;
            placed++;
        }
        k += 1 + s;
    }
    if (placed != n) {
        PyErr_Format(PyExc_ValueError, "rule %zd: its groups hold %d of its %d cells", r,
                     placed, n);
        goto out;
    }
    ok = 0;
out:
    PyMem_Free(seen);
    return ok;
}

/*
 * The rules: a sequence of (kind, cells, coefficients, total, supports, exact[, groups])
 * as reference.compile_rules makes them, and the unary masks (one per cell). A pair has
 * 2 * size supports; an exact sum at most SUM_CELLS cells and a support per cell (its
 * peers before it, bit j for the j-th cell); an exact sandwich a coefficient per cell
 * (where the value sets of k cells between its crusts begin in its supports, the last
 * where they end); a sum's groups are flat (each group's size, then its places), every
 * cell alone without them, and another kind has none. 0, or -1 with an exception set.
 */
static int
read_rules(TablesObject *self, PyObject *rules_arg, PyObject *unary_arg)
{
    const int ncells = self->ncells, size = self->size;
    PyObject *seq = NULL, *item = NULL, *cells = NULL, *coefs = NULL, *sup = NULL, *un = NULL;
    int ok = -1;
    seq = PySequence_Fast(rules_arg, "rules must be a sequence");
    if (seq == NULL)
        return -1;
    const Py_ssize_t nrules = PySequence_Fast_GET_SIZE(seq);
    if (nrules > (1 << 20)) {
        PyErr_Format(PyExc_ValueError, "too many rules: %zd", nrules);
        goto out;
    }
    self->nrules = (int)nrules;
    self->rule_kind = PyMem_Calloc((size_t)nrules + 1, sizeof(int32_t));
    self->rule_start = PyMem_Calloc((size_t)nrules + 1, sizeof(int32_t));
    self->rule_total = PyMem_Calloc((size_t)nrules + 1, sizeof(int32_t));
    self->rule_sup_start = PyMem_Calloc((size_t)nrules + 1, sizeof(int32_t));
    self->rule_exact = PyMem_Calloc((size_t)nrules + 1, sizeof(uint8_t));
    self->rule_grp_start = PyMem_Calloc((size_t)nrules + 1, sizeof(int32_t));
    self->ro_start = PyMem_Calloc((size_t)ncells + 1, sizeof(int32_t));
    self->unary = PyMem_Calloc((size_t)ncells, sizeof(uint32_t));
    if (!self->rule_kind || !self->rule_start || !self->rule_total || !self->rule_sup_start ||
        !self->rule_exact || !self->rule_grp_start || !self->ro_start || !self->unary) {
        PyErr_NoMemory();
        goto out;
    }
    Py_ssize_t total = 0, nsup = 0, ngrp = 0;
    for (Py_ssize_t r = 0; r < nrules; r++) {
        item = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, r),
                               "a rule must be (kind, cells, coefficients, total, supports, exact"
                               "[, groups])");
        if (item == NULL)
            goto out;
        const Py_ssize_t fields = PySequence_Fast_GET_SIZE(item);
        if (fields != 6 && fields != 7) {
            PyErr_Format(PyExc_ValueError, "rule %zd must have 6 or 7 fields", r);
            goto out;
        }
        cells = PySequence_Fast(PySequence_Fast_GET_ITEM(item, 1), "a rule's cells");
        sup = PySequence_Fast(PySequence_Fast_GET_ITEM(item, 4), "a rule's supports");
        if (cells == NULL || sup == NULL)
            goto out;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(cells);
        if (n > ncells) {
            PyErr_Format(PyExc_ValueError, "rule %zd has %zd cells", r, n);
            goto out;
        }
        if (PySequence_Fast_GET_SIZE(sup) > (1 << 28) - nsup) {
            PyErr_Format(PyExc_ValueError, "rule %zd has too many supports", r);
            goto out;
        }
        total += n;
        nsup += PySequence_Fast_GET_SIZE(sup);
        if (fields == 7) { /* a sum's groups, flat; a sum without them: each cell alone */
            PyObject *groups =
                PySequence_Fast(PySequence_Fast_GET_ITEM(item, 6), "a rule's groups");
            if (groups == NULL)
                goto out;
            const Py_ssize_t len = PySequence_Fast_GET_SIZE(groups);
            Py_DECREF(groups);
            if (len > 2 * n) {
                PyErr_Format(PyExc_ValueError, "rule %zd has too many groups", r);
                goto out;
            }
            ngrp += len;
        } else {
            long long kind;
            if (rule_int(item, 0, "a rule's kind", RULE_PAIR, RULE_SANDWICH, &kind) < 0)
                goto out;
            ngrp += kind == RULE_SUM ? 2 * n : 0;
        }
        self->rule_start[r + 1] = (int32_t)total;
        self->rule_sup_start[r + 1] = (int32_t)nsup;
        self->rule_grp_start[r + 1] = (int32_t)ngrp;
        Py_CLEAR(cells);
        Py_CLEAR(sup);
        Py_CLEAR(item);
    }
    self->rule_cells = PyMem_Malloc(sizeof(int32_t) * ((size_t)total + 1));
    self->rule_coef = PyMem_Calloc((size_t)total + 1, sizeof(int64_t));
    self->rule_sup = PyMem_Calloc((size_t)nsup + 1, sizeof(uint32_t));
    self->ro = PyMem_Malloc(sizeof(int32_t) * ((size_t)total + 1));
    self->rule_grp = PyMem_Calloc((size_t)ngrp + 1, sizeof(int32_t));
    if (!self->rule_cells || !self->rule_coef || !self->rule_sup || !self->ro || !self->rule_grp) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t r = 0; r < nrules; r++) {
        long long v;
        item = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, r), "a rule");
        if (item == NULL)
            goto out;
        const Py_ssize_t fields = PySequence_Fast_GET_SIZE(item);
        if (fields != 6 && fields != 7) { /* changed while read */
            PyErr_Format(PyExc_ValueError, "rule %zd must have 6 or 7 fields", r);
            goto out;
        }
        if (rule_int(item, 0, "a rule's kind", RULE_PAIR, RULE_SANDWICH, &v) < 0)
            goto out;
        const int kind = (int)v;
        self->rule_kind[r] = kind;
        PyObject *exact = PySequence_Fast_GET_ITEM(item, 5);
        if (!PyBool_Check(exact)) {
            PyErr_SetString(PyExc_TypeError, "a rule's exact must be a bool");
            goto out;
        }
        self->rule_exact[r] = exact == Py_True;
        cells = PySequence_Fast(PySequence_Fast_GET_ITEM(item, 1), "a rule's cells");
        coefs = PySequence_Fast(PySequence_Fast_GET_ITEM(item, 2), "a rule's coefficients");
        sup = PySequence_Fast(PySequence_Fast_GET_ITEM(item, 4), "a rule's supports");
        if (cells == NULL || coefs == NULL || sup == NULL)
            goto out;
        const int n = self->rule_start[r + 1] - self->rule_start[r];
        const Py_ssize_t nsets = self->rule_sup_start[r + 1] - self->rule_sup_start[r];
        const Py_ssize_t ngroups = self->rule_grp_start[r + 1] - self->rule_grp_start[r];
        const int counted = kind == RULE_SUM || (kind == RULE_SANDWICH && self->rule_exact[r]);
        if (PySequence_Fast_GET_SIZE(cells) != n || PySequence_Fast_GET_SIZE(sup) != nsets ||
            (kind == RULE_PAIR && (n != 2 || nsets != 2 * size)) ||
            (counted && PySequence_Fast_GET_SIZE(coefs) != n) ||
            (kind == RULE_SUM && self->rule_exact[r] && (n > SUM_CELLS || nsets != n)) ||
            (kind == RULE_SANDWICH && self->rule_exact[r] && (n < 2 || n > size)) ||
            (kind != RULE_PAIR && !self->rule_exact[r] && nsets) ||
            (kind == RULE_RUN && self->rule_exact[r]) || (kind != RULE_SUM && ngroups)) {
            PyErr_Format(PyExc_ValueError, "rule %zd: its fields do not fit its kind", r);
            goto out;
        }
        for (int i = 0; i < n; i++) {
            if (rule_int(cells, i, "a rule's cell", 0, ncells - 1, &v) < 0)
                goto out;
            self->rule_cells[self->rule_start[r] + i] = (int32_t)v;
            self->ro_start[v + 1]++;
            if (counted) {
                if (kind == RULE_SUM) {
                    if (rule_int(coefs, i, "a rule's coefficient", -1000000000LL,
                                 1000000000LL, &v) < 0)
                        goto out;
                } else if (rule_int(coefs, i, "a sandwich's set offset",
                                    i ? self->rule_coef[self->rule_start[r] + i - 1] : 0,
                                    (long long)nsets, &v) < 0)
                    goto out; /* offsets ascending within the rule's sets */
                self->rule_coef[self->rule_start[r] + i] = v;
            }
        }
        if (kind == RULE_SANDWICH && self->rule_exact[r] &&
            self->rule_coef[self->rule_start[r] + n - 1] != nsets) {
            PyErr_Format(PyExc_ValueError, "rule %zd: its sets end at %zd", r, nsets);
            goto out;
        }
        if (rule_int(item, 3, "a rule's total", -1000000000LL, 1000000000LL, &v) < 0)
            goto out;
        self->rule_total[r] = (int32_t)v;
        /* a sum's supports are cells of the sum before each (bit j: its j-th cell) */
        const long long most = kind == RULE_SUM ? (long long)((1ull << n) - 1) : self->full;
        for (Py_ssize_t i = 0; i < nsets; i++) {
            if (rule_int(sup, i, "a rule's support", 0, most, &v) < 0)
                goto out;
            self->rule_sup[self->rule_sup_start[r] + i] = (uint32_t)v;
        }
        int32_t *grp = self->rule_grp + self->rule_grp_start[r];
        if (kind == RULE_SUM && fields == 7) {
            PyObject *groups =
                PySequence_Fast(PySequence_Fast_GET_ITEM(item, 6), "a rule's groups");
            if (groups == NULL)
                goto out;
            const int64_t *coef = self->rule_coef + self->rule_start[r];
            const int bad = PySequence_Fast_GET_SIZE(groups) != ngroups ||
                            read_groups(groups, r, n, coef, grp) < 0;
            if (bad && !PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "rule %zd: its groups changed while read", r);
            Py_DECREF(groups);
            if (bad)
                goto out;
        } else if (kind == RULE_SUM)
            for (int i = 0; i < n; i++) {
                grp[2 * i] = 1;
                grp[2 * i + 1] = i;
            }
        Py_CLEAR(cells);
        Py_CLEAR(coefs);
        Py_CLEAR(sup);
        Py_CLEAR(item);
    }
    for (int c = 0; c < ncells; c++)
        self->ro_start[c + 1] += self->ro_start[c];
    {
        int32_t *fill = PyMem_Calloc((size_t)ncells + 1, sizeof(int32_t));
        if (fill == NULL) {
            PyErr_NoMemory();
            goto out;
        }
        for (int r = 0; r < self->nrules; r++) /* each cell's rules, ascending */
            for (int k = self->rule_start[r]; k < self->rule_start[r + 1]; k++) {
                const int c = self->rule_cells[k];
                self->ro[self->ro_start[c] + fill[c]++] = r;
            }
        PyMem_Free(fill);
    }
    un = PySequence_Fast(unary_arg, "unary must be a sequence of masks");
    if (un == NULL)
        goto out;
    if (PySequence_Fast_GET_SIZE(un) != ncells) {
        PyErr_Format(PyExc_ValueError, "unary must hold %d masks", ncells);
        goto out;
    }
    for (int c = 0; c < ncells; c++) {
        long long v;
        if (rule_int(un, c, "a unary mask", 0, self->full, &v) < 0)
            goto out;
        self->unary[c] = (uint32_t)v;
    }
    ok = 0;
out:
    Py_XDECREF(un);
    Py_XDECREF(cells);
    Py_XDECREF(coefs);
    Py_XDECREF(sup);
    Py_XDECREF(item);
    Py_DECREF(seq);
    return ok;
}

static PyObject *
Tables_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"size", "units", "cages", "bitboard", "rules", "unary", NULL};
    PyObject *size_obj, *units_arg, *cages_arg = NULL, *rules_arg = NULL, *unary_arg = NULL;
    int bitboard = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OpOO:Tables", kwlist, &size_obj,
                                     &units_arg, &cages_arg, &bitboard, &rules_arg, &unary_arg))
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

    if (rules_arg != NULL && unary_arg != NULL && read_rules(self, rules_arg, unary_arg) < 0)
        goto fail;
    self->board9 = bitboard && b9_cpu && is_classic9(self) && self->unary == NULL;
    if (read_intersections(self) < 0)
        goto fail;

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
     "whether searches under hidden or locked propagation run the classic 9x9 bitboard "
     "solver "
     "(this shape is rows, columns and boxes of a 9x9 grid without cages, the CPU has "
     "AVX2, and bitboard=False was not given)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject TablesType = {
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
