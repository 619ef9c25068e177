/** `expiration_time` durations (contract §4): `HH:MM:SS` or `D HH:MM:SS`. */

const DURATION = /^(?:(\d{1,3}) )?(\d{1,3}):([0-5]\d):([0-5]\d)$/;
export const MAX_DURATION_SECONDS = 30 * 24 * 3600;

/** Seconds in the duration, or null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  const [, days, hours, minutes, seconds] = match;
  if (days !== undefined && Number(hours) > 23) return null;
  return Number(days ?? 0) * 86400 + Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
}

/** Normalised text: `"00:30:00"`, `"1 00:00:00"`, `"2 03:04:05"`. */
export function formatDuration(totalSeconds: number): string {
  const days = Math.floor(totalSeconds / 86400);
  const rest = totalSeconds % 86400;
  const pad = (n: number) => String(n).padStart(2, '0');
  const clock = `${pad(Math.floor(rest / 3600))}:${pad(Math.floor((rest % 3600) / 60))}:${pad(rest % 60)}`;
  return days > 0 ? `${days} ${clock}` : clock;
}
