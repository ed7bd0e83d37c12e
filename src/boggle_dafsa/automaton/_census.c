/* The census of a native dictionary: what its cells hold, checked against its header;
 * the lookups (`in`, has_prefix, step) that the census makes safe; and word numbers (the
 * word-number section counted, index and word walked: see "word numbers" below).
 *
 * The census's Python twin is DictionaryBase._check_below (src/boggle_dafsa/dictionary.py),
 * which NativeDictionary.checked() (automaton/reader.py) calls when this part is not used;
 * the lookups' twin is the layouts' step (automaton/fileformat.py: NativeLayout,
 * CompactLayout), which automaton/lookup.py calls then. A part of its own, so that opening
 * a dictionary for `solve` or a lookup imports nothing of the queries.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The format's constants and bit helpers (FINAL_FLAG, format_child_slot...). */
#include "_format.h"

static PyObject *damaged(const char *what) {
    PyErr_Format(PyExc_ValueError, "damaged: %s", what);
    return NULL;
}

/*
 * census(cells, root, width, max_depth, max_words) -> (words, longest_word, states)
 *
 * One depth-first pass over the states reachable from `root` (a state is the index of its
 * one-cell header), counting the words below each state once (saturated at 2**64 - 1) and
 * the longest path below it. Raises ValueError("damaged: ...") for anything a walk could
 * not trust: an index outside the cells, a letter outside the alphabet, a cycle, a state
 * from which no word can be reached (a walk would explore it for nothing), a path longer
 * than `max_depth` or more words than `max_words` below some state. Its Python twin is
 * DictionaryBase._check_below (dictionary.py), which NativeDictionary.checked() calls
 * when this kernel is not used. Memory: 12 bytes per cell and a frame per level.
 */
typedef struct {
    uint32_t state, head, bits;
} CensusFrame;

#define UNSEEN (-1)
#define ON_PATH (-2)

static PyObject *census(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t root, width, max_depth;
    unsigned long long max_words;
    if (!PyArg_ParseTuple(args, "y*nnnK", &view, &root, &width, &max_depth, &max_words)) return NULL;
    const uint32_t *cells = (const uint32_t *)view.buf;
    Py_ssize_t n = view.len / 4;
    PyObject *result = NULL;
    uint64_t *counts = NULL;
    int32_t *depths = NULL;
    CensusFrame *stack = NULL;
    Py_ssize_t states = 0;
    if (width < 0 || width > FORMAT_ONE_CELL_LETTERS) { PyErr_SetString(PyExc_ValueError, "alphabet wider than one header cell"); goto done; }
    if (max_depth < 0 || max_depth > n) { damaged("its longest word is longer than the file can hold"); goto done; }
    if (root < 0 || root >= n) { damaged("the root points outside the file"); goto done; }
    counts = PyMem_Malloc((size_t)n * sizeof(uint64_t));
    depths = PyMem_Malloc((size_t)n * sizeof(int32_t));
    stack = PyMem_Malloc((size_t)(max_depth + 2) * sizeof(CensusFrame));
    if (!counts || !depths || !stack) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < n; i++) depths[i] = UNSEEN;
    Py_ssize_t depth = 0;
    stack[0].state = (uint32_t)root;
    stack[0].head = cells[root];
    stack[0].bits = format_letters(cells[root]);
    if (stack[0].bits >> width) { damaged("a letter outside the alphabet"); goto done; }
    depths[root] = ON_PATH;
    for (;;) {
        CensusFrame *f = &stack[depth];
        if (f->bits) {
            uint32_t low = f->bits & (0u - f->bits);
            f->bits ^= low;
            Py_ssize_t slot = (Py_ssize_t)format_child_slot(f->state, f->head, low);
            if (slot >= n) { damaged("a transition points outside the file"); goto done; }
            uint32_t child = cells[slot];
            if ((Py_ssize_t)child >= n) { damaged("a transition points outside the file"); goto done; }
            if (depths[child] == ON_PATH) { damaged("its automaton has a cycle"); goto done; }
            if (depths[child] != UNSEEN) continue;
            uint32_t head = cells[child];
            if (format_letters(head) >> width) { damaged("a letter outside the alphabet"); goto done; }
            if (depth + 1 > max_depth) { damaged("a path longer than its longest word"); goto done; }
            depth++;
            stack[depth].state = child;
            stack[depth].head = head;
            stack[depth].bits = format_letters(head);
            depths[child] = ON_PATH;
            continue;
        }
        /* Every child is counted: count this state. */
        uint32_t state = f->state;
        uint64_t words = format_is_final(f->head) ? 1 : 0;
        int32_t longest = 0;
        uint32_t letters = format_letters(f->head);
        for (int i = 0; letters; i++, letters &= letters - 1) {
            uint32_t child = cells[(Py_ssize_t)state + 1 + i];  /* checked on the way down */
            uint64_t below = counts[child];
            words = words + below < words ? UINT64_MAX : words + below;
            if (depths[child] + 1 > longest) longest = depths[child] + 1;
        }
        if (!words && depth > 0) { damaged("a state that leads to no word"); goto done; }
        if (words > max_words) { damaged("more words than its header says"); goto done; }
        counts[state] = words;
        depths[state] = longest;
        states++;
        if (depth == 0) break;
        depth--;
    }
    result = Py_BuildValue("(KnK)", (unsigned long long)counts[root], (Py_ssize_t)depths[root], (unsigned long long)states);
done:
    PyBuffer_Release(&view);
    PyMem_Free(counts);
    PyMem_Free(depths);
    PyMem_Free(stack);
    return result;
}

/* ---- lookups ------------------------------------------------------------------------------
 *
 * Lookup(body, version, root, alphabet, header_cells, longest_word, policy): the walks of
 * `in`, has_prefix and step over a native body in place (version 1 cells, version 2 compact
 * edges), for automaton/lookup.py, which builds one per dictionary once the census has
 * proved its automaton acyclic and as large as its header says. Their Python twin is the
 * layouts' step (NativeLayout, CompactLayout in automaton/fileformat.py): the same states
 * (a cell index; a version 2 handle, offset << 1 | final), the same answers, the same reads
 * (an error is raised where the twin raises one: IndexError for a version 1 cell outside
 * the body, ValueError("damaged: ...") for a version 2 edge no writer writes).
 *
 * Bounded whatever the file: a key longer than the longest word is answered at once
 * (none, before any read), so a walk visits at most `longest_word` states; in each, a
 * version 2 walk reads at most one edge per letter of the alphabet (labels strictly
 * increase), a version 1 walk at most `header_cells` cells and one child. Every index is
 * checked against the body. It holds the body's buffer until release() (the dictionary's
 * close() calls it, before it unmaps the file).
 */

enum { POLICY_FOLD = 0, POLICY_EXACT = 1, POLICY_RAW = 2 };
enum { WANT_WORD = 0, WANT_PREFIX = 1 };
/* lookup_answer's "Python must normalize this text" (besides 1, 0 and -1). */
enum { ANSWER_ASK = 2 };
/* Lookup.ascii_key's entries besides labels: a letter outside the alphabet; ask Python. */
enum { KEY_OUTSIDE = -1, KEY_ASK = -2 };

/* The code points (U+0000 to U+024F: ASCII, Latin-1, Latin Extended-A and -B) whose part
 * of a key the Lookup knows: for a text made of them only, the fold and exact policies
 * make its key a character at a time, each becoming its piece (lookup.py computes the
 * pieces with the policy's own normalize, and tests/test_lookup.py checks the claim over
 * every pair of them). Any other character, and a character whose piece is not letters
 * (white space, which normalize strips at the ends; digits; punctuation), sends the text
 * to Python. */
#define TEXT_TABLE 0x250
typedef struct {
    int8_t n;         /* the piece's letters (1 or 2); 0: ask Python */
    int32_t label[2]; /* each letter's label, -1 if it is no letter of the alphabet */
} Piece;

typedef struct {
    PyObject_HEAD
    Py_buffer view;
    int held;               /* the buffer is held (until release()) */
    int version;            /* 1: cells; 2: compact edges */
    int policy;             /* POLICY_FOLD, POLICY_EXACT or POLICY_RAW */
    uint64_t size;          /* cells (version 1) or bytes (version 2) of the body */
    uint64_t root;          /* the root's state: a cell index, or a handle */
    uint32_t letters;       /* the alphabet's size */
    uint64_t header_cells;  /* cells per state header (version 1) */
    Py_ssize_t longest;     /* the longest word's letters */
    int32_t ascii[128];     /* each ASCII character's label, -1 if not a letter of the alphabet */
    Py_UCS4 *points;        /* the alphabet's code points, strictly increasing */
    Piece *pieces;          /* TEXT_TABLE entries: what each code point becomes in a key */
    int32_t ascii_key[128]; /* the pieces of ASCII, in short: a label, KEY_OUTSIDE or KEY_ASK */
    int memo_depth;         /* the letters the memo spans (0: no memo) */
    uint32_t *memo;         /* letters ** memo_depth entries, made at first use: see Walk */
    uint32_t *table;        /* version 2 states decoded for `in` (NULL: none): see "the table" */
    uint64_t table_len;     /* its entries */
    uint32_t table_root;    /* the root's handle in it */
} Lookup;

static int lookup_closed(Lookup *l) {
    if (l->held) return 0;
    PyErr_SetString(PyExc_ValueError, "the dictionary is closed");
    return 1;
}

/* The label of code point `c`, or -1 when it is not a letter of the alphabet. */
static int64_t lookup_label(const Lookup *l, Py_UCS4 c) {
    if (c < 128) return l->ascii[c];
    uint32_t lo = 0, hi = l->letters;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->points[mid] < c) lo = mid + 1; else hi = mid;
    }
    return lo < l->letters && l->points[lo] == c ? (int64_t)lo : -1;
}

#if defined(__GNUC__) || defined(__clang__)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#endif

/* The version 2 child of *state by `label`, from the edge at `pos` of the state at
 * `start` (the previous edge's label `previous`, -1 for none): format2_edge's reads and
 * checks, an edge at a time. */
static int lookup_child2_careful(const Lookup *l, uint64_t *state, uint32_t label, uint64_t start, uint64_t pos,
                                 int64_t previous) {
    const uint8_t *body = (const uint8_t *)l->view.buf;
    for (;;) { /* at most l->letters rounds: labels strictly increase below it */
        Edge2 e;
        if (format2_edge(body, l->size, start, previous, l->letters, &pos, &e) < 0) {
            damaged("a bad edge");
            return -1;
        }
        if (e.label >= label) {
            if (e.label != label) return 0;
            *state = e.target << 1 | (uint64_t)(e.final != 0);
            return 1;
        }
        if (e.last) return 0;
        previous = (int64_t)e.label;
    }
}

/* The version 2 child of *state by `label`: the same reads and checks as
 * lookup_child2_careful (every edge passed decoded and checked whole, as the twin does),
 * written so that passing an edge takes no branch the data decides: an edge's kind and
 * the length of its reference (one or two bytes) are arithmetic, and the checks are
 * branches never taken in a sound body. A state's edges used to cost a mispredicted
 * branch or two each, most of a lookup's time once the memo spares the first letters.
 * The rare edges (an escaped label, a reference of three bytes or more, the last bytes of
 * the body) go to the careful loop. */
static inline int lookup_child2(const Lookup *l, uint64_t *state, uint32_t label) {
    const uint8_t *body = (const uint8_t *)l->view.buf;
    const uint64_t size = l->size, start = *state >> 1;
    const uint64_t letters = l->letters;
    if (start >= size) return 0; /* the leaf */
    uint64_t pos = start, least = 0;
    for (;;) { /* at most l->letters rounds: labels strictly increase below it */
        if (UNLIKELY(size - pos < 3)) break;
        const uint32_t flags = body[pos], b1 = body[pos + 1], b2 = body[pos + 2];
        const uint64_t lab = flags & EDGE_LABEL;
        const uint32_t kind = (flags >> EDGE_KIND_SHIFT) & 3u;
        const uint32_t has_ref = kind >> 1;             /* KIND_RELATIVE or KIND_ABSOLUTE */
        const uint32_t two = (b1 >> 7) & has_ref;       /* a reference of two bytes */
        if (UNLIKELY(lab == LABEL_ESCAPE || (two & (b2 >> 7)))) break;
        if (UNLIKELY(lab >= letters || lab < least)) goto bad;
        const uint64_t value = (b1 & 0x7Fu) | ((uint64_t)(b2 & 0x7Fu) << 7 & (0u - (uint64_t)two));
        if (lab >= label || (flags & EDGE_LAST)) {
            /* The edge that decides (once a state): its target made and checked, as format2_edge does. */
            uint64_t target = size;
            if (kind == KIND_NEXT) {
                if (!(flags & EDGE_LAST)) goto bad;
                target = pos + 1;
            } else if (has_ref) {
                if (kind == KIND_RELATIVE) {
                    const uint64_t distance = value >> 1;
                    if (value & 1u) {
                        if (distance >= start) goto bad;
                        target = start - distance - 1;
                    } else {
                        target = start + distance;
                    }
                } else {
                    target = value;
                }
                if (target > size) goto bad;
            }
            if (lab != label) return 0;
            *state = target << 1 | (uint64_t)((flags & EDGE_FINAL) != 0);
            return 1;
        }
        /* An edge passed: a "next" edge is always its state's last; a reference within the body. */
        const uint64_t distance = value >> 1, odd = value & 1u;
        const uint64_t relative_bad = (odd & (distance >= start)) | ((odd ^ 1u) & (start + distance > size));
        const uint64_t reference_bad = (kind & 1u) ? (value > size) : relative_bad;
        if (UNLIKELY(kind == KIND_NEXT || (has_ref & reference_bad))) goto bad;
        pos += 1 + has_ref + two;
        least = lab + 1;
    }
    return lookup_child2_careful(l, state, label, start, pos, (int64_t)least - 1);
bad:
    damaged("a bad edge");
    return -1;
}

/* The child of *state by `label` into *state: 1, or 0 when there is none, -1 with an error set. */
static inline int lookup_child(const Lookup *l, uint64_t *state, uint32_t label) {
    if (l->version >= 2) return lookup_child2(l, state, label);
    const uint32_t *cells = (const uint32_t *)l->view.buf;
    uint64_t s = *state, width = l->header_cells;
    if (s >= l->size || l->size - s < width) goto outside;
    uint32_t cell = label / 32, bit = label % 32;
    if (!(cells[s + cell] >> bit & 1u)) return 0;
    uint64_t slot = s + width + popcount32(cells[s + cell] & ((1u << bit) - 1u));
    for (uint32_t i = 0; i < cell; i++) slot += popcount32(cells[s + i]);
    if (slot >= l->size) goto outside;
    *state = cells[slot];
    return 1;
outside:
    PyErr_SetString(PyExc_IndexError, "a transition points outside the file");
    return -1;
}

/* Whether the prefix that leads to `state` is a word: 1 or 0, -1 with an error set. */
static int lookup_final(const Lookup *l, uint64_t state) {
    if (l->version >= 2) return (int)(state & 1u);
    const uint32_t *cells = (const uint32_t *)l->view.buf;
    if (state >= l->size || l->size - state < l->header_cells) {
        PyErr_SetString(PyExc_IndexError, "a transition points outside the file");
        return -1;
    }
    return (cells[state + l->header_cells - 1] & FINAL_FLAG) != 0;
}

/* ---- a walk, letter by letter, with the memo of the first letters ----
 *
 * Most of a lookup's reads are at the top of the automaton, whose states have the most
 * edges (on ENABLE2K, version 2: 11, 7 and 9 edges read at the first three letters, about
 * 5 at the fourth, 1 or 2 below), and a version 2 state is read an edge at a time. So the
 * walks from the root remember where their first `memo_depth` letters lead: an entry a
 * sequence of that many labels (0: not yet walked, 1: no word starts so, else the state
 * plus 2), filled by the walk itself the first time (an error is raised, never kept), read
 * afterwards. It gives what the walk gives, so it changes no answer and no error. At most
 * MEMO_ENTRIES entries of 4 bytes (made at the first walk that reaches the depth), for
 * alphabets of up to 32 letters three letters deep, up to 181 two, up to 32,768 one; none
 * for bodies whose states do not fit 32 bits. */
#define MEMO_ENTRIES (1u << 15)

static void lookup_memo_depth(Lookup *l, int deepest) {
    uint64_t states = l->version >= 2 ? 2 * l->size + 2 : l->size; /* the largest state + 1 */
    l->memo_depth = 0;
    if (states > 0xFFFFFFFFull - 2 || l->letters == 0) return;
    uint64_t entries = 1;
    while (l->memo_depth < deepest && entries * l->letters <= MEMO_ENTRIES) {
        entries *= l->letters;
        l->memo_depth++;
    }
}

typedef struct {
    uint64_t state;     /* where the letters fed so far lead */
    Py_ssize_t letters; /* how many were fed */
    int alive;          /* 0: no word continues so */
    int from_root;      /* the walk began at the root (the memo applies) */
    uint32_t first[3];  /* the first labels, while they are fewer than memo_depth */
} Walk;

static void walk_start(const Lookup *l, Walk *w, uint64_t state) {
    w->state = state;
    w->letters = 0;
    w->alive = 1;
    w->from_root = state == l->root && l->memo_depth > 0;
}

/* Walk the first `pending` labels kept (fewer than the memo's) from the root: 0, or -1 with an error set. */
static int walk_pending(Lookup *l, Walk *w, Py_ssize_t pending) {
    for (Py_ssize_t i = 0; i < pending && w->alive; i++) {
        int found = lookup_child(l, &w->state, w->first[i]);
        if (found < 0) return -1;
        if (!found) w->alive = 0;
    }
    return 0;
}

/* Feed the next label of the key (-1: a letter outside the alphabet): 0, or -1 with an
 * error set. The reads are the twin's: the letters before one outside the alphabet are
 * walked first (where a damaged body raises), a key longer than the longest word reads no more. */
static inline int walk_feed(Lookup *l, Walk *w, int64_t label) {
    if (!w->alive) return 0;
    if (w->letters >= l->longest) { w->alive = 0; return 0; }
    const int keeping = w->from_root && w->letters < l->memo_depth;
    if (label < 0) {
        if (keeping && walk_pending(l, w, w->letters) < 0) return -1;
        w->alive = 0;
        return 0;
    }
    w->letters++;
    if (keeping) {
        w->first[w->letters - 1] = (uint32_t)label;
        if (w->letters < l->memo_depth) return 0; /* walked once the memo's letters are known */
        if (l->memo == NULL) {
            size_t entries = 1;
            for (int i = 0; i < l->memo_depth; i++) entries *= l->letters;
            l->memo = PyMem_Calloc(entries, sizeof(uint32_t));
            if (l->memo == NULL) { PyErr_NoMemory(); return -1; }
        }
        uint64_t at = 0;
        for (int i = 0; i < l->memo_depth; i++) at = at * l->letters + w->first[i];
        uint32_t known = l->memo[at];
        if (!known) {
            uint64_t state = l->root;
            int found = 1;
            for (int i = 0; i < l->memo_depth && found > 0; i++) found = lookup_child(l, &state, w->first[i]);
            if (found < 0) return -1;
            if (found && state > 0xFFFFFFFFull - 2) { /* a version 1 cell no writer writes: not kept */
                w->state = state;
                return 0;
            }
            known = found ? (uint32_t)(state + 2) : 1;
            l->memo[at] = known;
        }
        if (known == 1) { w->alive = 0; return 0; }
        w->state = known - 2;
        return 0;
    }
    int found = lookup_child(l, &w->state, (uint32_t)label);
    if (found < 0) return -1;
    if (!found) w->alive = 0;
    return 0;
}

/* The end of the key: 1, reached (into w->state); 0, no word continues so; -1 with an error set. */
static int walk_end(Lookup *l, Walk *w) {
    if (w->alive && w->from_root && w->letters < l->memo_depth && walk_pending(l, w, w->letters) < 0) return -1;
    return w->alive;
}

/* Follow each character of `key` (a normalized key) from *state: 1, reached (into
 * *state); 0, no word continues so; -1 with an error set. */
static int lookup_walk(Lookup *l, uint64_t *state, PyObject *key) {
    Py_ssize_t length = PyUnicode_GET_LENGTH(key);
    if (length > l->longest) return 0; /* before any read */
    int kind = PyUnicode_KIND(key);
    const void *data = PyUnicode_DATA(key);
    Walk w;
    walk_start(l, &w, *state);
    for (Py_ssize_t i = 0; i < length && w.alive; i++) {
        if (walk_feed(l, &w, lookup_label(l, PyUnicode_READ(kind, data, i))) < 0) return -1;
    }
    int reached = walk_end(l, &w);
    if (reached > 0) *state = w.state;
    return reached;
}

/* 1 for the white space str.strip() removes from an ASCII text, else 0. */
static int ascii_space(Py_UCS4 c) { return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20); }

/* ---- the table: a version 2 body decoded once, for `in` ----------------------------------
 *
 * A version 2 state is read an edge at a time (a byte of flags, an escaped label, a varint
 * reference), so `in` spent most of its time passing edges: about 8 edge reads a miss and
 * 15 a hit below the memo on ENABLE2K, twice v1's instructions. When the Lookup is made
 * (`table=True`, the default) the body is decoded once, with format2_edge's checks on every
 * edge, into rows laid out as version 1 cells: a row is the mask of its state's labels
 * then one entry per edge, the child's row << 1 | final (the child's handle), in label
 * order; the leaf is a row of mask 0 at the end. A step is then a mask test, a rank and
 * one read. Built only for alphabets of at most 32 letters whose body reads whole as
 * states one after the other (as every writer lays them out) with every edge sound and
 * every target a state's start or the leaf, and a body under TABLE_MAX_ENTRIES bytes;
 * otherwise there is none and `in` walks the body as before. On such a body the edge walk
 * never raises, and the table gives its answers: the same states, in the same order.
 * Memory: 4 bytes per state and per edge (ENABLE2K: 54,334 states and 123,451 edges,
 * 711 KB; its body is 307 KB), and while it is built 4 bytes a byte of the body more.
 * The table serves `in` and has_prefix (lookup_answer); step, has_key and the numbers
 * keep the body's handles. */
#define TABLE_MAX_ENTRIES (UINT64_C(1) << 24)

/* The set bits of `x` (no call, no branch: builds without -mpopcnt call a library routine). */
static inline uint32_t table_rank(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

/* Decode the body into l->table, or leave it NULL (nothing raised but MemoryError: -1).
 * One pass decodes each state in body order into its row, each child entry holding the
 * target's offset << 1 | final and row_of[offset] the row of each state's start; a second
 * pass over the rows turns offsets into rows. Bounded: each state takes a byte or more,
 * each edge a byte or more, so at most `size` of each; memory while it is built: row_of, 4
 * bytes a byte of the body, and the table at its most, 2 entries (8 bytes) a byte, cut to its
 * rows at the end (of which only what is written is ever in memory). Where either cannot be
 * had, no table (the table only speeds the walk up). */
static int table_build(Lookup *l) {
    l->table = NULL;
    l->table_len = 0;
    const uint64_t size = l->size;
    if (l->version < 2 || l->letters == 0 || l->letters > 32 || size == 0 || size >= TABLE_MAX_ENTRIES) return 0;
    const uint8_t *body = (const uint8_t *)l->view.buf;
    const uint32_t none = UINT32_MAX;
    /* Entries: a state's row is 1 + its edges, each edge a byte or more, so at most 2 * size, and the leaf's. */
    uint64_t capacity = 2 * size + 1;
    if (capacity > TABLE_MAX_ENTRIES) capacity = TABLE_MAX_ENTRIES;
    uint32_t *row_of = PyMem_Malloc((size_t)(size + 1) * sizeof(uint32_t));
    uint32_t *table = PyMem_Malloc((size_t)capacity * sizeof(uint32_t));
    int result = 0;
    if (row_of == NULL || table == NULL) goto done; /* no table: the lookups walk the body, as without one */
    memset(row_of, 0xFF, (size_t)(size + 1) * sizeof(uint32_t));
    uint64_t row = 0, pos = 0;
    while (pos < size) { /* each round moves pos on by a byte or more */
        const uint64_t start = pos;
        row_of[start] = (uint32_t)row;
        uint32_t mask = 0;
        uint64_t at = row + 1;
        int64_t previous = -1;
        for (;;) { /* at most `letters` edges: labels strictly increase below it */
            Edge2 e;
            if (format2_edge(body, size, start, previous, l->letters, &pos, &e) < 0) goto done;
            if (at + 1 >= capacity) goto done; /* room for this entry and the leaf's row */
            mask |= 1u << e.label;
            table[at++] = (uint32_t)(e.target << 1) | (uint32_t)(e.final != 0); /* target <= size < 2^24 */
            previous = (int64_t)e.label;
            if (e.last) break;
        }
        table[row] = mask;
        row = at;
    }
    const uint64_t leaf_row = row, entries = row + 1;
    table[leaf_row] = 0;
    row_of[size] = (uint32_t)leaf_row;
    for (row = 0; row < leaf_row;) { /* the rows again, each child's offset made its row */
        const uint64_t count = table_rank(table[row]);
        if (row + 1 + count > leaf_row) goto done;
        for (uint64_t i = row + 1; i <= row + count; i++) {
            const uint32_t child = row_of[table[i] >> 1];
            if (child == none) goto done; /* a target inside a state, as no writer writes */
            table[i] = child << 1 | (table[i] & 1u);
        }
        row += 1 + count;
    }
    if ((l->root >> 1) > size || row_of[l->root >> 1] == none) goto done;
    l->table_root = row_of[l->root >> 1] << 1 | (uint32_t)(l->root & 1u);
    uint32_t *fitted = PyMem_Realloc(table, (size_t)entries * sizeof(uint32_t));
    if (fitted != NULL) table = fitted;
    l->table = table;
    l->table_len = entries;
    table = NULL;
done:
    PyMem_Free(row_of);
    PyMem_Free(table);
    return result;
}

/* The table's step from *handle by `label` (-1: a letter outside the alphabet): 1, or 0
 * when no word continues so. The label's bit moved to the top of the mask: the top bit
 * says whether the edge is there, the bits left count it and the edges before it. */
#define TABLE_STEP(table, len, handle, label, POPCOUNT, dead)                                     \
    do {                                                                                           \
        const uint64_t row_ = (handle) >> 1; /* rows are checked when built: never outside */     \
        if (UNLIKELY((label) < 0 || row_ >= (len))) goto dead;                                     \
        const uint32_t upto_ = (table)[row_] << (31 - (uint32_t)(label)); /* label < 32 */        \
        if (!(upto_ >> 31)) goto dead;                                                             \
        const uint64_t slot_ = row_ + POPCOUNT(upto_);                                             \
        if (UNLIKELY(slot_ >= (len))) goto dead;                                                   \
        (handle) = (table)[slot_];                                                                 \
    } while (0)

static inline int table_step(const Lookup *l, uint32_t *handle, int32_t label) {
    uint32_t h = *handle;
    TABLE_STEP(l->table, l->table_len, h, label, table_rank, dead);
    *handle = h;
    return 1;
dead:
    return 0;
}

/* The walk of an ASCII text of `length` letters (no more than the longest word's) on the
 * table: 1, reached (into *handle); 0, no word continues so; ANSWER_ASK when a character
 * needs Python (even after the walk failed). Written twice, for any CPU and for CPUs with
 * popcnt (a build for any x86 CPU calls a library routine for __builtin_popcount). */
#define TABLE_ASCII(NAME, TARGET, POPCOUNT)                                                        \
    TARGET static int NAME(const Lookup *l, const Py_UCS1 *chars, Py_ssize_t length, uint32_t *handle) { \
        const uint32_t *table = l->table;                                                          \
        const uint64_t len = l->table_len;                                                         \
        const int32_t *key = l->ascii_key;                                                         \
        uint32_t h = *handle;                                                                      \
        Py_ssize_t i = 0;                                                                          \
        for (; i < length; i++) {                                                                  \
            const int32_t label = key[chars[i]];                                                   \
            if (UNLIKELY(label == KEY_ASK)) return ANSWER_ASK;                                     \
            TABLE_STEP(table, len, h, label, POPCOUNT, dead);                                      \
        }                                                                                          \
        *handle = h;                                                                               \
        return 1;                                                                                  \
    dead: /* is any character left one Python must see? */                                         \
        for (i++; i < length; i++)                                                                 \
            if (key[chars[i]] == KEY_ASK) return ANSWER_ASK;                                       \
        return 0;                                                                                  \
    }

TABLE_ASCII(table_ascii_plain, , table_rank)
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) && \
    !defined(__POPCNT__) && !defined(BOGGLE_DAFSA_PORTABLE_BITS)
#define TABLE_DISPATCH 1
TABLE_ASCII(table_ascii_popcnt, __attribute__((target("popcnt"))), __builtin_popcount)
/* Whether this CPU has popcnt (asked once, at import; BOGGLE_DAFSA_PLAIN_SEARCH=1 says no). */
static int table_has_popcnt = 0;
#endif

/* Which copy of the table's walk runs: "popcnt" or "plain" (the module's TABLE_WALK). */
static const char *table_walk_variant(void) {
#ifdef TABLE_DISPATCH
    if (table_has_popcnt) return "popcnt";
#endif
    return "plain";
}

static inline int table_ascii(const Lookup *l, const Py_UCS1 *chars, Py_ssize_t length, uint32_t *handle) {
#ifdef TABLE_DISPATCH
    if (table_has_popcnt) return table_ascii_popcnt(l, chars, length, handle);
#endif
    return table_ascii_plain(l, chars, length, handle);
}

/* lookup_answer on the table (l->table set): the same answers, the same texts sent to Python. */
static int table_answer(const Lookup *l, PyObject *text, int want) {
    const Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t longest = l->longest;
    uint32_t handle = l->table_root;
    int alive = 1;
    if (l->policy == POLICY_RAW) {
        if (length > longest) return 0;
        for (Py_ssize_t i = 0; i < length && alive; i++)
            alive = table_step(l, &handle, (int32_t)lookup_label(l, PyUnicode_READ(kind, data, i)));
    } else if (PyUnicode_IS_ASCII(text)) {
        const Py_UCS1 *chars = PyUnicode_1BYTE_DATA(text);
        if (length > longest) return ascii_space(chars[0]) || ascii_space(chars[length - 1]) ? ANSWER_ASK : 0;
        alive = table_ascii(l, chars, length, &handle); /* a key as long as the text */
        if (alive == ANSWER_ASK) return ANSWER_ASK;
    } else {
        const Piece *pieces = l->pieces;
        Py_ssize_t letters = 0;
        for (Py_ssize_t i = 0; i < length; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (c >= TEXT_TABLE || !pieces[c].n) return ANSWER_ASK;
            if (!alive) continue; /* still looking for a character Python must see */
            const Piece *p = &pieces[c];
            for (int j = 0; j < p->n && alive; j++)
                alive = letters++ < longest && table_step(l, &handle, p->label[j]);
        }
    }
    if (!alive) return 0;
    return want == WANT_WORD ? (int)(handle & 1u) : 1;
}


/* Whether `text` (a str, as a user types it) is a word (WANT_WORD) or the prefix of one
 * (WANT_PREFIX): 1 or 0; ANSWER_ASK when Python must make its key (normalize it); -1 with
 * an error set. The key is made here for the texts whose key is theirs a character at a
 * time (see Piece): every character looked up in the table, the walk following each
 * piece's letters while it can; a character the table does not know sends the whole text
 * to Python, even after the walk failed (under the exact policy a combining mark changes
 * the letter before it). A key longer than the longest word is "no" before any read: at
 * once for an ASCII text that white space does not end (its key is as long as it). */
static int lookup_answer(Lookup *l, PyObject *text, int want) {
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    if (length == 0) return want == WANT_PREFIX ? ANSWER_ASK : 0; /* "": any word at all, Python answers */
    if (l->table != NULL) return table_answer(l, text, want);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Walk w;
    walk_start(l, &w, l->root);
    if (l->policy == POLICY_RAW) {
        /* The key is the text itself (none if it holds a line break, which no alphabet holds). */
        if (length > l->longest) return 0;
        for (Py_ssize_t i = 0; i < length && w.alive; i++) {
            if (walk_feed(l, &w, lookup_label(l, PyUnicode_READ(kind, data, i))) < 0) return -1;
        }
    } else {
        if (length > l->longest && PyUnicode_IS_ASCII(text)) {
            const Py_UCS1 *chars = PyUnicode_1BYTE_DATA(text);
            if (ascii_space(chars[0]) || ascii_space(chars[length - 1])) return ANSWER_ASK;
            return 0;
        }
        if (PyUnicode_IS_ASCII(text)) { /* the usual text: a short table, a byte a character */
            const Py_UCS1 *chars = PyUnicode_1BYTE_DATA(text);
            for (Py_ssize_t i = 0; i < length; i++) {
                const int32_t label = l->ascii_key[chars[i]];
                if (label == KEY_ASK) return ANSWER_ASK;
                if (w.alive && walk_feed(l, &w, label) < 0) return -1;
            }
        } else {
            const Piece *pieces = l->pieces;
            for (Py_ssize_t i = 0; i < length; i++) {
                Py_UCS4 c = PyUnicode_READ(kind, data, i);
                if (c >= TEXT_TABLE || !pieces[c].n) return ANSWER_ASK;
                if (!w.alive) continue; /* still looking for a character Python must see */
                const Piece *p = &pieces[c];
                if (walk_feed(l, &w, p->label[0]) < 0) return -1;
                if (p->n > 1 && walk_feed(l, &w, p->label[1]) < 0) return -1;
            }
        }
    }
    int reached = walk_end(l, &w);
    if (reached <= 0) return reached;
    return want == WANT_WORD ? lookup_final(l, w.state) : 1;
}

/* lookup_answer as Python sees it: True, False, or None (ask Python: normalize it). */
static PyObject *lookup_text(Lookup *l, PyObject *text, int want) {
    if (lookup_closed(l)) return NULL;
    if (!PyUnicode_Check(text)) Py_RETURN_FALSE;
    int answer = lookup_answer(l, text, want);
    if (answer < 0) return NULL;
    if (answer == ANSWER_ASK) Py_RETURN_NONE;
    return PyBool_FromLong(answer);
}

static PyObject *lookup_word(PyObject *self, PyObject *text) { return lookup_text((Lookup *)self, text, WANT_WORD); }

static PyObject *lookup_prefix(PyObject *self, PyObject *text) { return lookup_text((Lookup *)self, text, WANT_PREFIX); }

/* has_key(key) -> bool: whether the normalized `key` is a word. */
static PyObject *lookup_has_key(PyObject *self, PyObject *key) {
    Lookup *l = (Lookup *)self;
    if (lookup_closed(l)) return NULL;
    if (!PyUnicode_Check(key)) { PyErr_SetString(PyExc_TypeError, "a key is a str"); return NULL; }
    uint64_t state = l->root;
    int reached = lookup_walk(l, &state, key);
    if (reached > 0) reached = lookup_final(l, state);
    if (reached < 0) return NULL;
    return PyBool_FromLong(reached);
}

/* step(state, letters) -> state or None: the twin of the layouts' step, from any state. */
static PyObject *lookup_step(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Lookup *l = (Lookup *)self;
    if (lookup_closed(l)) return NULL;
    if (nargs != 2 || !PyUnicode_Check(args[1])) { PyErr_SetString(PyExc_TypeError, "step(state, letters)"); return NULL; }
    int overflow = 0;
    long long signed_state = PyLong_AsLongLongAndOverflow(args[0], &overflow);
    if (signed_state == -1 && PyErr_Occurred()) return NULL;
    if (overflow || signed_state < 0) {
        PyErr_SetString(PyExc_IndexError, "a state outside the file");
        return NULL;
    }
    uint64_t state = (uint64_t)signed_state;
    if (PyUnicode_GET_LENGTH(args[1]) == 0) return Py_NewRef(args[0]);
    int reached = lookup_walk(l, &state, args[1]);
    if (reached < 0) return NULL;
    if (!reached) Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(state);
}

/* release(): let go of the body (every lookup after it raises ValueError). */
static PyObject *lookup_release(PyObject *self, PyObject *unused) {
    Lookup *l = (Lookup *)self;
    if (l->held) {
        PyBuffer_Release(&l->view);
        l->held = 0;
    }
    PyMem_Free(l->table); /* read only while the body is held */
    l->table = NULL;
    l->table_len = 0;
    Py_RETURN_NONE;
}

static void lookup_dealloc(PyObject *self) {
    Lookup *l = (Lookup *)self;
    if (l->held) PyBuffer_Release(&l->view);
    PyMem_Free(l->points);
    PyMem_Free(l->pieces);
    PyMem_Free(l->memo);
    PyMem_Free(l->table);
    Py_TYPE(self)->tp_free(self);
}

/* Fill l->pieces from `pieces` (None, or TEXT_TABLE entries, each None or a str of one
 * or two characters): 0, or -1 with an error set. None: ASCII letters only, as themselves
 * (upper-cased by the fold policy), the rest asking Python. */
static int lookup_pieces_fill(Lookup *l, PyObject *pieces);

static int lookup_pieces(Lookup *l, PyObject *pieces) {
    if (lookup_pieces_fill(l, pieces) < 0) return -1;
    for (int c = 0; c < 128; c++) {
        const Piece *p = &l->pieces[c];
        /* ASCII pieces are one letter each (tests/test_lookup.py checks the table). */
        l->ascii_key[c] = p->n == 1 ? (p->label[0] < 0 ? KEY_OUTSIDE : p->label[0]) : KEY_ASK;
    }
    return 0;
}

static int lookup_pieces_fill(Lookup *l, PyObject *pieces) {
    l->pieces = PyMem_Calloc(TEXT_TABLE, sizeof(Piece));
    if (l->pieces == NULL) { PyErr_NoMemory(); return -1; }
    if (pieces == NULL || pieces == Py_None) {
        for (Py_UCS4 c = 'A'; c <= 'z'; c++) {
            if (c > 'Z' && c < 'a') continue;
            Py_UCS4 key = l->policy == POLICY_FOLD && c >= 'a' ? c - ('a' - 'A') : c;
            l->pieces[c].n = 1;
            l->pieces[c].label[0] = (int32_t)lookup_label(l, key);
        }
        return 0;
    }
    PyObject *seq = PySequence_Fast(pieces, "Lookup: pieces is a sequence");
    if (seq == NULL) return -1;
    int result = -1;
    if (PySequence_Fast_GET_SIZE(seq) != TEXT_TABLE) {
        PyErr_Format(PyExc_ValueError, "Lookup: pieces has %d entries", TEXT_TABLE);
        goto done;
    }
    for (Py_ssize_t c = 0; c < TEXT_TABLE; c++) {
        PyObject *piece = PySequence_Fast_GET_ITEM(seq, c);
        if (piece == Py_None) continue;
        Py_ssize_t n = PyUnicode_Check(piece) ? PyUnicode_GET_LENGTH(piece) : -1;
        if (n < 1 || n > 2) {
            PyErr_SetString(PyExc_ValueError, "Lookup: a piece is None or a str of one or two characters");
            goto done;
        }
        l->pieces[c].n = (int8_t)n;
        for (Py_ssize_t j = 0; j < n; j++) l->pieces[c].label[j] = (int32_t)lookup_label(l, PyUnicode_READ_CHAR(piece, j));
    }
    result = 0;
done:
    Py_DECREF(seq);
    return result;
}

static PyObject *lookup_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *body, *alphabet, *pieces = NULL;
    int version, policy, memo = 3, table = 1;
    unsigned long long root, header_cells;
    Py_ssize_t longest;
    static char *names[] = {"body", "version", "root", "alphabet", "header_cells", "longest_word", "policy", "pieces", "memo", "table", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OiKUKni|Oip", names, &body, &version, &root, &alphabet, &header_cells,
                                     &longest, &policy, &pieces, &memo, &table))
        return NULL;
    if (memo < 0 || memo > 3) {
        PyErr_SetString(PyExc_ValueError, "Lookup: memo is 0 to 3 letters");
        return NULL;
    }
    if (version < 1 || version > FORMAT2_VERSION || policy < POLICY_FOLD || policy > POLICY_RAW || longest < 0) {
        PyErr_SetString(PyExc_ValueError, "Lookup: a version, policy or longest word out of range");
        return NULL;
    }
    Py_ssize_t letters = PyUnicode_GET_LENGTH(alphabet);
    if (letters > 0xFFFFFFFFll || (version == 1 && header_cells != format_header_cells((uint64_t)letters))) {
        PyErr_SetString(PyExc_ValueError, "Lookup: an alphabet that does not fit the header's cells");
        return NULL;
    }
    Lookup *l = (Lookup *)type->tp_alloc(type, 0);
    if (l == NULL) return NULL;
    l->points = PyMem_Malloc((size_t)(letters ? letters : 1) * sizeof(Py_UCS4));
    if (l->points == NULL) { Py_DECREF(l); return PyErr_NoMemory(); }
    for (int i = 0; i < 128; i++) l->ascii[i] = -1;
    for (Py_ssize_t i = 0; i < letters; i++) {
        Py_UCS4 c = PyUnicode_READ_CHAR(alphabet, i);
        if (i > 0 && c <= l->points[i - 1]) {
            Py_DECREF(l);
            PyErr_SetString(PyExc_ValueError, "Lookup: an alphabet not in strictly increasing order");
            return NULL;
        }
        l->points[i] = c;
        if (c < 128) l->ascii[c] = (int32_t)i;
    }
    l->letters = (uint32_t)letters;
    l->policy = policy;
    if (lookup_pieces(l, pieces) < 0) { Py_DECREF(l); return NULL; }
    if (PyObject_GetBuffer(body, &l->view, PyBUF_SIMPLE) < 0) { Py_DECREF(l); return NULL; }
    l->held = 1;
    l->version = version;
    l->header_cells = header_cells;
    l->size = version >= 2 ? (uint64_t)l->view.len : (uint64_t)l->view.len / 4;
    l->root = root;
    l->longest = longest;
    lookup_memo_depth(l, memo);
    if (table && table_build(l) < 0) { Py_DECREF(l); return NULL; }
    return (PyObject *)l;
}

static PyObject *lookup_number_of(PyObject *self, PyObject *args);
static PyObject *lookup_word_of(PyObject *self, PyObject *args);

static PyMethodDef lookup_methods[] = {
    {"number_of", lookup_number_of, METH_VARARGS, "number_of(key, section, word_count) -> the key's word number, or None"},
    {"word_of", lookup_word_of, METH_VARARGS, "word_of(number, section, word_count) -> the word of that number"},
    {"word", lookup_word, METH_O, "word(text) -> True, False, or None (the key needs Python's normalization)"},
    {"prefix", lookup_prefix, METH_O, "prefix(text) -> True, False, or None (as word(), for has_prefix)"},
    {"has_key", lookup_has_key, METH_O, "has_key(key) -> whether the normalized key is a word"},
    {"step", (PyCFunction)(void (*)(void))lookup_step, METH_FASTCALL, "step(state, letters) -> state or None"},
    {"release", lookup_release, METH_NOARGS, "release(): let go of the body"},
    {NULL, NULL, 0, NULL},
};

/* table_bytes: the memory of the table (0: none, `in` walks the body). */
static PyObject *lookup_table_bytes(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(((Lookup *)self)->table_len * sizeof(uint32_t));
}

static PyGetSetDef lookup_getset[] = {
    {"table_bytes", lookup_table_bytes, NULL, "the bytes of the decoded table that `in` walks (0: none)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject LookupType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "boggle_dafsa.automaton._census.Lookup",
    .tp_basicsize = sizeof(Lookup),
    .tp_dealloc = lookup_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The compiled lookups (in, has_prefix, step) over a native body in place.",
    .tp_methods = lookup_methods,
    .tp_getset = lookup_getset,
    .tp_new = lookup_new,
};

/* ---- word numbers -------------------------------------------------------------------------
 *
 * word_numbers(body, version, root, alphabet_size, longest_word, max_words) -> bytes or None
 *
 * The word-number section of a native body (docs/format.md), its CRC-32 field left zero
 * (the caller fills it): the words at or below every state, counted in one depth-first
 * pass (children in letter order), the states whose count is stored (those with edges
 * that are the target of an edge other than their state's last) marked in a bitmap of
 * one bit a unit (a version 1 cell, a version 2 byte), its rank directory, a byte a count
 * (COUNT_ESCAPE: in the escape table) and the escape table. None for a version 1 body of
 * headers wider than one cell (the twin does those). Its Python twin is
 * fileformat.encode_word_numbers: the same bytes, ValueError("damaged: ...") where it
 * raises one (a cycle, a bad edge, a path longer than `longest_word`, more than
 * `max_words` words below a state). Memory: 5 bytes a unit (a count of 32 bits and a byte
 * of marks) and a frame a level; a 30 MB version 2 body, 150 MB while it counts.
 */
/* A unit's marks (one byte a unit): where the walk is, and whether its count is stored. */
#define WN_UNSEEN 0
#define WN_ON_PATH 1
#define WN_DONE 2
#define WN_WHERE 3
#define WN_STORED 4
#define WN_RANK_BLOCK_BITS 512
#define WN_COUNT_ESCAPE 255
#define WN_FIXED 24

typedef struct {
    uint64_t unit;   /* where the state starts */
    uint64_t pos;    /* version 2: the next edge's offset; version 1: letters not yet followed */
    uint64_t sum;    /* words below the children counted so far */
    uint64_t child;  /* the child being counted (added to sum when it is done) */
    int64_t previous;
    int final, finished, waiting;
    uint32_t head;   /* version 1: the header cell */
} WordFrame;

static void wn_put32(uint8_t *out, uint32_t value) {
    out[0] = (uint8_t)value; out[1] = (uint8_t)(value >> 8); out[2] = (uint8_t)(value >> 16); out[3] = (uint8_t)(value >> 24);
}

static PyObject *word_numbers(PyObject *self, PyObject *args) {
    Py_buffer view;
    int version;
    unsigned long long root, max_words;
    unsigned int alphabet_size;
    Py_ssize_t max_depth;
    if (!PyArg_ParseTuple(args, "y*iKInK", &view, &version, &root, &alphabet_size, &max_depth, &max_words)) return NULL;
    PyObject *result = NULL;
    uint32_t *counts = NULL; /* each at most max_words, below 2**32 (checked before it is kept) */
    uint8_t *marks = NULL;
    WordFrame *stack = NULL;
    const uint8_t *body = (const uint8_t *)view.buf;
    const uint32_t *cells = (const uint32_t *)view.buf;
    uint64_t units = version >= 2 ? (uint64_t)view.len : (uint64_t)view.len / 4;
    if (version < 2 && alphabet_size > FORMAT_ONE_CELL_LETTERS) { result = Py_None; Py_INCREF(result); goto done; }
    if (max_words > 0xFFFFFFFFull) { PyErr_SetString(PyExc_ValueError, "word_numbers: more than 2**32 - 1 words"); goto done; }
    if (max_words > 0xFFFFFFFFull) { PyErr_SetString(PyExc_ValueError, "word_numbers: more than 2**32 - 1 words"); goto done; }
    if (max_depth < 0 || (uint64_t)max_depth > units + 1) { damaged("its longest word is longer than the file can hold"); goto done; }
    if (version >= 2 ? root > units : root >= units) { damaged("the root points outside the file"); goto done; }
    counts = PyMem_Calloc((size_t)units + 1, sizeof(uint32_t));
    marks = PyMem_Calloc((size_t)units + 1, 1);
    stack = PyMem_Malloc((size_t)(max_depth + 2) * sizeof(WordFrame));
    if (!counts || !marks || !stack) { PyErr_NoMemory(); goto done; }
    Py_ssize_t depth = 0;
    WordFrame *f = &stack[0];
    memset(f, 0, sizeof *f);
    f->unit = root; f->previous = -1; f->final = 0;
    if (version >= 2) {
        f->pos = root; f->finished = root >= units;
    } else {
        f->head = cells[root];
        if (format_letters(f->head) >> alphabet_size) { damaged("a letter outside the alphabet"); goto done; }
        f->pos = format_letters(f->head); f->final = format_is_final(f->head); f->finished = f->pos == 0;
    }
    marks[root] = WN_ON_PATH;
    for (;;) {
        f = &stack[depth];
        if (f->waiting) { /* the child pushed last is counted */
            uint64_t below = counts[f->child];
            f->sum = f->sum + below < f->sum ? UINT64_MAX : f->sum + below;
            f->waiting = 0;
        }
        if (!f->finished) {
            uint64_t child;
            int child_final, last;
            if (version >= 2) {
                Edge2 e;
                if (format2_edge(body, units, f->unit, f->previous, alphabet_size, &f->pos, &e) < 0) { damaged("a bad edge"); goto done; }
                f->previous = (int64_t)e.label;
                child = e.target; child_final = e.final; last = e.last;
            } else {
                uint64_t low = f->pos & (0u - f->pos);
                f->pos ^= low;
                uint64_t slot = format_child_slot((uint32_t)f->unit, f->head, (uint32_t)low);
                if (slot >= units) { PyErr_SetString(PyExc_IndexError, "a transition points outside the file"); goto done; }
                child = cells[slot];
                if (child >= units) { PyErr_SetString(PyExc_IndexError, "a transition points outside the file"); goto done; }
                if (format_letters(cells[child]) >> alphabet_size) { damaged("a letter outside the alphabet"); goto done; }
                child_final = format_is_final(cells[child]); last = f->pos == 0;
            }
            f->finished = last;
            int has_edges = version >= 2 ? child < units : format_letters(cells[child]) != 0;
            if (!last && has_edges) marks[child] |= WN_STORED;
            if ((marks[child] & WN_WHERE) == WN_DONE) {
                uint64_t below = counts[child];
                f->sum = f->sum + below < f->sum ? UINT64_MAX : f->sum + below;
                continue;
            }
            if ((marks[child] & WN_WHERE) == WN_ON_PATH) { damaged("its automaton has a cycle"); goto done; }
            if (depth + 1 > max_depth) { damaged("a path longer than its longest word"); goto done; }
            f->child = child; f->waiting = 1;
            depth++;
            WordFrame *c = &stack[depth];
            memset(c, 0, sizeof *c);
            c->unit = child; c->previous = -1; c->final = child_final;
            if (version >= 2) {
                c->pos = child; c->finished = child >= units;
            } else {
                c->head = cells[child]; c->pos = format_letters(c->head); c->finished = c->pos == 0;
            }
            marks[child] = (uint8_t)((marks[child] & WN_STORED) | WN_ON_PATH);
            continue;
        }
        uint64_t words = f->sum + (uint64_t)(f->final != 0);
        if (words < f->sum) words = UINT64_MAX;
        if (words > max_words) { damaged("more words below a state than its header says"); goto done; }
        counts[f->unit] = (uint32_t)words;
        marks[f->unit] = (uint8_t)((marks[f->unit] & WN_STORED) | WN_DONE);
        if (depth == 0) break;
        depth--;
    }
    /* The section. */
    uint64_t counted = 0, escapes = 0;
    for (uint64_t u = 0; u < units; u++) {
        if (!(marks[u] & WN_STORED)) continue;
        counted++;
        if (counts[u] >= WN_COUNT_ESCAPE) escapes++;
    }
    uint64_t blocks = (units + WN_RANK_BLOCK_BITS - 1) / WN_RANK_BLOCK_BITS;
    uint64_t bitmap_at = WN_FIXED, directory_at = bitmap_at + (units + 7) / 8, counts_at = directory_at + 4 * blocks;
    uint64_t table_at = counts_at + counted, size = table_at + 8 * escapes;
    if (size > 0xFFFFFFFFull) { damaged("its word-number section would pass 4 GiB"); goto done; }
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (result == NULL) goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
    memset(out, 0, (size_t)size);
    memcpy(out, "WNUM", 4);
    wn_put32(out + 4, (uint32_t)size);
    wn_put32(out + 12, (uint32_t)units);
    wn_put32(out + 16, (uint32_t)counted);
    wn_put32(out + 20, (uint32_t)escapes);
    uint64_t ordinal = 0, escaped = 0;
    for (uint64_t u = 0; u < units; u++) {
        if (u % WN_RANK_BLOCK_BITS == 0) wn_put32(out + directory_at + 4 * (u / WN_RANK_BLOCK_BITS), (uint32_t)ordinal);
        if (!(marks[u] & WN_STORED)) continue;
        out[bitmap_at + (u >> 3)] |= (uint8_t)(1u << (u & 7));
        if (counts[u] >= WN_COUNT_ESCAPE) {
            out[counts_at + ordinal] = WN_COUNT_ESCAPE;
            wn_put32(out + table_at + 8 * escaped, (uint32_t)ordinal);
            wn_put32(out + table_at + 8 * escaped + 4, (uint32_t)counts[u]);
            escaped++;
        } else {
            out[counts_at + ordinal] = (uint8_t)counts[u];
        }
        ordinal++;
    }
done:
    PyBuffer_Release(&view);
    PyMem_Free(counts);
    PyMem_Free(marks);
    PyMem_Free(stack);
    return result;
}

/* ---- word numbers: index and word ---------------------------------------------------------
 *
 * number_of(key, section, word_count) -> the number of the normalized `key`, or None;
 * word_of(number, section, word_count) -> the word of that number (0 <= number < word_count).
 * Over the body in place and a word-number section (bytes, docs/format.md) that
 * fileformat.WordCounts has checked whole; every read is bounded again here. Their Python
 * twins are index_of and word_at (automaton/numbering.py): the same walks, the same
 * checks that the counts add up along the path, ValueError("damaged: ...") where they
 * raise one (IndexError for a version 1 cell outside the body). Version 2 bodies and
 * version 1 bodies of one-cell headers; the caller asks the twin for the others.
 */
typedef struct {
    const uint8_t *data;
    uint64_t units, counted, escapes, directory_at, counts_at, table_at;
    /* Optional (a ValueReader's): the bitmap a word of 64 units at a time, see RankWord. */
    const struct RankWord *words;
} Section;

/* 64 units of the bitmap, the rank before them and their first counts, in half a cache
 * line: a count is one read of memory, not three (the bitmap, a rank directory, the counts). */
#define RANK_WORD_COUNTS 20
typedef struct RankWord {
    uint64_t bits;
    uint32_t before;                   /* the bits set before these 64 */
    uint8_t counts[RANK_WORD_COUNTS];  /* the counts of the first bits set here (0: read the section) */
} RankWord;

typedef struct {
    uint32_t label;
    uint64_t child; /* a state, as lookup_child makes them */
} NumberEdge;

static int section_open(Section *s, const Py_buffer *view, uint64_t units) {
    const uint8_t *d = (const uint8_t *)view->buf;
    uint64_t len = (uint64_t)view->len;
    if (len < WN_FIXED || memcmp(d, "WNUM", 4) != 0) goto bad;
    s->data = d;
    s->words = NULL;
    s->units = (uint64_t)d[12] | (uint64_t)d[13] << 8 | (uint64_t)d[14] << 16 | (uint64_t)d[15] << 24;
    s->counted = (uint64_t)d[16] | (uint64_t)d[17] << 8 | (uint64_t)d[18] << 16 | (uint64_t)d[19] << 24;
    s->escapes = (uint64_t)d[20] | (uint64_t)d[21] << 8 | (uint64_t)d[22] << 16 | (uint64_t)d[23] << 24;
    if (s->units != units) goto bad;
    s->directory_at = WN_FIXED + (units + 7) / 8;
    s->counts_at = s->directory_at + 4 * ((units + WN_RANK_BLOCK_BITS - 1) / WN_RANK_BLOCK_BITS);
    s->table_at = s->counts_at + s->counted;
    if (s->table_at + 8 * s->escapes != len) goto bad;
    return 0;
bad:
    damaged("its word-number section's fields are inconsistent");
    return -1;
}

/* The bit count of a 64-bit word. */
static inline unsigned popcount64(uint64_t x) {
    /* Without -mpopcnt the builtin is a call into libgcc: the arithmetic is faster. */
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

static uint32_t wn_get32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* The count stored for `unit`: >= 1; 0 when none is stored; -1 with an error set. */
static inline int64_t section_count(const Section *s, uint64_t unit) {
    if (unit >= s->units) return 0;
    uint64_t ordinal;
    if (s->words != NULL) {
        /* One word and its rank: the values' hot path (d[word]). */
        const RankWord *w = &s->words[unit >> 6];
        uint64_t bit = unit & 63;
        if (!(w->bits >> bit & 1u)) return 0;
        uint64_t within = (uint64_t)popcount64(w->bits & ((UINT64_C(1) << bit) - 1u));
        if (within < RANK_WORD_COUNTS && w->counts[within]) return w->counts[within];
        ordinal = w->before + within;
    } else {
        const uint8_t *bitmap = s->data + WN_FIXED;
        uint8_t byte = bitmap[unit >> 3];
        if (!(byte >> (unit & 7) & 1u)) return 0;
        uint64_t block = unit / WN_RANK_BLOCK_BITS;
        ordinal = wn_get32(s->data + s->directory_at + 4 * block);
        for (uint64_t i = block * (WN_RANK_BLOCK_BITS / 8); i < (unit >> 3); i++) ordinal += popcount32(bitmap[i]);
        ordinal += popcount32(byte & ((1u << (unit & 7)) - 1u));
    }
    if (ordinal >= s->counted) { damaged("its word-number section's rank directory is wrong"); return -1; }
    uint8_t count = s->data[s->counts_at + ordinal];
    if (count == 0) { damaged("a count in its word-number section is zero or larger than its words"); return -1; }
    if (count != WN_COUNT_ESCAPE) return count;
    uint64_t lo = 0, hi = s->escapes;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        uint32_t at = wn_get32(s->data + s->table_at + 8 * mid);
        if (at == ordinal) return wn_get32(s->data + s->table_at + 8 * mid + 4);
        if (at < ordinal) lo = mid + 1; else hi = mid;
    }
    damaged("an escaped count in its word-number section is wrong");
    return -1;
}

/* The edges of `state` into `out` (room for l->letters): how many, -1 with an error set. */
static inline int64_t number_edges(const Lookup *l, uint64_t state, NumberEdge *out) {
    int64_t n = 0;
    if (l->version >= 2) {
        const uint8_t *body = (const uint8_t *)l->view.buf;
        const uint64_t size = l->size;
        uint64_t start = state >> 1, pos = start;
        if (start >= size) return 0;
        int64_t previous = -1;
        for (;;) {
            /* The usual edge (a label below 15, a reference of at most two bytes, three
             * bytes of the body left) decoded inline with format2_edge's checks, and no
             * branch the data decides but the rare ones (lookup_child2's way: its kind and
             * the length of its reference are arithmetic); any other by format2_edge. */
            if (size - pos >= 3) {
                const uint32_t flags = body[pos], b1 = body[pos + 1], b2 = body[pos + 2];
                const uint32_t label = flags & EDGE_LABEL, kind = (flags >> EDGE_KIND_SHIFT) & 3u;
                const uint32_t last = (flags >> 7) & 1u;
                const uint32_t has_ref = kind >> 1;       /* KIND_RELATIVE or KIND_ABSOLUTE */
                const uint32_t two = (b1 >> 7) & has_ref; /* a reference of two bytes */
                if (!UNLIKELY((label == LABEL_ESCAPE) | (two & (b2 >> 7)))) {
                    const uint64_t value = (b1 & 0x7Fu) | ((uint64_t)(b2 & 0x7Fu) << 7 & (0u - (uint64_t)two));
                    const uint64_t distance = value >> 1, back = value & 1u;
                    const uint64_t next = pos + 1;
                    uint64_t targets[4];
                    targets[KIND_LEAF] = size;
                    targets[KIND_NEXT] = next;
                    targets[KIND_RELATIVE] = back ? start - distance - 1 : start + distance;
                    targets[KIND_ABSOLUTE] = value;
                    const uint64_t target = targets[kind];
                    const int bad = (label >= l->letters) | ((int64_t)label <= previous) | ((kind == KIND_NEXT) & !last)
                                    | ((kind == KIND_RELATIVE) & (back != 0) & (distance + 1 > start)) | (target > size);
                    if (UNLIKELY(bad)) { damaged("a bad edge"); return -1; }
                    pos = next + has_ref * (1u + two);
                    out[n].label = label;
                    out[n].child = target << 1 | (uint64_t)((flags & EDGE_FINAL) != 0);
                    n++;
                    if (last) return n;
                    previous = (int64_t)label;
                    continue;
                }
            }
            Edge2 e;
            if (format2_edge(body, size, start, previous, l->letters, &pos, &e) < 0) { damaged("a bad edge"); return -1; }
            out[n].label = e.label;
            out[n].child = e.target << 1 | (uint64_t)(e.final != 0);
            n++;
            if (e.last) return n;
            previous = (int64_t)e.label;
        }
    }
    const uint32_t *cells = (const uint32_t *)l->view.buf;
    if (state >= l->size) goto outside;
    uint32_t letters = format_letters(cells[state]);
    if ((uint64_t)letters >> l->letters) { damaged("a letter outside the alphabet"); return -1; }
    for (uint32_t bit = 0; bit < FORMAT_ONE_CELL_LETTERS; bit++) {
        if (!(letters >> bit & 1u)) continue;
        uint64_t slot = state + 1 + (uint64_t)n;
        if (slot >= l->size || cells[slot] >= l->size) goto outside;
        out[n].label = bit;
        out[n].child = cells[slot];
        n++;
    }
    return n;
outside:
    PyErr_SetString(PyExc_IndexError, "a transition points outside the file");
    return -1;
}

/* 1 if some letter follows `state`, 0 if none, -1 with an error set. */
static inline int number_has_edges(const Lookup *l, uint64_t state) {
    if (l->version >= 2) return (state >> 1) < l->size;
    if (state >= l->size) {
        PyErr_SetString(PyExc_IndexError, "a transition points outside the file");
        return -1;
    }
    return format_letters(((const uint32_t *)l->view.buf)[state]) != 0;
}

/* The words below `child`, an edge followed by `later` more of its state's, of the `left`
 * its state has from this edge on (the twin's _child_count): >= 1, or -1 with an error set. */
static inline int64_t number_child(const Lookup *l, const Section *s, uint64_t child, int64_t left, int64_t later) {
    int edges = number_has_edges(l, child);
    if (edges < 0) return -1;
    int64_t stored = 1;
    if (edges) {
        stored = section_count(s, l->version >= 2 ? child >> 1 : child);
        if (stored < 0) return -1;
    }
    if (!later) {
        if (left < 1 || (stored && stored != left)) { damaged("its word counts do not add up"); return -1; }
        return left;
    }
    if (!stored) { damaged("a state's word count is missing"); return -1; }
    if (stored > left - later) { damaged("its word counts do not add up"); return -1; }
    return stored;
}

static int number_ready(Lookup *l, PyObject *section, Py_buffer *view, Section *s, NumberEdge **edges) {
    if (lookup_closed(l)) return -1;
    if (l->version < 2 && l->header_cells != 1) {
        PyErr_SetString(PyExc_ValueError, "word numbers: version 1 headers wider than one cell (ask the twin)");
        return -1;
    }
    if (PyObject_GetBuffer(section, view, PyBUF_SIMPLE) < 0) return -1;
    if (section_open(s, view, l->size) < 0) { PyBuffer_Release(view); return -1; }
    *edges = PyMem_Malloc((size_t)(l->letters ? l->letters : 1) * sizeof(NumberEdge));
    if (*edges == NULL) { PyBuffer_Release(view); PyErr_NoMemory(); return -1; }
    return 0;
}

/* The walk of index: the number of `key` (folding ASCII lower case when `fold`) into
 * *number: 1; 0 when it is no word; -1 with an error set. `edges` has room for l->letters. */
/* The states nearest the root, which most walks pass, with their edges' counts and the sum
 * of the counts before each, made once (a ValueReader's): such a state costs one search of
 * its labels instead of decoding every edge and reading every count. */
/* An edge, and what a walk needs of its child if the child is cached too: a step is one
 * read of 32 bytes. */
typedef struct {
    uint64_t labels; /* the child's: bit i set for an edge labelled i */
    uint32_t before; /* the words below the state's edges before this one */
    uint32_t below;  /* the words below this one: the child's words */
    uint32_t child;  /* the child's state (cached only where every state fits 32 bits) */
    uint32_t first;  /* the child's edges in StateCache.edges (UINT32_MAX: the child is not cached) */
    uint32_t final;  /* the child's */
    int32_t next;    /* while the cache is made: the child's CachedState, or -1 */
} CachedEdge;

typedef struct {
    uint64_t labels; /* bit i set for an edge labelled i (cached only for alphabets of at most 64 letters) */
    uint32_t words;  /* the words at or below it: the `left` a walk brings */
    uint32_t first;  /* its edges in StateCache.edges (UINT32_MAX: not cached) */
    uint32_t final;
    uint32_t count;  /* its edges */
} CachedState;

typedef struct {
    CachedEdge root;     /* the root, as the edge to it would be (before 0, below the words) */
    CachedEdge *edges;
    uint32_t count;      /* the states cached (0: none, not even the root) */
} StateCache;

static int number_walk(const Lookup *l, const Section *s, PyObject *key, int fold, int64_t word_count, NumberEdge *edges,
                       const StateCache *cache, int64_t *number) {
    Py_ssize_t length = PyUnicode_GET_LENGTH(key);
    if (word_count <= 0 || length > l->longest) return 0;
    uint64_t state = l->root;
    int64_t left = word_count, rank = 0;
    int kind = PyUnicode_KIND(key);
    const void *data = PyUnicode_DATA(key);
    /* The root's cached state, then each cached child's, until the walk leaves the cache. */
    const CachedEdge *known = cache != NULL && cache->count ? &cache->root : NULL;
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (fold && c >= 'a' && c <= 'z') c -= 'a' - 'A';
        int64_t label = lookup_label(l, c);
        if (label < 0) return 0;
        if (known != NULL) {
            if (known->below != left) { damaged("its word counts do not add up"); return -1; }
            if (known->final) { rank++; left--; }
            /* The edge's place: the labels below it, one popcount (labels < 64 here). */
            if (!(known->labels >> label & 1u)) return 0;
            const CachedEdge *e = cache->edges + known->first + popcount64(known->labels & ((UINT64_C(1) << label) - 1u));
            rank += e->before;
            left = e->below;
            state = e->child;
            known = e->first != UINT32_MAX ? e : NULL;
            continue;
        }
        int final = lookup_final(l, state);
        if (final < 0) return -1;
        if (final) { rank++; left--; }
        int64_t n = number_edges(l, state, edges);
        if (n < 0) return -1;
        int64_t place = 0;
        for (; place < n; place++) {
            int64_t later = n - 1 - place;
            if (edges[place].label == (uint64_t)label) {
                int64_t below = number_child(l, s, edges[place].child, left, later);
                if (below < 0) return -1;
                left = below;
                state = edges[place].child;
                break;
            }
            if (edges[place].label > (uint64_t)label) return 0;
            int64_t below = number_child(l, s, edges[place].child, left, later);
            if (below < 0) return -1;
            rank += below;
            left -= below;
        }
        if (place == n) return 0;
    }
    int final = lookup_final(l, state);
    if (final <= 0) return final;
    int more = number_has_edges(l, state);
    if (more < 0) return -1;
    if (!more && left != 1) { damaged("its word counts do not add up"); return -1; }
    *number = rank;
    return 1;
}

static PyObject *lookup_number_of(PyObject *self, PyObject *args) {
    Lookup *l = (Lookup *)self;
    PyObject *key, *section;
    long long word_count;
    if (!PyArg_ParseTuple(args, "UOL", &key, &section, &word_count)) return NULL;
    Py_ssize_t length = PyUnicode_GET_LENGTH(key);
    if (word_count <= 0 || length > l->longest) Py_RETURN_NONE;
    Py_buffer view;
    Section s;
    NumberEdge *edges;
    if (number_ready(l, section, &view, &s, &edges) < 0) return NULL;
    int64_t number = 0;
    int found = number_walk(l, &s, key, 0, word_count, edges, NULL, &number);
    PyMem_Free(edges);
    PyBuffer_Release(&view);
    if (found < 0) return NULL;
    if (!found) Py_RETURN_NONE;
    return PyLong_FromLongLong(number);
}

static PyObject *lookup_word_of(PyObject *self, PyObject *args) {
    Lookup *l = (Lookup *)self;
    PyObject *section;
    long long number, word_count;
    if (!PyArg_ParseTuple(args, "LOL", &number, &section, &word_count)) return NULL;
    if (number < 0 || number >= word_count) {
        PyErr_SetString(PyExc_IndexError, "word number out of range");
        return NULL;
    }
    Py_buffer view;
    Section s;
    NumberEdge *edges;
    if (number_ready(l, section, &view, &s, &edges) < 0) return NULL;
    PyObject *result = NULL;
    Py_UCS4 *letters = PyMem_Malloc((size_t)(l->longest + 1) * sizeof(Py_UCS4));
    if (letters == NULL) { PyErr_NoMemory(); goto done; }
    uint64_t state = l->root;
    int64_t left = word_count, rest = number;
    Py_ssize_t length = 0;
    for (;;) {
        int final = lookup_final(l, state);
        if (final < 0) goto done;
        if (final) {
            if (!rest) {
                int more = number_has_edges(l, state);
                if (more < 0) goto done;
                if (!more && left != 1) { damaged("its word counts do not add up"); goto done; }
                result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, letters, length);
                goto done;
            }
            rest--;
            left--;
        }
        int64_t n = number_edges(l, state, edges);
        if (n < 0) goto done;
        if (!n || length >= l->longest) { damaged("its word counts do not add up"); goto done; }
        int64_t place = 0, below = 0;
        for (; place < n; place++) {
            below = number_child(l, &s, edges[place].child, left, n - 1 - place);
            if (below < 0) goto done;
            if (rest < below) break;
            rest -= below;
            left -= below;
        }
        if (place == n) { damaged("its word counts do not add up"); goto done; }
        letters[length++] = l->points[edges[place].label];
        state = edges[place].child;
        left = below;
    }
done:
    PyMem_Free(letters);
    PyMem_Free(edges);
    PyBuffer_Release(&view);
    return result;
}

/* ---- values (issue 33) ---------------------------------------------------------------------
 *
 * ValueReader(lookup, section, values, word_count): d[word] on a file with a value section
 * (automaton/values.py, docs/format.md), over a Lookup (which holds the body) and the
 * checked word-number section (bytes, as number_of takes it). `values` is the value section
 * of a file of int values (a buffer on the mapped file), or None for text and bytes, whose
 * blocks Python inflates: then only number() is of use.
 *
 * get(text) -> the int value of `text`, KeyError if it is no word, None when its key needs
 * Python's normalization (as Lookup.word: ASCII letters, folded under the fold policy; any
 * text without a line break under raw); number(text) -> its word number, likewise;
 * at(number) -> the value of a number; range(start, stop) -> a list of values. Their
 * Python twins are numbering.index_of (the walk) and values.ValueTable.at and .range (the
 * values): the same walk, the same checks that the counts add up along the path, the same
 * ValueError("damaged: ...") where they raise one.
 *
 * Fast: the section's bitmap is copied into 64-bit words with the rank before each (a
 * byte of memory per 16 units of the body), so a count is one word, one popcount and one
 * byte; the edges' array is made once. Bounded: the walk is number_of's (a key longer
 * than the longest word answers at once; a version 2 state's edges read at most once per
 * letter of the alphabet); a value's index is checked against the section's count, and its
 * bits against the packed array's bytes, which the constructor checks against the buffer.
 */
#define VAL_FIXED 40
#define VAL_KIND_INT 1

typedef struct {
    PyObject_HEAD
    Lookup *lookup;          /* held: the body, the alphabet, the policy */
    PyObject *counts;        /* the word-number section (held) */
    Py_buffer counts_view;
    Py_buffer values_view;
    int held;                /* the buffers are held (until release()) */
    int has_values;          /* int values: values_view holds their section */
    int has_counts;          /* a word-number section: the walks (else values in order only) */
    Section section;
    RankWord *words;
    NumberEdge *edges;
    StateCache cache;
    uint32_t *records;       /* every state as a record (see reader_records), or NULL: the cache */
    uint32_t root_record;
    uint32_t head;           /* words at the head of a record: 1 (up to 31 letters) or 3 */
    int want_records;        /* make the records (else the cache), at the first walk */
    int walk_ready;          /* the records or the cache are made */
    int64_t word_count;
    const uint8_t *packed;   /* the int values' packed array */
    uint64_t packed_words;   /* its 64-bit words */
    unsigned width;
    uint64_t base;           /* the smallest value, as two's complement */
} ValueReader;

static uint64_t val_get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static int reader_closed(ValueReader *r) {
    if (r->held && r->lookup->held) return 0;
    PyErr_SetString(PyExc_ValueError, "the dictionary is closed");
    return 1;
}

/* The int value of number `n` (0 <= n < word_count, checked by the caller). */
static int64_t reader_value(const ValueReader *r, uint64_t n) {
    if (!r->width) return (int64_t)r->base;
    uint64_t bit = n * r->width, word = bit >> 6, shift = bit & 63;
    /* The constructor checked packed_words * 64 >= word_count * width: word is inside. */
    uint64_t v = val_get64(r->packed + 8 * word) >> shift;
    if (shift + r->width > 64) v |= val_get64(r->packed + 8 * (word + 1)) << (64 - shift);
    if (r->width < 64) v &= (UINT64_C(1) << r->width) - 1u;
    return (int64_t)(r->base + v);
}

/* The key of `text` as Lookup.word makes it: 1 (walk it, *fold set), 0 (no key: not a
 * word), -2 (ask Python: it needs normalizing). */
static int reader_key(const ValueReader *r, PyObject *text, int *fold) {
    if (!PyUnicode_Check(text)) return -2;
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    if (length == 0) return 0;
    *fold = 0;
    if (r->lookup->policy == POLICY_RAW) {
        if (PyUnicode_FindChar(text, '\n', 0, length, 1) != -1 || PyUnicode_FindChar(text, '\r', 0, length, 1) != -1)
            return 0;
        return 1;
    }
    if (!PyUnicode_IS_ASCII(text)) return -2;
    const Py_UCS1 *chars = PyUnicode_1BYTE_DATA(text);
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS1 c = chars[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return -2;
    }
    *fold = r->lookup->policy == POLICY_FOLD;
    return 1;
}

/* The walk of records_walk for records of one head word (up to 31 letters) and an ASCII
 * key (not the raw policy), each character's label from the Lookup's ascii_key (the fold
 * made there): 1 (into *number), 0 (no word), -2 when a character needs Python (even after
 * the walk failed), as the table's walk of `in`; the label's bit moved to the top of the
 * head, as there. Written twice, as the table's walk (TABLE_DISPATCH). */
#define RECORDS_ASCII(NAME, TARGET, POPCOUNT)                                                      \
    TARGET static int NAME(const uint32_t *rec, const int32_t *key, const Py_UCS1 *chars, Py_ssize_t length, \
                           uint64_t at, int64_t *number) {                                          \
        int64_t rank = 0;                                                                          \
        Py_ssize_t i = 0;                                                                          \
        for (; i < length; i++) {                                                                  \
            const int32_t label = key[chars[i]];                                                   \
            if (UNLIKELY(label < 0)) {                                                             \
                if (label == KEY_ASK) return -2;                                                   \
                goto none; /* a letter outside the alphabet */                                     \
            }                                                                                      \
            const uint32_t head = rec[at];                                                         \
            rank += head >> 31; /* the word so far, if it is one, comes first */                   \
            const uint32_t upto = (head & 0x7FFFFFFFu) << (31 - (uint32_t)label); /* label < 31 */ \
            if (!(upto >> 31)) goto none;                                                          \
            const uint64_t k = POPCOUNT(upto) - 1u;                                                \
            rank += rec[at + 1 + 2 * k];                                                           \
            at = rec[at + 2 + 2 * k];                                                              \
        }                                                                                          \
        if (!(rec[at] >> 31)) return 0;                                                            \
        *number = rank;                                                                            \
        return 1;                                                                                  \
    none: /* is any character left one Python must see? */                                         \
        for (i++; i < length; i++)                                                                 \
            if (key[chars[i]] == KEY_ASK) return -2;                                               \
        return 0;                                                                                  \
    }

RECORDS_ASCII(records_ascii_plain, , table_rank)
#ifdef TABLE_DISPATCH
RECORDS_ASCII(records_ascii_popcnt, __attribute__((target("popcnt"))), __builtin_popcount)
#endif

/* records_ascii_* for `key` (an ASCII str, no longer than the longest word) from the root record. */
static inline int records_ascii(const ValueReader *r, PyObject *key, int64_t *number) {
    const Py_UCS1 *chars = PyUnicode_1BYTE_DATA(key);
    const Py_ssize_t length = PyUnicode_GET_LENGTH(key);
#ifdef TABLE_DISPATCH
    if (table_has_popcnt) return records_ascii_popcnt(r->records, r->lookup->ascii_key, chars, length, r->root_record, number);
#endif
    return records_ascii_plain(r->records, r->lookup->ascii_key, chars, length, r->root_record, number);
}

/* The number of `text`: 1 (into *number), 0 (no word), -2 (ask Python), -1 (an error set). */
/* The walk of index over the records (reader_records): a state a record, the edge taken
 * found by one popcount, the count before it read beside it. The key as number_walk takes it. */
static int records_walk(const ValueReader *r, PyObject *key, int fold, int64_t *number) {
    const Lookup *l = r->lookup;
    Py_ssize_t length = PyUnicode_GET_LENGTH(key);
    if (r->word_count <= 0 || length > l->longest) return 0;
    const uint32_t *rec = r->records;
    uint64_t at = r->root_record;
    int64_t rank = 0;
    int kind = PyUnicode_KIND(key);
    const void *data = PyUnicode_DATA(key);
    if (r->head == 1 && l->policy != POLICY_RAW && PyUnicode_IS_ASCII(key)) return records_ascii(r, key, number);
    if (r->head == 1) { /* up to 31 letters: a record's head is its letters and, at bit 31, final */
        for (Py_ssize_t i = 0; i < length; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (fold && c >= 'a' && c <= 'z') c -= 'a' - 'A';
            int64_t label = lookup_label(l, c);
            if (label < 0) return 0;
            const uint32_t head = rec[at];
            rank += head >> 31; /* the word so far, if it is one, comes first */
            if (!(head >> label & 1u)) return 0;
            const uint64_t k = popcount32(head & ((1u << label) - 1u));
            rank += rec[at + 1 + 2 * k];
            at = rec[at + 2 + 2 * k];
        }
        if (!(rec[at] >> 31)) return 0;
        *number = rank;
        return 1;
    }
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (fold && c >= 'a' && c <= 'z') c -= 'a' - 'A';
        int64_t label = lookup_label(l, c);
        if (label < 0) return 0;
        const uint64_t labels = (uint64_t)rec[at] | (uint64_t)rec[at + 1] << 32;
        rank += rec[at + 2];
        if (!(labels >> label & 1u)) return 0;
        const uint64_t k = popcount64(labels & ((UINT64_C(1) << label) - 1u));
        rank += rec[at + 3 + 2 * k];
        at = rec[at + 4 + 2 * k];
    }
    if (!rec[at + 2]) return 0;
    *number = rank;
    return 1;
}

static int reader_records(ValueReader *r);
static int reader_cache(ValueReader *r);

/* The records (or the cache) at the first walk: reading values in order (range, at) needs neither. */
static int reader_walk_ready(ValueReader *r) {
    if (r->walk_ready) return 0;
    if (r->want_records && reader_records(r) < 0) return -1;
    if (r->records == NULL && reader_cache(r) < 0) return -1;
    r->walk_ready = 1;
    return 0;
}

static int reader_number(ValueReader *r, PyObject *text, int64_t *number) {
    if (!r->has_counts) {
        PyErr_SetString(PyExc_TypeError, "a reader of values in order only (no word-number section given)");
        return -1;
    }
    if (r->records != NULL && r->head == 1 && r->lookup->policy != POLICY_RAW && PyUnicode_Check(text) &&
        PyUnicode_IS_ASCII(text) && PyUnicode_GET_LENGTH(text) > 0 && PyUnicode_GET_LENGTH(text) <= r->lookup->longest)
        return records_ascii(r, text, number); /* the usual key: its characters checked on the way */
    int fold = 0;
    int key = reader_key(r, text, &fold);
    if (key <= 0) return key;
    if (!r->walk_ready && reader_walk_ready(r) < 0) return -1;
    if (r->records != NULL) return records_walk(r, text, fold, number);
    return number_walk(r->lookup, &r->section, text, fold, r->word_count, r->edges, &r->cache, number);
}

static PyObject *reader_get(PyObject *self, PyObject *text) {
    ValueReader *r = (ValueReader *)self;
    if (reader_closed(r)) return NULL;
    if (!r->has_values) { PyErr_SetString(PyExc_TypeError, "get: a reader of int values only"); return NULL; }
    int64_t number = 0;
    int found = reader_number(r, text, &number);
    if (found == -2) Py_RETURN_NONE;
    if (found < 0) return NULL;
    if (!found) { PyErr_SetObject(PyExc_KeyError, text); return NULL; }
    return PyLong_FromLongLong(reader_value(r, (uint64_t)number));
}

static PyObject *reader_walks(PyObject *self, void *closure) {
    ValueReader *r = (ValueReader *)self;
    if (!r->has_counts) return PyUnicode_FromString("none");
    if (reader_walk_ready(r) < 0) return NULL;
    return PyUnicode_FromString(r->records != NULL ? "records" : r->cache.count ? "cache" : "body");
}

static PyObject *reader_number_method(PyObject *self, PyObject *text) {
    ValueReader *r = (ValueReader *)self;
    if (reader_closed(r)) return NULL;
    int64_t number = 0;
    int found = reader_number(r, text, &number);
    if (found == -2) Py_RETURN_NONE;
    if (found < 0) return NULL;
    if (!found) { PyErr_SetObject(PyExc_KeyError, text); return NULL; }
    return PyLong_FromLongLong(number);
}

static PyObject *reader_at(PyObject *self, PyObject *arg) {
    ValueReader *r = (ValueReader *)self;
    if (reader_closed(r)) return NULL;
    if (!r->has_values) { PyErr_SetString(PyExc_TypeError, "at: a reader of int values only"); return NULL; }
    long long n = PyLong_AsLongLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0 || n >= r->word_count) { PyErr_SetString(PyExc_IndexError, "word number out of range"); return NULL; }
    return PyLong_FromLongLong(reader_value(r, (uint64_t)n));
}

static PyObject *reader_range(PyObject *self, PyObject *args) {
    ValueReader *r = (ValueReader *)self;
    long long start, stop;
    int as_bytes = 0;
    if (!PyArg_ParseTuple(args, "LL|p", &start, &stop, &as_bytes)) return NULL;
    if (reader_closed(r)) return NULL;
    if (!r->has_values) { PyErr_SetString(PyExc_TypeError, "range: a reader of int values only"); return NULL; }
    if (start < 0) start = 0;
    if (stop > r->word_count) stop = r->word_count;
    if (stop < start) stop = start;
    if (as_bytes) { /* 64-bit values in native order, as an array('q') holds them */
        PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(8 * (stop - start)));
        if (out == NULL) return NULL;
        for (long long n = start; n < stop; n++) {
            int64_t v = reader_value(r, (uint64_t)n);
            memcpy(PyBytes_AS_STRING(out) + 8 * (n - start), &v, 8);
        }
        return out;
    }
    PyObject *list = PyList_New((Py_ssize_t)(stop - start));
    if (list == NULL) return NULL;
    for (long long n = start; n < stop; n++) {
        PyObject *value = PyLong_FromLongLong(reader_value(r, (uint64_t)n));
        if (value == NULL) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, (Py_ssize_t)(n - start), value);
    }
    return list;
}

static void reader_let_go(ValueReader *r) {
    if (r->held) {
        if (r->has_counts) PyBuffer_Release(&r->counts_view);
        if (r->has_values) PyBuffer_Release(&r->values_view);
        r->held = 0;
    }
}

static PyObject *reader_release(PyObject *self, PyObject *unused) {
    reader_let_go((ValueReader *)self);
    Py_RETURN_NONE;
}

static void reader_dealloc(PyObject *self) {
    ValueReader *r = (ValueReader *)self;
    reader_let_go(r);
    Py_XDECREF(r->lookup);
    Py_XDECREF(r->counts);
    PyMem_Free(r->words);
    PyMem_Free(r->edges);
    PyMem_Free(r->cache.edges);
    PyMem_Free(r->records);
    Py_TYPE(self)->tp_free(self);
}

/* The states nearest the root, breadth first, while they are at most CACHE_STATES and their
 * edges at most CACHE_EDGES, each with its edges' counts (number_child's, with its checks). */
#define CACHE_STATES 1024
#define CACHE_EDGES 8192

static uint64_t cache_hash(uint64_t state) { return (state * UINT64_C(0x9E3779B97F4A7C15)) >> 17; }

/* The max-heap of reader_cache: state indices by their words (the most first). */
static void heap_push(uint32_t *heap, uint32_t *size, const CachedState *states, uint32_t item) {
    uint32_t at = (*size)++;
    while (at > 0) {
        uint32_t parent = (at - 1) / 2;
        if (states[heap[parent]].words >= states[item].words) break;
        heap[at] = heap[parent];
        at = parent;
    }
    heap[at] = item;
}

static uint32_t heap_pop(uint32_t *heap, uint32_t *size, const CachedState *states) {
    uint32_t top = heap[0], item = heap[--(*size)], at = 0;
    for (;;) {
        uint32_t child = 2 * at + 1;
        if (child >= *size) break;
        if (child + 1 < *size && states[heap[child + 1]].words > states[heap[child]].words) child++;
        if (states[item].words >= states[heap[child]].words) break;
        heap[at] = heap[child];
        at = child;
    }
    if (*size) heap[at] = item;
    return top;
}

static int reader_cache(ValueReader *r) {
    /* Best first: the states with the most words below, which the most walks pass (a
     * walk passes a state for each word below it), until CACHE_STATES states or
     * CACHE_EDGES edges. A state seen (a child of one cached) but not cached keeps no
     * edges. Only for alphabets of at most 64 letters (a label is a bit of `labels`) and
     * bodies whose states fit 32 bits; else no state is cached, and every walk reads the body. */
    const Lookup *l = r->lookup;
    StateCache *c = &r->cache;
    c->count = 0;
    CachedState *states = NULL;
    uint64_t largest = l->version >= 2 ? 2 * l->size + 1 : l->size;
    if (l->letters > 64 || largest > 0xFFFFFFFFull || r->word_count <= 0 || r->word_count > 0xFFFFFFFFll) return 0;
    uint32_t room = 4 * CACHE_STATES; /* states seen */
    states = PyMem_Malloc(room * sizeof(CachedState));
    c->edges = PyMem_Malloc(CACHE_EDGES * sizeof(CachedEdge));
    /* While it is made: each state's handle, and the states seen by handle (open
     * addressing: 1 + its index, 0: none). */
    uint64_t *handles = PyMem_Malloc(room * sizeof(uint64_t));
    uint64_t mask = 2 * (uint64_t)room - 1;
    uint32_t *slots = PyMem_Calloc(mask + 1, sizeof(uint32_t));
    uint32_t *heap = PyMem_Malloc(room * sizeof(uint32_t));
    int result = -1;
    if (!states || !c->edges || !handles || !slots || !heap) { PyErr_NoMemory(); goto done; }
    uint32_t edges_used = 0, seen = 1, waiting = 0, cached = 0;
    handles[0] = l->root;
    states[0].words = (uint32_t)r->word_count;
    states[0].first = UINT32_MAX; /* not cached (yet) */
    slots[cache_hash(l->root) & mask] = 1;
    heap_push(heap, &waiting, states, 0);
    while (waiting && cached < CACHE_STATES) {
        uint32_t q = heap_pop(heap, &waiting, states);
        CachedState *st = &states[q];
        int final = lookup_final(l, handles[q]);
        if (final < 0) goto done;
        int64_t n = number_edges(l, handles[q], r->edges);
        if (n < 0) goto done;
        if (edges_used + (uint64_t)n > CACHE_EDGES) break;
        int64_t left = (int64_t)st->words - final, before = 0;
        st->final = (uint32_t)final;
        st->first = edges_used;
        st->count = (uint32_t)n;
        st->labels = 0;
        cached++;
        for (int64_t place = 0; place < n; place++) {
            uint64_t child = r->edges[place].child;
            int64_t below = number_child(l, &r->section, child, left, n - 1 - place);
            if (below < 0) goto done;
            st->labels |= UINT64_C(1) << r->edges[place].label;
            CachedEdge *e = &c->edges[edges_used++];
            e->child = (uint32_t)child;
            e->below = (uint32_t)below;
            e->before = (uint32_t)before;
            e->next = -1;
            before += below;
            left -= below;
            /* A child with edges is seen once (and waits its turn), while there is room. */
            int more = number_has_edges(l, child);
            if (more < 0) goto done;
            if (!more) continue;
            uint64_t at = cache_hash(child) & mask;
            while (slots[at] && handles[slots[at] - 1] != child) at = (at + 1) & mask;
            if (slots[at]) {
                e->next = (int32_t)(slots[at] - 1);
                continue;
            }
            if (seen == room) continue;
            handles[seen] = child;
            states[seen].words = (uint32_t)below;
            states[seen].first = UINT32_MAX;
            e->next = (int32_t)seen;
            slots[at] = ++seen;
            heap_push(heap, &waiting, states, seen - 1);
        }
    }
    /* Each edge gets its child's part (none: the child is not cached, a walk leaves there). */
    for (uint32_t i = 0; i < edges_used; i++) {
        CachedEdge *e = &c->edges[i];
        const CachedState *child = e->next >= 0 ? &states[e->next] : NULL;
        e->first = child != NULL ? child->first : UINT32_MAX;
        e->labels = child != NULL && child->first != UINT32_MAX ? child->labels : 0;
        e->final = child != NULL && child->first != UINT32_MAX ? child->final : 0;
    }
    c->root.labels = states[0].labels;
    c->root.first = states[0].first;
    c->root.final = states[0].final;
    c->root.below = states[0].words;
    c->root.before = 0;
    c->root.child = (uint32_t)l->root;
    c->count = states[0].first == UINT32_MAX ? 0 : cached;
    result = 0;
done:
    PyMem_Free(states);
    PyMem_Free(handles);
    PyMem_Free(slots);
    PyMem_Free(heap);
    return result;
}

/* Every state as a record of 32-bit words, in the body's order, when the body is
 * of at most RECORDS_MAX_UNITS units and the alphabet of at most 64 letters (else none:
 * the cache and the body): its head (up to 31 letters, one word: bit i for an edge
 * labelled i, bit 31 if it is final; else three: the labels in two words, then 1 if it is
 * final), then for each edge [the words below the edges before it, the record of its
 * child]. Record 0 is the one state without edges (every such state is final and holds one
 * word: its own). The counts are number_child's, with its checks (what the stored section
 * says, proven whole before; or computed), and each state's words must be the same from
 * every parent: a walk then reads one record a letter, never the body, and every record
 * offset it follows was written here (within the array). Memory: 4 x (states + 2 x
 * transitions) bytes, 1.2 MB for ENABLE2K; while made, 12 bytes a state and 4 a unit more. */
#define RECORDS_MAX_UNITS (UINT64_C(1) << 24)

static int reader_records(ValueReader *r) {
    const Lookup *l = r->lookup;
    r->records = NULL;
    uint64_t units = l->version >= 2 ? l->size + 1 : l->size; /* version 2: the leaf's unit too */
    if (l->letters > 64 || units > RECORDS_MAX_UNITS || r->word_count <= 0 || r->word_count > 0xFFFFFFFFll) return 0;
    uint32_t *index = PyMem_Calloc((size_t)units, sizeof(uint32_t)); /* unit -> 1 + its state's place */
    uint64_t room = 1024, count = 0;
    uint64_t *handles = PyMem_Malloc((size_t)room * sizeof(uint64_t));
    uint32_t *offsets = NULL;
    int result = -1;
    if (!index || !handles) { PyErr_NoMemory(); goto done; }
    /* Every state with edges, breadth first; the states without edges share record 0. */
    handles[count++] = l->root;
    index[l->version >= 2 ? l->root >> 1 : l->root] = 1;
    const uint32_t head = l->letters <= 31 ? 1 : 3;
    r->head = head;
    uint64_t words = head; /* record 0 */
    for (uint64_t q = 0; q < count; q++) {
        int64_t n = number_edges(l, handles[q], r->edges);
        if (n < 0) goto done;
        words += head + 2 * (uint64_t)n;
        if (words > 0xFFFFFFFFull) { result = 0; goto done; } /* too many for 32-bit offsets: none */
        for (int64_t place = 0; place < n; place++) {
            uint64_t child = r->edges[place].child;
            int more = number_has_edges(l, child);
            if (more < 0) goto done;
            uint64_t unit = l->version >= 2 ? child >> 1 : child;
            if (!more || unit >= units || index[unit]) continue;
            if (count == room) {
                room *= 2;
                uint64_t *grown = PyMem_Realloc(handles, (size_t)room * sizeof(uint64_t));
                if (grown == NULL) { PyErr_NoMemory(); goto done; }
                handles = grown;
            }
            handles[count++] = child;
            if (count >= 0xFFFFFFFFull) { result = 0; goto done; }
            index[unit] = (uint32_t)count;
        }
    }
    offsets = PyMem_Malloc((size_t)count * sizeof(uint32_t));
    r->records = PyMem_Calloc((size_t)words, sizeof(uint32_t));
    if (!offsets || !r->records) { PyErr_NoMemory(); goto done; }
    /* Records in the body's order, not the walk's: the writer lays a state's last child
     * right after it (version 2), and a walk down a word then reads neighbouring records. */
    uint32_t *sizes = PyMem_Malloc((size_t)count * sizeof(uint32_t));
    if (sizes == NULL) { PyErr_NoMemory(); goto done; }
    for (uint64_t q = 0; q < count; q++) {
        int64_t n = number_edges(l, handles[q], r->edges);
        if (n < 0) { PyMem_Free(sizes); goto done; }
        sizes[q] = head + 2 * (uint32_t)n;
    }
    uint64_t at = head;
    for (uint64_t unit = 0; unit < units; unit++) {
        if (!index[unit]) continue;
        offsets[index[unit] - 1] = (uint32_t)at;
        at += sizes[index[unit] - 1];
    }
    PyMem_Free(sizes);
    if (head == 1) r->records[0] = UINT32_C(1) << 31; /* record 0: no edges, final */
    else r->records[2] = 1;
    /* The words of each state: the root's the header's, each child's what its parent gives it. */
    uint32_t *below = PyMem_Calloc((size_t)count, sizeof(uint32_t));
    if (below == NULL) { PyErr_NoMemory(); goto done; }
    below[0] = (uint32_t)r->word_count;
    for (uint64_t q = 0; q < count; q++) {
        uint32_t *rec = r->records + offsets[q];
        int final = lookup_final(l, handles[q]);
        int64_t n = final < 0 ? -1 : number_edges(l, handles[q], r->edges);
        if (n < 0) { PyMem_Free(below); goto done; }
        int64_t left = (int64_t)below[q] - final, before = 0;
        uint64_t labels = 0;
        for (int64_t place = 0; place < n; place++) {
            uint64_t child = r->edges[place].child;
            int64_t count_below = number_child(l, &r->section, child, left, n - 1 - place);
            int more = count_below < 0 ? -1 : number_has_edges(l, child);
            if (more < 0) { PyMem_Free(below); goto done; }
            labels |= UINT64_C(1) << r->edges[place].label;
            uint64_t unit = l->version >= 2 ? child >> 1 : child;
            uint32_t target = 0;
            if (more) {
                uint32_t place_of = unit < units ? index[unit] : 0;
                if (!place_of) { damaged("a state missing from its breadth-first walk"); PyMem_Free(below); goto done; }
                target = offsets[place_of - 1];
                if (below[place_of - 1] && below[place_of - 1] != (uint32_t)count_below) {
                    damaged("its word counts do not add up");
                    PyMem_Free(below);
                    goto done;
                }
                below[place_of - 1] = (uint32_t)count_below;
            } else if (count_below != 1 || !lookup_final(l, child)) {
                damaged("its word counts do not add up");
                PyMem_Free(below);
                goto done;
            }
            rec[head + 2 * place] = (uint32_t)before;
            rec[head + 2 * place + 1] = target;
            before += count_below;
            left -= count_below;
        }
        if (head == 1) {
            rec[0] = (uint32_t)labels | (uint32_t)final << 31;
        } else {
            rec[0] = (uint32_t)labels;
            rec[1] = (uint32_t)(labels >> 32);
            rec[2] = (uint32_t)final;
        }
    }
    PyMem_Free(below);
    r->root_record = offsets[0];
    result = 0;
done:
    if (result < 0 || (result == 0 && r->records != NULL && offsets == NULL)) {
        PyMem_Free(r->records);
        r->records = NULL;
    }
    PyMem_Free(index);
    PyMem_Free(handles);
    PyMem_Free(offsets);
    return result;
}

static PyObject *reader_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *lookup, *counts, *values;
    long long word_count;
    int records = 1;
    static char *names[] = {"lookup", "section", "values", "word_count", "records", NULL}; /* section: None for values in order only */
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!OOL|p", names, &LookupType, &lookup, &counts, &values, &word_count,
                                     &records))
        return NULL;
    Lookup *l = (Lookup *)lookup;
    if (lookup_closed(l)) return NULL;
    if (l->version < 2 && l->header_cells != 1) {
        PyErr_SetString(PyExc_ValueError, "values: version 1 headers wider than one cell (ask the twin)");
        return NULL;
    }
    if (word_count < 0 || word_count > 0xFFFFFFFFll) { damaged("a word count out of range"); return NULL; }
    ValueReader *r = (ValueReader *)type->tp_alloc(type, 0);
    if (r == NULL) return NULL;
    Py_INCREF(lookup);
    r->lookup = l;
    Py_INCREF(counts);
    r->counts = counts;
    r->word_count = word_count;
    if (counts != Py_None) {
        if (PyObject_GetBuffer(counts, &r->counts_view, PyBUF_SIMPLE) < 0) goto fail;
        r->has_counts = 1;
    }
    if (values != Py_None) {
        if (PyObject_GetBuffer(values, &r->values_view, PyBUF_SIMPLE) < 0) {
            if (r->has_counts) PyBuffer_Release(&r->counts_view);
            r->has_counts = 0;
            goto fail;
        }
        r->has_values = 1;
    }
    r->held = 1;
    if (!r->has_counts) goto values; /* values in order only (range, at) */
    if (section_open(&r->section, &r->counts_view, l->size) < 0) goto fail;
    /* The bitmap as 64-bit words (zero past the units) and the rank before each word. */
    uint64_t units = r->section.units, words = (units + 63) / 64;
    r->words = PyMem_Calloc((size_t)(words ? words : 1), sizeof(RankWord));
    r->edges = PyMem_Malloc((size_t)(l->letters ? l->letters : 1) * sizeof(NumberEdge));
    if (!r->words || !r->edges) { PyErr_NoMemory(); goto fail; }
    const uint8_t *bitmap = r->section.data + WN_FIXED;
    uint64_t bitmap_bytes = (units + 7) / 8, before = 0;
    for (uint64_t i = 0; i < bitmap_bytes; i++) r->words[i >> 3].bits |= (uint64_t)bitmap[i] << (8 * (i & 7));
    if (units % 64) r->words[words - 1].bits &= (UINT64_C(1) << (units % 64)) - 1u;
    for (uint64_t w = 0; w < words; w++) {
        r->words[w].before = (uint32_t)before;
        unsigned here = popcount64(r->words[w].bits);
        /* Copies of the counts of the section (never its escapes, 255: read from the table),
         * within the section's counts only (checked below: `before` ends at `counted`). */
        for (unsigned k = 0; k < here && k < RANK_WORD_COUNTS && before + k < r->section.counted; k++) {
            uint8_t count = r->section.data[r->section.counts_at + before + k];
            r->words[w].counts[k] = count == WN_COUNT_ESCAPE ? 0 : count;
        }
        before += here;
    }
    if (before != r->section.counted) { damaged("its word-number section's bitmap and counts disagree"); goto fail; }
    r->section.words = r->words;
    r->want_records = records;
values:
    if (r->has_values) {
        const uint8_t *v = (const uint8_t *)r->values_view.buf;
        uint64_t len = (uint64_t)r->values_view.len;
        if (len < VAL_FIXED || memcmp(v, "WVAL", 4) != 0 || v[16] != VAL_KIND_INT || v[17] != 0 || v[18] > 64
            || wn_get32(v + 20) != (uint64_t)word_count) {
            damaged("its value section's fields are inconsistent");
            goto fail;
        }
        r->width = v[18];
        r->base = val_get64(v + 24);
        r->packed = v + VAL_FIXED;
        r->packed_words = (len - VAL_FIXED) / 8;
        /* Every entry's bits lie within the packed words (the reads of reader_value). */
        if ((uint64_t)word_count * r->width > r->packed_words * 64) {
            damaged("its value section's fields are inconsistent");
            goto fail;
        }
    }
    return (PyObject *)r;
fail:
    Py_DECREF(r);
    return NULL;
}

static PyMethodDef reader_methods[] = {
    {"get", reader_get, METH_O, "get(text) -> its int value; KeyError if it is no word; None: ask Python"},
    {"number", reader_number_method, METH_O, "number(text) -> its word number; KeyError if it is no word; None: ask Python"},
    {"at", reader_at, METH_O, "at(number) -> the int value of that word number"},
    {"range", reader_range, METH_VARARGS,
     "range(start, stop[, as_bytes]) -> the int values of those word numbers, a list (or their 64-bit bytes)"},
    {"release", reader_release, METH_NOARGS, "release(): let go of the sections"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef reader_getset[] = {
    {"walks", reader_walks, NULL, "What the number walk reads: \"records\", \"cache\" (and the body) or \"body\".", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ValueReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "boggle_dafsa.automaton._census.ValueReader",
    .tp_getset = reader_getset,
    .tp_basicsize = sizeof(ValueReader),
    .tp_dealloc = reader_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "d[word] over a native body and its word-number and value sections, in place.",
    .tp_methods = reader_methods,
    .tp_new = reader_new,
};

/* ---- `word in d` in C ------------------------------------------------------------------------
 *
 * Contains: the base type of automaton/lookup.py's Lookups (so of NativeDictionary) when
 * this part is built, whose sq_contains slot is `word in d`: Python's `in` calls it with
 * no Python frame between. It holds the dictionary's Lookup once armed (`_fast`: set by
 * Lookups._arm after the census, when BOGGLE_DAFSA_PURE does not ask for Python, else
 * left None) and answers from it the texts whose key it makes (lookup_answer); anything
 * else (no Lookup yet or ever, a text Python must normalize, a closed dictionary, an error
 * of the walk) is asked of the dictionary's Python `_contains`, the twin, which arms,
 * normalizes, and turns errors into the library's. Not a str: False, as the twin says.
 */
typedef struct {
    PyObject_HEAD
    PyObject *lookup; /* a Lookup, or NULL */
    PyObject *values; /* a ValueReader of int values, or NULL (issue 33: d[word]) */
} Contains;

static PyObject *contains_name; /* "_contains", interned */
static PyObject *getitem_name;  /* "_getitem", interned */

/* d[word]: the mp_subscript slot, as sq_contains is `in`: the int value read in C by the
 * dictionary's ValueReader (`_values`, set by values.Values._arm_values) for the texts whose
 * key it makes; anything else (no reader, text or bytes values, a text Python must
 * normalize, a closed dictionary, an error of the walk) is asked of the dictionary's
 * Python `_getitem`, the twin, which arms, normalizes, and turns errors into the library's.
 * A word that is no word: KeyError(word), as the twin raises. */
static PyObject *contains_subscript(PyObject *self, PyObject *word) {
    ValueReader *r = (ValueReader *)((Contains *)self)->values;
    if (r != NULL && r->held && r->lookup->held && r->has_values) {
        int64_t number = 0;
        int found = reader_number(r, word, &number);
        if (found == 1) return PyLong_FromLongLong(reader_value(r, (uint64_t)number));
        if (found == 0) {
            PyErr_SetObject(PyExc_KeyError, word);
            return NULL;
        }
        if (found == -1) {
            if (!PyErr_ExceptionMatches(PyExc_IndexError) && !PyErr_ExceptionMatches(PyExc_ValueError)) return NULL;
            PyErr_Clear(); /* the twin meets it again, and says it as the library does */
        }
    }
    return PyObject_CallMethodOneArg(self, getitem_name, word);
}

static PyObject *contains_get_values(PyObject *self, void *closure) {
    PyObject *values = ((Contains *)self)->values;
    return Py_NewRef(values != NULL ? values : Py_None);
}

static PyTypeObject ValueReaderType;

static int contains_set_values(PyObject *self, PyObject *value, void *closure) {
    if (value != NULL && value != Py_None && !PyObject_TypeCheck(value, &ValueReaderType)) {
        PyErr_SetString(PyExc_TypeError, "_values is a ValueReader or None");
        return -1;
    }
    PyObject *old = ((Contains *)self)->values;
    ((Contains *)self)->values = value == NULL || value == Py_None ? NULL : Py_NewRef(value);
    Py_XDECREF(old);
    return 0;
}

static int contains_slot(PyObject *self, PyObject *word) {
    if (!PyUnicode_Check(word)) return 0;
    Lookup *l = (Lookup *)((Contains *)self)->lookup;
    if (l != NULL && l->table != NULL && PyUnicode_IS_ASCII(word) && l->policy != POLICY_RAW) {
        /* The usual question, a word typed in ASCII, straight to the table's walk (as lookup_answer would). */
        const Py_ssize_t length = PyUnicode_GET_LENGTH(word);
        if (length > 0 && length <= l->longest) {
            uint32_t handle = l->table_root; /* l->table is set only while the body is held */
            const int reached = table_ascii(l, PyUnicode_1BYTE_DATA(word), length, &handle);
            if (reached != ANSWER_ASK) return reached ? (int)(handle & 1u) : 0;
        }
    }
    if (l != NULL && l->held) {
        int answer = lookup_answer(l, word, WANT_WORD);
        if (answer == 0 || answer == 1) return answer;
        if (answer < 0) {
            if (!PyErr_ExceptionMatches(PyExc_IndexError) && !PyErr_ExceptionMatches(PyExc_ValueError)) return -1;
            PyErr_Clear(); /* the twin meets it again, and says it as the library does */
        }
    }
    PyObject *result = PyObject_CallMethodOneArg(self, contains_name, word);
    if (result == NULL) return -1;
    int truth = PyObject_IsTrue(result);
    Py_DECREF(result);
    return truth;
}

static PyObject *contains_get_fast(PyObject *self, void *closure) {
    PyObject *lookup = ((Contains *)self)->lookup;
    return Py_NewRef(lookup != NULL ? lookup : Py_None);
}

static int contains_set_fast(PyObject *self, PyObject *value, void *closure) {
    if (value != NULL && value != Py_None && !PyObject_TypeCheck(value, &LookupType)) {
        PyErr_SetString(PyExc_TypeError, "_fast is a Lookup or None");
        return -1;
    }
    PyObject *old = ((Contains *)self)->lookup;
    ((Contains *)self)->lookup = value == Py_None ? NULL : Py_XNewRef(value);
    Py_XDECREF(old);
    return 0;
}

static int contains_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(((Contains *)self)->lookup);
    Py_VISIT(((Contains *)self)->values);
    return 0;
}

static int contains_clear(PyObject *self) {
    Py_CLEAR(((Contains *)self)->lookup);
    Py_CLEAR(((Contains *)self)->values);
    return 0;
}

static void contains_dealloc(PyObject *self) {
    PyObject_GC_UnTrack(self);
    Py_CLEAR(((Contains *)self)->lookup);
    Py_CLEAR(((Contains *)self)->values);
    Py_TYPE(self)->tp_free(self);
}

static PyGetSetDef contains_getset[] = {
    {"_fast", contains_get_fast, contains_set_fast, "The Lookup `in` reads in C (None: every `in` asks _contains).", NULL},
    {"_values", contains_get_values, contains_set_values, "The ValueReader d[word] reads in C (None: d[word] asks _getitem).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods contains_sequence = {.sq_contains = contains_slot};
static PyMappingMethods contains_mapping = {.mp_subscript = contains_subscript};

static PyTypeObject ContainsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "boggle_dafsa.automaton._census.Contains",
    .tp_basicsize = sizeof(Contains),
    .tp_dealloc = contains_dealloc,
    .tp_as_sequence = &contains_sequence,
    .tp_as_mapping = &contains_mapping,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The base of a native dictionary whose `in` runs in C (automaton/lookup.py).",
    .tp_traverse = contains_traverse,
    .tp_clear = contains_clear,
    .tp_getset = contains_getset,
    .tp_new = PyType_GenericNew,
};

static PyMethodDef methods[] = {
    {"census", census, METH_VARARGS, "census(cells, root, width, max_depth, max_words) -> (words, longest_word, states)"},
    {"word_numbers", word_numbers, METH_VARARGS,
     "word_numbers(body, version, root, alphabet_size, longest_word, max_words) -> the word-number section (CRC zero), or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_census", "The census of a native dictionary's cells, and the lookups it makes safe.", -1, methods};

PyMODINIT_FUNC PyInit__census(void) {
#ifdef TABLE_DISPATCH
    /* BOGGLE_DAFSA_PLAIN_SEARCH=1 walks the table with the copy for any CPU here too (the tests compare them). */
    const char *plain = getenv("BOGGLE_DAFSA_PLAIN_SEARCH");
    __builtin_cpu_init();
    table_has_popcnt = __builtin_cpu_supports("popcnt") != 0 && !(plain && strcmp(plain, "1") == 0);
#endif
    if (PyType_Ready(&LookupType) < 0 || PyType_Ready(&ContainsType) < 0) return NULL;
    if (PyType_Ready(&ValueReaderType) < 0) return NULL;
    if (contains_name == NULL && (contains_name = PyUnicode_InternFromString("_contains")) == NULL) return NULL;
    if (getitem_name == NULL && (getitem_name = PyUnicode_InternFromString("_getitem")) == NULL) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddObjectRef(m, "Lookup", (PyObject *)&LookupType) < 0 ||
        PyModule_AddObjectRef(m, "Contains", (PyObject *)&ContainsType) < 0 ||
        PyModule_AddIntConstant(m, "TEXT_TABLE", TEXT_TABLE) < 0 ||
        PyModule_AddStringConstant(m, "TABLE_WALK", table_walk_variant()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&ValueReaderType);
    if (PyModule_AddObject(m, "ValueReader", (PyObject *)&ValueReaderType) < 0) {
        Py_DECREF(&ValueReaderType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
