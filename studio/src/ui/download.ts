/** Saves `blob` as the file `name` through the browser's own download. */
export function downloadBlob(blob: Blob, name: string): void {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL by the next task; then it can go.
  setTimeout(() => URL.revokeObjectURL(href), 1000);
}
