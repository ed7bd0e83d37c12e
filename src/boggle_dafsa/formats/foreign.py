"""What the marisa and dawg readers share: sidecar, policy, counts and ``info``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from boggle_dafsa.dictionary import DictionaryBase
from boggle_dafsa.formats.sidecar import Sidecar, sidecar_path
from boggle_dafsa.words.normalize import Policy, fold

#: The policy of a foreign file without a sidecar, unless its words are visibly not folded.
DEFAULT_POLICY = Policy.FOLD


class ForeignDictionary(DictionaryBase[Any]):
    """Base of the readers of foreign formats; subclasses provide the cursor and ``complete``.

    The policy comes from the sidecar; without one it is FOLD, unless a word of the file
    (the first one found) is not in folded form (a lower-case list, say): such a file
    can only have been stored exactly, so EXACT, lest queries be folded into words it
    cannot hold.
    """

    format_name = "foreign"

    def __init__(self, path: str | Path, sidecar: Sidecar | None) -> None:
        self.path = str(path)
        self.sidecar = sidecar
        self._count: int | None = sidecar.words if sidecar else None
        self._alphabet: str | None = sidecar.alphabet if sidecar else None
        self.policy: Policy
        self.policy_source: str
        if sidecar is not None:
            self.policy, self.policy_source = sidecar.policy, "from sidecar"
        else:
            sample = self.sample_word()
            if sample is None or fold(sample) == sample:
                self.policy, self.policy_source = DEFAULT_POLICY, "default: no sidecar"
            else:
                self.policy, self.policy_source = Policy.EXACT, "no sidecar, and the words are not folded"

    def file_info(self) -> dict[str, Any]:
        """Format-specific sizes for :meth:`info`."""
        return {}

    # Shared behaviour.
    def __len__(self) -> int:
        if self._count is None:
            self._count = sum(1 for _ in self.complete(""))
        return self._count

    @property
    def alphabet(self) -> str:
        """The letters of the words (from the sidecar, else read from every word once)."""
        if self._alphabet is None:
            letters: set[str] = set()
            for word in self:
                letters.update(word)
            self._alphabet = "".join(sorted(letters))
        return self._alphabet

    def info(self) -> dict[str, Any]:
        """What ``inspect`` shows: format, where the policy comes from, counts and sizes."""
        sidecar = self.sidecar
        size = Path(self.path).stat().st_size
        info: dict[str, Any] = {
            "path": self.path,
            "format": self.format_name,
            "policy": self.policy.value,
            "policy_source": self.policy_source,
            "alphabet": self.alphabet,
            "words": len(self),
        }
        if sidecar is not None:
            info["longest_word"] = sidecar.longest_word
        info["bytes"] = size
        info["bytes_per_word"] = round(size / max(len(self), 1), 3)
        info.update(self.file_info())
        info["values"] = self.values_info()
        info["sidecar"] = str(sidecar_path(self.path)) if sidecar else "none (policy by default, source digest unknown)"
        if sidecar is not None:
            if sidecar.source_sha256:
                info["source_sha256"] = sidecar.source_sha256
            info["file_sha256"] = sidecar.file_sha256
        return info
