import { createHash } from 'node:crypto';
import { stringify } from 'yaml';

/**
 * Renders Helm templates without helm: an interpreter for the subset of Go text/template and Sprig
 * that helm/foresight uses. Template actions are evaluated against real values rather than replaced
 * by placeholders, so the tests can follow names across resources (a Deployment's Secret reference to
 * the Secret) and compare ports and environment with the app. Anything outside the subset (range,
 * variables, a function not listed below) throws, naming the file and line: extend this file with
 * Helm's semantics when the chart starts using it, so nothing is silently skipped.
 *
 * Every branch body (if / else if / else, with) is recorded when it runs; `branchesNotRendered`
 * lets a test demand that each was rendered, and so YAML-checked, at least once.
 */

type Value = unknown;

interface Where {
  readonly file: string;
  readonly line: number;
}

type Operand = { kind: 'literal'; value: Value } | { kind: 'field'; path: string[] } | { kind: 'function'; name: string } | { kind: 'pipeline'; pipeline: Pipeline };

/** `a b | c d` is [[a, b], [c, d]]: each command's result is the last argument of the next. */
interface Pipeline {
  readonly commands: Operand[][];
  readonly where: Where;
}

interface Branch {
  readonly id: string;
  readonly condition?: Pipeline;
  readonly body: Node[];
}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'print'; pipeline: Pipeline }
  | { kind: 'if'; branches: Branch[] }
  | { kind: 'with'; subject: Pipeline; body: Branch };

class TemplateError extends Error {
  constructor(where: Where, message: string) {
    super(`${where.file}:${where.line}: ${message}`);
    this.name = 'TemplateError';
  }
}

export class TemplateSet {
  private readonly files = new Map<string, Node[]>();
  private readonly defines = new Map<string, Node[]>();
  private readonly branches = new Set<string>();
  private readonly rendered = new Set<string>();

  /** @param sources file name -> template text; every file's `define`s are visible to all. */
  constructor(sources: Record<string, string>) {
    for (const [file, source] of Object.entries(sources)) {
      this.files.set(file, new Parser(file, source, this.defines, this.branches).parse());
    }
  }

  /** Renders one file with `root` as `.` (Helm passes { Values, Release, Chart, ... }). */
  render(file: string, root: Value): string {
    const nodes = this.files.get(file);
    if (!nodes) throw new Error(`no template ${file}`);
    return this.execute(nodes, root);
  }

  /** Branch bodies ("file:line kind") that no render so far has entered. */
  branchesNotRendered(): string[] {
    return [...this.branches].filter((id) => !this.rendered.has(id));
  }

  private execute(nodes: Node[], dot: Value): string {
    let out = '';
    for (const node of nodes) {
      if (node.kind === 'text') {
        out += node.text;
      } else if (node.kind === 'print') {
        out += printable(this.evaluate(node.pipeline, dot), node.pipeline.where);
      } else if (node.kind === 'if') {
        const taken = node.branches.find((branch) => !branch.condition || truthy(this.evaluate(branch.condition, dot)));
        if (taken) out += this.enter(taken, dot);
      } else {
        const subject = this.evaluate(node.subject, dot);
        if (truthy(subject)) out += this.enter(node.body, subject);
      }
    }
    return out;
  }

  private enter(branch: Branch, dot: Value): string {
    this.rendered.add(branch.id);
    return this.execute(branch.body, dot);
  }

  private evaluate(pipeline: Pipeline, dot: Value): Value {
    return pipeline.commands.reduce<Value[]>(
      (piped, command) => [this.command(command, piped, dot, pipeline.where)],
      [],
    )[0];
  }

  private command([head, ...rest]: Operand[], piped: Value[], dot: Value, where: Where): Value {
    if (head.kind !== 'function') {
      if (rest.length > 0 || piped.length > 0) throw new TemplateError(where, 'only a function can take arguments');
      return this.operand(head, dot, where);
    }
    const args = [...rest.map((operand) => this.operand(operand, dot, where)), ...piped];
    if (head.name === 'include') return this.include(args, where);
    const fn = FUNCTIONS[head.name];
    if (!fn) throw new TemplateError(where, `unsupported function "${head.name}" (add it to test/packaging/go-template.ts)`);
    try {
      return fn(...args);
    } catch (error) {
      throw new TemplateError(where, `${head.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private include([name, data]: Value[], where: Where): Value {
    const body = typeof name === 'string' ? this.defines.get(name) : undefined;
    if (!body) throw new TemplateError(where, `include of unknown template ${JSON.stringify(name)}`);
    return this.execute(body, data);
  }

  private operand(operand: Operand, dot: Value, where: Where): Value {
    switch (operand.kind) {
      case 'literal':
        return operand.value;
      case 'field':
        return field(dot, operand.path, where);
      case 'pipeline':
        return this.evaluate(operand.pipeline, dot);
      case 'function':
        return this.command([operand], [], dot, where);
    }
  }
}

/** Go's truth: false, 0, nil and empty strings, lists and maps are false. */
function truthy(value: Value): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function isMap(value: Value): value is Record<string, Value> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A missing map key is nil, as in Helm; going further into nil is the error Helm reports too. */
function field(start: Value, path: string[], where: Where): Value {
  let value = start;
  let walked = '';
  for (const key of path) {
    if (value === undefined || value === null) throw new TemplateError(where, `nil pointer evaluating ${walked}.${key}`);
    if (!isMap(value)) throw new TemplateError(where, `can't evaluate field ${key} in ${walked} (not a map)`);
    value = Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
    walked += `.${key}`;
  }
  return value;
}

/** Sprig's string conversion of a scalar (fmt's %v). */
function text(value: Value): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`expected a string, got ${value === undefined ? 'a missing value' : JSON.stringify(value)}`);
}

/** Printing nil (Helm's "<no value>") or a whole map is always a template bug here, so it throws. */
function printable(value: Value, where: Where): string {
  try {
    return text(value);
  } catch {
    throw new TemplateError(where, `printing ${value === undefined ? 'a missing value' : JSON.stringify(value)}; use toYaml, quote or a default`);
  }
}

const FUNCTIONS: Record<string, (...args: Value[]) => Value> = {
  // Helm's toYaml sorts keys and drops the final newline.
  toYaml: (value) => (value === undefined || value === null ? 'null' : stringify(value, { sortMapEntries: true, lineWidth: 0 }).replace(/\n$/, '')),
  nindent: (spaces, value) => {
    const pad = ' '.repeat(Number(spaces));
    return `\n${pad}${text(value).replace(/\n/g, `\n${pad}`)}`;
  },
  quote: (...values) => values.filter((v) => v !== undefined && v !== null).map((v) => JSON.stringify(text(v))).join(' '),
  default: (fallback, value) => (truthy(value) ? value : fallback),
  not: (value) => !truthy(value),
  dict: (...pairs) => {
    if (pairs.length % 2 !== 0) throw new Error('dict needs key/value pairs');
    const result: Record<string, Value> = {};
    for (let i = 0; i < pairs.length; i += 2) result[text(pairs[i])] = pairs[i + 1];
    return result;
  },
  printf: (format, ...args) => {
    let next = 0;
    return text(format).replace(/%[sdv%]/g, (verb) => (verb === '%%' ? '%' : text(args[next++])));
  },
  contains: (needle, haystack) => text(haystack).includes(text(needle)),
  join: (separator, list) => (Array.isArray(list) ? list.map(text).join(text(separator)) : list === undefined || list === null ? '' : text(list)),
  replace: (from, to, value) => text(value).split(text(from)).join(text(to)),
  trunc: (length, value) => text(value).slice(0, Number(length)),
  trimSuffix: (suffix, value) => {
    const [s, end] = [text(value), text(suffix)];
    return end && s.endsWith(end) ? s.slice(0, -end.length) : s;
  },
  sha256sum: (value) => createHash('sha256').update(text(value)).digest('hex'),
  b64enc: (value) => Buffer.from(text(value)).toString('base64'),
};

interface ActionToken {
  readonly body: string;
  readonly where: Where;
}

type Token = { kind: 'text'; text: string } | { kind: 'action'; action: ActionToken };

/** Splits a template into text and actions, applying the `{{-` and `-}}` whitespace trims. */
function tokenize(file: string, source: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  let trimNextText = false;
  for (;;) {
    const open = source.indexOf('{{', position);
    let text = source.slice(position, open === -1 ? source.length : open);
    if (trimNextText) text = text.replace(/^\s+/, '');
    if (open === -1) {
      if (text) tokens.push({ kind: 'text', text });
      return tokens;
    }
    const where = { file, line: source.slice(0, open).split('\n').length };
    // "{{-3}}" is the number -3: a trim marker needs a space after the dash.
    const trimBefore = source[open + 2] === '-' && /\s/.test(source[open + 3] ?? '');
    if (trimBefore) text = text.replace(/\s+$/, '');
    if (text) tokens.push({ kind: 'text', text });
    const start = open + (trimBefore ? 3 : 2);
    const close = findClose(source, start, where);
    const trimAfter = source[close - 1] === '-' && /\s/.test(source[close - 2] ?? '');
    const body = source.slice(start, trimAfter ? close - 1 : close).trim();
    if (!(body.startsWith('/*') && body.endsWith('*/'))) tokens.push({ kind: 'action', action: { body, where } });
    trimNextText = trimAfter;
    position = close + 2;
  }
}

/** Index of the `}}` closing the action that starts at `start`, skipping strings and comments. */
function findClose(source: string, start: number, where: Where): number {
  if (source.slice(start).trimStart().startsWith('/*')) {
    const end = source.indexOf('*/', start);
    const close = end === -1 ? -1 : source.indexOf('}}', end);
    if (close === -1) throw new TemplateError(where, 'unterminated comment');
    return close;
  }
  for (let i = start; i < source.length; i++) {
    if (source[i] === '"') {
      const literal = /^"(?:[^"\\\n]|\\.)*"/.exec(source.slice(i));
      if (!literal) throw new TemplateError(where, 'unterminated string');
      i += literal[0].length - 1;
    } else if (source.startsWith('}}', i)) {
      return i;
    }
  }
  throw new TemplateError(where, 'unclosed action');
}

type ExpressionToken = Operand | { kind: '(' } | { kind: ')' } | { kind: '|' };

const EXPRESSION_PATTERNS: [RegExp, (match: RegExpExecArray) => ExpressionToken][] = [
  [/^"(?:[^"\\]|\\.)*"/, (m) => ({ kind: 'literal', value: JSON.parse(m[0]) as string })],
  [/^-?\d+(?:\.\d+)?(?![\w.])/, (m) => ({ kind: 'literal', value: Number(m[0]) })],
  [/^[()|]/, (m) => ({ kind: m[0] }) as ExpressionToken],
  [/^\.(\w+(?:\.\w+)*)?/, (m) => ({ kind: 'field', path: (m[1] ?? '').split('.').filter(Boolean) })],
  [/^(true|false)\b/, (m) => ({ kind: 'literal', value: m[0] === 'true' })],
  [/^[A-Za-z_]\w*/, (m) => ({ kind: 'function', name: m[0] })],
];

function tokenizeExpression(body: string, where: Where): ExpressionToken[] {
  const tokens: ExpressionToken[] = [];
  let rest = body.trim();
  while (rest) {
    const rule = EXPRESSION_PATTERNS.find(([pattern]) => pattern.test(rest));
    const match = rule?.[0].exec(rest);
    if (!rule || !match) throw new TemplateError(where, `unsupported expression ${JSON.stringify(rest)}`);
    tokens.push(rule[1](match));
    rest = rest.slice(match[0].length).trimStart();
  }
  return tokens;
}

class Parser {
  private readonly tokens: Token[];
  private position = 0;

  constructor(
    file: string,
    source: string,
    private readonly defines: Map<string, Node[]>,
    private readonly branches: Set<string>,
  ) {
    this.tokens = tokenize(file, source);
  }

  parse(): Node[] {
    const { nodes, end } = this.block();
    if (end) throw new TemplateError(end.where, `unexpected {{${end.body}}}`);
    return nodes;
  }

  /** Nodes up to the `else` or `end` that closes the current block, which is returned (consumed). */
  private block(): { nodes: Node[]; end?: ActionToken } {
    const nodes: Node[] = [];
    while (this.position < this.tokens.length) {
      const token = this.tokens[this.position++];
      if (token.kind === 'text') {
        nodes.push({ kind: 'text', text: token.text });
        continue;
      }
      const { body, where } = token.action;
      const [, keyword, rest] = /^(\w+)\b\s*(.*)$/s.exec(body) ?? [];
      if (keyword === 'end' || keyword === 'else') return { nodes, end: token.action };
      if (keyword === 'if') nodes.push(this.ifNode(rest, where));
      else if (keyword === 'with') nodes.push(this.withNode(rest, where));
      else if (keyword === 'define') this.define(rest, where);
      else if (['range', 'template', 'block', 'break', 'continue'].includes(keyword)) {
        throw new TemplateError(where, `unsupported action "${keyword}" (add it to test/packaging/go-template.ts)`);
      } else nodes.push({ kind: 'print', pipeline: this.pipeline(body, where) });
    }
    return { nodes };
  }

  /** A branch body, up to and including the `else` or `end` after it, which is returned. */
  private branch(kind: string, where: Where, condition?: Pipeline): { branch: Branch; end: ActionToken } {
    const id = `${where.file}:${where.line} ${kind}`;
    if (this.branches.has(id)) throw new TemplateError(where, `two "${kind}" branches on one line: put each on its own line`);
    this.branches.add(id);
    const { nodes, end } = this.block();
    if (!end) throw new TemplateError(where, `{{${kind}}} without {{end}}`);
    return { branch: { id, condition, body: nodes }, end };
  }

  private ifNode(condition: string, where: Where): Node {
    const branches: Branch[] = [];
    let next = this.branch('if', where, this.pipeline(condition, where));
    for (;;) {
      branches.push(next.branch);
      const { body, where: at } = next.end;
      if (body === 'end') return { kind: 'if', branches };
      if (branches.some((b) => !b.condition)) throw new TemplateError(at, `unexpected {{${body}}} after {{else}}`);
      const elseIf = /^else\s+if\s+(.*)$/s.exec(body);
      if (elseIf) next = this.branch('else if', at, this.pipeline(elseIf[1], at));
      else if (body === 'else') next = this.branch('else', at);
      else throw new TemplateError(at, `unexpected {{${body}}} in if`);
    }
  }

  private withNode(subject: string, where: Where): Node {
    const { branch, end } = this.branch('with', where);
    if (end.body !== 'end') throw new TemplateError(end.where, `unsupported {{${end.body}}} in with`);
    return { kind: 'with', subject: this.pipeline(subject, where), body: branch };
  }

  private define(nameSource: string, where: Where): void {
    const name: unknown = JSON.parse(nameSource);
    if (typeof name !== 'string') throw new TemplateError(where, 'define needs a quoted name');
    const { nodes, end } = this.block();
    if (end?.body !== 'end') throw new TemplateError(where, `define "${name}" without {{end}}`);
    if (this.defines.has(name)) throw new TemplateError(where, `template "${name}" defined twice`);
    this.defines.set(name, nodes);
  }

  private pipeline(source: string, where: Where): Pipeline {
    const tokens = tokenizeExpression(source, where);
    let index = 0;
    const parse = (): Pipeline => {
      const commands: Operand[][] = [[]];
      while (index < tokens.length) {
        const token = tokens[index];
        if (token.kind === ')') break;
        index++;
        if (token.kind === '|') {
          commands.push([]);
        } else if (token.kind === '(') {
          const inner = parse();
          if (tokens[index++]?.kind !== ')') throw new TemplateError(where, `missing ) in {{${source}}}`);
          commands[commands.length - 1].push({ kind: 'pipeline', pipeline: inner });
        } else {
          commands[commands.length - 1].push(token);
        }
      }
      if (commands.some((command) => command.length === 0)) throw new TemplateError(where, `empty command in {{${source}}}`);
      return { commands, where };
    };
    const pipeline = parse();
    if (index !== tokens.length) throw new TemplateError(where, `unexpected ) in {{${source}}}`);
    return pipeline;
  }
}
