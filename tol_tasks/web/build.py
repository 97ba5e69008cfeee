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

from .compile import browser_issues, compile_protocol, image_names

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
    post_url: str | None = _opt(
        "send the event log and sidecar to this URL (POST, JSON) instead of downloading them",
        default=None,
    )
    completion_url: str | None = _opt(
        "after the data are saved, go to this URL; {NAME} is replaced by the URL parameter "
        "NAME (e.g. Prolific's completion link, SONA's credit link with survey_code={id})",
        default=None,
    )
    jatos: bool = _opt("load JATOS's jatos.js, to run as a JATOS study (data go to JATOS)",
                       default=False)  # fmt: skip

    def check(self, lp: LoadedProtocol) -> None:
        """Raise :class:`WebBuildError` for a setting that cannot work."""
        for name in ("participant_param", "session_param", "language_param"):
            value = getattr(self, name)
            if not _PARAM_RE.match(value or ""):
                raise WebBuildError(
                    f"--{name.replace('_', '-')} {value!r} is not a URL parameter name. "
                    "Suggested fix: use 1 to 64 letters, digits, '_', '.' or '-' (e.g. PROLIFIC_PID)."
                )
        if isinstance(self.session, bool) or not isinstance(self.session, int) or self.session < 1:
            raise WebBuildError(
                f"--session {self.session!r} is not a session number. Suggested fix: give a "
                "whole number from 1."
            )
        if self.language is not None and self.language not in lp.languages():
            raise WebBuildError(
                f"--language {self.language!r}: the protocol {lp.name!r} has no texts in it. "
                f"Suggested fix: choose one of {', '.join(lp.languages())}."
            )
        for name in ("post_url", "completion_url"):
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


def setting_fields():
    """The settings with their help texts (``tol-web build`` derives its options from them)."""
    return fields(WebSettings)


@dataclass
class BuildResult:
    """What a build wrote."""

    folder: Path
    files: list[Path]
    protocol: LoadedProtocol


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
                     settings: WebSettings | None = None, *, force: bool = False) -> BuildResult:  # fmt: skip
    """Write the static experiment folder of ``protocol`` into ``output``.

    Parameters
    ----------
    protocol : str, Path or LoadedProtocol
        A protocol file or a bundled protocol's name.
    output : str or Path
        A folder that does not exist or is empty (any folder with ``force``).
    settings : WebSettings, optional
    force : bool
        Build into a folder that already holds files (the build's own are replaced).

    Raises
    ------
    ProtocolError
        A protocol with faults, or one that asks what a browser cannot do.
    WebBuildError
        A bad setting, an output folder in use, a missing bundle.
    """
    settings = settings or WebSettings()
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
        (out / "index.html").write_text(index_html(lp, settings), encoding="utf-8")
    except OSError as exc:
        raise WebBuildError(
            f"{out}: cannot be written ({exc.strerror}). Suggested fix: choose a folder you can "
            "write to."
        ) from None
    written += [out / name for name in BUILT_FILES]
    return BuildResult(out, written, lp)


def index_html(lp: LoadedProtocol, settings: WebSettings) -> str:
    """The page: the bundle, JATOS's script when asked, and the call that starts the session."""
    config = json.dumps({"protocol": "protocol.json", "settings": settings.as_json()}, indent=2)
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
