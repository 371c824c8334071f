// The one byte-size format: binary units (1 KB = 1024 bytes) with KB/MB labels, as VS Code
// itself shows sizes, so the Volumes tree, upload progress and the chat's file warnings
// agree with each other and with the editor (before, the tree counted in 1000s and upload
// in 1024s).

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;
const STEP = 1024;

/** "999 B", "1.2 KB", "50 KB", "1.2 MB": one decimal below 10 units, whole numbers above. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '? B';
  let value = bytes;
  let unit = 0;
  while (value >= STEP && unit < UNITS.length - 1) {
    value /= STEP;
    unit++;
  }
  if (unit === 0) return `${Math.round(value)} B`;
  const text = value < 9.95 ? value.toFixed(1) : String(Math.round(value));
  // 1023.6 KB rounds to "1024 KB": say "1.0 MB" instead.
  if (text === String(STEP) && unit < UNITS.length - 1) return `1.0 ${UNITS[unit + 1]}`;
  return `${text} ${UNITS[unit]}`;
}
