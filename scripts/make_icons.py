#!/usr/bin/env python3
"""Draw the web app's icons (src/boggle_dafsa/web/static/icon-192.png, icon-512.png): a 4x4
board of dice on the pages' blue, with the standard library alone (zlib), byte for byte
the same at every run. The SVG icon beside them is written by hand."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "src" / "boggle_dafsa" / "web" / "static"
BLUE = (0x24, 0x56, 0xC7)
DIE = (0xFF, 0xFD, 0xF6)
ORANGE = (0xE0, 0x7B, 0x00)


def pixel(x: float, y: float) -> tuple[int, int, int]:
    """The colour at (x, y) in a unit square: four rows of four rounded dice, one orange."""
    margin, gap = 0.12, 0.035
    size = (1 - 2 * margin - 3 * gap) / 4
    for row in range(4):
        for col in range(4):
            left, top = margin + col * (size + gap), margin + row * (size + gap)
            dx = max(left + 0.2 * size - x, 0, x - (left + 0.8 * size))
            dy = max(top + 0.2 * size - y, 0, y - (top + 0.8 * size))
            if dx * dx + dy * dy <= (0.2 * size) ** 2:
                return ORANGE if (row, col) == (1, 2) else DIE
    return BLUE


def png(size: int) -> bytes:
    rows = b"".join(
        b"\x00" + bytes(channel for x in range(size) for channel in pixel((x + 0.5) / size, (y + 0.5) / size))
        for y in range(size)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def main() -> None:
    for size in (192, 512):
        path = STATIC / f"icon-{size}.png"
        path.write_bytes(png(size))
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
