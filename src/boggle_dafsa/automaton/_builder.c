/* The compiled twin of src/boggle_dafsa/automaton/stream.py: the streaming DAFSA builder,
 * the writer of the native file's body, and the two halves of the external sort.
 *
 * Builder: the incremental construction for sorted input of Daciuk, Mihov, Watson &
 * Watson (2000), as builder.py does it, on code points. Words come as UTF-8 lines
 * ("word\n" ...), non-decreasing: an equal word is a duplicate and skipped, a smaller one
 * is an error. Memory: the registered states (one record and their transitions) and
 * a hash table over them, plus the path of the last word; never the list.
 *
 * write_body: the cells of docs/format.md, breadth-first from the root, written to a file
 * stream in blocks, with their CRC-32 (zlib's polynomial) computed on the way.
 *
 * sort_lines / merge_runs: sort one run of lines in memory (unique), and merge sorted run
 * files into sorted unique lines handed to a Python callable in blocks.
 *
 * Version 2's body (compact_body, expand: the twin of compact.py) is in _compact.h, included
 * here; dawgdic's builders (the twin of formats/dawgdic.py) are below too.
 *
 * Nothing here trusts its input: lines are checked as UTF-8, sizes against overflow,
 * and every index against the array it indexes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CODE_POINT 0x10FFFF
/* The format's constants and bit helpers (FINAL_FLAG, format_header_cells...). */
#include "_format.h"

/* A registered state's record: its pair count, and this bit when it is final (not the file's flag). */
#define STATE_FINAL 0x80000000u
#define SIGNAL_EVERY 0xFFFF
/* The default cap on states, limits.MAX_STATES (a test checks they agree): beyond it,
 * add_lines and finish raise ValueError("too many states", cap, words), as the Python
 * kernel does, so that a list of random strings fails in bounded memory either way. */
#define DEFAULT_MAX_STATES (1u << 22)
#define HARD_MAX_STATES 0xFFFFFFFEu

/* ---- small helpers ---------------------------------------------------------------- */

static int grow(void **array, size_t *capacity, size_t needed, size_t item) {
    if (needed <= *capacity) return 0;
    size_t wanted = *capacity ? *capacity : 16;
    while (wanted < needed) {
        if (wanted > SIZE_MAX / 2 / item) { PyErr_NoMemory(); return -1; }
        wanted *= 2;
    }
    void *bigger = realloc(*array, wanted * item);
    if (!bigger) { PyErr_NoMemory(); return -1; }
    *array = bigger;
    *capacity = wanted;
    return 0;
}

/* Decode one UTF-8 word into code points; -1 (ValueError set) if it is not valid UTF-8. */
static Py_ssize_t decode_utf8(const unsigned char *s, size_t n, uint32_t *out) {
    size_t i = 0;
    Py_ssize_t count = 0;
    while (i < n) {
        uint32_t c = s[i];
        size_t extra;
        uint32_t minimum;
        if (c < 0x80) { extra = 0; minimum = 0; }
        else if ((c & 0xE0) == 0xC0) { extra = 1; c &= 0x1F; minimum = 0x80; }
        else if ((c & 0xF0) == 0xE0) { extra = 2; c &= 0x0F; minimum = 0x800; }
        else if ((c & 0xF8) == 0xF0) { extra = 3; c &= 0x07; minimum = 0x10000; }
        else goto bad;
        if (extra > n - i - 1) goto bad;
        for (size_t k = 1; k <= extra; k++) {
            unsigned char b = s[i + k];
            if ((b & 0xC0) != 0x80) goto bad;
            c = (c << 6) | (b & 0x3F);
        }
        if (c < minimum || c > MAX_CODE_POINT || (c >= 0xD800 && c <= 0xDFFF)) goto bad;
        out[count++] = c;
        i += extra + 1;
    }
    return count;
bad:
    PyErr_SetString(PyExc_ValueError, "word is not valid UTF-8");
    return -1;
}

/* ---- CRC-32 (the polynomial of zlib.crc32) ---------------------------------------- */

static uint32_t crc_table[256];

static void crc_init(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t crc_update(uint32_t crc, const unsigned char *data, size_t n) {
    crc = ~crc;
    for (size_t i = 0; i < n; i++) crc = crc_table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

/* ---- the builder -------------------------------------------------------------------- */

typedef struct {
    uint32_t *edges;   /* letter, child, letter, child ... */
    size_t count;      /* pairs */
    size_t capacity;   /* uint32 slots */
    int final;
} PathState;

typedef struct {
    PyObject_HEAD
    /* Registered states: transitions [first[s], first[s] + 2 * size(s)) of `trans`. */
    uint64_t *first;
    uint32_t *info;    /* pair count | STATE_FINAL */
    size_t states, states_capacity;
    uint32_t *trans;
    size_t trans_used, trans_capacity;
    /* The register: open addressing, state + 1 (0 = empty), power-of-two size. */
    uint32_t *table;
    size_t table_size;
    /* The unfrozen path: depth 0 is the root. */
    PathState *path;
    size_t depth, path_capacity;   /* path[0..depth] live */
    uint32_t *previous;            /* the last word, code points */
    size_t previous_length, previous_capacity;
    uint32_t *word;                /* scratch for the current word */
    size_t word_capacity;
    uint64_t words, finals;
    size_t longest;
    size_t max_states;             /* registering one more state than this is an error */
    int finished;
    uint32_t root;
    /* After finish: letters renumbered to alphabet positions. */
    uint32_t *alphabet;
    size_t alphabet_size;
} Builder;

static uint64_t hash_state(int final, const uint32_t *edges, size_t pairs) {
    uint64_t h = 1469598103934665603ull ^ (uint64_t)final ^ ((uint64_t)pairs << 1);
    for (size_t i = 0; i < 2 * pairs; i++) {
        h ^= edges[i];
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

static int table_insert(Builder *self, uint64_t hash, uint32_t state) {
    size_t mask = self->table_size - 1;
    size_t slot = (size_t)hash & mask;
    while (self->table[slot]) slot = (slot + 1) & mask;
    self->table[slot] = state + 1;
    return 0;
}

static int table_grow(Builder *self) {
    size_t size = self->table_size ? self->table_size * 2 : 1024;
    uint32_t *old = self->table;
    size_t old_size = self->table_size;
    self->table = calloc(size, sizeof(uint32_t));
    if (!self->table) { self->table = old; PyErr_NoMemory(); return -1; }
    self->table_size = size;
    for (size_t i = 0; i < old_size; i++) {
        if (old[i]) {
            uint32_t s = old[i] - 1;
            table_insert(self, hash_state(!!(self->info[s] & STATE_FINAL), self->trans + self->first[s], self->info[s] & ~STATE_FINAL), s);
        }
    }
    free(old);
    return 0;
}

/* The registered state equal to (final, edges), registering it if there is none; -1 on error. */
static int64_t intern_state(Builder *self, int final, const uint32_t *edges, size_t pairs) {
    if (pairs >= STATE_FINAL) { PyErr_SetString(PyExc_OverflowError, "state with too many transitions"); return -1; }
    uint64_t hash = hash_state(final, edges, pairs);
    uint32_t wanted = (uint32_t)pairs | (final ? STATE_FINAL : 0);
    if (self->table_size) {
        size_t mask = self->table_size - 1;
        size_t slot = (size_t)hash & mask;
        while (self->table[slot]) {
            uint32_t s = self->table[slot] - 1;
            if (self->info[s] == wanted && (!pairs || memcmp(self->trans + self->first[s], edges, 2 * pairs * sizeof(uint32_t)) == 0))
                return s;
            slot = (slot + 1) & mask;
        }
    }
    if (self->states >= self->max_states) {
        PyObject *args = Py_BuildValue("(snK)", "too many states", (Py_ssize_t)self->max_states, (unsigned long long)self->words);
        if (args) PyErr_SetObject(PyExc_ValueError, args);
        Py_XDECREF(args);
        return -1;
    }
    if ((self->states + 1) * 2 > self->table_size && table_grow(self) < 0) return -1;
    if (grow((void **)&self->first, &self->states_capacity, self->states + 1, sizeof(uint64_t)) < 0) return -1;
    size_t info_capacity = self->states_capacity;
    uint32_t *info = realloc(self->info, info_capacity * sizeof(uint32_t));
    if (!info) { PyErr_NoMemory(); return -1; }
    self->info = info;
    if (grow((void **)&self->trans, &self->trans_capacity, self->trans_used + 2 * pairs, sizeof(uint32_t)) < 0) return -1;
    uint32_t state = (uint32_t)self->states++;
    self->first[state] = self->trans_used;
    self->info[state] = wanted;
    if (pairs) memcpy(self->trans + self->trans_used, edges, 2 * pairs * sizeof(uint32_t));
    self->trans_used += 2 * pairs;
    if (final) self->finals++;
    table_insert(self, hash, state);
    return state;
}

static int push_edge(PathState *p, uint32_t letter, uint32_t child) {
    if (grow((void **)&p->edges, &p->capacity, 2 * p->count + 2, sizeof(uint32_t)) < 0) return -1;
    p->edges[2 * p->count] = letter;
    p->edges[2 * p->count + 1] = child;
    p->count++;
    return 0;
}

/* Replace every path state deeper than `depth` by its registered equivalent. */
static int freeze_down_to(Builder *self, size_t depth) {
    while (self->depth > depth) {
        PathState *p = &self->path[self->depth];
        int64_t state = intern_state(self, p->final, p->edges, p->count);
        if (state < 0) return -1;
        p->count = 0;
        p->final = 0;
        self->depth--;
        if (push_edge(&self->path[self->depth], self->previous[self->depth], (uint32_t)state) < 0) return -1;
    }
    return 0;
}

static PyObject *out_of_order(const uint32_t *word, size_t n, const uint32_t *previous, size_t m) {
    PyObject *w = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, word, (Py_ssize_t)n);
    PyObject *p = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, previous, (Py_ssize_t)m);
    PyObject *args = w && p ? Py_BuildValue("(sOO)", "out of order", w, p) : NULL;
    if (args) PyErr_SetObject(PyExc_ValueError, args);
    Py_XDECREF(args);
    Py_XDECREF(w);
    Py_XDECREF(p);
    return NULL;
}

/* Add one word (code points); returns 1 if added, 0 for a duplicate, -1 on error. */
static int add_word(Builder *self, const uint32_t *word, size_t n) {
    size_t limit = n < self->previous_length ? n : self->previous_length;
    size_t common = 0;
    while (common < limit && word[common] == self->previous[common]) common++;
    if (self->words) {
        if (common == n && n == self->previous_length) return 0;
        if (common == n || (common < limit && word[common] < self->previous[common])) {
            out_of_order(word, n, self->previous, self->previous_length);
            return -1;
        }
    }
    if (freeze_down_to(self, common) < 0) return -1;
    if (grow((void **)&self->path, &self->path_capacity, n + 1, sizeof(PathState)) < 0) return -1;
    /* New path states start empty (their edge buffers are kept from earlier words). */
    static const PathState empty = {NULL, 0, 0, 0};
    for (size_t d = self->depth + 1; d <= n; d++) {
        if (d > self->longest) self->path[d] = empty;  /* never used before */
        self->path[d].count = 0;
        self->path[d].final = 0;
    }
    self->depth = n;
    self->path[n].final = 1;
    if (grow((void **)&self->previous, &self->previous_capacity, n, sizeof(uint32_t)) < 0) return -1;
    memcpy(self->previous, word, n * sizeof(uint32_t));
    self->previous_length = n;
    if (n > self->longest) self->longest = n;
    self->words++;
    return 1;
}

static int Builder_init(Builder *self, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"max_states", NULL};
    Py_ssize_t max_states = DEFAULT_MAX_STATES;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$n", keywords, &max_states)) return -1;
    if (self->path) { PyErr_SetString(PyExc_RuntimeError, "Builder already initialised"); return -1; }
    if (max_states < 1 || (size_t)max_states > HARD_MAX_STATES) {
        PyErr_Format(PyExc_ValueError, "max_states must be between 1 and %u", HARD_MAX_STATES);
        return -1;
    }
    self->max_states = (size_t)max_states;
    self->path = calloc(16, sizeof(PathState));
    if (!self->path) { PyErr_NoMemory(); return -1; }
    self->path_capacity = 16;
    return 0;
}

static void Builder_dealloc(Builder *self) {
    size_t live = self->longest + 1 < self->path_capacity ? self->longest + 1 : self->path_capacity;
    for (size_t d = 0; self->path && d < live; d++) free(self->path[d].edges);
    free(self->path);
    free(self->first);
    free(self->info);
    free(self->trans);
    free(self->table);
    free(self->previous);
    free(self->word);
    free(self->alphabet);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Builder_add_lines(Builder *self, PyObject *arg) {
    if (self->finished) { PyErr_SetString(PyExc_RuntimeError, "builder already finished"); return NULL; }
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *data = view.buf;
    size_t size = (size_t)view.len, start = 0;
    uint64_t added = 0, seen = 0;
    while (start < size) {
        const unsigned char *newline = memchr(data + start, '\n', size - start);
        size_t end = newline ? (size_t)(newline - data) : size;
        size_t n = end - start;
        if (n) {
            if (grow((void **)&self->word, &self->word_capacity, n, sizeof(uint32_t)) < 0) goto error;
            Py_ssize_t letters = decode_utf8(data + start, n, self->word);
            if (letters < 0) goto error;
            int result = add_word(self, self->word, (size_t)letters);
            if (result < 0) goto error;
            added += (uint64_t)result;
            if (!(++seen & SIGNAL_EVERY) && PyErr_CheckSignals() < 0) goto error;
        }
        start = end + 1;
    }
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong(added);
error:
    PyBuffer_Release(&view);
    return NULL;
}

static PyObject *Builder_finish(Builder *self, PyObject *Py_UNUSED(ignored)) {
    if (self->finished) { PyErr_SetString(PyExc_RuntimeError, "builder already finished"); return NULL; }
    if (freeze_down_to(self, 0) < 0) return NULL;
    PathState *root = &self->path[0];
    int64_t state = intern_state(self, root->final, root->edges, root->count);
    if (state < 0) return NULL;
    /* The root is registered like any state. No registered state can equal it (it would
     * accept a language equal to one of its own quotients: an infinite one), so it is
     * new and last, as in the Python builder. */
    self->root = (uint32_t)state;
    self->finished = 1;
    free(self->table);
    self->table = NULL;
    self->table_size = 0;
    /* The alphabet: every letter on a transition, sorted; letters become positions in it.
     * Code points are at most MAX_CODE_POINT: a bitmap of the letters met and the count
     * of letters below each 32-bit word of it give a letter's position by one popcount
     * (a sort and a binary search per transition cost the French build 9 % more). */
    size_t letters = self->trans_used / 2;
    size_t words = MAX_CODE_POINT / 32 + 1;
    uint32_t *seen = calloc(words, sizeof(uint32_t));
    uint32_t *below = malloc(words * sizeof(uint32_t));
    if (!seen || !below) { free(seen); free(below); return PyErr_NoMemory(); }
    for (size_t i = 0; i < letters; i++) {
        uint32_t letter = self->trans[2 * i];
        if (letter > MAX_CODE_POINT) { free(seen); free(below); PyErr_SetString(PyExc_AssertionError, "letter over U+10FFFF"); return NULL; }
        seen[letter / 32] |= 1u << (letter % 32);
    }
    size_t unique = 0;
    for (size_t w = 0; w < words; w++) {
        below[w] = (uint32_t)unique;
        unique += popcount32(seen[w]);
    }
    uint32_t *sorted = malloc((unique ? unique : 1) * sizeof(uint32_t));
    if (!sorted) { free(seen); free(below); return PyErr_NoMemory(); }
    for (size_t w = 0, at = 0; w < words; w++)
        for (uint32_t bits = seen[w]; bits; bits &= bits - 1) sorted[at++] = (uint32_t)(32 * w + lowest_bit32(bits));
    self->alphabet = sorted;
    self->alphabet_size = unique;
    uint32_t top = unique ? sorted[unique - 1] : 0;
    uint32_t *rank = top < 0x10000 ? malloc(((size_t)top + 1) * sizeof(uint32_t)) : NULL;
    if (rank) {  /* the usual case: a table, no popcount a transition */
        for (size_t k = 0; k < unique; k++) rank[sorted[k]] = (uint32_t)k;
        for (size_t i = 0; i < letters; i++) self->trans[2 * i] = rank[self->trans[2 * i]];
        free(rank);
    } else {
        for (size_t i = 0; i < letters; i++) {
            uint32_t letter = self->trans[2 * i];
            self->trans[2 * i] = below[letter / 32] + popcount32(seen[letter / 32] & ((1u << (letter % 32)) - 1));
        }
    }
    free(seen);
    free(below);
    Py_RETURN_NONE;
}

static PyObject *Builder_stats(Builder *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *alphabet = self->finished
        ? PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, self->alphabet, (Py_ssize_t)self->alphabet_size)
        : PyUnicode_FromString("");
    if (!alphabet) return NULL;
    return Py_BuildValue("{sKsnsnsKsnsNsI}", "words", (unsigned long long)self->words, "states", (Py_ssize_t)self->states,
                         "transitions", (Py_ssize_t)(self->trans_used / 2), "finals", (unsigned long long)self->finals,
                         "longest", (Py_ssize_t)self->longest, "alphabet", alphabet, "root", self->root);
}

typedef struct {
    PyObject *write;   /* the stream's write method */
    unsigned char *buffer;
    size_t used, size;
    uint32_t crc;
} Output;

static int output_flush(Output *out) {
    out->crc = crc_update(out->crc, out->buffer, out->used);
    PyObject *chunk = PyBytes_FromStringAndSize((const char *)out->buffer, (Py_ssize_t)out->used);
    PyObject *answer = chunk ? PyObject_CallOneArg(out->write, chunk) : NULL;
    Py_XDECREF(chunk);
    if (!answer) return -1;
    Py_DECREF(answer);
    out->used = 0;
    return 0;
}

static int output_cell(Output *out, uint32_t cell) {
    if (out->used + 4 > out->size && output_flush(out) < 0) return -1;
    unsigned char *p = out->buffer + out->used;
    p[0] = cell & 0xFF; p[1] = (cell >> 8) & 0xFF; p[2] = (cell >> 16) & 0xFF; p[3] = cell >> 24;
    out->used += 4;
    return 0;
}

/* write_body(stream) -> (crc32, cells, root cell): the cells, breadth-first from the root,
 * handed to stream.write in blocks. */
static PyObject *Builder_write_body(Builder *self, PyObject *arg) {
    if (!self->finished) { PyErr_SetString(PyExc_RuntimeError, "finish() the builder first"); return NULL; }
    PyObject *write = PyObject_GetAttrString(arg, "write");
    if (!write) return NULL;
    size_t n = self->states, width = format_header_cells(self->alphabet_size);
    uint32_t *order = malloc((n ? n : 1) * sizeof(uint32_t));
    uint32_t *position = malloc((n ? n : 1) * sizeof(uint32_t));
    uint32_t *bits = calloc(width, sizeof(uint32_t));
    Output out = {write, malloc(1 << 20), 0, 1 << 20, 0};
    PyObject *result = NULL;
    if (!order || !position || !bits || !out.buffer) { PyErr_NoMemory(); goto done; }
    for (size_t s = 0; s < n; s++) position[s] = UINT32_MAX;
    /* Breadth-first order and each state's first cell. */
    size_t head = 0, tail = 0;
    uint64_t cursor = 0;
    if (self->root >= n) { PyErr_SetString(PyExc_AssertionError, "root out of range"); goto done; }
    order[tail++] = self->root;
    position[self->root] = 0;
    cursor = width + (self->info[self->root] & ~STATE_FINAL);
    while (head < tail) {
        uint32_t s = order[head++];
        size_t pairs = self->info[s] & ~STATE_FINAL;
        const uint32_t *edges = self->trans + self->first[s];
        for (size_t i = 0; i < pairs; i++) {
            uint32_t child = edges[2 * i + 1];
            if (child >= n) { PyErr_SetString(PyExc_AssertionError, "child out of range"); goto done; }
            if (position[child] != UINT32_MAX) continue;
            if (cursor > FORMAT_CELL_MAX) {
                PyErr_SetString(PyExc_OverflowError, "automaton too large for the native format (more than 2**32 cells)");
                goto done;
            }
            position[child] = (uint32_t)cursor;
            order[tail++] = child;
            cursor += width + (self->info[child] & ~STATE_FINAL);
        }
    }
    if (cursor > FORMAT_CELL_MAX) {
        PyErr_SetString(PyExc_OverflowError, "automaton too large for the native format (more than 2**32 cells)");
        goto done;
    }
    for (size_t k = 0; k < tail; k++) {
        uint32_t s = order[k];
        size_t pairs = self->info[s] & ~STATE_FINAL;
        const uint32_t *edges = self->trans + self->first[s];
        memset(bits, 0, width * sizeof(uint32_t));
        for (size_t i = 0; i < pairs; i++) {
            uint32_t bit = edges[2 * i];
            if (bit >= self->alphabet_size) { PyErr_SetString(PyExc_AssertionError, "letter out of range"); goto done; }
            bits[bit / 32] |= 1u << (bit % 32);
        }
        if (self->info[s] & STATE_FINAL) bits[width - 1] |= FINAL_FLAG;
        for (size_t i = 0; i < width; i++)
            if (output_cell(&out, bits[i]) < 0) goto done;
        for (size_t i = 0; i < pairs; i++)
            if (output_cell(&out, position[edges[2 * i + 1]]) < 0) goto done;
        if (!(k & SIGNAL_EVERY) && PyErr_CheckSignals() < 0) goto done;
    }
    if (output_flush(&out) < 0) goto done;
    result = Py_BuildValue("(IKI)", out.crc, (unsigned long long)cursor, position[self->root]);
done:
    free(order);
    free(position);
    free(bits);
    free(out.buffer);
    Py_DECREF(write);
    return result;
}

static PyObject *Builder_compact_body(Builder *self, PyObject *Py_UNUSED(ignored));

static PyMethodDef Builder_methods[] = {
    {"add_lines", (PyCFunction)Builder_add_lines, METH_O,
     "add_lines(data) -> int: add the UTF-8 words of data, one a line, non-decreasing; return how many were new."},
    {"finish", (PyCFunction)Builder_finish, METH_NOARGS, "finish(): register the last path and the root."},
    {"stats", (PyCFunction)Builder_stats, METH_NOARGS, "stats() -> dict: words, states, transitions, finals, longest, alphabet, root."},
    {"write_body", (PyCFunction)Builder_write_body, METH_O,
     "write_body(stream) -> (crc32, cells, root cell): write the file's cells with stream.write."},
    {"compact_body", (PyCFunction)Builder_compact_body, METH_NOARGS,
     "compact_body() -> (bytes, root offset): the version 2 body, straight from the states (as compact_body of write_body's cells)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject BuilderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "boggle_dafsa.automaton._builder.Builder",
    .tp_basicsize = sizeof(Builder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Streaming builder of the minimal DAFSA of sorted words (see stream.py for its twin).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Builder_init,
    .tp_dealloc = (destructor)Builder_dealloc,
    .tp_methods = Builder_methods,
};

/* ---- the external sort ---------------------------------------------------------------- */

typedef struct {
    uint64_t key;      /* the first 8 bytes, big-endian, zero-padded: most comparisons stop here */
    uint32_t offset;   /* where the line starts in the run */
    uint32_t length;
} Line;

static uint64_t line_key(const unsigned char *s, size_t n) {
    uint64_t key = 0;
    for (size_t i = 0; i < 8; i++) key = (key << 8) | (i < n ? s[i] : 0);
    return key;
}

static int compare_bytes(const unsigned char *a, size_t n, const unsigned char *b, size_t m) {
    int c = memcmp(a, b, n < m ? n : m);
    if (c) return c;
    return n < m ? -1 : n > m;
}

static const unsigned char *sort_text;  /* the run being sorted, for compare_lines (qsort has no context) */

static int compare_lines(const void *x, const void *y) {
    const Line *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return compare_bytes(sort_text + a->offset, a->length, sort_text + b->offset, b->length);
}

/* Sort by key with an LSD radix sort (16-bit digits, passes where every line has the
 * same digit skipped), then each range of equal keys by the whole line. */
static int radix_sort(Line *lines, size_t n) {
    Line *other = malloc((n ? n : 1) * sizeof(Line));
    size_t *counts = malloc(65536 * sizeof(size_t));
    if (!other || !counts) { free(other); free(counts); PyErr_NoMemory(); return -1; }
    Line *from = lines, *to = other;
    for (int shift = 0; shift < 64; shift += 16) {
        memset(counts, 0, 65536 * sizeof(size_t));
        for (size_t i = 0; i < n; i++) counts[(from[i].key >> shift) & 0xFFFF]++;
        if (n && counts[(from[0].key >> shift) & 0xFFFF] == n) continue;
        size_t total = 0;
        for (size_t d = 0; d < 65536; d++) { size_t c = counts[d]; counts[d] = total; total += c; }
        for (size_t i = 0; i < n; i++) to[counts[(from[i].key >> shift) & 0xFFFF]++] = from[i];
        Line *swap = from; from = to; to = swap;
    }
    if (from != lines) memcpy(lines, from, n * sizeof(Line));
    free(other);
    free(counts);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && lines[j].key == lines[i].key) j++;
        if (j - i > 1) qsort(lines + i, j - i, sizeof(Line), compare_lines);
        i = j;
    }
    return 0;
}

/* sort_lines(data) -> (bytes, lines): the non-empty lines of data sorted bytewise, each
 * once, each followed by "\n"; and how many non-empty lines data had. */
static PyObject *sort_lines(PyObject *module, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *data = view.buf;
    size_t size = (size_t)view.len, count = 0, capacity = 0, start = 0, total = 0;
    Line *lines = NULL;
    PyObject *result = NULL;
    int sorted = 1;
    if (size > 0xFFFFFFFFu) { PyErr_SetString(PyExc_OverflowError, "a run of 4 GiB or more"); goto done; }
    /* Count the lines first: the records are the sort's largest allocation, made once. */
    size_t estimate = 1;
    for (const unsigned char *at = data; (at = memchr(at, '\n', size - (size_t)(at - data))) != NULL; at++) estimate++;
    lines = malloc(estimate * sizeof(Line));
    if (!lines) { PyErr_NoMemory(); goto done; }
    capacity = estimate;
    sort_text = data;
    while (start < size) {
        const unsigned char *newline = memchr(data + start, '\n', size - start);
        size_t end = newline ? (size_t)(newline - data) : size;
        if (end > start) {
            if (grow((void **)&lines, &capacity, count + 1, sizeof(Line)) < 0) goto done;
            Line line = {line_key(data + start, end - start), (uint32_t)start, (uint32_t)(end - start)};
            if (count && sorted && compare_lines(&lines[count - 1], &line) > 0) sorted = 0;
            lines[count++] = line;
        }
        start = end + 1;
    }
    if (!sorted && radix_sort(lines, count) < 0) goto done;
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        if (kept && compare_lines(&lines[kept - 1], &lines[i]) == 0) continue;
        lines[kept++] = lines[i];
        total += lines[i].length + 1;
    }
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (!bytes) goto done;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(bytes);
    for (size_t i = 0; i < kept; i++) {
        memcpy(out, data + lines[i].offset, lines[i].length);
        out += lines[i].length;
        *out++ = '\n';
    }
    result = Py_BuildValue("(Nn)", bytes, (Py_ssize_t)count);
done:
    free(lines);
    PyBuffer_Release(&view);
    return result;
}

typedef struct {
    FILE *file;
    char *line;
    size_t capacity;
    ssize_t length;   /* -1: exhausted */
} Run;

static int run_next(Run *run) {
    do {
        errno = 0;
        run->length = getline(&run->line, &run->capacity, run->file);
        if (run->length < 0) {
            if (ferror(run->file)) { PyErr_SetFromErrno(PyExc_OSError); return -1; }
            return 0;
        }
        if (run->length && run->line[run->length - 1] == '\n') run->length--;
    } while (run->length == 0);
    return 0;
}

/* merge_runs(paths, sink, block) -> lines: merge the sorted run files into sorted unique
 * lines, handed to sink(bytes) in blocks of about `block` bytes; return how many lines. */
static PyObject *merge_runs(PyObject *module, PyObject *args) {
    PyObject *paths, *sink;
    Py_ssize_t block;
    if (!PyArg_ParseTuple(args, "OOn", &paths, &sink, &block)) return NULL;
    PyObject *sequence = PySequence_Fast(paths, "paths must be a sequence");
    if (!sequence) return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(sequence);
    Run *runs = calloc(k ? (size_t)k : 1, sizeof(Run));
    size_t capacity = (size_t)(block > 0 ? block : 1) + 4096, used = 0;
    char *buffer = malloc(capacity);
    char *last = NULL;
    size_t last_length = 0, last_capacity = 0;
    uint64_t emitted = 0;
    PyObject *result = NULL;
    if (!runs || !buffer) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *encoded;
        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(sequence, i), &encoded)) goto done;
        runs[i].file = fopen(PyBytes_AS_STRING(encoded), "rb");
        if (!runs[i].file) { PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, PySequence_Fast_GET_ITEM(sequence, i)); Py_DECREF(encoded); goto done; }
        Py_DECREF(encoded);
        if (run_next(&runs[i]) < 0) goto done;
    }
    for (;;) {
        Py_ssize_t best = -1;
        for (Py_ssize_t i = 0; i < k; i++) {
            if (runs[i].length < 0) continue;
            if (best < 0 || compare_bytes((unsigned char *)runs[i].line, (size_t)runs[i].length,
                                          (unsigned char *)runs[best].line, (size_t)runs[best].length) < 0)
                best = i;
        }
        if (best < 0) break;
        Run *run = &runs[best];
        size_t n = (size_t)run->length;
        if (!emitted || compare_bytes((unsigned char *)last, last_length, (unsigned char *)run->line, n) != 0) {
            if (used + n + 1 > capacity) {
                PyObject *chunk = PyBytes_FromStringAndSize(buffer, (Py_ssize_t)used);
                PyObject *answer = chunk ? PyObject_CallOneArg(sink, chunk) : NULL;
                Py_XDECREF(chunk);
                if (!answer) goto done;
                Py_DECREF(answer);
                used = 0;
                if (n + 1 > capacity) {
                    char *bigger = realloc(buffer, n + 1);
                    if (!bigger) { PyErr_NoMemory(); goto done; }
                    buffer = bigger;
                    capacity = n + 1;
                }
            }
            memcpy(buffer + used, run->line, n);
            buffer[used + n] = '\n';
            used += n + 1;
            if (grow((void **)&last, &last_capacity, n ? n : 1, 1) < 0) goto done;
            memcpy(last, run->line, n);
            last_length = n;
            if (!(++emitted & SIGNAL_EVERY) && PyErr_CheckSignals() < 0) goto done;
        }
        if (run_next(run) < 0) goto done;
    }
    if (used) {
        PyObject *chunk = PyBytes_FromStringAndSize(buffer, (Py_ssize_t)used);
        PyObject *answer = chunk ? PyObject_CallOneArg(sink, chunk) : NULL;
        Py_XDECREF(chunk);
        if (!answer) goto done;
        Py_DECREF(answer);
    }
    result = PyLong_FromUnsignedLongLong(emitted);
done:
    for (Py_ssize_t i = 0; runs && i < k; i++) {
        if (runs[i].file) fclose(runs[i].file);
        free(runs[i].line);
    }
    free(runs);
    free(buffer);
    free(last);
    Py_DECREF(sequence);
    return result;
}

/* ---- dawgdic's DawgBuilder (the first stage of formats/dawgdic.py's writer) ------------- */

typedef struct {
    uint64_t *items;   /* (child group << 8) | label; a leaf is 0 */
    size_t count, capacity;
} Open;

static int open_push(Open *o, uint64_t t) {
    if (grow((void **)&o->items, &o->capacity, o->count + 1, sizeof(uint64_t)) < 0) return -1;
    o->items[o->count++] = t;
    return 0;
}

typedef struct {
    uint64_t *trans; size_t trans_used, trans_capacity;   /* every frozen group, in order */
    uint64_t *start; uint32_t *length; size_t groups, groups_capacity;
    uint32_t *table; size_t table_size;                    /* group number + 1, 0 = empty */
    unsigned char *merging; size_t merging_capacity;       /* by transition index */
} Groups;

static uint64_t hash_group(const uint64_t *t, size_t n) {
    uint64_t h = 1469598103934665603ull ^ n;
    for (size_t i = 0; i < n; i++) { h ^= t[i]; h *= 1099511628211ull; h ^= h >> 31; }
    return h;
}

static int groups_rehash(Groups *g) {
    size_t size = g->table_size ? g->table_size * 2 : 1024;
    uint32_t *table = calloc(size, sizeof(uint32_t));
    if (!table) { PyErr_NoMemory(); return -1; }
    for (size_t k = 0; k < g->groups; k++) {
        size_t slot = (size_t)hash_group(g->trans + g->start[k], g->length[k]) & (size - 1);
        while (table[slot]) slot = (slot + 1) & (size - 1);
        table[slot] = (uint32_t)k + 1;
    }
    free(g->table);
    g->table = table;
    g->table_size = size;
    return 0;
}

/* The index of the group equal to `t`, freezing it as a new group if there is none. */
static int64_t freeze_group(Groups *g, const uint64_t *t, size_t n) {
    uint64_t h = hash_group(t, n);
    if (g->table_size) {
        size_t slot = (size_t)h & (g->table_size - 1);
        while (g->table[slot]) {
            size_t k = g->table[slot] - 1;
            if (g->length[k] == n && memcmp(g->trans + g->start[k], t, n * sizeof(uint64_t)) == 0) {
                size_t index = g->start[k] + 1;
                if (index >= g->merging_capacity) { PyErr_SetString(PyExc_AssertionError, "merging out of range"); return -1; }
                g->merging[index] = 1;
                return (int64_t)index;
            }
            slot = (slot + 1) & (g->table_size - 1);
        }
    }
    if (g->groups >= 0xFFFFFFF0u) { PyErr_SetString(PyExc_OverflowError, "too many DAWG states"); return -1; }
    if ((g->groups + 1) * 2 > g->table_size && groups_rehash(g) < 0) return -1;
    if (grow((void **)&g->start, &g->groups_capacity, g->groups + 1, sizeof(uint64_t)) < 0) return -1;
    uint32_t *length = realloc(g->length, g->groups_capacity * sizeof(uint32_t));
    if (!length) { PyErr_NoMemory(); return -1; }
    g->length = length;
    if (grow((void **)&g->trans, &g->trans_capacity, g->trans_used + n, sizeof(uint64_t)) < 0) return -1;
    size_t needed = g->trans_used + n + 1;
    if (needed > g->merging_capacity) {
        size_t old = g->merging_capacity;
        if (grow((void **)&g->merging, &g->merging_capacity, needed, 1) < 0) return -1;
        memset(g->merging + old, 0, g->merging_capacity - old);
    }
    size_t k = g->groups++;
    g->start[k] = g->trans_used;
    g->length[k] = (uint32_t)n;
    if (n) memcpy(g->trans + g->trans_used, t, n * sizeof(uint64_t));
    g->trans_used += n;
    size_t slot = (size_t)h & (g->table_size - 1);
    while (g->table[slot]) slot = (slot + 1) & (g->table_size - 1);
    g->table[slot] = (uint32_t)k + 1;
    return (int64_t)g->start[k] + 1;
}

/* Freeze the `levels` deepest open states, each into its parent's last transition. */
static int freeze_below(Groups *g, Open *open, size_t *depth, size_t levels) {
    for (; levels > 0; levels--) {
        Open *o = &open[(*depth)--];
        int64_t child = freeze_group(g, o->items, o->count);
        if (child < 0) return -1;
        o->count = 0;
        Open *parent = &open[*depth];
        parent->items[parent->count - 1] |= (uint64_t)child << 8;
    }
    return 0;
}

/* dawg_lists(keys) -> (labels, children, last, merging): formats/dawgdic.build_dawg's lists
 * for the keys of `keys` (one a line, sorted, unique, non-empty, no NUL byte); `children`
 * as native uint32 bytes. */
static PyObject *dawg_lists(PyObject *module, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *data = view.buf;
    size_t size = (size_t)view.len, start = 0, depth_capacity = 0, depth = 0;
    size_t previous_start = 0, previous_length = 0, keys = 0;
    Open *open = NULL;
    Groups g = {0};
    PyObject *result = NULL;
    if (grow((void **)&open, &depth_capacity, 1, sizeof(Open)) < 0) goto done;
    memset(open, 0, depth_capacity * sizeof(Open));
    while (start < size) {
        const unsigned char *newline = memchr(data + start, '\n', size - start);
        size_t end = newline ? (size_t)(newline - data) : size, n = end - start;
        const unsigned char *key = data + start;
        if (!n || memchr(key, 0, n)) {
            PyErr_SetString(PyExc_ValueError, "dawgdic keys must be non-empty and free of NUL bytes");
            goto done;
        }
        const unsigned char *previous = data + previous_start;
        if (keys && compare_bytes(key, n, previous, previous_length) <= 0) {
            PyErr_SetString(PyExc_ValueError, "dawgdic keys must be sorted and unique");
            goto done;
        }
        size_t limit = n < previous_length ? n : previous_length, common = 0;
        while (common < limit && key[common] == previous[common]) common++;
        /* Freeze the states below the point where this key leaves the previous one. */
        if (freeze_below(&g, open, &depth, previous_length - common) < 0) goto done;
        /* The rest of this key, then its end-of-key leaf. */
        size_t old_capacity = depth_capacity;
        if (grow((void **)&open, &depth_capacity, n + 2, sizeof(Open)) < 0) goto done;
        memset(open + old_capacity, 0, (depth_capacity - old_capacity) * sizeof(Open));
        if (open_push(&open[common], key[common]) < 0) goto done;
        for (size_t i = common + 1; i < n; i++) {
            depth++;
            open[depth].count = 0;
            if (open_push(&open[depth], key[i]) < 0) goto done;
        }
        depth++;
        open[depth].count = 0;
        if (open_push(&open[depth], 0) < 0) goto done;
        previous_start = start;
        previous_length = n;
        keys++;
        if (!(keys & SIGNAL_EVERY) && PyErr_CheckSignals() < 0) goto done;
        start = end + 1;
    }
    if (freeze_below(&g, open, &depth, previous_length) < 0) goto done;
    int64_t root = 0;
    if (keys) {
        root = freeze_group(&g, open[0].items, open[0].count);
        if (root < 0) goto done;
    }
    size_t total = g.trans_used + 1;
    if (total > 0xFFFFFFFFu) { PyErr_SetString(PyExc_OverflowError, "too many DAWG transitions"); goto done; }
    PyObject *labels = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    PyObject *children = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(total * 4));
    PyObject *last = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    PyObject *merging = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (!labels || !children || !last || !merging) {
        Py_XDECREF(labels); Py_XDECREF(children); Py_XDECREF(last); Py_XDECREF(merging);
        goto done;
    }
    unsigned char *l = (unsigned char *)PyBytes_AS_STRING(labels), *z = (unsigned char *)PyBytes_AS_STRING(last);
    unsigned char *m = (unsigned char *)PyBytes_AS_STRING(merging);
    uint32_t *c = (uint32_t *)PyBytes_AS_STRING(children);
    memset(z, 0, total);
    memset(m, 0, total);
    for (size_t i = 1; i < total && i < g.merging_capacity; i++) m[i] = g.merging[i];
    l[0] = 0xFF; c[0] = (uint32_t)root; z[0] = 1;
    size_t index = 1;
    for (size_t k = 0; k < g.groups; k++) {
        for (size_t i = 0; i < g.length[k]; i++) {
            uint64_t t = g.trans[g.start[k] + i];
            if ((t >> 8) > 0xFFFFFFFFu) { PyErr_SetString(PyExc_OverflowError, "child index too large"); goto fail; }
            l[index] = (unsigned char)(t & 0xFF);
            c[index] = (uint32_t)(t >> 8);
            index++;
        }
        z[index - 1] = 1;
    }
    result = Py_BuildValue("(NNNN)", labels, children, last, merging);
    goto done;
fail:
    Py_DECREF(labels); Py_DECREF(children); Py_DECREF(last); Py_DECREF(merging);
done:
    for (size_t d = 0; open && d < depth_capacity; d++) free(open[d].items);
    free(open);
    free(g.trans); free(g.start); free(g.length); free(g.table); free(g.merging);
    PyBuffer_Release(&view);
    return result;
}

/* ---- dawgdic's DictionaryBuilder and GuideBuilder (formats/dawgdic.py's later stages) -- */

#define D_IS_LEAF 0x80000000u
#define D_HAS_LEAF 0x100u
#define D_EXTENSION 0x200u
#define D_OFFSET_MAX (1u << 21)
#define D_UPPER_MASK (~(D_OFFSET_MAX - 1))
#define D_LOWER_MASK 0xFFu
#define D_LABEL_MASK (D_IS_LEAF | 0xFFu)
#define D_BLOCK 256
#define D_UNFIXED_BLOCKS 16

typedef struct {
    const unsigned char *labels, *last, *merging;
    const uint32_t *children;
    size_t size;                 /* DAWG transitions */
    uint32_t *units; size_t units_used, units_capacity;
    unsigned char *is_fixed, *is_used;
    uint32_t *next, *prev;
    size_t aux_capacity;         /* capacity of is_fixed, is_used, next, prev */
    size_t unfixed;
    uint32_t *links;             /* by DAWG transition: the offset its group got, 0 = none */
} Placer;

static int placer_bad(const char *what) {
    PyErr_Format(PyExc_ValueError, "dawgdic: %s", what);
    return -1;
}

static int set_offset(Placer *p, size_t index, uint64_t offset) {
    if (offset >= ((uint64_t)D_OFFSET_MAX << 8)) return placer_bad("offset too large (dictionary over 2^29 units)");
    if (index >= p->units_used) return placer_bad("unit out of range");
    uint32_t base = p->units[index] & (D_IS_LEAF | D_HAS_LEAF | 0xFFu);
    if (offset < D_OFFSET_MAX) base |= (uint32_t)offset << 10;
    else base |= ((uint32_t)offset << 2) | D_EXTENSION;
    p->units[index] = base;
    return 0;
}

static int fix_block(Placer *p, size_t block);

static int expand_dictionary(Placer *p) {
    size_t src = p->units_used, blocks = src / D_BLOCK, dest = src + D_BLOCK;
    if (blocks + 1 > D_UNFIXED_BLOCKS && fix_block(p, blocks - D_UNFIXED_BLOCKS) < 0) return -1;
    if (dest > 0xFFFFFFFFu) return placer_bad("too many units");
    if (grow((void **)&p->units, &p->units_capacity, dest, sizeof(uint32_t)) < 0) return -1;
    if (dest > p->aux_capacity) {
        size_t capacity = p->aux_capacity ? p->aux_capacity : 1024;
        while (capacity < dest) capacity *= 2;
        unsigned char *fixed = realloc(p->is_fixed, capacity), *used;
        if (!fixed) { PyErr_NoMemory(); return -1; }
        p->is_fixed = fixed;
        used = realloc(p->is_used, capacity);
        if (!used) { PyErr_NoMemory(); return -1; }
        p->is_used = used;
        uint32_t *next = realloc(p->next, capacity * sizeof(uint32_t));
        if (!next) { PyErr_NoMemory(); return -1; }
        p->next = next;
        uint32_t *prev = realloc(p->prev, capacity * sizeof(uint32_t));
        if (!prev) { PyErr_NoMemory(); return -1; }
        p->prev = prev;
        p->aux_capacity = capacity;
    }
    for (size_t i = src; i < dest; i++) {
        p->units[i] = 0;
        p->is_fixed[i] = 0;
        p->is_used[i] = 0;
        p->next[i] = (uint32_t)(i + 1);
        p->prev[i] = (uint32_t)(i - 1);
    }
    p->units_used = dest;
    /* The new block's free units form a circular list, spliced in before the head. */
    p->next[dest - 1] = (uint32_t)src;
    p->prev[src] = (uint32_t)(dest - 1);
    size_t head = p->unfixed;
    if (head >= dest) return placer_bad("free list head out of range");
    p->prev[src] = p->prev[head];
    p->next[dest - 1] = (uint32_t)head;
    if (p->prev[head] >= dest) return placer_bad("free list out of range");
    p->next[p->prev[head]] = (uint32_t)src;
    p->prev[head] = (uint32_t)(dest - 1);
    return 0;
}

static int reserve_unit(Placer *p, size_t index) {
    if (index >= p->units_used && expand_dictionary(p) < 0) return -1;
    if (index >= p->units_used) return placer_bad("unit out of range");
    if (index == p->unfixed) {
        p->unfixed = p->next[index];
        if (p->unfixed == index) p->unfixed = p->units_used;
    }
    uint32_t before = p->prev[index], after = p->next[index];
    if (before >= p->units_used || after >= p->units_used) return placer_bad("free list out of range");
    p->next[before] = after;
    p->prev[after] = before;
    p->is_fixed[index] = 1;
    return 0;
}

static int fix_block(Placer *p, size_t block) {
    size_t begin = block * D_BLOCK, end = begin + D_BLOCK, unused = 0;
    if (end > p->units_used) return placer_bad("block out of range");
    for (size_t offset = begin; offset < end; offset++)
        if (!p->is_used[offset]) { unused = offset; break; }
    for (size_t index = begin; index < end; index++) {
        if (!p->is_fixed[index]) {
            if (reserve_unit(p, index) < 0) return -1;
            p->units[index] = (p->units[index] & ~0xFFu) | (uint32_t)((index ^ unused) & 0xFF);
        }
    }
    return 0;
}

static size_t find_good_offset(Placer *p, size_t index, const unsigned char *labels, size_t count) {
    size_t units = p->units_used;
    if (p->unfixed >= units) return units | (index & 0xFF);
    size_t unfixed = p->unfixed;
    for (;;) {
        size_t offset = unfixed ^ labels[0];
        if (offset < units && !p->is_used[offset]) {
            size_t relative = index ^ offset;
            if (!((relative & D_LOWER_MASK) && (relative & D_UPPER_MASK))) {
                size_t k = 1;
                for (; k < count; k++) {
                    size_t at = offset ^ labels[k];
                    if (at < units && p->is_fixed[at]) break;
                }
                if (k == count) return offset;
            }
        }
        unfixed = p->next[unfixed];
        if (unfixed == p->unfixed || unfixed >= units) return units | (index & 0xFF);
    }
}

/* Place the children of DAWG transition `dawg_index` below unit `dic_index`; the offset. */
static int64_t arrange_child_nodes(Placer *p, size_t dawg_index, size_t dic_index) {
    size_t first = p->children[dawg_index], end = first;
    if (first >= p->size) return placer_bad("child out of range");
    while (!p->last[end]) if (++end >= p->size) return placer_bad("group without end");
    size_t offset = find_good_offset(p, dic_index, p->labels + first, end - first + 1);
    if (set_offset(p, dic_index, dic_index ^ offset) < 0) return -1;
    for (size_t i = first; i <= end; i++) {
        unsigned char label = p->labels[i];
        size_t child = offset ^ label;
        if (reserve_unit(p, child) < 0) return -1;
        if (label == 0) {
            p->units[dic_index] |= D_HAS_LEAF;
            p->units[child] = D_IS_LEAF;
        } else {
            p->units[child] = (p->units[child] & ~0xFFu) | label;
        }
    }
    if (offset >= p->units_used) return placer_bad("offset out of range");
    p->is_used[offset] = 1;
    return (int64_t)offset;
}

/* 1: (child, offset) to visit; 0: nothing to visit; -1: error. */
static int enter_state(Placer *p, size_t dawg_index, size_t dic_index, size_t *child_out, size_t *offset_out) {
    if (dawg_index >= p->size) return placer_bad("transition out of range");
    if (p->labels[dawg_index] == 0) return 0;
    size_t child = p->children[dawg_index];
    if (child >= p->size) return placer_bad("child out of range");
    if (p->merging[child]) {
        size_t offset = p->links[child];
        if (offset) {
            offset ^= dic_index;
            if (!(offset & D_UPPER_MASK) || !(offset & D_LOWER_MASK)) {
                if (p->labels[child] == 0) p->units[dic_index] |= D_HAS_LEAF;
                return set_offset(p, dic_index, offset) < 0 ? -1 : 0;
            }
        }
    }
    int64_t offset = arrange_child_nodes(p, dawg_index, dic_index);
    if (offset < 0) return -1;
    if (p->merging[child]) p->links[child] = (uint32_t)offset;
    *child_out = child;
    *offset_out = (size_t)offset;
    return 1;
}

typedef struct { size_t a, b; } Frame;

static int push_frame(Frame **stack, size_t *used, size_t *capacity, size_t a, size_t b) {
    if (grow((void **)stack, capacity, *used + 1, sizeof(Frame)) < 0) return -1;
    (*stack)[*used].a = a;
    (*stack)[(*used)++].b = b;
    return 0;
}

static int place_all(Placer *p) {
    if (reserve_unit(p, 0) < 0) return -1;
    p->is_used[0] = 1;
    if (set_offset(p, 0, 1) < 0) return -1;
    p->units[0] &= ~0xFFu;
    Frame *stack = NULL;
    size_t used = 0, capacity = 0, child, offset;
    int status = 0;
    if (p->size > 1) {
        int entered = enter_state(p, 0, 0, &child, &offset);
        if (entered < 0 || (entered && push_frame(&stack, &used, &capacity, child, offset) < 0)) { status = -1; goto done; }
        while (used) {
            Frame top = stack[used - 1];
            if (top.a == 0) { used--; continue; }
            stack[used - 1].a = p->last[top.a] ? 0 : top.a + 1;
            if (stack[used - 1].a >= p->size) { status = placer_bad("transition out of range"); goto done; }
            entered = enter_state(p, top.a, top.b ^ p->labels[top.a], &child, &offset);
            if (entered < 0 || (entered && push_frame(&stack, &used, &capacity, child, offset) < 0)) { status = -1; goto done; }
            if (!(used & 0xFFF) && PyErr_CheckSignals() < 0) { status = -1; goto done; }
        }
    }
    size_t blocks = p->units_used / D_BLOCK;
    for (size_t block = blocks > D_UNFIXED_BLOCKS ? blocks - D_UNFIXED_BLOCKS : 0; block < blocks; block++)
        if (fix_block(p, block) < 0) { status = -1; goto done; }
done:
    free(stack);
    return status;
}

static int64_t follow_unit(const Placer *p, size_t index, unsigned char label) {
    if (index >= p->units_used) return placer_bad("unit out of range");
    uint32_t base = p->units[index];
    size_t child = index ^ ((size_t)(base >> 10) << ((base & D_EXTENSION) >> 6)) ^ label;
    if (child >= p->units_used || (p->units[child] & D_LABEL_MASK) != label)
        return placer_bad("guide: dictionary transition missing");
    return (int64_t)child;
}

/* 1: (child, dic_index) to visit; 0: nothing; -1: error. */
static int guide_enter(const Placer *p, unsigned char *fixed, unsigned char *guide, size_t dawg_index, size_t dic_index,
                       size_t *child_out) {
    if (dic_index >= p->units_used || dawg_index >= p->size) return placer_bad("guide out of range");
    if (fixed[dic_index]) return 0;
    fixed[dic_index] = 1;
    size_t child = p->children[dawg_index];
    if (child >= p->size) return placer_bad("child out of range");
    if (p->labels[child] == 0) {
        if (p->last[child]) return 0;
        if (++child >= p->size) return placer_bad("child out of range");
    }
    guide[2 * dic_index] = p->labels[child];
    *child_out = child;
    return 1;
}

static PyObject *build_guide(const Placer *p) {
    if (p->size <= 1) return PyBytes_FromStringAndSize(NULL, 0);
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(2 * p->units_used));
    unsigned char *fixed = calloc(p->units_used ? p->units_used : 1, 1);
    Frame *stack = NULL;
    size_t used = 0, capacity = 0, child;
    if (!bytes || !fixed) { Py_XDECREF(bytes); free(fixed); return bytes ? PyErr_NoMemory() : NULL; }
    unsigned char *guide = (unsigned char *)PyBytes_AS_STRING(bytes);
    memset(guide, 0, 2 * p->units_used);
    int entered = guide_enter(p, fixed, guide, 0, 0, &child);
    if (entered < 0 || (entered && push_frame(&stack, &used, &capacity, child, 0) < 0)) goto fail;
    while (used) {
        Frame top = stack[used - 1];
        if (top.a == 0) { used--; continue; }
        size_t sibling = p->last[top.a] ? 0 : top.a + 1;
        if (sibling >= p->size) { placer_bad("transition out of range"); goto fail; }
        stack[used - 1].a = sibling;
        int64_t dic_child = follow_unit(p, top.b, p->labels[top.a]);
        if (dic_child < 0) goto fail;
        if (sibling) guide[2 * dic_child + 1] = p->labels[sibling];
        entered = guide_enter(p, fixed, guide, top.a, (size_t)dic_child, &child);
        if (entered < 0 || (entered && push_frame(&stack, &used, &capacity, child, (size_t)dic_child) < 0)) goto fail;
    }
    free(stack);
    free(fixed);
    return bytes;
fail:
    free(stack);
    free(fixed);
    Py_DECREF(bytes);
    return NULL;
}

/* dawg_dictionary(labels, children, last, merging) -> (units, guide): the double array
 * (native uint32 bytes) and the guide of a DAWG given as dawg_lists returns it. */
static PyObject *dawg_dictionary(PyObject *module, PyObject *args) {
    Py_buffer labels, children, last, merging;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &labels, &children, &last, &merging)) return NULL;
    Placer p = {0};
    PyObject *result = NULL;
    size_t n = (size_t)labels.len;
    if ((size_t)children.len != 4 * n || (size_t)last.len != n || (size_t)merging.len != n || n == 0) {
        PyErr_SetString(PyExc_ValueError, "dawgdic: lists of different lengths");
        goto done;
    }
    p.labels = labels.buf; p.last = last.buf; p.merging = merging.buf; p.children = children.buf; p.size = n;
    if (!p.last[n - 1]) { PyErr_SetString(PyExc_ValueError, "dawgdic: the last group has no end"); goto done; }
    p.links = calloc(n, sizeof(uint32_t));
    if (!p.links) { PyErr_NoMemory(); goto done; }
    if (place_all(&p) < 0) goto done;
    PyObject *guide = build_guide(&p);
    if (!guide) goto done;
    PyObject *units = PyBytes_FromStringAndSize((const char *)p.units, (Py_ssize_t)(4 * p.units_used));
    if (!units) { Py_DECREF(guide); goto done; }
    result = Py_BuildValue("(NN)", units, guide);
done:
    free(p.units); free(p.is_fixed); free(p.is_used); free(p.next); free(p.prev); free(p.links);
    PyBuffer_Release(&labels); PyBuffer_Release(&children); PyBuffer_Release(&last); PyBuffer_Release(&merging);
    return result;
}

/* ---- version 2 of the format: compact_body, expand and the varints, in _compact.h ---------- */

#include "_compact.h"

/* Builder.compact_body() -> (bytes, root offset): the version 2 body made from the
 * registered states themselves, without the version 1 cells in between: the states are
 * numbered breadth-first from the root, children in letter order, as write_body lays them
 * out and compact_body numbers its cells, so the bytes are the same (tested). */
static PyObject *Builder_compact_body(Builder *self, PyObject *Py_UNUSED(ignored)) {
    if (!self->finished) { PyErr_SetString(PyExc_RuntimeError, "finish() the builder first"); return NULL; }
    size_t n = self->states, total = self->trans_used / 2;
    PyObject *result = NULL;
    Graph g = {0};
    uint32_t *number = NULL, *seen = NULL;
    size_t states = 0, edges = 0;
#define BAD(what) do { PyErr_SetString(PyExc_AssertionError, what); goto done; } while (0)
    if (self->root >= n) BAD("root out of range");
    number = malloc(n * sizeof(uint32_t));
    seen = malloc(n * sizeof(uint32_t));
    g.first = malloc(n * sizeof(uint32_t));
    g.count = malloc(n * sizeof(uint32_t));
    g.indegree = calloc(n, sizeof(uint32_t));
    g.final = malloc(n);
    g.label = malloc((total ? total : 1) * sizeof(uint32_t));
    g.child = malloc((total ? total : 1) * sizeof(uint32_t));
    if (!number || !seen || !g.first || !g.count || !g.indegree || !g.final || !g.label || !g.child) { PyErr_NoMemory(); goto done; }
    memset(number, 0xFF, n * sizeof(uint32_t));
    number[self->root] = 0;
    seen[states++] = self->root;
    for (size_t k = 0; k < states; k++) {
        uint32_t s = seen[k];
        size_t pairs = self->info[s] & ~STATE_FINAL;
        const uint32_t *pair = self->trans + self->first[s];
        g.first[k] = (uint32_t)edges;
        g.count[k] = (uint32_t)pairs;
        g.final[k] = (self->info[s] & STATE_FINAL) != 0;
        if (edges + pairs > total) BAD("more transitions than registered");
        for (size_t i = 0; i < pairs; i++) {
            uint32_t letter = pair[2 * i], child = pair[2 * i + 1];
            if (letter >= self->alphabet_size) BAD("letter out of range");
            if (child >= n) BAD("child out of range");
            if (number[child] == UINT32_MAX) {
                number[child] = (uint32_t)states;
                seen[states++] = child;
            }
            g.label[edges] = letter;
            g.child[edges] = number[child];
            g.indegree[number[child]]++;
            edges++;
        }
        if (!(k & SIGNAL_EVERY) && PyErr_CheckSignals() < 0) goto done;
    }
    free(number); number = NULL;
    free(seen); seen = NULL;
    result = layout_graph(&g, states, edges);
#undef BAD
done:
    free(number); free(seen);
    graph_free(&g);
    return result;
}

/* ---- words_blocks: every word of version 1 cells, in order ------------------------------
 * words_blocks(cells, root, width, max_depth, max_words, letters, sink, block) -> words
 *
 * Hands `sink` the words below `root` ("WORD\n" each, in byte order) in blocks of about
 * `block` bytes: what a writer reads back before renaming its file into place (their
 * SHA-256 must be the list's), and the twin of iterating the cursor (stream.words_blocks).
 * `letters` gives each letter's UTF-8 bytes (1 to 4). Never trusts the cells: every index
 * is checked, paths are bounded by `max_depth`, words by `max_words`, and the states
 * visited by max_words * (max_depth + 1) + 1 (a state that leads to no word costs a visit
 * that no word pays for: a crafted file could otherwise make the walk exponential). */
typedef struct {
    uint32_t state, head, bits, length;
} ListFrame;

static PyObject *words_blocks(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t root, width, max_depth, block;
    unsigned long long max_words;
    PyObject *letters, *sink, *result = NULL, *fast = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*nnnKOOn", &view, &root, &width, &max_depth, &max_words, &letters, &sink, &block)) return NULL;
    const uint32_t *cells = (const uint32_t *)view.buf;
    Py_ssize_t n = view.len / 4;
    ListFrame *stack = NULL;
    uint8_t *word = NULL, *buffer = NULL;
    uint8_t letter_bytes[32][4];
    uint8_t letter_length[32];
    unsigned long long words = 0, visits = 0, budget;
#define LIST_BAD(what) do { PyErr_SetString(PyExc_ValueError, "damaged: " what); goto done; } while (0)
    if (width < 0 || width > FORMAT_ONE_CELL_LETTERS) { PyErr_SetString(PyExc_ValueError, "alphabet wider than one header cell"); goto done; }
    if (block < 64 || block > (1 << 26)) { PyErr_SetString(PyExc_ValueError, "block out of range"); goto done; }
    if (max_depth < 0 || max_depth > n) LIST_BAD("its longest word is longer than the file can hold");
    if (root < 0 || root >= n) LIST_BAD("the root points outside the file");
    fast = PySequence_Fast(letters, "letters must be a sequence of bytes");
    if (!fast) goto done;
    if (PySequence_Fast_GET_SIZE(fast) != width) { PyErr_SetString(PyExc_ValueError, "one bytes object a letter"); goto done; }
    for (Py_ssize_t i = 0; i < width; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        if (!PyBytes_Check(item) || PyBytes_GET_SIZE(item) < 1 || PyBytes_GET_SIZE(item) > 4) {
            PyErr_SetString(PyExc_ValueError, "a letter of 1 to 4 bytes");
            goto done;
        }
        letter_length[i] = (uint8_t)PyBytes_GET_SIZE(item);
        memcpy(letter_bytes[i], PyBytes_AS_STRING(item), letter_length[i]);
    }
    budget = max_words > (UINT64_MAX - 1) / ((unsigned long long)max_depth + 1) ? UINT64_MAX : max_words * ((unsigned long long)max_depth + 1) + 1;
    stack = PyMem_Malloc((size_t)(max_depth + 2) * sizeof(ListFrame));
    word = PyMem_Malloc((size_t)max_depth * 4 + 2);
    buffer = PyMem_Malloc((size_t)block + (size_t)max_depth * 4 + 2);
    if (!stack || !word || !buffer) { PyErr_NoMemory(); goto done; }
    size_t used = 0;
    Py_ssize_t depth = 0;
    uint32_t head = cells[root];
    if (format_letters(head) >> width) LIST_BAD("a letter outside the alphabet");
    if (format_is_final(head)) LIST_BAD("it holds the empty word");
    stack[0] = (ListFrame){(uint32_t)root, head, format_letters(head), 0};
    for (;;) {
        ListFrame *f = &stack[depth];
        if (!f->bits) {
            if (depth == 0) break;
            depth--;
            continue;
        }
        uint32_t low = f->bits & (0u - f->bits);
        f->bits ^= low;
        uint64_t slot = format_child_slot(f->state, f->head, low);
        if (slot >= (uint64_t)n) LIST_BAD("a transition points outside the file");
        uint32_t child = cells[slot];
        if ((Py_ssize_t)child >= n) LIST_BAD("a transition points outside the file");
        uint32_t child_head = cells[child];
        if (format_letters(child_head) >> width) LIST_BAD("a letter outside the alphabet");
        if (depth + 1 > max_depth) LIST_BAD("a path longer than its longest word");
        if (++visits > budget) LIST_BAD("more states on its paths than its words can hold");
        unsigned bit = lowest_bit32(low);
        uint32_t length = f->length;
        memcpy(word + length, letter_bytes[bit], letter_length[bit]);
        length += letter_length[bit];
        if (format_is_final(child_head)) {
            if (++words > max_words) LIST_BAD("more words than its header says");
            memcpy(buffer + used, word, length);
            used += length;
            buffer[used++] = '\n';
            if (used >= (size_t)block) {
                PyObject *chunk = PyBytes_FromStringAndSize((const char *)buffer, (Py_ssize_t)used);
                PyObject *answer = chunk ? PyObject_CallOneArg(sink, chunk) : NULL;
                Py_XDECREF(chunk);
                if (!answer) goto done;
                Py_DECREF(answer);
                used = 0;
            }
        }
        depth++;
        stack[depth] = (ListFrame){child, child_head, format_letters(child_head), length};
    }
    if (used) {
        PyObject *chunk = PyBytes_FromStringAndSize((const char *)buffer, (Py_ssize_t)used);
        PyObject *answer = chunk ? PyObject_CallOneArg(sink, chunk) : NULL;
        Py_XDECREF(chunk);
        if (!answer) goto done;
        Py_DECREF(answer);
    }
    result = PyLong_FromUnsignedLongLong(words);
#undef LIST_BAD
done:
    Py_XDECREF(fast);
    PyMem_Free(stack);
    PyMem_Free(word);
    PyMem_Free(buffer);
    PyBuffer_Release(&view);
    return result;
}

/* pack_ints(values, base, width) -> bytes: the int values of a value section (issue 33,
 * automaton/values.py), bit-packed: entry i, (values[i] - base) modulo 2^64, at bit
 * i * width of little-endian 64-bit words, the last word padded with zero bits. `values`
 * is a buffer of signed 64-bit integers (an array('q')); ValueError if an entry does not
 * fit `width` bits. Its twin is values.pack_ints. */
static PyObject *int_range(PyObject *self, PyObject *arg) {
    /* int_range(values) -> (smallest, bits of the largest less it): a value section's base and width. */
    (void)self;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    if (view.len % 8) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "int_range: 64-bit values");
        return NULL;
    }
    uint64_t n = (uint64_t)view.len / 8;
    int64_t low = 0, high = 0;
    for (uint64_t i = 0; i < n; i++) {
        int64_t v;
        memcpy(&v, (const uint8_t *)view.buf + 8 * i, 8);
        if (!i || v < low) low = v;
        if (!i || v > high) high = v;
    }
    PyBuffer_Release(&view);
    uint64_t span = (uint64_t)high - (uint64_t)low;
    int width = 0;
    while (width < 64 && span >> width) width++;
    return Py_BuildValue("(Li)", (long long)low, width);
}

static PyObject *pack_ints(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    long long base;
    int width;
    if (!PyArg_ParseTuple(args, "y*Li", &view, &base, &width)) return NULL;
    PyObject *result = NULL;
    if (width < 0 || width > 64 || view.len % 8) {
        PyErr_SetString(PyExc_ValueError, "pack_ints: a width of 0 to 64 bits over 64-bit values");
        goto done;
    }
    uint64_t n = (uint64_t)view.len / 8, words = (n * (uint64_t)width + 63) / 64;
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(8 * words));
    if (result == NULL) goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
    memset(out, 0, (size_t)(8 * words));
    const uint8_t *in = (const uint8_t *)view.buf;
    uint64_t limit = width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1u;
    uint64_t accumulated = 0, at = 0;
    unsigned filled = 0;
    for (uint64_t i = 0; i < n; i++) {
        int64_t signed_value;
        memcpy(&signed_value, in + 8 * i, 8);
        uint64_t v = (uint64_t)signed_value - (uint64_t)base;
        if (v > limit) {
            Py_CLEAR(result);
            PyErr_SetString(PyExc_ValueError, "pack_ints: a value past the width");
            goto done;
        }
        if (!width) continue;
        accumulated |= v << filled;
        if (filled + (unsigned)width >= 64) {
            for (int b = 0; b < 8; b++) out[8 * at + b] = (uint8_t)(accumulated >> (8 * b));
            at++;
            unsigned used = 64 - filled;
            accumulated = used == 64 ? 0 : v >> used;
            filled = filled + (unsigned)width - 64;
        } else {
            filled += (unsigned)width;
        }
    }
    if (filled && at < words)
        for (int b = 0; b < 8; b++) out[8 * at + b] = (uint8_t)(accumulated >> (8 * b));
done:
    PyBuffer_Release(&view);
    return result;
}

/* pair_records(data, policy, ints) -> bytes or None: the sort records KEY NUL VALUE LF of a
 * block of WORD TAB VALUE LF lines (words/pairs.py, build --values), when every line needs
 * no look of its own: a word of ASCII letters (upper-cased under the fold policy, 0; as it
 * is under exact, 1) or any bytes but TAB, LF, CR and NUL (raw, 2), a tab, and a value: an
 * int of an optional sign and 1 to 18 digits, or any bytes but CR and NUL; every line
 * ending in LF, none empty. None otherwise: Python reads the block line by line. Its twin
 * is pairs.python_pair_records. */
static PyObject *pair_records(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    int policy, ints;
    if (!PyArg_ParseTuple(args, "y*ip", &view, &policy, &ints)) return NULL;
    const uint8_t *in = (const uint8_t *)view.buf;
    size_t n = (size_t)view.len;
    PyObject *result = NULL;
    if (n && in[n - 1] != '\n') goto none;
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (result == NULL) goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
    size_t at = 0;
    while (at < n) {
        size_t start = at;
        /* The word. */
        for (; at < n && in[at] != '\t'; at++) {
            uint8_t c = in[at];
            if (policy == 2) {
                if (c == '\n' || c == '\r' || c == 0) goto none;
                out[at] = c;
            } else {
                int upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
                if (!upper && !lower) goto none;
                out[at] = (uint8_t)(lower && policy == 0 ? c - ('a' - 'A') : c);
            }
        }
        if (at == start || at == n) goto none;
        out[at++] = 0;
        /* The value. */
        size_t value = at;
        if (ints) {
            if (at < n && (in[at] == '+' || in[at] == '-')) out[at] = in[at], at++;
            size_t digits = at;
            for (; at < n && in[at] >= '0' && in[at] <= '9'; at++) out[at] = in[at];
            if (at == digits || at - digits > 18 || at == n || in[at] != '\n') goto none;
        } else {
            for (; at < n && in[at] != '\n'; at++) {
                if (in[at] == '\r' || in[at] == 0) goto none;
                out[at] = in[at];
            }
            if (at == n) goto none;
        }
        (void)value;
        out[at++] = '\n';
    }
    goto done;
none:
    Py_CLEAR(result);
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&view);
    return result;
}

/* pair_split(block, ints) -> (words, values, first, last) or None: sorted records KEY NUL
 * VALUE LF (pair_records') taken apart at once when their keys strictly increase: the
 * words one a line, the values (ints: their 64-bit values, native byte order, as an
 * array('q') holds them; text: a list of str), the first and the last key. None when a key
 * repeats or comes out of order, a record has no NUL, or an int is not a plain one (an
 * optional sign and 1 to 19 digits within 64 bits): the merge then goes one record at a
 * time. Its twin is stream.python_pair_split. */
static PyObject *pair_split(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    int ints;
    if (!PyArg_ParseTuple(args, "y*p", &view, &ints)) return NULL;
    const uint8_t *in = (const uint8_t *)view.buf;
    size_t n = (size_t)view.len;
    PyObject *words = NULL, *values = NULL, *result = NULL;
    size_t records = 0;
    for (size_t i = 0; i < n; i++) records += in[i] == '\n';
    if (!n || in[n - 1] != '\n') goto none;
    words = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    values = ints ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(8 * records)) : PyList_New((Py_ssize_t)records);
    if (words == NULL || values == NULL) goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(words);
    size_t written = 0, at = 0, record = 0, previous = 0, previous_length = 0, first_length = 0;
    while (at < n) {
        size_t key = at;
        const uint8_t *nul = memchr(in + at, 0, n - at), *end = memchr(in + at, '\n', n - at);
        if (nul == NULL || end == NULL || nul > end) goto none;
        size_t key_length = (size_t)(nul - in) - key, value = key + key_length + 1, value_end = (size_t)(end - in);
        if (record) {
            size_t common = key_length < previous_length ? key_length : previous_length;
            int order = memcmp(in + previous, in + key, common);
            if (order > 0 || (order == 0 && previous_length >= key_length)) goto none; /* not strictly increasing */
        } else {
            first_length = key_length;
        }
        memcpy(out + written, in + key, key_length);
        written += key_length;
        out[written++] = '\n';
        if (ints) {
            size_t d = value;
            int negative = 0;
            if (d < value_end && (in[d] == '+' || in[d] == '-')) negative = in[d++] == '-';
            if (d == value_end || value_end - d > 19) goto none;
            uint64_t magnitude = 0;
            for (; d < value_end; d++) {
                if (in[d] < '0' || in[d] > '9') goto none;
                uint64_t digit = (uint64_t)(in[d] - '0');
                if (magnitude > (UINT64_MAX - digit) / 10) goto none;
                magnitude = magnitude * 10 + digit;
            }
            if (magnitude > (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) goto none;
            int64_t v = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
            memcpy(PyBytes_AS_STRING(values) + 8 * record, &v, 8);
        } else {
            PyObject *text = PyUnicode_DecodeUTF8((const char *)in + value, (Py_ssize_t)(value_end - value), "strict");
            if (text == NULL) goto done;
            PyList_SET_ITEM(values, (Py_ssize_t)record, text);
        }
        previous = key;
        previous_length = key_length;
        record++;
        at = value_end + 1;
    }
    if (_PyBytes_Resize(&words, (Py_ssize_t)written) < 0) goto done;
    {
        PyObject *first = PyBytes_FromStringAndSize((const char *)in, (Py_ssize_t)first_length);
        PyObject *last = PyBytes_FromStringAndSize((const char *)in + previous, (Py_ssize_t)previous_length);
        if (first != NULL && last != NULL) result = PyTuple_Pack(4, words, values, first, last);
        Py_XDECREF(first);
        Py_XDECREF(last);
    }
    goto done;
none:
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(words);
    Py_XDECREF(values);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef module_methods[] = {
    {"pair_split", pair_split, METH_VARARGS,
     "pair_split(block, ints) -> (words, values, first, last) or None: sorted records taken apart at once."},
    {"pair_records", pair_records, METH_VARARGS,
     "pair_records(data, policy, ints) -> bytes or None: the sort records of WORD TAB VALUE lines that need no look each."},
    {"int_range", int_range, METH_O, "int_range(values) -> (smallest, width): of 64-bit values, the bits of the span."},
    {"pack_ints", pack_ints, METH_VARARGS,
     "pack_ints(values, base, width) -> bytes: 64-bit values less base, bit-packed (a value section's ints)."},
    {"expand", expand, METH_VARARGS,
     "expand(body, root, alphabet_size[, keep]) -> (cells, root cell): version 1 cells of a version 2 body "
     "(with keep, a byte a letter: its bit, or 0xFF to leave it out)"},
    {"compact_body", compact_body, METH_VARARGS,
     "compact_body(cells, root, alphabet_size) -> (bytes, root offset): the version 2 body of version 1 cells."},
    {"words_blocks", words_blocks, METH_VARARGS,
     "words_blocks(cells, root, width, max_depth, max_words, letters, sink, block) -> words: every word, in blocks to sink."},
    {"varint", varint_py, METH_VARARGS, "varint(value, size) -> bytes: value as the writer's varint of at least size bytes."},
    {"varint_size", varint_size_py, METH_O, "varint_size(value) -> int: the bytes of value as the writer sizes it."},
    {"sort_lines", sort_lines, METH_O, "sort_lines(data) -> (bytes, lines): the non-empty lines sorted, unique."},
    {"merge_runs", merge_runs, METH_VARARGS, "merge_runs(paths, sink, block) -> lines: merge sorted run files."},
    {"dawg_lists", dawg_lists, METH_O, "dawg_lists(keys) -> (labels, children, last, merging): dawgdic's DawgBuilder."},
    {"dawg_dictionary", dawg_dictionary, METH_VARARGS,
     "dawg_dictionary(labels, children, last, merging) -> (units, guide): dawgdic's DictionaryBuilder and GuideBuilder."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_builder", "Compiled twin of boggle_dafsa.automaton.stream.", -1, module_methods,
};

PyMODINIT_FUNC PyInit__builder(void) {
    crc_init();
    if (PyType_Ready(&BuilderType) < 0) return NULL;
    PyObject *module = PyModule_Create(&module_definition);
    if (!module) return NULL;
    Py_INCREF(&BuilderType);
    if (PyModule_AddObject(module, "Builder", (PyObject *)&BuilderType) < 0) {
        Py_DECREF(&BuilderType);
        Py_DECREF(module);
        return NULL;
    }
    if (PyModule_AddIntConstant(module, "MAX_STATES", DEFAULT_MAX_STATES) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
