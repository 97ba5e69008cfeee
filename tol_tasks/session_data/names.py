"""Names of data files, shared by every recorder (the runner, the collection server, the
importers), and giving a file its name never over another."""

from __future__ import annotations

import ctypes
import errno
import os
import sys
import time
from pathlib import Path


def date_str(t: float | None = None) -> str:
    """A timestamp in PsychoPy's ``data.getDateStr()`` form, e.g. ``2026-11-22_14h03.07.123``."""
    t = time.time() if t is None else t
    ms = int((t % 1) * 1000)
    return time.strftime("%Y-%m-%d_%Hh%M.%S", time.localtime(t)) + f".{ms:03d}"


def libc_function(name: str, *argtypes):
    """A function of Linux's C library (None elsewhere, or if it lacks it)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = getattr(ctypes.CDLL(None, use_errno=True), name)
    except (OSError, AttributeError):
        return None
    fn.argtypes = list(argtypes)
    fn.restype = ctypes.c_int
    return fn


_renameat2 = libc_function("renameat2", ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                   ctypes.c_uint)  # fmt: skip
_AT_FDCWD = -100


def give_name(part: Path, log: Path) -> None:
    """Give the file ``part`` the name ``log``, never over a file that took that name meanwhile
    (``FileExistsError``): an imported log made durable, a samples file following its log."""
    if _renameat2 is not None:  # Linux: one atomic rename that refuses to replace
        if _renameat2(_AT_FDCWD, os.fsencode(part), _AT_FDCWD, os.fsencode(log), 1) == 0:
            return
        err = ctypes.get_errno()
        if err == errno.EEXIST:
            raise FileExistsError(err, os.strerror(err), str(log))
        if err not in (errno.EINVAL, errno.ENOSYS):  # else: a file system without it
            raise OSError(err, os.strerror(err), str(part))
    try:
        os.link(part, log)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links
        if log.exists():
            raise FileExistsError(errno.EEXIST, "exists", str(log)) from None
        os.rename(part, log)
        return
    part.unlink()
