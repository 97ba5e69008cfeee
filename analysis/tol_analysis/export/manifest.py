"""The output folder of ``tol-score``: what it wrote is recorded, and only that is ever replaced.

Every scoring writes a complete set of outputs (tables, codebook, SPSS files,
``plots/``, ``reports/``, ``bids/``) into a run folder of its own,
``.tol-score/run-<id>/``, with a manifest (:data:`MANIFEST`) listing every file
it wrote. The names a reader opens in the output folder (``trials.csv``,
``reports/``, ...) are relative symbolic links through ``.tol-score/current``,
itself a link to the run folder in use. Putting a new set in place is then one
atomic rename of ``current``: whatever instant the process is killed at, a
reader sees the earlier set or the new one, complete, never a mix. Run folders
and links left by a killed run are removed by the next run.

Nothing but what a manifest names is ever removed:

- a folder that holds files named like tol-score's outputs that no manifest
  names (a participant list called ``sessions.csv``, outputs of tol-score
  0.2, a folder ``reports/`` of the lab's own) is refused, naming them;
- a file of the lab's put inside one of tol-score's folders (``reports/letter.docx``)
  is carried into the new set and named;
- anything else in the folder (raw logs, notes) is left alone and named;
- an output folder that is, holds, or lies inside an input folder is refused
  (``tol-score data --output data --replace`` would otherwise mix the
  outputs into the data).

Where the file system has no symbolic links (Windows without developer mode),
the outputs are plain files and folders, replaced one by one once the new set
is complete (:data:`LINKED` says which way a folder is written); the manifest
still decides what may be replaced.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tol_analysis.columns import TABLES
from tol_tasks import __version__
from tol_tasks.errors import TolTasksError

#: The files tol-score writes in its output folder (what a manifest may name at the top).
OUTPUT_FILES = (
    *(t.file for t in TABLES.values()), "wide.csv", "codebook.json", "codebook.md",
    "wide.sav", "trials.sav", "planning.csv", "planning_sessions.csv",
    "gaze.csv",
)  # fmt: skip

#: The folders tol-score writes in its output folder (with --plots, --report, --bids).
OUTPUT_FOLDERS = ("plots", "reports", "bids")

#: The list of what one scoring wrote, in its run folder and linked in the output folder.
MANIFEST = "tol-score-manifest.json"

#: tol-score's own hidden folder inside the output folder: the run folders and ``current``.
STATE = ".tol-score"

#: The link (inside :data:`STATE`) naming the run folder in use.
CURRENT = "current"

#: The prefix of the folders tol-score makes to try what a folder allows (removed at once).
_PROBE = ".tol-score-check-"

#: The option that replaces earlier outputs (said in every message about them).
REPLACE_OPTION = "--replace"

#: Every name tol-score may put at the top of an output folder.
OUR_NAMES = (*OUTPUT_FILES, *OUTPUT_FOLDERS, MANIFEST)


class OutputFolderError(TolTasksError):
    """The output folder cannot be written, or holds what tol-score may not replace."""


@dataclass
class Committed:
    """What putting a new set in place did.

    Attributes
    ----------
    replaced : list of str
        The earlier outputs (top-level names) the new set replaced or removed.
    kept : list of str
        Files of the lab's inside tol-score's folders, carried into the new set.
    left_alone : list of str
        Everything else at the top of the output folder (never touched).
    """

    replaced: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    left_alone: list[str] = field(default_factory=list)


def _links_work(folder: Path) -> bool:
    """Whether symbolic links can be made in ``folder`` (tried)."""
    probe = Path(tempfile.mkdtemp(prefix=_PROBE, dir=folder))
    try:
        os.symlink("target", probe / "link")
        return True
    except (OSError, NotImplementedError):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)


class OutputFolder:
    """The ``--output`` folder of one scoring.

    Parameters
    ----------
    folder : Path
    inputs : list of str or Path
        The logs and folders scored (the output folder must not overlap them).
    replace : bool
        Whether earlier outputs recorded in the folder may be replaced.
    writes : sequence of str, optional
        The names this scoring may write at the top of the folder (default: every name
        tol-score writes); a file of the lab's with another of tol-score's names is left
        alone.
    links : bool, optional
        Whether the outputs are links into run folders (swapped atomically) or plain
        files; by default, links where the file system can make them.
    """

    def __init__(self, folder: str | Path, inputs=(), replace: bool = False,
                 writes=OUR_NAMES, links: bool | None = None) -> None:  # fmt: skip
        self.folder = Path(folder)
        self.inputs = [Path(p) for p in inputs]
        self.replace = replace
        self.writes = set(writes) | {MANIFEST}
        self.state = self.folder / STATE
        self.linked = links
        self._lock = None
        self._made = False  # whether staging() made the folder

    # ------------------------------------------------------------------ before scoring
    def check(self) -> list[str]:
        """Check the folder before scoring; return the earlier outputs in it (top names).

        Removes what a killed run left in :data:`STATE`.

        Raises
        ------
        OutputFolderError
            The folder (or a folder above it) is a file, cannot be made or
            written to, overlaps an input, holds earlier outputs and
            ``replace`` is false, or holds files named like tol-score's that
            no manifest names.
        """
        folder, where = self.folder, str(self.folder)
        if folder.exists() and not folder.is_dir():
            raise OutputFolderError(
                f"--output {folder} is a file, not a folder.", where=where,
                field="--output", value=where,
                fix="give a folder for the tables (it is made if missing), e.g. --output scored.",
            )  # fmt: skip
        self._check_inputs()
        existing = folder
        while not existing.exists():
            existing = existing.parent
        if not existing.is_dir():
            raise OutputFolderError(
                f"--output {folder} cannot be made: {existing} is a file.", where=where,
                field="--output", value=where, fix="give a folder path whose parents are folders.",
            )  # fmt: skip
        if not _writable(existing):
            what = "written to" if existing == folder else f"made ({existing} is not writable)"
            raise OutputFolderError(
                f"--output {folder} cannot be {what}.", where=where, field="--output",
                value=where, fix="choose a folder you can write to, or ask for write access.",
            )  # fmt: skip
        if self.linked is None:
            self.linked = _links_work(existing)  # nothing is made before scoring succeeds
        if folder.is_dir():
            self._take_lock()
            self.clean()
        manifest = self.manifest()
        earlier = manifest.get("top", []) if manifest else []
        foreign = self._not_ours(manifest)
        if foreign:
            shown = ", ".join(foreign[:6]) + (", ..." if len(foreign) > 6 else "")
            raise OutputFolderError(
                f"{folder} holds {shown}, named like tol-score's outputs but not in its "
                f"manifest ({MANIFEST}): files of yours, or outputs of tol-score 0.2 or "
                "earlier (which kept no manifest). tol-score never replaces what it did not "
                "record writing.", where=where, field="--output", value=where,
                fix="move them out of the folder (or rename them), or give another --output "
                "folder.",
            )  # fmt: skip
        if earlier and not self.replace:
            shown = ", ".join(earlier[:6]) + (", ..." if len(earlier) > 6 else "")
            raise OutputFolderError(
                f"{folder} already holds tol-score's outputs ({shown}); scoring into "
                "it would leave some of them from the earlier scoring.", where=where,
                field="--output", value=where,
                fix=f"pass {REPLACE_OPTION} to replace them (only what {MANIFEST} lists: "
                "anything else in the folder is left alone), or give another --output folder.",
            )  # fmt: skip
        return list(earlier)

    def _check_inputs(self) -> None:
        out = self.folder.resolve()
        for given in self.inputs:
            if not given.exists():
                continue  # the search for logs names it
            item = given.resolve()
            if item.is_dir() and out == item:
                how = f"is the input folder {given}"
            elif item != out and item.is_relative_to(out):
                how = f"holds the input {given}"
            elif item.is_dir() and out.is_relative_to(item):
                how = f"lies inside the input folder {given}"
            else:
                continue
            raise OutputFolderError(
                f"--output {self.folder} {how}: the outputs would be mixed into the data (and "
                f"with {REPLACE_OPTION}, a later scoring would replace files among the raw "
                "logs).", where=str(self.folder), field="--output", value=str(self.folder),
                fix=f"give an output folder outside every input folder, e.g. --output "
                f"{_beside(item if item.is_dir() else item.parent)}.",
            )  # fmt: skip

    def _not_ours(self, manifest: dict | None) -> list[str]:
        """Names at the top that this scoring may write but no manifest names (or that are
        not tol-score's links)."""
        ours = set(manifest.get("top", [])) if manifest else set()
        out = []
        for name in (n for n in OUR_NAMES if n in self.writes):
            p = self.folder / name
            if not (p.exists() or p.is_symlink()):
                continue
            if name not in ours or (self.linked and not self._is_our_link(p)):
                out.append(name + ("/" if p.is_dir() and not p.is_symlink() else ""))
        return out

    def _is_our_link(self, p: Path) -> bool:
        return p.is_symlink() and os.readlink(p) == _link_target(p.name)

    def manifest(self) -> dict | None:
        """The manifest of the outputs in place (None: none)."""
        path = (self.state / CURRENT / MANIFEST) if self.linked else (self.folder / MANIFEST)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def clean(self) -> list[str]:
        """Remove what a killed run left: run folders not in use, a half-made ``current``
        link, and tol-score's links whose target is gone. Returns what was removed."""
        removed = []
        if self.state.is_dir():
            in_use = self._current_run()
            for item in self.state.iterdir():
                if item.name == CURRENT or item.name == "lock" or item.name == in_use:
                    continue
                if item.is_dir() and not item.is_symlink():
                    shutil.rmtree(item, ignore_errors=True)
                else:
                    item.unlink(missing_ok=True)
                removed.append(f"{STATE}/{item.name}")
        for name in OUR_NAMES:
            p = self.folder / name
            if p.is_symlink() and self._is_our_link(p) and not p.exists():
                p.unlink()
                removed.append(name)
        for probe in self.folder.glob(f"{_PROBE}*"):  # a check killed half-way (not one
            if time.time() - probe.lstat().st_mtime > 60:  # another run is making now)
                shutil.rmtree(probe, ignore_errors=True)
                removed.append(probe.name)
        return removed

    def _current_run(self) -> str | None:
        link = self.state / CURRENT
        return os.readlink(link) if link.is_symlink() else None

    def _take_lock(self) -> None:
        """One tol-score at a time per output folder (``flock`` on POSIX, ``msvcrt.locking`` on
        Windows; the operating system lets go of it if the process dies)."""
        self.state.mkdir(exist_ok=True)
        f = open(self.state / "lock", "a")  # noqa: SIM115 - held until release()
        try:
            try:
                import fcntl
            except ImportError:  # Windows
                import msvcrt

                f.seek(0)
                msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise OutputFolderError(
                f"another tol-score is writing to {self.folder} now.",
                where=str(self.folder),
                field="--output",
                value=str(self.folder),
                fix="wait for it to finish, or give another --output folder.",
            ) from None
        self._lock = f

    def release(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    # ------------------------------------------------------------------ writing
    def staging(self) -> Path:
        """A new, empty run folder to write the new outputs in (the output folder is made
        now, if missing)."""
        if not self.folder.exists():
            self._made = True
        self.state.mkdir(parents=True, exist_ok=True)
        if self._lock is None:
            self._take_lock()
        stamp = time.strftime("%Y%m%dT%H%M%S")
        run = Path(tempfile.mkdtemp(prefix=f"run-{stamp}-", dir=self.state))
        mask = os.umask(0)
        os.umask(mask)
        run.chmod(0o777 & ~mask)  # as a folder made by hand (mkdtemp makes it private)
        return run

    def commit(self, run: Path, written: list[Path], inputs=()) -> Committed:
        """Put the outputs written in ``run`` in place of the earlier ones (atomically where
        links work); return what was replaced, kept and left alone."""
        old = self.manifest()
        top = sorted({p.relative_to(run).parts[0] for p in written})
        out = Committed()
        out.kept = self._carry_over(old, run, top)
        files = sorted(str(p.relative_to(run).as_posix()) for p in written)
        manifest = {
            "software": f"tol-tasks {__version__}",
            "written_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "inputs": [str(p) for p in inputs],
            "top": [*top, MANIFEST],
            "files": files,
            "kept": out.kept,
        }
        (run / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        names = manifest["top"]
        earlier = list(old.get("top", [])) if old else []
        if self.linked:
            self._switch(run, names)
        else:
            self._replace_one_by_one(run, old, names)
        out.replaced = [n for n in earlier if n != MANIFEST]
        ours = set(names) | {STATE}
        out.left_alone = sorted(
            p.name + ("/" if p.is_dir() and not p.is_symlink() else "")
            for p in self.folder.iterdir() if p.name not in ours
        )  # fmt: skip
        return out

    def _carry_over(self, old: dict | None, run: Path, top: list[str]) -> list[str]:
        """Files of the lab's inside tol-score's folders of the set in place (not in its
        manifest): linked (or copied) into the new run folder, at the same place."""
        if not old:
            return []
        base = (self.state / CURRENT) if self.linked else self.folder
        listed = set(old.get("files", []))
        kept = []
        for name in old.get("top", []):
            root = base / name
            if name not in OUTPUT_FOLDERS or not root.is_dir():
                continue
            for p in sorted(root.rglob("*")):
                rel = p.relative_to(base).as_posix()
                if p.is_dir() or rel in listed:
                    continue
                target = run / rel
                if target.exists():  # the new scoring wrote a file of that name: the lab's
                    target = target.with_name(f"{target.stem} (kept){target.suffix}")
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(p, target)
                except OSError:
                    shutil.copy2(p, target)
                kept.append(target.relative_to(run).as_posix())
        for rel in kept:
            if rel.split("/")[0] not in top:
                top.append(rel.split("/")[0])
        top.sort()
        return kept

    def _switch(self, run: Path, names: list[str]) -> None:
        """Links for every name of the new set (dangling until the switch), then one atomic
        rename of ``current`` to the new run folder; then the earlier run folder, and links
        of names the new set does not have, are removed."""
        for name in names:
            p = self.folder / name
            if not p.is_symlink():
                os.symlink(_link_target(name), p)
        tmp = self.state / f"{CURRENT}.new-{run.name}"
        os.symlink(run.name, tmp)
        os.replace(tmp, self.state / CURRENT)  # the switch
        self.clean()

    def _replace_one_by_one(self, run: Path, old: dict | None, names: list[str]) -> None:
        """Without links: the earlier set's files (only those its manifest lists) removed,
        then the new set moved in, name by name. Not atomic as a set."""
        for rel in (old or {}).get("files", []) + [MANIFEST]:
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                (self.folder / rel).unlink()
        for name in (old or {}).get("top", []):
            p = self.folder / name
            if p.is_dir():
                for d in sorted((q for q in p.rglob("*") if q.is_dir()), reverse=True):
                    with contextlib.suppress(OSError):
                        d.rmdir()
                with contextlib.suppress(OSError):
                    p.rmdir()
        for name in names:
            src, dst = run / name, self.folder / name
            if src.is_dir() and dst.is_dir():  # the lab's files left in it
                for q in sorted(src.rglob("*")):
                    t = dst / q.relative_to(src)
                    if q.is_dir():
                        t.mkdir(exist_ok=True)
                    else:
                        os.replace(q, t)
            else:
                os.replace(src, dst)
        shutil.rmtree(run, ignore_errors=True)

    def discard(self, run: Path) -> None:
        """Remove a run folder (after an error: the outputs in place stay as they were)."""
        shutil.rmtree(run, ignore_errors=True)

    def abandon(self, run: Path) -> None:
        """Remove a run folder before anything was committed; when :meth:`staging` made the
        output folder, remove it again too (as it was: missing), if nothing else is in it."""
        self.discard(run)
        if not self._made:
            return
        self.release()
        shutil.rmtree(self.state, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.folder.rmdir()  # only when empty

    def visible(self, run: Path, path: Path) -> Path:
        """Where a file written in ``run`` is seen in the output folder."""
        return self.folder / path.relative_to(run)


def _link_target(name: str) -> str:
    return f"{STATE}/{CURRENT}/{name}"


def _beside(item: Path) -> str:
    return str(item.parent / f"{item.name}-scored") if item.name else "scored"


def _writable(folder: Path) -> bool:
    """Whether files can be made in ``folder`` (tried: permissions alone do not say it for
    root, a read-only file system or a full quota)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    try:
        os.rmdir(tempfile.mkdtemp(prefix=_PROBE, dir=folder))
    except OSError:
        return False
    return True


def writes(
    plots: bool = False, report: bool = False, bids: bool = False, spss: bool = False
) -> list[str]:
    """The names a scoring with these outputs may write at the top of its folder."""
    spss_files = ("wide.sav", "trials.sav")
    names = [n for n in OUTPUT_FILES if spss or n not in spss_files]
    names += [f for f, asked in (("plots", plots), ("reports", report), ("bids", bids)) if asked]
    return [*names, MANIFEST]
