// Files the participant's browser downloads: at the end of a pilot (built with
// --download), and offered on the last page when the data could not be saved.

/** Download `text` as a file called `name`. */
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.textContent = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

/** A link that downloads `text` again (shown on the last page, in case a download was blocked). */
export function downloadLink(name, text, type) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  a.textContent = name;
  a.className = "tol-download";
  return a;
}
