// The shipped default texts of a mind's self/ (lib/mind/self/defaults/*.md), imported as strings.
declare module "*.md" {
  const text: string;
  export default text;
}
