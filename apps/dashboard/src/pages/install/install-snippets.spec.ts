import { installSnippets } from './install-snippets';

describe('installSnippets', () => {
  it("fills every platform's snippet with this deployment's address and the token", () => {
    const snippets = installSnippets('https://foresight.example.com', 'pat_prod_abc', '0.1.0');
    expect(new Set(snippets.map((s) => s.platform))).toEqual(new Set(['Browser', 'Node', 'React Native', 'iOS', 'Android', 'Flutter']));
    for (const { code } of snippets) {
      expect(code).toContain('pat_prod_abc');
      expect(code).toContain('foresight.example.com');
    }
    // Segment's mobile SDKs take a host without a scheme, under /v1.
    expect(snippets.find((s) => s.sdk === 'Segment analytics-kotlin')?.code).toContain('apiHost = "foresight.example.com/v1"');
  });

  it('installs the Node and React Native SDKs from the tarballs this deployment serves, not from a registry', () => {
    const snippets = installSnippets('https://foresight.example.com', 'pat_prod_abc', '0.1.0');
    expect(snippets.find((s) => s.sdk === '@foresight/node')?.install).toBe('npm install https://foresight.example.com/sdk/foresight-node-0.1.0.tgz');
    expect(snippets.find((s) => s.sdk === '@foresight/react-native')?.install).toMatch(/^npm install https:\/\/foresight\.example\.com\/sdk\/foresight-react-native-0\.1\.0\.tgz /);
  });

  it('says that the mobile SDKs need HTTPS, and only there', () => {
    const snippets = installSnippets('http://localhost:3000', 'pat_prod_abc', '0.1.0');
    for (const snippet of snippets) expect(snippet.note?.includes('HTTPS only') ?? false).toBe(['React Native', 'iOS', 'Android', 'Flutter'].includes(snippet.platform));
  });
});
