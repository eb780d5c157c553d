import { installSnippets } from './install-snippets';

describe('installSnippets', () => {
  it("fills every platform's snippet with this deployment's address and the token", () => {
    const snippets = installSnippets('https://foresight.example.com', 'pat_prod_abc');
    expect(new Set(snippets.map((s) => s.platform))).toEqual(new Set(['Browser', 'Node', 'React Native', 'iOS', 'Android', 'Flutter']));
    for (const { code } of snippets) {
      expect(code).toContain('pat_prod_abc');
      expect(code).toContain('foresight.example.com');
    }
    // Segment's mobile SDKs take a host without a scheme, under /v1.
    expect(snippets.find((s) => s.sdk === 'Segment analytics-kotlin')?.code).toContain('apiHost = "foresight.example.com/v1"');
  });
});
