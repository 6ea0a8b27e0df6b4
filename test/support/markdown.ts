/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');

/** The anchors of every heading of a markdown text. */
export const anchorsOf = (markdown: string) => new Set([...markdown.matchAll(/^#+ (.+)$/gm)].map((match) => anchor(match[1]!)));

/** The text of the section under the heading whose anchor is `id`, to the next heading of its level or above. */
export function sectionOf(markdown: string, id: string): string | undefined {
  const headings = [...markdown.matchAll(/^(#+) (.+)$/gm)];
  const index = headings.findIndex((match) => anchor(match[2]!) === id);
  if (index < 0) return undefined;
  const level = headings[index]![1]!.length;
  const next = headings.slice(index + 1).find((match) => match[1]!.length <= level);
  return markdown.slice(headings[index]!.index!, next?.index ?? markdown.length);
}
