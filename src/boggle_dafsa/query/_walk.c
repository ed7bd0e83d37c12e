/* The compiled twin of src/boggle_dafsa/query/walk.py's _walk_native: the walk of a native
 * dictionary's mapped cells in step with a query's lazily built DFA.
 *
 * Same inputs, same outputs: walk(cells, root, alphabet, dfa, depth_limit, limit, max_dead)
 * returns (words, query states) in byte order, at most `limit` of them (-1: all). Query
 * transitions are asked of dfa.step(sid, letter) the first time a (state, letter) is met
 * and kept here in a table, with dfa.accept[sid] for finality, exactly as the Python walk
 * keeps them. Pairs (dictionary state, query state) that held no match are remembered in
 * a hash set of at most `max_dead` entries and skipped when met again.
 *
 * The file is never trusted: every cell index is checked against the number of cells,
 * every letter bit against the alphabet, and paths against depth_limit (the longest word);
 * a violation raises ValueError("damaged: ...") which the Python side turns into a
 * DictionaryError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* The format's constants and bit helpers (FINAL_FLAG, format_child_slot...). */
#include "../automaton/_format.h"

typedef struct {
    int32_t *table;   /* capacity * width transitions, -2: unknown, -1: dead */
    uint32_t *known;  /* letter bits already asked of dfa.step, per query state */
    uint32_t *alive;  /* letter bits that lead somewhere, per query state */
    Py_ssize_t capacity;
    int width;
} Tables;

typedef struct {
    uint64_t *slots;  /* key + 1, 0: empty */
    size_t mask;
    size_t count;
    size_t max_count;
} DeadSet;

typedef struct {
    uint32_t state, head, bits;
    int32_t sid;
    uint64_t pair;
    int found;
    int taken;  /* the letter bit last taken from this frame, -1: none yet (the resume cursor) */
} Frame;

static int tables_reserve(Tables *t, Py_ssize_t sid) {
    if (sid < t->capacity) return 0;
    Py_ssize_t capacity = t->capacity ? t->capacity : 64;
    while (capacity <= sid) capacity *= 2;
    int32_t *table = PyMem_Realloc(t->table, (size_t)capacity * t->width * sizeof(int32_t));
    if (!table) { PyErr_NoMemory(); return -1; }
    t->table = table;
    uint32_t *known = PyMem_Realloc(t->known, (size_t)capacity * sizeof(uint32_t));
    if (!known) { PyErr_NoMemory(); return -1; }
    t->known = known;
    uint32_t *alive = PyMem_Realloc(t->alive, (size_t)capacity * sizeof(uint32_t));
    if (!alive) { PyErr_NoMemory(); return -1; }
    t->alive = alive;
    for (Py_ssize_t i = t->capacity; i < capacity; i++) {
        known[i] = 0;
        alive[i] = 0;
        for (int b = 0; b < t->width; b++) table[i * t->width + b] = -2;
    }
    t->capacity = capacity;
    return 0;
}

/* Ask dfa.step for the letters of `unknown` from `sid` (the Python walk's learn()). */
static int learn(Tables *t, PyObject *step, PyObject *letters, int32_t sid, uint32_t unknown) {
    if (tables_reserve(t, sid) < 0) return -1;
    uint32_t rest = unknown;
    while (rest) {
        int bit = (int)lowest_bit32(rest);
        rest &= rest - 1;
        PyObject *letter = PyTuple_GET_ITEM(letters, bit);
        PyObject *result = PyObject_CallFunction(step, "iO", (int)sid, letter);
        if (!result) return -1;
        long nxt = PyLong_AsLong(result);
        Py_DECREF(result);
        if (nxt == -1 && PyErr_Occurred()) return -1;
        t->table[(Py_ssize_t)sid * t->width + bit] = (int32_t)nxt;
        if (nxt >= 0) {
            t->alive[sid] |= 1u << bit;
            if (tables_reserve(t, nxt) < 0) return -1;
        }
    }
    t->known[sid] |= unknown;
    return 0;
}

static int dead_contains(const DeadSet *d, uint64_t key) {
    if (!d->slots) return 0;
    size_t i = (size_t)(key * 0x9E3779B97F4A7C15ull) & d->mask;
    while (d->slots[i]) {
        if (d->slots[i] == key + 1) return 1;
        i = (i + 1) & d->mask;
    }
    return 0;
}

static int dead_add(DeadSet *d, uint64_t key) {
    if (d->count >= d->max_count) return 0;
    if (!d->slots || 2 * (d->count + 1) > d->mask + 1) {
        size_t size = d->slots ? 2 * (d->mask + 1) : 1024;
        uint64_t *slots = PyMem_Calloc(size, sizeof(uint64_t));
        if (!slots) { PyErr_NoMemory(); return -1; }
        if (d->slots) {
            for (size_t j = 0; j <= d->mask; j++) {
                uint64_t k = d->slots[j];
                if (!k) continue;
                size_t i = (size_t)((k - 1) * 0x9E3779B97F4A7C15ull) & (size - 1);
                while (slots[i]) i = (i + 1) & (size - 1);
                slots[i] = k;
            }
            PyMem_Free(d->slots);
        }
        d->slots = slots;
        d->mask = size - 1;
    }
    size_t i = (size_t)(key * 0x9E3779B97F4A7C15ull) & d->mask;
    while (d->slots[i]) {
        if (d->slots[i] == key + 1) return 0;
        i = (i + 1) & d->mask;
    }
    d->slots[i] = key + 1;
    d->count++;
    return 0;
}

/* The cursor of a walk stopped with frames 0..depth on its stack: the letter each took last
 * (NO_LETTER: none yet), and with `descend` one more frame, the child of the word just
 * reported, not entered yet (its letters are checked when the walk resumes, as the Python
 * walk checks them when it goes on, never when it stops at its limit). */
#define NO_LETTER 0xFF
static PyObject *make_cursor(Py_ssize_t depth, const int *taken, Py_ssize_t stride, int descend) {
    PyObject *cursor = PyBytes_FromStringAndSize(NULL, depth + 1 + (descend ? 1 : 0));
    if (!cursor) return NULL;
    char *out = PyBytes_AS_STRING(cursor);
    for (Py_ssize_t i = 0; i <= depth; i++) {
        int letter = *(const int *)((const char *)taken + i * stride);
        out[i] = (char)(letter < 0 ? NO_LETTER : letter);
    }
    if (descend) out[depth + 1] = (char)NO_LETTER;
    return cursor;
}

static PyObject *damaged(const char *what) {
    PyErr_Format(PyExc_ValueError, "damaged: %s", what);
    return NULL;
}

/* Append the word word[0:length] to `words` and `value` to `values` (a match found). */
static int append_match(PyObject *words, const Py_UCS4 *word, Py_ssize_t length, PyObject *values, long value) {
    PyObject *text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, word, length);
    if (!text) return -1;
    int failed = PyList_Append(words, text);
    Py_DECREF(text);
    if (failed) return -1;
    PyObject *number = PyLong_FromLong(value);
    if (!number) return -1;
    failed = PyList_Append(values, number);
    Py_DECREF(number);
    return failed;
}

/* The names of the query DFA's attributes, interned once. PyObject_GetAttrString would make
 * a fresh string per call, and CPython's type attribute cache keeps a reference to the name
 * of each lookup in the slot its address hashes to: a walk per query left up to three such
 * strings behind, a few hundred over hundreds of walks (bounded by the cache's 4096 slots,
 * not a leak, but indistinguishable from one when the walk is tested for leaks). */
static PyObject *step_name, *accept_name, *start_name;

static PyObject *walk(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t root, depth_limit, limit, max_dead, budget = -1;
    PyObject *alphabet, *dfa, *cursor_obj = Py_None, *next_cursor = NULL;
    if (!PyArg_ParseTuple(args, "y*nUOnnn|On", &view, &root, &alphabet, &dfa, &depth_limit, &limit, &max_dead, &cursor_obj, &budget))
        return NULL;

    PyObject *words = NULL, *sids = NULL, *step = NULL, *accept = NULL, *letters = NULL, *start_obj = NULL;
    Py_UCS4 *codes = NULL, *word = NULL;
    Frame *stack = NULL;
    Tables t = {NULL, NULL, NULL, 0, 0};
    DeadSet dead = {NULL, 0, 0, (size_t)(max_dead < 0 ? 0 : max_dead)};
    PyObject *result = NULL;

    const uint32_t *cells = (const uint32_t *)view.buf;
    Py_ssize_t n = view.len / 4;
    Py_ssize_t width = PyUnicode_GET_LENGTH(alphabet);
    if (width > FORMAT_ONE_CELL_LETTERS) { PyErr_SetString(PyExc_ValueError, "alphabet wider than one header cell"); goto done; }
    t.width = (int)(width ? width : 1);
    /* A word visits distinct states, each at least one cell: a longest word past the cells
     * is a lie; refused when large (the stack is allocated for it), walked as told when small. */
    if (depth_limit < 0 || (depth_limit > n + 1 && depth_limit > 4096)) { damaged("its longest word is longer than the file can hold"); goto done; }
    if (cursor_obj != Py_None && (!PyBytes_Check(cursor_obj) || PyBytes_GET_SIZE(cursor_obj) < 1
                                  || PyBytes_GET_SIZE(cursor_obj) > depth_limit + 2)) {
        PyErr_SetString(PyExc_ValueError, "bad cursor");
        goto done;
    }

    codes = PyUnicode_AsUCS4Copy(alphabet);
    if (!codes) goto done;
    letters = PyTuple_New(width);
    if (!letters) goto done;
    for (Py_ssize_t i = 0; i < width; i++) {
        PyObject *one = PyUnicode_Substring(alphabet, i, i + 1);
        if (!one) goto done;
        PyTuple_SET_ITEM(letters, i, one);
    }
    step = PyObject_GetAttr(dfa, step_name);
    accept = PyObject_GetAttr(dfa, accept_name);
    start_obj = PyObject_GetAttr(dfa, start_name);
    if (!step || !accept || !start_obj) goto done;
    if (!PyList_Check(accept)) { PyErr_SetString(PyExc_TypeError, "dfa.accept must be a list"); goto done; }
    long start_sid = PyLong_AsLong(start_obj);
    if (start_sid == -1 && PyErr_Occurred()) goto done;
    words = PyList_New(0);
    sids = PyList_New(0);
    word = PyMem_Malloc((size_t)(depth_limit + 2) * sizeof(Py_UCS4));
    stack = PyMem_Malloc((size_t)(depth_limit + 2) * sizeof(Frame));
    if (!words || !sids || !word || !stack) { if (!PyErr_Occurred()) PyErr_NoMemory(); goto done; }
    if (start_sid < 0 || limit == 0) goto finished;

    if (root < 0 || root >= n) { damaged("the root points outside the file"); goto done; }
    Py_ssize_t depth = 0;  /* letters in `word`; stack[depth] is the current frame */
    Frame *f = &stack[0];
    f->state = (uint32_t)root;
    f->head = cells[root];
    f->sid = (int32_t)start_sid;
    f->pair = UINT64_MAX;
    f->found = 0;
    f->taken = -1;
    if (tables_reserve(&t, f->sid) < 0) goto done;
    {
        uint32_t below = format_letters(f->head);
        if (below >> width) { damaged("a letter outside the alphabet"); goto done; }
        if (below & ~t.known[f->sid] && learn(&t, step, letters, f->sid, below & ~t.known[f->sid]) < 0) goto done;
        f->bits = below & t.alive[f->sid];
    }
    if (cursor_obj != Py_None) {
        /* Resume where a previous call stopped: its cursor holds the letter bit taken from
         * each frame, the last one NO_LETTER if none was taken there yet. Letters are
         * taken in increasing bit order, so a frame's remaining letters are those above
         * the one taken. The frames rebuilt are marked as having found a word (never
         * remembered as dead: their earlier part was walked by the previous call). */
        const unsigned char *taken = (const unsigned char *)PyBytes_AS_STRING(cursor_obj);
        Py_ssize_t frames = PyBytes_GET_SIZE(cursor_obj);
        for (Py_ssize_t i = 0;; i++) {
            f = &stack[i];
            f->found = 1;
            if (taken[i] == NO_LETTER) {
                if (i != frames - 1) { PyErr_SetString(PyExc_ValueError, "bad cursor"); goto done; }
                break;
            }
            int bit = taken[i];
            if (bit >= width || !(f->head >> bit & 1u)) { PyErr_SetString(PyExc_ValueError, "bad cursor"); goto done; }
            f->taken = bit;
            f->bits &= ~((2u << bit) - 1u);
            if (i == frames - 1) break;
            int32_t nxt = t.table[(Py_ssize_t)f->sid * t.width + bit];
            if (nxt < 0) { PyErr_SetString(PyExc_ValueError, "bad cursor"); goto done; }
            Py_ssize_t slot = (Py_ssize_t)format_child_slot(f->state, f->head, 1u << bit);
            if (slot >= n) { damaged("a transition points outside the file"); goto done; }
            uint32_t child = cells[slot];
            if ((Py_ssize_t)child >= n) { damaged("a transition points outside the file"); goto done; }
            uint32_t child_head = cells[child];
            uint32_t below = format_letters(child_head);
            if (below >> width) { damaged("a letter outside the alphabet"); goto done; }
            if (below && i + 1 > depth_limit) { damaged("a path longer than its longest word"); goto done; }
            word[i] = codes[bit];
            Frame *c = &stack[i + 1];
            c->state = child;
            c->head = child_head;
            c->sid = nxt;
            c->pair = (uint64_t)nxt * (uint64_t)n + child;
            c->taken = -1;
            if (tables_reserve(&t, nxt) < 0) goto done;
            if (below & ~t.known[nxt] && learn(&t, step, letters, nxt, below & ~t.known[nxt]) < 0) goto done;
            c->bits = below & t.alive[nxt];
            depth = i + 1;
        }
    }
    Py_ssize_t emitted = 0, steps = 0;
    for (;;) {
        f = &stack[depth];
        /* The work budget: stop after `limit` words or `budget` steps, and hand back a
         * cursor to resume from, so that the caller streams the words chunk by chunk and
         * sees Ctrl-C and its deadlines between two calls. */
        if ((limit >= 0 && emitted >= limit) || (budget >= 0 && steps >= budget)) {
            next_cursor = make_cursor(depth, &stack[0].taken, sizeof(Frame), 0);
            if (!next_cursor) goto done;
            goto finished;
        }
        steps++;
        if (f->bits) {
            uint32_t low = f->bits & (0u - f->bits);
            f->bits ^= low;
            int bit = (int)lowest_bit32(low);
            f->taken = bit;
            int32_t nxt = t.table[(Py_ssize_t)f->sid * t.width + bit];
            Py_ssize_t slot = (Py_ssize_t)format_child_slot(f->state, f->head, low);
            if (slot >= n) { damaged("a transition points outside the file"); goto done; }
            uint32_t child = cells[slot];
            if ((Py_ssize_t)child >= n) { damaged("a transition points outside the file"); goto done; }
            uint64_t pair = (uint64_t)nxt * (uint64_t)n + child;
            if (dead_contains(&dead, pair)) continue;
            uint32_t child_head = cells[child];
            word[depth] = codes[bit];
            int hit = 0;
            if (nxt >= PyList_GET_SIZE(accept)) { PyErr_SetString(PyExc_RuntimeError, "query state without finality"); goto done; }
            if (format_is_final(child_head) && PyObject_IsTrue(PyList_GET_ITEM(accept, nxt))) {
                hit = 1;
                if (append_match(words, word, depth + 1, sids, nxt) < 0) goto done;
                if (++emitted == limit) {
                    /* The chunk is full: stop before looking below the word (see make_cursor). */
                    f->found = 1;
                    next_cursor = make_cursor(depth, &stack[0].taken, sizeof(Frame), format_letters(child_head) != 0);
                    if (!next_cursor) goto done;
                    goto finished;
                }
            }
            uint32_t below = format_letters(child_head);
            if (!below) {  /* a leaf: no frame needed */
                if (hit) f->found = 1;
                continue;
            }
            if (below >> width) { damaged("a letter outside the alphabet"); goto done; }
            if (depth + 1 > depth_limit) { damaged("a path longer than its longest word"); goto done; }
            depth++;
            Frame *c = &stack[depth];
            c->state = child;
            c->head = child_head;
            c->sid = nxt;
            c->pair = pair;
            c->found = hit;
            c->taken = -1;
            if (tables_reserve(&t, nxt) < 0) goto done;
            if (below & ~t.known[nxt] && learn(&t, step, letters, nxt, below & ~t.known[nxt]) < 0) goto done;
            c->bits = below & t.alive[nxt];
        } else {
            if (depth == 0) break;
            if (f->found) stack[depth - 1].found = 1;
            else if (dead_add(&dead, f->pair) < 0) goto done;
            depth--;
        }
    }
finished:
    result = PyTuple_Pack(3, words, sids, next_cursor ? next_cursor : Py_None);
done:
    PyBuffer_Release(&view);
    Py_XDECREF(next_cursor);
    Py_XDECREF(words);
    Py_XDECREF(sids);
    Py_XDECREF(step);
    Py_XDECREF(accept);
    Py_XDECREF(start_obj);
    Py_XDECREF(letters);
    PyMem_Free(codes);
    PyMem_Free(word);
    PyMem_Free(stack);
    PyMem_Free(t.table);
    PyMem_Free(t.known);
    PyMem_Free(t.alive);
    PyMem_Free(dead.slots);
    return result;
}

/* ---- fuzzy: the Levenshtein walk -------------------------------------------------------
 *
 * fuzzy(cells, root, alphabet, word, k, transpositions, prefix, depth_limit, limit) returns
 * (words, distances) in byte order: the words within k edits of `word` (`prefix`: whose
 * closest prefix is), at most `limit` (-1: all). Its Python twin is walk.py's
 * fuzzy_native(kernel="python"): automata.Levenshtein through _walk_native, whose states
 * are these rows. Here there is no query DFA: each depth of the walk keeps its row of the
 * edit-distance table (entries capped at k + 1), computed from its parent's row when the
 * walk goes down a letter (rows[d]: the row after d letters), which in C costs less than
 * looking a transition up. A branch is abandoned when every entry of its row is over k (no
 * longer word can come back within k), unless in `prefix` mode a prefix already matched
 * (then every word below matches, at the best distance met, and no row is needed).
 *
 * Rows are needed only while some entry is at most k, i.e. to depth len(word) + k: they
 * take (len(word) + k + 2) * (len(word) + 1) bytes. The file is checked as in walk().
 */
typedef struct {
    uint32_t state, head, bits;
    uint8_t best;   /* prefix mode: the smallest distance of a prefix so far */
    uint8_t live;   /* rows[depth] holds a row with an entry <= k */
    int taken;      /* the letter bit last taken from this frame, -1: none yet */
} FuzzyFrame;

static PyObject *fuzzy(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t root, k, depth_limit, limit, budget = -1;
    PyObject *alphabet, *target, *cursor_obj = Py_None, *next_cursor = NULL;
    int transpositions, prefix;
    if (!PyArg_ParseTuple(args, "y*nUUnppnn|On", &view, &root, &alphabet, &target, &k, &transpositions, &prefix, &depth_limit, &limit,
                          &cursor_obj, &budget))
        return NULL;

    PyObject *words = NULL, *distances = NULL, *result = NULL;
    Py_UCS4 *codes = NULL, *w = NULL, *word = NULL;
    uint8_t *rows = NULL;
    FuzzyFrame *stack = NULL;

    const uint32_t *cells = (const uint32_t *)view.buf;
    Py_ssize_t n = view.len / 4;
    Py_ssize_t width = PyUnicode_GET_LENGTH(alphabet);
    Py_ssize_t m = PyUnicode_GET_LENGTH(target);
    if (width > FORMAT_ONE_CELL_LETTERS) { PyErr_SetString(PyExc_ValueError, "alphabet wider than one header cell"); goto done; }
    if (k < 0 || k > 200) { PyErr_SetString(PyExc_ValueError, "distance out of range (0 to 200)"); goto done; }
    if (m > 1000) { PyErr_SetString(PyExc_ValueError, "word too long (at most 1,000 letters)"); goto done; }
    /* A word visits distinct states, each at least one cell: a longest word past the cells
     * is a lie; refused when large (the stack is allocated for it), walked as told when small. */
    if (depth_limit < 0 || (depth_limit > n + 1 && depth_limit > 4096)) { damaged("its longest word is longer than the file can hold"); goto done; }
    if (cursor_obj != Py_None && (!PyBytes_Check(cursor_obj) || PyBytes_GET_SIZE(cursor_obj) < 1
                                  || PyBytes_GET_SIZE(cursor_obj) > depth_limit + 2)) {
        PyErr_SetString(PyExc_ValueError, "bad cursor");
        goto done;
    }
    const uint8_t cap = (uint8_t)(k + 1);
    const Py_ssize_t stride = m + 1, max_rows = m + k + 2;

    codes = PyUnicode_AsUCS4Copy(alphabet);
    w = PyUnicode_AsUCS4Copy(target);
    if (!codes || !w) goto done;
    words = PyList_New(0);
    distances = PyList_New(0);
    word = PyMem_Malloc((size_t)(depth_limit + 2) * sizeof(Py_UCS4));
    stack = PyMem_Malloc((size_t)(depth_limit + 2) * sizeof(FuzzyFrame));
    rows = PyMem_Malloc((size_t)max_rows * (size_t)stride);
    if (!words || !distances || !word || !stack || !rows) { if (!PyErr_Occurred()) PyErr_NoMemory(); goto done; }
    if (limit == 0) goto finished;

    if (root < 0 || root >= n) { damaged("the root points outside the file"); goto done; }
    for (Py_ssize_t i = 0; i <= m; i++) rows[i] = (uint8_t)(i < cap ? i : cap);
    Py_ssize_t depth = 0;
    FuzzyFrame *f = &stack[0];
    f->state = (uint32_t)root;
    f->head = cells[root];
    f->best = rows[m];
    f->live = 1;
    f->taken = -1;
    f->bits = format_letters(f->head);
    if (f->bits >> width) { damaged("a letter outside the alphabet"); goto done; }
    /* Resuming (see walk()): the cursor's letters are replayed, rows recomputed and
     * nothing emitted, down to its last frame, whose letters above the one taken remain. */
    const unsigned char *replay = cursor_obj != Py_None ? (const unsigned char *)PyBytes_AS_STRING(cursor_obj) : NULL;
    const Py_ssize_t replay_frames = replay ? PyBytes_GET_SIZE(cursor_obj) : 0;
    Py_ssize_t emitted = 0, steps = 0;
    for (;;) {
        f = &stack[depth];
        int replaying = 0;
        if (replay) {
            if (depth >= replay_frames) { PyErr_SetString(PyExc_ValueError, "bad cursor"); goto done; }
            int bit = replay[depth];
            if (bit != NO_LETTER && (bit >= width || !(f->bits >> bit & 1u))) { PyErr_SetString(PyExc_ValueError, "bad cursor"); goto done; }
            if (depth == replay_frames - 1) {
                replay = NULL;
                steps = 0;  /* the budget counts new steps only: each call makes progress */
                if (bit != NO_LETTER) {
                    f->taken = bit;
                    f->bits &= ~((2u << bit) - 1u);
                }
                continue;
            }
            if (bit == NO_LETTER) { PyErr_SetString(PyExc_ValueError, "bad cursor"); goto done; }
            f->bits &= ~((1u << bit) - 1u);  /* the letter replayed is the lowest left */
            replaying = 1;
        } else if ((limit >= 0 && emitted >= limit) || (budget >= 0 && steps >= budget)) {
            /* The work budget, as in walk(). */
            next_cursor = make_cursor(depth, &stack[0].taken, sizeof(FuzzyFrame), 0);
            if (!next_cursor) goto done;
            goto finished;
        }
        steps++;
        if (!f->bits) {
            if (depth == 0) break;
            depth--;
            continue;
        }
        uint32_t low = f->bits & (0u - f->bits);
        f->bits ^= low;
        int bit = (int)lowest_bit32(low);
        f->taken = bit;
        Py_UCS4 c = codes[bit];
        uint8_t live = 0, best = f->best, dist = cap;
        if (f->live) {
            /* depth < m + k + 1 here: a live row has an entry <= k, so depth <= m + k. */
            const uint8_t *row = rows + depth * stride;
            uint8_t *next = rows + (depth + 1) * stride;
            const uint8_t *before = depth > 0 ? rows + (depth - 1) * stride : NULL;
            Py_UCS4 last = depth > 0 ? word[depth - 1] : 0;
            uint8_t smallest = next[0] = (uint8_t)(row[0] + 1 < cap ? row[0] + 1 : cap);
            for (Py_ssize_t i = 1; i <= m; i++) {
                unsigned cost = row[i - 1] + (w[i - 1] != c);
                if (row[i] + 1u < cost) cost = row[i] + 1u;
                if (next[i - 1] + 1u < cost) cost = next[i - 1] + 1u;
                if (transpositions && i > 1 && before && w[i - 1] == last && w[i - 2] == c && before[i - 2] + 1u < cost)
                    cost = before[i - 2] + 1u;
                next[i] = (uint8_t)(cost < cap ? cost : cap);
                if (next[i] < smallest) smallest = next[i];
            }
            live = smallest <= k;
            dist = next[m];
            if (dist < best) best = dist;
        }
        if (!live && !(prefix && best <= k)) {  /* nothing below can match */
            if (replaying) { PyErr_SetString(PyExc_ValueError, "bad cursor"); goto done; }
            continue;
        }
        Py_ssize_t slot = (Py_ssize_t)format_child_slot(f->state, f->head, low);
        if (slot >= n) { damaged("a transition points outside the file"); goto done; }
        uint32_t child = cells[slot];
        if ((Py_ssize_t)child >= n) { damaged("a transition points outside the file"); goto done; }
        uint32_t child_head = cells[child];
        word[depth] = c;
        uint8_t found = prefix ? best : dist;
        if (format_is_final(child_head) && found <= k && !replaying) {
            if (append_match(words, word, depth + 1, distances, found) < 0) goto done;
            if (++emitted == limit) {
                /* The chunk is full: stop before looking below the word (see make_cursor). */
                next_cursor = make_cursor(depth, &stack[0].taken, sizeof(FuzzyFrame), format_letters(child_head) != 0);
                if (!next_cursor) goto done;
                goto finished;
            }
        }
        uint32_t below = format_letters(child_head);
        if (!below) {
            if (replaying) { PyErr_SetString(PyExc_ValueError, "bad cursor"); goto done; }
            continue;
        }
        if (below >> width) { damaged("a letter outside the alphabet"); goto done; }
        if (depth + 1 > depth_limit) { damaged("a path longer than its longest word"); goto done; }
        depth++;
        FuzzyFrame *c_frame = &stack[depth];
        c_frame->state = child;
        c_frame->head = child_head;
        c_frame->bits = below;
        c_frame->best = best;
        c_frame->live = live;
        c_frame->taken = -1;
    }
finished:
    result = PyTuple_Pack(3, words, distances, next_cursor ? next_cursor : Py_None);
done:
    PyBuffer_Release(&view);
    Py_XDECREF(next_cursor);
    Py_XDECREF(words);
    Py_XDECREF(distances);
    PyMem_Free(codes);
    PyMem_Free(w);
    PyMem_Free(word);
    PyMem_Free(stack);
    PyMem_Free(rows);
    return result;
}

static PyMethodDef methods[] = {
    {"walk", walk, METH_VARARGS, "walk(cells, root, alphabet, dfa, depth_limit, limit, max_dead, cursor=None, budget=-1) -> (words, query states, cursor)"},
    {"fuzzy", fuzzy, METH_VARARGS,
     "fuzzy(cells, root, alphabet, word, k, transpositions, prefix, depth_limit, limit, cursor=None, budget=-1) -> (words, distances, cursor)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_walk", "Compiled twin of the native query walk.", -1, methods};

PyMODINIT_FUNC PyInit__walk(void) {
    if (step_name == NULL && (step_name = PyUnicode_InternFromString("step")) == NULL) return NULL;
    if (accept_name == NULL && (accept_name = PyUnicode_InternFromString("accept")) == NULL) return NULL;
    if (start_name == NULL && (start_name = PyUnicode_InternFromString("start")) == NULL) return NULL;
    return PyModule_Create(&module);
}
