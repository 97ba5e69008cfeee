// The plugin bundle's "jspsych": the page's own jsPsych (its browser build sets window.jsPsychModule).
const mod = globalThis.jsPsychModule;
if (!mod) {
  throw new Error("plugin-tower.js needs jsPsych 8 loaded before it (window.jsPsychModule is missing).");
}
export const ParameterType = mod.ParameterType;
export const initJsPsych = mod.initJsPsych;
