/*
 * sudokulab.native._core: the Python module of the compiled core. One entry point,
 * search: a buffer of puzzles in, keyword knobs, one arena for them all without the GIL,
 * buffers out (the kept grids and each puzzle's counters); and the module's set-up. See
 * core.h for the whole core.
 */

#include "core.h"

/* The knobs' names, and the same as interned str objects made at import (a caller's
 * literal is the same object, found by identity before any comparison of characters). */
/* (in PROP_* order; the ladder's, the reference's PROPAGATIONS, is in the error message) */
static const char *const prop_names[] = {"none",   "forward", "singles", "hidden",
                                         "locked", "ac3",     "gac",     "sac"};
static const char *const order_names[] = {"mrv", "first", "mrv-degree", "dom-wdeg"};
static const char *const values_names[] = {"natural", "lcv"};
#define NPROPS 8
#define NORDERS 4
#define NVALUES 2
static PyObject *prop_strs[NPROPS], *order_strs[NORDERS], *values_strs[NVALUES];

/* search's keyword arguments, in this order in parse_knobs, and interned the same way. */
enum { K_PROP, K_ORDER, K_LIMIT, K_TIMEOUT, K_KEEP, K_MAX_GUESSES, K_CANDIDATES, K_VALUES,
       K_BACKJUMP, K_TRACE, NKNOBS };
static const char *const knob_names[NKNOBS] = {"propagation", "order",       "limit",
                                               "timeout",     "keep",        "max_guesses",
                                               "candidates",  "values",      "backjump",
                                               "trace"};

/* The refusals of sudokulab.native.options.LIMITS that concern the core, word for word
 * (tests/test_options.py compares them over every combination of the options). */
static const char MSG_BACKJUMP[] =
    "backjump runs in the reference engine only (native-py), not the compiled core";
static const char MSG_WDEG_LEVELS[] =
    "order dom-wdeg runs under propagation none, forward, singles, hidden or locked in the "
    "compiled core (the reference runs it under every level: native-py)";
static const char MSG_WDEG_RULES[] =
    "order dom-wdeg runs without variant rules only in the compiled core (the reference "
    "runs it: native-py)";
static PyObject *knob_strs[NKNOBS];

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

/* The knobs of a search, checked. */
typedef struct {
    int prop, order;
    int values; /* 0 natural, 1 lcv */
    long long limit; /* 0: no limit */
    int has_timeout;
    int64_t timeout_ns;
    unsigned long long max_guesses; /* ULLONG_MAX: no budget */
    Py_ssize_t keep;
    Py_ssize_t trace; /* record every placement tried, up to this many (one puzzle only) */
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

/* The knobs from their Python values (knob[K_...], NULL where not given: the default,
 * hidden, mrv, limit 1, no timeout, keep 1, no budget). 0, or -1 with an exception set. */
static int
parse_knobs(PyObject *const *knob, Knobs *k)
{
    memset(k, 0, sizeof *k);
    k->prop = PROP_HIDDEN;
    if (knob[K_PROP] != NULL &&
        (k->prop = parse_choice(knob[K_PROP], "propagation", prop_names, prop_strs, NPROPS,
                                "none, forward, ac3, singles, hidden, locked, gac, sac")) < 0)
        return -1;
    if (knob[K_ORDER] != NULL &&
        (k->order = parse_choice(knob[K_ORDER], "order", order_names, order_strs, NORDERS,
                                 "mrv, first, mrv-degree, dom-wdeg")) < 0)
        return -1;
    if (knob[K_VALUES] != NULL &&
        (k->values = parse_choice(knob[K_VALUES], "values", values_names, values_strs, NVALUES,
                                  "natural, lcv")) < 0)
        return -1;
    if (knob[K_BACKJUMP] != NULL) { /* a knob of the reference's search only */
        const int backjump = PyObject_IsTrue(knob[K_BACKJUMP]);
        if (backjump < 0)
            return -1;
        if (backjump) {
            PyErr_SetString(PyExc_ValueError, MSG_BACKJUMP);
            return -1;
        }
    }
    if (k->order == ORDER_WDEG && k->prop > PROP_LOCKED) {
        /* its blame follows the contradictions of these levels, met in the reference's order */
        PyErr_SetString(PyExc_ValueError, MSG_WDEG_LEVELS);
        return -1;
    }
    long long n;
    int huge;
    k->limit = 1;
    if (knob[K_LIMIT] != NULL && knob[K_LIMIT] != Py_None) {
        if (read_count(knob[K_LIMIT], "limit", "an int or None", 1, &n, &huge) < 0)
            return -1;
        k->limit = huge ? 0 : n; /* beyond 2**63: as good as no limit */
    } else if (knob[K_LIMIT] == Py_None) {
        k->limit = 0;
    }
    PyObject *timeout_obj = knob[K_TIMEOUT];
    if (timeout_obj != NULL && timeout_obj != Py_None) {
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
    k->keep = 1;
    if (knob[K_KEEP] != NULL) {
        if (read_count(knob[K_KEEP], "keep", "an int", 0, &n, &huge) < 0)
            return -1;
        k->keep = (huge || n > PY_SSIZE_T_MAX) ? PY_SSIZE_T_MAX : (Py_ssize_t)n;
    }
    k->max_guesses = ULLONG_MAX;
    if (knob[K_MAX_GUESSES] != NULL && knob[K_MAX_GUESSES] != Py_None) {
        /* the reference's check_budget message, word for word */
        if (read_count(knob[K_MAX_GUESSES], "max_guesses", "an int or None", 0, &n, &huge) < 0)
            return -1;
        if (!huge) /* beyond 2**63: as good as no budget */
            k->max_guesses = (unsigned long long)n;
    }
    if (knob[K_TRACE] != NULL && knob[K_TRACE] != Py_None) {
        /* the most placements to record: beyond them the record stops (the search goes
         * on) and the answer's steps are None, so memory is bounded by the knob */
        if (read_count(knob[K_TRACE], "trace", "an int", 0, &n, &huge) < 0)
            return -1;
        k->trace = huge ? PY_SSIZE_T_MAX / 4 : (Py_ssize_t)n;
    }
    return 0;
}

/* search's arguments (METH_FASTCALL | METH_KEYWORDS): tables and givens by position, the
 * knobs by name into knob[] (NULL where absent). 0, or -1 with a TypeError worded as
 * Python's own. */
static int
unpack_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **knob)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError,
                     "search() takes 2 positional arguments (tables, givens) but %zd were given",
                     nargs);
        return -1;
    }
    for (int i = 0; i < NKNOBS; i++)
        knob[i] = NULL;
    const Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int j = 0;
        while (j < NKNOBS && key != knob_strs[j])
            j++;
        if (j == NKNOBS) { /* not interned (built at run time): by its characters */
            j = 0;
            while (j < NKNOBS && PyUnicode_CompareWithASCIIString(key, knob_names[j]) != 0)
                j++;
        }
        if (j == NKNOBS) {
            PyErr_Format(PyExc_TypeError, "search() got an unexpected keyword argument '%U'",
                         key);
            return -1;
        }
        knob[j] = args[nargs + k];
    }
    if (!PyObject_TypeCheck(args[0], &TablesType)) {
        PyErr_Format(PyExc_TypeError, "search() argument 1 must be %s, not %.100s",
                     TablesType.tp_name, Py_TYPE(args[0])->tp_name);
        return -1;
    }
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
    const int hidden = k->prop == PROP_HIDDEN || k->prop == PROP_LOCKED;
    size_t nwhere = hidden ? (size_t)t->nunits * (size_t)t->size : 0;
    /* one block per state, a multiple of 64 bytes (run_search copies one per guess) */
    size_t stride = sizeof(uint32_t) * ((size_t)ncells + nwhere) + (size_t)ncells;
    stride = (stride + 63) & ~(size_t)63;
    size_t bytes_states = stride * nstates;
#if HAVE_BOARD9
    if (t->board9 && hidden && bytes_states < board9_states_bytes())
        bytes_states = board9_states_bytes(); /* run_board9's states, 32-byte aligned */
#endif
    size_t bytes_frames = sizeof(Frame) * nstates;
    /* one entry more than the bound: propagate_hidden writes one past it unqueued */
    size_t bytes_queue = (sizeof(int32_t) + sizeof(uint32_t)) * (qcap + 1);
    size_t bytes_cages = (sizeof(int32_t) + 1) * (size_t)t->ncages;
    /* propagate_hidden's noted slots, per placed cell: its units' places of its other
     * values, and each peer's other units once (writes one past the count) */
    size_t nsusp = 2 * (size_t)t->nunits * (size_t)t->size + 1;
    /* ac3's arcs (each peer pair, both ways), gac's units to filter, sac's probe state */
    size_t narcs = k->prop == PROP_AC3 ? (size_t)t->peer_start[ncells] : 0;
    size_t nudirty = k->prop >= PROP_GAC ? (size_t)t->nunits : 0;
    size_t nprobe = k->prop == PROP_SAC ? (size_t)ncells : 0;
    size_t bytes_cp = (2 * sizeof(int32_t) + 1) * narcs + (sizeof(int32_t) + 1) * nudirty +
                      (sizeof(uint32_t) + 1) * nprobe;
    /* dom-wdeg: each constraint's weight and unplaced cells; the reference's dirty sets */
    size_t ncons = (size_t)t->nunits + (size_t)t->ncages;
    size_t bytes_wdeg = (sizeof(uint32_t) + sizeof(int32_t) + 1) * ncons;
    size_t bytes_rules = (sizeof(int32_t) + 1) * (size_t)t->nrules;
    memset(a, 0, sizeof *a);
    a->block = arena_alloc(bytes_states + bytes_frames + bytes_queue + bytes_cages +
                               sizeof(int32_t) * nsusp + bytes_cp + bytes_wdeg + bytes_rules + 1,
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
    a->x.cages.list = (int32_t *)p;
    p += sizeof(int32_t) * (size_t)t->ncages;
    a->x.arcq = (int32_t *)p;
    p += 2 * sizeof(int32_t) * narcs;
    a->x.units.list = (int32_t *)p;
    p += sizeof(int32_t) * nudirty;
    a->x.weights = (uint32_t *)p;
    p += sizeof(uint32_t) * ncons;
    a->x.live = (int32_t *)p;
    p += sizeof(int32_t) * ncons;
    a->x.rules.list = (int32_t *)p;
    p += sizeof(int32_t) * (size_t)t->nrules;
    a->x.probe = (uint32_t *)p; /* masks, then placed: the last 4-byte items */
    p += (sizeof(uint32_t) + 1) * nprobe;
    a->x.arcin = (uint8_t *)p;
    memset(p, 0, narcs);
    p += narcs;
    a->x.units.in = (uint8_t *)p;
    memset(p, 0, nudirty);
    p += nudirty;
    a->x.narcs = narcs;
    a->x.cages.in = (uint8_t *)p;
    memset(a->x.cages.in, 0, (size_t)t->ncages);
    a->x.dirty = (uint8_t *)p + t->ncages; /* units, then cages: run_search clears them */
    a->x.rules.in = a->x.dirty + ncons;
    memset(a->x.rules.in, 0, (size_t)t->nrules);

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
    x->pick9 = x->mrv && x->floor == 2 && t->size >= 2 && t->size <= 9 && !t->ncages &&
               !t->unary;
    x->qcap = qcap;
    x->nwhere = nwhere;
    x->wdeg = k->order == ORDER_WDEG;
    x->lcv = k->values == 1;
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
 * r keeps its solutions buffer from one run to the next (zeroed before the first).
 * *clock: the time it starts (now_ns), set to the time it ends, which is the next
 * search's start: one clock read a puzzle (a hard puzzle's search takes about a
 * microsecond, a read of the clock a fortieth of that).
 * Returns 0 on an internal error. */
static int
arena_run(Arena *a, const Knobs *k, const uint8_t *givens, const uint32_t *cands, Run *r,
          unsigned long epoch, PyThreadState **poll, int64_t *clock)
{
    /* The grids kept by the last run's buffer serve again: no allocation per puzzle. */
    uint8_t *solutions = r->solutions;
    const Py_ssize_t solcap = r->solcap;
    int32_t *trace = r->trace;
    const Py_ssize_t tracecap = r->tracecap;
    memset(r, 0, sizeof *r);
    r->solutions = solutions;
    r->solcap = solcap;
    r->trace = trace;
    r->tracecap = tracecap;
    r->tracing = k->trace > 0;
    r->tracemax = 3 * k->trace;
    r->givens = givens;
    r->cands = cands;
    r->limit = k->limit;
    r->keep = k->keep;
    const int64_t start = *clock;
    r->has_deadline = k->has_timeout;
    r->deadline_ns = start + k->timeout_ns;
    r->epoch = epoch;
    r->poll = *poll;
    r->poll_ns = start + POLL_NS;
    r->max_guesses = k->max_guesses;
    a->x.overflow = 0;
    int ok = run_search(&a->x, r, a->states, a->stride, a->stack);
    r->elapsed_ns = (*clock = now_ns()) - start;
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

/* The givens of k puzzles, read and checked (every value in 0..n) before any search. */
typedef struct {
    const uint8_t *values; /* k * ncells values: the buffer's, or a copy */
    Py_ssize_t count;      /* k */
    uint8_t *copy;         /* values when copied (else NULL): PyMem_Raw, or the caller's */
    Py_buffer view;        /* the buffer read, when view.obj is set */
} Givens;

static void
release_givens(Givens *in, uint8_t *local)
{
    if (in->copy != local)
        PyMem_RawFree(in->copy);
    in->copy = NULL;
    if (in->view.obj != NULL)
        PyBuffer_Release(&in->view);
}

/* Room for the values of k puzzles: the caller's `local` when they fit. */
static uint8_t *
givens_room(Givens *in, size_t bytes, uint8_t *local, size_t nlocal)
{
    in->copy = bytes <= nlocal ? local : PyMem_RawMalloc(bytes ? bytes : 1);
    if (in->copy == NULL)
        PyErr_NoMemory();
    return in->copy;
}

/*
 * search's givens: a buffer of bytes (bytes, or a C-contiguous uint8 array), or else a
 * sequence of ints (a list or tuple of one puzzle's givens, read without building a
 * bytes object first); n*n values a puzzle, each in 0..n, the first bad one named by
 * puzzle and cell. A writable buffer (a numpy array) is copied as it is checked: another
 * thread could change it while the search runs without the GIL. 0, or -1 with an
 * exception set (and nothing to release).
 */
static int
read_givens(PyObject *obj, const TablesObject *t, Givens *in, uint8_t *local, size_t nlocal)
{
    const int ncells = t->ncells;
    memset(in, 0, sizeof *in);
    if (PyObject_CheckBuffer(obj)) {
        if (PyObject_GetBuffer(obj, &in->view, PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        const Py_buffer *v = &in->view;
        if (v->itemsize != 1 || v->len % ncells != 0) {
            PyErr_Format(PyExc_ValueError,
                         "givens must be bytes of %d values a puzzle, got %zd bytes of %zd",
                         ncells, v->len, v->itemsize);
            goto fail;
        }
        in->count = v->len / ncells;
        in->values = v->buf;
        if (!v->readonly) {
            if (givens_room(in, (size_t)v->len, local, nlocal) == NULL)
                goto fail;
            memcpy(in->copy, v->buf, (size_t)v->len);
            in->values = in->copy;
        }
        /* One pass without an early exit (the compiler vectorises it); the first bad
         * value is looked for only when there is one. */
        const uint8_t *values = in->values, size = (uint8_t)t->size;
        uint8_t over = 0;
        for (Py_ssize_t i = 0; i < v->len; i++)
            over |= values[i] > size;
        for (Py_ssize_t i = 0; over && i < v->len; i++)
            if (values[i] > size) {
                PyErr_Format(PyExc_ValueError, "puzzle %zd: cell %zd: %d is outside 0..%d",
                             i / ncells, i % ncells, values[i], t->size);
                goto fail;
            }
    } else {
        PyObject *seq = PyUnicode_Check(obj) /* a str is a sequence, of str */
                            ? NULL
                            : PySequence_Fast(obj, "givens must be bytes or a sequence of ints");
        if (seq == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError,
                                "givens must be bytes or a sequence of ints, not str");
            return -1;
        }
        const Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
        PyObject **items = PySequence_Fast_ITEMS(seq);
        if (len % ncells != 0) {
            PyErr_Format(PyExc_ValueError, "givens must be %d values a puzzle, got %zd", ncells,
                         len);
            Py_DECREF(seq);
            goto fail;
        }
        in->count = len / ncells;
        uint8_t *values = givens_room(in, (size_t)len, local, nlocal);
        for (Py_ssize_t i = 0; values != NULL && i < len; i++) {
            PyObject *item = items[i];
            if (!PyLong_Check(item) || PyBool_Check(item)) {
                PyErr_Format(PyExc_TypeError,
                             "puzzle %zd: cell %zd: a given must be an int, not %.100s",
                             i / ncells, i % ncells, Py_TYPE(item)->tp_name);
                values = NULL;
                break;
            }
            int overflow = 0;
            const long v = PyLong_AsLongAndOverflow(item, &overflow);
            if (overflow || v < 0 || v > t->size) {
                PyErr_Format(PyExc_ValueError, "puzzle %zd: cell %zd: %R is outside 0..%d",
                             i / ncells, i % ncells, item, t->size);
                values = NULL;
                break;
            }
            values[i] = (uint8_t)v;
        }
        Py_DECREF(seq);
        if (values == NULL)
            goto fail;
        in->values = values;
    }
    return 0;
fail:
    release_givens(in, local);
    return -1;
}

/*
 * search's candidates: None, or a C-contiguous buffer of uint32 masks (format I, or L of
 * 4 bytes), n*n a puzzle for as many puzzles as the givens, no bit above n. Copied (the
 * search runs without the GIL) into *out (PyMem_Raw, NULL for None). 0, or -1 with a
 * TypeError or ValueError naming what is wrong (the first bad mask by puzzle and cell).
 */
static int
read_candidates(PyObject *obj, const TablesObject *t, Py_ssize_t count, uint32_t **out)
{
    *out = NULL;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "candidates must be a buffer of uint32 masks or None, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *f = v.format == NULL ? "B" : v.format;
    if (*f == '=' || *f == '<' || *f == '@')
        f++;
    if (v.itemsize != 4 || (strcmp(f, "I") != 0 && strcmp(f, "L") != 0)) {
        PyErr_Format(PyExc_TypeError,
                     "candidates must be uint32 masks, got items of format '%s' and %zd bytes",
                     v.format == NULL ? "B" : v.format, v.itemsize);
        PyBuffer_Release(&v);
        return -1;
    }
    const Py_ssize_t want = count * t->ncells;
    if (v.len / 4 != want) {
        PyErr_Format(PyExc_ValueError,
                     "candidates must be %d masks a puzzle for %zd puzzles, got %zd", t->ncells,
                     count, v.len / 4);
        PyBuffer_Release(&v);
        return -1;
    }
    uint32_t *masks = PyMem_RawMalloc(v.len ? (size_t)v.len : 1);
    if (masks == NULL) {
        PyBuffer_Release(&v);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(masks, v.buf, (size_t)v.len);
    PyBuffer_Release(&v);
    for (Py_ssize_t i = 0; i < want; i++)
        if (masks[i] & ~t->full) {
            PyErr_Format(PyExc_ValueError,
                         "puzzle %zd: cell %zd: candidates 0x%x go beyond 1..%d",
                         i / t->ncells, i % t->ncells, (unsigned int)masks[i], t->size);
            PyMem_RawFree(masks);
            return -1;
        }
    *out = masks;
    return 0;
}

/* search's int64 counters for each puzzle, in this order (native/reference.py COUNTERS). */
enum { C_COUNT, C_FLAGS, C_NODES, C_GUESSES, C_BACKTRACKS, C_NS, C_KEPT, NCOUNTERS };
/* Bits of the flags counter (reference.py COMPLETE, TIMED_OUT, BUDGET_SPENT). */
enum { F_COMPLETE = 1, F_TIMED_OUT = 2, F_BUDGET_SPENT = 4 };

/* Append a run's kept grids to the output's (without the GIL); 0 when out of memory. */
static int
append_grids(uint8_t **buf, size_t *len, size_t *cap, const Run *r, int ncells)
{
    const size_t bytes = (size_t)r->nsolutions * (size_t)ncells;
    if (*len + bytes > *cap) {
        size_t want = *cap * 2 > *len + bytes ? *cap * 2 : *len + bytes;
        uint8_t *grown = PyMem_RawRealloc(*buf, want);
        if (grown == NULL)
            return 0;
        *buf = grown;
        *cap = want;
    }
    if (bytes)
        memcpy(*buf + *len, r->solutions, bytes);
    *len += bytes;
    return 1;
}

static PyObject *
core_search(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    PyObject *knob[NKNOBS];
    Knobs k;
    if (unpack_args(args, nargs, kwnames, knob) < 0 || parse_knobs(knob, &k) < 0)
        return NULL;
    PyObject *tables_obj = args[0];
    const TablesObject *t = (const TablesObject *)tables_obj;
    if (k.order == ORDER_WDEG && t->unary != NULL) {
        /* wdeg_place propagates no rule, and a rule's contradictions raise no weight */
        PyErr_SetString(PyExc_ValueError, MSG_WDEG_RULES);
        return NULL;
    }
    const int ncells = t->ncells;
    PyObject *counters = NULL, *out = NULL;
    uint8_t local[MAX_SIZE * MAX_SIZE], *grids = NULL;
    size_t grids_len = 0, grids_cap = 0;
    Run r = {0};
    Arena a = {0};
    Givens in;
    uint32_t *cands = NULL;
    if (read_givens(args[1], t, &in, local, sizeof local) < 0)
        return NULL;
    const Py_ssize_t n = in.count;
    const uint8_t *givens = in.values;
    if (k.trace && n != 1) {
        PyErr_Format(PyExc_ValueError, "trace takes one puzzle, got %zd", n);
        goto done;
    }
    if (read_candidates(knob[K_CANDIDATES], t, n, &cands) < 0)
        goto done;
    if (n > PY_SSIZE_T_MAX / (Py_ssize_t)(NCOUNTERS * sizeof(int64_t))) {
        PyErr_NoMemory();
        goto done;
    }
    counters = PyBytes_FromStringAndSize(NULL, n * NCOUNTERS * (Py_ssize_t)sizeof(int64_t));
    if (counters == NULL)
        goto done;
    if (n && k.keep) { /* room for one grid a puzzle, the common case; grown if need be */
        grids_cap = (size_t)n * (size_t)ncells;
        if ((grids = PyMem_RawMalloc(grids_cap)) == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (arena_init(&a, t, &k) < 0)
        goto done;
    int64_t *cnt = (int64_t *)PyBytes_AS_STRING(counters);
    int ok = 1, nomem = 0, stopped = 0, main_thread;
    const unsigned long epoch = __atomic_load_n(&core_epoch, __ATOMIC_RELAXED);
    Py_INCREF(tables_obj); /* the tables outlive the search, GIL or not */
    PyThreadState *ts = save_thread(&main_thread);
    PyThreadState *poll = main_thread ? ts : NULL;
    int64_t clock = now_ns();
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!arena_run(&a, &k, givens + (size_t)i * ncells,
                       cands == NULL ? NULL : cands + (size_t)i * ncells, &r, epoch, &poll,
                       &clock)) {
            ok = 0;
            break;
        }
        if (r.interrupted) {
            stopped = 1;
            break;
        }
        if (r.nomem || !append_grids(&grids, &grids_len, &grids_cap, &r, ncells)) {
            nomem = 1;
            break;
        }
        int64_t *c = cnt + (size_t)i * NCOUNTERS;
        c[C_COUNT] = (int64_t)r.count;
        c[C_FLAGS] = (r.complete ? F_COMPLETE : 0) | (r.timed_out ? F_TIMED_OUT : 0) |
                     (r.budget_spent ? F_BUDGET_SPENT : 0);
        c[C_NODES] = (int64_t)r.nodes;
        c[C_GUESSES] = (int64_t)r.guesses;
        c[C_BACKTRACKS] = (int64_t)r.backtracks;
        c[C_NS] = r.elapsed_ns;
        c[C_KEPT] = (int64_t)r.nsolutions;
    }
    PyEval_RestoreThread(ts);
    Py_DECREF(tables_obj);
    if (!ok) {
        run_error(&r);
    } else if (nomem) {
        PyErr_NoMemory();
    } else if (stopped) {
        interrupted_error();
    } else {
        PyObject *sols = PyBytes_FromStringAndSize((const char *)grids, (Py_ssize_t)grids_len);
        PyObject *steps = !k.trace      ? NULL
                          : r.trace_over ? Py_NewRef(Py_None)
                                         : PyBytes_FromStringAndSize(
                                               (const char *)r.trace,
                                               r.ntrace * (Py_ssize_t)sizeof(int32_t));
        if (sols != NULL && (!k.trace || steps != NULL))
            out = k.trace ? PyTuple_Pack(3, sols, counters, steps) : PyTuple_Pack(2, sols, counters);
        Py_XDECREF(sols);
        Py_XDECREF(steps);
    }
done:
    PyMem_RawFree(cands);
    PyMem_RawFree(r.solutions);
    PyMem_RawFree(r.trace);
    PyMem_RawFree(grids);
    arena_release(&a);
    Py_XDECREF(counters);
    release_givens(&in, local);
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
     "search(tables, givens, /, *, propagation='hidden', order='mrv', limit=1, timeout=None, "
     "keep=1, max_guesses=None, candidates=None, values='natural', backjump=False, trace=0)\n--\n\n"
     "Search k grids of the tables' shape, one after the other without the GIL (see "
     "sudokulab.native.reference; one puzzle is k = 1). givens: a buffer (bytes, or a "
     "C-contiguous uint8 array) of n*n values in 0..n per puzzle, or a sequence of ints "
     "(a list or tuple, read as they are: no bytes object to build first for one "
     "puzzle). propagation: none, "
     "forward, ac3, singles, hidden, locked, gac or sac; order: mrv, first, mrv-degree or "
     "dom-wdeg (the general engine, under none to locked, without rules); values: natural (ascending) or lcv "
     "(least constraining value first; the general engine); limit: "
     "solutions to count per puzzle, an int >= 1 or None; timeout: seconds per puzzle "
     "from its own start, or None; keep: solution grids to keep per puzzle; max_guesses: "
     "the guess budget per puzzle, an int >= 0 or None; candidates: None, or a buffer of "
     "uint32 masks (bit v-1 for value v), n*n per puzzle as the givens: each cell starts "
     "from its pencil marks (the general engine runs such a search); backjump: False only "
     "(the reference's search); trace: N > 0 records every placement tried, up to N of "
     "them (one puzzle only). Returns (solutions, counters): "
     "bytes holding each puzzle's kept grids (n*n values each, in the order found), "
     "puzzle after puzzle; and bytes of 7 native int64 per puzzle: count, flags (1 "
     "complete, 2 timed out, 4 budget spent), nodes, guesses, backtracks, search "
     "nanoseconds (its own clock) and kept (its grids in solutions); with trace, a third: "
     "bytes of native int32 triples (depth from 1, cell, value), one per placement tried "
     "in order, or None when the search tried more than N."},
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
    for (int i = 0; i < NPROPS; i++)
        if (prop_strs[i] == NULL &&
            (prop_strs[i] = PyUnicode_InternFromString(prop_names[i])) == NULL)
            return NULL;
    for (int i = 0; i < NORDERS; i++)
        if (order_strs[i] == NULL &&
            (order_strs[i] = PyUnicode_InternFromString(order_names[i])) == NULL)
            return NULL;
    for (int i = 0; i < NVALUES; i++)
        if (values_strs[i] == NULL &&
            (values_strs[i] = PyUnicode_InternFromString(values_names[i])) == NULL)
            return NULL;
    for (int i = 0; i < NKNOBS; i++)
        if (knob_strs[i] == NULL &&
            (knob_strs[i] = PyUnicode_InternFromString(knob_names[i])) == NULL)
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
    if (PyModule_AddIntConstant(m, "BITBOARD", b9_cpu) < 0 ||
        PyModule_AddIntConstant(m, "GAC_AVX512", b9_cpu && board9_gac_avx512()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "MAX_SIZE", MAX_SIZE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

