/* Neighbourhoods: the totals of many grids that differ from one another in one cell only,
 * in one walk. Included by _native.c after each copy of _native_search.h, with the same
 * SEARCH_NAME and SEARCH_TARGET (so it has a copy for CPUs with popcnt too).
 *
 * A run of grids equal but for cell `wild` (each showing one of `variants` there) is
 * walked once with that cell a wildcard: a path that avoids it spells the same word on
 * every grid of the run (found once, the run's "base" words), and a path that steps
 * onto it branches there over the variants, each branch walking on as that grid would.
 * A word is then counted for a variant when one of the variant's paths spells it and no
 * base path does. Its twin is boggle_dafsa.solver.hood (hood_totals).
 *
 * The search the best-board climb does (every neighbour of a board scored) and the
 * proof's re-scoring are made of such runs: the paths that avoid the changed cell, most
 * of the work on a rich board, are walked once per run instead of once per grid. */

#ifndef NATIVE_HOOD_TYPES
#define NATIVE_HOOD_TYPES
/* Most grids of a run: the variants of a word are the bits of a uint32_t. */
#define HOOD_VARIANTS 32

/* One run's walk: the grid's set-up (as Totals) and what the variants found. */
typedef struct {
    const uint32_t *cells, *offset;
    uint64_t count;
    uint32_t min_length, longest, word_total;
    const uint8_t *codes; /* the run's first grid (its face at `wild` is not read) */
    const uint32_t *first, *reach, *reach_one;
    const uint64_t *adjacent, *letter_cells;
    uint64_t long_cells;
    uint64_t *seen_bits;   /* by word number: a base path spells it */
    uint32_t *variant_mask; /* by word number: the variants whose paths through `wild` spell it */
    uint32_t *later;       /* (number, length) of each word with a variant_mask, in the order met */
    size_t later_used, later_size, touched_used;
    int32_t wild;          /* the cell that differs */
    uint64_t wild_bit;
    uint32_t wild_first;   /* the first letters of the live variants */
    int variant_count;
    uint8_t variants[HOOD_VARIANTS];     /* the face codes shown at `wild` */
    uint8_t variant_live[HOOD_VARIANTS]; /* the face spells something */
    int64_t base_words, base_points;
    const Solver *solver;
    Scratch *s;
    Budget *budget;
} Hood;

/* Word number `index` (`length` letters) is spelled by a path of `variant` (-1: a base path). */
static ALWAYS_INLINE int hood_word(Hood *h, uint32_t index, uint32_t length, int variant) {
    if (index >= h->word_total) return SEARCH_DAMAGED; /* the cells changed since numbered */
    if (variant < 0) {
        uint64_t *word = &h->seen_bits[index >> 6], bit = (uint64_t)1 << (index & 63);
        if (*word & bit) return SEARCH_OK;
        Scratch *s = h->s;
        if (grow((void **)&s->touched, &s->touched_size, h->touched_used + 1, sizeof(uint32_t)) < 0)
            return SEARCH_MEMORY;
        *word |= bit;
        s->touched[h->touched_used++] = index;
        h->base_words++;
        h->base_points += points_of(h->solver, length);
        return SEARCH_OK;
    }
    uint32_t mask = h->variant_mask[index], bit = 1u << variant;
    if (mask & bit) return SEARCH_OK;
    if (!mask) {
        if (grow((void **)&h->later, &h->later_size, 2 * (h->later_used + 1), sizeof(uint32_t)) < 0)
            return SEARCH_MEMORY;
        h->later[2 * h->later_used] = index;
        h->later[2 * h->later_used + 1] = length;
        h->later_used++;
    }
    h->variant_mask[index] = mask | bit;
    return SEARCH_OK;
}
#endif

SEARCH_TARGET static int SEARCH_NAME(hood_walk)(Hood *h, uint32_t state, uint32_t head, uint32_t index,
                                                uint32_t length, int32_t cell, uint64_t used, int variant);

/* Step from `state` (header `head`) onto cell `other`, showing face `code`, on the paths
 * of `variant` (-1: the base paths, which have not met the wildcard). */
SEARCH_TARGET static ALWAYS_INLINE int SEARCH_NAME(hood_enter)(Hood *h, uint32_t state, uint32_t head,
                                                               uint32_t index, uint32_t length, int32_t other,
                                                               uint64_t used, int variant, int code) {
    const Solver *solver = h->solver;
    uint32_t bit = 1u << solver->face_letters[code][0];
    if (!(head & bit)) return SEARCH_OK;
    uint64_t slot = format_child_slot(state, head, bit);
    if (slot >= h->count) return SEARCH_DAMAGED;
    uint32_t child = h->cells[slot];
    index += h->offset[slot];
    if (code >= FIRST_LONG_CODE) {
        int damaged = 0;
        child = follow_rest(solver, h->cells, h->offset, h->count, child, code, &index, &damaged);
        if (damaged) return SEARCH_DAMAGED;
        if (child == UINT32_MAX) return SEARCH_OK;
    }
    if (child >= h->count) return SEARCH_DAMAGED;
    uint32_t child_head = h->cells[child];
    length += solver->face_length[code];
    int status;
    if ((child_head & FINAL_FLAG) && length >= h->min_length && (status = hood_word(h, index, length, variant)))
        return status;
    if (!(child_head & h->reach[other])) return SEARCH_OK;
    if (length > h->longest) return SEARCH_DAMAGED; /* a cycle, or a lying header */
    if (budget_spent(h->budget)) return SEARCH_TIMEOUT;
    return SEARCH_NAME(hood_walk)(h, child, child_head, index, length, other, used | (uint64_t)1 << other, variant);
}

/* Every word that goes on from `cell` (as letter_walk), the wildcard cell entered once
 * per variant while the path has not used it. */
SEARCH_TARGET static int SEARCH_NAME(hood_walk)(Hood *h, uint32_t state, uint32_t head, uint32_t index,
                                                uint32_t length, int32_t cell, uint64_t used, int variant) {
    const uint64_t near = h->adjacent[cell] & ~used;
    uint32_t letters = head & h->reach_one[cell];
    uint32_t longer = length + 1;
    int status;
    while (letters) {
        unsigned letter = lowest_bit64(letters);
        letters &= letters - 1;
        uint64_t next = h->letter_cells[letter] & near;
        if (!next) continue;
        uint64_t slot = format_child_slot(state, head, 1u << letter);
        if (slot >= h->count) return SEARCH_DAMAGED;
        uint32_t child = h->cells[slot];
        if (child >= h->count) return SEARCH_DAMAGED;
        uint32_t child_head = h->cells[child];
        uint32_t child_index = index + h->offset[slot];
        if ((child_head & FINAL_FLAG) && longer >= h->min_length &&
            (status = hood_word(h, child_index, longer, variant)) != SEARCH_OK)
            return status;
        if (!(child_head & ~FINAL_FLAG)) continue; /* no word goes on */
        do {
            int32_t other = (int32_t)lowest_bit64(next);
            next &= next - 1;
            if (!(child_head & h->reach[other])) continue;
            if (longer > h->longest) return SEARCH_DAMAGED;
            if (budget_spent(h->budget)) return SEARCH_TIMEOUT;
            status = SEARCH_NAME(hood_walk)(h, child, child_head, child_index, longer, other,
                                            used | (uint64_t)1 << other, variant);
            if (status != SEARCH_OK) return status;
        } while (next);
    }
    uint64_t longs = near & h->long_cells;
    while (longs) {
        int32_t other = (int32_t)lowest_bit64(longs);
        longs &= longs - 1;
        status = SEARCH_NAME(hood_enter)(h, state, head, index, length, other, used, variant, h->codes[other]);
        if (status != SEARCH_OK) return status;
    }
    if (variant < 0 && (near & h->wild_bit) && (head & h->wild_first)) {
        for (int v = 0; v < h->variant_count; v++) {
            if (!h->variant_live[v]) continue;
            status = SEARCH_NAME(hood_enter)(h, state, head, index, length, h->wild, used, v, h->variants[v]);
            if (status != SEARCH_OK) return status;
        }
    }
    return SEARCH_OK;
}

/* The totals of each variant of one run into words[v], points[v] (see Hood). */
SEARCH_TARGET static int SEARCH_NAME(hood_run)(Hood *h, int64_t *words, int64_t *points) {
    const Solver *solver = h->solver;
    Py_ssize_t n = solver->cell_count;
    const int32_t *nstart = solver->neighbour_start, *nb = solver->neighbour;
    Scratch *s = h->s;
    uint32_t *first = s->first, *reach = s->reach, *reach_one = s->reach_one;
    uint64_t *letter_cells = s->letter_cells, long_cells = 0;
    const uint8_t *codes = h->codes;
    int32_t wild = h->wild;
    h->base_words = h->base_points = 0;
    h->later_used = h->touched_used = 0;
    if ((uint64_t)solver->root >= h->count) return SEARCH_DAMAGED;
    if (budget_spent(h->budget)) return SEARCH_TIMEOUT;
    uint32_t wild_first = 0;
    for (int v = 0; v < h->variant_count; v++) {
        int code = h->variants[v];
        h->variant_live[v] = code != DEAD_CODE && solver->face_length[code] != 0;
        if (h->variant_live[v]) wild_first |= 1u << solver->face_letters[code][0];
    }
    h->wild_first = wild_first;
    memset(letter_cells, 0, sizeof(s->letter_cells));
    for (Py_ssize_t c = 0; c < n; c++) {
        int code = codes[c];
        uint32_t bit = (c == wild || code == DEAD_CODE || solver->face_length[code] == 0)
                           ? 0 : 1u << solver->face_letters[code][0];
        first[c] = bit;
        if (!bit) continue;
        if (code >= FIRST_LONG_CODE)
            long_cells |= (uint64_t)1 << c;
        else
            letter_cells[lowest_bit64(bit)] |= (uint64_t)1 << c;
    }
    for (Py_ssize_t c = 0; c < n; c++) {
        uint32_t all = 0, one = 0;
        for (int32_t j = nstart[c]; j < nstart[c + 1]; j++) {
            int32_t other = nb[j];
            uint32_t bit = other == wild ? wild_first : first[other];
            all |= bit;
            one |= other != wild && codes[other] < FIRST_LONG_CODE ? bit : 0;
        }
        reach[c] = all;
        reach_one[c] = one;
    }
    h->first = first;
    h->reach = reach;
    h->reach_one = reach_one;
    h->letter_cells = letter_cells;
    h->long_cells = long_cells;
    h->adjacent = s->adjacent;
    uint32_t root = solver->root, root_head = h->cells[root];
    int status = SEARCH_OK;
    for (Py_ssize_t start = 0; start < n && status == SEARCH_OK; start++) {
        if (start == wild) {
            for (int v = 0; v < h->variant_count && status == SEARCH_OK; v++)
                if (h->variant_live[v])
                    status = SEARCH_NAME(hood_enter)(h, root, root_head, 0, 0, wild, 0, v, h->variants[v]);
        } else if (first[start]) {
            status = SEARCH_NAME(hood_enter)(h, root, root_head, 0, 0, (int32_t)start, 0, -1, codes[start]);
        }
    }
    for (int v = 0; v < h->variant_count; v++) words[v] = points[v] = 0;
    /* The variants' words that no base path spells. */
    for (size_t i = 0; i < h->later_used; i++) {
        uint32_t index = h->later[2 * i], mask = h->variant_mask[index];
        h->variant_mask[index] = 0;
        if (status != SEARCH_OK || (h->seen_bits[index >> 6] >> (index & 63)) & 1) continue;
        int64_t worth = points_of(solver, h->later[2 * i + 1]);
        while (mask) {
            unsigned v = lowest_bit64(mask);
            mask &= mask - 1;
            words[v]++;
            points[v] += worth;
        }
    }
    for (size_t i = 0; i < h->touched_used; i++) h->seen_bits[s->touched[i] >> 6] = 0;
    for (int v = 0; v < h->variant_count; v++) {
        words[v] += h->base_words;
        points[v] += h->base_points;
    }
    return status;
}
