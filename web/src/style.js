// The page's look, injected once: a stage of absolutely placed boxes, no
// scrolling or selection, and touch-action: none so that a touch is never a pan or a zoom.

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
.tol-marker { left: 0; top: 0; width: 0; height: 0; margin-left: calc(-1 * var(--tol-marker));
  border-left: var(--tol-marker) solid transparent; border-right: var(--tol-marker) solid transparent;
  border-top: calc(1.5 * var(--tol-marker)) solid #fff; }
.tol-label { transform: translate(-50%, -50%); text-align: center; white-space: pre-wrap; line-height: 1.3; }
.tol-page-image { transform: translate(-50%, -50%); }
.tol-screen { max-width: 40em; margin: 10vh auto; padding: 1em; font-size: 1.2em; text-align: center; }
.tol-form { display: grid; gap: 0.5em; text-align: left; }
.tol-form input, .tol-screen button { font-size: 1em; padding: 0.4em 0.8em; }
.tol-form-error { color: #b00020; min-height: 1.2em; }
.tol-download { display: block; margin: 0.4em auto; }
`;

export function injectStyle() {
  if (document.getElementById("tol-tasks-style")) return;
  const style = document.createElement("style");
  style.id = "tol-tasks-style";
  style.textContent = CSS;
  document.head.appendChild(style);
}
