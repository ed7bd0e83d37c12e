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

/* The newest format version (fileformat.VERSION); version 1 is described first. */
#define FORMAT_VERSION 2
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
 * portable branches, also taken with -DBOGGLE_DAFSA_PORTABLE_BITS, are tested; the
 * solver compiles its searches a second time for CPUs with popcnt). */
static inline unsigned popcount32(uint32_t x) {
#if (defined(__GNUC__) || defined(__clang__)) && !defined(BOGGLE_DAFSA_PORTABLE_BITS)
    return (unsigned)__builtin_popcount(x);
#else
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
#endif
}

/* The index of the first set bit of a non-zero word. */
static inline unsigned lowest_bit32(uint32_t x) {
#if (defined(__GNUC__) || defined(__clang__)) && !defined(BOGGLE_DAFSA_PORTABLE_BITS)
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

/* ---- version 2: compact edges (docs/format.md), walked in place ---------------------------
 * The twin of fileformat.py's CompactLayout. A state is the byte offset of its first edge
 * (the leaf, which has no edge, is the body's size). An edge is a byte of flags and label,
 * then a varint label when the label is escaped, then a varint reference for the REL and
 * ABS kinds. */

#define FORMAT2_VERSION 2
#define EDGE_LABEL 0x0Fu
#define EDGE_KIND_SHIFT 4
#define EDGE_FINAL 0x40u
#define EDGE_LAST 0x80u
#define LABEL_ESCAPE 15u
#define KIND_LEAF 0u
#define KIND_NEXT 1u
#define KIND_RELATIVE 2u
#define KIND_ABSOLUTE 3u
#define VARINT_MAX_BYTES 5
/* The most-referenced states come first, within this many bytes (compact.HOT_BYTES). */
#define HOT_BYTES (1u << 14)

/* One decoded edge. */
typedef struct {
    uint32_t label;  /* the letter's index in the alphabet */
    uint64_t target; /* the child's offset (the body's size: the leaf) */
    int final;       /* the child ends a word */
    int last;        /* the state's last edge */
} Edge2;

/* The varint at body[*pos] (at most VARINT_MAX_BYTES bytes, a value of 32 bits), *pos
 * moved past it; -1 if it runs past `size` or is too long or too large. */
static inline int format2_varint(const uint8_t *body, uint64_t size, uint64_t *pos, uint64_t *value) {
    uint64_t v = 0;
    for (int i = 0; i < VARINT_MAX_BYTES; i++) {
        if (*pos >= size) return -1;
        uint8_t byte = body[(*pos)++];
        v |= (uint64_t)(byte & 0x7Fu) << (7 * i);
        if (!(byte & 0x80u)) {
            if (v > 0xFFFFFFFFull) return -1;
            *value = v;
            return 0;
        }
    }
    return -1;
}

/* Decode the edge at body[*pos] of the state at `state`, whose previous edge had label
 * `previous` (-1 for the first), into *e, *pos moved past it. 0, or -1 when the edge is
 * one no writer writes (out of the body, a letter outside the alphabet or out of order, a
 * "next" edge that is not the last, a reference outside the body). */
static inline int format2_edge(const uint8_t *body, uint64_t size, uint64_t state, int64_t previous,
                               uint32_t alphabet_size, uint64_t *pos, Edge2 *e) {
    if (*pos >= size) return -1;
    uint8_t flags = body[(*pos)++];
    uint64_t label = flags & EDGE_LABEL;
    if (label == LABEL_ESCAPE) {
        uint64_t extra;
        if (format2_varint(body, size, pos, &extra) < 0) return -1;
        label += extra;
    }
    if (label >= alphabet_size || (int64_t)label <= previous) return -1;
    e->label = (uint32_t)label;
    e->final = (flags & EDGE_FINAL) != 0;
    e->last = (flags & EDGE_LAST) != 0;
    unsigned kind = (flags >> EDGE_KIND_SHIFT) & 3u;
    if (kind == KIND_LEAF) {
        e->target = size;
    } else if (kind == KIND_NEXT) {
        if (!e->last) return -1;
        e->target = *pos;
    } else {
        uint64_t value;
        if (format2_varint(body, size, pos, &value) < 0) return -1;
        if (kind == KIND_RELATIVE) {
            /* zigzag: even values are forward distances, odd ones backward */
            uint64_t distance = value >> 1;
            if (value & 1u) {
                if (distance + 1 > state) return -1;
                e->target = state - distance - 1;
            } else {
                e->target = state + distance;
            }
        } else {
            e->target = value;
        }
        if (e->target > size) return -1;
    }
    return 0;
}

#endif
