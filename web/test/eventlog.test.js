// The log writer: columns from the codebook, cells and quoting as Python's csv module writes them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { formatDetail, parseDetail } from "../src/detail.js";
import { COLUMNS, EventLog, HEADER, cellText, csvLine } from "../src/eventlog.js";
import { frameDetail, frameStats, percentile } from "../src/frames.js";
import { fsum, pyFixed, pyFormatG } from "../src/pyformat.js";

const codebook = JSON.parse(readFileSync(new URL("../../tol_tasks/session_data/codebook/events-v3.json", import.meta.url)));

test("the header is the codebook's columns", () => {
  assert.deepEqual(COLUMNS, codebook.columns.map((c) => c.name));
  assert.equal(HEADER, COLUMNS.join(",") + "\n");
});

test("cells: floats with six decimals, booleans 1/0, empty for null, line breaks as spaces", () => {
  assert.equal(cellText("time", 1.5), "1.500000");
  assert.equal(cellText("time", 0), "0.000000");
  assert.equal(cellText("moves", 3), "3");
  assert.equal(cellText("detail", null), "");
  assert.equal(cellText("detail", true), "1");
  assert.equal(cellText("detail", "a\r\nb\nc\rd"), "a b c d");
  assert.equal(csvLine(["a,b", 'say "hi"', "plain"]), '"a,b","say ""hi""",plain\n');
});

test("numbers round as Python rounds them (exact ties to even)", () => {
  assert.equal(pyFixed(0.0625, 3), "0.062");
  assert.equal(pyFixed(0.0078125, 6), "0.007812");
  assert.equal(pyFixed(2.5, 0), "2");
  assert.equal(pyFixed(16.6875, 3), "16.688");
  assert.equal(pyFixed(-0.0001, 3), "-0.000");
  assert.equal(pyFormatG(120), "120");
  assert.equal(pyFormatG(123.4567), "123.457");
  assert.equal(pyFormatG(1e-5), "1e-05");
  assert.equal(pyFormatG(1234567), "1.23457e+06");
  assert.equal(fsum([0.1, 0.2, 0.3, -0.6]), 2.7755575615628914e-17); // Python's math.fsum
  assert.equal(fsum([1e100, 1.0, -1e100, 1e-100]), 1.0);
});

test("rows are numbered from 1, carry participant and session, and refuse unknown columns", () => {
  const kept = [];
  const log = new EventLog({ participant: "P1", session: 2, onRow: (line, row) => kept.push([row, line]) });
  assert.equal(log.write("session_start", { time: 0, detail: "protocol=demo;sha256=x" }), 1);
  assert.equal(log.write("trial_onset", { time: 1.25, trial_time: 0.0, block: "test", trial: 1, stamp: "flip" }), 2);
  assert.throws(() => log.write("pick_up", { colour: "red" }), /not event log columns: colour/);
  assert.throws(() => log.write("jump"), /not an event/);
  const lines = log.text().split("\n");
  assert.equal(lines[0], COLUMNS.join(","));
  const cells = lines[2].split(",");
  assert.equal(cells[COLUMNS.indexOf("row")], "2");
  assert.equal(cells[COLUMNS.indexOf("participant")], "P1");
  assert.equal(cells[COLUMNS.indexOf("session")], "2");
  assert.equal(cells[COLUMNS.indexOf("time")], "1.250000");
  assert.equal(cells[COLUMNS.indexOf("trial_time")], "0.000000");
  assert.deepEqual(kept.map(([row]) => row), [1, 2]);
  const resumed = new EventLog({ participant: "P1", session: 2, lines: log.lines });
  assert.equal(resumed.write("resume", { time: 3 }), 3);
});

test("the detail codec writes and reads key=value pairs; a value may hold ';'", () => {
  assert.equal(formatDetail({ order: "p1,p2", seed: 7 }), "order=p1,p2;seed=7");
  assert.equal(formatDetail({ seed: null, t: { float: 120 } }), "seed=None;t=120.000");
  assert.deepEqual(parseDetail("text=Solved in 5 moves; the fewest possible is 3."), {
    text: "Solved in 5 moves; the fewest possible is 3.",
  });
});

test("frame statistics as the lab computes them", () => {
  const intervals = [0.016, 0.017, 0.05, 0.016];
  const s = frameStats(intervals, 60, [0.001, 0.002, 0.003]);
  assert.equal(s.frames, 5);
  assert.equal(s.dropped_frames, 1);
  assert.equal(s.period_source, "refresh");
  assert.equal(s.frame_period_ms, 16.667);
  assert.equal(s.frame_interval_max_ms, 50);
  assert.equal(percentile([5, 1, 3], 99), 5);
  assert.equal(frameStats(intervals, 1000).period_source, "median");
  assert.deepEqual(frameStats([], 60), { frames: 0, dropped_frames: 0 });
  assert.match(frameDetail(s), /^frames=5;dropped_frames=1;frame_period_ms=16\.667;period_source=refresh;frame_interval_mean_ms=24\.750;frame_interval_max_ms=50\.000;frame_work_median_ms=2\.000;/);
});
