"""What every part of the simulated machine shares: size units, deterministic numbers
(`stable_int`, `jitter`) and `CmdError`, the refusal a change raises with the real tool's
exit code and message."""

from __future__ import annotations

import hashlib
import random

MiB = 1 << 20
GiB = 1 << 30
TiB = 1 << 40


def stable_int(*parts: object, bits: int = 64) -> int:
    h = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[: bits // 8], "big")


def jitter(seed: int, key: str, bucket: int, spread: float = 0.08) -> float:
    """A factor in [1-spread, 1+spread], fixed for (seed, key, bucket).

    Cost: a new `random.Random` seeded from a string per call (the string is hashed with
    SHA-512), several calls per disk and second of simulated time."""
    r = random.Random(f"{seed}:{key}:{bucket}")
    return 1.0 + spread * (2.0 * r.random() - 1.0)


def highbit(x: int) -> int:
    return x.bit_length()


class CmdError(Exception):
    """A refusal: exit code and stderr exactly as the real tool prints them."""

    def __init__(self, rc: int, stderr: str) -> None:
        super().__init__(stderr)
        self.rc = rc
        self.stderr = stderr if stderr.endswith("\n") else stderr + "\n"
