/*
 * sudokulab.native._core: the Python module of the compiled core. The knobs and givens
 * from Python, one arena per call, search / search_batch / search_buffer without the
 * GIL, and the module's set-up. See core.h for the whole core.
 */

#include "core.h"

/* The ints 0..MAX_SIZE, made at import: the cells of the answers' grids, and the givens
 * read by identity (see read_givens). */
static PyObject *small_int[MAX_SIZE + 1];

/* The knobs' names, and the same as interned str objects made at import (a caller's
 * literal is the same object, found by identity before any comparison of characters). */
static const char *const prop_names[] = {"none", "forward", "singles", "hidden", "locked"};
static const char *const order_names[] = {"mrv", "first", "mrv-degree"};
#define NPROPS 5
#define NORDERS 3
static PyObject *prop_strs[NPROPS], *order_strs[NORDERS];

static int
parse_choice(PyObject *obj, const char *what, const char *const *names, PyObject *const *strs,
             int n, const char *all)
{
    for (int i = 0; i < n; i++)
        if (obj == strs[i])
            return i;
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
    memset(k, 0, sizeof *k);
    k->prop = parse_choice(prop_obj, "propagation", prop_names, prop_strs, NPROPS,
                           "none, forward, singles, hidden, locked");
    if (k->prop < 0)
        return -1;
    k->order = parse_choice(order_obj, "order", order_names, order_strs, NORDERS,
                            "mrv, first, mrv-degree");
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

/* The arguments of a METH_FASTCALL | METH_KEYWORDS call, by position then by name, into
 * out[0..nnames) (NULL where absent; the first `required` must be there, out[0] a Tables).
 * 0, or -1 with a TypeError naming the function and the argument, as Python's own. */
static int
unpack_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
            const char *const *names, int nnames, int required, PyObject **out)
{
    if (nargs > nnames) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", fname,
                     nnames, nargs);
        return -1;
    }
    for (int i = 0; i < nnames; i++)
        out[i] = i < nargs ? args[i] : NULL;
    const Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int j = 0;
        while (j < nnames && PyUnicode_CompareWithASCIIString(key, names[j]) != 0)
            j++;
        if (j == nnames) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'",
                         fname, key);
            return -1;
        }
        if (out[j] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[j]);
            return -1;
        }
        out[j] = args[nargs + k];
    }
    for (int i = 0; i < required; i++)
        if (out[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)",
                         fname, names[i], i + 1);
            return -1;
        }
    if (!PyObject_TypeCheck(out[0], &TablesType)) {
        PyErr_Format(PyExc_TypeError, "%s() argument 1 must be %s, not %.100s", fname,
                     TablesType.tp_name, Py_TYPE(out[0])->tp_name);
        return -1;
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
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t c = 0; c < n; c++) {
        /* an empty cell (CPython's one 0) or a plain int in range at once; anything else
         * through as_index, for its errors */
        int overflow = 0;
        long v = items[c] == small_int[0]       ? 0
                 : PyLong_CheckExact(items[c]) ? PyLong_AsLongAndOverflow(items[c], &overflow)
                                               : -1;
        if (overflow || v < 0 || v > t->size) {
            if (as_index(items[c], "a given", 0, t->size, &v) < 0) {
                Py_DECREF(seq);
                return -1;
            }
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
    size_t nwhere = k->prop >= PROP_HIDDEN ? (size_t)t->nunits * (size_t)t->size : 0;
    /* one block per state, a multiple of 64 bytes (run_search copies one per guess) */
    size_t stride = sizeof(uint32_t) * ((size_t)ncells + nwhere) + (size_t)ncells;
    stride = (stride + 63) & ~(size_t)63;
    size_t bytes_states = stride * nstates;
#if HAVE_BOARD9
    if (t->board9 && k->prop >= PROP_HIDDEN && bytes_states < board9_states_bytes())
        bytes_states = board9_states_bytes(); /* run_board9's states, 32-byte aligned */
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
    x->degree = k->order == 2 && k->prop != PROP_NONE; /* under none: first, as mrv */
    /* Under singles/hidden an unplaced cell keeps two or more candidates; forward, one. */
    x->floor = k->prop >= PROP_SINGLES ? 2 : 1;
    x->pick9 = x->mrv && x->floor == 2 && t->size >= 2 && t->size <= 9 && !t->ncages;
    x->qcap = qcap;
    x->nwhere = nwhere;
    return 0;
}

/* interrupt()'s count: a search stops when it moves on (read without the GIL). */
static unsigned long core_epoch;
/* The thread that imported the module (the main thread): only there can Python's
 * signal handlers run, so only a search there takes the GIL to run them. */
static unsigned long main_ident;
/* Nanoseconds between two looks at the signals from a search on the main thread. */
#define POLL_NS 10000000LL

/* Where the Ctrl-C of the main thread, and interrupt(), reach a running search. */
static PyThreadState *
save_thread(int *main_thread)
{
    *main_thread = PyThread_get_thread_ident() == main_ident;
    return PyEval_SaveThread();
}

int
core_check(Run *r)
{
    if (__atomic_load_n(&core_epoch, __ATOMIC_RELAXED) != r->epoch) {
        r->timed_out = r->interrupted = 1;
        return 1;
    }
    if (!r->has_deadline && r->poll == NULL)
        return 0;
    const int64_t now = now_ns();
    if (r->has_deadline && now > r->deadline_ns) {
        r->timed_out = 1;
        return 1;
    }
    if (r->poll != NULL && now >= r->poll_ns) {
        r->poll_ns = now + POLL_NS;
        PyEval_RestoreThread(r->poll);
        const int raised = PyErr_CheckSignals(); /* KeyboardInterrupt stays set */
        r->poll = PyEval_SaveThread();
        if (raised) {
            r->timed_out = r->interrupted = 1;
            return 1;
        }
    }
    return 0;
}

/* The Python error of a search that Ctrl-C or interrupt() stopped (the GIL held). */
static PyObject *
interrupted_error(void)
{
    if (!PyErr_Occurred())
        PyErr_SetNone(PyExc_KeyboardInterrupt);
    return NULL;
}

/* One search, timed; runs without the GIL (poll: the main thread's state, or NULL).
 * Returns 0 on an internal error. */
static int
arena_run(Arena *a, const Knobs *k, const uint8_t *givens, Run *r, unsigned long epoch,
          PyThreadState **poll)
{
    memset(r, 0, sizeof *r);
    r->givens = givens;
    r->limit = k->limit;
    r->keep = k->keep;
    int64_t start = now_ns();
    r->has_deadline = k->has_timeout;
    r->deadline_ns = start + k->timeout_ns;
    r->epoch = epoch;
    r->poll = *poll;
    r->poll_ns = start + POLL_NS;
    r->max_guesses = k->max_guesses;
    a->x.overflow = 0;
    int ok = run_search(&a->x, r, a->states, a->stride, a->stack);
    r->elapsed_ns = now_ns() - start;
    if (*poll != NULL)
        *poll = r->poll; /* the same state, saved again by core_check */
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
outcome_tuple(const Run *r, int ncells, int timed)
{
    PyObject *out = PyTuple_New(timed ? 9 : 8);
    PyObject *sols = PyTuple_New(r->nsolutions);
    if (out == NULL || sols == NULL) {
        Py_XDECREF(out);
        Py_XDECREF(sols);
        return NULL;
    }
    PyTuple_SET_ITEM(out, 0, sols);
    for (Py_ssize_t s = 0; s < r->nsolutions; s++) {
        PyObject *grid = PyTuple_New(ncells);
        if (grid == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(sols, s, grid);
        const uint8_t *g = r->solutions + (size_t)s * (size_t)ncells;
        for (int c = 0; c < ncells; c++) {
            Py_INCREF(small_int[g[c]]);
            PyTuple_SET_ITEM(grid, c, small_int[g[c]]);
        }
    }
    PyObject *const flags[3] = {PyBool_FromLong(r->complete), PyBool_FromLong(r->timed_out),
                                PyBool_FromLong(r->budget_spent)};
    for (int i = 0; i < 3; i++)
        PyTuple_SET_ITEM(out, 2 + i, flags[i]);
    const unsigned long long counts[4] = {r->count, r->nodes, r->guesses, r->backtracks};
    const int at[4] = {1, 5, 6, 7};
    for (int i = 0; i < 4; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(counts[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, at[i], v);
    }
    if (timed) {
        PyObject *v = PyFloat_FromDouble((double)r->elapsed_ns / 1e9);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, 8, v);
    }
    return out;
}

static PyObject *
core_search(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    static const char *const names[] = {"tables", "givens",  "propagation", "order",
                                        "limit",  "timeout", "keep",        "max_guesses"};
    PyObject *arg[8];
    if (unpack_args("search", args, nargs, kwnames, names, 8, 7, arg) < 0)
        return NULL;
    PyObject *tables_obj = arg[0], *givens_obj = arg[1], *prop_obj = arg[2],
             *order_obj = arg[3], *limit_obj = arg[4], *timeout_obj = arg[5], *keep_obj = arg[6],
             *max_guesses_obj = arg[7];
    TablesObject *t = (TablesObject *)tables_obj;
    Knobs k;
    if (parse_knobs(prop_obj, order_obj, limit_obj, timeout_obj, keep_obj, max_guesses_obj,
                    &k) < 0)
        return NULL;
    uint8_t givens[MAX_SIZE * MAX_SIZE];
    if (read_givens(givens_obj, t, givens, "givens") < 0)
        return NULL;
    Arena a;
    if (arena_init(&a, t, &k) < 0)
        return NULL;
    Run r;
    int ok, main_thread;
    const unsigned long epoch = __atomic_load_n(&core_epoch, __ATOMIC_RELAXED);
    Py_INCREF(tables_obj); /* the tables outlive the search, GIL or not */
    PyThreadState *ts = save_thread(&main_thread);
    PyThreadState *poll = main_thread ? ts : NULL;
    ok = arena_run(&a, &k, givens, &r, epoch, &poll);
    PyEval_RestoreThread(ts);
    Py_DECREF(tables_obj);
    arena_release(&a);
    PyObject *out = !ok            ? run_error(&r)
                    : r.interrupted ? interrupted_error()
                                    : outcome_tuple(&r, t->ncells, 0);
    PyMem_RawFree(r.solutions);
    return out;
}

static PyObject *
core_search_batch(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                  PyObject *kwnames)
{
    (void)module;
    static const char *const names[] = {"tables", "puzzles", "propagation", "order",
                                        "limit",  "timeout", "keep",        "max_guesses"};
    PyObject *arg[8];
    if (unpack_args("search_batch", args, nargs, kwnames, names, 8, 7, arg) < 0)
        return NULL;
    PyObject *tables_obj = arg[0], *puzzles_obj = arg[1], *prop_obj = arg[2],
             *order_obj = arg[3], *limit_obj = arg[4], *timeout_obj = arg[5], *keep_obj = arg[6],
             *max_guesses_obj = arg[7];
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
    if (arena_init(&a, t, &k) < 0)
        goto done;

    Py_ssize_t failed = -1;
    int main_thread, stopped = 0;
    const unsigned long epoch = __atomic_load_n(&core_epoch, __ATOMIC_RELAXED);
    Py_INCREF(tables_obj);
    PyThreadState *ts = save_thread(&main_thread);
    PyThreadState *poll = main_thread ? ts : NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!arena_run(&a, &k, givens + (size_t)i * ncells, &runs[i], epoch, &poll)) {
            failed = i;
            break;
        }
        if (runs[i].interrupted) {
            stopped = 1;
            break;
        }
    }
    PyEval_RestoreThread(ts);
    Py_DECREF(tables_obj);
    if (failed >= 0) {
        run_error(&runs[failed]);
        goto done;
    }
    if (stopped) {
        interrupted_error();
        goto done;
    }
    out = PyList_New(n);
    if (out == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = outcome_tuple(&runs[i], ncells, 1);
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
    Py_DECREF(seq);
    return out;
}

/* The number of int64 counters search_buffer gives each puzzle, in this order. */
enum { BUF_COUNT, BUF_FLAGS, BUF_NODES, BUF_GUESSES, BUF_BACKTRACKS, BUF_NS, BUF_FIELDS };

static PyObject *
core_search_buffer(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                   PyObject *kwnames)
{
    (void)module;
    static const char *const names[] = {"tables", "givens",  "propagation", "order",
                                        "limit",  "timeout", "max_guesses"};
    PyObject *arg[7];
    if (unpack_args("search_buffer", args, nargs, kwnames, names, 7, 6, arg) < 0)
        return NULL;
    PyObject *tables_obj = arg[0], *givens_obj = arg[1], *prop_obj = arg[2], *order_obj = arg[3],
             *limit_obj = arg[4], *timeout_obj = arg[5], *max_guesses_obj = arg[6];
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
    int main_thread, stopped = 0;
    const unsigned long epoch = __atomic_load_n(&core_epoch, __ATOMIC_RELAXED);
    Py_INCREF(tables_obj);
    PyThreadState *ts = save_thread(&main_thread);
    PyThreadState *poll = main_thread ? ts : NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        Run *r = &runs[i];
        if (!arena_run(&a, &k, givens + (size_t)i * ncells, r, epoch, &poll)) {
            failed = i;
            break;
        }
        if (r->interrupted) {
            stopped = 1;
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
    PyEval_RestoreThread(ts);
    Py_DECREF(tables_obj);
    if (failed >= 0) {
        run_error(&runs[failed]);
        goto done;
    }
    if (stopped) {
        interrupted_error();
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

static PyObject *
core_interrupt(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    __atomic_add_fetch(&core_epoch, 1, __ATOMIC_RELAXED);
    Py_RETURN_NONE;
}

static PyMethodDef core_methods[] = {
    {"interrupt", core_interrupt, METH_NOARGS,
     "interrupt()\n--\n\n"
     "Stop every search running now, in any thread, at its next look at the clock "
     "(within 256 guesses): each raises KeyboardInterrupt. Searches started later run."},
    {"search", (PyCFunction)(void (*)(void))core_search, METH_FASTCALL | METH_KEYWORDS,
     "search(tables, givens, propagation, order, limit, timeout, keep, max_guesses=None)"
     "\n--\n\n"
     "Search one grid (see sudokulab.native.reference). givens: n*n ints in 0..n; "
     "propagation: none, forward, singles, hidden or locked; order: mrv, first or "
     "mrv-degree; limit: an int "
     ">= 1 or None; timeout: seconds from the call or None; keep: solution grids to "
     "return; max_guesses: the guess budget, an int >= 0 or None. Returns (solutions, "
     "count, complete, timed_out, budget_spent, nodes, guesses, backtracks)."},
    {"search_batch", (PyCFunction)(void (*)(void))core_search_batch,
     METH_FASTCALL | METH_KEYWORDS,
     "search_batch(tables, puzzles, propagation, order, limit, timeout, keep, "
     "max_guesses=None)\n--\n\n"
     "Search many grids of one shape in one call, without the GIL: the same as search on "
     "each, with timeout and max_guesses per puzzle (the timeout from its own start). "
     "Returns a list of (solutions, count, complete, timed_out, budget_spent, nodes, "
     "guesses, backtracks, seconds), seconds being that puzzle's search time measured in "
     "C."},
    {"search_buffer", (PyCFunction)(void (*)(void))core_search_buffer,
     METH_FASTCALL | METH_KEYWORDS,
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
    engine_init();
    board9_init();
    main_ident = PyThread_get_thread_ident();
    for (int v = 0; v <= MAX_SIZE; v++)
        if (small_int[v] == NULL && (small_int[v] = PyLong_FromLong(v)) == NULL)
            return NULL;
    for (int i = 0; i < NPROPS; i++)
        if (prop_strs[i] == NULL &&
            (prop_strs[i] = PyUnicode_InternFromString(prop_names[i])) == NULL)
            return NULL;
    for (int i = 0; i < NORDERS; i++)
        if (order_strs[i] == NULL &&
            (order_strs[i] = PyUnicode_InternFromString(order_names[i])) == NULL)
            return NULL;
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
    if (cover_init(m, &core_epoch) < 0) {
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

