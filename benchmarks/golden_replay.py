"""The golden replay of the answer checks, fixes and selection (see ``tests/golden_replay.py``).

    python benchmarks/golden_replay.py            # compare with tests/data/golden/fingerprint.json
    python benchmarks/golden_replay.py --update   # store the new fingerprint after a meant change

Prints the difference (or the fingerprint's hash) and exits 1 when the replay changed; exits 2,
saying why, without the `parsers` extra (pip install 'ragcode[parsers]') or bubblewrap.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from golden_replay import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
