// The plugin alone, for a page that loads jsPsych itself (window.jsPsychModule):
//   <script src="https://unpkg.com/jspsych@8"></script>
//   <script src="plugin-tower.js"></script>   -> window.jsPsychTower
import { TowerSession } from "./embed.js";
import { TowerPlugin, TowerSessionPlugin } from "./plugin.js";

export * from "./lib.js";
export { TowerPlugin, TowerSession, TowerSessionPlugin };

export function createSession(options) {
  return new TowerSession(options);
}
