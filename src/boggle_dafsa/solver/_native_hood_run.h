/* The neighbourhood driver of _native.c (once, after the copies of _native_hood.h): a
 * batch of grids for their totals, the runs of grids that differ in one cell only walked
 * together (hood_run), the other grids one at a time (search_grid). */

/* One run, by the copy of the walk this CPU runs best. */
static int hood_run(Hood *h, int64_t *words, int64_t *points) {
#ifdef DISPATCH_POPCNT
    if (cpu_has_popcnt) return hood_run_popcnt(h, words, points);
#endif
    return hood_run_plain(h, words, points);
}

/* The shortest run walked together: below, each grid alone costs less than the shared walk. */
#define HOOD_MIN_RUN 3

/* Whether a batch of totals may go through hood_grids: words numbered, at most 64 cells. */
static int hood_applies(const Solver *solver, const uint32_t *offset, const Scratch *s) {
    return offset && s->seen && s->seen_bits && solver->cell_count <= TOTALS_CELLS && solver->word_total;
}

/* (words, points) of each of `grids` grids of `codes` into totals[2g], totals[2g + 1]
 * (`r` serves the grids searched alone). */
static int hood_grids(const Solver *solver, const uint32_t *cells, uint64_t count, const uint32_t *offset,
                      const uint8_t *codes, Py_ssize_t grids, Scratch *s, Results *r, Budget *budget,
                      int64_t *totals) {
    Py_ssize_t n = solver->cell_count;
    if (!s->variant_mask && !(s->variant_mask = calloc((size_t)solver->word_total + 1, sizeof(uint32_t))))
        return SEARCH_MEMORY;
    Hood h;
    memset(&h, 0, sizeof(h));
    h.cells = cells;
    h.offset = offset;
    h.count = count;
    h.min_length = solver->min_length;
    h.longest = solver->longest;
    h.word_total = solver->word_total;
    h.seen_bits = s->seen_bits;
    h.variant_mask = s->variant_mask;
    h.later = s->hood_later;
    h.later_size = s->hood_later_size;
    h.solver = solver;
    h.s = s;
    h.budget = budget;
    int64_t words[HOOD_VARIANTS], points[HOOD_VARIANTS];
    int8_t variant_of[256];
    int status = SEARCH_OK;
    Py_ssize_t g = 0;
    while (g < grids && status == SEARCH_OK) {
        const uint8_t *a = codes + g * n;
        Py_ssize_t end = g + 1;
        int32_t wild = -1;
        if (g + 1 < grids) {
            const uint8_t *b = a + n;
            for (Py_ssize_t c = 0; c < n; c++) {
                if (a[c] == b[c]) continue;
                if (wild >= 0) {
                    wild = -1;
                    break;
                }
                wild = (int32_t)c;
                if (c + 1 < n && memcmp(a + c + 1, b + c + 1, (size_t)(n - c - 1)) != 0) {
                    wild = -1;
                    break;
                }
                break;
            }
        }
        if (wild >= 0) {
            memset(variant_of, -1, sizeof(variant_of));
            h.variant_count = 0;
            variant_of[a[wild]] = (int8_t)h.variant_count;
            h.variants[h.variant_count++] = a[wild];
            while (end < grids) {
                const uint8_t *x = codes + end * n;
                if (memcmp(a, x, (size_t)wild) != 0 ||
                    memcmp(a + wild + 1, x + wild + 1, (size_t)(n - wild - 1)) != 0)
                    break;
                if (variant_of[x[wild]] < 0) {
                    if (h.variant_count == HOOD_VARIANTS) break;
                    variant_of[x[wild]] = (int8_t)h.variant_count;
                    h.variants[h.variant_count++] = x[wild];
                }
                end++;
            }
        }
        if (wild >= 0 && end - g >= HOOD_MIN_RUN) {
            h.codes = a;
            h.wild = wild;
            h.wild_bit = (uint64_t)1 << wild;
            status = hood_run(&h, words, points);
            for (Py_ssize_t k = g; k < end && status == SEARCH_OK; k++) {
                int v = variant_of[codes[k * n + wild]];
                totals[2 * k] = words[v];
                totals[2 * k + 1] = points[v];
            }
        } else {
            end = g + 1;
            r->keep = 0;
            r->ordered = 0;
            status = search_grid(solver, cells, count, offset, a, s, r, budget);
            totals[2 * g] = (int64_t)r->found_used;
            totals[2 * g + 1] = r->points;
        }
        g = end;
    }
    s->hood_later = h.later;
    s->hood_later_size = h.later_size;
    return status;
}
