/**
 * Text for an HTML text node or a quoted attribute value: `& < > " '` become numeric character
 * references (HTML Living Standard §13.1.4), so a file name can never open a tag or leave an attribute.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A byte count for people, in decimal units as file managers show them (`48.2 kB`, `3.1 MB`;
 * 1 kB = 1,000 bytes, IEC 80000-13): one decimal below 100 of a unit, none above.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['kB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes / 1000;
  let unit = 0;
  // 999.5 and up would round to "1000": the next unit says it better.
  while (value >= 999.5 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value < 100 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
