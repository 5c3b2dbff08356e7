// Dollars as the page's spend line writes them (components/mind/SpendSummary.tsx),
// so the usage table and the spend line read the same for the same figure.
export const usd = (n: number) => `$${n > 0 && n < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;
