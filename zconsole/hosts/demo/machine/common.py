"""What every part of the simulated machine shares: size units, deterministic numbers
(`stable_int`, `jitter`) and `CmdError`, the refusal a change raises with the real tool's
exit code and message."""

from __future__ import annotations

import hashlib
import zlib

MiB = 1 << 20
GiB = 1 << 30
TiB = 1 << 40


def stable_int(*parts: object, bits: int = 64) -> int:
    h = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[: bits // 8], "big")


def jitter(seed: int, key: str, bucket: int, spread: float = 0.08) -> float:
    """A factor in [1-spread, 1+spread], fixed for (seed, key, bucket): a CRC-32 of the three,
    spread over [0, 1) (several calls per disk and second of simulated time, so one cheap
    hash each, not a random generator seeded per call)."""
    h = zlib.crc32(f"{seed}:{key}:{bucket}".encode())
    return 1.0 + spread * (2.0 * (h / 4294967296.0) - 1.0)


def highbit(x: int) -> int:
    return x.bit_length()


class CmdError(Exception):
    """A refusal: exit code and stderr exactly as the real tool prints them."""

    def __init__(self, rc: int, stderr: str) -> None:
        super().__init__(stderr)
        self.rc = rc
        self.stderr = stderr if stderr.endswith("\n") else stderr + "\n"
