/** Median of numbers (mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

/** Formats a figure for the table. */
export function format(value, unit) {
  if (value === undefined || value === null || Number.isNaN(value)) return '—';
  if (unit === 'MiB/s') return `${value.toFixed(0)} MiB/s`;
  if (unit === 'req/s') return `${value.toFixed(0)} req/s`;
  if (unit === 'thumbnails/s') return `${value.toFixed(1)} /s`;
  if (unit === 'ms') return `${value < 10 ? value.toFixed(1) : value.toFixed(0)} ms`;
  return `${value} ${unit}`;
}

/** Renders rows (arrays of strings) as a Markdown table. */
export function table(header, rows) {
  const widths = header.map((_, i) => Math.max(header[i].length, ...rows.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
