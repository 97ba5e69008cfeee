// Builds the two bundles into the Python package (tol_tasks/web/static/), where
// tol-web build finds them and the wheel carries them:
//   tol-tasks.js     jsPsych and the task, for the page tol-web build writes (window.TolTasks)
//   plugin-tower.js  the plugin alone, for a page that loads jsPsych itself (window.jsPsychTower)
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { build } from "esbuild";

// What the JavaScript takes from Python (the participant texts, the protocol schema's
// fields) is written first into src/generated/ (git-ignored) by tol_tasks.web.jsdata, with
// $PYTHON, else the checkout's .venv, else python3: declared once, never copied by hand.
const venv = new URL("../.venv/bin/python", import.meta.url).pathname;
const python = process.env.PYTHON || (existsSync(venv) ? venv : "python3");
const root = new URL("..", import.meta.url).pathname;
execFileSync(python, ["-m", "tol_tasks.web.jsdata", new URL("./src/generated", import.meta.url).pathname],
  { cwd: root, stdio: "inherit" });
if (process.argv.includes("--generate-only")) process.exit(0);

// The version is declared once, in the Python package (tol_tasks/__init__.py), and so
// is the compiled protocol's format (tol_tasks/web/compile.py COMPILED_FORMAT).
const init = readFileSync(new URL("../tol_tasks/__init__.py", import.meta.url), "utf8");
const version = /^__version__\s*=\s*"([^"]+)"/m.exec(init)[1];
const compiler = readFileSync(new URL("../tol_tasks/web/compile.py", import.meta.url), "utf8");
const compiledFormat = Number(/^COMPILED_FORMAT\s*=\s*(\d+)/m.exec(compiler)[1]);
const jspsych = JSON.parse(readFileSync(new URL("./node_modules/jspsych/package.json", import.meta.url), "utf8")).version;
const out = new URL("../tol_tasks/web/static/", import.meta.url).pathname;

const common = {
  bundle: true,
  format: "iife",
  target: ["es2020"],
  legalComments: "eof",
  define: {
    __TOL_TASKS_VERSION__: JSON.stringify(version),
    __JSPSYCH_VERSION__: JSON.stringify(jspsych),
    __TOL_COMPILED_FORMAT__: JSON.stringify(compiledFormat),
  },
  logLevel: "warning",
};

await build({ ...common, entryPoints: ["src/index.js"], globalName: "TolTasks", outfile: `${out}tol-tasks.js` });
await build({
  ...common,
  entryPoints: ["src/plugin-entry.js"],
  globalName: "jsPsychTower",
  outfile: `${out}plugin-tower.js`,
  alias: { jspsych: "./src/jspsych-global.js" },
});
console.log(`built ${out}tol-tasks.js and ${out}plugin-tower.js (tol-tasks ${version}, jsPsych ${jspsych})`);
