// One tab per session: a participant who opens the link twice gets the
// session in the first tab only; the second says so and does not run.
//
// Web Locks (navigator.locks, on https and localhost pages): the first tab
// holds the session's lock until the page goes; a second asks for it with
// ifAvailable and is refused. Where Web Locks are missing (a plain http page
// on another host), a BroadcastChannel handshake: a new tab asks whether the
// session is open, an open one answers within a moment.

const HANDSHAKE_MS = 400;

const NONE = () => {};

/**
 * Claim the session named `name` for this tab. Resolves with a function that
 * gives the claim up (it lasts until then, or until the page goes), or null
 * when another tab has the session.
 */
export async function claimSession(name) {
  const locks = globalThis.navigator && navigator.locks;
  if (locks && typeof locks.request === "function") {
    return new Promise((resolve) => {
      let release = NONE;
      const held = new Promise((done) => (release = done));
      locks
        .request(`tol-tasks:${name}`, { ifAvailable: true }, (lock) => {
          if (!lock) {
            resolve(null);
            return undefined;
          }
          resolve(release);
          return held; // held until released or the page goes
        })
        .catch(() => resolve(NONE)); // a page where locks fail: nothing to share them with
    });
  }
  if (typeof BroadcastChannel === "undefined") return NONE;
  const channel = new BroadcastChannel("tol-tasks-sessions");
  const taken = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), HANDSHAKE_MS);
    channel.onmessage = (e) => {
      if (e.data && e.data.open === name) {
        clearTimeout(timer);
        resolve(true);
      }
    };
    channel.postMessage({ asks: name });
  });
  if (taken) {
    channel.close();
    return null;
  }
  channel.onmessage = (e) => {
    if (e.data && e.data.asks === name) channel.postMessage({ open: name });
  };
  return () => channel.close();
}
