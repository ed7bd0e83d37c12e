/* The compiled twin of boggle_dafsa.search.prove.prove_class_python: one board class
 * bounded by an orderly tree and branched on, cell by cell.
 *
 * lexicon(nodes, faces) checks a trie once (nodes: bytes, a (mask, first, value) triple of
 * 32-bit native ints a node; every child index inside it and after its parent, every mask
 * within the faces) and returns a capsule that reads it in place;
 * prove_class(capsule, table, face_masks, order, minimum, node_budget, max_candidates,
 * switch_score, force_depth) returns (bound, nodes, branches, candidates, complete)
 * exactly as the twin does, or
 * None past max_candidates candidates. See prove.py for the method; the names below
 * follow the twin's.
 *
 * C99, no dependency beyond Python's headers. Loops are bounded: the word instances and
 * the tree by the node budget, paths by the cells, the branching by the tree (each level
 * consumes one cell).
 * The GIL is let go while a class is walked, sorted, made into a tree and branched on (no
 * Python object is touched then: the arguments are read before, the result built after), so
 * that the progress bar's thread, a worker's watchdog and other threads run meanwhile; it is
 * taken back every SIGNAL_EVERY steps to hear Ctrl-C (PyErr_CheckSignals), then let go again.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h> /* mmap and madvise: the class's arrays mapped, the records' pages given back */
#endif
#ifdef PROVE_STATS
/* Profiling only (built with -DPROVE_STATS): each class's phases on standard error. */
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
static double stats_cpu(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}
static long stats_faults(void) {
    struct rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_minflt;
}
#endif

/* Not the file format (this kernel reads a trie of its own): the shared bit helpers,
 * popcount32 and lowest_bit32. */
#include "../automaton/_format.h"

#define MAX_CELLS 32
#define MAX_FACES 32
#define CAPSULE_NAME "boggle_dafsa.search._prove.lexicon"
#define SIGNAL_EVERY 65536u
/* node indices are int32: the tree and its merged nodes (9/5 of the budget) stay below 2**31 */
#define MAX_BUDGET ((Py_ssize_t)1 << 30)
/* most word instances a unit of the node budget: 41/100 (prove.py's RECORDS_PER_NODE) */
#define RECORDS_PER_NODE_NUM 41
#define RECORDS_PER_NODE_DEN 100
/* most bytes of records a unit of the node budget (prove.py's RECORD_BYTES) */
#define RECORD_BYTES 10

/* A trie node's fields side by side: the walk reads them together (one cache line, not three). */
typedef struct {
    uint32_t mask;
    int32_t first;
    int32_t value;
} TrieNode;

typedef struct {
    const TrieNode *nodes;  /* inside the bytes object the capsule holds (its context) */
    Py_ssize_t count;
    int faces;
} Lexicon;

/* A tree node: a sum node (label: the face that led to it) or a choice node (label: the
 * rank of its cell), in 8 bytes. Its children lie side by side from node `first` (0: none;
 * node 0 is the root, never a child), the last flagged, in ascending label (a sum node's
 * choice nodes by rank, a choice node's sum nodes by face): a merge or a bound reads a
 * node's children in a cache line or two (a list of siblings was a cache miss a child),
 * and a merged node shares a child of one side by copying its 8 bytes into its own
 * children. bound: a sum node's bound (its points plus its choice nodes' bounds); a choice
 * node's (the most of its children's). link: first (31 bits), then the flag of the last
 * child; value: the bound (27 bits), then the label (5: a face or a rank, below 32). No
 * stored bound is above the root's, and the root's is at most the points of all the word
 * instances, held to MAX_BOUND (add_word; a class with more is split as one over the
 * budget). */
typedef struct {
    uint32_t link;
    uint32_t value;
} Node;

#define LAST_CHILD ((uint32_t)1 << 31)
#define BOUND_BITS 27
#define MAX_BOUND ((1 << BOUND_BITS) - 1)

static inline int32_t first_of(const Node *node) { return (int32_t)(node->link & ~LAST_CHILD); }
static inline int32_t bound_of(const Node *node) { return (int32_t)(node->value & (uint32_t)MAX_BOUND); }
static inline unsigned label_of(const Node *node) { return node->value >> BOUND_BITS; }
/* the child after `child` in its parent's children, or 0 after the last */
static inline int32_t next_of(const Node *nodes, int32_t child) { return nodes[child].link & LAST_CHILD ? 0 : child + 1; }
static inline Node make_node(int32_t first, int64_t bound, unsigned label, int last) {
    Node node;
    node.link = (uint32_t)first | (last ? LAST_CHILD : 0u);
    node.value = (uint32_t)bound | ((uint32_t)label << BOUND_BITS);
    return node;
}
/* `node` as child number k of count: its last flag set or cleared */
static inline Node placed(Node node, int k, int count) {
    node.link = (node.link & ~LAST_CHILD) | (k == count - 1 ? LAST_CHILD : 0u);
    return node;
}

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
    Node *nodes;
    size_t count, capacity;
    /* (sum node, word) pairs already counted: open addressing, 0 is empty */
    /* the word instances of the walk, as records (see add_word) */
    uint8_t *records;
    size_t record_count, record_capacity, stride;
    int64_t points; /* of every record: past MAX_BOUND, over budget (the bounds are 27-bit) */
    /* the path being walked */
    /* the record of the path being walked: each cell's face (plus one) at its rank, 0 elsewhere
     * and in the word's bytes (kept as the walk goes: a word instance copies it) */
    uint64_t path[(MAX_CELLS + 4 + 7) / 8];
    uint32_t used;
    int over_budget, failed;
    unsigned ticks;
    /* the branching */
    Stack frontier[MAX_CELLS];
    uint8_t board[MAX_CELLS];
    /* for each rank, for each face: the sum of the bounds of the frontier's children (see
     * branch()), and each position's copy of the later ranks' sums */
    int32_t sums[MAX_CELLS][MAX_FACES];
    int32_t saved[MAX_CELLS][MAX_CELLS][MAX_FACES];
    uint8_t *candidates;
    size_t candidate_count, candidate_capacity;
    long long branches;
    int too_many;
    /* the forcing (merged trees) above the switch: see explore() */
    int64_t switch_score;
    int force_depth;
    size_t merge_limit;
    int over_limit;
    /* bytes of the tree's and the records' arrays when each is a mapping of its own (reserve):
     * 0 when it is malloc's */
    size_t nodes_mapped, records_mapped;
    /* the sizes to start from (copies of node_hint and record_hint, read with the GIL) */
    size_t node_hint, record_hint;
    /* this thread's state while the GIL is let go (NULL while it is held) */
    PyThreadState *released;
#ifdef PROVE_STATS
    size_t peak_count, made_nodes, merges, bounds_tried, branch_calls, frontier_choices;
    double branch_seconds;
#endif
} Work;

/* The tree and the records in mappings of their own, reserved at the most the class may use
 * (address space only: a page is memory once written) and asked to be held in 2 MB pages
 * where the system gives them on request (Linux's transparent huge pages, "madvise" mode).
 * A merge, the sort and the build reach all over arrays of hundreds of MB: with 4 kB pages
 * nearly every such access also misses the TLB, and each 4 kB written is a page fault; and
 * an array never grows by realloc, whose copy held both arrays a moment (2 MB pages are
 * not moved by mremap: realloc copied them, and the peak RSS rose by the old array). NULL
 * when no such mapping is made: the arrays are then malloc's, grown by doubling. */
static void *reserve(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MAP_NORESERVE) && defined(MAP_ANONYMOUS)
    void *start = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (start == MAP_FAILED) return NULL;
    (void)madvise(start, bytes, MADV_HUGEPAGE);
    return start;
#else
    (void)bytes;
    return NULL;
#endif
}

static void unreserve(void *start, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MAP_NORESERVE) && defined(MAP_ANONYMOUS)
    if (start != NULL) (void)munmap(start, bytes);
#else
    (void)start;
    (void)bytes;
#endif
}

static void lexicon_free(PyObject *capsule) {
    Lexicon *lexicon = (Lexicon *)PyCapsule_GetPointer(capsule, CAPSULE_NAME);
    if (lexicon == NULL) return;
    Py_XDECREF((PyObject *)PyCapsule_GetContext(capsule));
    free(lexicon);
}

/* The nodes are read in place, never copied: `nodes` is a bytes object (immutable, held by
 * the capsule as long as it lives), so what is checked here stays true, and a worker holds
 * its trie once (ENABLE2K 3x4: 329,096 nodes, 3.9 MB), not once in Python and once here. */
static PyObject *make_lexicon(PyObject *self, PyObject *args) {
    PyObject *nodes;
    int faces;
    (void)self;
    if (!PyArg_ParseTuple(args, "Si", &nodes, &faces)) return NULL;
    if (!PyBytes_CheckExact(nodes)) {
        PyErr_SetString(PyExc_TypeError, "lexicon: the nodes must be bytes");
        return NULL;
    }
    Py_ssize_t size = PyBytes_GET_SIZE(nodes);
    Py_ssize_t count = size / (Py_ssize_t)sizeof(TrieNode);
    const char *data = PyBytes_AS_STRING(nodes);
    if (faces < 1 || faces > MAX_FACES || size % (Py_ssize_t)sizeof(TrieNode) || count < 1 || count > INT32_MAX ||
        (uintptr_t)data % sizeof(uint32_t)) {
        PyErr_SetString(PyExc_ValueError, "lexicon: nodes of a bad size");
        return NULL;
    }
    const TrieNode *trie = (const TrieNode *)data;
    for (Py_ssize_t i = 0; i < count; i++) {
        uint32_t mask = trie[i].mask;
        int64_t first = trie[i].first;
        if ((faces < 32 && (mask >> faces)) || trie[i].value < 0 || trie[i].value > (1 << 24) ||
            (mask && (first <= i || first + (int64_t)popcount32(mask) > count))) {
            PyErr_Format(PyExc_ValueError, "lexicon: node %zd points outside the trie", i);
            return NULL;
        }
    }
    Lexicon *lexicon = (Lexicon *)calloc(1, sizeof(Lexicon));
    if (lexicon == NULL) return PyErr_NoMemory();
    lexicon->count = count;
    lexicon->faces = faces;
    lexicon->nodes = trie;
    PyObject *result = PyCapsule_New(lexicon, CAPSULE_NAME, lexicon_free);
    if (result == NULL || PyCapsule_SetContext(result, nodes) != 0) {
        if (result == NULL) free(lexicon);
        Py_XDECREF(result);
        return NULL;
    }
    Py_INCREF(nodes);
    return result;
}

/* The sizes the previous class reached: the next starts there, rather than doubling its way
 * up (copies and page faults). Read and written with the GIL held only (a class copies them
 * into its Work before letting the GIL go). */
static size_t node_hint = 4096, record_hint = 4096;

/* `n` nodes side by side at the end of the tree: the index of the first (their fields left
 * to the caller), or -1 when out of memory (failed set) or past merge_limit (over_limit set). */
static int32_t alloc_nodes(Work *work, size_t n) {
    if (work->merge_limit && work->count + n > work->merge_limit) {
        work->over_limit = 1;
        return -1;
    }
    if (work->count + n > work->capacity) {
        if (work->nodes_mapped) { /* never: the mapping holds the most a class makes */
            work->failed = 1;
            return -1;
        }
        size_t capacity = work->capacity ? work->capacity : work->node_hint;
        while (capacity < work->count + n) capacity *= 2;
        /* a 32-bit build's size_t cannot hold every budget's nodes: out of memory there */
        Node *grown = capacity > SIZE_MAX / sizeof(Node) ? NULL : (Node *)realloc(work->nodes, capacity * sizeof(Node));
        if (grown == NULL) {
            work->failed = 1;
            return -1;
        }
        work->nodes = grown;
        work->capacity = capacity;
    }
#ifdef PROVE_STATS
    if (work->count + n > work->peak_count) work->peak_count = work->count + n;
    if (work->merge_limit) work->made_nodes += n;
#endif
    int32_t first = (int32_t)work->count;
    work->count += n;
    return first;
}

/* The walk's word instances are not inserted one by one (a look-up down the tree each,
 * one cache miss a level): each is written as a record, the face (plus one) of each of
 * its cells at the cell's rank and 0 elsewhere, then its word; the records are sorted
 * (least significant byte first, a counting sort a byte) and the tree is made in one
 * pass, each node appended once, as a trie is made from sorted keys. */
static void add_word(Work *work, int32_t word) {
    if (work->record_count == work->record_capacity) {
        if (work->records_mapped) { /* never: the mapping holds the most records a class keeps */
            work->failed = 1;
            return;
        }
        size_t capacity = work->record_capacity ? work->record_capacity * 2 : work->record_hint;
        uint8_t *grown = capacity > SIZE_MAX / work->stride ? NULL : (uint8_t *)realloc(work->records, capacity * work->stride);
        if (grown == NULL) {
            work->failed = 1;
            return;
        }
        work->records = grown;
        work->record_capacity = capacity;
    }
    uint8_t *record = work->records + work->record_count * work->stride;
    memcpy(record, work->path, work->stride);
    uint32_t number = (uint32_t)word;
    for (int i = 0; i < 4; i++) record[work->cells + i] = (uint8_t)(number >> (8 * (3 - i)));
    work->record_count++;
    /* the records held to RECORD_BYTES a unit of the budget (beside the tree's 8 a node
     * while it is made, within prove.py's NODE_BYTES) and to RECORDS_PER_NODE of the budget: a
     * tree has more nodes than that a record, so a class past it would fail in the build,
     * after the sort; it fails now, before them (prove.py's RECORDS_PER_NODE) */
    work->points += work->lexicon->nodes[word].value;
    if (work->record_count * work->stride > (size_t)work->node_budget * RECORD_BYTES ||
        work->record_count * RECORDS_PER_NODE_DEN > (size_t)work->node_budget * RECORDS_PER_NODE_NUM ||
        work->points > MAX_BOUND)
        work->over_budget = 1;
}

/* Records in order, in place (an American flag sort: the most significant byte first,
 * each group permuted by cycles, then its subgroups by the next byte; small groups by
 * insertion). Whole records are compared (the cells, then the word), so that a record and
 * its duplicates end up side by side; the order is the lexicographic one, which the tree
 * relies on. No second array: the records take their own memory only. Recursion is one
 * level a byte, at most the stride deep, each level 2 kB of stack. */
#define SMALL_GROUP 16

/* A record's bytes, in 8-byte words (the stride is a multiple of 8: no library call a move). */
static inline void swap_records(uint8_t *a, uint8_t *b, size_t words) {
    for (size_t i = 0; i < words; i++) {
        uint64_t x, y;
        memcpy(&x, a + 8 * i, 8);
        memcpy(&y, b + 8 * i, 8);
        memcpy(a + 8 * i, &y, 8);
        memcpy(b + 8 * i, &x, 8);
    }
}

/* 8 bytes of a record as a number that orders as the bytes do (the first the most significant). */
static inline uint64_t big_endian(const uint8_t *bytes) {
    uint64_t x;
    memcpy(&x, bytes, 8);
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_bswap64(x);
#else
    uint64_t y = 0;
    for (int i = 0; i < 8; i++) y = (y << 8) | bytes[i];
    return y;
#endif
}

/* Whether record a comes after record b, both equal before byte `from`: compared 8 bytes at a
 * time from the word that holds `from` (the bytes past the key are zeros in every record). */
static inline int after(const uint8_t *a, const uint8_t *b, size_t from, size_t stride) {
    for (size_t i = from / 8 * 8; i < stride; i += 8) {
        uint64_t x = big_endian(a + i), y = big_endian(b + i);
        if (x != y) return x > y;
    }
    return 0;
}

static void insertion_sort(uint8_t *base, size_t count, size_t stride, size_t from) {
    for (size_t i = 1; i < count; i++)
        for (size_t j = i; j > 0 && after(base + (j - 1) * stride, base + j * stride, from, stride); j--)
            swap_records(base + (j - 1) * stride, base + j * stride, stride / 8);
}

static void flag_sort(uint8_t *base, size_t count, size_t stride, size_t position, size_t key) {
    uint32_t counts[256], next[256];
    int cleared = 0;
    for (; position < key; position++) {
        if (count <= SMALL_GROUP) {
            insertion_sort(base, count, stride, position);
            return;
        }
        /* the cells' bytes are at most the faces plus one: the loops over values stop at
         * the largest one seen, not at 255 (most groups are small: the loops were most of
         * their cost) */
        if (!cleared) memset(counts, 0, sizeof(counts));
        cleared = 1;
        unsigned top = 0;
        for (size_t i = 0; i < count; i++) {
            unsigned digit = base[i * stride + position];
            counts[digit]++;
            top = digit > top ? digit : top;
        }
        if (counts[base[position]] == count) { /* one value here: on to the next byte */
            counts[base[position]] = 0;
            continue;
        }
        uint32_t total = 0;
        for (unsigned value = 0; value <= top; value++) {
            next[value] = total;
            total += counts[value];
        }
        uint32_t end = 0; /* the end of the group of `value`: its start (a running sum) and count */
        for (unsigned value = 0; value <= top; value++) {
            end += counts[value];
            while (next[value] < end) {
                uint8_t *here = base + (size_t)next[value] * stride;
                unsigned digit = here[position];
                if (digit == (unsigned)value) {
                    next[value]++;
                    continue;
                }
                swap_records(here, base + (size_t)next[digit]++ * stride, stride / 8);
            }
        }
        uint32_t start = 0;
        for (unsigned value = 0; value <= top; value++) {
            if (counts[value] > 1) flag_sort(base + (size_t)start * stride, counts[value], stride, position + 1, key);
            start += counts[value];
        }
        return;
    }
}

static int sort_records(Work *work) {
    if (work->record_count > 1) flag_sort(work->records, work->record_count, work->stride, 0, (size_t)work->cells + 4);
    return 0;
}

/* The tree from the sorted records: see add_word. Records equal in cells and word are one
 * word found by two paths on the same cells: counted once. A node is done when a record
 * leaves its path; until then it is open, its children done so far held aside (Build), and
 * when it is done they are written side by side at the end of the tree and the node itself
 * goes to its parent's children. Its bound is made then (no second pass over the tree). The
 * records are read once, in order: the pages of those read are given back on the way, so
 * that the tree grows into the memory the records leave. */
/* A node of the tree being made, its fields apart (Build holds them until their parent is done). */
typedef struct {
    int32_t first;
    int32_t bound;
    uint8_t label;
} Open;

typedef struct {
    /* open sum node at level d (0: the root; d: under the open choice node d - 1):
     * its choice nodes done (descending rank, as the sorted records bring them), points, face */
    Open sum_children[MAX_CELLS + 1][MAX_CELLS];
    int sum_count[MAX_CELLS + 1];
    int64_t sum_points[MAX_CELLS + 1];
    uint8_t sum_label[MAX_CELLS + 1];
    /* open choice node at level d: its sum nodes done (ascending face), its rank */
    Open choice_children[MAX_CELLS][MAX_FACES];
    int choice_count[MAX_CELLS];
    uint8_t choice_rank[MAX_CELLS];
} Build;

/* Open sum node `level` done: its choice nodes written (ascending rank), itself into *into. */
static int close_sum(Work *work, Build *build, int level, Open *into) {
    int count = build->sum_count[level];
    int64_t bound = build->sum_points[level];
    int32_t first = 0;
    if (count) {
        first = alloc_nodes(work, (size_t)count);
        if (first < 0) return -1;
        for (int i = 0; i < count; i++) {
            Open child = build->sum_children[level][count - 1 - i];
            work->nodes[first + i] = make_node(child.first, child.bound, child.label, i == count - 1);
            bound += child.bound;
        }
    }
    into->first = first;
    into->bound = (int32_t)bound;
    into->label = build->sum_label[level];
    return 0;
}

/* Open choice node `level` done: its sum nodes written (ascending face), itself into its sum node's children. */
static int close_choice(Work *work, Build *build, int level) {
    int count = build->choice_count[level];
    int32_t first = alloc_nodes(work, (size_t)count);
    if (first < 0) return -1;
    int32_t best = 0;
    for (int i = 0; i < count; i++) {
        Open child = build->choice_children[level][i];
        work->nodes[first + i] = make_node(child.first, child.bound, child.label, i == count - 1);
        if (child.bound > best) best = child.bound;
    }
    if (build->sum_count[level] >= MAX_CELLS) return -1; /* never: one choice node a rank */
    Open *node = &build->sum_children[level][build->sum_count[level]++];
    node->first = first;
    node->bound = best;
    node->label = build->choice_rank[level];
    return 0;
}

/* Give back the pages of the records before `end` (read and done with). */
static void release_records(Work *work, size_t end, size_t *released) {
#if defined(__linux__) && defined(MADV_DONTNEED)
    const uintptr_t page = 4096, chunk = (uintptr_t)1 << 23;
    uintptr_t from = ((uintptr_t)work->records + *released + page - 1) & ~(page - 1);
    uintptr_t to = ((uintptr_t)work->records + end) & ~(page - 1);
    if (to < from + chunk) return;
    (void)madvise((void *)from, to - from, MADV_DONTNEED);
    *released = to - (uintptr_t)work->records;
#else
    (void)work;
    (void)end;
    (void)released;
#endif
}

static int build_tree(Work *work) {
    int cells = work->cells;
    size_t stride = work->stride;
    Build *build = (Build *)malloc(sizeof(Build));
    if (build == NULL) return -1;
    int status = -1;
    /* the path of the previous record: the ranks of its open choice nodes */
    int path_rank[MAX_CELLS];
    int depth = 0;
    size_t released = 0;
    build->sum_count[0] = 0;
    build->sum_points[0] = 0;
    build->sum_label[0] = 0;
    const uint8_t *previous = NULL;
    for (size_t i = 0; i <= work->record_count; i++) {
        const uint8_t *record = i < work->record_count ? work->records + i * stride : NULL;
#if defined(__GNUC__)
        /* the points of a record's word are read in the trie, all over it: asked ahead */
        if (i + 16 < work->record_count) {
            const uint8_t *ahead = work->records + (i + 16) * stride + cells;
            uint32_t word = ((uint32_t)ahead[0] << 24) | ((uint32_t)ahead[1] << 16) | ((uint32_t)ahead[2] << 8) | ahead[3];
            if (word < (uint32_t)work->lexicon->count) __builtin_prefetch(&work->lexicon->nodes[word].value);
        }
#endif
        int differ = 0;
        if (record != NULL && previous != NULL) {
            while (differ < cells && record[differ] == previous[differ]) differ++;
            if (differ == cells) {
                if (memcmp(record + cells, previous + cells, 4) != 0) {
                    const uint8_t *tail = record + cells;
                    uint32_t word = ((uint32_t)tail[0] << 24) | ((uint32_t)tail[1] << 16) | ((uint32_t)tail[2] << 8) | tail[3];
                    build->sum_points[depth] += work->lexicon->nodes[word].value;
                }
                previous = record;
                continue;
            }
        }
        /* the previous path's nodes from rank `differ` on are done (its choice node at
         * `differ` goes on: this record takes another of its faces) */
        int keep = 0; /* whether this record goes on in the choice node at `differ` */
        while (depth > 0 && path_rank[depth - 1] >= differ) {
            depth--;
            if (build->choice_count[depth] >= MAX_FACES) goto done; /* never: one sum node a face */
            if (close_sum(work, build, depth + 1, &build->choice_children[depth][build->choice_count[depth]]) < 0) goto done;
            build->choice_count[depth]++;
            if (record != NULL && path_rank[depth] == differ) {
                keep = 1;
                break;
            }
            if (close_choice(work, build, depth) < 0) goto done;
        }
        if (record == NULL) break;
        const uint8_t *tail = record + cells;
        uint32_t word = ((uint32_t)tail[0] << 24) | ((uint32_t)tail[1] << 16) | ((uint32_t)tail[2] << 8) | tail[3];
        for (int r = differ; r < cells; r++) {
            if (!record[r]) continue;
            if (!keep) {
                build->choice_count[depth] = 0;
                build->choice_rank[depth] = (uint8_t)r;
            }
            keep = 0;
            build->sum_count[depth + 1] = 0;
            build->sum_points[depth + 1] = 0;
            build->sum_label[depth + 1] = (uint8_t)(record[r] - 1);
            path_rank[depth] = r;
            depth++;
        }
        build->sum_points[depth] += work->lexicon->nodes[word].value;
        previous = record;
        if ((Py_ssize_t)work->count > work->node_budget) {
            work->over_budget = 1;
            status = 0;
            goto done;
        }
        if (i > 0) release_records(work, (i - 1) * stride, &released);
    }
    /* the root: node 0 */
    {
        Open root;
        if (close_sum(work, build, 0, &root) < 0) goto done;
        work->nodes[0] = make_node(root.first, root.bound, 0, 1);
    }
    if ((Py_ssize_t)work->count > work->node_budget) work->over_budget = 1;
    status = 0;
done:
    free(build);
    return status;
}

static int stopped(Work *work) {
    if (work->over_budget || work->failed) return 1;
    if (++work->ticks % SIGNAL_EVERY == 0) {
        /* the GIL taken back a moment: signal handlers run with it only */
        if (work->released != NULL) PyEval_RestoreThread(work->released);
        int interrupted = PyErr_CheckSignals() < 0;
        if (work->released != NULL) work->released = PyEval_SaveThread();
        if (interrupted) {
            work->failed = 2;
            return 1;
        }
    }
    return 0;
}

static void visit(Work *work, int cell, int32_t trie);
static void explore(Work *work, int32_t tree, int position);

/* The class itself, from its first node to its candidates: pure C, run with the GIL let
 * go (work->released set). Sets failed (1: out of memory, 2: interrupted), over_budget or
 * too_many, or leaves the bound, tree size, branches and candidates in work. */
static void prove_work(Work *work, int64_t *bound, size_t *tree_nodes) {
    *bound = 0;
    *tree_nodes = 0;
#ifdef PROVE_STATS
    double t0 = stats_cpu(), t1 = t0, t2 = t0, t3 = t0, t4 = t0;
    long f0 = stats_faults(), f1 = f0, f2 = f0, f3 = f0;
    size_t records = 0;
#define STATS_AT(t, f) (t = stats_cpu(), f = stats_faults())
#else
#define STATS_AT(t, f) ((void)0)
#endif
    if (alloc_nodes(work, 1) < 0) goto report;
    work->nodes[0] = make_node(0, 0, 0, 1);
    for (int start = 0; start < work->cells && !work->over_budget && !work->failed; start++) visit(work, start, 0);
    STATS_AT(t1, f1);
#ifdef PROVE_STATS
    records = work->record_count;
#endif
    if (work->failed || work->over_budget) goto report;
    if (sort_records(work) < 0) {
        work->failed = 1;
        goto report;
    }
    STATS_AT(t2, f2);
    if (build_tree(work) < 0) {
        work->failed = 1;
        goto report;
    }
    STATS_AT(t3, f3);
    if (work->over_budget) goto report;
    *bound = bound_of(&work->nodes[0]);
    /* the records are done with: their memory goes to the merged trees */
    if (!work->records_mapped && work->record_capacity >= 4096) work->record_hint = work->record_capacity;
    if (work->records_mapped)
        unreserve(work->records, work->records_mapped);
    else
        free(work->records);
    work->records = NULL;
    work->record_capacity = 0;
    work->records_mapped = 0;
    *tree_nodes = work->count;
    /* as prove.py's MERGED_NODES: the tree and its merged nodes, 9/5 of the budget in all */
    work->merge_limit = (size_t)work->node_budget * 9 / 5;
    if (*bound >= work->minimum) explore(work, 0, 0);
report:
#ifdef PROVE_STATS
    t4 = stats_cpu();
    fprintf(stderr,
            "prove_stats records=%zu nodes=%zu peak_nodes=%zu branches=%lld candidates=%zu over=%d walk=%.3f sort=%.3f "
            "build=%.3f explore=%.3f faults_walk=%ld faults_sort=%ld faults_build=%ld faults_explore=%ld made=%zu merges=%zu "
            "bounds=%zu branch_calls=%zu frontier=%zu branching=%.3f\n",
            records, *tree_nodes, work->peak_count, work->branches, work->candidate_count, work->over_budget, t1 - t0,
            t2 - t1, t3 - t2, t4 - t3, f1 - f0, f2 - f1, f3 - f2, stats_faults() - f3, work->made_nodes, work->merges,
            work->bounds_tried, work->branch_calls, work->frontier_choices, work->branch_seconds);
#endif
    return;
#undef STATS_AT
}

/* popcount32 in a few instructions inline: without -mpopcnt (the build targets any x86-64),
 * __builtin_popcount is a call into libgcc, 1.5% of a class's time in the walk. */
static inline unsigned count_bits(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

static void visit(Work *work, int cell, int32_t trie) {
    const Lexicon *lexicon = work->lexicon;
    uint32_t mask = lexicon->nodes[trie].mask;
    uint32_t faces = work->sets[cell] & mask;
    uint8_t *slot = (uint8_t *)work->path + work->rank[cell];
    work->used |= 1u << cell;
    while (faces) {
        int face = (int)lowest_bit32(faces);
        faces &= faces - 1;
        int32_t child = lexicon->nodes[trie].first + (int32_t)count_bits(mask & ((1u << face) - 1u));
        *slot = (uint8_t)(face + 1);
        if (lexicon->nodes[child].value) add_word(work, child);
        if (lexicon->nodes[child].mask && !stopped(work)) {
            for (int i = 0; i < work->degree[cell]; i++) {
                int other = work->table[cell][i];
                if (!(work->used >> other & 1u)) visit(work, other, child);
                if (work->over_budget || work->failed) break;
            }
        }
        if (work->over_budget || work->failed) break;
    }
    *slot = 0;
    work->used &= ~(1u << cell);
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

/* Sum node `sum` reached by the branching: its choice nodes onto the frontier, each child's
 * bound added to its rank's sum for the child's face; returns its points (its bound less its
 * choice nodes'). */
#define PIPELINE 4
static int64_t reach(Work *work, int32_t sum) {
    const Node *nodes = work->nodes;
    int64_t points = bound_of(&nodes[sum]);
#if defined(__GNUC__)
    /* the choice nodes' children, asked of memory at once (each is a block of its own) */
    for (int32_t choice = first_of(&nodes[sum]); choice; choice = next_of(nodes, choice))
        __builtin_prefetch(&nodes[first_of(&nodes[choice])]);
#endif
    for (int32_t choice = first_of(&nodes[sum]); choice; choice = next_of(nodes, choice)) {
        unsigned rank = label_of(&nodes[choice]);
        points -= bound_of(&nodes[choice]);
        if (push(&work->frontier[rank], choice) < 0) {
            work->failed = 1;
            return 0;
        }
        int32_t *row = work->sums[rank];
        for (int32_t child = first_of(&nodes[choice]); child; child = next_of(nodes, child))
            row[label_of(&nodes[child])] += bound_of(&nodes[child]);
    }
    return points;
}

/* The branching below the forcing: the cell of `position` takes each face of `faces` whose
 * bound reaches N, and the next cell is branched on. `points`: the points of the sum nodes
 * reached so far; the frontier: their choice nodes of the cells not fixed yet, and, for each
 * such rank and face, the sum of the bounds of their children of that face (sums). A board
 * of the branch scores at most `points` plus, for each cell not fixed, the most over its
 * faces of that rank's sum: every choice node of a cell takes the same face on a board (the
 * sum of each choice node's best face, the bound before, is often well above it: on 4x4
 * classes, half the branches or more end sooner). */
static void branch(Work *work, int position, int64_t points, uint32_t faces) {
    work->branches++;
    const int cells = work->cells;
    if (position == cells) {
        if ((Py_ssize_t)work->candidate_count >= work->max_candidates) {
            work->too_many = 1;
            return;
        }
        if (work->candidate_count == work->candidate_capacity) {
            size_t capacity = work->candidate_capacity ? work->candidate_capacity * 2 : 64;
            uint8_t *grown = (uint8_t *)realloc(work->candidates, capacity * (size_t)cells);
            if (grown == NULL) {
                work->failed = 1;
                return;
            }
            work->candidates = grown;
            work->candidate_capacity = capacity;
        }
        memcpy(work->candidates + work->candidate_count * (size_t)cells, work->board, (size_t)cells);
        work->candidate_count++;
        return;
    }
    if (stopped(work)) return;
#ifdef PROVE_STATS
    work->branch_calls++;
    work->frontier_choices += work->frontier[position].size;
#endif
    /* the most the cells after this one can add */
    int64_t rest = 0;
    for (int later = position + 1; later < cells; later++) {
        const int32_t *row = work->sums[later];
        int32_t best = 0;
        for (uint32_t set = work->sets[work->order[later]]; set; set &= set - 1) {
            int32_t value = row[lowest_bit32(set)];
            best = value > best ? value : best;
        }
        rest += best;
    }
    const int32_t *row = work->sums[position];
    uint32_t passing = 0;
    for (uint32_t set = faces; set; set &= set - 1) {
        int face = (int)lowest_bit32(set);
        if (points + rest + row[face] >= work->minimum) passing |= 1u << face;
    }
    const int cell = work->order[position];
    if (position + 1 == cells) {
        /* the last cell: its children have no choice nodes, a face's value is its sum */
        while (passing) {
            int face = (int)lowest_bit32(passing);
            passing &= passing - 1;
            work->board[cell] = (uint8_t)face;
            branch(work, position + 1, points + row[face], 0);
            if (work->failed || work->too_many) return;
        }
        return;
    }
    if (!passing) return;
    const Node *nodes = work->nodes;
    Stack *here = &work->frontier[position];
    size_t sizes[MAX_CELLS];
    for (int later = position + 1; later < cells; later++) sizes[later] = work->frontier[later].size;
    /* the later ranks' sums as they are, put back after each face */
    int32_t(*saved)[MAX_FACES] = work->saved[position];
    const size_t row_bytes = sizeof(work->sums[0]);
    memcpy(saved[position + 1], work->sums[position + 1], (size_t)(cells - position - 1) * row_bytes);
    while (passing) {
        int face = (int)lowest_bit32(passing);
        passing &= passing - 1;
        work->board[cell] = (uint8_t)face;
        int64_t value = points;
        /* the sum nodes of this face, reached a few behind the look-up that finds them: their
         * choice nodes are asked of memory meanwhile (so are the choice nodes ahead) */
        int32_t found[PIPELINE];
        size_t count = 0;
        for (size_t i = 0; i < here->size; i++) {
#if defined(__GNUC__)
            if (i + PIPELINE < here->size) __builtin_prefetch(&nodes[first_of(&nodes[here->items[i + PIPELINE]])]);
            if (i + 2 * PIPELINE < here->size) __builtin_prefetch(&nodes[here->items[i + 2 * PIPELINE]]);
#endif
            int32_t child = first_of(&nodes[here->items[i]]);
            while (child && label_of(&nodes[child]) < (unsigned)face) child = next_of(nodes, child);
            if (!child || label_of(&nodes[child]) != (unsigned)face) continue;
#if defined(__GNUC__)
            __builtin_prefetch(&nodes[first_of(&nodes[child])]);
#endif
            if (count >= PIPELINE) value += reach(work, found[count % PIPELINE]);
            found[count++ % PIPELINE] = child;
        }
        for (size_t k = count > PIPELINE ? count - PIPELINE : 0; k < count; k++) value += reach(work, found[k % PIPELINE]);
        if (work->failed) return;
        branch(work, position + 1, value, work->sets[work->order[position + 1]]);
        for (int later = position + 1; later < cells; later++) work->frontier[later].size = sizes[later];
        memcpy(work->sums[position + 1], saved[position + 1], (size_t)(cells - position - 1) * row_bytes);
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

static int merge_sum(Work *work, int32_t a, int skip, int32_t b, Open *out);

/* The children of `node` asked of the memory ahead of their use: a merge finds the pairs it
 * will merge first, then merges them one by one, so the blocks of the later pairs arrive
 * while the first are merged (the merges wait on memory, not on arithmetic). */
static inline void prefetch_children(const Work *work, int32_t node) {
#if defined(__GNUC__)
    int32_t first = first_of(&work->nodes[node]);
    if (first) __builtin_prefetch(&work->nodes[first]);
#else
    (void)work;
    (void)node;
#endif
}

/* Two choice nodes of the same rank, merged into *out: 0, or -1 (failed or over_limit set). */
static int merge_choice(Work *work, int32_t a, int32_t b, Open *out) {
    const Node *nodes = work->nodes; /* again after each merge_sum (the tree may move as it grows) */
    const int32_t x = first_of(&nodes[a]), y = first_of(&nodes[b]);
    const unsigned label = label_of(&nodes[a]);
    int32_t i = x, j = y;
    int count = 0;
    while (i || j) {
        unsigned u = i ? label_of(&nodes[i]) : 64, v = j ? label_of(&nodes[j]) : 64;
        if (u < v)
            i = next_of(nodes, i);
        else if (v < u)
            j = next_of(nodes, j);
        else {
            prefetch_children(work, i);
            prefetch_children(work, j);
            i = next_of(nodes, i);
            j = next_of(nodes, j);
        }
        count++;
    }
    int32_t first = alloc_nodes(work, (size_t)count);
    if (first < 0) return -1;
    int32_t best = 0;
    i = x, j = y;
    for (int k = 0; k < count; k++) {
        nodes = work->nodes;
        unsigned u = i ? label_of(&nodes[i]) : 64, v = j ? label_of(&nodes[j]) : 64;
        Node made;
        if (u < v) {
            made = nodes[i];
            i = next_of(nodes, i);
        } else if (v < u) {
            made = nodes[j];
            j = next_of(nodes, j);
        } else {
            Open merged;
            int32_t after_i = next_of(nodes, i), after_j = next_of(nodes, j);
            if (merge_sum(work, i, -1, j, &merged) < 0) return -1;
            made = make_node(merged.first, merged.bound, u, 0);
            i = after_i;
            j = after_j;
        }
        work->nodes[first + k] = placed(made, k, count);
        if (bound_of(&made) > best) best = bound_of(&made);
    }
    out->first = first;
    out->bound = best;
    out->label = (uint8_t)label;
    return 0;
}

/* Sum node `a` (less its choice node of rank `skip`, if any) merged with sum node `b` (-1:
 * none) into *out (its label left to the caller): 0, or -1 (failed or over_limit set). */
static int merge_sum(Work *work, int32_t a, int skip, int32_t b, Open *out) {
    const Node *nodes = work->nodes; /* again after each merge_choice */
    const int32_t x = first_of(&nodes[a]), y = b >= 0 ? first_of(&nodes[b]) : 0;
    /* the points of a and b: their bounds less their choice nodes' (taken off on the way) */
    int64_t total = (int64_t)bound_of(&nodes[a]) + (b >= 0 ? bound_of(&nodes[b]) : 0);
    int32_t i = x, j = y;
    int count = 0;
    while (i || j) {
        unsigned u = i ? label_of(&nodes[i]) : 64, v = j ? label_of(&nodes[j]) : 64;
        if (u == (unsigned)skip) {
            total -= bound_of(&nodes[i]);
            i = next_of(nodes, i);
            continue;
        }
        if (u < v)
            i = next_of(nodes, i);
        else if (v < u)
            j = next_of(nodes, j);
        else {
            prefetch_children(work, i);
            prefetch_children(work, j);
            i = next_of(nodes, i);
            j = next_of(nodes, j);
        }
        count++;
    }
    int32_t first = alloc_nodes(work, (size_t)count);
    if (first < 0) return -1;
    i = x, j = y;
    for (int k = 0; k < count;) {
        nodes = work->nodes;
        unsigned u = i ? label_of(&nodes[i]) : 64, v = j ? label_of(&nodes[j]) : 64;
        if (u == (unsigned)skip) {
            i = next_of(nodes, i); /* its bound taken off above */
            continue;
        }
        Node made;
        if (u < v) {
            made = nodes[i]; /* its bound, taken off and added back */
            i = next_of(nodes, i);
        } else if (v < u) {
            made = nodes[j];
            j = next_of(nodes, j);
        } else {
            Open merged;
            int32_t after_i = next_of(nodes, i), after_j = next_of(nodes, j);
            total -= (int64_t)bound_of(&nodes[i]) + bound_of(&nodes[j]);
            if (merge_choice(work, i, j, &merged) < 0) return -1;
            total += merged.bound;
            made = make_node(merged.first, merged.bound, merged.label, 0);
            i = after_i;
            j = after_j;
        }
        work->nodes[first + k] = placed(made, k, count);
        k++;
    }
    if (total < 0 || total > MAX_BOUND) { /* never: a merged bound is at most the tree's */
        work->failed = 1;
        return -1;
    }
    out->first = count ? first : 0; /* no choice nodes: no children (0), not the next node made */
    out->bound = (int32_t)total;
    return 0;
}

/* A bound of merge_sum(work, a, skip, b)'s tree without making it: its choice nodes of the
 * same rank merged one level down only (the most, over faces, of the sum of the two
 * children's bounds). Never below the merged tree's bound: a merge that this puts below N
 * is not made. */
static int64_t merged_bound(const Work *work, int32_t a, int skip, int32_t b) {
    const Node *nodes = work->nodes;
    /* the points of a and b (their bounds less their choice nodes'), then the choices' bounds */
    int64_t total = (int64_t)bound_of(&nodes[a]) + bound_of(&nodes[b]);
    int32_t i = first_of(&nodes[a]), j = first_of(&nodes[b]);
    while (i || j) {
        unsigned u = i ? label_of(&nodes[i]) : 64, v = j ? label_of(&nodes[j]) : 64;
        if (u == (unsigned)skip) {
            total -= bound_of(&nodes[i]);
            i = next_of(nodes, i);
            continue;
        }
        if (u < v) {
            i = next_of(nodes, i); /* its bound, taken off and added back */
        } else if (v < u) {
            j = next_of(nodes, j);
        } else {
            total -= (int64_t)bound_of(&nodes[i]) + bound_of(&nodes[j]);
            int64_t best = 0;
            int32_t m = first_of(&nodes[i]), n = first_of(&nodes[j]);
            while (m || n) {
                unsigned p = m ? label_of(&nodes[m]) : 64, q = n ? label_of(&nodes[n]) : 64;
                int64_t value;
                if (p < q) {
                    value = bound_of(&nodes[m]);
                    m = next_of(nodes, m);
                } else if (q < p) {
                    value = bound_of(&nodes[n]);
                    n = next_of(nodes, n);
                } else {
                    value = (int64_t)bound_of(&nodes[m]) + bound_of(&nodes[n]);
                    m = next_of(nodes, m);
                    n = next_of(nodes, n);
                }
                if (value > best) best = value;
            }
            total += best;
            i = next_of(nodes, i);
            j = next_of(nodes, j);
        }
    }
    return total;
}

/* branch() from the tree under sum node `tree` at `position`, for the faces of `faces`. */
static void branch_from(Work *work, int32_t tree, int position, uint32_t faces) {
#ifdef PROVE_STATS
    double branch_started = stats_cpu();
#endif
    memset(work->sums[position], 0, (size_t)(work->cells - position) * sizeof(work->sums[0]));
    int64_t points = reach(work, tree);
    if (!work->failed) branch(work, position, points, faces);
    for (int later = position; later < work->cells; later++) work->frontier[later].size = 0;
#ifdef PROVE_STATS
    work->branch_seconds += stats_cpu() - branch_started;
#endif
}

/* The class from the tree under sum node `tree`, cells of rank below `position` fixed:
 * forcing while the bound is above the switch, then branch(). */
static void explore(Work *work, int32_t tree, int position) {
    int cell = position < work->cells ? work->order[position] : 0;
    if (position >= work->cells || position >= work->force_depth || bound_of(&work->nodes[tree]) <= work->switch_score) {
        branch_from(work, tree, position, position < work->cells ? work->sets[cell] : 0);
        return;
    }
    work->branches++;
    if (stopped(work)) return;
    int64_t bound = bound_of(&work->nodes[tree]);
    int32_t choice = first_of(&work->nodes[tree]);
    while (choice && label_of(&work->nodes[choice]) != (unsigned)position) choice = next_of(work->nodes, choice);
    uint32_t faces = work->sets[cell];
    while (faces) {
        int face = (int)lowest_bit32(faces);
        int32_t child = choice ? first_of(&work->nodes[choice]) : 0;
        while (child && label_of(&work->nodes[child]) != (unsigned)face) child = next_of(work->nodes, child);
        int64_t loose = !choice ? bound : bound - bound_of(&work->nodes[choice]) + (child ? bound_of(&work->nodes[child]) : 0);
#ifdef PROVE_STATS
        if (loose >= work->minimum && child) work->bounds_tried++;
#endif
        const int64_t estimate = loose < work->minimum || !child ? loose : merged_bound(work, tree, position, child);
        if (estimate < work->minimum) {
            faces &= faces - 1;
            continue;
        }
        if (child && estimate <= work->switch_score) {
            /* the merged tree's bound would be at most the switch, so branch() would take over
             * from it at once: it takes over now, from this tree, and the merge is not made (a
             * merge costs more than the looser frontier saves: 4 ENABLE2K 3x4 classes, 37.0-39.6
             * against 42.7-44.0 CPU-s) */
            work->board[cell] = (uint8_t)face;
            branch_from(work, tree, position, 1u << face);
            if (work->failed || work->too_many) return;
            faces &= faces - 1;
            continue;
        }
        work->board[cell] = (uint8_t)face;
        size_t saved = work->count;
#ifdef PROVE_STATS
        if (choice) work->merges++;
#endif
        int32_t merged = tree;
        if (choice) {
            Open made;
            merged = alloc_nodes(work, 1);
            if (merged >= 0 && merge_sum(work, tree, position, child ? child : -1, &made) < 0) merged = -1;
            if (merged >= 0) work->nodes[merged] = make_node(made.first, made.bound, 0, 1);
        }
        if (merged < 0) {
            work->count = saved;
            if (!work->over_limit) return; /* out of memory: failed is set */
            /* too many nodes: this face and the next ones by branch() */
            work->over_limit = 0;
            branch_from(work, tree, position, faces);
            return;
        }
        if (bound_of(&work->nodes[merged]) >= work->minimum) explore(work, merged, position + 1);
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
    work->stride = ((size_t)cells + 4 + 7) / 8 * 8; /* the cells, the word, then zeros to a multiple of 8 */
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
    int64_t bound;
    size_t tree_nodes;
    work->node_hint = node_hint;
    work->record_hint = record_hint;
    {
        /* the most nodes: the tree and its merges, 9/5 of the budget (merge_limit), or the
         * budget plus what one record's step of the build makes past it before it is checked
         * (at most MAX_CELLS levels closed, a sum node's MAX_CELLS children and a choice
         * node's MAX_FACES each), and the root's */
        const uint64_t most_nodes = (uint64_t)node_budget * 9 / 5 + 4 * MAX_CELLS * MAX_FACES;
        /* the most records: add_word stops the walk once they pass RECORDS_PER_NODE of the budget */
        const uint64_t most_records = (uint64_t)node_budget * RECORDS_PER_NODE_NUM / RECORDS_PER_NODE_DEN + 2;
        /* Sized in 64 bits: where a size_t cannot hold the mapping (a 32-bit build and a
         * budget of gigabytes), nothing is mapped and the arrays grow as they are filled. */
        if (most_nodes <= SIZE_MAX / sizeof(Node)) {
            work->nodes = (Node *)reserve((size_t)most_nodes * sizeof(Node));
            if (work->nodes != NULL) {
                work->nodes_mapped = (size_t)most_nodes * sizeof(Node);
                work->capacity = (size_t)most_nodes;
            }
        }
        if (most_records <= SIZE_MAX / work->stride) {
            work->records = (uint8_t *)reserve((size_t)most_records * work->stride);
            if (work->records != NULL) {
                work->records_mapped = (size_t)most_records * work->stride;
                work->record_capacity = (size_t)most_records;
            }
        }
    }
    /* The capsule's trie stays alive: the caller holds the capsule until the call returns. */
    work->released = PyEval_SaveThread();
    prove_work(work, &bound, &tree_nodes);
    PyEval_RestoreThread(work->released);
    work->released = NULL;
    record_hint = work->record_hint;
    if (work->failed == 2) goto done; /* interrupted: the exception is set */
    if (work->failed) goto nomemory;
    if (work->over_budget) {
        result = Py_BuildValue("(LnLy#i)", 0LL, (Py_ssize_t)0, 0LL, "", (Py_ssize_t)0, 0);
        goto done;
    }
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
    if (!work->nodes_mapped && work->capacity >= 4096) node_hint = work->capacity;
    if (!work->records_mapped && work->record_capacity >= 4096) record_hint = work->record_capacity;
    if (work->nodes_mapped)
        unreserve(work->nodes, work->nodes_mapped);
    else
        free(work->nodes);
    if (work->records_mapped)
        unreserve(work->records, work->records_mapped);
    else
        free(work->records);
    free(work->candidates);
    for (int i = 0; i < MAX_CELLS; i++) free(work->frontier[i].items);
    free(work);
    return result;
}

static PyMethodDef methods[] = {
    {"lexicon", make_lexicon, METH_VARARGS, "lexicon(nodes, faces): a checked trie, read in place (a capsule)."},
    {"prove_class", prove_class, METH_VARARGS,
     "prove_class(lexicon, table, face_masks, order, minimum, node_budget, max_candidates, switch_score, force_depth): "
     "(bound, nodes, branches, candidates, complete), or None past max_candidates."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_prove", "Compiled twin of boggle_dafsa.search.prove.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__prove(void) { return PyModule_Create(&module); }
