"""numpy's BLAS kept to one thread in the commands' processes (imported first by each command).

numpy's wheels carry OpenBLAS, which starts a thread for each further core as numpy is
imported; those threads spin a while, waiting for matrix work that none of our commands
gives (the few small products of ``tol-score --plots`` take one thread). On a 2-core
machine, importing ``tol-score``'s modules took 0.25-0.31 s of CPU with them, 0.14-0.16 s
without (benchmarks/README.md, seventeenth pass); more cores, more threads.

Importing this module sets ``OPENBLAS_NUM_THREADS`` to 1 unless the user set it. It must
come before numpy is first imported (OpenBLAS reads it once, as numpy loads it), so each
command's module imports it before any other of ours. A researcher's own script that
imports the library is left alone.
"""

from __future__ import annotations

import os

#: The variable OpenBLAS reads as it starts, and the value the commands give it.
VARIABLE, THREADS = "OPENBLAS_NUM_THREADS", "1"

os.environ.setdefault(VARIABLE, THREADS)
