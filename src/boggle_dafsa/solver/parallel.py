"""Running searches and batches on a Dask distributed cluster (extra ``[dask]``).

Tasks are coarse: a whole search run, or a chunk of at least :data:`BATCH_CHUNK` grids
of a batch. Workers open the dictionary themselves; a dictionary file is sent once to
each worker with the tasks, and used only by a worker that cannot see the same file
(same SHA-256) at the same path. Workers need the same version of boggle-dafsa.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import socket
import struct
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boggle_dafsa.dictionaries.resolve import open_dictionary
from boggle_dafsa.errors import BoggleError

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary

#: Grids per batch task: enough that a task outweighs its messages many times.
BATCH_CHUNK = 1000
#: Seconds to wait for the scheduler before giving up.
CONNECT_TIMEOUT = 10


def require_dask() -> None:
    """Raise :class:`BoggleError` (one line: which extra to install) unless Dask's
    ``distributed`` can be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise BoggleError(
            "running on a Dask cluster needs the [dask] extra: install boggle-dafsa[dask] (pip install 'boggle-dafsa[dask]')"
        ) from None


def check_address(address: str) -> str:
    """``address`` as ``tcp://HOST:PORT`` (``HOST:PORT`` is taken as tcp), or a
    :class:`BoggleError` that says what is wrong with it.

    Checked before a client is made: a client that fails on a malformed address leaves an
    object whose clean-up waits 20 s and prints a traceback at exit.
    """
    scheme, separator, place = address.strip().rpartition("://")
    if not separator:
        scheme = "tcp"
    if scheme != "tcp":
        raise BoggleError(f"Dask scheduler address {address!r}: use tcp://HOST:PORT (not {scheme}://)")
    host, colon, port = place.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not colon or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise BoggleError(f"Dask scheduler address {address!r}: expected tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786")
    return f"tcp://{place}"


#: Most bytes a Dask scheduler's first message (its handshake, tens of bytes) may announce.
MAX_HANDSHAKE_BYTES = 1 << 20


def probe(address: str, timeout: float) -> None:
    """Raise :class:`BoggleError` unless something at ``address`` (``tcp://HOST:PORT``)
    answers as a Dask scheduler does, within ``timeout`` seconds: it accepts the
    connection and sends first its handshake, a message whose length (8 bytes, little
    endian) is small.

    Done before a client is made: the client waits without end for the handshake of a
    server that sends none (a web server), and believes the length any server sends.
    """
    place = address.split("://", 1)[1]
    host, _, port = place.rpartition(":")
    host = host.strip("[]")
    deadline = time.monotonic() + timeout
    last: OSError | None = None
    while True:  # a scheduler still starting refuses: tried again until the deadline
        left = deadline - time.monotonic()
        if left <= 0:
            reason = getattr(last, "strerror", None) or str(last or "timed out")
            raise BoggleError(f"cannot reach the Dask scheduler at {address} ({reason}, {timeout:g} s)")
        try:
            connection = socket.create_connection((host, int(port)), timeout=left)
            break
        except socket.gaierror as error:
            raise BoggleError(f"cannot reach the Dask scheduler at {address} ({error.strerror})") from None
        except OSError as error:
            last = error
            time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))
    head = b""
    with connection:
        try:
            while len(head) < 8:
                connection.settimeout(max(0.01, deadline - time.monotonic()))
                part = connection.recv(8 - len(head))
                if not part:
                    break
                head += part
        except OSError:  # the time is up, or the connection was reset
            pass
    if len(head) < 8:
        raise BoggleError(f"{address} does not answer as a Dask scheduler (no handshake in {timeout:g} s)")
    if struct.unpack("<Q", head)[0] > MAX_HANDSHAKE_BYTES:
        raise BoggleError(f"{address} does not answer as a Dask scheduler (not its protocol)")


def connect(address: str) -> Any:
    """A client of the Dask scheduler at ``address`` (raises :class:`BoggleError` if it
    cannot, within about :data:`CONNECT_TIMEOUT` seconds)."""
    require_dask()
    checked = check_address(address)
    probe(checked, CONNECT_TIMEOUT)
    from distributed import Client

    try:
        return Client(checked, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError, MemoryError) as error:
        raise BoggleError(f"cannot reach the Dask scheduler at {address} ({error})") from None


def file_digest(path: str | Path) -> str:
    """The SHA-256 of the file at ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def open_shipped(spec: str, digest: str | None, data: bytes | None) -> Dictionary:
    """Open dictionary ``spec`` on a worker: the file named if it is the one meant (``digest``), else a copy of ``data``.

    Without a digest (an embedded name) the spec is opened as it is.
    """
    if digest is None:
        return open_dictionary(spec)
    path = Path(spec)
    if path.is_file() and file_digest(path) == digest:
        return open_dictionary(spec)
    if data is None:
        raise BoggleError(f"{spec}: not on this machine, or not the file the search was started with")
    # Written once per digest, under a temporary name first: never a half-written copy.
    folder = Path(tempfile.gettempdir()) / "boggle-dafsa-shipped"
    folder.mkdir(exist_ok=True)
    copy = folder / f"{digest}{path.suffix}"
    if not copy.is_file():
        partial = folder / f".{digest}.{os.getpid()}"
        partial.write_bytes(data)
        os.replace(partial, copy)
    return open_dictionary(str(copy))


def _ship(client: Any, path: str | None) -> Any:
    # The file's bytes, on every worker once (None when the dictionary is an embedded name).
    if path is None:
        return None
    return client.scatter(Path(path).read_bytes(), broadcast=True)


def dask_as_completed(
    address: str,
    function: Any,
    calls: Iterable[tuple[Any, ...]],
    dictionary_path: str | None,
    *,
    on_event: Callable[[Any], None] | None = None,
    options: dict[str, Any] | None = None,
    window: int | None = None,
) -> Iterator[Any]:
    """``function(*call, data, **options)`` for each call on the cluster at ``address``, each result as it finishes.

    ``data`` is the bytes of the dictionary file at ``dictionary_path``, shipped once to
    each worker (None for an embedded dictionary). With ``on_event``, ``function`` also
    gets ``report=``, a callable whose arguments reach ``on_event`` in this process (as
    a list, from the client's thread) while the task runs: Dask events on a topic of
    this call's own. A task's events arrive before its result.

    At most ``window`` calls are on the cluster at once (by default :data:`MIN_WINDOW`, or
    :data:`TASKS_PER_THREAD` per worker thread of the cluster when it starts, if more), in
    the order of ``calls``: a proof of a million classes does not put a million futures on
    the scheduler, and a client stopped by Ctrl-C has only those few to release.
    """
    require_dask()
    from distributed import as_completed

    client = connect(address)
    try:
        data = _ship(client, dictionary_path)
        topic = None
        if on_event is not None:
            topic = f"boggle-dafsa-{uuid.uuid4().hex}"
            client.subscribe_topic(topic, lambda event: on_event(event[1]))
        if window is None:
            window = max(MIN_WINDOW, TASKS_PER_THREAD * sum(client.nthreads().values()))
        todo = iter(calls)

        def submit(count: int) -> list[Any]:
            return [
                client.submit(_with_events, function, topic, *call, data, pure=False, **(options or {}))
                for call in itertools.islice(todo, count)
            ]

        finished = as_completed(submit(window), loop=client.loop)
        for future in finished:
            result = future.result()
            # Release the future before the caller sees its result: what the scheduler holds
            # stays the window, however long the caller takes.
            del future
            finished.update(submit(1))
            yield result
    finally:
        client.close()


#: The fewest calls :func:`dask_as_completed` keeps on the cluster at once.
MIN_WINDOW = 256
#: Calls on the cluster per worker thread, past :data:`MIN_WINDOW`: enough that no thread waits for a call.
TASKS_PER_THREAD = 4


def _with_events(function: Any, topic: str | None, *args: Any, **options: Any) -> Any:
    # On a worker: the task's reports become events of `topic` (same worker stream as its
    # result, sent first, so the client hears them before it sees the task done).
    if topic is None:
        return function(*args, **options)
    from distributed import get_worker

    worker = get_worker()

    def report(*message: Any) -> None:
        worker.log_event(topic, list(message))

    return function(*args, report=report, **options)


def dask_map_chunks(
    address: str,
    function: Any,
    chunks: Iterable[list[Any]],
    shared: tuple[Any, ...],
    dictionary_path: str | None,
    *,
    window: int = 64,
) -> Iterator[list[Any]]:
    """``function(chunk, data, *shared)`` for each chunk on the cluster, results in input order.

    At most ``window`` chunks are in flight, so a batch larger than memory streams
    through. ``data`` is the dictionary file's bytes shipped once (None for an
    embedded dictionary).
    """
    client = connect(address)
    try:
        data = _ship(client, dictionary_path)
        pending: list[Any] = []
        for chunk in chunks:
            pending.append(client.submit(function, chunk, data, *shared, pure=False))
            if len(pending) >= window:
                yield pending.pop(0).result()
        while pending:
            yield pending.pop(0).result()
    finally:
        client.close()
