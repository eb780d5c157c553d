import { TemplateSet } from './go-template';

/** The chart tests are only as good as this renderer: it must agree with Go templates and Sprig as Helm runs them. */
describe('Go template renderer used by the chart tests', () => {
  const render = (template: string, values: unknown = {}, helpers = ''): string =>
    new TemplateSet({ 'helpers.tpl': helpers, 'test.yaml': template }).render('test.yaml', { Values: values });

  it('trims whitespace at {{- and -}} but not at {{ and }}', () => {
    expect(render('a  \n  {{- "b" -}}  \n  c')).toBe('abc');
    expect(render('a {{ "b" }} c')).toBe('a b c');
    // A dash without a following space is a negative number, not a trim marker.
    expect(render('a {{-3}} c')).toBe('a -3 c');
  });

  it('indents included helpers and toYaml output with nindent, keys sorted as Helm does', () => {
    const helpers = '{{- define "labels" -}}\nname: {{ .name }}\ntier: web\n{{- end }}';
    expect(render('labels:\n  {{- include "labels" (dict "name" "x") | nindent 2 }}', {}, helpers)).toBe('labels:\n  name: x\n  tier: web');
    expect(render('res:\n  {{- toYaml .Values.r | nindent 2 }}', { r: { requests: { memory: '1Gi', cpu: 1 } } })).toBe(
      'res:\n  requests:\n    cpu: 1\n    memory: 1Gi',
    );
  });

  it('follows Go truthiness in if / else if / else and with', () => {
    const template = '{{ if .Values.a }}A{{ else if .Values.b }}B{{ else }}C{{ end }}';
    expect(render(template, { a: 'x', b: true })).toBe('A');
    expect(render(template, { a: '', b: [1] })).toBe('B');
    expect(render(template, { a: 0, b: {} })).toBe('C');
    expect(render('{{ with .Values.m }}{{ .k }}{{ end }}', { m: { k: 'v' } })).toBe('v');
    expect(render('{{ with .Values.m }}{{ .k }}{{ end }}', { m: {} })).toBe('');
  });

  it('implements the Sprig functions the chart uses', () => {
    expect(render('{{ .Values.n | quote }} {{ "" | default "d" }} {{ .Values.missing | default "d" }}', { n: 3000 })).toBe('"3000" d d');
    expect(render('{{ printf "%s-%s" "a" "b" | trunc 3 | trimSuffix "-" }}')).toBe('a-b');
    expect(render('{{ "a+b" | replace "+" "_" }} {{ contains "ore" "foresight" }} {{ "hi" | b64enc }} {{ not "" }}')).toBe('a_b true aGk= true');
    expect(render('{{ "x" | sha256sum }}')).toBe('2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
  });

  it('rejects what Helm would reject or what it cannot check', () => {
    expect(() => render('{{ .Values.a.b }}', {})).toThrow(/nil pointer evaluating \.Values\.a\.b/);
    expect(() => render('{{ .Values.missing }}', {})).toThrow(/printing a missing value/);
    expect(() => render('{{ .Values.m }}', { m: { a: 1 } })).toThrow(/use toYaml/);
    expect(() => render('{{ upper "x" }}')).toThrow(/test\.yaml:1: unsupported function "upper"/);
    expect(() => render('\n{{ range .Values.l }}x{{ end }}', { l: [1] })).toThrow(/test\.yaml:2: unsupported action "range"/);
    expect(() => render('{{ $x := 1 }}')).toThrow(/unsupported expression "\$x := 1"/);
    expect(() => render('{{ include "nope" . }}')).toThrow(/unknown template "nope"/);
    expect(() => render('{{ if .Values.a }}x')).toThrow(/without \{\{end\}\}/);
    expect(() => render('x\n{{ end }}')).toThrow(/test\.yaml:2: unexpected/);
  });

  it('skips comments and reports the branch bodies no render has entered', () => {
    const templates = new TemplateSet({
      't.yaml': '{{- /* a comment, with {{ braces }} */ -}}\n{{ if .Values.a }}\nA\n{{ else }}\nB\n{{ end }}\n{{ with .Values.w }}W{{ end }}',
    });
    expect(templates.render('t.yaml', { Values: { a: true, w: '' } }).trim()).toBe('A');
    expect(templates.branchesNotRendered()).toEqual(['t.yaml:4 else', 't.yaml:7 with']);
    templates.render('t.yaml', { Values: { a: false, w: 'x' } });
    expect(templates.branchesNotRendered()).toEqual([]);
  });
});
