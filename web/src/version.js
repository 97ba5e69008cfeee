// Versions written into each sidecar, and the compiled protocol's format the
// page reads; build.mjs fills them in from the Python package (esbuild define).
/* global __TOL_TASKS_VERSION__, __JSPSYCH_VERSION__, __TOL_COMPILED_FORMAT__ */
export const VERSION = typeof __TOL_TASKS_VERSION__ !== "undefined" ? __TOL_TASKS_VERSION__ : "dev";
export const JSPSYCH_VERSION = typeof __JSPSYCH_VERSION__ !== "undefined" ? __JSPSYCH_VERSION__ : null;
// The version of protocol.json this bundle reads (COMPILED_FORMAT in tol_tasks/web/compile.py).
export const COMPILED_FORMAT = typeof __TOL_COMPILED_FORMAT__ !== "undefined" ? __TOL_COMPILED_FORMAT__ : null;
