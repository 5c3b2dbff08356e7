// A form's fields as FormData, as a submitted form gives them to its reader.
export function formOf(fields: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
}
