/* The native file format (docs/format.md) as every C file of boggle-dafsa reads and writes
 * it: the one definition of its constants and of the bit arithmetic of a state.
 *
 * Its Python twin is src/boggle_dafsa/automaton/fileformat.py (NativeLayout and the
 * constants beside it); a test checks that the two agree. Included by
 * solver/_native.c (and its _native_search.h), query/_walk.c and automaton/_builder.c:
 * none of them defines a bit of the format itself.
 *
 * Version 1 body: an array of uint32 cells, little-endian. A state is the index of its
 * first cell; with one-cell headers (alphabets of up to FORMAT_ONE_CELL_LETTERS letters)
 * that cell holds the state's letters (letter i of the alphabet at bit i) and, in its top
 * bit, FINAL_FLAG; the index of each child follows, in letter order. Nothing here checks
 * an index: callers bound every slot by the number of cells (a file is never trusted).
 */
#ifndef BOGGLE_DAFSA_FORMAT_H
#define BOGGLE_DAFSA_FORMAT_H

#include <stdint.h>

/* The newest format version the C kernels walk. */
#define FORMAT_VERSION 1
/* A state with a one-cell header is final when this bit of it is set. */
#define FINAL_FLAG 0x80000000u
/* The letter bits of a one-cell header. */
#define LETTER_MASK 0x7FFFFFFFu
/* The most letters a one-cell header holds (the kernels read only such files). */
#define FORMAT_ONE_CELL_LETTERS 31
/* The largest cell index (states are cell indices). */
#define FORMAT_CELL_MAX 0xFFFFFFFFull

/* Cells in a state's header for an alphabet of `letters` letters: one bit each, plus the
 * final flag at the top bit of the last cell. */
static inline uint32_t format_header_cells(uint64_t letters) { return (uint32_t)(letters / 32 + 1); }

/* The bit count of a 32-bit word (the compiler turns this into popcnt when allowed; the
 * solver compiles its searches a second time for CPUs with popcnt). */
static inline unsigned popcount32(uint32_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_popcount(x);
#else
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
#endif
}

/* The index of the first set bit of a non-zero word. */
static inline unsigned lowest_bit32(uint32_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctz(x);
#else
    unsigned n = 0;
    while (!(x & 1u)) { x >>= 1; n++; }
    return n;
#endif
}

/* True if the state of one-cell header `head` ends a word. */
static inline int format_is_final(uint32_t head) { return (head & FINAL_FLAG) != 0; }

/* The letters (bits) that leave the state of one-cell header `head`. */
static inline uint32_t format_letters(uint32_t head) { return head & LETTER_MASK; }

/* The cell that holds the child by letter `bit` (a single bit, 1 << i, set in `head`) of
 * the state at cell `state` with one-cell header `head`. 64 bits: never wraps; the caller
 * compares it with the number of cells before reading it. */
static inline uint64_t format_child_slot(uint32_t state, uint32_t head, uint32_t bit) {
    return (uint64_t)state + 1 + popcount32(head & (bit - 1));
}

#endif
