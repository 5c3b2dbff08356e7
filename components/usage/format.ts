// Dollars as the page's spend line writes them (components/mind/SpendSummary.tsx),
// so the usage table and the spend line read the same for the same figure.
export { usd } from "@/lib/trajectory/figures";
