/* The census of a native dictionary: what its cells hold, checked against its header.
 *
 * Its Python twin is DictionaryBase._check_below (src/boggle_dafsa/dictionary.py), which
 * NativeDictionary.checked() (automaton/reader.py) calls when this part is not used. A
 * part of its own, so that opening a dictionary for `solve` imports nothing of the queries.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

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

static PyMethodDef methods[] = {
    {"census", census, METH_VARARGS, "census(cells, root, width, max_depth, max_words) -> (words, longest_word, states)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_census", "The census of a native dictionary's cells.", -1, methods};

PyMODINIT_FUNC PyInit__census(void) { return PyModule_Create(&module); }
