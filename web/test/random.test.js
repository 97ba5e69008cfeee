// Python's Mersenne Twister and shuffle; SHA-256; counterbalanced forms.
// Expected values were printed by CPython (random.Random(seed).shuffle(list(range(10))),
// hashlib.sha256); tests/test_web_js.py compares many more against Python directly.
import assert from "node:assert/strict";
import { test } from "node:test";
import { assignmentIndex, formFor } from "../src/counterbalance.js";
import { PythonRandom, blockOrder } from "../src/random.js";
import { sha256Hex } from "../src/sha256.js";

const shuffled = (seed) => new PythonRandom(seed).shuffle([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

test("one seed, one order: Python's shuffle", () => {
  assert.deepEqual(shuffled(0), [7, 8, 1, 5, 3, 4, 2, 0, 9, 6]);
  assert.deepEqual(shuffled(7), [8, 3, 1, 4, 7, 0, 9, 6, 2, 5]);
  assert.deepEqual(shuffled(2 ** 31 - 1), [8, 7, 4, 0, 6, 9, 2, 3, 1, 5]);
  assert.deepEqual(shuffled("1099511627779"), [8, 5, 6, 7, 9, 2, 4, 1, 0, 3]);
  assert.deepEqual(shuffled(-5), [2, 3, 1, 0, 8, 7, 6, 5, 4, 9]);
});

test("block orders: fixed in file order, shuffled with the seed given or a drawn one", () => {
  assert.deepEqual(blockOrder(4, "fixed", null), [[0, 1, 2, 3], null]);
  assert.deepEqual(blockOrder(10, "shuffled", 7)[0], [8, 3, 1, 4, 7, 0, 9, 6, 2, 5]);
  const [order, seed] = blockOrder(10, "shuffled", null);
  assert.ok(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31);
  assert.deepEqual(order, shuffled(seed));
});

test("SHA-256 of UTF-8 text", () => {
  assert.equal(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(sha256Hex("été"), "bd010c64132bf5cae8aea89f6762515727dcf68a5dd1de813c87f50a16c4513c");
  assert.equal(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
});

test("forms by session, by the id's number, else by the id's hash", () => {
  assert.equal(assignmentIndex("session", "X", 1, 3), 0);
  assert.equal(assignmentIndex("session", "X", 5, 3), 1);
  assert.equal(assignmentIndex("participant", "P007", 1, 4), 2);
  assert.equal(assignmentIndex("participant", "P0", 1, 4), 3);
  const cb = { by: "session", forms: [{ name: "a", blocks: ["x", "y"] }, { name: "b", blocks: ["y", "x"] }] };
  assert.deepEqual(formFor(cb, ["x", "y"], "P1", 2), ["b", [1, 0]]);
  assert.deepEqual(formFor(null, ["x", "y", "z"], "P1", 1), [null, [0, 1, 2]]);
});
