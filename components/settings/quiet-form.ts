// Quiet hours as a person types them (Settings): on or off, a time zone,
// ranges ("22:00-07:00, 12:30-13:30"), whether alarms ring through and whether
// messages are answered at once or held until the quiet hours end. Pure,
// checked by the same schema the mind's config step is (QuietHours).
import { QuietHours } from "@/lib/trajectory/schema";

export const QUIET_ON_FIELD = "quiet_on";
export const QUIET_TZ_FIELD = "quiet_tz";
export const QUIET_RANGES_FIELD = "quiet_ranges";
export const QUIET_ALARMS_FIELD = "quiet_alarms";
export const QUIET_MESSAGES_FIELD = "quiet_messages";

/** The ranges as one line: "22:00-07:00, 12:30-13:30". */
export const rangesText = (q: QuietHours | undefined) => q?.ranges.join(", ") ?? "22:00-07:00";

/** The quiet hours as typed: none when switched off, else checked, with a sentence per problem. */
export function readQuietFields(f: FormData): { ok: true; quiet?: QuietHours } | { ok: false; problems: string[] } {
  if (f.get(QUIET_ON_FIELD) === null) return { ok: true };
  const ranges = String(f.get(QUIET_RANGES_FIELD) ?? "")
    .split(/[,;\s]+/)
    .map((r) => r.replace(/[–—]/g, "-").trim())
    .filter(Boolean);
  const messages = f.get(QUIET_MESSAGES_FIELD);
  const parsed = QuietHours.safeParse({
    tz: String(f.get(QUIET_TZ_FIELD) ?? "").trim(),
    ranges,
    alarms: f.get(QUIET_ALARMS_FIELD) !== null,
    // Absent (a form without the choice): the schema's default.
    ...(messages === null ? {} : { messages: String(messages) }),
  });
  if (parsed.success) return { ok: true, quiet: parsed.data };
  const problem = (i: (typeof parsed.error.issues)[number]) => {
    if (i.path[0] !== "ranges") return i.message;
    if (!ranges.length) return "give at least one range, e.g. 22:00-07:00";
    // Named as typed: "22:00-7:00: a range is …".
    return `${ranges[Number(i.path[1])] ?? "the ranges"}: ${i.message}`;
  };
  return { ok: false, problems: parsed.error.issues.map((i) => `Quiet hours: ${problem(i)}`) };
}
