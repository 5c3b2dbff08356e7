// Figures as people read them, one way everywhere: dollars as the page's
// spend line writes them, and short durations. The usage view, the pacing
// words and the eval scoreboard all use these. Pure.

/** Dollars: four decimals under a cent, else two. */
export const usd = (n: number) => `$${n > 0 && n < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;

/** 5 s, 1.5 min, 2 h: one decimal at most. */
export function shortDuration(s: number): string {
  const one = (n: number) => String(Math.round(n * 10) / 10);
  if (s < 60) return `${one(s)} s`;
  if (s < 3600) return `${one(s / 60)} min`;
  return `${one(s / 3600)} h`;
}
