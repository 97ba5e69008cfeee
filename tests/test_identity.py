"""One rule for participant ids and session numbers: every command and the browser agree.

The rule lives in ``tol_tasks/session_data/identity.py``; the browser gets it compiled
into its data by ``tol-web build``. Here the same values go through Python and through
the browser's own JavaScript (node), and through each command as a person types them.
"""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from tests.system_tools import program
from tests.test_web_js import SRC
from tol_tasks.cli import run_main
from tol_tasks.importers.cli import main as import_main
from tol_tasks.protocol_format import load_protocol
from tol_tasks.session_data.identity import (
    MAX_SESSION,
    ParticipantIdError,
    SessionNumberError,
    check_participant_id,
    participant_fault,
    session_fault,
    session_from_text,
)
from tol_tasks.session_data.pieces import UPLOAD_FORMAT, UploadRefusedError, check_piece
from tol_tasks.web import compile_protocol
from tol_tasks.web.cli import main as web_main

NAMED_IDS = ["P001", "P001\n", "P001 ", " P001", "Jé an/1", "a..b", "a.b", "_P1", "P_1-2.3",
             "", "x" * 64, "x" * 65, "P\u200b1", "P\r", "1", "-", "P1\u00a0", "ÄB", "a/b",
             "a\\b", "P1\x00", "p\tq"]  # fmt: skip
NAMED_SESSIONS = ["1", "01", "0", "2147483647", "2147483648", "99999999999999999999", "1e3",
                  " 2", "2 ", "+2", "-1", "2_0", "", "3.0", "٣", "0x10", "12345678901"]  # fmt: skip


def _random_texts(rng: random.Random, alphabet: str, n: int) -> list[str]:
    return ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 70))) for _ in range(n)]


def _js_answers(ids: list[str], sessions: list[str]) -> dict:
    proto = compile_protocol(load_protocol("demo"))
    script = (
        "import { checkParticipant, sessionFromText } from "
        + json.dumps((SRC / "params.js").as_uri()) + ";\n"
        "import { readFileSync } from 'node:fs';\n"
        "const input = JSON.parse(readFileSync(0, 'utf8'));\n"
        "process.stdout.write(JSON.stringify({\n"
        "  ids: input.ids.map((id) => checkParticipant(input.proto, id)),\n"
        "  sessions: input.sessions.map((t) => sessionFromText(input.proto, t)),\n"
        "}));\n"
    )  # fmt: skip
    done = subprocess.run([program("node"), "--input-type=module", "-e", script],
                          input=json.dumps({"proto": proto, "ids": ids, "sessions": sessions}),
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _py_session(text: str) -> int | None:
    try:
        return session_from_text(text)
    except SessionNumberError:
        return None


def test_python_and_the_browser_give_the_same_answers(rng):
    ids = NAMED_IDS + _random_texts(rng, "aZ09_.-. /\n\té\u200b..", 300)
    ids += _random_texts(rng, "aZ09aZ09_.-", 300)  # mostly ids the rule takes
    sessions = NAMED_SESSIONS + _random_texts(rng, "0123456789 +-.e_", 200)[:200]
    sessions += [str(rng.randrange(0, 2**32)) for _ in range(100)]
    js = _js_answers(ids, sessions)
    assert js["ids"] == [participant_fault(i) is None for i in ids]
    assert js["sessions"] == [_py_session(t) for t in sessions]
    assert sum(js["ids"]) > 20  # both kinds of answer, many times
    assert sum(v is not None for v in js["sessions"]) > 20


@pytest.mark.parametrize(
    ("pid", "named"),
    [("P001\n", "a newline (U+000A) at its end"), ("P001 ", "' ' (a space) at its end"),
     ("Jé an/1", "'é' (U+00E9) at position 2"), ("a..b", "'..' at position 2")],
)  # fmt: skip
def test_each_refusal_names_the_offending_character(pid, named):
    with pytest.raises(ParticipantIdError) as err:
        check_participant_id(pid)
    assert named in str(err.value)
    assert err.value.field == "participant"
    assert err.value.value == pid


def test_tol_run_refuses_a_bad_participant_or_session_before_anything(tmp_path, capsys):
    out = tmp_path / "data"
    assert run_main(["demo", "--participant", "P001\n", "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert "contains a newline (U+000A) at its end" in err
    assert "Traceback" not in err
    with pytest.raises(SystemExit) as ex:
        run_main(["demo", "--participant", "P1", "--session", "99999999999999999999"])
    assert ex.value.code == 2
    assert "has 20 digits" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_main(["demo", "--participant", "P1", "--session", str(MAX_SESSION + 1)])
    assert f"is not between 1 and {MAX_SESSION}" in capsys.readouterr().err
    assert not out.exists()


def test_tol_import_uses_the_same_rule(tmp_path, capsys):
    src = tmp_path / "t.csv"
    src.write_text("participant,x\nP 1,1\n")
    with pytest.raises(SystemExit) as ex:
        import_main([str(src), "--format", "pebl-tol", "--participant", "P 1",
                     "--output", str(tmp_path / "o")])  # fmt: skip
    assert ex.value.code == 2
    assert "' ' (a space) at position 2" in capsys.readouterr().err


def _piece_refusal(participant, session) -> str | None:
    piece = {"format": UPLOAD_FORMAT, "attempt": "A" * 22, "participant": participant,
             "session": session, "first_row": 1, "rows": ""}  # fmt: skip
    try:
        check_piece(piece, protocol_sha256=None)
    except UploadRefusedError as err:
        return str(err)
    return None


def test_the_collection_server_uses_the_same_rule():
    for pid in NAMED_IDS:
        refusal = _piece_refusal(pid, 1)
        fault = participant_fault(pid)
        assert (refusal is None) == (fault is None), pid
        assert fault is None or fault in refusal
    for text in NAMED_SESSIONS:
        value = int(text) if text.isascii() and text.isdigit() else text
        refused = _piece_refusal("P001", value) is not None
        assert refused == (session_fault(value) is not None), text


def test_tol_web_build_uses_the_same_session_bound(tmp_path, capsys):
    code = web_main(["build", "demo", "--download", "--session", str(MAX_SESSION + 1),
                     "--output", str(tmp_path / "site")])  # fmt: skip
    assert code == 2
    assert f"is not between 1 and {MAX_SESSION}" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()
