/* The compiled twin of the pure-Python native kernel (src/boggle_dafsa/solver/python.py,
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
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#endif

/* The format's constants and bit helpers (FINAL_FLAG, popcount32, format_child_slot...). */
#include "../automaton/_format.h"

#define DEAD_CODE 31
#define FIRST_LONG_CODE 32
#define MAX_FACE_LETTERS 3
#define MAX_LETTERS FORMAT_ONE_CELL_LETTERS

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

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
    uint32_t *table; /* open addressing: index + 1 into found, 0 = empty (unnumbered words only) */
    size_t table_size;
    int64_t points;
    int keep;        /* keep each word and path (else, with numbered words, only the totals) */
    int ordered;     /* the words in the order search_core finds them (else any order) */
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

/* Append `word` (length letters) with `path` (cells) to the results: 0 or -1 (memory). */
static int append_found(Results *r, const uint8_t *word, uint32_t length, const int32_t *path, uint32_t cells,
                        int64_t points) {
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
    r->points += points;
    return 0;
}

/* Record `word` with `path` unless already found, dedup by a hash of its letters (the
 * way for a dictionary whose words are not numbered): 0 or -1 (memory). */
static int record_hashed(Results *r, const uint8_t *word, uint32_t length, const int32_t *path, uint32_t cells,
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
    if (append_found(r, word, length, path, cells, points) < 0) return -1;
    r->table[slot] = (uint32_t)r->found_used;
    return 0;
}

/* -- the solver object --------------------------------------------------------------- */

typedef struct Scratch Scratch;

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
    /* The words numbered (number_words): word_offset[slot] for each child slot, NULL
     * until numbered or when the file cannot be (then words are deduplicated by hash). */
    uint32_t *word_offset;
    uint64_t numbered_cells; /* the cell count they were numbered for */
    uint32_t word_total;     /* words reachable from the root: numbers are below it */
    int numbering_tried;
    Py_ssize_t searched;     /* grids searched so far: numbering pays off after a few */
    Scratch *spare;          /* scratch space kept between calls (taken holding the GIL) */
} Solver;

/* One level of the search: the cell visited, the automaton after its face, the next
 * neighbour to try. */
typedef struct {
    uint32_t state, head, length, index; /* the state after the path's faces, its header, letters, word number so far */
    uint32_t position, end;              /* the next and the last-but-one entries of `order` to try */
    int32_t cell;
    uint64_t pending;                    /* or (masked search) those left to try, as bits */
} Frame;

/* A neighbour to step onto: its cell and the bit of its face's first letter. */
typedef struct {
    int32_t cell;
    uint32_t bit;
} Step;

/* Scratch space of a search (one per call in progress, so that threads share nothing). */
struct Scratch {
    Py_ssize_t n;
    uint32_t *first;      /* first-letter bit of each cell's face (0: dead) */
    uint32_t *reach;      /* first-letter bits of each cell's live neighbours */
    int32_t *order_start; /* live neighbours, one-letter faces first, then longer ones */
    Step *order;
    uint8_t *used;
    int32_t *path;
    Frame *frames;
    uint8_t *word;
    uint64_t *letter_mask; /* 32 per cell (masked search, see search_core), else NULL */
    uint32_t *seen;       /* by word number: the generation (grid) that last found it */
    uint32_t generation;
    /* The totals search (see totals_grid; grids of at most 64 cells, words numbered): */
    uint64_t *adjacent;   /* per cell: its neighbours, as bits */
    uint64_t letter_cells[32]; /* by letter: the cells whose one-letter face shows it */
    uint64_t long_cells;  /* the cells of multi-letter faces */
    uint32_t *reach_one;  /* per cell: the letters of its one-letter neighbours */
    uint64_t *seen_bits;  /* by word number: found on this grid (a bit set, cleared through `touched`) */
    uint32_t *touched;    /* the numbers of the words found on this grid */
    size_t touched_size;
    uint8_t *position;    /* n per cell: each live neighbour's place in search_core's order (keep_grid) */
    uint32_t *found_of;   /* by word number: its entry in the results (valid when its seen bit is set) */
    /* Neighbourhoods (_native_hood.h): */
    uint32_t *variant_mask; /* by word number: the variants that spell it (zero between runs) */
    uint32_t *hood_later;   /* (number, length) pairs of a run's variant words */
    size_t hood_later_size;
};

/* The most neighbours a cell may have for the masked search (bits of a uint64_t). */
#define MASKED_DEGREE 64
/* The most cells of a grid for the totals search (its visited cells are a uint64_t). */
#define TOTALS_CELLS 64

static void scratch_free(Scratch *s) {
    free(s->first);
    free(s->reach);
    free(s->order_start);
    free(s->order);
    free(s->used);
    free(s->path);
    free(s->frames);
    free(s->word);
    free(s->letter_mask);
    free(s->seen);
    free(s->adjacent);
    free(s->reach_one);
    free(s->seen_bits);
    free(s->touched);
    free(s->position);
    free(s->found_of);
    free(s->variant_mask);
    free(s->hood_later);
    free(s);
}

/* Scratch space for a call, holding the GIL: the solver's spare one, else a new one;
 * NULL (no memory). Its `seen` array exists when the solver's words are numbered. */
static Scratch *scratch_take(Solver *solver) {
    Scratch *s = solver->spare;
    solver->spare = NULL;
    if (!s) {
        Py_ssize_t n = solver->cell_count;
        s = calloc(1, sizeof(Scratch));
        if (!s) return NULL;
        s->n = n;
        s->first = calloc(n, sizeof(uint32_t));
        s->reach = calloc(n, sizeof(uint32_t));
        s->order_start = calloc(n + 1, sizeof(int32_t));
        s->order = calloc(solver->neighbour_start[n] + 1, sizeof(Step));
        s->used = calloc(n, 1);
        s->path = calloc(n + 1, sizeof(int32_t));
        s->frames = calloc(n + 1, sizeof(Frame));
        s->word = calloc((size_t)n * MAX_FACE_LETTERS + 1, 1);
        Py_ssize_t widest = 0;
        for (Py_ssize_t c = 0; c < n; c++)
            if (solver->neighbour_start[c + 1] - solver->neighbour_start[c] > widest)
                widest = solver->neighbour_start[c + 1] - solver->neighbour_start[c];
        if (widest <= MASKED_DEGREE && !(s->letter_mask = calloc((size_t)n * 32, sizeof(uint64_t)))) {
            scratch_free(s);
            return NULL;
        }
        if (!s->first || !s->reach || !s->order_start || !s->order || !s->used || !s->path || !s->frames ||
            !s->word) {
            scratch_free(s);
            return NULL;
        }
    }
    if (solver->word_offset && !s->seen) {
        s->seen = calloc(solver->word_total ? solver->word_total : 1, sizeof(uint32_t));
        s->generation = 0;
        if (!s->seen) {
            scratch_free(s);
            return NULL;
        }
    }
    if (solver->word_offset && s->n <= TOTALS_CELLS && !s->seen_bits) {
        s->adjacent = calloc((size_t)s->n, sizeof(uint64_t));
        s->reach_one = calloc((size_t)s->n, sizeof(uint32_t));
        s->seen_bits = calloc(solver->word_total / 64 + 1, sizeof(uint64_t));
        s->position = calloc((size_t)s->n * (size_t)s->n, 1);
        s->found_of = malloc(((size_t)solver->word_total + 1) * sizeof(uint32_t));
        if (!s->adjacent || !s->reach_one || !s->seen_bits || !s->position || !s->found_of) {
            scratch_free(s);
            return NULL;
        }
        for (Py_ssize_t c = 0; c < s->n; c++)
            for (int32_t j = solver->neighbour_start[c]; j < solver->neighbour_start[c + 1]; j++)
                s->adjacent[c] |= (uint64_t)1 << solver->neighbour[j];
    }
    return s;
}

/* Give scratch space back, holding the GIL: kept as the spare one, or freed. */
static void scratch_give(Solver *solver, Scratch *s) {
    if (!s) return;
    if (solver->spare)
        scratch_free(s);
    else
        solver->spare = s;
}

enum { SEARCH_OK = 0, SEARCH_MEMORY = -1, SEARCH_DAMAGED = -2, SEARCH_TIMEOUT = -3 };

/* A time limit: the search looks at the clock every CHECK_EVERY steps into a state. */
#define CHECK_EVERY 1024
typedef struct {
    double deadline;    /* monotonic seconds; 0: no limit */
    uint32_t countdown; /* steps before the next look at the clock */
} Budget;

static double monotonic_seconds(void) {
#ifdef _WIN32
    return (double)GetTickCount64() / 1000.0;
#else
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
#endif
}

/* A budget of `seconds` from now (0 or less: none). */
static Budget budget_of(double seconds) {
    Budget budget = {0.0, CHECK_EVERY};
    if (seconds > 0) budget.deadline = monotonic_seconds() + seconds;
    return budget;
}

/* Count one step against the budget: 1 once it has run out. */
static inline int budget_spent(Budget *budget) {
    if (budget->deadline == 0.0 || --budget->countdown) return 0;
    budget->countdown = CHECK_EVERY;
    return monotonic_seconds() > budget->deadline;
}

/* Follow the letters of face `code` after its first, from `state` (reached by the
 * first): the state (inside the cells), or UINT32_MAX when no word continues so;
 * *index gains the word numbers skipped (when `offset` numbers the words); *damaged is
 * set when an index, the last state's included, points outside the cells. */
static inline uint32_t follow_rest(const Solver *solver, const uint32_t *cells, const uint32_t *offset,
                                   uint64_t count, uint32_t state, int code, uint32_t *index, int *damaged) {
    for (int i = 1; i < solver->face_length[code]; i++) {
        if (state >= count) {
            *damaged = 1;
            return UINT32_MAX;
        }
        uint32_t head = cells[state];
        uint32_t bit = 1u << solver->face_letters[code][i];
        if (!(head & bit)) return UINT32_MAX;
        uint64_t slot = format_child_slot(state, head, bit);
        if (slot >= count) {
            *damaged = 1;
            return UINT32_MAX;
        }
        if (offset) *index += offset[slot];
        state = cells[slot];
    }
    /* Checked here, not only by the caller: a damaged cell may hold UINT32_MAX itself,
     * which must not pass for "no word continues" (the twin reports it). */
    if (state >= count) {
        *damaged = 1;
        return UINT32_MAX;
    }
    return state;
}

static inline int64_t points_of(const Solver *solver, uint32_t length) {
    Py_ssize_t i = (Py_ssize_t)length < solver->point_count ? (Py_ssize_t)length : solver->point_count - 1;
    return solver->points[i];
}

/* A word is spelled by the faces of path[0..cells) (length letters, word number `index`
 * when numbered): recorded unless found before on this grid. */
static ALWAYS_INLINE int found_word(const Solver *solver, const uint8_t *codes, Scratch *s, uint32_t cells,
                                    uint32_t length, uint32_t index, Results *r, const int numbered) {
    if (numbered) {
        if (index >= solver->word_total) return SEARCH_DAMAGED; /* the cells changed since numbered */
        if (s->seen[index] == s->generation) return SEARCH_OK;
        s->seen[index] = s->generation;
        if (!r->keep) {
            /* Totals only: the word is never spelled out. */
            r->found_used++;
            r->points += points_of(solver, length);
            return SEARCH_OK;
        }
    }
    uint8_t *w = s->word;
    for (uint32_t i = 0; i < cells; i++) {
        int code = codes[s->path[i]];
        for (int j = 0; j < solver->face_length[code]; j++) *w++ = solver->face_letters[code][j];
    }
    int64_t points = points_of(solver, length);
    int status = numbered ? append_found(r, s->word, length, s->path, cells, points)
                          : record_hashed(r, s->word, length, s->path, cells, points);
    return status < 0 ? SEARCH_MEMORY : SEARCH_OK;
}

/* The index of the lowest set bit of x (x != 0). */
static inline unsigned lowest_bit64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned i = 0;
    while (!(x & 1)) {
        x >>= 1;
        i++;
    }
    return i;
#endif
}

/* The search of one grid (`codes`: a face code per cell) into `r`; `offset`: the word
 * numbers when `numbered`. When `masked` (every cell has at most MASKED_DEGREE
 * neighbours), the neighbours worth trying from a state are found with a few ORs of
 * s->letter_mask instead of a test per neighbour. Touches no Python object. */
static ALWAYS_INLINE int search_core(const Solver *solver, const uint32_t *cells, uint64_t count,
                                     const uint32_t *offset, const uint8_t *codes, Scratch *s, Results *r,
                                     Budget *budget, const int numbered, const int masked) {
    Py_ssize_t n = solver->cell_count;
    const int32_t *nstart = solver->neighbour_start, *nb = solver->neighbour;
    const uint32_t min_length = solver->min_length, longest = solver->longest;
    uint32_t *first = s->first, *reach = s->reach;
    const Step *order = s->order;
    int32_t *order_start = s->order_start, *path = s->path;
    uint8_t *used = s->used;
    uint64_t *letter_mask = s->letter_mask;
    Frame *frames = s->frames;
    int status;
    results_clear(r);
    if (numbered && ++s->generation == 0) {
        /* Generations wrapped around: forget them all. */
        memset(s->seen, 0, (solver->word_total ? solver->word_total : 1) * sizeof(uint32_t));
        s->generation = 1;
    }
    if ((uint64_t)solver->root >= count) return SEARCH_DAMAGED;
    if (budget_spent(budget)) return SEARCH_TIMEOUT;
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
                s->order[k].cell = other;
                s->order[k++].bit = first[other];
                bits |= first[other];
            }
        }
        reach[c] = bits;
        used[c] = 0;
        if (masked) {
            /* letter_mask[32c + L]: which of c's neighbours (by place in `order`) show letter L first. */
            uint64_t *masks = letter_mask + 32 * c;
            for (int32_t j = order_start[c]; j < k; j++) masks[lowest_bit64(order[j].bit)] = 0;
            for (int32_t j = order_start[c]; j < k; j++)
                masks[lowest_bit64(order[j].bit)] |= (uint64_t)1 << (j - order_start[c]);
        }
    }
    order_start[n] = k;

/* The neighbours of `cell` worth trying from a state of header `head` (masked only). */
#define CANDIDATES(into, cell, head)                                                    \
    do {                                                                                \
        uint32_t letters_ = (head) & reach[cell] & ~FINAL_FLAG;                         \
        const uint64_t *masks_ = letter_mask + 32 * (Py_ssize_t)(cell);                 \
        into = 0;                                                                       \
        while (letters_) {                                                              \
            into |= masks_[lowest_bit64(letters_)];                                     \
            letters_ &= letters_ - 1;                                                   \
        }                                                                               \
    } while (0)

    int damaged = 0;
    for (Py_ssize_t start = 0; start < n; start++) {
        uint32_t bit = first[start];
        if (!bit) continue;
        int code = codes[start];
        uint32_t state = solver->root;
        uint32_t head = cells[state];
        if (!(head & bit)) continue;
        uint64_t slot = format_child_slot(state, head, bit);
        if (slot >= count) return SEARCH_DAMAGED;
        uint32_t index = numbered ? offset[slot] : 0;
        state = cells[slot];
        if (code >= FIRST_LONG_CODE) {
            state = follow_rest(solver, cells, numbered ? offset : NULL, count, state, code, &index, &damaged);
            if (damaged) return SEARCH_DAMAGED;
            if (state == UINT32_MAX) continue;
        }
        if (state >= count) return SEARCH_DAMAGED;
        head = cells[state];
        uint32_t length = solver->face_length[code];
        path[0] = (int32_t)start;
        if ((head & FINAL_FLAG) && length >= min_length) {
            if ((status = found_word(solver, codes, s, 1, length, index, r, numbered)) != SEARCH_OK) return status;
        }
        if (!(head & reach[start])) continue;
        if (length > longest) return SEARCH_DAMAGED; /* a path longer than every word */

        /* An explicit stack: frames[0..depth) hold the levels above the current one,
         * which lives in local variables (the compiler keeps them in registers). The
         * neighbours left to try: `pending` (masked: bits of places in `order` after
         * `base`), or order[position..end). */
        Py_ssize_t depth = 0;
        uint32_t position = 0, end = 0, base = (uint32_t)order_start[start];
        uint64_t pending = 0;
        if (masked)
            CANDIDATES(pending, start, head);
        else
            position = base, end = (uint32_t)order_start[start + 1];
        int32_t cell = (int32_t)start;
        used[start] = 1;
        for (;;) {
            if (masked ? !pending : position >= end) {
                used[cell] = 0;
                if (depth == 0) break;
                const Frame *f = &frames[--depth];
                state = f->state;
                head = f->head;
                length = f->length;
                index = f->index;
                cell = f->cell;
                if (masked) {
                    pending = f->pending;
                    base = (uint32_t)order_start[cell];
                } else {
                    position = f->position;
                    end = f->end;
                }
                continue;
            }
            Step step;
            if (masked) {
                step = order[base + lowest_bit64(pending)];
                pending &= pending - 1;
            } else {
                step = order[position++];
                if (!(head & step.bit)) continue;
            }
            int32_t other = step.cell;
            if (used[other]) continue;
            slot = format_child_slot(state, head, step.bit);
            if (slot >= count) return SEARCH_DAMAGED;
            uint32_t child = cells[slot];
            uint32_t child_index = index; /* gains offset[slot] only when needed: a load less */
            int other_code = codes[other];
            uint32_t longer = length + 1;
            if (other_code >= FIRST_LONG_CODE) {
                child = follow_rest(solver, cells, numbered ? offset : NULL, count, child, other_code, &child_index,
                                    &damaged);
                if (damaged) return SEARCH_DAMAGED;
                if (child == UINT32_MAX) continue;
                longer = length + solver->face_length[other_code];
            }
            if (child >= count) return SEARCH_DAMAGED;
            uint32_t child_head = cells[child];
            int is_word = (child_head & FINAL_FLAG) && longer >= min_length, goes_on = (child_head & reach[other]) != 0;
            if (!is_word && !goes_on) continue;
            if (numbered) child_index += offset[slot];
            path[depth + 1] = other;
            if (is_word) {
                status = found_word(solver, codes, s, (uint32_t)depth + 2, longer, child_index, r, numbered);
                if (status != SEARCH_OK) return status;
            }
            if (goes_on) {
                /* A path longer than every word: a cycle, or a lying header. The search
                 * is so bounded by the longest word, whatever the file says elsewhere. */
                if (longer > longest) return SEARCH_DAMAGED;
                if (budget_spent(budget)) return SEARCH_TIMEOUT;
                Frame *f = &frames[depth++];
                f->state = state;
                f->head = head;
                f->length = length;
                f->index = index;
                f->cell = cell;
                if (masked) {
                    f->pending = pending;
                    CANDIDATES(pending, other, child_head);
                    base = (uint32_t)order_start[other];
                } else {
                    f->position = position;
                    f->end = end;
                    position = (uint32_t)order_start[other];
                    end = (uint32_t)order_start[other + 1];
                }
                state = child;
                head = child_head;
                length = longer;
                index = child_index;
                cell = other;
                used[other] = 1;
            }
        }
    }
#undef CANDIDATES
    return SEARCH_OK;
}

/* -- the totals search ------------------------------------------------------------------ */

/* What the totals search reads: one grid's set-up (see totals_grid). */
typedef struct {
    const uint32_t *cells, *offset;
    uint64_t count;
    uint32_t min_length, longest, word_total;
    const uint8_t *codes;
    const uint32_t *first, *reach, *reach_one;
    const uint64_t *adjacent, *letter_cells;
    uint64_t long_cells;
    uint64_t *seen_bits;
    const Solver *solver;
    Scratch *s;
    Results *r;
    Budget *budget;
} Totals;

/* Word number `index` (of `length` letters) is spelled: counted unless counted before. */
static ALWAYS_INLINE int totals_word(const Totals *t, uint32_t index, uint32_t length) {
    if (index >= t->word_total) return SEARCH_DAMAGED; /* the cells changed since numbered */
    uint64_t *word = &t->seen_bits[index >> 6], bit = (uint64_t)1 << (index & 63);
    if (*word & bit) return SEARCH_OK;
    Scratch *s = t->s;
    Results *r = t->r;
    if (grow((void **)&s->touched, &s->touched_size, r->found_used + 1, sizeof(uint32_t)) < 0) return SEARCH_MEMORY;
    *word |= bit;
    s->touched[r->found_used++] = index;
    r->points += points_of(t->solver, length);
    return SEARCH_OK;
}

/* The bit count of a 64-bit word. */
static inline unsigned popcount64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_popcountll(x);
#else
    return popcount32((uint32_t)x) + popcount32((uint32_t)(x >> 32));
#endif
}

/* Whether path p (p_cells cells) comes before path q (q_cells) in search_core's order:
 * start cells in increasing order, then each cell's live neighbours in their order
 * (s->position). The first path search_core meets for a word is the smallest so. */
static inline int path_before(const Scratch *s, const int32_t *p, uint32_t p_cells, const int32_t *q, uint32_t q_cells) {
    if (p[0] != q[0]) return p[0] < q[0];
    uint32_t shorter = p_cells < q_cells ? p_cells : q_cells;
    for (uint32_t i = 1; i < shorter; i++) {
        if (p[i] != q[i]) {
            /* p[i - 1] == q[i - 1]: the two steps leave the same cell. */
            const uint8_t *place = s->position + (size_t)p[i - 1] * (size_t)s->n;
            return place[p[i]] < place[q[i]];
        }
    }
    return p_cells < q_cells;
}

/* Word number `index` (`length` letters) is spelled by the path s->path[0..cells): kept
 * with that path if new, its path replaced if this one comes first in search_core's order. */
static ALWAYS_INLINE int keep_word(const Totals *t, uint32_t index, uint32_t length, uint32_t cells) {
    if (index >= t->word_total) return SEARCH_DAMAGED; /* the cells changed since numbered */
    Scratch *s = t->s;
    Results *r = t->r;
    uint64_t *word = &t->seen_bits[index >> 6], bit = (uint64_t)1 << (index & 63);
    if (*word & bit) {
        size_t at = s->found_of[index];
        if (at >= r->found_used) return SEARCH_MEMORY; /* cannot be: found_of is set with the bit */
        Found *f = &r->found[at];
        if (!path_before(s, s->path, cells, r->cells + f->path, f->cells)) return SEARCH_OK;
        /* The earlier path, in place when it fits (a word's paths have the same cells but
         * for multi-letter faces), else appended. */
        if (cells > f->cells) {
            if (r->cells_used + cells >= UINT32_MAX ||
                grow((void **)&r->cells, &r->cells_size, r->cells_used + cells, sizeof(int32_t)) < 0)
                return SEARCH_MEMORY;
            f->path = (uint32_t)r->cells_used;
            r->cells_used += cells;
        }
        memcpy(r->cells + f->path, s->path, cells * sizeof(int32_t));
        f->cells = cells;
        return SEARCH_OK;
    }
    if (grow((void **)&s->touched, &s->touched_size, r->found_used + 1, sizeof(uint32_t)) < 0) return SEARCH_MEMORY;
    uint8_t *w = s->word;
    for (uint32_t i = 0; i < cells; i++) {
        int code = t->codes[s->path[i]];
        for (int j = 0; j < t->solver->face_length[code]; j++) *w++ = t->solver->face_letters[code][j];
    }
    if ((uint32_t)(w - s->word) != length) return SEARCH_DAMAGED; /* cannot be: the path spells the word */
    size_t at = r->found_used;
    if (append_found(r, s->word, length, s->path, cells, points_of(t->solver, length)) < 0) return SEARCH_MEMORY;
    *word |= bit;
    s->touched[at] = index;
    s->found_of[index] = (uint32_t)at;
    return SEARCH_OK;
}

/* -- the searches, for any CPU and for CPUs with popcnt -------------------------------- */

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) && !defined(__POPCNT__)
/* A build for any x86 CPU: a second copy of the searches for those with popcnt. */
#define DISPATCH_POPCNT 1
#endif

#define SEARCH_NAME(name) name##_plain
#define SEARCH_TARGET
#include "_native_search.h"
#include "_native_hood.h"
#undef SEARCH_NAME
#undef SEARCH_TARGET

#ifdef DISPATCH_POPCNT
#define SEARCH_NAME(name) name##_popcnt
#define SEARCH_TARGET __attribute__((target("popcnt")))
#include "_native_search.h"
#include "_native_hood.h"
#undef SEARCH_NAME
#undef SEARCH_TARGET
/* Whether this CPU has popcnt (asked once, at import). */
static int cpu_has_popcnt = 0;
#endif

/* Which copy of the searches runs: "popcnt" or "plain" (the module's SEARCH attribute). */
static const char *search_variant(void) {
#ifdef DISPATCH_POPCNT
    if (cpu_has_popcnt) return "popcnt";
#elif defined(__POPCNT__)
    return "popcnt";
#endif
    return "plain";
}

/* One grid, by the copy of the search this CPU runs best. */
static int search_grid(const Solver *solver, const uint32_t *cells, uint64_t count, const uint32_t *offset,
                       const uint8_t *codes, Scratch *s, Results *r, Budget *budget) {
#ifdef DISPATCH_POPCNT
    if (cpu_has_popcnt) return search_grid_popcnt(solver, cells, count, offset, codes, s, r, budget);
#endif
    return search_grid_plain(solver, cells, count, offset, codes, s, r, budget);
}

#include "_native_hood_run.h"

static int get_cells(const Solver *solver, Py_buffer *view, uint64_t *count);

/* -- numbering the words --------------------------------------------------------------- */

#define MARK_OPEN 1  /* a state on the walk's current path */
#define MARK_DONE 2  /* a state whose words are counted */
#define MARK_OWNED 4 /* a cell that is a child slot of a state counted */

/* Number the words of the dictionary: the words of a state are its own (when final)
 * first, then its children's in letter order, so that word_offset[slot], the words of
 * the slot's state that come before the slot's child, summed along a word's path gives
 * the word's rank: a perfect hash, below word_total, which spares hashing letters to
 * find words already found. Done once, holding the GIL. Only a file whose reachable
 * automaton is acyclic, inside its cells, no longer than its longest word, with no slot
 * shared by two states, is numbered: any other (a damaged file) is searched without
 * numbers, and its damage is reported when the search meets it, as the twin does. */
static void number_words(Solver *self) {
    self->numbering_tried = 1;
    Py_buffer view;
    uint64_t count;
    if (get_cells(self, &view, &count) < 0) {
        PyErr_Clear();
        return;
    }
    const uint32_t *cells = view.buf;
    uint32_t *words = NULL, *offset = NULL;
    uint8_t *mark = NULL;
    typedef struct {
        uint32_t state, next;
    } Visit;
    Visit *stack = NULL;
    if (count == 0 || count >= UINT32_MAX || self->root >= count) goto fail;
    uint64_t depth_limit = (uint64_t)self->longest + 2;
    if (depth_limit > count + 1) depth_limit = count + 1;
    words = calloc(count, sizeof(uint32_t));
    offset = calloc(count, sizeof(uint32_t));
    mark = calloc(count, 1);
    stack = malloc(depth_limit * sizeof(Visit));
    if (!words || !offset || !mark || !stack) goto fail;
    size_t top = 1;
    stack[0].state = self->root;
    stack[0].next = 0;
    mark[self->root] = MARK_OPEN;
    while (top) {
        Visit *v = &stack[top - 1];
        uint32_t s = v->state, head = cells[s];
        uint32_t children = popcount32(format_letters(head));
        if ((uint64_t)s + children >= count) goto fail;
        if (v->next < children) {
            uint32_t child = cells[(uint64_t)s + 1 + v->next];
            if (child >= count || (mark[child] & MARK_OPEN)) goto fail; /* outside, or a cycle */
            if (mark[child] & MARK_DONE) {
                v->next++;
            } else {
                if (top >= depth_limit) goto fail; /* longer than the longest word */
                mark[child] |= MARK_OPEN;
                stack[top].state = child;
                stack[top].next = 0;
                top++;
            }
            continue;
        }
        uint64_t total = (head & FINAL_FLAG) ? 1 : 0;
        for (uint32_t j = 0; j < children; j++) {
            uint64_t slot = (uint64_t)s + 1 + j;
            if (mark[slot] & MARK_OWNED) goto fail;
            mark[slot] |= MARK_OWNED;
            offset[slot] = (uint32_t)total;
            total += words[cells[slot]];
            if (total >= UINT32_MAX) goto fail;
        }
        words[s] = (uint32_t)total;
        mark[s] = (uint8_t)((mark[s] & ~MARK_OPEN) | MARK_DONE);
        top--;
    }
    self->word_total = words[self->root];
    self->word_offset = offset;
    self->numbered_cells = count;
    offset = NULL;
fail:
    free(words);
    free(offset);
    free(mark);
    free(stack);
    PyBuffer_Release(&view);
}

/* -- ranking ------------------------------------------------------------------------- */

/* A word to rank: `key` orders most pairs by itself (see rank_key), the rest by
 * ranked_before's full comparison. */
typedef struct {
    uint64_t key;
    const Found *found;
    const uint8_t *letters;
} Ranked;

/* A key whose order agrees with the ranking (score descending, length descending, then
 * the words by code point, as solver.sort_key) wherever two keys differ: the score and
 * the length clamped, and the first 8 letters' code-point ranks (5 bits each). */
static inline uint64_t rank_key(const uint8_t *rank, const Found *f, const uint8_t *letters) {
    uint64_t points = f->points < 0 ? 0 : f->points > 0xFFFF ? 0xFFFF : (uint64_t)f->points;
    uint64_t length = f->length > 0xFF ? 0xFF : f->length;
    uint64_t key = ((0xFFFF - points) << 48) | ((0xFF - length) << 40);
    for (uint32_t i = 0; i < 8; i++) key |= (uint64_t)(i < f->length ? rank[letters[i]] : 0) << (35 - 5 * i);
    return key;
}

/* Whether x ranks before y: score descending, length descending, then by code point. */
static inline int ranked_before(const uint8_t *rank, const Ranked *x, const Ranked *y) {
    if (x->key != y->key) return x->key < y->key;
    if (x->found->points != y->found->points) return x->found->points > y->found->points;
    if (x->found->length != y->found->length) return x->found->length > y->found->length;
    for (uint32_t i = 0; i < x->found->length; i++) {
        uint8_t p = rank[x->letters[i]], q = rank[y->letters[i]];
        if (p != q) return p < q;
    }
    return 0;
}

/* Sort items[0..n) (spare: room for n more), a merge sort with insertion sort below 16. */
static void sort_ranked(const uint8_t *rank, Ranked *items, Ranked *spare, size_t n) {
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            Ranked item = items[i];
            size_t j = i;
            while (j > 0 && ranked_before(rank, &item, &items[j - 1])) {
                items[j] = items[j - 1];
                j--;
            }
            items[j] = item;
        }
        return;
    }
    size_t half = n / 2;
    sort_ranked(rank, items, spare, half);
    sort_ranked(rank, items + half, spare, n - half);
    memcpy(spare, items, half * sizeof(Ranked));
    size_t i = 0, j = half, k = 0;
    while (i < half && j < n) items[k++] = ranked_before(rank, &items[j], &spare[i]) ? items[j++] : spare[i++];
    while (i < half) items[k++] = spare[i++];
}

static Ranked *rank_results(const Solver *solver, const Results *r) {
    size_t n = r->found_used;
    Ranked *ranked = malloc((n ? 2 * n : 1) * sizeof(Ranked));
    if (!ranked) return NULL;
    for (size_t i = 0; i < n; i++) {
        ranked[i].found = &r->found[i];
        ranked[i].letters = r->letters + r->found[i].word;
        ranked[i].key = rank_key(solver->rank, ranked[i].found, ranked[i].letters);
    }
    sort_ranked(solver->rank, ranked, ranked + n, n);
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

/* The tuple (words, points) of a grid's totals, built directly (one per grid of a batch:
 * Py_BuildValue parses its format each time). Two ints: it can be in no reference cycle,
 * so the collector need not visit it (a million of them would otherwise be traversed
 * again at each collection of the older generations). */
static PyObject *totals_tuple(int64_t words, int64_t points) {
    PyObject *pair = PyTuple_New(2);
    if (!pair) return NULL;
    PyObject *first = PyLong_FromLongLong(words), *second = first ? PyLong_FromLongLong(points) : NULL;
    if (!second) {
        Py_XDECREF(first);
        Py_DECREF(pair);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, first);
    PyTuple_SET_ITEM(pair, 1, second);
    PyObject_GC_UnTrack(pair);
    return pair;
}

/* One grid's result in `mode`: (words, points); (points, [word...]) ranked; [Hit...] ranked; {word: path}. */
static PyObject *results_object(const Solver *solver, const Results *r, int mode) {
    if (mode == MODE_TOTALS) return totals_tuple((int64_t)r->found_used, r->points);
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
    } else if (status == SEARCH_TIMEOUT) {
        PyErr_SetString(PyExc_TimeoutError, "the search took longer than its time limit");
    } else {
        /* The messages of the Python twin, word for word. */
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

/* Grids a solver searches before it numbers its dictionary's words (a one-grid command
 * does not pay for numbering them). */
#define NUMBER_AFTER 8

/* Search `grids` grids of `codes` into results[g] (in totals mode results[0] serves
 * every grid and totals[2g], totals[2g + 1] get its words and points), the GIL released
 * when `release`, within `timeout` seconds (0: no limit). 0, or -1 with an exception set. */
static int search_grids(Solver *self, const uint8_t *codes, Py_ssize_t grids, int mode, double timeout,
                        int release, Results *results, int64_t *totals) {
    Py_buffer view;
    uint64_t count;
    if (get_cells(self, &view, &count) < 0) return -1;
    if (!self->numbering_tried && self->searched + grids >= NUMBER_AFTER) number_words(self);
    self->searched += grids;
    /* The numbers hold for the cells they were made for (a buffer can be resized). */
    const uint32_t *offset = self->word_offset && self->numbered_cells == count ? self->word_offset : NULL;
    Scratch *s = scratch_take(self);
    if (!s) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return -1;
    }
    Budget budget = budget_of(timeout);
    int status = SEARCH_OK;
    PyThreadState *thread = release ? PyEval_SaveThread() : NULL;
    if (mode == MODE_TOTALS && totals && grids >= HOOD_MIN_RUN && hood_applies(self, offset, s)) {
        status = hood_grids(self, view.buf, count, offset, codes, grids, s, &results[0], &budget, totals);
        grids = 0; /* all done */
    }
    for (Py_ssize_t g = 0; g < grids && status == SEARCH_OK; g++) {
        Results *r = &results[mode == MODE_TOTALS ? 0 : g];
        r->keep = mode != MODE_TOTALS;
        r->ordered = mode == MODE_FOUND;
        status = search_grid(self, view.buf, count, offset, codes + g * self->cell_count, s, r, &budget);
        if (totals) {
            totals[2 * g] = (int64_t)r->found_used;
            totals[2 * g + 1] = r->points;
        }
    }
    if (thread) PyEval_RestoreThread(thread);
    scratch_give(self, s);
    PyBuffer_Release(&view);
    if (status != SEARCH_OK) return raise_search_error(self, status);
    return 0;
}

static int parse_mode(int mode) {
    if (mode < MODE_TOTALS || mode > MODE_FOUND) {
        PyErr_SetString(PyExc_ValueError, "mode must be 0, 1, 2 or 3");
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(solve_many_doc,
"solve_many(codes, mode=2, timeout=0.0) -> list\n\n"
"Search each grid of ``codes`` (a bytes-like object, one face code per cell, grid after\n"
"grid), with the GIL released. ``mode``: 0 gives (words, points) per grid; 1 gives\n"
"(points, [word, ...]) ranked; 2 gives [Hit, ...] ranked; 3 gives {word: first path}.\n"
"Raises TimeoutError when the search takes more than ``timeout`` seconds (0: no limit).");

static PyObject *Solver_solve_many(Solver *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"codes", "mode", "timeout", NULL};
    Py_buffer codes;
    int mode = MODE_HITS;
    double timeout = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|id", keywords, &codes, &mode, &timeout)) return NULL;
    Py_ssize_t grids = 0;
    if (parse_mode(mode) < 0 || check_codes(self, &codes, &grids) < 0) {
        PyBuffer_Release(&codes);
        return NULL;
    }
    PyObject *out = PyList_New(grids);
    /* In totals mode a grid's words are not kept: one set of results does for all. */
    Py_ssize_t kept = mode == MODE_TOTALS ? 1 : grids;
    Results *results = calloc(kept ? kept : 1, sizeof(Results));
    int64_t *totals = mode == MODE_TOTALS ? calloc(grids ? 2 * grids : 1, sizeof(int64_t)) : NULL;
    if (!out || !results || (mode == MODE_TOTALS && !totals)) {
        if (out) PyErr_NoMemory();
        Py_CLEAR(out);
    } else if (search_grids(self, codes.buf, grids, mode, timeout, 1, results, totals) < 0) {
        Py_CLEAR(out);
    } else {
        for (Py_ssize_t g = 0; g < grids; g++) {
            PyObject *item = totals ? totals_tuple(totals[2 * g], totals[2 * g + 1])
                                    : results_object(self, &results[g], mode);
            if (!item) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, g, item);
        }
    }
    if (results)
        for (Py_ssize_t g = 0; g < kept; g++) results_free(&results[g]);
    free(results);
    free(totals);
    PyBuffer_Release(&codes);
    return out;
}

PyDoc_STRVAR(solve_doc,
"solve(codes, mode=2, timeout=0.0) -> object\n\n"
"Search one grid (``codes``: one face code per cell); ``mode`` and ``timeout`` as for solve_many.");

static PyObject *Solver_solve(Solver *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"codes", "mode", "timeout", NULL};
    Py_buffer codes;
    int mode = MODE_HITS;
    double timeout = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|id", keywords, &codes, &mode, &timeout)) return NULL;
    Py_ssize_t grids = 0;
    if (parse_mode(mode) < 0 || check_codes(self, &codes, &grids) < 0 || grids != 1) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "one grid of %zd cells expected", self->cell_count);
        PyBuffer_Release(&codes);
        return NULL;
    }
    Results results;
    memset(&results, 0, sizeof(results));
    PyObject *out = NULL;
    /* A small grid is searched holding the GIL (releasing it would cost more than the
     * search), unless a time limit says it may take long; a large one lets other threads
     * run meanwhile. */
    int release = self->cell_count >= 64 || timeout > 0;
    if (search_grids(self, codes.buf, 1, mode, timeout, release, &results, NULL) == 0)
        out = mode == MODE_TOTALS ? totals_tuple((int64_t)results.found_used, results.points)
                                  : results_object(self, &results, mode);
    results_free(&results);
    PyBuffer_Release(&codes);
    return out;
}

/* -- tallies of word groups, for expected points ------------------------------------- */

PyDoc_STRVAR(tally_many_doc,
"tally_many(codes, groups, found, squares, timeout=0.0) -> int\n\n"
"Search each grid of ``codes`` (as solve_many) and add its words to tallies by group:\n"
"``groups`` (a bytes-like object of uint32, one per word number: see number_words) gives\n"
"each word's group; for each group g, k the group's words found on a grid,\n"
"``found[g] += k`` and ``squares[g] += k * k`` (``found`` and ``squares``: writable\n"
"buffers of uint64, one per group). The words must be numbered (ValueError otherwise),\n"
"grids of at most 64 cells. Returns the grids tallied; the GIL is released meanwhile.");

static int aligned_buffer(Py_buffer *view, Py_ssize_t item, const char *what) {
    if (((uintptr_t)view->buf % (uintptr_t)item) != 0 || view->len % item != 0) {
        PyErr_Format(PyExc_ValueError, "%s: not whole aligned items of %zd bytes", what, item);
        return -1;
    }
    return 0;
}

static PyObject *Solver_tally_many(Solver *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"codes", "groups", "found", "squares", "timeout", NULL};
    Py_buffer codes, groups, found, squares;
    double timeout = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*y*w*w*|d", keywords, &codes, &groups, &found, &squares, &timeout))
        return NULL;
    PyObject *out = NULL;
    uint32_t *count = NULL, *listed = NULL;
    Scratch *s = NULL;
    Py_buffer view;
    int have_view = 0;
    Py_ssize_t grids = 0;
    if (check_codes(self, &codes, &grids) < 0 || aligned_buffer(&groups, 4, "groups") < 0 ||
        aligned_buffer(&found, 8, "found") < 0 || aligned_buffer(&squares, 8, "squares") < 0)
        goto done;
    if (found.len != squares.len || found.len / 8 > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "found and squares must have the same number of groups (below 2**32)");
        goto done;
    }
    if (!self->numbering_tried) number_words(self);
    uint64_t cell_total;
    if (get_cells(self, &view, &cell_total) < 0) goto done;
    have_view = 1;
    const uint32_t *offset = self->word_offset && self->numbered_cells == cell_total ? self->word_offset : NULL;
    if (!offset || self->cell_count > TOTALS_CELLS) {
        PyErr_SetString(PyExc_ValueError, "tally_many needs numbered words (a sound file) and grids of at most 64 cells");
        goto done;
    }
    if ((uint64_t)(groups.len / 4) != (uint64_t)self->word_total) {
        PyErr_Format(PyExc_ValueError, "groups gives %zd words, the dictionary numbers %lu", groups.len / 4,
                     (unsigned long)self->word_total);
        goto done;
    }
    uint32_t group_total = (uint32_t)(found.len / 8);
    const uint32_t *group_of = groups.buf;
    for (uint32_t w = 0; w < self->word_total; w++) {
        if (group_of[w] >= group_total) {
            PyErr_Format(PyExc_ValueError, "word %lu is given group %lu of %lu", (unsigned long)w,
                         (unsigned long)group_of[w], (unsigned long)group_total);
            goto done;
        }
    }
    count = calloc(group_total ? group_total : 1, sizeof(uint32_t));
    s = scratch_take(self);
    if (!count || !s) {
        PyErr_NoMemory();
        goto done;
    }
    if (!s->seen_bits) {
        PyErr_SetString(PyExc_ValueError, "tally_many needs the totals search (numbered words)");
        goto done;
    }
    uint64_t *found_sum = found.buf, *square_sum = squares.buf;
    Results r;
    memset(&r, 0, sizeof(r));
    size_t listed_size = 0;
    Budget budget = budget_of(timeout);
    int status = SEARCH_OK;
    Py_ssize_t g;
    PyThreadState *thread = PyEval_SaveThread();
    for (g = 0; g < grids && status == SEARCH_OK; g++) {
        r.keep = 0;
        r.ordered = 0;
        status = search_grid(self, view.buf, cell_total, offset, (const uint8_t *)codes.buf + g * self->cell_count, s,
                             &r, &budget);
        if (status != SEARCH_OK) break;
        /* The totals search leaves the grid's word numbers in s->touched[0..found_used). */
        if (grow((void **)&listed, &listed_size, r.found_used + 1, sizeof(uint32_t)) < 0) {
            status = SEARCH_MEMORY;
            break;
        }
        size_t groups_seen = 0;
        for (size_t i = 0; i < r.found_used; i++) {
            uint32_t word = s->touched[i];
            if (word >= self->word_total) {
                status = SEARCH_DAMAGED;
                break;
            }
            uint32_t group = group_of[word]; /* below group_total: checked above */
            if (count[group]++ == 0) listed[groups_seen++] = group;
        }
        for (size_t i = 0; i < groups_seen; i++) {
            uint32_t group = listed[i];
            uint64_t k = count[group];
            found_sum[group] += k;
            square_sum[group] += k * k;
            count[group] = 0;
        }
    }
    PyEval_RestoreThread(thread);
    results_free(&r);
    if (status != SEARCH_OK)
        raise_search_error(self, status);
    else
        out = PyLong_FromSsize_t(grids);
done:
    if (s) scratch_give(self, s);
    free(count);
    free(listed);
    if (have_view) PyBuffer_Release(&view);
    PyBuffer_Release(&codes);
    PyBuffer_Release(&groups);
    PyBuffer_Release(&found);
    PyBuffer_Release(&squares);
    return out;
}

/* -- rows of text, for the batch renderers -------------------------------------------- */

/* The kernel writes no format of its own: the output module (boggle_dafsa/output/rows.py)
 * gives a template, text with field marks (bytes 1 to 5), which is copied with each mark
 * replaced by its field. */
enum { FIELD_END = 0, FIELD_WORD = 1, FIELD_POINTS = 2, FIELD_PATH = 3, FIELD_GRID = 4, FIELD_WORDS = 5 };
#define MAX_PIECES 16

/* A template cut at its marks: each piece is literal text followed by a field (FIELD_END
 * for the last piece). */
typedef struct {
    struct {
        const char *text;
        size_t length;
        int field;
    } piece[MAX_PIECES];
    int count;
    size_t literal; /* bytes of literal text in all */
} Template;

/* Cut the UTF-8 `text` at its marks; `allowed` has bit f set for each field f it may hold. */
static int template_parse(PyObject *text, unsigned allowed, Template *out) {
    Py_ssize_t length;
    const char *s = PyUnicode_AsUTF8AndSize(text, &length);
    if (!s) return -1;
    out->count = 0;
    out->literal = 0;
    Py_ssize_t start = 0;
    for (Py_ssize_t i = 0; i <= length; i++) {
        unsigned char c = i < length ? (unsigned char)s[i] : 0;
        if (i < length && (c == 0 || c > FIELD_WORDS)) continue;
        if (i < length && !(allowed & (1u << c))) {
            PyErr_Format(PyExc_ValueError, "the template holds field %d, which this output has not", (int)c);
            return -1;
        }
        if (out->count == MAX_PIECES) {
            PyErr_SetString(PyExc_ValueError, "the template holds too many fields");
            return -1;
        }
        out->piece[out->count].text = s + start;
        out->piece[out->count].length = (size_t)(i - start);
        out->piece[out->count].field = i < length ? c : FIELD_END;
        out->literal += (size_t)(i - start);
        out->count++;
        start = i + 1;
    }
    return 0;
}

/* A growing UTF-8 text. */
typedef struct {
    char *data;
    size_t used, size;
} Text;

static int text_put(Text *t, const char *s, size_t n) {
    if (grow((void **)&t->data, &t->size, t->used + n + 1, 1) < 0) return -1;
    memcpy(t->data + t->used, s, n);
    t->used += n;
    return 0;
}

/* What the rows are made of: each letter and each cell in UTF-8, the template, the separators. */
typedef struct {
    char letter[MAX_LETTERS][4];
    uint8_t letter_length[MAX_LETTERS];
    const char **cell;
    Py_ssize_t *cell_length;
    Template row;
    const char *between, *cell_separator;
    Py_ssize_t between_length, cell_separator_length;
} RowParts;

/* The ranked words of `r` as rows (the batch renderers' lines, see output/batch.py):
 * (words, points, text). */
static PyObject *rows_object(const Solver *solver, const Results *r, const RowParts *parts) {
    Ranked *ranked = rank_results(solver, r);
    if (!ranked) return PyErr_NoMemory();
    Text t = {NULL, 0, 0};
    int failed = 0;
    char number[32];
    for (size_t i = 0; i < r->found_used && !failed; i++) {
        const Found *f = ranked[i].found;
        int n = snprintf(number, sizeof(number), "%lld", (long long)f->points);
        if (i) failed |= text_put(&t, parts->between, (size_t)parts->between_length);
        for (int k = 0; k < parts->row.count; k++) {
            failed |= text_put(&t, parts->row.piece[k].text, parts->row.piece[k].length);
            switch (parts->row.piece[k].field) {
            case FIELD_WORD:
                for (uint32_t j = 0; j < f->length; j++) {
                    uint8_t letter = ranked[i].letters[j];
                    failed |= text_put(&t, parts->letter[letter], parts->letter_length[letter]);
                }
                break;
            case FIELD_POINTS:
                failed |= text_put(&t, number, (size_t)n);
                break;
            case FIELD_PATH:
                for (uint32_t j = 0; j < f->cells; j++) {
                    int32_t cell = r->cells[f->path + j];
                    if (j) failed |= text_put(&t, parts->cell_separator, (size_t)parts->cell_separator_length);
                    failed |= text_put(&t, parts->cell[cell], (size_t)parts->cell_length[cell]);
                }
                break;
            default:
                break;
            }
        }
    }
    free(ranked);
    PyObject *text = failed ? PyErr_NoMemory() : PyUnicode_DecodeUTF8(t.data ? t.data : "", (Py_ssize_t)t.used, NULL);
    free(t.data);
    if (!text) return NULL;
    return Py_BuildValue("(nLN)", (Py_ssize_t)r->found_used, (long long)r->points, text);
}

PyDoc_STRVAR(rows_many_doc,
"rows_many(codes, cells, template, between, cell_separator, timeout=0.0) -> list\n\n"
"Search each grid of ``codes`` as solve_many does and give (words, points, text) per grid:\n"
"its hits ranked, each written as ``template`` with its marks filled (\\x01 the word, \\x02\n"
"its points, \\x03 its path: ``cells[cell]`` for each cell, joined by ``cell_separator``),\n"
"rows joined by ``between`` (see boggle_dafsa/output/rows.py, which owns the formats).");

static PyObject *Solver_rows_many(Solver *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"codes", "cells", "template", "between", "cell_separator", "timeout", NULL};
    Py_buffer codes;
    PyObject *cells, *template, *between, *cell_separator;
    double timeout = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*OUUU|d", keywords, &codes, &cells, &template, &between,
                                     &cell_separator, &timeout))
        return NULL;
    Py_ssize_t grids = 0;
    PyObject *out = NULL, *texts = NULL;
    Results *results = NULL;
    RowParts parts;
    memset(&parts, 0, sizeof(parts));
    if (template_parse(template, (1u << FIELD_WORD) | (1u << FIELD_POINTS) | (1u << FIELD_PATH), &parts.row) < 0) goto done;
    if (!(parts.between = PyUnicode_AsUTF8AndSize(between, &parts.between_length))) goto done;
    if (!(parts.cell_separator = PyUnicode_AsUTF8AndSize(cell_separator, &parts.cell_separator_length))) goto done;
    if (check_codes(self, &codes, &grids) < 0) goto done;
    texts = PySequence_Fast(cells, "cells must be a sequence of str");
    if (!texts) goto done;
    if (PySequence_Fast_GET_SIZE(texts) != self->cell_count) {
        PyErr_Format(PyExc_ValueError, "%zd cell texts for %zd cells", PySequence_Fast_GET_SIZE(texts), self->cell_count);
        goto done;
    }
    parts.cell = PyMem_Calloc(self->cell_count, sizeof(char *));
    parts.cell_length = PyMem_Calloc(self->cell_count, sizeof(Py_ssize_t));
    if (!parts.cell || !parts.cell_length) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t c = 0; c < self->cell_count; c++) {
        PyObject *text = PySequence_Fast_GET_ITEM(texts, c);
        if (!PyUnicode_Check(text)) {
            PyErr_SetString(PyExc_TypeError, "cells must be a sequence of str");
            goto done;
        }
        /* Kept alive by `texts`, which holds the items. */
        if (!(parts.cell[c] = PyUnicode_AsUTF8AndSize(text, &parts.cell_length[c]))) goto done;
    }
    for (int i = 0; i < self->letter_count; i++) {
        Py_UCS4 ch = self->letters[i];
        uint8_t *p = (uint8_t *)parts.letter[i];
        if (ch < 0x80) {
            p[0] = (uint8_t)ch;
            parts.letter_length[i] = 1;
        } else if (ch < 0x800) {
            p[0] = (uint8_t)(0xC0 | (ch >> 6));
            p[1] = (uint8_t)(0x80 | (ch & 0x3F));
            parts.letter_length[i] = 2;
        } else if (ch < 0x10000) {
            p[0] = (uint8_t)(0xE0 | (ch >> 12));
            p[1] = (uint8_t)(0x80 | ((ch >> 6) & 0x3F));
            p[2] = (uint8_t)(0x80 | (ch & 0x3F));
            parts.letter_length[i] = 3;
        } else {
            p[0] = (uint8_t)(0xF0 | (ch >> 18));
            p[1] = (uint8_t)(0x80 | ((ch >> 12) & 0x3F));
            p[2] = (uint8_t)(0x80 | ((ch >> 6) & 0x3F));
            p[3] = (uint8_t)(0x80 | (ch & 0x3F));
            parts.letter_length[i] = 4;
        }
    }
    results = calloc(grids ? grids : 1, sizeof(Results));
    out = PyList_New(grids);
    if (!results || !out) {
        if (!results) PyErr_NoMemory();
        Py_CLEAR(out);
        goto done;
    }
    if (search_grids(self, codes.buf, grids, MODE_HITS, timeout, 1, results, NULL) < 0) {
        Py_CLEAR(out);
        goto done;
    }
    for (Py_ssize_t g = 0; g < grids; g++) {
        PyObject *item = rows_object(self, &results[g], &parts);
        if (!item) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, g, item);
    }
done:
    if (results)
        for (Py_ssize_t g = 0; g < grids; g++) results_free(&results[g]);
    free(results);
    PyMem_Free(parts.cell);
    PyMem_Free(parts.cell_length);
    Py_XDECREF(texts);
    PyBuffer_Release(&codes);
    return out;
}

/* Write `value` in decimal at `out`: the characters written. */
static size_t write_decimal(char *out, int64_t value) {
    char digits[24];
    size_t n = 0;
    uint64_t magnitude = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    do {
        digits[n++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    size_t written = 0;
    if (value < 0) out[written++] = '-';
    while (n) out[written++] = digits[--n];
    return written;
}

PyDoc_STRVAR(summary_rows_doc,
"summary_rows(codes, letters, width, q_is_qu, template, between, row_separator, face_separator, timeout=0.0)\n"
"-> (str, int, int)\n\n"
"Search each grid of ``codes`` for its totals, as solve_many(codes, 0) does, and give\n"
"(text, words, points): ``template`` per grid with its marks filled (\\x04 the grid, \\x05 its\n"
"words, \\x02 its points), lines joined by ``between``, and the sums. The grid is written from\n"
"its ``letters`` (one ASCII byte per cell, as ``codes``), rows of ``width`` joined by\n"
"``row_separator``; with ``q_is_qu``, Q and q read QU and qu and the faces of such a grid are\n"
"joined by ``face_separator`` (see boggle_dafsa/output/rows.py, which owns the formats).");

static PyObject *Solver_summary_rows(Solver *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"codes", "letters", "width", "q_is_qu", "template", "between", "row_separator",
                               "face_separator", "timeout", NULL};
    Py_buffer codes, letters;
    Py_ssize_t width;
    int q_is_qu;
    PyObject *template_text, *between_text, *row_text, *face_text;
    double timeout = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*y*npUUUU|d", keywords, &codes, &letters, &width, &q_is_qu,
                                     &template_text, &between_text, &row_text, &face_text, &timeout))
        return NULL;
    Py_ssize_t grids = 0, n = self->cell_count;
    PyObject *out = NULL;
    Results results;
    memset(&results, 0, sizeof(results));
    int64_t *totals = NULL;
    char *text = NULL;
    Template line;
    const char *between, *row_separator, *face_separator;
    Py_ssize_t between_length, row_length, face_length;
    if (template_parse(template_text, (1u << FIELD_GRID) | (1u << FIELD_WORDS) | (1u << FIELD_POINTS), &line) < 0)
        goto done;
    if (!(between = PyUnicode_AsUTF8AndSize(between_text, &between_length))) goto done;
    if (!(row_separator = PyUnicode_AsUTF8AndSize(row_text, &row_length))) goto done;
    if (!(face_separator = PyUnicode_AsUTF8AndSize(face_text, &face_length))) goto done;
    if (check_codes(self, &codes, &grids) < 0) goto done;
    if (letters.len != codes.len) {
        PyErr_Format(PyExc_ValueError, "%zd letters for %zd face codes", letters.len, codes.len);
        goto done;
    }
    if (width < 1 || n % width != 0) {
        PyErr_Format(PyExc_ValueError, "rows of %zd cells do not divide grids of %zd", width, n);
        goto done;
    }
    const uint8_t *shown = letters.buf;
    for (Py_ssize_t i = 0; i < letters.len; i++) {
        if (shown[i] == 0 || shown[i] > 127) {
            PyErr_SetString(PyExc_ValueError, "letters must be ASCII characters other than NUL");
            goto done;
        }
    }
    totals = calloc(grids ? 2 * (size_t)grids : 1, sizeof(int64_t));
    if (!totals) {
        PyErr_NoMemory();
        goto done;
    }
    if (search_grids(self, codes.buf, grids, MODE_TOTALS, timeout, 1, &results, totals) < 0) goto done;
    /* The longest a grid's text can be: two letters and a face separator a cell, a row
     * separator a row; a line: its literal text, each field at its longest, the separator. */
    size_t grid_most = (size_t)n * (2 + (size_t)face_length) + (size_t)(n / width) * (size_t)row_length;
    size_t line_most = line.literal + (size_t)between_length;
    for (int k = 0; k < line.count; k++)
        line_most += line.piece[k].field == FIELD_GRID ? grid_most : line.piece[k].field == FIELD_END ? 0 : 21;
    if (grids && line_most > (size_t)PY_SSIZE_T_MAX / (size_t)grids) {
        PyErr_NoMemory();
        goto done;
    }
    text = malloc(grids ? line_most * (size_t)grids : 1);
    if (!text) {
        PyErr_NoMemory();
        goto done;
    }
    size_t used = 0;
    int64_t words = 0, points = 0;
    for (Py_ssize_t g = 0; g < grids; g++) {
        const uint8_t *cells = shown + g * n;
        int spaced = 0;
        if (q_is_qu)
            for (Py_ssize_t c = 0; c < n && !spaced; c++) spaced = cells[c] == 'Q' || cells[c] == 'q';
        if (g) {
            memcpy(text + used, between, (size_t)between_length);
            used += (size_t)between_length;
        }
        for (int k = 0; k < line.count; k++) {
            memcpy(text + used, line.piece[k].text, line.piece[k].length);
            used += line.piece[k].length;
            switch (line.piece[k].field) {
            case FIELD_GRID:
                for (Py_ssize_t c = 0; c < n; c++) {
                    if (c % width && spaced) {
                        memcpy(text + used, face_separator, (size_t)face_length);
                        used += (size_t)face_length;
                    }
                    if (c && c % width == 0) {
                        memcpy(text + used, row_separator, (size_t)row_length);
                        used += (size_t)row_length;
                    }
                    text[used++] = (char)cells[c];
                    if (q_is_qu && (cells[c] == 'Q' || cells[c] == 'q')) text[used++] = cells[c] == 'Q' ? 'U' : 'u';
                }
                break;
            case FIELD_WORDS:
                used += write_decimal(text + used, totals[2 * g]);
                break;
            case FIELD_POINTS:
                used += write_decimal(text + used, totals[2 * g + 1]);
                break;
            default:
                break;
            }
        }
        words += totals[2 * g];
        points += totals[2 * g + 1];
    }
    PyObject *string = PyUnicode_DecodeUTF8(text, (Py_ssize_t)used, NULL);
    if (string) out = Py_BuildValue("(NLL)", string, (long long)words, (long long)points);
done:
    results_free(&results);
    free(totals);
    free(text);
    PyBuffer_Release(&codes);
    PyBuffer_Release(&letters);
    return out;
}

PyDoc_STRVAR(number_words_doc,
"number_words() -> bool\n\n"
"Number the dictionary's words now (a solver does it by itself after a few grids), so\n"
"that finding a word twice costs no hashing; False when the file cannot be numbered (a\n"
"damaged file: its words are then deduplicated by hash).");

static PyObject *Solver_number_words(Solver *self, PyObject *unused) {
    (void)unused;
    if (!self->numbering_tried) number_words(self);
    return PyBool_FromLong(self->word_offset != NULL);
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
    {"number_words", (PyCFunction)Solver_number_words, METH_NOARGS, number_words_doc},
    {"tally_many", (PyCFunction)(void (*)(void))Solver_tally_many, METH_VARARGS | METH_KEYWORDS, tally_many_doc},
    {"rows_many", (PyCFunction)(void (*)(void))Solver_rows_many, METH_VARARGS | METH_KEYWORDS, rows_many_doc},
    {"summary_rows", (PyCFunction)(void (*)(void))Solver_summary_rows, METH_VARARGS | METH_KEYWORDS, summary_rows_doc},
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
    free(self->word_offset);
    if (self->spare) scratch_free(self->spare);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Solver_get_cell_count(Solver *self, void *closure) {
    (void)closure;
    return PyLong_FromSsize_t(self->cell_count);
}

static PyObject *Solver_get_numbered(Solver *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(self->word_offset != NULL);
}

static PyGetSetDef Solver_getset[] = {
    {"numbered", (getter)Solver_get_numbered, NULL, "whether the dictionary's words are numbered", NULL},
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
    .m_doc = "The compiled native solver kernel (see src/boggle_dafsa/solver/python.py for its twin).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__native(void) {
#ifdef DISPATCH_POPCNT
    /* BOGGLE_DAFSA_PLAIN_SEARCH=1 runs the copy for any CPU here too (the tests compare them). */
    const char *plain = getenv("BOGGLE_DAFSA_PLAIN_SEARCH");
    __builtin_cpu_init();
    cpu_has_popcnt = __builtin_cpu_supports("popcnt") != 0 && !(plain && strcmp(plain, "1") == 0);
#endif
    if (PyType_Ready(&SolverType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&SolverType);
    if (PyModule_AddObject(m, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(&SolverType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "DEAD", DEAD_CODE) < 0 || PyModule_AddIntConstant(m, "FIRST_LONG", FIRST_LONG_CODE) < 0 ||
        PyModule_AddStringConstant(m, "SEARCH", search_variant()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
