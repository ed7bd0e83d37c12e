"""The native file format: a fixed header, the alphabet, then one flat array of uint32 cells.

``docs/format.md`` describes it byte by byte. In short, each state is a header of
``header_cells`` cells (a bitset: letter ``i`` of the alphabet at bit ``i``, the
final flag at the top bit of the last header cell), followed by the cell index of
each child, in letter order. Stepping by letter ``i`` is a bit test and a popcount.
"""

from __future__ import annotations

import mmap
import os
import stat
import struct
import sys
import zlib
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Callable

from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.words.normalize import Policy

if TYPE_CHECKING:
    from array import array
    from collections.abc import Mapping

    from boggle_dafsa.automaton.builder import Automaton

#: Anything the header can be read from: bytes, or the file mapped in memory.
Buffer = bytes | bytearray | memoryview | mmap.mmap

MAGIC = b"\x89DAFSA\r\n"
VERSION = 1
#: The fixed part of the header; the alphabet (UTF-8) follows, padded to a multiple of 8.
_FIXED = struct.Struct("<8sHHI B3x I I I I I I I I I 32s I I")
FIXED_SIZE = _FIXED.size  # 96
_HEADER_CRC_OFFSET = FIXED_SIZE - 4
_POLICY_CODES = {Policy.FOLD: 0, Policy.EXACT: 1, Policy.RAW: 2}
_POLICY_BY_CODE = {code: policy for policy, code in _POLICY_CODES.items()}
_CELL_MAX = 0xFFFFFFFF
#: The final flag of a one-cell state header (alphabets of up to 31 letters): its top bit.
#: The C twin of this and of everything in :class:`NativeLayout` is ``_format.h``.
FINAL_FLAG = 1 << 31
#: The letter bits of a one-cell state header.
LETTER_MASK = FINAL_FLAG - 1
#: The most letters a one-cell state header holds (the fast kernels read only such files).
ONE_CELL_LETTERS = 31


def header_cells_for(alphabet_size: int) -> int:
    """Cells per state header: enough bits for every letter plus the final flag."""
    return alphabet_size // 32 + 1


class Header:
    """The decoded header of a native dictionary file (see the field table above).

    Plain classes with slots here and on the rest of ``solve``'s path rather than
    NamedTuples, whose classes cost a few hundred microseconds each to create at start-up.
    """

    __slots__ = ("version", "header_cells", "header_size", "policy", "alphabet", "word_count", "state_count",
                 "transition_count", "final_count", "longest_word", "root", "cell_count", "body_crc32", "source_digest")

    def __init__(
        self, version: int, header_cells: int, header_size: int, policy: Policy, alphabet: str, word_count: int,
        state_count: int, transition_count: int, final_count: int, longest_word: int, root: int, cell_count: int,
        body_crc32: int, source_digest: str,
    ) -> None:
        self.version = version
        self.header_cells = header_cells
        self.header_size = header_size
        self.policy = policy
        self.alphabet = alphabet
        self.word_count = word_count
        self.state_count = state_count
        self.transition_count = transition_count
        self.final_count = final_count
        self.longest_word = longest_word
        self.root = root
        self.cell_count = cell_count
        self.body_crc32 = body_crc32
        self.source_digest = source_digest

    @property
    def file_size(self) -> int:
        """The exact size in bytes of a file with this header."""
        return self.header_size + 4 * self.cell_count


class NativeLayout:
    """The one Python definition of how a native file's states are read: every reader goes through it.

    A state ``s`` is a cell index. Its header is ``header_cells`` cells, a bitset of its
    letters (letter ``i`` of the alphabet at bit ``i``) with the final flag at the top bit
    of the last header cell; the index of each child follows, in letter order. With
    one-cell headers (alphabets of up to :data:`ONE_CELL_LETTERS` letters, the only files
    the fast kernels walk) the header is ``cells[s]``, :attr:`final_flag` marks a word,
    and the child by letter bit ``b`` is ``cells[s + 1 + popcount(cells[s] & ((1 << b) - 1))]``.

    The methods below are that arithmetic for any header width; a hot loop (a kernel's
    Python twin) may inline it for one-cell headers, but with this object's
    :attr:`final_flag`, :attr:`letter_mask` and :attr:`header_cells`, never constants of
    its own. Nothing is checked: a damaged file can point anywhere, so a reader
    bounds-checks every index against ``len(cells)`` (here ``IndexError`` rises).

    Plain data, so that a compiled kernel takes the same arguments as its Python twin.
    """

    __slots__ = ("cells", "root", "letter_bits", "alphabet", "header_cells", "longest_word", "final_flag",
                 "letter_mask", "source")

    def __init__(
        self, cells: memoryview | array[int], root: int, letter_bits: Mapping[str, int], alphabet: str,
        header_cells: int, longest_word: int, final_flag: int, source: str,
    ) -> None:
        #: The cells as unsigned 32-bit integers in native byte order: a memoryview of
        #: format "I" in place on the mapped file (an ``array('I')`` on big-endian hosts).
        self.cells = cells
        #: The root state (a cell index).
        self.root = root
        #: Bit index of each letter of the alphabet in a state header.
        self.letter_bits = letter_bits
        #: The letters, in bit order.
        self.alphabet = alphabet
        #: Cells per state header (1 for alphabets of up to 31 letters): a state's first
        #: child index is this many cells after it.
        self.header_cells = header_cells
        #: Letters in the longest word: bounds the depth of any walk.
        self.longest_word = longest_word
        #: The bit of a (one-cell) state header that marks a word (:data:`FINAL_FLAG`).
        self.final_flag = final_flag
        #: The letter bits of a (one-cell) state header.
        self.letter_mask = final_flag - 1
        #: Where the cells come from, for error messages.
        self.source = source

    @classmethod
    def of(cls, cells: memoryview | array[int], root: int, alphabet: str, longest_word: int, source: str) -> NativeLayout:
        """The layout of a body over ``alphabet`` (its header width follows from the alphabet's size)."""
        width = header_cells_for(len(alphabet))
        letter_bits = {letter: bit for bit, letter in enumerate(alphabet)}
        return cls(cells, root, letter_bits, alphabet, width, longest_word, 1 << (32 * width - 1), source)

    def head(self, state: int) -> int:
        """The header bitset of ``state``: its letters' bits and, at bit ``32 * header_cells - 1``, the final flag."""
        if self.header_cells == 1:
            return int(self.cells[state])
        head = 0
        for i in range(self.header_cells):
            head |= self.cells[state + i] << (32 * i)
        return head

    def is_final(self, state: int) -> bool:
        """True if the prefix that leads to ``state`` is a word."""
        return bool(self.head(state) & self.final_flag)

    def letters(self, state: int) -> int:
        """The letter bits of ``state`` (bit ``i``: letter ``i`` of the alphabet follows)."""
        return self.head(state) & self.letter_mask

    def child(self, state: int, bit: int) -> int | None:
        """The child of ``state`` by letter bit ``bit`` (an index), None if there is none."""
        head = self.head(state)
        if not head >> bit & 1 or bit >= len(self.alphabet):
            return None
        return int(self.cells[state + self.header_cells + (head & ((1 << bit) - 1)).bit_count()])

    def step(self, state: int, letters: str) -> int | None:
        """Follow each character of ``letters`` from ``state``; None if no word continues so."""
        letter_bits = self.letter_bits
        for letter in letters:
            bit = letter_bits.get(letter)
            if bit is None:
                return None
            child = self.child(state, bit)
            if child is None:
                return None
            state = child
        return state

    def children(self, state: int) -> Iterator[tuple[int, int]]:
        """The (letter bit, child) pairs of ``state``, in letter order."""
        letters = self.letters(state)
        slot = state + self.header_cells
        cells = self.cells
        while letters:
            low = letters & -letters
            yield low.bit_length() - 1, int(cells[slot])
            slot += 1
            letters ^= low


def layout_of(header: Header, cells: memoryview | array[int], source: str) -> NativeLayout:
    """The :class:`NativeLayout` of a file with ``header`` and ``cells``."""
    return NativeLayout.of(cells, header.root, header.alphabet, header.longest_word, source)


def encode(automaton: Automaton, policy: Policy, source_digest: str) -> bytes:
    """The complete file for ``automaton``: header then cells. Same input, same bytes."""
    cells, root = body_cells(automaton)
    if not _LITTLE_ENDIAN:
        cells.byteswap()
    body = cells.tobytes()
    header = pack_header(
        policy, automaton.alphabet, automaton.word_count, automaton.state_count, automaton.transition_count,
        sum(automaton.finals), automaton.longest_word, root, len(cells), zlib.crc32(body), source_digest,
    )
    return header + body


def body_cells(automaton: Automaton) -> tuple[array, int]:
    """The file's cells (native byte order) and the root's cell index."""
    alphabet = automaton.alphabet
    bit_of = {letter: bit for bit, letter in enumerate(alphabet)}
    width = header_cells_for(len(alphabet))
    final_bit = 32 * width - 1

    # Breadth-first from the root, children in letter order: deterministic, and the
    # states a search visits first (short prefixes) sit together at the start of the file.
    order = [automaton.root]
    seen = {automaton.root}
    queue = deque(order)
    while queue:
        for child in automaton.labels[queue.popleft()][1::2]:
            if child not in seen:
                seen.add(child)
                order.append(child)
                queue.append(child)
    position: dict[int, int] = {}
    cursor = 0
    for state in order:
        position[state] = cursor
        cursor += width + len(automaton.labels[state]) // 2
    if cursor > _CELL_MAX:
        raise DictionaryError("automaton too large for the native format (more than 2**32 cells)")

    from array import array  # only writers need it (array is a shared library: start-up time)

    cells = array("I")
    for state in order:
        flat = automaton.labels[state]
        bits = 0
        for letter in flat[::2]:
            bits |= 1 << bit_of[letter]
        if automaton.finals[state]:
            bits |= 1 << final_bit
        for i in range(width):
            cells.append((bits >> (32 * i)) & _CELL_MAX)
        cells.extend(position[child] for child in flat[1::2])
    if cells.itemsize != 4:
        raise AssertionError("array('I') must hold 4-byte cells")
    return cells, position[automaton.root]


def header_size_for(alphabet: str) -> int:
    """Bytes of the header of a file over ``alphabet``: where the cells begin."""
    size = FIXED_SIZE + len(alphabet.encode("utf-8"))
    return size + -size % 8


def pack_header(
    policy: Policy, alphabet: str, word_count: int, state_count: int, transition_count: int, final_count: int,
    longest_word: int, root: int, cell_count: int, body_crc32: int, source_digest: str,
) -> bytes:
    """The header of a file whose cells are already known (count, CRC-32, root's index)."""
    alphabet_bytes = alphabet.encode("utf-8")
    header_size = header_size_for(alphabet)
    fixed = _FIXED.pack(
        MAGIC,
        VERSION,
        header_cells_for(len(alphabet)),
        header_size,
        _POLICY_CODES[policy],
        len(alphabet),
        word_count,
        state_count,
        transition_count,
        final_count,
        longest_word,
        root,
        cell_count,
        body_crc32,
        bytes.fromhex(source_digest),
        len(alphabet_bytes),
        0,
    )
    header = bytearray(fixed + alphabet_bytes)
    header += bytes(header_size - len(header))
    struct.pack_into("<I", header, _HEADER_CRC_OFFSET, zlib.crc32(header))
    return bytes(header)


def decode_header(data: Buffer, source: str, file_size: int) -> Header:
    """Parse and check the header at the start of ``data`` (a file of ``file_size`` bytes).

    Raises :class:`DictionaryError` for anything that is not a whole, intact header of
    a version this code reads. The cells are not read here (see ``verify``).
    """
    if len(data) < FIXED_SIZE or bytes(data[: len(MAGIC)]) != MAGIC:
        raise DictionaryError(f"{source}: not a boggle-dafsa dictionary (bad magic)")
    fields = _FIXED.unpack_from(data)
    (_, version, width, header_size, policy_code, alphabet_size, word_count, state_count, transition_count,
     final_count, longest_word, root, cell_count, body_crc, digest, alphabet_length, header_crc) = fields
    crc_holds = FIXED_SIZE <= header_size <= len(data) and _header_crc(data, header_size) == header_crc
    if version > VERSION:
        # A newer writer may lay the header out differently, so its checksum cannot decide.
        what = "" if crc_holds else ", or the header is damaged"
        raise DictionaryError(f"{source}: format version {version} is newer than this tool reads ({VERSION}){what}: upgrade boggle-dafsa")
    if version < 1 or header_size < FIXED_SIZE + alphabet_length or not crc_holds:
        raise DictionaryError(f"{source}: damaged header (checksum mismatch): rebuild the dictionary")
    if policy_code not in _POLICY_BY_CODE or width != header_cells_for(alphabet_size):
        raise DictionaryError(f"{source}: damaged header (inconsistent fields)")
    try:
        alphabet = bytes(data[FIXED_SIZE : FIXED_SIZE + alphabet_length]).decode("utf-8")
    except UnicodeDecodeError:
        raise DictionaryError(f"{source}: damaged header (alphabet is not UTF-8)") from None
    header = Header(version, width, header_size, _POLICY_BY_CODE[policy_code], alphabet, word_count, state_count,
                    transition_count, final_count, longest_word, root, cell_count, body_crc, digest.hex())
    # In an acyclic automaton a word visits distinct states, and each state has at least
    # a header's cells: a longer "longest word" can only be a lie (or a cycle) that walks
    # bounded by it would believe.
    if len(alphabet) != alphabet_size or root >= cell_count or not longest_word <= state_count <= cell_count // width:
        raise DictionaryError(f"{source}: damaged header (inconsistent fields)")
    if file_size != header.file_size:
        what = "truncated" if file_size < header.file_size else "has trailing bytes"
        raise DictionaryError(f"{source}: {what} ({file_size} bytes, header says {header.file_size})")
    return header


def _header_crc(data: Buffer, header_size: int) -> int:
    # The CRC of the header with its own CRC field counted as zero.
    header = bytearray(data[:header_size])
    struct.pack_into("<I", header, _HEADER_CRC_OFFSET, 0)
    return zlib.crc32(header)


def write_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that the file appears whole or not at all (see :func:`atomic_file`)."""
    with atomic_file(path) as stream:
        stream.write(data)
        fault_point("written")


@contextmanager
def atomic_file(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file to write, which replaces ``path`` whole when the block ends without error.

    The file is a temporary one in the same folder (it may be seeked and rewritten); it
    is flushed to disk and renamed over ``path`` at the end, or removed on any failure
    (an interruption included), leaving an existing ``path`` untouched.
    A symbolic link at ``path`` is replaced by the file, never written through (as
    ``sed -i`` does); a folder, device or pipe there is refused. A new file gets the
    mode the umask gives, a replaced regular file keeps its mode. A writer killed even
    with SIGKILL leaves no temporary file: its reaper (:mod:`boggle_dafsa.reaper`)
    removes it; without a reaper, the next write to the same path does.
    """
    from boggle_dafsa import reaper  # only writers need it (it imports subprocess)

    target = Path(os.path.abspath(path))
    try:
        existing = os.lstat(target)
    except FileNotFoundError:
        existing = None
    except OSError as error:
        raise DictionaryError(f"{path}: cannot write ({error.strerror or error})") from None
    mode = None
    if existing is not None:
        if stat.S_ISREG(existing.st_mode):
            mode = stat.S_IMODE(existing.st_mode)
        elif not stat.S_ISLNK(existing.st_mode):
            raise DictionaryError(f"{path}: exists and is not a regular file (a folder, a device, a pipe): not replacing it")
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _remove_stale_temporaries(folder, target.name)
        temporary, descriptor = _create_temporary(folder, target.name)
    except OSError as error:
        raise DictionaryError(f"{path}: cannot write ({error.strerror or error})") from None
    try:
        fault_point("created")
        with os.fdopen(descriptor, "w+b") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        fault_point("synced")
        os.replace(temporary, target)
        reaper.done(temporary)
        fault_point("renamed")
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        reaper.done(temporary)
        if isinstance(error, OSError):
            raise DictionaryError(f"{path}: cannot write ({error.strerror or error})") from None
        raise


#: Temporary files are named ``.NAME.PID.RANDOM.tmp``, NAME cut to this length so that
#: a name near the filesystem's limit still has room for the rest.
_TEMPORARY_NAME_LENGTH = 64


def _create_temporary(folder: Path, name: str) -> tuple[Path, int]:
    # os.open with 0o666, not mkstemp (0o600): the umask then gives the new file its mode.
    import secrets  # only writers need it

    from boggle_dafsa import reaper

    while True:
        temporary = folder / f".{name[:_TEMPORARY_NAME_LENGTH]}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        # Listed before it exists: whenever this process dies from now on, the reaper
        # removes it (see reaper.py).
        reaper.listed(temporary)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
            return temporary, os.open(temporary, flags, 0o666)
        except FileExistsError:
            reaper.done(temporary)  # someone else's name
        except BaseException:
            reaper.done(temporary)
            raise


def _remove_stale_temporaries(folder: Path, name: str) -> None:
    # A writer killed with SIGKILL cannot clean up: its temporary file is removed here,
    # once its process is gone (a live one may still be writing it).
    prefix = f".{name[:_TEMPORARY_NAME_LENGTH]}."
    try:
        candidates = [entry for entry in os.listdir(folder) if entry.startswith(prefix) and entry.endswith(".tmp")]
    except OSError:
        return
    for entry in candidates:
        pid_text = entry[len(prefix) :].split(".")[0]
        if not pid_text.isdigit() or _process_alive(int(pid_text)):
            continue
        try:
            os.unlink(folder / entry)
        except OSError:
            pass


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process: not ours to judge
    return True


#: Environment variable of the fault-injection hook (tests only): ``N`` kills the process
#: with SIGKILL at the Nth step of the writes it does (see :func:`fault_point`).
FAULT_VARIABLE = "BOGGLE_DAFSA_TEST_KILL_AT_STEP"
_steps_taken = 0
#: In-process hook (tests only): called with each step's name; it may raise to interrupt.
fault_hook: Callable[[str], None] | None = None


def fault_point(step: str) -> None:
    """A step of a write where the tests may kill the process (``$BOGGLE_DAFSA_TEST_KILL_AT_STEP``).

    The tests kill a build at each step in turn and check that the previous dictionary
    is still usable and that no temporary file is left.
    """
    global _steps_taken
    if fault_hook is not None:
        fault_hook(step)
    wanted = os.environ.get(FAULT_VARIABLE)
    if not wanted:
        return
    _steps_taken += 1
    if str(_steps_taken) == wanted:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


_LITTLE_ENDIAN = sys.byteorder == "little"
