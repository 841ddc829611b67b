/**
 * A byte count as people read it: "900 bytes", "256 KiB", "304.7 KiB", "2 MiB". Rounded UP to
 * one decimal, so a size just over a limit never reads as equal to it.
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${bytes} bytes`;
  const [unit, size] = bytes < 1024 * 1024 ? ["KiB", bytes / 1024] : ["MiB", bytes / 1024 ** 2];
  const tenths = Math.ceil(size * 10 - 1e-9) / 10;
  return `${Number.isInteger(tenths) ? tenths : tenths.toFixed(1)} ${unit}`;
}
