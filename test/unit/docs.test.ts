import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_DOC, renderConfiguration } from '../../scripts/configuration-doc.js';
import { ErrorCode } from '../../src/errors.js';
import { blocksBetween, CLIENTS_RELAY_STEP, README_APP_STEP } from '../support/app-folder.js';
import { anchorsOf } from '../support/markdown.js';

/**
 * The docs hold what the code does: generated parts are current, codes and commands exist, links
 * resolve, and every file, declaration and section the docs or the code's comments cite exists.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCS = ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)];

describe('docs', () => {
  it('docs/configuration.md is what the settings table renders', () => {
    expect(readFileSync(CONFIGURATION_DOC, 'utf8'), 'docs/configuration.md is stale: run `npm run docs:write` and commit it').toBe(
      renderConfiguration(),
    );
  });

  it('docs/errors.md lists every code of src/errors.ts once, and no other', () => {
    const rows = [...read('docs/errors.md').matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect(rows.toSorted()).toEqual(Object.values(ErrorCode).toSorted());
  });

  it('names only npm scripts that exist', () => {
    const scripts = Object.keys(JSON.parse(read('package.json')).scripts as Record<string, string>);
    const sources = [...DOCS, ...['src', 'scripts', 'examples', 'test', 'bench'].flatMap((folder) => filesUnder(folder))];
    const named = sources.flatMap((file) => [...read(file).matchAll(/npm run ([a-z][\w:.-]*)/g)].map((match) => `${file}: ${match[1]}`));
    expect(named.filter((entry) => !scripts.includes(entry.split(': ')[1]!))).toEqual([]);
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, hash] = target!.split('#') as [string, string | undefined];
        const linked = path === '' ? file : relative(ROOT, join(ROOT, dirname(file), path));
        let text: string;
        try {
          text = read(linked);
        } catch {
          broken.push(`${file} -> ${target}`);
          continue;
        }
        if (hash !== undefined && !anchorsOf(text).has(hash)) broken.push(`${file} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('runs every command of this repository through ./run (Node 24), and builds the image with podman', () => {
    // The shell blocks a reader runs in an app of their own, on their own Node.
    const appSteps: Record<string, readonly [string, string]> = { 'README.md': README_APP_STEP, 'docs/clients.md': CLIENTS_RELAY_STEP };
    // With Node 24 on the PATH, as the README says next to them, these need no ./run.
    const withoutRun = new Set(['npm install && npm start', 'npm ci && npm test']);
    // A heading names the suite; its anchor is linked to.
    const headings = /^#+ .*$/gm;
    const wrong = DOCS.flatMap((file) => {
      const text = read(file);
      const step = appSteps[file];
      const appBlocks = step ? blocksBetween(text, ...step).map(({ text: block }) => block) : [];
      const blocks = [...text.matchAll(/```\w*\n([\s\S]*?)```/g)].map((match) => match[1]!).filter((block) => !appBlocks.includes(block));
      const prose = text.replace(/```\w*\n[\s\S]*?```/g, '').replace(headings, '');
      const commands = [
        ...[...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!).filter((span) => !withoutRun.has(span)),
        ...blocks.flatMap((block) => block.split('\n')),
      ];
      // A command: at the start, after && or ;, behind any VARIABLE=value assignments.
      return commands
        .filter((command) => /(?:^|&&|;)\s*(?:[A-Z_]+=\S*\s+)*(?:npm|npx|docker) /.test(command))
        .map((command) => `${file}: ${command}`);
    });
    expect(wrong).toEqual([]);
  });

  it('keeps the README to what a newcomer reads in five minutes', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });
});

describe('citations, in the docs and in the comments of the code', () => {
  const cited = CITING.map((file) => ({ file, text: citingTextOf(file) }));
  const where = (file: string, text: string, index: number) => `${file}:${text.slice(0, index).split('\n').length}`;

  it('name only repository files and folders that exist', () => {
    const dangling = cited.flatMap(({ file, text }) =>
      [...text.matchAll(PATH)].filter((match) => !exists(match[0])).map((match) => `${where(file, text, match.index)}: ${match[0]}`),
    );
    expect(dangling).toEqual([]);
  });

  it('name by its file name alone only a TypeScript file that exists', () => {
    const names = new Set(repositoryFiles('').map((file) => file.split('/').at(-1)));
    const dangling = cited.flatMap(({ file, text }) =>
      [...text.matchAll(BARE_NAME)]
        .filter((match) => !names.has(match[0]))
        .map((match) => `${where(file, text, match.index)}: ${match[0]}`),
    );
    expect(dangling).toEqual([]);
  });

  it('name only declarations that the file cited next to them holds', () => {
    const missing = cited.flatMap(({ file, text }) =>
      [...text.matchAll(NAME_IN_FILE)]
        .map((match) => ({ match, name: (match[1] ?? match[3])!, path: (match[2] ?? match[4])! }))
        .filter(({ name, path }) => CODE.test(path) && !FILE_NAME.test(name) && exists(path))
        .filter(({ name, path }) => !declaredIn(path).has(name.split('.').at(-1)!))
        .map(({ match, name, path }) => `${where(file, text, match.index)}: \`${name}\` is not declared in ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('name only sections that the document cited holds', () => {
    const missing = cited.flatMap(({ file, text }) =>
      [...text.matchAll(SECTION)]
        .map((match) => ({ match, doc: (match[1] ?? match[3])!, section: (match[2] ?? match[4])! }))
        .filter(({ doc, section }) => {
          const path = /\.md$/.test(doc) ? doc : `${doc}.md`;
          const headings = exists(path) ? [...read(path).matchAll(/^#+ (.+)$/gm)].map((heading) => heading[1]!.toLowerCase()) : [];
          return !headings.some((heading) => heading.includes(section.toLowerCase()));
        })
        .map(({ match, doc, section }) => `${where(file, text, match.index)}: ${doc} has no section "${section}"`),
    );
    expect(missing).toEqual([]);
  });
});

/*
 * What counts as a citation, kept narrow so that it has no false positives:
 *
 * - a path: a token that starts with one of the repository's folders (`src/`, `test/`, `docs/`,
 *   `bench/`, `scripts/`, `examples/`, `deploy/`, `.ci/`), or is one of its top-level files
 *   (`README.md`, `Dockerfile`, `package.json`, ...), but not one inside another path (`./src/gql/`,
 *   `node_modules/.cache/...`, a URL). `<name>` and `*` are wildcards that must match at least one
 *   file; `{a,b}` alternatives;
 * - a bare file name ending in `.ts` (`use-jit.ts`, as a walk through a folder writes it): some
 *   file of the repository has that name;
 * - a declaration: a name in backticks followed by `in <path>` or `(<path>`, the path to a code
 *   file, as in "`REDACT_PATHS` in `src/observability/logger.ts`" or "`RequestBudget`
 *   (`src/upstream/budget.ts`)". It must be declared there (exported or not; for `a.b`, `b`);
 * - a section: "CONTRIBUTING's layout section", "docs/configuration.md, section Upstream": a heading
 *   of that document must hold the words.
 *
 * Where: the prose of README.md, CONTRIBUTING.md and docs/*.md, with the comments of their code
 * blocks and the whole of their `sh` blocks (commands run in this repository), but no comment line
 * that says "your app" (it shows the reader's files); and in the code, its comments and the titles
 * of its tests, nothing else.
 */
const SEGMENT = String.raw`(?:[\w.*<>@-]|\{[\w,.-]+\})+`;
const TOP_LEVEL = String.raw`(?:[A-Z]+\.md|Dockerfile|package(?:-lock)?\.json|tsconfig(?:\.\w+)?\.json|\w+\.config\.(?:ts|js|json)|biome\.json|knip\.jsonc|codegen\.ts|(?:schema|subgraph)\.graphql|\.node-version|\.dockerignore|\.gitignore|\.dependency-cruiser\.cjs)`;
const PATH_SOURCE = String.raw`(?<![\w./@<>*{-])(?:(?:src|test|docs|bench|scripts|examples|deploy|\.ci)/(?:${SEGMENT}(?:/${SEGMENT})*)?(?<!\.)|${TOP_LEVEL}(?![\w/-]))`;
const PATH = new RegExp(PATH_SOURCE, 'g');
const BARE_NAME = /(?<![\w./@<>*{-])[a-z][\w-]*(?:\.[\w-]+)*\.ts(?![\w/-]|\.\w)/g;
const NAME = String.raw`\`([A-Za-z_$#][\w$#]*(?:\.[A-Za-z_$#][\w$#]*)*)(?:\([^\`]*\))?\``;
const NAME_IN_FILE = new RegExp(String.raw`${NAME}\s+in\s+\`?(${PATH_SOURCE})|${NAME}\s+\(\`?(${PATH_SOURCE})`, 'g');
const DOC_NAME = String.raw`(README|CONTRIBUTING|docs/[\w-]+)(?:\.md)?`;
const SECTION = new RegExp(
  String.raw`\b${DOC_NAME}(?:'s|,)?\s+(?:the\s+)?"?([A-Za-z][\w-]*)"?\s+section\b|\b${DOC_NAME},\s+section\s+"?([A-Za-z][\w -]*[\w-])`,
  'g',
);
const CODE = /\.(?:ts|js|cjs|mjs)$/;
const FILE_NAME = /\.(?:graphql|jsonc?|md|[cm]?[jt]sx?|ya?ml|sh|pem)$/;

const CITING = [
  ...DOCS,
  ...['src', 'test', 'bench', 'scripts', 'examples']
    .flatMap((folder) => filesUnder(folder))
    .filter((file) => !/__generated__|\/generated\//.test(file)),
  ...readdirSync(ROOT).filter((name) => /\.(ts|js|cjs)$/.test(name)),
].filter((file) => !file.endsWith('.md') || DOCS.includes(file));

/** The file's citing text, as long as the file: what is not prose or comment is blanked, line breaks kept. */
function citingTextOf(file: string): string {
  const text = read(file);
  if (file.endsWith('.md')) return proseOf(text);
  if (file.endsWith('.sh')) return text.replace(/^[^#\n]*(?:#(?!!)|$)/gm, (code) => code.replace(/[^\n]/g, ' '));
  return commentsOf(file, text);
}

function proseOf(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const opening = /^\s*```(\w*)/.exec(line);
      if (opening) {
        fence = fence === undefined ? opening[1] : undefined;
        return blank(line);
      }
      if (fence === undefined || fence === 'sh') return line;
      const comment = /(?<!:)\/\/.*$|^\s*#.*$/.exec(line);
      return comment && !/your app/i.test(comment[0]) ? blank(line.slice(0, comment.index)) + comment[0] : blank(line);
    })
    .join('\n');
}

/**
 * The comments of a TypeScript or JavaScript file, and the titles of its tests (`describe`, `it`,
 * `test`), found by TypeScript's parser rather than by a pattern that a string or a regular
 * expression would fool; the rest blanked.
 */
function commentsOf(file: string, text: string): string {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const kept = new Map<number, number>();
  const visit = (node: ts.Node) => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    // A comment on the line of the token before it is that token's trailing comment, not a leading one of the next.
    for (const range of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])]) {
      kept.set(range.pos, range.end);
    }
    const title = ts.isCallExpression(node) && TEST_FUNCTIONS.has(leftmost(node.expression)) ? node.arguments[0] : undefined;
    if (title && ts.isStringLiteralLike(title)) kept.set(title.getStart(source) + 1, title.end - 1);
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  let citing = blank(text);
  for (const [start, end] of kept) {
    const part = text.slice(start, end).replace(/^\/[/*]\**|\*\/$|^(\s*)\*/gm, (marker) => blank(marker));
    citing = citing.slice(0, start) + part + citing.slice(end);
  }
  return citing;
}

const TEST_FUNCTIONS = new Set(['describe', 'it', 'test']);
const leftmost = (callee: ts.Expression): string =>
  ts.isIdentifier(callee)
    ? callee.text
    : ts.isPropertyAccessExpression(callee) || ts.isCallExpression(callee)
      ? leftmost(callee.expression)
      : '';

const blank = (text: string) => text.replace(/[^\n]/g, ' ');

const DECLARATIONS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.ClassDeclaration,
  ts.SyntaxKind.InterfaceDeclaration,
  ts.SyntaxKind.TypeAliasDeclaration,
  ts.SyntaxKind.EnumDeclaration,
  ts.SyntaxKind.EnumMember,
  ts.SyntaxKind.ModuleDeclaration,
  ts.SyntaxKind.VariableDeclaration,
  ts.SyntaxKind.BindingElement,
  ts.SyntaxKind.Parameter,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.PropertyDeclaration,
  ts.SyntaxKind.PropertySignature,
  ts.SyntaxKind.MethodSignature,
  ts.SyntaxKind.PropertyAssignment,
  ts.SyntaxKind.ShorthandPropertyAssignment,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
  ts.SyntaxKind.ExportSpecifier,
]);

/** The names a code file declares: its exports and everything else it gives a name to (members and properties included). */
function declaredIn(file: string): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node) => {
    const name = (node as { name?: ts.Node }).name;
    if (DECLARATIONS.has(node.kind) && name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name))) {
      names.add(name.text.replace(/^#/, ''));
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, false));
  return names;
}

/** Whether a cited path exists; a path with wildcards must match at least one file. */
function exists(cited: string): boolean {
  const path = cited.replace(/<[^>]*>/g, '*');
  if (!/[*{]/.test(path)) return existsSync(join(ROOT, path));
  const literal = path.slice(0, path.search(/[*{]/)).replace(/[^/]*$/, '');
  const literally = (text: string) => text.replace(/[.+?^$()|[\]\\{}*]/g, '\\$&');
  const glob = path.split(/(\*\*\/|\*|\{[^}]*\})/).map((part) => {
    if (part === '**/') return '(?:.*/)?';
    if (part === '*') return '[^/]*';
    return part.startsWith('{') ? `(?:${part.slice(1, -1).split(',').map(literally).join('|')})` : literally(part);
  });
  const pattern = new RegExp(`^${glob.join('')}/?$`);
  return existsSync(join(ROOT, literal)) && repositoryFiles(literal, true).some((file) => pattern.test(file));
}

/** Every file (and, with folders, every folder, ending in /) under a folder of the repository, as paths from its root. */
function repositoryFiles(folder: string, folders = false): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}${entry.name}`;
    if (!entry.isDirectory()) return [path];
    if (['node_modules', '.git', 'dist', 'coverage'].includes(entry.name)) return [];
    return [...(folders ? [`${path}/`] : []), ...repositoryFiles(`${path}/`, folders)];
  });
}

function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|md|sh)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}
