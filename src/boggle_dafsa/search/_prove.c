/* The compiled twin of boggle_dafsa.search.prove.prove_class_python: one board class
 * bounded by an orderly tree and branched on, cell by cell.
 *
 * lexicon(masks, firsts, values, faces) checks a trie once (every child index inside
 * it and after its parent, every mask within the faces) and returns a capsule;
 * prove_class(capsule, table, face_masks, order, minimum, node_budget, max_candidates,
 * switch_score, force_depth) returns (bound, nodes, branches, candidates, complete)
 * exactly as the twin does, or
 * None past max_candidates candidates. See prove.py for the method; the names below
 * follow the twin's.
 *
 * C99, no dependency beyond Python's headers. Loops are bounded: the word instances and
 * the tree by the node budget, paths by the cells, the branching by the tree (each level
 * consumes one cell).
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
/* node indices are int32: the tree and its merged nodes (9/5 of the budget) stay below 2**31 */
#define MAX_BUDGET ((Py_ssize_t)1 << 30)

typedef struct {
    uint32_t *masks;
    int32_t *firsts;
    int32_t *values;
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
    /* the word instances of the walk, as records (see add_word) */
    uint8_t *records;
    size_t record_count, record_capacity, stride;
    /* the path being walked */
    int path_cells[MAX_CELLS], path_faces[MAX_CELLS], depth;
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
    /* the forcing (merged trees) above the switch: see explore() */
    int64_t switch_score;
    int force_depth;
    size_t merge_limit;
    int over_limit;
} Work;

static void lexicon_free(PyObject *capsule) {
    Lexicon *lexicon = (Lexicon *)PyCapsule_GetPointer(capsule, CAPSULE_NAME);
    if (lexicon == NULL) return;
    free(lexicon->masks);
    free(lexicon->firsts);
    free(lexicon->values);
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
        free(lexicon);
    }
    PyBuffer_Release(&masks);
    PyBuffer_Release(&firsts);
    PyBuffer_Release(&values);
    return result;
}

/* The sizes the previous class reached: the next starts there, rather than doubling its way
 * up (copies and page faults). Read and written with the GIL held. */
static size_t node_hint = 4096, record_hint = 4096;

static int32_t new_node(Work *work, uint8_t label) {
    if (work->merge_limit && work->count >= work->merge_limit) {
        work->over_limit = 1;
        return -1;
    }
    if (work->count == work->capacity) {
        size_t capacity = work->capacity ? work->capacity * 2 : node_hint;
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

/* A new child of `parent` labelled `label` (-1 when out of memory). */
static int32_t attach(Work *work, int32_t parent, uint8_t label) {
    int32_t child = new_node(work, label);
    if (child < 0) return -1;
    work->nodes[child].sibling = work->nodes[parent].child;
    work->nodes[parent].child = child;
    return child;
}

/* The walk's word instances are not inserted one by one (a look-up down the tree each,
 * one cache miss a level): each is written as a record, the face (plus one) of each of
 * its cells at the cell's rank and 0 elsewhere, then its word; the records are sorted
 * (least significant byte first, a counting sort a byte) and the tree is made in one
 * pass, each node appended once, as a trie is made from sorted keys. */
static void add_word(Work *work, int32_t word) {
    if (work->record_count == work->record_capacity) {
        size_t capacity = work->record_capacity ? work->record_capacity * 2 : record_hint;
        uint8_t *grown = (uint8_t *)realloc(work->records, capacity * work->stride);
        if (grown == NULL) {
            work->failed = 1;
            return;
        }
        work->records = grown;
        work->record_capacity = capacity;
    }
    uint8_t *record = work->records + work->record_count * work->stride;
    memset(record, 0, (size_t)work->cells);
    for (int i = 0; i < work->depth; i++) record[work->rank[work->path_cells[i]]] = (uint8_t)(work->path_faces[i] + 1);
    uint32_t number = (uint32_t)word;
    for (int i = 0; i < 4; i++) record[work->cells + i] = (uint8_t)(number >> (8 * (3 - i)));
    work->record_count++;
    if ((Py_ssize_t)work->record_count > work->node_budget) work->over_budget = 1;
}

static int sort_records(Work *work) {
    size_t count = work->record_count, stride = work->stride;
    if (count < 2) return 0;
    uint8_t *other = (uint8_t *)malloc(count * stride + 1);
    if (other == NULL) return -1;
    uint8_t *from = work->records, *to = other;
    for (size_t position = stride; position-- > 0;) {
        size_t counts[256];
        memset(counts, 0, sizeof(counts));
        for (size_t i = 0; i < count; i++) counts[from[i * stride + position]]++;
        if (counts[from[position]] == count) continue; /* one value: nothing moves */
        size_t total = 0;
        for (int value = 0; value < 256; value++) {
            size_t here = counts[value];
            counts[value] = total;
            total += here;
        }
        for (size_t i = 0; i < count; i++) memcpy(to + counts[from[i * stride + position]]++ * stride, from + i * stride, stride);
        uint8_t *swap = from;
        from = to;
        to = swap;
    }
    work->records = from;
    free(to);
    return 0;
}

/* The tree from the sorted records: see add_word. Records equal in cells and word are one
 * word found by two paths on the same cells: counted once. */
static int build_tree(Work *work) {
    int cells = work->cells;
    size_t stride = work->stride;
    int32_t choice_at[MAX_CELLS], sum_at[MAX_CELLS];
    const uint8_t *previous = NULL;
    int32_t last = 0;
    for (size_t i = 0; i < work->record_count; i++) {
        const uint8_t *record = work->records + i * stride;
        const uint8_t *tail = record + cells;
        uint32_t word = ((uint32_t)tail[0] << 24) | ((uint32_t)tail[1] << 16) | ((uint32_t)tail[2] << 8) | tail[3];
        int differ = 0;
        if (previous != NULL) {
            while (differ < cells && record[differ] == previous[differ]) differ++;
            if (differ == cells) {
                if (memcmp(tail, previous + cells, 4) != 0) work->bounds[last] += work->lexicon->values[word];
                previous = record;
                continue;
            }
        }
        int32_t parent = 0;
        for (int r = 0; r < differ; r++)
            if (record[r]) parent = sum_at[r];
        for (int r = differ; r < cells; r++) {
            if (!record[r]) continue;
            int32_t choice = (r == differ && previous != NULL && previous[r]) ? choice_at[r] : attach(work, parent, (uint8_t)r);
            if (choice < 0) return -1;
            int32_t sum = attach(work, choice, (uint8_t)(record[r] - 1));
            if (sum < 0) return -1;
            choice_at[r] = choice;
            sum_at[r] = sum;
            parent = sum;
        }
        last = parent;
        work->bounds[last] += work->lexicon->values[word];
        previous = record;
        if ((Py_ssize_t)work->count > work->node_budget) {
            work->over_budget = 1;
            return 0;
        }
    }
    return 0;
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

static void branch(Work *work, int position, int64_t bound, uint32_t faces) {
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
        branch(work, position + 1, value, position + 1 < work->cells ? work->sets[work->order[position + 1]] : 0);
        for (int later = position + 1; later < work->cells; later++) work->frontier[later].size = sizes[later];
        if (work->failed || work->too_many) return;
    }
}

/* -- forcing: above the switch, a fixed cell's choice nodes are merged into the tree ------
 *
 * Fixing the cell of rank p to a face (the tree's choice nodes are all of rank p or more)
 * makes a new tree: the root's sum node merged with the child of that face of its choice
 * node of rank p (that choice node left out). Two sum nodes merge into one whose points
 * are the sum and whose choice nodes of the same rank merge (their children of the same
 * face merge in turn); what only one of them has is shared, through a shallow copy (the
 * node with the same children). The bound of the merged tree is never above the sum of
 * separate maxima that branch() uses, and is often well below: a choice of the merged
 * tree picks one face for all the words through its cell. New nodes are appended after
 * the tree and dropped when the branch is done; past merge_limit nodes a merge is given
 * up and branch() takes over (the limit:
 * 9/5 of the node budget, with the tree). Choice nodes are listed by rank, ascending; the children of
 * a choice node by face, descending (as build_tree makes them). */

static int64_t points_of(const Work *work, int32_t sum) {
    int64_t points = work->bounds[sum];
    for (int32_t choice = work->nodes[sum].child; choice >= 0; choice = work->nodes[choice].sibling) points -= work->bounds[choice];
    return points;
}

static int32_t copy_node(Work *work, int32_t from) {
    int32_t copy = new_node(work, work->nodes[from].label);
    if (copy < 0) return -1;
    work->nodes[copy].child = work->nodes[from].child;
    work->bounds[copy] = work->bounds[from];
    return copy;
}

static int32_t merge_sum(Work *work, int32_t a, int skip, int32_t b, uint8_t label);

/* Two choice nodes of the same rank, merged. */
static int32_t merge_choice(Work *work, int32_t a, int32_t b) {
    int32_t choice = new_node(work, work->nodes[a].label);
    if (choice < 0) return -1;
    int32_t last = -1;
    int64_t best = 0;
    int32_t x = work->nodes[a].child, y = work->nodes[b].child;
    while (x >= 0 || y >= 0) {
        int32_t made;
        if (y < 0 || (x >= 0 && work->nodes[x].label > work->nodes[y].label)) {
            made = copy_node(work, x);
            x = work->nodes[x].sibling;
        } else if (x < 0 || work->nodes[y].label > work->nodes[x].label) {
            made = copy_node(work, y);
            y = work->nodes[y].sibling;
        } else {
            made = merge_sum(work, x, -1, y, work->nodes[x].label);
            x = work->nodes[x].sibling;
            y = work->nodes[y].sibling;
        }
        if (made < 0) return -1;
        if (last < 0)
            work->nodes[choice].child = made;
        else
            work->nodes[last].sibling = made;
        last = made;
        if (work->bounds[made] > best) best = work->bounds[made];
    }
    work->bounds[choice] = best;
    return choice;
}

/* Sum node `a` (less its choice node of rank `skip`, if any) merged with sum node `b` (-1: none). */
static int32_t merge_sum(Work *work, int32_t a, int skip, int32_t b, uint8_t label) {
    int64_t total = points_of(work, a) + (b >= 0 ? points_of(work, b) : 0);
    int32_t sum = new_node(work, label);
    if (sum < 0) return -1;
    int32_t last = -1;
    int32_t x = work->nodes[a].child, y = b >= 0 ? work->nodes[b].child : -1;
    while (x >= 0 || y >= 0) {
        if (x >= 0 && work->nodes[x].label == skip) {
            x = work->nodes[x].sibling;
            continue;
        }
        int32_t made;
        if (y < 0 || (x >= 0 && work->nodes[x].label < work->nodes[y].label)) {
            made = copy_node(work, x);
            x = work->nodes[x].sibling;
        } else if (x < 0 || work->nodes[y].label < work->nodes[x].label) {
            made = copy_node(work, y);
            y = work->nodes[y].sibling;
        } else {
            made = merge_choice(work, x, y);
            x = work->nodes[x].sibling;
            y = work->nodes[y].sibling;
        }
        if (made < 0) return -1;
        if (last < 0)
            work->nodes[sum].child = made;
        else
            work->nodes[last].sibling = made;
        last = made;
        total += work->bounds[made];
    }
    work->bounds[sum] = total;
    return sum;
}

/* branch() from the tree under sum node `tree` at `position`, for the faces of `faces`. */
static void branch_from(Work *work, int32_t tree, int position, uint32_t faces) {
    for (int32_t choice = work->nodes[tree].child; choice >= 0; choice = work->nodes[choice].sibling) {
        if (push(&work->frontier[work->nodes[choice].label], choice) < 0) {
            work->failed = 1;
            return;
        }
    }
    branch(work, position, work->bounds[tree], faces);
    for (int later = position; later < work->cells; later++) work->frontier[later].size = 0;
}

/* The class from the tree under sum node `tree`, cells of rank below `position` fixed:
 * forcing while the bound is above the switch, then branch(). */
static void explore(Work *work, int32_t tree, int position) {
    int cell = position < work->cells ? work->order[position] : 0;
    if (position >= work->cells || position >= work->force_depth || work->bounds[tree] <= work->switch_score) {
        branch_from(work, tree, position, position < work->cells ? work->sets[cell] : 0);
        return;
    }
    work->branches++;
    if (stopped(work)) return;
    int64_t bound = work->bounds[tree];
    int32_t choice = work->nodes[tree].child;
    while (choice >= 0 && work->nodes[choice].label != position) choice = work->nodes[choice].sibling;
    uint32_t faces = work->sets[cell];
    while (faces) {
        int face = (int)lowest_bit32(faces);
        int32_t child = -1;
        if (choice >= 0)
            for (child = work->nodes[choice].child; child >= 0 && work->nodes[child].label != face; child = work->nodes[child].sibling) {
            }
        int64_t loose = choice < 0 ? bound : bound - work->bounds[choice] + (child >= 0 ? work->bounds[child] : 0);
        if (loose < work->minimum) {
            faces &= faces - 1;
            continue;
        }
        work->board[cell] = (uint8_t)face;
        size_t saved = work->count;
        int32_t merged = choice < 0 ? tree : merge_sum(work, tree, position, child, 0);
        if (merged < 0) {
            work->count = saved;
            if (!work->over_limit) return; /* out of memory: failed is set */
            /* too many nodes: this face and the next ones by branch() */
            work->over_limit = 0;
            branch_from(work, tree, position, faces);
            return;
        }
        if (work->bounds[merged] >= work->minimum) explore(work, merged, position + 1);
        work->count = saved;
        if (work->failed || work->too_many) return;
        faces &= faces - 1;
    }
}

static PyObject *prove_class(PyObject *self, PyObject *args) {
    PyObject *capsule, *table, *sets, *order;
    long long minimum, switch_score;
    Py_ssize_t node_budget, max_candidates;
    int force_depth;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOLnnLi", &capsule, &table, &sets, &order, &minimum, &node_budget, &max_candidates,
                          &switch_score, &force_depth))
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
    work->switch_score = switch_score;
    work->force_depth = force_depth;
    if (!PyList_Check(table) || !PyList_Check(sets) || !PyList_Check(order)) {
        PyErr_SetString(PyExc_TypeError, "prove_class: table, sets and order must be lists");
        goto done;
    }
    Py_ssize_t cells = PyList_GET_SIZE(sets);
    if (cells < 1 || cells > MAX_CELLS || PyList_GET_SIZE(table) != cells || PyList_GET_SIZE(order) != cells) {
        PyErr_SetString(PyExc_ValueError, "prove_class: 1 to 32 cells, as many in the table, sets and order");
        goto done;
    }
    if (node_budget < 1 || node_budget > MAX_BUDGET) {
        PyErr_SetString(PyExc_ValueError, "prove_class: the node budget must be 1 to 2**30");
        goto done;
    }
    work->cells = (int)cells;
    work->stride = (size_t)cells + 4;
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
    if (!work->over_budget && (sort_records(work) < 0 || build_tree(work) < 0)) goto nomemory;
    if (work->over_budget) {
        result = Py_BuildValue("(LnLy#i)", 0LL, (Py_ssize_t)0, 0LL, "", (Py_ssize_t)0, 0);
        goto done;
    }
    int64_t bound = settle(work, 0);
    /* the records are done with: their memory goes to the merged trees */
    if (work->record_capacity >= 4096) record_hint = work->record_capacity;
    free(work->records);
    work->records = NULL;
    work->record_capacity = 0;
    size_t tree_nodes = work->count;
    /* as prove.py's MERGED_NODES: the tree and its merged nodes, 9/5 of the budget in all */
    work->merge_limit = (size_t)node_budget * 9 / 5;
    if (bound >= work->minimum) explore(work, 0, 0);
    if (work->failed == 2) goto done;
    if (work->failed) goto nomemory;
    if (work->too_many) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    result = Py_BuildValue("(LnLy#i)", (long long)bound, (Py_ssize_t)tree_nodes, work->branches,
                           work->candidates ? (const char *)work->candidates : "",
                           (Py_ssize_t)(work->candidate_count * (size_t)work->cells), 1);
    goto done;
nomemory:
    PyErr_NoMemory();
done:
    if (work->capacity >= 4096) node_hint = work->capacity;
    if (work->record_capacity >= 4096) record_hint = work->record_capacity;
    free(work->nodes);
    free(work->bounds);
    free(work->records);
    free(work->candidates);
    for (int i = 0; i < MAX_CELLS; i++) free(work->frontier[i].items);
    free(work);
    return result;
}

static PyMethodDef methods[] = {
    {"lexicon", make_lexicon, METH_VARARGS, "lexicon(masks, firsts, values, faces): a checked trie (a capsule)."},
    {"prove_class", prove_class, METH_VARARGS,
     "prove_class(lexicon, table, face_masks, order, minimum, node_budget, max_candidates, switch_score, force_depth): "
     "(bound, nodes, branches, candidates, complete), or None past max_candidates."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_prove", "Compiled twin of boggle_dafsa.search.prove.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__prove(void) { return PyModule_Create(&module); }
