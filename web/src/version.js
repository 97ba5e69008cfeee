// Versions written into each sidecar; build.mjs fills them in (esbuild define).
/* global __TOL_TASKS_VERSION__, __JSPSYCH_VERSION__ */
export const VERSION = typeof __TOL_TASKS_VERSION__ !== "undefined" ? __TOL_TASKS_VERSION__ : "dev";
export const JSPSYCH_VERSION = typeof __JSPSYCH_VERSION__ !== "undefined" ? __JSPSYCH_VERSION__ : null;
