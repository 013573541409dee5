"""A source's open prices as the bulk diff holds them: each key and value
hash as raw bytes in two numpy arrays, sorted by key.

A million open prices in Python dicts of ints take some 200 MB; here they
take 24 MB, and a chunk of ten thousand keys is looked up in one call
(`find`). Bytes arrays ('S16', 'S8') compare byte for byte; their only
quirk, trailing NUL bytes read back stripped, is avoided by never reading
single items back: `hex_texts` goes through the raw buffer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

KEY_BYTES = 16  # a quote's key: 32 hex digits
VALUE_BYTES = 8  # its value hash: 16 hex digits


def byte_array(hex_texts: Sequence[str], width: int) -> np.ndarray:
    """Hex digests of `width` bytes each, as an array of them."""
    return np.frombuffer(bytes.fromhex("".join(hex_texts)), dtype=f"S{width}").copy()


def hex_texts(array: np.ndarray) -> list[str]:
    """The array's items as hex digests again."""
    text = array.tobytes().hex()
    step = 2 * array.dtype.itemsize
    return [text[i : i + step] for i in range(0, len(text), step)]


def leading_word(keys: np.ndarray) -> np.ndarray:
    """Each key's first 8 bytes as an unsigned int: ordered as the keys are,
    and searched many times faster than they are."""
    return keys.view(">u8")[:: keys.dtype.itemsize // 8].astype(np.uint64)


@dataclass
class PriceFingerprints:
    keys: np.ndarray  # S16 (or any multiple of 8 bytes), sorted, unique
    values: np.ndarray  # S8 (or any), the value hash of each key
    words: np.ndarray | None = None  # `leading_word(keys)`, made on first use

    def _words(self) -> np.ndarray:
        if self.words is None:
            self.words = leading_word(self.keys)
        return self.words

    @classmethod
    def empty(cls) -> PriceFingerprints:
        return cls(np.empty(0, f"S{KEY_BYTES}"), np.empty(0, f"S{VALUE_BYTES}"))

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str]]) -> PriceFingerprints:
        """From (key, value hash) hex pairs."""
        found = list(pairs)
        if not found:
            return cls.empty()
        keys, values = zip(*found)
        return cls.sorted(byte_array(keys, KEY_BYTES), byte_array(values, VALUE_BYTES))

    @classmethod
    def sorted(cls, keys: np.ndarray, values: np.ndarray) -> PriceFingerprints:
        """Ordered by key: by its leading word, then its second (the order of
        the bytes), sorted as ints, many times faster than as bytes."""
        if not len(keys):
            return cls(keys, values)
        words = keys.view(">u8").reshape(len(keys), -1).astype(np.uint64)
        order = np.lexsort(words.T[::-1])
        return cls(keys[order], values[order], words[order, 0])

    def __len__(self) -> int:
        return len(self.keys)

    def find(self, keys: np.ndarray) -> np.ndarray:
        """Each key's position here, or -1. Searched by leading word; a key
        whose word is shared with another key (one chance in 2**64 a pair)
        is searched again in full."""
        if not len(self.keys):
            return np.full(len(keys), -1, dtype=np.int64)
        words = self._words()
        wanted = leading_word(keys)
        inside = np.minimum(np.searchsorted(words, wanted), len(self.keys) - 1)
        found = self.keys[inside] == keys
        shared = ~found & (words[inside] == wanted)
        if shared.any():
            exact = np.minimum(np.searchsorted(self.keys, keys[shared]), len(self.keys) - 1)
            inside[shared] = exact
            found[shared] = self.keys[exact] == keys[shared]
        return np.where(found, inside, -1)


class GrowingFingerprints:
    """Keys added a chunk at a time, none twice, and searched between the
    chunks: the run's new keys. Kept as sorted runs, the last two merged
    whenever the newer is as long as the older, so that a key is copied a
    few times in all rather than once per chunk."""

    def __init__(self) -> None:
        self.runs: list[PriceFingerprints] = []

    def __len__(self) -> int:
        return sum(map(len, self.runs))

    def add(self, keys: np.ndarray, values: np.ndarray) -> None:
        self.runs.append(PriceFingerprints.sorted(keys, values))
        while len(self.runs) > 1 and len(self.runs[-1]) >= len(self.runs[-2]):
            newer, older = self.runs.pop(), self.runs.pop()
            self.runs.append(_merged(older, newer))

    def values_of(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which keys are here, and the value of each (meaningless where not)."""
        found = np.zeros(len(keys), dtype=bool)
        values = np.empty(len(keys), dtype=f"S{VALUE_BYTES}")
        for run in self.runs:
            at = run.find(keys)
            hit = at >= 0
            found |= hit
            values[hit] = run.values[at[hit]]
        return found, values


def _merged(older: PriceFingerprints, newer: PriceFingerprints) -> PriceFingerprints:
    """Two sorted runs as one. A stable sort of their leading words finds the
    two runs and merges them in one linear pass; only where two keys share a
    leading word (one chance in 2**64 a pair) is the order of the whole key
    needed."""
    keys = np.concatenate([older.keys, newer.keys])
    values = np.concatenate([older.values, newer.values])
    words = np.concatenate([older._words(), newer._words()])
    order = np.argsort(words, kind="stable")
    words = words[order]
    if (words[1:] == words[:-1]).any():
        return PriceFingerprints.sorted(keys, values)
    return PriceFingerprints(keys[order], values[order], words)
