/* Version 2 of the native format, compact edges (docs/format.md): the compiled twin of
 * src/boggle_dafsa/automaton/compact.py. compact_body writes a version 2 body from version 1
 * cells (the same bytes as compact.compact_body), expand turns one back into version 1
 * cells (as compact.expand_compact; with a map of kept letters, as compact.project_cells),
 * and varint / varint_size expose the writer's varints to the tests.
 *
 * Included by _builder.c (one extension: the builder's Builder.compact_body lays its own
 * states out through layout_graph), after Python.h, <stdint.h>, <stdlib.h>, <string.h>
 * and _format.h. Nothing here trusts its input: every index is checked against the
 * buffer it indexes, and a damaged body is a ValueError, as in the Python twin. */

/* ---- compact_body: version 2 of the format, from version 1 cells --------------------------
 * The twin of compact.compact_body (the same bytes: tested). */

static unsigned varint_size(uint64_t value) {
    /* Comparisons first: nearly every value of a body takes one or two bytes. */
    if (value < (1u << 7)) return 1;
    if (value < (1u << 14)) return 2;
    /* Three bytes hold values below 2^21; each byte more, seven bits more. (This loop
     * once started at `value >= 0x80`, sizing [2^21, 2^28) at three bytes: every body
     * over 1 MiB was written with truncated references.) */
    unsigned n = 3;
    value >>= 21;
    while (value) { value >>= 7; n++; }
    return n;
}

static uint8_t *put_varint(uint8_t *out, uint64_t value, unsigned size) {
    if (size <= 1 && value < 0x80u) { *out = (uint8_t)value; return out + 1; }
    unsigned needed = varint_size(value);
    if (size < needed) size = needed;
    for (unsigned i = 0; i < size; i++) {
        uint8_t byte = (uint8_t)((value >> (7 * i)) & 0x7Fu);
        *out++ = (uint8_t)(byte | (i + 1 < size ? 0x80u : 0u));
    }
    return out;
}

static uint64_t zigzag(int64_t delta) { return delta >= 0 ? (uint64_t)delta * 2 : (uint64_t)(-(delta + 1)) * 2 + 1; }

typedef struct {
    uint32_t *first;    /* per state: its first edge in `label`/`child` */
    uint32_t *count;    /* per state: its edges */
    uint32_t *indegree;
    uint32_t *label, *child; /* edges, grouped by state (child as a state number) */
    uint8_t *final;     /* per state */
} Graph;

static uint32_t cell_le(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The version 2 body of the graph `g` (states numbered breadth-first from the root, 0;
 * edges grouped by state in letter order): (bytes, root offset), or NULL with an exception.
 * `g` is the caller's to free. */
static PyObject *layout_graph(const Graph *gp, size_t states, size_t edges) {
    const Graph g = *gp;
    PyObject *result = NULL, *out_bytes = NULL;
    uint32_t *order = NULL, *stack = NULL, *hot = NULL, *edge_base = NULL, *bucket = NULL;
    uint8_t *placed = NULL, *kind = NULL, *ref_width = NULL, *fixed = NULL;
    uint32_t *file_child = NULL, *rel_edge = NULL, *rel_place = NULL;
    uint64_t *state_bytes = NULL;
    uint64_t *position = NULL;
#define BAD(what) do { PyErr_SetString(PyExc_ValueError, what); goto done; } while (0)
    if (!states) BAD("no root");
    /* The hot states: most referenced first, while they fit in HOT_BYTES. */
    order = malloc((states + 1) * sizeof(uint32_t));
    placed = calloc(states + 1, 1);
    hot = malloc((states + 1) * sizeof(uint32_t));
    stack = malloc((edges + 2) * sizeof(uint32_t));
    if (!order || !placed || !hot || !stack) { PyErr_NoMemory(); goto done; }
    size_t hot_count = 0, placed_count = 0;
    /* By in-degree down, then state number (the breadth-first rank) up: a counting sort
     * over the in-degrees, stable, in place of a comparison sort. */
    uint32_t top_degree = 0;
    for (size_t k = 0; k < states; k++)
        if (g.count[k] && g.indegree[k] > top_degree) top_degree = g.indegree[k];
    bucket = calloc((size_t)top_degree + 2, sizeof(uint32_t));
    if (!bucket) { PyErr_NoMemory(); goto done; }
    for (size_t k = 0; k < states; k++)
        if (g.count[k] && g.indegree[k] > 1) { bucket[top_degree - g.indegree[k] + 1]++; hot_count++; }
    for (size_t d = 0; d < top_degree; d++) bucket[d + 1] += bucket[d];
    for (size_t k = 0; k < states; k++)
        if (g.count[k] && g.indegree[k] > 1) hot[bucket[top_degree - g.indegree[k]]++] = (uint32_t)k;
    uint64_t hot_bytes = 0;
    for (size_t h = 0; h < hot_count; h++) {
        uint32_t s = hot[h];
        uint64_t size = 0;
        for (uint32_t e = g.first[s]; e < g.first[s] + g.count[s]; e++)
            size += 2 + varint_size(g.label[e] >= LABEL_ESCAPE ? g.label[e] - LABEL_ESCAPE : 0);
        if (hot_bytes + size > HOT_BYTES) break;
        hot_bytes += size;
        order[placed_count++] = s;
        placed[s] = 1;
    }
    /* Chains from the root; the hot states' children wait below it. */
    size_t top = 0;
    for (size_t h = placed_count; h-- > 0;) {
        uint32_t s = order[h];
        for (uint32_t e = g.first[s] + g.count[s]; e-- > g.first[s];) stack[top++] = g.child[e];
    }
    stack[top++] = 0;
    while (top) {
        uint32_t s = stack[--top];
        for (;;) {
            if (placed[s] || !g.count[s]) break;
            placed[s] = 1;
            order[placed_count++] = s;
            uint32_t last = g.first[s] + g.count[s] - 1;
            for (uint32_t e = last; e-- > g.first[s];) {
                uint32_t c = g.child[e];
                if (!placed[c] && g.count[c]) stack[top++] = c;
            }
            s = g.child[last];
        }
    }
    /* Edges in file order: their kinds, children, bytes before any reference, widths. */
    edge_base = malloc((placed_count + 1) * sizeof(uint32_t));
    kind = malloc(edges + 1);
    ref_width = malloc(edges + 1);
    position = malloc((states + 1) * sizeof(uint64_t));
    fixed = malloc(edges + 1);
    file_child = malloc((edges + 1) * sizeof(uint32_t));
    state_bytes = malloc((placed_count + 1) * sizeof(uint64_t));
    rel_edge = malloc((edges + 1) * sizeof(uint32_t));
    rel_place = malloc((edges + 1) * sizeof(uint32_t));
    if (!edge_base || !kind || !ref_width || !position || !fixed || !file_child || !state_bytes || !rel_edge || !rel_place) {
        PyErr_NoMemory();
        goto done;
    }
    /* One pass: each edge's kind and bytes before any reference, each state's bytes with
     * every reference one byte (where the rounds start), and the references listed apart. */
    memset(ref_width, 1, edges + 1);
    size_t at = 0, rels = 0;
    uint64_t cursor = 0;
    for (size_t p = 0; p < placed_count; p++) {
        uint32_t s = order[p], first = g.first[s], count = g.count[s];
        uint64_t bytes = 0;
        edge_base[p] = (uint32_t)at;
        for (uint32_t i = 0; i < count; i++, at++) {
            uint32_t c = g.child[first + i], label = g.label[first + i];
            uint8_t k;
            if (!g.count[c]) k = KIND_LEAF;
            else if (i == count - 1 && p + 1 < placed_count && order[p + 1] == c) k = KIND_NEXT;
            else {
                k = KIND_RELATIVE;
                rel_edge[rels] = (uint32_t)at;
                rel_place[rels++] = (uint32_t)p;
                bytes++;
            }
            kind[at] = k;
            file_child[at] = c;
            fixed[at] = (uint8_t)(1 + (label >= LABEL_ESCAPE ? varint_size(label - LABEL_ESCAPE) : 0));
            bytes += fixed[at];
        }
        state_bytes[p] = bytes;
        cursor += bytes;
    }
    /* Rounds: lay the states out with the widths so far, then grow every reference that
     * no longer fits to the shorter of its two forms; until a round grows none. A state's
     * bytes are kept whole (grown with its references) and the references listed apart,
     * so that a round is one pass over the states and one over the references. */
    for (;;) {
        cursor = 0;
        for (size_t p = 0; p < placed_count; p++) {
            position[order[p]] = cursor;
            cursor += state_bytes[p];
        }
        int grown = 0;
        for (size_t k = 0; k < rels; k++) {
            uint32_t edge = rel_edge[k], place = rel_place[k];
            uint64_t here = position[order[place]], there = position[file_child[edge]];
            unsigned relative = varint_size(zigzag((int64_t)there - (int64_t)here));
            if (relative <= ref_width[edge]) continue;  /* fits: the shorter form fits too */
            unsigned absolute = varint_size(there);
            unsigned needed = relative < absolute ? relative : absolute;
            if (needed > ref_width[edge]) {
                state_bytes[place] += needed - ref_width[edge];
                ref_width[edge] = (uint8_t)needed;
                grown = 1;
            }
        }
        if (!grown) break;
    }
    if (cursor > FORMAT_CELL_MAX) BAD("automaton too large for the native format (a body over 4 GiB)");
    out_bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cursor);
    if (!out_bytes) goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(out_bytes), *end = out + cursor;
    for (size_t p = 0; p < placed_count; p++) {
        uint32_t s = order[p];
        for (uint32_t i = 0; i < g.count[s]; i++) {
            size_t e = edge_base[p] + i;
            uint32_t label = g.label[g.first[s] + i], c = g.child[g.first[s] + i];
            unsigned k = kind[e];
            uint64_t value = 0;
            if (k == KIND_RELATIVE) {
                value = zigzag((int64_t)position[c] - (int64_t)position[s]);
                if (varint_size(value) > ref_width[e]) { k = KIND_ABSOLUTE; value = position[c]; }
            }
            *out++ = (uint8_t)((g.final[c] ? EDGE_FINAL : 0) | (i == g.count[s] - 1 ? EDGE_LAST : 0) | k << EDGE_KIND_SHIFT |
                               (label < LABEL_ESCAPE ? label : LABEL_ESCAPE));
            if (label >= LABEL_ESCAPE) out = put_varint(out, label - LABEL_ESCAPE, 1);
            if (k == KIND_RELATIVE || k == KIND_ABSOLUTE) out = put_varint(out, value, ref_width[e]);
        }
    }
    if (out != end) BAD("version 2 layout and bytes disagree");
    /* A root without edges (an empty list) is the leaf: the end of an empty body. */
    result = Py_BuildValue("(OK)", out_bytes, (unsigned long long)(g.count[0] ? position[0] : cursor));
#undef BAD
done:
    Py_XDECREF(out_bytes);
    free(order); free(stack); free(hot); free(edge_base); free(bucket);
    free(placed); free(kind); free(ref_width); free(position); free(fixed); free(file_child);
    free(rel_edge); free(rel_place); free(state_bytes);
    return result;
}

static void graph_free(Graph *g) {
    free(g->first); free(g->count); free(g->indegree); free(g->final); free(g->label); free(g->child);
}

/* compact_body(cells, root, alphabet_size) -> (bytes, root offset) */
static PyObject *compact_body(PyObject *self, PyObject *args) {
    Py_buffer view;
    unsigned long long root_cell;
    unsigned int alphabet_size;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*KI", &view, &root_cell, &alphabet_size)) return NULL;
    const uint8_t *bytes = view.buf;
    uint64_t n_cells = (uint64_t)view.len / 4, width = format_header_cells(alphabet_size);
    PyObject *result = NULL;
    Graph g = {0};
    uint32_t *number = NULL, *seen = NULL;
    size_t states = 0, edges = 0;
#define BAD(what) do { PyErr_SetString(PyExc_ValueError, what); goto done; } while (0)
    if (root_cell >= n_cells) BAD("root outside the cells");
    number = malloc((size_t)n_cells * sizeof(uint32_t));
    seen = malloc((size_t)n_cells * sizeof(uint32_t));
    g.first = malloc((size_t)n_cells * sizeof(uint32_t));
    g.count = malloc((size_t)n_cells * sizeof(uint32_t));
    g.indegree = calloc((size_t)n_cells, sizeof(uint32_t));
    g.final = malloc((size_t)n_cells);
    g.label = malloc((size_t)n_cells * sizeof(uint32_t));
    g.child = malloc((size_t)n_cells * sizeof(uint32_t));
    if (!number || !seen || !g.first || !g.count || !g.indegree || !g.final || !g.label || !g.child) { PyErr_NoMemory(); goto done; }
    for (uint64_t i = 0; i < n_cells; i++) number[i] = UINT32_MAX;
    /* Breadth-first from the root: state numbers, edges in letter order. */
    number[root_cell] = 0;
    seen[states++] = (uint32_t)root_cell;
    for (size_t k = 0; k < states; k++) {
        uint64_t cell = seen[k];
        if (cell + width > n_cells) BAD("a state outside the cells");
        g.first[k] = (uint32_t)edges;
        g.final[k] = (cell_le(bytes + 4 * (cell + width - 1)) & FINAL_FLAG) != 0;
        uint64_t slot = cell + width;
        for (uint64_t w = 0; w < width; w++) {
            uint32_t bits = cell_le(bytes + 4 * (cell + w));
            if (w == width - 1) bits &= ~FINAL_FLAG;
            while (bits) {
                uint32_t bit = lowest_bit32(bits);
                bits &= bits - 1;
                if (slot >= n_cells) BAD("a transition outside the cells");
                uint32_t target = cell_le(bytes + 4 * slot++);
                if (target >= n_cells) BAD("a transition outside the cells");
                if (number[target] == UINT32_MAX) {
                    number[target] = (uint32_t)states;
                    seen[states++] = target;
                }
                g.label[edges] = (uint32_t)(32 * w + bit);
                g.child[edges] = number[target];
                g.indegree[number[target]]++;
                edges++;
            }
        }
        g.count[k] = (uint32_t)edges - g.first[k];
    }
    result = layout_graph(&g, states, edges);
#undef BAD
done:
    free(number); free(seen);
    graph_free(&g);
    PyBuffer_Release(&view);
    return result;
}

/* expand(body, root, alphabet_size) -> (bytearray of cells in native order, root cell): the
 * version 1 cells of a version 2 body, the twin of compact.expand_compact (same cells,
 * same refusals). States are numbered breadth-first from the root, children in letter
 * order; each offset is one state (reached both as final and not: damaged). */
static PyObject *expand(PyObject *self, PyObject *args) {
    Py_buffer view, keep_view = {0};
    unsigned long long root;
    unsigned int alphabet_size;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*KI|y*", &view, &root, &alphabet_size, &keep_view)) return NULL;
    const uint8_t *body = view.buf;
    uint64_t size = (uint64_t)view.len;
    PyObject *result = NULL, *cells = NULL;
    uint32_t *first = NULL, *order = NULL;
    uint8_t *finality = NULL;
    /* keep (optional): per label, its bit in the cells (0-30), or 0xFF: the edge is left out
     * (compact.project_cells's twin: the part of the automaton spelled with kept letters). */
    const uint8_t *keep = keep_view.buf;
    uint64_t width = keep ? 1 : format_header_cells(alphabet_size);
    if (keep && (uint64_t)keep_view.len != alphabet_size) {
        PyErr_SetString(PyExc_ValueError, "keep: one byte a letter");
        goto done;
    }
    if (keep)
        for (unsigned int i = 0; i < alphabet_size; i++)
            if (keep[i] != 0xFF && keep[i] >= FORMAT_ONE_CELL_LETTERS) {
                PyErr_SetString(PyExc_ValueError, "keep: a bit over 30");
                goto done;
            }
    if (size >= 0xFFFFFFFFull) { PyErr_SetString(PyExc_ValueError, "damaged: a body of 4 GiB or more"); goto done; }
    if (root > size) { PyErr_SetString(PyExc_ValueError, "damaged: a root outside the file"); goto done; }
    first = PyMem_Malloc((size_t)(size + 1) * sizeof(uint32_t));
    order = PyMem_Malloc((size_t)(size + 1) * sizeof(uint32_t));
    finality = PyMem_Malloc((size_t)(size + 1));
    if (!first || !order || !finality) { PyErr_NoMemory(); goto done; }
    memset(finality, 2, (size_t)(size + 1)); /* 2: not met yet */
    size_t head = 0, tail = 0;
    uint64_t cursor = 0;
    order[tail++] = (uint32_t)root;
    finality[root] = 0;
    while (head < tail) {
        uint64_t state = order[head++];
        first[state] = (uint32_t)cursor;
        uint64_t count = 0, pos = state;
        int64_t previous = -1;
        if (state < size) {
            for (;;) {
                Edge2 e;
                if (format2_edge(body, size, state, previous, alphabet_size, &pos, &e) < 0) { PyErr_SetString(PyExc_ValueError, "damaged: a bad edge"); goto done; }
                previous = e.label;
                if (keep && keep[e.label] == 0xFF) {
                    if (e.last) break;
                    continue;
                }
                count++;
                if (finality[e.target] == 2) {
                    finality[e.target] = (uint8_t)e.final;
                    order[tail++] = (uint32_t)e.target;
                } else if (finality[e.target] != e.final) {
                    PyErr_SetString(PyExc_ValueError, "damaged: a state both final and not");
                    goto done;
                }
                if (e.last) break;
            }
        }
        cursor += width + count;
        if (cursor > FORMAT_CELL_MAX) { PyErr_SetString(PyExc_ValueError, "damaged: too many cells"); goto done; }
    }
    cells = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(cursor * 4));
    if (!cells) goto done;
    uint32_t *out = (uint32_t *)PyByteArray_AS_STRING(cells);
    uint64_t at = 0;
    for (size_t k = 0; k < tail; k++) {
        uint64_t state = order[k], pos = state;
        uint64_t slot = at + width;
        for (uint64_t i = 0; i < width; i++) out[at + i] = 0;
        if (finality[state] == 1) out[at + width - 1] |= FINAL_FLAG;
        int64_t previous = -1;
        if (state < size) {
            for (;;) {
                Edge2 e;
                if (format2_edge(body, size, state, previous, alphabet_size, &pos, &e) < 0) { PyErr_SetString(PyExc_ValueError, "damaged: a bad edge"); goto done; }
                previous = e.label;
                if (keep) {
                    if (keep[e.label] != 0xFF) {
                        out[at] |= 1u << keep[e.label];
                        out[slot++] = first[e.target];
                    }
                    if (e.last) break;
                    continue;
                }
                out[at + e.label / 32] |= 1u << (e.label % 32);
                out[slot++] = first[e.target];
                if (e.last) break;
            }
        }
        at = slot;
    }
    result = Py_BuildValue("(OI)", cells, 0u);
done:
    Py_XDECREF(cells);
    PyMem_Free(first);
    PyMem_Free(order);
    PyMem_Free(finality);
    PyBuffer_Release(&view);
    if (keep_view.obj) PyBuffer_Release(&keep_view);
    return result;
}

/* varint(value, size) -> bytes: put_varint's bytes (tested against compact.varint at
 * every 7-bit boundary, so that a sizing error like the one of 2026-11 cannot return). */
static PyObject *varint_py(PyObject *self, PyObject *args) {
    unsigned long long value;
    unsigned int size;
    uint8_t out[16];
    (void)self;
    if (!PyArg_ParseTuple(args, "KI", &value, &size)) return NULL;
    if (size > 10 || value > UINT32_MAX * 2ull + 1) {
        PyErr_SetString(PyExc_ValueError, "a value over 33 bits or a size over 10 bytes");
        return NULL;
    }
    uint8_t *end = put_varint(out, value, size);
    return PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)(end - out));
}

/* varint_size(value) -> int: the bytes of value as the writer sizes it. */
static PyObject *varint_size_py(PyObject *self, PyObject *arg) {
    (void)self;
    unsigned long long value = PyLong_AsUnsignedLongLong(arg);
    if (value == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    return PyLong_FromUnsignedLong(varint_size(value));
}
