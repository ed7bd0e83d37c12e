/* The searches of _native.c, compiled twice on x86 with GCC or clang: once for any CPU,
 * once for CPUs with the popcnt instruction (which counts the bits that find a child in
 * one instruction: a sixth of the search's time), chosen at import by asking the CPU, so
 * that one build (a wheel) runs everywhere at full speed where it can.
 *
 * Included by _native.c, which defines before each inclusion
 *   SEARCH_NAME(name)  the name of each function of this copy;
 *   SEARCH_TARGET      the target attribute of this copy (or nothing).
 * Everything these functions inline (search_core, follow_rest, popcount32, ...) is
 * compiled with the attribute of the copy it is inlined into. */

SEARCH_TARGET static int SEARCH_NAME(totals_walk)(const Totals *t, uint32_t state, uint32_t head, uint32_t index,
                                                  uint32_t length, int32_t cell, uint64_t used);
SEARCH_TARGET static int SEARCH_NAME(keep_walk)(const Totals *t, uint32_t state, uint32_t head, uint32_t index,
                                                uint32_t length, int32_t cell, uint64_t used);

/* Step from the state `state` (header `head`, word number so far `index`, `length`
 * letters) onto cell `other` (unused), whatever its face: count (or, with `keep`, keep)
 * the word it ends, walk on from it. The way in for first cells and multi-letter faces;
 * the walk steps onto one-letter faces itself, a letter at a time. */
SEARCH_TARGET static ALWAYS_INLINE int SEARCH_NAME(letter_enter)(const Totals *t, uint32_t state, uint32_t head,
                                                                 uint32_t index, uint32_t length, int32_t other,
                                                                 uint64_t used, const int keep) {
    const Solver *solver = t->solver;
    uint32_t bit = t->first[other];
    if (!(head & bit)) return SEARCH_OK;
    uint64_t slot = format_child_slot(state, head, bit);
    if (slot >= t->count) return SEARCH_DAMAGED;
    uint32_t child = t->cells[slot];
    index += t->offset[slot];
    int code = t->codes[other];
    if (code >= FIRST_LONG_CODE) {
        int damaged = 0;
        child = follow_rest(solver, t->cells, t->offset, t->count, child, code, &index, &damaged);
        if (damaged) return SEARCH_DAMAGED;
        if (child == UINT32_MAX) return SEARCH_OK;
    }
    if (child >= t->count) return SEARCH_DAMAGED;
    uint32_t child_head = t->cells[child];
    length += solver->face_length[code];
    /* The cells of the path so far are those of `used`: this one comes after them. */
    uint32_t depth = keep ? popcount64(used) : 0;
    if (keep) t->s->path[depth] = other;
    int status;
    if ((child_head & FINAL_FLAG) && length >= t->min_length &&
        (status = keep ? keep_word(t, index, length, depth + 1) : totals_word(t, index, length)) != SEARCH_OK)
        return status;
    if (!(child_head & t->reach[other])) return SEARCH_OK;
    /* A path longer than every word: a cycle, or a lying header (as search_core). */
    if (length > t->longest) return SEARCH_DAMAGED;
    if (budget_spent(t->budget)) return SEARCH_TIMEOUT;
    used |= (uint64_t)1 << other;
    return keep ? SEARCH_NAME(keep_walk)(t, child, child_head, index, length, other, used)
                : SEARCH_NAME(totals_walk)(t, child, child_head, index, length, other, used);
}

/* Every word that goes on from `cell` (the path so far: the cells of `used`, spelling
 * the state `state` of header `head`). The neighbours are taken a letter at a time:
 * those of one letter share their child state, looked up once. */
SEARCH_TARGET static ALWAYS_INLINE int SEARCH_NAME(letter_walk)(const Totals *t, uint32_t state, uint32_t head,
                                                                uint32_t index, uint32_t length, int32_t cell,
                                                                uint64_t used, const int keep) {
    const uint64_t near = t->adjacent[cell] & ~used;
    uint32_t letters = head & t->reach_one[cell];
    uint32_t longer = length + 1;
    uint32_t depth = keep ? popcount64(used) : 0; /* where the next cell goes in the path */
    int status;
    while (letters) {
        unsigned letter = lowest_bit64(letters);
        letters &= letters - 1;
        uint64_t next = t->letter_cells[letter] & near;
        if (!next) continue;
        uint64_t slot = format_child_slot(state, head, 1u << letter);
        if (slot >= t->count) return SEARCH_DAMAGED;
        uint32_t child = t->cells[slot];
        if (child >= t->count) return SEARCH_DAMAGED;
        uint32_t child_head = t->cells[child];
        uint32_t child_index = index + t->offset[slot];
        if ((child_head & FINAL_FLAG) && longer >= t->min_length) {
            if (!keep) {
                if ((status = totals_word(t, child_index, longer)) != SEARCH_OK) return status;
            } else {
                /* Each neighbour of this letter makes its own path to the word. */
                uint64_t each = next;
                do {
                    t->s->path[depth] = (int32_t)lowest_bit64(each);
                    each &= each - 1;
                    if ((status = keep_word(t, child_index, longer, depth + 1)) != SEARCH_OK) return status;
                } while (each);
            }
        }
        if (!format_letters(child_head)) continue; /* no word goes on */
        do {
            int32_t other = (int32_t)lowest_bit64(next);
            next &= next - 1;
            if (!(child_head & t->reach[other])) continue;
            if (longer > t->longest) return SEARCH_DAMAGED;
            if (budget_spent(t->budget)) return SEARCH_TIMEOUT;
            if (keep) t->s->path[depth] = other;
            status = keep ? SEARCH_NAME(keep_walk)(t, child, child_head, child_index, longer, other,
                                                   used | (uint64_t)1 << other)
                          : SEARCH_NAME(totals_walk)(t, child, child_head, child_index, longer, other,
                                                     used | (uint64_t)1 << other);
            if (status != SEARCH_OK) return status;
        } while (next);
    }
    uint64_t longs = near & t->long_cells;
    while (longs) {
        int32_t other = (int32_t)lowest_bit64(longs);
        longs &= longs - 1;
        if ((status = SEARCH_NAME(letter_enter)(t, state, head, index, length, other, used, keep)) != SEARCH_OK)
            return status;
    }
    return SEARCH_OK;
}

SEARCH_TARGET static int SEARCH_NAME(totals_walk)(const Totals *t, uint32_t state, uint32_t head, uint32_t index,
                                                  uint32_t length, int32_t cell, uint64_t used) {
    return SEARCH_NAME(letter_walk)(t, state, head, index, length, cell, used, 0);
}

SEARCH_TARGET static int SEARCH_NAME(keep_walk)(const Totals *t, uint32_t state, uint32_t head, uint32_t index,
                                                uint32_t length, int32_t cell, uint64_t used) {
    return SEARCH_NAME(letter_walk)(t, state, head, index, length, cell, used, 1);
}

/* One grid into `r`, for grids of at most TOTALS_CELLS cells whose dictionary is
 * numbered, by letters: the visited cells are the bits of a word, the words found a bit
 * set, and the neighbours of a cell showing one letter a mask, so that a step costs a
 * few instructions. It meets the words of search_core in another order: without `keep`
 * it counts them (totals); with `keep` it keeps each word with the path search_core
 * meets first (the smallest in its order, see path_before), the words in another order
 * than search_core's (which ranking does not show; MODE_FOUND, which shows it, goes to
 * search_core). */
SEARCH_TARGET static ALWAYS_INLINE int SEARCH_NAME(letter_grid)(const Solver *solver, const uint32_t *cells,
                                                                uint64_t count, const uint32_t *offset,
                                                                const uint8_t *codes, Scratch *s, Results *r,
                                                                Budget *budget, const int keep) {
    Py_ssize_t n = solver->cell_count;
    const int32_t *nstart = solver->neighbour_start, *nb = solver->neighbour;
    uint32_t *first = s->first, *reach = s->reach, *reach_one = s->reach_one;
    uint64_t *letter_cells = s->letter_cells, long_cells = 0;
    results_clear(r);
    if ((uint64_t)solver->root >= count) return SEARCH_DAMAGED;
    if (budget_spent(budget)) return SEARCH_TIMEOUT;
    memset(letter_cells, 0, sizeof(s->letter_cells));
    for (Py_ssize_t c = 0; c < n; c++) {
        int code = codes[c];
        uint32_t bit = (code == DEAD_CODE || solver->face_length[code] == 0) ? 0 : 1u << solver->face_letters[code][0];
        first[c] = bit;
        if (code >= FIRST_LONG_CODE)
            long_cells |= (uint64_t)1 << c;
        else if (bit)
            letter_cells[lowest_bit64(bit)] |= (uint64_t)1 << c;
    }
    for (Py_ssize_t c = 0; c < n; c++) {
        uint32_t all = 0, one = 0;
        uint8_t place = 0;
        for (int32_t j = nstart[c]; j < nstart[c + 1]; j++) {
            int32_t other = nb[j];
            uint32_t bit = first[other];
            all |= bit;
            one |= codes[other] < FIRST_LONG_CODE ? bit : 0;
            /* search_core's order: the live one-letter faces in the table's order... */
            if (keep && bit && codes[other] < FIRST_LONG_CODE) s->position[c * n + other] = place++;
        }
        if (keep && long_cells)
            for (int32_t j = nstart[c]; j < nstart[c + 1]; j++) /* ...then the longer faces */
                if (first[nb[j]] && codes[nb[j]] >= FIRST_LONG_CODE) s->position[c * n + nb[j]] = place++;
        reach[c] = all;
        reach_one[c] = one;
    }
    Totals t = {cells, offset, count, solver->min_length, solver->longest, solver->word_total, codes, first, reach,
                reach_one, s->adjacent, letter_cells, long_cells, s->seen_bits, solver, s, r, budget};
    uint32_t root_head = cells[solver->root];
    int status = SEARCH_OK;
    for (Py_ssize_t start = 0; start < n && status == SEARCH_OK; start++)
        if (first[start])
            status = SEARCH_NAME(letter_enter)(&t, solver->root, root_head, 0, 0, (int32_t)start, 0, keep);
    /* Forget the words found, for the next grid (also after an error). */
    for (size_t i = 0; i < r->found_used; i++) s->seen_bits[s->touched[i] >> 6] = 0;
    return status;
}

SEARCH_TARGET static int SEARCH_NAME(totals_grid)(const Solver *solver, const uint32_t *cells, uint64_t count,
                                                  const uint32_t *offset, const uint8_t *codes, Scratch *s, Results *r,
                                                  Budget *budget) {
    return SEARCH_NAME(letter_grid)(solver, cells, count, offset, codes, s, r, budget, 0);
}

SEARCH_TARGET static int SEARCH_NAME(keep_grid)(const Solver *solver, const uint32_t *cells, uint64_t count,
                                                const uint32_t *offset, const uint8_t *codes, Scratch *s, Results *r,
                                                Budget *budget) {
    return SEARCH_NAME(letter_grid)(solver, cells, count, offset, codes, s, r, budget, 1);
}

/* One grid, with numbered words when `offset` is given (and `s` has its `seen` array). */
SEARCH_TARGET static int SEARCH_NAME(search_grid)(const Solver *solver, const uint32_t *cells, uint64_t count, const uint32_t *offset,
                       const uint8_t *codes, Scratch *s, Results *r, Budget *budget) {
    int numbered = offset && s->seen, masked = s->letter_mask != NULL;
    if (numbered && s->seen_bits) {
        if (!r->keep) return SEARCH_NAME(totals_grid)(solver, cells, count, offset, codes, s, r, budget);
        if (!r->ordered) return SEARCH_NAME(keep_grid)(solver, cells, count, offset, codes, s, r, budget);
    }
    if (numbered && masked) return search_core(solver, cells, count, offset, codes, s, r, budget, 1, 1);
    if (numbered) return search_core(solver, cells, count, offset, codes, s, r, budget, 1, 0);
    if (masked) return search_core(solver, cells, count, NULL, codes, s, r, budget, 0, 1);
    return search_core(solver, cells, count, NULL, codes, s, r, budget, 0, 0);
}
