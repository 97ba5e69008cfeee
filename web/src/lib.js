// What both bundles export besides the plugins: the pure parts, for scripts and tests.
export { assignmentIndex, formFor } from "./counterbalance.js";
export { formatDetail, parseDetail } from "./detail.js";
export { COLUMNS, EVENT_LOG_VERSION, EventLog, logText } from "./eventlog.js";
export { frameStats, frameSummary } from "./frames.js";
export { labelColor } from "./defaults.js";
export { pageView, pieceSize, pieceXY, planningScreen, screenLayout } from "./layout.js";
export { progressOf, sessionPlan } from "./plan.js";
export { attentionLosses, runWarnings } from "./quality.js";
export { Hanoi, London, fromCode, shortestPath } from "./puzzle.js";
export { PythonRandom, blockOrder } from "./random.js";
export { runSession } from "./session.js";
export { SessionDriver } from "./driver.js";
export { CopyRun, inTimeOrder, PlanningRun, ProblemRun } from "./trialrun.js";
export { sha256Hex } from "./sha256.js";
export { CopyState, TrialState } from "./trial.js";
export { VERSION } from "./version.js";
