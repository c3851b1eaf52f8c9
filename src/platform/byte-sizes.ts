const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * A size as people read a limit: `64 KiB`, `32 MiB`, else in bytes.
 *
 * @example
 * formatBytes(64 * 1024); // '64 KiB'
 */
export function formatBytes(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= KiB && bytes % KiB === 0) return `${bytes / KiB} KiB`;
  return `${bytes} bytes`;
}
