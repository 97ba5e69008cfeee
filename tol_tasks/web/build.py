"""``tol-web build``: a protocol as a static experiment folder for any web server.

The folder holds ``index.html``, ``tol-tasks.js`` (the task and jsPsych in
one bundle, shipped inside the Python package), ``protocol.json``
(:func:`~tol_tasks.web.compile.compile_protocol`) and the instruction images
under ``images/``. Nothing else is fetched at run time.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from dataclasses import asdict, dataclass, field, fields
from importlib import resources
from pathlib import Path
from urllib.parse import urlparse

from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.load import load_protocol
from tol_tasks.protocol_format.model import LoadedProtocol, ProtocolError
from tol_tasks.session_data.identity import MAX_SESSION, session_fault
from tol_tasks.session_data.pieces import STUDY_RE

from .compile import browser_issues, compile_protocol, image_names
from .jatos import write_jzip
from .studies import Study, StudyError, check_study_name, new_token, read_study, write_study

#: The bundle with jsPsych inside, and the plugin alone (for a researcher's own jsPsych page).
BUNDLE = "tol-tasks.js"
PLUGIN_BUNDLE = "plugin-tower.js"

#: What a build writes at the top of its folder.
BUILT_FILES = ("index.html", BUNDLE, "protocol.json")

#: URL parameter names: what a query string can carry unescaped.
_PARAM_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class WebBuildError(TolTasksError, ValueError):
    """A web build cannot be made; the message names the value and the fix."""


def _opt(help: str, flag: str | None = None, **kw):
    return field(metadata={"help": help, "flag": flag}, **kw)


@dataclass(frozen=True)
class WebSettings:
    """How a built page finds its participant and where its data go.

    Each field is one ``tol-web build`` option (its name with dashes).
    """

    participant_param: str = _opt(
        "URL parameter that holds the participant id (Prolific: PROLIFIC_PID; SONA: id)",
        default="participant",
    )
    session_param: str = _opt("URL parameter that holds the session number", default="session")
    language_param: str = _opt("URL parameter that chooses the language", default="lang")
    session: int = _opt("session number when the URL gives none", default=1)
    language: str | None = _opt("language when the URL gives none (the protocol's default)",
                                default=None)  # fmt: skip
    server: str | None = _opt(
        "send the data to this collection server (tol-web serve) as the session goes: its "
        "address, e.g. https://tol.example.org, or / when tol-web serve serves this page itself",
        default=None,
    )
    study: str | None = _opt(
        "with --server: the study's name on the server (default: the output folder's name)",
        default=None,
    )
    token: str | None = _opt(
        "with --server: the study's upload token (default: the one of an earlier build into "
        "the same folder, else a new random one)",
        default=None,
    )
    jatos: bool = _opt("run as a JATOS study: each trial is appended to the JATOS result; "
                       "also writes OUTPUT.jzip, which JATOS imports", default=False)  # fmt: skip
    download: bool = _opt(
        "piloting only: nothing is collected, the data files are downloaded to the "
        "participant's computer at the end (the page says so)",
        default=False,
    )
    completion_url: str | None = _opt(
        "after the data are saved, go to this URL; {NAME} is replaced by the URL parameter "
        "NAME (e.g. Prolific's completion link, SONA's credit link with survey_code={id})",
        default=None,
    )

    @property
    def destination(self) -> str | None:
        """Where the data go: ``server``, ``jatos`` or ``download`` (None: not chosen)."""
        chosen = [d for d, on in (("server", self.server is not None), ("jatos", self.jatos),
                                  ("download", self.download)) if on]  # fmt: skip
        return chosen[0] if len(chosen) == 1 else None

    def check(self, lp: LoadedProtocol) -> None:
        """Raise :class:`WebBuildError` for a setting that cannot work."""
        for name in ("participant_param", "session_param", "language_param"):
            value = getattr(self, name)
            if not _PARAM_RE.match(value or ""):
                raise WebBuildError(
                    f"--{name.replace('_', '-')} {value!r} is not a URL parameter name. "
                    "Suggested fix: use 1 to 64 letters, digits, '_', '.' or '-' (e.g. PROLIFIC_PID)."
                )
        fault = session_fault(self.session)
        if fault is not None:
            raise WebBuildError(
                f"--session {self.session!r} is not a session number: it {fault} Suggested fix: "
                f"give a whole number from 1 to {MAX_SESSION}."
            )
        if self.language is not None and self.language not in lp.languages():
            raise WebBuildError(
                f"--language {self.language!r}: the protocol {lp.name!r} has no texts in it. "
                f"Suggested fix: choose one of {', '.join(lp.languages())}."
            )
        chosen = [f for f, on in (("--server", self.server is not None), ("--jatos", self.jatos),
                                  ("--download", self.download)) if on]  # fmt: skip
        if len(chosen) != 1:
            what = "none was given" if not chosen else f"{' and '.join(chosen)} were given"
            raise WebBuildError(
                f"a study page needs one destination for its data, and {what}. Suggested fix: "
                "add --server URL (a collection server, tol-web serve), --jatos (a JATOS "
                "study), or, to pilot the page only, --download (nothing is collected: the "
                "files are downloaded to the participant's computer)."
            )  # fmt: skip
        for name in ("study", "token"):
            if getattr(self, name) is not None and self.server is None:
                raise WebBuildError(
                    f"--{name} applies to a study on a collection server only. Suggested fix: "
                    f"add --server URL, or leave out --{name}."
                )  # fmt: skip
        if self.study is not None:
            check_study_name(self.study)
        if self.token is not None and not re.match(r"^[A-Za-z0-9_-]{16,128}\Z", self.token):
            raise WebBuildError(
                f"--token {self.token!r} is not a study token. Suggested fix: 16 to 128 letters, "
                "digits, '-' or '_' (or leave it out: the build draws one)."
            )  # fmt: skip
        for name in ("server", "completion_url"):
            url = getattr(self, name)
            if url is None:
                continue
            parts = urlparse(url)
            relative = not parts.scheme and not parts.netloc and url.startswith(("/", "."))
            if not (parts.scheme in ("http", "https") and parts.netloc) and not relative:
                raise WebBuildError(
                    f"--{name.replace('_', '-')} {url!r} is not a web address. Suggested fix: "
                    "give a full http(s):// address, or a path on the same server such as "
                    "/save or ./save."
                )

    def as_json(self) -> dict:
        return asdict(self)

    def page(self, study: Study | None) -> dict:
        """What the page reads (index.html): where the participant comes from, where the data go."""
        keep = ("participant_param", "session_param", "language_param", "session", "language",
                "completion_url")  # fmt: skip
        out = {k: getattr(self, k) for k in keep}
        out["destination"] = self.destination
        if study is not None:
            out["upload_url"] = f"{self.server.rstrip('/')}/api/{study.name}/upload"
            out["token"] = study.token
        return out


def setting_fields():
    """The settings with their help texts (``tol-web build`` derives its options from them)."""
    return fields(WebSettings)


@dataclass
class BuildResult:
    """What a build wrote: the folder, its files, and for a server its study, for JATOS the archive."""

    folder: Path
    files: list[Path]
    protocol: LoadedProtocol
    destination: str = "download"
    study: Study | None = None
    archive: Path | None = None

    def summary(self) -> str:
        """What ``tol-web build`` prints: what was built, and where its data go."""
        head = f"tol-web: {self.protocol.name} built in {self.folder}/ ({len(self.files)} files)."
        if self.destination == "server":
            return (f"{head} Its data go to {self.study.name!r} on the collection server: serve "
                    f"it with `tol-web serve {self.folder} --data DATA` (docs/online.md).")  # fmt: skip
        if self.destination == "jatos":
            return (f"{head} JATOS archive: {self.archive} (in JATOS: Import study). Its data go "
                    "to JATOS; turn the result export into logs with `tol-import --format jatos`.")  # fmt: skip
        return (f"{head} PILOT BUILD: this page collects nothing; each participant's browser "
                "downloads the data files. For a study, build with --server URL or --jatos.")  # fmt: skip


def bundle_path(name: str = BUNDLE) -> Path:
    """The built JavaScript shipped in the package.

    Raises
    ------
    WebBuildError
        When it is missing (a checkout where the bundle was never built).
    """
    path = Path(str(resources.files("tol_tasks.web").joinpath("static", name)))
    if not path.is_file():
        raise WebBuildError(
            f"the browser bundle {path} is missing: this copy of tol-tasks was installed from a "
            "checkout in which the JavaScript was never built. Suggested fix: run `bash "
            "scripts/setup.sh` in the checkout (or `npm --prefix web ci && npm --prefix web run "
            "build`, which needs Node.js), or install tol-tasks from a wheel, which carries it."
        )
    return path


def build_experiment(protocol: str | Path | LoadedProtocol, output: str | Path,
                     settings: WebSettings | None, *, force: bool = False) -> BuildResult:  # fmt: skip
    """Write the static experiment folder of ``protocol`` into ``output``.

    Parameters
    ----------
    protocol : str, Path or LoadedProtocol
        A protocol file or a bundled protocol's name.
    output : str or Path
        A folder that does not exist or is empty (any folder with ``force``).
    settings : WebSettings
        Where the participant comes from and where the data go (one of
        ``server``, ``jatos``, ``download`` must be chosen).
    force : bool
        Build into a folder that already holds files (the build's own are replaced).

    Raises
    ------
    ProtocolError
        A protocol with faults, or one that asks what a browser cannot do.
    WebBuildError
        A bad setting, an output folder in use, a missing bundle.
    """
    if settings is None:
        raise WebBuildError(
            "a study page needs one destination for its data. Suggested fix: give settings "
            "with server=URL, jatos=True, or (piloting) download=True."
        )  # fmt: skip
    lp = protocol if isinstance(protocol, LoadedProtocol) else load_protocol(protocol)
    issues = browser_issues(lp)
    if issues:
        raise ProtocolError(issues)
    settings.check(lp)
    bundle = bundle_path()
    out = Path(output)
    if out.exists() and not out.is_dir():
        raise WebBuildError(f"--output {out} is a file. Suggested fix: give a folder.")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise WebBuildError(
            f"--output {out} already holds files. Suggested fix: give a new or empty folder, "
            "or add --force to replace the build's own files in it."
        )
    study = _study(lp, out, settings) if settings.destination == "server" else None
    images = image_names(lp)
    compiled = compile_protocol(lp, images=images)
    try:
        out.mkdir(parents=True, exist_ok=True)
        written = []
        base = lp.path.parent if lp.path else None
        for source, target in images.items():
            dest = out / target
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(base / source, dest)
            written.append(dest)
        shutil.copyfile(bundle, out / BUNDLE)
        (out / "protocol.json").write_text(
            json.dumps(compiled, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        (out / "index.html").write_text(index_html(lp, settings, study), encoding="utf-8")
        if study is not None:
            written.append(write_study(out, study))
        archive = write_jzip(out, lp) if settings.jatos else None
    except OSError as exc:
        raise WebBuildError(
            f"{out}: cannot be written ({exc.strerror}). Suggested fix: choose a folder you can "
            "write to."
        ) from None
    written += [out / name for name in BUILT_FILES]
    return BuildResult(out, written, lp, settings.destination, study, archive)


def _study(lp: LoadedProtocol, out: Path, settings: WebSettings) -> Study:
    """The study a server build makes: its name, and its token (kept across rebuilds)."""
    name = settings.study
    if name is None:
        name = out.resolve().name.lower()
        if not STUDY_RE.match(name):
            raise WebBuildError(
                f"the output folder's name {out.resolve().name!r} cannot name a study on a "
                "server. Suggested fix: give --study NAME (lower-case letters, digits, '-', '_')."
            )  # fmt: skip
    token = settings.token
    if token is None:
        try:
            earlier = read_study(out)
        except StudyError:
            earlier = None
        token = earlier.token if earlier is not None and earlier.name == name else new_token()
    return Study(name, token, lp.name, lp.sha256, out)


def index_html(lp: LoadedProtocol, settings: WebSettings, study: Study | None = None) -> str:
    """The page: the bundle, JATOS's script when asked, and the call that starts the session."""
    config = json.dumps({"protocol": "protocol.json", "settings": settings.page(study)}, indent=2)
    config = config.replace("</", "<\\/")  # a value cannot close the script element
    jatos = '\n  <script src="jatos.js"></script>' if settings.jatos else ""
    title = html.escape(lp.model.description.strip().split("\n")[0][:80] or lp.name)
    lang = html.escape(settings.language or lp.model.instructions.default_language)
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1, user-scalable=no">
  <title>{html.escape(lp.name)}</title>
  <link rel="icon" href="data:,">
  <meta name="description" content="{title}">
  <script src="{BUNDLE}"></script>{jatos}
</head>
<body>
  <noscript>This task needs JavaScript.</noscript>
  <!-- Built by tol-web build from the protocol {html.escape(lp.name)} (SHA-256 {lp.sha256}). -->
  <script>
    TolTasks.startExperiment({config});
  </script>
</body>
</html>
"""
