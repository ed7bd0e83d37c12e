/* The compiled twin of the pure-Python native kernel (boggle_dafsa/solver/native.py,
 * whose Solver class has the same constructor, methods and results).
 *
 * A Solver is prepared once per (dictionary cells, shape's neighbour table, minimum
 * length, score table) and then searches grids given as one byte per cell (a face
 * code, see below). It finds the same words with the same first paths, in the same
 * order, as the Python kernel; it reads the dictionary's cells in place through the
 * buffer protocol and checks every index it follows against the cell count, so a
 * damaged or hostile file raises the error class it was given, never reads out of
 * bounds. The search itself touches no Python object, so batches run with the GIL
 * released.
 *
 * Face codes: 0..30 is a one-letter face whose letter has that bit in a state header;
 * 31 is a face that spells no word (a letter outside the alphabet); 32..255 are the
 * multi-letter faces (QU...) registered with set_face().
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FINAL_FLAG 0x80000000u
#define DEAD_CODE 31
#define FIRST_LONG_CODE 32
#define MAX_FACE_LETTERS 3
#define MAX_LETTERS 31

/* The bit count of a 32-bit word (the compiler turns this into popcnt when allowed). */
static inline unsigned popcount32(uint32_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_popcount(x);
#else
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
#endif
}

/* -- results of one grid ------------------------------------------------------------ */

typedef struct {
    uint32_t word;   /* offset of its letters (bit indices) in the word arena */
    uint32_t path;   /* offset of its cells in the path arena */
    uint32_t length; /* letters */
    uint32_t cells;  /* cells of the path */
    int64_t points;
} Found;

typedef struct {
    uint8_t *letters;
    size_t letters_used, letters_size;
    int32_t *cells;
    size_t cells_used, cells_size;
    Found *found;
    size_t found_used, found_size;
    uint32_t *table; /* open addressing: index + 1 into found, 0 = empty */
    size_t table_size;
    int64_t points;
} Results;

static void results_free(Results *r) {
    free(r->letters);
    free(r->cells);
    free(r->found);
    free(r->table);
    memset(r, 0, sizeof(*r));
}

static void results_clear(Results *r) {
    r->letters_used = r->cells_used = r->found_used = 0;
    r->points = 0;
    if (r->table) memset(r->table, 0, r->table_size * sizeof(uint32_t));
}

static int grow(void **buffer, size_t *size, size_t needed, size_t item) {
    if (needed <= *size) return 0;
    size_t size2 = *size ? *size : 64;
    while (size2 < needed) size2 *= 2;
    void *grown = realloc(*buffer, size2 * item);
    if (!grown) return -1;
    *buffer = grown;
    *size = size2;
    return 0;
}

static uint64_t hash_letters(const uint8_t *letters, uint32_t length) {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < length; i++) {
        h ^= letters[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

static int rehash(Results *r, size_t size) {
    uint32_t *table = calloc(size, sizeof(uint32_t));
    if (!table) return -1;
    for (size_t i = 0; i < r->found_used; i++) {
        Found *f = &r->found[i];
        size_t slot = hash_letters(r->letters + f->word, f->length) & (size - 1);
        while (table[slot]) slot = (slot + 1) & (size - 1);
        table[slot] = (uint32_t)(i + 1);
    }
    free(r->table);
    r->table = table;
    r->table_size = size;
    return 0;
}

/* Record `word` (length letters) with `path` (cells) unless already found: 0 or -1 (memory). */
static int record(Results *r, const uint8_t *word, uint32_t length, const int32_t *path, uint32_t cells,
                  int64_t points) {
    if ((r->found_used + 1) * 2 > r->table_size) {
        if (rehash(r, r->table_size ? r->table_size * 2 : 256) < 0) return -1;
    }
    uint64_t h = hash_letters(word, length);
    size_t mask = r->table_size - 1;
    size_t slot = h & mask;
    while (r->table[slot]) {
        Found *f = &r->found[r->table[slot] - 1];
        if (f->length == length && memcmp(r->letters + f->word, word, length) == 0) return 0;
        slot = (slot + 1) & mask;
    }
    if (r->found_used >= UINT32_MAX - 1 || r->letters_used + length >= UINT32_MAX ||
        r->cells_used + cells >= UINT32_MAX)
        return -1;
    if (grow((void **)&r->found, &r->found_size, r->found_used + 1, sizeof(Found)) < 0) return -1;
    if (grow((void **)&r->letters, &r->letters_size, r->letters_used + length, 1) < 0) return -1;
    if (grow((void **)&r->cells, &r->cells_size, r->cells_used + cells, sizeof(int32_t)) < 0) return -1;
    Found *f = &r->found[r->found_used];
    f->word = (uint32_t)r->letters_used;
    f->path = (uint32_t)r->cells_used;
    f->length = length;
    f->cells = cells;
    f->points = points;
    memcpy(r->letters + r->letters_used, word, length);
    memcpy(r->cells + r->cells_used, path, cells * sizeof(int32_t));
    r->letters_used += length;
    r->cells_used += cells;
    r->found_used++;
    r->table[slot] = (uint32_t)r->found_used;
    r->points += points;
    return 0;
}

/* -- the solver object --------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *cells;      /* exports the dictionary's cells (uint32, host order) */
    uint32_t root;
    uint32_t longest;     /* no word is longer: a longer path means a damaged file */
    int letter_count;
    Py_UCS4 letters[MAX_LETTERS];
    uint8_t rank[MAX_LETTERS]; /* order of each letter by code point, for sorting words */
    int ascii;            /* every letter is ASCII: words are built without a UCS4 copy */
    Py_ssize_t cell_count; /* cells of the grid */
    int32_t *neighbour_start; /* cell_count + 1 offsets into neighbour */
    int32_t *neighbour;
    uint32_t min_length;
    int64_t *points;      /* points by length; the last entry for longer words */
    Py_ssize_t point_count;
    PyObject *hit_type;
    int hit_is_plain_tuple; /* hit_type adds nothing to tuple's layout: filled in place */
    PyObject *error_type;
    PyObject *source;
    uint8_t face_length[256];
    uint8_t face_letters[256][MAX_FACE_LETTERS];
} Solver;

/* One level of the search: the cell visited, the automaton after its face, the next
 * neighbour to try. */
typedef struct {
    uint32_t state, head, length; /* the state after the path's faces, its header, letters so far */
    uint32_t position, end;       /* the next and the last-but-one entries of `order` to try */
    int32_t cell;
} Frame;

/* A neighbour to step onto: its cell and the bit of its face's first letter. */
typedef struct {
    int32_t cell;
    uint32_t bit;
} Step;

/* Scratch space of one search (one per call, so that threads share nothing). */
typedef struct {
    Py_ssize_t n;
    uint32_t *first;      /* first-letter bit of each cell's face (0: dead) */
    uint32_t *reach;      /* first-letter bits of each cell's live neighbours */
    int32_t *order_start; /* live neighbours, one-letter faces first, then longer ones */
    Step *order;
    uint8_t *used;
    int32_t *path;
    Frame *frames;
    uint8_t *word;
} Scratch;

static void scratch_free(Scratch *s) {
    free(s->first);
    free(s->reach);
    free(s->order_start);
    free(s->order);
    free(s->used);
    free(s->path);
    free(s->frames);
    free(s->word);
    memset(s, 0, sizeof(*s));
}

static int scratch_init(Scratch *s, const Solver *solver) {
    Py_ssize_t n = solver->cell_count;
    memset(s, 0, sizeof(*s));
    s->n = n;
    s->first = calloc(n, sizeof(uint32_t));
    s->reach = calloc(n, sizeof(uint32_t));
    s->order_start = calloc(n + 1, sizeof(int32_t));
    s->order = calloc(solver->neighbour_start[n] + 1, sizeof(Step));
    s->used = calloc(n, 1);
    s->path = calloc(n + 1, sizeof(int32_t));
    s->frames = calloc(n + 1, sizeof(Frame));
    s->word = calloc((size_t)n * MAX_FACE_LETTERS + 1, 1);
    if (!s->first || !s->reach || !s->order_start || !s->order || !s->used || !s->path || !s->frames ||
        !s->word) {
        scratch_free(s);
        return -1;
    }
    return 0;
}

enum { SEARCH_OK = 0, SEARCH_MEMORY = -1, SEARCH_DAMAGED = -2 };

/* Follow the letters of face `code` after its first, from `state` (reached by the
 * first): the state, or UINT32_MAX when no word continues so; *damaged is set when an
 * index points outside the cells. */
static inline uint32_t follow_rest(const Solver *solver, const uint32_t *cells, uint64_t count, uint32_t state,
                                   int code, int *damaged) {
    for (int i = 1; i < solver->face_length[code]; i++) {
        if (state >= count) {
            *damaged = 1;
            return UINT32_MAX;
        }
        uint32_t head = cells[state];
        uint32_t bit = 1u << solver->face_letters[code][i];
        if (!(head & bit)) return UINT32_MAX;
        uint64_t slot = (uint64_t)state + 1 + popcount32(head & (bit - 1));
        if (slot >= count) {
            *damaged = 1;
            return UINT32_MAX;
        }
        state = cells[slot];
    }
    return state;
}

static inline int64_t points_of(const Solver *solver, uint32_t length) {
    Py_ssize_t i = (Py_ssize_t)length < solver->point_count ? (Py_ssize_t)length : solver->point_count - 1;
    return solver->points[i];
}

/* Record the word spelled by the faces of path[0..cells) (length letters). */
static int record_path(const Solver *solver, const uint8_t *codes, Scratch *s, uint32_t cells, uint32_t length,
                       Results *r) {
    uint8_t *w = s->word;
    for (uint32_t i = 0; i < cells; i++) {
        int code = codes[s->path[i]];
        for (int j = 0; j < solver->face_length[code]; j++) *w++ = solver->face_letters[code][j];
    }
    return record(r, s->word, length, s->path, cells, points_of(solver, length));
}

/* The search of one grid (`codes`: a face code per cell) into `r`. Touches no Python object. */
static int search_grid(const Solver *solver, const uint32_t *cells, uint64_t count, const uint8_t *codes,
                       Scratch *s, Results *r) {
    Py_ssize_t n = solver->cell_count;
    const int32_t *nstart = solver->neighbour_start, *nb = solver->neighbour;
    const uint32_t min_length = solver->min_length, longest = solver->longest;
    uint32_t *first = s->first, *reach = s->reach;
    Step *order = s->order;
    int32_t *order_start = s->order_start, *path = s->path;
    uint8_t *used = s->used;
    Frame *frames = s->frames;
    results_clear(r);
    if ((uint64_t)solver->root >= count) return SEARCH_DAMAGED;
    int any_long = 0;
    for (Py_ssize_t c = 0; c < n; c++) {
        int code = codes[c];
        first[c] = (code == DEAD_CODE || solver->face_length[code] == 0) ? 0 : 1u << solver->face_letters[code][0];
        any_long |= code >= FIRST_LONG_CODE;
    }
    /* One-letter neighbours first, then longer faces, each in the table's order (as native.py). */
    int32_t k = 0;
    for (Py_ssize_t c = 0; c < n; c++) {
        uint32_t bits = 0;
        order_start[c] = k;
        for (int pass = 0; pass < 1 + any_long; pass++) {
            for (int32_t j = nstart[c]; j < nstart[c + 1]; j++) {
                int32_t other = nb[j];
                if (!first[other]) continue;
                if (any_long && (solver->face_length[codes[other]] > 1) != pass) continue;
                order[k].cell = other;
                order[k++].bit = first[other];
                bits |= first[other];
            }
        }
        reach[c] = bits;
        used[c] = 0;
    }
    order_start[n] = k;

    int damaged = 0;
    for (Py_ssize_t start = 0; start < n; start++) {
        uint32_t bit = first[start];
        if (!bit) continue;
        int code = codes[start];
        uint32_t state = solver->root;
        uint32_t head = cells[state];
        if (!(head & bit)) continue;
        uint64_t slot = (uint64_t)state + 1 + popcount32(head & (bit - 1));
        if (slot >= count) return SEARCH_DAMAGED;
        state = cells[slot];
        if (code >= FIRST_LONG_CODE) {
            state = follow_rest(solver, cells, count, state, code, &damaged);
            if (damaged) return SEARCH_DAMAGED;
            if (state == UINT32_MAX) continue;
        }
        if (state >= count) return SEARCH_DAMAGED;
        head = cells[state];
        uint32_t length = solver->face_length[code];
        path[0] = (int32_t)start;
        if ((head & FINAL_FLAG) && length >= min_length) {
            if (record_path(solver, codes, s, 1, length, r) < 0) return SEARCH_MEMORY;
        }
        if (!(head & reach[start])) continue;
        if (length > longest) return SEARCH_DAMAGED; /* a path longer than every word */

        /* An explicit stack: frames[depth] visits path[depth]. */
        Py_ssize_t depth = 0;
        Frame *f = &frames[0];
        f->state = state;
        f->head = head;
        f->length = length;
        f->position = (uint32_t)order_start[start];
        f->end = (uint32_t)order_start[start + 1];
        f->cell = (int32_t)start;
        used[start] = 1;
        for (;;) {
            if (f->position >= f->end) {
                used[f->cell] = 0;
                if (depth == 0) break;
                depth--;
                f--;
                continue;
            }
            const Step *step = &order[f->position++];
            bit = step->bit;
            if (!(f->head & bit)) continue;
            int32_t other = step->cell;
            if (used[other]) continue;
            slot = (uint64_t)f->state + 1 + popcount32(f->head & (bit - 1));
            if (slot >= count) return SEARCH_DAMAGED;
            uint32_t child = cells[slot];
            int other_code = codes[other];
            uint32_t longer = f->length + 1;
            if (other_code >= FIRST_LONG_CODE) {
                child = follow_rest(solver, cells, count, child, other_code, &damaged);
                if (damaged) return SEARCH_DAMAGED;
                if (child == UINT32_MAX) continue;
                longer = f->length + solver->face_length[other_code];
            }
            if (child >= count) return SEARCH_DAMAGED;
            uint32_t child_head = cells[child];
            path[depth + 1] = other;
            if ((child_head & FINAL_FLAG) && longer >= min_length) {
                if (record_path(solver, codes, s, (uint32_t)depth + 2, longer, r) < 0) return SEARCH_MEMORY;
            }
            if (child_head & reach[other]) {
                /* A path longer than every word: a cycle, or a lying header. The search
                 * is so bounded by the longest word, whatever the file says elsewhere. */
                if (longer > longest) return SEARCH_DAMAGED;
                depth++;
                f++;
                f->state = child;
                f->head = child_head;
                f->length = longer;
                f->position = (uint32_t)order_start[other];
                f->end = (uint32_t)order_start[other + 1];
                f->cell = other;
                used[other] = 1;
            }
        }
    }
    return SEARCH_OK;
}

/* -- ranking ------------------------------------------------------------------------- */

typedef struct {
    const Found *found;
    const uint8_t *letters;
    const uint8_t *rank;
} Ranked;

/* Score descending, length descending, then the words by code point (solver.sort_key). */
static int compare_ranked(const void *a, const void *b) {
    const Ranked *x = a, *y = b;
    if (x->found->points != y->found->points) return x->found->points > y->found->points ? -1 : 1;
    if (x->found->length != y->found->length) return x->found->length > y->found->length ? -1 : 1;
    for (uint32_t i = 0; i < x->found->length; i++) {
        uint8_t p = x->rank[x->letters[i]], q = y->rank[y->letters[i]];
        if (p != q) return p < q ? -1 : 1;
    }
    return 0;
}

static Ranked *rank_results(const Solver *solver, const Results *r) {
    Ranked *ranked = malloc((r->found_used ? r->found_used : 1) * sizeof(Ranked));
    if (!ranked) return NULL;
    for (size_t i = 0; i < r->found_used; i++) {
        ranked[i].found = &r->found[i];
        ranked[i].letters = r->letters + r->found[i].word;
        ranked[i].rank = solver->rank;
    }
    qsort(ranked, r->found_used, sizeof(Ranked), compare_ranked);
    return ranked;
}

/* -- Python objects from results ----------------------------------------------------- */

static PyObject *make_word(const Solver *solver, const uint8_t *letters, uint32_t length) {
    if (solver->ascii) {
        PyObject *word = PyUnicode_New(length, 127);
        if (!word) return NULL;
        Py_UCS1 *data = PyUnicode_1BYTE_DATA(word);
        for (uint32_t i = 0; i < length; i++) data[i] = (Py_UCS1)solver->letters[letters[i]];
        return word;
    }
    Py_UCS4 stack_buffer[64] = {0};
    Py_UCS4 *buffer = length <= 64 ? stack_buffer : PyMem_Malloc(length * sizeof(Py_UCS4));
    if (!buffer) return PyErr_NoMemory();
    for (uint32_t i = 0; i < length; i++) buffer[i] = solver->letters[letters[i]];
    PyObject *word = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buffer, length);
    if (buffer != stack_buffer) PyMem_Free(buffer);
    return word;
}

static PyObject *make_path(const int32_t *cells, uint32_t count) {
    PyObject *path = PyTuple_New(count);
    if (!path) return NULL;
    for (uint32_t i = 0; i < count; i++) {
        PyObject *cell = PyLong_FromLong(cells[i]);
        if (!cell) {
            Py_DECREF(path);
            return NULL;
        }
        PyTuple_SET_ITEM(path, i, cell);
    }
    /* Ints only: it can be in no reference cycle, so the collector need not visit it
     * (CPython would untrack it itself, at its next collection). */
    PyObject_GC_UnTrack(path);
    return path;
}

/* A Hit(word, score, path), built in place when Hit is a plain tuple subclass (a NamedTuple). */
static PyObject *make_hit(const Solver *solver, PyObject *word, int64_t points, PyObject *path) {
    PyObject *score = PyLong_FromLongLong(points);
    if (!score) {
        Py_DECREF(word);
        Py_DECREF(path);
        return NULL;
    }
    PyObject *hit;
    if (solver->hit_is_plain_tuple) {
        PyTypeObject *type = (PyTypeObject *)solver->hit_type;
        hit = type->tp_alloc(type, 3);
        if (hit) {
            PyTuple_SET_ITEM(hit, 0, word);
            PyTuple_SET_ITEM(hit, 1, score);
            PyTuple_SET_ITEM(hit, 2, path);
            /* A str, an int and a tuple of ints: no cycle can go through it either. */
            PyObject_GC_UnTrack(hit);
            return hit;
        }
    } else {
        hit = PyObject_CallFunctionObjArgs(solver->hit_type, word, score, path, NULL);
    }
    Py_DECREF(word);
    Py_DECREF(score);
    Py_DECREF(path);
    return hit;
}

/* {word: first path}, in the order found (what the Python kernel returns). */
static PyObject *results_dict(const Solver *solver, const Results *r) {
    PyObject *found = PyDict_New();
    if (!found) return NULL;
    for (size_t i = 0; i < r->found_used; i++) {
        const Found *f = &r->found[i];
        PyObject *word = make_word(solver, r->letters + f->word, f->length);
        PyObject *path = word ? make_path(r->cells + f->path, f->cells) : NULL;
        if (!path || PyDict_SetItem(found, word, path) < 0) {
            Py_XDECREF(word);
            Py_XDECREF(path);
            Py_DECREF(found);
            return NULL;
        }
        Py_DECREF(word);
        Py_DECREF(path);
    }
    return found;
}

enum { MODE_TOTALS = 0, MODE_WORDS = 1, MODE_HITS = 2, MODE_FOUND = 3 };

/* One grid's result in `mode`: (words, points); (points, [word...]) ranked; [Hit...] ranked; {word: path}. */
static PyObject *results_object(const Solver *solver, const Results *r, int mode) {
    if (mode == MODE_TOTALS) return Py_BuildValue("(nL)", (Py_ssize_t)r->found_used, (long long)r->points);
    if (mode == MODE_FOUND) return results_dict(solver, r);
    Ranked *ranked = rank_results(solver, r);
    if (!ranked) return PyErr_NoMemory();
    PyObject *list = PyList_New((Py_ssize_t)r->found_used);
    if (!list) {
        free(ranked);
        return NULL;
    }
    for (size_t i = 0; i < r->found_used; i++) {
        const Found *f = ranked[i].found;
        PyObject *item = make_word(solver, ranked[i].letters, f->length);
        if (item && mode == MODE_HITS) {
            PyObject *path = make_path(r->cells + f->path, f->cells);
            item = path ? make_hit(solver, item, f->points, path) : (Py_DECREF(item), NULL);
        }
        if (!item) {
            free(ranked);
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    free(ranked);
    if (mode == MODE_WORDS) {
        PyObject *pair = Py_BuildValue("(LN)", (long long)r->points, list);
        return pair;
    }
    return list;
}

/* -- methods --------------------------------------------------------------------------- */

static int raise_search_error(const Solver *solver, int status) {
    if (status == SEARCH_MEMORY) {
        PyErr_NoMemory();
    } else {
        /* The message of the Python twin, word for word. */
        PyErr_Format(solver->error_type, "%U: damaged dictionary (run `boggle-dafsa verify`)", solver->source);
    }
    return -1;
}

/* The cells as uint32 from the buffer (its length in bytes rounded down to whole cells). */
static int get_cells(const Solver *solver, Py_buffer *view, uint64_t *count) {
    if (PyObject_GetBuffer(solver->cells, view, PyBUF_SIMPLE) < 0) return -1;
    *count = (uint64_t)view->len / 4;
    if (((uintptr_t)view->buf & 3) != 0) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "the cells are not aligned on 4 bytes");
        return -1;
    }
    return 0;
}

static int check_codes(const Solver *solver, Py_buffer *codes, Py_ssize_t *grids) {
    if (solver->cell_count == 0 || codes->len % solver->cell_count != 0) {
        PyErr_Format(PyExc_ValueError, "%zd face codes are not whole grids of %zd cells", codes->len,
                     solver->cell_count);
        return -1;
    }
    *grids = codes->len / solver->cell_count;
    const uint8_t *c = codes->buf;
    for (Py_ssize_t i = 0; i < codes->len; i++) {
        if (c[i] != DEAD_CODE && solver->face_length[c[i]] == 0) {
            PyErr_Format(PyExc_ValueError, "face code %d at %zd is not registered", c[i], i);
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(solve_many_doc,
"solve_many(codes, mode=2, threads=1) -> list\n\n"
"Search each grid of ``codes`` (a bytes-like object, one face code per cell, grid after\n"
"grid), with the GIL released. ``mode``: 0 gives (words, points) per grid; 1 gives\n"
"(points, [word, ...]) ranked; 2 gives [Hit, ...] ranked; 3 gives {word: first path}.");

static PyObject *Solver_solve_many(Solver *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"codes", "mode", NULL};
    Py_buffer codes;
    int mode = MODE_HITS;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|i", keywords, &codes, &mode)) return NULL;
    if (mode < MODE_TOTALS || mode > MODE_FOUND) {
        PyBuffer_Release(&codes);
        PyErr_SetString(PyExc_ValueError, "mode must be 0, 1, 2 or 3");
        return NULL;
    }
    Py_ssize_t grids = 0;
    if (check_codes(self, &codes, &grids) < 0) {
        PyBuffer_Release(&codes);
        return NULL;
    }
    Py_buffer view;
    uint64_t count;
    if (get_cells(self, &view, &count) < 0) {
        PyBuffer_Release(&codes);
        return NULL;
    }
    PyObject *out = PyList_New(grids);
    Scratch scratch;
    Results *results = NULL;
    int status = SEARCH_OK;
    if (!out) goto done;
    if (scratch_init(&scratch, self) < 0) {
        Py_CLEAR(out);
        PyErr_NoMemory();
        goto done;
    }
    /* In totals mode a grid's words are not kept: one set of results does for all. */
    Py_ssize_t kept = mode == MODE_TOTALS ? 1 : grids;
    results = calloc(kept ? kept : 1, sizeof(Results));
    int64_t *totals = mode == MODE_TOTALS ? calloc(grids ? 2 * grids : 1, sizeof(int64_t)) : NULL;
    if (!results || (mode == MODE_TOTALS && !totals)) {
        free(totals);
        scratch_free(&scratch);
        Py_CLEAR(out);
        PyErr_NoMemory();
        goto done;
    }
    const uint8_t *grid_codes = codes.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t g = 0; g < grids && status == SEARCH_OK; g++) {
        Results *r = &results[mode == MODE_TOTALS ? 0 : g];
        status = search_grid(self, view.buf, count, grid_codes + g * self->cell_count, &scratch, r);
        if (totals) {
            totals[2 * g] = (int64_t)r->found_used;
            totals[2 * g + 1] = r->points;
        }
    }
    Py_END_ALLOW_THREADS
    scratch_free(&scratch);
    if (status != SEARCH_OK) {
        raise_search_error(self, status);
        Py_CLEAR(out);
    } else {
        for (Py_ssize_t g = 0; g < grids; g++) {
            PyObject *item = totals ? Py_BuildValue("(LL)", (long long)totals[2 * g], (long long)totals[2 * g + 1])
                                    : results_object(self, &results[g], mode);
            if (!item) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, g, item);
        }
    }
    for (Py_ssize_t g = 0; g < kept; g++) results_free(&results[g]);
    free(totals);
done:
    free(results);
    PyBuffer_Release(&view);
    PyBuffer_Release(&codes);
    return out;
}

PyDoc_STRVAR(solve_doc,
"solve(codes, mode=2) -> object\n\n"
"Search one grid (``codes``: one face code per cell); ``mode`` as for solve_many.");

static PyObject *Solver_solve(Solver *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"codes", "mode", NULL};
    Py_buffer codes;
    int mode = MODE_HITS;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|i", keywords, &codes, &mode)) return NULL;
    Py_ssize_t grids = 0;
    if (mode < MODE_TOTALS || mode > MODE_FOUND) {
        PyErr_SetString(PyExc_ValueError, "mode must be 0, 1, 2 or 3");
        PyBuffer_Release(&codes);
        return NULL;
    }
    if (check_codes(self, &codes, &grids) < 0 || grids != 1) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "one grid of %zd cells expected", self->cell_count);
        PyBuffer_Release(&codes);
        return NULL;
    }
    Py_buffer view;
    uint64_t count;
    if (get_cells(self, &view, &count) < 0) {
        PyBuffer_Release(&codes);
        return NULL;
    }
    Scratch scratch;
    Results results;
    memset(&results, 0, sizeof(results));
    PyObject *out = NULL;
    if (scratch_init(&scratch, self) < 0) {
        PyErr_NoMemory();
    } else {
        /* A small grid is searched holding the GIL (releasing it would cost more than
         * the search); a large one lets other threads run meanwhile. */
        int status;
        if (self->cell_count >= 64) {
            Py_BEGIN_ALLOW_THREADS
            status = search_grid(self, view.buf, count, codes.buf, &scratch, &results);
            Py_END_ALLOW_THREADS
        } else {
            status = search_grid(self, view.buf, count, codes.buf, &scratch, &results);
        }
        scratch_free(&scratch);
        if (status != SEARCH_OK)
            raise_search_error(self, status);
        else
            out = results_object(self, &results, mode);
    }
    results_free(&results);
    PyBuffer_Release(&view);
    PyBuffer_Release(&codes);
    return out;
}

PyDoc_STRVAR(set_face_doc,
"set_face(code, letters)\n\n"
"Register face ``code`` (32..255) as the letters of ``letters`` (bytes of letter bits,\n"
"2 or 3 of them, each below the alphabet's size).");

static PyObject *Solver_set_face(Solver *self, PyObject *args) {
    int code;
    Py_buffer letters;
    if (!PyArg_ParseTuple(args, "iy*", &code, &letters)) return NULL;
    if (code < FIRST_LONG_CODE || code > 255 || letters.len < 2 || letters.len > MAX_FACE_LETTERS) {
        PyBuffer_Release(&letters);
        PyErr_SetString(PyExc_ValueError, "a face code is 32..255 and has 2 or 3 letters");
        return NULL;
    }
    const uint8_t *bits = letters.buf;
    for (Py_ssize_t i = 0; i < letters.len; i++) {
        if (bits[i] >= self->letter_count) {
            PyBuffer_Release(&letters);
            PyErr_SetString(PyExc_ValueError, "a letter bit outside the alphabet");
            return NULL;
        }
    }
    for (Py_ssize_t i = 0; i < letters.len; i++) self->face_letters[code][i] = bits[i];
    self->face_length[code] = (uint8_t)letters.len;
    PyBuffer_Release(&letters);
    Py_RETURN_NONE;
}

static PyMethodDef Solver_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))Solver_solve, METH_VARARGS | METH_KEYWORDS, solve_doc},
    {"solve_many", (PyCFunction)(void (*)(void))Solver_solve_many, METH_VARARGS | METH_KEYWORDS, solve_many_doc},
    {"set_face", (PyCFunction)Solver_set_face, METH_VARARGS, set_face_doc},
    {NULL, NULL, 0, NULL},
};

/* -- construction -------------------------------------------------------------------- */

static int Solver_init(Solver *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"cells", "root", "longest", "alphabet", "table", "min_length",
                               "points", "hit_type", "error_type", "source", NULL};
    PyObject *cells, *alphabet, *table, *points, *hit_type, *error_type, *source;
    unsigned long long root, longest;
    long min_length;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OKKUOlOOOU", keywords, &cells, &root, &longest, &alphabet,
                                     &table, &min_length, &points, &hit_type, &error_type, &source))
        return -1;
    if (self->neighbour_start) {
        PyErr_SetString(PyExc_RuntimeError, "a Solver is initialized once");
        return -1;
    }
    if (!PyObject_CheckBuffer(cells)) {
        PyErr_SetString(PyExc_TypeError, "cells must support the buffer protocol");
        return -1;
    }
    Py_ssize_t letters = PyUnicode_GET_LENGTH(alphabet);
    if (letters > MAX_LETTERS) {
        PyErr_SetString(PyExc_ValueError, "the compiled kernel reads alphabets of at most 31 letters");
        return -1;
    }
    if (root > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "root outside 32 bits");
        return -1;
    }
    if (min_length < 0) min_length = 0;
    self->root = (uint32_t)root;
    self->longest = longest > UINT32_MAX ? UINT32_MAX : (uint32_t)longest;
    self->min_length = min_length > UINT32_MAX ? UINT32_MAX : (uint32_t)min_length;
    self->letter_count = (int)letters;
    self->ascii = 1;
    for (Py_ssize_t i = 0; i < letters; i++) {
        self->letters[i] = PyUnicode_READ_CHAR(alphabet, i);
        if (self->letters[i] > 127) self->ascii = 0;
    }
    for (Py_ssize_t i = 0; i < letters; i++) {
        int below = 0;
        for (Py_ssize_t j = 0; j < letters; j++) below += self->letters[j] < self->letters[i];
        self->rank[i] = (uint8_t)below;
    }
    memset(self->face_length, 0, sizeof(self->face_length));
    for (int i = 0; i < letters; i++) {
        self->face_length[i] = 1;
        self->face_letters[i][0] = (uint8_t)i;
    }

    PyObject *rows = PySequence_Fast(table, "the neighbour table must be a sequence");
    if (!rows) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(rows);
    if (n < 1 || n > INT32_MAX / 2) {
        Py_DECREF(rows);
        PyErr_SetString(PyExc_ValueError, "a grid has 1 to 2**30 cells");
        return -1;
    }
    self->cell_count = n;
    self->neighbour_start = calloc(n + 1, sizeof(int32_t));
    size_t capacity = 0, used = 0;
    if (!self->neighbour_start) {
        Py_DECREF(rows);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t c = 0; c < n; c++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(rows, c), "a row of the table must be a sequence");
        if (!row) {
            Py_DECREF(rows);
            return -1;
        }
        Py_ssize_t degree = PySequence_Fast_GET_SIZE(row);
        if (used + degree > (size_t)INT32_MAX ||
            grow((void **)&self->neighbour, &capacity, used + degree + 1, sizeof(int32_t)) < 0) {
            Py_DECREF(row);
            Py_DECREF(rows);
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t j = 0; j < degree; j++) {
            long other = PyLong_AsLong(PySequence_Fast_GET_ITEM(row, j));
            if (other == -1 && PyErr_Occurred()) {
                Py_DECREF(row);
                Py_DECREF(rows);
                return -1;
            }
            if (other < 0 || other >= n || other == c) {
                Py_DECREF(row);
                Py_DECREF(rows);
                PyErr_Format(PyExc_ValueError, "neighbour %ld of cell %zd is not another cell", other, c);
                return -1;
            }
            self->neighbour[used++] = (int32_t)other;
        }
        Py_DECREF(row);
        self->neighbour_start[c + 1] = (int32_t)used;
    }
    Py_DECREF(rows);

    PyObject *values = PySequence_Fast(points, "points must be a sequence");
    if (!values) return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(values);
    if (count < 1) {
        Py_DECREF(values);
        PyErr_SetString(PyExc_ValueError, "points must not be empty");
        return -1;
    }
    self->points = calloc(count, sizeof(int64_t));
    if (!self->points) {
        Py_DECREF(values);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        self->points[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(values, i));
        if (self->points[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(values);
            return -1;
        }
    }
    self->point_count = count;
    Py_DECREF(values);

    Py_INCREF(cells);
    self->cells = cells;
    Py_INCREF(hit_type);
    self->hit_type = hit_type;
    self->hit_is_plain_tuple = PyType_Check(hit_type) &&
                               PyType_IsSubtype((PyTypeObject *)hit_type, &PyTuple_Type) &&
                               ((PyTypeObject *)hit_type)->tp_basicsize == PyTuple_Type.tp_basicsize &&
                               ((PyTypeObject *)hit_type)->tp_itemsize == PyTuple_Type.tp_itemsize &&
                               ((PyTypeObject *)hit_type)->tp_dictoffset == 0;
    Py_INCREF(error_type);
    self->error_type = error_type;
    Py_INCREF(source);
    self->source = source;
    return 0;
}

static int Solver_traverse(Solver *self, visitproc visit, void *arg) {
    Py_VISIT(self->cells);
    Py_VISIT(self->hit_type);
    Py_VISIT(self->error_type);
    Py_VISIT(self->source);
    return 0;
}

static int Solver_clear(Solver *self) {
    Py_CLEAR(self->cells);
    Py_CLEAR(self->hit_type);
    Py_CLEAR(self->error_type);
    Py_CLEAR(self->source);
    return 0;
}

static void Solver_dealloc(Solver *self) {
    PyObject_GC_UnTrack(self);
    Solver_clear(self);
    free(self->neighbour_start);
    free(self->neighbour);
    free(self->points);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Solver_get_cell_count(Solver *self, void *closure) {
    (void)closure;
    return PyLong_FromSsize_t(self->cell_count);
}

static PyGetSetDef Solver_getset[] = {
    {"cell_count", (getter)Solver_get_cell_count, NULL, "cells of the grids this solver searches", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(Solver_doc,
"Solver(cells, root, longest, alphabet, table, min_length, points, hit_type, error_type, source)\n\n"
"A search prepared for one dictionary (``cells``: its uint32 cells through the buffer\n"
"protocol, ``root``, ``longest`` word, ``alphabet`` of at most 31 letters), one shape\n"
"(``table``: the neighbours of each cell), a minimum length and ``points`` by length (the\n"
"last entry for longer words). Results are ``hit_type(word, score, path)``; a damaged\n"
"file raises ``error_type`` naming ``source``.");

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "boggle_dafsa.solver._native.Solver",
    .tp_basicsize = sizeof(Solver),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = Solver_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Solver_init,
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_traverse = (traverseproc)Solver_traverse,
    .tp_clear = (inquiry)Solver_clear,
    .tp_methods = Solver_methods,
    .tp_getset = Solver_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_native",
    .m_doc = "The compiled native solver kernel (see boggle_dafsa/solver/native.py for its twin).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&SolverType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&SolverType);
    if (PyModule_AddObject(m, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(&SolverType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "DEAD", DEAD_CODE) < 0 || PyModule_AddIntConstant(m, "FIRST_LONG", FIRST_LONG_CODE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
