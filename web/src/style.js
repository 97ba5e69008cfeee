// The page's look, injected once: a stage of absolutely placed boxes, no
// scrolling or selection, and touch-action: none so that a touch is never a pan or a zoom.
// The page's own screens (id form, messages, end) are a light panel whatever the
// protocol's background, every text at WCAG AA contrast or better (tested).

const CSS = `
html, body { margin: 0; height: 100%; overflow: hidden; }
body { font-family: "DejaVu Sans", system-ui, sans-serif; }
.tol-stage { position: relative; margin: 0 auto; overflow: hidden; touch-action: none;
  user-select: none; -webkit-user-select: none; -webkit-touch-callout: none; transform-origin: top center; }
.tol-board, .tol-peg, .tol-rod, .tol-base, .tol-piece, .tol-label, .tol-marker, .tol-page-image { position: absolute; }
.tol-board { left: 0; top: 0; width: 100%; height: 100%; }
.tol-piece { left: 0; top: 0; box-sizing: border-box; border-radius: 0.35em; }
.tol-london { border-radius: 50%; }
.tol-labelled { display: flex; align-items: center; justify-content: center; font-weight: bold; }
.tol-lifted, .tol-cued { outline: 4px solid var(--tol-outline, #fff); outline-offset: -2px; }
.tol-lifted { z-index: 2; }
.tol-choice { position: absolute; box-sizing: border-box; display: flex; align-items: center;
  justify-content: center; border: 2px solid; }
.tol-target { position: absolute; box-sizing: border-box; border: 3px solid #fff; border-radius: 50%; }
.tol-marker { left: 0; top: 0; width: 0; height: 0; margin-left: calc(-1 * var(--tol-marker));
  border-left: var(--tol-marker) solid transparent; border-right: var(--tol-marker) solid transparent;
  border-top: calc(1.5 * var(--tol-marker)) solid #fff; }
.tol-label { transform: translate(-50%, -50%); text-align: center; white-space: pre-wrap; line-height: 1.3; }
.tol-moves, .tol-time, .tol-goal-label { white-space: nowrap; }
.tol-page-image { transform: translate(-50%, -50%); }
.tol-screen { max-width: 40em; margin: 10vh auto; padding: 1em 1.5em; font-size: 1.2em; text-align: center;
  background: #ffffff; color: #1a1a1a; border-radius: 0.4em; line-height: 1.4; }
.tol-screen h1 { font-size: 1.5em; margin: 0.2em 0 0.8em; }
.tol-screen a { color: #0b57d0; }
.tol-form { display: grid; gap: 0.5em; text-align: left; }
.tol-form input, .tol-screen button { font-size: 1em; padding: 0.4em 0.8em; color: #1a1a1a; background: #f0f0f0;
  border: 1px solid #5f5f5f; border-radius: 0.3em; }
.tol-form-error { color: #b00020; min-height: 1.2em; }
.tol-download { display: block; margin: 0.4em auto; }
html[data-tol-running] .tol-banner[data-notice=pilot] { display: none; }
.tol-banner button { font-size: 1em; padding: 0.1em 0.8em; color: #1a1a1a; background: #ffffff; border: 1px solid #3d2e00; }
.tol-banner { position: fixed; top: 0; left: 0; right: 0; z-index: 10; padding: 0.4em 1em; font-size: 1em;
  text-align: center; background: #fff3cd; color: #3d2e00; border-bottom: 2px solid #8a6d00; }
`;

export function injectStyle() {
  if (document.getElementById("tol-tasks-style")) return;
  const style = document.createElement("style");
  style.id = "tol-tasks-style";
  style.textContent = CSS;
  document.head.appendChild(style);
}
