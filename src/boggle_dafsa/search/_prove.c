/* The compiled twin of boggle_dafsa.search.prove.prove_class_python: one board class
 * bounded by an orderly tree and branched on, cell by cell.
 *
 * lexicon(masks, firsts, values, faces) checks a trie once (every child index inside
 * it and after its parent, every mask within the faces) and returns a capsule;
 * prove_class(capsule, table, face_masks, order, minimum, node_budget, max_candidates)
 * returns (bound, nodes, branches, candidates, complete) exactly as the twin does, or
 * None past max_candidates candidates. See prove.py for the method; the names below
 * follow the twin's.
 *
 * C99, no dependency beyond Python's headers. Loops are bounded: the tree by the node
 * budget, paths by the cells, the branching by the tree (each level consumes one cell).
 * Ctrl-C is heard every few thousand steps (the GIL is held: a class is short).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Not the file format (this kernel reads a trie of its own): the shared bit helpers,
 * popcount32 and lowest_bit32. */
#include "../automaton/_format.h"

#define MAX_CELLS 32
#define MAX_FACES 32
#define CAPSULE_NAME "boggle_dafsa.search._prove.lexicon"
#define SIGNAL_EVERY 65536u

typedef struct {
    uint32_t *masks;
    int32_t *firsts;
    int32_t *values;
    /* 1 when the word (or prefix) of a node has a face twice: only such a word can be
     * found twice on one set of cells with the same letters (two paths), so only its
     * insertions are looked up in the set of pairs already counted. Skipping that look-up
     * can only count a word more often, so a trie that lies here still gives a bound. */
    uint8_t *repeats;
    Py_ssize_t count;
    int faces;
} Lexicon;

/* A tree node: a sum node (label: the face that led to it, value: points of the words
 * ending here) or a choice node (label: the rank of its cell). Children form a list. */
typedef struct {
    int32_t child;
    int32_t sibling;
    uint8_t label;
} Node;

typedef struct {
    int32_t *items;
    size_t size, capacity;
} Stack;

typedef struct {
    const Lexicon *lexicon;
    int cells;
    int degree[MAX_CELLS];
    int table[MAX_CELLS][MAX_CELLS];
    uint32_t sets[MAX_CELLS];
    int order[MAX_CELLS];
    int rank[MAX_CELLS];
    int64_t minimum;
    Py_ssize_t node_budget, max_candidates;
    /* the tree */
    Node *nodes; /* what a lookup reads, apart from the values, so that it reads less memory */
    int64_t *bounds; /* a sum node's points until settle() makes them its bound */
    size_t count, capacity;
    /* (sum node, word) pairs already counted: open addressing, 0 is empty */
    uint64_t *seen;
    size_t seen_count, seen_capacity;
    /* the path being walked */
    int path_cells[MAX_CELLS], path_faces[MAX_CELLS], depth;
    int last_ranks[MAX_CELLS], last_faces[MAX_CELLS], last_length;
    int32_t last_nodes[MAX_CELLS];
    uint32_t used;
    int over_budget, failed;
    unsigned ticks;
    /* the branching */
    Stack frontier[MAX_CELLS];
    uint8_t board[MAX_CELLS];
    uint8_t *candidates;
    size_t candidate_count, candidate_capacity;
    long long branches;
    int too_many;
} Work;

static void lexicon_free(PyObject *capsule) {
    Lexicon *lexicon = (Lexicon *)PyCapsule_GetPointer(capsule, CAPSULE_NAME);
    if (lexicon == NULL) return;
    free(lexicon->masks);
    free(lexicon->firsts);
    free(lexicon->values);
    free(lexicon->repeats);
    free(lexicon);
}

static PyObject *make_lexicon(PyObject *self, PyObject *args) {
    Py_buffer masks, firsts, values;
    int faces;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*i", &masks, &firsts, &values, &faces)) return NULL;
    PyObject *result = NULL;
    Lexicon *lexicon = NULL;
    Py_ssize_t count = masks.len / 4;
    if (faces < 1 || faces > MAX_FACES || masks.len % 4 || firsts.len != masks.len || values.len != masks.len ||
        count < 1 || count > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "lexicon: arrays of unequal or bad sizes");
        goto done;
    }
    lexicon = (Lexicon *)calloc(1, sizeof(Lexicon));
    if (lexicon == NULL) goto nomemory;
    lexicon->count = count;
    lexicon->faces = faces;
    lexicon->masks = (uint32_t *)malloc((size_t)count * 4);
    lexicon->firsts = (int32_t *)malloc((size_t)count * 4);
    lexicon->values = (int32_t *)malloc((size_t)count * 4);
    if (!lexicon->masks || !lexicon->firsts || !lexicon->values) goto nomemory;
    memcpy(lexicon->masks, masks.buf, (size_t)count * 4);
    memcpy(lexicon->firsts, firsts.buf, (size_t)count * 4);
    memcpy(lexicon->values, values.buf, (size_t)count * 4);
    for (Py_ssize_t i = 0; i < count; i++) {
        uint32_t mask = lexicon->masks[i];
        int64_t first = lexicon->firsts[i];
        if ((faces < 32 && (mask >> faces)) || lexicon->values[i] < 0 || lexicon->values[i] > (1 << 24) ||
            (mask && (first <= i || first + (int64_t)popcount32(mask) > count))) {
            PyErr_Format(PyExc_ValueError, "lexicon: node %zd points outside the trie", i);
            goto done;
        }
    }
    lexicon->repeats = (uint8_t *)calloc((size_t)count, 1);
    uint32_t *seen_faces = (uint32_t *)calloc((size_t)count, sizeof(uint32_t));
    if (lexicon->repeats == NULL || seen_faces == NULL) {
        free(seen_faces);
        goto nomemory;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        uint32_t mask = lexicon->masks[i];
        int32_t child = lexicon->firsts[i];
        while (mask) {
            uint32_t bit = mask & (~mask + 1u);
            mask &= mask - 1;
            lexicon->repeats[child] = (uint8_t)(lexicon->repeats[i] || (seen_faces[i] & bit));
            seen_faces[child] = seen_faces[i] | bit;
            child++;
        }
    }
    free(seen_faces);
    result = PyCapsule_New(lexicon, CAPSULE_NAME, lexicon_free);
    if (result != NULL) lexicon = NULL;
    goto done;
nomemory:
    PyErr_NoMemory();
done:
    if (lexicon != NULL) {
        free(lexicon->masks);
        free(lexicon->firsts);
        free(lexicon->values);
        free(lexicon->repeats);
        free(lexicon);
    }
    PyBuffer_Release(&masks);
    PyBuffer_Release(&firsts);
    PyBuffer_Release(&values);
    return result;
}

static int32_t new_node(Work *work, uint8_t label) {
    if (work->count == work->capacity) {
        size_t capacity = work->capacity ? work->capacity * 2 : 4096;
        Node *grown = (Node *)realloc(work->nodes, capacity * sizeof(Node));
        if (grown != NULL) work->nodes = grown;
        int64_t *bounds = grown ? (int64_t *)realloc(work->bounds, capacity * sizeof(int64_t)) : NULL;
        if (bounds == NULL) {
            work->failed = 1;
            return -1;
        }
        work->bounds = bounds;
        work->capacity = capacity;
    }
    Node *node = &work->nodes[work->count];
    node->child = -1;
    node->sibling = -1;
    node->label = label;
    work->bounds[work->count] = 0;
    return (int32_t)work->count++;
}

/* The child of `parent` labelled `label`, made if need be (-1 when out of memory). */
static int32_t child_of(Work *work, int32_t parent, uint8_t label) {
    Node *nodes = work->nodes;
    int32_t before = -1;
    for (int32_t child = nodes[parent].child; child >= 0; before = child, child = nodes[child].sibling) {
        if (nodes[child].label != label) continue;
        if (before >= 0) {
            /* Move to the front: the words of a walk come in runs that share their first
             * cells, so the child just used is the likeliest next (the order of children
             * changes no bound). */
            nodes[before].sibling = nodes[child].sibling;
            nodes[child].sibling = nodes[parent].child;
            nodes[parent].child = child;
        }
        return child;
    }
    int32_t child = new_node(work, label);
    if (child < 0) return -1;
    work->nodes[child].sibling = work->nodes[parent].child;
    work->nodes[parent].child = child;
    return child;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* 1 if the pair was new (and is now seen), 0 if seen before, -1 out of memory. */
static int first_time(Work *work, uint64_t key) {
    key += 1; /* 0 marks an empty slot */
    if ((work->seen_count + 1) * 2 > work->seen_capacity) {
        size_t capacity = work->seen_capacity ? work->seen_capacity * 2 : 1024;
        uint64_t *table = (uint64_t *)calloc(capacity, sizeof(uint64_t));
        if (table == NULL) return -1;
        for (size_t i = 0; i < work->seen_capacity; i++) {
            uint64_t old = work->seen[i];
            if (!old) continue;
            size_t slot = (size_t)mix(old) & (capacity - 1);
            while (table[slot]) slot = (slot + 1) & (capacity - 1);
            table[slot] = old;
        }
        free(work->seen);
        work->seen = table;
        work->seen_capacity = capacity;
    }
    size_t slot = (size_t)mix(key) & (work->seen_capacity - 1);
    while (work->seen[slot]) {
        if (work->seen[slot] == key) return 0;
        slot = (slot + 1) & (work->seen_capacity - 1);
    }
    work->seen[slot] = key;
    work->seen_count++;
    return 1;
}

static void add_word(Work *work, int32_t word) {
    int ranks[MAX_CELLS], faces[MAX_CELLS];
    int length = work->depth;
    for (int i = 0; i < length; i++) {
        /* insertion sort by rank (ranks are distinct: a path uses a cell once) */
        int rank = work->rank[work->path_cells[i]], face = work->path_faces[i], j = i;
        while (j > 0 && ranks[j - 1] > rank) {
            ranks[j] = ranks[j - 1];
            faces[j] = faces[j - 1];
            j--;
        }
        ranks[j] = rank;
        faces[j] = face;
    }
    /* The previous word's pairs and nodes: the walk's words come in runs whose sorted
     * pairs share a beginning, which need not be looked up again (nodes never move). */
    int same = 0;
    while (same < length && same < work->last_length && work->last_ranks[same] == ranks[same] &&
           work->last_faces[same] == faces[same])
        same++;
    int32_t node = same ? work->last_nodes[same - 1] : 0;
    for (int i = same; i < length; i++) {
        int32_t choice = child_of(work, node, (uint8_t)ranks[i]);
        if (choice < 0) return;
        node = child_of(work, choice, (uint8_t)faces[i]);
        if (node < 0) return;
        work->last_ranks[i] = ranks[i];
        work->last_faces[i] = faces[i];
        work->last_nodes[i] = node;
    }
    work->last_length = length;
    if ((Py_ssize_t)work->count > work->node_budget) {
        work->over_budget = 1;
        return;
    }
    int fresh = work->lexicon->repeats[word] ? first_time(work, ((uint64_t)(uint32_t)node << 32) | (uint32_t)word) : 1;
    if (fresh < 0) {
        work->failed = 1;
        return;
    }
    if (fresh) work->bounds[node] += work->lexicon->values[word];
}

static int stopped(Work *work) {
    if (work->over_budget || work->failed) return 1;
    if (++work->ticks % SIGNAL_EVERY == 0 && PyErr_CheckSignals() < 0) {
        work->failed = 2;
        return 1;
    }
    return 0;
}

static void visit(Work *work, int cell, int32_t trie) {
    const Lexicon *lexicon = work->lexicon;
    uint32_t mask = lexicon->masks[trie];
    uint32_t faces = work->sets[cell] & mask;
    work->used |= 1u << cell;
    work->path_cells[work->depth] = cell;
    while (faces) {
        int face = (int)lowest_bit32(faces);
        faces &= faces - 1;
        int32_t child = lexicon->firsts[trie] + (int32_t)popcount32(mask & ((1u << face) - 1u));
        work->path_faces[work->depth] = face;
        work->depth++;
        if (lexicon->values[child]) add_word(work, child);
        if (lexicon->masks[child] && !stopped(work)) {
            for (int i = 0; i < work->degree[cell]; i++) {
                int other = work->table[cell][i];
                if (!(work->used >> other & 1u)) visit(work, other, child);
                if (work->over_budget || work->failed) break;
            }
        }
        work->depth--;
        if (work->over_budget || work->failed) break;
    }
    work->used &= ~(1u << cell);
}

/* Bounds bottom-up: a sum node's points plus its choices' bounds, a choice's the most of its children's. */
static int64_t settle(Work *work, int32_t sum) {
    int64_t total = work->bounds[sum];
    for (int32_t choice = work->nodes[sum].child; choice >= 0; choice = work->nodes[choice].sibling) {
        int64_t best = 0;
        for (int32_t child = work->nodes[choice].child; child >= 0; child = work->nodes[child].sibling) {
            int64_t value = settle(work, child);
            if (value > best) best = value;
        }
        work->bounds[choice] = best;
        total += best;
    }
    work->bounds[sum] = total;
    return total;
}

static int push(Stack *stack, int32_t item) {
    if (stack->size == stack->capacity) {
        size_t capacity = stack->capacity ? stack->capacity * 2 : 64;
        int32_t *grown = (int32_t *)realloc(stack->items, capacity * sizeof(int32_t));
        if (grown == NULL) return -1;
        stack->items = grown;
        stack->capacity = capacity;
    }
    stack->items[stack->size++] = item;
    return 0;
}

static void branch(Work *work, int position, int64_t bound) {
    work->branches++;
    if (position == work->cells) {
        if ((Py_ssize_t)work->candidate_count >= work->max_candidates) {
            work->too_many = 1;
            return;
        }
        if (work->candidate_count == work->candidate_capacity) {
            size_t capacity = work->candidate_capacity ? work->candidate_capacity * 2 : 64;
            uint8_t *grown = (uint8_t *)realloc(work->candidates, capacity * (size_t)work->cells);
            if (grown == NULL) {
                work->failed = 1;
                return;
            }
            work->candidates = grown;
            work->candidate_capacity = capacity;
        }
        memcpy(work->candidates + work->candidate_count * (size_t)work->cells, work->board, (size_t)work->cells);
        work->candidate_count++;
        return;
    }
    if (stopped(work)) return;
    Stack *here = &work->frontier[position];
    int64_t base = bound;
    int64_t delta[MAX_FACES];
    memset(delta, 0, sizeof(delta));
    const Node *nodes = work->nodes;
    const int64_t *bounds = work->bounds;
    for (size_t i = 0; i < here->size; i++) {
        int32_t choice = here->items[i];
        base -= bounds[choice];
        for (int32_t child = nodes[choice].child; child >= 0; child = nodes[child].sibling) {
            delta[nodes[child].label] += bounds[child];
        }
    }
    int cell = work->order[position];
    uint32_t faces = work->sets[cell];
    size_t sizes[MAX_CELLS];
    while (faces) {
        int face = (int)lowest_bit32(faces);
        faces &= faces - 1;
        int64_t value = base + delta[face];
        if (value < work->minimum) continue;
        work->board[cell] = (uint8_t)face;
        for (int later = position + 1; later < work->cells; later++) sizes[later] = work->frontier[later].size;
        for (size_t i = 0; i < here->size; i++) {
            for (int32_t child = nodes[here->items[i]].child; child >= 0; child = nodes[child].sibling) {
                if (nodes[child].label != face) continue;
                for (int32_t choice = nodes[child].child; choice >= 0; choice = nodes[choice].sibling) {
                    if (push(&work->frontier[nodes[choice].label], choice) < 0) {
                        work->failed = 1;
                        return;
                    }
                }
                break;
            }
        }
        branch(work, position + 1, value);
        for (int later = position + 1; later < work->cells; later++) work->frontier[later].size = sizes[later];
        if (work->failed || work->too_many) return;
    }
}

static PyObject *prove_class(PyObject *self, PyObject *args) {
    PyObject *capsule, *table, *sets, *order;
    long long minimum;
    Py_ssize_t node_budget, max_candidates;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOLnn", &capsule, &table, &sets, &order, &minimum, &node_budget, &max_candidates))
        return NULL;
    Lexicon *lexicon = (Lexicon *)PyCapsule_GetPointer(capsule, CAPSULE_NAME);
    if (lexicon == NULL) return NULL;
    Work *work = (Work *)calloc(1, sizeof(Work));
    if (work == NULL) return PyErr_NoMemory();
    PyObject *result = NULL;
    work->lexicon = lexicon;
    work->minimum = minimum;
    work->node_budget = node_budget;
    work->max_candidates = max_candidates;
    if (!PyList_Check(table) || !PyList_Check(sets) || !PyList_Check(order)) {
        PyErr_SetString(PyExc_TypeError, "prove_class: table, sets and order must be lists");
        goto done;
    }
    Py_ssize_t cells = PyList_GET_SIZE(sets);
    if (cells < 1 || cells > MAX_CELLS || PyList_GET_SIZE(table) != cells || PyList_GET_SIZE(order) != cells) {
        PyErr_SetString(PyExc_ValueError, "prove_class: 1 to 32 cells, as many in the table, sets and order");
        goto done;
    }
    work->cells = (int)cells;
    for (int cell = 0; cell < work->cells; cell++) work->rank[cell] = -1;
    for (int cell = 0; cell < work->cells; cell++) {
        unsigned long long mask = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(sets, cell));
        long position = PyLong_AsLong(PyList_GET_ITEM(order, cell));
        if (PyErr_Occurred()) goto done;
        if ((lexicon->faces < 32 && (mask >> lexicon->faces)) || mask > UINT32_MAX || position < 0 ||
            position >= cells || work->rank[position] >= 0) {
            PyErr_SetString(PyExc_ValueError, "prove_class: a letter set outside the faces, or an order that is no permutation");
            goto done;
        }
        work->sets[cell] = (uint32_t)mask;
        work->order[cell] = (int)position;
        work->rank[position] = cell;
        PyObject *row = PyList_GET_ITEM(table, cell);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) > cells) {
            PyErr_SetString(PyExc_ValueError, "prove_class: a neighbour row is no tuple of cells");
            goto done;
        }
        work->degree[cell] = (int)PyTuple_GET_SIZE(row);
        for (int i = 0; i < work->degree[cell]; i++) {
            long other = PyLong_AsLong(PyTuple_GET_ITEM(row, i));
            if (PyErr_Occurred()) goto done;
            if (other < 0 || other >= cells || other == cell) {
                PyErr_SetString(PyExc_ValueError, "prove_class: a neighbour outside the grid");
                goto done;
            }
            work->table[cell][i] = (int)other;
        }
    }
    /* rank[order[r]] = r: the loop above stored the inverse the other way round */
    for (int position = 0; position < work->cells; position++) work->rank[work->order[position]] = position;
    if (new_node(work, 0) < 0) goto nomemory;
    for (int start = 0; start < work->cells && !work->over_budget && !work->failed; start++) visit(work, start, 0);
    if (work->failed == 2) goto done; /* interrupted: the exception is set */
    if (work->failed) goto nomemory;
    if (work->over_budget) {
        result = Py_BuildValue("(Ln" "Ly#i)", 0LL, (Py_ssize_t)work->count, 0LL, "", (Py_ssize_t)0, 0);
        goto done;
    }
    int64_t bound = settle(work, 0);
    for (int32_t choice = work->nodes[0].child; choice >= 0; choice = work->nodes[choice].sibling) {
        if (push(&work->frontier[work->nodes[choice].label], choice) < 0) goto nomemory;
    }
    if (bound >= work->minimum) branch(work, 0, bound);
    if (work->failed == 2) goto done;
    if (work->failed) goto nomemory;
    if (work->too_many) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    result = Py_BuildValue("(LnLy#i)", (long long)bound, (Py_ssize_t)work->count, work->branches,
                           work->candidates ? (const char *)work->candidates : "",
                           (Py_ssize_t)(work->candidate_count * (size_t)work->cells), 1);
    goto done;
nomemory:
    PyErr_NoMemory();
done:
    free(work->nodes);
    free(work->bounds);
    free(work->seen);
    free(work->candidates);
    for (int i = 0; i < MAX_CELLS; i++) free(work->frontier[i].items);
    free(work);
    return result;
}

static PyMethodDef methods[] = {
    {"lexicon", make_lexicon, METH_VARARGS, "lexicon(masks, firsts, values, faces): a checked trie (a capsule)."},
    {"prove_class", prove_class, METH_VARARGS,
     "prove_class(lexicon, table, face_masks, order, minimum, node_budget, max_candidates): "
     "(bound, nodes, branches, candidates, complete), or None past max_candidates."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_prove", "Compiled twin of boggle_dafsa.search.prove.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__prove(void) { return PyModule_Create(&module); }
