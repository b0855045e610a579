/*
 * The DRAT checker of sudokulab.certify.drat, compiled: forward reverse unit propagation
 * with deletions, over watched literals, the same semantics as the Python checker (a test
 * compares their verdicts). It shares no code with any solver of the project.
 *
 * check(cnf: bytes, proof: bytes) -> (accepted, lemmas, deletions, failed, why) or None
 *   cnf: DIMACS text; proof: DRAT text or drat-trim's binary form. None when either does
 *   not read as the Python reader reads it (the caller then has that reader say why).
 *   why: 0 accepted, 1 the lemma at `failed` (a text line, or a binary step) does not
 *   follow by unit propagation, 2 the proof ends without the empty clause.
 *
 * A literal l is index 2l when positive, 2(-l) + 1 when negative: its negation is index ^ 1.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t *a;
    int32_t n, cap;
} Vec;

static int
vec_push(Vec *v, int32_t x)
{
    if (v->n == v->cap) {
        int32_t cap = v->cap ? v->cap * 2 : 4;
        int32_t *grown = realloc(v->a, (size_t)cap * sizeof(int32_t));
        if (grown == NULL)
            return 0;
        v->a = grown;
        v->cap = cap;
    }
    v->a[v->n++] = x;
    return 1;
}

/* A step read: its literals in `lits` from `start` (0-terminated there), where it was. */
typedef struct {
    Vec lits;     /* every clause and step, each ending with 0 */
    Vec start;    /* where each begins in lits */
    Vec where;    /* the proof's steps: line (text) or step (binary) */
    Vec deleted;  /* the proof's steps: 1 for a deletion */
    int32_t variables, header_clauses, max_var;
} Input;

/* Read a signed decimal at *p (after blanks); 0 when none. */
static int
read_int(const char **p, const char *end, long *out)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
        s++;
    if (s == end || *s == '\n')
        return 0;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (s == end || *s < '0' || *s > '9')
        return -1;
    long v = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > 0x3FFFFFFF)
            return -1;
        s++;
    }
    if (s < end && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
        return -1;
    *p = s;
    *out = neg ? -v : v;
    return 1;
}

/* The DIMACS text: 0, or -1 when it does not read. */
static int
read_cnf(const char *s, const char *end, Input *in)
{
    int header = 0, open = 0;
    int32_t clauses = 0;
    while (s < end) {
        const char *eol = memchr(s, '\n', (size_t)(end - s));
        if (eol == NULL)
            eol = end;
        const char *p = s;
        while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p == eol || *p == 'c' || *p == '%') {
            s = eol + 1;
            continue;
        }
        if (*p == 'p' && p + 1 < eol && (p[1] == ' ' || p[1] == '\t')) {
            long v, c;
            p++;
            while (p < eol && (*p == ' ' || *p == '\t'))
                p++;
            if (header || eol - p < 3 || memcmp(p, "cnf", 3) != 0)
                return -1;
            p += 3;
            if (read_int(&p, eol, &v) != 1 || read_int(&p, eol, &c) != 1 || v < 0 || c < 0)
                return -1;
            long extra;
            if (read_int(&p, eol, &extra) != 0)
                return -1;
            header = 1;
            in->variables = (int32_t)v;
            in->header_clauses = (int32_t)c;
            s = eol + 1;
            continue;
        }
        if (!header)
            return -1;
        long lit;
        int r;
        while ((r = read_int(&p, eol, &lit)) == 1) {
            if (labs(lit) > in->variables)
                return -1;
            if (!open) {
                if (!vec_push(&in->start, in->lits.n))
                    return -1;
                open = 1;
            }
            if (!vec_push(&in->lits, (int32_t)lit))
                return -1;
            if (lit == 0) {
                open = 0;
                clauses++;
            }
        }
        if (r < 0)
            return -1;
        s = eol + 1;
    }
    if (!header || open || clauses != in->header_clauses)
        return -1;
    in->max_var = in->variables;
    return 0;
}

static int
add_step(Input *in, int32_t where, int deleted)
{
    return vec_push(&in->start, in->lits.n) && vec_push(&in->where, where) &&
           vec_push(&in->deleted, deleted);
}

/* A DRAT text proof (a line per step, `d` for a deletion, `c` a comment): 0 or -1. */
static int
read_text(const char *s, const char *end, Input *in)
{
    int32_t line = 0;
    while (s < end) {
        const char *eol = memchr(s, '\n', (size_t)(end - s));
        if (eol == NULL)
            eol = end;
        line++;
        const char *p = s;
        while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p == eol || (*p == 'c' && (p + 1 == eol || p[1] == ' ' || p[1] == '\t'))) {
            s = eol + 1;
            continue;
        }
        int deleted = 0;
        if (*p == 'd' && (p + 1 == eol || p[1] == ' ' || p[1] == '\t')) {
            deleted = 1;
            p++;
        }
        if (!add_step(in, line, deleted))
            return -1;
        long lit = -1;
        int r, n = 0;
        while ((r = read_int(&p, eol, &lit)) == 1) {
            n++;
            if (!vec_push(&in->lits, (int32_t)lit))
                return -1;
            if (lit == 0)
                break;
            if (labs(lit) > in->max_var)
                in->max_var = (int32_t)labs(lit);
        }
        if (r < 0 || lit != 0 || n == 0 || read_int(&p, eol, &lit) != 0)
            return -1; /* one clause a line, ending with 0 */
        s = eol + 1;
    }
    return 0;
}

/* drat-trim's binary form: 'a' or 'd', then each literal 2|l| + (l < 0) in 7-bit groups. */
static int
read_binary(const unsigned char *s, const unsigned char *end, Input *in)
{
    int32_t step = 0;
    while (s < end) {
        step++;
        if (*s != 'a' && *s != 'd')
            return -1;
        if (!add_step(in, step, *s == 'd'))
            return -1;
        s++;
        for (;;) {
            uint64_t number = 0;
            int shift = 0;
            for (;;) {
                if (s == end || shift > 56)
                    return -1;
                unsigned char b = *s++;
                number |= (uint64_t)(b & 0x7F) << shift;
                shift += 7;
                if (!(b & 0x80))
                    break;
            }
            if (number > 0x7FFFFFFF)
                return -1;
            int32_t lit = number == 0 ? 0 : (number & 1) ? -(int32_t)(number >> 1)
                                                          : (int32_t)(number >> 1);
            if (!vec_push(&in->lits, lit))
                return -1;
            if (lit == 0)
                break;
            if (abs(lit) > in->max_var)
                in->max_var = abs(lit);
        }
    }
    return 0;
}

/* --- the clauses held ------------------------------------------------------------------ */

typedef struct {
    int8_t *value;   /* by literal index: 1 true, -1 false, 0 open */
    Vec *watches;    /* by literal index: the clauses watching it */
    Vec pool;        /* each held clause's literals (watched two first) */
    Vec cstart, clen;
    Vec sorted;      /* each held clause's literals, sorted: the deletions' key */
    Vec next;        /* the hash chain of each held clause */
    uint8_t *alive;
    int32_t alive_cap;
    int32_t *buckets;
    uint32_t mask;
    Vec trail;
    int conflict;
    int32_t *scratch; /* a clause's literal indices */
} Db;

static inline int32_t
index_of(int32_t lit)
{
    return lit > 0 ? 2 * lit : -2 * lit + 1;
}

static int
cmp_int(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static uint32_t
hash_of(const int32_t *lits, int n)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint32_t)lits[i]) * 16777619u;
    return h;
}

/* Sorted, duplicates dropped: the count left. */
static int
unique_sorted(int32_t *a, int n)
{
    qsort(a, (size_t)n, sizeof *a, cmp_int);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (k == 0 || a[k - 1] != a[i])
            a[k++] = a[i];
    return k;
}

static void
assign(Db *db, int32_t idx)
{
    db->value[idx] = 1;
    db->value[idx ^ 1] = -1;
    vec_push(&db->trail, idx); /* room reserved: the trail holds each literal once */
}

/* Unit propagation from trail[start] on: 1 at a conflict, -1 out of memory. */
static int
propagate(Db *db, int32_t start)
{
    int8_t *value = db->value;
    int32_t head = start;
    while (head < db->trail.n) {
        const int32_t falsified = db->trail.a[head++] ^ 1;
        Vec *w = &db->watches[falsified];
        int32_t kept = 0;
        for (int32_t i = 0; i < w->n; i++) {
            const int32_t number = w->a[i];
            if (!db->alive[number])
                continue;
            int32_t *c = db->pool.a + db->cstart.a[number];
            const int32_t len = db->clen.a[number];
            if (c[0] == falsified) {
                c[0] = c[1];
                c[1] = falsified;
            }
            const int32_t other = c[0];
            if (value[other] == 1) {
                w->a[kept++] = number;
                continue;
            }
            int moved = 0;
            for (int32_t k = 2; k < len; k++) {
                if (value[c[k]] != -1) {
                    c[1] = c[k];
                    c[k] = falsified;
                    if (!vec_push(&db->watches[c[1]], number))
                        return -1;
                    w = &db->watches[falsified]; /* never the list pushed to: c[1] differs */
                    moved = 1;
                    break;
                }
            }
            if (moved)
                continue;
            w->a[kept++] = number;
            if (value[other] == -1) {
                for (int32_t j = i + 1; j < w->n; j++)
                    w->a[kept++] = w->a[j];
                w->n = kept;
                return 1;
            }
            assign(db, other);
        }
        w->n = kept;
    }
    return 0;
}

/* Hold a clause (implied by those held): watch it, or assign its one open literal.
 * 0, or -1 out of memory. */
static int
add(Db *db, const int32_t *lits)
{
    if (db->conflict)
        return 0;
    int n = 0;
    for (const int32_t *p = lits; *p; p++)
        db->scratch[n++] = index_of(*p);
    n = unique_sorted(db->scratch, n);
    const int8_t *value = db->value;
    for (int i = 0; i < n; i++) {
        if (value[db->scratch[i]] == 1)
            return 0; /* true at the root */
        if (i && db->scratch[i] == (db->scratch[i - 1] ^ 1))
            return 0; /* a tautology: l and -l are neighbours once sorted */
    }
    int open = 0, last = -1;
    for (int i = 0; i < n; i++)
        if (value[db->scratch[i]] == 0) {
            open++;
            last = db->scratch[i];
        }
    if (!open) {
        db->conflict = 1;
        return 0;
    }
    if (open == 1) {
        const int32_t mark = db->trail.n;
        assign(db, last);
        const int r = propagate(db, mark);
        if (r < 0)
            return -1;
        db->conflict = r;
        return 0;
    }
    const int32_t number = db->cstart.n;
    if (!vec_push(&db->cstart, db->pool.n) || !vec_push(&db->clen, n))
        return -1;
    for (int pass = 0; pass < 2; pass++) /* the open literals first */
        for (int i = 0; i < n; i++)
            if ((value[db->scratch[i]] == 0) == (pass == 0) && !vec_push(&db->pool, db->scratch[i]))
                return -1;
    if (!vec_push(&db->sorted, db->pool.n)) /* where its sorted literals begin */
        return -1;
    for (int i = 0; i < n; i++)
        if (!vec_push(&db->pool, db->scratch[i]))
            return -1;
    if (number >= db->alive_cap) {
        int32_t cap = db->alive_cap ? db->alive_cap * 2 : 1024;
        uint8_t *grown = realloc(db->alive, (size_t)cap);
        if (grown == NULL)
            return -1;
        db->alive = grown;
        db->alive_cap = cap;
    }
    db->alive[number] = 1;
    const int32_t *c = db->pool.a + db->cstart.a[number];
    if (!vec_push(&db->watches[c[0]], number) || !vec_push(&db->watches[c[1]], number))
        return -1;
    const uint32_t b = hash_of(db->scratch, n) & db->mask;
    if (!vec_push(&db->next, db->buckets[b]))
        return -1;
    db->buckets[b] = number;
    return 0;
}

/* Stop watching the latest live copy of a clause: 1, or 0 when none is held. */
static int
delete(Db *db, const int32_t *lits)
{
    int n = 0;
    for (const int32_t *p = lits; *p; p++)
        db->scratch[n++] = index_of(*p);
    n = unique_sorted(db->scratch, n);
    const uint32_t b = hash_of(db->scratch, n) & db->mask;
    for (int32_t k = db->buckets[b]; k >= 0; k = db->next.a[k]) {
        if (!db->alive[k] || db->clen.a[k] != n)
            continue;
        if (memcmp(db->pool.a + db->sorted.a[k], db->scratch, (size_t)n * sizeof(int32_t)) == 0) {
            db->alive[k] = 0;
            return 1;
        }
    }
    return 0;
}

/* Whether assigning the negation of the clause and propagating reaches a conflict:
 * 1 or 0, -1 out of memory. */
static int
implies(Db *db, const int32_t *lits)
{
    if (db->conflict)
        return 1;
    const int32_t mark = db->trail.n;
    int found = 0;
    for (const int32_t *p = lits; *p; p++) {
        const int32_t idx = index_of(*p);
        if (db->value[idx] == 1) {
            found = 1;
            break;
        }
        if (db->value[idx] == 0)
            assign(db, idx ^ 1);
    }
    if (!found)
        found = propagate(db, mark);
    for (int32_t i = mark; i < db->trail.n; i++) {
        const int32_t idx = db->trail.a[i];
        db->value[idx] = db->value[idx ^ 1] = 0;
    }
    db->trail.n = mark;
    return found;
}

static void
db_free(Db *db, int32_t literals)
{
    if (db->watches != NULL)
        for (int32_t i = 0; i < literals; i++)
            free(db->watches[i].a);
    free(db->watches);
    free(db->value);
    free(db->pool.a);
    free(db->cstart.a);
    free(db->clen.a);
    free(db->sorted.a);
    free(db->next.a);
    free(db->alive);
    free(db->buckets);
    free(db->trail.a);
    free(db->scratch);
}

static PyObject *
rup_check(PyObject *module, PyObject *args)
{
    (void)module;
    Py_buffer cnf, proof;
    if (!PyArg_ParseTuple(args, "y*y*", &cnf, &proof))
        return NULL;
    Input in = {0};
    Db db = {0};
    PyObject *out = NULL;
    int32_t literals = 0;
    const char *c = cnf.buf, *pf = proof.buf;
    int bad = read_cnf(c, c + cnf.len, &in) < 0;
    const int32_t cnf_clauses = in.start.n;
    if (!bad) {
        const int binary = memchr(pf, 0, (size_t)proof.len) != NULL;
        bad = (binary ? read_binary((const unsigned char *)pf,
                                    (const unsigned char *)pf + proof.len, &in)
                      : read_text(pf, pf + proof.len, &in)) < 0;
    }
    if (bad) {
        out = Py_NewRef(Py_None);
        goto done;
    }
    {
        literals = 2 * in.max_var + 2;
        int32_t longest = 1;
        for (int32_t i = 0; i < in.start.n; i++) {
            const int32_t to = i + 1 < in.start.n ? in.start.a[i + 1] : in.lits.n;
            if (to - in.start.a[i] > longest)
                longest = to - in.start.a[i];
        }
        uint32_t buckets = 1024;
        while (buckets < 2u * (uint32_t)in.start.n && buckets < (1u << 30))
            buckets <<= 1;
        db.value = calloc((size_t)literals, 1);
        db.watches = calloc((size_t)literals, sizeof(Vec));
        db.scratch = malloc((size_t)longest * sizeof(int32_t));
        db.buckets = malloc((size_t)buckets * sizeof(int32_t));
        db.trail.a = malloc((size_t)literals * sizeof(int32_t));
        if (!db.value || !db.watches || !db.scratch || !db.buckets || !db.trail.a) {
            PyErr_NoMemory();
            goto done;
        }
        db.trail.cap = literals;
        db.mask = buckets - 1;
        memset(db.buckets, 0xFF, (size_t)buckets * sizeof(int32_t));
        for (int32_t i = 0; i < cnf_clauses; i++)
            if (add(&db, in.lits.a + in.start.a[i]) < 0) {
                PyErr_NoMemory();
                goto done;
            }
        long lemmas = 0, deletions = 0;
        int32_t failed = -1, why = 0;
        for (int32_t s = 0; s < in.where.n; s++) {
            if (db.conflict)
                break; /* the empty clause is derived: the rest cannot matter */
            const int32_t *lits = in.lits.a + in.start.a[cnf_clauses + s];
            if (in.deleted.a[s]) {
                deletions += delete(&db, lits);
                continue;
            }
            lemmas++;
            const int r = implies(&db, lits);
            if (r == 0) {
                failed = in.where.a[s];
                why = 1;
                break;
            }
            if (r < 0 || add(&db, lits) < 0) {
                PyErr_NoMemory();
                goto done;
            }
        }
        if (!why && !db.conflict)
            why = 2;
        out = Py_BuildValue("(Ollii)", why ? Py_False : Py_True, lemmas, deletions, failed, why);
    }
done:
    db_free(&db, literals);
    free(in.lits.a);
    free(in.start.a);
    free(in.where.a);
    free(in.deleted.a);
    PyBuffer_Release(&cnf);
    PyBuffer_Release(&proof);
    return out;
}

static PyMethodDef rup_methods[] = {
    {"check", rup_check, METH_VARARGS,
     "check(cnf, proof)\n--\n\n"
     "Check a DRAT proof (text or binary bytes) against a DIMACS CNF (bytes): (accepted, "
     "lemmas, deletions, failed, why), why 0 accepted, 1 the lemma at `failed` (line or "
     "step) does not follow, 2 no empty clause; None when either does not read."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef rup_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "sudokulab.certify._rup",
    .m_doc = "sudokulab.certify.drat's checker, compiled.",
    .m_size = -1,
    .m_methods = rup_methods,
};

PyMODINIT_FUNC
PyInit__rup(void)
{
    return PyModule_Create(&rup_module);
}
